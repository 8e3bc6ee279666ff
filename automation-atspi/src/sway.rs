//! Keys, pointer, windows and pixels on sway (wlroots), for apps that are its Wayland clients.
//!
//! Input and pixels go through wlroots' own protocols ([`crate::wlr`]). Unlike GNOME's
//! compositor, sway says where each window is: its IPC (`i3-ipc` over `SWAYSOCK`) lists the
//! tree with every window's rectangle and its client's pid. AT-SPI's extents on Wayland are
//! relative to the window, so a point the target aims at is the window's origin plus them.

use std::io::{Read as _, Write as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use automation_core::input::{KeyEvent, PointerButton};
use serde_json::Value;
use wayland_client::protocol::wl_pointer::Axis;

use crate::wlr::{Wlr, mask_of, modifier_mask};

type SResult<T> = Result<T, String>;

/// What the errors call this compositor.
pub const NAME: &str = "sway (wlroots)";

/// i3's IPC message types sway answers.
const GET_TREE: u32 = 4;
const GET_OUTPUTS: u32 = 3;

/// One request over sway's IPC socket, and its JSON answer.
fn ipc(socket: &Path, kind: u32, payload: &str) -> SResult<Value> {
    let fail = |e: std::io::Error| format!("sway's IPC at {}: {e}", socket.display());
    let mut s = UnixStream::connect(socket).map_err(fail)?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .map_err(fail)?;
    let mut msg = b"i3-ipc".to_vec();
    let len = u32::try_from(payload.len()).map_err(|_| "an IPC payload too long")?;
    msg.extend(len.to_le_bytes());
    msg.extend(kind.to_le_bytes());
    msg.extend(payload.as_bytes());
    s.write_all(&msg).map_err(fail)?;
    let mut head = [0u8; 14];
    s.read_exact(&mut head).map_err(fail)?;
    if &head[..6] != b"i3-ipc" {
        return Err(format!("{} is not sway's IPC socket", socket.display()));
    }
    let len = u32::from_le_bytes([head[6], head[7], head[8], head[9]]) as usize;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).map_err(fail)?;
    serde_json::from_slice(&body).map_err(|e| format!("sway's IPC answered no JSON: {e}"))
}

/// A window as sway places it: its content's rectangle in the output layout, and the output
/// it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The content's left edge in the layout.
    pub x: i32,
    /// The content's top edge in the layout.
    pub y: i32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// The output's name (`HEADLESS-1`).
    pub output: String,
    /// The output's own top-left in the layout.
    pub output_origin: (i32, i32),
    /// The window's title.
    pub title: String,
}

fn rect(v: &Value) -> (i32, i32, u32, u32) {
    let n = |k: &str| v.get(k).and_then(Value::as_i64).unwrap_or(0);
    (
        i32::try_from(n("x")).unwrap_or(0),
        i32::try_from(n("y")).unwrap_or(0),
        u32::try_from(n("width")).unwrap_or(0),
        u32::try_from(n("height")).unwrap_or(0),
    )
}

/// The windows of client `pid` in sway's tree `node`, with the output each is on; the
/// focused one first.
pub fn windows_of(tree: &Value, pid: u32) -> Vec<(bool, Placed)> {
    fn walk(
        node: &Value,
        pid: u32,
        output: Option<(&str, (i32, i32))>,
        out: &mut Vec<(bool, Placed)>,
    ) {
        let output = if node.get("type").and_then(Value::as_str) == Some("output") {
            let (x, y, _, _) = rect(&node["rect"]);
            node.get("name")
                .and_then(Value::as_str)
                .map(|n| (n, (x, y)))
        } else {
            output
        };
        if node.get("pid").and_then(Value::as_u64) == Some(u64::from(pid))
            && node.get("visible").and_then(Value::as_bool) != Some(false)
        {
            let (cx, cy, _, _) = rect(&node["rect"]);
            let (wx, wy, w, h) = rect(&node["window_rect"]);
            let (name, origin) = output.unwrap_or(("", (0, 0)));
            out.push((
                node.get("focused").and_then(Value::as_bool) == Some(true),
                Placed {
                    x: cx + wx,
                    y: cy + wy,
                    width: w,
                    height: h,
                    output: name.to_string(),
                    output_origin: origin,
                    title: node
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                },
            ));
        }
        for key in ["nodes", "floating_nodes"] {
            for child in node
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                walk(child, pid, output, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, pid, None, &mut out);
    out.sort_by_key(|(focused, _)| !focused);
    out
}

/// sway's session: its IPC socket and a Wayland connection with a virtual keyboard and
/// pointer.
#[derive(Debug)]
pub struct Sway {
    ipc: PathBuf,
    /// Behind a cell: a desk's pointer calls take it shared, and the queue needs it mutable.
    wlr: std::cell::RefCell<Wlr>,
    /// The app window's content origin in the layout, set when the target places it: the
    /// points the target gives are window-relative, as AT-SPI's extents are.
    placed: Option<Placed>,
    held_mods: u32,
}

impl Sway {
    /// Connects to sway's IPC at `ipc` and its Wayland socket at `wayland`.
    pub fn connect(ipc: PathBuf, wayland: &Path) -> SResult<Self> {
        ipc_version(&ipc)?;
        let wlr = Wlr::connect(wayland)?;
        Ok(Self {
            ipc,
            wlr: std::cell::RefCell::new(wlr),
            placed: None,
            held_mods: 0,
        })
    }

    /// Where client `pid`'s window is (its focused one, else the first), if sway shows one.
    pub fn window_of(&self, pid: u32) -> SResult<Option<Placed>> {
        let tree = ipc(&self.ipc, GET_TREE, "")?;
        Ok(windows_of(&tree, pid).into_iter().next().map(|(_, p)| p))
    }

    /// Takes `placed` as the window that window-relative points and areas are given in.
    pub fn place(&mut self, placed: Placed) {
        self.placed = Some(placed);
    }

    /// The placed window's content origin in the layout.
    fn origin(&self) -> (i32, i32) {
        self.placed.as_ref().map_or((0, 0), |p| (p.x, p.y))
    }

    /// The placed window's size (none placed: 0×0).
    pub fn size(&self) -> (u32, u32) {
        self.placed.as_ref().map_or((0, 0), |p| (p.width, p.height))
    }

    /// The output layout's size: what absolute pointer motion spans.
    fn extent(&self) -> SResult<(u32, u32)> {
        let outputs = ipc(&self.ipc, GET_OUTPUTS, "")?;
        let (mut w, mut h) = (0u32, 0u32);
        for o in outputs.as_array().into_iter().flatten() {
            if o.get("active").and_then(Value::as_bool) == Some(false) {
                continue;
            }
            let (x, y, ow, oh) = rect(&o["rect"]);
            w = w.max(u32::try_from(x.max(0)).unwrap_or(0) + ow);
            h = h.max(u32::try_from(y.max(0)).unwrap_or(0) + oh);
        }
        if w == 0 || h == 0 {
            return Err("sway lists no active output".into());
        }
        Ok((w, h))
    }

    /// Moves the pointer to window point `(x, y)`.
    pub fn motion(&self, x: i32, y: i32) -> SResult<()> {
        let extent = self.extent()?;
        let (ox, oy) = self.origin();
        self.wlr.borrow_mut().motion(ox + x, oy + y, extent)
    }

    /// Presses or releases a button where the pointer is.
    pub fn button(&self, button: PointerButton, down: bool) -> SResult<()> {
        self.wlr
            .borrow_mut()
            .button(crate::mutter::evdev_button(button).unsigned_abs(), down)
    }

    /// A primary-button click at window point `(x, y)`.
    pub fn click(&self, x: i32, y: i32) -> SResult<()> {
        self.motion(x, y)?;
        self.button(PointerButton::Primary, true)?;
        self.button(PointerButton::Primary, false)
    }

    /// Wheel notches at the pointer: vertical (`dy > 0` is down) then horizontal.
    pub fn wheel(&self, dx: i32, dy: i32) -> SResult<()> {
        if dy != 0 {
            self.wlr.borrow_mut().wheel(Axis::VerticalScroll, dy)?;
        }
        if dx != 0 {
            self.wlr.borrow_mut().wheel(Axis::HorizontalScroll, dx)?;
        }
        Ok(())
    }

    /// One key transition. Any character is a key: the keymap grows to hold it.
    pub fn key(&mut self, e: &KeyEvent) -> SResult<()> {
        let keysym = crate::x11::keysym(e)?;
        let m = &e.modifiers;
        let mut mask = mask_of(m.shift, m.ctrl, m.alt, m.meta);
        // A modifier key itself, pressed or released alone, holds its modifier meanwhile.
        if let Some(own) = modifier_mask(keysym) {
            if e.pressed {
                self.held_mods |= own;
            } else {
                self.held_mods &= !own;
            }
        }
        mask |= self.held_mods;
        if !e.pressed {
            // The release happens with the modifiers the press had; they go up after it.
            self.wlr.borrow_mut().key(keysym, false, mask)?;
            return self.wlr.borrow_mut().key_modifiers(self.held_mods);
        }
        self.wlr.borrow_mut().key(keysym, true, mask)
    }

    /// The pixels of the placed window, or of `crop` within it (window coordinates; what lies
    /// outside the window is cut off).
    pub fn capture(&self, crop: Option<(i32, i32, u32, u32)>) -> SResult<crate::x11::Capture> {
        let placed = self
            .placed
            .clone()
            .ok_or("no window of the app is placed on sway's layout")?;
        let (pw, ph) = (i64::from(placed.width), i64::from(placed.height));
        let (cx, cy, cw, ch) = crop.unwrap_or((0, 0, placed.width, placed.height));
        let (left, top) = (i64::from(cx).max(0), i64::from(cy).max(0));
        let right = (i64::from(cx) + i64::from(cw)).min(pw);
        let bottom = (i64::from(cy) + i64::from(ch)).min(ph);
        if right <= left || bottom <= top {
            return Err(format!(
                "the area to capture ({cw}x{ch} at {cx},{cy}) is outside the {pw}x{ph} window"
            ));
        }
        let as_i32 = |v: i64| i32::try_from(v).unwrap_or(i32::MAX);
        let as_u32 = |v: i64| u32::try_from(v).unwrap_or(0);
        let (x, y, w, h) = (
            as_i32(left),
            as_i32(top),
            as_u32(right - left),
            as_u32(bottom - top),
        );
        let in_output = (
            placed.x - placed.output_origin.0 + x,
            placed.y - placed.output_origin.1 + y,
            w,
            h,
        );
        self.wlr.borrow_mut().capture(&placed.output, in_output)
    }
}

/// Checks `socket` is sway's IPC (the version it answers).
fn ipc_version(socket: &Path) -> SResult<()> {
    // GET_VERSION is 7.
    ipc(socket, 7, "").map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_window_is_found_by_its_pid_with_its_output() {
        let tree = json!({"type": "root", "rect": {"x":0,"y":0,"width":3200,"height":1000}, "nodes": [
            {"type": "output", "name": "HEADLESS-2", "rect": {"x":1600,"y":0,"width":1600,"height":1000}, "nodes": [
                {"type": "workspace", "rect": {"x":1600,"y":0,"width":1600,"height":1000}, "nodes": [
                    {"type": "con", "pid": 7, "name": "a", "visible": true, "focused": false,
                     "rect": {"x":1600,"y":0,"width":800,"height":1000},
                     "window_rect": {"x":0,"y":0,"width":800,"height":1000}},
                    {"type": "con", "pid": 7, "name": "b", "visible": true, "focused": true,
                     "rect": {"x":2400,"y":0,"width":800,"height":1000},
                     "window_rect": {"x":2,"y":30,"width":796,"height":968}}
                ]}
            ]}
        ]});
        let found = windows_of(&tree, 7);
        assert_eq!(found.len(), 2);
        let (focused, b) = &found[0];
        assert!(focused);
        assert_eq!((b.x, b.y, b.width, b.height), (2402, 30, 796, 968));
        assert_eq!(
            (b.output.as_str(), b.output_origin),
            ("HEADLESS-2", (1600, 0))
        );
        assert!(windows_of(&tree, 8).is_empty());
    }
}
