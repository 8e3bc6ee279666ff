//! `automation webdriver`: W3C WebDriver, with the Appium conventions desktop drivers use,
//! over the session manager — so Selenium and Appium clients in any language, WebdriverIO and
//! Selenium Grid drive real apps.
//!
//! The data's path, one module each:
//! - [`caps`]: a new session's capabilities → which target it drives;
//! - [`locate`]: a locator → an XPath over the page source, or the kit's selector;
//! - [`source`]: the tree as the page source (data, written as XML);
//! - [`xpath`]: XPath 1.0 over the page source, bounded in size, nesting and work, off the
//!   async runtime;
//! - [`input`]: `send keys` text and the actions API → the catalog's input ops;
//! - [`commands`]: each command → tool calls on the session's target (the same tool layer
//!   as MCP: no second find, click or type here);
//! - [`error`]: the kit's errors → W3C error codes, the kit's own error kept in `data`.

pub mod bodies;
pub mod caps;
pub mod commands;
pub mod error;
pub mod input;
pub mod locate;
pub mod source;
pub mod xpath;

use crate::error::HttpError;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use automation_session::tools::Snapshots;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::http::{self, Access, Policy};
use super::sessions::{CreateError, Session, Sessions};
use error::{W3c, WdError, WdResult};

/// How the server is set up.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen.
    pub addr: SocketAddr,
    /// Sessions at once.
    pub max_sessions: usize,
    /// A session unused this long is ended.
    pub idle_timeout: Duration,
    /// The token, the apps a session may launch, the web origins a user trusts.
    pub access: Access,
}

/// A session's WebDriver state beside its target.
#[derive(Debug, Clone)]
pub struct WdState {
    /// How long a find keeps looking (ms).
    pub implicit_ms: u64,
    /// Page-load and script timeouts (kept and answered; nothing here loads pages).
    pub page_load_ms: u64,
    /// The script timeout (ms).
    pub script_ms: u64,
    /// The window switched to, if any.
    pub window: Option<String>,
    /// Where the actions API's pointer is.
    pub pointer: input::Point,
    /// Buttons the actions API holds down.
    pub buttons: Vec<automation_core::PointerButton>,
    /// Keys the actions API holds down.
    pub keys: Vec<input::Key>,
}

impl Default for WdState {
    fn default() -> Self {
        Self {
            implicit_ms: 0,
            page_load_ms: 300_000,
            script_ms: 30_000,
            window: None,
            pointer: input::Point::default(),
            buttons: Vec::new(),
            keys: Vec::new(),
        }
    }
}

/// The server's shared state.
pub struct Server {
    sessions: Arc<Sessions<WdState>>,
    policy: Policy,
}

type Ctx = State<Arc<Server>>;
type Wd = Arc<Session<WdState>>;

/// Binds and serves until the process ends; `announce` gets the URL once it listens.
pub async fn serve(config: Config, announce: impl FnOnce(&str)) -> Result<(), HttpError> {
    // Refused before anything binds.
    let policy = Policy::new(config.addr, &config.access)?;
    http::door("WebDriver server", config.addr, &config.access)?;
    let (listener, addr) = crate::edge::bind(config.addr).await?;
    // On the bound port (0 picks one): the loopback Host check names it.
    let door = http::door("WebDriver server", addr, &config.access)?;
    let sessions = Sessions::new(
        config.max_sessions,
        config.idle_timeout,
        Snapshots::new(automation_session::tools::DEFAULT_SNAPSHOTS_DIR, false),
    );
    sessions.reap_idle();
    let server = Arc::new(Server {
        sessions: Arc::clone(&sessions),
        policy,
    });
    announce(&format!("http://{addr}"));
    let served = crate::edge::serve(listener, router(server), door).await;
    sessions.end_all().await;
    served
}

/// Every route, at `/` and under `/wd/hub` (the base path older clients use).
pub fn router(server: Arc<Server>) -> Router {
    let routes = routes();
    Router::new()
        .merge(routes.clone())
        .nest("/wd/hub", routes)
        .fallback(unknown_command)
        .with_state(server)
}

fn routes() -> Router<Arc<Server>> {
    use commands as c;
    Router::new()
        .route("/status", get(status))
        .route("/session", post(new_session))
        .route("/sessions", get(list_sessions))
        .route(
            "/session/{sid}",
            axum::routing::delete(delete_session).get(get_session),
        )
        .route(
            "/session/{sid}/timeouts",
            get(c::get_timeouts).post(c::set_timeouts),
        )
        .route("/session/{sid}/source", get(c::source))
        .route("/session/{sid}/screenshot", get(c::screenshot))
        .route("/session/{sid}/title", get(c::title))
        .route(
            "/session/{sid}/window",
            get(c::window).post(c::switch_window).delete(c::unsupported),
        )
        .route("/session/{sid}/window/handles", get(c::window_handles))
        .route(
            "/session/{sid}/window/rect",
            get(c::window_rect).post(c::unsupported),
        )
        .route("/session/{sid}/element", post(c::find_one))
        .route("/session/{sid}/elements", post(c::find_many))
        .route("/session/{sid}/element/active", get(c::active))
        .route(
            "/session/{sid}/element/{eid}/element",
            post(c::find_one_from),
        )
        .route(
            "/session/{sid}/element/{eid}/elements",
            post(c::find_many_from),
        )
        .route("/session/{sid}/element/{eid}/click", post(c::click))
        .route("/session/{sid}/element/{eid}/clear", post(c::clear))
        .route("/session/{sid}/element/{eid}/value", post(c::send_keys))
        .route("/session/{sid}/element/{eid}/text", get(c::text))
        .route("/session/{sid}/element/{eid}/name", get(c::tag_name))
        .route(
            "/session/{sid}/element/{eid}/attribute/{name}",
            get(c::attribute),
        )
        .route(
            "/session/{sid}/element/{eid}/property/{name}",
            get(c::property),
        )
        .route("/session/{sid}/element/{eid}/rect", get(c::rect))
        .route("/session/{sid}/element/{eid}/enabled", get(c::enabled))
        .route("/session/{sid}/element/{eid}/selected", get(c::selected))
        .route("/session/{sid}/element/{eid}/displayed", get(c::displayed))
        .route(
            "/session/{sid}/element/{eid}/screenshot",
            get(c::element_screenshot),
        )
        .route(
            "/session/{sid}/actions",
            post(c::perform_actions).delete(c::release_actions),
        )
        .route("/session/{sid}/execute/sync", post(c::execute))
        .route("/session/{sid}/execute/async", post(c::unsupported))
}

/// A command's value as the reply body `{"value": …}`.
pub fn reply(result: WdResult) -> Response {
    match result {
        Ok(value) => axum::Json(json!({ "value": value })).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The request body as JSON: empty is `{}`, anything not JSON is `invalid argument`.
pub fn body(bytes: &Bytes) -> Result<Value, WdError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(bytes).map_err(|e| {
        WdError::argument(format!(
            "the request body is not JSON ({e}); send a JSON object"
        ))
    })
}

/// The request body read as `T` (a command's typed body): what does not fit is `invalid
/// argument`, naming the field, what it held, and the body `usage` shows.
pub fn typed_body<T: serde::de::DeserializeOwned>(
    bytes: &Bytes,
    usage: &str,
) -> Result<T, WdError> {
    bodies::typed(body(bytes)?).map_err(|e| WdError::argument(format!("{e}; {usage}")))
}

impl Server {
    /// The live session `sid`, or `invalid session id`.
    pub fn session(&self, sid: &str) -> Result<Wd, WdError> {
        self.sessions.get(sid).ok_or_else(|| {
            WdError::new(
                W3c::InvalidSessionId,
                format!("no session {sid:?}: it was deleted, timed out idle, or never existed; start a new session"),
            )
        })
    }
}

async fn status(State(server): Ctx) -> Response {
    let mut status = server.sessions.status();
    status["build"] = json!({"version": env!("CARGO_PKG_VERSION"), "name": "automation"});
    reply(Ok(status))
}

async fn new_session(State(server): Ctx, bytes: Bytes) -> Response {
    reply(create(&server, &bytes).await)
}

async fn create(server: &Server, bytes: &Bytes) -> WdResult {
    let wanted = caps::read(&body(bytes)?).map_err(|(malformed, why)| {
        if malformed {
            WdError::argument(why)
        } else {
            WdError::new(
                W3c::SessionNotCreated,
                format!("no capability set matched: {why}"),
            )
        }
    })?;
    if let Some(command) = wanted.command() {
        server
            .policy
            .may_launch(command)
            .map_err(|why| WdError::new(W3c::SessionNotCreated, why.to_string()))?;
    }
    let session = server
        .sessions
        .create(wanted.mode.clone())
        .await
        .map_err(|e| match e {
            CreateError::Full { .. } => WdError::new(W3c::SessionNotCreated, e.to_string()),
            CreateError::Failed(why) => WdError::new(
                W3c::SessionNotCreated,
                format!("the target did not start: {why}"),
            ),
        })?;
    tracing::info!(session = %session.id, "new session: {}", session.describe);
    Ok(json!({
        "sessionId": session.id,
        "capabilities": caps::reply(&wanted, &session.describe),
    }))
}

async fn delete_session(State(server): Ctx, Path(sid): Path<String>) -> Response {
    if server.sessions.end(&sid).await {
        tracing::info!(session = %sid, "session deleted");
        reply(Ok(Value::Null))
    } else {
        reply(server.session(&sid).map(|_| Value::Null))
    }
}

async fn get_session(State(server): Ctx, Path(sid): Path<String>) -> Response {
    reply(
        server
            .session(&sid)
            .map(|s| json!({"sessionId": s.id, "target": s.describe})),
    )
}

async fn list_sessions(State(server): Ctx) -> Response {
    let ids: Vec<Value> = server
        .sessions
        .ids()
        .into_iter()
        .map(|id| json!({ "id": id }))
        .collect();
    reply(Ok(Value::Array(ids)))
}

async fn unknown_command(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    WdError::new(
        W3c::UnknownCommand,
        format!(
            "{method} {} is not a command of this server; docs/webdriver.md lists them",
            uri.path()
        ),
    )
    .into_response()
}
