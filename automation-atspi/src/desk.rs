//! [`Desk`]: where keys, the pointer and the app's windows come from — the X server, or on
//! Wayland the compositor — chosen by the session ([`Session::detect`]).
//!
//! The target and the host speak to a `Desk` only: key events, pointer motion, buttons and
//! the wheel at screen points, the app's windows and their origins, and capture. On X11 each
//! call is [`X11`]'s, unchanged. On Wayland a compositor neither lists windows nor says where
//! they are: [`Desk::Mutter`] answers for the one window the target places itself (see
//! `AtspiTarget::main_window`). [`Desk::Sway`] is told where that window is by sway's IPC.

use automation_core::TargetError;
use automation_core::input::{KeyEvent, PointerButton};
use zbus::Connection;

use crate::mutter::Mutter;
use crate::sway::Sway;
use crate::x11::{Capture, X11, XResult, XWindow};

/// The id the one window a compositor session places is given (X ids are never 1 for a
/// top-level window: 1 is `PointerRoot`).
pub const WAYLAND_WINDOW: u32 = 1;

/// What a Wayland window is placed for: the words a refusal is said in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Pointer input at a node's point.
    Pointer,
    /// A screenshot of the window or a node.
    Screenshot,
}

impl Purpose {
    /// What it is, in a refusal's words.
    pub fn what(self) -> &'static str {
        match self {
            Self::Pointer => "pointer input",
            Self::Screenshot => "a screenshot",
        }
    }

    /// What to do instead, said after a refusal.
    pub fn instead(self) -> &'static str {
        match self {
            Self::Pointer => "use invoke_action, set_value or the keys for this one",
            Self::Screenshot => {
                "read the node's text or value with read_node, or run the app on X11 \
                 (--virtual-display) to take its screenshot"
            }
        }
    }
}

/// The kind of desktop session the app is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Session {
    /// An X server (`DISPLAY`, or the display given).
    X11,
    /// A Wayland compositor (`WAYLAND_DISPLAY`, or the socket name given).
    Wayland,
}

impl Session {
    /// The session an app is on: a display given as a Wayland socket name (`wayland-…`) is
    /// Wayland, any other given display X11; with none given, the environment's —
    /// `XDG_SESSION_TYPE=wayland`, or `WAYLAND_DISPLAY` set and `DISPLAY` unset, is Wayland.
    pub fn detect(display: Option<&str>) -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Self::decide(
            display,
            var("XDG_SESSION_TYPE").as_deref(),
            var("WAYLAND_DISPLAY").is_some(),
            var("DISPLAY").is_some(),
        )
    }

    fn decide(
        display: Option<&str>,
        session_type: Option<&str>,
        wayland_display: bool,
        x_display: bool,
    ) -> Self {
        match display {
            Some(d) if d.starts_with("wayland") => Self::Wayland,
            Some(_) => Self::X11,
            None if session_type == Some("wayland") || (wayland_display && !x_display) => {
                Self::Wayland
            }
            None => Self::X11,
        }
    }
}

/// Keys, pointer, windows and pixels of one desktop session.
#[derive(Debug)]
pub enum Desk {
    /// An X server, through XTEST and `GetImage`.
    X11(Box<X11>),
    /// GNOME's compositor, through its remote-desktop and screen-cast D-Bus APIs.
    Mutter(Mutter),
    /// sway, through wlroots' virtual-keyboard, virtual-pointer and screencopy protocols,
    /// and its IPC for where windows are.
    Sway(Box<Sway>),
}

impl Desk {
    /// Opens the desk for `session`: the X server at `display` (`None`: `$DISPLAY`); on
    /// Wayland, sway when app `pid`'s session names sway's IPC socket (`SWAYSOCK`), else a
    /// Mutter remote-desktop session on the session bus (a connection of its own at
    /// `bus_address`, else `bus`). `gtk`: the app is a GTK one (characters beyond the keymap
    /// go through its Unicode entry on Mutter).
    pub fn open(
        session: &Session,
        display: Option<&str>,
        pid: Option<u32>,
        bus: &Connection,
        bus_address: Option<&str>,
        gtk: bool,
    ) -> Result<Self, TargetError> {
        match session {
            Session::X11 => Ok(Self::X11(Box::new(
                X11::connect(display).map_err(TargetError::Ipc)?,
            ))),
            Session::Wayland if sway_ipc(&AppEnv::of(pid), display).is_some() => {
                let env = AppEnv::of(pid);
                let ipc = sway_ipc(&env, display).unwrap_or_default();
                let socket = env.wayland_socket(display);
                Sway::connect(ipc.clone().into(), &socket)
                    .map(|s| Self::Sway(Box::new(s)))
                    .map_err(|e| {
                        TargetError::Ipc(format!(
                            "{}: {e} (the app's Wayland socket is {}, sway's IPC {ipc})",
                            crate::sway::NAME,
                            socket.display()
                        ))
                    })
            }
            Session::Wayland => {
                let own = bus_address.and_then(|a| {
                    futures_lite::future::block_on(
                        crate::dbus::builder(a)
                            .map(|b| b.method_timeout(crate::mutter::CALL_TIMEOUT))
                            .ok()?
                            .build(),
                    )
                    .ok()
                });
                Ok(Self::Mutter(Mutter::connect(
                    own.as_ref().unwrap_or(bus),
                    gtk,
                )?))
            }
        }
    }

    /// Whether this is a Wayland compositor's session.
    pub fn is_wayland(&self) -> bool {
        !matches!(self, Self::X11(_))
    }

    /// What errors call this desk's display server.
    pub fn name(&self) -> &'static str {
        match self {
            Self::X11(_) => "the X server",
            Self::Mutter(_) => "GNOME's Mutter",
            Self::Sway(_) => crate::sway::NAME,
        }
    }

    /// The app's mapped top-level windows, largest first (a compositor lists none).
    pub fn windows_of(&self, pid: u32) -> XResult<Vec<XWindow>> {
        match self {
            Self::X11(x) => x.windows_of(pid),
            Self::Mutter(_) | Self::Sway(_) => Ok(Vec::new()),
        }
    }

    /// The app's popup windows (override-redirect), largest first (a compositor lists none).
    pub fn popups_of(&self, pid: u32) -> XResult<Vec<XWindow>> {
        match self {
            Self::X11(x) => x.popups_of(pid),
            Self::Mutter(_) | Self::Sway(_) => Ok(Vec::new()),
        }
    }

    /// A window's title.
    pub fn title(&self, w: u32) -> XResult<String> {
        match self {
            Self::X11(x) => x.title(w),
            Self::Sway(s) => Ok(s.cover(w).map(|(title, _)| title).unwrap_or_default()),
            Self::Mutter(_) => Ok(String::new()),
        }
    }

    /// A window's origin and size (on a compositor: the monitor the window is maximized on).
    pub fn geometry(&self, w: u32) -> XResult<XWindow> {
        match self {
            Self::X11(x) => x.geometry(w),
            Self::Mutter(m) => {
                let (x, y, width, height) = m.monitor();
                Ok(XWindow {
                    id: w,
                    title: String::new(),
                    x,
                    y,
                    width,
                    height,
                })
            }
            // Window coordinates: the kit's points on sway are the window's own.
            Self::Sway(s) => {
                if let Some((title, (x, y, width, height))) = s.cover(w) {
                    return Ok(XWindow {
                        id: w,
                        title,
                        x,
                        y,
                        width,
                        height,
                    });
                }
                let (width, height) = s.size();
                Ok(XWindow {
                    id: w,
                    title: String::new(),
                    x: 0,
                    y: 0,
                    width,
                    height,
                })
            }
        }
    }

    /// Whether window `w` is a popup the app maps itself (never, on a compositor).
    pub fn is_override_redirect(&self, w: u32) -> XResult<bool> {
        match self {
            Self::X11(x) => x.is_override_redirect(w),
            Self::Mutter(_) | Self::Sway(_) => Ok(false),
        }
    }

    /// The top-level window a click at screen `(x, y)` goes to. sway's tree says which
    /// window is on top there; Mutter does not say, so there the app's window is taken to be
    /// on top (the toolkit's own hit test still runs).
    pub fn toplevel_at(&self, x: i32, y: i32) -> XResult<Option<u32>> {
        match self {
            Self::X11(xs) => xs.toplevel_at(x, y),
            Self::Sway(s) => s.toplevel_at(x, y, WAYLAND_WINDOW).map(Some),
            Self::Mutter(_) => Ok(Some(WAYLAND_WINDOW)),
        }
    }

    /// The window with the keyboard focus (on a compositor: the app's, which it focuses).
    pub fn input_focus(&self) -> XResult<u32> {
        match self {
            Self::X11(x) => x.input_focus(),
            Self::Mutter(_) | Self::Sway(_) => Ok(WAYLAND_WINDOW),
        }
    }

    /// The top-level window `w` is in.
    pub fn toplevel_of(&self, w: u32) -> XResult<Option<u32>> {
        match self {
            Self::X11(x) => x.toplevel_of(w),
            Self::Mutter(_) | Self::Sway(_) => Ok(Some(w)),
        }
    }

    /// Gives window `w` the keyboard focus (a compositor gives it itself: nothing is sent).
    pub fn focus_window(&self, w: u32) -> XResult<bool> {
        match self {
            Self::X11(x) => x.focus_window(w),
            Self::Mutter(_) | Self::Sway(_) => Ok(false),
        }
    }

    /// A primary-button click at screen `(x, y)`.
    pub fn click(&self, x: i32, y: i32) -> XResult<()> {
        match self {
            Self::X11(xs) => xs.click(x, y),
            Self::Mutter(m) => m.click(x, y),
            Self::Sway(s) => s.click(x, y),
        }
    }

    /// Moves the pointer to screen `(x, y)`.
    pub fn motion(&self, x: i32, y: i32) -> XResult<()> {
        match self {
            Self::X11(xs) => xs.motion(x, y),
            Self::Mutter(m) => m.motion(x, y),
            Self::Sway(s) => s.motion(x, y),
        }
    }

    /// Presses or releases a button where the pointer is.
    pub fn button(&self, button: PointerButton, down: bool) -> XResult<()> {
        match self {
            Self::X11(x) => x.button(button, down),
            Self::Mutter(m) => m.button(button, down),
            Self::Sway(s) => s.button(button, down),
        }
    }

    /// Wheel notches at the pointer.
    pub fn wheel(&self, dx: i32, dy: i32) -> XResult<()> {
        match self {
            Self::X11(x) => x.wheel(dx, dy),
            Self::Mutter(m) => m.wheel(dx, dy),
            Self::Sway(s) => s.wheel(dx, dy),
        }
    }

    /// One key transition.
    pub fn key(&mut self, e: &KeyEvent) -> XResult<()> {
        match self {
            Self::X11(x) => x.key(e),
            Self::Mutter(m) => m.key(e),
            Self::Sway(s) => s.key(e),
        }
    }

    /// The pixels of X11 window `w` (or of `crop` within it), or of the window sway placed;
    /// Mutter's come through [`Mutter::capture`].
    pub fn capture(&self, w: u32, crop: Option<(i32, i32, u32, u32)>) -> XResult<Capture> {
        match self {
            Self::X11(x) => x.capture(w, crop),
            Self::Mutter(_) => Err(SCREENSHOT_ON_WAYLAND.into()),
            Self::Sway(s) => s.capture(crop),
        }
    }
}

/// Why a build without PipeWire takes no screenshot on Wayland.
pub const SCREENSHOT_ON_WAYLAND: &str = "screenshots on Wayland need PipeWire, and this build \
     of the kit has no PipeWire reader: the compositor holds the pixels (GNOME's Mutter hands \
     them out as PipeWire frames of a ScreenCast stream). Build automation-atspi with its \
     `pipewire` feature (the CLI: cargo install automation-cli --features pipewire; Debian \
     needs libpipewire-0.3-dev libclang-dev to build it), or run the app on X11 \
     (--virtual-display)";

/// The environment of the app's process, where it can be read, else the kit's: never a mix
/// of the two (a private session's runtime directory and sockets differ from the kit's).
pub struct AppEnv(Vec<u8>);

impl AppEnv {
    /// App `pid`'s environment (`None`, or unreadable: the kit's).
    pub fn of(pid: Option<u32>) -> Self {
        Self(
            pid.and_then(|p| std::fs::read(format!("/proc/{p}/environ")).ok())
                .unwrap_or_default(),
        )
    }

    /// A variable's non-empty value.
    pub fn get(&self, name: &str) -> Option<String> {
        let value = if self.0.is_empty() {
            std::env::var(name).ok()
        } else {
            let prefix = format!("{name}=");
            self.0
                .split(|b| *b == 0)
                .find_map(|kv| kv.strip_prefix(prefix.as_bytes()))
                .map(|v| String::from_utf8_lossy(v).into_owned())
        };
        value.filter(|v| !v.is_empty())
    }

    /// The runtime directory: `XDG_RUNTIME_DIR`, else the user's.
    fn runtime_dir(&self) -> std::path::PathBuf {
        // SAFETY: getuid cannot fail.
        let uid = unsafe { libc::getuid() };
        self.get("XDG_RUNTIME_DIR")
            .unwrap_or_else(|| format!("/run/user/{uid}"))
            .into()
    }

    /// The Wayland socket: `display` (a name given to the kit) or `WAYLAND_DISPLAY` (else
    /// `wayland-0`), in the runtime directory unless it is a path.
    pub fn wayland_socket(&self, display: Option<&str>) -> std::path::PathBuf {
        let name = display
            .map(str::to_string)
            .or_else(|| self.get("WAYLAND_DISPLAY"))
            .unwrap_or_else(|| "wayland-0".into());
        if name.starts_with('/') {
            return name.into();
        }
        self.runtime_dir().join(name)
    }
}

/// sway's IPC socket: the app's `SWAYSOCK`, else the kit's when the app is a client of the
/// kit's own Wayland socket (an app started by a service manager may lack the variable on the
/// user's sway; an app on a private Mutter the kit started is not sway's).
fn sway_ipc(app: &AppEnv, display: Option<&str>) -> Option<String> {
    app.get("SWAYSOCK").or_else(|| {
        let kits = AppEnv(Vec::new());
        (app.wayland_socket(display) == kits.wayland_socket(None))
            .then(|| kits.get("SWAYSOCK"))
            .flatten()
    })
}

/// The PipeWire socket of the session app `pid` runs in: its `PIPEWIRE_REMOTE` when that is a
/// path, else `pipewire-0` in its `XDG_RUNTIME_DIR` (a private session's differs from the
/// kit's own), else in the kit's.
pub fn pipewire_socket(pid: Option<u32>) -> std::path::PathBuf {
    let env = AppEnv::of(pid);
    if let Some(remote) = env.get("PIPEWIRE_REMOTE").filter(|r| r.starts_with('/')) {
        return remote.into();
    }
    env.runtime_dir().join("pipewire-0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sway_is_the_apps_swaysock_and_never_the_kits_for_an_app_of_another_socket() {
        let app = AppEnv(b"SWAYSOCK=/run/s.sock\0WAYLAND_DISPLAY=wayland-1\0".to_vec());
        assert_eq!(sway_ipc(&app, None).as_deref(), Some("/run/s.sock"));
        // A private Mutter's app: its own runtime directory, no SWAYSOCK.
        let private = AppEnv(
            b"WAYLAND_DISPLAY=wayland-0\0XDG_RUNTIME_DIR=/tmp/automation-vd-test/runtime\0"
                .to_vec(),
        );
        assert_eq!(sway_ipc(&private, None), None);
        assert_eq!(
            private.wayland_socket(None),
            std::path::PathBuf::from("/tmp/automation-vd-test/runtime/wayland-0")
        );
    }

    #[test]
    fn the_session_follows_the_display_then_the_environment() {
        use Session::*;
        assert_eq!(
            Session::decide(Some(":90"), Some("wayland"), true, false),
            X11
        );
        assert_eq!(
            Session::decide(Some("wayland-3"), None, false, true),
            Wayland
        );
        assert_eq!(Session::decide(None, Some("wayland"), true, true), Wayland);
        assert_eq!(Session::decide(None, None, true, false), Wayland);
        assert_eq!(Session::decide(None, None, true, true), X11);
        assert_eq!(Session::decide(None, Some("x11"), false, true), X11);
        assert_eq!(Session::decide(None, None, false, false), X11);
    }
}
