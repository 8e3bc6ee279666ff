//! `automation show-report DIR`: the report served on loopback (a random port) for a browser
//! that will not open `file://` pages. Only the report's own files are served: `index.html`
//! and `img/<name>.png`, regular files, never through a symlink. Where the images lie inside
//! the report is the writer's (`automation_runner::report_page::IMAGES`), passed in by the
//! caller that knows both.

use crate::error::HttpError;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::loopback::{self, Server};

/// Largest file served.
const MAX_FILE: u64 = 64 * 1024 * 1024;

/// A report's directory, and the directory of its images inside it.
struct Report {
    dir: PathBuf,
    images: &'static str,
}

/// The report in `dir` (its images in `dir/images`), served on `127.0.0.1:port` (0: a free
/// port).
pub async fn bind(dir: PathBuf, images: &'static str, port: u16) -> Result<Server, HttpError> {
    if !dir.join("index.html").is_file() {
        return Err(HttpError::Config(format!(
            "{} holds no report (no index.html); write one with `automation run … --report {}`",
            dir.display(),
            dir.display()
        )));
    }
    let bound = loopback::bind(port).await?;
    let url = format!("http://{}/", bound.addr);
    let app = Router::new()
        .route("/", get(index))
        .route("/index.html", get(index))
        .route(&format!("/{images}/{{name}}"), get(image))
        .with_state(Arc::new(Report { dir, images }));
    Ok(Server::new("report server", url, bound, app, None, 0))
}

fn file(path: &std::path::Path, mime: &'static str) -> Response {
    use automation_wire::fsguard::{Follow, read_regular};
    match read_regular(path, MAX_FILE, Follow::No) {
        Ok(bytes) => ([(header::CONTENT_TYPE, mime)], bytes).into_response(),
        Err(_) => (StatusCode::NOT_FOUND, "not in this report").into_response(),
    }
}

async fn index(State(report): State<Arc<Report>>) -> Response {
    file(&report.dir.join("index.html"), "text/html; charset=utf-8")
}

async fn image(State(report): State<Arc<Report>>, Path(name): Path<String>) -> Response {
    let plain = name.strip_suffix(".png").is_some_and(|stem| {
        !stem.is_empty()
            && stem
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
    });
    if !plain {
        return (StatusCode::NOT_FOUND, "not in this report").into_response();
    }
    file(&report.dir.join(report.images).join(name), "image/png")
}
