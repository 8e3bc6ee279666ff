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
//!   means) goes to the node's centre when it is shown and enabled (read now), the centre lies
//!   inside every ancestor that has extents (not scrolled or clipped away), the toolkit's own
//!   hit test (`Component.GetAccessibleAtPoint`, walked down from the node's window) finds the
//!   node there, and the app's X window is the one on top at that point. The point is the
//!   node's offset within its window, as the toolkit's own screen coordinates give it, placed
//!   on the X window's real origin — whatever the toolkit reports for its frame's position.
//!   (GTK4 reports `showing` on windows only and leaves hidden widgets out of the tree:
//!   `visible` is shown there.)

use std::collections::HashMap;
use std::time::{Duration, Instant};

use accesskit::Action;
use atspi::{CoordType, Interface, Role, State, StateSet};
use automation_core::{ActionOutcome, Hit, TargetError};
use futures_lite::future::block_on;

use crate::map;
use crate::node::RawNode;
use crate::target::AtspiTarget;
use crate::x11::XWindow;

/// How many of a list's items are read to see whether the focus went to one.
const FOCUS_ITEMS_READ: usize = 200;

/// How long each way of focusing gets to show the node focused.
pub const FOCUS_LANDS_IN: Duration = Duration::from_millis(400);

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const COMPONENT: &str = "org.a11y.atspi.Component";
const TEXT: &str = "org.a11y.atspi.Text";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// GTK4's `ToolkitName` (GTK3's atk-bridge says "gtk" or "gail").
pub(crate) const GTK4: &str = "GTK";

/// A point a click reaches (screen coordinates), and the X window it lands in.
type Reachable = ((i32, i32), XWindow);

/// A surface of its own (a GTK 4 popover): the corner the toolkit reports for it, and the X
/// window that shows it.
type Surface = ((i32, i32), XWindow);

/// Where a click aims within a node.
#[derive(Debug, Clone, Copy)]
enum Aim {
    /// Its centre.
    Centre,
    /// Just past a field's text (offset from the field's corner), where a person clicks to type more: the
    /// caret lands after what is there. Without text shown, where its text starts: a spin
    /// button's centre may be its step button (GTK 4's "−" sits mid-field), which a click
    /// there would press.
    TextEnd(Option<(i32, i32)>),
}

/// How far a popup's X window may lie from where the toolkit says the popup is (its frame).
const POPUP_SLACK_PX: i32 = 4;

/// How long a transient window over a click's point (a tooltip) has to leave once the pointer
/// moves there, as it does when a person's pointer moves (GTK hides its tooltip in 30 ms).
const COVER_LEAVES_WITHIN: Duration = Duration::from_millis(300);

/// How far into a field its text starts, at most.
const TEXT_START_PX: i32 = 16;

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

    /// The app's X window whose rectangle is exactly `frame` (screen coordinates), if one is.
    fn x_window_at(&mut self, frame: (i32, i32, i32, i32)) -> Result<Option<XWindow>, TargetError> {
        let (x, y, w, h) = frame;
        Ok(self.x_windows()?.into_iter().find(|win| {
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

    /// Waits up to [`FOCUS_LANDS_IN`] for `path` to report `focused` — or, for a list, tree
    /// or table, one of its items: it moves the focus to its current item as it takes it
    /// (Firefox's list box).
    fn focus_lands(&self, path: &str) -> Result<bool, TargetError> {
        let deadline = Instant::now() + FOCUS_LANDS_IN;
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
    /// person clicks after its text to add to it: the caret goes to its end. (Fields keep what
    /// their toolkit does: a click there already lands after the text.)
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
        if let Some(count) = count {
            let _ = self.call_bool(path, TEXT, "SetCaretOffset", &(count,), "moving the caret");
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
            && let Ok(((x, y), _)) =
                self.visible_point_at(path, Aim::TextEnd(self.text_end(path)))?
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

    /// GTK 4 draws a popover on a surface of its own (an X window beside the main one) and
    /// reports the popover's widgets in the frame of the widget it hangs from: the surface
    /// that shows `path` is its nearest ancestor whose size is one of the app's X windows'.
    /// That ancestor's reported corner, and the X window.
    fn gtk4_surface(&mut self, path: &str) -> Result<Option<Surface>, TargetError> {
        if self.toolkit() != GTK4 {
            return Ok(None);
        }
        let Some(pid) = self.app().pid else {
            return Ok(None);
        };
        let mut wins = self.x11_conn()?.popups_of(pid).map_err(TargetError::Ipc)?;
        wins.extend(self.x_windows()?);
        let tree = self.tree();
        Ok(tree.ancestors(path).iter().find_map(|a| {
            let (ax, ay, aw, ah) = tree.nodes.get(a)?.extents?;
            (aw > 1 && ah > 1)
                .then(|| {
                    wins.iter().find(|w| {
                        i64::from(w.width) == i64::from(aw) && i64::from(w.height) == i64::from(ah)
                    })
                })
                .flatten()
                .map(|w| ((ax, ay), w.clone()))
        }))
    }

    /// Where `path`'s shown text ends, from its own top-left corner (a pixel past its last
    /// character), when it has text. Read in window coordinates, which every toolkit answers
    /// (GTK 4 refuses screen ones for characters).
    fn text_end(&self, path: &str) -> Option<(i32, i32)> {
        let reader = self.reader();
        let window = CoordType::Window as u32;
        block_on(async {
            let count = reader
                .call::<_, zbus::zvariant::OwnedValue>(
                    path,
                    PROPERTIES,
                    "Get",
                    &(TEXT, "CharacterCount"),
                )
                .await
                .ok()
                .and_then(|v| i32::try_from(v).ok())
                .filter(|n| *n > 0)?;
            let (x, y, w, h) = reader
                .call::<_, (i32, i32, i32, i32)>(
                    path,
                    TEXT,
                    "GetCharacterExtents",
                    &(count - 1, window),
                )
                .await
                .ok()?;
            let (nx, ny, _, _) = reader
                .call::<_, (i32, i32, i32, i32)>(path, COMPONENT, "GetExtents", &(window,))
                .await
                .ok()?;
            (w >= 0 && h > 0).then_some((x + w + 1 - nx, y + h / 2 - ny))
        })
    }

    /// A person's click with `button` on `path`, at its centre once that point is proven to
    /// hit it (see the module's notes); [`Hit::Missed`] with why, and nothing sent, when not.
    pub(crate) fn click_path(
        &mut self,
        path: &str,
        button: automation_core::PointerButton,
    ) -> Result<Hit, TargetError> {
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
            self.x11_conn()?.motion(sx, sy).map_err(TargetError::Ipc)?;
            std::thread::sleep(Duration::from_millis(30));
            ((sx, sy), win) = match self.visible_point(path)? {
                Ok(p) => p,
                Err(why) => return Ok(Hit::Missed(why)),
            };
        }
        // The keyboard focus goes to the app first (nobody gives it one without a window
        // manager), but is left where it is inside the app: moving it out of an open popup
        // menu (an override-redirect window) closes the menu before the click lands.
        let x11 = self.x11_conn()?;
        let top = x11
            .toplevel_of(x11.input_focus().map_err(TargetError::Ipc)?)
            .map_err(TargetError::Ipc)?;
        let ours = self.x_windows()?;
        if !top.is_some_and(|t| ours.iter().any(|w| w.id == t)) {
            self.x11_conn()?
                .focus_window(win.id)
                .map_err(TargetError::Ipc)?;
            self.x_focus = Some(win.id);
        }
        let x11 = self.x11_conn()?;
        x11.motion(sx, sy).map_err(TargetError::Ipc)?;
        x11.button(button, true).map_err(TargetError::Ipc)?;
        x11.button(button, false).map_err(TargetError::Ipc)?;
        self.watch(path.to_string());
        Ok(Hit::Clicked {
            x: f64::from(sx - win.x),
            y: f64::from(sy - win.y),
        })
    }

    /// The screen point at `path`'s centre, when a click there reaches it: the node is
    /// shown and enabled (read now), its centre lies inside every ancestor that has extents
    /// (not scrolled or clipped away), the toolkit's hit test finds it there, and its X window
    /// is the one on top at that point. Else why not.
    ///
    /// Extents are read in the toolkit's screen coordinates, node and window alike, and the
    /// point is the node's offset within its window placed on the X window's real origin: a
    /// toolkit's window-relative extents are not always relative to its window (Qt 5's), and
    /// its screen coordinates not always the screen's (a Java frame that thinks it is at
    /// (-1, -1)), but each is consistent with itself.
    fn visible_point(&mut self, path: &str) -> Result<Result<Reachable, String>, TargetError> {
        self.visible_point_at(path, Aim::Centre)
    }

    /// [`Self::visible_point`] at `aim` within the node.
    fn visible_point_at(
        &mut self,
        path: &str,
        aim: Aim,
    ) -> Result<Result<Reachable, String>, TargetError> {
        let chain = self.ancestors(path);
        let in_popup = self.popup_of(path).is_some();
        let window = self.tree().window_of(path);
        let (states, (own, (frame, above))) = {
            let reader = self.reader();
            let extents = |p: String| async move {
                reader
                    .call::<_, (i32, i32, i32, i32)>(
                        &p,
                        COMPONENT,
                        "GetExtents",
                        &(CoordType::Screen as u32),
                    )
                    .await
                    .ok()
            };
            let frame = async {
                match &window {
                    Some(w) => {
                        let role = self.tree().nodes.get(w).and_then(|n| n.role);
                        reader
                            .window_extents(w, role.unwrap_or(atspi::Role::Frame))
                            .await
                    }
                    None => None,
                }
            };
            block_on(async {
                let states = reader.call::<_, Vec<u32>>(path, ACCESSIBLE, "GetState", &());
                let own = extents(path.to_string());
                let above = futures_util::future::join_all(chain.into_iter().map(extents));
                futures_lite::future::zip(
                    states,
                    futures_lite::future::zip(own, futures_lite::future::zip(frame, above)),
                )
                .await
            })
        };
        let states =
            crate::wire::states(&states.map_err(|e| self.classify(e, "reading the states"))?);
        // GTK4 sets `showing` on windows only; it leaves hidden widgets out of the tree.
        let shown = states.contains(State::Visible)
            && (states.contains(State::Showing) || self.toolkit() == GTK4);
        let enabled = states.contains(State::Enabled)
            || states.contains(State::Sensitive)
            || map::enabled_without_the_states(
                Some(self.toolkit_kind()),
                self.tree().nodes.get(path).and_then(|n| n.role),
                &states,
            );
        if !shown {
            return Ok(Err("it is not showing".into()));
        }
        if !enabled {
            return Ok(Err("it is disabled".into()));
        }
        let own = own.map(|(x, y, w, h)| {
            let (dx, dy) = self.tree().menu_item_shift(path);
            (x + dx, y + dy, w, h)
        });
        let Some((x, y, w, h)) = own.filter(|(_, _, w, h)| *w > 0 && *h > 0) else {
            return Ok(Err("it has no extents on screen".into()));
        };
        // What of it is not scrolled or clipped away: its extents cut by every container's
        // that has extents (a Qt combo's items report the popup's full width, wider than the
        // list that shows them); the point is aimed inside that part.
        let (mut left, mut top_edge, mut right, mut bottom) = (x, y, x + w, y + h);
        for &(ax, ay, aw, ah) in above.iter().flatten() {
            if aw > 0 && ah > 0 {
                (left, top_edge) = (left.max(ax), top_edge.max(ay));
                (right, bottom) = (right.min(ax + aw), bottom.min(ay + ah));
            }
        }
        if right <= left || bottom <= top_edge {
            return Ok(Err(format!(
                "it ({x}, {y}, {w}×{h}) is scrolled or clipped out of its container"
            )));
        }
        let (cx, cy) = match aim {
            Aim::Centre => ((left + right) / 2, (top_edge + bottom) / 2),
            Aim::TextEnd(Some((dx, dy)))
                if (left..right - 1).contains(&(x + dx))
                    && (top_edge..bottom).contains(&(y + dy)) =>
            {
                (x + dx, y + dy)
            }
            Aim::TextEnd(_) => (
                left + ((right - left) / 4).min(TEXT_START_PX),
                (top_edge + bottom) / 2,
            ),
        };
        // The toolkit's hit test may answer the deepest object at once (GTK 4: the label
        // inside a button): a point on what the node holds hits the node.
        if let Some(hit) = self.hit_at(path, cx, cy)?
            && hit != path
            && !self.tree().is_under(&hit, path)
            && !self.same_cell(&hit, path)
            && !self.parent_chain_reaches(&hit, path)
            && !self.same_object_again(&hit, path, (x, y, w, h))
        {
            let other = self
                .tree()
                .nodes
                .get(&hit)
                .map_or_else(|| hit.clone(), |n| format!("{:?} {:?}", n.role, n.name));
            return Ok(Err(format!(
                "at its centre ({cx}, {cy}) the toolkit finds another object ({other}): it is covered"
            )));
        }
        // A control the node holds (a button inside an expander's content) is not the node: a
        // click there would press that control instead.
        if let Some(inner) = self.control_at(path, cx, cy)? {
            return Ok(Err(format!(
                "at its centre ({cx}, {cy}) is a control it holds ({inner}): a click there would press that"
            )));
        }
        // Where its window is, as the toolkit sees it: the offset within it is what holds.
        let frame = frame.filter(|(_, _, w, h)| *w > 0 && *h > 0);
        let (fx, fy) = frame.map_or((0, 0), |(fx, fy, _, _)| (fx, fy));
        let (rx, ry) = (cx - fx, cy - fy);
        // The X window that shows it: the one exactly where the toolkit says its window is (a
        // GTK popup, untitled, beside the main window), else by title, else the largest.
        let exact = match frame {
            Some(f) => self.x_window_at(f)?,
            None => None,
        };
        let win = match exact {
            Some(w) => w,
            None => self.x_window_for(Some(path))?,
        };
        let ((rx, ry), win) = match self.gtk4_surface(path)? {
            Some(((sx0, sy0), surface)) => ((cx - sx0, cy - sy0), surface),
            None => ((rx, ry), win),
        };
        let (sx, sy) = (win.x + rx, win.y + ry);
        let in_window = rx >= 0
            && ry >= 0
            && i64::from(rx) < i64::from(win.width)
            && i64::from(ry) < i64::from(win.height);
        if !in_window {
            return Ok(Err(format!(
                "its centre lies at ({rx}, {ry}) in its window, outside the window's {}×{}",
                win.width, win.height
            )));
        }
        // A popup the app maps over its window (override-redirect, so without the pid
        // property) is on top where it shows: it is the node's when the node hangs from a
        // combo box or menu and the popup holds all of what shows of it.
        let is_own_popup = |this: &mut Self, top: Option<u32>| -> Result<bool, TargetError> {
            let Some(top) = top.filter(|t| in_popup && *t != win.id) else {
                return Ok(false);
            };
            let x11 = this.x11_conn()?;
            let g = x11.geometry(top).map_err(TargetError::Ipc)?;
            let slack = POPUP_SLACK_PX;
            let (l, t) = (win.x + (left - fx), win.y + (top_edge - fy));
            let (r, b) = (win.x + (right - fx), win.y + (bottom - fy));
            Ok(x11.is_override_redirect(top).map_err(TargetError::Ipc)?
                && g.x - slack <= l
                && g.y - slack <= t
                && i64::from(r) <= i64::from(g.x) + i64::from(g.width) + i64::from(slack)
                && i64::from(b) <= i64::from(g.y) + i64::from(g.height) + i64::from(slack))
        };
        let mut on_top = self
            .x11_conn()?
            .toplevel_at(sx, sy)
            .map_err(TargetError::Ipc)?;
        let mut own_popup = is_own_popup(self, on_top)?;
        if on_top != Some(win.id) && !own_popup {
            on_top = self.transient_cover_leaves(sx, sy, on_top)?;
            own_popup = is_own_popup(self, on_top)?;
        }
        if on_top != Some(win.id) && !own_popup {
            let x11 = self.x11_conn()?;
            let what = on_top.map_or_else(
                || "no window".to_string(),
                |top| {
                    let title = x11.title(top).unwrap_or_default();
                    match x11.geometry(top) {
                        Ok(g) => format!("{title:?} ({}×{} at {},{})", g.width, g.height, g.x, g.y),
                        Err(_) => format!("{title:?}"),
                    }
                },
            );
            return Ok(Err(format!(
                "another window covers it: at ({sx}, {sy}) the screen shows {what}, not its window {:?}",
                win.title
            )));
        }
        Ok(Ok(((sx, sy), win)))
    }

    /// The window a click at screen `(sx, sy)` goes to, once a transient window on top there
    /// (`on_top`: a tooltip the app shows where the pointer last was) had the chance to leave:
    /// the pointer moves there as a person's would, and the cover has [`COVER_LEAVES_WITHIN`]
    /// to go.
    fn transient_cover_leaves(
        &mut self,
        sx: i32,
        sy: i32,
        on_top: Option<u32>,
    ) -> Result<Option<u32>, TargetError> {
        let x11 = self.x11_conn()?;
        let transient = match on_top {
            Some(top) => x11.is_override_redirect(top).map_err(TargetError::Ipc)?,
            None => false,
        };
        if !transient {
            return Ok(on_top);
        }
        x11.motion(sx, sy).map_err(TargetError::Ipc)?;
        let until = std::time::Instant::now() + COVER_LEAVES_WITHIN;
        loop {
            let now_on_top = x11.toplevel_at(sx, sy).map_err(TargetError::Ipc)?;
            if now_on_top != on_top || std::time::Instant::now() >= until {
                return Ok(now_on_top);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
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
        let java = self.toolkit_kind() == map::Toolkit::Java;
        let mut out = Vec::new();
        let mut cur = path;
        while let Some(p) = parent_of.get(cur).copied() {
            if p == tree.root || out.len() > crate::walk::MAX_DEPTH {
                break;
            }
            let node = tree.nodes.get(p);
            let role = node.and_then(|n| n.role);
            // A popup hangs from its combo box, menu or menu item and draws outside it: nothing
            // from there up clips what it shows (Qt's combo list is the combo's child, far
            // below the combo; GTK's menu is its title in the menu bar, its items below).
            if matches!(role, Some(Role::ComboBox | Role::MenuItem | Role::Menu)) {
                break;
            }
            // A page tab is its header: what the tab shows hangs under it (Java) but lies
            // below the header, not inside it. So is a tree's row: its child rows hang under
            // it (a tree item; the Java wrapper's labels) and lie below it. The Java wrapper's
            // popup menu reports the combo's place and height, not the list's it shows.
            let header = matches!(role, Some(Role::PageTab | Role::TreeItem))
                || (java && matches!(role, Some(Role::Label | Role::PopupMenu)));
            if !header && node.is_some_and(|n| n.has(Interface::Component)) {
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
}
