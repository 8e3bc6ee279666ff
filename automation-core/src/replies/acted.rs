//! What the ops that change the app answer: each op's own reply inside a [`Done`], which adds
//! what every such op reports after it (how the app settled, the tree's version then, and how
//! the app ended when the op ended it).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::read::Slots;
use crate::input::{PointerButton, PointerPhase};
use crate::refs::RefKey;
use crate::target::AppExit;

/// A changing op's reply: its own fields, then what came after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Done<R> {
    /// The op's own fields. `None` only when the app exited because of the op before it could
    /// read its effect: then [`After::app_exited`] says how it ended.
    #[serde(flatten)]
    pub reply: Option<R>,
    /// The settle, the tree's version, the app's exit.
    #[serde(flatten)]
    pub after: After,
}

impl<R> Done<R> {
    /// The op's own reply, or `APP_GONE` naming how the app ended when only that is known.
    pub fn into_reply(self) -> Result<R, crate::OpError> {
        self.reply.ok_or_else(|| {
            crate::OpError::new(
                crate::ErrorCode::AppGone,
                "the app exited as the op ran, before its effect could be read",
            )
        })
    }
}

/// What every changing op reports after acting.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct After {
    /// `not_observed`: the kit acted and saw no change it could read (a button whose press
    /// changes nothing in the tree, a password field that shows nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
    /// What the reader should know about the effect (a field that holds other than was
    /// typed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How the app settled after the op.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled: Option<Settled>,
    /// The tree's version after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// How the app ended, when the op ended it (a dialog's OK, a Quit item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_exited: Option<AppExit>,
}

/// How the app settled: frames run on a simulated clock, or real time waited.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Settled {
    /// A simulated clock was run forward.
    Simulated {
        /// Frames run.
        frames: u64,
        /// Simulated milliseconds they took.
        advanced_ms: u64,
        /// The frame cap was reached with the app still animating.
        still_animating: bool,
    },
    /// Real time was waited.
    Real {
        /// Wall-clock milliseconds the settle took.
        waited_ms: u64,
        /// Milliseconds until the op's first effect; `null` when the tree did not change.
        first_effect_ms: Option<u64>,
        /// The tree was still changing when the budget ran out.
        still_changing: bool,
    },
}

/// What an op that acts on a node answers (`invoke_action`, `set_value`, `focus_node`,
/// `expand`, `collapse`): the node and the means that did it (whether the kit saw the effect
/// is in [`After`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Acted {
    /// The node acted on (a list, for an option picked in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<RefKey>,
    /// The means that did it (`action`, `pointer`, `keyboard`), when the op chose one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The toolkit action asked for, or done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Nothing was done: the node already was as asked, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unchanged: Option<String>,
    /// The value the node shows after (`set_value`): a text, a number or a state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// The option picked, for a value chosen from a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option: Option<RefKey>,
    /// The keys pressed, by name as pressed (`["Home", "ArrowDown ×2"]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
    /// Where the pointer clicked, in window-logical pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clicked_at: Option<crate::input::Point>,
    /// The action that toggled the node when its own toggle was not one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toggled_by: Option<String>,
    /// The means tried before the one that worked, each with why it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tried: Option<Vec<Value>>,
}

/// What `type_text` answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TypedText {
    /// The key strokes sent (one per character, and a key's press and release as one).
    pub keys: usize,
    /// The field typed into (absent when the keys went to the focused window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<RefKey>,
    /// The field's value after, as the kit shows a value (long texts cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// `the focused window`: the keys went to no field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<String>,
    /// Where the focus was when the keys went to the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<RefKey>,
}

/// What `inject_key` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyPressed {
    /// The key, as asked.
    pub key: String,
    /// How many keys are held down after it.
    pub held_keys: usize,
}

/// What `inject_pointer` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointerSent {
    /// The pointer (the mouse is 0; a touch or pen contact its own id).
    pub pointer_id: u64,
    /// Where, in window-logical pixels.
    pub x: f64,
    /// Where, in window-logical pixels.
    pub y: f64,
    /// The mouse buttons held after it (the mouse only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buttons_held: Option<Vec<PointerButton>>,
}

/// Where an op sent the pointer or the wheel (`right_click`, `scroll`), in window-logical
/// pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct At {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
}

/// What `drag_node` answers: from and to, in window-logical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Dragged {
    /// `[x, y]` pressed.
    pub from: [f64; 2],
    /// `[x, y]` released.
    pub to: [f64; 2],
}

/// What `inject_touch_sequence` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Touched {
    /// Each contact's pointer id.
    pub slots: Slots,
    /// Each step as sent.
    pub steps: Vec<TouchSample>,
    /// The target's own view of its pointers after, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// One step of a touch sequence, as sent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TouchSample {
    /// The contact (finger) number the step gave.
    pub contact: u32,
    /// Its pointer id.
    pub pointer_id: u64,
    /// Down, move, up or cancel.
    pub phase: PointerPhase,
    /// Where, in window-logical pixels.
    pub x: f64,
    /// Where, in window-logical pixels.
    pub y: f64,
}

/// What `pinch` answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pinched {
    /// `[x, y]` the fingers moved around.
    pub center: [f64; 2],
    /// Distance between the fingers at the start.
    pub start_distance: f64,
    /// And at the end.
    pub end_distance: f64,
    /// Frames the move took.
    pub frames: u64,
}

/// What `fling` answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Flung {
    /// Samples sent, one per 60 Hz frame.
    pub samples: u64,
    /// Milliseconds they span.
    pub over_ms: u64,
}

/// What `long_press` answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LongPressed {
    /// How long the press was held.
    pub held_ms: u64,
    /// Where, in window-logical pixels.
    pub x: f64,
    /// Where, in window-logical pixels.
    pub y: f64,
}

/// What `cancel_pointer` answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PointerCancelled {
    /// The pointer revoked.
    pub pointer_id: u64,
}

/// What `wait_for_condition` answers when the condition came to hold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Waited {
    /// Always `true` (a condition that never held is `WAIT_TIMEOUT`).
    pub satisfied: bool,
    /// How long it took to hold.
    pub waited_ms: u64,
}

/// What `advance_clock` answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClockAdvanced {
    /// Simulated milliseconds run.
    pub advanced_ms: u64,
}

/// An op with nothing of its own to say (`type_ime`, `set_density`, `settle`): its reply is
/// what came after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Nothing {}
