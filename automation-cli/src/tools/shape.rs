//! From the target's [`Reply`] to an [`Outcome`], as the call's [`Delivery`] says: data as
//! it is, a snapshot as one text block, a screenshot as PNG bytes within its budget (or a
//! saved file), an error as the typed [`OpError`]. Nothing here knows a protocol: MCP makes a
//! result of the outcome, a workflow step reads it.

use automation_core::{ErrorCode, OpError, Reply};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde_json::{Map, Value, json};

use super::image;
use super::parse::{Delivery, ShotOptions};
use super::save::save_png;

/// What one tool call came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The op's data (an object; any other value is wrapped as `{result}`).
    Data(Value),
    /// A snapshot's reply `{tree, version, note?}`: read as one text block ([`Self::text`]).
    Snapshot(Map<String, Value>),
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
        Reply::Ok(data) => data,
    };
    match (delivery, data) {
        (Delivery::Image(shot), data) => screenshot(data, shot).unwrap_or_else(Outcome::Failed),
        (Delivery::Snapshot, Value::Object(m)) if m.contains_key("tree") => Outcome::Snapshot(m),
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
            Self::Snapshot(m) => match outline(m) {
                Some(text) => Value::String(text),
                None => Value::Object(m.clone()),
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
        let Self::Snapshot(m) = self else { return None };
        Some(outline(m).unwrap_or_else(|| serde_json::to_string(m).unwrap_or_default()))
    }
}

/// An error as data: `{code, message, hint?, candidates?, …}`.
pub fn error_value(e: &OpError) -> Value {
    serde_json::to_value(e).unwrap_or_else(|_| json!({"code": e.code, "message": e.message}))
}

/// `snapshot_tree`'s text outline, its first line carrying the tree version (and the
/// truncation note, when cut); `None` for the JSON form. The outline is what keeps a snapshot
/// near 10 tokens a node.
fn outline(reply: &Map<String, Value>) -> Option<String> {
    let tree = reply.get("tree")?.as_str()?;
    let version = reply.get("version").and_then(Value::as_u64).unwrap_or(0);
    let mut text = format!("version {version}");
    if let Some(note) = reply.get("note").and_then(Value::as_str) {
        text.push_str("; truncated: ");
        text.push_str(note);
    }
    text.push('\n');
    text.push_str(tree);
    Some(text)
}

/// The host's screenshot reply `{image: {mime, base64}, width, height, scale, …}` as the PNG
/// within `shot`'s budget, or saved where `shot` says (then its path and size as data).
fn screenshot(data: Value, shot: &ShotOptions) -> Result<Outcome, OpError> {
    let Value::Object(mut meta) = data else {
        return Err(OpError::new(
            ErrorCode::TargetFailed,
            "screenshot reply is not an object",
        ));
    };
    let image = meta.remove("image").unwrap_or(Value::Null);
    let b64 = image
        .get("base64")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let png = B64.decode(b64).map_err(|e| {
        OpError::new(
            ErrorCode::TargetFailed,
            format!("screenshot reply carries no valid base64 PNG: {e}"),
        )
    })?;
    if let Some(path) = &shot.save_to {
        let written = save_png(path, &png, shot.overwrite)?;
        meta.insert("path".into(), json!(written.display().to_string()));
        meta.insert("bytes".into(), json!(png.len()));
        return Ok(Outcome::Data(Value::Object(meta)));
    }
    let scale = meta.get("scale").and_then(Value::as_f64).unwrap_or(1.0);
    let fitted = image::fit(&png, shot.max_dimension, shot.max_bytes)
        .map_err(|e| OpError::new(ErrorCode::TargetFailed, e))?;
    if fitted.factor < 1.0 {
        let mut original = Map::new();
        original.insert(
            "width".into(),
            meta.get("width").cloned().unwrap_or(Value::Null),
        );
        original.insert(
            "height".into(),
            meta.get("height").cloned().unwrap_or(Value::Null),
        );
        original.insert("scale".into(), json!(scale));
        meta.insert("original".into(), Value::Object(original));
        meta.insert("width".into(), json!(fitted.width));
        meta.insert("height".into(), json!(fitted.height));
        meta.insert("scale".into(), json!(scale * fitted.factor));
    }
    meta.insert("mime".into(), json!("image/png"));
    Ok(Outcome::Image(Image {
        png: fitted.png,
        meta,
    }))
}
