//! Whether a point on a node can receive pointer input: inside the window and inside every
//! scroll view (or clipping ancestor) around the node — and scrolling a node into view.
//!
//! A click on a row below a scroll area's edge lands on whatever is drawn there (or nothing)
//! and answered `ok` before; now the node is scrolled into view first, or the op fails.

use std::time::Duration;

use accesskit::{Action, ActionRequest, NodeId, Rect, Role, TreeId};

use super::Session;
use crate::error::{ErrorCode, OpError};
use crate::input::Point;
use crate::settle::FRAME_MILLIS;
use crate::snapshot::Bounds;
use crate::target::{ActionOutcome, ClockKind, Target};

/// How long a real-clock target gets to apply a scroll before the bounds are read again.
const REAL_SCROLL_WAIT: Duration = Duration::from_millis(300);

/// An axis-aligned area in window-logical px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Area {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Area {
    fn of(r: Rect) -> Self {
        Self {
            x0: r.x0,
            y0: r.y0,
            x1: r.x1,
            y1: r.y1,
        }
    }

    fn intersect(self, o: Area) -> Area {
        Area {
            x0: self.x0.max(o.x0),
            y0: self.y0.max(o.y0),
            x1: self.x1.min(o.x1),
            y1: self.y1.min(o.y1),
        }
    }

    /// The centre of what of `b` lies inside this area, when any does.
    pub fn part_of(&self, b: Bounds) -> Option<Point> {
        let part = self.intersect(Area {
            x0: b.x,
            y0: b.y,
            x1: b.x + b.width,
            y1: b.y + b.height,
        });
        (part.x1 > part.x0 && part.y1 > part.y0)
            .then(|| Point::new((part.x0 + part.x1) / 2.0, (part.y0 + part.y1) / 2.0))
    }

    pub fn contains(&self, p: Point) -> bool {
        p.x >= self.x0 && p.x < self.x1 && p.y >= self.y0 && p.y < self.y1
    }
}

/// The window: what the target says, else the root's bounds.
pub(super) fn window_area<T: Target + ?Sized>(s: &mut Session<T>) -> Option<Area> {
    if let Some(r) = s.target.window_rect() {
        return Some(Area::of(r));
    }
    let root = s.mirror.state()?.root();
    root.bounding_box().map(Area::of)
}

/// The part of the window where `id` can be hit: the target's hit rect when it knows one, else
/// the window cut by every ancestor that is a scroll view or clips its children. `None` when
/// nothing bounds it (no geometry at all).
pub(super) fn visible_area<T: Target + ?Sized>(s: &mut Session<T>, id: NodeId) -> Option<Area> {
    let window = window_area(s);
    if let Some(hit) = s.target.hit_rect(id) {
        let hit = Area::of(hit);
        return Some(window.map_or(hit, |w| w.intersect(hit)));
    }
    let node = s.mirror.node(id)?;
    let mut area = window;
    let mut cursor = node.parent();
    while let Some(parent) = cursor {
        if (parent.role() == Role::ScrollView || parent.clips_children())
            && let Some(r) = parent.bounding_box()
        {
            let clip = Area::of(r);
            area = Some(area.map_or(clip, |a| a.intersect(clip)));
        }
        cursor = parent.parent();
    }
    area
}

/// Asks the app to scroll `id` into view, then lets the scroll land (one frame on a simulated
/// clock; a short wait for activity on a real one). A target that does not handle the action
/// is fine: the caller re-checks visibility and fails with the bounds.
pub(super) fn scroll_into_view<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
) -> Result<(), OpError> {
    let request = ActionRequest {
        action: Action::ScrollIntoView,
        target_tree: TreeId::ROOT,
        target_node: id,
        data: None,
    };
    if s.target.action(request)? == ActionOutcome::Unhandled {
        return Ok(());
    }
    match s.target.clock() {
        // Two frames: one to apply the scroll target, one to lay out at the new offset.
        ClockKind::Simulated => {
            s.target.advance(FRAME_MILLIS)?;
            s.target.advance(FRAME_MILLIS)?;
        }
        ClockKind::Real => {
            s.target.wait_for_activity(REAL_SCROLL_WAIT)?;
        }
    }
    s.sync()
}

/// `OUT_OF_VIEW`: where the node is, where the visible area is, and what to do.
pub(super) fn out_of_view<T: Target + ?Sized>(
    s: &Session<T>,
    id: NodeId,
    b: Bounds,
    v: Area,
) -> OpError {
    let name = s
        .reference(id)
        .map_or_else(|| format!("node {}", id.0), |r| r.to_string());
    OpError::new(
        ErrorCode::OutOfView,
        format!(
            "{name} is at ({}, {}) size {}×{}, outside the visible area ({}, {})–({}, {}), and scrolling it into view did not help",
            b.x, b.y, b.width, b.height, v.x0, v.y0, v.x1, v.y1
        ),
    )
    .with_hint("scroll its container (scroll with a node and delta), enlarge the window, or use invoke_action, which needs no geometry")
    .with_candidates(s.candidates_of(&[id]))
}
