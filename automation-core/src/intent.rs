//! What a person means to do to a widget, and the ways it can be done — declared once.
//!
//! An op that acts (`invoke_action`, `focus_node`, `expand`, …) is an [`Intent`]. A person
//! does not know a toolkit's action names: they click what they see, or use the keys. So an
//! intent is carried out by whatever [`Means`] works, tried in the order the target gives
//! ([`crate::Target::means`]), each judged by the node's own effect before the next is tried:
//!
//! 1. [`Means::Action`]: the toolkit's own action for it, under any of its names;
//! 2. [`Means::Pointer`]: a real click at a point first proven to hit the node;
//! 3. [`Means::Keys`]: the focus on the node, then the keys a person presses for it
//!    ([`keys_for`]).
//!
//! The reply says which worked (`"via"`); when none did, the error lists what was tried.

use accesskit::{Action, Role};
use serde::Serialize;

use crate::input::{Key, NamedKey};

/// What a person means to do to a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Press a button, follow a link, toggle a check box, pick a tab or a menu item.
    Activate,
    /// Put the keyboard focus on it.
    Focus,
    /// Open it (a tree row, a disclosure, a combo box, a menu).
    Expand,
    /// Close it.
    Collapse,
    /// One step up (a slider, a spin button).
    Increment,
    /// One step down.
    Decrement,
    /// Open its context menu.
    ShowMenu,
    /// Scroll it into view.
    ScrollIntoView,
}

/// A way to carry out an intent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Means {
    /// The toolkit's own accessibility action.
    Action,
    /// A real pointer click at a point proven to hit the node.
    Pointer,
    /// The keyboard: the focus on the node, then the keys for the intent.
    Keys,
}

impl Means {
    /// The name a reply's `via` gives it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Action => "action",
            Self::Pointer => "pointer",
            Self::Keys => "keyboard",
        }
    }
}

/// One intent's declaration: its name, the AccessKit action a toolkit's own action for it
/// performs, and whether a primary click carries it out.
#[derive(Debug, Clone, Copy)]
pub struct IntentSpec {
    /// The intent.
    pub intent: Intent,
    /// Its name in replies and errors.
    pub name: &'static str,
    /// The AccessKit action the toolkit's action for it performs.
    pub action: Action,
    /// A primary pointer click on the node carries it out (on the roles [`pointer_applies`]
    /// allows).
    pub by_click: bool,
}

/// Every intent, once.
pub const INTENTS: &[IntentSpec] = &[
    IntentSpec {
        intent: Intent::Activate,
        name: "activate",
        action: Action::Click,
        by_click: true,
    },
    IntentSpec {
        intent: Intent::Focus,
        name: "focus",
        action: Action::Focus,
        by_click: false,
    },
    IntentSpec {
        intent: Intent::Expand,
        name: "expand",
        action: Action::Expand,
        by_click: true,
    },
    IntentSpec {
        intent: Intent::Collapse,
        name: "collapse",
        action: Action::Collapse,
        by_click: true,
    },
    IntentSpec {
        intent: Intent::Increment,
        name: "increment",
        action: Action::Increment,
        by_click: false,
    },
    IntentSpec {
        intent: Intent::Decrement,
        name: "decrement",
        action: Action::Decrement,
        by_click: false,
    },
    IntentSpec {
        intent: Intent::ShowMenu,
        name: "show_context_menu",
        action: Action::ShowContextMenu,
        by_click: false,
    },
    IntentSpec {
        intent: Intent::ScrollIntoView,
        name: "scroll_into_view",
        action: Action::ScrollIntoView,
        by_click: false,
    },
];

impl Intent {
    /// Its declaration.
    pub fn spec(self) -> &'static IntentSpec {
        INTENTS
            .iter()
            .find(|s| s.intent == self)
            .unwrap_or(&INTENTS[0])
    }

    /// The intent an AccessKit action stands for, if it is one.
    pub fn of_action(action: Action) -> Option<Self> {
        INTENTS
            .iter()
            .find(|s| s.action == action)
            .map(|s| s.intent)
    }
}

/// Whether a primary click at the node's point carries `intent` out on a node of `role`: a
/// button, a box, a tab, a link, an item, a menu entry. A slider or a text field is clicked
/// for other reasons (a click sets a slider to where it lands).
pub fn pointer_applies(intent: Intent, role: Role) -> bool {
    if !intent.spec().by_click {
        return false;
    }
    match intent {
        Intent::Activate => matches!(
            role,
            Role::Button
                | Role::DefaultButton
                | Role::CheckBox
                | Role::Switch
                | Role::RadioButton
                | Role::Link
                | Role::Tab
                | Role::MenuItem
                | Role::MenuItemCheckBox
                | Role::MenuItemRadio
                | Role::ListItem
                | Role::ListBoxOption
                | Role::MenuListOption
                | Role::TreeItem
                | Role::Cell
                | Role::GridCell
                | Role::DisclosureTriangle
                | Role::ColorWell
                | Role::Image
                | Role::Label
                | Role::GenericContainer
        ),
        // A click toggles a disclosure, a combo box's popup, a menu.
        Intent::Expand | Intent::Collapse => matches!(
            role,
            Role::DisclosureTriangle | Role::ComboBox | Role::MenuItem | Role::Button
        ),
        _ => false,
    }
}

/// The keys a person presses, the node focused, to carry out `intent` on a node of `role`
/// (one press each, in order); empty when the keyboard does not do it.
pub fn keys_for(intent: Intent, role: Role) -> &'static [Key] {
    use NamedKey as K;
    match (intent, role) {
        // Space toggles a box and presses a button in GTK, Qt, Swing and the web; Enter
        // follows a link and runs a menu item (Enter on a web check box would submit its form).
        (
            Intent::Activate,
            Role::CheckBox
            | Role::Switch
            | Role::RadioButton
            | Role::Button
            | Role::DefaultButton
            | Role::MenuItemCheckBox
            | Role::MenuItemRadio
            | Role::ListItem
            | Role::ListBoxOption
            | Role::TreeItem,
        ) => &[Key::Named(K::Space)],
        (Intent::Activate, Role::Link | Role::MenuItem | Role::MenuListOption) => {
            &[Key::Named(K::Enter)]
        }
        (Intent::Expand, Role::TreeItem | Role::Row) => &[Key::Named(K::ArrowRight)],
        (Intent::Collapse, Role::TreeItem | Role::Row) => &[Key::Named(K::ArrowLeft)],
        // A tree table's cell (GTK's tree view, Qt's): `+` and `-` open and close its row.
        (Intent::Expand, Role::Cell | Role::GridCell) => &[Key::Character('+')],
        (Intent::Collapse, Role::Cell | Role::GridCell) => &[Key::Character('-')],
        (Intent::Expand | Intent::Collapse, Role::DisclosureTriangle) => &[Key::Named(K::Space)],
        (Intent::Collapse, Role::ComboBox | Role::MenuItem | Role::Menu) => {
            &[Key::Named(K::Escape)]
        }
        (Intent::Increment, Role::Slider | Role::ScrollBar) => &[Key::Named(K::ArrowRight)],
        (Intent::Decrement, Role::Slider | Role::ScrollBar) => &[Key::Named(K::ArrowLeft)],
        (Intent::Increment, Role::SpinButton) => &[Key::Named(K::ArrowUp)],
        (Intent::Decrement, Role::SpinButton) => &[Key::Named(K::ArrowDown)],
        _ => &[],
    }
}

/// The means a target with nothing to say tries: its own action.
pub const ACTION_ONLY: &[Means] = &[Means::Action];

/// Every means, in the order a person-like target tries them.
pub const ALL_MEANS: &[Means] = &[Means::Action, Means::Pointer, Means::Keys];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_intent_is_declared_once_with_its_action() {
        for spec in INTENTS {
            assert_eq!(spec.intent.spec().name, spec.name);
            assert_eq!(Intent::of_action(spec.action), Some(spec.intent));
        }
        let mut names: Vec<_> = INTENTS.iter().map(|s| s.name).collect();
        names.dedup();
        assert_eq!(names.len(), INTENTS.len());
    }

    #[test]
    fn a_person_presses_space_on_a_box_and_enter_on_a_link() {
        assert_eq!(
            keys_for(Intent::Activate, Role::CheckBox),
            [Key::Named(NamedKey::Space)]
        );
        assert_eq!(
            keys_for(Intent::Activate, Role::Link),
            [Key::Named(NamedKey::Enter)]
        );
        assert_eq!(
            keys_for(Intent::Increment, Role::Slider),
            [Key::Named(NamedKey::ArrowRight)]
        );
        assert_eq!(keys_for(Intent::Expand, Role::Cell), [Key::Character('+')]);
        assert!(keys_for(Intent::Focus, Role::Button).is_empty());
        assert!(pointer_applies(Intent::Activate, Role::Tab));
        assert!(!pointer_applies(Intent::Activate, Role::Slider));
        assert!(!pointer_applies(Intent::Increment, Role::Slider));
    }
}
