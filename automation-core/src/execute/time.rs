//! Time: settle, wait_for_condition, advance_clock — on either kind of clock.
//!
//! Simulated: the clock moves only by what the op asks (`clock_millis`, 16 ms frames), so a
//! run is deterministic. Real: nothing can be advanced, so settle waits — through
//! [`Target::wait_for_activity`] — for the op's first effect and then a quiet period, bounded
//! by the wall-clock budget, and reports the milliseconds it measured.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Session;
use crate::error::{ErrorCode, OpError, OpResult};
use crate::node_ref::NodeTarget;
use crate::ops::Condition;
use crate::settle::{FRAME_MILLIS, SettleSpec};
use crate::target::{ClockKind, Target};

/// What a settle did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleReport {
    /// A simulated clock was advanced.
    Simulated {
        /// Animation frames run.
        frames: u32,
        /// Simulated milliseconds advanced: `clock_millis + 16 × frames`.
        advanced_ms: u64,
        /// Still animating when the frame cap stopped the loop.
        capped: bool,
    },
    /// Real time was waited.
    Real {
        /// Wall-clock milliseconds the settle took.
        waited_ms: u64,
        /// Milliseconds after the op until its first effect (a tree change) arrived; `None`
        /// when the tree did not change within the budget.
        first_effect_ms: Option<u64>,
        /// The tree was still changing when the budget ran out.
        still_changing: bool,
    },
}

impl SettleReport {
    pub(super) fn to_json<T: Target + ?Sized>(self, s: &Session<T>) -> Value {
        let settled = match self {
            Self::Simulated {
                frames,
                advanced_ms,
                capped,
            } => json!({ "frames": frames, "advanced_ms": advanced_ms, "still_animating": capped }),
            Self::Real {
                waited_ms,
                first_effect_ms,
                still_changing,
            } => json!({
                "waited_ms": waited_ms,
                "first_effect_ms": first_effect_ms,
                "still_changing": still_changing,
            }),
        };
        json!({ "settled": settled, "version": s.mirror.version() })
    }
}

/// Whether the settle after an op should wait for that op's effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expect {
    /// The op sent input: wait for the tree to change after `version`, then for quiet.
    EffectAfter(u64),
    /// Nothing was sent (a bare settle, a screenshot): wait for quiet only.
    Quiet,
}

/// `now + millis`, saturating where `Instant` is narrow.
fn after(millis: u64) -> Instant {
    let now = Instant::now();
    now.checked_add(Duration::from_millis(millis))
        .unwrap_or(now + Duration::from_secs(3600))
}

fn millis_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Settles with `spec`, on whichever clock the target runs.
pub(super) fn settle<T: Target + ?Sized>(
    s: &mut Session<T>,
    spec: &SettleSpec,
    expect: Expect,
) -> Result<SettleReport, OpError> {
    match s.target.clock() {
        ClockKind::Simulated => settle_simulated(s, spec),
        ClockKind::Real => settle_real(s, spec, expect),
    }
}

/// The simulated loop: advance `clock_millis` once; while animating and under the frame cap,
/// advance one 16 ms frame (checking the wall deadline after each); relayout; resync.
fn settle_simulated<T: Target + ?Sized>(
    s: &mut Session<T>,
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
    s.target.advance(spec.clock_millis)?;
    let mut frames = 0u32;
    while frames < spec.max_anim_frames && s.target.is_animating() {
        if Instant::now() > deadline {
            return Err(timed_out(frames));
        }
        s.cancel
            .check(|| format!("the op was performed; settle stopped after {frames} frames"))?;
        s.target.advance(FRAME_MILLIS)?;
        frames += 1;
    }
    if Instant::now() > deadline {
        return Err(timed_out(frames));
    }
    if spec.layout_after {
        s.target.relayout()?;
    }
    s.sync()?;
    Ok(SettleReport::Simulated {
        frames,
        advanced_ms: spec
            .clock_millis
            .saturating_add(FRAME_MILLIS * u64::from(frames)),
        capped: frames == spec.max_anim_frames && s.target.is_animating(),
    })
}

/// The real-clock loop: wait (bounded by `settle_timeout_ms`) for the first tree change after
/// the op, then until the tree has been quiet for `quiet_ms`.
fn settle_real<T: Target + ?Sized>(
    s: &mut Session<T>,
    spec: &SettleSpec,
    expect: Expect,
) -> Result<SettleReport, OpError> {
    let start = Instant::now();
    let deadline = after(spec.settle_timeout_ms);
    let quiet = Duration::from_millis(spec.quiet_ms);
    s.sync()?;
    let mut first_effect_ms = match expect {
        Expect::EffectAfter(v) if s.mirror.version() > v => Some(0),
        Expect::EffectAfter(_) => None,
        Expect::Quiet => Some(0),
    };
    let mut last_change = start;
    loop {
        let now = Instant::now();
        let quiet_for = now.saturating_duration_since(last_change);
        if first_effect_ms.is_some() && quiet_for >= quiet {
            break;
        }
        if now >= deadline {
            let still_changing = first_effect_ms.is_some() && last_change > start;
            return Ok(SettleReport::Real {
                waited_ms: millis_since(start),
                first_effect_ms: first_effect_ms.filter(|_| expect != Expect::Quiet),
                still_changing,
            });
        }
        let until = if first_effect_ms.is_some() {
            (last_change + quiet).min(deadline)
        } else {
            deadline
        };
        s.cancel
            .check(|| "the op was performed; settle stopped waiting".to_string())?;
        let version = s.mirror.version();
        s.target
            .wait_for_activity(until.saturating_duration_since(now))?;
        s.sync()?;
        if s.mirror.version() != version {
            last_change = Instant::now();
            first_effect_ms.get_or_insert_with(|| millis_since(start));
        }
    }
    Ok(SettleReport::Real {
        waited_ms: millis_since(start),
        first_effect_ms: first_effect_ms.filter(|_| expect != Expect::Quiet),
        still_changing: false,
    })
}

fn holds<T: Target + ?Sized>(s: &Session<T>, condition: &Condition) -> bool {
    match condition {
        Condition::NodeExists(sel) => s.matches(sel).is_ok_and(|found| !found.is_empty()),
        Condition::NodeValue { node, expected } => s
            .resolve(node)
            .ok()
            .and_then(|r| s.mirror.node(r.id))
            .is_some_and(|n| n.value().as_deref() == Some(expected.as_str())),
        Condition::NodeGone { node } => match node {
            NodeTarget::Ref(key) => s.resolve_ref(*key).is_err(),
            NodeTarget::Id(key) => s.mirror.node(key.id()).is_none(),
            NodeTarget::Select(sel) => s.matches(sel).is_ok_and(|found| found.is_empty()),
        },
        Condition::AtVersionAtLeast { version } => s.mirror.version() >= *version,
    }
}

/// Refuses a condition that can never be meaningful before any waiting: an empty selector, an
/// unknown role, a reference this session never handed out.
fn check_condition<T: Target + ?Sized>(
    s: &Session<T>,
    condition: &Condition,
) -> Result<(), OpError> {
    match condition {
        Condition::NodeExists(sel) if sel.is_empty() => Err(OpError::bad_argument(
            "node_exists needs at least one of role, label, label_contains, value, author_id",
        )
        .with_hint(r#"e.g. {"kind": "node_exists", "role": "Label", "label": "Saved"}"#)),
        Condition::NodeExists(sel)
        | Condition::NodeGone {
            node: NodeTarget::Select(sel),
        } => s.matches(sel).map(drop),
        Condition::NodeGone {
            node: NodeTarget::Ref(key),
        } if s.mirror.refs.binding(*key).is_none() => Err(OpError::new(
            ErrorCode::NotFound,
            format!("{key} was never handed out in this session"),
        )
        .with_hint("take references from snapshot_tree or find_node, or wait on a selector")),
        _ => Ok(()),
    }
}

/// `WAIT_TIMEOUT`, saying what the tree held that came closest.
fn timed_out<T: Target + ?Sized>(s: &Session<T>, condition: &Condition, budget: u64) -> OpError {
    let err = OpError::new(
        ErrorCode::WaitTimeout,
        format!("condition still false after {budget} ms"),
    )
    .with_hint("raise settle.settle_timeout_ms (the wait budget), or check the condition with snapshot_tree");
    match condition {
        Condition::NodeExists(sel) => match s.mirror.state() {
            Some(state) => {
                let closest = s.not_found(sel, state);
                OpError {
                    message: format!("no node matched {sel} within {budget} ms"),
                    candidates: closest.candidates,
                    ..err
                }
            }
            None => err,
        },
        Condition::NodeValue { node, expected } => match s.resolve(node) {
            Ok(r) => {
                let actual = s.mirror.node(r.id).and_then(|n| n.value());
                OpError {
                    message: format!("{node} did not read {expected:?} within {budget} ms"),
                    ..err
                }
                .with_actual_expected(json!(actual), json!(expected))
            }
            Err(e) => OpError {
                message: format!("{node} never resolved within {budget} ms: {}", e.message),
                candidates: e.candidates,
                ..err
            },
        },
        Condition::NodeGone { node } => {
            let still = s.resolve(node).ok().map(|r| s.candidates_of(&[r.id]));
            OpError {
                message: format!("{node} was still there after {budget} ms"),
                candidates: still.unwrap_or_default(),
                ..err
            }
        }
        Condition::AtVersionAtLeast { version } => {
            err.with_actual_expected(json!(s.mirror.version()), json!(version))
        }
    }
}

/// Polls a condition. Simulated: `ceil(budget / 16)` frames of simulated time, the wall clock
/// only a backstop (`max(budget, 250 ms)`) against a tree that rebuilds forever. Real: the
/// budget is wall-clock time, re-checked whenever the app reports activity.
pub(super) fn wait_for<T: Target + ?Sized>(
    s: &mut Session<T>,
    condition: &Condition,
    spec: &SettleSpec,
) -> OpResult {
    s.mirror.require_state()?;
    check_condition(s, condition)?;
    let budget = spec.settle_timeout_ms;
    let waited = match s.target.clock() {
        ClockKind::Simulated => wait_simulated(s, condition, budget)?,
        ClockKind::Real => wait_real(s, condition, budget)?,
    };
    match waited {
        Some(waited) => {
            Ok(json!({ "satisfied": true, "waited_ms": waited, "version": s.mirror.version() }))
        }
        None => Err(timed_out(s, condition, budget)),
    }
}

fn wait_simulated<T: Target + ?Sized>(
    s: &mut Session<T>,
    condition: &Condition,
    budget: u64,
) -> Result<Option<u64>, OpError> {
    let polls = budget.div_ceil(FRAME_MILLIS);
    let backstop = after(budget.max(250));
    let mut waited = 0u64;
    loop {
        if holds(s, condition) {
            return Ok(Some(waited));
        }
        if waited / FRAME_MILLIS >= polls || Instant::now() > backstop {
            return Ok(None);
        }
        s.cancel
            .check(|| format!("the wait stopped after {waited} simulated ms"))?;
        s.target.advance(FRAME_MILLIS)?;
        s.sync()?;
        waited += FRAME_MILLIS;
    }
}

fn wait_real<T: Target + ?Sized>(
    s: &mut Session<T>,
    condition: &Condition,
    budget: u64,
) -> Result<Option<u64>, OpError> {
    let start = Instant::now();
    let deadline = after(budget);
    loop {
        s.sync()?;
        if holds(s, condition) {
            return Ok(Some(millis_since(start)));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        s.cancel
            .check(|| format!("the wait stopped after {} ms", millis_since(start)))?;
        s.target
            .wait_for_activity(deadline.saturating_duration_since(now))?;
    }
}

pub(super) fn advance_clock<T: Target + ?Sized>(s: &mut Session<T>, millis: u64) -> OpResult {
    if s.target.clock() == ClockKind::Real {
        return Err(OpError::unsupported(
            "advance_clock (this target runs on the real clock)",
        ));
    }
    s.target.advance(millis)?;
    s.sync()?;
    Ok(json!({ "advanced_ms": millis, "version": s.mirror.version() }))
}
