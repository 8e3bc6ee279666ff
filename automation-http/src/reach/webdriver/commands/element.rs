//! Element commands, the actions API and `execute/sync`.

use std::time::Duration;

use automation_core::ops::{self, FieldValue, PointerAction};
use automation_core::replies::{
    FocusNode, InjectKey, InjectPointer, InvokeAction, SetValue, TypeText,
};
use automation_core::snapshot::ToggledState;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Value, json};

use super::super::bodies::{ExecuteBody, SendKeysBody};
use super::super::error::{W3c, WdError, WdResult};
use super::super::input::{self, ELEMENT_KEY, KeyOp, Step};
use super::super::{Ctx, Wd, body, source, typed_body};
use super::common::{
    Sid, SidEid, SidEidName, named_tool, node, op, record, record_fields, rect_json, rect_of, with,
};
use crate::reach::sessions::lock;

pub(in crate::reach::webdriver) async fn click(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
) -> Response {
    with(&server, &sid, |s| async move {
        let args = ops::InvokeAction {
            node: node(&eid)?,
            action: "click".into(),
        };
        op::<InvokeAction>(&s, args, true).await?;
        Ok(Value::Null)
    })
    .await
}

pub(in crate::reach::webdriver) async fn clear(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
) -> Response {
    with(&server, &sid, |s| async move {
        let args = ops::SetValue {
            node: node(&eid)?,
            value: FieldValue::Text(String::new()),
        };
        op::<SetValue>(&s, args, true).await?;
        Ok(Value::Null)
    })
    .await
}

pub(in crate::reach::webdriver) async fn send_keys(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
    bytes: Bytes,
) -> Response {
    with(&server, &sid, |s| async move {
        let b: SendKeysBody = typed_body(&bytes, SendKeysBody::USAGE)?;
        let text = match (b.text, b.value) {
            (Some(t), _) => t,
            (None, Some(parts)) => parts.concat(),
            (None, None) => return Err(WdError::argument(SendKeysBody::USAGE)),
        };
        for key_op in input::send_keys(&node(&eid)?, &text) {
            match key_op {
                KeyOp::Type(a) => op::<TypeText>(&s, a, true).await.map(drop)?,
                KeyOp::Focus(a) => op::<FocusNode>(&s, a, true).await.map(drop)?,
                KeyOp::Press(a) => op::<InjectKey>(&s, a, true).await.map(drop)?,
            }
        }
        Ok(Value::Null)
    })
    .await
}

pub(in crate::reach::webdriver) async fn text(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        // A node with a value (a field, even empty; a label's text) reads as it, else its name.
        let t = r
            .value
            .or(r.label)
            .or(r.text.map(|t| t.document_text))
            .unwrap_or_default();
        Ok(json!(t))
    })
    .await
}

pub(in crate::reach::webdriver) async fn tag_name(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        Ok(json!(source::element_name(&r.role)))
    })
    .await
}

pub(in crate::reach::webdriver) async fn attribute(
    State(server): Ctx,
    Path((sid, eid, name)): SidEidName,
) -> Response {
    with(&server, &sid, |s| async move {
        attribute_of(&s, &eid, &name).await
    })
    .await
}

/// An attribute as the page source gives it (`name`, `value`, `checked`, …; `id` and `text`
/// are read as `accessibility-id` and `value`), else the record's field of that name.
async fn attribute_of(s: &Wd, eid: &str, name: &str) -> WdResult {
    let r = record(s, eid).await?;
    let wanted = name.to_ascii_lowercase();
    let from_source = source::attributes(&r)
        .into_iter()
        .find(|(k, _)| {
            *k == wanted
                || (wanted == "id" && *k == "accessibility-id")
                || (wanted == "text" && *k == "value")
        })
        .map(|(_, v)| json!(v));
    // Else the record's field by its wire name (a W3C name is a string from the client).
    let fields = match serde_json::to_value(&r) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    Ok(from_source.unwrap_or_else(|| match fields.get(name) {
        Some(Value::String(v)) => json!(v),
        Some(v @ (Value::Bool(_) | Value::Number(_))) => json!(v.to_string()),
        _ => Value::Null,
    }))
}

pub(in crate::reach::webdriver) async fn property(
    State(server): Ctx,
    Path((sid, eid, name)): SidEidName,
) -> Response {
    with(&server, &sid, |s| async move {
        let r = record_fields(&s, &eid).await?;
        Ok(r.get(&name).cloned().unwrap_or(Value::Null))
    })
    .await
}

pub(in crate::reach::webdriver) async fn rect(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        rect_of(r.bounds).map(rect_json)
    })
    .await
}

pub(in crate::reach::webdriver) async fn enabled(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        Ok(json!(!r.disabled))
    })
    .await
}

pub(in crate::reach::webdriver) async fn selected(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
) -> Response {
    with(&server, &sid, |s| async move {
        let r = record(&s, &eid).await?;
        let on = r.toggled == Some(ToggledState::Bool(true)) || r.selected == Some(true);
        Ok(json!(on))
    })
    .await
}

pub(in crate::reach::webdriver) async fn displayed(
    State(server): Ctx,
    Path((sid, eid)): SidEid,
) -> Response {
    with(
        &server,
        &sid,
        |s| async move { displayed_of(&s, &eid).await },
    )
    .await
}

/// Shown: not hidden, with an area on screen.
async fn displayed_of(s: &Wd, eid: &str) -> WdResult {
    let r = record(s, eid).await?;
    let sized = r.bounds.is_some_and(|b| b.width > 0.0 && b.height > 0.0);
    Ok(json!(sized && !r.hidden))
}

// ---- actions ----

pub(in crate::reach::webdriver) async fn perform_actions(
    State(server): Ctx,
    Path(sid): Sid,
    bytes: Bytes,
) -> Response {
    with(&server, &sid, |s| async move {
        for step in input::steps(body(&bytes)?)? {
            run_step(&s, step).await?;
        }
        Ok(Value::Null)
    })
    .await
}

async fn run_step(s: &Wd, step: Step) -> Result<(), WdError> {
    match step {
        Step::Pause(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
        Step::Move {
            element,
            relative,
            x,
            y,
        } => {
            let to = if let Some(eid) = element {
                let b = rect_of(record(s, &eid).await?.bounds)?;
                input::Point {
                    x: b.x + b.width / 2.0 + x,
                    y: b.y + b.height / 2.0 + y,
                }
            } else if relative {
                let p = lock(&s.state).pointer;
                input::Point {
                    x: p.x + x,
                    y: p.y + y,
                }
            } else {
                input::Point { x, y }
            };
            let args = ops::InjectPointer {
                x: Some(to.x),
                y: Some(to.y),
                action: PointerAction::Move,
                ..Default::default()
            };
            op::<InjectPointer>(s, args, false).await?;
            lock(&s.state).pointer = to;
        }
        Step::Button { down, button } => {
            let p = lock(&s.state).pointer;
            let args = ops::InjectPointer {
                x: Some(p.x),
                y: Some(p.y),
                action: if down {
                    PointerAction::Down
                } else {
                    PointerAction::Up
                },
                button,
                ..Default::default()
            };
            op::<InjectPointer>(s, args, false).await?;
            let mut st = lock(&s.state);
            st.buttons.retain(|b| *b != button);
            if down {
                st.buttons.push(button);
            }
        }
        Step::Key { down, key } => {
            if let Some(a) = input::key_call(down, key) {
                op::<InjectKey>(s, a, false).await?;
                let mut st = lock(&s.state);
                st.keys.retain(|k| *k != key);
                if down {
                    st.keys.push(key);
                }
            }
        }
    }
    Ok(())
}

pub(in crate::reach::webdriver) async fn release_actions(
    State(server): Ctx,
    Path(sid): Sid,
) -> Response {
    with(&server, &sid, |s| async move {
        let (buttons, keys) = {
            let mut st = lock(&s.state);
            (
                std::mem::take(&mut st.buttons),
                std::mem::take(&mut st.keys),
            )
        };
        for key in keys.into_iter().rev() {
            run_step(&s, Step::Key { down: false, key }).await?;
        }
        for button in buttons {
            run_step(
                &s,
                Step::Button {
                    down: false,
                    button,
                },
            )
            .await?;
        }
        Ok(Value::Null)
    })
    .await
}

// ---- execute ----

/// Element references anywhere in a script's arguments become the refs ops take.
fn unwrap_elements(v: Value) -> Value {
    match v {
        Value::Object(m) => match m.get(ELEMENT_KEY).and_then(Value::as_str) {
            Some(r) => json!(r),
            None => Value::Object(
                m.into_iter()
                    .map(|(k, v)| (k, unwrap_elements(v)))
                    .collect(),
            ),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(unwrap_elements).collect()),
        other => other,
    }
}

pub(in crate::reach::webdriver) async fn execute(
    State(server): Ctx,
    Path(sid): Sid,
    bytes: Bytes,
) -> Response {
    with(&server, &sid, |s| async move {
        let b: ExecuteBody = typed_body(&bytes, ExecuteBody::USAGE)?;
        let script = b.script.as_str();
        if let Some(atom) = selenium_atom(script) {
            return atom_call(&s, atom, b.args.as_ref()).await;
        }
        let Some(op) = script.trim().strip_prefix("automation:").map(str::trim) else {
            return Err(WdError::new(
                W3c::UnsupportedOperation,
                format!("script {script:?}: there is no JavaScript here; scripts are `automation: <op>` with the op's arguments as the first arg, e.g. automation: set_value"),
            ));
        };
        if automation_session::tools::lookup(op).is_none() {
            return Err(WdError::argument(format!("`automation: {op}` names no op; `automation tools` lists them")));
        }
        let a = match b.args {
            None | Some(Value::Null) => json!({}),
            Some(Value::Array(a)) if a.is_empty() => json!({}),
            Some(Value::Array(a)) if a.len() == 1 && a[0].is_object() => unwrap_elements(a[0].clone()),
            Some(other) => {
                return Err(WdError::argument(format!("execute's args must be [ {{the op's arguments}} ], got {other}")));
            }
        };
        named_tool(&s, op, a).await
    })
    .await
}

/// The two JavaScript atoms the official Selenium clients send through `execute/sync` for
/// `get_attribute` and `is_displayed` (they mark them with a leading comment); answered
/// as the attribute and displayed commands are, so those calls work from Selenium too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Atom {
    GetAttribute,
    IsDisplayed,
}

fn selenium_atom(script: &str) -> Option<Atom> {
    let s = script.trim_start();
    if s.starts_with("/* getAttribute */") {
        Some(Atom::GetAttribute)
    } else if s.starts_with("/* isDisplayed */") {
        Some(Atom::IsDisplayed)
    } else {
        None
    }
}

async fn atom_call(s: &Wd, atom: Atom, args: Option<&Value>) -> WdResult {
    let args = args.and_then(Value::as_array).cloned().unwrap_or_default();
    let eid = args
        .first()
        .and_then(|e| e.get(ELEMENT_KEY))
        .and_then(Value::as_str)
        .ok_or_else(|| WdError::argument("the atom's first argument must be an element"))?;
    match atom {
        Atom::GetAttribute => {
            let name = args.get(1).and_then(Value::as_str).ok_or_else(|| {
                WdError::argument("getAttribute's second argument must be the attribute's name")
            })?;
            attribute_of(s, eid, name).await
        }
        Atom::IsDisplayed => displayed_of(s, eid).await,
    }
}
