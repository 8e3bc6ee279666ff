//! `automation inspect`: a local web page over the live app — its tree, its screenshot with
//! the hovered and selected node outlined, the selected node's record, its durable selector
//! and the calls a test would make — refreshed when the app changes (server-sent events).
//!
//! Served on loopback only, on a random port, behind the binary's one edge with a random
//! token the printed URL carries: a request without it, from another user, from another
//! page's origin, or with a `Host` that is not the loopback address it was served on (a
//! DNS-rebinding page) is refused. Every read and action goes through the same target thread
//! and tool layer as MCP.

use crate::error::HttpError;
use std::sync::Arc;
use std::time::Duration;

use automation_core::ops::{self, NodeArgs, SnapshotFormat};
use automation_core::replies::{InvokeAction, ReadNode, Snapshot, SnapshotTree, TypeText, TypedOp};
use automation_core::{NodeTarget, OpError, Reply, Request};
use automation_session::backend::TargetHandle;
use automation_session::quote;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::loopback::{self, Server};

/// The page.
pub const PAGE: &str = include_str!("inspect.html");

/// How often the app is asked whether its tree changed.
const POLL: Duration = Duration::from_millis(100);
/// Largest tree the page gets.
const MAX_NODES: usize = 5000;
/// Largest request body (an action is a few dozen bytes).
const MAX_BODY: usize = 16 * 1024;

struct Shared {
    target: TargetHandle,
    /// The last screenshot's size and scale (what `/api/shot-meta` answers).
    last_meta: std::sync::Mutex<Option<Map<String, Value>>>,
    /// Actions running: the change events wait for them to end, so a page reloads once, after
    /// the action, rather than mid-way (its screenshot would then hold the target thread when
    /// the action's result is ready to show).
    acting: std::sync::atomic::AtomicUsize,
    /// Told when an action ends, so the change events look at once rather than at the next
    /// poll.
    acted: tokio::sync::Notify,
}

type Ctx = State<Arc<Shared>>;

/// The inspector over `target`, bound to `127.0.0.1:port` (0: a free port); its URL carries
/// the token.
pub async fn bind(target: TargetHandle, port: u16) -> Result<Server, HttpError> {
    let token = automation_wire::handshake::generate_token()
        .map_err(|e| HttpError::Token(format!("cannot make a token: {e}")))?;
    let bound = loopback::bind(port).await?;
    let addr = bound.addr;
    let shared = Arc::new(Shared {
        target,
        last_meta: std::sync::Mutex::new(None),
        acting: std::sync::atomic::AtomicUsize::new(0),
        acted: tokio::sync::Notify::new(),
    });
    let app = Router::new()
        .route("/", get(page))
        .route("/api/tree", get(tree))
        .route("/api/screenshot", get(screenshot))
        .route("/api/shot-meta", get(shot_meta))
        .route("/api/node/{id}", get(node))
        .route("/api/act", post(act))
        .route("/api/events", get(events))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(shared);
    let url = format!("http://{addr}/?token={token}");
    Ok(Server::new(
        "inspector",
        url,
        bound,
        app,
        Some(token),
        MAX_BODY,
    ))
}

/// A JSON error with an HTTP status: `{code, message, hint}`.
fn refuse(status: StatusCode, code: &str, message: &str, hint: &str) -> Response {
    (
        status,
        axum::Json(json!({"code": code, "message": message, "hint": hint})),
    )
        .into_response()
}

/// An op's failure as HTTP: the kit's error, 400 for the caller's mistake, 503 to retry.
fn op_error(e: &OpError) -> Response {
    let status = if e.code.is_retryable() {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::BAD_REQUEST
    };
    (
        status,
        axum::Json(automation_session::tools::shape::error_value(e)),
    )
        .into_response()
}

/// The tree's records, `json`, up to `max_nodes`.
async fn snapshot(shared: &Shared, max_nodes: usize) -> Result<Snapshot, Response> {
    let args = ops::SnapshotTree {
        max_nodes: Some(max_nodes),
        format: Some(SnapshotFormat::Json),
        ..Default::default()
    };
    shared
        .target
        .op::<SnapshotTree>(args)
        .await
        .map_err(|e| op_error(&e))
}

/// The tree's version now (`None`: the app did not answer).
async fn version(shared: &Shared) -> Option<u64> {
    snapshot(shared, 1).await.ok().map(|s| s.version)
}

/// A reply as the page's JSON.
fn json_of<T: serde::Serialize>(reply: &T) -> Response {
    axum::Json(serde_json::to_value(reply).unwrap_or(Value::Null)).into_response()
}

async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        PAGE,
    )
        .into_response()
}

async fn tree(State(shared): Ctx) -> Response {
    match snapshot(&shared, MAX_NODES).await {
        Ok(snapshot) => json_of(&snapshot),
        Err(r) => r,
    }
}

/// The window's pixels as they are now, full size, with their metadata. A short settle: the
/// page shows the app, it does not wait for a spinner to stop.
async fn capture(shared: &Shared) -> Result<automation_core::Image, Response> {
    let mut request = Request::new(automation_core::Op::Screenshot(Default::default()));
    request.settle = Some(automation_session::tools::glance());
    match shared.target.call(request).await {
        Reply::Image(image) => {
            if let Ok(mut last) = shared.last_meta.lock() {
                *last = Some(image.meta());
            }
            Ok(image)
        }
        Reply::Err(e) => Err(op_error(&e)),
        Reply::Ok(_) => Err(refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            "TARGET_FAILED",
            "the screenshot op answered data",
            "retry",
        )),
    }
}

async fn screenshot(State(shared): Ctx) -> Response {
    match capture(&shared).await {
        Ok(image) => (
            [
                (header::CONTENT_TYPE, "image/png"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            image.png,
        )
            .into_response(),
        Err(r) => r,
    }
}

async fn shot_meta(State(shared): Ctx) -> Response {
    // The meta of the last capture the page loaded; a capture of its own only before any.
    let cached = shared.last_meta.lock().ok().and_then(|m| m.clone());
    let meta = match cached {
        Some(meta) => Ok(meta),
        None => capture(&shared).await.map(|image| image.meta()),
    };
    match meta {
        Ok(mut meta) => {
            if let Some(v) = version(&shared).await {
                meta.insert("version".into(), json!(v));
            }
            axum::Json(Value::Object(meta)).into_response()
        }
        Err(r) => r,
    }
}

async fn node(State(shared): Ctx, Path(id): Path<String>) -> Response {
    let node = match id.parse::<NodeTarget>() {
        Ok(node) => node,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "BAD_ARGUMENT",
                &format!("node {id:?} is not a node reference: {e}"),
                "take a node's id from /api/tree (e.g. e4)",
            );
        }
    };
    let request = ReadNode::request_with_selector(NodeArgs { node });
    let read = match ReadNode::decode_selected(shared.target.call(request).await) {
        Ok(read) => read,
        Err(e) => return op_error(&e),
    };
    let mut out = Map::new();
    if let Some(sel) = &read.selected.selector {
        let role = &read.reply.role;
        let sel = json!(sel);
        out.insert("js".into(), json!(js_snippet(&sel, role)));
        out.insert("yaml".into(), json!(yaml_snippet(&sel, role)));
        out.insert("selector".into(), sel);
    }
    if let Some(note) = &read.selected.selector_note {
        out.insert("selector_note".into(), json!(note));
    }
    out.insert("record".into(), json!(read.reply));
    axum::Json(Value::Object(out)).into_response()
}

/// What a person does with a node of `role`, as a JS client call on a locator.
fn js_action(role: &str) -> &'static str {
    match role {
        "TextInput" | "MultilineTextInput" | "SearchInput" => ".typeText('text')",
        "Label" | "Paragraph" | "Heading" | "StaticText" => ".read()",
        _ => ".click()",
    }
}

/// The selector is the app's text: it goes in through the one quoting function (a label with
/// U+2028 would otherwise end the line in older JavaScript, and in a YAML 1.1 reader).
fn js_snippet(selector: &Value, role: &str) -> String {
    format!(
        "await app.find({}){};",
        quote::ts_value(selector),
        js_action(role)
    )
}

fn yaml_snippet(selector: &Value, role: &str) -> String {
    let (tool, extra) = match js_action(role) {
        ".typeText('text')" => (TypeText::NAME, "\n    text: text"),
        ".read()" => (ReadNode::NAME, ""),
        _ => (InvokeAction::NAME, "\n    action: click"),
    };
    // JSON with its line terminators escaped is a YAML flow value too.
    format!(
        "- tool: {tool}\n  args:\n    node: {}{extra}",
        quote::ts_value(selector)
    )
}

#[derive(Deserialize)]
struct Act {
    node: NodeTarget,
    #[serde(default = "click")]
    action: String,
}

fn click() -> String {
    "click".into()
}

async fn act(State(shared): Ctx, body: axum::body::Bytes) -> Response {
    let act: Act = match serde_json::from_slice(&body) {
        Ok(a) => a,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "BAD_REQUEST",
                &format!("the body must be {{\"node\": id, \"action\": \"click\"}}: {e}"),
                r#"e.g. {"node": "e4", "action": "click"}"#,
            );
        }
    };
    use std::sync::atomic::Ordering;
    shared.acting.fetch_add(1, Ordering::SeqCst);
    let args = ops::InvokeAction {
        node: act.node,
        action: act.action,
    };
    let done = shared.target.op::<InvokeAction>(args).await;
    shared.acting.fetch_sub(1, Ordering::SeqCst);
    shared.acted.notify_waiters();
    match done {
        Ok(acted) => {
            let mut v = json!(acted);
            if let Value::Object(m) = &mut v {
                m.insert("ok".into(), json!(true));
            }
            axum::Json(v).into_response()
        }
        Err(e) => op_error(&e),
    }
}

/// `changed` events with the tree's version whenever it moves.
async fn events(State(shared): Ctx) -> Response {
    let stream = futures_util::stream::unfold((shared, None::<u64>), |(shared, last)| async move {
        loop {
            if shared.acting.load(std::sync::atomic::Ordering::SeqCst) > 0 {
                let _ = tokio::time::timeout(POLL, shared.acted.notified()).await;
                continue;
            }
            let version = version(&shared).await;
            if version.is_some() && version != last {
                let event = Event::default()
                    .event("changed")
                    .data(json!({"version": version}).to_string());
                return Some((Ok::<_, std::convert::Infallible>(event), (shared, version)));
            }
            let _ = tokio::time::timeout(POLL, shared.acted.notified()).await;
        }
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_name_the_node_by_its_selector() {
        let sel = json!({"role": "Button", "label": "Save"});
        assert_eq!(
            js_snippet(&sel, "Button"),
            r#"await app.find({"label":"Save","role":"Button"}).click();"#
        );
        assert!(yaml_snippet(&sel, "TextInput").starts_with("- tool: type_text"));
        // An app's label with line terminators stays on its line in both languages.
        let hostile = json!({"label": "a\u{2028}b\u{2029}c\u{85}d\ne"});
        for snippet in [
            js_snippet(&hostile, "Button"),
            yaml_snippet(&hostile, "Button"),
        ] {
            let node_line = snippet.lines().find(|l| l.contains("label")).unwrap();
            assert!(
                node_line.contains(r"a\u2028b\u2029c\u0085d\ne"),
                "{snippet:?}"
            );
            assert!(
                !snippet.contains(['\u{2028}', '\u{2029}', '\u{85}']),
                "{snippet:?}"
            );
        }
    }
}
