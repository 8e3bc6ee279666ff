//! The settle model: how far an op runs the app forward before it replies.

use serde::{Deserialize, Serialize};

/// How an op settles the app after acting. Every field is optional on the wire.
///
/// On a simulated clock the app moves by exactly `clock_millis + 16 × frames`, where `frames`
/// is the number of animation frames run (at most `max_anim_frames`). Hitting the frame cap is
/// a silent success; only the wall-clock `settle_timeout_ms` gives `SETTLE_TIMEOUT`.
///
/// On a real clock (an out-of-process app) settle waits for the action's first effect — a
/// tree change after the op — and then for `quiet_ms` without further change, never longer
/// than `settle_timeout_ms`; the reply reports the milliseconds it measured.
///
/// ```
/// let s: automation_core::SettleSpec = serde_json::from_str(r#"{"clock_millis": 200}"#).unwrap();
/// assert_eq!(s.max_anim_frames, 60);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SettleSpec {
    /// Simulated milliseconds to advance once before waiting for animations.
    pub clock_millis: u64,
    /// Upper bound on 16 ms animation frames to run while the app is still animating.
    pub max_anim_frames: u32,
    /// Run a layout pass before re-reading the tree.
    pub layout_after: bool,
    /// Wall-clock budget for the whole settle (and the simulated budget of `wait_for_condition`).
    pub settle_timeout_ms: u64,
    /// Real-clock targets only: the settle ends once the tree has been quiet this long (after
    /// the action's first effect, when it had one).
    pub quiet_ms: u64,
}

/// Length of one simulated animation frame.
pub const FRAME_MILLIS: u64 = 16;

impl Default for SettleSpec {
    fn default() -> Self {
        Self {
            clock_millis: 0,
            max_anim_frames: 60,
            layout_after: true,
            settle_timeout_ms: 500,
            quiet_ms: 100,
        }
    }
}

impl SettleSpec {
    /// The limits the live bridge enforces so no op freezes a UI thread for long (the one
    /// place they are written; the bridge, its docs and the CLI read them from here).
    pub const LIVE_MAX_FRAMES: u32 = 120;
    /// See [`SettleSpec::LIVE_MAX_FRAMES`].
    pub const LIVE_MAX_TIMEOUT_MS: u64 = 2000;

    /// This spec within the live bridge's limits.
    #[must_use]
    pub fn live_clamped(self) -> Self {
        self.clamped(Self::LIVE_MAX_FRAMES, Self::LIVE_MAX_TIMEOUT_MS)
    }

    /// Longest settle or wait budget a request may ask for.
    pub const MAX_TIMEOUT_MS: u64 = 120_000;

    /// Refuses a budget so long that the op would look like a hang.
    pub fn check(&self) -> Result<(), crate::OpError> {
        if self.quiet_ms > Self::MAX_TIMEOUT_MS {
            return Err(crate::OpError::bad_argument(format!(
                "settle.quiet_ms {} is over the {} ms limit",
                self.quiet_ms,
                Self::MAX_TIMEOUT_MS
            ))
            .with_hint(
                "a quiet period of 50-500 ms is typical; the settle budget bounds it anyway",
            ));
        }
        if self.settle_timeout_ms > Self::MAX_TIMEOUT_MS {
            return Err(crate::OpError::bad_argument(format!(
                "settle.settle_timeout_ms {} is over the {} ms limit",
                self.settle_timeout_ms,
                Self::MAX_TIMEOUT_MS
            ))
            .with_hint("wait in several calls, or fix what keeps the app busy"));
        }
        Ok(())
    }

    /// This spec with frames and timeout clamped to the given maxima.
    #[must_use]
    pub fn clamped(self, max_frames: u32, max_timeout_ms: u64) -> Self {
        Self {
            max_anim_frames: self.max_anim_frames.min(max_frames),
            settle_timeout_ms: self.settle_timeout_ms.min(max_timeout_ms),
            ..self
        }
    }
}
