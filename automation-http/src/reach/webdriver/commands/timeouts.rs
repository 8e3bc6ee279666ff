//! Timeouts: the implicit wait a find honours, and the page-load and script timeouts kept.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Value, json};

use super::super::error::WdError;
use super::super::{Ctx, body};
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
        let b = body(&bytes)?;
        let Some(m) = b.as_object() else {
            return Err(WdError::argument(
                "timeouts take an object like {\"implicit\": 5000}",
            ));
        };
        let read = |k: &str| -> Result<Option<u64>, WdError> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_u64()
                    .filter(|n| *n < (1u64 << 53))
                    .map(Some)
                    .ok_or_else(|| {
                        WdError::argument(format!(
                            "timeout {k:?} must be a whole number of milliseconds ≥ 0, got {v}"
                        ))
                    }),
            }
        };
        let (implicit, page, script) = (read("implicit")?, read("pageLoad")?, read("script")?);
        let mut st = lock(&s.state);
        if let Some(v) = implicit {
            st.implicit_ms = v;
        }
        if let Some(v) = page {
            st.page_load_ms = v;
        }
        if let Some(v) = script {
            st.script_ms = v;
        }
        Ok(Value::Null)
    })
    .await
}
