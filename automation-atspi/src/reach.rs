//! How input reaches a node the way a person's would.
//!
//! - **X input focus.** Without a window manager (Xvfb) nobody gives a window the keyboard
//!   focus: it follows the pointer, which GTK and Qt take as focus but winit (eframe) does
//!   not, so its keys never arrive. Before keys, a focus and a click, the app's X window gets
//!   the focus (`SetInputFocus`) unless the focus is already in one of its windows.
//! - **Focus that lands.** `GrabFocus` is unsupported in GTK4 and may be accepted without
//!   effect (Qt in an inactive window). A node that has the focus already is left as it is;
//!   else `GrabFocus`, the toolkit's own focus action, and for a text field a click at its
//!   centre are tried in turn, each until the node reports `focused` (read fresh).
//! - **A click that lands at once.** GTK's click action presses the button and lands ~250 ms
//!   later (its "activate" shows the press first); a pointer click is immediate. A button, a
//!   check box or a radio button that is shown, enabled, whose centre lies inside every
//!   ancestor (not scrolled or clipped away) and whose X window is on top at that point gets
//!   a real click there; anything else gets the toolkit's action. (GTK4 reports `showing` on
//!   windows only and leaves hidden widgets out of the tree: `visible` is shown there.)

use std::collections::HashMap;
use std::time::{Duration, Instant};

use accesskit::Action;
use atspi::{CoordType, Interface, Role, State, StateSet};
use automation_core::{ActionOutcome, TargetError};
use futures_lite::future::block_on;

use crate::map;
use crate::node::RawNode;
use crate::target::AtspiTarget;
use crate::x11::XWindow;

/// How long each way of focusing gets to show the node focused.
pub const FOCUS_LANDS_IN: Duration = Duration::from_millis(400);

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const COMPONENT: &str = "org.a11y.atspi.Component";

/// GTK4's `ToolkitName` (GTK3's atk-bridge says "gtk" or "gail").
const GTK4: &str = "GTK";

/// Toolkits whose click action lands late (a pointer click is faster): GTK 3 and 4 ("gtk",
/// "gail", "GTK").
fn click_action_is_slow(toolkit: &str) -> bool {
    let t = toolkit.to_ascii_lowercase();
    t.contains("gtk") || t.contains("gail")
}

/// Roles a pointer click at the centre acts on exactly as their click action does.
fn clicks_like_its_action(role: Option<Role>) -> bool {
    matches!(
        role,
        Some(Role::Button | Role::ToggleButton | Role::CheckBox | Role::RadioButton)
    )
}

/// Whether a click focuses the node and does nothing else (a text field; a click on a
/// button would press it).
fn click_only_focuses(raw: &RawNode) -> bool {
    raw.role.is_some_and(map::text_is_value) && raw.role != Some(Role::ComboBox)
}

impl AtspiTarget {
    /// The app's X windows, largest first (empty when its pid is unknown).
    fn x_windows(&mut self) -> Result<Vec<XWindow>, TargetError> {
        let Some(pid) = self.app().pid else {
            return Ok(Vec::new());
        };
        self.x11_conn()?.windows_of(pid).map_err(TargetError::Ipc)
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

    /// Gives the app's X window the keyboard focus (the one showing `path`; for plain keys,
    /// any window of the app that has it keeps it), so keys reach it. Nothing to do for an
    /// app whose pid or windows are unknown (the keys go where the server sends them).
    pub(crate) fn ensure_x_focus(&mut self, path: Option<&str>) -> Result<(), TargetError> {
        let name = self.window_name(path);
        let last = self.x_focus;
        let x11 = self.x11_conn()?;
        let top = x11
            .toplevel_of(x11.input_focus().map_err(TargetError::Ipc)?)
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
            self.x11_conn()?
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

    /// Waits up to [`FOCUS_LANDS_IN`] for `path` to report `focused`.
    fn focus_lands(&self, path: &str) -> Result<bool, TargetError> {
        let deadline = Instant::now() + FOCUS_LANDS_IN;
        loop {
            if self.states_now(path)?.contains(State::Focused) {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(10));
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
        let done = |t: &Self| {
            t.events().touch(path);
            Ok(ActionOutcome::Handled)
        };
        if self.states_now(path)?.contains(State::Focused) {
            return done(self);
        }
        if raw.has(Interface::Component) {
            match self.call_bool(path, COMPONENT, "GrabFocus", &(), "grabbing focus") {
                Ok(took) => {
                    if took && self.focus_lands(path)? {
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
            if took && self.focus_lands(path)? {
                return done(self);
            }
        }
        if click_only_focuses(raw)
            && let Some((x, y)) = self.visible_point(path)?
        {
            self.x11_conn()?.click(x, y).map_err(TargetError::Ipc)?;
            if self.focus_lands(path)? {
                return done(self);
            }
        }
        // Accepted or not, the focus is not there: never `Handled` (that would read as ok).
        self.events().touch(path);
        Ok(ActionOutcome::Unhandled)
    }

    /// A real pointer click on `path` when its toolkit's click action lands late and the
    /// node can be clicked where it is (see the module's notes); `false` when it cannot, and
    /// nothing was sent.
    pub(crate) fn pointer_click(&mut self, path: &str, raw: &RawNode) -> Result<bool, TargetError> {
        if std::env::var_os("AUTOMATION_ATSPI_NO_POINTER_CLICK").is_some()
            || !click_action_is_slow(self.toolkit())
            || !clicks_like_its_action(raw.role)
            || map::find_action(&raw.actions, Action::Click).is_none()
        {
            return Ok(false);
        }
        let Some((x, y)) = self.visible_point(path)? else {
            return Ok(false);
        };
        self.ensure_x_focus(Some(path))?;
        self.x11_conn()?.click(x, y).map_err(TargetError::Ipc)?;
        self.events().touch(path);
        Ok(true)
    }

    /// The screen point at `path`'s centre, when a click there reaches it: the node is
    /// shown and enabled (read now), its centre lies inside every ancestor that has extents
    /// (not scrolled or clipped away), and its X window is the one on top at that point.
    fn visible_point(&mut self, path: &str) -> Result<Option<(i32, i32)>, TargetError> {
        let chain = self.ancestors(path);
        let (states, (own, above)) = {
            let reader = self.reader();
            let extents = |p: String| async move {
                reader
                    .call::<_, (i32, i32, i32, i32)>(
                        &p,
                        COMPONENT,
                        "GetExtents",
                        &(CoordType::Window as u32),
                    )
                    .await
                    .ok()
            };
            block_on(async {
                let states = reader.call::<_, Vec<u32>>(path, ACCESSIBLE, "GetState", &());
                let own = extents(path.to_string());
                let above = futures_util::future::join_all(chain.into_iter().map(extents));
                futures_lite::future::zip(states, futures_lite::future::zip(own, above)).await
            })
        };
        let states =
            crate::wire::states(&states.map_err(|e| self.classify(e, "reading the states"))?);
        // GTK4 sets `showing` on windows only; it leaves hidden widgets out of the tree.
        let shown = states.contains(State::Visible)
            && (states.contains(State::Showing) || self.toolkit() == GTK4);
        let enabled = states.contains(State::Enabled) || states.contains(State::Sensitive);
        let Some((x, y, w, h)) = own.filter(|_| shown && enabled) else {
            return Ok(None);
        };
        if w <= 0 || h <= 0 {
            return Ok(None);
        }
        let (cx, cy) = (x + w / 2, y + h / 2);
        let inside = |(ax, ay, aw, ah): (i32, i32, i32, i32)| {
            aw <= 0 || ah <= 0 || (ax <= cx && cx < ax + aw && ay <= cy && cy < ay + ah)
        };
        if !above.into_iter().flatten().all(inside) {
            return Ok(None);
        }
        let win = self.x_window_for(Some(path))?;
        let (sx, sy) = (win.x + cx, win.y + cy);
        let in_window = cx >= 0
            && cy >= 0
            && i64::from(cx) < i64::from(win.width)
            && i64::from(cy) < i64::from(win.height);
        if !in_window {
            return Ok(None);
        }
        let on_top = self
            .x11_conn()?
            .toplevel_at(sx, sy)
            .map_err(TargetError::Ipc)?;
        Ok((on_top == Some(win.id)).then_some((sx, sy)))
    }

    /// The objects above `path` up to its window (the application object left out), as last
    /// read, that have a `Component`.
    fn ancestors(&self, path: &str) -> Vec<String> {
        let tree = self.tree();
        let parent_of: HashMap<&str, &str> = tree
            .nodes
            .values()
            .flat_map(|n| {
                n.children
                    .iter()
                    .map(move |c| (c.as_str(), n.path.as_str()))
            })
            .collect();
        let mut out = Vec::new();
        let mut cur = path;
        while let Some(p) = parent_of.get(cur).copied() {
            if p == tree.root || out.len() > crate::walk::MAX_DEPTH {
                break;
            }
            if tree
                .nodes
                .get(p)
                .is_some_and(|n| n.has(Interface::Component))
            {
                out.push(p.to_string());
            }
            cur = p;
        }
        out
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

    #[test]
    fn only_gtk_clicks_by_pointer_and_only_buttons() {
        assert!(click_action_is_slow("GTK"));
        assert!(click_action_is_slow("gail"));
        assert!(!click_action_is_slow("accesskit"));
        assert!(!click_action_is_slow("Qt"));
        assert!(clicks_like_its_action(Some(Role::CheckBox)));
        assert!(!clicks_like_its_action(Some(Role::MenuItem)));
        assert!(!clicks_like_its_action(None));
    }
}
