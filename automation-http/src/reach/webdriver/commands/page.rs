//! The page: its source (the window switched to, or the whole app), screenshots, and the
//! answer for what desktop apps do not have.

use automation_core::ops;
use automation_core::replies::Screenshot;
use axum::extract::{Path, State};
use axum::response::Response;
use base64::Engine as _;
use serde_json::{Value, json};

use super::super::error::{W3c, WdError, WdResult};
use super::super::{Ctx, Wd, reply};
use super::common::{Sid, SidEid, node, op, page_in, with};
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

/// The window's pixels (or an element's), whole: a WebDriver client wants the full image,
/// not MCP's budgeted thumbnail.
async fn shot(s: &Wd, element: Option<&str>) -> WdResult {
    let args = ops::Screenshot {
        node: element.map(node).transpose()?,
    };
    let image = op::<Screenshot>(s, args, element.is_some()).await?;
    Ok(json!(
        base64::engine::general_purpose::STANDARD.encode(&image.png)
    ))
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
