//! What `execute` needs from the app under test, and the host's window sink.
//!
//! Two very different targets implement [`Target`]:
//! - an in-process toolkit on a simulated clock (egui): input is queued into the next frame,
//!   [`Target::advance`] moves the clock and runs a frame, `is_animating` is "wants another
//!   frame";
//! - an out-of-process app on the OS accessibility bus (AT-SPI): a real clock, a tree fetched
//!   over IPC, actions that land ~250 ms later. There settle waits (through
//!   [`Target::wait_for_activity`]) for the action's first effect and then a quiet period,
//!   bounded, and reports the time it measured; `advance_clock` is `UNSUPPORTED`.
//!
//! Optional capabilities have default methods that answer `UNSUPPORTED`: never a panic,
//! never a fake answer. Host concerns (windows, screenshots) are a separate [`Host`].

use std::time::Duration;

use accesskit::{ActionRequest, TreeUpdate};
use serde::Serialize;

use crate::error::{ErrorCode, OpError, OpResult};
use crate::image::Image;
use crate::input::{ImeEvent, KeyEvent, Platform, PointerEvent, PointerKind, ScrollEvent};
use crate::intent::{Intent, Means};
use crate::ops::Density;
use crate::snapshot::Bounds;

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

/// A node whose children the target read only in part (a list of thousands): a find that
/// matches nothing says so, rather than "nothing matches".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartialChildren {
    /// The node.
    pub id: accesskit::NodeId,
    /// Children read.
    pub listed: usize,
    /// Children it has.
    pub total: usize,
}

/// What came of a person's click aimed at a node ([`Target::click_node`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Hit {
    /// Clicked at this point (window-logical px), which was first proven to hit the node.
    Clicked {
        /// x.
        x: f64,
        /// y.
        y: f64,
    },
    /// No point of the node could be proven to hit it (covered, off-screen, clipped away),
    /// and why; nothing was sent.
    Missed(String),
    /// This target cannot prove a hit; core clicks by its own mirror's hit test instead.
    Unknown,
}

/// Where a person's pointer reaches a node, as the target proves it ([`Target::aim_node`]);
/// nothing is sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Aim {
    /// At this point (window-logical px), proven to hit the node: its centre, or another
    /// point of what shows of it when something covers the centre.
    At {
        /// x.
        x: f64,
        /// y.
        y: f64,
    },
    /// No point of it could be proven to hit it, and why.
    Unreachable(String),
    /// This target cannot prove a point; core aims by its own mirror.
    Unknown,
}

/// A failure inside the target — the environment, never the caller's request. Each kind maps
/// to its own error code so an agent can tell "retry" from "relaunch".
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// The app exited, crashed, or closed its connection: nothing will answer again.
    #[error("the app under test is gone: {0}")]
    AppGone(String),
    /// Talking to the app failed (IPC error, malformed reply); the app may still be there.
    #[error("talking to the app failed: {0}")]
    Ipc(String),
    /// The app did not answer within the target's own deadline.
    #[error("the app did not answer within {waited_ms} ms: {detail}")]
    Timeout {
        /// How long the target waited.
        waited_ms: u64,
        /// What it was waiting for.
        detail: String,
    },
    /// The toolkit panicked while handling input; the target was rebuilt or stays usable.
    #[error("the toolkit panicked: {0}")]
    Panicked(String),
    /// This target cannot deliver this kind of input at all.
    #[error("this target cannot deliver {0}")]
    Unsupported(String),
    /// The node the call was for is gone from the app (its object was destroyed: a closed
    /// dialog's widget, a replaced row); the app itself still answers.
    #[error("the node is gone from the app: {0}")]
    NodeGone(String),
}

impl From<TargetError> for OpError {
    fn from(e: TargetError) -> Self {
        let message = e.to_string();
        match e {
            TargetError::AppGone(_) => OpError::new(ErrorCode::AppGone, message).with_hint(
                "the app must be started again (relaunch it, or restart the automation server)",
            ),
            TargetError::Ipc(_) | TargetError::Panicked(_) => {
                OpError::new(ErrorCode::TargetFailed, message)
                    .with_hint("the app under test failed; check it is still running, then retry")
            }
            TargetError::Timeout { .. } => OpError::new(ErrorCode::TargetTimeout, message)
                .with_hint(
                    "the app is busy (a modal loop, a long task?); wait a moment, then try again",
                ),
            TargetError::Unsupported(_) => OpError::new(ErrorCode::Unsupported, message).with_hint(
                "use invoke_action, set_value or another input kind this target supports",
            ),
            TargetError::NodeGone(_) => OpError::new(ErrorCode::Stale, message)
                .with_hint("find it again (find_node): the app replaced or closed what held it"),
        }
    }
}

/// The app under test, as `execute` drives it.
///
/// Only what the app itself does lives here: its tree, actions, input and time. What the host
/// beside it holds — the window list, the pixels — is a [`Host`]. Methods that mean nothing
/// for a kind of target have defaults: an out-of-process app implements neither `advance` nor
/// `relayout`, an in-process toolkit never waits for activity.
pub trait Target {
    /// Simulated or real clock.
    fn clock(&self) -> ClockKind;

    /// The platform whose conventions `command` follows.
    fn platform(&self) -> Platform {
        Platform::current()
    }

    /// The tree update produced since the last call, if any. The first update must be a full
    /// tree (`tree: Some`). Updates are validated before they are applied. Fails when the tree
    /// cannot be read (the app went away, IPC broke).
    fn poll_tree(&mut self) -> Result<Option<TreeUpdate>, TargetError>;

    /// An AccessKit action request for a node that exists in the last tree: the toolkit's own
    /// action for it, nothing else (core tries a pointer or the keys itself when the target
    /// lists them in [`Target::means`]).
    fn action(&mut self, request: ActionRequest) -> Result<ActionOutcome, TargetError>;

    /// The means to try for `intent` on node `id`, in order. The default is the toolkit's own
    /// action alone (an in-process toolkit, whose actions always reach the widget); a target
    /// for apps whose actions may be missing or wrong lists the pointer and the keys too.
    fn means(&mut self, intent: Intent, id: accesskit::NodeId) -> Vec<Means> {
        let _ = (intent, id);
        crate::intent::ACTION_ONLY.to_vec()
    }

    /// A person's click with `button` on node `id`, at a point first proven to hit it (the
    /// toolkit's own hit test, wherever the toolkit says its window is). The default is
    /// [`Hit::Unknown`]: core then proves the point with its mirror's hit test.
    fn click_node(
        &mut self,
        id: accesskit::NodeId,
        button: crate::input::PointerButton,
    ) -> Result<Hit, TargetError> {
        let _ = (id, button);
        Ok(Hit::Unknown)
    }

    /// Where a person's pointer reaches node `id`, proven as [`Target::click_node`] proves
    /// a click's point, with nothing sent: a wheel or a hover aims there. The default is
    /// [`Aim::Unknown`]: core aims by its mirror.
    fn aim_node(&mut self, id: accesskit::NodeId) -> Result<Aim, TargetError> {
        let _ = id;
        Ok(Aim::Unknown)
    }

    /// Before an op is judged possible: read node `id`'s own state (shown, enabled) again on
    /// the next poll, however it was last read — a toolkit that sends no event when a menu
    /// closes leaves its items "showing". The default does nothing.
    fn refresh(&mut self, id: accesskit::NodeId) {
        let _ = id;
    }

    /// The key (and modifiers) that moves the focus to the next widget in this app from any
    /// widget, text areas included, when the keys are a means of [`Intent::Focus`]: GTK's
    /// Ctrl+Tab, a browser's Tab. The default: none (the focus is not walked).
    fn focus_key(&self) -> Option<(crate::input::NamedKey, crate::input::Modifiers)> {
        None
    }

    /// Nodes whose children were read only in part, and how far. The default: none.
    fn partial_children(&self) -> Vec<PartialChildren> {
        Vec::new()
    }

    /// An op was sent to node `id` (an action, a click, keys): read it — and what it holds —
    /// again on the next poll, whether or not the toolkit announces the change (many send no
    /// event for a name that follows a selection, or for a label's new text). The default does
    /// nothing: a target whose tree always reflects the app needs no hint.
    fn reread(&mut self, id: accesskit::NodeId) {
        let _ = id;
    }

    /// One pointer sample.
    fn pointer(&mut self, event: &PointerEvent) -> Result<(), TargetError>;

    /// One key transition.
    fn key(&mut self, event: &KeyEvent) -> Result<(), TargetError>;

    /// One scroll.
    fn scroll(&mut self, event: &ScrollEvent) -> Result<(), TargetError>;

    /// One IME event.
    fn ime(&mut self, event: &ImeEvent) -> Result<(), TargetError> {
        let _ = event;
        Err(TargetError::Unsupported("input-method events".into()))
    }

    /// Simulated clock: run time forward by `millis` and process frames. A real-clock target
    /// has nothing to advance (the default does nothing).
    fn advance(&mut self, millis: u64) -> Result<(), TargetError> {
        let _ = millis;
        Ok(())
    }

    /// Real clock: block until the app reports activity (a tree change is ready for
    /// [`Target::poll_tree`]) or `timeout` passes; `true` when something arrived. The default
    /// polls: it sleeps a short slice and answers "maybe", so settle re-reads the tree.
    fn wait_for_activity(&mut self, timeout: Duration) -> Result<bool, TargetError> {
        std::thread::sleep(timeout.min(Duration::from_millis(10)));
        Ok(true)
    }

    /// Simulated clock: another frame would change something (an animation runs).
    fn is_animating(&self) -> bool {
        false
    }

    /// Lay out again so bounds are current (simulated toolkits; a no-op elsewhere).
    fn relayout(&mut self) -> Result<(), TargetError> {
        Ok(())
    }

    /// The part of node `id` that receives pointer input — its bounds cut by the scroll
    /// areas and panels it is drawn in — in window-logical px, when the target knows it (an
    /// empty rect when none of it does). `None`: unknown; core then cuts the bounds by the
    /// tree's scroll views and clipping ancestors.
    fn hit_rect(&mut self, _id: accesskit::NodeId) -> Option<accesskit::Rect> {
        None
    }

    /// The window's area in window-logical px, when known (else the root node's bounds).
    fn window_rect(&mut self) -> Option<accesskit::Rect> {
        None
    }

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
    fn set_density(&mut self, density: Density) -> OpResult<()> {
        let _ = density;
        Err(OpError::unsupported("set_density"))
    }

    /// How the app ended, once it has (a launched app's exit status and the tail of what it
    /// printed). `None` while it runs, or when the target did not start it and cannot know.
    /// An op whose effect is the app exiting (a dialog's OK) answers ok with this.
    fn exit(&mut self) -> Option<AppExit> {
        None
    }
}

/// How an app ended: its status and the last bytes it printed (bounded), where known — a
/// launched app's are; an app attached to by name or pid is not our child, so only that it
/// ended is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AppExit {
    /// The exit status, when it exited normally and was ours to wait for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The end of its standard output (at most a few KiB), lossily decoded, when captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// The end of its standard error (at most a few KiB), lossily decoded, when captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
}

/// What the host beside a target serves: the window list and the pixels. The ops marked
/// `host` in the catalog (`list_windows`, `screenshot`) are handed to it by [`crate::serve`],
/// the tree synced, the app settled and a screenshot's node resolved to its bounds.
pub trait Host<T: Target + ?Sized> {
    /// The app's windows, focused first.
    fn list_windows(&mut self, target: &mut T) -> OpResult<Vec<WindowInfo>>;

    /// A PNG of the window, or of `crop` (window-logical px) within it, as bytes with its
    /// size and scale ([`Image`]; `serve` answers it as [`Reply::Image`](crate::Reply::Image)).
    fn screenshot(&mut self, target: &mut T, crop: Option<Bounds>) -> OpResult<Image>;

    /// A PNG of node `id` (its `bounds` as the mirror has them): by default the window's
    /// pixels at those bounds; a host whose app has several windows captures the one that
    /// shows the node (a dialog over the main window is not the main window's pixels there).
    fn screenshot_node(
        &mut self,
        target: &mut T,
        _id: accesskit::NodeId,
        bounds: Bounds,
    ) -> OpResult<Image> {
        self.screenshot(target, Some(bounds))
    }
}

/// A host with one window and no renderer: `list_windows` lists the app's root window,
/// `screenshot` is `UNSUPPORTED`.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoHost;

impl<T: Target + ?Sized> Host<T> for NoHost {
    fn list_windows(&mut self, _target: &mut T) -> OpResult<Vec<WindowInfo>> {
        Ok(vec![WindowInfo {
            id: crate::WindowId(0),
            title: "main".into(),
            focused: true,
            node: None,
        }])
    }

    fn screenshot(&mut self, _target: &mut T, _crop: Option<Bounds>) -> OpResult<Image> {
        Err(OpError::unsupported("screenshot"))
    }
}

/// A window the host knows about.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct WindowInfo {
    /// Id (decimal string on the wire).
    pub id: crate::WindowId,
    /// Title.
    pub title: String,
    /// Has focus.
    pub focused: bool,
    /// The window's node in the accessibility tree (pass it as `snapshot_tree`'s root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<crate::NodeKey>,
}

/// A request to open a window, as the app makes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenWindowRequest {
    /// Title of the new window.
    pub title: String,
}

/// The window sink an app opens windows through (headless: [`RecordingWindowOps`]). A
/// target owns its sink; it is not threaded through input calls.
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
            node: None,
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
