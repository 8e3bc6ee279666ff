//! A web server on 127.0.0.1 (the inspector's, `show-report`'s): bound before it serves, so
//! the URL printed is one that answers.

use std::net::SocketAddr;

use axum::Router;

/// A bound listener and its address.
pub struct Bound {
    listener: tokio::net::TcpListener,
    /// Where it listens (127.0.0.1 and the port given, or a free one for 0).
    pub addr: SocketAddr,
}

/// Binds `127.0.0.1:port` (0: a free port).
pub async fn bind(port: u16) -> Result<Bound, String> {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("no local address: {e}"))?;
    Ok(Bound { listener, addr })
}

/// A server ready to run: its URL and its routes on a bound listener.
pub struct Server {
    /// What to open.
    pub url: String,
    what: &'static str,
    bound: Bound,
    app: Router,
}

impl Server {
    /// `app` on `bound`, announced as `url`; `what` names it in an error.
    pub fn new(what: &'static str, url: String, bound: Bound, app: Router) -> Self {
        Self {
            url,
            what,
            bound,
            app,
        }
    }

    /// Serves until the process ends.
    pub async fn serve(self) -> Result<(), String> {
        axum::serve(self.bound.listener, self.app)
            .await
            .map_err(|e| format!("the {} stopped: {e}", self.what))
    }
}
