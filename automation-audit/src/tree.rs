//! The app's tree as the audit reads it: every node's record from one `snapshot_tree`
//! (hidden nodes included), with each node's parent and window, and the role groups the rules
//! ask about.

use std::collections::HashMap;

use automation_core::SemanticNode;
use automation_core::refs::RefKey;
use automation_core::replies::Snapshot;

/// Roles a person operates by pointer or keyboard, which must carry a name.
pub const CONTROLS: &[&str] = &[
    "Button",
    "CheckBox",
    "RadioButton",
    "Switch",
    "Link",
    "MenuItem",
    "MenuItemCheckBox",
    "MenuItemRadio",
    "Tab",
];

/// Roles that take input, which must carry a name or a label tied to them.
pub const FIELDS: &[&str] = &[
    "TextInput",
    "MultilineTextInput",
    "PasswordInput",
    "SearchInput",
    "EmailInput",
    "NumberInput",
    "SpinButton",
    "Slider",
    "ComboBox",
    "EditableComboBox",
];

/// Containers whose items the keyboard reaches with the arrows, not Tab: one stop for all.
pub const ARROW_GROUPS: &[&str] = &[
    "MenuBar",
    "Menu",
    "Toolbar",
    "TabList",
    "List",
    "ListBox",
    "Tree",
    "TreeGrid",
    "Table",
    "Grid",
    "RadioGroup",
];

/// The snapshot, indexed.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The nodes, in tree order.
    pub nodes: Vec<SemanticNode>,
    /// The focus when it was read.
    pub focus: Option<RefKey>,
    /// Whether the node budget cut it.
    pub truncated: bool,
    index: HashMap<RefKey, usize>,
    parent: HashMap<RefKey, RefKey>,
}

impl Tree {
    /// Indexes a snapshot.
    #[must_use]
    pub fn new(snapshot: Snapshot) -> Self {
        let index = snapshot
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id, i))
            .collect();
        let parent = snapshot
            .nodes
            .iter()
            .flat_map(|n| n.children.iter().map(|c| (*c, n.id)))
            .collect();
        Self {
            focus: snapshot.focused(),
            truncated: snapshot.cut(),
            nodes: snapshot.nodes,
            index,
            parent,
        }
    }

    /// The node with this reference.
    #[must_use]
    pub fn get(&self, id: &RefKey) -> Option<&SemanticNode> {
        self.index.get(id).and_then(|&i| self.nodes.get(i))
    }

    /// Its parent.
    #[must_use]
    pub fn parent(&self, id: &RefKey) -> Option<&SemanticNode> {
        self.parent.get(id).and_then(|p| self.get(p))
    }

    /// Its ancestors, nearest first.
    pub fn ancestors<'t>(&'t self, id: &RefKey) -> impl Iterator<Item = &'t SemanticNode> + 't {
        std::iter::successors(self.parent(id), |n| self.parent(&n.id))
    }

    /// Its descendants, depth first.
    #[must_use]
    pub fn descendants(&self, id: &RefKey) -> Vec<&SemanticNode> {
        let mut out = Vec::new();
        let mut todo: Vec<&RefKey> = self
            .get(id)
            .map(|n| n.children.iter().rev().collect())
            .unwrap_or_default();
        while let Some(c) = todo.pop() {
            if let Some(n) = self.get(c) {
                out.push(n);
                todo.extend(n.children.iter().rev());
            }
        }
        out
    }

    /// The window (or dialog) that holds it: its highest ancestor below the app, else itself.
    #[must_use]
    pub fn window_of<'t>(&'t self, node: &'t SemanticNode) -> &'t RefKey {
        self.ancestors(&node.id)
            .find(|a| matches!(a.role.as_str(), "Window" | "Dialog" | "AlertDialog"))
            .map_or(&node.id, |w| &w.id)
    }

    /// Whether a person sees it: not hidden, nor under a hidden node, with an area, and
    /// within its window.
    #[must_use]
    pub fn shows(&self, node: &SemanticNode) -> bool {
        !node.hidden
            && node.bounds.is_some_and(|b| b.width > 0.0 && b.height > 0.0)
            && self.ancestors(&node.id).all(|a| !a.hidden)
            && self.within_window(node)
    }

    /// Whether any of it lies inside its window (a window's extents unknown: yes).
    #[must_use]
    pub fn within_window(&self, node: &SemanticNode) -> bool {
        let window = self.window_of(node);
        let (Some(b), Some(w)) = (node.bounds, self.get(window).and_then(|w| w.bounds)) else {
            return true;
        };
        b.x < w.x + w.width && w.x < b.x + b.width && b.y < w.y + w.height && w.y < b.y + b.height
    }

    /// Whether a person can operate it now: it shows and is enabled.
    #[must_use]
    pub fn operable(&self, node: &SemanticNode) -> bool {
        !node.disabled && self.shows(node) && self.ancestors(&node.id).all(|a| !a.disabled)
    }

    /// The nearest ancestor whose items the arrows move between (a menu, a tab list, a
    /// toolbar, a radio group, a list).
    #[must_use]
    pub fn arrow_group(&self, node: &SemanticNode) -> Option<&SemanticNode> {
        self.ancestors(&node.id)
            .find(|a| ARROW_GROUPS.contains(&a.role.as_str()))
    }
}

/// A name a person would hear: present and not blank.
#[must_use]
pub fn named(text: Option<&str>) -> bool {
    text.is_some_and(|t| t.chars().any(|c| !c.is_whitespace() && c != '\u{fffc}'))
}

/// Whether a name is a toolkit's class name (`GtkImage`, `GtkSourceView`, `QTextEdit`): what
/// a toolkit falls back to when the app named nothing, and it tells a person nothing.
#[must_use]
pub fn class_name(name: &str) -> bool {
    let rest = ["Gtk", "Adw", "Hdy", "Q"]
        .iter()
        .find_map(|p| name.strip_prefix(p));
    rest.is_some_and(|r| {
        r.len() > 2
            && r.starts_with(|c: char| c.is_ascii_uppercase())
            && r.chars().all(|c| c.is_ascii_alphanumeric())
            && r.chars().any(|c| c.is_ascii_lowercase())
    })
}

/// Whether it is a text view (several lines high): often the window's document, named by the
/// window, and a field that takes Tab as text.
#[must_use]
pub fn multiline(node: &SemanticNode) -> bool {
    node.role == "MultilineTextInput"
        || (node.role == "TextInput" && node.bounds.is_some_and(|b| b.height >= 60.0))
}
