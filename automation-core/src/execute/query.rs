//! Read-only ops: snapshot, read, find, assert, live regions, announcements.

use std::collections::VecDeque;

use accesskit::{Role, Toggled};
use serde_json::{Value, json};

use super::Session;
use super::resolve::{candidate, walk};
use crate::announce::{audible, politeness, spoken_name};
use crate::error::{ErrorCode, OpError, OpResult};
use crate::node_ref::{NodeKey, NodeTarget, Selector};
use crate::ops::{AssertArg, AssertKind, AssertNode, SnapshotTree};
use crate::snapshot::{role_matches, role_name, semantic_node, text_info};
use crate::target::Target;

/// Default node budget of `snapshot_tree`.
pub const DEFAULT_SNAPSHOT_NODES: usize = 400;
/// Largest node budget `snapshot_tree` accepts.
pub const MAX_SNAPSHOT_NODES: usize = 20_000;
/// A snapshot stops adding nodes once its records pass this many bytes (whatever `max_nodes`
/// says): a client rejects a reply of 1 MB, and an agent pays for every byte.
pub const SNAPSHOT_BYTE_BUDGET: usize = 512 * 1024;

fn to_json<S: serde::Serialize>(v: &S) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

pub(super) fn snapshot<T: Target + ?Sized>(s: &Session<T>, a: &SnapshotTree) -> OpResult {
    let state = s.mirror.require_state()?;
    let budget = a.max_nodes.unwrap_or(DEFAULT_SNAPSHOT_NODES);
    if budget == 0 || budget > MAX_SNAPSHOT_NODES {
        return Err(OpError::bad_argument(format!(
            "max_nodes must be between 1 and {MAX_SNAPSHOT_NODES}, got {budget}"
        )));
    }
    let start = match &a.root {
        Some(target) => s.resolve(target)?.id,
        None => state.root().locate().0,
    };
    let Some(start) = s.mirror.node(start) else {
        return Err(OpError::new(ErrorCode::NotFound, "snapshot root vanished"));
    };
    // Breadth first, so a budget cut keeps the shallow levels an agent reads first.
    let mut nodes = Vec::new();
    let mut frontier: Vec<NodeKey> = Vec::new();
    let mut queue = VecDeque::from([(start, 0u32)]);
    let mut included = std::collections::HashSet::new();
    let mut omitted = 0usize;
    let mut bytes = 0usize;
    while let Some((node, depth)) = queue.pop_front() {
        if nodes.len() >= budget || bytes >= SNAPSHOT_BYTE_BUDGET {
            omitted += 1;
            continue;
        }
        included.insert(node.locate().0);
        let mut record = semantic_node(&node);
        record.cut_long_text();
        bytes += record.approx_bytes();
        let at_depth_limit = a.max_depth.is_some_and(|d| depth >= d);
        if at_depth_limit {
            if !record.children.is_empty() {
                frontier.push(record.id);
            }
            record.children.clear();
        } else {
            queue.extend(
                node.children()
                    .filter(|c| c.role() != Role::TextRun)
                    .map(|c| (c, depth + 1)),
            );
        }
        nodes.push(record);
    }
    // Children cut by the budget are dropped from their parents' lists: no dangling ids.
    for record in &mut nodes {
        let before = record.children.len();
        record.children.retain(|c| included.contains(&c.id()));
        if record.children.len() != before {
            frontier.push(record.id);
        }
    }
    let truncated = omitted > 0 || !frontier.is_empty();
    let any_cut = nodes.iter().any(|n| !n.cut.is_empty());
    let mut reply = json!({
        "root": NodeKey::from(start.locate().0),
        "focus": state.focus().map(|f| NodeKey::from(f.locate().0)),
        "version": s.mirror.version(),
        "truncated": truncated,
        "nodes": to_json(&nodes),
    });
    if any_cut {
        reply["cut_note"] = json!(format!(
            "strings over {} bytes were cut (each such node lists them in `cut`); read_node gives them whole",
            crate::snapshot::SNAPSHOT_TEXT_BYTES
        ));
    }
    if truncated {
        reply["frontier"] = to_json(&frontier);
        let why = if bytes >= SNAPSHOT_BYTE_BUDGET {
            format!("the {SNAPSHOT_BYTE_BUDGET}-byte reply budget")
        } else {
            "the node budget".to_string()
        };
        reply["note"] = json!(format!(
            "{} node(s) shown, {omitted} more beyond {why}; children of the `frontier` nodes were cut. \
             Call snapshot_tree with root set to a frontier id to see below it, or raise max_nodes (up to {MAX_SNAPSHOT_NODES}) / max_depth.",
            nodes.len()
        ));
    }
    Ok(reply)
}

pub(super) fn read_node<T: Target + ?Sized>(s: &Session<T>, target: &NodeTarget) -> OpResult {
    let id = s.resolve(target)?.id;
    let node = s
        .mirror
        .node(id)
        .ok_or_else(|| OpError::new(ErrorCode::NotFound, "node vanished"))?;
    Ok(to_json(&semantic_node(&node)))
}

pub(super) fn find_node<T: Target + ?Sized>(s: &Session<T>, sel: &Selector) -> OpResult {
    if sel.is_empty() {
        return Err(OpError::bad_argument(
            "find_node needs at least one of role, label, label_contains, value, author_id",
        )
        .with_hint(r#"e.g. {"role": "Button", "label": "Save"}"#));
    }
    s.mirror.require_state()?;
    let found = s.matches(sel);
    let pick = found
        .get(sel.nth.unwrap_or(0))
        .and_then(|id| s.mirror.node(*id));
    Ok(match pick {
        Some(node) => json!({
            "node": NodeKey::from(node.locate().0),
            "count": found.len(),
            "record": to_json(&semantic_node(&node)),
        }),
        None => json!({ "node": null, "count": found.len() }),
    })
}

fn assertion_failed(
    kind: AssertKind,
    actual: &dyn std::fmt::Debug,
    expected: &dyn std::fmt::Debug,
) -> OpError {
    OpError::new(
        ErrorCode::AssertionFailed,
        format!("{kind:?} assertion failed: actual {actual:?}, expected {expected:?}"),
    )
}

fn check_assert_args(a: &AssertNode) -> Result<(), OpError> {
    let (needs_value, needs_flag) = match a.kind.arg() {
        AssertArg::None => (false, false),
        AssertArg::Value => (true, false),
        AssertArg::Flag => (false, true),
    };
    let kind = serde_json::to_value(a.kind).unwrap_or(Value::Null);
    if needs_value != a.value.is_some() {
        return Err(OpError::bad_argument(if needs_value {
            format!("assert kind {kind} needs the expected string in `value`")
        } else {
            format!("assert kind {kind} does not take `value`")
        }));
    }
    if needs_flag != a.flag.is_some() {
        return Err(OpError::bad_argument(if needs_flag {
            format!("assert kind {kind} needs the expected bool in `flag`")
        } else {
            format!("assert kind {kind} does not take `flag`")
        }));
    }
    Ok(())
}

pub(super) fn assert_node<T: Target + ?Sized>(s: &Session<T>, a: &AssertNode) -> OpResult {
    check_assert_args(a)?;
    let resolved = match s.resolve(&a.node) {
        Ok(r) => r,
        Err(e) if a.kind == AssertKind::Exists && e.code == ErrorCode::NotFound => {
            return Err(OpError {
                code: ErrorCode::AssertionFailed,
                ..e
            });
        }
        Err(e) => return Err(e),
    };
    let node = s
        .mirror
        .node(resolved.id)
        .ok_or_else(|| OpError::new(ErrorCode::NotFound, "node vanished"))?;
    let value = a.value.as_deref().unwrap_or_default();
    let flag = a.flag.unwrap_or_default();
    let check = |pass: bool, actual: &dyn std::fmt::Debug, expected: &dyn std::fmt::Debug| {
        if pass {
            Ok(())
        } else {
            Err(assertion_failed(a.kind, actual, expected))
        }
    };
    match a.kind {
        AssertKind::Exists => Ok(()),
        AssertKind::Focused => check(node.is_focused(), &false, &true),
        AssertKind::SupportsTextRanges => check(node.supports_text_ranges(), &false, &true),
        AssertKind::RoleEquals => check(
            role_matches(node.role(), value),
            &role_name(node.role()),
            &value,
        ),
        AssertKind::LabelEquals => {
            let label = node.label();
            check(label.as_deref() == Some(value), &label, &value)
        }
        AssertKind::LabelContains => {
            let label = node.label();
            check(
                label.as_deref().is_some_and(|l| l.contains(value)),
                &label,
                &value,
            )
        }
        AssertKind::ValueEquals => {
            let v = node.value();
            check(v.as_deref() == Some(value), &v, &value)
        }
        AssertKind::DocumentTextEquals => {
            let text = text_info(&node).map(|t| t.document_text);
            check(text.as_deref() == Some(value), &text, &value)
        }
        // Mixed is neither true nor false: it fails both ways.
        AssertKind::Toggled => match node.toggled() {
            Some(Toggled::Mixed) => check(false, &"mixed", &flag),
            t => {
                let actual = t.map(|t| t == Toggled::True);
                check(actual == Some(flag), &actual, &flag)
            }
        },
        AssertKind::Expanded => {
            let e = node.data().is_expanded();
            check(e == Some(flag), &e, &flag)
        }
        AssertKind::Selected => {
            let sel = node.is_selected();
            check(sel == Some(flag), &sel, &flag)
        }
        AssertKind::Disabled => check(node.is_disabled() == flag, &node.is_disabled(), &flag),
    }?;
    Ok(json!({ "passed": true, "node": NodeKey::from(resolved.id) }))
}

pub(super) fn live_regions<T: Target + ?Sized>(s: &Session<T>) -> OpResult {
    let state = s.mirror.require_state()?;
    let mut regions = Vec::new();
    walk(state.root(), |n| {
        if let Some(p) = n.data().live().and_then(politeness)
            && audible(n)
        {
            let c = candidate(n);
            regions.push(json!({
                "node": c.node,
                "role": c.role,
                "politeness": p,
                "text": spoken_name(n),
            }));
        }
    });
    Ok(json!({ "regions": regions }))
}

pub(super) fn announcements<T: Target + ?Sized>(s: &Session<T>, since: Option<u64>) -> OpResult {
    Ok(json!({
        "announcements": to_json(&s.mirror.announcements.since(since)),
        "last_seq": s.mirror.announcements.last_seq(),
    }))
}
