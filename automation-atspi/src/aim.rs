//! Where a person's pointer reaches a node: a point of it first proven to hit it.
//!
//! The node is shown and enabled (read now); the point lies inside every ancestor that has
//! extents (not scrolled or clipped away); the toolkit's own hit test
//! (`Component.GetAccessibleAtPoint`, walked down from the node's window) finds the node
//! there; and the app's X window is the one on top at that point. The centre is tried first;
//! when something covers it (another window, a dialog over a text view, an object of the
//! app drawn on top), the other points of a grid over what shows of the node are tried, as a
//! person aims at the part they see. The point is the node's offset within its window, as the
//! toolkit's own screen coordinates give it, placed on the X window's real origin, whatever
//! the toolkit reports for its frame's position.

use std::time::Duration;

use atspi::{CoordType, Interface, Role, State};
use automation_core::TargetError;
use futures_lite::future::block_on;

use crate::map::{self, GTK4};
use crate::target::AtspiTarget;
use crate::x11::XWindow;

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const COMPONENT: &str = "org.a11y.atspi.Component";
const TEXT: &str = "org.a11y.atspi.Text";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// A point a click reaches (screen coordinates), and the X window it lands in.
pub(crate) type Reachable = ((i32, i32), XWindow);

/// A surface of its own (a GTK 4 popover): the corner the toolkit reports for it, and the X
/// window that shows it.
type Surface = ((i32, i32), XWindow);

/// What shows of a node: its own extents, the part of them inside every container that
/// clips it (left, top, right, bottom), and whether it hangs from a popup.
struct Shows {
    own: (i32, i32, i32, i32),
    part: (i32, i32, i32, i32),
    in_popup: bool,
}

/// Where a node's window is: the corner its extents are placed from (the toolkit's frame, or
/// a GTK 4 popover's surface), the toolkit's frame corner, and the X window that shows it.
/// A rectangle within a window: x, y, width, height.
pub(crate) type WindowRect = (i32, i32, u32, u32);

struct Place {
    corner: (i32, i32),
    frame_corner: (i32, i32),
    win: XWindow,
}

/// Where, within what shows of a node, the points after its centre lie (fractions of its
/// width and height): the middles of its edges' bands, then its corners' — each a sixth in
/// from the edge, clear of a border.
const OTHER_POINTS: [(i32, i32); 8] = [
    (3, 1),
    (3, 5),
    (1, 3),
    (5, 3),
    (1, 1),
    (5, 1),
    (1, 5),
    (5, 5),
];

/// Where a click aims within a node.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Aim {
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

impl AtspiTarget {
    /// GTK 4 draws a popover on a surface of its own (an X window beside the main one) and
    /// reports the popover's widgets in the frame of the widget it hangs from: the surface
    /// that shows `path` is its nearest ancestor whose size is one of the app's X windows'.
    /// That ancestor's reported corner, and the X window.
    pub(crate) fn gtk4_surface(&mut self, path: &str) -> Result<Option<Surface>, TargetError> {
        if self.toolkit() != GTK4 {
            return Ok(None);
        }
        let Some(pid) = self.app().pid else {
            return Ok(None);
        };
        let mut wins = self.desk()?.popups_of(pid).map_err(TargetError::Ipc)?;
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
    pub(crate) fn text_end(&self, path: &str) -> Option<(i32, i32)> {
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

    /// The screen point at `path`'s centre, or at another point of what shows of it when
    /// something covers the centre, when a click there reaches it (see the module's notes).
    /// Else why not: the centre's reason.
    ///
    /// Extents are read in the toolkit's screen coordinates, node and window alike, and the
    /// point is the node's offset within its window placed on the X window's real origin: a
    /// toolkit's window-relative extents are not always relative to its window (Qt 5's), and
    /// its screen coordinates not always the screen's (a Java frame that thinks it is at
    /// (-1, -1)), but each is consistent with itself.
    pub(crate) fn visible_point(
        &mut self,
        path: &str,
    ) -> Result<Result<Reachable, String>, TargetError> {
        self.visible_point_at(path, Aim::Centre)
    }

    /// [`Self::visible_point`] at `aim` within the node.
    pub(crate) fn visible_point_at(
        &mut self,
        path: &str,
        aim: Aim,
    ) -> Result<Result<Reachable, String>, TargetError> {
        // On Wayland the window is placed first: placing it may maximize it (Super+Up),
        // which moves every node; the node's extents are read once they hold still.
        let in_popup = self.popup_of(path).is_some();
        if self.session() == crate::desk::Session::Wayland {
            // A menu, popover or combo list is a surface of its own there, placed by the
            // compositor where it sees fit and never told: no point in it can be known.
            if in_popup {
                return Err(TargetError::Unsupported(
                    "pointer input into a popup on Wayland (GNOME's Mutter): a menu, popover \
                     or combo list is a surface of its own, which the compositor places \
                     without telling where, so no point in it can be known (use \
                     invoke_action, set_value or the keys; the kit does so for a click)"
                        .into(),
                ));
            }
            self.main_window()?;
            self.settle_after_maximize(path);
        }
        let chain = self.ancestors(path);
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
            let frame = self.frame_extents(window.as_deref());
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
        let first = match aim {
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
        // Past a field's text is where typing goes: no other point of it will do.
        let others: Vec<(i32, i32)> = match aim {
            Aim::Centre => OTHER_POINTS
                .iter()
                .map(|&(fx, fy)| {
                    (
                        left + (right - left) * fx / 6,
                        top_edge + (bottom - top_edge) * fy / 6,
                    )
                })
                .filter(|p| *p != first)
                .collect(),
            Aim::TextEnd(_) => Vec::new(),
        };
        let place = self.place_of(path, frame)?;
        let shows = Shows {
            own: (x, y, w, h),
            part: (left, top_edge, right, bottom),
            in_popup,
        };
        let mut why_not = None;
        for (n, point) in std::iter::once(first)
            .chain(others.iter().copied())
            .enumerate()
        {
            match self.point_reaches(path, &shows, &place, point, n == 0)? {
                Ok(reachable) => return Ok(Ok(reachable)),
                Err(why) => {
                    why_not.get_or_insert(why);
                }
            }
        }
        let why = why_not.unwrap_or_default();
        Ok(Err(if others.is_empty() {
            why
        } else {
            format!("{why}; no other point of what shows of it reaches it either")
        }))
    }

    /// The toolkit's extents of accessible window `window` (none without one).
    async fn frame_extents(&self, window: Option<&str>) -> Option<(i32, i32, i32, i32)> {
        let w = window?;
        let role = self.tree().nodes.get(w).and_then(|n| n.role);
        self.reader()
            .window_extents(w, role.unwrap_or(atspi::Role::Frame))
            .await
    }

    /// The X window that shows `path`, and the node's rectangle within it (its extents read
    /// now): what a screenshot of the node captures, whichever of the app's windows it is in.
    /// `None` when the node has no extents on screen.
    pub(crate) fn node_on_its_window(
        &mut self,
        path: &str,
    ) -> Result<Option<(XWindow, WindowRect)>, TargetError> {
        let window = self.tree().window_of(path);
        let (own, frame) = {
            let reader = self.reader();
            let own = reader.call::<_, (i32, i32, i32, i32)>(
                path,
                COMPONENT,
                "GetExtents",
                &(CoordType::Screen as u32),
            );
            let frame = self.frame_extents(window.as_deref());
            block_on(futures_lite::future::zip(own, frame))
        };
        let Some((x, y, w, h)) = own
            .ok()
            .filter(|(x, _, w, h)| *w > 0 && *h > 0 && *x > i32::MIN)
        else {
            return Ok(None);
        };
        let place = self.place_of(path, frame)?;
        let (rx, ry) = (x - place.corner.0, y - place.corner.1);
        let size = |v: i32| u32::try_from(v).unwrap_or(0);
        Ok(Some((place.win, (rx, ry, size(w), size(h)))))
    }

    /// Where a node's window is: the X window that shows it, and the toolkit's corner of
    /// that window (`frame`, as the toolkit reports it), which node extents are placed from.
    fn place_of(
        &mut self,
        path: &str,
        frame: Option<(i32, i32, i32, i32)>,
    ) -> Result<Place, TargetError> {
        let frame = frame.filter(|(_, _, w, h)| *w > 0 && *h > 0);
        let frame_corner = frame.map_or((0, 0), |(fx, fy, _, _)| (fx, fy));
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
        Ok(match self.gtk4_surface(path)? {
            Some((corner, surface)) => Place {
                corner,
                frame_corner,
                win: surface,
            },
            None => Place {
                corner: frame_corner,
                frame_corner,
                win,
            },
        })
    }

    /// Whether a click at `(cx, cy)` (toolkit screen coordinates) reaches `path`: the screen
    /// point and its window, or why not. `first`: the first point tried, where a transient
    /// window over it (a tooltip) is given the time to leave.
    fn point_reaches(
        &mut self,
        path: &str,
        shows: &Shows,
        place: &Place,
        (cx, cy): (i32, i32),
        first: bool,
    ) -> Result<Result<Reachable, String>, TargetError> {
        // The toolkit's hit test may answer the deepest object at once (GTK 4: the label
        // inside a button): a point on what the node holds hits the node.
        if let Some(hit) = self.hit_at(path, cx, cy)?
            && hit != path
            && !self.tree().is_under(&hit, path)
            && !self.same_cell(&hit, path)
            && !self.parent_chain_reaches(&hit, path)
            && !self.same_object_again(&hit, path, shows.own)
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
        let win = &place.win;
        let (rx, ry) = (cx - place.corner.0, cy - place.corner.1);
        let (sx, sy) = (win.x + rx, win.y + ry);
        let in_window = rx >= 0
            && ry >= 0
            && i64::from(rx) < i64::from(win.width)
            && i64::from(ry) < i64::from(win.height);
        let outside = format!(
            "its centre lies at ({rx}, {ry}) in its window, outside the window's {}×{}",
            win.width, win.height
        );
        // A menu's or combo's popup may open past its window's edge (Qt's menu on a narrow
        // window): there the popup on top is what shows it.
        if !in_window && !shows.in_popup {
            return Ok(Err(outside));
        }
        let mut on_top = self.desk()?.toplevel_at(sx, sy).map_err(TargetError::Ipc)?;
        let mut own_popup = self.is_own_popup(shows, place, on_top)?;
        if first && on_top != Some(win.id) && !own_popup {
            on_top = self.transient_cover_leaves(sx, sy, on_top)?;
            own_popup = self.is_own_popup(shows, place, on_top)?;
        }
        if !in_window && !own_popup {
            return Ok(Err(outside));
        }
        if on_top != Some(win.id) && !own_popup {
            let desk = self.desk()?;
            let what = on_top.map_or_else(
                || "no window".to_string(),
                |top| {
                    let title = desk.title(top).unwrap_or_default();
                    match desk.geometry(top) {
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
        Ok(Ok(((sx, sy), win.clone())))
    }

    /// Whether X window `top` is a popup the app maps over its window (override-redirect, so
    /// without the pid property) that holds all of what shows of the node: it is the node's
    /// when the node hangs from a combo box or menu.
    fn is_own_popup(
        &mut self,
        shows: &Shows,
        place: &Place,
        top: Option<u32>,
    ) -> Result<bool, TargetError> {
        let win = &place.win;
        let Some(top) = top.filter(|t| shows.in_popup && *t != win.id) else {
            return Ok(false);
        };
        let desk = self.desk()?;
        let g = desk.geometry(top).map_err(TargetError::Ipc)?;
        let slack = POPUP_SLACK_PX;
        let (fx, fy) = place.frame_corner;
        let (left, top_edge, right, bottom) = shows.part;
        let (l, t) = (win.x + (left - fx), win.y + (top_edge - fy));
        let (r, b) = (win.x + (right - fx), win.y + (bottom - fy));
        Ok(desk.is_override_redirect(top).map_err(TargetError::Ipc)?
            && g.x - slack <= l
            && g.y - slack <= t
            && i64::from(r) <= i64::from(g.x) + i64::from(g.width) + i64::from(slack)
            && i64::from(b) <= i64::from(g.y) + i64::from(g.height) + i64::from(slack))
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
        let desk = self.desk()?;
        let transient = match on_top {
            Some(top) => desk.is_override_redirect(top).map_err(TargetError::Ipc)?,
            None => false,
        };
        if !transient {
            return Ok(on_top);
        }
        desk.motion(sx, sy).map_err(TargetError::Ipc)?;
        let until = std::time::Instant::now() + COVER_LEAVES_WITHIN;
        loop {
            let now_on_top = desk.toplevel_at(sx, sy).map_err(TargetError::Ipc)?;
            if now_on_top != on_top || std::time::Instant::now() >= until {
                return Ok(now_on_top);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// The objects above `path` up to its window (the application object left out), as last
    /// read, that have a `Component` and clip what they hold.
    fn ancestors(&self, path: &str) -> Vec<String> {
        let tree = self.tree();
        let java = self.toolkit_kind() == map::Toolkit::Java;
        let mut out = Vec::new();
        for p in tree.ancestors(path) {
            if p == tree.root {
                break;
            }
            let node = tree.nodes.get(&p);
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
                out.push(p);
            }
        }
        out
    }
}
