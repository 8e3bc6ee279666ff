//! Ops with a declared reply type. An in-process caller (the WebDriver door, the inspector)
//! builds such an op from its typed arguments and gets its reply as that type: no tool name,
//! no `json!` arguments, no digging in a `Value` by field name. JSON is made only where a reply
//! crosses a wire (MCP, the bridge, the CLI's output).
//!
//! Each typed op is declared once below, beside its catalog variant and arguments (the
//! compiler checks the pairing: `op` builds the catalog's variant from those arguments).
//! Ops not listed here still answer JSON (`Reply::Ok(Value)`), for now.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Candidate, ErrorCode, OpError};
use crate::image::Image;
use crate::node_ref::Selector;
use crate::ops::NodeArgs;
use crate::refs::RefKey;
use crate::request::{Reply, Request};
use crate::snapshot::SemanticNode;
use crate::target::WindowInfo;
use crate::{Op, ops};

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
        Reply::Ok(value) => serde_json::from_value(value).map_err(|e| {
            OpError::new(
                ErrorCode::TargetFailed,
                format!("the {name} reply is not of its declared type: {e}"),
            )
            .with_hint("the app's side speaks another version of the kit: update both")
        }),
        Reply::Err(e) => Err(e),
        Reply::Image(_) => Err(OpError::new(
            ErrorCode::TargetFailed,
            format!("{name} answered an image"),
        )),
    }
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

data_replies!(SemanticNode, FoundNode, Windows, Snapshot, Acted);

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

macro_rules! typed_ops {
    ($( $(#[$doc:meta])* $variant:ident($args:ty) = $name:literal -> $reply:ty; )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $variant;

            impl TypedOp for $variant {
                type Args = $args;
                type Reply = $reply;
                const NAME: &'static str = $name;
                fn op(args: $args) -> Op {
                    Op::$variant(args)
                }
            }
        )*

        /// The names of the typed ops, in declaration order.
        pub const TYPED: &[&str] = &[$($name),*];
    };
}

typed_ops! {
    /// One node's whole record.
    ReadNode(NodeArgs) = "read_node" -> SemanticNode;
    /// The first node a selector matches, and how many match.
    FindNode(ops::FindNode) = "find_node" -> FoundNode;
    /// The app's windows.
    ListWindows(ops::NoArgs) = "list_windows" -> Windows;
    /// The tree: records in the `json` format, an outline in `text`.
    SnapshotTree(ops::SnapshotTree) = "snapshot_tree" -> Snapshot;
    /// A node's action, or what a person would do for it.
    InvokeAction(ops::InvokeAction) = "invoke_action" -> Acted;
    /// A node's new value.
    SetValue(ops::SetValue) = "set_value" -> Acted;
    /// The keyboard focus moved to a node.
    FocusNode(NodeArgs) = "focus_node" -> Acted;
    /// Text typed into a node (or where the focus is).
    TypeText(ops::TypeText) = "type_text" -> Acted;
    /// One key pressed, held or let go.
    InjectKey(ops::InjectKey) = "inject_key" -> Acted;
    /// One pointer move, press or release.
    InjectPointer(ops::InjectPointer) = "inject_pointer" -> Acted;
    /// The window's pixels, or a node's.
    Screenshot(ops::Screenshot) = "screenshot" -> Image;
}

/// What an op that acts answers: the node it acted on, the means that did it, and whether the
/// kit saw the effect. Each op adds its own details (`action`, `keys`, `clicked_at`, `tried`,
/// `settled`, …), kept in `detail` as the op wrote them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Acted {
    /// The node acted on (absent for an op that names none, like a key press).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<RefKey>,
    /// The means that did it (`action`, `pointer`, `keyboard`), when the op chose one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// `not_observed`: the kit acted and saw no change it could read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
    /// What the reader should know about the effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The op's own details, as it wrote them.
    #[serde(flatten)]
    pub detail: Map<String, Value>,
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

/// What `snapshot_tree` answers. The `json` format gives the records (`nodes`), the root and
/// the focus; the `text` format the outline (`tree`) and how many hidden runs it folded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The mirror's version the snapshot was read at.
    pub version: u64,
    /// `json`: each node's record, breadth first from the root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<SemanticNode>,
    /// `text`: the outline, a line a node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
    /// `json`: where the snapshot starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<RefKey>,
    /// `json`: the node with the keyboard focus (`null`: none the tree knows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<Option<RefKey>>,
    /// The budget or the depth cut the tree (`json` says so either way, `text` only when it
    /// did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// `json`: the nodes whose children were cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frontier: Vec<RefKey>,
    /// What was cut, and how to see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// `json`: long strings were cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_note: Option<String>,
    /// `text`: runs of hidden nodes folded into a line each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<usize>,
}

impl Snapshot {
    /// The node with the keyboard focus, if the tree knows one.
    #[must_use]
    pub fn focused(&self) -> Option<RefKey> {
        self.focus.flatten()
    }

    /// Whether the budget or the depth cut the tree.
    #[must_use]
    pub fn cut(&self) -> bool {
        self.truncated == Some(true)
    }
}

/// What `list_windows` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Windows {
    /// Each window the host knows, as it lists them.
    pub windows: Vec<WindowInfo>,
}

/// What `find_node` answers: the first match with its record, or, when nothing matches, the
/// closest nodes and what to try.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FoundNode {
    /// The first match's reference (`null` when nothing matches).
    pub node: Option<RefKey>,
    /// How many nodes match.
    pub count: usize,
    /// The first match's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<SemanticNode>,
    /// Nothing matched: what to try.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Nothing matched: the closest nodes (absent when something matched).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Candidate>>,
    /// Nothing matched in a list read only in part: why "none" is not sure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_typed_op_is_in_the_catalog_by_its_name() {
        for name in TYPED {
            assert!(crate::catalog::spec(name).is_some(), "{name}");
        }
        let op = ReadNode::op(NodeArgs {
            node: RefKey(1).into(),
        });
        assert_eq!(op.name(), ReadNode::NAME);
    }

    #[test]
    fn a_reply_of_another_shape_is_a_typed_error_naming_the_op() {
        let e = FindNode::decode(Reply::Ok(serde_json::json!({"node": 3}))).unwrap_err();
        assert_eq!(e.code, ErrorCode::TargetFailed);
        assert!(e.message.contains("find_node"), "{}", e.message);
        let e = ReadNode::decode(Reply::Err(OpError::new(ErrorCode::NotFound, "gone")));
        assert_eq!(e.unwrap_err().code, ErrorCode::NotFound);
    }

    #[test]
    fn an_action_reply_keeps_its_details_and_a_selector_rides_beside_a_record() {
        let acted = InvokeAction::decode(Reply::Ok(serde_json::json!({
            "node": "e4", "action": "click", "via": "pointer", "clicked_at": {"x": 1, "y": 2}
        })))
        .unwrap();
        assert_eq!(acted.node, Some(RefKey(4)));
        assert_eq!(acted.via.as_deref(), Some("pointer"));
        assert_eq!(acted.detail["action"], "click");
        let key = InjectKey::decode(Reply::Ok(serde_json::json!({"key": "a", "held_keys": 0})));
        assert_eq!(key.unwrap().node, None);

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
    fn a_screenshot_is_an_image_and_data_in_its_place_is_an_error() {
        let png = Image::new(vec![1, 2, 3], 2, 1, 1.0);
        assert_eq!(Screenshot::decode(Reply::Image(png.clone())).unwrap(), png);
        let e = Screenshot::decode(Reply::Ok(serde_json::json!({}))).unwrap_err();
        assert_eq!(e.code, ErrorCode::TargetFailed);
        assert!(e.message.contains("screenshot"), "{}", e.message);
    }
}
