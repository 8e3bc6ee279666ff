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
    /// sway's id of the window's container.
    pub con: i64,
}

/// A window sway shows: its container's id, its client's pid, its title, and its
/// container's rectangle in the layout (borders and title bar included: they cover too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// sway's id of the container.
    pub con: i64,
    /// The client's pid.
    pub pid: Option<u32>,
    /// The title.
    pub title: String,
    /// Left, top, width, height in the layout.
    pub rect: (i32, i32, u32, u32),
}

impl Shown {
    fn of(node: &Value) -> Self {
        Self {
            con: node.get("id").and_then(Value::as_i64).unwrap_or(0),
            pid: node
                .get("pid")
                .and_then(Value::as_u64)
                .and_then(|p| u32::try_from(p).ok()),
            title: node
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            rect: rect(&node["rect"]),
        }
    }

    fn holds(&self, x: i32, y: i32) -> bool {
        let (rx, ry, w, h) = self.rect;
        let (x, y) = (i64::from(x), i64::from(y));
        x >= i64::from(rx)
            && y >= i64::from(ry)
            && x < i64::from(rx) + i64::from(w)
            && y < i64::from(ry) + i64::from(h)
    }
}

/// The windows sway shows over layout point `(x, y)`, bottom first: on the output holding
/// the point, its current workspace's tiled windows, then its floating ones in their stacking
/// order (sway raises a floating window to the end of the list), a fullscreen one last.
pub fn shown_at(tree: &Value, x: i32, y: i32) -> Vec<Shown> {
    fn views(node: &Value, tiled: &mut Vec<Shown>, full: &mut Vec<Shown>) {
        let is_view = node.get("pid").is_some() || node.get("app_id").is_some_and(|a| !a.is_null());
        if is_view && node.get("visible").and_then(Value::as_bool) != Some(false) {
            let shown = Shown::of(node);
            if node
                .get("fullscreen_mode")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                > 0
            {
                full.push(shown);
            } else {
                tiled.push(shown);
            }
        }
        for child in held(node) {
            views(child, tiled, full);
        }
    }
    let Some(output) = tiled(tree).find(|o| {
        o.get("type").and_then(Value::as_str) == Some("output")
            // sway's scratchpad (`__i3`) is an output of the tree too, never active.
            && o.get("active").and_then(Value::as_bool) == Some(true)
            && Shown::of(o).holds(x, y)
    }) else {
        return Vec::new();
    };
    let current = output.get("current_workspace").and_then(Value::as_str);
    let Some(workspace) = tiled(output)
        .find(|w| current.is_none() || w.get("name").and_then(Value::as_str) == current)
    else {
        return Vec::new();
    };
    // Its tiled windows, then its floating ones: `held`'s order.
    let (mut out, mut full) = (Vec::new(), Vec::new());
    for child in held(workspace) {
        views(child, &mut out, &mut full);
    }
    out.extend(full);
    out
}

/// A node's tiled children (an output's workspaces, the root's outputs).
fn tiled(node: &Value) -> impl Iterator<Item = &Value> {
    node.get("nodes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// What a node of sway's tree holds: its tiled children, then its floating ones.
fn held(node: &Value) -> impl Iterator<Item = &Value> {
    ["nodes", "floating_nodes"].into_iter().flat_map(|key| {
        node.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    })
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
                    con: node.get("id").and_then(Value::as_i64).unwrap_or(0),
                },
            ));
        }
        for child in held(node) {
            walk(child, pid, output, out);
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
    /// The output layout's size, read once a window is placed (pointer motion spans it).
    extent: std::cell::Cell<Option<(u32, u32)>>,
    /// The windows last seen covering a point of the placed one, by the id the desk gives
    /// them: their titles and rectangles, for the error that names them.
    covers: std::cell::RefCell<Vec<(u32, Shown)>>,
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
            extent: std::cell::Cell::new(None),
            covers: std::cell::RefCell::new(Vec::new()),
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
        self.extent.set(None);
    }

    /// The window shown on top at window point `(x, y)` of the placed one: `own` for the
    /// placed window (or when sway's tree shows nothing there: the app's popups are not in
    /// it), else an id for the window that covers it ([`Self::cover`] names it).
    pub fn toplevel_at(&self, x: i32, y: i32, own: u32) -> SResult<u32> {
        let Some(placed) = &self.placed else {
            return Ok(own);
        };
        let (lx, ly) = (placed.x + x, placed.y + y);
        let tree = ipc(&self.ipc, GET_TREE, "")?;
        let top = shown_at(&tree, lx, ly)
            .into_iter()
            .rev()
            .find(|w| w.holds(lx, ly));
        match top {
            Some(w) if w.con != placed.con => {
                // An id the desk can name it by, never the placed window's own.
                let id = u32::try_from(w.con).unwrap_or(u32::MAX).max(own + 1);
                let mut covers = self.covers.borrow_mut();
                covers.retain(|(i, _)| *i != id);
                covers.push((id, w));
                Ok(id)
            }
            _ => Ok(own),
        }
    }

    /// A window [`Self::toplevel_at`] found covering the placed one: its title and its
    /// rectangle relative to the placed window (the points the kit gives on sway).
    pub fn cover(&self, id: u32) -> Option<(String, (i32, i32, u32, u32))> {
        let (ox, oy) = self.origin();
        self.covers
            .borrow()
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, w)| {
                (
                    w.title.clone(),
                    (w.rect.0 - ox, w.rect.1 - oy, w.rect.2, w.rect.3),
                )
            })
    }

    /// The placed window's content origin in the layout.
    fn origin(&self) -> (i32, i32) {
        self.placed.as_ref().map_or((0, 0), |p| (p.x, p.y))
    }

    /// The placed window's size (none placed: 0×0).
    pub fn size(&self) -> (u32, u32) {
        self.placed.as_ref().map_or((0, 0), |p| (p.width, p.height))
    }

    /// The output layout's size: what absolute pointer motion spans (read once a placing).
    fn extent(&self) -> SResult<(u32, u32)> {
        if let Some(known) = self.extent.get() {
            return Ok(known);
        }
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
        self.extent.set(Some((w, h)));
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
        let mut shot = self.wlr.borrow_mut().capture(&placed.output, in_output)?;
        if (w, h) != (cw, ch) {
            shot.note = Some(format!(
                "only the part inside the window was captured: {w}x{h} of {cw}x{ch} at \
                 ({cx}, {cy}) (the window is {pw}x{ph})"
            ));
        }
        Ok(shot)
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

    #[test]
    fn the_window_on_top_at_a_point_is_the_last_floating_one_over_it() {
        let tree = json!({"type": "root", "nodes": [
            {"type": "output", "name": "__i3", "rect": {"x":0,"y":0,"width":1600,"height":1000},
             "nodes": [{"type": "workspace", "name": "__i3_scratch"}]},
            {"type": "output", "name": "HEADLESS-1", "current_workspace": "1", "active": true,
             "rect": {"x":0,"y":0,"width":1600,"height":1000}, "nodes": [
                {"type": "workspace", "name": "2", "nodes": [
                    {"type": "con", "id": 40, "pid": 9, "visible": false, "name": "hidden",
                     "rect": {"x":0,"y":0,"width":1600,"height":1000}}]},
                {"type": "workspace", "name": "1", "nodes": [
                    {"type": "con", "id": 10, "pid": 7, "visible": true, "name": "app",
                     "rect": {"x":0,"y":0,"width":1600,"height":1000}}
                ], "floating_nodes": [
                    {"type": "floating_con", "id": 20, "pid": 8, "visible": true, "name": "low",
                     "rect": {"x":100,"y":100,"width":300,"height":200}},
                    {"type": "floating_con", "id": 30, "pid": 9, "visible": true, "name": "high",
                     "rect": {"x":200,"y":150,"width":300,"height":200}}
                ]}
            ]}
        ]});
        let top = |x, y| {
            shown_at(&tree, x, y)
                .into_iter()
                .rev()
                .find(|w| w.holds(x, y))
                .map(|w| w.title)
        };
        assert_eq!(top(10, 10).as_deref(), Some("app"));
        assert_eq!(top(150, 120).as_deref(), Some("low"));
        assert_eq!(top(250, 200).as_deref(), Some("high"));
        assert_eq!(top(1700, 10), None, "off every output");
        let shown: Vec<i64> = shown_at(&tree, 5, 5).iter().map(|w| w.con).collect();
        assert_eq!(
            shown,
            [10, 20, 30],
            "the other workspace's window is not shown"
        );
    }
}
