//! The selector generator: for a node of the current tree, the shortest selector that picks
//! exactly it and names it the way the next build will still name it — never a raw id or a
//! reply's reference, which mean nothing in the next run.
//!
//! By preference: the app's `author_id`; role + accessible name; the same inside the nearest
//! uniquely named ancestor (`within`), with `nth` only when the ancestor holds several; role +
//! value for a field whose name is empty (a short, one-line value only: a text view's document
//! is not a name); role + `nth` inside a named ancestor for a node with
//! neither, or over the whole tree for one a person can act on (a nameless container gets none). Every candidate is checked by resolving it (the same `matches` every op uses), so
//! a selector handed out always picks that node and no other, *in this tree*. When none does,
//! the answer is why.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use accesskit::NodeId;
use accesskit_consumer::NodeRef;

use super::Session;
use crate::node_ref::Selector;
use crate::snapshot::{accessible_name, role_name};
use crate::target::Target;

/// The actions that make a node a widget a person operates (scrolling it into view or
/// focusing it, which toolkits offer on nearly every node, do not).
const OPERATED_BY: &[accesskit::Action] = &[
    accesskit::Action::Click,
    accesskit::Action::SetValue,
    accesskit::Action::Expand,
    accesskit::Action::Collapse,
    accesskit::Action::Increment,
    accesskit::Action::Decrement,
    accesskit::Action::ReplaceSelectedText,
    accesskit::Action::ShowContextMenu,
];

/// Why a node has no durable selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoSelector {
    /// One sentence a reader can act on.
    pub reason: String,
}

impl std::fmt::Display for NoSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for NoSelector {}

fn no(reason: impl Into<String>) -> NoSelector {
    NoSelector {
        reason: reason.into(),
    }
}

/// A text worth matching on: not empty, not only blanks.
fn meaningful(text: Option<String>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty())
}

/// The longest value used as a selector field, in characters.
const VALUE_MAX_CHARS: usize = 40;

/// A value short enough to name a field by: a text view's whole document (long, several
/// lines) is content that changes with every edit and unreadable in a test, not a name.
fn short_value(value: &str) -> bool {
    !value.contains('\n') && value.chars().count() <= VALUE_MAX_CHARS
}

impl<T: Target + ?Sized> Session<T> {
    /// The durable selector for `id` in the current tree (see the module doc), or why there
    /// is none.
    ///
    /// ```
    /// use automation_core::Session;
    /// use automation_testkit::fixture::DemoApp;
    ///
    /// let mut session = Session::new(DemoApp::new());
    /// session.sync().unwrap();
    /// let save = session.matches(&serde_json::from_str(r#"{"label": "Save"}"#).unwrap()).unwrap()[0];
    /// let sel = session.durable_selector(save).unwrap();
    /// assert_eq!(sel.to_string(), r#"{role="Button", label="Save"}"#);
    /// ```
    pub fn durable_selector(&self, id: NodeId) -> Result<Selector, NoSelector> {
        Generator::new(self).selector(id)
    }

    /// [`Self::durable_selector`] for many nodes of one tree at once (a whole tree, a
    /// session's log): what one node's search learns about the tree, the next one reuses.
    pub fn durable_selectors(
        &self,
        ids: impl IntoIterator<Item = NodeId>,
    ) -> Vec<Result<Selector, NoSelector>> {
        let generator = Generator::new(self);
        ids.into_iter().map(|id| generator.selector(id)).collect()
    }
}

/// One run of the generator over one tree, remembering the searches it made.
struct Generator<'s, T: ?Sized> {
    session: &'s Session<T>,
    memo: RefCell<HashMap<String, Rc<Vec<NodeId>>>>,
    anchors: RefCell<HashMap<NodeId, Option<Selector>>>,
}

impl<'s, T: Target + ?Sized> Generator<'s, T> {
    fn new(session: &'s Session<T>) -> Self {
        Self {
            session,
            memo: RefCell::default(),
            anchors: RefCell::default(),
        }
    }

    fn selector(&self, id: NodeId) -> Result<Selector, NoSelector> {
        let node = self
            .session
            .mirror
            .node(id)
            .ok_or_else(|| no("the node is not in the current tree"))?;
        if let Some(sel) = self.by_author(&node, id) {
            return Ok(sel);
        }
        let name = meaningful(accessible_name(&node));
        let value = if name.is_none() {
            meaningful(node.value()).filter(|v| short_value(v))
        } else {
            None
        };
        let positional = name.is_none() && value.is_none();
        let base = Selector {
            role: Some(role_name(node.role())),
            label: name,
            value,
            ..Selector::default()
        };
        if !positional && self.picks_only(&base, id) {
            return Ok(base);
        }
        let found = self.matches(&base);
        // The only node of its role (the app's one window) needs nothing more.
        if positional && found.as_slice() == [id] {
            return Ok(base);
        }
        if let Some(scoped) = self.within_named_ancestor(&node, &base, found.len()) {
            return Ok(scoped);
        }
        // A nameless node a person operates is still worth a test's step: count it among its
        // role in document order. One they do not (a container) is not.
        let acts = OPERATED_BY.iter().any(|a| node.data().supports_action(*a));
        if positional && !acts {
            return Err(no(format!(
                "a {} with no name, value, author id or action a person performs, and no uniquely named ancestor to count it within",
                role_name(node.role())
            )));
        }
        // Several nodes share the role (and name), none inside a uniquely named group: count
        // them in document order over the whole tree.
        match found.iter().position(|f| *f == id) {
            Some(nth) => Ok(Selector {
                nth: Some(nth),
                ..base
            }),
            None => Err(no(format!(
                "{base} does not pick the node (a label of another node with the same text wins)"
            ))),
        }
    }

    /// `base` inside the nearest ancestor that has a selector of its own (author id, or role
    /// and name, unique in the tree), with `nth` when the ancestor holds several matches. An
    /// ancestor that holds all `everywhere` matches narrows nothing (the app's root, say), and
    /// no ancestor above it can: then there is none.
    fn within_named_ancestor(
        &self,
        node: &NodeRef,
        base: &Selector,
        everywhere: usize,
    ) -> Option<Selector> {
        let id = node.locate().0;
        let mut cursor = node.parent();
        while let Some(ancestor) = cursor {
            cursor = ancestor.parent();
            let Some(anchor) = self.anchor(&ancestor) else {
                continue;
            };
            let scoped = Selector {
                within: Some(Box::new(anchor)),
                ..base.clone()
            };
            let found = self.matches(&scoped);
            if found.len() >= everywhere {
                return None;
            }
            match found.iter().position(|f| *f == id) {
                Some(0) if found.len() == 1 => return Some(scoped),
                Some(nth) => {
                    return Some(Selector {
                        nth: Some(nth),
                        ..scoped
                    });
                }
                None => continue,
            }
        }
        None
    }

    /// A selector for an ancestor to count inside: its author id or its role and name, when
    /// either picks it alone.
    fn anchor(&self, node: &NodeRef) -> Option<Selector> {
        let id = node.locate().0;
        if let Some(known) = self.anchors.borrow().get(&id) {
            return known.clone();
        }
        let anchor = self.anchor_uncached(node, id);
        self.anchors.borrow_mut().insert(id, anchor.clone());
        anchor
    }

    fn anchor_uncached(&self, node: &NodeRef, id: NodeId) -> Option<Selector> {
        if let Some(sel) = self.by_author(node, id) {
            return Some(sel);
        }
        let name = meaningful(accessible_name(node))?;
        let sel = Selector {
            role: Some(role_name(node.role())),
            label: Some(name),
            ..Selector::default()
        };
        self.picks_only(&sel, id).then_some(sel)
    }

    /// `{"author_id": …}` when the node has one that no other node shares.
    fn by_author(&self, node: &NodeRef, id: NodeId) -> Option<Selector> {
        let sel = Selector {
            author_id: Some(node.author_id()?.to_string()),
            ..Selector::default()
        };
        self.picks_only(&sel, id).then_some(sel)
    }

    fn picks_only(&self, sel: &Selector, id: NodeId) -> bool {
        self.matches(sel).as_slice() == [id]
    }

    /// `Session::matches`, remembered: a tree's nodes share roles, names and ancestors, and
    /// the tree does not change while the generator runs. An error (an unknown role cannot
    /// happen here) counts as no match.
    fn matches(&self, sel: &Selector) -> Rc<Vec<NodeId>> {
        let key = sel.to_string();
        if let Some(found) = self.memo.borrow().get(&key) {
            return found.clone();
        }
        let found = Rc::new(self.session.matches(sel).unwrap_or_default());
        self.memo.borrow_mut().insert(key, found.clone());
        found
    }
}

/// Runs an op with `with_selector`: the durable selector of the node it names, taken on the
/// tree as it is before the op acts (the node may change or go), or of `find_node`'s match
/// after it; added to the reply's data as `selector` (or `selector_note`, why there is none).
/// An error reply is left as it is.
pub(super) fn with_selector<T: Target + ?Sized>(
    session: &mut Session<T>,
    op: &crate::catalog::Op,
    run: impl FnOnce(&mut Session<T>) -> crate::request::Reply,
) -> crate::request::Reply {
    use crate::catalog::Op;
    use crate::node_ref::NodeTarget;
    use crate::request::Reply;
    use serde_json::{Value, json};

    let describe = |s: &Session<T>, target: &NodeTarget| match s.resolve(target) {
        Ok(node) => match s.durable_selector(node.id) {
            Ok(sel) => ("selector", json!(sel)),
            Err(why) => ("selector_note", json!(why.reason)),
        },
        Err(e) => ("selector_note", json!(e.message)),
    };
    let before = match op {
        Op::FindNode(_) => None,
        other => match other.node() {
            Some(target) => match session.sync() {
                Ok(()) => Some(describe(session, target)),
                Err(e) => Some(("selector_note", json!(e.message))),
            },
            None => Some((
                "selector_note",
                json!(format!("{} names no node", op.name())),
            )),
        },
    };
    let mut reply = run(session);
    let Reply::Ok(Value::Object(data)) = &mut reply else {
        return reply;
    };
    let (key, value) = match before {
        Some(found) => found,
        None => match data
            .get("node")
            .and_then(|n| serde_json::from_value::<NodeTarget>(n.clone()).ok())
        {
            Some(found) => describe(session, &found),
            None => ("selector_note", json!("find_node matched no node")),
        },
    };
    data.insert(key.into(), value);
    reply
}
