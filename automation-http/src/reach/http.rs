//! What both session servers (WebDriver, MCP over HTTP) add to the shared network edge
//! ([`crate::edge`]): where they may bind, and which command lines a session may launch.
//!
//! - Loopback by default. A session's `app` runs a command line, so a server reachable from
//!   other machines must have both a bearer token and an allow-list of commands
//!   (`--allow-app GLOB`); [`Policy::new`] refuses to start without them.
//! - Everything about who may call — the loopback `Host`, the peer's user, `Origin`, the
//!   token, the content type, timeouts, connection caps — is the edge's, the same for every
//!   HTTP server of the binary.

use crate::error::HttpError;
use std::net::SocketAddr;

use crate::edge::Door;

/// The largest request body (a `send keys` of a long text, an `execute` script's arguments).
pub const MAX_BODY: usize = 1024 * 1024;

/// How a session server is reached: its token, and the web origins a user trusts.
#[derive(Debug, Clone, Default)]
pub struct Access {
    /// The bearer token, if any.
    pub token: Option<String>,
    /// Globs the launched command must match (required beyond loopback).
    pub allow_app: Vec<String>,
    /// Web origins whose pages may call the server (`--allow-origin`).
    pub allow_origin: Vec<String>,
}

/// What sessions may start.
#[derive(Debug, Clone)]
pub struct Policy {
    allow_apps: Vec<glob::Pattern>,
}

impl Policy {
    /// The policy for a server on `addr`, or why it must not start: beyond loopback it needs
    /// both a token and at least one `allow_app` glob.
    pub fn new(addr: SocketAddr, access: &Access) -> Result<Self, HttpError> {
        let has_token = access.token.as_ref().is_some_and(|t| !t.is_empty());
        let allow_apps = access
            .allow_app
            .iter()
            .map(|g| {
                glob::Pattern::new(g).map_err(|e| {
                    HttpError::Config(format!("--allow-app {g:?} is not a glob pattern: {e}"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if !addr.ip().is_loopback() && (!has_token || allow_apps.is_empty()) {
            let missing = match (!has_token, allow_apps.is_empty()) {
                (true, true) => {
                    "a bearer token (--auth-token T) and an allow-list (--allow-app GLOB)"
                }
                (true, false) => "a bearer token (--auth-token T)",
                _ => "an allow-list of app command lines (--allow-app GLOB)",
            };
            return Err(HttpError::Config(format!(
                "refusing to listen on {addr}: beyond loopback a session's app capability runs a command on this machine, so the server needs {missing}; or bind 127.0.0.1"
            )));
        }
        Ok(Self { allow_apps })
    }

    /// Whether a session may launch `command` (any command on loopback without a list).
    pub fn may_launch(&self, command: &str) -> Result<(), HttpError> {
        if self.allow_apps.is_empty() || self.allow_apps.iter().any(|p| p.matches(command.trim())) {
            Ok(())
        } else {
            let globs: Vec<&str> = self.allow_apps.iter().map(glob::Pattern::as_str).collect();
            Err(HttpError::NotAllowed(format!(
                "the app {command:?} is not in the server's allow-list ({}); ask for an allowed command line, or restart the server with another --allow-app",
                globs.join(", ")
            )))
        }
    }
}

/// The door of a session server bound at `addr` (the port it got).
pub fn door(name: &'static str, addr: SocketAddr, access: &Access) -> Result<Door, HttpError> {
    Door::api(
        name,
        addr,
        access.token.clone(),
        &access.allow_origin,
        MAX_BODY,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_loopback_needs_a_token_and_an_allow_list() {
        let any: SocketAddr = "0.0.0.0:4723".parse().unwrap();
        let access = |token: Option<&str>, apps: &[&str]| Access {
            token: token.map(str::to_string),
            allow_app: apps.iter().map(|a| (*a).to_string()).collect(),
            allow_origin: Vec::new(),
        };
        let e = Policy::new(any, &access(None, &[])).unwrap_err();
        assert!(matches!(e, HttpError::Config(_)), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("--auth-token") && e.contains("--allow-app"),
            "{e}"
        );
        assert!(Policy::new(any, &access(Some("t"), &[])).is_err());
        assert!(Policy::new(any, &access(None, &["gtk3-*"])).is_err());
        let ok = Policy::new(any, &access(Some("t"), &["gtk3-*"])).unwrap();
        assert!(ok.may_launch("gtk3-widget-factory").is_ok());
        let refused = ok.may_launch("rm -rf /").unwrap_err();
        assert!(matches!(&refused, HttpError::NotAllowed(m) if m.contains("allow-list")));
        let local: SocketAddr = "127.0.0.1:4723".parse().unwrap();
        assert!(
            Policy::new(local, &access(None, &[]))
                .unwrap()
                .may_launch("anything")
                .is_ok()
        );
    }
}
