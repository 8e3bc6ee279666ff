//! The one catalog of ops. The [`Op`] enum, its parser and [`CATALOG`] are generated from the
//! single list below, so an op without an entry (or an entry without an op) cannot exist.
//! MCP tools, CLI help and docs are generated from [`CATALOG`].

use serde::Serialize;
use serde_json::Value;

use crate::error::{ErrorCode, OpError};
use crate::image::Image;
use crate::ops::*;
use crate::replies::{
    Acted, Announcements, Asserted, At, ClockAdvanced, Dragged, Flung, FoundNode, KeyPressed,
    LiveRegions, LongPressed, Nothing, Overlays, Pinched, PointerCancelled, PointerList,
    PointerSent, Snapshot, ToolkitRecord, Touched, TypedText, Waited, Windows,
};
use crate::snapshot::SemanticNode;

/// Whether an op changes the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Observes only.
    ReadOnly,
    /// Sends input, actions or time to the app.
    Mutating,
}

/// Who answers an op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServedBy {
    /// `execute` answers it from the target and the mirrored tree.
    Target,
    /// The host beside the target answers it (window list, pixels): [`crate::serve`] hands it
    /// to a [`crate::Host`]; `execute` alone, with no host, refuses it as `HOST_REQUIRED`.
    Host,
}

/// What a successful reply carries, so every front door shapes it without looking at names
/// or keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyKind {
    /// Structured data (an object).
    Data,
    /// A tree snapshot: `{tree, version, note?}`, the tree being the text outline or, with
    /// `format: json`, the records; read as one text block.
    Snapshot,
    /// A PNG with its size and scale, as the host's screenshot gives it: a
    /// [`Reply::Image`](crate::Reply::Image) (a wire's client types its JSON with
    /// [`Reply::typed`](crate::Reply::typed)).
    Image,
}

/// Which tool set an op belongs to. The MCP server lists the `core` ops by default and the
/// others when asked (`--caps touch,toolkit` or `--caps all`), as Playwright MCP's
/// capabilities do: every op stays callable, the default `tools/list` stays small.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cap {
    /// What most sessions need: snapshot, find, act, wait, check, screenshot.
    Core,
    /// Touch and pen: multi-finger gestures, long press, live pointers.
    Touch,
    /// The toolkit's own view: layout tree, overlays, shortcuts, live regions, density.
    Toolkit,
    /// Shortcuts and rarer input: right click, expand/collapse, IME composition.
    Input,
    /// The simulated clock, moved by hand.
    Clock,
}

impl Cap {
    /// Every cap, in order.
    pub const ALL: &'static [Cap] = &[Cap::Core, Cap::Touch, Cap::Toolkit, Cap::Input, Cap::Clock];

    /// The cap's name (as `--caps` takes it).
    pub const fn name(self) -> &'static str {
        match self {
            Cap::Core => "core",
            Cap::Touch => "touch",
            Cap::Toolkit => "toolkit",
            Cap::Input => "input",
            Cap::Clock => "clock",
        }
    }

    /// The cap named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Cap> {
        Cap::ALL
            .iter()
            .copied()
            .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// One catalog entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OpSpec {
    /// Wire name (also the MCP tool name).
    pub name: &'static str,
    /// Read-only or mutating.
    pub access: Access,
    /// Who answers it.
    pub served_by: ServedBy,
    /// What a successful reply carries.
    pub reply: ReplyKind,
    /// Whether the op accepts a `settle` spec.
    pub accepts_settle: bool,
    /// Whether repeating the op leaves the app as one call does.
    pub idempotent: bool,
    /// Which tool set lists it (`core` by default over MCP).
    pub cap: Cap,
    /// One line on what it does.
    pub description: &'static str,
}

/// An op's reply type as `TypedOp` answers it: a changing op's own reply inside a
/// [`Done`](crate::replies::Done).
macro_rules! reply_of {
    (Mutating, $reply:ty) => { crate::replies::Done<$reply> };
    (ReadOnly, $reply:ty) => { $reply };
}

macro_rules! catalog {
    ($( $variant:ident($args:ty) -> $answer:ty = $name:literal, $access:ident, $served:ident, $reply:ident, settle: $settle:literal, idempotent: $idem:literal, $cap:ident, $desc:literal; )*) => {
        /// One op with its arguments. Field-less ops are bare strings on the wire.
        #[derive(Debug, Clone, PartialEq)]
        #[allow(missing_docs)]
        pub enum Op { $( #[doc = $desc] $variant($args), )* }

        /// Every op, in catalog order.
        pub const CATALOG: &[OpSpec] = &[ $( OpSpec {
            name: $name,
            access: Access::$access,
            served_by: ServedBy::$served,
            reply: ReplyKind::$reply,
            accepts_settle: $settle,
            idempotent: $idem,
            cap: Cap::$cap,
            description: $desc,
        }, )* ];

        /// One marker type per op, to call it typed: `ReadNode::op(args)` builds the op,
        /// `ReadNode::decode(reply)` reads its reply as its declared type (see
        /// [`crate::replies`], which re-exports these).
        pub mod typed {
            $(
                #[doc = $desc]
                #[derive(Debug, Clone, Copy)]
                pub struct $variant;
            )*
        }

        $(
            impl crate::replies::TypedOp for typed::$variant {
                type Args = $args;
                type Reply = reply_of!($access, $answer);
                const NAME: &'static str = $name;
                fn op(args: $args) -> Op {
                    Op::$variant(args)
                }
            }
        )*

        /// Reads `data` through op `name`'s declared reply type (see
        /// [`crate::replies::check_shape`]); an unknown name has no type to check.
        pub(crate) fn reply_shape(name: &str, data: &Value) -> Result<(), String> {
            match name {
                $( $name => crate::replies::round_trip::<reply_of!($access, $answer)>(name, data), )*
                _ => Ok(()),
            }
        }

        impl Op {
            /// The op's wire name.
            pub fn name(&self) -> &'static str {
                match self { $( Op::$variant(_) => $name, )* }
            }

            /// Builds an op from its name and its argument object.
            pub fn from_parts(name: &str, args: Value) -> Result<Op, OpError> {
                match name {
                    $( $name => parse_args::<$args>($name, args).map(Op::$variant), )*
                    _ => Err(unknown_op(name)),
                }
            }

            /// The op's arguments as JSON.
            pub fn args_json(&self) -> Value {
                match self { $( Op::$variant(a) => serde_json::to_value(a).unwrap_or(Value::Null), )* }
            }

            /// JSON Schema of an op's arguments, by name: strict (`additionalProperties: false`),
            /// subschemas inlined, optional fields simply not required (no `["T", "null"]`,
            /// which some MCP clients reject).
            #[cfg(feature = "schemars")]
            pub fn args_schema(name: &str) -> Option<Value> {
                let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
                let mut schema = match name {
                    $( $name => schemars::SchemaGenerator::new(settings).into_root_schema_for::<$args>().to_value(), )*
                    _ => return None,
                };
                strip_null_types(&mut schema);
                Some(schema)
            }
        }
    };
}

catalog! {
    SnapshotTree(SnapshotTree) -> Snapshot = "snapshot_tree", ReadOnly, Target, Snapshot, settle: false, idempotent: true, Core,
        "Accessibility tree from the root or a subtree, with a node budget and a truncation note.";
    ReadNode(NodeArgs) -> SemanticNode = "read_node", ReadOnly, Target, Data, settle: false, idempotent: true, Core,
        "One node's full record (role, label, value, states, bounds, actions, text).";
    FindNode(FindNode) -> FoundNode = "find_node", ReadOnly, Target, Data, settle: false, idempotent: true, Core,
        "First node matching a selector (role, label, label_contains, value, author_id, nth, within); null when none.";
    AssertNode(AssertNode) -> Asserted = "assert_node", ReadOnly, Target, Data, settle: false, idempotent: true, Core,
        "Check one fact about a node; false is ASSERTION_FAILED with actual and expected.";
    ListWindows(NoArgs) -> Windows = "list_windows", ReadOnly, Host, Data, settle: false, idempotent: true, Core,
        "The app's windows (served by the host).";
    QueryPointers(NoArgs) -> PointerList = "query_pointers", ReadOnly, Target, Data, settle: false, idempotent: true, Touch,
        "Live pointers: id, kind, primary, held buttons, position.";
    LayoutTree(LayoutTree) -> ToolkitRecord = "layout_tree", ReadOnly, Target, Data, settle: false, idempotent: true, Toolkit,
        "The toolkit's own layout tree, when the target exposes it.";
    InspectNode(NodeArgs) -> ToolkitRecord = "inspect_node", ReadOnly, Target, Data, settle: false, idempotent: true, Toolkit,
        "The toolkit's layout record for one node, when the target exposes it.";
    ListLiveRegions(NoArgs) -> LiveRegions = "list_live_regions", ReadOnly, Target, Data, settle: false, idempotent: true, Toolkit,
        "Nodes that declare a live politeness and that a screen reader would hear.";
    PullAnnouncements(PullAnnouncements) -> Announcements = "pull_announcements", ReadOnly, Target, Data, settle: false, idempotent: true, Core,
        "Live-region announcements recorded since a sequence number.";
    GetOverlays(NoArgs) -> Overlays = "get_overlays", ReadOnly, Target, Data, settle: false, idempotent: true, Toolkit,
        "Open popups, menus and tooltips, when the target exposes them.";
    GetShortcuts(NoArgs) -> ToolkitRecord = "get_shortcuts", ReadOnly, Target, Data, settle: false, idempotent: true, Toolkit,
        "Keyboard shortcuts the app declares, when the target exposes them.";
    InvokeAction(InvokeAction) -> Acted = "invoke_action", Mutating, Target, Data, settle: true, idempotent: false, Core,
        "Perform an accessibility action (click, focus, expand, increment, show_context_menu, …) on a node.";
    FocusNode(NodeArgs) -> Acted = "focus_node", Mutating, Target, Data, settle: true, idempotent: true, Core,
        "Give a node keyboard focus.";
    SetValue(SetValue) -> Acted = "set_value", Mutating, Target, Data, settle: true, idempotent: true, Core,
        "Replace a node's value (text, or a number for sliders).";
    Expand(NodeArgs) -> Acted = "expand", Mutating, Target, Data, settle: true, idempotent: true, Input,
        "Expand a collapsible node.";
    Collapse(NodeArgs) -> Acted = "collapse", Mutating, Target, Data, settle: true, idempotent: true, Input,
        "Collapse an expandable node.";
    Scroll(Scroll) -> At = "scroll", Mutating, Target, Data, settle: true, idempotent: false, Core,
        "Turn the wheel over a node, optionally with modifiers or in lines.";
    InjectPointer(InjectPointer) -> PointerSent = "inject_pointer", Mutating, Target, Data, settle: true, idempotent: false, Core,
        "A synthetic pointer action (mouse, touch or pen) at a point or a node.";
    RightClick(NodeArgs) -> At = "right_click", Mutating, Target, Data, settle: true, idempotent: false, Input,
        "Secondary click at a node's centre (opens context menus).";
    InjectKey(InjectKey) -> KeyPressed = "inject_key", Mutating, Target, Data, settle: true, idempotent: false, Core,
        "Press, hold or release one key with modifiers.";
    TypeText(TypeText) -> TypedText = "type_text", Mutating, Target, Data, settle: true, idempotent: false, Core,
        "Type text as a keyboard does, one key press per character.";
    TypeIme(TypeIme) -> Nothing = "type_ime", Mutating, Target, Data, settle: true, idempotent: false, Input,
        "Input-method composition: preedit and/or commit text.";
    DragNode(DragNode) -> Dragged = "drag_node", Mutating, Target, Data, settle: true, idempotent: false, Core,
        "Press on a node, move and release on another node or point.";
    InjectTouchSequence(InjectTouchSequence) -> Touched = "inject_touch_sequence", Mutating, Target, Data, settle: true, idempotent: false, Touch,
        "A self-contained multi-finger gesture; nothing is sent if any step is bad.";
    Pinch(Pinch) -> Pinched = "pinch", Mutating, Target, Data, settle: true, idempotent: false, Touch,
        "Two-finger pinch around a node; both fingers land before either moves.";
    Fling(Fling) -> Flung = "fling", Mutating, Target, Data, settle: true, idempotent: false, Touch,
        "A fast swipe from a node, one 60 Hz sample per frame.";
    LongPress(LongPress) -> LongPressed = "long_press", Mutating, Target, Data, settle: true, idempotent: false, Touch,
        "Hold on a node for exactly the target's long-press threshold.";
    CancelPointer(CancelPointer) -> PointerCancelled = "cancel_pointer", Mutating, Target, Data, settle: true, idempotent: false, Touch,
        "Revoke a live pointer the way the system does (not an up).";
    SetDensity(SetDensity) -> Nothing = "set_density", Mutating, Target, Data, settle: true, idempotent: true, Toolkit,
        "Switch UI density (compact, comfortable, touch), when the target supports it.";
    Settle(NoArgs) -> Nothing = "settle", Mutating, Target, Data, settle: true, idempotent: true, Core,
        "Run the app forward until animations stop (or the frame cap).";
    WaitForCondition(WaitForCondition) -> Waited = "wait_for_condition", Mutating, Target, Data, settle: true, idempotent: true, Core,
        "Poll on the simulated clock until a node exists, has a value, is gone, or a version is reached.";
    AdvanceClock(AdvanceClock) -> ClockAdvanced = "advance_clock", Mutating, Target, Data, settle: false, idempotent: false, Clock,
        "Move the simulated clock forward (simulated-clock targets only).";
    Screenshot(Screenshot) -> Image = "screenshot", ReadOnly, Host, Image, settle: true, idempotent: true, Core,
        "PNG of the window or a node (settles first; served by the host).";
}

/// The catalog entry for an op name.
pub fn spec(name: &str) -> Option<&'static OpSpec> {
    CATALOG.iter().find(|s| s.name == name)
}

impl Op {
    /// The node the op names in its `node` argument, if it has one (a screenshot of the
    /// window, a key press, `find_node`'s selector name none). Every op is listed, so a new
    /// op must say.
    pub fn node(&self) -> Option<&crate::node_ref::NodeTarget> {
        match self {
            Op::ReadNode(a)
            | Op::InspectNode(a)
            | Op::FocusNode(a)
            | Op::Expand(a)
            | Op::Collapse(a)
            | Op::RightClick(a) => Some(&a.node),
            Op::AssertNode(a) => Some(&a.node),
            Op::InvokeAction(a) => Some(&a.node),
            Op::SetValue(a) => Some(&a.node),
            Op::Scroll(a) => Some(&a.node),
            Op::DragNode(a) => Some(&a.node),
            Op::Pinch(a) => Some(&a.node),
            Op::Fling(a) => Some(&a.node),
            Op::LongPress(a) => Some(&a.node),
            Op::InjectPointer(a) => a.node.as_ref(),
            Op::TypeText(a) => a.node.as_ref(),
            Op::TypeIme(a) => a.node.as_ref(),
            Op::Screenshot(a) => a.node.as_ref(),
            Op::SnapshotTree(_)
            | Op::FindNode(_)
            | Op::ListWindows(_)
            | Op::QueryPointers(_)
            | Op::LayoutTree(_)
            | Op::ListLiveRegions(_)
            | Op::PullAnnouncements(_)
            | Op::GetOverlays(_)
            | Op::GetShortcuts(_)
            | Op::InjectKey(_)
            | Op::InjectTouchSequence(_)
            | Op::CancelPointer(_)
            | Op::SetDensity(_)
            | Op::Settle(_)
            | Op::WaitForCondition(_)
            | Op::AdvanceClock(_) => None,
        }
    }

    /// This op's catalog entry.
    pub fn spec(&self) -> &'static OpSpec {
        let name = self.name();
        // Generated from the same list, so the lookup always succeeds; fall back to the first
        // entry rather than panic should that ever change.
        spec(name).unwrap_or(&CATALOG[0])
    }
}

/// `["T", "null"]` → `"T"`, everywhere in a schema.
#[cfg(feature = "schemars")]
fn strip_null_types(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get("type") {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if kept.len() == 1 {
                    map.insert("type".into(), kept[0].clone());
                }
            }
            map.values_mut().for_each(strip_null_types);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_null_types),
        _ => {}
    }
}

/// The hint on an op's bad arguments: where its parameters are listed. Worded for the CLI;
/// the MCP server recognises it and points at `tools/list` instead.
pub fn args_hint(name: &str) -> String {
    format!("see the `{name}` entry of `automation tools` for its parameters")
}

/// The hint on an unknown op with no close name (worded for the CLI, like [`args_hint`]).
pub const LIST_OPS_HINT: &str = "list the ops with `automation tools`";

fn parse_args<T: serde::de::DeserializeOwned>(name: &str, args: Value) -> Result<T, OpError> {
    // Mistakes serde would call only "expected a string": named, with what to write.
    if name == "assert_node"
        && let Some(e) = crate::ops::assert_node_mistake(&args)
    {
        return Err(e);
    }
    serde_json::from_value(args).map_err(|e| {
        OpError::new(ErrorCode::BadRequest, format!("{name}: {e}")).with_hint(args_hint(name))
    })
}

fn unknown_op(name: &str) -> OpError {
    let close = crate::text_match::closest(name, CATALOG.iter().map(|s| s.name), 3);
    let err = OpError::new(ErrorCode::BadRequest, format!("unknown op {name:?}"));
    if close.is_empty() {
        err.with_hint(LIST_OPS_HINT)
    } else {
        err.with_hint(format!("did you mean {}?", close.join(" or ")))
    }
}

#[cfg(all(test, feature = "schemars"))]
mod schema_tests {
    use super::*;

    #[test]
    fn every_op_has_a_strict_object_schema() {
        for spec in CATALOG {
            let schema = Op::args_schema(spec.name);
            let schema = schema.unwrap_or_else(|| panic!("{} has no schema", spec.name));
            assert_eq!(schema["type"], "object", "{}: {schema}", spec.name);
            assert_eq!(
                schema["additionalProperties"], false,
                "{}: {schema}",
                spec.name
            );
        }
        let find = Op::args_schema("invoke_action").unwrap_or_default();
        assert!(!find.to_string().contains("null"), "{find}");
        let snap = Op::args_schema("snapshot_tree").unwrap_or_default();
        assert_eq!(snap["properties"]["max_depth"]["type"], "integer", "{snap}");
        assert!(
            find["required"].as_array().is_some_and(|r| r.len() == 2),
            "{find}"
        );
    }
}
