//! From the target's [`Reply`] to an [`Outcome`], as the call's [`Delivery`] says: data as
//! it is, a snapshot as one text block, a screenshot (the target's PNG bytes, never base64
//! here) within its budget or as a saved file, an error as the typed [`OpError`]. Nothing here knows a protocol: MCP makes a
//! result of the outcome, a workflow step reads it.

use automation_core::replies::Snapshot;
use automation_core::{ErrorCode, OpError, Reply};
use serde_json::{Map, Value, json};

use super::image;
use super::parse::{Delivery, ShotOptions};
use super::save::save_to;

/// What one tool call came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The op's data (an object; any other value is wrapped as `{result}`).
    Data(Value),
    /// A snapshot's reply with its outline (`tree`): read as one text block ([`Self::text`]).
    Snapshot(Snapshot),
    /// A screenshot within its budget.
    Image(Image),
    /// The op failed (or its arguments were refused).
    Failed(OpError),
}

/// A screenshot as returned: the PNG and what describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// The PNG, as fitted to the call's budget.
    pub png: Vec<u8>,
    /// `{width, height, scale, mime, original?, …}`.
    pub meta: Map<String, Value>,
}

/// Shapes a reply for `delivery`.
pub fn shape(reply: Reply, delivery: &Delivery) -> Outcome {
    let data = match reply {
        Reply::Err(e) => return Outcome::Failed(e),
        Reply::Image(image) => {
            let default = ShotOptions::default();
            let shot = match delivery {
                Delivery::Image(shot) => shot,
                Delivery::Data | Delivery::Snapshot => &default,
            };
            return screenshot(image, shot).unwrap_or_else(Outcome::Failed);
        }
        Reply::Ok(data) => data,
    };
    match (delivery, data) {
        // Every backend answers a screenshot as `Reply::Image` (a bridge's client types the
        // app's JSON); data here is a backend's bug, not an image to decode.
        (Delivery::Image(_), _) => Outcome::Failed(OpError::new(
            ErrorCode::TargetFailed,
            "the screenshot reply carries no image",
        )),
        (Delivery::Snapshot, Value::Object(m)) if m.contains_key("tree") => {
            match serde_json::from_value::<Snapshot>(Value::Object(m)) {
                Ok(snapshot) => Outcome::Snapshot(snapshot),
                Err(e) => Outcome::Failed(OpError::new(
                    ErrorCode::TargetFailed,
                    format!("the snapshot_tree reply is not of its declared type: {e}"),
                )),
            }
        }
        (_, Value::Object(m)) => Outcome::Data(Value::Object(m)),
        (_, other) => Outcome::Data(json!({ "result": other })),
    }
}

impl Outcome {
    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        matches!(self, Self::Failed(_))
    }

    /// The outcome as one value, as a step's `<id>_result` sees it: the data, the snapshot's
    /// text outline (its JSON records with `format: json`), an image's metadata, or the error
    /// `{code, message, hint?, candidates?}`.
    pub fn value(&self) -> Value {
        match self {
            Self::Data(v) => v.clone(),
            Self::Snapshot(s) => match outline(s) {
                Some(text) => Value::String(text),
                None => serde_json::to_value(s).unwrap_or(Value::Null),
            },
            Self::Image(i) => Value::Object(i.meta.clone()),
            Self::Failed(e) => error_value(e),
        }
    }

    /// [`Self::value`], by value (no copy of the data).
    pub fn into_value(self) -> Value {
        match self {
            Self::Data(v) => v,
            Self::Image(i) => Value::Object(i.meta),
            other => other.value(),
        }
    }

    /// A snapshot as the one text block a reader gets: the outline with a first line of
    /// version and truncation note, or the JSON records (sent once, not also as data).
    pub fn text(&self) -> Option<String> {
        let Self::Snapshot(s) = self else { return None };
        Some(outline(s).unwrap_or_else(|| serde_json::to_string(s).unwrap_or_default()))
    }
}

/// An error as data: `{code, message, hint?, candidates?, …}`.
pub fn error_value(e: &OpError) -> Value {
    serde_json::to_value(e).unwrap_or_else(|_| json!({"code": e.code, "message": e.message}))
}

/// `snapshot_tree`'s text outline, its first line carrying the tree version (and the
/// truncation note, when cut); `None` for the JSON form. The outline is what keeps a snapshot
/// near 10 tokens a node.
fn outline(reply: &Snapshot) -> Option<String> {
    let tree = reply.tree.as_deref()?;
    let mut text = format!("version {}", reply.version);
    if let Some(note) = &reply.note {
        text.push_str("; truncated: ");
        text.push_str(note);
    }
    text.push('\n');
    text.push_str(tree);
    Some(text)
}

/// A screenshot as the PNG within `shot`'s budget, or saved where `shot` says (then its path
/// and size as data).
fn screenshot(image: automation_core::Image, shot: &ShotOptions) -> Result<Outcome, OpError> {
    let mut meta = image.meta();
    let png = image.png;
    if let Some(path) = &shot.save_to {
        let written = save_to(path, &png, shot.overwrite)?;
        meta.insert("path".into(), json!(written.display().to_string()));
        meta.insert("bytes".into(), json!(png.len()));
        return Ok(Outcome::Data(Value::Object(meta)));
    }
    let scale = image.scale;
    let fitted = image::fit(&png, shot.max_dimension, shot.max_bytes)
        .map_err(|e| OpError::new(ErrorCode::TargetFailed, e.to_string()))?;
    if fitted.factor < 1.0 {
        let mut original = Map::new();
        original.insert("width".into(), json!(image.width));
        original.insert("height".into(), json!(image.height));
        original.insert("scale".into(), json!(scale));
        meta.insert("original".into(), Value::Object(original));
        meta.insert("width".into(), json!(fitted.width));
        meta.insert("height".into(), json!(fitted.height));
        meta.insert("scale".into(), json!(scale * fitted.factor));
    }
    meta.insert("mime".into(), json!(automation_core::image::PNG_MIME));
    Ok(Outcome::Image(Image {
        png: fitted.png,
        meta,
    }))
}
