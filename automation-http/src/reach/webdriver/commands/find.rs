//! Finding elements: a locator, looked for again until the implicit wait is spent.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use automation_core::ops::{self, SnapshotFormat};
use automation_core::replies::{FindNode, SnapshotTree, TypedOp};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value};

use super::super::error::{W3c, WdError};
use super::super::locate::{self, Locator};
use super::super::{Ctx, Server, Wd, body, xpath};
use super::common::{FIND_POLL, Sid, SidEid, element, op, page_in, subtree, with};
use super::windows::scope;
use crate::reach::sessions::lock;

/// The elements a locator selects, looking again until the implicit wait is spent.
async fn find(
    s: &Wd,
    bytes: &Bytes,
    from: Option<&str>,
    many: bool,
) -> Result<Vec<String>, WdError> {
    let b = body(bytes)?;
    let mut locator = locate::read(&b, from.is_some())?;
    if !many
        && from.is_none()
        && let Some(selector) = locate::as_selector(&b)
    {
        locator = Locator::Selector(selector);
    }
    // A find from the root looks only in the window switched to, as a browser's does in its
    // current window.
    let window = scope(s).await?;
    let wait = Duration::from_millis(lock(&s.state).implicit_ms);
    let deadline = Instant::now() + wait;
    loop {
        let found = find_once(s, &locator, from, window.as_deref(), many).await?;
        let now = Instant::now();
        if !found.is_empty() || now >= deadline {
            return Ok(found);
        }
        tokio::time::sleep(FIND_POLL.min(deadline - now)).await;
    }
}

async fn find_once(
    s: &Wd,
    locator: &Locator,
    from: Option<&str>,
    window: Option<&str>,
    many: bool,
) -> Result<Vec<String>, WdError> {
    match locator {
        Locator::XPath(expr) => {
            let page = page_in(s, window).await?;
            xpath::select_off_runtime(page, expr.clone(), from.map(str::to_string)).await
        }
        Locator::Selector(sel) => by_selector(s, sel, from, window, many).await,
    }
}

/// The kit's selector: `find_node`'s matches in document order (a call a match, with `nth`,
/// up to 1 000), those inside the element and the window the find is scoped to. The scope is
/// read first, so a one-element find stops at the first match inside it.
async fn by_selector(
    s: &Wd,
    sel: &Map<String, Value>,
    from: Option<&str>,
    window: Option<&str>,
    many: bool,
) -> Result<Vec<String>, WdError> {
    let mut inside: Option<HashSet<String>> = None;
    if let Some(element) = from {
        // Only the element's descendants.
        let mut under = subtree(s, element, true).await?;
        under.remove(element);
        inside = Some(under);
    }
    if let Some(w) = window {
        let in_window = subtree(s, w, false).await?;
        inside = Some(match inside {
            Some(under) => under.intersection(&in_window).cloned().collect(),
            None => in_window,
        });
    }
    // The client's selector is read once, as find_node reads its arguments (a bad one is an
    // invalid selector), then asked for match after match.
    let mut selector =
        match automation_core::Op::from_parts(FindNode::NAME, Value::Object(sel.clone())) {
            Ok(automation_core::Op::FindNode(selector)) => selector,
            Ok(_) => return Ok(Vec::new()),
            Err(e) => return Err(selector_error(&e)),
        };
    let first = selector.nth.unwrap_or(0);
    let mut refs = Vec::new();
    let (mut nth, mut count) = (0usize, 1usize);
    while nth < count.min(1000) {
        selector.nth = Some(first.saturating_add(nth));
        match s.op::<FindNode>(selector.clone()).await {
            Ok(found) => {
                if nth == 0 {
                    count = found.count.saturating_sub(first);
                }
                if let Some(r) = found.node.map(|r| r.to_string())
                    && inside.as_ref().is_none_or(|i| i.contains(&r))
                {
                    refs.push(r);
                    if !many {
                        break;
                    }
                }
            }
            Err(e) if nth == 0 && e.code != automation_core::ErrorCode::NotFound => {
                return Err(selector_error(&e));
            }
            // None at all; a later one gone meanwhile is skipped.
            Err(_) if nth == 0 => break,
            Err(_) => {}
        }
        nth += 1;
    }
    Ok(refs)
}

fn selector_error(e: &automation_core::OpError) -> WdError {
    let mut w = WdError::from_op(e, false);
    if matches!(
        e.code,
        automation_core::ErrorCode::BadRequest | automation_core::ErrorCode::BadArgument
    ) {
        w.kind = W3c::InvalidSelector;
    }
    w
}

fn none_found(bytes: &Bytes) -> WdError {
    let find = locate::FindBody::of(&body(bytes).unwrap_or(Value::Null));
    WdError::new(
        W3c::NoSuchElement,
        format!(
            "no element matches {} {}; GET /source shows the tree the locator reads",
            find.using().unwrap_or("?"),
            find.value_json()
        ),
    )
}

/// A find's reply: the first element (or `no such element`), or all of them.
async fn answer(
    server: &Server,
    sid: &str,
    bytes: Bytes,
    from: Option<String>,
    many: bool,
) -> Response {
    with(server, sid, |s| async move {
        let found = find(&s, &bytes, from.as_deref(), many).await?;
        if many {
            return Ok(Value::Array(found.iter().map(|r| element(r)).collect()));
        }
        found
            .first()
            .map(|r| element(r))
            .ok_or_else(|| none_found(&bytes))
    })
    .await
}

pub(in crate::reach::webdriver) async fn find_one(
    State(server): Ctx,
    Path(sid): Sid,
    bytes: Bytes,
) -> Response {
    answer(&server, &sid, bytes, None, false).await
}

pub(in crate::reach::webdriver) async fn find_many(
    State(server): Ctx,
    Path(sid): Sid,
    bytes: Bytes,
) -> Response {
    answer(&server, &sid, bytes, None, true).await
}

pub(in crate::reach::webdriver) async fn find_one_from(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
    bytes: Bytes,
) -> Response {
    answer(&server, &sid, bytes, Some(eid), false).await
}

pub(in crate::reach::webdriver) async fn find_many_from(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
    bytes: Bytes,
) -> Response {
    answer(&server, &sid, bytes, Some(eid), true).await
}

pub(in crate::reach::webdriver) async fn active(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        let args = ops::SnapshotTree {
            max_nodes: Some(1),
            format: Some(SnapshotFormat::Json),
            ..Default::default()
        };
        let focus = op::<SnapshotTree>(&s, args, false)
            .await?
            .focused()
            .map(|f| f.to_string());
        focus
            .map(|f| element(&f))
            .ok_or_else(|| WdError::new(W3c::NoSuchElement, "no element has keyboard focus"))
    })
    .await
}
