//! Window handles: a handle per window `list_windows` reports, the one switched to, and its
//! title and rect.

use automation_core::ops::NoArgs;
use automation_core::replies::ListWindows;
use automation_core::{NodeTarget, WindowInfo};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Value, json};

use super::super::bodies::SwitchWindowBody;
use super::super::error::{W3c, WdError};
use super::super::{Ctx, Wd, typed_body};
use super::common::{Sid, record_of, rect_json, rect_of, with};
use crate::reach::sessions::lock;

/// The app's windows (`list_windows`, typed).
async fn windows(s: &Wd) -> Result<Vec<WindowInfo>, WdError> {
    s.op::<ListWindows>(NoArgs {})
        .await
        .map(|w| w.windows)
        .map_err(|e| WdError::from_op(&e, false))
}

/// A window's W3C handle: its id as the wire writes it.
fn handle(w: &WindowInfo) -> String {
    w.id.0.to_string()
}

/// The node finds and the page source are scoped to: the window switched to (its node in the
/// tree), or `None` before any switch (the whole app, as desktop drivers have it) or when the
/// app gives the window no node.
pub(super) async fn scope(s: &Wd) -> Result<Option<String>, WdError> {
    if lock(&s.state).window.is_none() {
        return Ok(None);
    }
    let w = current_window(s).await?;
    Ok(w.node.map(|n| n.to_string()))
}

/// The current window: the one switched to, else the focused one, else the first.
async fn current_window(s: &Wd) -> Result<WindowInfo, WdError> {
    let all = windows(s).await?;
    let chosen = lock(&s.state).window.clone();
    let pick = match chosen {
        Some(h) => all
            .iter()
            .find(|w| handle(w) == h)
            .cloned()
            .ok_or_else(|| {
                WdError::new(
                    W3c::NoSuchWindow,
                    format!("window {h:?} is closed; GET /window/handles lists the open ones"),
                )
            })?,
        None => all
            .iter()
            .find(|w| w.focused)
            .or_else(|| all.first())
            .cloned()
            .ok_or_else(|| WdError::new(W3c::NoSuchWindow, "the app has no window open"))?,
    };
    Ok(pick)
}

pub(in crate::reach::webdriver) async fn window(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        Ok(json!(handle(&current_window(&s).await?)))
    })
    .await
}

pub(in crate::reach::webdriver) async fn title(State(server): Ctx, Path(sid): Sid) -> Response {
    with(&server, &sid, |s| async move {
        Ok(json!(current_window(&s).await?.title))
    })
    .await
}

pub(in crate::reach::webdriver) async fn window_handles(
    State(server): Ctx,
    Path(sid): Sid,
) -> Response {
    with(&server, &sid, |s| async move {
        Ok(Value::Array(
            windows(&s)
                .await?
                .iter()
                .map(|w| json!(handle(w)))
                .collect(),
        ))
    })
    .await
}

pub(in crate::reach::webdriver) async fn switch_window(
    State(server): Ctx,
    Path(sid): Sid,
    bytes: Bytes,
) -> Response {
    with(&server, &sid, |s| async move {
        let b: SwitchWindowBody = typed_body(&bytes, SwitchWindowBody::USAGE)?;
        let h = b
            .handle
            .or(b.name)
            .ok_or_else(|| WdError::argument(SwitchWindowBody::USAGE))?;
        if !windows(&s).await?.iter().any(|w| handle(w) == h) {
            return Err(WdError::new(
                W3c::NoSuchWindow,
                format!("no window {h:?}; GET /window/handles lists the open ones"),
            ));
        }
        lock(&s.state).window = Some(h);
        Ok(Value::Null)
    })
    .await
}

pub(in crate::reach::webdriver) async fn window_rect(
    State(server): Ctx,
    Path(sid): Sid,
) -> Response {
    with(&server, &sid, |s| async move {
        let bounds = match current_window(&s).await?.node {
            Some(node) => record_of(&s, NodeTarget::Id(node), false).await?.bounds,
            None => None,
        };
        rect_of(bounds).map(rect_json)
    })
    .await
}
