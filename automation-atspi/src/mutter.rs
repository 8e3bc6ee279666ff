//! Keys and pointer through GNOME's compositor (Mutter), for apps that are Wayland clients:
//! there is no X server to send XTEST input to.
//!
//! Mutter's own D-Bus APIs (their interface XML is in mutter's source,
//! `data/dbus-interfaces/`): `org.gnome.Mutter.RemoteDesktop.CreateSession` gives a session
//! whose `Notify*` methods inject keys and pointer events; `org.gnome.Mutter.ScreenCast`,
//! tied to it by its `SessionId`, records the monitor (`RecordMonitor`), and absolute pointer
//! motion is given in that stream's coordinates. A session lives only as long as the D-Bus
//! connection that created it: [`Mutter`] holds the connection for its whole life, and stops
//! the session when dropped.
//!
//! Seen on Debian 12's mutter 43 (headless, no gnome-shell):
//! - the first keyboard event after `Start` is dropped: a Shift press and release goes first
//!   (harmless: it types nothing);
//! - a keysym the keymap lacks (`ë`, `日`) is dropped with a warning in mutter's log
//!   ("No keycode found for keyval"): such characters go through GTK's own Unicode entry
//!   (Ctrl+Shift+U, the code in hex, space) for GTK apps, and are refused for the others;
//! - the monitor stream's coordinates are the monitor's; where a window sits on it is not
//!   told to clients (AT-SPI extents on Wayland are relative to the window), so the target
//!   places them on a maximized window (see `wayland.rs`).

use std::collections::HashMap;

use automation_core::TargetError;
use automation_core::input::{KeyEvent, PointerButton};
use futures_lite::future::block_on;
use zbus::Connection;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

/// The remote-desktop service's bus name (and its interface).
pub const REMOTE_DESKTOP: &str = "org.gnome.Mutter.RemoteDesktop";
/// The screen-cast service's bus name (and its interface).
pub const SCREEN_CAST: &str = "org.gnome.Mutter.ScreenCast";
const RD_PATH: &str = "/org/gnome/Mutter/RemoteDesktop";
const SC_PATH: &str = "/org/gnome/Mutter/ScreenCast";
const RD_SESSION: &str = "org.gnome.Mutter.RemoteDesktop.Session";
const SC_SESSION: &str = "org.gnome.Mutter.ScreenCast.Session";
const SC_STREAM: &str = "org.gnome.Mutter.ScreenCast.Stream";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// X keysyms the session presses for modifiers and GTK's Unicode entry.
const SHIFT_L: u32 = 0xffe1;
const CONTROL_L: u32 = 0xffe3;
const ALT_L: u32 = 0xffe9;
const SUPER_L: u32 = 0xffeb;
const UP: u32 = 0xff52;
const SPACE: u32 = 0x20;

/// How long one call to Mutter may take. Longer than an app's: a headless Mutter renders in
/// software (llvmpipe) and answers these calls on its main loop between the clients' frames,
/// which it uploads as textures. Starved of CPU (its session niced below a two-core build),
/// it was seen in those uploads with a keysym call unanswered for more than 20 s; a loaded
/// machine that is not starving it answers within this bound.
pub const CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// How long a new session waits after its warm-up key before its first real one.
const KEYBOARD_UP_WITHIN: std::time::Duration = std::time::Duration::from_millis(200);

/// How long a pointer motion waits for Mutter to pick the surface under it.
const PICKED_WITHIN: std::time::Duration = std::time::Duration::from_millis(35);

/// Linux evdev button codes (`BTN_LEFT`…), what `NotifyPointerButton` takes.
pub(crate) fn evdev_button(b: PointerButton) -> i32 {
    match b {
        PointerButton::Primary => 0x110,
        PointerButton::Secondary => 0x111,
        PointerButton::Middle => 0x112,
        PointerButton::Back => 0x113,
        PointerButton::Forward => 0x114,
    }
}

/// Whether a keysym is a character no plain Latin keymap has a key for: Latin-1 beyond ASCII
/// and every Unicode keysym (`0x0100_0000 + code`). Mutter 43 drops those.
pub fn beyond_the_keymap(keysym: u32) -> bool {
    (0xa0..=0xff).contains(&keysym) || keysym & 0xff00_0000 == 0x0100_0000
}

/// The character a keysym types, for one beyond the keymap.
fn keysym_char(keysym: u32) -> Option<char> {
    if keysym & 0xff00_0000 == 0x0100_0000 {
        char::from_u32(keysym & 0x00ff_ffff)
    } else {
        char::from_u32(keysym)
    }
}

/// Where the pointer was sent last (monitor coordinates), and when it last moved or released a
/// button there.
#[derive(Debug, Clone, Copy)]
struct Pointer {
    at: (f64, f64),
    moved_at: std::time::Instant,
}

/// A remote-desktop session on Mutter, with a monitor stream for absolute pointer motion.
pub struct Mutter {
    conn: Connection,
    session: OwnedObjectPath,
    stream: String,
    /// The recorded monitor: position and size in the compositor's layout.
    monitor: (i32, i32, u32, u32),
    /// Modifier keysyms held down (released with the key they went with).
    held_mods: Vec<u32>,
    /// Characters beyond the keymap are typed through GTK's Unicode entry.
    gtk_unicode: bool,
    /// A key event pressed through the Unicode entry (its release sends nothing).
    unicode_pressed: bool,
    /// Where the pointer was last sent, and when it last changed place (a press waits until
    /// Mutter has picked the surface under it; see [`Mutter::button`]).
    pointer: std::cell::Cell<Option<Pointer>>,
    /// The monitor stream's PipeWire node (what its screenshots are read from), or why it
    /// is not known.
    #[cfg_attr(not(feature = "pipewire"), allow(dead_code))]
    node: MResult<u32>,
}

impl std::fmt::Debug for Mutter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mutter")
            .field("session", &self.session.as_str())
            .field("stream", &self.stream)
            .field("monitor", &self.monitor)
            .finish()
    }
}

/// A Mutter failure, as text for the target's error.
pub type MResult<T> = Result<T, String>;

fn refused(what: &str) -> impl Fn(zbus::Error) -> String + '_ {
    move |e| {
        format!(
            "GNOME's compositor (Mutter) refused {what}: {e} (on a GNOME Shell desktop its \
             remote-desktop and screen-cast D-Bus APIs may be kept for trusted callers; the \
             consent portal, org.freedesktop.portal.RemoteDesktop, is not supported yet)"
        )
    }
}

impl Mutter {
    /// Starts a remote-desktop session with a stream of the first monitor, over `conn` (the
    /// session bus the compositor is on), held for this value's life. `gtk_unicode`: type
    /// characters beyond the keymap through GTK's Unicode entry.
    pub fn connect(conn: &Connection, gtk_unicode: bool) -> Result<Self, TargetError> {
        block_on(Self::start(conn.clone(), gtk_unicode))
    }

    async fn start(conn: Connection, gtk_unicode: bool) -> Result<Self, TargetError> {
        if !crate::dbus::has_owner(&conn, REMOTE_DESKTOP).await {
            return Err(not_mutter(&conn).await);
        }
        if !crate::dbus::has_owner(&conn, SCREEN_CAST).await {
            return Err(TargetError::Unsupported(format!(
                "pointer input on Wayland: GNOME's compositor (Mutter) offers {REMOTE_DESKTOP} \
                 but not {SCREEN_CAST}, which absolute pointer motion needs (start mutter with \
                 PipeWire running: Debian pipewire, wireplumber)"
            )));
        }
        let ipc = TargetError::Ipc;
        let session: OwnedObjectPath = conn
            .call_method(
                Some(REMOTE_DESKTOP),
                RD_PATH,
                Some(REMOTE_DESKTOP),
                "CreateSession",
                &(),
            )
            .await
            .map_err(refused("RemoteDesktop.CreateSession"))
            .map_err(ipc)?
            .body()
            .deserialize()
            .map_err(|e| ipc(format!("RemoteDesktop.CreateSession's reply: {e}")))?;
        let id: OwnedValue = conn
            .call_method(
                Some(REMOTE_DESKTOP),
                session.as_str(),
                Some(PROPERTIES),
                "Get",
                &(RD_SESSION, "SessionId"),
            )
            .await
            .map_err(refused("the remote-desktop session's SessionId"))
            .map_err(ipc)?
            .body()
            .deserialize()
            .map_err(|e| ipc(format!("SessionId: {e}")))?;
        let id = String::try_from(id).map_err(|e| ipc(format!("SessionId: {e}")))?;
        let mut props: HashMap<&str, Value<'_>> = HashMap::new();
        props.insert("remote-desktop-session-id", Value::from(id.as_str()));
        let cast: OwnedObjectPath = conn
            .call_method(
                Some(SCREEN_CAST),
                SC_PATH,
                Some(SCREEN_CAST),
                "CreateSession",
                &(props,),
            )
            .await
            .map_err(refused("ScreenCast.CreateSession"))
            .map_err(ipc)?
            .body()
            .deserialize()
            .map_err(|e| ipc(format!("ScreenCast.CreateSession's reply: {e}")))?;
        let none: HashMap<&str, Value<'_>> = HashMap::new();
        let stream: OwnedObjectPath = conn
            .call_method(
                Some(SCREEN_CAST),
                cast.as_str(),
                Some(SC_SESSION),
                "RecordMonitor",
                &("", none),
            )
            .await
            .map_err(refused("ScreenCast.Session.RecordMonitor"))
            .map_err(ipc)?
            .body()
            .deserialize()
            .map_err(|e| ipc(format!("RecordMonitor's reply: {e}")))?;
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface(SC_STREAM)
            .and_then(|r| r.member("PipeWireStreamAdded"))
            .and_then(|r| r.path(stream.as_str()))
            .map_err(|e| ipc(format!("a match rule for the stream's node: {e}")))?
            .build();
        let mut node_added = zbus::MessageStream::for_match_rule(rule, &conn, Some(4))
            .await
            .map_err(refused(
                "a subscription to the stream's PipeWireStreamAdded",
            ))
            .map_err(ipc)?;
        conn.call_method(
            Some(REMOTE_DESKTOP),
            session.as_str(),
            Some(RD_SESSION),
            "Start",
            &(),
        )
        .await
        .map_err(refused("RemoteDesktop.Session.Start"))
        .map_err(ipc)?;
        let monitor = monitor_of(&conn, stream.as_str()).await.map_err(ipc)?;
        // Read at once and the subscription dropped: an unread subscription holds zbus's
        // queue, and the session's own calls then time out.
        let node = pipewire_node(&mut node_added, NODE_WITHIN);
        drop(node_added);
        let mut m = Self {
            conn,
            session,
            stream: stream.as_str().to_string(),
            monitor,
            held_mods: Vec::new(),
            gtk_unicode,
            unicode_pressed: false,
            pointer: std::cell::Cell::new(None),
            node,
        };
        // The first keyboard event after `Start` is dropped (mutter 43): a Shift tap takes
        // its place. Under GNOME Shell the session's keyboard takes longer to come up: a "Z"
        // sent a few milliseconds after the tap was lost one time in four (the rest of the
        // text landed), so the session waits a moment before its first real key, once.
        m.keysym(SHIFT_L, true).map_err(ipc)?;
        m.keysym(SHIFT_L, false).map_err(ipc)?;
        std::thread::sleep(KEYBOARD_UP_WITHIN);
        Ok(m)
    }

    /// The recorded monitor: its position in the compositor's layout and its size.
    pub fn monitor(&self) -> (i32, i32, u32, u32) {
        self.monitor
    }

    fn notify<B>(&self, method: &str, body: &B) -> MResult<()>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        block_on(self.conn.call_method(
            Some(REMOTE_DESKTOP),
            self.session.as_str(),
            Some(RD_SESSION),
            method,
            body,
        ))
        .map(|_| ())
        .map_err(|e| format!("Mutter RemoteDesktop.Session.{method}: {e}"))
    }

    fn keysym(&mut self, keysym: u32, down: bool) -> MResult<()> {
        self.notify("NotifyKeyboardKeysym", &(keysym, down))
    }

    /// Moves the pointer to `(x, y)` in the monitor's coordinates (its own top-left is 0,0).
    pub fn motion(&self, x: i32, y: i32) -> MResult<()> {
        let (w, h) = (self.monitor.2, self.monitor.3);
        let cx = f64::from(x).clamp(0.0, f64::from(w.saturating_sub(1)));
        let cy = f64::from(y).clamp(0.0, f64::from(h.saturating_sub(1)));
        self.notify(
            "NotifyPointerMotionAbsolute",
            &(self.stream.as_str(), cx, cy),
        )?;
        let last = self.pointer.get();
        let moved_at = match last {
            // Sent to where it already was: nothing new to pick.
            Some(p) if p.at == (cx, cy) => p.moved_at,
            _ => std::time::Instant::now(),
        };
        self.pointer.set(Some(Pointer {
            at: (cx, cy),
            moved_at,
        }));
        Ok(())
    }

    /// Presses or releases a button where the pointer is.
    pub fn button(&self, button: PointerButton, down: bool) -> MResult<()> {
        // Mutter picks the surface under the pointer when it next paints: a press sent right
        // after a motion onto a surface can go to none (a session's first click was lost one
        // time in two, the motion and the press a millisecond apart). A press waits until two
        // frames at 60 Hz have passed since the pointer last changed place, or since the last
        // release (what the app shows under a still pointer may change with it): a second
        // click on the same point, once its first has had that long, waits no more. A drag's
        // or a fling's motions do not wait.
        if down && let Some(p) = self.pointer.get() {
            std::thread::sleep(PICKED_WITHIN.saturating_sub(p.moved_at.elapsed()));
        }
        self.notify("NotifyPointerButton", &(evdev_button(button), down))?;
        if !down && let Some(p) = self.pointer.get() {
            // A release counts as a change of place for the next press.
            self.pointer.set(Some(Pointer {
                moved_at: std::time::Instant::now(),
                ..p
            }));
        }
        Ok(())
    }

    /// A primary-button click at `(x, y)`: move, press, release.
    pub fn click(&self, x: i32, y: i32) -> MResult<()> {
        self.motion(x, y)?;
        self.button(PointerButton::Primary, true)?;
        self.button(PointerButton::Primary, false)
    }

    /// `notches` wheel clicks at the pointer: vertical (`dy > 0` is down) then horizontal.
    pub fn wheel(&self, dx: i32, dy: i32) -> MResult<()> {
        // Axis 0 is vertical, 1 horizontal; mutter 43 takes one step a call.
        for (axis, n) in [(0u32, dy), (1u32, dx)] {
            for _ in 0..n.unsigned_abs().min(100) {
                self.notify("NotifyPointerAxisDiscrete", &(axis, n.signum()))?;
            }
        }
        Ok(())
    }

    /// The monitor's pixels, one frame of its screen-cast stream read over PipeWire (the
    /// daemon at `socket`), cut to `crop` (monitor coordinates).
    #[cfg(feature = "pipewire")]
    pub fn capture(
        &self,
        socket: &std::path::Path,
        crop: Option<(i32, i32, u32, u32)>,
    ) -> MResult<crate::cast::Frame> {
        let node = self.node.clone()?;
        let frame = crate::cast::grab(socket, node, std::time::Duration::from_secs(3))?;
        match crop {
            None => Ok(frame),
            Some((x, y, w, h)) => frame.crop(x, y, w, h).ok_or_else(|| {
                format!(
                    "the area to capture ({w}x{h} at {x},{y}) is off the {}x{} monitor",
                    frame.width, frame.height
                )
            }),
        }
    }

    /// Maximizes the focused window the way a person does on GNOME: Super+Up (mutter's own
    /// key binding, `maximize`).
    pub fn maximize_focused(&mut self) -> MResult<()> {
        self.keysym(SUPER_L, true)?;
        self.keysym(UP, true)?;
        self.keysym(UP, false)?;
        self.keysym(SUPER_L, false)
    }

    /// One key transition: modifiers go down before a press and up after its release.
    pub fn key(&mut self, e: &KeyEvent) -> MResult<()> {
        let keysym = crate::x11::keysym(e)?;
        if e.pressed {
            let mut mods = Vec::new();
            if e.modifiers.ctrl {
                mods.push(CONTROL_L);
            }
            if e.modifiers.alt {
                mods.push(ALT_L);
            }
            if e.modifiers.meta {
                mods.push(SUPER_L);
            }
            if e.modifiers.shift {
                mods.push(SHIFT_L);
            }
            if beyond_the_keymap(keysym) {
                return self.unicode(keysym);
            }
            for m in &mods {
                self.keysym(*m, true)?;
            }
            self.held_mods = mods;
            self.keysym(keysym, true)
        } else {
            if std::mem::take(&mut self.unicode_pressed) {
                return Ok(());
            }
            self.keysym(keysym, false)?;
            for m in std::mem::take(&mut self.held_mods).iter().rev() {
                self.keysym(*m, false)?;
            }
            Ok(())
        }
    }

    /// A character beyond the keymap, typed through GTK's Unicode entry: Ctrl+Shift+U, its
    /// code in hex, space. Refused for other toolkits: Mutter 43 would drop it silently.
    fn unicode(&mut self, keysym: u32) -> MResult<()> {
        let c = keysym_char(keysym).ok_or_else(|| format!("keysym {keysym:#x} is no character"))?;
        if !self.gtk_unicode {
            return Err(format!(
                "typing {c:?} on Wayland: GNOME's compositor (Mutter 43) types only what its \
                 keyboard layout has a key for, and drops the rest; GTK apps get such characters \
                 through their Unicode entry, this toolkit has none the kit knows (use set_value)"
            ));
        }
        let tap = |m: &mut Self, k: u32| -> MResult<()> {
            m.keysym(k, true)?;
            m.keysym(k, false)
        };
        self.keysym(CONTROL_L, true)?;
        self.keysym(SHIFT_L, true)?;
        tap(self, u32::from('u'))?;
        self.keysym(SHIFT_L, false)?;
        self.keysym(CONTROL_L, false)?;
        for h in format!("{:x}", u32::from(c)).chars() {
            tap(self, u32::from(h))?;
        }
        tap(self, SPACE)?;
        self.unicode_pressed = true;
        Ok(())
    }
}

impl Drop for Mutter {
    fn drop(&mut self) {
        // Best effort: the session also ends when the connection closes.
        let _ = self.notify_stop();
    }
}

impl Mutter {
    fn notify_stop(&self) -> MResult<()> {
        block_on(self.conn.call_method(
            Some(REMOTE_DESKTOP),
            self.session.as_str(),
            Some(RD_SESSION),
            "Stop",
            &(),
        ))
        .map(|_| ())
        .map_err(|e| e.to_string())
    }
}

/// The monitor a stream records: `Parameters`' `position` and `size`.
/// How long Mutter has to name a started stream's PipeWire node.
const NODE_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

/// A stream's PipeWire node: told by Mutter's `PipeWireStreamAdded` signal once the session
/// has started, waited for up to `within`.
fn pipewire_node(added: &mut zbus::MessageStream, within: std::time::Duration) -> MResult<u32> {
    use futures_lite::StreamExt as _;
    let until = std::time::Instant::now() + within;
    loop {
        // zbus queues the signal on its own thread: poll without blocking.
        match block_on(futures_lite::future::poll_once(added.next())) {
            Some(Some(Ok(msg))) => {
                if let Ok((node,)) = msg.body().deserialize::<(u32,)>() {
                    return Ok(node);
                }
            }
            Some(Some(Err(_))) => {}
            Some(None) => return Err("Mutter's session closed its stream".into()),
            None if std::time::Instant::now() >= until => {
                return Err(format!(
                    "Mutter did not name the screen-cast stream's PipeWire node within {} ms",
                    within.as_millis()
                ));
            }
            None => std::thread::sleep(std::time::Duration::from_millis(5)),
        }
    }
}

async fn monitor_of(conn: &Connection, stream: &str) -> MResult<(i32, i32, u32, u32)> {
    let v: OwnedValue = conn
        .call_method(
            Some(SCREEN_CAST),
            stream,
            Some(PROPERTIES),
            "Get",
            &(SC_STREAM, "Parameters"),
        )
        .await
        .map_err(|e| format!("the ScreenCast stream's Parameters: {e}"))?
        .body()
        .deserialize()
        .map_err(|e| format!("the ScreenCast stream's Parameters: {e}"))?;
    let params = HashMap::<String, OwnedValue>::try_from(v)
        .map_err(|e| format!("the ScreenCast stream's Parameters: {e}"))?;
    let pair = |key: &str| -> Option<(i32, i32)> {
        let v = params.get(key)?;
        <(i32, i32)>::try_from(v.try_clone().ok()?).ok()
    };
    let (x, y) = pair("position").unwrap_or((0, 0));
    let (w, h) = pair("size").ok_or_else(|| {
        format!("the ScreenCast stream gave no size (its parameters: {params:?})")
    })?;
    Ok((
        x,
        y,
        u32::try_from(w).map_err(|e| e.to_string())?,
        u32::try_from(h).map_err(|e| e.to_string())?,
    ))
}

/// What a Wayland session's compositor is, by what it shows of itself: the desktop's name, a
/// sway socket, KWin on the session bus.
async fn compositor_name(conn: &Connection) -> String {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if var("SWAYSOCK").is_some() {
        return "sway (wlroots)".into();
    }
    if crate::dbus::has_owner(conn, "org.kde.KWin").await {
        return "KWin (KDE)".into();
    }
    match var("XDG_CURRENT_DESKTOP") {
        Some(d) => format!("{d:?} (XDG_CURRENT_DESKTOP)"),
        None => "not GNOME's Mutter (no org.gnome.Mutter.RemoteDesktop on the session bus)".into(),
    }
}

/// The error for a Wayland session whose compositor is not Mutter, naming what it is.
pub(crate) async fn not_mutter(conn: &Connection) -> TargetError {
    let name = compositor_name(conn).await;
    TargetError::Unsupported(format!(
        "keys and pointer on Wayland: the compositor here is {name}; the kit drives GNOME's \
         compositor (Mutter, through org.gnome.Mutter.RemoteDesktop and ScreenCast) and sway \
         (wlroots, found by SWAYSOCK); KWin is not supported yet. Run the app under \
         GNOME/Mutter (for CI: `mutter --headless --wayland --virtual-monitor 1600x1000` with \
         PipeWire; Debian: mutter pipewire wireplumber) or sway (SWAYSOCK set in its \
         environment), or on X11 (--virtual-display)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_beyond_a_latin_keymap_are_told_apart() {
        assert!(!beyond_the_keymap(u32::from('a')));
        assert!(!beyond_the_keymap(0xff0d));
        assert!(beyond_the_keymap(0xeb));
        assert!(beyond_the_keymap(0x0100_65e5));
        assert_eq!(keysym_char(0x0100_65e5), Some('日'));
        assert_eq!(keysym_char(0xeb), Some('ë'));
    }
}
