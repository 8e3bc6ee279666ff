//! A web server of pages on 127.0.0.1 (the inspector's, `show-report`'s): bound before it
//! serves, so the URL printed is one that answers, and served behind the binary's one edge
//! ([`crate::edge`]): its own user, a loopback `Host`, its own pages' origin, its token.

use crate::error::HttpError;
use std::net::SocketAddr;

use axum::Router;

use crate::edge::{self, Door};

/// A bound listener and its address.
pub struct Bound {
    listener: tokio::net::TcpListener,
    /// Where it listens (127.0.0.1 and the port given, or a free one for 0).
    pub addr: SocketAddr,
}

/// Binds `127.0.0.1:port` (0: a free port).
pub async fn bind(port: u16) -> Result<Bound, HttpError> {
    let (listener, addr) = edge::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
    Ok(Bound { listener, addr })
}

/// A server ready to run: its URL and its routes on a bound listener.
pub struct Server {
    /// What to open.
    pub url: String,
    door: Door,
    bound: Bound,
    app: Router,
}

impl Server {
    /// `app` on `bound`, announced as `url`; `name` names it in logs and refusals; `token`,
    /// if any, is the one its URL carries; `max_body` caps a request's body.
    pub fn new(
        name: &'static str,
        url: String,
        bound: Bound,
        app: Router,
        token: Option<String>,
        max_body: usize,
    ) -> Self {
        let door = Door::pages(name, bound.addr.port(), token, max_body);
        Self {
            url,
            door,
            bound,
            app,
        }
    }

    /// Serves until the process ends.
    pub async fn serve(self) -> Result<(), HttpError> {
        edge::serve(self.bound.listener, self.app, self.door).await
    }
}
