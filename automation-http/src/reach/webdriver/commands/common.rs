//! What the command modules share: a tool call's data, an element's record, the session a
//! command runs with, the page source from a root, a subtree's refs, a rect.

use std::time::Duration;

use automation_core::ops::{self, NodeArgs, SnapshotFormat};
use automation_core::replies::{ReadNode, SnapshotTree, TypedOp};
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
pub(super) const SOURCE_NODES: usize = 20_000;
/// How many nodes' cut strings the page source puts back whole (a `read_node` each).
const WHOLE_NODES: usize = 256;
/// How often a find with an implicit wait looks again.
pub(super) const FIND_POLL: Duration = Duration::from_millis(150);

pub(super) fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// A tool the client names (`execute/sync`'s `automation: <op>`), through the tool layer MCP
/// uses; its data as the tool answers it.
pub(super) async fn named_tool(s: &Wd, tool: &str, a: Value) -> WdResult {
    match s.call(tool, args(a)).await {
        Outcome::Data(mut d) => {
            automation_session::tools::strip_selector(&mut d);
            Ok(d)
        }
        Outcome::Failed(e) => Err(WdError::from_op(&e, false)),
        Outcome::Snapshot(s) => Ok(serde_json::to_value(s).unwrap_or(Value::Null)),
        Outcome::Image(i) => Ok(json!({
            "png": base64::engine::general_purpose::STANDARD.encode(&i.png),
            "meta": Value::Object(i.meta),
        })),
    }
}

/// One typed op on the session; `on_element`: a gone node is a stale element.
pub(super) async fn op<O>(s: &Wd, args: O::Args, on_element: bool) -> Result<O::Reply, WdError>
where
    O: TypedOp,
    O::Args: Send + 'static,
    O::Reply: Send + 'static,
{
    s.op::<O>(args)
        .await
        .map_err(|e| WdError::from_op(&e, on_element))
}

/// A node named by an element id (or a window's ref) as an op takes it.
pub(super) fn node(r: &str) -> Result<NodeTarget, WdError> {
    r.parse().map_err(WdError::argument)
}

/// An element's record, whole and typed (`read_node`); a gone node is a stale element.
pub(super) async fn record(s: &Wd, eid: &str) -> Result<SemanticNode, WdError> {
    record_of(s, node(eid)?, true).await
}

/// A node's record, typed; `on_element`: a gone node is a stale element.
pub(super) async fn record_of(
    s: &Wd,
    node: NodeTarget,
    on_element: bool,
) -> Result<SemanticNode, WdError> {
    op::<ReadNode>(s, NodeArgs { node }, on_element).await
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

/// The records of the tree from `root` (the whole app without one), `json`, up to
/// [`SOURCE_NODES`]; `on_element`: a gone root is a stale element.
async fn records(
    s: &Wd,
    root: Option<&str>,
    on_element: bool,
) -> Result<Vec<SemanticNode>, WdError> {
    let args = ops::SnapshotTree {
        root: root.map(node).transpose()?,
        max_nodes: Some(SOURCE_NODES),
        format: Some(SnapshotFormat::Json),
        ..Default::default()
    };
    Ok(op::<SnapshotTree>(s, args, on_element).await?.nodes)
}

/// The page source from `root` (a window's node), or of the whole app.
pub(super) async fn page_in(s: &Wd, root: Option<&str>) -> Result<source::Page, WdError> {
    let mut nodes = records(s, root, false).await?;
    whole_values(s, &mut nodes).await;
    let app = s.describe.split(" (pid").next().unwrap_or_default();
    Ok(source::Page::new(&nodes, app))
}

/// Puts back, whole, the strings a snapshot cut (it keeps 1 KiB of each and lists the field
/// in `cut`), from `read_node`, for up to [`WHOLE_NODES`] nodes: an XPath on a long value,
/// and lxml on the source, then see what the app holds. A node gone meanwhile keeps its cut.
async fn whole_values(s: &Wd, nodes: &mut [SemanticNode]) {
    let cut = nodes
        .iter_mut()
        .filter(|r| !r.cut.is_empty())
        .take(WHOLE_NODES);
    for node in cut {
        let Ok(mut whole) = record_of(s, node.id.into(), false).await else {
            continue;
        };
        // The page keeps the snapshot's shape: the record's strings, the tree's children.
        whole.children = std::mem::take(&mut node.children);
        *node = whole;
    }
}

/// The refs of the nodes under `root` (its own among them): an element's (a gone element is
/// stale) or a window's.
pub(super) async fn subtree(
    s: &Wd,
    root: &str,
    on_element: bool,
) -> Result<std::collections::HashSet<String>, WdError> {
    Ok(records(s, Some(root), on_element)
        .await?
        .iter()
        .map(|r| r.id.to_string())
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
