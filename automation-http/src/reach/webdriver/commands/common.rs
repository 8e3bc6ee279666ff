//! What the command modules share: a tool call's data, an element's record, the session a
//! command runs with, the page source from a root, a subtree's refs, a rect.

use std::time::Duration;

use automation_core::ops::NodeArgs;
use automation_core::replies::ReadNode;
use automation_core::{Bounds, NodeTarget, SemanticNode};
use automation_session::tools::Outcome;
use axum::extract::Path;
use axum::response::Response;
use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::super::error::{W3c, WdError, WdResult};
use super::super::input::ELEMENT_KEY;
use super::super::source;
use super::super::{Server, Wd, reply};

/// The largest page source (nodes) a find or `GET /source` reads.
pub(super) const SOURCE_NODES: u64 = 20_000;
/// How many nodes' cut strings the page source puts back whole (a `read_node` each).
const WHOLE_NODES: usize = 256;
/// How often a find with an implicit wait looks again.
pub(super) const FIND_POLL: Duration = Duration::from_millis(150);
/// Largest screenshot side and size: WebDriver wants the full image, not MCP's thumbnail.
pub(super) const SHOT_DIMENSION: u64 = 16_384;
pub(super) const SHOT_BYTES: u64 = 256 * 1024 * 1024;

pub(super) fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// One tool call's data; `on_element`: a gone node is a stale element.
pub(super) async fn data(s: &Wd, tool: &str, a: Value, on_element: bool) -> WdResult {
    match s.call(tool, args(a)).await {
        Outcome::Data(mut d) => {
            automation_session::tools::strip_selector(&mut d);
            Ok(d)
        }
        Outcome::Failed(e) => Err(WdError::from_op(&e, on_element)),
        Outcome::Snapshot(m) => Ok(Value::Object(m)),
        Outcome::Image(i) => Ok(json!({
            "png": base64::engine::general_purpose::STANDARD.encode(&i.png),
            "meta": Value::Object(i.meta),
        })),
    }
}

/// An element's record, whole and typed (`read_node`); a gone node is a stale element.
pub(super) async fn record(s: &Wd, eid: &str) -> Result<SemanticNode, WdError> {
    record_of(s, eid.parse().map_err(WdError::argument)?, true).await
}

/// A node's record, typed; `on_element`: a gone node is a stale element.
pub(super) async fn record_of(
    s: &Wd,
    node: NodeTarget,
    on_element: bool,
) -> Result<SemanticNode, WdError> {
    s.op::<ReadNode>(NodeArgs { node })
        .await
        .map_err(|e| WdError::from_op(&e, on_element))
}

/// An element's record as the page source, `getAttribute` and `getProperty` read it: its
/// fields by their wire names (a W3C name is a string from the client).
pub(super) async fn record_fields(s: &Wd, eid: &str) -> Result<Map<String, Value>, WdError> {
    match serde_json::to_value(record(s, eid).await?) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Ok(Map::new()),
    }
}

pub(super) fn element(r: &str) -> Value {
    json!({ ELEMENT_KEY: r, "ELEMENT": r })
}

/// Runs `f` with session `sid` (or answers `invalid session id`).
pub(super) async fn with<F, Fut>(server: &Server, sid: &str, f: F) -> Response
where
    F: FnOnce(Wd) -> Fut,
    Fut: std::future::Future<Output = WdResult>,
{
    match server.session(sid) {
        Ok(s) => reply(f(s).await),
        Err(e) => reply(Err(e)),
    }
}

pub(super) type Sid = Path<String>;
pub(super) type SidEid = Path<(String, String)>;
pub(super) type SidEidName = Path<(String, String, String)>;

/// The page source from `root` (a window's node), or of the whole app.
pub(super) async fn page_in(s: &Wd, root: Option<&str>) -> Result<source::Page, WdError> {
    let mut a = json!({"format": "json", "bounds": true, "max_nodes": SOURCE_NODES});
    if let Some(r) = root {
        a["root"] = json!(r);
    }
    let snap = data(s, "snapshot_tree", a, false).await?;
    let mut map = match snap {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    whole_values(s, &mut map).await;
    let app = s.describe.split(" (pid").next().unwrap_or_default();
    Ok(source::Page::new(&map, app))
}

/// Puts back, whole, the strings a snapshot cut (it keeps 1 KiB of each and lists the field
/// in `cut`), from `read_node`, for up to [`WHOLE_NODES`] nodes: an XPath on a long value,
/// and lxml on the source, then see what the app holds. A node gone meanwhile keeps its cut.
async fn whole_values(s: &Wd, snapshot: &mut Map<String, Value>) {
    let nodes = if snapshot.contains_key("nodes") {
        snapshot.get_mut("nodes")
    } else {
        snapshot.get_mut("tree").and_then(|t| t.get_mut("nodes"))
    };
    let Some(Value::Array(nodes)) = nodes else {
        return;
    };
    let cut = nodes
        .iter_mut()
        .filter_map(Value::as_object_mut)
        .filter(|r| {
            r.get("cut")
                .and_then(Value::as_array)
                .is_some_and(|c| !c.is_empty())
        })
        .take(WHOLE_NODES);
    for node in cut {
        let Some(id) = node.get("id").and_then(Value::as_str).map(str::to_string) else {
            continue;
        };
        let Ok(whole) = record_fields(s, &id).await else {
            continue;
        };
        let fields: Vec<String> = node
            .get("cut")
            .and_then(Value::as_array)
            .map(|c| {
                c.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        for f in fields {
            if let Some(v) = whole.get(&f) {
                node.insert(f, v.clone());
            }
        }
        node.remove("cut");
    }
}

/// The refs of the nodes under `root` (its own among them): an element's (a gone element is
/// stale) or a window's.
pub(super) async fn subtree(
    s: &Wd,
    root: &str,
    on_element: bool,
) -> Result<std::collections::HashSet<String>, WdError> {
    let snap = data(
        s,
        "snapshot_tree",
        json!({"format": "json", "root": root, "max_nodes": SOURCE_NODES}),
        on_element,
    )
    .await?;
    Ok(source::records(snap.as_object().unwrap_or(&Map::new()))
        .iter()
        .filter_map(|r| r.get("id").and_then(Value::as_str).map(str::to_string))
        .collect())
}

pub(super) fn rect_of(bounds: Option<Bounds>) -> Result<Bounds, WdError> {
    bounds.ok_or_else(|| {
        WdError::new(
            W3c::UnknownError,
            "the app gives no bounds for it (no geometry yet)",
        )
    })
}

/// A rect as W3C gives it.
pub(super) fn rect_json(b: Bounds) -> Value {
    json!({"x": b.x, "y": b.y, "width": b.width, "height": b.height})
}
