//! Node references → nodes: ids, selectors, and the candidates an error offers.

use accesskit::{Action, NodeId, Role};
use accesskit_consumer::NodeRef;

use super::Session;
use crate::error::{Candidate, ErrorCode, OpError};
use crate::node_ref::{NodeTarget, Selector};
use crate::snapshot::{ACTIONS, Bounds, bounds_of, role_matches, role_name};
use crate::target::Target;
use crate::text_match;

/// How many candidates an error lists.
const MAX_CANDIDATES: usize = 8;

/// A resolved node, owned (so the target can be driven while holding it).
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// AccessKit id.
    pub id: NodeId,
    /// Role.
    pub role: Role,
    /// Bounds, when laid out.
    pub bounds: Option<Bounds>,
    /// Actions the node advertises.
    pub actions: Vec<Action>,
}

impl Resolved {
    fn of(node: &NodeRef) -> Self {
        Self {
            id: node.locate().0,
            role: node.role(),
            bounds: bounds_of(node),
            actions: ACTIONS
                .iter()
                .filter(|(a, _)| node.data().supports_action(*a))
                .map(|(a, _)| *a)
                .collect(),
        }
    }

    /// Bounds, or `NO_GEOMETRY`.
    pub fn require_bounds(&self) -> Result<Bounds, OpError> {
        self.bounds.ok_or_else(|| {
            OpError::new(
                ErrorCode::NoGeometry,
                format!("node {} has no bounds yet", self.id.0),
            )
            .with_hint("settle first so the app lays it out, or use invoke_action instead of pointer input")
        })
    }
}

pub(crate) fn candidate(node: &NodeRef) -> Candidate {
    Candidate {
        node: node.locate().0.into(),
        role: role_name(node.role()),
        label: node.label(),
    }
}

fn selector_matches(node: &NodeRef, sel: &Selector) -> bool {
    if let Some(role) = &sel.role {
        if !role_matches(node.role(), role) {
            return false;
        }
    } else if node.role() == Role::TextRun {
        return false;
    }
    if let Some(label) = &sel.label
        && node.label().as_deref() != Some(label.as_str())
    {
        return false;
    }
    if let Some(part) = &sel.label_contains {
        let part = part.to_lowercase();
        if !node
            .label()
            .is_some_and(|l| l.to_lowercase().contains(&part))
        {
            return false;
        }
    }
    if let Some(value) = &sel.value
        && node.value().as_deref() != Some(value.as_str())
    {
        return false;
    }
    if let Some(author) = &sel.author_id
        && node.author_id() != Some(author.as_str())
    {
        return false;
    }
    true
}

/// Depth-first walk of the whole tree in document order.
pub(crate) fn walk<'a>(root: NodeRef<'a>, mut f: impl FnMut(&NodeRef<'a>)) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        f(&node);
        let mark = stack.len();
        stack.extend(node.children());
        stack[mark..].reverse();
    }
}

impl<T: Target + ?Sized> Session<T> {
    /// Every node matching `sel`, in document order.
    pub fn matches(&self, sel: &Selector) -> Vec<NodeId> {
        let Some(state) = self.mirror.state() else {
            return Vec::new();
        };
        if let Some(label) = &sel.label {
            let mut found: Vec<NodeRef> = self
                .mirror
                .nodes_labelled(label)
                .iter()
                .filter_map(|id| self.mirror.node(*id))
                .filter(|n| selector_matches(n, sel))
                .collect();
            // The index is unordered; document order matters only when several match.
            if found.len() > 1 {
                found.sort_by_cached_key(|n| n.index_path());
            }
            return found.into_iter().map(|n| n.locate().0).collect();
        }
        let mut out = Vec::new();
        walk(state.root(), |n| {
            if selector_matches(n, sel) {
                out.push(n.locate().0);
            }
        });
        out
    }

    /// The node a reference names, or `NOT_FOUND` / `AMBIGUOUS` with candidates.
    pub fn resolve(&self, target: &NodeTarget) -> Result<Resolved, OpError> {
        let state = self.mirror.require_state()?;
        match target {
            NodeTarget::Id(key) => match self.mirror.node(key.id()) {
                Some(node) => Ok(Resolved::of(&node)),
                None => Err(self.stale(key.id())),
            },
            NodeTarget::Select(sel) => {
                let found = self.matches(sel);
                let pick = match (found.len(), sel.nth) {
                    (0, _) => return Err(self.not_found(sel, state)),
                    (_, Some(n)) => found.get(n).copied().ok_or_else(|| {
                        OpError::new(
                            ErrorCode::NotFound,
                            format!(
                                "{sel} matched {} nodes, so nth={n} does not exist",
                                found.len()
                            ),
                        )
                        .with_hint(format!("use nth between 0 and {}", found.len() - 1))
                        .with_candidates(self.candidates_of(&found))
                    })?,
                    (1, None) => found[0],
                    (n, None) => {
                        return Err(OpError::new(
                            ErrorCode::Ambiguous,
                            format!("{sel} matched {n} nodes"),
                        )
                        .with_hint("pick one id from candidates, or add nth (0-based, document order) or a more specific field")
                        .with_candidates(self.candidates_of(&found)));
                    }
                };
                self.mirror
                    .node(pick)
                    .map(|n| Resolved::of(&n))
                    .ok_or_else(|| self.stale(pick))
            }
        }
    }

    fn candidates_of(&self, ids: &[NodeId]) -> Vec<Candidate> {
        ids.iter()
            .take(MAX_CANDIDATES)
            .filter_map(|id| self.mirror.node(*id))
            .map(|n| candidate(&n))
            .collect()
    }

    fn stale(&self, id: NodeId) -> OpError {
        let (message, hint) = if self.mirror.ever_seen(id) {
            (
                format!(
                    "node {} is gone: it was in an earlier tree but not in the current one",
                    id.0
                ),
                "the widget was rebuilt; find it again with find_node by role and label",
            )
        } else {
            (
                format!("node {} is not in the tree and never was", id.0),
                "take ids from snapshot_tree or find_node, and pass them as the strings they are",
            )
        };
        let mut err = OpError::new(ErrorCode::NotFound, message).with_hint(hint);
        if let Some((role, label)) = self.mirror.departed(id) {
            let sel = Selector {
                role: Some(role_name(*role)),
                label: label.clone(),
                ..Selector::default()
            };
            let now = self.matches(&sel);
            err = err.with_candidates(self.candidates_of(&now));
        }
        err
    }

    fn not_found(&self, sel: &Selector, state: &accesskit_consumer::TreeState) -> OpError {
        let wanted = sel.label.as_deref().or(sel.label_contains.as_deref());
        let mut scored: Vec<(usize, Candidate)> = Vec::new();
        walk(state.root(), |n| {
            if n.role() == Role::TextRun {
                return;
            }
            let role_ok = sel.role.as_ref().is_none_or(|r| role_matches(n.role(), r));
            let label = n.label();
            let score = match (wanted, &label) {
                (Some(w), Some(l)) => text_match::score(w, l) + usize::from(!role_ok) * 2,
                (Some(_), None) => return,
                (None, _) if role_ok => 0,
                (None, _) => return,
            };
            scored.push((score, candidate(n)));
        });
        scored.sort_by_key(|(s, _)| *s);
        let limit = wanted.map_or(usize::MAX, |w| 3 + w.chars().count());
        let candidates: Vec<Candidate> = scored
            .into_iter()
            .filter(|(s, _)| *s <= limit)
            .take(MAX_CANDIDATES)
            .map(|(_, c)| c)
            .collect();
        let hint = if candidates.is_empty() {
            "take a snapshot_tree to see what is there"
        } else {
            "did you mean one of the candidates? Use its id, or fix the selector"
        };
        OpError::new(ErrorCode::NotFound, format!("no node matches {sel}"))
            .with_hint(hint)
            .with_candidates(candidates)
    }
}
