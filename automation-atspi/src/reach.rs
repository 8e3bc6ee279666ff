//! How input reaches a node the way a person's would.
//!
//! - **X input focus.** Without a window manager (Xvfb) nobody gives a window the keyboard
//!   focus: it follows the pointer, which GTK and Qt take as focus but winit (eframe) does
//!   not, so its keys never arrive. Before keys, a focus and a click, the app's X window gets
//!   the focus (`SetInputFocus`) unless the focus is already in one of its windows.
//! - **Focus that lands.** `GrabFocus` is unsupported in GTK4 and may be accepted without
//!   effect (Qt in an inactive window). A node that has the focus already is left as it is;
//!   else `GrabFocus`, the toolkit's own focus action, and for a text field a click just past
//!   its text (where a person clicks to type more) are tried in turn, each until the node reports `focused` (read fresh).
//! - **A click proven to hit.** A person's click (`AtspiTarget::click_path`, core's pointer
//!   means) goes to a point of the node first proven to hit it (the `aim` module).

use std::time::{Duration, Instant};

use accesskit::Action;
use atspi::{CoordType, Interface, Role, State, StateSet};
use automation_core::{ActionOutcome, Hit, TargetError};
use futures_lite::future::block_on;

use crate::aim::Aim;
use crate::map;
use crate::node::RawNode;
use crate::target::AtspiTarget;
use crate::x11::XWindow;

/// How many of a list's items are read to see whether the focus went to one.
const FOCUS_ITEMS_READ: usize = 200;

/// How long each way of focusing gets to show the node focused.
pub const FOCUS_LANDS_IN: Duration = Duration::from_millis(400);
/// How much longer the focus may take after every means was sent and one was accepted.
const FOCUS_LANDS_LATE: Duration = Duration::from_millis(1500);

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const COMPONENT: &str = "org.a11y.atspi.Component";
const TEXT: &str = "org.a11y.atspi.Text";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// Whether a click focuses the node and does nothing else (a text field; a click on a
/// button would press it).
fn click_only_focuses(raw: &RawNode) -> bool {
    raw.role.is_some_and(map::text_is_value) && raw.role != Some(Role::ComboBox)
}

impl AtspiTarget {
    /// The app's X windows, largest first (empty when its pid is unknown); on Wayland, the
    /// one window the target places (`main_window`).
    pub(crate) fn x_windows(&mut self) -> Result<Vec<XWindow>, TargetError> {
        if self.session() == crate::desk::Session::Wayland {
            return Ok(vec![self.main_window()?]);
        }
        let Some(pid) = self.app().pid else {
            return Ok(Vec::new());
        };
        self.desk()?.windows_of(pid).map_err(TargetError::Ipc)
    }

    /// The accessible window above `path` (a child of the application), by name; else the
    /// active one.
    fn window_name(&self, path: Option<&str>) -> Option<String> {
        let tree = self.tree();
        let window = match path {
            Some(p) => tree.window_of(p),
            None => tree.nodes.get(&tree.root).and_then(|r| {
                r.children
                    .iter()
                    .find(|c| {
                        tree.nodes
                            .get(*c)
                            .is_some_and(|n| n.states.contains(State::Active))
                    })
                    .cloned()
            }),
        }?;
        tree.nodes.get(&window).map(|n| n.name.clone())
    }

    /// The X window that shows `path` (or the app's active window): its only one, the one
    /// titled like the accessible window, else the largest.
    pub(crate) fn x_window_for(&mut self, path: Option<&str>) -> Result<XWindow, TargetError> {
        let name = self.window_name(path);
        let wins = self.x_windows()?;
        pick(wins, name.as_deref()).ok_or_else(|| {
            TargetError::Ipc(
                "the app has no mapped X11 window (is it on this display, or on Wayland?)".into(),
            )
        })
    }

    /// The app's X window whose rectangle is exactly `frame` (screen coordinates), if one is.
    pub(crate) fn x_window_at(
        &mut self,
        frame: (i32, i32, i32, i32),
    ) -> Result<Option<XWindow>, TargetError> {
        let (x, y, w, h) = frame;
        // A popup the app maps over its window (LibreOffice's combo list, override-redirect)
        // is where its objects are when the toolkit's window is exactly there.
        let mut wins = self.x_windows()?;
        if let Some(pid) = self.app().pid {
            wins.extend(self.desk()?.popups_of(pid).map_err(TargetError::Ipc)?);
        }
        Ok(wins.into_iter().find(|win| {
            win.x == x
                && win.y == y
                && i64::from(win.width) == i64::from(w)
                && i64::from(win.height) == i64::from(h)
        }))
    }

    /// Gives the app's X window the keyboard focus (the one showing `path`; for plain keys,
    /// any window of the app that has it keeps it), so keys reach it. Nothing to do for an
    /// app whose pid or windows are unknown (the keys go where the server sends them).
    pub(crate) fn ensure_x_focus(&mut self, path: Option<&str>) -> Result<(), TargetError> {
        // A Wayland compositor gives the focus itself: nothing is sent, and the window need
        // not be placed (keys reach a window the pointer cannot).
        if self.session() == crate::desk::Session::Wayland {
            return Ok(());
        }
        let name = self.window_name(path);
        let last = self.x_focus;
        let desk = self.desk()?;
        let top = desk
            .toplevel_of(desk.input_focus().map_err(TargetError::Ipc)?)
            .map_err(TargetError::Ipc)?;
        // The focus is where it was put last: keys for no particular node go there.
        if path.is_none() && top.is_some() && top == last {
            return Ok(());
        }
        let wins = self.x_windows()?;
        if path.is_none()
            && let Some(t) = top
            && wins.iter().any(|w| w.id == t)
        {
            self.x_focus = Some(t);
            return Ok(());
        }
        let Some(want) = pick(wins, name.as_deref()) else {
            return Ok(());
        };
        if top != Some(want.id) {
            self.desk()?
                .focus_window(want.id)
                .map_err(TargetError::Ipc)?;
        }
        self.x_focus = Some(want.id);
        Ok(())
    }

    /// `path`'s states, read now.
    fn states_now(&self, path: &str) -> Result<StateSet, TargetError> {
        let words: Vec<u32> = block_on(self.reader().call(path, ACCESSIBLE, "GetState", &()))
            .map_err(|e| self.classify(e, "reading the states"))?;
        Ok(crate::wire::states(&words))
    }

    /// Waits up to `within` for `path` to report `focused` — or, for a list, tree or table,
    /// one of its items: it moves the focus to its current item as it takes it (Firefox's
    /// list box).
    fn focus_lands(&self, path: &str, within: Duration) -> Result<bool, TargetError> {
        let deadline = Instant::now() + within;
        let items: Vec<String> = self
            .tree()
            .nodes
            .get(path)
            .filter(|n| {
                matches!(
                    n.role,
                    Some(Role::List | Role::ListBox | Role::Tree | Role::TreeTable | Role::Table)
                )
            })
            .map(|n| n.children.iter().take(FOCUS_ITEMS_READ).cloned().collect())
            .unwrap_or_default();
        loop {
            if self.states_now(path)?.contains(State::Focused) {
                return Ok(true);
            }
            let reader = self.reader();
            let item_states =
                block_on(futures_util::future::join_all(items.iter().map(|p| {
                    reader.call::<_, Vec<u32>>(p, ACCESSIBLE, "GetState", &())
                })));
            if item_states
                .into_iter()
                .flatten()
                .any(|words| crate::wire::states(&words).contains(State::Focused))
            {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A word processor's paragraph focused by its toolkit gets the caret at its start; a
    /// person clicks after its text to add to it: the caret goes to its end, and nothing stays
    /// selected, as after a click. (Fields keep what their toolkit does: a click there already
    /// lands after the text.)
    fn caret_to_end(&self, path: &str, raw: &RawNode) {
        if !matches!(raw.role, Some(Role::Paragraph | Role::Heading)) || !raw.has(Interface::Text) {
            return;
        }
        let count = block_on(self.reader().call::<_, zbus::zvariant::OwnedValue>(
            path,
            PROPERTIES,
            "Get",
            &(TEXT, "CharacterCount"),
        ))
        .ok()
        .and_then(|v| i32::try_from(v).ok());
        // A selection left in another paragraph (Writer selects what Redo put back) would
        // grow to the caret (GrabFocus and SetCaretOffset both extend it in Writer), and the
        // keys would replace it all: the selection is set empty at the end, which collapses
        // it; a toolkit that has no selection to set there takes the caret move.
        if let Some(count) = count {
            let collapsed = self
                .call_bool(
                    path,
                    TEXT,
                    "SetSelection",
                    &(0, count, count),
                    "moving the caret",
                )
                .unwrap_or(false);
            if !collapsed {
                let _ = self.call_bool(path, TEXT, "SetCaretOffset", &(count,), "moving the caret");
            }
        }
    }

    /// `focus`: `Handled` only when the node reports `focused` (read now), by the first way
    /// that gets it there; else `Unhandled`, whatever the toolkit said to each way.
    pub(crate) fn focus(
        &mut self,
        path: &str,
        raw: &RawNode,
    ) -> Result<ActionOutcome, TargetError> {
        // A toolkit shows focus only in its active window: X focus first. An app not on X
        // (Wayland) still gets the accessibility calls.
        if self.ensure_x_focus(Some(path)).is_err() {
            self.alive()?;
        }
        // The focus moved here by the kit: a paragraph's caret goes where a person's click
        // would put it. One that had the focus keeps its caret.
        let done = |t: &Self| {
            t.caret_to_end(path, raw);
            t.events().touch(path);
            Ok(ActionOutcome::Handled)
        };
        if self.states_now(path)?.contains(State::Focused) {
            self.events().touch(path);
            return Ok(ActionOutcome::Handled);
        }
        let mut accepted = false;
        if raw.has(Interface::Component) {
            match self.call_bool(path, COMPONENT, "GrabFocus", &(), "grabbing focus") {
                Ok(took) => {
                    accepted |= took;
                    if took && self.focus_lands(path, FOCUS_LANDS_IN)? {
                        return done(self);
                    }
                }
                Err(TargetError::AppGone(why)) => return Err(TargetError::AppGone(why)),
                // Unsupported (GTK4 answers `NotSupported`) or failed: the next way.
                Err(_) => {}
            }
        }
        if let Some(index) = map::find_action(&raw.actions, Action::Focus) {
            let index = i32::try_from(index).map_err(|e| TargetError::Ipc(e.to_string()))?;
            let took = match self.call_bool(
                path,
                "org.a11y.atspi.Action",
                "DoAction",
                &(index,),
                "performing the focus action",
            ) {
                Ok(took) => took,
                Err(TargetError::AppGone(why)) => return Err(TargetError::AppGone(why)),
                Err(_) => false,
            };
            accepted |= took;
            if took && self.focus_lands(path, FOCUS_LANDS_IN)? {
                return done(self);
            }
        }
        if click_only_focuses(raw)
            && let Ok(((x, y), _)) =
                self.visible_point_at(path, Aim::TextEnd(self.text_end(path)))?
        {
            self.desk()?.click(x, y).map_err(TargetError::Ipc)?;
            accepted = true;
            if self.focus_lands(path, FOCUS_LANDS_IN)? {
                return done(self);
            }
        }
        // An app under load (CI) may take a means it accepted later than each one's wait: one
        // last, longer wait before the focus is called missing.
        if accepted && self.focus_lands(path, FOCUS_LANDS_LATE)? {
            return done(self);
        }
        // Accepted or not, the focus is not there: never `Handled` (that would read as ok).
        self.events().touch(path);
        Ok(ActionOutcome::Unhandled)
    }

    /// AccessKit apps (egui) clip a scroll area's children neither in their extents nor in
    /// their hit test: a node scrolled out of sight reports a point where it is not drawn.
    /// The app is asked to scroll it into view first (nothing moves when it shows, as a
    /// person's wheel would not), and its extents are read until they stop moving (egui
    /// animates the scroll).
    fn scroll_to_settled(&mut self, path: &str) -> Result<(), TargetError> {
        const SETTLES_WITHIN: Duration = Duration::from_millis(600);
        let how = atspi::ScrollType::Anywhere as u32;
        let moved = self
            .call_bool(path, COMPONENT, "ScrollTo", &(how,), "scrolling into view")
            .unwrap_or(false);
        if !moved {
            return Ok(());
        }
        let extents = |t: &Self| {
            block_on(t.reader().call::<_, (i32, i32, i32, i32)>(
                path,
                COMPONENT,
                "GetExtents",
                &(CoordType::Screen as u32),
            ))
            .ok()
        };
        let start = Instant::now();
        let mut last = extents(self);
        while start.elapsed() < SETTLES_WITHIN {
            std::thread::sleep(Duration::from_millis(40));
            let now = extents(self);
            if now == last {
                break;
            }
            last = now;
        }
        Ok(())
    }

    /// A person's click with `button` on `path`, at its centre once that point is proven to
    /// hit it (see the module's notes); [`Hit::Missed`] with why, and nothing sent, when not.
    pub(crate) fn click_path(
        &mut self,
        path: &str,
        button: automation_core::PointerButton,
    ) -> Result<Hit, TargetError> {
        // A combo box drawn by its siblings opens by its arrow, as a person's does.
        let face = self.tree().face_of(path).map(|f| f.opener);
        let path = face.as_deref().unwrap_or(path);
        if self.toolkit_kind() == map::Toolkit::AccessKit {
            self.scroll_to_settled(path)?;
        }
        let ((mut sx, mut sy), mut win) = match self.visible_point(path)? {
            Ok(p) => p,
            Err(why) => return Ok(Hit::Missed(why)),
        };
        // LibreOffice reports every object 25 px too high (its GTK menu bar's height) until
        // the pointer first moves over its window: the pointer goes there first, and the
        // point is taken again.
        if self.toolkit_kind() == map::Toolkit::LibreOffice {
            self.desk()?.motion(sx, sy).map_err(TargetError::Ipc)?;
            std::thread::sleep(Duration::from_millis(30));
            ((sx, sy), win) = match self.visible_point(path)? {
                Ok(p) => p,
                Err(why) => return Ok(Hit::Missed(why)),
            };
        }
        // The keyboard focus goes to the app first (nobody gives it one without a window
        // manager), but is left where it is inside the app: moving it out of an open popup
        // menu (an override-redirect window) closes the menu before the click lands.
        let desk = self.desk()?;
        let top = desk
            .toplevel_of(desk.input_focus().map_err(TargetError::Ipc)?)
            .map_err(TargetError::Ipc)?;
        let ours = self.x_windows()?;
        if !top.is_some_and(|t| ours.iter().any(|w| w.id == t)) {
            self.desk()?
                .focus_window(win.id)
                .map_err(TargetError::Ipc)?;
            self.x_focus = Some(win.id);
        }
        let desk = self.desk()?;
        desk.motion(sx, sy).map_err(TargetError::Ipc)?;
        desk.button(button, true).map_err(TargetError::Ipc)?;
        desk.button(button, false).map_err(TargetError::Ipc)?;
        self.watch(path.to_string());
        Ok(Hit::Clicked {
            x: f64::from(sx - win.x),
            y: f64::from(sy - win.y),
        })
    }
}

/// The X window among `wins` (largest first) for accessible window `name`: the only one, the
/// one titled so, else the largest.
fn pick(wins: Vec<XWindow>, name: Option<&str>) -> Option<XWindow> {
    if wins.len() > 1
        && let Some(n) = name.filter(|n| !n.is_empty())
        && let Some(w) = wins.iter().find(|w| w.title == n)
    {
        return Some(w.clone());
    }
    wins.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(id: u32, title: &str) -> XWindow {
        XWindow {
            id,
            title: title.into(),
            x: 0,
            y: 0,
            width: 10,
            height: 10,
        }
    }

    #[test]
    fn the_window_is_picked_by_title_else_the_largest() {
        let wins = vec![win(1, "Main"), win(2, "Dialog")];
        assert_eq!(pick(wins.clone(), Some("Dialog")).map(|w| w.id), Some(2));
        assert_eq!(pick(wins.clone(), Some("Other")).map(|w| w.id), Some(1));
        assert_eq!(pick(wins, None).map(|w| w.id), Some(1));
        assert_eq!(pick(Vec::new(), Some("Main")), None);
    }
}
