//! The mapping tables: AT-SPI roles, states and action names to AccessKit's, in one place.
//! `docs/atspi.md` prints these tables; a test there keeps the page and the code in step.

use accesskit::{Action, Role};
use atspi::{Role as R, State};
use automation_core::{Intent, Means, NamedKey};

/// GTK4's `ToolkitName` (GTK3's atk-bridge says "gtk" or "gail").
pub(crate) const GTK4: &str = "GTK";

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
/// "ShowMenu", Gecko "press", "check", "uncheck", "select", "jump", "open", "close",
/// Chromium "click", "press", "check", Java "click", "toggleexpand", AccessKit "click",
/// "focus", …
pub const ACTIONS: &[(&str, Action)] = &[
    ("click", Action::Click),
    ("press", Action::Click),
    ("activate", Action::Click),
    ("toggle", Action::Click),
    ("check", Action::Click),
    ("uncheck", Action::Click),
    ("select", Action::Click),
    ("switch", Action::Click),
    ("jump", Action::Click),
    ("open", Action::Click),
    ("defaultactivate", Action::Click),
    ("clickancestor", Action::Click),
    ("setfocus", Action::Focus),
    ("focus", Action::Focus),
    ("grabfocus", Action::Focus),
    ("showmenu", Action::ShowContextMenu),
    ("menupopup", Action::ShowContextMenu),
    ("showcontextmenu", Action::ShowContextMenu),
    ("popup", Action::ShowContextMenu),
    ("expand", Action::Expand),
    ("expandorcontract", Action::Expand),
    ("toggleexpand", Action::Expand),
    ("togglepopup", Action::Expand),
    ("collapse", Action::Collapse),
    ("close", Action::Collapse),
    // Toggles: the same action closes what it opened (GTK's tree rows, a combo's popup).
    ("expandorcontract", Action::Collapse),
    ("toggleexpand", Action::Collapse),
    ("togglepopup", Action::Collapse),
    ("increase", Action::Increment),
    ("increment", Action::Increment),
    ("decrease", Action::Decrement),
    ("decrement", Action::Decrement),
    ("scrollintoview", Action::ScrollIntoView),
];

/// Names whose sense depends on the role: on these roles the name performs this action, not
/// what [`ACTIONS`] says. Qt's menu-bar items and submenu items offer only "ShowMenu", and on
/// them it opens their menu — what a person's click does; it is not a context menu.
pub const ROLE_ACTIONS: &[(R, &str, Action)] = &[(R::MenuItem, "showmenu", Action::Click)];

/// Normalises a toolkit action name: lower case, without separators and dots
/// (`"menu.popup"` → `"menupopup"`, `"SetFocus"` → `"setfocus"`).
pub fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The AccessKit action a toolkit action name performs on a node of `role`, if we know it.
pub fn action_on(name: &str, role: Option<R>) -> Option<Action> {
    let n = normalise(name);
    if let Some(r) = role
        && let Some((_, _, a)) = ROLE_ACTIONS.iter().find(|(rr, nn, _)| *rr == r && *nn == n)
    {
        return Some(*a);
    }
    ACTIONS.iter().find(|(a, _)| *a == n).map(|(_, k)| *k)
}

/// The AccessKit action a toolkit action name performs, if it is one we know.
pub fn action(name: &str) -> Option<Action> {
    action_on(name, None)
}

/// The index of the toolkit action that performs `want` on a node of `role`, preferring the
/// first listed name in [`ACTIONS`] order (so "click" wins over "activate" when a node has
/// both).
pub fn find_action_on(names: &[String], want: Action, role: Option<R>) -> Option<usize> {
    let normal: Vec<String> = names.iter().map(|n| normalise(n)).collect();
    if let Some(r) = role
        && let Some(i) = ROLE_ACTIONS
            .iter()
            .filter(|(rr, _, a)| *rr == r && *a == want)
            .find_map(|(_, n, _)| normal.iter().position(|x| x == n))
    {
        return Some(i);
    }
    ACTIONS
        .iter()
        .filter(|(_, k)| *k == want)
        .filter(|(name, _)| {
            // A name whose sense the role changes does not count for its plain sense there.
            role.is_none_or(|r| {
                !ROLE_ACTIONS
                    .iter()
                    .any(|(rr, nn, _)| *rr == r && nn == name)
            })
        })
        .find_map(|(a, _)| normal.iter().position(|n| n == a))
}

/// [`find_action_on`] without a role.
pub fn find_action(names: &[String], want: Action) -> Option<usize> {
    find_action_on(names, want, None)
}

/// The toolkits whose conventions the tables tell apart, from `Application.ToolkitName`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolkit {
    /// GTK 3 (atk-bridge: "gtk", "GAIL") and GTK 4 ("GTK").
    Gtk,
    /// Qt 5 and 6 ("Qt").
    Qt,
    /// Firefox and Thunderbird ("Gecko").
    Gecko,
    /// Chromium and Electron ("Chromium").
    Chromium,
    /// Java Swing through the ATK wrapper.
    Java,
    /// LibreOffice ("VCL").
    LibreOffice,
    /// egui, Slint, iced … ("accesskit").
    AccessKit,
    /// Anything else.
    Other,
}

impl Toolkit {
    /// The toolkit of an app that reports `name`.
    pub fn of(name: &str) -> Self {
        Self::of_app(name, "")
    }

    /// The toolkit of an app named `app` (its accessible name) that reports toolkit `name`:
    /// LibreOffice draws with its own VCL and reports the GTK it is hosted in ("gtk"), so it
    /// is told by its name ("soffice").
    pub fn of_app(name: &str, app: &str) -> Self {
        let n = name.to_ascii_lowercase();
        let a = app.to_ascii_lowercase();
        if a == "soffice" || a.starts_with("libreoffice") {
            Self::LibreOffice
        } else if n.contains("gtk") || n.contains("gail") {
            Self::Gtk
        } else if n.starts_with("qt") {
            Self::Qt
        } else if n.contains("gecko") || n.contains("mozilla") {
            Self::Gecko
        } else if n.contains("chrom") {
            Self::Chromium
        } else if n.contains("java") || n.contains("j2se") {
            Self::Java
        } else if n.contains("vcl") || n.contains("libreoffice") {
            Self::LibreOffice
        } else if n.contains("accesskit") {
            Self::AccessKit
        } else {
            Self::Other
        }
    }
}

/// Text as a person reads it, for text that stands for a name: the embedded-object
/// characters (U+FFFC, where a toolkit's text holds a child object, such as a check box
/// inside its `<label>`) dropped, and each run of whitespace one space.
pub fn readable(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c == '\u{FFFC}')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a node that is `visible` but not `showing` is hidden in an app of `toolkit`: in
/// Java and LibreOffice a closed menu's items stay `visible` (Java's keep their last
/// extents; Writer's 830 menu objects came before its document in a snapshot), and
/// LibreOffice lists only the paragraphs laid out on screen, so nothing of it is merely
/// scrolled away. Elsewhere such a node may be only scrolled away (a web page's row below
/// the fold), which a person scrolls to.
pub fn not_showing_is_hidden(toolkit: Option<Toolkit>) -> bool {
    matches!(toolkit, Some(Toolkit::Java | Toolkit::LibreOffice))
}

/// Whether a node that carries neither `Enabled` nor `Sensitive` is enabled all the same:
/// LibreOffice's document paragraphs (editable, focusable, the focus while one types) carry
/// neither, nor does Chromium's read-only field (`read-only`, focusable: a person focuses it
/// and selects its text). Elsewhere their absence is what disabled means (a disabled GTK 3
/// entry is still `editable` and `focusable`).
pub fn enabled_without_the_states(
    toolkit: Option<Toolkit>,
    role: Option<R>,
    states: &atspi::StateSet,
) -> bool {
    // Only a document's text: LibreOffice's disabled spin buttons and fields stay editable.
    let document_text = matches!(role, Some(R::Paragraph | R::Heading | R::TableCell));
    (toolkit == Some(Toolkit::LibreOffice) && document_text && states.contains(State::Editable))
        || (states.contains(State::ReadOnly) && states.contains(State::Focusable))
}

/// One row of [`MEANS`]: on these toolkits (all when empty), on nodes of these roles (all when
/// empty), these intents (all when empty) are tried by these means, in order.
#[derive(Debug, Clone, Copy)]
pub struct MeansRow {
    /// Toolkits it holds for (empty: every one).
    pub toolkits: &'static [Toolkit],
    /// AT-SPI roles it holds for (empty: every one).
    pub roles: &'static [R],
    /// Intents it holds for (empty: every one).
    pub intents: &'static [Intent],
    /// Only for nodes inside (`Some(true)`) or outside (`Some(false)`) a menu bar: its items
    /// run commands that open dialogs; a combo's popup items take the action.
    pub in_menu_bar: Option<bool>,
    /// The means, in the order tried.
    pub means: &'static [Means],
    /// Why, for the docs.
    pub why: &'static str,
}

const BUTTONS: &[R] = &[R::Button, R::ToggleButton, R::CheckBox, R::RadioButton];
const MENU_ITEMS: &[R] = &[R::MenuItem, R::CheckMenuItem, R::RadioMenuItem];
/// What each intent tries on each toolkit, in order: the first row that matches decides.
pub const MEANS: &[MeansRow] = &[
    MeansRow {
        toolkits: &[
            Toolkit::Gtk,
            Toolkit::Gecko,
            Toolkit::Chromium,
            Toolkit::Java,
        ],
        roles: &[],
        intents: &[Intent::Focus],
        in_menu_bar: None,
        means: &[Means::Action, Means::Keys],
        why: "the toolkit's own call, checked by the target (GrabFocus, the focus action, a click on a text field, each until the node reports it); else the focus key until the focus lands, as a person moves it (GTK 4 has no focus call for a slider, a web page's list box takes none): see the focus keys below",
    },
    MeansRow {
        toolkits: &[],
        roles: &[],
        intents: &[Intent::Focus, Intent::ScrollIntoView, Intent::ShowMenu],
        in_menu_bar: None,
        means: &[Means::Action],
        why: "the toolkit's own call, which the target checks itself (a focus must land: GrabFocus, the focus action, a click on a text field, each until the node reports it)",
    },
    MeansRow {
        toolkits: &[Toolkit::Gtk, Toolkit::LibreOffice],
        roles: BUTTONS,
        intents: &[Intent::Activate],
        in_menu_bar: None,
        means: &[Means::Pointer, Means::Keys, Means::Action],
        why: "GTK's click lands ~250 ms late and drops a second click inside that time: a real click lands at once",
    },
    MeansRow {
        toolkits: &[Toolkit::Gtk, Toolkit::LibreOffice],
        roles: MENU_ITEMS,
        intents: &[Intent::Activate],
        in_menu_bar: Some(true),
        means: &[Means::Pointer, Means::Keys, Means::Action],
        why: "a menu-bar item's action that opens a modal dialog (GTK's, LibreOffice's, which GTK hosts) runs the dialog inside the D-Bus call, so the app answers nothing until it closes (a key pressed meanwhile deadlocks it): a real click or key opens it cleanly",
    },
    MeansRow {
        toolkits: &[Toolkit::LibreOffice],
        roles: &[R::TableCell, R::ListItem],
        intents: &[Intent::Activate],
        in_menu_bar: None,
        means: &[Means::Pointer, Means::Keys, Means::Action],
        why: "LibreOffice's action on a drop-down list's entry closes the list and the entry does not take it (the Character dialog's Size: 14 pt): a person's click picks it",
    },
    MeansRow {
        toolkits: &[Toolkit::LibreOffice],
        roles: &[R::ComboBox],
        intents: &[Intent::Expand, Intent::Collapse],
        in_menu_bar: None,
        means: &[Means::Pointer, Means::Keys, Means::Action],
        why: "LibreOffice's drop-down list is opened by its arrow: the combo box that names it is never shown and its `press` does nothing, so a click goes to the arrow a person clicks",
    },
    MeansRow {
        toolkits: &[Toolkit::Qt],
        roles: BUTTONS,
        intents: &[Intent::Activate],
        in_menu_bar: None,
        means: &[Means::Pointer, Means::Action, Means::Keys],
        why: "Qt's Press animates a click, released 100 ms later (QAbstractButton::animateClick); a real click lands at once",
    },
    MeansRow {
        toolkits: &[Toolkit::Gecko],
        roles: &[],
        intents: &[Intent::Activate],
        in_menu_bar: None,
        means: &[Means::Pointer, Means::Keys, Means::Action],
        why: "Firefox drops the first action after it starts (it answers true and nothing happens), and a page's controls often offer none: a real click or key does what a person's does",
    },
    MeansRow {
        toolkits: &[],
        roles: &[],
        intents: &[],
        in_menu_bar: None,
        means: &[Means::Action, Means::Pointer, Means::Keys],
        why: "the toolkit's action where it has one that works; else what a person does: a click at a point proven to hit the widget, then the keys",
    },
];

/// The key that moves the focus from any widget in an app of `toolkit`, text areas included
/// (a person's way to walk the focus); none where that key does something else (Qt's tab
/// widgets turn the page on Ctrl+Tab, and Tab types in its text areas).
pub const FOCUS_KEYS: &[(Toolkit, NamedKey, bool, &str)] = &[
    (
        Toolkit::Gtk,
        NamedKey::Tab,
        true,
        "Ctrl+Tab: a text area types a Tab; GTK's windows move the focus on Ctrl+Tab",
    ),
    (
        Toolkit::Java,
        NamedKey::Tab,
        true,
        "Ctrl+Tab: Swing's text areas type a Tab and pass Ctrl+Tab on",
    ),
    (
        Toolkit::Gecko,
        NamedKey::Tab,
        false,
        "Tab: a page's text areas pass it on (Ctrl+Tab turns the browser's tab)",
    ),
    (
        Toolkit::Chromium,
        NamedKey::Tab,
        false,
        "Tab: a page's text areas pass it on (Ctrl+Tab turns the browser's tab)",
    ),
];

/// The focus key of [`FOCUS_KEYS`] for `toolkit`, as a key and its modifiers.
pub fn focus_key(toolkit: Toolkit) -> Option<(NamedKey, automation_core::input::Modifiers)> {
    FOCUS_KEYS
        .iter()
        .find(|(t, ..)| *t == toolkit)
        .map(|(_, key, ctrl, _)| {
            (
                *key,
                automation_core::input::Modifiers {
                    ctrl: *ctrl,
                    ..Default::default()
                },
            )
        })
}

/// The means `intent` tries on a node of `role` (inside a menu bar or not) in an app of
/// `toolkit`.
pub fn means(
    toolkit: Toolkit,
    role: Option<R>,
    in_menu_bar: bool,
    intent: Intent,
) -> &'static [Means] {
    MEANS
        .iter()
        .find(|row| {
            (row.toolkits.is_empty() || row.toolkits.contains(&toolkit))
                && (row.roles.is_empty() || role.is_some_and(|r| row.roles.contains(&r)))
                && (row.intents.is_empty() || row.intents.contains(&intent))
                && row.in_menu_bar.is_none_or(|want| want == in_menu_bar)
        })
        .map_or(automation_core::intent::ALL_MEANS, |row| row.means)
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

/// The means table of `docs/atspi.md` (markdown).
pub fn means_table() -> String {
    let list = |v: Vec<String>| {
        if v.is_empty() {
            "any".to_string()
        } else {
            v.join(", ")
        }
    };
    let mut out = String::from(
        "| toolkits | roles | intents | means, in order | why |\n|---|---|---|---|---|\n",
    );
    for row in MEANS {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            list(row.toolkits.iter().map(|t| format!("{t:?}")).collect()),
            list(
                row.roles
                    .iter()
                    .map(|r| format!("`{}`", r.name()))
                    .collect()
            ),
            list(
                row.intents
                    .iter()
                    .map(|i| format!("`{}`", i.spec().name))
                    .collect()
            ),
            row.means
                .iter()
                .map(|m| m.name())
                .collect::<Vec<_>>()
                .join(" → "),
            row.why
        ));
    }
    out.push_str("\n| toolkit | focus key | why |\n|---|---|---|\n");
    for (toolkit, key, ctrl, why) in FOCUS_KEYS {
        let mods = if *ctrl { "Ctrl+" } else { "" };
        out.push_str(&format!("| {toolkit:?} | {mods}{key:?} | {why} |\n"));
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
    for (role, name, a) in ROLE_ACTIONS {
        out.push_str(&format!(
            "| `{name}` on a `{}` | `{}` |\n",
            role.name(),
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
    fn qt_show_menu_on_a_menu_item_opens_it() {
        let qt = vec!["ShowMenu".to_string(), "SetFocus".to_string()];
        assert_eq!(
            find_action_on(&qt, Action::Click, Some(R::MenuItem)),
            Some(0)
        );
        assert_eq!(
            find_action_on(&qt, Action::ShowContextMenu, Some(R::MenuItem)),
            None
        );
        assert_eq!(
            find_action_on(&qt, Action::ShowContextMenu, Some(R::Button)),
            Some(0)
        );
        let gecko = vec!["check".to_string()];
        assert_eq!(find_action(&gecko, Action::Click), Some(0));
    }

    #[test]
    fn each_intent_tries_the_means_of_the_first_matching_row() {
        use automation_core::Intent;
        assert_eq!(
            means(Toolkit::Gtk, Some(R::CheckBox), false, Intent::Activate)[0],
            Means::Pointer
        );
        assert_eq!(
            means(Toolkit::Qt, Some(R::Button), false, Intent::Activate)[0],
            Means::Pointer
        );
        assert_eq!(
            means(Toolkit::Qt, Some(R::MenuItem), false, Intent::Activate)[0],
            Means::Action
        );
        assert_eq!(
            means(Toolkit::Gecko, Some(R::CheckBox), false, Intent::Activate)[0],
            Means::Pointer
        );
        assert_eq!(
            means(
                Toolkit::Chromium,
                Some(R::CheckBox),
                false,
                Intent::Activate
            )[0],
            Means::Action
        );
        assert_eq!(
            means(Toolkit::Java, Some(R::PageTab), false, Intent::Activate),
            automation_core::intent::ALL_MEANS
        );
        assert_eq!(
            means(Toolkit::Gtk, Some(R::Entry), false, Intent::Focus),
            [Means::Action, Means::Keys]
        );
        assert_eq!(
            means(Toolkit::Qt, Some(R::Entry), false, Intent::Focus),
            [Means::Action]
        );
        assert_eq!(Toolkit::of("GAIL"), Toolkit::Gtk);
        assert_eq!(Toolkit::of_app("gtk", "soffice"), Toolkit::LibreOffice);
        assert_eq!(Toolkit::of("Qt"), Toolkit::Qt);
        assert_eq!(Toolkit::of("Gecko"), Toolkit::Gecko);
    }

    #[test]
    fn embedded_objects_leave_no_trace_in_a_name() {
        assert_eq!(readable("\u{FFFC} Gift wrap"), "Gift wrap");
        assert_eq!(readable("a\n\t b\u{FFFC}\u{FFFC}"), "a b");
        assert_eq!(readable("  "), "");
    }

    #[test]
    fn roles_map_and_default_to_a_container() {
        assert_eq!(role(R::Button), Role::Button);
        assert_eq!(role(R::Frame), Role::Window);
        assert_eq!(role(R::CheckBox), Role::CheckBox);
        assert_eq!(role(R::RedundantObject), Role::GenericContainer);
    }
}
