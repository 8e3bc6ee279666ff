//! [`AppTree`]: the app's objects as last read, by path, and their AccessKit form.
//!
//! Object paths get small, stable node ids (1, 2, 3… in the order first seen), so an id an
//! agent holds names the same object for the whole session and round-trips through a
//! JavaScript client. The root of the tree is the application object.
//!
//! Toolkits list one object under two parents: a GTK3 combo box keeps listing its menu after
//! GTK re-parents that menu into the popup window it opens. AccessKit allows one parent, so
//! the tree each update shows is laid out breadth first from the root and a child belongs to
//! the first parent that reaches it — the shallowest: the popup window (a child of the
//! application) wins over the combo deep in the main window. Each update sends the nodes whose
//! AccessKit form changed since the last one sent, so a child that moves takes its old parent
//! along, and the update is whole whatever the app reported in what order.
//!
//! Extents are read in screen coordinates and made relative to the main window (the largest
//! showing top-level, the one pointer input aims through). Window coordinates are relative to
//! whichever window an object is drawn in — a GTK3 combo's popup, a LibreOffice menu's popup —
//! and nothing tells which that is; Qt 5 answers screen coordinates for both kinds. Screen
//! coordinates are one frame for all of them. (GTK4 knows no screen position and answers
//! window coordinates for both: the same sum leaves them as they are.)

use std::collections::{HashMap, HashSet};

use accesskit::{Action, Node, NodeId, Rect, Role, Toggled, TreeInfo, TreeUpdate};
use atspi::{Interface, State};

use crate::map;
use crate::node::{Extents, RawNode};

/// Paths ↔ node ids, the last objects read, and the last AccessKit nodes sent.
#[derive(Debug, Default)]
pub struct AppTree {
    ids: HashMap<String, NodeId>,
    paths: HashMap<NodeId, String>,
    /// The objects as last read, by path.
    pub nodes: HashMap<String, RawNode>,
    /// The application object's path.
    pub root: String,
    next: u64,
    sent: HashMap<NodeId, Node>,
    sent_focus: Option<NodeId>,
    /// The app's toolkit, for the states some toolkits leave out.
    pub toolkit: Option<map::Toolkit>,
    /// New children not read yet, by path: the id, role and name of the child each took the
    /// place of (see `carry_ids`).
    replaced: HashMap<String, (NodeId, Option<atspi::Role>, String)>,
}

/// The tree as shown: each object under one parent.
#[derive(Debug, Default)]
pub struct Layout {
    /// Every object reachable from the root, parents before children (breadth first).
    pub order: Vec<String>,
    /// Each object's children as shown (those it is the first parent of).
    pub children: HashMap<String, Vec<String>>,
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

    /// Takes `fresh` objects (a subtree read again, or new), then forgets every object no
    /// longer reachable from the root — but not one another parent still lists.
    pub fn replace_subtree(&mut self, fresh: HashMap<String, RawNode>) {
        self.take(fresh);
        self.forget_unreachable();
    }

    /// Takes objects read now, as one batch (without forgetting any). One focus: when the
    /// batch has an object read as focused, those read before lose the state — a toolkit need
    /// not say the old one lost it (Qt does not), and its stale state would keep the focus
    /// there; among the batch, the deepest focused object is the focus (a sheet and its cell).
    pub fn take(&mut self, fresh: impl IntoIterator<Item = (String, RawNode)>) {
        let mut fresh: HashMap<String, RawNode> = fresh.into_iter().collect();
        // An object its toolkit has let go of (LibreOffice's paragraph whose text was set)
        // still answers, with nothing in it: it is gone, not empty.
        fresh.retain(|path, n| {
            let defunct = n.states.contains(State::Defunct);
            if defunct {
                self.nodes.remove(path);
            }
            !defunct
        });
        self.carry_ids(&fresh);
        if fresh.values().any(|n| n.states.contains(State::Focused)) {
            for (p, n) in &mut self.nodes {
                if !fresh.contains_key(p) {
                    n.states.remove(State::Focused);
                }
            }
        }
        self.nodes.extend(fresh);
    }

    /// What to add to the extents the toolkit reports for `path` to have them where it shows.
    /// The Java wrapper lists a menu's items under the menu and places them from the menu's
    /// own origin (its title in the menu bar) instead of its popup's. Swing opens a menu-bar
    /// menu's popup right below the title, a submenu's right beside it
    /// (`JMenu.getPopupMenuOrigin`): the items are off by the title's height, or its width.
    pub fn menu_item_shift(&self, path: &str) -> (i32, i32) {
        if self.toolkit != Some(map::Toolkit::Java) {
            return (0, 0);
        }
        let above = self.ancestors(path);
        self.menu_shift_under(
            above.first().map(String::as_str),
            above.get(1).map(String::as_str),
        )
    }

    /// [`Self::menu_item_shift`] of an object under `parent`, itself under `grandparent`.
    fn menu_shift_under(&self, parent: Option<&str>, grandparent: Option<&str>) -> (i32, i32) {
        let node = |p: Option<&str>| p.and_then(|p| self.nodes.get(p));
        let Some(menu) = node(parent).filter(|n| n.role == Some(atspi::Role::Menu)) else {
            return (0, 0);
        };
        let Some((_, _, w, h)) = menu.extents.filter(|(_, _, w, h)| *w > 0 && *h > 0) else {
            return (0, 0);
        };
        if node(grandparent).and_then(|n| n.role) == Some(atspi::Role::MenuBar) {
            (0, h)
        } else {
            (w, 0)
        }
    }

    /// The Java wrapper makes new objects for a list's, a tree's or a combo's items each time
    /// their parent is read, and LibreOffice for a paragraph whose text was set: an item read
    /// anew at its old place, with its old role and name, keeps its id (and so the reference
    /// an agent holds), as it is the same item to a person.
    /// A parent and its new children may come in separate batches: what each new child
    /// replaces is kept until the child is read.
    fn carry_ids(&mut self, fresh: &HashMap<String, RawNode>) {
        if !matches!(
            self.toolkit,
            Some(map::Toolkit::Java | map::Toolkit::LibreOffice)
        ) {
            return;
        }
        // Children never read (the parent changed again first) are not kept for ever.
        if self.replaced.len() > crate::events::CAPACITY {
            self.replaced.clear();
        }
        // Each fresh object's record before: its own, or that of the object it replaces.
        let mut before_of: HashMap<&str, String> = fresh
            .keys()
            .filter(|p| self.nodes.contains_key(*p))
            .map(|p| (p.as_str(), p.clone()))
            .collect();
        let mut looked: HashSet<&str> = HashSet::new();
        // A level at a time: a row's new children are matched once the row carried its id.
        for _ in 0..crate::walk::MAX_DEPTH {
            let mut more = false;
            for (path, now) in fresh {
                if let Some((id, role, name)) = self.replaced.get(path).cloned() {
                    self.replaced.remove(path);
                    if now.role == role && now.name == name && !self.ids.contains_key(path) {
                        if let Some(old) = self.paths.get(&id).cloned() {
                            before_of.insert(path.as_str(), old.clone());
                            self.ids.remove(&old);
                        }
                        self.ids.insert(path.clone(), id);
                        self.paths.insert(id, path.clone());
                    }
                }
            }
            for (path, now) in fresh {
                let Some(before) = before_of.get(path.as_str()).and_then(|b| self.nodes.get(b))
                else {
                    continue;
                };
                if !looked.insert(path.as_str()) {
                    continue;
                }
                for (new, old) in now.children.iter().zip(&before.children) {
                    if new == old || self.ids.contains_key(new) || now.children.contains(old) {
                        continue;
                    }
                    if let (Some(id), Some(o)) = (self.ids.get(old), self.nodes.get(old)) {
                        self.replaced
                            .insert(new.clone(), (*id, o.role, o.name.clone()));
                        more |= fresh.contains_key(new);
                    }
                }
            }
            if !more {
                break;
            }
        }
    }

    /// Whether `path` lies under `ancestor` (as last read).
    pub fn is_under(&self, path: &str, ancestor: &str) -> bool {
        self.ancestors(path).iter().any(|a| a == ancestor)
    }

    /// How many objects `path` and those under it are (as last read), when at most `limit`.
    pub fn subtree_len_within(&self, path: &str, limit: usize) -> Option<usize> {
        let mut stack = vec![path];
        let mut seen = 0;
        while let Some(p) = stack.pop() {
            seen += 1;
            if seen > limit {
                return None;
            }
            if let Some(n) = self.nodes.get(p) {
                stack.extend(n.children.iter().map(String::as_str));
            }
        }
        Some(seen)
    }

    /// What draws `path` when other objects do (see [`crate::face`]).
    pub fn face_of(&self, path: &str) -> Option<crate::face::Face> {
        let node = self.nodes.get(path)?;
        // Only a combo box has a face: a click on anything else is not asked for its parent
        // (which takes a walk over every object).
        if node.role != Some(atspi::Role::ComboBox) {
            return None;
        }
        let parent = self.ancestors(path).into_iter().next()?;
        crate::face::of(&self.nodes, &parent, node)
    }

    /// Each object's parent, by path (as last read).
    pub fn parents(&self) -> HashMap<&str, &str> {
        self.nodes
            .values()
            .flat_map(|n| {
                n.children
                    .iter()
                    .map(move |c| (c.as_str(), n.path.as_str()))
            })
            .collect()
    }

    /// The objects above `path`, nearest first, up to the root (as last read).
    pub fn ancestors(&self, path: &str) -> Vec<String> {
        let parent = self.parents();
        let mut out = Vec::new();
        let mut cur = path;
        while let Some(p) = parent.get(cur) {
            if out.len() > crate::walk::MAX_DEPTH {
                break;
            }
            out.push((*p).to_string());
            cur = p;
        }
        out
    }

    /// Forgets the objects no parent reachable from the root lists any more.
    pub fn forget_unreachable(&mut self) {
        let keep: HashSet<String> = self.layout().order.into_iter().collect();
        self.nodes.retain(|p, _| keep.contains(p));
    }

    /// The tree as shown (see the module doc).
    pub fn layout(&self) -> Layout {
        let mut out = Layout::default();
        if !self.nodes.contains_key(&self.root) {
            return out;
        }
        let mut claimed: HashSet<&str> = HashSet::from([self.root.as_str()]);
        let mut order: Vec<&str> = vec![self.root.as_str()];
        let mut i = 0;
        while let Some(&p) = order.get(i) {
            i += 1;
            let Some(n) = self.nodes.get(p) else { continue };
            let mut mine = Vec::new();
            for c in &n.children {
                if self.nodes.contains_key(c) && claimed.insert(c.as_str()) {
                    order.push(c.as_str());
                    mine.push(c.clone());
                }
            }
            out.children.insert(p.to_string(), mine);
        }
        out.order = order.into_iter().map(str::to_string).collect();
        out
    }

    /// The top-level window (a child of the application) `path` is shown in.
    pub fn window_of(&self, path: &str) -> Option<String> {
        let layout = self.layout();
        let parent: HashMap<&str, &str> = layout
            .children
            .iter()
            .flat_map(|(p, cs)| cs.iter().map(move |c| (c.as_str(), p.as_str())))
            .collect();
        let mut cur = path;
        loop {
            let up = *parent.get(cur)?;
            if up == self.root {
                return Some(cur.to_string());
            }
            cur = up;
        }
    }

    /// The focused object: the deepest shown object with the Focused state, else the root.
    fn focus(&mut self, layout: &Layout) -> NodeId {
        let focused = layout
            .order
            .iter()
            .rev()
            .find(|p| {
                self.nodes
                    .get(*p)
                    .is_some_and(|n| n.states.contains(State::Focused))
            })
            .cloned();
        let path = focused.unwrap_or_else(|| self.root.clone());
        self.id(&path)
    }

    /// What to add to screen coordinates for bounds relative to the main window: minus the
    /// screen origin of the largest showing top-level (the first of equals).
    fn origin(&self, layout: &Layout) -> (f64, f64) {
        let tops = layout
            .children
            .get(&self.root)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut main: Option<(i64, Extents)> = None;
        for n in tops.iter().filter_map(|p| self.nodes.get(p)) {
            // A toolkit marks unknown extents with i32::MIN.
            let known = |e: &Extents| e.0 > i32::MIN && e.1 > i32::MIN;
            let Some(e) = n
                .extents
                .filter(|e| known(e) && n.states.contains(State::Showing))
            else {
                continue;
            };
            let area = i64::from(e.2.max(0)) * i64::from(e.3.max(0));
            if main.is_none_or(|(a, _)| area > a) {
                main = Some((area, e));
            }
        }
        main.map_or((0.0, 0.0), |(_, (x, y, _, _))| {
            (-f64::from(x), -f64::from(y))
        })
    }

    /// The AccessKit update since the last one: `full`, the whole tree with its root (the
    /// first update, or after a full read); else the nodes whose form changed, or `None`
    /// when nothing did.
    pub fn update(&mut self, full: bool) -> Option<TreeUpdate> {
        let layout = self.layout();
        let origin = self.origin(&layout);
        let shown: HashSet<&str> = layout.order.iter().map(String::as_str).collect();
        let mut next = HashMap::with_capacity(layout.order.len());
        let mut out = Vec::new();
        // Java's menu items are placed anew (see `menu_item_shift`): by their parents as laid out.
        let parent_of: HashMap<&str, &str> = if self.toolkit == Some(map::Toolkit::Java) {
            layout
                .children
                .iter()
                .flat_map(|(p, kids)| kids.iter().map(move |k| (k.as_str(), p.as_str())))
                .collect()
        } else {
            HashMap::new()
        };
        let faces = crate::face::all(&self.nodes, &layout.children);
        for p in &layout.order {
            let Some(mut raw) = self.nodes.get(p).cloned() else {
                continue;
            };
            if let Some(face) = faces.get(p) {
                raw = crate::face::dress(&self.nodes, &raw, face);
            }
            let children = layout.children.get(p).map(Vec::as_slice).unwrap_or(&[]);
            let parent = parent_of.get(p.as_str()).copied();
            let shift =
                self.menu_shift_under(parent, parent.and_then(|q| parent_of.get(q).copied()));
            let at = (origin.0 + f64::from(shift.0), origin.1 + f64::from(shift.1));
            let node = self.build_node(&raw, at, children, &shown);
            let id = self.id(p);
            if full || self.sent.get(&id) != Some(&node) {
                out.push((id, node.clone()));
            }
            next.insert(id, node);
        }
        let focus = self.focus(&layout);
        let changed = full || !out.is_empty() || self.sent_focus != Some(focus);
        self.sent = next;
        self.sent_focus = Some(focus);
        if !changed {
            return None;
        }
        let root = self.root.clone();
        let root_id = self.id(&root);
        Some(TreeUpdate {
            nodes: out,
            tree: full.then(|| TreeInfo::new(root_id)),
            tree_id: accesskit::TreeId::ROOT,
            focus,
        })
    }

    fn build_node(
        &mut self,
        raw: &RawNode,
        origin: (f64, f64),
        children: &[String],
        shown: &HashSet<&str>,
    ) -> Node {
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
        if let Some(t) = &raw.text {
            if at_role == atspi::Role::ComboBox {
                // A combo's text may hold its popup as an embedded object (Chromium's: just
                // U+FFFC): that is not what it shows.
                let shown = t.replace('\u{FFFC}', "");
                if !shown.trim().is_empty() {
                    node.set_value(shown);
                }
            } else if map::text_is_value(at_role) {
                // What a field holds, as it holds it.
                node.set_value(t.clone());
            } else if raw.name.is_empty() {
                // Text that stands for a name (a label's, a paragraph's): as a person reads it.
                node.set_value(map::readable(t));
            }
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
        if !s.contains(State::Enabled)
            && !s.contains(State::Sensitive)
            && role != Role::Application
            && !map::enabled_without_the_states(self.toolkit, Some(at_role), &s)
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
        if !s.contains(State::Showing)
            && (!s.contains(State::Visible) || map::not_showing_is_hidden(self.toolkit))
            && role != Role::Application
        {
            node.set_hidden();
        }
        // A spreadsheet's cell takes keys while it has the focus, though LibreOffice never
        // marks it Editable: a cell is not read-only for lacking it (keys that change nothing
        // answer NO_EFFECT).
        if raw.has(Interface::Text)
            && !s.contains(State::Editable)
            && map::text_is_value(at_role)
            && at_role != atspi::Role::TableCell
        {
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
            if let Some(k) = map::action_on(a, raw.role) {
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
        if let Some((rows, cols)) = raw.table {
            node.set_row_count(usize::try_from(rows).unwrap_or(0));
            node.set_column_count(usize::try_from(cols).unwrap_or(0));
        }
        let labelled: Vec<NodeId> = raw
            .labelled_by
            .iter()
            .filter(|p| shown.contains(p.as_str()))
            .map(|p| self.id(p))
            .collect();
        if !labelled.is_empty() && raw.name.is_empty() {
            node.set_labelled_by(labelled);
        }
        let children: Vec<NodeId> = children.iter().map(|c| self.id(c)).collect();
        node.set_children(children);
        node
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(path: &str, children: &[&str]) -> RawNode {
        RawNode {
            path: path.into(),
            role: Some(atspi::Role::Panel),
            states: State::Showing.into(),
            children: children.iter().map(|c| c.to_string()).collect(),
            ..RawNode::default()
        }
    }

    fn tree(nodes: &[RawNode]) -> AppTree {
        let mut t = AppTree::new("/app");
        t.nodes = nodes.iter().map(|n| (n.path.clone(), n.clone())).collect();
        t
    }

    fn children(u: &TreeUpdate, t: &AppTree, path: &str) -> Option<Vec<String>> {
        let id = t.known_id(path)?;
        let (_, n) = u.nodes.iter().find(|(i, _)| *i == id)?;
        Some(
            n.children()
                .iter()
                .map(|c| t.path(*c).unwrap().to_string())
                .collect(),
        )
    }

    #[test]
    fn a_child_of_two_parents_belongs_to_the_shallowest_and_moves_with_an_update() {
        // GTK3: the combo (deep in the frame) lists its menu; the popup window opens and
        // lists it too.
        let mut t = tree(&[
            raw("/app", &["/frame"]),
            raw("/frame", &["/box"]),
            raw("/box", &["/combo"]),
            raw("/combo", &["/menu"]),
            raw("/menu", &["/item"]),
            raw("/item", &[]),
        ]);
        // Core's mirror validates each update as a session would.
        let mut mirror = automation_core::mirror::Mirror::new();
        let first = t.update(true).unwrap();
        assert_eq!(children(&first, &t, "/combo").unwrap(), vec!["/menu"]);
        mirror.apply(first).unwrap();
        t.nodes
            .insert("/app".into(), raw("/app", &["/frame", "/popup"]));
        t.nodes.insert("/popup".into(), raw("/popup", &["/menu"]));
        let u = t.update(false).unwrap();
        assert_eq!(children(&u, &t, "/popup").unwrap(), vec!["/menu"]);
        // The combo is sent again, without the menu: the update is whole.
        assert_eq!(children(&u, &t, "/combo").unwrap(), Vec::<String>::new());
        assert!(
            children(&u, &t, "/item").is_none(),
            "unchanged nodes are not re-sent"
        );
        mirror.apply(u).unwrap();
        assert!(t.update(false).is_none(), "nothing changed since");
        // The popup goes: the menu is the combo's again, not forgotten.
        t.replace_subtree(HashMap::from([(
            "/app".to_string(),
            raw("/app", &["/frame"]),
        )]));
        assert!(t.nodes.contains_key("/menu") && !t.nodes.contains_key("/popup"));
        let u = t.update(false).unwrap();
        assert_eq!(children(&u, &t, "/combo").unwrap(), vec!["/menu"]);
        mirror.apply(u).unwrap();
    }

    #[test]
    fn bounds_are_relative_to_the_largest_showing_top_level() {
        let mut frame = raw("/frame", &["/button"]);
        frame.extents = Some((507, 350, 566, 421));
        let mut popup = raw("/popup", &[]);
        popup.extents = Some((600, 400, 50, 50));
        let mut hidden = raw("/hidden", &[]);
        hidden.states = atspi::StateSet::empty();
        hidden.extents = Some((0, 0, 2000, 2000));
        let mut button = raw("/button", &[]);
        button.extents = Some((518, 361, 37, 35));
        let mut t = tree(&[
            raw("/app", &["/hidden", "/popup", "/frame"]),
            frame,
            popup,
            hidden,
            button,
        ]);
        let u = t.update(true).unwrap();
        let id = t.known_id("/button").unwrap();
        let b = u
            .nodes
            .iter()
            .find(|(i, _)| *i == id)
            .unwrap()
            .1
            .bounds()
            .unwrap();
        assert_eq!((b.x0, b.y0, b.x1, b.y1), (11.0, 11.0, 48.0, 46.0));
    }
}
