//! Validation of tree updates before they reach `accesskit_consumer`, which panics on a
//! malformed update and is left half-updated. Every check here mirrors one of its panics, plus
//! cycles (which would make its parent walks loop forever).

use std::hash::BuildHasher;

use foldhash::{HashMap, HashMapExt as _, HashSet, HashSetExt as _};

use accesskit::{NodeId, Role, TreeId, TreeUpdate};
use accesskit_consumer::TreeState;

use crate::error::{ErrorCode, OpError};

fn invalid(message: String) -> OpError {
    OpError::new(ErrorCode::InvalidTreeUpdate, message).with_hint(
        "the app under test sent a malformed accessibility update; the last good tree is kept — fix the app's tree or retry after its next frame",
    )
}

/// The current tree as validation sees it: children and parent by local id.
struct Current<'a>(Option<&'a TreeState>);

impl Current<'_> {
    fn exists(&self, id: NodeId) -> bool {
        self.0
            .is_some_and(|s| s.node_by_tree_local_id(id, TreeId::ROOT).is_some())
    }

    fn parent(&self, id: NodeId) -> Option<NodeId> {
        let state = self.0?;
        let node = state.node_by_tree_local_id(id, TreeId::ROOT)?;
        node.parent().map(|p| p.locate().0)
    }

    fn labels(&self, id: NodeId, target: NodeId) -> bool {
        self.0
            .and_then(|s| s.node_by_tree_local_id(id, TreeId::ROOT))
            .is_some_and(|n| n.data().labelled_by().contains(&target))
    }

    fn root(&self) -> Option<NodeId> {
        self.0.map(|s| s.root().locate().0)
    }
}

/// Checks `update` against the current tree (None before the first update).
/// `current_len` is the number of nodes in the current tree; it bounds the parent walks so a
/// cycle is found rather than followed forever. `labelled_by_rev` maps a labelling node to the
/// nodes that (may) name it in `labelled_by` (a superset is fine).
pub fn validate_update<S: BuildHasher>(
    update: &TreeUpdate,
    current: Option<&TreeState>,
    current_len: usize,
    labelled_by_rev: &std::collections::HashMap<NodeId, Vec<NodeId>, S>,
) -> Result<(), OpError> {
    let current = Current(current);
    if update.tree_id != TreeId::ROOT {
        return Err(invalid(
            "the update targets a subtree (tree_id is not ROOT); subtrees are not supported".into(),
        ));
    }
    let root = match (&update.tree, current.root()) {
        (Some(info), _) => info.root,
        (None, Some(root)) => root,
        (None, None) => {
            return Err(invalid(
                "the first update has no tree info (TreeUpdate::tree must be Some)".into(),
            ));
        }
    };

    let mut in_update: HashMap<NodeId, usize> = HashMap::with_capacity(update.nodes.len());
    for (index, (id, node)) in update.nodes.iter().enumerate() {
        if in_update.insert(*id, index).is_some() {
            return Err(invalid(format!(
                "node {} appears twice in the update",
                id.0
            )));
        }
        if node.tree_id().is_some() {
            return Err(invalid(format!(
                "node {} grafts a subtree; subtrees are not supported",
                id.0
            )));
        }
        // accesskit_consumer unwraps a text run's value whenever it reads text.
        if node.role() == Role::TextRun && node.value().is_none() {
            return Err(invalid(format!(
                "text run {} has no value (its text)",
                id.0
            )));
        }
    }

    let mut new_parent: HashMap<NodeId, NodeId> = HashMap::with_capacity(update.nodes.len());
    let mut adopted: Vec<(NodeId, NodeId, NodeId)> = Vec::new();
    for (id, node) in &update.nodes {
        for child in node.children() {
            if *child == root {
                return Err(invalid(format!(
                    "node {} lists the root {} as a child",
                    id.0, root.0
                )));
            }
            if let Some(first) = new_parent.insert(*child, *id) {
                return Err(invalid(format!(
                    "node {} is listed as a child twice (by {} and {})",
                    child.0, first.0, id.0
                )));
            }
            if !in_update.contains_key(child) && !current.exists(*child) {
                return Err(invalid(format!(
                    "node {} lists child {} which is neither in the update nor in the tree",
                    id.0, child.0
                )));
            }
            // A parent that is not re-sent keeps listing its child: adopting that child here
            // would give it two parents (checked below, once reachability is known).
            if let Some(old) = current.parent(*child)
                && old != *id
                && !in_update.contains_key(&old)
            {
                adopted.push((*child, old, *id));
            }
        }
    }
    if !in_update.contains_key(&root) && !current.exists(root) {
        return Err(invalid(format!(
            "the root {} is not in the update or the tree",
            root.0
        )));
    }

    // Every node of the update, and the focus, must hang from the root afterwards.
    let parent_after = |id: NodeId| -> Option<NodeId> {
        if let Some(p) = new_parent.get(&id) {
            return Some(*p);
        }
        let old = current.parent(id)?;
        // An old parent that is in the update but no longer lists this node detaches it.
        if in_update.contains_key(&old) {
            None
        } else {
            Some(old)
        }
    };
    let mut reachable: HashSet<NodeId> = HashSet::with_capacity(update.nodes.len() + 1);
    reachable.insert(root);
    // A path longer than every node there could be has revisited one: a cycle.
    let limit = update.nodes.len() + current_len + 1;
    let mut hangs_from_root = |start: NodeId| -> bool {
        let mut path = Vec::new();
        let mut id = start;
        loop {
            if reachable.contains(&id) {
                reachable.extend(path);
                return true;
            }
            path.push(id);
            if path.len() > limit {
                return false;
            }
            match parent_after(id) {
                Some(p) => id = p,
                None => return false,
            }
        }
    };
    for (id, _) in &update.nodes {
        if !hangs_from_root(*id) {
            return Err(invalid(format!(
                "node {} is not reachable from the root {} after the update (orphan or cycle)",
                id.0, root.0
            )));
        }
    }
    for (child, old, new) in adopted {
        if hangs_from_root(old) {
            return Err(invalid(format!(
                "node {} lists child {} which still belongs to node {}; re-send {} without it",
                new.0, child.0, old.0, old.0
            )));
        }
    }
    let focus = update.focus;
    if !(in_update.contains_key(&focus) || current.exists(focus)) || !hangs_from_root(focus) {
        return Err(invalid(format!(
            "the focus {} is not a node of the tree after the update",
            focus.0
        )));
    }
    // A root change that promotes a node of the current tree: accesskit_consumer keeps the old
    // parent's child link when that parent stays and is not in the update (the root becomes its
    // own descendant: a cycle), keeps the new root's parent link when the new root is not in the
    // update (a dangling parent: panics on `parent()`), and drops the new root when the old
    // parent comes after it in the update (panics: root not in the node list).
    if let (Some(info), Some(old_root)) = (&update.tree, current.root())
        && info.root != old_root
        && let Some(parent) = current.parent(info.root)
    {
        let fine = match (in_update.get(&parent), in_update.get(&info.root)) {
            (Some(p), Some(r)) => p < r,
            // The old parent must go (with the old root); the new root must be in the update,
            // or it keeps a parent link to the removed node.
            (None, Some(_)) => !hangs_from_root(parent),
            (_, None) => false,
        };
        if !fine {
            return Err(invalid(format!(
                "the new root {} is a child of node {} in the current tree; send {} (without it as a child) before the new root, or drop {}",
                info.root.0, parent.0, parent.0, parent.0
            )));
        }
    }

    // accesskit_consumer unwraps every `labelled_by` target when it computes a label, so a
    // reference to a node the tree will not have panics later: in the update's own nodes…
    for (id, node) in &update.nodes {
        for target in node.labelled_by() {
            if !hangs_from_root(*target) {
                return Err(invalid(format!(
                    "node {} is labelled by {} which is not in the tree after the update",
                    id.0, target.0
                )));
            }
        }
    }
    // …and in unchanged nodes whose labelling node the update removes.
    for (target, referrers) in labelled_by_rev {
        if in_update.contains_key(target) || !current.exists(*target) || hangs_from_root(*target) {
            continue;
        }
        for referrer in referrers {
            if in_update.contains_key(referrer) || !current.labels(*referrer, *target) {
                continue;
            }
            if hangs_from_root(*referrer) {
                return Err(invalid(format!(
                    "the update removes node {} but node {} is still labelled by it",
                    target.0, referrer.0
                )));
            }
        }
    }
    Ok(())
}
