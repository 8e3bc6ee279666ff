//! Time: settle, wait_for_condition, advance_clock.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Session;
use crate::error::{ErrorCode, OpError, OpResult};
use crate::node_ref::Selector;
use crate::ops::Condition;
use crate::settle::{FRAME_MILLIS, SettleSpec};
use crate::target::{ClockKind, Target, WindowOps};

/// What a settle did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettleReport {
    /// Animation frames run.
    pub frames: u32,
    /// Simulated milliseconds advanced: `clock_millis + 16 × frames`.
    pub advanced_ms: u64,
    /// Still animating when the frame cap stopped the loop.
    pub capped: bool,
}

impl SettleReport {
    pub(super) fn to_json<T: Target + ?Sized>(self, s: &Session<T>) -> Value {
        json!({
            "settled": { "frames": self.frames, "advanced_ms": self.advanced_ms, "still_animating": self.capped },
            "version": s.mirror.version(),
        })
    }
}

/// `now + millis`, saturating where `Instant` is narrow.
fn after(millis: u64) -> Instant {
    let now = Instant::now();
    now.checked_add(Duration::from_millis(millis))
        .unwrap_or(now + Duration::from_secs(3600))
}

/// The settle loop: advance `clock_millis` once; while animating and under the frame cap,
/// advance one 16 ms frame (checking the wall deadline after each); relayout; resync.
pub(super) fn settle<T: Target + ?Sized>(
    s: &mut Session<T>,
    w: &mut dyn WindowOps,
    spec: &SettleSpec,
) -> Result<SettleReport, OpError> {
    let deadline = after(spec.settle_timeout_ms);
    let timed_out = |frames: u32| {
        OpError::new(
            ErrorCode::SettleTimeout,
            format!("the app was still busy after {} ms of wall-clock time ({frames} frames)", spec.settle_timeout_ms),
        )
        .with_hint("the op was performed; retry, or raise settle.settle_timeout_ms / lower settle.max_anim_frames")
    };
    s.target.advance(spec.clock_millis, w)?;
    let mut frames = 0u32;
    while frames < spec.max_anim_frames && s.target.is_animating() {
        if Instant::now() > deadline {
            return Err(timed_out(frames));
        }
        s.target.advance(FRAME_MILLIS, w)?;
        frames += 1;
    }
    if Instant::now() > deadline {
        return Err(timed_out(frames));
    }
    if spec.layout_after {
        s.target.relayout(w)?;
    }
    s.sync()?;
    Ok(SettleReport {
        frames,
        advanced_ms: spec
            .clock_millis
            .saturating_add(FRAME_MILLIS * u64::from(frames)),
        capped: frames == spec.max_anim_frames && s.target.is_animating(),
    })
}

fn holds<T: Target + ?Sized>(s: &Session<T>, condition: &Condition) -> bool {
    match condition {
        Condition::NodeExists { role, label } => {
            let sel = Selector {
                role: role.clone(),
                label: label.clone(),
                ..Selector::default()
            };
            !s.matches(&sel).is_empty()
        }
        Condition::NodeValue { node, expected } => s
            .resolve(node)
            .ok()
            .and_then(|r| s.mirror.node(r.id))
            .is_some_and(|n| n.value().as_deref() == Some(expected.as_str())),
        Condition::NodeGone { node } => s.mirror.node(node.id()).is_none(),
        Condition::AtVersionAtLeast { version } => s.mirror.version() >= *version,
    }
}

/// Polls `ceil(budget / 16)` simulated frames; the wall clock is only a backstop
/// (`max(budget, 250 ms)`) against a tree that rebuilds forever.
pub(super) fn wait_for<T: Target + ?Sized>(
    s: &mut Session<T>,
    w: &mut dyn WindowOps,
    condition: &Condition,
    spec: &SettleSpec,
) -> OpResult {
    if let Condition::NodeExists {
        role: None,
        label: None,
    } = condition
    {
        return Err(OpError::bad_argument(
            "node_exists needs a role, a label, or both",
        ));
    }
    let budget = spec.settle_timeout_ms;
    let polls = budget.div_ceil(FRAME_MILLIS);
    let backstop = after(budget.max(250));
    s.mirror.require_state()?;
    let mut waited = 0u64;
    loop {
        if holds(s, condition) {
            return Ok(
                json!({ "satisfied": true, "waited_ms": waited, "version": s.mirror.version() }),
            );
        }
        if waited / FRAME_MILLIS >= polls || Instant::now() > backstop {
            break;
        }
        s.target.advance(FRAME_MILLIS, w)?;
        s.sync()?;
        waited += FRAME_MILLIS;
    }
    Err(OpError::new(
        ErrorCode::WaitTimeout,
        format!("condition still false after {waited} ms ({polls} polls)"),
    )
    .with_hint("raise settle.settle_timeout_ms (the wait budget), or check the condition with snapshot_tree"))
}

pub(super) fn advance_clock<T: Target + ?Sized>(
    s: &mut Session<T>,
    w: &mut dyn WindowOps,
    millis: u64,
) -> OpResult {
    if s.target.clock() == ClockKind::Real {
        return Err(OpError::unsupported(
            "advance_clock (this target runs on the real clock)",
        ));
    }
    s.target.advance(millis, w)?;
    s.sync()?;
    Ok(json!({ "advanced_ms": millis, "version": s.mirror.version() }))
}
