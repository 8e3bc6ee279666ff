//! Every op's reply as a type. The catalog (`catalog.rs`) declares each op's reply beside its
//! arguments; an in-process caller (the WebDriver door, the inspector, the runner, the audit)
//! builds an op from its typed arguments and reads its reply as that type: no tool name, no
//! `json!` arguments, no digging in a `Value` by field name. JSON is made only where a reply
//! crosses a wire (MCP, the bridge, the CLI's output).
//!
//! An op that changes the app answers a [`Done`]: its own reply and what came after it (the
//! settle, the version, the app's exit). In debug builds `execute` reads every reply back
//! through its declared type and fails the op when the JSON holds what the type does not
//! ([`check_shape`]), so the types and the replies cannot drift apart unseen.

mod acted;
mod read;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Op;
use crate::error::{ErrorCode, OpError};
use crate::image::Image;
use crate::node_ref::Selector;
use crate::request::{Reply, Request};
use crate::snapshot::SemanticNode;

pub use crate::catalog::typed::*;
pub use acted::{
    Acted, After, At, ClockAdvanced, Done, Dragged, Flung, KeyPressed, LongPressed, Nothing,
    Pinched, PointerCancelled, PointerSent, Settled, TouchSample, Touched, TypedText, Waited,
};
pub use read::{
    Announced, Announcements, Asserted, FoundNode, LiveRegion, LiveRegions, Overlay, Overlays,
    PointerList, Slots, Snapshot, ToolkitRecord, Windows,
};

/// An op whose reply has a declared type.
pub trait TypedOp {
    /// Its arguments (the catalog's type for it).
    type Args;
    /// What it answers.
    type Reply: FromReply;
    /// Its wire name.
    const NAME: &'static str;
    /// The op, built from its arguments.
    fn op(args: Self::Args) -> Op;

    /// Its reply, as its type: the op's error as it is, and a reply that is not of the
    /// declared type as `TARGET_FAILED` naming the op (an old bridge on the other side).
    fn decode(reply: Reply) -> Result<Self::Reply, OpError> {
        Self::Reply::from_reply(Self::NAME, reply)
    }

    /// The request for it that also asks for the node's durable selector (`with_selector`);
    /// decode its reply with [`Self::decode_selected`].
    fn request_with_selector(args: Self::Args) -> Request {
        let mut request = Request::new(Self::op(args));
        request.with_selector = true;
        request
    }

    /// The reply to [`Self::request_with_selector`]: the reply and the selector beside it.
    fn decode_selected(reply: Reply) -> Result<WithSelector<Self::Reply>, OpError>
    where
        Self::Reply: DeserializeOwned,
    {
        WithSelector::from_reply(Self::NAME, reply)
    }
}

/// A reply type: how it is read from the target's [`Reply`].
pub trait FromReply: Sized + Serialize {
    /// The reply of op `name` as this type; a reply of another shape is `TARGET_FAILED`.
    fn from_reply(name: &str, reply: Reply) -> Result<Self, OpError>;
}

/// A reply that is JSON data (`Reply::Ok`), read by serde.
fn from_data<T: DeserializeOwned>(name: &str, reply: Reply) -> Result<T, OpError> {
    match reply {
        Reply::Ok(value) => serde_json::from_value(value).map_err(|e| undeclared(name, e)),
        Reply::Err(e) => Err(e),
        Reply::Image(_) => Err(OpError::new(
            ErrorCode::TargetFailed,
            format!("{name} answered an image"),
        )),
    }
}

/// `TARGET_FAILED`: op `name` answered JSON its declared type does not read (`why`).
fn undeclared(name: &str, why: impl std::fmt::Display) -> OpError {
    OpError::new(
        ErrorCode::TargetFailed,
        format!("the {name} reply is not of its declared type: {why}"),
    )
    .with_hint("the app's side speaks another version of the kit: update both")
}

macro_rules! data_replies {
    ($($t:ty),* $(,)?) => {$(
        impl FromReply for $t {
            fn from_reply(name: &str, reply: Reply) -> Result<Self, OpError> {
                from_data(name, reply)
            }
        }
    )*};
}

data_replies!(
    SemanticNode,
    FoundNode,
    Windows,
    Snapshot,
    Asserted,
    PointerList,
    LiveRegions,
    Announcements,
    Overlays,
    ToolkitRecord,
);

impl<R: DeserializeOwned + Serialize> FromReply for Done<R> {
    fn from_reply(name: &str, reply: Reply) -> Result<Self, OpError> {
        let Reply::Ok(data) = reply else {
            return from_data(name, reply);
        };
        let done = Self::deserialize(&data).map_err(|e| undeclared(name, e))?;
        if done.reply.is_none() && done.after.app_exited.is_none() {
            // Flattened, the op's own type fails silently: read it alone to say what did not fit.
            from_data::<R>(name, Reply::Ok(data))?;
            return Err(undeclared(name, "neither its own fields nor an app exit"));
        }
        Ok(done)
    }
}

impl FromReply for Image {
    fn from_reply(name: &str, reply: Reply) -> Result<Self, OpError> {
        match reply {
            Reply::Image(image) => Ok(image),
            Reply::Err(e) => Err(e),
            Reply::Ok(_) => Err(OpError::new(
                ErrorCode::TargetFailed,
                format!("{name} answered data, not an image"),
            )),
        }
    }
}

impl<R: DeserializeOwned + Serialize> FromReply for WithSelector<R> {
    fn from_reply(name: &str, reply: Reply) -> Result<Self, OpError> {
        from_data(name, reply)
    }
}

/// A reply with the durable selector of the node the op named (asked with
/// [`TypedOp::request_with_selector`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WithSelector<R> {
    /// The op's reply.
    #[serde(flatten)]
    pub reply: R,
    /// The selector beside it.
    #[serde(flatten)]
    pub selected: Selected,
}

/// The durable selector a reply asked `with_selector` carries beside the op's own fields;
/// read alone, it leaves the rest of the reply unread.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Selected {
    /// The node's durable selector, taken before the op acted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<Selector>,
    /// Why there is no selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector_note: Option<String>,
}

/// The node a changing op's reply names, read alone whatever the op (the runner's evidence
/// outlines it): the other fields differ from op to op.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ActedOn {
    /// The node acted on, when the reply names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<crate::refs::RefKey>,
}

/// Reads a reply's JSON through op `name`'s declared reply type and writes it back: `Err`
/// says what the JSON holds that the type does not (or lacks that it needs). A `null` field
/// and an absent one are the same to a reader, and so are `1` and `1.0`.
pub fn check_shape(name: &str, data: &Value) -> Result<(), String> {
    crate::catalog::reply_shape(name, data)
}

/// [`check_shape`] for one reply type.
pub(crate) fn round_trip<R: FromReply>(name: &str, data: &Value) -> Result<(), String> {
    let typed = R::from_reply(name, Reply::Ok(data.clone())).map_err(|e| e.message)?;
    let back = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    let (want, got) = (normal(data), normal(&back));
    if want == got {
        return Ok(());
    }
    Err(format!(
        "the {name} reply holds what its declared type does not: {}",
        first_difference(&want, &got, String::new())
    ))
}

/// Nulls dropped from objects, numbers as f64.
fn normal(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), normal(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normal).collect()),
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        other => other.clone(),
    }
}

/// Where two JSON values first differ, as a path and the two values.
fn first_difference(want: &Value, got: &Value, at: String) -> String {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let path = format!("{at}/{k}");
                match b.get(k) {
                    Some(w) if w == v => {}
                    Some(w) => return first_difference(v, w, path),
                    None => return format!("`{path}` ({v}) is not in the type"),
                }
            }
            match b.keys().find(|k| !a.contains_key(*k)) {
                Some(k) => format!("`{at}/{k}` is in the type, not in the reply"),
                None => format!("`{at}` differs"),
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find(|(_, (x, y))| x != y)
            .map_or_else(
                || format!("`{at}` differs"),
                |(i, (x, y))| first_difference(x, y, format!("{at}/{i}")),
            ),
        _ => format!("`{at}` is {want} in the reply, {got} read through the type"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::NodeArgs;
    use crate::refs::RefKey;

    #[test]
    fn a_typed_op_builds_its_catalog_variant() {
        let op = ReadNode::op(NodeArgs {
            node: RefKey(1).into(),
        });
        assert_eq!(op.name(), ReadNode::NAME);
        let op = Settle::op(crate::ops::NoArgs {});
        assert_eq!(op.name(), Settle::NAME);
    }

    #[test]
    fn a_reply_of_another_shape_is_a_typed_error_naming_the_op() {
        let e = FindNode::decode(Reply::Ok(serde_json::json!({"node": 3}))).unwrap_err();
        assert_eq!(e.code, ErrorCode::TargetFailed);
        assert!(e.message.contains("find_node"), "{}", e.message);
        let e = ReadNode::decode(Reply::Err(OpError::new(ErrorCode::NotFound, "gone")));
        assert_eq!(e.unwrap_err().code, ErrorCode::NotFound);
        let e = InjectPointer::decode(Reply::Ok(serde_json::json!({"x": 1}))).unwrap_err();
        assert_eq!(e.code, ErrorCode::TargetFailed);
    }

    #[test]
    fn an_action_reply_reads_its_fields_and_its_settle_and_a_selector_rides_beside_a_record() {
        let done = InvokeAction::decode(Reply::Ok(serde_json::json!({
            "node": "e4", "action": "click", "via": "pointer", "clicked_at": {"x": 1, "y": 2},
            "settled": {"waited_ms": 40, "first_effect_ms": null, "still_changing": false},
            "version": 9
        })))
        .unwrap();
        let acted = done.reply.clone().unwrap();
        assert_eq!(acted.node, Some(RefKey(4)));
        assert_eq!(acted.via.as_deref(), Some("pointer"));
        assert_eq!(acted.action.as_deref(), Some("click"));
        assert_eq!(acted.clicked_at, Some(crate::input::Point::new(1.0, 2.0)));
        assert_eq!(done.after.version, Some(9));
        assert_eq!(done.after.effect, None);
        assert!(matches!(
            done.after.settled,
            Some(Settled::Real { waited_ms: 40, .. })
        ));
        let key = InjectKey::decode(Reply::Ok(serde_json::json!({"key": "a", "held_keys": 0})));
        assert_eq!(key.unwrap().into_reply().unwrap().held_keys, 0);

        let read = ReadNode::decode_selected(Reply::Ok(serde_json::json!({
            "id": "e2", "role": "Button", "label": "Save", "disabled": false, "focused": false,
            "actions": ["click"], "children": [],
            "selector": {"role": "Button", "label": "Save"}
        })))
        .unwrap();
        assert_eq!(read.reply.label.as_deref(), Some("Save"));
        assert_eq!(
            read.selected.selector.unwrap().label.as_deref(),
            Some("Save")
        );
        assert!(read.selected.selector_note.is_none());
    }

    #[test]
    fn an_op_that_ended_the_app_answers_how_it_ended() {
        let done = InvokeAction::decode(Reply::Ok(serde_json::json!({
            "app_exited": {"status": 0}
        })))
        .unwrap();
        assert_eq!(done.after.app_exited.map(|e| e.status), Some(Some(0)));
        let done = InjectPointer::decode(Reply::Ok(serde_json::json!({
            "app_exited": {"status": 0}
        })))
        .unwrap();
        assert_eq!(done.into_reply().unwrap_err().code, ErrorCode::AppGone);
    }

    #[test]
    fn the_shape_check_names_a_field_the_type_does_not_hold() {
        let ok = serde_json::json!({"key": "a", "held_keys": 1, "settled": {"frames": 2, "advanced_ms": 33, "still_animating": false}, "version": 3});
        assert_eq!(check_shape("inject_key", &ok), Ok(()));
        let mut extra = ok.clone();
        extra["pressed_at"] = serde_json::json!(5);
        let e = check_shape("inject_key", &extra).unwrap_err();
        assert!(e.contains("/pressed_at"), "{e}");
        let e = check_shape("assert_node", &serde_json::json!({"passed": "yes"})).unwrap_err();
        assert!(e.contains("assert_node"), "{e}");
        // A null and an absent field are one; an integer and its float are one.
        let found = serde_json::json!({"node": null, "count": 0, "hint": "try", "candidates": []});
        assert_eq!(check_shape("find_node", &found), Ok(()));
        assert_eq!(
            check_shape("scroll", &serde_json::json!({"x": 10, "y": 2.5})),
            Ok(())
        );
    }

    #[test]
    fn a_screenshot_is_an_image_and_data_in_its_place_is_an_error() {
        let png = Image::new(vec![1, 2, 3], 2, 1, 1.0);
        assert_eq!(Screenshot::decode(Reply::Image(png.clone())).unwrap(), png);
        let e = Screenshot::decode(Reply::Ok(serde_json::json!({}))).unwrap_err();
        assert_eq!(e.code, ErrorCode::TargetFailed);
        assert!(e.message.contains("screenshot"), "{}", e.message);
    }
}
