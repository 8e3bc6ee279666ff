//! [`AtspiHost`]: the windows and pixels of an AT-SPI app, read from the X server (on
//! Wayland: the windows from AT-SPI alone, the pixels from the compositor).

use atspi::State;
use automation_core::{
    Bounds, ErrorCode, Host, Image, NodeKey, OpError, OpResult, WindowId, WindowInfo,
};

use crate::AtspiTarget;

/// Serves `list_windows` (the app's top-level accessible windows, with their X window ids)
/// and `screenshot` (X11 `GetImage` of the app's main window, as PNG; the part of a window
/// that is off the screen has no pixels, so it is cut off and the image's `note` says so).
#[derive(Debug, Default, Clone, Copy)]
pub struct AtspiHost;

/// The app's one titled X window that no accessible window's name claims, if it is one.
fn unclaimed<'a>(
    xwins: &'a [crate::x11::XWindow],
    names: &[String],
) -> Option<&'a crate::x11::XWindow> {
    let mut free = xwins
        .iter()
        .filter(|x| !x.title.is_empty() && !names.contains(&x.title));
    let one = free.next()?;
    free.next().is_none().then_some(one)
}

impl Host<AtspiTarget> for AtspiHost {
    fn list_windows(&mut self, target: &mut AtspiTarget) -> OpResult<Vec<WindowInfo>> {
        let xwins = match target.app().pid {
            Some(pid) => target
                .desk()
                .ok()
                .and_then(|d| d.windows_of(pid).ok())
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let windows = target.windows_now()?;
        let shown_names: Vec<String> = windows
            .iter()
            .filter(|(_, _, states)| crate::node::shows(states))
            .map(|(_, name, _)| name.clone())
            .collect();
        let unnamed = shown_names.iter().filter(|n| n.is_empty()).count();
        let mut out = Vec::new();
        let mut claimed: Vec<u32> = Vec::new();
        for (i, (path, name, states)) in windows.into_iter().enumerate() {
            // A window that is neither showing nor visible is closed, or not yet open.
            if !crate::node::shows(&states) {
                continue;
            }
            // Two windows may share a title (gtk3-demo titles its main window after the demo
            // it opened): the one of this window's size, else one not yet given out.
            let size = target
                .tree()
                .nodes
                .get(&path)
                .and_then(|n| n.extents)
                .map(|(_, _, w, h)| (i64::from(w), i64::from(h)));
            let titled: Vec<&crate::x11::XWindow> = xwins
                .iter()
                .filter(|x| x.title == name && !claimed.contains(&x.id))
                .collect();
            let same = titled
                .iter()
                .find(|x| size == Some((i64::from(x.width), i64::from(x.height))))
                .or(titled.first())
                .copied();
            if let Some(x) = same {
                claimed.push(x.id);
            }
            let (xid, title) = match same {
                Some(x) => (Some(x.id), name),
                // A window whose accessible name is empty (GTK 3 with a header bar) is titled
                // as its X window is, when that is the app's one window no other names.
                None if name.is_empty() && unnamed == 1 => match unclaimed(&xwins, &shown_names) {
                    Some(x) => (Some(x.id), x.title.clone()),
                    None => (None, name),
                },
                None => (None, name),
            };
            let id = xid.map_or(i as u64, u64::from);
            let node = node_key(target, &path);
            out.push(WindowInfo {
                id: WindowId(id),
                title,
                focused: states.contains(State::Active),
                node,
            });
        }
        out.sort_by_key(|w| !w.focused);
        Ok(out)
    }

    fn screenshot(&mut self, target: &mut AtspiTarget, crop: Option<Bounds>) -> OpResult<Image> {
        let crop = crop.map(|b| {
            (
                b.x.floor() as i32,
                b.y.floor() as i32,
                b.width.ceil().max(0.0) as u32,
                b.height.ceil().max(0.0) as u32,
            )
        });
        if target.session() == crate::desk::Session::Wayland {
            return wayland_capture(target, crop);
        }
        let win = target.main_window().map_err(OpError::from)?;
        capture(target, win, crop)
    }

    fn screenshot_node(
        &mut self,
        target: &mut AtspiTarget,
        id: accesskit::NodeId,
        bounds: Bounds,
    ) -> OpResult<Image> {
        if target.session() == crate::desk::Session::Wayland {
            return self.screenshot(target, Some(bounds));
        }
        // The node's own window: a dialog's node at the main window's place is not the main
        // window's pixels there.
        let Some(path) = target.tree().path(id).map(str::to_string) else {
            return self.screenshot(target, Some(bounds));
        };
        match target.node_on_its_window(&path).map_err(OpError::from)? {
            Some((win, rect)) => capture(target, win, Some(rect)),
            None => self.screenshot(target, Some(bounds)),
        }
    }
}

/// `win`'s pixels (X11 `GetImage`, through the desk), cropped to `crop` (window
/// coordinates), as a PNG.
fn capture(
    target: &mut AtspiTarget,
    win: crate::x11::XWindow,
    crop: Option<(i32, i32, u32, u32)>,
) -> OpResult<Image> {
    {
        let desk = target.desk().map_err(OpError::from)?;
        // An X11 failure is the environment's (the window unmapped, the server gone), not a
        // GPU's: nothing here renders.
        let shot = desk.capture(win.id, crop).map_err(|e| {
            OpError::new(ErrorCode::TargetFailed, format!("reading the window's pixels from the X server: {e}"))
                .with_hint("check the app's window is still open (list_windows); the crop must overlap the window")
        })?;
        let mut image = png_image(shot.width, shot.height, &shot.rgb)?;
        image.window = Some(u64::from(win.id));
        image.note = shot.note;
        Ok(image)
    }
}

/// RGB rows as a PNG image.
fn png_image(width: u32, height: u32, rgb: &[u8]) -> OpResult<Image> {
    let mut png_bytes = Vec::new();
    {
        let encode = |e: png::EncodingError| {
            OpError::new(ErrorCode::TargetFailed, format!("encoding the PNG: {e}"))
        };
        let mut enc = png::Encoder::new(&mut png_bytes, width, height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(encode)?;
        w.write_image_data(rgb).map_err(encode)?;
    }
    Ok(Image::new(png_bytes, width, height, 1.0))
}

/// The app's window on Wayland, or `crop` within it (window coordinates): on sway through
/// wlroots' screencopy, on Mutter one frame of its monitor stream (the window is maximized on
/// the monitor, so window coordinates are the monitor's: see `wayland.rs`).
fn wayland_capture(
    target: &mut AtspiTarget,
    crop: Option<(i32, i32, u32, u32)>,
) -> OpResult<Image> {
    let refused = |e: automation_core::TargetError| {
        match e {
        automation_core::TargetError::Unsupported(why) => OpError::new(ErrorCode::Unsupported, why)
            .with_hint("the kit reads a Wayland window's pixels only where it knows the window's place; read the node's text or value with read_node, or run the app on X11 (--virtual-display) to take its screenshot"),
        other => OpError::from(other),
    }
    };
    let win = target
        .wayland_window(crate::desk::Purpose::Screenshot)
        .map_err(refused)?;
    let pid = target.app().pid;
    let desk = target.desk().map_err(OpError::from)?;
    let name = desk.name();
    let hint = match desk {
        crate::desk::Desk::Sway(_) => {
            "check the app's window is still open (list_windows) and sway offers zwlr_screencopy_manager_v1"
        }
        _ => {
            "check PipeWire runs in the app's session (Debian: pipewire, wireplumber) and the app's window is still open (list_windows)"
        }
    };
    let shot = match desk {
        crate::desk::Desk::Sway(s) => s.capture(crop),
        crate::desk::Desk::Mutter(m) => {
            // The frame is the monitor's; the window may sit below a panel on it.
            let (mx, my, ..) = m.monitor();
            let at = (win.x - mx, win.y - my);
            let area = match crop {
                Some((x, y, w, h)) => (x + at.0, y + at.1, w, h),
                None => (at.0, at.1, win.width, win.height),
            };
            mutter_capture(m, pid, Some(area))?
        }
        crate::desk::Desk::X11(_) => Err("an X11 desk on a Wayland session".into()),
    }
    .map_err(|e| {
        OpError::new(
            ErrorCode::TargetFailed,
            format!("reading the window's pixels from {name}: {e}"),
        )
        .with_hint(hint)
    })?;
    let mut image = png_image(shot.width, shot.height, &shot.rgb)?;
    image.window = Some(u64::from(win.id));
    image.note = shot.note;
    Ok(image)
}

/// One frame of Mutter's monitor stream over PipeWire, cut to `crop`.
#[cfg(feature = "pipewire")]
fn mutter_capture(
    m: &crate::mutter::Mutter,
    pid: Option<u32>,
    crop: Option<(i32, i32, u32, u32)>,
) -> OpResult<Result<crate::x11::Capture, String>> {
    let socket = crate::desk::pipewire_socket(pid);
    Ok(m.capture(&socket, crop).map(|f| crate::x11::Capture {
        width: f.width,
        height: f.height,
        rgb: f.rgb,
        note: None,
    }))
}

/// Without PipeWire, no pixels from Mutter: a typed error that says how to build them in.
#[cfg(not(feature = "pipewire"))]
fn mutter_capture(
    _m: &crate::mutter::Mutter,
    _pid: Option<u32>,
    _crop: Option<(i32, i32, u32, u32)>,
) -> OpResult<Result<crate::x11::Capture, String>> {
    Err(OpError::new(
        ErrorCode::Unsupported,
        crate::desk::SCREENSHOT_ON_WAYLAND,
    ))
}

fn node_key(target: &AtspiTarget, path: &str) -> Option<NodeKey> {
    target.node_id(path).map(NodeKey::from)
}
