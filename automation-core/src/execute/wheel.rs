//! `scroll`: a wheel over a node, judged on a real clock by what moved in its window.

use accesskit::{NodeId, Role};
use accesskit_consumer::NodeRef;
use serde_json::json;

use super::Session;
use super::actionable::Reach;
use super::effect;
use super::options;
use super::pointer::{mouse, node_point};
use super::time::{self, Expect};
use crate::error::{OpError, OpResult};
use crate::input::{PointerPhase, ScrollEvent, ScrollUnit};
use crate::ops::Scroll;
use crate::settle::SettleSpec;
use crate::target::{ClockKind, Target};

/// A wheel over the node. On a real clock it is judged as a person sees a wheel: something
/// in its window moved (a position, a scroll bar's value); a wheel that moved
/// nothing (at the end already, or caught by a window over it) is `NO_EFFECT`.
pub(super) fn scroll<T: Target + ?Sized>(
    s: &mut Session<T>,
    a: &Scroll,
    settle: &SettleSpec,
) -> OpResult {
    if !(a.dx.is_finite() && a.dy.is_finite()) || (a.dx == 0.0 && a.dy == 0.0) {
        return Err(OpError::bad_argument(
            "scroll needs a finite, non-zero dx or dy",
        ));
    }
    let at = node_point(s, &a.node, a.at.map(|[x, y]| (x, y)), Reach::Wheel)?;
    let id = s.resolve(&a.node)?.id;
    // Positions read fresh on both sides: a browser sends no event for a scroll, and updates
    // its positions late; GTK 4 sends none for a scroll bar's value.
    let bars = scroll_bars(s, id);
    for watched in std::iter::once(id).chain(bars.iter().copied()) {
        s.target.reread(watched);
    }
    s.sync()?;
    if s.target.clock() == ClockKind::Real {
        still_before_the_wheel(s, id, &bars)?;
    }
    let version = s.mirror.version();
    let before = scroll_positions(s, id);
    let mods = a.modifiers(s.target.platform());
    mouse(s, PointerPhase::Move, at, None, mods)?;
    let unit = if a.lines {
        ScrollUnit::Lines
    } else {
        ScrollUnit::Pixels
    };
    s.target.scroll(&ScrollEvent {
        position: at,
        dx: a.dx,
        dy: a.dy,
        unit,
        modifiers: mods,
    })?;
    for watched in std::iter::once(id).chain(bars.iter().copied()) {
        s.target.reread(watched);
    }
    let data = json!({ "x": at.x, "y": at.y });
    if s.target.clock() != ClockKind::Real {
        let report = time::settle(s, settle, Expect::EffectAfter(version))?;
        return Ok(super::merge(data, report.to_json(s)));
    }
    let moved = |s: &Session<T>| scroll_positions(s, id) != before;
    effect::judge_by(
        s,
        version,
        settle,
        data,
        &moved,
        &json!("a position under the wheel moves"),
        &|_| {
            json!(
                "nothing under the wheel moved: at its end already, or a window over it caught the wheel"
            )
        },
    )
}

/// How long a wheel waits for its window to hold still before it is sent.
const STILL_WITHIN: std::time::Duration = std::time::Duration::from_millis(600);

/// Waits (within [`STILL_WITHIN`]) until nothing in node `id`'s window moves between two reads
/// 50 ms apart: a scroll still animating from an earlier op (GTK 3's, on a loaded machine)
/// would move after the wheel whatever the wheel did, and be taken for its effect.
fn still_before_the_wheel<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
    bars: &[NodeId],
) -> Result<(), OpError> {
    let until = std::time::Instant::now() + STILL_WITHIN;
    let mut last = scroll_positions(s, id);
    while std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
        for watched in std::iter::once(id).chain(bars.iter().copied()) {
            s.target.reread(watched);
        }
        s.sync()?;
        let now = scroll_positions(s, id);
        if now == last {
            return Ok(());
        }
        last = now;
    }
    Ok(())
}

/// The scroll bars in node `id`'s window.
fn scroll_bars<T: Target + ?Sized>(s: &Session<T>, id: NodeId) -> Vec<NodeId> {
    let Some(node) = s.mirror.node(id) else {
        return Vec::new();
    };
    let window = std::iter::successors(Some(node), |n| n.parent())
        .find(|n| matches!(n.role(), Role::Window | Role::Dialog | Role::AlertDialog))
        .unwrap_or(node);
    options::descendants(window)
        .filter(|n| n.role() == Role::ScrollBar)
        .map(|n| n.locate().0)
        .collect()
}

/// What a wheel over node `id` may move: the bounds and values of everything in its window
/// (what scrolls is not always under the node: egui's scroll bar moves its siblings).
fn scroll_positions<T: Target + ?Sized>(s: &Session<T>, id: NodeId) -> Vec<(u64, [i64; 4], i64)> {
    let Some(node) = s.mirror.node(id) else {
        return Vec::new();
    };
    let key = |n: &NodeRef| {
        let b = n.bounding_box().map_or([0; 4], |r| {
            [r.x0, r.y0, r.x1, r.y1].map(|v| (v * 4.0).round() as i64)
        });
        let value = n
            .numeric_value()
            .map_or(i64::MIN, |v| (v * 1000.0).round() as i64);
        (n.locate().0.0, b, value)
    };
    let window = std::iter::successors(Some(node), |n| n.parent())
        .find(|n| matches!(n.role(), Role::Window | Role::Dialog | Role::AlertDialog))
        .unwrap_or(node);
    std::iter::once(window)
        .chain(options::descendants(window))
        .map(|n| key(&n))
        .collect()
}
