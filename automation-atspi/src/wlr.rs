//! Keys, pointer and pixels through a wlroots compositor's own Wayland protocols (sway):
//! `zwp_virtual_keyboard_v1`, `zwlr_virtual_pointer_v1` and `zwlr_screencopy_v1`.
//!
//! The kit is a Wayland client of the app's compositor, on the app's own socket. A virtual
//! keyboard brings its own keymap: the kit writes one that holds every keysym it has typed so
//! far, one key each, and sends it again when a new character comes. So any character is a
//! key press (`ë`, `日`), with no input method, as wtype does. Modifiers go as masks.

use std::fmt::Write as _;
use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, FromRawFd};
use std::os::unix::fs::FileExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use wayland_client::globals::{GlobalListContents, registry_queue_init};
use wayland_client::protocol::{
    wl_buffer, wl_callback, wl_output, wl_pointer, wl_registry, wl_seat, wl_shm, wl_shm_pool,
};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, WEnum, delegate_noop};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
};
use wayland_protocols_wlr::screencopy::v1::client::{
    zwlr_screencopy_frame_v1::{self, ZwlrScreencopyFrameV1},
    zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1,
};
use wayland_protocols_wlr::virtual_pointer::v1::client::{
    zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
    zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
};

use crate::x11::Capture;

type WResult<T> = Result<T, String>;

/// How long the compositor has to answer one exchange (a round trip, a frame's copy).
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// The keysyms of the modifier keys, first in every keymap the kit writes (keys 0 to 3),
/// with the masks the compositor takes for them.
const MODIFIERS: [(u32, &str, u32); 4] = [
    (0xffe1, "Shift", 1),   // Shift_L
    (0xffe3, "Control", 4), // Control_L
    (0xffe9, "Mod1", 8),    // Alt_L
    (0xffeb, "Mod4", 64),   // Super_L
];

/// The mask of modifier keysym `keysym`, if it is one.
pub fn modifier_mask(keysym: u32) -> Option<u32> {
    MODIFIERS
        .iter()
        .find(|(k, _, _)| *k == keysym)
        .map(|(_, _, m)| *m)
}

/// The mask for the modifiers a key event holds: Shift, Control, Alt, Super.
pub fn mask_of(shift: bool, ctrl: bool, alt: bool, meta: bool) -> u32 {
    [shift, ctrl, alt, meta]
        .iter()
        .zip(MODIFIERS)
        .filter(|(held, _)| **held)
        .map(|(_, (_, _, m))| m)
        .sum()
}

/// The keymap's first keys, in a fixed order: the modifiers, the named keys and printable
/// ASCII. A toolkit may match its key bindings by keycode on the keymap it saw first (GTK 3's
/// spin button took no Up sent on a key added later), so the keys a shortcut or a binding
/// uses keep their keycodes for the whole session and across the kit's runs; only
/// characters beyond these are added, at the end, and those are typed text.
fn base_keysyms() -> Vec<u32> {
    let named = [
        0xff0d, 0xff09, 0xff08, 0xff1b, 0xffff, 0xff63, 0xff50, 0xff57, 0xff55, 0xff56, 0xff52,
        0xff54, 0xff51, 0xff53, 0xff67,
    ];
    let function_keys = 0xffbe..=0xffc9; // F1 to F12
    MODIFIERS
        .iter()
        .map(|(k, _, _)| *k)
        .chain(named)
        .chain(function_keys)
        .chain(0x20..=0x7e)
        .collect()
}

/// How many keys a keymap holds: keycodes 9 to 255, the range every XKB client takes.
const MAX_KEYS: usize = 247;

/// Adds `keysym` as the keymap's last key, and answers its index. A full keymap first drops
/// the characters added after the base keys (a text of many distinct characters, CJK): the
/// base keys keep their keycodes.
fn add_key(keysyms: &mut Vec<u32>, keysym: u32) -> usize {
    if keysyms.len() >= MAX_KEYS {
        keysyms.truncate(base_keysyms().len());
    }
    keysyms.push(keysym);
    keysyms.len() - 1
}

/// An XKB keymap with one key per keysym of `keysyms` (key `i` is keycode `i + 9`), the
/// modifier keys bound to their modifiers.
pub fn keymap_text(keysyms: &[u32]) -> String {
    let mut s = String::from("xkb_keymap {\nxkb_keycodes \"automation\" {\nminimum = 8;\n");
    let _ = writeln!(s, "maximum = {};", keysyms.len() + 9);
    for i in 0..keysyms.len() {
        let _ = writeln!(s, "<K{i}> = {};", i + 9);
    }
    s.push_str("};\nxkb_types \"automation\" { include \"complete\" };\n");
    s.push_str("xkb_compat \"automation\" { include \"complete\" };\n");
    s.push_str("xkb_symbols \"automation\" {\n");
    for (i, k) in keysyms.iter().enumerate() {
        // A keysym as a number: XKB takes values from 10 up as keysyms, and every keysym
        // typed is above 0x20.
        let _ = writeln!(s, "key <K{i}> {{ [ {k:#x} ] }};");
    }
    for (i, (_, modifier, _)) in MODIFIERS.iter().enumerate() {
        let _ = writeln!(s, "modifier_map {modifier} {{ <K{i}> }};");
    }
    s.push_str("};\n};\n");
    s
}

/// What the compositor has told the kit.
#[derive(Default)]
struct State {
    /// Outputs by registry order, with their names (`wl_output` 4's `name`).
    outputs: Vec<(wl_output::WlOutput, String)>,
    frame: FrameState,
    synced: bool,
}

/// One screencopy frame's events.
#[derive(Default)]
struct FrameState {
    buffer: Option<(WEnum<wl_shm::Format>, u32, u32, u32)>,
    buffer_done: bool,
    y_invert: bool,
    ready: bool,
    failed: bool,
}

/// A Wayland connection to a wlroots compositor with a virtual keyboard and pointer.
pub struct Wlr {
    conn: Connection,
    queue: EventQueue<State>,
    qh: QueueHandle<State>,
    state: State,
    shm: wl_shm::WlShm,
    screencopy: Option<(ZwlrScreencopyManagerV1, u32)>,
    pointer: ZwlrVirtualPointerV1,
    keyboard: ZwpVirtualKeyboardV1,
    /// The keysyms of the current keymap, in key order.
    keysyms: Vec<u32>,
    started: Instant,
}

impl std::fmt::Debug for Wlr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wlr")
            .field("keys", &self.keysyms.len())
            .finish_non_exhaustive()
    }
}

impl Wlr {
    /// Connects to the compositor's Wayland socket at `socket`, and makes a virtual keyboard
    /// and pointer on its first seat.
    pub fn connect(socket: &Path) -> WResult<Self> {
        let stream = UnixStream::connect(socket)
            .map_err(|e| format!("cannot connect to {}: {e}", socket.display()))?;
        let conn = Connection::from_socket(stream).map_err(|e| e.to_string())?;
        let (globals, queue) = registry_queue_init::<State>(&conn).map_err(|e| e.to_string())?;
        let qh = queue.handle();
        let missing = |what: &str, e: wayland_client::globals::BindError| {
            format!(
                "the compositor offers no {what} ({e}): it is not a wlroots compositor, or one \
                 too old"
            )
        };
        let seat: wl_seat::WlSeat = globals
            .bind(&qh, 1..=1, ())
            .map_err(|e| missing("wl_seat", e))?;
        let shm: wl_shm::WlShm = globals
            .bind(&qh, 1..=1, ())
            .map_err(|e| missing("wl_shm", e))?;
        let pointers: ZwlrVirtualPointerManagerV1 = globals
            .bind(&qh, 1..=2, ())
            .map_err(|e| missing("zwlr_virtual_pointer_manager_v1", e))?;
        let keyboards: ZwpVirtualKeyboardManagerV1 = globals
            .bind(&qh, 1..=1, ())
            .map_err(|e| missing("zwp_virtual_keyboard_manager_v1", e))?;
        let screencopy = globals
            .contents()
            .with_list(|list| {
                list.iter()
                    .find(|g| g.interface == "zwlr_screencopy_manager_v1")
                    .map(|g| g.version.min(3))
            })
            .and_then(|v| {
                globals
                    .bind::<ZwlrScreencopyManagerV1, _, _>(&qh, v..=v, ())
                    .ok()
                    .map(|m| (m, v))
            });
        let mut state = State::default();
        let outputs = globals.contents().with_list(|list| {
            list.iter()
                .filter(|g| g.interface == "wl_output")
                .map(|g| (g.name, g.version.min(4)))
                .collect::<Vec<_>>()
        });
        for (i, (name, version)) in outputs.into_iter().enumerate() {
            let o: wl_output::WlOutput = globals.registry().bind(name, version, &qh, i);
            state.outputs.push((o, String::new()));
        }
        let pointer = pointers.create_virtual_pointer(Some(&seat), &qh, ());
        let keyboard = keyboards.create_virtual_keyboard(&seat, &qh, ());
        let mut wlr = Self {
            conn,
            queue,
            qh,
            state,
            shm,
            screencopy,
            pointer,
            keyboard,
            keysyms: base_keysyms(),
            started: Instant::now(),
        };
        wlr.send_keymap()?;
        wlr.settle()?;
        Ok(wlr)
    }

    fn now(&self) -> u32 {
        // Wayland's input times are milliseconds that wrap.
        (self.started.elapsed().as_millis() % u128::from(u32::MAX)) as u32
    }

    /// Dispatches the compositor's events until `done` holds, or [`ANSWER_WITHIN`] passes.
    fn dispatch_until(&mut self, what: &str, done: impl Fn(&State) -> bool) -> WResult<()> {
        let until = Instant::now() + ANSWER_WITHIN;
        let lost = |e: &dyn std::fmt::Display| format!("the compositor's connection: {e}");
        loop {
            self.queue
                .dispatch_pending(&mut self.state)
                .map_err(|e| lost(&e))?;
            if done(&self.state) {
                return Ok(());
            }
            self.queue.flush().map_err(|e| lost(&e))?;
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "the compositor did not answer {what} within {} s",
                    ANSWER_WITHIN.as_secs()
                ));
            }
            if let Some(guard) = self.queue.prepare_read() {
                let mut poll = libc::pollfd {
                    fd: guard.connection_fd().as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
                // SAFETY: one valid pollfd, for the duration of the call.
                if unsafe { libc::poll(&mut poll, 1, ms) } > 0 {
                    match guard.read() {
                        Ok(_) => {}
                        Err(wayland_client::backend::WaylandError::Io(e))
                            if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(e) => return Err(lost(&e)),
                    }
                }
            }
        }
    }

    /// Waits until the compositor has handled every request sent so far.
    pub fn settle(&mut self) -> WResult<()> {
        self.state.synced = false;
        // The display's sync: its `done` comes after everything sent before it.
        self.conn.display().sync(&self.qh, ());
        self.dispatch_until("a round trip", |s| s.synced)
    }

    fn send_keymap(&mut self) -> WResult<()> {
        let mut text = keymap_text(&self.keysyms).into_bytes();
        text.push(0);
        let file = memfd("automation-keymap")?;
        file.write_all_at(&text, 0)
            .map_err(|e| format!("writing the keymap: {e}"))?;
        let size = u32::try_from(text.len()).map_err(|_| "the keymap is too large".to_string())?;
        // Format 1: XKB v1 text.
        self.keyboard.keymap(1, file.as_fd(), size);
        // Sent before the file is closed.
        self.conn
            .flush()
            .map_err(|e| format!("the compositor's connection: {e}"))
    }

    /// The key that types `keysym`, added to the keymap (sent again) when it is new.
    fn key_for(&mut self, keysym: u32) -> WResult<u32> {
        let i = match self.keysyms.iter().position(|k| *k == keysym) {
            Some(i) => i,
            None => {
                let i = add_key(&mut self.keysyms, keysym);
                self.send_keymap()?;
                i
            }
        };
        // The protocol's keys are evdev codes: XKB's keycode less 8.
        Ok(u32::try_from(i + 1).unwrap_or(u32::MAX))
    }

    /// One key transition of `keysym`, with `mask` the modifiers held while it is pressed.
    pub fn key(&mut self, keysym: u32, down: bool, mask: u32) -> WResult<()> {
        let key = self.key_for(keysym)?;
        let time = self.now();
        self.keyboard.modifiers(mask, 0, 0, 0);
        self.keyboard.key(time, key, u32::from(down));
        self.settle()
    }

    /// Sets the modifiers held, with no key.
    pub fn key_modifiers(&mut self, mask: u32) -> WResult<()> {
        self.keyboard.modifiers(mask, 0, 0, 0);
        self.settle()
    }

    /// Moves the pointer to `(x, y)` of the output layout `extent` (width, height) big.
    pub fn motion(&mut self, x: i32, y: i32, extent: (u32, u32)) -> WResult<()> {
        let clamp = |v: i32, max: u32| {
            u32::try_from(v.max(0))
                .unwrap_or(0)
                .min(max.saturating_sub(1))
        };
        let time = self.now();
        self.pointer.motion_absolute(
            time,
            clamp(x, extent.0),
            clamp(y, extent.1),
            extent.0,
            extent.1,
        );
        self.pointer.frame();
        self.settle()
    }

    /// Presses or releases evdev button `button` where the pointer is.
    pub fn button(&mut self, button: u32, down: bool) -> WResult<()> {
        let time = self.now();
        let state = if down {
            wl_pointer::ButtonState::Pressed
        } else {
            wl_pointer::ButtonState::Released
        };
        self.pointer.button(time, button, state);
        self.pointer.frame();
        self.settle()
    }

    /// `n` wheel notches on `axis` (`n > 0`: down, or right), one frame each.
    pub fn wheel(&mut self, axis: wl_pointer::Axis, n: i32) -> WResult<()> {
        for _ in 0..n.unsigned_abs().min(100) {
            let time = self.now();
            self.pointer.axis_source(wl_pointer::AxisSource::Wheel);
            // 15 is one notch's scroll distance in libinput's units, what a mouse sends.
            self.pointer
                .axis_discrete(time, axis, 15.0 * f64::from(n.signum()), n.signum());
            self.pointer.frame();
        }
        self.settle()
    }

    /// The pixels of `(x, y, w, h)` of output `output` (its name; the first output when no
    /// output has that name), in the output's coordinates.
    pub fn capture(&mut self, output: &str, area: (i32, i32, u32, u32)) -> WResult<Capture> {
        let Some((manager, version)) = self.screencopy.clone() else {
            return Err(
                "the compositor offers no zwlr_screencopy_manager_v1: it hands out no pixels"
                    .into(),
            );
        };
        let out = self
            .state
            .outputs
            .iter()
            .find(|(_, n)| n == output)
            .or(self.state.outputs.first())
            .map(|(o, _)| o.clone())
            .ok_or("the compositor has no output")?;
        let (x, y, w, h) = area;
        let (wi, hi) = (
            i32::try_from(w).map_err(|_| "too wide")?,
            i32::try_from(h).map_err(|_| "too high")?,
        );
        self.state.frame = FrameState::default();
        let frame = manager.capture_output_region(0, &out, x, y, wi, hi, &self.qh, ());
        let described = |s: &State| {
            s.frame.failed || s.frame.buffer_done || (version < 3 && s.frame.buffer.is_some())
        };
        self.dispatch_until("a screencopy frame's buffer", described)?;
        let (format, bw, bh, stride) = match self.state.frame.buffer {
            Some(b) if !self.state.frame.failed => b,
            _ => {
                frame.destroy();
                return Err("the compositor refused to copy the area (screencopy failed)".into());
            }
        };
        let format = format
            .into_result()
            .map_err(|_| "the compositor offered a pixel format the kit does not know")?;
        let size = stride as usize * bh as usize;
        let file = memfd("automation-screencopy")?;
        file.set_len(size as u64)
            .map_err(|e| format!("sizing the frame's buffer: {e}"))?;
        let pool = self.shm.create_pool(
            file.as_fd(),
            i32::try_from(size).map_err(|_| "the frame is too large")?,
            &self.qh,
            (),
        );
        let buffer = pool.create_buffer(
            0,
            i32::try_from(bw).map_err(|_| "too wide")?,
            i32::try_from(bh).map_err(|_| "too high")?,
            i32::try_from(stride).map_err(|_| "too wide")?,
            format,
            &self.qh,
            (),
        );
        frame.copy(&buffer);
        let copied = self.dispatch_until("a screencopy frame's copy", |s| {
            s.frame.ready || s.frame.failed
        });
        let failed = self.state.frame.failed;
        frame.destroy();
        buffer.destroy();
        pool.destroy();
        copied?;
        if failed {
            return Err("the compositor failed to copy the area (screencopy failed)".into());
        }
        let mut bytes = vec![0u8; size];
        file.read_exact_at(&mut bytes, 0)
            .map_err(|e| format!("reading the frame: {e}"))?;
        let rgb = to_rgb(&bytes, format, bw, bh, stride, self.state.frame.y_invert)?;
        Ok(Capture {
            width: bw,
            height: bh,
            rgb,
            note: None,
        })
    }
}

/// An anonymous file in memory, to hand the compositor.
fn memfd(name: &str) -> WResult<File> {
    let cname = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: a valid C string; the fd returned is owned by the File below alone.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(format!("memfd_create: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: `fd` is a new descriptor nothing else owns.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// RGB rows, top to bottom, from a shm buffer's pixels.
fn to_rgb(
    bytes: &[u8],
    format: wl_shm::Format,
    width: u32,
    height: u32,
    stride: u32,
    y_invert: bool,
) -> WResult<Vec<u8>> {
    use wl_shm::Format;
    // Little-endian 32-bit pixels: ARGB8888 lies in memory as B, G, R, A.
    let order: [usize; 3] = match format {
        Format::Argb8888 | Format::Xrgb8888 => [2, 1, 0],
        Format::Abgr8888 | Format::Xbgr8888 => [0, 1, 2],
        other => {
            return Err(format!(
                "the compositor's pixel format {other:?} is not read here"
            ));
        }
    };
    let mut rgb = Vec::with_capacity(width as usize * height as usize * 3);
    for row in 0..height as usize {
        let src = if y_invert {
            height as usize - 1 - row
        } else {
            row
        };
        let line = bytes
            .get(src * stride as usize..src * stride as usize + width as usize * 4)
            .ok_or("the frame is shorter than its size")?;
        for px in line.chunks_exact(4) {
            rgb.extend(order.iter().map(|&i| px[i]));
        }
    }
    Ok(rgb)
}

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut Self,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        // Globals that come and go later (an output plugged in) are not followed.
    }
}

impl Dispatch<wl_output::WlOutput, usize> for State {
    fn event(
        state: &mut Self,
        _: &wl_output::WlOutput,
        event: wl_output::Event,
        index: &usize,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_output::Event::Name { name } = event
            && let Some(o) = state.outputs.get_mut(*index)
        {
            o.1 = name;
        }
    }
}

impl Dispatch<wl_callback::WlCallback, ()> for State {
    fn event(
        state: &mut Self,
        _: &wl_callback::WlCallback,
        event: wl_callback::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_callback::Event::Done { .. } = event {
            state.synced = true;
        }
    }
}

impl Dispatch<ZwlrScreencopyFrameV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrScreencopyFrameV1,
        event: zwlr_screencopy_frame_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        use zwlr_screencopy_frame_v1::Event;
        let f = &mut state.frame;
        match event {
            // The first shm format offered is taken.
            Event::Buffer {
                format,
                width,
                height,
                stride,
            } if f.buffer.is_none() => f.buffer = Some((format, width, height, stride)),
            Event::BufferDone => f.buffer_done = true,
            Event::Flags { flags } => {
                f.y_invert = flags
                    .into_result()
                    .is_ok_and(|fl| fl.contains(zwlr_screencopy_frame_v1::Flags::YInvert));
            }
            Event::Ready { .. } => f.ready = true,
            Event::Failed => f.failed = true,
            _ => {}
        }
    }
}

delegate_noop!(State: ignore wl_seat::WlSeat);
delegate_noop!(State: ignore wl_shm::WlShm);
delegate_noop!(State: ignore wl_buffer::WlBuffer);
delegate_noop!(State: wl_shm_pool::WlShmPool);
delegate_noop!(State: ZwlrVirtualPointerManagerV1);
delegate_noop!(State: ZwlrVirtualPointerV1);
delegate_noop!(State: ZwpVirtualKeyboardManagerV1);
delegate_noop!(State: ZwpVirtualKeyboardV1);
delegate_noop!(State: ZwlrScreencopyManagerV1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keymap_has_a_key_per_keysym_and_binds_the_modifiers() {
        let text = keymap_text(&[0xffe1, 0xffe3, 0xffe9, 0xffeb, 0x61, 0x0100_65e5]);
        assert!(text.contains("<K4> = 13;"), "{text}");
        assert!(text.contains("key <K5> { [ 0x10065e5 ] };"), "{text}");
        assert!(text.contains("modifier_map Control { <K1> };"), "{text}");
        assert!(text.contains("maximum = 15;"), "{text}");
    }

    #[test]
    fn the_base_keymap_holds_the_named_keys_and_ascii_once_each() {
        let keys = base_keysyms();
        assert_eq!(keys.len(), 4 + 15 + 12 + 95);
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), keys.len());
        assert!(keys.contains(&0xff52) && keys.contains(&u32::from('~')));
    }

    #[test]
    fn the_keymap_stays_within_xkbs_keycodes_and_keeps_its_base_keys() {
        let mut keys = base_keysyms();
        let base = keys.len();
        for c in 0..1000u32 {
            let i = add_key(&mut keys, 0x0100_4e00 + c);
            assert!(
                i < MAX_KEYS && keys.len() <= MAX_KEYS,
                "{i} of {}",
                keys.len()
            );
            assert_eq!(keys[i], 0x0100_4e00 + c);
        }
        assert_eq!(keys[..base], base_keysyms()[..]);
    }

    #[test]
    fn masks_follow_the_modifiers_held() {
        assert_eq!(mask_of(true, true, false, false), 5);
        assert_eq!(mask_of(false, false, true, true), 72);
        assert_eq!(modifier_mask(0xffe3), Some(4));
        assert_eq!(modifier_mask(0x61), None);
    }
}
