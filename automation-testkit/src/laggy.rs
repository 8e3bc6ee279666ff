//! A real-clock target whose effects land later, the way an out-of-process app's do (a GTK3
//! click takes effect ~250 ms after the action returns): the fixture that proves core's
//! real-clock settle before any AT-SPI code exists.
//!
//! The tree: a window "Laggy" with a button "Go" (its click sets the status label to
//! "Done N" after [`LaggyApp::lag`]), a button "Burst" (three status changes 40 ms apart,
//! starting after the lag), a button "Nothing" (handled, no effect), and the status label.
//! Setting [`LaggyApp::gone`] makes every call fail as an app that exited would.

use std::time::{Duration, Instant};

use accesskit::{Action, ActionRequest, Live, Node, NodeId, Rect, Role, TreeInfo, TreeUpdate};
use automation_core::input::{KeyEvent, PointerEvent, PointerPhase, ScrollEvent};
use automation_core::{ActionOutcome, ClockKind, Target, TargetError};

/// Node ids.
#[allow(missing_docs)]
pub mod ids {
    use accesskit::NodeId;
    pub const ROOT: NodeId = NodeId(1);
    pub const GO: NodeId = NodeId(2);
    pub const BURST: NodeId = NodeId(3);
    pub const NOTHING: NodeId = NodeId(4);
    pub const STATUS: NodeId = NodeId(5);
}

const GO_RECT: Rect = Rect {
    x0: 10.0,
    y0: 10.0,
    x1: 90.0,
    y1: 40.0,
};

/// Gap between the changes of a burst.
pub const BURST_GAP: Duration = Duration::from_millis(40);

/// A real-clock app with lagging effects.
#[derive(Debug)]
pub struct LaggyApp {
    /// How long after an action its effect lands.
    pub lag: Duration,
    /// The app has exited: every call fails with [`TargetError::AppGone`].
    pub gone: bool,
    /// Times [`Target::wait_for_activity`] was called.
    pub waits: u32,
    status: String,
    clicks: u32,
    pending: Vec<(Instant, String)>,
    dirty: bool,
}

impl LaggyApp {
    /// An app whose effects land `lag` after the action.
    pub fn new(lag: Duration) -> Self {
        Self {
            lag,
            gone: false,
            waits: 0,
            status: String::new(),
            clicks: 0,
            pending: Vec::new(),
            dirty: true,
        }
    }

    /// The status text as the app has it now (effects that have landed).
    pub fn status(&self) -> &str {
        &self.status
    }

    fn alive(&self) -> Result<(), TargetError> {
        if self.gone {
            Err(TargetError::AppGone("the laggy app exited".into()))
        } else {
            Ok(())
        }
    }

    fn schedule(&mut self, after: Duration, status: String) {
        self.pending.push((Instant::now() + after, status));
    }

    fn click(&mut self, id: NodeId) -> ActionOutcome {
        match id {
            ids::GO => {
                self.clicks += 1;
                let text = format!("Done {}", self.clicks);
                self.schedule(self.lag, text);
            }
            ids::BURST => {
                for i in 0..3u32 {
                    self.schedule(self.lag + BURST_GAP * i, format!("Burst {}", i + 1));
                }
            }
            ids::NOTHING => {}
            _ => return ActionOutcome::Unhandled,
        }
        ActionOutcome::Handled
    }

    /// Applies every effect whose time has come.
    fn land(&mut self) {
        let now = Instant::now();
        let mut due: Vec<(Instant, String)> = Vec::new();
        self.pending.retain(|(at, s)| {
            if *at <= now {
                due.push((*at, s.clone()));
                false
            } else {
                true
            }
        });
        due.sort_by_key(|(at, _)| *at);
        if let Some((_, last)) = due.pop() {
            self.status = last;
            self.dirty = true;
        }
    }

    fn build(&self) -> TreeUpdate {
        let button = |label: &str, y: f64| {
            let mut b = Node::new(Role::Button);
            b.set_label(label);
            b.add_action(Action::Click);
            b.set_bounds(Rect {
                x0: 10.0,
                y0: y,
                x1: 90.0,
                y1: y + 30.0,
            });
            b
        };
        let mut status = Node::new(Role::Label);
        status.set_value(self.status.clone());
        status.set_live(Live::Polite);
        let mut root = Node::new(Role::Window);
        root.set_label("Laggy");
        root.set_children(vec![ids::GO, ids::BURST, ids::NOTHING, ids::STATUS]);
        TreeUpdate {
            nodes: vec![
                (ids::ROOT, root),
                (ids::GO, button("Go", GO_RECT.y0)),
                (ids::BURST, button("Burst", 50.0)),
                (ids::NOTHING, button("Nothing", 90.0)),
                (ids::STATUS, status),
            ],
            tree: Some(TreeInfo::new(ids::ROOT)),
            tree_id: accesskit::TreeId::ROOT,
            focus: ids::ROOT,
        }
    }
}

impl Target for LaggyApp {
    fn clock(&self) -> ClockKind {
        ClockKind::Real
    }

    fn poll_tree(&mut self) -> Result<Option<TreeUpdate>, TargetError> {
        self.alive()?;
        self.land();
        if !self.dirty {
            return Ok(None);
        }
        self.dirty = false;
        Ok(Some(self.build()))
    }

    fn action(&mut self, request: ActionRequest) -> Result<ActionOutcome, TargetError> {
        self.alive()?;
        Ok(match request.action {
            Action::Click => self.click(request.target_node),
            _ => ActionOutcome::Unhandled,
        })
    }

    fn pointer(&mut self, event: &PointerEvent) -> Result<(), TargetError> {
        self.alive()?;
        let p = event.position;
        let on_go = p.x >= GO_RECT.x0 && p.x < GO_RECT.x1 && p.y >= GO_RECT.y0 && p.y < GO_RECT.y1;
        if event.phase == PointerPhase::Up && on_go {
            self.click(ids::GO);
        }
        Ok(())
    }

    fn key(&mut self, _event: &KeyEvent) -> Result<(), TargetError> {
        self.alive()
    }

    fn scroll(&mut self, _event: &ScrollEvent) -> Result<(), TargetError> {
        self.alive()
    }

    fn wait_for_activity(&mut self, timeout: Duration) -> Result<bool, TargetError> {
        self.alive()?;
        self.waits += 1;
        let now = Instant::now();
        let next = self.pending.iter().map(|(at, _)| *at).min();
        match next {
            Some(at) if at <= now + timeout => {
                std::thread::sleep(at.saturating_duration_since(now));
                Ok(true)
            }
            _ => {
                std::thread::sleep(timeout);
                Ok(false)
            }
        }
    }
}
