//! The network edge both HTTP front doors share: where they may bind, who may call them, and
//! how much a client may send and how slowly.
//!
//! - Loopback by default. A session's `app` runs a command line, so a server reachable from
//!   other machines must have both a bearer token and an allow-list of commands
//!   (`--allow-app GLOB`); [`Policy::new`] refuses to start without them.
//! - On loopback, a request whose `Host` is not a loopback name is refused (a web page that
//!   rebinds its DNS name to 127.0.0.1 cannot reach the server).
//! - With a token, every request carries it: `Authorization: Bearer T`, or HTTP basic auth
//!   with T as the password (what a client given `http://user:T@host:port` sends).
//! - A request's headers must arrive within [`HEADER_TIMEOUT`] (30 s; an idle keep-alive
//!   connection is closed after as long) and its body within [`BODY_TIMEOUT`] (10 s); a body over the cap is refused (413) before it is all read.
//!
//! Connections are served by hyper-util directly rather than `axum::serve`, which sets no
//! timer and so no header-read timeout: a client sending one byte a minute would hold a
//! connection for ever.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::json;

/// How long a client may take to send a request's headers — hyper's own default. The clock
/// also runs while a keep-alive connection sits idle between requests, so it is also how long
/// an idle connection is kept: shorter, and a client pool's reuse of a connection races its
/// close more often.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a client may take to send a request's body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request body (a `send keys` of a long text, an `execute` script's arguments).
pub const MAX_BODY: usize = 1024 * 1024;

/// Who may call the server and what sessions may start.
#[derive(Debug, Clone)]
pub struct Policy {
    token: Option<String>,
    allow_apps: Vec<glob::Pattern>,
    /// `Host` values accepted on loopback (empty: any, the server is bound beyond loopback).
    hosts: Vec<String>,
}

impl Policy {
    /// The policy for a server on `addr`, or why it must not start: beyond loopback it needs
    /// both `token` and at least one `allow_app` glob.
    pub fn new(
        addr: SocketAddr,
        token: Option<String>,
        allow_app: &[String],
    ) -> Result<Self, String> {
        let token = token.filter(|t| !t.is_empty());
        let allow_apps = allow_app
            .iter()
            .map(|g| {
                glob::Pattern::new(g)
                    .map_err(|e| format!("--allow-app {g:?} is not a glob pattern: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let loopback = addr.ip().is_loopback();
        if !loopback && (token.is_none() || allow_apps.is_empty()) {
            let missing = match (token.is_none(), allow_apps.is_empty()) {
                (true, true) => {
                    "a bearer token (--auth-token T) and an allow-list (--allow-app GLOB)"
                }
                (true, false) => "a bearer token (--auth-token T)",
                _ => "an allow-list of app command lines (--allow-app GLOB)",
            };
            return Err(format!(
                "refusing to listen on {addr}: beyond loopback a session's app capability runs a command on this machine, so the server needs {missing}; or bind 127.0.0.1"
            ));
        }
        let hosts = if loopback {
            let port = addr.port();
            ["127.0.0.1", "localhost", "[::1]"]
                .iter()
                .flat_map(|h| [format!("{h}:{port}"), (*h).to_string()])
                .collect()
        } else {
            Vec::new()
        };
        Ok(Self {
            token,
            allow_apps,
            hosts,
        })
    }

    /// Whether a session may launch `command` (any command on loopback without a list).
    pub fn may_launch(&self, command: &str) -> Result<(), String> {
        if self.allow_apps.is_empty() || self.allow_apps.iter().any(|p| p.matches(command.trim())) {
            Ok(())
        } else {
            let globs: Vec<&str> = self.allow_apps.iter().map(glob::Pattern::as_str).collect();
            Err(format!(
                "the app {command:?} is not in the server's allow-list ({}); ask for an allowed command line, or restart the server with another --allow-app",
                globs.join(", ")
            ))
        }
    }

    fn refusal(&self, headers: &HeaderMap) -> Option<(StatusCode, String)> {
        if !self.hosts.is_empty() {
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or_default();
            if !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
                return Some((
                    StatusCode::FORBIDDEN,
                    format!(
                        "the Host header {host:?} is not this loopback server's; call it at 127.0.0.1"
                    ),
                ));
            }
        }
        if let Some(token) = &self.token
            && !carries(headers, token)
        {
            return Some((
                StatusCode::UNAUTHORIZED,
                "this server needs its token: send `Authorization: Bearer T`, or put it in the URL as http://user:T@host:port".into(),
            ));
        }
        None
    }
}

/// Whether the request's `Authorization` carries `token` (bearer, or basic's password).
fn carries(headers: &HeaderMap, token: &str) -> bool {
    let Some(auth) = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
    else {
        return false;
    };
    let given = if let Some(t) = auth.strip_prefix("Bearer ") {
        t.trim().to_string()
    } else if let Some(b) = auth.strip_prefix("Basic ") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(b.trim())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&decoded).into_owned();
        text.split_once(':')
            .map(|(_, p)| p.to_string())
            .unwrap_or_default()
    } else {
        return false;
    };
    // Constant time: a timing difference must not reveal how much of a guess was right.
    use subtle::ConstantTimeEq as _;
    given.len() == token.len() && bool::from(given.as_bytes().ct_eq(token.as_bytes()))
}

/// A refusal as the JSON both front doors' clients read: W3C's `{value: {error, message}}`.
pub fn refuse(status: StatusCode, error: &str, message: &str) -> Response {
    (
        status,
        axum::Json(json!({"value": {"error": error, "message": message, "stacktrace": ""}})),
    )
        .into_response()
}

/// The middleware: the policy's checks, then the body read whole within its time and cap.
pub async fn guard(State(policy): State<Arc<Policy>>, request: Request, next: Next) -> Response {
    if let Some((status, message)) = policy.refusal(request.headers()) {
        return refuse(status, "unknown error", &message);
    }
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await
    {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "invalid argument",
                &format!("the request body is over {MAX_BODY} bytes (or was cut off); send less"),
            );
        }
        Err(_) => {
            return refuse(
                StatusCode::REQUEST_TIMEOUT,
                "timeout",
                &format!(
                    "the request body did not arrive within {} s; send it at once",
                    BODY_TIMEOUT.as_secs()
                ),
            );
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Binds `addr`.
pub async fn bind(addr: SocketAddr) -> Result<(tokio::net::TcpListener, SocketAddr), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("no local address: {e}"))?;
    Ok((listener, local))
}

/// Serves `app` behind `policy` on `listener` until the process ends.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    policy: Policy,
) -> Result<(), String> {
    let app = app.layer(axum::middleware::from_fn_with_state(
        Arc::new(policy),
        guard,
    ));
    loop {
        let (stream, _peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors and the like: back off rather than spin.
                tracing::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut builder =
                hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
            builder
                .http1()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let io = hyper_util::rt::TokioIo::new(stream);
            if let Err(e) = builder.serve_connection_with_upgrades(io, service).await {
                tracing::debug!("connection ended: {e}");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_loopback_needs_a_token_and_an_allow_list() {
        let any: SocketAddr = "0.0.0.0:4723".parse().unwrap();
        let e = Policy::new(any, None, &[]).unwrap_err();
        assert!(
            e.contains("--auth-token") && e.contains("--allow-app"),
            "{e}"
        );
        assert!(Policy::new(any, Some("t".into()), &[]).is_err());
        assert!(Policy::new(any, None, &["gtk3-*".into()]).is_err());
        let ok = Policy::new(any, Some("t".into()), &["gtk3-*".into()]).unwrap();
        assert!(ok.may_launch("gtk3-widget-factory").is_ok());
        assert!(
            ok.may_launch("rm -rf /")
                .unwrap_err()
                .contains("allow-list")
        );
        let local: SocketAddr = "127.0.0.1:4723".parse().unwrap();
        assert!(
            Policy::new(local, None, &[])
                .unwrap()
                .may_launch("anything")
                .is_ok()
        );
    }

    #[test]
    fn the_token_is_read_from_bearer_or_basic_auth() {
        let mut h = HeaderMap::new();
        assert!(!carries(&h, "s3cret"));
        h.insert(header::AUTHORIZATION, "Bearer s3cret".parse().unwrap());
        assert!(carries(&h, "s3cret"));
        h.insert(header::AUTHORIZATION, "Bearer s3cres".parse().unwrap());
        assert!(!carries(&h, "s3cret"));
        let basic = base64::engine::general_purpose::STANDARD.encode("me:s3cret");
        h.insert(
            header::AUTHORIZATION,
            format!("Basic {basic}").parse().unwrap(),
        );
        assert!(carries(&h, "s3cret"));
    }
}
