//! automation-core on a 10 000-node tree, side by side with kittest 0.5's label query.
//!
//! - `mirror/full_rebuild`: `Mirror::new().apply(full update)`.
//! - `mirror/full_update_5_changed`: a populated mirror receives a full update in which only 5
//!   nodes differ from what it holds (the per-frame case of an immediate-mode toolkit).
//! - `execute/snapshot_tree_20000`: `snapshot_tree {max_nodes: 20000}` through `execute` (the
//!   default text outline of all 10 000 nodes).
//! - `execute/find_node_last_label`: `find_node {label}` of the last node through `execute`.
//! - `kittest/query_by_label_last`: kittest's `query_by_label` on the same tree (query only;
//!   `kittest/state_new` and `kittest/state_update_5_changed` are the bare accesskit_consumer
//!   build and update, the floor under the two `mirror/*` numbers).
//!
//! - `selectors/durable_all_10000`: `Session::durable_selectors` for every node of a variant
//!   whose buttons are named alike (`Button 0` … `Button 9` in every list).
//!
//! Run: `cargo bench -p automation-benches --bench core_tree -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::Cell;
use std::fmt;
use std::hint::black_box;

use accesskit::{Action, ActionRequest, Node, NodeId, Rect, Role, TreeInfo, TreeUpdate};
use automation_core::input::{KeyEvent, PointerEvent, ScrollEvent};
use automation_core::mirror::Mirror;
use automation_core::{
    ActionOutcome, ClockKind, Op, Selector, Session, SettleSpec, Target, TargetError, execute,
};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use kittest::{AccessKitNode, NodeT, Queryable};

/// Total nodes in the tree.
const NODES: usize = 10_000;
/// Containers per level below the root (3 levels: 10, 100, 1000); leaves hang under level 3,
/// so the deepest nodes are 4 levels below the Window.
const FANOUT: usize = 10;
/// Nodes whose label differs between the two variants of the tree.
const CHANGED: usize = 5;

fn rect(x: f64, y: f64, w: f64, h: f64) -> Rect {
    Rect {
        x0: x,
        y0: y,
        x1: x + w,
        y1: y + h,
    }
}

/// Builds the tree; `variant` 1 relabels `CHANGED` leaves spread over the tree; variant 2
/// names the buttons `Button 0` … `Button 9` over and over (as real apps repeat OK and
/// Cancel), for the selector generator.
/// Returns the update and the label of the last node in document order.
fn build_tree(variant: u32) -> (TreeUpdate, String) {
    let root = NodeId(1);
    let mut next_id = 2u64;
    let mut nodes: Vec<(NodeId, Node)> = Vec::with_capacity(NODES);
    let mut root_node = Node::new(Role::Window);
    root_node.set_label("Bench window");
    root_node.set_bounds(rect(0.0, 0.0, 1920.0, 1080.0));

    // Three levels of containers: 10 + 100 + 1000.
    let mut level: Vec<NodeId> = vec![root];
    let mut containers: Vec<(NodeId, Node)> = Vec::new();
    let mut parents_children: std::collections::HashMap<NodeId, Vec<NodeId>> = Default::default();
    for depth in 0..3 {
        let mut next_level = Vec::new();
        for parent in &level {
            for k in 0..FANOUT {
                let id = NodeId(next_id);
                next_id += 1;
                let mut n = Node::new(if depth == 2 { Role::List } else { Role::Group });
                n.set_label(format!("Group {}", id.0));
                n.set_bounds(rect(k as f64 * 10.0, depth as f64 * 10.0, 100.0, 100.0));
                containers.push((id, n));
                parents_children.entry(*parent).or_default().push(id);
                next_level.push(id);
            }
        }
        level = next_level;
    }
    let leaves = NODES - 1 - containers.len();
    let mut leaf_nodes = Vec::with_capacity(leaves);
    let mut last_label = String::new();
    for i in 0..leaves {
        let parent = level[i * level.len() / leaves];
        let id = NodeId(next_id);
        next_id += 1;
        let changed = variant == 1 && i % (leaves / CHANGED) == 7;
        let suffix = if changed { " (changed)" } else { "" };
        let (role, label) = if i % 2 == 0 && variant == 2 {
            (Role::Button, format!("Button {}", i % 10))
        } else if i % 2 == 0 {
            (Role::Button, format!("Button {i}{suffix}"))
        } else {
            (Role::Label, format!("Text {i}{suffix}"))
        };
        let mut n = Node::new(role);
        n.set_label(label.clone());
        if role == Role::Label {
            // kittest reads a Label's text from its value.
            n.set_value(label.clone());
        } else {
            n.add_action(Action::Click);
            n.add_action(Action::Focus);
        }
        n.set_bounds(rect(
            (i % 40) as f64 * 40.0,
            (i / 40) as f64 * 20.0,
            38.0,
            18.0,
        ));
        parents_children.entry(parent).or_default().push(id);
        leaf_nodes.push((id, n));
        last_label = label;
    }
    root_node.set_children(parents_children.remove(&root).unwrap_or_default());
    nodes.push((root, root_node));
    for (id, mut n) in containers.into_iter().chain(leaf_nodes) {
        if let Some(children) = parents_children.remove(&id) {
            n.set_children(children);
        }
        nodes.push((id, n));
    }
    assert_eq!(nodes.len(), NODES);
    let update = TreeUpdate {
        nodes,
        tree: Some(TreeInfo::new(root)),
        tree_id: accesskit::TreeId::ROOT,
        focus: root,
    };
    (update, last_label)
}

/// A target that hands out one tree and then nothing: `execute` syncs for free after that.
struct StaticTarget {
    pending: Option<TreeUpdate>,
}

impl Target for StaticTarget {
    fn clock(&self) -> ClockKind {
        ClockKind::Simulated
    }
    fn poll_tree(&mut self) -> Result<Option<TreeUpdate>, TargetError> {
        Ok(self.pending.take())
    }
    fn action(&mut self, _: ActionRequest) -> Result<ActionOutcome, TargetError> {
        Ok(ActionOutcome::Unhandled)
    }
    fn pointer(&mut self, _: &PointerEvent) -> Result<(), TargetError> {
        Ok(())
    }
    fn key(&mut self, _: &KeyEvent) -> Result<(), TargetError> {
        Ok(())
    }
    fn scroll(&mut self, _: &ScrollEvent) -> Result<(), TargetError> {
        Ok(())
    }
}

/// kittest queries any `NodeT`; this is the thinnest one over a plain accesskit node.
#[derive(Clone)]
struct KNode<'t>(AccessKitNode<'t>);

impl fmt::Debug for KNode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KNode({:?})", self.0.id())
    }
}

impl<'t> NodeT<'t> for KNode<'t> {
    fn accesskit_node(&self) -> AccessKitNode<'t> {
        self.0
    }
    fn new_related(&self, child: AccessKitNode<'t>) -> Self {
        KNode(child)
    }
}

fn core_tree(c: &mut Criterion) {
    let (full, last_label) = build_tree(0);
    let (changed, _) = build_tree(1);

    // Sanity: both sides find the same single node.
    let mut session = Session::new(StaticTarget {
        pending: Some(full.clone()),
    });
    let find = Op::FindNode(Selector {
        label: Some(last_label.clone()),
        ..Selector::default()
    });
    let settle = SettleSpec::default();
    let reply = execute(&mut session, &find, &settle);
    let data = reply.data().expect("find_node ok");
    assert_eq!(data["count"], 1, "{data}");
    assert_eq!(session.mirror.len(), NODES);
    let state = kittest::State::new(full.clone());
    let kroot = KNode(state.root());
    let hit = kroot
        .query_by_label(&last_label)
        .expect("kittest finds the last node");
    // The reply names the node by a session reference ("e12"); the session says which id
    // that reference was bound to.
    let key: automation_core::refs::RefKey = data["node"]
        .as_str()
        .expect("a reference")
        .parse()
        .expect("e<n>");
    let bound = session
        .mirror
        .refs
        .binding(key)
        .expect("a reference this session minted");
    assert_eq!(bound.id, hit.0.locate().0);
    {
        // The changed update really changes CHANGED nodes and applies cleanly.
        let mut m = Mirror::new();
        m.apply(full.clone()).unwrap();
        let v = m.version();
        m.apply(changed.clone()).unwrap();
        assert_eq!(m.version(), v + 1);
        let differing = full
            .nodes
            .iter()
            .zip(&changed.nodes)
            .filter(|(a, b)| a.1 != b.1)
            .count();
        assert_eq!(differing, CHANGED);
    }

    let mut g = c.benchmark_group("mirror");
    g.bench_function("full_rebuild", |b| {
        b.iter_batched(
            || full.clone(),
            |u| {
                let mut m = Mirror::new();
                m.apply(u).unwrap();
                m
            },
            BatchSize::LargeInput,
        )
    });
    let mut populated = Mirror::new();
    populated.apply(full.clone()).unwrap();
    let flip = Cell::new(false);
    g.bench_function("full_update_5_changed", |b| {
        b.iter_batched(
            || {
                // Alternate, so every update differs from the mirror in exactly CHANGED nodes.
                flip.set(!flip.get());
                if flip.get() {
                    changed.clone()
                } else {
                    full.clone()
                }
            },
            |u| populated.apply(u).unwrap(),
            BatchSize::LargeInput,
        )
    });
    // What the mirror could get by dropping unchanged nodes before the consumer sees them (a
    // node absent from an update is unchanged to accesskit_consumer): the filter is timed too.
    let mut populated = Mirror::new();
    populated.apply(full.clone()).unwrap();
    let flip = Cell::new(false);
    g.bench_function("full_update_5_changed_prefiltered", |b| {
        b.iter_batched(
            || {
                flip.set(!flip.get());
                if flip.get() {
                    changed.clone()
                } else {
                    full.clone()
                }
            },
            |mut u| {
                u.nodes
                    .retain(|(id, node)| populated.node(*id).is_none_or(|old| old.data() != node));
                if populated.state().is_some_and(|s| {
                    u.tree
                        .as_ref()
                        .is_some_and(|t| t.root == s.root().locate().0)
                }) {
                    u.tree = None;
                }
                populated.apply(u).unwrap()
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();

    let mut g = c.benchmark_group("execute");
    let snapshot =
        Op::from_parts("snapshot_tree", serde_json::json!({"max_nodes": 20000})).unwrap();
    // The default snapshot is the text outline: one line a node, nothing cut.
    let reply = execute(&mut session, &snapshot, &settle);
    let data = reply.data().expect("snapshot ok");
    assert_eq!(data.get("truncated"), None, "{}", data["note"]);
    assert_eq!(
        data["tree"].as_str().map(|t| t.lines().count()),
        Some(NODES)
    );
    g.bench_function("snapshot_tree_20000", |b| {
        b.iter(|| black_box(execute(&mut session, &snapshot, &settle)))
    });
    g.bench_function("find_node_last_label", |b| {
        b.iter(|| black_box(execute(&mut session, black_box(&find), &settle)))
    });
    g.finish();

    // The selector generator over the whole tree, buttons named alike: each gets the
    // shortest selector that picks it alone (inside its uniquely named list), checked.
    let (alike, _) = build_tree(2);
    let ids: Vec<NodeId> = alike.nodes.iter().map(|(id, _)| *id).collect();
    let mut named_alike = Session::new(StaticTarget {
        pending: Some(alike),
    });
    named_alike.sync().unwrap();
    let made = named_alike.durable_selectors(ids.iter().copied());
    let ok = made.iter().filter(|m| m.is_ok()).count();
    assert_eq!(ok, NODES, "every node is named");
    let scoped = made
        .iter()
        .filter(|m| m.as_ref().is_ok_and(|s| s.within.is_some()))
        .count();
    assert!(scoped > 1000, "{scoped} selectors use `within`");
    let mut g = c.benchmark_group("selectors");
    g.bench_function("durable_all_10000", |b| {
        b.iter(|| black_box(named_alike.durable_selectors(ids.iter().copied())))
    });
    g.finish();

    let mut g = c.benchmark_group("kittest");
    g.bench_function("query_by_label_last", |b| {
        b.iter(|| {
            black_box(
                kroot
                    .query_by_label(black_box(&last_label))
                    .map(|n| n.0.locate().0),
            )
        })
    });
    g.bench_function("state_new", |b| {
        b.iter_batched(|| full.clone(), kittest::State::new, BatchSize::LargeInput)
    });
    // The consumer alone (kittest's State applies updates with a no-op change handler): the
    // floor under `mirror/full_update_5_changed`.
    let mut kstate = kittest::State::new(full.clone());
    let flip = Cell::new(false);
    g.bench_function("state_update_5_changed", |b| {
        b.iter_batched(
            || {
                flip.set(!flip.get());
                if flip.get() {
                    changed.clone()
                } else {
                    full.clone()
                }
            },
            |u| kstate.update(u),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, core_tree);
criterion_main!(benches);
