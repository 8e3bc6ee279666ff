//! Timeouts: the implicit wait a find honours, and the page-load and script timeouts kept.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Value, json};

use super::super::bodies::{Millis, TimeoutsBody};
use super::super::{Ctx, typed_body};
use super::common::{Sid, with};
use crate::reach::sessions::lock;

pub(in crate::reach::webdriver) async fn get_timeouts(
    State(server): Ctx,
    Path(sid): Sid,
) -> Response {
    with(&server, &sid, |s| async move {
        let st = lock(&s.state);
        Ok(json!({"implicit": st.implicit_ms, "pageLoad": st.page_load_ms, "script": st.script_ms}))
    })
    .await
}

pub(in crate::reach::webdriver) async fn set_timeouts(
    State(server): Ctx,
    Path(sid): Sid,
    bytes: Bytes,
) -> Response {
    with(&server, &sid, |s| async move {
        let b: TimeoutsBody = typed_body(&bytes, TimeoutsBody::USAGE)?;
        let (implicit, page, script) = (b.implicit, b.page_load, b.script);
        let mut st = lock(&s.state);
        if let Some(Millis(v)) = implicit {
            st.implicit_ms = v;
        }
        if let Some(Millis(v)) = page {
            st.page_load_ms = v;
        }
        if let Some(Millis(v)) = script {
            st.script_ms = v;
        }
        Ok(Value::Null)
    })
    .await
}
