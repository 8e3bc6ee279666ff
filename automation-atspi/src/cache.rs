//! `org.a11y.atspi.Cache.GetItems`: role, name, description, states, interfaces and parent
//! of every object of an app in one call.
//!
//! It is a cache of the objects the toolkit has *exported* so far, not the tree: measured here,
//! GTK4's gnome-calculator serves 10 of its ~100 objects right after start, GTK3's
//! gtk3-widget-factory 191 of ~260 (once its bridge has been asked for anything; before,
//! `GetItems` is an unknown method), Qt 5 the legacy signature with an empty list, AccessKit
//! no Cache at all. So the items seed the walk ([`crate::fetch::Reader::all`]): an object in
//! the cache needs no role, states, name, description or interfaces call, and no children
//! call when every child it counts is in the cache too; everything else is read. An empty
//! or failing answer means "walk without seeds".
//!
//! The items are decoded as plain D-Bus values ([`crate::wire`]), not atspi's `CacheItem`.
//! This module only decodes: the reader makes the call, so the dependency points one way.

use std::collections::HashMap;

use crate::node::RawNode;
use crate::wire::{self, WireRef};

/// One item, current signature: object, app, parent, index in parent, child count,
/// interfaces, name, role, description, states.
pub type Item = (
    WireRef,
    WireRef,
    WireRef,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

/// One item, legacy signature: object, app, parent, children, interfaces, name, role,
/// description, states.
pub type LegacyItem = (
    WireRef,
    WireRef,
    WireRef,
    Vec<WireRef>,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

/// The object that serves the cache.
pub const PATH: &str = "/org/a11y/atspi/cache";
/// Its interface (`GetItems`).
pub const IFACE: &str = "org.a11y.atspi.Cache";

/// One object from the cache.
#[derive(Debug, Clone)]
pub struct Cached {
    /// Role, states, name, description, interfaces; children as far as the cache knows.
    pub node: RawNode,
    /// Whether `node.children` is the whole list (the cache holds every child it counts).
    pub complete: bool,
    /// The child count the toolkit gave (`-1`: not given, as for menus and managers).
    pub count: i32,
}

fn base(path: String, role: u32, name: String, description: String, states: &[u32]) -> RawNode {
    RawNode {
        path,
        role: Some(wire::role(role)),
        name,
        description,
        states: wire::states(states),
        ..RawNode::default()
    }
}

/// Current signature: each item names its parent and its index there.
pub fn from_items(dest: &str, items: Vec<Item>) -> HashMap<String, Cached> {
    let mut nodes: HashMap<String, RawNode> = HashMap::with_capacity(items.len());
    let mut counts: HashMap<String, i32> = HashMap::with_capacity(items.len());
    let mut links: Vec<(String, i32, String)> = Vec::with_capacity(items.len());
    for (object, _app, parent, index, count, ifaces, name, role, description, states) in items {
        let Some(path) = wire::same_app(dest, &object) else {
            continue;
        };
        if let Some(parent) = wire::same_app(dest, &parent) {
            links.push((parent, index, path.clone()));
        }
        let mut n = base(path.clone(), role, name, description, &states);
        n.ifaces = wire::ifaces(&ifaces);
        counts.insert(path.clone(), count);
        nodes.insert(path, n);
    }
    // By index in parent; unknown indices (-1) last, in the order served.
    links.sort_by(|a, b| (&a.0, a.1 < 0, a.1).cmp(&(&b.0, b.1 < 0, b.1)));
    for (parent, _, child) in links {
        if let Some(p) = nodes.get_mut(&parent) {
            p.children.push(child);
        }
    }
    nodes
        .into_iter()
        .map(|(path, node)| {
            let count = counts.get(&path).copied().unwrap_or(-1);
            let complete = usize::try_from(count).is_ok_and(|c| c == node.children.len());
            (
                path,
                Cached {
                    node,
                    complete,
                    count,
                },
            )
        })
        .collect()
}

/// Legacy signature (older Qt and registry daemons): each item lists its children.
pub fn from_legacy(dest: &str, items: Vec<LegacyItem>) -> HashMap<String, Cached> {
    let mut nodes = HashMap::with_capacity(items.len());
    for (object, _app, _parent, children, ifaces, name, role, description, states) in items {
        let Some(path) = wire::same_app(dest, &object) else {
            continue;
        };
        let mut n = base(path.clone(), role, name, description, &states);
        n.ifaces = wire::ifaces(&ifaces);
        n.children = children
            .iter()
            .filter_map(|c| wire::same_app(dest, c))
            .collect();
        let count = i32::try_from(n.children.len()).unwrap_or(i32::MAX);
        nodes.insert(
            path,
            Cached {
                node: n,
                complete: true,
                count,
            },
        );
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::zvariant::OwnedObjectPath;

    fn r(name: &str, path: &str) -> WireRef {
        (name.to_string(), OwnedObjectPath::try_from(path).unwrap())
    }

    fn item(path: &str, parent: Option<&str>, index: i32, name: &str) -> Item {
        (
            r(":1.5", path),
            r(":1.5", "/r"),
            parent.map_or_else(|| r("", "/org/a11y/atspi/null"), |p| r(":1.5", p)),
            index,
            if path == "/r" { 3 } else { 0 },
            vec![
                "org.a11y.atspi.Accessible".into(),
                "org.a11y.atspi.Action".into(),
            ],
            name.into(),
            43,
            format!("{name} described"),
            vec![1 << 8, 0],
        )
    }

    #[test]
    fn children_follow_the_index_in_parent() {
        let nodes = from_items(
            ":1.5",
            vec![
                item("/c", Some("/r"), 1, "second"),
                item("/r", None, -1, "root"),
                item("/b", Some("/r"), 0, "first"),
                item("/x", Some("/r"), -1, "unindexed"),
                item("/orphan", Some("/missing"), 0, "x"),
            ],
        );
        assert_eq!(nodes["/r"].node.children, vec!["/b", "/c", "/x"]);
        assert!(nodes["/r"].complete);
        let b = &nodes["/b"].node;
        assert_eq!(b.name, "first");
        assert_eq!(b.description, "first described");
        assert!(b.has(atspi::Interface::Action));
        assert!(b.states.contains(atspi::State::Enabled));
        // It counts children the cache does not hold: the walk asks for them.
        let partial = from_items(":1.5", vec![item("/r", None, -1, "root")]);
        assert!(!partial["/r"].complete);
    }
}
