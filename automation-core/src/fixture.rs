//! The fixture target: the seed's demo set as plain data on a simulated clock.
//!
//! A test double for `execute` (the product's own demo is a real toolkit app). It has a
//! heading with a text run, Save and Cancel buttons, a labelled text field, a checkbox and a
//! mixed one, list rows in a clipping scroller with a context menu, a polite live status, a
//! tooltip with a 128 ms dwell, an animation, a disclosure, a slider, a zoom label driven by
//! pinches, and a button that opens a window. Every input it receives is logged with the
//! clock, so tests can check exactly what `execute` sent.

use accesskit::{
    Action, ActionData, ActionRequest, Live, Node, NodeId, Rect, Role, Toggled, TreeInfo,
    TreeUpdate,
};

use crate::input::{
    ImeEvent, Key, KeyEvent, NamedKey, Point, PointerButton, PointerEvent, PointerKind,
    PointerPhase, ScrollEvent, ScrollUnit,
};
use crate::target::{ActionOutcome, ClockKind, OpenWindowRequest, Target, TargetError, WindowOps};

/// Node ids of the demo. Some are full 64-bit hashes, as egui's are.
#[allow(missing_docs)]
pub mod ids {
    use accesskit::NodeId;
    pub const ROOT: NodeId = NodeId(1);
    pub const HEADING: NodeId = NodeId(2);
    pub const HEADING_RUN: NodeId = NodeId(3);
    pub const HEADING_TEXT: NodeId = NodeId(4);
    pub const SAVE: NodeId = NodeId(0xD3A1_5C2E_9B47_0F11);
    pub const CANCEL: NodeId = NodeId(0x9FFF_FFFF_FFFF_FFFF);
    pub const NAME_LABEL: NodeId = NodeId(12);
    pub const NAME_FIELD: NodeId = NodeId((1 << 53) + 1);
    pub const REMEMBER: NodeId = NodeId(14);
    pub const SELECT_ALL: NodeId = NodeId(15);
    pub const SCROLLER: NodeId = NodeId(20);
    pub const STATUS: NodeId = NodeId(30);
    pub const TOOLTIP: NodeId = NodeId(31);
    pub const ANIMATE: NodeId = NodeId(32);
    pub const PROGRESS: NodeId = NodeId(33);
    pub const OPEN_WINDOW: NodeId = NodeId(34);
    pub const DETAILS: NodeId = NodeId(35);
    pub const DETAILS_BODY: NodeId = NodeId(36);
    pub const SLIDER: NodeId = NodeId(37);
    pub const ZOOM: NodeId = NodeId(38);
    pub const MENU: NodeId = NodeId(40);
    pub const MENU_RENAME: NodeId = NodeId(41);
    pub const MENU_DELETE: NodeId = NodeId(42);
    /// Rows get `ROW_BASE + their creation index`.
    pub const ROW_BASE: u64 = 1000;
}

/// Tooltip dwell on Save.
pub const TOOLTIP_DWELL_MS: u64 = 128;
/// Length of the Animate button's animation.
pub const ANIMATION_MS: u64 = 300;
/// Long-press threshold for touch and pen.
pub const LONG_PRESS_MS: u64 = 500;
const ROW_HEIGHT: f64 = 25.0;
const SCROLLER: Rect = Rect {
    x0: 10.0,
    y0: 150.0,
    x1: 390.0,
    y1: 250.0,
};

/// Everything the fixture received, stamped with its clock.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum Received {
    Action(ActionRequest),
    Pointer(PointerEvent),
    Key(KeyEvent),
    Scroll(ScrollEvent),
    Ime(ImeEvent),
    Advance(u64),
    Relayout,
    ResumeRealTime,
}

#[derive(Debug, Clone)]
struct Row {
    id: u64,
    label: String,
    selected: bool,
}

/// The demo app.
#[derive(Debug)]
pub struct DemoApp {
    /// Simulated clock, ms.
    pub clock_ms: u64,
    /// What arrived, with the clock at arrival.
    pub log: Vec<(u64, Received)>,
    /// Windows the app asked the host to open.
    pub opened_windows: Vec<crate::WindowId>,
    /// When set, the next `take_tree_update` returns this instead of the app's tree.
    pub next_raw_update: Option<TreeUpdate>,
    /// Animate forever (a pathological app) — for settle-timeout tests.
    pub animate_forever: bool,
    name: String,
    preedit: String,
    remember: bool,
    select_all: Toggled,
    status: String,
    details_open: bool,
    slider: f64,
    scroll_y: f64,
    zoom: f64,
    rows: Vec<Row>,
    menu_for: Option<usize>,
    focus: NodeId,
    hover_save_since: Option<u64>,
    animation_start: Option<u64>,
    animation_done: bool,
    press: Option<(NodeId, Point)>,
    touches: Vec<(u64, Point, Point)>,
    dirty: bool,
}

impl Default for DemoApp {
    fn default() -> Self {
        Self::new()
    }
}

impl DemoApp {
    /// The demo in its initial state.
    pub fn new() -> Self {
        Self {
            clock_ms: 0,
            log: Vec::new(),
            opened_windows: Vec::new(),
            next_raw_update: None,
            animate_forever: false,
            name: String::new(),
            preedit: String::new(),
            remember: false,
            select_all: Toggled::Mixed,
            status: String::new(),
            details_open: false,
            slider: 50.0,
            scroll_y: 0.0,
            zoom: 1.0,
            rows: (0..20)
                .map(|i| Row {
                    id: ids::ROW_BASE + i,
                    label: format!("Row {}", i + 1),
                    selected: false,
                })
                .collect(),
            menu_for: None,
            focus: ids::ROOT,
            hover_save_since: None,
            animation_start: None,
            animation_done: false,
            press: None,
            touches: Vec::new(),
            dirty: true,
        }
    }

    /// Text of the name field.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Current scroll offset of the list.
    pub fn scroll_y(&self) -> f64 {
        self.scroll_y
    }

    /// Current pinch zoom.
    pub fn zoom(&self) -> f64 {
        self.zoom
    }

    /// Events of one kind, for assertions.
    pub fn received(&self) -> impl Iterator<Item = &Received> {
        self.log.iter().map(|(_, r)| r)
    }

    fn row_rect(&self, index: usize) -> Rect {
        let y = SCROLLER.y0 + index as f64 * ROW_HEIGHT - self.scroll_y;
        Rect {
            x0: SCROLLER.x0,
            y0: y,
            x1: SCROLLER.x1,
            y1: y + ROW_HEIGHT,
        }
    }

    fn layout(&self) -> Vec<(NodeId, Rect)> {
        let r = |x0, y0, w, h| Rect {
            x0,
            y0,
            x1: x0 + w,
            y1: y0 + h,
        };
        let mut out = vec![
            (ids::SAVE, r(10.0, 110.0, 80.0, 30.0)),
            (ids::CANCEL, r(100.0, 110.0, 80.0, 30.0)),
            (ids::NAME_FIELD, r(80.0, 50.0, 200.0, 24.0)),
            (ids::REMEMBER, r(10.0, 80.0, 150.0, 20.0)),
            (ids::SELECT_ALL, r(170.0, 80.0, 150.0, 20.0)),
            (ids::DETAILS, r(10.0, 260.0, 200.0, 24.0)),
            (ids::SLIDER, r(10.0, 320.0, 200.0, 20.0)),
            (ids::ANIMATE, r(10.0, 350.0, 100.0, 30.0)),
            (ids::OPEN_WINDOW, r(10.0, 390.0, 120.0, 30.0)),
        ];
        if let Some(i) = self.menu_for {
            let row = self.row_rect(i);
            out.insert(0, (ids::MENU_RENAME, r(row.x0 + 20.0, row.y1, 100.0, 20.0)));
            out.insert(
                1,
                (
                    ids::MENU_DELETE,
                    r(row.x0 + 20.0, row.y1 + 20.0, 100.0, 20.0),
                ),
            );
        }
        for (i, row) in self.rows.iter().enumerate() {
            let rect = self.row_rect(i);
            if rect.y1 > SCROLLER.y0 && rect.y0 < SCROLLER.y1 {
                out.push((NodeId(row.id), rect));
            }
        }
        out
    }

    fn hit(&self, p: Point) -> Option<NodeId> {
        self.layout()
            .into_iter()
            .find(|(_, r)| p.x >= r.x0 && p.x < r.x1 && p.y >= r.y0 && p.y < r.y1)
            .map(|(id, _)| id)
    }

    fn row_index(&self, id: NodeId) -> Option<usize> {
        self.rows.iter().position(|r| r.id == id.0)
    }

    fn tooltip_visible(&self) -> bool {
        self.hover_save_since
            .is_some_and(|t| self.clock_ms.saturating_sub(t) >= TOOLTIP_DWELL_MS)
    }

    fn progress(&self) -> f64 {
        if self.animation_done {
            return 100.0;
        }
        match self.animation_start {
            Some(start) => {
                ((self.clock_ms - start.min(self.clock_ms)) as f64 / ANIMATION_MS as f64 * 100.0)
                    .min(100.0)
            }
            None => 0.0,
        }
    }

    fn click(&mut self, id: NodeId, windows: &mut dyn WindowOps) -> ActionOutcome {
        self.dirty = true;
        match id {
            ids::SAVE => self.status = "Saved".into(),
            ids::CANCEL => self.status = "Cancelled".into(),
            ids::REMEMBER => self.remember = !self.remember,
            ids::SELECT_ALL => {
                self.select_all = if self.select_all == Toggled::True {
                    Toggled::False
                } else {
                    Toggled::True
                }
            }
            ids::DETAILS => self.details_open = !self.details_open,
            ids::ANIMATE => {
                self.animation_start = Some(self.clock_ms);
                self.animation_done = false;
            }
            ids::OPEN_WINDOW => {
                let id = windows.open_window(OpenWindowRequest {
                    title: "Second window".into(),
                });
                self.opened_windows.push(id);
            }
            ids::MENU_RENAME | ids::MENU_DELETE => {
                if let Some(i) = self.menu_for.take() {
                    if id == ids::MENU_RENAME {
                        if let Some(row) = self.rows.get_mut(i) {
                            row.label = format!("{} (renamed)", row.label);
                        }
                    } else if i < self.rows.len() {
                        self.rows.remove(i);
                    }
                }
            }
            ids::NAME_FIELD => self.focus = ids::NAME_FIELD,
            other => match self.row_index(other) {
                Some(i) => {
                    for (j, row) in self.rows.iter_mut().enumerate() {
                        row.selected = i == j;
                    }
                }
                None => return ActionOutcome::Unhandled,
            },
        }
        ActionOutcome::Handled
    }

    fn focusable() -> [NodeId; 9] {
        [
            ids::NAME_FIELD,
            ids::REMEMBER,
            ids::SELECT_ALL,
            ids::SAVE,
            ids::CANCEL,
            ids::DETAILS,
            ids::SLIDER,
            ids::ANIMATE,
            ids::OPEN_WINDOW,
        ]
    }

    fn type_char(&mut self, text: &str) {
        if self.focus == ids::NAME_FIELD {
            self.name.push_str(text);
            self.dirty = true;
        }
    }

    fn build(&self) -> TreeUpdate {
        let mut nodes = Vec::new();
        let rect = |id: NodeId| {
            self.layout()
                .into_iter()
                .find(|(n, _)| *n == id)
                .map(|(_, r)| r)
        };
        let mut push = |id: NodeId, node: Node| nodes.push((id, node));

        let mut heading = Node::new(Role::Heading);
        heading.set_label("Automation demo");
        heading.set_level(1);
        heading.set_bounds(Rect {
            x0: 10.0,
            y0: 10.0,
            x1: 390.0,
            y1: 40.0,
        });
        heading.push_child(ids::HEADING_TEXT);
        let mut heading_text = Node::new(Role::Label);
        heading_text.set_bounds(Rect {
            x0: 10.0,
            y0: 10.0,
            x1: 200.0,
            y1: 40.0,
        });
        heading_text.push_child(ids::HEADING_RUN);
        let mut run = Node::new(Role::TextRun);
        run.set_value("Automation demo");
        run.set_character_lengths(vec![1; "Automation demo".len()]);
        run.set_bounds(Rect {
            x0: 10.0,
            y0: 10.0,
            x1: 200.0,
            y1: 40.0,
        });

        let button = |label: &str, id: NodeId| {
            let mut b = Node::new(Role::Button);
            b.set_label(label);
            b.add_action(Action::Click);
            b.add_action(Action::Focus);
            if let Some(r) = rect(id) {
                b.set_bounds(r);
            }
            b
        };
        let mut save = button("Save", ids::SAVE);
        save.set_description("Save the document");
        let cancel = button("Cancel", ids::CANCEL);
        let animate = button("Animate", ids::ANIMATE);
        let open = button("Open window", ids::OPEN_WINDOW);

        let mut name_label = Node::new(Role::Label);
        name_label.set_value("Name");
        name_label.set_bounds(Rect {
            x0: 10.0,
            y0: 50.0,
            x1: 70.0,
            y1: 70.0,
        });
        let mut field = Node::new(Role::TextInput);
        field.set_labelled_by(vec![ids::NAME_LABEL]);
        field.set_value(format!("{}{}", self.name, self.preedit));
        field.add_action(Action::Focus);
        field.add_action(Action::SetValue);
        field.add_action(Action::ReplaceSelectedText);
        if let Some(r) = rect(ids::NAME_FIELD) {
            field.set_bounds(r);
        }

        let checkbox = |label: &str, id: NodeId, state: Toggled| {
            let mut c = Node::new(Role::CheckBox);
            c.set_label(label);
            c.set_toggled(state);
            c.add_action(Action::Click);
            c.add_action(Action::Focus);
            if let Some(r) = rect(id) {
                c.set_bounds(r);
            }
            c
        };
        let remember = checkbox(
            "Remember me",
            ids::REMEMBER,
            if self.remember {
                Toggled::True
            } else {
                Toggled::False
            },
        );
        let select_all = checkbox("Select all", ids::SELECT_ALL, self.select_all);

        let mut scroller = Node::new(Role::ScrollView);
        scroller.set_label("Items");
        scroller.set_bounds(SCROLLER);
        scroller.set_clips_children();
        scroller.set_scroll_y(self.scroll_y);
        scroller.set_scroll_y_min(0.0);
        scroller.set_scroll_y_max(self.max_scroll());
        scroller.add_action(Action::ScrollDown);
        scroller.add_action(Action::ScrollUp);
        let mut row_nodes = Vec::new();
        for (i, row) in self.rows.iter().enumerate() {
            let mut n = Node::new(Role::ListItem);
            n.set_label(row.label.clone());
            n.set_bounds(self.row_rect(i));
            n.set_selected(row.selected);
            n.add_action(Action::Click);
            n.add_action(Action::ShowContextMenu);
            scroller.push_child(NodeId(row.id));
            row_nodes.push((NodeId(row.id), n));
        }

        let mut status = Node::new(Role::Label);
        status.set_value(self.status.clone());
        status.set_live(Live::Polite);
        status.set_bounds(Rect {
            x0: 200.0,
            y0: 110.0,
            x1: 390.0,
            y1: 140.0,
        });

        let mut details = Node::new(Role::Button);
        details.set_label("Details");
        details.set_expanded(self.details_open);
        details.add_action(if self.details_open {
            Action::Collapse
        } else {
            Action::Expand
        });
        details.add_action(Action::Click);
        if let Some(r) = rect(ids::DETAILS) {
            details.set_bounds(r);
        }

        let mut slider = Node::new(Role::Slider);
        slider.set_label("Volume");
        slider.set_numeric_value(self.slider);
        slider.set_min_numeric_value(0.0);
        slider.set_max_numeric_value(100.0);
        slider.set_numeric_value_step(1.0);
        slider.add_action(Action::Increment);
        slider.add_action(Action::Decrement);
        slider.add_action(Action::SetValue);
        slider.add_action(Action::Focus);
        if let Some(r) = rect(ids::SLIDER) {
            slider.set_bounds(r);
        }

        let mut progress = Node::new(Role::ProgressIndicator);
        progress.set_label("Progress");
        progress.set_numeric_value(self.progress());
        progress.set_bounds(Rect {
            x0: 120.0,
            y0: 350.0,
            x1: 320.0,
            y1: 370.0,
        });

        let mut zoom = Node::new(Role::Label);
        zoom.set_value(format!("Zoom {:.2}", self.zoom));
        zoom.set_bounds(Rect {
            x0: 220.0,
            y0: 320.0,
            x1: 390.0,
            y1: 340.0,
        });

        let mut root = Node::new(Role::Window);
        root.set_label("Demo");
        root.set_bounds(Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 400.0,
            y1: 600.0,
        });
        let mut children = vec![
            ids::HEADING,
            ids::NAME_LABEL,
            ids::NAME_FIELD,
            ids::REMEMBER,
            ids::SELECT_ALL,
            ids::SAVE,
            ids::CANCEL,
            ids::STATUS,
            ids::SCROLLER,
            ids::DETAILS,
        ];
        if self.details_open {
            let mut body = Node::new(Role::Label);
            body.set_value("Hidden details");
            body.set_bounds(Rect {
                x0: 10.0,
                y0: 290.0,
                x1: 390.0,
                y1: 310.0,
            });
            push(ids::DETAILS_BODY, body);
            children.push(ids::DETAILS_BODY);
        }
        children.extend([
            ids::SLIDER,
            ids::ZOOM,
            ids::ANIMATE,
            ids::PROGRESS,
            ids::OPEN_WINDOW,
        ]);
        if self.tooltip_visible() {
            let mut tip = Node::new(Role::Tooltip);
            tip.set_label("Save the document");
            tip.set_bounds(Rect {
                x0: 10.0,
                y0: 142.0,
                x1: 150.0,
                y1: 160.0,
            });
            push(ids::TOOLTIP, tip);
            children.push(ids::TOOLTIP);
        }
        if self.menu_for.is_some() {
            let mut menu = Node::new(Role::Menu);
            let item = |label: &str, id: NodeId| {
                let mut m = Node::new(Role::MenuItem);
                m.set_label(label);
                m.add_action(Action::Click);
                if let Some(r) = rect(id) {
                    m.set_bounds(r);
                }
                m
            };
            menu.set_children(vec![ids::MENU_RENAME, ids::MENU_DELETE]);
            push(ids::MENU_RENAME, item("Rename", ids::MENU_RENAME));
            push(ids::MENU_DELETE, item("Delete", ids::MENU_DELETE));
            push(ids::MENU, menu);
            children.push(ids::MENU);
        }
        root.set_children(children);
        push(ids::ROOT, root);
        push(ids::HEADING, heading);
        push(ids::HEADING_TEXT, heading_text);
        push(ids::HEADING_RUN, run);
        push(ids::NAME_LABEL, name_label);
        push(ids::NAME_FIELD, field);
        push(ids::REMEMBER, remember);
        push(ids::SELECT_ALL, select_all);
        push(ids::SAVE, save);
        push(ids::CANCEL, cancel);
        push(ids::STATUS, status);
        push(ids::SCROLLER, scroller);
        for (id, n) in row_nodes {
            push(id, n);
        }
        push(ids::DETAILS, details);
        push(ids::SLIDER, slider);
        push(ids::ZOOM, zoom);
        push(ids::ANIMATE, animate);
        push(ids::PROGRESS, progress);
        push(ids::OPEN_WINDOW, open);
        TreeUpdate {
            nodes,
            tree: Some(TreeInfo::new(ids::ROOT)),
            tree_id: accesskit::TreeId::ROOT,
            focus: self.focus,
        }
    }

    fn max_scroll(&self) -> f64 {
        (self.rows.len() as f64 * ROW_HEIGHT - (SCROLLER.y1 - SCROLLER.y0)).max(0.0)
    }

    fn scroll_by(&mut self, dy: f64) {
        self.scroll_y = (self.scroll_y + dy).clamp(0.0, self.max_scroll());
        self.dirty = true;
    }

    fn mouse(&mut self, e: &PointerEvent, windows: &mut dyn WindowOps) {
        let target = self.hit(e.position);
        let over_save = target == Some(ids::SAVE);
        match (over_save, self.hover_save_since) {
            (true, None) => self.hover_save_since = Some(self.clock_ms),
            (false, Some(_)) => self.hover_save_since = None,
            _ => {}
        }
        match (e.phase, e.button) {
            (PointerPhase::Down, Some(PointerButton::Primary)) => {
                self.press = target.map(|t| (t, e.position))
            }
            (PointerPhase::Up, Some(PointerButton::Primary)) => {
                let press = self.press.take();
                match (press, target) {
                    (Some((a, _)), Some(b)) if a == b => {
                        self.click(a, windows);
                    }
                    (Some((a, _)), Some(b)) => self.drop_row(a, b),
                    _ => {}
                }
            }
            (PointerPhase::Up, Some(PointerButton::Secondary)) => {
                if let Some(i) = target.and_then(|t| self.row_index(t)) {
                    self.menu_for = Some(i);
                }
            }
            _ => {}
        }
        self.dirty = true;
    }

    fn drop_row(&mut self, from: NodeId, to: NodeId) {
        if let (Some(i), Some(j)) = (self.row_index(from), self.row_index(to)) {
            let row = self.rows.remove(i);
            self.rows.insert(j, row);
        }
    }

    fn touch(&mut self, e: &PointerEvent, windows: &mut dyn WindowOps) {
        match e.phase {
            PointerPhase::Down => self.touches.push((e.pointer_id, e.position, e.position)),
            PointerPhase::Move => {
                if self.touches.len() == 2 {
                    let span = |t: &[(u64, Point, Point)], cur: bool| {
                        let (a, b) = (&t[0], &t[1]);
                        let (p, q) = if cur { (a.2, b.2) } else { (a.1, b.1) };
                        ((p.x - q.x).powi(2) + (p.y - q.y).powi(2)).sqrt()
                    };
                    let start = span(&self.touches, false);
                    if let Some(t) = self.touches.iter_mut().find(|t| t.0 == e.pointer_id) {
                        t.2 = e.position;
                    }
                    if start > 0.0 {
                        self.zoom = span(&self.touches, true) / start;
                    }
                } else if let Some(t) = self.touches.iter_mut().find(|t| t.0 == e.pointer_id) {
                    let dy = t.2.y - e.position.y;
                    t.2 = e.position;
                    if SCROLLER.x0 <= t.1.x
                        && t.1.x < SCROLLER.x1
                        && SCROLLER.y0 <= t.1.y
                        && t.1.y < SCROLLER.y1
                    {
                        self.scroll_by(dy);
                    }
                }
            }
            PointerPhase::Up => {
                if let Some(pos) = self.touches.iter().position(|t| t.0 == e.pointer_id) {
                    let (_, start, _) = self.touches.remove(pos);
                    let moved = (start.x - e.position.x).abs() + (start.y - e.position.y).abs();
                    if moved < 10.0
                        && let Some(t) = self.hit(e.position)
                    {
                        self.click(t, windows);
                    }
                }
            }
            PointerPhase::Cancel => self.touches.retain(|t| t.0 != e.pointer_id),
        }
        self.dirty = true;
    }
}

impl Target for DemoApp {
    fn clock(&self) -> ClockKind {
        ClockKind::Simulated
    }

    fn take_tree_update(&mut self) -> Option<TreeUpdate> {
        if let Some(raw) = self.next_raw_update.take() {
            return Some(raw);
        }
        if !self.dirty {
            return None;
        }
        self.dirty = false;
        Some(self.build())
    }

    fn action(
        &mut self,
        req: ActionRequest,
        windows: &mut dyn WindowOps,
    ) -> Result<ActionOutcome, TargetError> {
        self.log
            .push((self.clock_ms, Received::Action(req.clone())));
        let id = req.target_node;
        self.dirty = true;
        let outcome = match req.action {
            Action::Click => self.click(id, windows),
            Action::Focus if Self::focusable().contains(&id) || self.row_index(id).is_some() => {
                self.focus = id;
                ActionOutcome::Handled
            }
            Action::SetValue => match (id, req.data) {
                (ids::NAME_FIELD, Some(ActionData::Value(v))) => {
                    self.name = v.to_string();
                    ActionOutcome::Handled
                }
                (ids::SLIDER, Some(ActionData::NumericValue(v))) => {
                    self.slider = v.clamp(0.0, 100.0);
                    ActionOutcome::Handled
                }
                (ids::SLIDER, Some(ActionData::Value(v))) => match v.trim().parse::<f64>() {
                    Ok(n) if n.is_finite() => {
                        self.slider = n.clamp(0.0, 100.0);
                        ActionOutcome::Handled
                    }
                    _ => ActionOutcome::Unhandled,
                },
                _ => ActionOutcome::Unhandled,
            },
            Action::ReplaceSelectedText if id == ids::NAME_FIELD => {
                if let Some(ActionData::Value(v)) = req.data {
                    self.name.push_str(&v);
                }
                ActionOutcome::Handled
            }
            Action::Increment if id == ids::SLIDER => {
                self.slider = (self.slider + 1.0).min(100.0);
                ActionOutcome::Handled
            }
            Action::Decrement if id == ids::SLIDER => {
                self.slider = (self.slider - 1.0).max(0.0);
                ActionOutcome::Handled
            }
            Action::Expand if id == ids::DETAILS && !self.details_open => {
                self.details_open = true;
                ActionOutcome::Handled
            }
            Action::Collapse if id == ids::DETAILS && self.details_open => {
                self.details_open = false;
                ActionOutcome::Handled
            }
            Action::ScrollDown if id == ids::SCROLLER => {
                self.scroll_by(ROW_HEIGHT * 4.0);
                ActionOutcome::Handled
            }
            Action::ScrollUp if id == ids::SCROLLER => {
                self.scroll_by(-ROW_HEIGHT * 4.0);
                ActionOutcome::Handled
            }
            Action::ShowContextMenu => match self.row_index(id) {
                Some(i) => {
                    self.menu_for = Some(i);
                    ActionOutcome::Handled
                }
                None => ActionOutcome::Unhandled,
            },
            _ => ActionOutcome::Unhandled,
        };
        Ok(outcome)
    }

    fn pointer(
        &mut self,
        e: &PointerEvent,
        windows: &mut dyn WindowOps,
    ) -> Result<(), TargetError> {
        self.log.push((self.clock_ms, Received::Pointer(e.clone())));
        match e.kind {
            PointerKind::Mouse => self.mouse(e, windows),
            PointerKind::Touch | PointerKind::Pen => self.touch(e, windows),
        }
        Ok(())
    }

    fn key(&mut self, e: &KeyEvent, windows: &mut dyn WindowOps) -> Result<(), TargetError> {
        self.log.push((self.clock_ms, Received::Key(e.clone())));
        if !e.pressed {
            return Ok(());
        }
        match e.key {
            Key::Named(NamedKey::Tab) => {
                let order = Self::focusable();
                let next = order
                    .iter()
                    .position(|f| *f == self.focus)
                    .map_or(0, |i| (i + 1) % order.len());
                self.focus = order[next];
                self.dirty = true;
            }
            Key::Named(NamedKey::Escape) => {
                self.menu_for = None;
                self.dirty = true;
            }
            Key::Named(NamedKey::Backspace) if self.focus == ids::NAME_FIELD => {
                self.name.pop();
                self.dirty = true;
            }
            Key::Named(NamedKey::Enter | NamedKey::Space) if self.focus != ids::NAME_FIELD => {
                let focus = self.focus;
                self.click(focus, windows);
            }
            _ if e.modifiers.ctrl || e.modifiers.meta => {}
            _ => {
                if let Some(text) = &e.text
                    && !text.chars().any(char::is_control)
                {
                    let text = text.clone();
                    self.type_char(&text);
                }
            }
        }
        Ok(())
    }

    fn scroll(&mut self, e: &ScrollEvent, _windows: &mut dyn WindowOps) -> Result<(), TargetError> {
        self.log.push((self.clock_ms, Received::Scroll(e.clone())));
        let p = e.position;
        if SCROLLER.x0 <= p.x && p.x < SCROLLER.x1 && SCROLLER.y0 <= p.y && p.y < SCROLLER.y1 {
            let unit = if e.unit == ScrollUnit::Lines {
                ROW_HEIGHT
            } else {
                1.0
            };
            self.scroll_by(e.dy * unit);
        }
        Ok(())
    }

    fn ime(&mut self, e: &ImeEvent, _windows: &mut dyn WindowOps) -> Result<(), TargetError> {
        self.log.push((self.clock_ms, Received::Ime(e.clone())));
        match e {
            ImeEvent::Preedit(p) => self.preedit = p.clone(),
            ImeEvent::Commit(c) => {
                self.preedit.clear();
                self.type_char(c);
            }
        }
        self.dirty = true;
        Ok(())
    }

    fn advance(&mut self, millis: u64, _windows: &mut dyn WindowOps) -> Result<(), TargetError> {
        self.log.push((self.clock_ms, Received::Advance(millis)));
        let tooltip_before = self.tooltip_visible();
        let animating = self.is_animating();
        self.clock_ms = self.clock_ms.saturating_add(millis);
        if animating || tooltip_before != self.tooltip_visible() {
            self.dirty = true;
        }
        if self.animation_start.is_some() && self.progress() >= 100.0 && !self.animate_forever {
            self.animation_start = None;
            self.animation_done = true;
            self.dirty = true;
        }
        Ok(())
    }

    fn is_animating(&self) -> bool {
        self.animate_forever
            || self
                .animation_start
                .is_some_and(|s| self.clock_ms < s.saturating_add(ANIMATION_MS))
    }

    fn relayout(&mut self, _windows: &mut dyn WindowOps) -> Result<(), TargetError> {
        self.log.push((self.clock_ms, Received::Relayout));
        Ok(())
    }

    fn resume_real_time(&mut self) {
        self.log.push((self.clock_ms, Received::ResumeRealTime));
    }

    fn long_press_threshold_ms(&self, kind: PointerKind) -> Option<u64> {
        match kind {
            PointerKind::Touch | PointerKind::Pen => Some(LONG_PRESS_MS),
            PointerKind::Mouse => None,
        }
    }
}
