//! The session commands: each one tool calls on the session's target, through the tool layer
//! every front door shares, and its reply as W3C shapes it.

use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::error::{W3c, WdError, WdResult};
use super::input::{self, ELEMENT_KEY, Step};
use super::locate::{self, Locator};
use super::source;
use super::{Ctx, Wd, body, reply};
use crate::reach::sessions::lock;
use crate::tools::Outcome;

/// The largest page source (nodes) a find or `GET /source` reads.
const SOURCE_NODES: u64 = 20_000;
/// How often a find with an implicit wait looks again.
const FIND_POLL: Duration = Duration::from_millis(150);
/// Largest screenshot side and size: WebDriver wants the full image, not MCP's thumbnail.
const SHOT_DIMENSION: u64 = 16_384;
const SHOT_BYTES: u64 = 256 * 1024 * 1024;

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// One tool call's data; `on_element`: a gone node is a stale element.
async fn data(s: &Wd, tool: &str, a: Value, on_element: bool) -> WdResult {
    match s.call(tool, args(a)).await {
        Outcome::Data(mut d) => {
            crate::tools::strip_selector(&mut d);
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

/// An element's record (`read_node`).
async fn record(s: &Wd, eid: &str) -> Result<Map<String, Value>, WdError> {
    let d = data(s, "read_node", json!({ "node": eid }), true).await?;
    let d = match d {
        Value::Object(mut m) => match m.remove("record") {
            Some(Value::Object(r)) => r,
            _ => m,
        },
        _ => Map::new(),
    };
    Ok(d)
}

fn element(r: &str) -> Value {
    json!({ ELEMENT_KEY: r, "ELEMENT": r })
}

/// Runs `f` with session `sid` (or answers `invalid session id`).
async fn with<F, Fut>(server: &super::Server, sid: &str, f: F) -> Response
where
    F: FnOnce(Wd) -> Fut,
    Fut: std::future::Future<Output = WdResult>,
{
    match server.session(sid) {
        Ok(s) => reply(f(s).await),
        Err(e) => reply(Err(e)),
    }
}

type Sid = Path<String>;
type SidEid = Path<(String, String)>;
type SidEidName = Path<(String, String, String)>;

// ---- timeouts ----

pub(super) async fn get_timeouts(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        let st = lock(&s.state);
        Ok(json!({"implicit": st.implicit_ms, "pageLoad": st.page_load_ms, "script": st.script_ms}))
    })
    .await
}

pub(super) async fn set_timeouts(State(server): Ctx, Path(sid): Sid, bytes: Bytes) -> Response {
    with(&server, &sid, |s| async move {
        let b = body(&bytes)?;
        let Some(m) = b.as_object() else {
            return Err(WdError::argument(
                "timeouts take an object like {\"implicit\": 5000}",
            ));
        };
        let read = |k: &str| -> Result<Option<u64>, WdError> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_u64()
                    .filter(|n| *n < (1u64 << 53))
                    .map(Some)
                    .ok_or_else(|| {
                        WdError::argument(format!(
                            "timeout {k:?} must be a whole number of milliseconds ≥ 0, got {v}"
                        ))
                    }),
            }
        };
        let (implicit, page, script) = (read("implicit")?, read("pageLoad")?, read("script")?);
        let mut st = lock(&s.state);
        if let Some(v) = implicit {
            st.implicit_ms = v;
        }
        if let Some(v) = page {
            st.page_load_ms = v;
        }
        if let Some(v) = script {
            st.script_ms = v;
        }
        Ok(Value::Null)
    })
    .await
}

// ---- page ----

/// The page source of the session's app.
async fn page(s: &Wd) -> Result<String, WdError> {
    let snap = data(
        s,
        "snapshot_tree",
        json!({"format": "json", "bounds": true, "max_nodes": SOURCE_NODES}),
        false,
    )
    .await?;
    let map = match snap {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let app = s.describe.split(" (pid").next().unwrap_or_default();
    Ok(source::xml(&map, app))
}

pub(super) async fn source(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        page(&s).await.map(Value::String)
    })
    .await
}

async fn shot(s: &Wd, node: Option<&str>) -> WdResult {
    let mut a = json!({"max_dimension": SHOT_DIMENSION, "max_bytes": SHOT_BYTES});
    if let Some(n) = node {
        a["node"] = json!(n);
    }
    let d = data(s, "screenshot", a, node.is_some()).await?;
    Ok(d.get("png").cloned().unwrap_or(Value::Null))
}

pub(super) async fn screenshot(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move { shot(&s, None).await }).await
}

pub(super) async fn element_screenshot(State(server): Ctx, Path((sid, eid)): SidEid) -> Response {
    with(&server, &sid, |s| async move { shot(&s, Some(&eid)).await }).await
}

/// The app's windows (`list_windows`).
async fn windows(s: &Wd) -> Result<Vec<Map<String, Value>>, WdError> {
    let d = data(s, "list_windows", json!({}), false).await?;
    Ok(d.get("windows")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|w| w.as_object().cloned()).collect())
        .unwrap_or_default())
}

fn handle(w: &Map<String, Value>) -> String {
    match w.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The current window: the one switched to, else the focused one, else the first.
async fn current_window(s: &Wd) -> Result<Map<String, Value>, WdError> {
    let all = windows(s).await?;
    let chosen = lock(&s.state).window.clone();
    let pick = match chosen {
        Some(h) => all
            .iter()
            .find(|w| handle(w) == h)
            .cloned()
            .ok_or_else(|| {
                WdError::new(
                    W3c::NoSuchWindow,
                    format!("window {h:?} is closed; GET /window/handles lists the open ones"),
                )
            })?,
        None => all
            .iter()
            .find(|w| w.get("focused") == Some(&Value::Bool(true)))
            .or_else(|| all.first())
            .cloned()
            .ok_or_else(|| WdError::new(W3c::NoSuchWindow, "the app has no window open"))?,
    };
    Ok(pick)
}

pub(super) async fn window(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        Ok(json!(handle(&current_window(&s).await?)))
    })
    .await
}

pub(super) async fn title(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        Ok(current_window(&s)
            .await?
            .get("title")
            .cloned()
            .unwrap_or(json!("")))
    })
    .await
}

pub(super) async fn window_handles(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        Ok(Value::Array(
            windows(&s)
                .await?
                .iter()
                .map(|w| json!(handle(w)))
                .collect(),
        ))
    })
    .await
}

pub(super) async fn switch_window(State(server): Ctx, Path(sid): Sid, bytes: Bytes) -> Response {
    with(&server, &sid, |s| async move {
        let b = body(&bytes)?;
        let h = b
            .get("handle")
            .or_else(|| b.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                WdError::argument(
                    "switch to window takes {\"handle\": \"…\"} from GET /window/handles",
                )
            })?
            .to_string();
        if !windows(&s).await?.iter().any(|w| handle(w) == h) {
            return Err(WdError::new(
                W3c::NoSuchWindow,
                format!("no window {h:?}; GET /window/handles lists the open ones"),
            ));
        }
        lock(&s.state).window = Some(h);
        Ok(Value::Null)
    })
    .await
}

pub(super) async fn window_rect(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        let w = current_window(&s).await?;
        let bounds = match w.get("bounds") {
            Some(b) => b.clone(),
            None => match w.get("node") {
                Some(n) => data(&s, "read_node", json!({ "node": n }), false)
                    .await?
                    .get("bounds")
                    .cloned()
                    .unwrap_or(Value::Null),
                None => Value::Null,
            },
        };
        rect_of(&bounds)
    })
    .await
}

fn rect_of(bounds: &Value) -> WdResult {
    let n = |k: &str| bounds.get(k).and_then(Value::as_f64);
    match (n("x"), n("y"), n("width"), n("height")) {
        (Some(x), Some(y), Some(width), Some(height)) => {
            Ok(json!({"x": x, "y": y, "width": width, "height": height}))
        }
        _ => Err(WdError::new(
            W3c::UnknownError,
            "the app gives no bounds for it (no geometry yet)",
        )),
    }
}

pub(super) async fn unsupported(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    reply(Err(WdError::new(
        W3c::UnsupportedOperation,
        format!(
            "{method} {} is not supported for desktop apps here (windows are the app's to place, scripts run as `automation: <op>` through execute/sync)",
            uri.path()
        ),
    )))
}

// ---- find ----

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
    let wait = Duration::from_millis(lock(&s.state).implicit_ms);
    let deadline = Instant::now() + wait;
    loop {
        let found = find_once(s, &locator, from, many).await?;
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
    many: bool,
) -> Result<Vec<String>, WdError> {
    match locator {
        Locator::XPath(expr) => {
            let xml = page(s).await?;
            source::select(&xml, expr, from)
        }
        Locator::Selector(sel) => {
            let first = s.call("find_node", sel.clone()).await;
            let (first, count) = match first {
                Outcome::Data(d) => (
                    d.get("node").and_then(Value::as_str).map(str::to_string),
                    d.get("count").and_then(Value::as_u64).unwrap_or(1),
                ),
                Outcome::Failed(e) if e.code == automation_core::ErrorCode::NotFound => {
                    return Ok(Vec::new());
                }
                Outcome::Failed(e) => return Err(selector_error(&e)),
                _ => (None, 0),
            };
            let mut refs: Vec<String> = first.into_iter().collect();
            let wanted = if many { count.min(1000) } else { 1 };
            for nth in 1..wanted {
                let mut sel = sel.clone();
                sel.insert("nth".into(), json!(nth));
                if let Outcome::Data(d) = s.call("find_node", sel).await
                    && let Some(r) = d.get("node").and_then(Value::as_str)
                {
                    refs.push(r.to_string());
                }
            }
            if let Some(scope) = from {
                // Only the element's descendants: the refs of its subtree's snapshot.
                let snap = data(
                    s,
                    "snapshot_tree",
                    json!({"format": "json", "root": scope, "max_nodes": SOURCE_NODES}),
                    true,
                )
                .await?;
                let inside: std::collections::HashSet<String> =
                    source::records(snap.as_object().unwrap_or(&Map::new()))
                        .iter()
                        .filter_map(|r| r.get("id").and_then(Value::as_str).map(str::to_string))
                        .filter(|r| r != scope)
                        .collect();
                refs.retain(|r| inside.contains(r));
            }
            Ok(refs)
        }
    }
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
    let b = body(bytes).unwrap_or(Value::Null);
    WdError::new(
        W3c::NoSuchElement,
        format!(
            "no element matches {} {}; GET /source shows the tree the locator reads",
            b.get("using").and_then(Value::as_str).unwrap_or("?"),
            b.get("value").map(Value::to_string).unwrap_or_default()
        ),
    )
}

pub(super) async fn find_one(State(server): Ctx, Path(sid): Sid, bytes: Bytes) -> Response {
    with(&server, &sid, |s| async move {
        let found = find(&s, &bytes, None, false).await?;
        found
            .first()
            .map(|r| element(r))
            .ok_or_else(|| none_found(&bytes))
    })
    .await
}

pub(super) async fn find_many(State(server): Ctx, Path(sid): Sid, bytes: Bytes) -> Response {
    with(&server, &sid, |s| async move {
        Ok(Value::Array(
            find(&s, &bytes, None, true)
                .await?
                .iter()
                .map(|r| element(r))
                .collect(),
        ))
    })
    .await
}

pub(super) async fn find_one_from(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
    bytes: Bytes,
) -> Response {
    with(&server, &sid, |s| async move {
        let found = find(&s, &bytes, Some(&eid), false).await?;
        found
            .first()
            .map(|r| element(r))
            .ok_or_else(|| none_found(&bytes))
    })
    .await
}

pub(super) async fn find_many_from(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
    bytes: Bytes,
) -> Response {
    with(&server, &sid, |s| async move {
        Ok(Value::Array(
            find(&s, &bytes, Some(&eid), true)
                .await?
                .iter()
                .map(|r| element(r))
                .collect(),
        ))
    })
    .await
}

pub(super) async fn active(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        let snap = data(
            &s,
            "snapshot_tree",
            json!({"format": "json", "max_nodes": 1}),
            false,
        )
        .await?;
        let focus = snap
            .get("focus")
            .or_else(|| snap.get("tree").and_then(|t| t.get("focus")))
            .and_then(Value::as_str)
            .map(str::to_string);
        focus
            .map(|f| element(&f))
            .ok_or_else(|| WdError::new(W3c::NoSuchElement, "no element has keyboard focus"))
    })
    .await
}

// ---- element ----

pub(super) async fn click(State(server): Ctx, Path((sid, eid)): SidEid) -> Response {
    with(&server, &sid, |s| async move {
        data(
            &s,
            "invoke_action",
            json!({"node": eid, "action": "click"}),
            true,
        )
        .await?;
        Ok(Value::Null)
    })
    .await
}

pub(super) async fn clear(State(server): Ctx, Path((sid, eid)): SidEid) -> Response {
    with(&server, &sid, |s| async move {
        data(&s, "set_value", json!({"node": eid, "value": ""}), true).await?;
        Ok(Value::Null)
    })
    .await
}

pub(super) async fn send_keys(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
    bytes: Bytes,
) -> Response {
    with(&server, &sid, |s| async move {
        let b = body(&bytes)?;
        let text = match (b.get("text"), b.get("value")) {
            (Some(Value::String(t)), _) => t.clone(),
            (_, Some(Value::Array(parts))) => parts.iter().filter_map(Value::as_str).collect(),
            _ => return Err(WdError::argument("send keys takes {\"text\": \"…\"}")),
        };
        for (tool, a) in input::send_keys(&eid, &text) {
            data(&s, tool, Value::Object(a), true).await?;
        }
        Ok(Value::Null)
    })
    .await
}

pub(super) async fn text(State(server): Ctx, Path((sid, eid)): SidEid) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        // A node with a value (a field, even empty; a label's text) reads as it, else its name.
        let t = r
            .get("value")
            .and_then(Value::as_str)
            .or_else(|| r.get("label").and_then(Value::as_str))
            .or_else(|| {
                r.get("text")
                    .and_then(|t| t.get("document_text"))
                    .and_then(Value::as_str)
            })
            .unwrap_or_default();
        Ok(json!(t))
    })
    .await
}

pub(super) async fn tag_name(State(server): Ctx, Path((sid, eid)): SidEid) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        Ok(json!(source::element_name(
            r.get("role").and_then(Value::as_str).unwrap_or("Unknown")
        )))
    })
    .await
}

pub(super) async fn attribute(State(server): Ctx, Path((sid, eid, name)): SidEidName) -> Response {
    with(&server, &sid, |s| async move {
        attribute_of(&s, &eid, &name).await
    })
    .await
}

/// An attribute as the page source gives it (`name`, `value`, `checked`, …; `id` and `text`
/// are read as `accessibility-id` and `value`), else the record's field of that name.
async fn attribute_of(s: &Wd, eid: &str, name: &str) -> WdResult {
    let r = record(s, eid).await?;
    let wanted = name.to_ascii_lowercase();
    let from_source = source::attributes(&r)
        .into_iter()
        .find(|(k, _)| {
            *k == wanted
                || (wanted == "id" && *k == "accessibility-id")
                || (wanted == "text" && *k == "value")
        })
        .map(|(_, v)| json!(v));
    Ok(from_source.unwrap_or_else(|| match r.get(name) {
        Some(Value::String(v)) => json!(v),
        Some(v @ (Value::Bool(_) | Value::Number(_))) => json!(v.to_string()),
        _ => Value::Null,
    }))
}

pub(super) async fn property(State(server): Ctx, Path((sid, eid, name)): SidEidName) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        Ok(r.get(&name).cloned().unwrap_or(Value::Null))
    })
    .await
}

pub(super) async fn rect(State(server): Ctx, Path((sid, eid)): SidEid) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        rect_of(r.get("bounds").unwrap_or(&Value::Null))
    })
    .await
}

pub(super) async fn enabled(State(server): Ctx, Path((sid, eid)): SidEid) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        Ok(json!(r.get("disabled") != Some(&Value::Bool(true))))
    })
    .await
}

pub(super) async fn selected(State(server): Ctx, Path((sid, eid)): SidEid) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        let on = r.get("toggled") == Some(&Value::Bool(true))
            || r.get("selected") == Some(&Value::Bool(true));
        Ok(json!(on))
    })
    .await
}

pub(super) async fn displayed(State(server): Ctx, Path((sid, eid)): SidEid) -> Response {
    with(
        &server,
        &sid,
        |s| async move { displayed_of(&s, &eid).await },
    )
    .await
}

/// Shown: not hidden, with an area on screen.
async fn displayed_of(s: &Wd, eid: &str) -> WdResult {
    let r = record(s, eid).await?;
    let sized = r.get("bounds").is_some_and(|b| {
        b.get("width").and_then(Value::as_f64).unwrap_or(0.0) > 0.0
            && b.get("height").and_then(Value::as_f64).unwrap_or(0.0) > 0.0
    });
    Ok(json!(sized && r.get("hidden") != Some(&Value::Bool(true))))
}

// ---- actions ----

pub(super) async fn perform_actions(State(server): Ctx, Path(sid): Sid, bytes: Bytes) -> Response {
    with(&server, &sid, |s| async move {
        for step in input::steps(&body(&bytes)?)? {
            run_step(&s, step).await?;
        }
        Ok(Value::Null)
    })
    .await
}

async fn run_step(s: &Wd, step: Step) -> Result<(), WdError> {
    match step {
        Step::Pause(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
        Step::Move {
            element,
            relative,
            x,
            y,
        } => {
            let to = if let Some(eid) = element {
                let r = record(s, &eid).await?;
                let b = rect_of(r.get("bounds").unwrap_or(&Value::Null))?;
                let n = |k: &str| b.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                input::Point {
                    x: n("x") + n("width") / 2.0 + x,
                    y: n("y") + n("height") / 2.0 + y,
                }
            } else if relative {
                let p = lock(&s.state).pointer;
                input::Point {
                    x: p.x + x,
                    y: p.y + y,
                }
            } else {
                input::Point { x, y }
            };
            data(
                s,
                "inject_pointer",
                json!({"x": to.x, "y": to.y, "action": "move"}),
                false,
            )
            .await?;
            lock(&s.state).pointer = to;
        }
        Step::Button { down, button } => {
            let p = lock(&s.state).pointer;
            let action = if down { "down" } else { "up" };
            data(
                s,
                "inject_pointer",
                json!({"x": p.x, "y": p.y, "action": action, "button": button}),
                false,
            )
            .await?;
            let mut st = lock(&s.state);
            st.buttons.retain(|b| *b != button);
            if down {
                st.buttons.push(button);
            }
        }
        Step::Key { down, key } => {
            if let Some(a) = input::key_call(down, key) {
                data(s, "inject_key", Value::Object(a), false).await?;
                let mut st = lock(&s.state);
                st.keys.retain(|k| *k != key);
                if down {
                    st.keys.push(key);
                }
            }
        }
    }
    Ok(())
}

pub(super) async fn release_actions(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        let (buttons, keys) = {
            let mut st = lock(&s.state);
            (
                std::mem::take(&mut st.buttons),
                std::mem::take(&mut st.keys),
            )
        };
        for key in keys.into_iter().rev() {
            run_step(&s, Step::Key { down: false, key }).await?;
        }
        for button in buttons {
            run_step(
                &s,
                Step::Button {
                    down: false,
                    button,
                },
            )
            .await?;
        }
        Ok(Value::Null)
    })
    .await
}

// ---- execute ----

/// Element references anywhere in a script's arguments become the refs ops take.
fn unwrap_elements(v: Value) -> Value {
    match v {
        Value::Object(m) => match m.get(ELEMENT_KEY).and_then(Value::as_str) {
            Some(r) => json!(r),
            None => Value::Object(
                m.into_iter()
                    .map(|(k, v)| (k, unwrap_elements(v)))
                    .collect(),
            ),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(unwrap_elements).collect()),
        other => other,
    }
}

pub(super) async fn execute(State(server): Ctx, Path(sid): Sid, bytes: Bytes) -> Response {
    with(&server, &sid, |s| async move {
        let b = body(&bytes)?;
        let script = b
            .get("script")
            .and_then(Value::as_str)
            .ok_or_else(|| WdError::argument("execute takes {\"script\": \"automation: <op>\", \"args\": [{…}]}"))?;
        if let Some(atom) = selenium_atom(script) {
            return atom_call(&s, atom, b.get("args")).await;
        }
        let Some(op) = script.trim().strip_prefix("automation:").map(str::trim) else {
            return Err(WdError::new(
                W3c::UnsupportedOperation,
                format!("script {script:?}: there is no JavaScript here; scripts are `automation: <op>` with the op's arguments as the first arg, e.g. automation: set_value"),
            ));
        };
        if crate::tools::lookup(op).is_none() {
            return Err(WdError::argument(format!("`automation: {op}` names no op; `automation tools` lists them")));
        }
        let a = match b.get("args") {
            None | Some(Value::Null) => json!({}),
            Some(Value::Array(a)) if a.is_empty() => json!({}),
            Some(Value::Array(a)) if a.len() == 1 && a[0].is_object() => unwrap_elements(a[0].clone()),
            Some(other) => {
                return Err(WdError::argument(format!("execute's args must be [ {{the op's arguments}} ], got {other}")));
            }
        };
        data(&s, op, a, false).await
    })
    .await
}

/// The two JavaScript atoms the official Selenium clients send through `execute/sync` for
/// `get_attribute` and `is_displayed` (they mark them with a leading comment); answered
/// as the attribute and displayed commands are, so those calls work from Selenium too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Atom {
    GetAttribute,
    IsDisplayed,
}

fn selenium_atom(script: &str) -> Option<Atom> {
    let s = script.trim_start();
    if s.starts_with("/* getAttribute */") {
        Some(Atom::GetAttribute)
    } else if s.starts_with("/* isDisplayed */") {
        Some(Atom::IsDisplayed)
    } else {
        None
    }
}

async fn atom_call(s: &Wd, atom: Atom, args: Option<&Value>) -> WdResult {
    let args = args.and_then(Value::as_array).cloned().unwrap_or_default();
    let eid = args
        .first()
        .and_then(|e| e.get(ELEMENT_KEY))
        .and_then(Value::as_str)
        .ok_or_else(|| WdError::argument("the atom's first argument must be an element"))?;
    match atom {
        Atom::GetAttribute => {
            let name = args.get(1).and_then(Value::as_str).ok_or_else(|| {
                WdError::argument("getAttribute's second argument must be the attribute's name")
            })?;
            attribute_of(s, eid, name).await
        }
        Atom::IsDisplayed => displayed_of(s, eid).await,
    }
}
