//! [`AtspiTarget`]: one app on the accessibility bus, as core's [`Target`].
//!
//! The trait is synchronous; the bus is not. Each call runs its futures to completion on the
//! calling thread (zbus reads the socket on its own executor thread), so nothing async leaks
//! out of this crate. Every D-Bus call has a deadline, and an app that left the bus answers
//! [`TargetError::AppGone`] at once: never a hang.

use std::sync::Arc;
use std::time::Duration;

use accesskit::{Action, ActionRequest, TreeUpdate};
use atspi::{Interface, ScrollType};
use automation_core::input::{
    KeyEvent, PointerButton, PointerEvent, PointerPhase, ScrollEvent, ScrollUnit,
};
use automation_core::{
    ActionOutcome, Aim, AppExit, ClockKind, Hit, Intent, Means, Target, TargetError,
};
use futures_lite::future::block_on;
use zbus::Connection;

use crate::bus::{self, App, AppSelector, Bus};
use crate::dbus::{self, CALL_TIMEOUT};
use crate::desk::{Desk, Session};
use crate::events::Events;
use crate::exit::ExitWatch;
use crate::fetch::{Bulk, Reader};
use crate::map;
use crate::node::RawNode;
use crate::tree::AppTree;

/// Pixels one wheel notch scrolls, for pixel deltas turned into notches.
pub const PIXELS_PER_NOTCH: f64 = 50.0;

/// How long after the app left the bus its exit status may take to arrive (the bus sees its
/// socket close a moment before the process is gone).
pub const EXIT_GRACE: Duration = Duration::from_secs(1);

/// How long after the exit the output it wrote last may take to be read from the pipes.
pub const OUTPUT_GRACE: Duration = Duration::from_millis(500);

/// A running app, driven over AT-SPI (tree, actions, values, focus) and its desktop session's
/// [`Desk`] (keys, pointer: X11, or GNOME's compositor on Wayland).
pub struct AtspiTarget {
    pub(crate) conn: Connection,
    pub(crate) reader: Reader,
    last_bulk: Option<Bulk>,
    app: App,
    pub(crate) tree: AppTree,
    pub(crate) events: Arc<Events>,
    sent_full: bool,
    just_updated: bool,
    primed: Option<TreeUpdate>,
    display: Option<String>,
    /// The session bus (where a Wayland compositor's D-Bus APIs are).
    pub(crate) session_bus: Connection,
    /// The session bus's address: the compositor gets a connection of its own there.
    session_address: Option<String>,
    desk: Option<Desk>,
    /// Windows Super+Up was sent for on Wayland (once each: see `wayland.rs`).
    pub(crate) wayland_maximized: Vec<String>,
    /// A window was just maximized on Wayland: its children may still be moving.
    pub(crate) wayland_relaid: bool,
    /// The window size GNOME Shell's panel was last looked for beside, and where that put
    /// the window's top (`None`: no such panel).
    pub(crate) wayland_panel: Option<((i64, i64), Option<i32>)>,
    /// The X window the keyboard focus was given to (or found in) last.
    pub(crate) x_focus: Option<u32>,
    /// The app's exit, when this process launched it.
    exit: Option<Arc<ExitWatch>>,
    /// The toolkit's name (`Application.ToolkitName`: "GTK", "gtk", "Qt", "accesskit"…).
    toolkit: String,
    /// Objects an op was sent to, re-read on every poll until the time given (whole on the
    /// first, the object alone after: the Java wrapper makes new objects for a list's items at
    /// each read): many toolkits send no event for what follows (a combo's name).
    pub(crate) watched: Vec<(String, std::time::Instant, bool)>,
    /// When a browser's pages were last read again whole because one moved on screen.
    pub(crate) page_moved_at: Option<std::time::Instant>,
    /// Objects just changed, shown or opened, read again once their animation is over.
    pub(crate) settling: Vec<(String, crate::events::Change, std::time::Instant)>,
}

/// How long after an op its node is re-read on every poll.
pub const WATCH_FOR: Duration = Duration::from_millis(1500);

/// How long a toolkit action may take to return before the op says the app is held in it.
pub const ACTION_RETURNS_WITHIN: Duration = Duration::from_secs(3);

impl std::fmt::Debug for AtspiTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtspiTarget")
            .field("app", &self.app)
            .field("nodes", &self.tree.nodes.len())
            .finish()
    }
}

impl AtspiTarget {
    /// Drives `app`, found on the accessibility bus behind `session` (see [`bus::Bus::connect`]).
    /// `display` is the X display (or Wayland socket name) its windows are on (`None`: the
    /// environment's session, see [`Session::detect`]).
    pub fn new(session: &bus::Bus, app: App, display: Option<String>) -> Result<Self, TargetError> {
        let events_conn = block_on(session.a11y_connection()).map_err(ipc("connect"))?;
        let events =
            crate::events::start(events_conn, app.bus_name.clone()).map_err(TargetError::Ipc)?;
        let reader = block_on(Reader::connect(
            session.conn.clone(),
            &app.bus_name,
            &app.root,
        ));
        let toolkit = block_on(reader.call::<_, zbus::zvariant::OwnedValue>(
            &app.root,
            "org.freedesktop.DBus.Properties",
            "Get",
            &("org.a11y.atspi.Application", "ToolkitName"),
        ))
        .ok()
        .and_then(|v| String::try_from(v).ok())
        .unwrap_or_default();
        let mut target = Self {
            conn: session.conn.clone(),
            reader,
            last_bulk: None,
            tree: {
                let mut t = AppTree::new(&app.root);
                t.toolkit = Some(map::Toolkit::of_app(&toolkit, &app.name));
                t
            },
            app,
            events,
            sent_full: false,
            just_updated: false,
            primed: None,
            display,
            session_bus: session.session().clone(),
            session_address: session.session_address().map(str::to_string),
            desk: None,
            wayland_maximized: Vec::new(),
            wayland_relaid: false,
            wayland_panel: None,
            x_focus: None,
            exit: None,
            toolkit,
            watched: Vec::new(),
            page_moved_at: None,
            settling: Vec::new(),
        };
        // The first read happens here, while the caller is waiting for the app anyway, so
        // the first op answers within its own budget (a big app's first read takes most of a
        // second). One that fails is tried again by the first poll, which reports it.
        let _ = target.events.take();
        target.primed = target.fetch_all().ok();
        Ok(target)
    }

    /// Reports the exit of the app this process launched (see [`Target::exit`]).
    pub fn watch_exit(&mut self, watch: Arc<ExitWatch>) {
        self.exit = Some(watch);
    }

    /// The toolkit's name, as the app reports it.
    pub fn toolkit(&self) -> &str {
        &self.toolkit
    }

    /// The toolkit, as the tables tell toolkits apart.
    pub fn toolkit_kind(&self) -> map::Toolkit {
        map::Toolkit::of_app(&self.toolkit, &self.app.name)
    }

    pub(crate) fn reader(&self) -> &Reader {
        &self.reader
    }

    pub(crate) fn events(&self) -> &Events {
        &self.events
    }

    /// The app being driven.
    pub fn app(&self) -> &App {
        &self.app
    }

    /// Events seen and events collapsed into a full re-read (the drain's counters).
    pub fn event_counts(&self) -> (u64, u64) {
        self.events.counts()
    }

    /// How the tree is read: over the app's peer-to-peer socket (`true`) or the bus; and how
    /// the last whole-tree read went (`Cache.GetItems` or a walk).
    pub fn read_path(&self) -> (bool, Option<Bulk>) {
        (self.reader.is_direct(), self.last_bulk)
    }

    /// Reads the whole tree again now (what the first `poll_tree` does), for benches.
    pub fn fetch_all(&mut self) -> Result<TreeUpdate, TargetError> {
        self.alive()?;
        let classify = |e, what: &str| classify(&self.events, &self.conn, &self.app, e, what);
        let bulk = crate::sync::read_all(&self.reader, &mut self.tree, &classify)?;
        self.last_bulk = Some(bulk);
        self.events.know(
            &self.tree.root,
            crate::sync::known(&self.reader, &self.tree),
        );
        self.tree
            .update(true)
            .ok_or_else(|| TargetError::Ipc("the tree read came back empty".into()))
    }

    /// An app we attached to (not our child): once it has left the bus and its process is
    /// gone, that it ended — its status and output were never ours to read.
    fn attached_exit(&self) -> Option<AppExit> {
        let pid = i32::try_from(self.app.pid?).ok()?;
        // Left the bus: the events say so, or — before they arrive — its name has no owner
        // (what made a call on it fail `APP_GONE`). Then its process gets EXIT_GRACE to end.
        let left = self.events.is_gone().is_some()
            || !crate::process::is_alive(pid)
            || !block_on(dbus::has_owner(&self.conn, &self.app.bus_name));
        if !left {
            return None;
        }
        let deadline = std::time::Instant::now() + EXIT_GRACE;
        while crate::process::is_alive(pid) {
            if std::time::Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(AppExit {
            status: None,
            signal: None,
            stdout: None,
            stderr: None,
        })
    }

    pub(crate) fn alive(&self) -> Result<(), TargetError> {
        match self.events.is_gone() {
            Some(why) => Err(TargetError::AppGone(why)),
            None => Ok(()),
        }
    }

    /// Turns a bus error into the target's error: an app that left the bus is `AppGone`.
    pub(crate) fn classify(&self, e: zbus::Error, what: &str) -> TargetError {
        classify(&self.events, &self.conn, &self.app, e, what)
    }

    /// The desktop session's keys, pointer and windows, opened on first use.
    pub(crate) fn desk(&mut self) -> Result<&mut Desk, TargetError> {
        if self.desk.is_none() {
            let gtk = matches!(self.toolkit_kind(), map::Toolkit::Gtk)
                || self.toolkit.eq_ignore_ascii_case("gtk");
            self.desk = Some(Desk::open(
                &self.session(),
                self.display.as_deref(),
                self.app.pid,
                &self.session_bus,
                self.session_address.as_deref(),
                gtk,
            )?);
        }
        self.desk
            .as_mut()
            .ok_or_else(|| TargetError::Ipc("no desktop session".into()))
    }

    /// The kind of desktop session the app is on.
    pub fn session(&self) -> Session {
        Session::detect(self.display.as_deref())
    }

    /// The app's main window (the largest mapped one with its pid; on Wayland, the one the
    /// app has, placed on the monitor it is maximized on).
    pub fn main_window(&mut self) -> Result<crate::x11::XWindow, TargetError> {
        if self.session() == Session::Wayland {
            return self.wayland_window(crate::desk::Purpose::Pointer);
        }
        let pid = self.app.pid.ok_or_else(|| {
            TargetError::Unsupported("X11 input: the app's process id is unknown".into())
        })?;
        let wins = self.desk()?.windows_of(pid).map_err(TargetError::Ipc)?;
        wins.into_iter().next().ok_or_else(|| {
            TargetError::Ipc(format!(
                "the app (pid {pid}) has no mapped X11 window (is it on this display, or on Wayland?)"
            ))
        })
    }

    /// The node id of an object path, when the tree has shown it.
    pub fn node_id(&self, path: &str) -> Option<accesskit::NodeId> {
        self.tree.known_id(path)
    }

    /// The app's tree as last read, for the host.
    pub(crate) fn tree(&self) -> &AppTree {
        &self.tree
    }

    fn incremental(&mut self) -> Result<Option<TreeUpdate>, TargetError> {
        let now = std::time::Instant::now();
        self.watched.retain(|(_, until, _)| *until > now);
        self.follow_page_scroll(now);
        for (path, _, whole) in &mut self.watched {
            if *whole {
                self.events.touch(path);
            } else {
                self.events.touch_subtree(path);
                *whole = true;
            }
        }
        let settled = self.reread_settled(now);
        let pending = self.events.take();
        self.settle_later(&pending, &settled, now);
        if let Some(why) = pending.gone {
            return Err(TargetError::AppGone(why));
        }
        if pending.everything || pending.changed.len() > crate::sync::READ_ALL_ABOVE {
            return self.fetch_all().map(|mut u| {
                u.tree = None;
                Some(u)
            });
        }
        if pending.changed.is_empty() {
            return Ok(None);
        }
        let classify = |e, what: &str| classify(&self.events, &self.conn, &self.app, e, what);
        let changed =
            crate::sync::read_changes(&self.reader, &mut self.tree, pending.changed, &classify)?;
        // Also when nothing changed: a table read again may answer for its cells with new
        // objects, whose events count from now on.
        self.events.know(
            &self.tree.root,
            crate::sync::known(&self.reader, &self.tree),
        );
        Ok(if changed {
            self.tree.update(false)
        } else {
            None
        })
    }

    fn path_of(&self, id: accesskit::NodeId) -> Option<(String, RawNode)> {
        let p = self.tree.path(id)?.to_string();
        let raw = self.tree.nodes.get(&p)?.clone();
        Some((p, raw))
    }

    /// The index of `path`'s toolkit action for `want`. The actions as last read are tried
    /// first; when they hold none for it, they are read again: an app busy when the node was
    /// read (LibreOffice rebuilding its menu bar under load) answers no actions then, and a
    /// person's click must not be refused for the kit's stale read.
    fn action_index(&mut self, path: &str, raw: &RawNode, want: Action) -> Option<usize> {
        if let Some(index) = map::find_action_on(&raw.actions, want, raw.role) {
            return Some(index);
        }
        if !raw.has(Interface::Action) {
            return None;
        }
        let fresh = block_on(self.reader.actions(path));
        if fresh == raw.actions {
            return None;
        }
        let index = map::find_action_on(&fresh, want, raw.role);
        if let Some(node) = self.tree.nodes.get_mut(path) {
            node.actions = fresh;
        }
        self.events.touch(path);
        index
    }

    /// The application's windows as it lists them now: (path, name, states), read fresh —
    /// GTK 4 sends no event when a window closes, so the tree as last read may still hold it.
    /// The tree is marked to catch up on the next poll.
    pub(crate) fn windows_now(
        &self,
    ) -> Result<Vec<(String, String, atspi::StateSet)>, TargetError> {
        const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
        let root = self.tree.root.clone();
        let refs: Vec<crate::wire::WireRef> =
            block_on(self.reader.call(&root, ACCESSIBLE, "GetChildren", &()))
                .map_err(|e| self.classify(e, "listing the app's windows"))?;
        let mut out = Vec::new();
        for r in refs {
            let Some(path) = self.reader.same_app(&r) else {
                continue;
            };
            let states: Result<Vec<u32>, _> =
                block_on(self.reader.call(&path, ACCESSIBLE, "GetState", &()));
            let Ok(states) = states else {
                // Gone meanwhile.
                continue;
            };
            let name: String = block_on(self.reader.call::<_, zbus::zvariant::OwnedValue>(
                &path,
                "org.freedesktop.DBus.Properties",
                "Get",
                &(ACCESSIBLE, "Name"),
            ))
            .ok()
            .and_then(|v| String::try_from(v).ok())
            .unwrap_or_default();
            out.push((path, name, crate::wire::states(&states)));
        }
        self.events.touch_as_children(&root);
        Ok(out)
    }

    /// A method on `path` answering a boolean ("done"), over the reader's connection.
    pub(crate) fn call_bool<B>(
        &self,
        path: &str,
        iface: &str,
        method: &str,
        body: &B,
        what: &str,
    ) -> Result<bool, TargetError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        block_on(self.reader.call::<_, bool>(path, iface, method, body))
            .map_err(|e| self.classify(e, what))
    }

    fn screen_point(&mut self, x: f64, y: f64) -> Result<(i32, i32), TargetError> {
        let w = self.main_window()?;
        Ok((w.x + x.round() as i32, w.y + y.round() as i32))
    }
}

/// Turns a bus error into the target's error: an app that left the bus is `AppGone`.
fn classify(
    events: &Events,
    conn: &Connection,
    app: &App,
    e: zbus::Error,
    what: &str,
) -> TargetError {
    if let Some(why) = events.is_gone() {
        return TargetError::AppGone(why);
    }
    if !block_on(dbus::has_owner(conn, &app.bus_name)) {
        return TargetError::AppGone(format!(
            "{} ({}) left the accessibility bus while {what}",
            app.name, app.bus_name
        ));
    }
    // The object is gone while the app lives (a closed window's widget; GTK 4 answers
    // "Object does not exist").
    if let zbus::Error::MethodError(name, detail, _) = &e
        && (name.as_str() == "org.freedesktop.DBus.Error.UnknownObject"
            || (name.as_str() == "org.freedesktop.DBus.Error.UnknownMethod"
                && detail
                    .as_deref()
                    .is_some_and(|d| d.to_ascii_lowercase().contains("does not exist"))))
    {
        return TargetError::NodeGone(format!(
            "{what}: {}",
            detail.as_deref().unwrap_or(name.as_str())
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

fn ipc(what: &'static str) -> impl Fn(zbus::Error) -> TargetError {
    move |e| TargetError::Ipc(format!("{what}: {e}"))
}

impl Target for AtspiTarget {
    fn clock(&self) -> ClockKind {
        ClockKind::Real
    }

    fn poll_tree(&mut self) -> Result<Option<TreeUpdate>, TargetError> {
        self.alive()?;
        // One update per sync: core polls until `None`, and an app that keeps changing would
        // keep that loop (and the op's answer) waiting. What arrives meanwhile is the next
        // sync's.
        if std::mem::take(&mut self.just_updated) {
            return Ok(None);
        }
        let u = if self.sent_full {
            self.incremental()?
        } else {
            // Events that arrive while the first read runs are re-read on the next poll.
            let u = match self.primed.take() {
                Some(u) => u,
                None => {
                    let _ = self.events.take();
                    self.fetch_all()?
                }
            };
            self.sent_full = true;
            Some(u)
        };
        self.just_updated = u.is_some();
        Ok(u)
    }

    fn action(&mut self, request: ActionRequest) -> Result<ActionOutcome, TargetError> {
        self.alive()?;
        let Some((path, raw)) = self.path_of(request.target_node) else {
            return Ok(ActionOutcome::Unhandled);
        };
        const COMPONENT: &str = "org.a11y.atspi.Component";
        let handled = match request.action {
            Action::SetValue => return self.set_value(&path, &raw, request.data),
            Action::Focus => return self.focus(&path, &raw),
            // A page tab with no action of its own (Java's): its tab list's selection picks it.
            Action::Click
                if raw.role == Some(atspi::Role::PageTab)
                    && map::find_action_on(&raw.actions, Action::Click, raw.role).is_none() =>
            {
                self.select_in_parent(&path)?
            }
            Action::ScrollIntoView if raw.has(Interface::Component) => {
                let how = ScrollType::Anywhere as u32;
                let mut done =
                    self.call_bool(&path, COMPONENT, "ScrollTo", &(how,), "scrolling into view")?;
                // GTK 3 scrolls no list row that way (it answers false): the row the keyboard
                // cursor moves to is scrolled to, as a person's arrow keys bring it into view.
                if !done
                    && matches!(
                        raw.role,
                        Some(
                            atspi::Role::TableCell | atspi::Role::ListItem | atspi::Role::TreeItem
                        )
                    )
                    && raw.states.contains(atspi::State::Focusable)
                {
                    done = self.call_bool(&path, COMPONENT, "GrabFocus", &(), "grabbing focus")?;
                }
                // Browsers send no event for a scroll: everything in what scrolled moved.
                let region = self.scroll_region(&path);
                self.events.touch_subtree(&region);
                done
            }
            _ => false,
        };
        // Refused (`false`): the toolkit's own action for it, if it has one.
        if handled {
            return Ok(ActionOutcome::Handled);
        }
        let Some(index) = self.action_index(&path, &raw, request.action) else {
            return Ok(ActionOutcome::Unhandled);
        };
        let index = i32::try_from(index).map_err(|e| TargetError::Ipc(e.to_string()))?;
        let done = match self
            .reader
            .do_action_within(&path, index, ACTION_RETURNS_WITHIN)
        {
            Some(reply) => reply.map_err(|e| self.classify(e, "performing the action"))?,
            None => {
                self.events.touch_subtree(&path);
                return Err(TargetError::Timeout {
                    waited_ms: u64::try_from(ACTION_RETURNS_WITHIN.as_millis()).unwrap_or(u64::MAX),
                    detail: "the action was sent and the app has not returned from it: it may be running a modal dialog inside the call (GTK does), and answers nothing else until that closes; a click or the keys open such a dialog without this".into(),
                });
            }
        };
        // What the action opened (a menu, a page) has no event of its own for each child.
        self.events.touch_subtree(&path);
        Ok(if done {
            ActionOutcome::Handled
        } else {
            ActionOutcome::Unhandled
        })
    }

    fn refresh(&mut self, id: accesskit::NodeId) {
        if let Some(path) = self.tree.path(id) {
            self.events.touch(path);
        }
    }

    fn focus_key(
        &self,
    ) -> Option<(
        automation_core::input::NamedKey,
        automation_core::input::Modifiers,
    )> {
        map::focus_key(self.toolkit_kind())
    }

    fn partial_children(&self) -> Vec<automation_core::PartialChildren> {
        self.tree
            .nodes
            .values()
            .filter_map(|n| {
                // A table read in a window: its cells read, of all it has.
                let (listed, total) = match (n.table, n.children_total) {
                    (Some((rows, cols)), _) => {
                        let (r, c) = crate::children::table_window(rows, cols);
                        let cells = |r: i32, c: i32| {
                            usize::try_from(i64::from(r) * i64::from(c)).unwrap_or(usize::MAX)
                        };
                        (cells(r, c), cells(rows.max(0), cols.max(0)))
                    }
                    (None, Some(total)) => (n.children.len(), usize::try_from(total).ok()?),
                    (None, None) => return None,
                };
                if listed >= total {
                    return None;
                }
                Some(automation_core::PartialChildren {
                    id: self.tree.known_id(&n.path)?,
                    listed,
                    total,
                })
            })
            .collect()
    }

    fn reread(&mut self, id: accesskit::NodeId) {
        if let Some(path) = self.tree.path(id).map(str::to_string) {
            self.watch(path);
        }
    }

    fn means(&mut self, intent: Intent, id: accesskit::NodeId) -> Vec<Means> {
        let found = self.path_of(id);
        let role = found.as_ref().and_then(|(_, r)| r.role);
        let in_menu_bar = found.as_ref().is_some_and(|(path, _)| {
            self.tree.ancestors(path).iter().any(|a| {
                self.tree
                    .nodes
                    .get(a)
                    .is_some_and(|n| n.role == Some(atspi::Role::MenuBar))
            })
        });
        let toolkit = if std::env::var_os("AUTOMATION_ATSPI_NO_POINTER_CLICK").is_some()
            && self.toolkit_kind() == map::Toolkit::Gtk
        {
            // Measures GTK's own click action (benches): the pointer comes after it.
            map::Toolkit::Other
        } else {
            self.toolkit_kind()
        };
        map::means(toolkit, role, in_menu_bar, intent).to_vec()
    }

    fn click_node(
        &mut self,
        id: accesskit::NodeId,
        button: PointerButton,
    ) -> Result<Hit, TargetError> {
        self.alive()?;
        let Some((path, _)) = self.path_of(id) else {
            return Ok(Hit::Missed("it is no longer in the app's tree".into()));
        };
        self.click_path(&path, button)
    }

    fn aim_node(&mut self, id: accesskit::NodeId) -> Result<Aim, TargetError> {
        self.alive()?;
        // LibreOffice places its objects right only once the pointer has been over its
        // window, and AccessKit's extents ignore its scroll areas: the mirror aims there, as
        // the click path first moves or scrolls for them.
        if matches!(
            self.toolkit_kind(),
            map::Toolkit::LibreOffice | map::Toolkit::AccessKit
        ) {
            return Ok(Aim::Unknown);
        }
        let Some((path, _)) = self.path_of(id) else {
            return Ok(Aim::Unknown);
        };
        Ok(match self.visible_point(&path)? {
            // In the frame `screen_point` maps back from.
            Ok(((sx, sy), _)) => {
                let main = self.main_window()?;
                Aim::At {
                    x: f64::from(sx - main.x),
                    y: f64::from(sy - main.y),
                }
            }
            Err(why) => Aim::Unreachable(why),
        })
    }

    fn pointer(&mut self, event: &PointerEvent) -> Result<(), TargetError> {
        self.alive()?;
        let (x, y) = self.screen_point(event.position.x, event.position.y)?;
        let desk = self.desk()?;
        desk.motion(x, y).map_err(TargetError::Ipc)?;
        let button = event.button.unwrap_or_default();
        if event.phase == PointerPhase::Down {
            self.ensure_x_focus(None)?;
        }
        let desk = self.desk()?;
        match event.phase {
            PointerPhase::Down => desk.button(button, true),
            PointerPhase::Up => desk.button(button, false),
            PointerPhase::Move => Ok(()),
            PointerPhase::Cancel => {
                for b in &event.buttons_held {
                    desk.button(*b, false).map_err(TargetError::Ipc)?;
                }
                Ok(())
            }
        }
        .map_err(TargetError::Ipc)
    }

    fn key(&mut self, event: &KeyEvent) -> Result<(), TargetError> {
        self.alive()?;
        self.ensure_x_focus(None)?;
        self.desk()?.key(event).map_err(TargetError::Ipc)
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
        let desk = self.desk()?;
        desk.motion(x, y).map_err(TargetError::Ipc)?;
        desk.wheel(dx, dy).map_err(TargetError::Ipc)?;
        // Browsers send no event for a scroll: a page's every position moved.
        if matches!(
            self.toolkit_kind(),
            map::Toolkit::Gecko | map::Toolkit::Chromium
        ) {
            for doc in self.documents() {
                self.events.touch_subtree(&doc);
            }
        }
        Ok(())
    }

    fn wait_for_activity(&mut self, timeout: Duration) -> Result<bool, TargetError> {
        let arrived = self.events.wait(timeout);
        self.alive()?;
        Ok(arrived)
    }

    /// The launched app's exit once it has exited: its status and the ends of its output.
    /// An app that just left the bus gets [`EXIT_GRACE`] for its process to end.
    fn exit(&mut self) -> Option<AppExit> {
        let Some(watch) = self.exit.clone() else {
            return self.attached_exit();
        };
        if watch.status().is_none() {
            self.events.is_gone()?;
            watch.wait(EXIT_GRACE)?;
        }
        watch.app_exit(OUTPUT_GRACE)
    }
}

/// Connects and attaches to the app `sel` names (it must be on the bus already).
pub fn attach(
    bus: &Bus,
    sel: &AppSelector,
    display: Option<String>,
) -> Result<AtspiTarget, TargetError> {
    let app = bus.find(sel)?.ok_or_else(|| {
        let names: Vec<String> = bus
            .apps()
            .unwrap_or_default()
            .into_iter()
            .map(|a| a.name)
            .collect();
        TargetError::AppGone(format!(
            "no app {sel} on the accessibility bus; apps there: [{}]",
            names.join(", ")
        ))
    })?;
    AtspiTarget::new(bus, app, display)
}
