//! The mirror: an `accesskit_consumer` copy of the app's tree, updated only with validated
//! updates, plus what automation remembers across ops (ids ever seen, a label index for fast
//! queries, the version counter, the announcement ring).

// foldhash, not std's SipHash: a full tree build makes several lookups per node, keyed by
// accesskit ids and labels (it stays seeded per process).
use foldhash::{HashMap, HashSet, HashSetExt as _};

use accesskit::{NodeId, Role, TreeId, TreeUpdate};
use accesskit_consumer::{NodeRef, Tree, TreeChangeHandler, TreeState};

use crate::announce::Announcements;
use crate::error::{ErrorCode, OpError};
use crate::validate::validate_update;

/// Removed nodes remembered for stale-reference hints.
const GRAVEYARD_CAP: usize = 50_000;

/// The mirrored tree and its indexes.
#[derive(Default)]
pub struct Mirror {
    tree: Option<Tree>,
    version: u64,
    seen: HashSet<NodeId>,
    labels: LabelIndex,
    len: usize,
    /// Role and label of removed nodes, so a stale reference can point at its successor.
    graveyard: HashMap<NodeId, (Role, Option<String>)>,
    /// Recorded live-region announcements.
    pub announcements: Announcements,
    /// The references replies handed out, and what each named.
    pub refs: crate::refs::Refs,
}

/// Resolved label → nodes, maintained incrementally from the change handler.
#[derive(Default)]
struct LabelIndex {
    by_label: HashMap<String, Vec<NodeId>>,
    of_node: HashMap<NodeId, String>,
    /// target → nodes whose `labelled_by` names it.
    labelled_by_rev: HashMap<NodeId, Vec<NodeId>>,
}

impl LabelIndex {
    fn remove(&mut self, id: NodeId) {
        if let Some(old) = self.of_node.remove(&id)
            && let Some(ids) = self.by_label.get_mut(&old)
        {
            ids.retain(|n| *n != id);
            if ids.is_empty() {
                self.by_label.remove(&old);
            }
        }
    }

    fn set(&mut self, id: NodeId, label: Option<String>) {
        if self.of_node.get(&id) == label.as_ref() {
            return;
        }
        self.remove(id);
        if let Some(label) = label {
            self.by_label.entry(label.clone()).or_default().push(id);
            self.of_node.insert(id, label);
        }
    }
}

/// Collects what changed while the consumer applies an update.
struct Changes<'a> {
    announcements: &'a mut Announcements,
    touched: Vec<NodeId>,
    removed: Vec<(NodeId, Role, Option<String>)>,
    added: usize,
}

impl TreeChangeHandler for Changes<'_> {
    fn node_added(&mut self, node: &NodeRef) {
        self.added += 1;
        self.touched.push(node.locate().0);
        self.announcements.added(node);
    }

    fn node_updated(&mut self, old: &NodeRef, new: &NodeRef) {
        self.touched.push(new.locate().0);
        if let Some(p) = old.parent() {
            self.touched.push(p.locate().0);
        }
        self.announcements.updated(old, new);
    }

    fn focus_moved(&mut self, _old: Option<&NodeRef>, _new: Option<&NodeRef>) {}

    fn node_removed(&mut self, node: &NodeRef) {
        let id = node.locate().0;
        self.removed.push((id, node.role(), node.label()));
        if let Some(p) = node.parent() {
            self.touched.push(p.locate().0);
        }
        self.announcements.removed(node);
    }
}

impl Mirror {
    /// An empty mirror (no tree yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// The tree, once the first update arrived.
    pub fn state(&self) -> Option<&TreeState> {
        self.tree.as_ref().map(Tree::state)
    }

    /// The tree, or a `TARGET_FAILED` error when the app never produced one.
    pub fn require_state(&self) -> Result<&TreeState, OpError> {
        self.state().ok_or_else(|| {
            OpError::new(
                ErrorCode::TargetFailed,
                "the app has not produced an accessibility tree yet",
            )
            .with_hint("make sure the app enables AccessKit, then retry after a settle")
        })
    }

    /// Bumped on every applied update that changed something.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Number of nodes in the tree.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` before the first update.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether an id was ever part of the tree.
    pub fn ever_seen(&self, id: NodeId) -> bool {
        self.seen.contains(&id)
    }

    /// Role and label a removed node had.
    pub fn departed(&self, id: NodeId) -> Option<&(Role, Option<String>)> {
        self.graveyard.get(&id)
    }

    /// A node by id.
    pub fn node(&self, id: NodeId) -> Option<NodeRef<'_>> {
        self.state()?.node_by_tree_local_id(id, TreeId::ROOT)
    }

    /// Nodes whose accessible name (label, or a `Label`'s text) is exactly `label` (unordered).
    pub fn nodes_labelled(&self, label: &str) -> &[NodeId] {
        self.labels.by_label.get(label).map_or(&[], Vec::as_slice)
    }

    /// Validates then applies an update. A malformed update changes nothing.
    pub fn apply(&mut self, mut update: TreeUpdate) -> Result<(), OpError> {
        self.drop_unchanged(&mut update);
        validate_update(
            &update,
            self.state(),
            self.len,
            &self.labels.labelled_by_rev,
        )?;
        let mut changes = Changes {
            announcements: &mut self.announcements,
            touched: Vec::new(),
            removed: Vec::new(),
            added: 0,
        };
        match &mut self.tree {
            Some(tree) => tree.update_and_process_changes(update, &mut changes),
            None => {
                let tree = Tree::new(update, true);
                let mut all = Vec::new();
                collect_ids(&tree.state().root(), &mut all);
                for id in &all {
                    if let Some(node) = tree.state().node_by_tree_local_id(*id, TreeId::ROOT) {
                        changes.announcements.added(&node);
                    }
                }
                changes.added = all.len();
                changes.touched = all;
                self.tree = Some(tree);
            }
        }
        let Changes {
            touched,
            removed,
            added,
            ..
        } = changes;
        if touched.is_empty() && removed.is_empty() {
            return Ok(());
        }
        self.version += 1;
        for id in &touched {
            self.graveyard.remove(id);
        }
        self.len = (self.len + added).saturating_sub(removed.len());
        if self.graveyard.len() > GRAVEYARD_CAP {
            self.graveyard.clear();
        }
        for (id, role, label) in removed {
            self.labels.remove(id);
            self.labels.labelled_by_rev.remove(&id);
            self.graveyard.insert(id, (role, label));
        }
        self.reindex(touched);
        Ok(())
    }

    /// Toolkits like egui send the whole tree every frame. A node whose data equals the mirrored
    /// one changes nothing in `accesskit_consumer` (its children and parent links stay), so it is
    /// dropped before validation: a frame that changed a handful of nodes costs a handful.
    fn drop_unchanged(&self, update: &mut TreeUpdate) {
        let Some(state) = self.state() else {
            return;
        };
        let root_unchanged = update
            .tree
            .as_ref()
            .is_none_or(|t| t.root == state.root().locate().0);
        update.nodes.retain(|(id, node)| {
            // The root's entry also carries "this is the root"; keep it when the root moves.
            let keep_for_root =
                !root_unchanged && update.tree.as_ref().is_some_and(|t| t.root == *id);
            keep_for_root
                || state
                    .node_by_tree_local_id(*id, TreeId::ROOT)
                    .is_none_or(|current| current.data() != node)
        });
    }

    /// Recomputes labels of touched nodes, their ancestors (descendant-derived names), and
    /// nodes labelled by any of those.
    fn reindex(&mut self, touched: Vec<NodeId>) {
        let Some(state) = self.tree.as_ref().map(Tree::state) else {
            return;
        };
        let mut affected: HashSet<NodeId> = HashSet::with_capacity(touched.len() * 2);
        for id in touched {
            self.seen.insert(id);
            let mut cursor = state.node_by_tree_local_id(id, TreeId::ROOT);
            while let Some(node) = cursor {
                if !affected.insert(node.locate().0) {
                    break;
                }
                cursor = node.parent();
            }
        }
        let mut referrers = Vec::new();
        for id in &affected {
            if let Some(r) = self.labels.labelled_by_rev.get(id) {
                referrers.extend_from_slice(r);
            }
        }
        affected.extend(referrers);
        for id in affected {
            match state.node_by_tree_local_id(id, TreeId::ROOT) {
                Some(node) => {
                    for target in node.data().labelled_by() {
                        let list = self.labels.labelled_by_rev.entry(*target).or_default();
                        if !list.contains(&id) {
                            list.push(id);
                        }
                    }
                    self.labels.set(id, crate::snapshot::accessible_name(&node));
                }
                None => self.labels.remove(id),
            }
        }
    }
}

/// Every id under `node`, depth first (text runs included).
fn collect_ids(node: &NodeRef, out: &mut Vec<NodeId>) {
    let mut stack = vec![*node];
    while let Some(n) = stack.pop() {
        out.push(n.locate().0);
        stack.extend(n.children());
    }
}
