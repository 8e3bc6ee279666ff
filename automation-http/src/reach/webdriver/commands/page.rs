//! The page: its source (the window switched to, or the whole app), screenshots, and the
//! answer for what desktop apps do not have.

use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Value, json};

use super::super::error::{W3c, WdError, WdResult};
use super::super::{Ctx, Wd, reply};
use super::common::{SHOT_BYTES, SHOT_DIMENSION, Sid, SidEid, data, page_in, with};
use super::windows::scope;

/// The page source of the session's app: the window switched to, or the whole app before any
/// switch.
async fn page(s: &Wd) -> Result<String, WdError> {
    let root = scope(s).await?;
    Ok(page_in(s, root.as_deref()).await?.xml())
}

pub(in crate::reach::webdriver) async fn source(State(server): Ctx, Path(sid): Sid) -> Response {
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

pub(in crate::reach::webdriver) async fn screenshot(
    State(server): Ctx,
    Path(sid): Sid,
) -> Response {
    with(&server, &sid, |s| async move { shot(&s, None).await }).await
}

pub(in crate::reach::webdriver) async fn element_screenshot(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
) -> Response {
    with(&server, &sid, |s| async move { shot(&s, Some(&eid)).await }).await
}

pub(in crate::reach::webdriver) async fn unsupported(
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> Response {
    reply(Err(WdError::new(
        W3c::UnsupportedOperation,
        format!(
            "{method} {} is not supported for desktop apps here (windows are the app's to place, scripts run as `automation: <op>` through execute/sync)",
            uri.path()
        ),
    )))
}
