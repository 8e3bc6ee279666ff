//! The mapping tables: AT-SPI roles, states and action names to AccessKit's, in one place.
//! `docs/atspi.md` prints these tables; a test there keeps the page and the code in step.

use accesskit::{Action, Role};
use atspi::{Role as R, State};

/// AT-SPI role → AccessKit role. Roles not listed map to `GenericContainer`.
pub const ROLES: &[(R, Role)] = &[
    (R::Application, Role::Application),
    (R::Frame, Role::Window),
    (R::Window, Role::Window),
    (R::Dialog, Role::Dialog),
    (R::Alert, Role::AlertDialog),
    (R::FileChooser, Role::Dialog),
    (R::ColorChooser, Role::Dialog),
    (R::FontChooser, Role::Dialog),
    (R::Button, Role::Button),
    (R::PushButtonMenu, Role::Button),
    // AccessKit's toggle button is a Button with `toggled` (from Pressed or Checked).
    (R::ToggleButton, Role::Button),
    (R::CheckBox, Role::CheckBox),
    (R::CheckMenuItem, Role::MenuItemCheckBox),
    (R::RadioButton, Role::RadioButton),
    (R::RadioMenuItem, Role::MenuItemRadio),
    (R::Label, Role::Label),
    (R::Static, Role::Label),
    (R::AcceleratorLabel, Role::Label),
    (R::Caption, Role::Caption),
    (R::Heading, Role::Heading),
    (R::Paragraph, Role::Paragraph),
    (R::Text, Role::TextInput),
    (R::Entry, Role::TextInput),
    (R::PasswordText, Role::PasswordInput),
    (R::SpinButton, Role::SpinButton),
    (R::Slider, Role::Slider),
    (R::Dial, Role::Slider),
    (R::ScrollBar, Role::ScrollBar),
    (R::ScrollPane, Role::ScrollView),
    (R::Viewport, Role::ScrollView),
    (R::ProgressBar, Role::ProgressIndicator),
    (R::LevelBar, Role::Meter),
    (R::ComboBox, Role::ComboBox),
    (R::List, Role::List),
    (R::ListBox, Role::ListBox),
    (R::ListItem, Role::ListItem),
    (R::Menu, Role::Menu),
    (R::PopupMenu, Role::Menu),
    (R::MenuBar, Role::MenuBar),
    (R::MenuItem, Role::MenuItem),
    (R::TearoffMenuItem, Role::MenuItem),
    (R::PageTab, Role::Tab),
    (R::PageTabList, Role::TabList),
    (R::Table, Role::Table),
    (R::TreeTable, Role::TreeGrid),
    (R::TableCell, Role::Cell),
    (R::TableRow, Role::Row),
    (R::TableColumnHeader, Role::ColumnHeader),
    (R::ColumnHeader, Role::ColumnHeader),
    (R::TableRowHeader, Role::RowHeader),
    (R::RowHeader, Role::RowHeader),
    (R::Tree, Role::Tree),
    (R::TreeItem, Role::TreeItem),
    (R::ToolBar, Role::Toolbar),
    (R::ToolTip, Role::Tooltip),
    (R::StatusBar, Role::Status),
    (R::Notification, Role::Alert),
    (R::InfoBar, Role::Alert),
    (R::Separator, Role::Splitter),
    (R::SplitPane, Role::Pane),
    (R::Panel, Role::GenericContainer),
    (R::Filler, Role::GenericContainer),
    (R::Grouping, Role::Group),
    (R::Section, Role::Section),
    (R::Form, Role::Form),
    (R::Image, Role::Image),
    (R::Icon, Role::Image),
    (R::Canvas, Role::Canvas),
    (R::DrawingArea, Role::Canvas),
    (R::Link, Role::Link),
    (R::DocumentFrame, Role::Document),
    (R::DocumentText, Role::Document),
    (R::DocumentWeb, Role::Document),
    (R::Terminal, Role::Terminal),
    (R::TitleBar, Role::TitleBar),
    (R::Header, Role::Header),
    (R::Footer, Role::Footer),
    (R::Article, Role::Article),
    (R::Landmark, Role::Region),
    (R::Math, Role::Math),
    (R::Timer, Role::Timer),
    (R::Log, Role::Log),
    (R::Marquee, Role::Marquee),
    (R::Comment, Role::Comment),
    (R::Audio, Role::Audio),
    (R::Video, Role::Video),
    (R::Mark, Role::Mark),
    (R::Suggestion, Role::Suggestion),
    (R::ContentDeletion, Role::ContentDeletion),
    (R::ContentInsertion, Role::ContentInsertion),
    (R::DescriptionList, Role::DescriptionList),
    (R::DescriptionTerm, Role::Term),
    (R::DescriptionValue, Role::Definition),
    (R::Definition, Role::Definition),
    (R::BlockQuote, Role::Blockquote),
];

/// The AccessKit role of an AT-SPI role.
pub fn role(r: R) -> Role {
    ROLES
        .iter()
        .find(|(a, _)| *a == r)
        .map_or(Role::GenericContainer, |(_, k)| *k)
}

/// AT-SPI roles that hold editable or readable text whose content is the node's value (a
/// spreadsheet cell's name is its address, "B2"; its text is what it holds).
pub fn text_is_value(r: R) -> bool {
    matches!(
        r,
        R::Text
            | R::Entry
            | R::PasswordText
            | R::SpinButton
            | R::Terminal
            | R::ComboBox
            | R::TableCell
    )
}

/// How each AT-SPI state shows in a node (the states not listed do not show).
pub const STATES: &[(State, &str)] = &[
    (State::Checked, "toggled: true"),
    (State::Indeterminate, "toggled: mixed (checkable nodes)"),
    (State::Pressed, "toggled: true (toggle buttons)"),
    (State::Expanded, "expanded: true"),
    (State::Expandable, "expanded: false unless Expanded"),
    (State::Selected, "selected: true"),
    (State::Focused, "focused (the tree's focus)"),
    (
        State::Enabled,
        "disabled when neither Enabled nor Sensitive",
    ),
    (
        State::Sensitive,
        "disabled when neither Enabled nor Sensitive",
    ),
    (State::Editable, "read-only when a text role lacks it"),
    (
        State::Showing,
        "hidden when a node lacks Showing and Visible",
    ),
    (State::Modal, "modal (dialogs)"),
    (State::Required, "required"),
    (State::Multiselectable, "multiselectable"),
];

/// Toolkit action names (lower-cased, `-`/`_`/space removed) → the AccessKit action they
/// perform. GTK3 says "click", GTK4 "click" or "activate", Qt "Press", "Toggle", "SetFocus",
/// "ShowMenu", AccessKit "click", "focus", …
pub const ACTIONS: &[(&str, Action)] = &[
    ("click", Action::Click),
    ("press", Action::Click),
    ("activate", Action::Click),
    ("toggle", Action::Click),
    ("jump", Action::Click),
    ("open", Action::Click),
    ("defaultactivate", Action::Click),
    ("setfocus", Action::Focus),
    ("focus", Action::Focus),
    ("grabfocus", Action::Focus),
    ("showmenu", Action::ShowContextMenu),
    ("menupopup", Action::ShowContextMenu),
    ("showcontextmenu", Action::ShowContextMenu),
    ("popup", Action::ShowContextMenu),
    ("expand", Action::Expand),
    ("expandorcontract", Action::Expand),
    ("collapse", Action::Collapse),
    ("increase", Action::Increment),
    ("increment", Action::Increment),
    ("decrease", Action::Decrement),
    ("decrement", Action::Decrement),
    ("scrollintoview", Action::ScrollIntoView),
];

/// Normalises a toolkit action name: lower case, without separators and dots
/// (`"menu.popup"` → `"menupopup"`, `"SetFocus"` → `"setfocus"`).
pub fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The AccessKit action a toolkit action name performs, if it is one we know.
pub fn action(name: &str) -> Option<Action> {
    let n = normalise(name);
    ACTIONS.iter().find(|(a, _)| *a == n).map(|(_, k)| *k)
}

/// The index of the toolkit action that performs `want`, preferring the first listed name
/// in [`ACTIONS`] order (so "click" wins over "activate" when a node has both).
pub fn find_action(names: &[String], want: Action) -> Option<usize> {
    let normal: Vec<String> = names.iter().map(|n| normalise(n)).collect();
    ACTIONS
        .iter()
        .filter(|(_, k)| *k == want)
        .find_map(|(a, _)| normal.iter().position(|n| n == a))
}

/// The role table of `docs/atspi.md` (markdown).
pub fn roles_table() -> String {
    let mut out = String::from("| AT-SPI role | AccessKit role |\n|---|---|\n");
    for (a, k) in ROLES {
        out.push_str(&format!("| `{}` | `{k:?}` |\n", a.name()));
    }
    out.push_str("| any other | `GenericContainer` |\n");
    out
}

/// The state table of `docs/atspi.md` (markdown).
pub fn states_table() -> String {
    let mut out = String::from("| AT-SPI state | in the node |\n|---|---|\n");
    for (st, what) in STATES {
        out.push_str(&format!("| `{}` | {what} |\n", st.to_static_str()));
    }
    out
}

/// The action table of `docs/atspi.md` (markdown).
pub fn actions_table() -> String {
    let mut out =
        String::from("| toolkit action (normalised) | AccessKit action / op name |\n|---|---|\n");
    for (name, a) in ACTIONS {
        out.push_str(&format!(
            "| `{name}` | `{}` |\n",
            automation_core::snapshot::action_name(*a)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolkit_names_normalise_to_one_action() {
        for n in ["click", "Click", "Press", "activate", "Toggle"] {
            assert_eq!(action(n), Some(Action::Click), "{n}");
        }
        assert_eq!(action("SetFocus"), Some(Action::Focus));
        assert_eq!(action("ShowMenu"), Some(Action::ShowContextMenu));
        assert_eq!(action("menu.popup"), Some(Action::ShowContextMenu));
        assert_eq!(action("clipboard.copy"), None);
    }

    #[test]
    fn click_is_preferred_over_activate() {
        let names = vec!["activate".to_string(), "click".to_string()];
        assert_eq!(find_action(&names, Action::Click), Some(1));
        let qt = vec!["Press".to_string(), "SetFocus".to_string()];
        assert_eq!(find_action(&qt, Action::Click), Some(0));
        assert_eq!(find_action(&qt, Action::Focus), Some(1));
    }

    #[test]
    fn roles_map_and_default_to_a_container() {
        assert_eq!(role(R::Button), Role::Button);
        assert_eq!(role(R::Frame), Role::Window);
        assert_eq!(role(R::CheckBox), Role::CheckBox);
        assert_eq!(role(R::RedundantObject), Role::GenericContainer);
    }
}
