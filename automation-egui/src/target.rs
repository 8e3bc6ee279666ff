//! [`EguiTarget`]: an egui app on a simulated clock, as an automation-core [`Target`].
//!
//! # Frames
//! egui runs one *pass* per frame over a [`egui::RawInput`]. The target keeps a queue of
//! egui events and runs a frame:
//! - after every *discrete* input (a pointer press, release or cancel, a touch start or end,
//!   a key press, a wheel turn, an IME commit/preedit, an AccessKit action), at the current
//!   simulated time, so a press and its release always land in different frames, exactly as
//!   with a real event loop;
//! - on [`Target::advance`] (after moving the clock) and [`Target::relayout`].
//!
//! Pointer moves and key releases are queued and ride along with the next frame.
//!
//! # Time
//! `RawInput::time` is the simulated clock (`time_origin + advanced ms`, kept in integer µs), `predicted_dt` is one
//! 60 Hz frame. Only ops move it. "Still animating" is the root viewport's
//! `repaint_delay == 0` after the last frame.

use accesskit::{Action, ActionRequest, NodeId, TreeUpdate};
use automation_core::input::{ImeEvent, KeyEvent, PointerEvent, PointerKind, ScrollEvent};
use automation_core::{
    ActionOutcome, ClockKind, Platform, Point, PointerButton, RecordingWindowOps, Target,
    TargetError,
};
use egui::epaint::textures::TexturesDelta;
use egui::{Event, Pos2, Rect, Vec2, ViewportId};

use crate::app::{EguiApp, UiFn};
use crate::input::{self, PointerState};

/// Length of one simulated frame, in seconds (what `predicted_dt` says).
pub const FRAME_SECS: f32 = 1.0 / 60.0;

/// At most this many intermediate frames per `advance` (10 s at 60 Hz): an app that animates
/// forever cannot turn `advance_clock` with a huge value into an endless loop; past the cap the
/// clock jumps to the end.
pub const MAX_FRAMES_PER_ADVANCE: u32 = 600;

/// At most this many plain character presses share one frame (see [`Target::key`]).
pub const TYPING_BATCH: u32 = 1024;

/// The default logical window size of a headless target.
pub const DEFAULT_SIZE: [f32; 2] = [640.0, 480.0];

/// An egui app run headless (or, under [`crate::live`], inside a live eframe frame).
pub struct EguiTarget<'a> {
    ctx: egui::Context,
    app: Box<dyn EguiApp + 'a>,
    size: Vec2,
    /// What the "OS" reports (`RawInput` native pixels per point).
    native_ppp: f32,
    /// What egui used for the last frame (native × zoom).
    pixels_per_point: f32,
    /// Driving a live eframe context (see [`crate::live`]): textures also go back to eframe.
    #[cfg_attr(not(feature = "screenshot"), allow(dead_code))]
    pub(crate) live: bool,
    /// Microseconds at simulated time zero (live: the frame's real time). Time is kept in
    /// integer µs so every frame's `f64` seconds are monotonic, float rounding included.
    time_origin_us: u64,
    /// Simulated milliseconds since `time_origin`.
    advanced_ms: u64,
    /// The time (µs) of the last frame run on the context: frames never go back in time.
    last_us: u64,
    pending: Vec<Event>,
    /// Plain character presses queued since the last frame.
    typed_unframed: u32,
    /// Where in `pending` the typed text of those presses accumulates.
    typing_text_at: Option<usize>,
    latest: Option<TreeUpdate>,
    fresh: bool,
    animating: bool,
    /// When egui asked for the next frame (ms after the last one), if at all.
    repaint_after_ms: Option<u64>,
    frames: u64,
    pub(crate) pointer: PointerState,
    clipboard: String,
    /// The window sink the app opens windows through (what `list_windows` lists).
    windows: RecordingWindowOps,
    /// Texture changes not yet handed to a renderer (kept only when something renders).
    pub(crate) textures: TexturesDelta,
    keep_textures: bool,
    pub(crate) shapes: Vec<egui::epaint::ClippedShape>,
    platform: Platform,
    #[cfg(feature = "screenshot")]
    pub(crate) renderer: Option<crate::screenshot::Renderer>,
}

impl std::fmt::Debug for EguiTarget<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EguiTarget")
            .field("size", &self.size)
            .field("pixels_per_point", &self.pixels_per_point)
            .field("advanced_ms", &self.advanced_ms)
            .field("frames", &self.frames)
            .finish_non_exhaustive()
    }
}

impl EguiTarget<'static> {
    /// A target for a closure that draws one frame, at [`DEFAULT_SIZE`], 1 pixel per point.
    ///
    /// ```
    /// use automation_egui::EguiTarget;
    /// use automation_core::harness::{Harness, by_label};
    ///
    /// let mut checked = false;
    /// let target = EguiTarget::new(move |ui: &mut egui::Ui| {
    ///     ui.checkbox(&mut checked, "Remember me");
    /// });
    /// let mut h = Harness::new(target).unwrap();
    /// h.click(by_label("Remember me")).unwrap();
    /// h.expect(by_label("Remember me")).is_toggled(true).unwrap();
    /// ```
    pub fn new(ui: impl FnMut(&mut egui::Ui) + 'static) -> Self {
        Self::with_app(UiFn(ui))
    }
}

impl<'a> EguiTarget<'a> {
    /// A target for an [`EguiApp`] with a fresh context; runs the first frame.
    pub fn with_app(app: impl EguiApp + 'a) -> Self {
        Self::from_parts(egui::Context::default(), Box::new(app), 0)
    }

    /// A target driving `app` on an existing context (the live bridge uses the eframe one),
    /// with simulated time starting at `time_origin_us` microseconds. Runs no frame.
    pub(crate) fn on_context(
        ctx: egui::Context,
        app: Box<dyn EguiApp + 'a>,
        time_origin_us: u64,
        size: Vec2,
        ppp: f32,
    ) -> Self {
        ctx.enable_accesskit();
        Self {
            ctx,
            app,
            size,
            native_ppp: ppp,
            pixels_per_point: ppp,
            live: false,
            time_origin_us,
            advanced_ms: 0,
            last_us: 0,
            pending: Vec::new(),
            typed_unframed: 0,
            typing_text_at: None,
            latest: None,
            fresh: false,
            animating: false,
            repaint_after_ms: None,
            frames: 0,
            pointer: PointerState::default(),
            clipboard: String::new(),
            windows: RecordingWindowOps::new(),
            textures: TexturesDelta::default(),
            keep_textures: cfg!(feature = "screenshot"),
            shapes: Vec::new(),
            platform: Platform::current(),
            #[cfg(feature = "screenshot")]
            renderer: None,
        }
    }

    fn from_parts(ctx: egui::Context, app: Box<dyn EguiApp + 'a>, time_origin_us: u64) -> Self {
        let mut t = Self::on_context(ctx, app, time_origin_us, Vec2::from(DEFAULT_SIZE), 1.0);
        // Text cursors blink on a timer; a blinking cursor never lets a screenshot repeat.
        t.ctx
            .all_styles_mut(|s| s.visuals.text_cursor.blink = false);
        t.run_frame();
        t
    }

    /// Builder: the logical window size (runs a frame).
    #[must_use]
    pub fn with_size(mut self, width: f32, height: f32) -> Self {
        self.size = Vec2::new(width.max(1.0), height.max(1.0));
        self.run_frame();
        self
    }

    /// Builder: physical pixels per logical point (runs a frame). Bounds stay logical.
    #[must_use]
    pub fn with_pixels_per_point(mut self, ppp: f32) -> Self {
        if ppp.is_finite() && ppp > 0.0 {
            self.native_ppp = ppp;
            self.pixels_per_point = ppp;
        }
        self.run_frame();
        self
    }

    /// Builder: animations and smooth scrolling take no time (what egui_kittest does by
    /// default). Settles then finish in one frame.
    #[must_use]
    pub fn with_instant_animations(self) -> Self {
        self.ctx.all_styles_mut(|s| {
            s.animation_time = 0.0;
            s.scroll_animation = egui::style::ScrollAnimation::none();
        });
        self
    }

    /// Builder: tell egui a touch screen is present from the start (runs two frames).
    ///
    /// egui enables touch-only behaviour (a `ScrollArea` scrolled by dragging its content)
    /// once it has seen a touch device, and hit-tests a press against the previous frame's
    /// widgets, so without this the very first touch of a run could not drag-scroll. This
    /// announces the device with a touch `Cancel` for a contact that never existed.
    #[must_use]
    pub fn with_touch_screen(mut self) -> Self {
        self.pending.push(input::touch_device_probe());
        self.run_frame();
        self.run_frame();
        self
    }

    /// Builder: which platform's accelerator `command` means (default: this build's).
    #[must_use]
    pub fn with_platform(mut self, platform: Platform) -> Self {
        self.platform = platform;
        self
    }

    /// The egui context.
    pub fn context(&self) -> &egui::Context {
        &self.ctx
    }

    /// The app.
    pub fn app_mut(&mut self) -> &mut (dyn EguiApp + 'a) {
        &mut *self.app
    }

    /// Logical window size.
    pub fn size(&self) -> Vec2 {
        self.size
    }

    /// Physical pixels per point of the last frame.
    pub fn pixels_per_point(&self) -> f32 {
        self.pixels_per_point
    }

    /// Frames run so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Simulated milliseconds advanced since the start.
    pub fn advanced_ms(&self) -> u64 {
        self.advanced_ms
    }

    /// What the app last copied (`OutputCommand::CopyText`); Ctrl/⌘+V pastes it.
    pub fn clipboard(&self) -> &str {
        &self.clipboard
    }

    /// The simulated time egui sees, in seconds (never earlier than the last frame's).
    pub fn time_secs(&self) -> f64 {
        self.time_us() as f64 / 1e6
    }

    /// [`Self::time_secs`] in integer microseconds.
    pub(crate) fn time_us(&self) -> u64 {
        self.time_origin_us
            .saturating_add(self.advanced_ms.saturating_mul(1000))
            .max(self.last_us)
    }

    /// Queue an egui event for the next frame (for input the catalog has no op for).
    pub fn queue_event(&mut self, event: Event) {
        self.typing_text_at = None;
        self.pending.push(event);
    }

    /// Keep texture deltas for a renderer (screenshots) instead of dropping them each frame.
    pub fn set_keep_textures(&mut self, keep: bool) {
        self.keep_textures = keep;
        if !keep {
            self.textures.clear();
        }
    }

    /// Records a time another pass on the same context ran at: later frames never go earlier.
    #[cfg_attr(not(feature = "live"), allow(dead_code))]
    pub(crate) fn note_time(&mut self, time_us: u64) {
        self.last_us = self.last_us.max(time_us);
    }

    /// Re-bases a live target on the frame eframe is about to run: simulated time restarts at
    /// `time` seconds, with the window's logical size and native scale.
    #[cfg_attr(any(not(feature = "live"), not(debug_assertions)), allow(dead_code))]
    pub(crate) fn rebase(&mut self, time_us: u64, size: Vec2, native_ppp: f32) {
        self.time_origin_us = time_us;
        self.advanced_ms = 0;
        if size.x > 0.0 && size.y > 0.0 {
            self.size = size;
        }
        if native_ppp.is_finite() && native_ppp > 0.0 {
            self.native_ppp = native_ppp;
        }
    }

    /// Texture changes since the last drain (the live bridge gives them back to eframe).
    pub fn take_textures(&mut self) -> TexturesDelta {
        std::mem::take(&mut self.textures)
    }

    /// The windows the app opened through its host sink.
    pub fn windows(&self) -> &RecordingWindowOps {
        &self.windows
    }

    /// The window sink, mutably (the live bridge's frames draw with it too).
    pub fn windows_mut(&mut self) -> &mut RecordingWindowOps {
        &mut self.windows
    }

    /// Draws the app into `ui` with the target's window sink (a live eframe frame).
    #[cfg_attr(not(feature = "live"), allow(dead_code))]
    pub(crate) fn draw(&mut self, ui: &mut egui::Ui) {
        self.app.ui(ui, &mut self.windows);
    }

    /// Runs one egui frame at the current simulated time with the queued events.
    pub fn run_frame(&mut self) {
        self.typed_unframed = 0;
        self.typing_text_at = None;
        self.last_us = self.time_us();
        let time = self.time_secs();
        let mut raw = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, self.size)),
            time: Some(time),
            predicted_dt: FRAME_SECS,
            events: std::mem::take(&mut self.pending),
            focused: true,
            ..Default::default()
        };
        if let Some(v) = raw.viewports.get_mut(&ViewportId::ROOT) {
            v.native_pixels_per_point = Some(self.native_ppp);
            v.focused = Some(true);
            v.inner_rect = Some(Rect::from_min_size(Pos2::ZERO, self.size));
        }
        let app = &mut self.app;
        let windows = &mut self.windows;
        let mut out = self.ctx.run_ui(raw, |ui| app.ui(ui, windows));
        self.frames += 1;
        let mut delta = std::mem::take(&mut out.textures_delta);
        if self.keep_textures {
            self.textures.append(delta);
        } else {
            // Drained every frame: nothing renders, so nothing needs them.
            delta.clear();
        }
        let delay = out
            .viewport_output
            .get(&ViewportId::ROOT)
            .map(|v| v.repaint_delay);
        self.animating = delay.is_some_and(|d| d.is_zero());
        self.repaint_after_ms = delay
            .filter(|d| d.as_secs() < 24 * 3600)
            .map(|d| u64::try_from(d.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX));
        for command in &out.platform_output.commands {
            if let egui::OutputCommand::CopyText(text) = command {
                self.clipboard.clone_from(text);
            }
        }
        if out.pixels_per_point.is_finite() && out.pixels_per_point > 0.0 {
            self.pixels_per_point = out.pixels_per_point;
        }
        if let Some(mut update) = out.platform_output.accesskit_update.take() {
            to_logical(&mut update, self.pixels_per_point);
            if update.tree.is_none()
                && let Some(prev) = self.latest.as_ref().and_then(|u| u.tree.clone())
            {
                update.tree = Some(prev);
            }
            self.latest = Some(update);
            self.fresh = true;
        }
        self.shapes = out.shapes;
    }

    /// No event is queued and egui asked for no immediate repaint.
    fn is_quiet(&self) -> bool {
        self.pending.is_empty() && !self.animating && self.frames > 0
    }

    /// The node with this id in the latest tree.
    pub fn node(&self, id: NodeId) -> Option<&accesskit::Node> {
        self.latest
            .as_ref()?
            .nodes
            .iter()
            .find(|(n, _)| *n == id)
            .map(|(_, node)| node)
    }

    /// The latest tree update egui produced (full tree).
    pub fn latest_tree(&self) -> Option<&TreeUpdate> {
        self.latest.as_ref()
    }

    fn node_center(&self, id: NodeId) -> Option<Point> {
        let b = self.node(id)?.bounds()?;
        Some(Point::new((b.x0 + b.x1) / 2.0, (b.y0 + b.y1) / 2.0))
    }

    /// A full mouse click (move, press frame, release frame) at `at`.
    fn click_at(&mut self, at: Point, button: PointerButton) {
        let pos = input::pos(at);
        let b = input::button(button);
        let modifiers = egui::Modifiers::default();
        self.pending.push(Event::PointerMoved(pos));
        self.pending.push(Event::PointerButton {
            pos,
            button: b,
            pressed: true,
            modifiers,
        });
        self.run_frame();
        self.pending.push(Event::PointerButton {
            pos,
            button: b,
            pressed: false,
            modifiers,
        });
        self.run_frame();
    }
}

impl Drop for EguiTarget<'_> {
    fn drop(&mut self) {
        // Unapplied texture deltas debug-assert on drop; nothing will render them now.
        self.textures.clear();
    }
}

/// Converts egui's physical-pixel bounds to logical px.
fn to_logical(update: &mut TreeUpdate, ppp: f32) {
    if (ppp - 1.0).abs() < f32::EPSILON || !ppp.is_finite() || ppp <= 0.0 {
        return;
    }
    let s = f64::from(ppp);
    for (_, node) in &mut update.nodes {
        if let Some(b) = node.bounds() {
            node.set_bounds(accesskit::Rect {
                x0: b.x0 / s,
                y0: b.y0 / s,
                x1: b.x1 / s,
                y1: b.y1 / s,
            });
        }
    }
}

/// Actions egui consumes on any widget without listing them on the node.
const ALWAYS_HANDLED: &[Action] = &[
    Action::ScrollIntoView,
    Action::ScrollUp,
    Action::ScrollDown,
    Action::ScrollLeft,
    Action::ScrollRight,
];

impl Target for EguiTarget<'_> {
    fn clock(&self) -> ClockKind {
        ClockKind::Simulated
    }

    fn platform(&self) -> Platform {
        self.platform
    }

    fn poll_tree(&mut self) -> Result<Option<TreeUpdate>, TargetError> {
        if self.typed_unframed > 0 {
            self.run_frame();
        }
        if !self.fresh {
            return Ok(None);
        }
        self.fresh = false;
        Ok(self.latest.clone())
    }

    fn hit_rect(&mut self, id: accesskit::NodeId) -> Option<accesskit::Rect> {
        // Widget rects of the last finished frame (egui swaps them into `prev_pass` when a
        // pass ends); `interact_rect` is already cut by the clip rect of the Ui the widget
        // sits in (scroll areas, panels).
        self.ctx.viewport(|v| {
            v.prev_pass
                .widgets
                .layers()
                .flat_map(|(_, rects)| rects.iter())
                .find(|w| w.id.value() == id.0)
                .map(|w| {
                    let r = w.interact_rect;
                    accesskit::Rect::new(
                        f64::from(r.min.x),
                        f64::from(r.min.y),
                        f64::from(r.max.x.max(r.min.x)),
                        f64::from(r.max.y.max(r.min.y)),
                    )
                })
        })
    }

    fn window_rect(&mut self) -> Option<accesskit::Rect> {
        let r = self.ctx.viewport_rect();
        Some(accesskit::Rect::new(
            f64::from(r.min.x),
            f64::from(r.min.y),
            f64::from(r.max.x),
            f64::from(r.max.y),
        ))
    }

    fn action(&mut self, request: ActionRequest) -> Result<ActionOutcome, TargetError> {
        let id = request.target_node;
        let Some(node) = self.node(id) else {
            return Ok(ActionOutcome::Unhandled);
        };
        let supported =
            node.supports_action(request.action) || ALWAYS_HANDLED.contains(&request.action);
        let expanded = node.is_expanded();
        let clickable = node.supports_action(Action::Click);
        match request.action {
            // egui has no Expand/Collapse: a disclosure toggles on a click.
            Action::Expand | Action::Collapse if !supported => {
                let Some(open) = expanded else {
                    return Ok(ActionOutcome::Unhandled);
                };
                let want = request.action == Action::Expand;
                if open != want {
                    let Some(at) = self.node_center(id) else {
                        return Ok(ActionOutcome::Unhandled);
                    };
                    self.click_at(at, PointerButton::Primary);
                }
                Ok(ActionOutcome::Handled)
            }
            // egui opens context menus on a secondary click.
            Action::ShowContextMenu if !supported => {
                let Some(at) = self.node_center(id).filter(|_| clickable) else {
                    return Ok(ActionOutcome::Unhandled);
                };
                self.click_at(at, PointerButton::Secondary);
                Ok(ActionOutcome::Handled)
            }
            _ if supported => {
                self.typing_text_at = None;
                self.pending.push(Event::AccessKitActionRequest(request));
                self.run_frame();
                Ok(ActionOutcome::Handled)
            }
            _ => Ok(ActionOutcome::Unhandled),
        }
    }

    fn pointer(&mut self, event: &PointerEvent) -> Result<(), TargetError> {
        let (events, discrete) = self.pointer.translate(event, self.platform);
        self.typing_text_at = None;
        self.pending.extend(events);
        if discrete {
            self.run_frame();
        }
        Ok(())
    }

    fn key(&mut self, event: &KeyEvent) -> Result<(), TargetError> {
        let mut events = input::key_events(event, self.platform, &self.clipboard);
        // Consecutive presses of plain characters (what type_text sends) share a frame, up to
        // TYPING_BATCH of them, and their text rides in one `Event::Text`: egui lays out the
        // whole field again for every frame and every text event, so a frame (or a text event)
        // per character would make typing quadratic in the text's length. Every key event is
        // still sent; a named key, a modifier or any other input runs the frame first.
        let plain = event.pressed
            && matches!(event.key, automation_core::Key::Character(_))
            && event.modifiers.is_empty()
            && event.text.is_some();
        if plain {
            let text_at = events.iter().position(|e| matches!(e, Event::Text(_)));
            if let (Some(i), Some(at)) = (self.typing_text_at, text_at)
                && let (Event::Text(more), Some(Event::Text(buffer))) =
                    (events.remove(at), self.pending.get_mut(i))
            {
                buffer.push_str(&more);
            } else if let Some(at) = text_at {
                self.typing_text_at = Some(self.pending.len() + at);
            }
        } else if event.pressed {
            self.typing_text_at = None;
        }
        self.pending.extend(events);
        if !event.pressed {
            return Ok(());
        }
        if plain && self.typed_unframed + 1 < TYPING_BATCH {
            self.typed_unframed += 1;
        } else {
            self.run_frame();
        }
        Ok(())
    }

    fn scroll(&mut self, event: &ScrollEvent) -> Result<(), TargetError> {
        self.typing_text_at = None;
        self.pending
            .extend(input::scroll_events(event, self.platform));
        self.run_frame();
        Ok(())
    }

    fn ime(&mut self, event: &ImeEvent) -> Result<(), TargetError> {
        self.typing_text_at = None;
        self.pending.push(input::ime_event(event));
        self.run_frame();
        Ok(())
    }

    fn advance(&mut self, millis: u64) -> Result<(), TargetError> {
        if millis == 0 && self.is_quiet() {
            // Nothing queued, nothing asked for a repaint: a frame now would repeat the last.
            return Ok(());
        }
        // Like an event loop would: a frame whenever egui asked for one before the end (a
        // tooltip's dwell, an animation), at most one per 60 Hz frame, then one at the end.
        let end = self.advanced_ms.saturating_add(millis);
        let mut frames = 0;
        while let Some(wake) = self
            .repaint_after_ms
            .filter(|_| frames < MAX_FRAMES_PER_ADVANCE)
        {
            frames += 1;
            let next = self
                .advanced_ms
                .saturating_add(wake.max(automation_core::settle::FRAME_MILLIS));
            if next >= end {
                break;
            }
            self.advanced_ms = next;
            self.run_frame();
        }
        self.advanced_ms = end;
        self.run_frame();
        Ok(())
    }

    fn is_animating(&self) -> bool {
        self.animating
    }

    fn relayout(&mut self) -> Result<(), TargetError> {
        // The last frame ran after the last input and egui asked for no other: its layout is
        // current, and another frame would only cost time.
        if !self.is_quiet() {
            self.run_frame();
        }
        Ok(())
    }

    fn resume_real_time(&mut self) {
        // Headless: nothing runs between ops, so the simulated clock simply stays where the op
        // left it. The live bridge carries `advanced_ms` forward as an offset (see `live`).
    }

    fn overlays(&mut self) -> automation_core::OpResult {
        // egui's visible areas above the background layer: windows (`Middle`), popups and
        // menus (`Foreground`), tooltips (`Tooltip`), in paint order.
        let mut layers: Vec<(egui::Order, Rect)> = self.ctx.memory(|m| {
            m.areas()
                .visible_layer_ids()
                .into_iter()
                .filter(|l| l.order != egui::Order::Background && l.order != egui::Order::Debug)
                .filter_map(|l| m.area_rect(l.id).map(|r| (l.order, r)))
                .collect()
        });
        layers.sort_by(|a, b| {
            (a.0, a.1.min.y, a.1.min.x)
                .partial_cmp(&(b.0, b.1.min.y, b.1.min.x))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let overlays: Vec<_> = layers
            .iter()
            .map(|(order, r)| {
                let kind = match order {
                    egui::Order::Middle => "window",
                    egui::Order::Foreground => "popup",
                    egui::Order::Tooltip => "tooltip",
                    _ => "other",
                };
                serde_json::json!({
                    "kind": kind,
                    "bounds": { "x": r.min.x, "y": r.min.y, "width": r.width(), "height": r.height() },
                })
            })
            .collect();
        Ok(serde_json::json!({ "overlays": overlays }))
    }

    fn long_press_threshold_ms(&self, kind: PointerKind) -> Option<u64> {
        // egui turns a still touch held longer than `max_click_duration` into a long-touch
        // (a secondary click); one more frame makes "longer than" hold on the frame it lands.
        let secs = self.ctx.options(|o| o.input_options.max_click_duration);
        let ms = (secs * 1000.0).ceil();
        (ms.is_finite() && ms >= 0.0).then(|| {
            let base = ms as u64;
            match kind {
                PointerKind::Mouse | PointerKind::Touch | PointerKind::Pen => {
                    base + automation_core::settle::FRAME_MILLIS
                }
            }
        })
    }
}
