//! Pointer input: mouse, touch and pen; scroll; drag; the named gestures.

use std::collections::BTreeMap;

use accesskit::NodeId;
use serde::Serialize;
use serde_json::{Value, json};

use super::Session;
use super::actionable::{self, Reach};
use super::effect::{self, Watch};
use super::visibility;
use crate::error::{ErrorCode, OpError, OpResult};
use crate::input::{Modifiers, Point, PointerButton, PointerEvent, PointerKind, PointerPhase};
use crate::node_ref::NodeTarget;
use crate::ops::{DragNode, Fling, InjectPointer, LongPress, Pinch, PointerAction, TouchStep};
use crate::settle::{FRAME_MILLIS, SettleSpec};
use crate::snapshot::Bounds;
use crate::target::{Aim, Hit, Target};

/// The mouse's pointer id.
pub const MOUSE_ID: u64 = 0;

/// One pointer the session knows about.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct PointerRecord {
    /// Pointer id (the mouse is 0); a number, unlike node ids, as it is small.
    #[serde(rename = "pointer_id")]
    pub id: u64,
    /// Kind.
    pub kind: PointerKind,
    /// W3C primary flag, fixed when the pointer arrived.
    pub primary: bool,
    /// In contact / a button held.
    pub down: bool,
    /// Last position.
    pub position: Point,
    /// Mouse buttons held.
    pub buttons: Vec<PointerButton>,
}

/// The pointers the session has produced: the mouse once it has moved, and every finger or
/// stylus between its down and its up/cancel.
#[derive(Debug, Default)]
pub struct Pointers {
    mouse: Option<PointerRecord>,
    contacts: BTreeMap<u64, PointerRecord>,
    next_id: u64,
}

impl Pointers {
    /// Every live pointer, mouse first.
    pub fn all(&self) -> Vec<PointerRecord> {
        self.mouse
            .iter()
            .chain(self.contacts.values())
            .cloned()
            .collect()
    }

    /// Mouse buttons currently held.
    pub fn mouse_buttons(&self) -> Vec<PointerButton> {
        self.mouse
            .as_ref()
            .map(|m| m.buttons.clone())
            .unwrap_or_default()
    }

    fn allocate(&mut self, kind: PointerKind, position: Point) -> PointerRecord {
        self.next_id += 1;
        let fingers = self.contacts.values().any(|c| c.kind == PointerKind::Touch);
        let primary = match kind {
            PointerKind::Touch => !fingers,
            PointerKind::Pen => !fingers,
            PointerKind::Mouse => true,
        };
        PointerRecord {
            id: self.next_id,
            kind,
            primary,
            down: true,
            position,
            buttons: Vec::new(),
        }
    }
}

pub(super) fn query_pointers<T: Target + ?Sized>(s: &mut Session<T>) -> OpResult {
    let mut reply =
        json!({ "pointers": serde_json::to_value(s.pointers.all()).unwrap_or(Value::Null) });
    if let Ok(details) = s.target.pointer_details() {
        reply["details"] = details;
    }
    Ok(reply)
}

/// Where pointer input aimed at `node` lands: its centre, or `local` within its bounds. A
/// point outside the visible area (the window, and every scroll view around the node) is first
/// scrolled into view, as Playwright's actionability checks do; when it still is not visible
/// the op fails `OUT_OF_VIEW` with the bounds, before any input is sent.
pub(super) fn node_point<T: Target + ?Sized>(
    s: &mut Session<T>,
    node: &NodeTarget,
    local: Option<(f64, f64)>,
    reach: Reach,
) -> Result<Point, OpError> {
    let at = |b: Bounds| match local {
        Some((x, y)) => Point::new(b.x + x, b.y + y),
        None => b.center(),
    };
    let resolved = s.resolve(node)?;
    actionable::check_now(s, resolved.id, reach)?;
    // A point the target proves reaches it (another window may cover its centre, as a
    // dialog over a text view does): a person aims at the part they see.
    if local.is_none()
        && let Aim::At { x, y } = s.target.aim_node(resolved.id)?
    {
        return Ok(Point::new(x, y));
    }
    let bounds = resolved.require_bounds()?;
    let Some(visible) = visibility::visible_area(s, resolved.id) else {
        return Ok(at(bounds));
    };
    if visible.contains(at(bounds)) {
        return Ok(at(bounds));
    }
    // A node larger than what shows of it (a long text area in its scroll view): a person
    // aims at the part that shows.
    if local.is_none()
        && let Some(part) = visible.part_of(bounds)
    {
        return Ok(part);
    }
    visibility::scroll_into_view(s, resolved.id)?;
    let resolved = s.resolve(node)?;
    let bounds = resolved.require_bounds()?;
    match visibility::visible_area(s, resolved.id) {
        Some(visible) if !visible.contains(at(bounds)) => {
            Err(visibility::out_of_view(s, resolved.id, bounds, visible))
        }
        _ => Ok(at(bounds)),
    }
}

/// The target's own click on `id` ([`Target::click_node`]); a node it finds scrolled out of
/// its container or off the window is scrolled into view first, as a person scrolls to what
/// they want to click, and tried once more.
pub(super) fn click_in_view<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
    button: PointerButton,
) -> Result<Hit, OpError> {
    let hit = s.target.click_node(id, button)?;
    let Hit::Missed(why) = &hit else {
        return Ok(hit);
    };
    let out_of_view = ["not showing", "clipped", "outside"]
        .iter()
        .any(|w| why.contains(w));
    if !out_of_view {
        return Ok(hit);
    }
    // A toolkit that cannot scroll it (GTK 4 answers NotSupported) leaves the first miss as
    // the answer.
    if visibility::scroll_into_view(s, id).is_err() {
        return Ok(hit);
    }
    s.target.reread(id);
    s.sync()?;
    Ok(s.target.click_node(id, button)?)
}

/// A primary click on node `id` at its visible centre, once the mirror's hit test says that
/// point hits the node (or one of its descendants): the point clicked; `Err(why)` with nothing
/// sent when no point could be proven (scrolled away, covered by another node).
pub(super) fn click_proven<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
) -> Result<Result<Point, String>, OpError> {
    let node = NodeTarget::Id(crate::node_ref::NodeKey(id.0));
    let at = match node_point(s, &node, None, Reach::Pointer) {
        Ok(p) => p,
        Err(e) if e.code == ErrorCode::OutOfView || e.code == ErrorCode::NotVisible => {
            return Ok(Err(e.message));
        }
        Err(e) => return Err(e),
    };
    let hit = s.mirror.state().and_then(|tree| {
        let root = tree.root();
        root.node_at_point(accesskit::Point::new(at.x, at.y), &|_| {
            accesskit_consumer::FilterResult::Include
        })
        .map(|n| n.locate().0)
    });
    let hits_it =
        hit.is_some_and(|h| h == id || s.mirror.node(h).is_some_and(|n| effect::is_inside(&n, id)));
    if !hits_it {
        let other = hit
            .and_then(|h| s.reference(h))
            .map_or_else(|| "nothing".to_string(), |r| r.to_string());
        return Ok(Err(format!(
            "its centre ({}, {}) hits {other}, not it: it is covered or clipped",
            at.x, at.y
        )));
    }
    mouse_click(s, at, PointerButton::Primary, Modifiers::default())?;
    Ok(Ok(at))
}

/// A raw point must be inside the window: input outside it reaches nothing.
fn window_point<T: Target + ?Sized>(s: &mut Session<T>, x: f64, y: f64) -> Result<Point, OpError> {
    let p = Point::new(x, y);
    match visibility::window_area(s) {
        Some(w) if !w.contains(p) => Err(OpError::bad_argument(format!(
            "point ({x}, {y}) is outside the window, which spans ({}, {})–({}, {})",
            w.x0, w.y0, w.x1, w.y1
        ))
        .with_hint("aim inside the window, or pass `node` to aim at a node")),
        _ => Ok(p),
    }
}

/// Sends one mouse sample, keeping held buttons across ops.
pub(super) fn mouse<T: Target + ?Sized>(
    s: &mut Session<T>,
    phase: PointerPhase,
    position: Point,
    button: Option<PointerButton>,
    modifiers: Modifiers,
) -> Result<(), OpError> {
    let record = s.pointers.mouse.get_or_insert_with(|| PointerRecord {
        id: MOUSE_ID,
        kind: PointerKind::Mouse,
        primary: true,
        down: false,
        position,
        buttons: Vec::new(),
    });
    record.position = position;
    match (phase, button) {
        (PointerPhase::Down, Some(b)) if !record.buttons.contains(&b) => record.buttons.push(b),
        (PointerPhase::Up, Some(b)) => record.buttons.retain(|x| *x != b),
        _ => {}
    }
    record.down = !record.buttons.is_empty();
    let event = PointerEvent {
        pointer_id: MOUSE_ID,
        kind: PointerKind::Mouse,
        phase,
        position,
        button,
        buttons_held: record.buttons.clone(),
        primary: true,
        pressure: None,
        tilt: None,
        modifiers,
    };
    s.target.pointer(&event)?;
    Ok(())
}

fn mouse_click<T: Target + ?Sized>(
    s: &mut Session<T>,
    at: Point,
    button: PointerButton,
    mods: Modifiers,
) -> Result<(), OpError> {
    mouse(s, PointerPhase::Move, at, None, mods)?;
    mouse(s, PointerPhase::Down, at, Some(button), mods)?;
    mouse(s, PointerPhase::Up, at, Some(button), mods)
}

/// Sends one touch/pen sample for a contact.
#[allow(clippy::too_many_arguments)]
fn contact<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: u64,
    phase: PointerPhase,
    position: Point,
    pressure: Option<f32>,
    tilt: Option<[f32; 2]>,
    modifiers: Modifiers,
) -> Result<(), OpError> {
    let Some(record) = s.pointers.contacts.get_mut(&id) else {
        return Err(
            OpError::new(ErrorCode::NotFound, format!("pointer {id} is not live"))
                .with_hint("list live pointers with query_pointers"),
        );
    };
    record.position = position;
    let event = PointerEvent {
        pointer_id: id,
        kind: record.kind,
        phase,
        position,
        button: None,
        buttons_held: Vec::new(),
        primary: record.primary,
        pressure,
        tilt,
        modifiers,
    };
    if matches!(phase, PointerPhase::Up | PointerPhase::Cancel) {
        s.pointers.contacts.remove(&id);
    }
    s.target.pointer(&event)?;
    Ok(())
}

fn contact_down<T: Target + ?Sized>(
    s: &mut Session<T>,
    kind: PointerKind,
    at: Point,
    pressure: Option<f32>,
    tilt: Option<[f32; 2]>,
    mods: Modifiers,
) -> Result<u64, OpError> {
    let record = s.pointers.allocate(kind, at);
    let id = record.id;
    s.pointers.contacts.insert(id, record);
    contact(s, id, PointerPhase::Down, at, pressure, tilt, mods)?;
    Ok(id)
}

/// `inject_pointer`; a click aimed at a node is judged by its effect on that node (a check box
/// flips, a tab becomes selected), as `invoke_action` is.
pub(super) fn inject_pointer<T: Target + ?Sized>(
    s: &mut Session<T>,
    a: &InjectPointer,
    settle: &SettleSpec,
) -> OpResult {
    let version = s.mirror.version();
    let watch = match (&a.node, a.action) {
        (Some(node), PointerAction::Click) => {
            let id = s.resolve(node)?.id;
            s.mirror
                .node(id)
                .map(|n| Watch::of(&n, accesskit::Action::Click, version))
        }
        _ => None,
    };
    let data = send_pointer(s, a)?;
    match watch {
        Some(watch) => effect::judge(s, watch, settle, data),
        None => super::settled(s, settle, version, data),
    }
}

fn send_pointer<T: Target + ?Sized>(s: &mut Session<T>, a: &InjectPointer) -> OpResult {
    if a.kind == PointerKind::Mouse
        && (a.pressure.is_some() || a.tilt.is_some() || a.pointer_id.is_some())
    {
        return Err(
            OpError::bad_argument("pressure, tilt and pointer_id are refused on a mouse")
                .with_hint(
                    "set kind to pen (pressure, tilt) or touch/pen (pointer_id), or drop them",
                ),
        );
    }
    if a.kind == PointerKind::Touch && (a.pressure.is_some() || a.tilt.is_some()) {
        return Err(OpError::bad_argument(
            "pressure and tilt are pen axes; a touch carries neither",
        ));
    }
    if a.pressure.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
        return Err(OpError::bad_argument(
            "pressure must be between 0.0 and 1.0",
        ));
    }
    if a.tilt
        .is_some_and(|t| t.iter().any(|d| !(-90.0..=90.0).contains(d)))
    {
        return Err(OpError::bad_argument(
            "tilt angles must be between -90 and 90 degrees",
        ));
    }
    // Validated above, so narrowing to the event's f32 loses nothing that matters.
    let pressure = a.pressure.map(|p| p as f32);
    let tilt = a.tilt.map(|[x, y]| [x as f32, y as f32]);
    if a.kind != PointerKind::Mouse && a.button != PointerButton::Primary {
        return Err(OpError::bad_argument("`button` applies to a mouse only"));
    }
    let local = match (a.x, a.y) {
        (Some(x), Some(y)) => Some((x, y)),
        (None, None) => None,
        _ => {
            return Err(OpError::bad_argument(
                "give both x and y, or neither (with node: its centre)",
            ));
        }
    };
    let mods = a.modifiers(s.target.platform());
    // A plain click on a node is a person's click: the target's own proof of where it lands
    // where it has one (it knows where its windows are, and what its toolkit's hit test says).
    if let Some(node) = &a.node
        && a.kind == PointerKind::Mouse
        && a.action == PointerAction::Click
        && local.is_none()
        && mods == Modifiers::default()
        && s.pointers.mouse_buttons().is_empty()
    {
        let resolved = s.resolve(node)?;
        actionable::check_now(s, resolved.id, Reach::Pointer)?;
        match click_in_view(s, resolved.id, a.button)? {
            Hit::Clicked { x, y } => {
                return Ok(json!({ "pointer_id": MOUSE_ID, "x": x, "y": y, "buttons_held": [] }));
            }
            Hit::Missed(why) => {
                let code = if why.contains("not showing") {
                    ErrorCode::NotVisible
                } else if why.contains("disabled") {
                    ErrorCode::Disabled
                } else {
                    ErrorCode::OutOfView
                };
                let name = s
                    .reference(resolved.id)
                    .map_or_else(|| format!("node {}", resolved.id.0), |r| r.to_string());
                return Err(OpError::new(
                    code,
                    format!("no click reaches {name}, so none was sent: {why}"),
                )
                .with_hint("scroll_into_view it, or close what covers it, then click again"));
            }
            Hit::Unknown => {}
        }
    }
    let at = match (&a.node, local) {
        (Some(node), local) => node_point(s, node, local, Reach::Pointer)?,
        (None, Some((x, y))) => window_point(s, x, y)?,
        (None, None) => {
            return Err(OpError::bad_argument(
                "inject_pointer needs x and y, or a node",
            ));
        }
    };
    if a.kind == PointerKind::Mouse {
        match a.action {
            PointerAction::Click => mouse_click(s, at, a.button, mods)?,
            PointerAction::DoubleClick => {
                mouse_click(s, at, a.button, mods)?;
                mouse_click(s, at, a.button, mods)?;
            }
            PointerAction::Down => mouse(s, PointerPhase::Down, at, Some(a.button), mods)?,
            PointerAction::Up => mouse(s, PointerPhase::Up, at, Some(a.button), mods)?,
            PointerAction::Move => mouse(s, PointerPhase::Move, at, None, mods)?,
        }
        return Ok(
            json!({ "pointer_id": MOUSE_ID, "x": at.x, "y": at.y, "buttons_held": s.pointers.mouse_buttons() }),
        );
    }
    let id = match (a.action, a.pointer_id) {
        (PointerAction::Down | PointerAction::Click | PointerAction::DoubleClick, Some(id)) => {
            return Err(OpError::bad_argument(format!(
                "pointer {id} is already allocated; a new contact gets a fresh id"
            ))
            .with_hint("omit pointer_id for a down or click"));
        }
        (PointerAction::Down, None) => contact_down(s, a.kind, at, pressure, tilt, mods)?,
        (PointerAction::Click | PointerAction::DoubleClick, None) => {
            let times = if a.action == PointerAction::Click {
                1
            } else {
                2
            };
            let mut id = 0;
            for _ in 0..times {
                id = contact_down(s, a.kind, at, pressure, tilt, mods)?;
                contact(s, id, PointerPhase::Up, at, pressure, tilt, mods)?;
            }
            id
        }
        (PointerAction::Move | PointerAction::Up, None) => {
            return Err(OpError::bad_argument(
                "a touch/pen move or up needs the pointer_id of a live contact",
            )
            .with_hint("use the id returned by the down, or query_pointers"));
        }
        (action, Some(id)) => {
            let phase = if action == PointerAction::Up {
                PointerPhase::Up
            } else {
                PointerPhase::Move
            };
            contact(s, id, phase, at, pressure, tilt, mods)?;
            id
        }
    };
    Ok(json!({ "pointer_id": id, "x": at.x, "y": at.y }))
}

pub(super) fn right_click<T: Target + ?Sized>(s: &mut Session<T>, node: &NodeTarget) -> OpResult {
    let at = node_point(s, node, None, Reach::Pointer)?;
    mouse_click(s, at, PointerButton::Secondary, Modifiers::default())?;
    Ok(json!({ "x": at.x, "y": at.y }))
}

/// Samples of a straight move, one per 60 Hz frame, excluding the start.
fn path(from: Point, to: Point, samples: u64) -> impl Iterator<Item = Point> {
    let n = samples.max(1);
    (1..=n).map(move |i| {
        let t = i as f64 / n as f64;
        Point::new(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t)
    })
}

/// Samples a drag and a fling send per unit of travel time.
const DRAG_SAMPLES: u64 = 8;

pub(super) fn drag_node<T: Target + ?Sized>(s: &mut Session<T>, a: &DragNode) -> OpResult {
    let to = match (&a.to_node, a.to_x, a.to_y) {
        (Some(node), None, None) => node_point(s, node, None, Reach::Wheel)?,
        (None, Some(x), Some(y)) => Point::new(x, y),
        (None, None, None) => {
            return Err(OpError::bad_argument(
                "drag_node needs a target: to_node, or to_x and to_y",
            ));
        }
        _ => {
            return Err(OpError::bad_argument(
                "give either to_node or both to_x and to_y, not a mix",
            ));
        }
    };
    let from = node_point(s, &a.node, None, Reach::Pointer)?;
    let mods = Modifiers::default();
    mouse(s, PointerPhase::Move, from, None, mods)?;
    mouse(
        s,
        PointerPhase::Down,
        from,
        Some(PointerButton::Primary),
        mods,
    )?;
    for p in path(from, to, DRAG_SAMPLES) {
        s.target.advance(FRAME_MILLIS)?;
        mouse(s, PointerPhase::Move, p, None, mods)?;
    }
    s.target.advance(FRAME_MILLIS)?;
    mouse(s, PointerPhase::Up, to, Some(PointerButton::Primary), mods)?;
    Ok(json!({ "from": [from.x, from.y], "to": [to.x, to.y] }))
}

pub(super) fn touch_sequence<T: Target + ?Sized>(
    s: &mut Session<T>,
    steps: &[TouchStep],
) -> OpResult {
    if steps.is_empty() {
        return Err(OpError::bad_argument(
            "inject_touch_sequence needs at least one step",
        ));
    }
    // Resolve and check every step before the first sample: a bad step sends nothing.
    let mut planned = Vec::with_capacity(steps.len());
    let mut down: BTreeMap<u32, bool> = BTreeMap::new();
    for (i, step) in steps.iter().enumerate() {
        let at = match &step.node {
            Some(node) => {
                node_point(s, node, Some((step.x, step.y)), Reach::Pointer).map_err(|e| {
                    OpError {
                        message: format!("step {i}: {}", e.message),
                        ..e
                    }
                })?
            }
            None => Point::new(step.x, step.y),
        };
        if !(at.x.is_finite() && at.y.is_finite()) {
            return Err(OpError::bad_argument(format!(
                "step {i}: x and y must be finite"
            )));
        }
        let is_down = down.get(&step.contact).copied().unwrap_or(false);
        match (step.phase, is_down) {
            (PointerPhase::Down, true) => {
                return Err(OpError::bad_argument(format!(
                    "step {i}: contact {} is already down",
                    step.contact
                )));
            }
            (PointerPhase::Move | PointerPhase::Up | PointerPhase::Cancel, false) => {
                return Err(OpError::bad_argument(format!(
                    "step {i}: contact {} is not down; its first step must be a down",
                    step.contact
                )));
            }
            _ => {}
        }
        down.insert(
            step.contact,
            step.phase == PointerPhase::Down || (is_down && step.phase == PointerPhase::Move),
        );
        planned.push((step, at));
    }
    let mut slots: BTreeMap<u32, u64> = BTreeMap::new();
    let mut samples = Vec::with_capacity(planned.len());
    for (step, at) in planned {
        if let Some(ms) = step.advance_ms {
            s.target.advance(ms)?;
        }
        let id = match step.phase {
            PointerPhase::Down => {
                let id = contact_down(s, PointerKind::Touch, at, None, None, Modifiers::default())?;
                slots.insert(step.contact, id);
                id
            }
            phase => {
                let id = slots.get(&step.contact).copied().unwrap_or_default();
                contact(s, id, phase, at, None, None, Modifiers::default())?;
                id
            }
        };
        samples.push(json!({ "contact": step.contact, "pointer_id": id, "phase": step.phase, "x": at.x, "y": at.y }));
    }
    let mut reply = json!({ "slots": slots, "steps": samples });
    if let Ok(details) = s.target.pointer_details() {
        reply["details"] = details;
    }
    Ok(reply)
}

/// Longest gesture a pinch or fling may describe.
const MAX_GESTURE_MS: u64 = 10_000;

fn frames_over(over_ms: u64) -> Result<u64, OpError> {
    if over_ms > MAX_GESTURE_MS {
        return Err(OpError::bad_argument(format!(
            "over_ms {over_ms} is longer than a gesture can be (at most {MAX_GESTURE_MS})"
        )));
    }
    Ok(over_ms.div_ceil(FRAME_MILLIS).max(2))
}

pub(super) fn pinch<T: Target + ?Sized>(s: &mut Session<T>, a: &Pinch) -> OpResult {
    if !(a.scale.is_finite() && a.scale > 0.0) {
        return Err(OpError::bad_argument(format!(
            "scale must be a positive number, got {}",
            a.scale
        )));
    }
    let span = a.start_distance.unwrap_or(100.0);
    if !(span.is_finite() && span > 0.0) {
        return Err(OpError::bad_argument("start_distance must be positive"));
    }
    let frames = frames_over(a.over_ms.unwrap_or(250))?;
    let c = node_point(s, &a.node, None, Reach::Pointer)?;
    let end = span * a.scale;
    let m = Modifiers::default();
    // Both fingers land before either moves: the recogniser's reference span is the landing.
    let f1 = contact_down(
        s,
        PointerKind::Touch,
        Point::new(c.x - span / 2.0, c.y),
        None,
        None,
        m,
    )?;
    let f2 = contact_down(
        s,
        PointerKind::Touch,
        Point::new(c.x + span / 2.0, c.y),
        None,
        None,
        m,
    )?;
    for i in 1..=frames {
        let d = span + (end - span) * (i as f64 / frames as f64);
        s.target.advance(FRAME_MILLIS)?;
        contact(
            s,
            f1,
            PointerPhase::Move,
            Point::new(c.x - d / 2.0, c.y),
            None,
            None,
            m,
        )?;
        contact(
            s,
            f2,
            PointerPhase::Move,
            Point::new(c.x + d / 2.0, c.y),
            None,
            None,
            m,
        )?;
    }
    contact(
        s,
        f1,
        PointerPhase::Up,
        Point::new(c.x - end / 2.0, c.y),
        None,
        None,
        m,
    )?;
    contact(
        s,
        f2,
        PointerPhase::Up,
        Point::new(c.x + end / 2.0, c.y),
        None,
        None,
        m,
    )?;
    Ok(
        json!({ "center": [c.x, c.y], "start_distance": span, "end_distance": end, "frames": frames }),
    )
}

pub(super) fn fling<T: Target + ?Sized>(s: &mut Session<T>, a: &Fling) -> OpResult {
    if !(a.dx.is_finite() && a.dy.is_finite()) || (a.dx == 0.0 && a.dy == 0.0) {
        return Err(OpError::bad_argument(
            "fling needs a finite, non-zero dx or dy",
        ));
    }
    let from = node_point(s, &a.node, None, Reach::Pointer)?;
    let to = Point::new(from.x + a.dx, from.y + a.dy);
    let m = Modifiers::default();
    let frames = frames_over(a.over_ms.unwrap_or(100))?;
    let id = contact_down(s, PointerKind::Touch, from, None, None, m)?;
    for p in path(from, to, frames) {
        s.target.advance(FRAME_MILLIS)?;
        contact(s, id, PointerPhase::Move, p, None, None, m)?;
    }
    contact(s, id, PointerPhase::Up, to, None, None, m)?;
    Ok(json!({ "samples": frames, "over_ms": frames * FRAME_MILLIS }))
}

pub(super) fn long_press<T: Target + ?Sized>(s: &mut Session<T>, a: &LongPress) -> OpResult {
    let Some(hold) = s.target.long_press_threshold_ms(a.kind) else {
        return Err(OpError::unsupported(
            "long_press (the target reports no long-press threshold)",
        ));
    };
    let local = match (a.x, a.y) {
        (Some(x), Some(y)) => Some((x, y)),
        (None, None) => None,
        _ => return Err(OpError::bad_argument("give both x and y, or neither")),
    };
    let at = node_point(s, &a.node, local, Reach::Pointer)?;
    let m = Modifiers::default();
    if a.kind == PointerKind::Mouse {
        mouse(s, PointerPhase::Move, at, None, m)?;
        mouse(s, PointerPhase::Down, at, Some(PointerButton::Primary), m)?;
        s.target.advance(hold)?;
        mouse(s, PointerPhase::Up, at, Some(PointerButton::Primary), m)?;
    } else {
        let id = contact_down(s, a.kind, at, None, None, m)?;
        s.target.advance(hold)?;
        contact(s, id, PointerPhase::Up, at, None, None, m)?;
    }
    Ok(json!({ "held_ms": hold, "x": at.x, "y": at.y }))
}

pub(super) fn cancel_pointer<T: Target + ?Sized>(s: &mut Session<T>, id: u64) -> OpResult {
    if id == MOUSE_ID {
        return Err(OpError::bad_argument(
            "the mouse cannot be cancelled; release its buttons with inject_pointer up",
        ));
    }
    let at = s
        .pointers
        .contacts
        .get(&id)
        .map(|r| r.position)
        .ok_or_else(|| {
            OpError::new(ErrorCode::NotFound, format!("pointer {id} is not live"))
                .with_hint("list live pointers with query_pointers")
        })?;
    contact(
        s,
        id,
        PointerPhase::Cancel,
        at,
        None,
        None,
        Modifiers::default(),
    )?;
    Ok(json!({ "pointer_id": id }))
}
