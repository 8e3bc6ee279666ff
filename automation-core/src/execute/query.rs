//! Read-only ops: snapshot, read, find, assert, live regions, announcements.

use std::collections::VecDeque;

use accesskit::{Role, Toggled};
use serde_json::{Value, json};

use super::Session;
use super::outline::{Shape, outline};
use super::resolve::{candidate, walk};
use crate::announce::{audible, politeness, spoken_name};
use crate::error::{ErrorCode, OpError, OpResult};
use crate::node_ref::{NodeTarget, Selector};
use crate::ops::{AssertArg, AssertKind, AssertNode, SnapshotFormat, SnapshotTree};
use crate::refs::RefKey;
use crate::replies::FoundNode;
use crate::snapshot::{accessible_name, role_matches, role_name, semantic_node, text_info};
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
    if a.format.unwrap_or_default() == SnapshotFormat::Text {
        return Ok(snapshot_text(s, a, start, budget));
    }
    // Breadth first, so a budget cut keeps the shallow levels an agent reads first.
    let mut nodes = Vec::new();
    let mut frontier: Vec<RefKey> = Vec::new();
    let mut queue = VecDeque::from([(start, 0u32)]);
    let mut included = std::collections::HashSet::new();
    let mut omitted = 0usize;
    let mut bytes = 0usize;
    while let Some((node, depth)) = queue.pop_front() {
        if nodes.len() >= budget || bytes >= SNAPSHOT_BYTE_BUDGET {
            omitted += 1;
            continue;
        }
        let mut record = semantic_node(&node, &s.mirror.refs);
        included.insert(record.id);
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
        record.children.retain(|c| included.contains(c));
        if record.children.len() != before {
            frontier.push(record.id);
        }
    }
    let truncated = omitted > 0 || !frontier.is_empty();
    let any_cut = nodes.iter().any(|n| !n.cut.is_empty());
    let mut reply = json!({
        "root": s.mirror.refs.mint(&start),
        "focus": state.focus().map(|f| s.mirror.refs.mint(&f)),
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

fn snapshot_text<T: Target + ?Sized>(
    s: &Session<T>,
    a: &SnapshotTree,
    start: accesskit_consumer::NodeRef,
    budget: usize,
) -> Value {
    let o = outline(
        start,
        &s.mirror.refs,
        Shape {
            max_depth: a.max_depth,
            budget,
            max_bytes: SNAPSHOT_BYTE_BUDGET,
            bounds: a.bounds,
            include_hidden: a.include_hidden,
        },
    );
    let truncated = o.omitted > 0 || !o.frontier.is_empty();
    let mut reply = json!({ "version": s.mirror.version(), "tree": o.text });
    if o.hidden > 0 {
        reply["hidden"] = json!(o.hidden);
    }
    if truncated {
        reply["truncated"] = json!(true);
        reply["note"] = json!(format!(
            "{} node(s) shown, {} more beyond the budget{}; call snapshot_tree with root set to a reference to see below it, or raise max_nodes / max_depth",
            o.shown,
            o.omitted,
            if o.frontier.is_empty() {
                String::new()
            } else {
                format!(", and below {}", o.frontier.join(", "))
            }
        ));
    }
    reply
}

pub(super) fn read_node<T: Target + ?Sized>(s: &Session<T>, target: &NodeTarget) -> OpResult {
    let id = s.resolve(target)?.id;
    let node = s
        .mirror
        .node(id)
        .ok_or_else(|| OpError::new(ErrorCode::NotFound, "node vanished"))?;
    Ok(to_json(&semantic_node(&node, &s.mirror.refs)))
}

pub(super) fn find_node<T: Target + ?Sized>(s: &Session<T>, sel: &Selector) -> OpResult {
    if sel.is_empty() {
        return Err(OpError::bad_argument(
            "find_node needs at least one of role, label, label_contains, value, author_id",
        )
        .with_hint(r#"e.g. {"role": "Button", "label": "Save"}"#));
    }
    let state = s.mirror.require_state()?;
    let found = s.matches(sel)?;
    let pick = found
        .get(sel.nth.unwrap_or(0))
        .and_then(|id| s.mirror.node(*id));
    let reply = match pick {
        Some(node) => {
            let record = semantic_node(&node, &s.mirror.refs);
            FoundNode {
                node: Some(record.id),
                count: found.len(),
                record: Some(record),
                hint: None,
                candidates: None,
                cut: None,
            }
        }
        None => {
            // Nothing matches: the closest nodes, so the next call can be right.
            let closest = s.not_found(sel, state);
            FoundNode {
                node: None,
                count: found.len(),
                record: None,
                hint: closest.hint,
                candidates: Some(closest.candidates),
                // A list read only in part: "none" would be a guess, and the reply says so.
                cut: (!s.target.partial_children().is_empty()).then_some(closest.message),
            }
        }
    };
    Ok(to_json(&reply))
}

/// `ASSERTION_FAILED` with what was found and what was expected as JSON data.
fn assertion_failed(kind: AssertKind, node: &str, actual: Value, expected: Value) -> OpError {
    let kind = serde_json::to_value(kind).unwrap_or(Value::Null);
    let kind = kind.as_str().unwrap_or("assertion");
    OpError::new(
        ErrorCode::AssertionFailed,
        format!("{kind} failed on {node}: expected {expected}, found {actual}"),
    )
    .with_actual_expected(actual, expected)
}

fn check_assert_args(a: &AssertNode) -> Result<(), OpError> {
    let (needs_value, needs_flag) = match a.kind.arg() {
        AssertArg::None => (false, false),
        AssertArg::Value => (true, false),
        AssertArg::Flag => (false, true),
    };
    let kind = serde_json::to_value(a.kind).unwrap_or(Value::Null);
    if needs_value != a.value.is_some() {
        return Err(if needs_value {
            OpError::bad_argument(format!(
                "assert kind {kind} needs the expected string in `value`"
            ))
            .with_hint(r#"add "value": "<the expected text>""#)
        } else {
            let given = a.value.as_deref().unwrap_or_default();
            let err = OpError::bad_argument(format!(
                "assert kind {kind} does not take `value` (got \"value\": {given:?})"
            ));
            // `"kind": "toggled", "value": "true"`: the state's bool, quoted, in `value`.
            match given.trim().to_ascii_lowercase().parse::<bool>() {
                Ok(b) if needs_flag => err.with_hint(format!(
                    r#"a state's expected bool goes in `flag`: write "flag": {b} in place of "value": {given:?}"#
                )),
                _ => err.with_hint(r#"remove "value""#),
            }
        });
    }
    if needs_flag != a.flag.is_some() {
        return Err(if needs_flag {
            OpError::bad_argument(format!(
                "assert kind {kind} needs the expected bool in `flag`"
            ))
            .with_hint(r#"add "flag": true or "flag": false"#)
        } else {
            OpError::bad_argument(format!("assert kind {kind} does not take `flag`")).with_hint(
                r#"remove "flag"; only toggled, expanded, selected and disabled take it"#,
            )
        });
    }
    Ok(())
}

pub(super) fn assert_node<T: Target + ?Sized>(s: &Session<T>, a: &AssertNode) -> OpResult {
    check_assert_args(a)?;
    let resolved = match s.resolve(&a.node) {
        Ok(r) => r,
        Err(e)
            if a.kind == AssertKind::Exists
                && matches!(e.code, ErrorCode::NotFound | ErrorCode::Stale) =>
        {
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
    let reference = s.mirror.refs.mint(&node);
    let named = format!("{reference} ({})", role_name(node.role()));
    // `actual` is JSON: a string, a bool, "mixed", or null when the node has no such property.
    let check = |pass: bool, actual: Value, expected: Value| {
        if pass {
            Ok(())
        } else {
            Err(assertion_failed(a.kind, &named, actual, expected))
        }
    };
    let name = accessible_name(&node);
    match a.kind {
        AssertKind::Exists => Ok(()),
        AssertKind::Focused => check(node.is_focused(), json!(false), json!(true)),
        AssertKind::SupportsTextRanges => {
            check(node.supports_text_ranges(), json!(false), json!(true))
        }
        AssertKind::RoleEquals => check(
            role_matches(node.role(), value),
            json!(role_name(node.role())),
            json!(value),
        ),
        AssertKind::LabelEquals => check(name.as_deref() == Some(value), json!(name), json!(value)),
        AssertKind::LabelContains => check(
            name.as_deref().is_some_and(|l| l.contains(value)),
            json!(name),
            json!(value),
        ),
        AssertKind::ValueEquals => {
            let v = node.value();
            check(v.as_deref() == Some(value), json!(v), json!(value))
        }
        AssertKind::DocumentTextEquals => {
            let text = text_info(&node).map(|t| t.document_text);
            check(text.as_deref() == Some(value), json!(text), json!(value))
        }
        // Mixed is neither true nor false: it fails both ways.
        AssertKind::Toggled => match node.toggled() {
            Some(Toggled::Mixed) => check(false, json!("mixed"), json!(flag)),
            t => {
                let actual = t.map(|t| t == Toggled::True);
                check(actual == Some(flag), json!(actual), json!(flag))
            }
        },
        AssertKind::Expanded => {
            let e = node.data().is_expanded();
            check(e == Some(flag), json!(e), json!(flag))
        }
        AssertKind::Selected => {
            let sel = node.is_selected();
            check(sel == Some(flag), json!(sel), json!(flag))
        }
        AssertKind::Disabled => check(
            node.is_disabled() == flag,
            json!(node.is_disabled()),
            json!(flag),
        ),
    }?;
    Ok(json!({ "passed": true, "node": reference }))
}

pub(super) fn live_regions<T: Target + ?Sized>(s: &Session<T>) -> OpResult {
    let state = s.mirror.require_state()?;
    let mut regions = Vec::new();
    walk(state.root(), |n| {
        if let Some(p) = n.data().live().and_then(politeness)
            && audible(n)
        {
            let c = candidate(n, &s.mirror.refs);
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
    let announcements: Vec<Value> = s
        .mirror
        .announcements
        .since(since)
        .iter()
        .map(|a| {
            let id = a.node.id();
            let node = match s.mirror.node(id) {
                Some(n) => Some(s.mirror.refs.mint(&n)),
                None => s
                    .mirror
                    .departed(id)
                    .map(|(role, label)| s.mirror.refs.mint_parts(id, *role, label.clone())),
            };
            json!({ "seq": a.seq, "node": node, "text": a.text, "politeness": a.politeness })
        })
        .collect();
    Ok(json!({
        "announcements": announcements,
        "last_seq": s.mirror.announcements.last_seq(),
    }))
}
