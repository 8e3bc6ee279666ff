//! [`AppTree`]: the app's objects as last read, by path, and their AccessKit form.
//!
//! Object paths get small, stable node ids (1, 2, 3… in the order first seen), so an id an
//! agent holds names the same object for the whole session and round-trips through a
//! JavaScript client. The root of the tree is the application object.

use std::collections::HashMap;

use accesskit::{Action, Node, NodeId, Rect, Role, Toggled, TreeInfo, TreeUpdate};
use atspi::{Interface, State};

use crate::map;
use crate::node::RawNode;

/// Paths ↔ node ids, and the last objects read.
#[derive(Debug, Default)]
pub struct AppTree {
    ids: HashMap<String, NodeId>,
    paths: HashMap<NodeId, String>,
    /// The objects as last read, by path.
    pub nodes: HashMap<String, RawNode>,
    /// The application object's path.
    pub root: String,
    next: u64,
}

impl AppTree {
    /// A tree rooted at `root` (the application object).
    pub fn new(root: &str) -> Self {
        Self {
            root: root.to_string(),
            next: 1,
            ..Self::default()
        }
    }

    /// The id of `path`, allocated when first seen.
    pub fn id(&mut self, path: &str) -> NodeId {
        if let Some(id) = self.ids.get(path) {
            return *id;
        }
        let id = NodeId(self.next);
        self.next += 1;
        self.ids.insert(path.to_string(), id);
        self.paths.insert(id, path.to_string());
        id
    }

    /// The id of `path`, when one was handed out.
    pub fn known_id(&self, path: &str) -> Option<NodeId> {
        self.ids.get(path).copied()
    }

    /// The path of an id handed out before.
    pub fn path(&self, id: NodeId) -> Option<&str> {
        self.paths.get(&id).map(String::as_str)
    }

    /// The object behind an id, as last read.
    pub fn raw(&self, id: NodeId) -> Option<&RawNode> {
        self.path(id).and_then(|p| self.nodes.get(p))
    }

    /// Replaces the subtree under `path` with `fresh` (which holds `path` and everything
    /// under it); objects that were under it and are no longer are forgotten.
    pub fn replace_subtree(&mut self, path: &str, fresh: HashMap<String, RawNode>) {
        let mut stack = vec![path.to_string()];
        while let Some(p) = stack.pop() {
            if let Some(old) = self.nodes.remove(&p) {
                stack.extend(old.children);
            }
        }
        self.nodes.extend(fresh);
    }

    /// The focused object: the deepest showing object with the Focused state, else the root.
    fn focus(&mut self) -> NodeId {
        let focused = self
            .nodes
            .values()
            .find(|n| n.states.contains(State::Focused))
            .map(|n| n.path.clone());
        match focused {
            Some(p) => self.id(&p),
            None => {
                let root = self.root.clone();
                self.id(&root)
            }
        }
    }

    /// The AccessKit form of `paths` (each with the links to its children). `full`: the
    /// whole tree with its root.
    pub fn update(&mut self, paths: &[String], full: bool) -> TreeUpdate {
        let mut out = Vec::with_capacity(paths.len());
        for p in paths {
            let Some(raw) = self.nodes.get(p).cloned() else {
                continue;
            };
            let origin = self.window_origin(p);
            let node = self.build_node(&raw, origin);
            out.push((self.id(p), node));
        }
        let root = self.root.clone();
        let root_id = self.id(&root);
        TreeUpdate {
            nodes: out,
            tree: full.then(|| TreeInfo::new(root_id)),
            tree_id: accesskit::TreeId::ROOT,
            focus: self.focus(),
        }
    }

    /// Every path reachable from the root, parents before children.
    pub fn reachable(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![self.root.clone()];
        let mut seen = std::collections::HashSet::new();
        while let Some(p) = stack.pop() {
            if !seen.insert(p.clone()) {
                continue;
            }
            if let Some(n) = self.nodes.get(&p) {
                stack.extend(n.children.iter().rev().cloned());
                out.push(p);
            }
        }
        out
    }

    /// The top-level window above `path` (a child of the application), if any.
    pub fn window_of(&self, path: &str) -> Option<String> {
        let parent_of: HashMap<&str, &str> = self
            .nodes
            .values()
            .flat_map(|n| {
                n.children
                    .iter()
                    .map(move |c| (c.as_str(), n.path.as_str()))
            })
            .collect();
        let mut cur = path;
        loop {
            let parent = *parent_of.get(cur)?;
            if parent == self.root {
                return Some(cur.to_string());
            }
            cur = parent;
        }
    }

    /// Extents are window-relative, and so are AccessKit bounds: no origin to add. (Kept as
    /// one place to change should a toolkit report screen coordinates only.)
    fn window_origin(&self, _path: &str) -> (f64, f64) {
        (0.0, 0.0)
    }

    fn build_node(&mut self, raw: &RawNode, origin: (f64, f64)) -> Node {
        let at_role = raw.role.unwrap_or(atspi::Role::Unknown);
        let role = map::role(at_role);
        let mut node = Node::new(role);
        if role == Role::Label && !raw.name.is_empty() {
            // A label's name is its text; AccessKit keeps a Label's text in `value` (and
            // accesskit_unix turns that value into the name), so it goes back there.
            node.set_value(raw.name.clone());
        } else if !raw.name.is_empty() {
            node.set_label(raw.name.clone());
        }
        if !raw.description.is_empty() {
            node.set_description(raw.description.clone());
        }
        let s = raw.states;
        if (map::text_is_value(at_role) || raw.name.is_empty())
            && let Some(t) = &raw.text
        {
            node.set_value(t.clone());
        }
        if let Some([cur, min, max, step]) = raw.value {
            node.set_numeric_value(cur);
            node.set_min_numeric_value(min);
            node.set_max_numeric_value(max);
            if step > 0.0 {
                node.set_numeric_value_step(step);
            }
        }
        let checkable = matches!(
            role,
            Role::CheckBox
                | Role::RadioButton
                | Role::Switch
                | Role::MenuItemCheckBox
                | Role::MenuItemRadio
        ) || at_role == atspi::Role::ToggleButton
            || s.contains(State::Checkable);
        if checkable {
            node.set_toggled(if s.contains(State::Indeterminate) {
                Toggled::Mixed
            } else if s.contains(State::Checked) || s.contains(State::Pressed) {
                Toggled::True
            } else {
                Toggled::False
            });
        }
        if s.contains(State::Expandable) || s.contains(State::Expanded) {
            node.set_expanded(s.contains(State::Expanded));
        }
        if s.contains(State::Selectable) || s.contains(State::Selected) {
            node.set_selected(s.contains(State::Selected));
        }
        // The application object carries no Enabled state in any toolkit; it is not disabled.
        if !s.contains(State::Enabled) && !s.contains(State::Sensitive) && role != Role::Application
        {
            node.set_disabled();
        }
        if s.contains(State::Modal) {
            node.set_modal();
        }
        if s.contains(State::Required) {
            node.set_required();
        }
        if s.contains(State::Multiselectable) {
            node.set_multiselectable();
        }
        // The application object has no Showing or Visible state in any toolkit; hiding it
        // would hide the whole app (a consumer's hidden is inherited).
        if !s.contains(State::Showing) && !s.contains(State::Visible) && role != Role::Application {
            node.set_hidden();
        }
        if raw.has(Interface::Text) && !s.contains(State::Editable) && map::text_is_value(at_role) {
            node.set_read_only();
        }
        if let Some((x, y, w, h)) = raw.extents
            && w > 0
            && h > 0
            && x > i32::MIN
        {
            let x0 = f64::from(x) + origin.0;
            let y0 = f64::from(y) + origin.1;
            node.set_bounds(Rect {
                x0,
                y0,
                x1: x0 + f64::from(w),
                y1: y0 + f64::from(h),
            });
        }
        for a in &raw.actions {
            if let Some(k) = map::action(a) {
                node.add_action(k);
            }
        }
        if raw.has(Interface::Component) {
            node.add_action(Action::Focus);
            node.add_action(Action::ScrollIntoView);
        }
        // Progress bars and level bars expose Value to be read, not set.
        if raw.has(Interface::EditableText)
            || (raw.has(Interface::Value) && !matches!(role, Role::ProgressIndicator | Role::Meter))
        {
            node.add_action(Action::SetValue);
        }
        let labelled: Vec<NodeId> = raw
            .labelled_by
            .iter()
            .filter(|p| self.nodes.contains_key(*p))
            .cloned()
            .collect::<Vec<_>>()
            .iter()
            .map(|p| self.id(p))
            .collect();
        if !labelled.is_empty() && raw.name.is_empty() {
            node.set_labelled_by(labelled);
        }
        let children: Vec<NodeId> = raw
            .children
            .iter()
            .filter(|c| self.nodes.contains_key(*c))
            .cloned()
            .collect::<Vec<_>>()
            .iter()
            .map(|c| self.id(c))
            .collect();
        node.set_children(children);
        node
    }
}
