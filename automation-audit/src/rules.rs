//! The rules, each declared once: its id, what it checks, how much it costs a person, the WCAG
//! 2.2 success criteria it maps to (EN 301 549 clause 11 carries the same numbers with `11.`
//! in front), and what to do. The checks themselves are in `checks` and `keyboard`.

use serde::Serialize;

/// How much a finding costs a person (axe-core's scale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Impact {
    /// An inconvenience.
    Minor,
    /// Slows a person down.
    Moderate,
    /// Blocks some people, or most people some of the time.
    Serious,
    /// Blocks a person.
    Critical,
}

/// One rule of the audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Its stable id (`control-name`).
    pub id: &'static str,
    /// What it checks, in one line.
    pub title: &'static str,
    /// How much a finding costs a person.
    pub impact: Impact,
    /// The WCAG 2.2 success criteria (EN 301 549: the same with `11.` in front).
    pub wcag: &'static [&'static str],
    /// What a person meets when the rule fails.
    pub meets: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// What it reads beyond the tree.
    pub needs: Needs,
}

/// What a rule reads beyond the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Needs {
    /// The tree alone.
    Tree,
    /// The window's pixels (one screenshot).
    Pixels,
    /// The real keyboard: the Tab walk (it moves the focus).
    Keyboard,
}

impl Rule {
    /// Whether it needs the Tab walk.
    #[must_use]
    pub fn keyboard(&self) -> bool {
        self.needs == Needs::Keyboard
    }
}

impl Rule {
    /// Its anchor in `docs/audit.md`.
    #[must_use]
    pub fn help(&self) -> String {
        format!("docs/audit.md#{}", self.id)
    }
}

macro_rules! rules {
    ($( $(#[$doc:meta])* $konst:ident = $id:literal {
        title: $title:literal, impact: $impact:ident, wcag: [$($wcag:literal),*],
        meets: $meets:literal, fix: $fix:literal, needs: $needs:ident $(,)?
    } )*) => {
        $(
            $(#[$doc])*
            pub const $konst: Rule = Rule {
                id: $id,
                title: $title,
                impact: Impact::$impact,
                wcag: &[$($wcag),*],
                meets: $meets,
                fix: $fix,
                needs: Needs::$needs,
            };
        )*
        /// Every rule, in the order a report lists them.
        pub const RULES: &[Rule] = &[$($konst),*];
    };
}

rules! {
    /// A button, check box, link, menu item, switch or tab with no accessible name.
    CONTROL_NAME = "control-name" {
        title: "An operable control has an accessible name",
        impact: Critical, wcag: ["4.1.2", "1.1.1"],
        meets: "a screen reader announces only its role (\"button\"), so a person cannot tell what it does",
        fix: "give it a name: a label, or for an icon-only control an accessible name (GTK: gtk_accessible/atk set_name; Qt: setAccessibleName)",
        needs: Tree,
    }
    /// A text field, slider, spin button or combo box with no name and no label pointing at it.
    FIELD_NAME = "field-name" {
        title: "An input field has a name or a label tied to it",
        impact: Serious, wcag: ["1.3.1", "4.1.2"],
        meets: "a screen reader announces an empty field, so a person does not know what to enter",
        fix: "tie its visible label to it (GTK: gtk_label_set_mnemonic_widget; Qt: QLabel::setBuddy), or give it an accessible name",
        needs: Tree,
    }
    /// A disabled control that holds the keyboard focus.
    DISABLED_FOCUSED = "disabled-focused" {
        title: "A disabled control does not hold the focus",
        impact: Serious, wcag: ["4.1.2"],
        meets: "the keys go to a control that says it cannot be used, so nothing happens",
        fix: "move the focus away before disabling the control, or do not disable it while it has the focus",
        needs: Tree,
    }
    /// Sibling controls of one role with one name.
    DUPLICATE_NAME = "duplicate-name" {
        title: "Sibling controls of one role have names that tell them apart",
        impact: Moderate, wcag: ["2.4.6"],
        meets: "a screen reader announces the same words for different controls, so a person cannot tell which is which",
        fix: "name each for what it does (\"Delete row 3\", not \"Delete\")",
        needs: Tree,
    }
    /// A pointer target under 24×24 px, too close to another target.
    TARGET_SIZE = "target-size" {
        title: "A pointer target is at least 24 by 24 pixels, or spaced from its neighbours",
        impact: Moderate, wcag: ["2.5.8"],
        meets: "a person with a tremor or a coarse pointer hits the neighbouring control",
        fix: "make the control at least 24 by 24 px, or leave space so that a 24 px circle on its centre touches no other target",
        needs: Tree,
    }
    /// Text whose colour contrasts too little with its background, measured on pixels.
    CONTRAST = "contrast" {
        title: "Text contrasts with its background at 4.5:1 (3:1 when large)",
        impact: Serious, wcag: ["1.4.3"],
        meets: "a person with low vision, or on a screen in daylight, cannot read the text",
        fix: "darken the text or lighten its background until the ratio reaches 4.5:1 (3:1 for text of 18 pt, or 14 pt bold)",
        needs: Pixels,
    }
    /// An operable control that Tab and Shift+Tab never reach.
    KEYBOARD_REACH = "keyboard-reach" {
        title: "Every operable control can be reached with the keyboard",
        impact: Serious, wcag: ["2.1.1"],
        meets: "a person who uses the keyboard (or a switch, or speech) cannot reach the control at all",
        fix: "make it focusable (GTK: can-focus; Qt: setFocusPolicy(Qt::StrongFocus)), or give it a keyboard shortcut",
        needs: Keyboard,
    }
    /// A place the keyboard focus cannot leave.
    KEYBOARD_TRAP = "keyboard-trap" {
        title: "The keyboard focus can leave every control",
        impact: Critical, wcag: ["2.1.2"],
        meets: "a keyboard user is stuck: neither Tab nor Ctrl+Tab moves the focus on",
        fix: "let Tab (or Ctrl+Tab, for a control that takes Tab as text) move the focus to the next control",
        needs: Keyboard,
    }
    /// The focus lands on something a person cannot see.
    FOCUS_HIDDEN = "focus-hidden" {
        title: "The keyboard focus lands only on what shows",
        impact: Serious, wcag: ["2.4.3"],
        meets: "a keyboard user presses Tab and the focus disappears: nothing visible has it",
        fix: "take hidden controls out of the focus chain (hide or unmap them, not just move or shrink them)",
        needs: Keyboard,
    }
}

/// The rule with this id.
#[must_use]
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_kebab_case() {
        for (i, r) in RULES.iter().enumerate() {
            assert!(
                r.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}",
                r.id
            );
            assert!(RULES[i + 1..].iter().all(|o| o.id != r.id), "{}", r.id);
            assert!(!r.wcag.is_empty(), "{}", r.id);
        }
    }
}
