//! The op model: every op's arguments as a strict serde struct (the [`crate::Op`] enum holds them).
//!
//! Each struct refuses unknown fields, so a misspelled argument is an error that names it,
//! never a silent default. The enum and the [`crate::catalog::CATALOG`] are generated from
//! one list (see `catalog.rs`), so they cannot drift apart.

use serde::{Deserialize, Serialize};

use crate::input::{PointerButton, PointerKind, PointerPhase};
use crate::node_ref::{NodeTarget, Selector};

#[cfg(feature = "schemars")]
use schemars::JsonSchema;

fn is_false(b: &bool) -> bool {
    !*b
}

/// No arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct NoArgs {}

/// `snapshot_tree`: the accessibility tree, bounded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct SnapshotTree {
    /// Depth below the root (0 = the root alone). Default: unlimited within the node budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    /// Start from this node instead of the window root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<NodeTarget>,
    /// Node budget (default 400, max 20000); the reply says when it truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_nodes: Option<usize>,
    /// `text` (default): one line a node, `- Role "name" [ref]: value [states]`. `json`: the
    /// full record of every node (ids, children, actions, bounds, text runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<SnapshotFormat>,
    /// Text form: add each node's bounds (`@x,y wxh`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub bounds: bool,
    /// Text form: show hidden nodes too. By default each run of hidden nodes (and all they
    /// hold) is one line that counts them: a person does not see them.
    #[serde(default, skip_serializing_if = "is_false")]
    pub include_hidden: bool,
}

/// The shape of a `snapshot_tree` reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub enum SnapshotFormat {
    /// One indented line a node: cheap to read (about 10 tokens a node).
    #[default]
    Text,
    /// Full JSON records.
    Json,
}

/// An op on one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct NodeArgs {
    /// The node: an id string from snapshot_tree/find_node, or a selector object.
    pub node: NodeTarget,
}

/// `assert_node`: check one fact about a node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct AssertNode {
    /// The node.
    pub node: NodeTarget,
    /// What to check.
    pub kind: AssertKind,
    /// Expected string for role_equals, label_equals, label_contains, value_equals, document_text_equals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Expected bool for toggled, expanded, selected, disabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<bool>,
}

/// What `assert_node` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub enum AssertKind {
    /// The node exists (a missing node is ASSERTION_FAILED, not NOT_FOUND).
    #[default]
    Exists,
    /// The node has keyboard focus.
    Focused,
    /// The node carries text runs.
    SupportsTextRanges,
    /// Role name equals `value` (case-insensitive).
    RoleEquals,
    /// Label equals `value`.
    LabelEquals,
    /// Label contains `value`.
    LabelContains,
    /// Value equals `value`.
    ValueEquals,
    /// Text of all runs equals `value`.
    DocumentTextEquals,
    /// Toggled state equals `flag` (a mixed checkbox fails both ways).
    Toggled,
    /// Expanded state equals `flag`.
    Expanded,
    /// Selected state equals `flag`.
    Selected,
    /// Disabled state equals `flag`.
    Disabled,
}

/// What an assertion kind expects as its argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssertArg {
    /// Neither `value` nor `flag`.
    None,
    /// A string in `value`.
    Value,
    /// A bool in `flag`.
    Flag,
}

impl AssertKind {
    /// Which argument this kind takes.
    pub fn arg(self) -> AssertArg {
        match self {
            Self::Exists | Self::Focused | Self::SupportsTextRanges => AssertArg::None,
            Self::RoleEquals
            | Self::LabelEquals
            | Self::LabelContains
            | Self::ValueEquals
            | Self::DocumentTextEquals => AssertArg::Value,
            Self::Toggled | Self::Expanded | Self::Selected | Self::Disabled => AssertArg::Flag,
        }
    }
}

/// The `assert_node` kinds that check a state against the bool in `flag`.
const FLAG_KINDS: [&str; 4] = ["toggled", "expanded", "selected", "disabled"];

/// A JSON bool, or the text of one (`"true"`, `"False"`).
fn bool_like(v: &serde_json::Value) -> Option<bool> {
    match v {
        serde_json::Value::Bool(b) => Some(*b),
        serde_json::Value::String(s) => s.trim().to_ascii_lowercase().parse().ok(),
        _ => None,
    }
}

/// `assert_node`'s arguments looked at for the state-flag mistakes serde alone would answer
/// with "expected a string" or "unknown field" (a state given as `"toggled": true`, the bool
/// in `value`, a quoted `flag`): the error names the field, the value given and what is
/// expected, and its hint says what to write. `None` when none of them is made.
pub(crate) fn assert_node_mistake(args: &serde_json::Value) -> Option<crate::OpError> {
    use crate::{ErrorCode, OpError};
    let m = args.as_object()?;
    let kind = m.get("kind").and_then(serde_json::Value::as_str);
    let bad = |message: String, hint: String| {
        Some(OpError::new(ErrorCode::BadRequest, message).with_hint(hint))
    };
    // `{"node": …, "toggled": true}`: the state named as a field.
    for state in FLAG_KINDS.iter().copied().chain(["focused"]) {
        let Some(given) = m.get(state) else { continue };
        let message = format!(
            "assert_node: `{state}` is not a field (got \"{state}\": {given}); a state is checked with `kind` and, for toggled, expanded, selected and disabled, the expected bool in `flag`"
        );
        let b = bool_like(given).unwrap_or(true);
        let hint = match kind {
            _ if state == "focused" => r#"write "kind": "focused" (it takes no flag)"#.to_string(),
            None => format!(r#"write "kind": "{state}", "flag": {b}"#),
            Some(k) if k == state => format!(r#"write "flag": {b} in place of "{state}": {given}"#),
            Some(k) => format!(
                r#"one assert_node checks one fact: "kind": "{k}" here, and another assert_node with "kind": "{state}", "flag": {b}"#
            ),
        };
        return bad(message, hint);
    }
    // `{"kind": "toggled", "value": true}`: the bool where the expected string goes.
    if let Some(serde_json::Value::Bool(b)) = m.get("value") {
        let message = format!(
            "assert_node: `value` is the expected string of role_equals, label_equals, label_contains, value_equals or document_text_equals, and got the boolean {b}"
        );
        let hint = match kind {
            Some(k) if FLAG_KINDS.contains(&k) => {
                format!(
                    r#"a state's expected bool goes in `flag`: write "flag": {b} in place of "value": {b}"#
                )
            }
            None => format!(
                r#"for a state write "kind": "toggled" (or expanded, selected, disabled) and "flag": {b}; for text, "value": "…" as a string"#
            ),
            Some(_) => format!(r#"give the expected text as a string: "value": "{b}""#),
        };
        return bad(message, hint);
    }
    // `{"flag": "true"}`: the bool quoted, or not a bool at all.
    if let Some(given) = m.get("flag").filter(|v| !v.is_boolean()) {
        let message = format!(
            "assert_node: `flag` is the expected state, true or false, and got {} {given}",
            crate::node_ref::json_kind(given)
        );
        let hint = match bool_like(given) {
            Some(b) => format!(r#"write "flag": {b} (a JSON boolean, without quotes)"#),
            None => r#"write "flag": true or "flag": false"#.to_string(),
        };
        return bad(message, hint);
    }
    None
}

/// `layout_tree`: the target's own layout tree (optional capability).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct LayoutTree {
    /// Depth bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    /// Include each node's debug representation.
    #[serde(default, skip_serializing_if = "is_false")]
    pub include_debug: bool,
}

/// `pull_announcements`: drain recorded live-region announcements.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct PullAnnouncements {
    /// Only entries with a sequence number greater than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_seq: Option<u64>,
}

/// `invoke_action`: an AccessKit action on a node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct InvokeAction {
    /// The node.
    pub node: NodeTarget,
    /// Action name, snake_case (click, focus, expand, collapse, increment, decrement,
    /// show_context_menu, scroll_into_view, …; aliases press/activate/default → click,
    /// context_menu → show_context_menu).
    pub action: String,
}

/// A value for `set_value`: text, a number, or on/off.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub enum FieldValue {
    /// Text (text fields), or the name of an option (combo boxes, lists, tab lists).
    Text(String),
    /// A number (sliders, spin buttons).
    Number(f64),
    /// On or off (check boxes, switches, toggle buttons, radio buttons).
    Bool(bool),
}

/// A number as a person types it: whole numbers without a fraction (`7`, not `7.0`).
pub fn number_as_typed(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// `set_value`: replace a node's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct SetValue {
    /// The node.
    pub node: NodeTarget,
    /// New value: text (or an option's name, for a combo box, list or tab list), a number
    /// (sliders, spin buttons), or true/false (check boxes, switches, toggle buttons).
    pub value: FieldValue,
}

/// `scroll`: turn the wheel over a node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct Scroll {
    /// The node to scroll over.
    pub node: NodeTarget,
    /// Horizontal delta (px, or lines with `lines`).
    #[serde(default)]
    pub dx: f64,
    /// Vertical delta, positive scrolls content down (px, or lines with `lines`).
    #[serde(default)]
    pub dy: f64,
    /// Node-local point to scroll at instead of the centre.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<[f64; 2]>,
    /// Send wheel notches (lines) instead of pixels.
    #[serde(default, skip_serializing_if = "is_false")]
    pub lines: bool,
    /// Hold Control.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ctrl: bool,
    /// Hold Shift.
    #[serde(default, skip_serializing_if = "is_false")]
    pub shift: bool,
    /// Hold Alt.
    #[serde(default, skip_serializing_if = "is_false")]
    pub alt: bool,
    /// Hold Meta.
    #[serde(default, skip_serializing_if = "is_false")]
    pub meta: bool,
    /// Hold the accelerator (Ctrl on Windows/Linux, ⌘ on macOS).
    #[serde(default, skip_serializing_if = "is_false")]
    pub command: bool,
}

/// What `inject_pointer` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub enum PointerAction {
    /// Down then up.
    #[default]
    Click,
    /// Two clicks.
    DoubleClick,
    /// Press (held across ops until an up).
    Down,
    /// Release.
    Up,
    /// Move (keeps held buttons).
    Move,
}

/// `inject_pointer`: one synthetic pointer action.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct InjectPointer {
    /// X: window-logical, or node-local when `node` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Y: window-logical, or node-local when `node` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// Aim relative to this node (its centre when x/y are omitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeTarget>,
    /// What to do (default click).
    #[serde(default)]
    pub action: PointerAction,
    /// Mouse button (default primary).
    #[serde(default)]
    pub button: PointerButton,
    /// Device kind (default mouse).
    #[serde(default)]
    pub kind: PointerKind,
    /// Address an existing touch/pen pointer (see query_pointers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer_id: Option<u64>,
    /// Pen pressure 0..=1 (pen only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure: Option<f64>,
    /// Pen tilt [x, y] in degrees, -90..=90 (pen only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tilt: Option<[f64; 2]>,
    /// Hold Control.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ctrl: bool,
    /// Hold Shift.
    #[serde(default, skip_serializing_if = "is_false")]
    pub shift: bool,
    /// Hold Alt.
    #[serde(default, skip_serializing_if = "is_false")]
    pub alt: bool,
    /// Hold Meta.
    #[serde(default, skip_serializing_if = "is_false")]
    pub meta: bool,
    /// Hold the accelerator (Ctrl on Windows/Linux, ⌘ on macOS).
    #[serde(default, skip_serializing_if = "is_false")]
    pub command: bool,
}

/// Phase of `inject_key`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub enum KeyPhase {
    /// Press then release.
    #[default]
    Press,
    /// Press and hold across ops.
    Down,
    /// Release a held key.
    Up,
}

/// `inject_key`: one key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct InjectKey {
    /// Key name (enter, tab, escape, arrowup, f5, a, …).
    pub key: String,
    /// What the press types (default: the control character for Enter/Tab/Space/Backspace/Escape, else nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// press (default), down or up.
    #[serde(default)]
    pub phase: KeyPhase,
    /// Hold Control.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ctrl: bool,
    /// Hold Shift.
    #[serde(default, skip_serializing_if = "is_false")]
    pub shift: bool,
    /// Hold Alt.
    #[serde(default, skip_serializing_if = "is_false")]
    pub alt: bool,
    /// Hold Meta.
    #[serde(default, skip_serializing_if = "is_false")]
    pub meta: bool,
    /// Hold the accelerator (Ctrl on Windows/Linux, ⌘ on macOS).
    #[serde(default, skip_serializing_if = "is_false")]
    pub command: bool,
}

/// `type_text`: type as a keyboard does, one key per character.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct TypeText {
    /// Focus this node first (default: whatever has focus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeTarget>,
    /// The text.
    pub text: String,
}

/// `type_ime`: input-method composition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct TypeIme {
    /// Focus this node first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeTarget>,
    /// Composition text to show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preedit: Option<String>,
    /// Text to commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// `drag_node`: press on a node, move, release on a target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct DragNode {
    /// Where the drag starts (its centre).
    pub node: NodeTarget,
    /// Drop on this node's centre.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_node: Option<NodeTarget>,
    /// Drop x (window-logical), with `to_y`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_x: Option<f64>,
    /// Drop y (window-logical), with `to_x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_y: Option<f64>,
}

/// One step of a touch sequence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct TouchStep {
    /// Finger slot (default 0).
    #[serde(default)]
    pub contact: u32,
    /// down / move / up / cancel.
    pub phase: PointerPhase,
    /// X (window-logical, or node-local with `node`).
    pub x: f64,
    /// Y (window-logical, or node-local with `node`).
    pub y: f64,
    /// Make x/y local to this node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeTarget>,
    /// Simulated milliseconds to advance before this sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advance_ms: Option<u64>,
}

/// `inject_touch_sequence`: a multi-finger gesture, self-contained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct InjectTouchSequence {
    /// The samples, in order.
    pub steps: Vec<TouchStep>,
}

/// `pinch`: two fingers land, then spread or close.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct Pinch {
    /// Centre of the pinch.
    pub node: NodeTarget,
    /// End span / start span (2.0 zooms in, 0.5 out).
    pub scale: f64,
    /// Starting distance between the fingers in px (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_distance: Option<f64>,
    /// Simulated duration (default 250 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_ms: Option<u64>,
}

/// `fling`: a fast swipe with a release velocity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct Fling {
    /// Where the finger lands (its centre).
    pub node: NodeTarget,
    /// Travel x in px.
    #[serde(default)]
    pub dx: f64,
    /// Travel y in px.
    #[serde(default)]
    pub dy: f64,
    /// Simulated duration (default 100 ms), one 60 Hz sample per frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_ms: Option<u64>,
}

/// `long_press`: hold for exactly the target's long-press threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct LongPress {
    /// The node (its centre, or node-local x/y).
    pub node: NodeTarget,
    /// Node-local x.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Node-local y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// touch (default), pen or mouse.
    #[serde(default = "default_touch")]
    pub kind: PointerKind,
}

fn default_touch() -> PointerKind {
    PointerKind::Touch
}

/// `cancel_pointer`: the system revokes a pointer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct CancelPointer {
    /// Id from query_pointers or a touch-sequence reply.
    pub pointer_id: u64,
}

/// UI density.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub enum Density {
    /// Desktop mouse and keyboard.
    #[default]
    Compact,
    /// Hybrid devices.
    Comfortable,
    /// Finger first.
    Touch,
}

/// `set_density`: switch the app's density (optional capability).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct SetDensity {
    /// compact, comfortable or touch.
    pub density: Density,
}

/// A condition `wait_for_condition` polls for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub enum Condition {
    /// A node matching the selector's fields (given beside `kind`) exists.
    NodeExists(Selector),
    /// A node's value equals `expected`.
    NodeValue {
        /// The node.
        node: NodeTarget,
        /// Expected value.
        expected: String,
    },
    /// The node is gone: a reference whose node is gone or became something else, a selector
    /// that matches nothing, a raw id not in the tree.
    NodeGone {
        /// The node: a reference, a selector, or a raw id.
        node: NodeTarget,
    },
    /// The tree version reached `version`.
    AtVersionAtLeast {
        /// Version from snapshot_tree.
        version: u64,
    },
}

/// `wait_for_condition`: poll on the simulated clock until a condition holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct WaitForCondition {
    /// The condition.
    pub condition: Condition,
}

/// `advance_clock`: move the simulated clock.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct AdvanceClock {
    /// Milliseconds.
    pub millis: u64,
}

/// `screenshot`: PNG of the window or one node (served by the host).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub struct Screenshot {
    /// Crop to this node's bounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeTarget>,
}

/// `find_node` takes a [`Selector`].
pub type FindNode = Selector;

/// `modifiers()` for each op that holds the five modifier flags. The flags stay fields of each
/// op, not one flattened struct: serde cannot `flatten` into a `deny_unknown_fields` struct.
macro_rules! held_modifiers {
    ($($op:ident),+) => {$(
        impl $op {
            /// The modifiers held, with `command` resolved for `platform`.
            pub fn modifiers(&self, platform: crate::input::Platform) -> crate::input::Modifiers {
                crate::input::Modifiers::resolve(
                    self.ctrl,
                    self.shift,
                    self.alt,
                    self.meta,
                    self.command,
                    platform,
                )
            }
        }
    )+};
}

held_modifiers!(Scroll, InjectPointer, InjectKey);
