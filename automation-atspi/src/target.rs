//! [`AtspiTarget`]: one app on the accessibility bus, as core's [`Target`].
//!
//! The trait is synchronous; the bus is not. Each call runs its futures to completion on the
//! calling thread (zbus reads the socket on its own executor thread), so nothing async leaks
//! out of this crate. Every D-Bus call has a deadline, and an app that left the bus answers
//! [`TargetError::AppGone`] at once: never a hang.

use std::sync::Arc;
use std::time::Duration;

use accesskit::{Action, ActionData, ActionRequest, TreeUpdate};
use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::action::ActionProxy;
use atspi::proxy::component::ComponentProxy;
use atspi::proxy::editable_text::EditableTextProxy;
use atspi::proxy::text::TextProxy;
use atspi::proxy::value::ValueProxy;
use atspi::{Interface, ScrollType};
use automation_core::input::{KeyEvent, PointerEvent, PointerPhase, ScrollEvent, ScrollUnit};
use automation_core::{ActionOutcome, ClockKind, Target, TargetError};
use futures_lite::future::block_on;
use zbus::Connection;

use crate::bus::{self, App};
use crate::events::{Change, Events};
use crate::fetch::{self, proxy};
use crate::map;
use crate::tree::Mirror;
use crate::x11::X11;

/// How long one D-Bus call may take before the target answers `TARGET_TIMEOUT`.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Pixels one wheel notch scrolls, for pixel deltas turned into notches.
pub const PIXELS_PER_NOTCH: f64 = 50.0;

/// How long `set_value` reads an edited text back before it calls the text changed by the app.
const READ_BACK: Duration = Duration::from_millis(1000);

/// A running app, driven over AT-SPI (tree, actions, values, focus) and X11 (keys, pointer).
pub struct AtspiTarget {
    conn: Connection,
    app: App,
    mirror: Mirror,
    events: Arc<Events>,
    sent_full: bool,
    display: Option<String>,
    x11: Option<X11>,
}

impl std::fmt::Debug for AtspiTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtspiTarget")
            .field("app", &self.app)
            .field("nodes", &self.mirror.nodes.len())
            .finish()
    }
}

impl AtspiTarget {
    /// Drives `app`, found on the accessibility bus behind `session` (see [`bus::Bus::connect`]).
    /// `display` is the X display its windows are on (`None`: `$DISPLAY`).
    pub fn new(session: &bus::Bus, app: App, display: Option<String>) -> Result<Self, TargetError> {
        let events_conn = block_on(session.a11y_connection()).map_err(ipc("connect"))?;
        let events =
            crate::events::start(events_conn, app.bus_name.clone()).map_err(TargetError::Ipc)?;
        Ok(Self {
            conn: session.conn.clone(),
            mirror: Mirror::new(&app.root),
            app,
            events,
            sent_full: false,
            display,
            x11: None,
        })
    }

    /// The app being driven.
    pub fn app(&self) -> &App {
        &self.app
    }

    /// Events seen and events collapsed into a full re-read (the drain's counters).
    pub fn event_counts(&self) -> (u64, u64) {
        self.events.counts()
    }

    /// Reads the whole tree again now (what the first `poll_tree` does), for benches.
    pub fn fetch_all(&mut self) -> Result<TreeUpdate, TargetError> {
        self.alive()?;
        let root = self.mirror.root.clone();
        let fresh = block_on(fetch::subtree(&self.conn, &self.app.bus_name, &root))
            .map_err(|e| self.classify(e, "reading the tree"))?;
        self.mirror.replace_subtree(&root, fresh);
        let all = self.mirror.reachable();
        Ok(self.mirror.update(&all, true))
    }

    fn alive(&self) -> Result<(), TargetError> {
        match self.events.is_gone() {
            Some(why) => Err(TargetError::AppGone(why)),
            None => Ok(()),
        }
    }

    /// Turns a bus error into the target's error: an app that left the bus is `AppGone`.
    fn classify(&self, e: zbus::Error, what: &str) -> TargetError {
        if let Some(why) = self.events.is_gone() {
            return TargetError::AppGone(why);
        }
        if !block_on(bus::has_owner(&self.conn, &self.app.bus_name)) {
            return TargetError::AppGone(format!(
                "{} ({}) left the accessibility bus while {what}",
                self.app.name, self.app.bus_name
            ));
        }
        match &e {
            zbus::Error::InputOutput(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                TargetError::Timeout {
                    waited_ms: CALL_TIMEOUT.as_millis() as u64,
                    detail: format!("{what}: {e}"),
                }
            }
            _ => TargetError::Ipc(format!("{what}: {e}")),
        }
    }

    fn x11(&mut self) -> Result<&mut X11, TargetError> {
        if self.x11.is_none() {
            self.x11 = Some(X11::connect(self.display.as_deref()).map_err(TargetError::Ipc)?);
        }
        self.x11
            .as_mut()
            .ok_or_else(|| TargetError::Ipc("no X11 connection".into()))
    }

    /// The app's main X window (the largest mapped one with its pid).
    pub fn main_window(&mut self) -> Result<crate::x11::XWindow, TargetError> {
        let pid = self.app.pid.ok_or_else(|| {
            TargetError::Unsupported("X11 input: the app's process id is unknown".into())
        })?;
        let wins = self.x11()?.windows_of(pid).map_err(TargetError::Ipc)?;
        wins.into_iter().next().ok_or_else(|| {
            TargetError::Ipc(format!(
                "the app (pid {pid}) has no mapped X11 window (is it on this display, or on Wayland?)"
            ))
        })
    }

    /// The X connection, for the host (screenshots, window list).
    pub(crate) fn x11_conn(&mut self) -> Result<&mut X11, TargetError> {
        self.x11()
    }

    /// The node id of an object path, when the tree has shown it.
    pub fn node_id(&self, path: &str) -> Option<accesskit::NodeId> {
        self.mirror.known_id(path)
    }

    /// The mirror, for the host.
    pub(crate) fn mirror(&self) -> &Mirror {
        &self.mirror
    }

    fn incremental(&mut self) -> Result<Option<TreeUpdate>, TargetError> {
        let pending = self.events.take();
        if let Some(why) = pending.gone {
            return Err(TargetError::AppGone(why));
        }
        if pending.everything {
            return self.fetch_all().map(|mut u| {
                u.tree = None;
                Some(u)
            });
        }
        if pending.changed.is_empty() {
            return Ok(None);
        }
        let dest = self.app.bus_name.clone();
        let mut emit: Vec<String> = Vec::new();
        let mut changed: Vec<(String, Change)> = pending.changed.into_iter().collect();
        // Parents before children, so a subtree read covers the nodes under it.
        changed.sort_by_key(|(p, _)| p.len());
        for (path, change) in changed {
            let Some(old) = self.mirror.nodes.get(&path) else {
                continue;
            };
            let old_children = old.children.clone();
            let fresh = match block_on(fetch::node(&self.conn, &dest, &path)) {
                Ok(n) => n,
                // The object is gone; its parent's children-changed event re-reads the parent.
                Err(e) => {
                    let err = self.classify(e, "re-reading a changed object");
                    if matches!(err, TargetError::AppGone(_)) {
                        return Err(err);
                    }
                    continue;
                }
            };
            if change == Change::Children || fresh.children != old_children {
                let sub = block_on(fetch::subtree(&self.conn, &dest, &path))
                    .map_err(|e| self.classify(e, "re-reading a changed subtree"))?;
                emit.extend(sub.keys().cloned());
                self.mirror.replace_subtree(&path, sub);
            } else {
                self.mirror.nodes.insert(path.clone(), fresh);
                emit.push(path);
            }
        }
        if emit.is_empty() {
            return Ok(None);
        }
        emit.sort();
        emit.dedup();
        Ok(Some(self.mirror.update(&emit, false)))
    }

    fn path_of(&self, id: accesskit::NodeId) -> Option<(String, crate::fetch::RawNode)> {
        let p = self.mirror.path(id)?.to_string();
        let raw = self.mirror.nodes.get(&p)?.clone();
        Some((p, raw))
    }

    fn set_value(
        &mut self,
        path: &str,
        raw: &crate::fetch::RawNode,
        data: Option<ActionData>,
    ) -> Result<ActionOutcome, TargetError> {
        let dest = self.app.bus_name.clone();
        let conn = self.conn.clone();
        let wanted_text = match &data {
            Some(ActionData::Value(t)) => Some(t.to_string()),
            Some(ActionData::NumericValue(n)) => Some(format_number(*n)),
            _ => None,
        };
        let wanted_number = match &data {
            Some(ActionData::NumericValue(n)) => Some(*n),
            Some(ActionData::Value(t)) => t.trim().parse::<f64>().ok(),
            _ => None,
        };
        if raw.has(Interface::EditableText) {
            let Some(text) = wanted_text else {
                return Ok(ActionOutcome::Unhandled);
            };
            let done = block_on(async {
                let e: EditableTextProxy<'_> = proxy(&conn, &dest, path).await?;
                let ok = e.set_text_contents(&text).await?;
                let t: TextProxy<'_> = proxy(&conn, &dest, path).await?;
                // GTK and Qt set the text before replying; AccessKit (eframe) hands it to the
                // app, which applies it on its next frame: read back until it lands, bounded.
                let deadline = std::time::Instant::now() + READ_BACK;
                loop {
                    let now = fetch::read_text(&t).await?;
                    if now == text || !ok || std::time::Instant::now() >= deadline {
                        return Ok::<_, zbus::Error>((ok, now));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            })
            .map_err(|e| self.classify(e, "setting the text"))?;
            return match done {
                (_, now) if now == text => Ok(ActionOutcome::Handled),
                (false, _) => Ok(ActionOutcome::Unhandled),
                (true, now) => Err(TargetError::Ipc(format!(
                    "set_value: the app accepted {text:?} but its text is now {now:?} (a filter or formatter changed it)"
                ))),
            };
        }
        if raw.has(Interface::Value) {
            let Some(n) = wanted_number else {
                return Ok(ActionOutcome::Unhandled);
            };
            let Some([_, min, max, _]) = raw.value else {
                return Ok(ActionOutcome::Unhandled);
            };
            // A value outside the node's range is refused, nothing is sent.
            if min <= max && (n < min || n > max) {
                return Ok(ActionOutcome::Unhandled);
            }
            let now = block_on(async {
                let v: ValueProxy<'_> = proxy(&conn, &dest, path).await?;
                v.set_current_value(n).await?;
                v.current_value().await
            })
            .map_err(|e| self.classify(e, "setting the value"))?;
            let step = raw.value.map_or(0.0, |v| v[3]).abs();
            let tolerance = (step / 2.0).max(1e-9 * n.abs().max(1.0));
            return if (now - n).abs() <= tolerance {
                Ok(ActionOutcome::Handled)
            } else {
                Err(TargetError::Ipc(format!(
                    "set_value: the app was sent {n} but its value is now {now} (it snaps to steps, or refused it)"
                )))
            };
        }
        Ok(ActionOutcome::Unhandled)
    }

    fn screen_point(&mut self, x: f64, y: f64) -> Result<(i32, i32), TargetError> {
        let w = self.main_window()?;
        Ok((w.x + x.round() as i32, w.y + y.round() as i32))
    }
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn ipc(what: &'static str) -> impl Fn(zbus::Error) -> TargetError {
    move |e| TargetError::Ipc(format!("{what}: {e}"))
}

impl Target for AtspiTarget {
    fn clock(&self) -> ClockKind {
        ClockKind::Real
    }

    fn poll_tree(&mut self) -> Result<Option<TreeUpdate>, TargetError> {
        self.alive()?;
        if !self.sent_full {
            // Events that arrive while the first read runs are re-read on the next poll.
            let _ = self.events.take();
            let u = self.fetch_all()?;
            self.sent_full = true;
            return Ok(Some(u));
        }
        self.incremental()
    }

    fn action(&mut self, request: ActionRequest) -> Result<ActionOutcome, TargetError> {
        self.alive()?;
        let Some((path, raw)) = self.path_of(request.target_node) else {
            return Ok(ActionOutcome::Unhandled);
        };
        let dest = self.app.bus_name.clone();
        let conn = self.conn.clone();
        match request.action {
            Action::SetValue => return self.set_value(&path, &raw, request.data),
            Action::Focus if raw.has(Interface::Component) => {
                let ok = block_on(async {
                    let c: ComponentProxy<'_> = proxy(&conn, &dest, &path).await?;
                    c.grab_focus().await
                })
                .map_err(|e| self.classify(e, "grabbing focus"))?;
                if ok {
                    return Ok(ActionOutcome::Handled);
                }
            }
            Action::ScrollIntoView if raw.has(Interface::Component) => {
                let ok = block_on(async {
                    let c: ComponentProxy<'_> = proxy(&conn, &dest, &path).await?;
                    c.scroll_to(ScrollType::Anywhere).await
                })
                .map_err(|e| self.classify(e, "scrolling into view"))?;
                if ok {
                    return Ok(ActionOutcome::Handled);
                }
            }
            _ => {}
        }
        let Some(index) = map::find_action(&raw.actions, request.action) else {
            return Ok(ActionOutcome::Unhandled);
        };
        let index = i32::try_from(index).map_err(|e| TargetError::Ipc(e.to_string()))?;
        let ok = block_on(async {
            let a: ActionProxy<'_> = proxy(&conn, &dest, &path).await?;
            a.do_action(index).await
        })
        .map_err(|e| self.classify(e, "performing the action"))?;
        Ok(if ok {
            ActionOutcome::Handled
        } else {
            ActionOutcome::Unhandled
        })
    }

    fn pointer(&mut self, event: &PointerEvent) -> Result<(), TargetError> {
        self.alive()?;
        let (x, y) = self.screen_point(event.position.x, event.position.y)?;
        let x11 = self.x11()?;
        x11.motion(x, y).map_err(TargetError::Ipc)?;
        let button = event.button.unwrap_or_default();
        match event.phase {
            PointerPhase::Down => x11.button(button, true),
            PointerPhase::Up => x11.button(button, false),
            PointerPhase::Move => Ok(()),
            PointerPhase::Cancel => {
                for b in &event.buttons_held {
                    x11.button(*b, false).map_err(TargetError::Ipc)?;
                }
                Ok(())
            }
        }
        .map_err(TargetError::Ipc)
    }

    fn key(&mut self, event: &KeyEvent) -> Result<(), TargetError> {
        self.alive()?;
        self.x11()?.key(event).map_err(TargetError::Ipc)
    }

    fn scroll(&mut self, event: &ScrollEvent) -> Result<(), TargetError> {
        self.alive()?;
        let (x, y) = self.screen_point(event.position.x, event.position.y)?;
        let notches = |d: f64| -> i32 {
            let n = match event.unit {
                ScrollUnit::Lines => d,
                ScrollUnit::Pixels => d / PIXELS_PER_NOTCH,
            };
            // At least one notch for any non-zero delta.
            if d != 0.0 && n.abs() < 1.0 {
                d.signum() as i32
            } else {
                n.round().clamp(-100.0, 100.0) as i32
            }
        };
        let (dx, dy) = (notches(event.dx), notches(event.dy));
        let x11 = self.x11()?;
        x11.motion(x, y).map_err(TargetError::Ipc)?;
        x11.wheel(dx, dy).map_err(TargetError::Ipc)
    }

    fn wait_for_activity(&mut self, timeout: Duration) -> Result<bool, TargetError> {
        let arrived = self.events.wait(timeout);
        self.alive()?;
        Ok(arrived)
    }
}

/// Reads the accessible name of an object (used while waiting for an app to show up).
pub(crate) async fn name_of(conn: &Connection, dest: &str, path: &str) -> zbus::Result<String> {
    let a: AccessibleProxy<'_> = proxy(conn, dest, path).await?;
    a.name().await
}
