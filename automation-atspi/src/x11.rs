//! Keys, pointer and pixels through the X server, so input reaches any toolkit the way a
//! person's would: XTEST fakes the devices, `GetImage` reads a window.
//!
//! Without a window manager (Xvfb in CI) every top-level window sits where the app put it,
//! usually (0,0); a window's origin on the screen is asked of the server
//! (`TranslateCoordinates`) before every pointer sample, so window coordinates are right
//! either way.

use automation_core::input::{Key, KeyEvent, Modifiers, NamedKey, PointerButton};
use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::protocol::xproto::{self, ConnectionExt as _, ImageFormat};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

/// A top-level window of the app.
#[derive(Debug, Clone, PartialEq)]
pub struct XWindow {
    /// X window id.
    pub id: u32,
    /// Its title (`_NET_WM_NAME`, else `WM_NAME`).
    pub title: String,
    /// Origin on the screen.
    pub x: i32,
    /// Origin on the screen.
    pub y: i32,
    /// Size.
    pub width: u32,
    /// Size.
    pub height: u32,
}

/// An X11 failure, as text for the target's error.
pub type XResult<T> = Result<T, String>;

/// A connection to the app's X server.
pub struct X11 {
    conn: RustConnection,
    root: u32,
    /// The screen's size in pixels.
    screen: (u32, u32),
    min_keycode: u8,
    max_keycode: u8,
    keysyms_per: u8,
    keysyms: Vec<u32>,
    /// Modifier keys this connection holds down (released with the key they went with).
    held_mods: Vec<u8>,
    net_wm_pid: u32,
    net_wm_name: u32,
    utf8: u32,
}

impl std::fmt::Debug for X11 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11").field("root", &self.root).finish()
    }
}

const KEY_PRESS: u8 = xproto::KEY_PRESS_EVENT;
const KEY_RELEASE: u8 = xproto::KEY_RELEASE_EVENT;
const BUTTON_PRESS: u8 = xproto::BUTTON_PRESS_EVENT;
const BUTTON_RELEASE: u8 = xproto::BUTTON_RELEASE_EVENT;
const MOTION: u8 = xproto::MOTION_NOTIFY_EVENT;

impl X11 {
    /// Connects to `display` (`None`: `$DISPLAY`) and checks XTEST is there.
    pub fn connect(display: Option<&str>) -> XResult<Self> {
        let (conn, screen) = RustConnection::connect(display)
            .map_err(|e| format!("cannot open the X display: {e}"))?;
        let setup = conn.setup();
        let (root, size) = setup
            .roots
            .get(screen)
            .map(|s| {
                (
                    s.root,
                    (u32::from(s.width_in_pixels), u32::from(s.height_in_pixels)),
                )
            })
            .ok_or_else(|| "the X server has no screen".to_string())?;
        let (min_keycode, max_keycode) = (setup.min_keycode, setup.max_keycode);
        if conn
            .extension_information(x11rb::protocol::xtest::X11_EXTENSION_NAME)
            .map_err(|e| e.to_string())?
            .is_none()
        {
            return Err("the X server has no XTEST extension (Xvfb has it; start Xvfb without -disable-xtest)".into());
        }
        let atom = |name: &str| -> XResult<u32> {
            Ok(conn
                .intern_atom(false, name.as_bytes())
                .map_err(|e| e.to_string())?
                .reply()
                .map_err(|e| e.to_string())?
                .atom)
        };
        let net_wm_pid = atom("_NET_WM_PID")?;
        let net_wm_name = atom("_NET_WM_NAME")?;
        let utf8 = atom("UTF8_STRING")?;
        let mut x = Self {
            conn,
            root,
            screen: size,
            min_keycode,
            max_keycode,
            keysyms_per: 0,
            keysyms: Vec::new(),
            held_mods: Vec::new(),
            net_wm_pid,
            net_wm_name,
            utf8,
        };
        x.load_keymap()?;
        Ok(x)
    }

    fn load_keymap(&mut self) -> XResult<()> {
        let count = self.max_keycode - self.min_keycode + 1;
        let map = self
            .conn
            .get_keyboard_mapping(self.min_keycode, count)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("X11 keyboard mapping: {e}"))?;
        self.keysyms_per = map.keysyms_per_keycode;
        self.keysyms = map.keysyms;
        Ok(())
    }

    /// The app's mapped top-level windows (by `_NET_WM_PID`), largest first.
    pub fn windows_of(&self, pid: u32) -> XResult<Vec<XWindow>> {
        self.mapped_of(pid, false)
    }

    /// The mapped override-redirect windows of process `pid` (popups: GTK 4's popovers), the
    /// largest first.
    pub fn popups_of(&self, pid: u32) -> XResult<Vec<XWindow>> {
        self.mapped_of(pid, true)
    }

    fn mapped_of(&self, pid: u32, popups: bool) -> XResult<Vec<XWindow>> {
        let tree = self
            .conn
            .query_tree(self.root)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("X11 QueryTree: {e}"))?;
        let mut out = Vec::new();
        for w in tree.children {
            let Ok(attrs) = self
                .conn
                .get_window_attributes(w)
                .map_err(|e| e.to_string())
            else {
                continue;
            };
            let Ok(attrs) = attrs.reply() else { continue };
            if attrs.map_state != xproto::MapState::VIEWABLE || attrs.override_redirect != popups {
                continue;
            }
            let Ok(Some(p)) = self.card32(w, self.net_wm_pid) else {
                continue;
            };
            if p != pid {
                continue;
            }
            let Ok(g) = self.geometry(w) else { continue };
            out.push(XWindow {
                id: w,
                title: self.title(w).unwrap_or_default(),
                ..g
            });
        }
        out.sort_by_key(|w| std::cmp::Reverse(u64::from(w.width) * u64::from(w.height)));
        Ok(out)
    }

    fn card32(&self, w: u32, atom: u32) -> XResult<Option<u32>> {
        let r = self
            .conn
            .get_property(false, w, atom, xproto::AtomEnum::CARDINAL, 0, 1)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        Ok(r.value32().and_then(|mut v| v.next()))
    }

    /// A window's title (`_NET_WM_NAME`, else `WM_NAME`).
    pub fn title(&self, w: u32) -> XResult<String> {
        let r = self
            .conn
            .get_property(false, w, self.net_wm_name, self.utf8, 0, 1024)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        if !r.value.is_empty() {
            return Ok(String::from_utf8_lossy(&r.value).into_owned());
        }
        let r = self
            .conn
            .get_property(
                false,
                w,
                xproto::AtomEnum::WM_NAME,
                xproto::AtomEnum::STRING,
                0,
                1024,
            )
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        Ok(String::from_utf8_lossy(&r.value).into_owned())
    }

    /// Whether window `w` is override-redirect (a popup menu or list the app maps itself).
    pub fn is_override_redirect(&self, w: u32) -> XResult<bool> {
        Ok(self
            .conn
            .get_window_attributes(w)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("X11 GetWindowAttributes: {e}"))?
            .override_redirect)
    }

    /// A window's screen origin and size.
    pub fn geometry(&self, w: u32) -> XResult<XWindow> {
        let g = self
            .conn
            .get_geometry(w)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("X11 GetGeometry: {e}"))?;
        let t = self
            .conn
            .translate_coordinates(w, self.root, 0, 0)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("X11 TranslateCoordinates: {e}"))?;
        Ok(XWindow {
            id: w,
            title: String::new(),
            x: i32::from(t.dst_x),
            y: i32::from(t.dst_y),
            width: u32::from(g.width),
            height: u32::from(g.height),
        })
    }

    /// The screen's size in pixels.
    pub fn screen_size(&self) -> (u32, u32) {
        self.screen
    }

    /// The window that has the keyboard focus (0: none, 1: whatever is under the pointer).
    pub fn input_focus(&self) -> XResult<u32> {
        Ok(self
            .conn
            .get_input_focus()
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("X11 GetInputFocus: {e}"))?
            .focus)
    }

    /// The top-level window `w` is in (`w` itself when it is one), or `None` for the root
    /// and the pseudo-windows `None` and `PointerRoot`.
    pub fn toplevel_of(&self, w: u32) -> XResult<Option<u32>> {
        if w <= 1 || w == self.root {
            return Ok(None);
        }
        let mut cur = w;
        // Toolkit windows nest a few levels at most; the bound only guards a broken server.
        for _ in 0..32 {
            let t = self
                .conn
                .query_tree(cur)
                .map_err(|e| e.to_string())?
                .reply()
                .map_err(|e| format!("X11 QueryTree: {e}"))?;
            if t.parent == self.root || t.parent == 0 {
                return Ok(Some(cur));
            }
            cur = t.parent;
        }
        Ok(None)
    }

    /// Gives top-level window `w` the keyboard focus, unless the focus is already inside it.
    /// Without a window manager (Xvfb) nobody else does: focus follows the pointer, which
    /// GTK takes for focus but winit (eframe) does not, so its keys never arrive. `true` when
    /// the focus moved.
    pub fn focus_window(&self, w: u32) -> XResult<bool> {
        if self.toplevel_of(self.input_focus()?)? == Some(w) {
            return Ok(false);
        }
        self.conn
            .set_input_focus(xproto::InputFocus::PARENT, w, x11rb::CURRENT_TIME)
            .map_err(|e| e.to_string())?;
        self.sync()?;
        Ok(true)
    }

    /// The top-level window a click at screen point `(x, y)` goes to, if any.
    pub fn toplevel_at(&self, x: i32, y: i32) -> XResult<Option<u32>> {
        let tree = self
            .conn
            .query_tree(self.root)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("X11 QueryTree: {e}"))?;
        // Top of the stack first.
        for &w in tree.children.iter().rev() {
            let Ok(Ok(attrs)) = self.conn.get_window_attributes(w).map(|c| c.reply()) else {
                continue;
            };
            if attrs.map_state != xproto::MapState::VIEWABLE {
                continue;
            }
            let Ok(g) = self.geometry(w) else { continue };
            let (rx, ry) = (x - g.x, y - g.y);
            let inside = rx >= 0
                && ry >= 0
                && i64::from(rx) < i64::from(g.width)
                && i64::from(ry) < i64::from(g.height);
            if inside && self.takes_input_at(w, rx, ry) {
                return Ok(Some(w));
            }
        }
        Ok(None)
    }

    /// Whether a click at `(x, y)` in window `w` goes to it: not when its input shape leaves
    /// the point out (a GTK tooltip takes no input: a click passes through it to what is
    /// below). A server without the Shape extension takes every window whole.
    fn takes_input_at(&self, w: u32, x: i32, y: i32) -> bool {
        use x11rb::protocol::shape;
        let Ok(Ok(r)) = shape::get_rectangles(&self.conn, w, shape::SK::INPUT).map(|c| c.reply())
        else {
            return true;
        };
        r.rectangles.iter().any(|rect| {
            let (l, t) = (i32::from(rect.x), i32::from(rect.y));
            x >= l && y >= t && x < l + i32::from(rect.width) && y < t + i32::from(rect.height)
        })
    }

    /// A primary-button click at screen point `(x, y)`: move, press, release.
    pub fn click(&self, x: i32, y: i32) -> XResult<()> {
        self.fake(MOTION, 0, clamp16(x), clamp16(y))?;
        self.fake(BUTTON_PRESS, 1, 0, 0)?;
        self.fake(BUTTON_RELEASE, 1, 0, 0)?;
        self.sync()
    }

    /// Waits until the server has processed every request sent so far.
    fn sync(&self) -> XResult<()> {
        self.conn.flush().map_err(|e| e.to_string())?;
        self.conn
            .get_input_focus()
            .map_err(|e| e.to_string())?
            .reply()
            .map(|_| ())
            .map_err(|e| format!("X11 sync: {e}"))
    }

    fn fake(&self, kind: u8, detail: u8, x: i16, y: i16) -> XResult<()> {
        self.conn
            .xtest_fake_input(kind, detail, 0, self.root, x, y, 0)
            .map_err(|e| format!("XTEST: {e}"))?;
        Ok(())
    }

    /// Moves the pointer to screen `(x, y)`.
    pub fn motion(&self, x: i32, y: i32) -> XResult<()> {
        self.fake(MOTION, 0, clamp16(x), clamp16(y))?;
        self.sync()
    }

    /// Presses or releases a button where the pointer is.
    pub fn button(&self, button: PointerButton, down: bool) -> XResult<()> {
        let b = match button {
            PointerButton::Primary => 1,
            PointerButton::Middle => 2,
            PointerButton::Secondary => 3,
            PointerButton::Back => 8,
            PointerButton::Forward => 9,
        };
        self.fake(if down { BUTTON_PRESS } else { BUTTON_RELEASE }, b, 0, 0)?;
        self.sync()
    }

    /// `notches` wheel clicks at the pointer: vertical (`dy > 0` is down) then horizontal.
    pub fn wheel(&self, dx: i32, dy: i32) -> XResult<()> {
        let send = |n: i32, neg: u8, pos: u8| -> XResult<()> {
            let b = if n < 0 { neg } else { pos };
            for _ in 0..n.unsigned_abs().min(100) {
                self.fake(BUTTON_PRESS, b, 0, 0)?;
                self.fake(BUTTON_RELEASE, b, 0, 0)?;
            }
            Ok(())
        };
        send(dy, 4, 5)?;
        send(dx, 6, 7)?;
        self.sync()
    }

    /// The keycode and shift level that type `keysym`, remapping a spare keycode when the
    /// layout has none (the way xdotool types characters the keyboard lacks).
    fn keycode(&mut self, keysym: u32) -> XResult<(u8, bool)> {
        let per = usize::from(self.keysyms_per.max(1));
        for (i, chunk) in self.keysyms.chunks(per).enumerate() {
            for (level, ks) in chunk.iter().take(2).enumerate() {
                if *ks == keysym {
                    let code = self.min_keycode as usize + i;
                    return Ok((u8::try_from(code).map_err(|e| e.to_string())?, level == 1));
                }
            }
        }
        // A keycode with no symbols at all, from the top.
        let spare = self
            .keysyms
            .chunks(per)
            .enumerate()
            .rev()
            .find(|(_, c)| c.iter().all(|k| *k == 0))
            .map(|(i, _)| self.min_keycode as usize + i)
            .ok_or_else(|| "no spare keycode to type this character".to_string())?;
        let code = u8::try_from(spare).map_err(|e| e.to_string())?;
        let syms = vec![keysym; per];
        self.conn
            .change_keyboard_mapping(1, code, self.keysyms_per, &syms)
            .map_err(|e| e.to_string())?;
        self.sync()?;
        self.load_keymap()?;
        Ok((code, false))
    }

    fn modifier_codes(&mut self, m: &Modifiers, shift_needed: bool) -> XResult<Vec<u8>> {
        let mut out = Vec::new();
        if m.ctrl {
            out.push(self.keycode(0xffe3)?.0);
        }
        if m.alt {
            out.push(self.keycode(0xffe9)?.0);
        }
        if m.meta {
            out.push(self.keycode(0xffeb)?.0);
        }
        if m.shift || shift_needed {
            out.push(self.keycode(0xffe1)?.0);
        }
        Ok(out)
    }

    /// One key transition: modifiers go down before a press and up after its release.
    pub fn key(&mut self, e: &KeyEvent) -> XResult<()> {
        let keysym = keysym(e)?;
        let (code, shifted) = self.keycode(keysym)?;
        if e.pressed {
            let mods = self.modifier_codes(&e.modifiers, shifted)?;
            for m in &mods {
                self.fake(KEY_PRESS, *m, 0, 0)?;
            }
            self.held_mods = mods;
            self.fake(KEY_PRESS, code, 0, 0)?;
        } else {
            self.fake(KEY_RELEASE, code, 0, 0)?;
            for m in std::mem::take(&mut self.held_mods).iter().rev() {
                self.fake(KEY_RELEASE, *m, 0, 0)?;
            }
        }
        self.sync()
    }

    /// The pixels of window `w` (or of `crop` within it, window px) as RGB rows, cut to the
    /// part of the window that is on the screen: the X server has no pixels for the rest (a
    /// window wider than the screen, or moved partly off it).
    pub fn capture(&self, w: u32, crop: Option<(i32, i32, u32, u32)>) -> XResult<Capture> {
        let g = self.geometry(w)?;
        let wide = |v: u32| i64::from(v);
        // The window's on-screen part, in window coordinates.
        let (sw, sh) = self.screen;
        let vis_x0 = i64::from(-g.x).max(0);
        let vis_y0 = i64::from(-g.y).max(0);
        let vis_x1 = (wide(sw) - i64::from(g.x)).min(wide(g.width));
        let vis_y1 = (wide(sh) - i64::from(g.y)).min(wide(g.height));
        let (want_x, want_y, want_w, want_h) = match crop {
            None => (0, 0, wide(g.width), wide(g.height)),
            Some((x, y, cw, ch)) => {
                let x0 = i64::from(x).clamp(0, wide(g.width));
                let y0 = i64::from(y).clamp(0, wide(g.height));
                let x1 = (i64::from(x) + wide(cw)).clamp(0, wide(g.width));
                let y1 = (i64::from(y) + wide(ch)).clamp(0, wide(g.height));
                (x0, y0, x1 - x0, y1 - y0)
            }
        };
        if want_w <= 0 || want_h <= 0 {
            return Err(format!(
                "the area to capture is empty (window is {}x{})",
                g.width, g.height
            ));
        }
        let x0 = want_x.max(vis_x0);
        let y0 = want_y.max(vis_y0);
        let x1 = (want_x + want_w).min(vis_x1);
        let y1 = (want_y + want_h).min(vis_y1);
        if x1 <= x0 || y1 <= y0 {
            return Err(format!(
                "the area to capture is off the screen (window {}x{} at ({}, {}) on a {sw}x{sh} screen)",
                g.width, g.height, g.x, g.y
            ));
        }
        let clipped = (x0, y0, x1, y1) != (want_x, want_y, want_x + want_w, want_y + want_h);
        let note = clipped.then(|| {
            format!(
                "only the part on the screen was captured: {}x{} of {want_w}x{want_h} (the window is {}x{} at ({}, {}) on a {sw}x{sh} screen)",
                x1 - x0,
                y1 - y0,
                g.width,
                g.height,
                g.x,
                g.y
            )
        });
        let (x, y) = (
            i32::try_from(x0).map_err(|e| e.to_string())?,
            i32::try_from(y0).map_err(|e| e.to_string())?,
        );
        let width = u32::try_from(x1 - x0).map_err(|e| e.to_string())?;
        let height = u32::try_from(y1 - y0).map_err(|e| e.to_string())?;
        let img = self
            .conn
            .get_image(
                ImageFormat::Z_PIXMAP,
                w,
                clamp16(x),
                clamp16(y),
                u16::try_from(width).map_err(|e| e.to_string())?,
                u16::try_from(height).map_err(|e| e.to_string())?,
                !0,
            )
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("X11 GetImage: {e}"))?;
        if img.depth != 24 && img.depth != 32 {
            return Err(format!(
                "X11 GetImage: depth {} is not supported (24 or 32 only)",
                img.depth
            ));
        }
        let px = width as usize * height as usize;
        if img.data.len() < px * 4 {
            return Err(format!(
                "X11 GetImage: {} bytes for {width}x{height} (expected 32 bits a pixel)",
                img.data.len()
            ));
        }
        // ZPixmap at depth 24/32 is 32 bits a pixel, little-endian BGRX on every server we run.
        let mut rgb = Vec::with_capacity(px * 3);
        for p in img.data.chunks_exact(4).take(px) {
            rgb.extend_from_slice(&[p[2], p[1], p[0]]);
        }
        Ok(Capture {
            width,
            height,
            rgb,
            note,
        })
    }
}

/// Pixels read from a window.
#[derive(Debug)]
pub struct Capture {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// RGB rows, top to bottom.
    pub rgb: Vec<u8>,
    /// Set when part of what was asked for was off the screen and left out: what and why.
    pub note: Option<String>,
}

fn clamp16(v: i32) -> i16 {
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

/// The X keysym of a key event.
pub fn keysym(e: &KeyEvent) -> XResult<u32> {
    Ok(match e.key {
        Key::Named(n) => match n {
            NamedKey::Enter => 0xff0d,
            NamedKey::Tab => 0xff09,
            NamedKey::Space => 0x20,
            NamedKey::Backspace => 0xff08,
            NamedKey::Escape => 0xff1b,
            NamedKey::Delete => 0xffff,
            NamedKey::Insert => 0xff63,
            NamedKey::Home => 0xff50,
            NamedKey::End => 0xff57,
            NamedKey::PageUp => 0xff55,
            NamedKey::PageDown => 0xff56,
            NamedKey::ArrowUp => 0xff52,
            NamedKey::ArrowDown => 0xff54,
            NamedKey::ArrowLeft => 0xff51,
            NamedKey::ArrowRight => 0xff53,
            NamedKey::ContextMenu => 0xff67,
            NamedKey::Shift => 0xffe1,
            NamedKey::Control => 0xffe3,
            NamedKey::Alt => 0xffe9,
            NamedKey::Meta => 0xffeb,
            NamedKey::F(n) if (1..=35).contains(&n) => 0xffbe + u32::from(n) - 1,
            NamedKey::F(n) => return Err(format!("there is no key F{n} (F1 to F35)")),
        },
        Key::Character(c) => {
            // What the press types decides the symbol (`A` with text "a" is the a key).
            let typed = e
                .text
                .as_deref()
                .and_then(|t| {
                    let mut it = t.chars();
                    let first = it.next();
                    first.filter(|_| it.next().is_none())
                })
                .unwrap_or_else(|| {
                    if e.modifiers.shift {
                        c
                    } else {
                        c.to_ascii_lowercase()
                    }
                });
            char_keysym(typed)
        }
    })
}

/// The keysym of a character: Latin-1 maps to itself, the rest to `0x0100_0000 + code`.
pub fn char_keysym(c: char) -> u32 {
    let u = u32::from(c);
    match u {
        0x20..=0x7e | 0xa0..=0xff => u,
        0x0a | 0x0d => 0xff0d,
        0x09 => 0xff09,
        0x08 => 0xff08,
        0x1b => 0xff1b,
        _ => 0x0100_0000 + u,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(key: Key, text: Option<&str>, shift: bool) -> KeyEvent {
        KeyEvent {
            key,
            pressed: true,
            text: text.map(str::to_string),
            modifiers: Modifiers {
                shift,
                ..Modifiers::default()
            },
        }
    }

    #[test]
    fn keysyms_follow_what_is_typed() {
        assert_eq!(
            keysym(&ev(Key::Character('A'), Some("a"), false)).unwrap(),
            'a' as u32
        );
        assert_eq!(
            keysym(&ev(Key::Character('A'), Some("A"), true)).unwrap(),
            'A' as u32
        );
        assert_eq!(
            keysym(&ev(Key::Character('A'), None, false)).unwrap(),
            'a' as u32
        );
        assert_eq!(
            keysym(&ev(Key::Named(NamedKey::Enter), None, false)).unwrap(),
            0xff0d
        );
        assert_eq!(
            keysym(&ev(Key::Named(NamedKey::F(12)), None, false)).unwrap(),
            0xffc9
        );
        assert!(keysym(&ev(Key::Named(NamedKey::F(40)), None, false)).is_err());
        assert_eq!(char_keysym('€'), 0x0100_20ac);
    }
}
