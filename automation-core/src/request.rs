//! Request and reply envelopes.
//!
//! Request: `{"op", "settle"?}` where `op` is `"list_windows"` (a bare name) or
//! `{"find_node": {"role": "Button"}}`. Unknown fields are refused everywhere. A multi-window
//! app's windows are subtrees of its one tree: `list_windows` names each window's node, and
//! `snapshot_tree {root}` or a selector reaches into it; no op takes a window id.
//! Reply: `{"status":"ok","data":…}` or `{"status":"err","code":…,"message":…,"hint"?,"candidates"?}`;
//! a screenshot's `data` is its [`Image`]'s JSON form (the PNG as base64), the only place
//! its bytes are base64.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::catalog::{Op, ReplyKind};
use crate::error::{ErrorCode, OpError};
use crate::image::Image;
use crate::settle::SettleSpec;

impl Serialize for Op {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let args = self.args_json();
        let empty = args.as_object().is_some_and(|o| o.is_empty());
        if empty {
            s.serialize_str(self.name())
        } else {
            let mut map = serde_json::Map::new();
            map.insert(self.name().to_string(), args);
            map.serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for Op {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Op::from_json(Value::deserialize(d)?).map_err(|e| de::Error::custom(e.message))
    }
}

impl Op {
    /// Parses `"name"` or `{"name": {args}}`.
    pub fn from_json(value: Value) -> Result<Op, OpError> {
        match value {
            Value::String(name) => Op::from_parts(&name, Value::Object(Default::default())),
            Value::Object(map) if map.len() == 1 => {
                let Some((name, args)) = map.into_iter().next() else {
                    return Err(shape_error());
                };
                let args = if args.is_null() {
                    Value::Object(Default::default())
                } else {
                    args
                };
                Op::from_parts(&name, args)
            }
            _ => Err(shape_error()),
        }
    }
}

fn shape_error() -> OpError {
    OpError::new(
        ErrorCode::BadRequest,
        "`op` must be an op name or an object with exactly one op name as its key",
    )
    .with_hint(
        r#"e.g. "op": "snapshot_tree" or "op": {"find_node": {"role": "Button", "label": "Save"}}"#,
    )
}

/// A window id (decimal string on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WindowId(pub u64);

impl Serialize for WindowId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for WindowId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let key = crate::NodeKey::deserialize(d)?;
        Ok(WindowId(key.0))
    }
}

/// One request to `execute`.
///
/// ```
/// use automation_core::Request;
/// let r = Request::from_json(r#"{"op": {"find_node": {"label": "Save"}}}"#).unwrap();
/// assert_eq!(r.op.name(), "find_node");
/// let e = Request::from_json(r#"{"op": {"find_node": {"lable": "Save"}}}"#).unwrap_err();
/// assert!(e.message.contains("lable"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The op.
    pub op: Op,
    /// How to settle after a mutating op.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<SettleSpec>,
    /// Also answer a durable `selector` for the node the op names (taken before it acts), or
    /// for `find_node`'s match; `selector_note` says why when there is none.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub with_selector: bool,
}

impl Request {
    /// A request for one op with default settle.
    pub fn new(op: Op) -> Self {
        Self {
            op,
            settle: None,
            with_selector: false,
        }
    }

    /// Parses and validates a request: strict fields, and `settle` only on ops that accept it.
    pub fn from_json(text: &str) -> Result<Request, OpError> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            OpError::new(
                ErrorCode::BadRequest,
                format!("request is not valid JSON: {e}"),
            )
            .with_hint(r#"send {"op": <op>, "settle"?: {...}}"#)
        })?;
        Self::from_value(value)
    }

    /// [`Request::from_json`] on an already-parsed value.
    pub fn from_value(value: Value) -> Result<Request, OpError> {
        let Value::Object(mut map) = value else {
            return Err(
                OpError::new(ErrorCode::BadRequest, "request must be a JSON object")
                    .with_hint(r#"send {"op": <op>, "settle"?: {...}}"#),
            );
        };
        let op = match map.remove("op") {
            Some(op) => Op::from_json(op)?,
            None => {
                return Err(
                    OpError::new(ErrorCode::BadRequest, "request has no `op` field")
                        .with_hint(r#"e.g. {"op": "snapshot_tree"}"#),
                );
            }
        };
        let settle = match map.remove("settle") {
            None | Some(Value::Null) => None,
            Some(v) => Some(serde_json::from_value::<SettleSpec>(v).map_err(|e| {
                OpError::new(ErrorCode::BadRequest, format!("settle: {e}")).with_hint(
                    "settle fields: clock_millis, max_anim_frames, layout_after, settle_timeout_ms, quiet_ms",
                )
            })?),
        };
        let with_selector = match map.remove("with_selector") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => b,
            Some(other) => {
                return Err(OpError::new(
                    ErrorCode::BadRequest,
                    format!("with_selector must be true or false, got {other}"),
                )
                .with_hint(r#"e.g. "with_selector": true"#));
            }
        };
        if let Some(field) = map.keys().next() {
            let hint = if field == "window_id" {
                "no op takes a window id: every window is a subtree of the app's tree; take its node from list_windows and pass it as snapshot_tree's root"
            } else {
                r#"send {"op": <op>, "settle"?: {...}}"#
            };
            return Err(OpError::new(
                ErrorCode::BadRequest,
                format!(
                    "unknown request field `{field}`, expected `op`, `settle` or `with_selector`"
                ),
            )
            .with_hint(hint));
        }
        let request = Request {
            op,
            settle,
            with_selector,
        };
        request.check_settle()?;
        Ok(request)
    }

    /// Refuses a settle on an op that does not accept one (it would be silently ignored).
    pub fn check_settle(&self) -> Result<(), OpError> {
        if self.settle.is_some() && !self.op.spec().accepts_settle {
            return Err(OpError::new(
                ErrorCode::BadRequest,
                format!("{} does not accept `settle`", self.op.name()),
            )
            .with_hint("remove `settle`; only ops that change the app (and screenshot) settle"));
        }
        Ok(())
    }

    /// The settle spec to use: the request's, or the default.
    pub fn settle_or_default(&self) -> SettleSpec {
        self.settle.unwrap_or_default()
    }
}

/// The reply to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Success with data.
    Ok(Value),
    /// Success with a screenshot (the ops whose catalog entry says [`ReplyKind::Image`]): the
    /// PNG's bytes, base64 only in the reply's JSON form.
    Image(Image),
    /// Failure.
    Err(OpError),
}

impl Reply {
    /// An error reply.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Reply {
        Reply::Err(OpError::new(code, message))
    }

    /// `true` for a success (`Ok` or `Image`).
    pub fn is_ok(&self) -> bool {
        !matches!(self, Reply::Err(_))
    }

    /// The data of an `Ok` reply (an `Image` reply has no JSON data: see [`Reply::image`]).
    pub fn data(&self) -> Option<&Value> {
        match self {
            Reply::Ok(v) => Some(v),
            Reply::Image(_) | Reply::Err(_) => None,
        }
    }

    /// The screenshot of an `Image` reply.
    pub fn image(&self) -> Option<&Image> {
        match self {
            Reply::Image(i) => Some(i),
            Reply::Ok(_) | Reply::Err(_) => None,
        }
    }

    /// The error of an `Err` reply.
    pub fn err(&self) -> Option<&OpError> {
        match self {
            Reply::Ok(_) | Reply::Image(_) => None,
            Reply::Err(e) => Some(e),
        }
    }

    /// The reply as a `Result`; an image as its JSON form (base64, what a wire carries: take
    /// [`Reply::image`] for the bytes).
    pub fn into_result(self) -> Result<Value, OpError> {
        match self {
            Reply::Ok(v) => Ok(v),
            Reply::Image(i) => serde_json::to_value(&i).map_err(|e| {
                OpError::new(
                    ErrorCode::TargetFailed,
                    format!("the screenshot did not serialize: {e}"),
                )
            }),
            Reply::Err(e) => Err(e),
        }
    }

    /// This reply as one to a request whose op answers `kind`. A reply read from a wire does
    /// not say which kind it is (its JSON is the same `{"status": "ok", "data": …}`), so its
    /// client types it with the request's op: a screenshot's JSON becomes its bytes, once,
    /// here. A screenshot reply that is no image (not a PNG, not base64) is `TARGET_FAILED`
    /// naming the field.
    pub fn typed(self, kind: ReplyKind) -> Reply {
        match (self, kind) {
            (Reply::Ok(data), ReplyKind::Image) => match serde_json::from_value::<Image>(data) {
                Ok(image) => Reply::Image(image),
                Err(e) => Reply::Err(
                    OpError::new(
                        ErrorCode::TargetFailed,
                        format!("the app's screenshot reply is not an image: {e}"),
                    )
                    .with_hint("the app answered screenshot with something else than {image: {mime: \"image/png\", base64}, width, height, scale}; check the app's host"),
                ),
            },
            (other, _) => other,
        }
    }
}

impl From<Image> for Reply {
    fn from(image: Image) -> Self {
        Reply::Image(image)
    }
}

impl From<Result<Value, OpError>> for Reply {
    fn from(r: Result<Value, OpError>) -> Self {
        match r {
            Ok(v) => Reply::Ok(v),
            Err(e) => Reply::Err(e),
        }
    }
}

#[derive(Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum WireReply {
    Ok {
        #[serde(default)]
        data: Value,
    },
    Err(OpError),
}

#[derive(Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum WireReplyRef<'a> {
    Ok { data: DataRef<'a> },
    Err(&'a OpError),
}

/// A success's data: JSON as it is, or a screenshot in its JSON form.
#[derive(Serialize)]
#[serde(untagged)]
enum DataRef<'a> {
    Value(&'a Value),
    Image(&'a Image),
}

impl Serialize for Reply {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Reply::Ok(data) => WireReplyRef::Ok {
                data: DataRef::Value(data),
            }
            .serialize(s),
            Reply::Image(image) => WireReplyRef::Ok {
                data: DataRef::Image(image),
            }
            .serialize(s),
            Reply::Err(e) => WireReplyRef::Err(e).serialize(s),
        }
    }
}

/// The JSON envelope, read without knowing the request: a success is `Ok` with its data as
/// JSON (an image's too; [`Reply::typed`] makes it an [`Reply::Image`]).
impl<'de> Deserialize<'de> for Reply {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match WireReply::deserialize(d)? {
            WireReply::Ok { data } => Reply::Ok(data),
            WireReply::Err(e) => Reply::Err(e),
        })
    }
}
