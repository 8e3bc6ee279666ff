//! Node references → nodes: ids, selectors, and the candidates an error offers.

use accesskit::{Action, NodeId, Role};
use accesskit_consumer::NodeRef;

use super::Session;
use crate::error::{Candidate, ErrorCode, OpError};
use crate::node_ref::{NodeTarget, Selector};
use crate::refs::{RefKey, Refs};
use crate::snapshot::{ACTIONS, Bounds, accessible_name, bounds_of, role_matches, role_name};
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

/// How a node appears in an error's `candidates`: its reference, role, name and value.
pub(crate) fn candidate(node: &NodeRef, refs: &Refs) -> Candidate {
    let label = accessible_name(node);
    let value = node
        .value()
        .filter(|v| label.as_deref() != Some(v.as_str()));
    Candidate {
        node: refs.mint(node),
        role: role_name(node.role()),
        label,
        value,
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
    if sel.label.is_some() || sel.label_contains.is_some() {
        let name = accessible_name(node);
        if let Some(label) = &sel.label
            && name.as_deref() != Some(label.as_str())
        {
            return false;
        }
        if let Some(part) = &sel.label_contains {
            let part = part.to_lowercase();
            if !name.is_some_and(|l| l.to_lowercase().contains(&part)) {
                return false;
            }
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
    /// Every node matching `sel`, in document order. An unknown role name is `BAD_ARGUMENT`
    /// with "did you mean" (an empty result would read as "not there yet").
    pub fn matches(&self, sel: &Selector) -> Result<Vec<NodeId>, OpError> {
        if let Some(role) = &sel.role {
            roles::check(role)?;
        }
        let Some(state) = self.mirror.state() else {
            return Ok(Vec::new());
        };
        let scope = match &sel.within {
            Some(within) => Some(self.scope_of(within)?),
            None => None,
        };
        if let Some(label) = &sel.label {
            let hits = self.mirror.nodes_labelled(label);
            // A scope is usually small (a dialog, a group): walking it beats filtering every
            // node of the tree with that name, up to a budget; past it, filter.
            if let Some(scope) = scope
                && let Some(found) = self.walk_scope(scope, sel, 8 * hits.len() + 64)
            {
                return Ok(without_labels_of_others(found));
            }
            let mut found: Vec<NodeRef> = hits
                .iter()
                .filter(|id| scope.is_none_or(|s| self.is_inside(**id, s)))
                .filter_map(|id| self.mirror.node(*id))
                .filter(|n| selector_matches(n, sel))
                .collect();
            // The index is unordered; document order matters only when several match.
            if found.len() > 1 {
                found.sort_by_cached_key(|n| n.index_path());
            }
            return Ok(without_labels_of_others(found));
        }
        // Without a label there is no index: walk the scope's subtree (or the whole tree).
        let start = match scope {
            Some(id) => self.mirror.node(id),
            None => Some(state.root()),
        };
        let mut out = Vec::new();
        if let Some(start) = start {
            walk(start, |n| {
                if Some(n.locate().0) != scope && selector_matches(n, sel) {
                    out.push(*n);
                }
            });
        }
        Ok(without_labels_of_others(out))
    }

    /// The one node a selector's `within` picks; its failure names it as the `within`.
    fn scope_of(&self, within: &Selector) -> Result<NodeId, OpError> {
        self.resolve(&NodeTarget::Select(within.clone()))
            .map(|r| r.id)
            .map_err(|mut e| {
                e.message = format!("the selector's `within`: {}", e.message);
                e
            })
    }

    /// The nodes below `scope` that match `sel`, in document order, or `None` when the
    /// subtree holds more than `budget` nodes.
    fn walk_scope(&self, scope: NodeId, sel: &Selector, budget: usize) -> Option<Vec<NodeRef<'_>>> {
        let start = self.mirror.node(scope)?;
        let mut out = Vec::new();
        let mut stack: Vec<NodeRef> = start.children().collect();
        stack.reverse();
        let mut seen = 0usize;
        while let Some(node) = stack.pop() {
            seen += 1;
            if seen > budget {
                return None;
            }
            if selector_matches(&node, sel) {
                out.push(node);
            }
            let mark = stack.len();
            stack.extend(node.children());
            stack[mark..].reverse();
        }
        Some(out)
    }

    /// Whether `id` is a descendant of `scope`.
    pub(crate) fn is_inside(&self, id: NodeId, scope: NodeId) -> bool {
        let mut cursor = self.mirror.node(id).and_then(|n| n.parent());
        while let Some(node) = cursor {
            if node.locate().0 == scope {
                return true;
            }
            cursor = node.parent();
        }
        false
    }

    /// The node a reference names, or `NOT_FOUND` / `AMBIGUOUS` / `STALE` with candidates.
    pub fn resolve(&self, target: &NodeTarget) -> Result<Resolved, OpError> {
        let state = self.mirror.require_state()?;
        match target {
            NodeTarget::Ref(key) => self.resolve_ref(*key).map(|n| Resolved::of(&n)),
            NodeTarget::Id(key) => match self.mirror.node(key.id()) {
                Some(node) => Ok(Resolved::of(&node)),
                None => Err(self.stale(key.id())),
            },
            NodeTarget::Select(sel) => {
                let found = self.matches(sel)?;
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
                        .with_hint("use one candidate's reference, or add nth (0-based, document order) or a more specific field")
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

    /// The node a reference still names: same id, same role, same label. Otherwise `STALE`,
    /// with the nodes that now carry its role and label (the likely successor) as candidates.
    pub fn resolve_ref(&self, key: RefKey) -> Result<NodeRef<'_>, OpError> {
        let Some(binding) = self.mirror.refs.binding(key) else {
            return Err(OpError::new(
                ErrorCode::NotFound,
                format!("{key} was never handed out in this session"),
            )
            .with_hint("take references from the latest snapshot_tree or find_node reply, or use a selector"));
        };
        let now = self.mirror.node(binding.id);
        if let Some(node) = now.filter(|n| binding.holds_for(n)) {
            return Ok(node);
        }
        let named = describe(binding.role, binding.label.as_deref());
        let message = match now {
            Some(other) => format!(
                "{key} named {named}, which is gone; its id now holds {} (the toolkit reused the id)",
                describe(other.role(), other.label().as_deref())
            ),
            None => format!("{key} named {named}, which is gone"),
        };
        let successors = self.same_role_and_label(binding.role, binding.label.clone());
        let hint = if successors.is_empty() {
            "take a fresh snapshot_tree, or find it again with a selector"
        } else {
            "if the candidate is the same thing, use its reference; else take a fresh snapshot_tree"
        };
        Err(OpError::new(ErrorCode::Stale, message)
            .with_hint(hint)
            .with_candidates(self.candidates_of(&successors)))
    }

    /// The reference a reply gives for `id` (minted now), or `None` when it is not in the tree.
    pub fn reference(&self, id: NodeId) -> Option<RefKey> {
        self.mirror.node(id).map(|n| self.mirror.refs.mint(&n))
    }

    fn same_role_and_label(&self, role: Role, label: Option<String>) -> Vec<NodeId> {
        let sel = Selector {
            role: Some(role_name(role)),
            label,
            ..Selector::default()
        };
        self.matches(&sel).unwrap_or_default()
    }

    pub(crate) fn candidates_of(&self, ids: &[NodeId]) -> Vec<Candidate> {
        ids.iter()
            .take(MAX_CANDIDATES)
            .filter_map(|id| self.mirror.node(*id))
            .map(|n| candidate(&n, &self.mirror.refs))
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
                "take references from snapshot_tree or find_node",
            )
        };
        let mut err = OpError::new(ErrorCode::NotFound, message).with_hint(hint);
        if let Some((role, label)) = self.mirror.departed(id) {
            let now = self.same_role_and_label(*role, label.clone());
            err = err.with_candidates(self.candidates_of(&now));
        }
        err
    }

    /// `NOT_FOUND` for a selector, with the closest nodes by name *and* value as candidates.
    pub(crate) fn not_found(
        &self,
        sel: &Selector,
        state: &accesskit_consumer::TreeState,
    ) -> OpError {
        let wanted = sel
            .label
            .as_deref()
            .or(sel.label_contains.as_deref())
            .or(sel.value.as_deref());
        let mut scored: Vec<(usize, Candidate)> = Vec::new();
        walk(state.root(), |n| {
            if n.role() == Role::TextRun {
                return;
            }
            let role_ok = sel.role.as_ref().is_none_or(|r| role_matches(n.role(), r));
            let texts = [accessible_name(n), n.value()];
            let score = match wanted {
                Some(w) => texts
                    .iter()
                    .flatten()
                    .map(|t| text_match::score(w, t))
                    .min()
                    .map(|s| s + usize::from(!role_ok) * 2),
                None => role_ok.then_some(0),
            };
            if let Some(score) = score {
                scored.push((score, candidate(n, &self.mirror.refs)));
            }
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
            "did you mean one of the candidates? Use its reference, or fix the selector"
        };
        let partial = self.target.partial_children();
        if partial.is_empty() {
            return OpError::new(ErrorCode::NotFound, format!("no node matches {sel}"))
                .with_hint(hint)
                .with_candidates(candidates);
        }
        // Not "there is none": some lists were read only in part, and it may lie beyond.
        let cut: Vec<String> = partial
            .iter()
            .take(5)
            .map(|p| {
                let name = self
                    .reference(p.id)
                    .map_or_else(|| format!("node {}", p.id.0), |r| r.to_string());
                format!("{name} lists {} of its {} children", p.listed, p.total)
            })
            .collect();
        OpError::new(
            ErrorCode::NotFound,
            format!(
                "no node matches {sel} among the nodes read; the tree is cut ({}), and it may lie beyond",
                cut.join("; ")
            ),
        )
        .with_hint("scroll the list to bring it into what is read (scroll with that node), or find it by something nearer the top")
        .with_candidates(candidates)
    }
}

/// A label's text is both its own name and the name of the field it labels; when both match,
/// the field is what was meant (as Playwright's `getByLabel`), so the label drops out.
fn without_labels_of_others(found: Vec<NodeRef>) -> Vec<NodeId> {
    if found.len() < 2 {
        return found.iter().map(|n| n.locate().0).collect();
    }
    let labels: std::collections::HashSet<NodeId> = found
        .iter()
        .flat_map(|n| n.data().labelled_by().iter().copied())
        .collect();
    found
        .iter()
        .map(|n| n.locate().0)
        .filter(|id| !labels.contains(id))
        .collect()
}

/// `Button "Row 3"`, or `Label` when it has no label.
fn describe(role: Role, label: Option<&str>) -> String {
    match label {
        Some(l) => format!("{} {l:?}", role_name(role)),
        None => role_name(role),
    }
}

/// Role names: the whole AccessKit list, for validation and "did you mean".
mod roles {
    use std::sync::OnceLock;

    use accesskit::Role;

    use crate::error::OpError;
    use crate::snapshot::role_name;
    use crate::text_match;

    fn all() -> &'static [String] {
        static NAMES: OnceLock<Vec<String>> = OnceLock::new();
        NAMES.get_or_init(|| (0..=u8::MAX).filter_map(Role::n).map(role_name).collect())
    }

    /// `Ok` when `wanted` names a role (case-insensitive); else `BAD_ARGUMENT` with the
    /// closest names.
    /// The names as spelled, for the common case (a generated selector, a copied one).
    fn exact() -> &'static std::collections::HashSet<&'static str> {
        static SET: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
        SET.get_or_init(|| all().iter().map(String::as_str).collect())
    }

    pub(super) fn check(wanted: &str) -> Result<(), OpError> {
        if exact().contains(wanted) {
            return Ok(());
        }
        let names = all();
        if names.iter().any(|n| n.eq_ignore_ascii_case(wanted.trim())) {
            return Ok(());
        }
        let close = text_match::closest(wanted, names.iter().map(String::as_str), 3);
        let hint = if close.is_empty() {
            "use an AccessKit role name such as Button, CheckBox, TextInput, Label, Slider"
                .to_string()
        } else {
            format!("did you mean {}?", close.join(" or "))
        };
        Err(
            OpError::bad_argument(format!("unknown role {wanted:?} in the selector's `role`"))
                .with_hint(hint),
        )
    }
}
