//! The one network edge every HTTP server of the binary stands behind — WebDriver, MCP over
//! HTTP, the inspector and `show-report`: who may call, how much they may send and how
//! slowly, and how many connections may be open.
//!
//! - [`rules`]: a request's verdict from its headers and its peer — the `Host`, the peer's
//!   user, `Origin` (and `Sec-Fetch-Site`), the token, a POST's content type — and CORS for
//!   the origins a user allowed;
//! - [`peer`]: the owner of a loopback TCP connection, from the kernel's socket table;
//! - [`conns`]: the open connections — a cap below the descriptor limit, idle ones closed,
//!   the idlest evicted at the cap, 503 when every one is busy;
//! - here: binding, and serving a router behind all three, one connection at a time with
//!   hyper (a request's headers within [`conns::IDLE`], its body within [`BODY_TIMEOUT`] and
//!   the door's cap).
//!
//! A refusal is JSON both kinds of client read: `{code, message, hint}` and, for WebDriver
//! clients, W3C's `{value: {error, message}}`; and one warning line in the server's log.

pub mod conns;
pub mod peer;
pub mod rules;

use crate::error::HttpError;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::io::AsyncWriteExt as _;

use conns::{Conn, Conns, Tracked};
use rules::{Facts, Peer, Refusal, Rules, TokenIn};

/// How long a client may take to send a request's body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// One server's door: its name (in logs and refusals), its rules and its body cap.
#[derive(Debug, Clone)]
pub struct Door {
    /// What it is: "WebDriver server", "MCP server", "inspector", "report server".
    pub name: &'static str,
    /// Who may call it.
    pub rules: Rules,
    /// The largest request body.
    pub max_body: usize,
}

impl Door {
    /// A server of an API (WebDriver, MCP) on `addr`: on loopback, its own user through a
    /// loopback `Host`; the `token` if one is set; pages only from `allow_origins`; JSON
    /// POSTs.
    pub fn api(
        name: &'static str,
        addr: SocketAddr,
        token: Option<String>,
        allow_origins: &[String],
        max_body: usize,
    ) -> Result<Self, HttpError> {
        let origins = allow_origins
            .iter()
            .map(|o| rules::parse_origin(o).map_err(HttpError::Config))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            name,
            rules: Rules {
                hosts: if addr.ip().is_loopback() {
                    rules::loopback_hosts(addr.port())
                } else {
                    Vec::new()
                },
                uid: effective_uid(),
                origins,
                token: token
                    .filter(|t| !t.is_empty())
                    .map(|t| (t, TokenIn::Header)),
                json_posts: true,
            },
            max_body,
        })
    }

    /// A loopback server of pages (the inspector, the report) on port `port`: its own user,
    /// a loopback `Host`, its own pages' origin, the `token` its printed URL carries (if any),
    /// JSON POSTs.
    pub fn pages(name: &'static str, port: u16, token: Option<String>, max_body: usize) -> Self {
        Self {
            name,
            rules: Rules {
                hosts: rules::loopback_hosts(port),
                uid: effective_uid(),
                origins: rules::own_origins(port),
                token: token.map(|t| (t, TokenIn::HeaderOrQuery)),
                json_posts: true,
            },
            max_body,
        }
    }

    /// One request, past the rules, to `app`.
    async fn handle(&self, app: Router, request: Request, peer: Peer) -> Response {
        let (parts, body) = request.into_parts();
        let facts = Facts {
            method: &parts.method,
            headers: &parts.headers,
            query: parts.uri.query(),
            peer,
        };
        let pass = match self.rules.check(&facts) {
            Ok(p) => p,
            Err(r) => return self.refuse(&r, &parts.method, parts.uri.path(), &parts.headers),
        };
        if parts.method == Method::OPTIONS
            && let Some(origin) = &pass.cors
        {
            let mut response = StatusCode::NO_CONTENT.into_response();
            Rules::preflight_headers(origin, response.headers_mut());
            return response;
        }
        let bytes =
            match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, self.max_body))
                .await
            {
                Ok(Ok(b)) => b,
                Ok(Err(_)) => {
                    return refusal(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "BODY_TOO_LARGE",
                        "invalid argument",
                        &format!(
                            "the request body is over {} bytes (or was cut off)",
                            self.max_body
                        ),
                        "send less",
                    );
                }
                Err(_) => {
                    return refusal(
                        StatusCode::REQUEST_TIMEOUT,
                        "BODY_TIMEOUT",
                        "timeout",
                        &format!(
                            "the request body did not arrive within {} s",
                            BODY_TIMEOUT.as_secs()
                        ),
                        "send it at once",
                    );
                }
            };
        if let Err(r) = self.rules.check_body(&facts, bytes.len()) {
            return self.refuse(&r, &parts.method, parts.uri.path(), &parts.headers);
        }
        let request = Request::from_parts(parts, Body::from(bytes));
        let mut app = app;
        let Ok(mut response) = tower_service::Service::call(&mut app, request).await;
        if let Some(origin) = &pass.cors {
            Rules::cors_headers(origin, response.headers_mut());
        }
        response
    }

    /// A refusal: logged in one line, answered as JSON.
    fn refuse(&self, r: &Refusal, method: &Method, path: &str, headers: &HeaderMap) -> Response {
        let origin = headers
            .get(header::ORIGIN)
            .map(|o| String::from_utf8_lossy(o.as_bytes()).into_owned());
        tracing::warn!(
            door = self.name,
            code = r.code(),
            origin = origin.as_deref().unwrap_or("-"),
            "refused {method} {path}: {}",
            r.message(self.name)
        );
        refusal(
            r.status(),
            r.code(),
            r.w3c(),
            &r.message(self.name),
            &r.hint(),
        )
    }
}

/// The refusal body: the kit's `{code, message, hint}` and W3C's `{value: {error, message}}`.
pub fn refusal(status: StatusCode, code: &str, w3c: &str, message: &str, hint: &str) -> Response {
    (status, axum::Json(refusal_body(code, w3c, message, hint))).into_response()
}

fn refusal_body(code: &str, w3c: &str, message: &str, hint: &str) -> serde_json::Value {
    json!({
        "code": code,
        "message": message,
        "hint": hint,
        "value": {"error": w3c, "message": format!("{message}; {hint}"), "stacktrace": ""},
    })
}

fn effective_uid() -> u32 {
    // SAFETY: geteuid(2) cannot fail.
    unsafe { libc::geteuid() }
}

/// Binds `addr`; the listener and the address it got (port 0 picks one).
pub async fn bind(addr: SocketAddr) -> Result<(tokio::net::TcpListener, SocketAddr), HttpError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| HttpError::Listen(format!("cannot listen on {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| HttpError::Listen(format!("no local address: {e}")))?;
    Ok((listener, local))
}

/// Serves `app` behind `door` on `listener` until the process ends.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    door: Door,
) -> Result<(), HttpError> {
    let door = Arc::new(door);
    let conns = Conns::new();
    tracing::debug!(door = door.name, cap = conns.cap(), "serving");
    loop {
        let (stream, peer_addr) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors and the like: back off rather than spin.
                tracing::warn!(door = door.name, "accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Some(conn) = conns.admit() else {
            tokio::spawn(full(stream, door.name, conns.cap()));
            continue;
        };
        let peer = match stream.local_addr() {
            Ok(local) => peer::of(peer_addr, local),
            Err(_) => Peer::Unknown,
        };
        let (door, conns, app) = (Arc::clone(&door), Arc::clone(&conns), app.clone());
        tokio::spawn(async move {
            connection(stream, app, door, Arc::clone(&conn), peer).await;
            conns.remove(&conn);
        });
    }
}

/// Every open connection busy: 503, and closed.
async fn full(mut stream: tokio::net::TcpStream, door: &'static str, cap: usize) {
    tracing::warn!(door, "refused a connection: all {cap} are busy");
    let body = refusal_body(
        "SERVER_BUSY",
        "unknown error",
        &format!("the {door} has {cap} connections open, each with a request in flight"),
        "retry in a moment",
    )
    .to_string();
    let reply = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(reply.as_bytes())).await;
}

/// One connection, served until it ends, goes idle for [`conns::IDLE`], or is evicted.
async fn connection(
    stream: tokio::net::TcpStream,
    app: Router,
    door: Arc<Door>,
    conn: Arc<Conn>,
    peer: Peer,
) {
    let service = {
        let conn = Arc::clone(&conn);
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let busy = conn.begin();
            let (door, app) = (Arc::clone(&door), app.clone());
            async move {
                let response = door.handle(app, request.map(Body::new), peer).await;
                Ok::<_, Infallible>(response.map(|b| Body::new(Tracked::new(b, busy))))
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(conns::IDLE)
        .keep_alive(true);
    let served = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
    tokio::pin!(served);
    let mut closing: Option<tokio::time::Instant> = None;
    loop {
        tokio::select! {
            ended = served.as_mut() => {
                if let Err(e) = ended {
                    tracing::debug!("connection ended: {e}");
                }
                return;
            }
            () = conn.close.notified(), if closing.is_none() => {
                served.as_mut().graceful_shutdown();
                closing = Some(tokio::time::Instant::now());
            }
            () = tokio::time::sleep(Duration::from_secs(1)) => {
                let idle = conn.idle_for();
                match closing {
                    None if idle.is_some_and(|d| d >= conns::IDLE) => {
                        served.as_mut().graceful_shutdown();
                        closing = Some(tokio::time::Instant::now());
                    }
                    // Asked to close and still idle: drop it (a half-sent request's headers).
                    Some(at) if idle.is_some() && at.elapsed() >= Duration::from_secs(2) => return,
                    _ => {}
                }
            }
        }
    }
}
