//! What `execute` needs from the app under test, and the host's window sink.
//!
//! Two very different targets implement [`Target`]:
//! - an in-process toolkit on a simulated clock (egui): input is queued into the next frame,
//!   [`Target::advance`] moves the clock and runs a frame, `is_animating` is "wants another
//!   frame";
//! - an out-of-process app on the OS accessibility bus (AT-SPI): a real clock, a tree fetched
//!   over IPC, actions that land ~250 ms later. There `advance` waits in real time and
//!   `is_animating` means "events are still arriving", so the same settle loop waits for
//!   quiescence, and `advance_clock` is `UNSUPPORTED`.
//!
//! Optional capabilities have default methods that answer `UNSUPPORTED`: never a panic,
//! never a fake answer.

use accesskit::{ActionRequest, TreeUpdate};
use serde::Serialize;

use crate::error::{ErrorCode, OpError, OpResult};
use crate::input::{ImeEvent, KeyEvent, Platform, PointerEvent, PointerKind, ScrollEvent};
use crate::ops::Density;

/// How the target keeps time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockKind {
    /// Only ops move time (in-process toolkits); runs are deterministic.
    Simulated,
    /// Wall-clock time (out-of-process apps); settle waits for quiescence.
    Real,
}

/// Whether the app handled an action request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionOutcome {
    /// The app acted on it (or queued it to act in the next frame).
    Handled,
    /// Nothing in the app handles this action on this node.
    Unhandled,
}

/// A failure inside the target (IPC broke, the app crashed) — environment, not the caller.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct TargetError(pub String);

impl From<TargetError> for OpError {
    fn from(e: TargetError) -> Self {
        OpError::new(ErrorCode::TargetFailed, e.0)
            .with_hint("the app under test failed; check it is still running, then retry")
    }
}

/// The app under test, as `execute` drives it.
///
/// Every input and time method receives the host's [`WindowOps`], so an action that opens a
/// window reaches the host instead of panicking.
pub trait Target {
    /// Simulated or real clock.
    fn clock(&self) -> ClockKind;

    /// The platform whose conventions `command` follows.
    fn platform(&self) -> Platform {
        Platform::current()
    }

    /// The tree update produced since the last call, if any. The first call must return a
    /// full tree (`tree: Some`). Updates are validated before they are applied.
    fn take_tree_update(&mut self) -> Option<TreeUpdate>;

    /// An AccessKit action request for a node that exists in the last tree.
    fn action(
        &mut self,
        request: ActionRequest,
        windows: &mut dyn WindowOps,
    ) -> Result<ActionOutcome, TargetError>;

    /// One pointer sample.
    fn pointer(
        &mut self,
        event: &PointerEvent,
        windows: &mut dyn WindowOps,
    ) -> Result<(), TargetError>;

    /// One key transition.
    fn key(&mut self, event: &KeyEvent, windows: &mut dyn WindowOps) -> Result<(), TargetError>;

    /// One scroll.
    fn scroll(
        &mut self,
        event: &ScrollEvent,
        windows: &mut dyn WindowOps,
    ) -> Result<(), TargetError>;

    /// One IME event.
    fn ime(&mut self, event: &ImeEvent, windows: &mut dyn WindowOps) -> Result<(), TargetError>;

    /// Run time forward by `millis` and process a frame (simulated), or wait that long and
    /// refresh (real).
    fn advance(&mut self, millis: u64, windows: &mut dyn WindowOps) -> Result<(), TargetError>;

    /// Still animating or otherwise busy: another frame would change something.
    fn is_animating(&self) -> bool;

    /// Lay out again so bounds are current.
    fn relayout(&mut self, windows: &mut dyn WindowOps) -> Result<(), TargetError>;

    /// Hand the clock back to real time (end of every op). The input timeline keeps the
    /// advanced offset and never runs backwards.
    fn resume_real_time(&mut self) {}

    /// Milliseconds a press must be held to count as a long press, for this device kind.
    fn long_press_threshold_ms(&self, kind: PointerKind) -> Option<u64> {
        let _ = kind;
        None
    }

    /// Optional: the toolkit's layout tree.
    fn layout_tree(&mut self, max_depth: Option<u32>, include_debug: bool) -> OpResult {
        let _ = (max_depth, include_debug);
        Err(OpError::unsupported("layout_tree"))
    }

    /// Optional: one node's layout record.
    fn inspect_node(&mut self, node: accesskit::NodeId) -> OpResult {
        let _ = node;
        Err(OpError::unsupported("inspect_node"))
    }

    /// Optional: per-pointer arbitration details, merged into `query_pointers`.
    fn pointer_details(&mut self) -> OpResult {
        Err(OpError::unsupported("pointer arbitration details"))
    }

    /// Optional: open overlays.
    fn overlays(&mut self) -> OpResult {
        Err(OpError::unsupported("get_overlays"))
    }

    /// Optional: declared shortcuts.
    fn shortcuts(&mut self) -> OpResult {
        Err(OpError::unsupported("get_shortcuts"))
    }

    /// Optional: UI density.
    fn set_density(&mut self, density: Density, windows: &mut dyn WindowOps) -> OpResult<()> {
        let _ = (density, windows);
        Err(OpError::unsupported("set_density"))
    }
}

/// A window the host knows about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowInfo {
    /// Id (decimal string on the wire).
    pub id: crate::WindowId,
    /// Title.
    pub title: String,
    /// Has focus.
    pub focused: bool,
}

/// A request to open a window, as the app makes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenWindowRequest {
    /// Title of the new window.
    pub title: String,
}

/// The host's window sink, threaded through every input and time call.
pub trait WindowOps {
    /// Opens a window; returns its id.
    fn open_window(&mut self, request: OpenWindowRequest) -> crate::WindowId;
    /// Whether the window exists.
    fn has_window(&self, id: crate::WindowId) -> bool;
    /// Focuses a window; `false` when it does not exist.
    fn focus_window(&mut self, id: crate::WindowId) -> bool;
    /// Closes a window; `false` when it does not exist.
    fn close_window(&mut self, id: crate::WindowId) -> bool;
    /// The windows, focused first.
    fn list_windows(&self) -> Vec<WindowInfo>;
}

/// A [`WindowOps`] for headless use: records open requests and hands out synthetic ids, so
/// an action that opens a window never panics.
#[derive(Debug, Default, Clone)]
pub struct RecordingWindowOps {
    /// Every open request, in order.
    pub opened: Vec<OpenWindowRequest>,
    windows: Vec<WindowInfo>,
    next_id: u64,
}

impl RecordingWindowOps {
    /// An empty recorder.
    pub fn new() -> Self {
        Self::default()
    }
}

impl WindowOps for RecordingWindowOps {
    fn open_window(&mut self, request: OpenWindowRequest) -> crate::WindowId {
        self.next_id += 1;
        let id = crate::WindowId(self.next_id);
        for w in &mut self.windows {
            w.focused = false;
        }
        self.windows.push(WindowInfo {
            id,
            title: request.title.clone(),
            focused: true,
        });
        self.opened.push(request);
        id
    }

    fn has_window(&self, id: crate::WindowId) -> bool {
        self.windows.iter().any(|w| w.id == id)
    }

    fn focus_window(&mut self, id: crate::WindowId) -> bool {
        let found = self.has_window(id);
        if found {
            for w in &mut self.windows {
                w.focused = w.id == id;
            }
        }
        found
    }

    fn close_window(&mut self, id: crate::WindowId) -> bool {
        let before = self.windows.len();
        self.windows.retain(|w| w.id != id);
        before != self.windows.len()
    }

    fn list_windows(&self) -> Vec<WindowInfo> {
        let mut out = self.windows.clone();
        out.sort_by_key(|w| !w.focused);
        out
    }
}
