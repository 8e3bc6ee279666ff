//! Where an app's window is on Wayland.
//!
//! A Wayland compositor does not tell clients where their windows are, so AT-SPI extents there
//! are relative to the window (GTK 4 reports its window at 0,0 in "screen" coordinates). The
//! kit's points are then the window's own, and the desk places them on the screen.
//!
//! sway's IPC says where each window is: the window is taken where it is shown, once its size
//! there is the size the app reports. GNOME's Mutter says nothing of the kind. Its
//! pointer motion is absolute in a monitor stream's coordinates. The two meet on a maximized
//! window: it fills the monitor (bare Mutter has no panel), its top-left is the monitor's,
//! and a maximized GTK window draws no client-side shadow, so window coordinates are monitor
//! coordinates. The target checks that: the app's window, as AT-SPI reports it, has the
//! monitor's size. When it has not, the window is maximized as a person would (Super+Up,
//! mutter's own key binding) once, and checked again. Under GNOME Shell a maximized window is
//! as wide as the monitor and shorter, under the top bar; the shell reports its own panel on
//! the accessibility bus, and the window is placed beside it (`shell`). A window that still
//! cannot be placed gets no pointer input (a typed error says why), never a click at a
//! guessed place; neither does one under GNOME Shell's open overview.

use std::time::{Duration, Instant};

use atspi::State;
use automation_core::TargetError;
use futures_lite::future::block_on;

use crate::desk::{Desk, Purpose, WAYLAND_WINDOW};
use crate::target::AtspiTarget;
use crate::x11::XWindow;

/// How long a node's extents must hold still after a maximize before its point is read (GTK
/// 3 reported the window's new size about 100 ms before it moved its children).
pub const RELAID_STILL_FOR: Duration = Duration::from_millis(250);

/// How long a window has to fill the monitor once Super+Up was sent.
pub const MAXIMIZED_WITHIN: Duration = Duration::from_secs(2);

impl AtspiTarget {
    /// The app's window on a Wayland session, for `purpose`: the active one (else the first
    /// shown), placed where the compositor shows it — on Mutter maximized on the recorded
    /// monitor, on sway where its IPC says — once its size there is proven to be the size the
    /// app reports (see the module's notes). Its origin is 0,0: points are the window's own.
    pub(crate) fn wayland_window(&mut self, purpose: Purpose) -> Result<XWindow, TargetError> {
        let monitor = match self.desk()? {
            Desk::Mutter(m) => m.monitor(),
            Desk::Sway(_) => return self.sway_window(purpose),
            Desk::X11(_) => {
                return Err(TargetError::Ipc(
                    "a Wayland window asked of an X11 session".into(),
                ));
            }
        };
        if block_on(crate::shell::overview_open(&self.session_bus)) {
            return Err(TargetError::Unsupported(format!(
                "{} on Wayland (GNOME Shell): the shell's overview is open and covers the app's \
                 window; close it (Escape, or the Super key) and ask again ({})",
                purpose.what(),
                purpose.instead()
            )));
        }
        let (path, name) = self.shown_window()?;
        let want = (i64::from(monitor.2), i64::from(monitor.3));
        let mut size = self.window_size(&path);
        // Already maximized under GNOME Shell's top bar: placed beside it, no maximize sent.
        let mut top = self.under_panel(size, monitor);
        if size != Some(want) && top.is_none() && !self.wayland_maximized.contains(&path) {
            self.wayland_maximized.push(path.clone());
            if let Desk::Mutter(m) = self.desk()? {
                m.maximize_focused().map_err(TargetError::Ipc)?;
            }
            let until = Instant::now() + MAXIMIZED_WITHIN;
            while size != Some(want) && top.is_none() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(40));
                size = self.window_size(&path);
                top = self.under_panel(size, monitor);
            }
            self.wayland_relaid = true;
            // Every node of the window moved (GTK reports no bounds change for a resize):
            // the mirror reads them all again.
            self.events.touch_subtree(&path);
        }
        if let (Some(top), Some((_, h))) = (top, size) {
            return Ok(XWindow {
                id: WAYLAND_WINDOW,
                title: name,
                x: monitor.0,
                y: monitor.1 + top,
                width: monitor.2,
                height: u32::try_from(h).unwrap_or(0),
            });
        }
        if size != Some(want) {
            let (w, h) = size.unwrap_or((0, 0));
            return Err(TargetError::Unsupported(format!(
                "{} on Wayland (GNOME's Mutter): the app's window {name:?} is {w}×{h}, not the \
                 {}×{} monitor's size, and Super+Up did not make it so{}. A compositor does not \
                 tell clients where a window is, and AT-SPI's extents there are relative to the \
                 window: the kit places them only on a window that fills the monitor ({})",
                purpose.what(),
                monitor.2,
                monitor.3,
                if w == want.0 && h < want.1 {
                    " (a window as wide as the monitor and shorter: maximized under a panel, as \
                     GNOME Shell's top bar keeps one; a fullscreen window fills the monitor)"
                } else {
                    ""
                },
                purpose.instead()
            )));
        }
        Ok(XWindow {
            id: WAYLAND_WINDOW,
            title: name,
            x: monitor.0,
            y: monitor.1,
            width: monitor.2,
            height: monitor.3,
        })
    }

    /// The app's window on sway: where sway's IPC shows it, when that is the size the app
    /// reports (a window larger than its tile is cut by sway, and a shadow would shift it).
    fn sway_window(&mut self, purpose: Purpose) -> Result<XWindow, TargetError> {
        let pid = self.app().pid.ok_or_else(|| {
            TargetError::Unsupported(format!(
                "{} on Wayland ({}): the app's process id is unknown, and sway finds windows \
                 by it ({})",
                purpose.what(),
                crate::sway::NAME,
                purpose.instead()
            ))
        })?;
        let (path, name) = self.shown_window()?;
        let size = self.window_size(&path);
        let Desk::Sway(sway) = self.desk()? else {
            return Err(TargetError::Ipc("sway's desk went away".into()));
        };
        let placed = sway
            .window_of(pid)
            .map_err(TargetError::Ipc)?
            .ok_or_else(|| {
                TargetError::Unsupported(format!(
                    "{} on Wayland ({}): sway shows no window of the app (pid {pid}) on a visible \
                 workspace ({})",
                    purpose.what(),
                    crate::sway::NAME,
                    purpose.instead()
                ))
            })?;
        let shown = (i64::from(placed.width), i64::from(placed.height));
        if size != Some(shown) {
            let (w, h) = size.unwrap_or((0, 0));
            return Err(TargetError::Unsupported(format!(
                "{} on Wayland ({}): the app's window {name:?} is {w}×{h} as the app reports \
                 it, but sway shows it {}×{} (a tile smaller than the window, or a shadow \
                 around it), so AT-SPI's window-relative extents cannot be placed on the \
                 screen ({})",
                purpose.what(),
                crate::sway::NAME,
                shown.0,
                shown.1,
                purpose.instead()
            )));
        }
        let (width, height) = (placed.width, placed.height);
        sway.place(placed);
        Ok(XWindow {
            id: WAYLAND_WINDOW,
            title: name,
            x: 0,
            y: 0,
            width,
            height,
        })
    }

    /// The app's accessible window a person sees: the active one, else the first shown.
    fn shown_window(&mut self) -> Result<(String, String), TargetError> {
        let windows = self.windows_now()?;
        let shown = windows
            .iter()
            .filter(|(_, _, st)| crate::node::shows(st))
            .collect::<Vec<_>>();
        shown
            .iter()
            .find(|(_, _, st)| st.contains(State::Active))
            .or_else(|| shown.first())
            .map(|(path, name, _)| (path.clone(), name.clone()))
            .ok_or_else(|| {
                TargetError::Ipc("the app shows no window on the accessibility bus".into())
            })
    }

    /// After a maximize, waits until `path`'s extents hold still: the window reports its new
    /// size before the toolkit has laid its children out again (GTK 3's tabs moved 67 px
    /// after the window had the monitor's size), and a point read in between is stale.
    pub(crate) fn settle_after_maximize(&mut self, path: &str) {
        if !std::mem::take(&mut self.wayland_relaid) {
            return;
        }
        let read = |t: &Self| block_on(t.reader().window_extents(path, atspi::Role::Unknown));
        let until = Instant::now() + MAXIMIZED_WITHIN;
        let mut last = read(self);
        let mut still_since = Instant::now();
        while Instant::now() < until {
            std::thread::sleep(Duration::from_millis(40));
            let now = read(self);
            if now != last {
                last = now;
                still_since = Instant::now();
            } else if still_since.elapsed() >= RELAID_STILL_FOR {
                return;
            }
        }
    }

    /// A window's size as the toolkit reports it now.
    /// Where a window of `size` sits when it is as wide as the monitor and shorter: under (or
    /// above) a panel GNOME Shell reports, its top's offset from the monitor's; else `None`.
    /// The shell's answer for a size is kept: finding its panel reads some of its tree.
    fn under_panel(
        &mut self,
        size: Option<(i64, i64)>,
        monitor: (i32, i32, u32, u32),
    ) -> Option<i32> {
        let (w, h) = size?;
        if w != i64::from(monitor.2) || h >= i64::from(monitor.3) {
            return None;
        }
        if let Some((known, top)) = self.wayland_panel
            && known == (w, h)
        {
            return top;
        }
        let top = block_on(crate::shell::window_top(&self.conn, monitor, h));
        self.wayland_panel = Some(((w, h), top));
        top
    }

    fn window_size(&self, path: &str) -> Option<(i64, i64)> {
        let role = self
            .tree()
            .nodes
            .get(path)
            .and_then(|n| n.role)
            .unwrap_or(atspi::Role::Frame);
        block_on(self.reader().window_extents(path, role))
            .map(|(_, _, w, h)| (i64::from(w), i64::from(h)))
    }
}
