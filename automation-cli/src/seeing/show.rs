//! `automation show-report DIR`: the report served on loopback (a random port) for a browser
//! that will not open `file://` pages. Only the report's own files are served: `index.html`
//! and `img/<name>.png`, regular files, never through a symlink.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::report::IMAGES;

/// Largest file served.
const MAX_FILE: u64 = 64 * 1024 * 1024;

/// The report server, bound: its URL and the server to run.
pub struct ShowReport {
    /// What to open: `http://127.0.0.1:PORT/`.
    pub url: String,
    listener: tokio::net::TcpListener,
    app: Router,
}

impl ShowReport {
    /// Binds `127.0.0.1:port` (0: a free port) over the report in `dir`.
    pub async fn bind(dir: PathBuf, port: u16) -> Result<Self, String> {
        if !dir.join("index.html").is_file() {
            return Err(format!(
                "{} holds no report (no index.html); write one with `automation run … --report {}`",
                dir.display(),
                dir.display()
            ));
        }
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
            .await
            .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("no local address: {e}"))?;
        let app = Router::new()
            .route("/", get(index))
            .route("/index.html", get(index))
            .route("/img/{name}", get(image))
            .with_state(Arc::new(dir));
        Ok(Self {
            url: format!("http://{addr}/"),
            listener,
            app,
        })
    }

    /// Serves until the process ends.
    pub async fn serve(self) -> Result<(), String> {
        axum::serve(self.listener, self.app)
            .await
            .map_err(|e| format!("the report server stopped: {e}"))
    }
}

fn file(path: &std::path::Path, mime: &'static str) -> Response {
    use automation_wire::fsguard::{Follow, read_regular};
    match read_regular(path, MAX_FILE, Follow::No) {
        Ok(bytes) => ([(header::CONTENT_TYPE, mime)], bytes).into_response(),
        Err(_) => (StatusCode::NOT_FOUND, "not in this report").into_response(),
    }
}

async fn index(State(dir): State<Arc<PathBuf>>) -> Response {
    file(&dir.join("index.html"), "text/html; charset=utf-8")
}

async fn image(State(dir): State<Arc<PathBuf>>, Path(name): Path<String>) -> Response {
    let plain = name.strip_suffix(".png").is_some_and(|stem| {
        !stem.is_empty()
            && stem
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
    });
    if !plain {
        return (StatusCode::NOT_FOUND, "not in this report").into_response();
    }
    file(&dir.join(IMAGES).join(name), "image/png")
}
