//! Issue 36's first slice: a GTK 4 app as a Wayland client of a real headless GNOME
//! compositor (mutter 43, with PipeWire, WirePlumber and the buses: `VirtualDisplay::
//! start_wayland`), driven through Mutter's remote-desktop and screen-cast D-Bus APIs. Each
//! effect is judged by pyatspi on the same accessibility bus (`tests/oracle.py`), never by the
//! kit's own read. A missing mutter, pipewire or wireplumber fails these tests (component
//! `wayland`; scripts/test installs them), unless AUTOMATION_ALLOW_MISSING lists it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::{Duration, Instant};

use automation_atspi::{AppSelector, Bus, Output, VirtualDisplay, attach, launch};
use automation_core::{ErrorCode, Reply, Session};
use automation_testkit::require::{on_path, require, require_tools};
use serde_json::{Value, json};
use support::{Oracle, Running, has_state, png_size, pyatspi, serial};

/// A headless GNOME compositor can be started here, or the test fails (or skips when
/// AUTOMATION_ALLOW_MISSING lists `wayland`).
fn mutter_session() -> bool {
    let missing = automation_atspi::display_wayland::missing_tools();
    require_tools("wayland", &missing) && gtk4_and_pyatspi()
}

/// gtk4-widget-factory, the app these tests drive, and pyatspi, their judge.
fn gtk4_and_pyatspi() -> bool {
    require(
        "atspi-apps",
        on_path("gtk4-widget-factory"),
        "gtk4-widget-factory is not installed (Debian package gtk-4-examples; scripts/test installs it)",
    ) && pyatspi()
}

fn start_wayland(command: &str) -> Running {
    running_on(
        VirtualDisplay::start_wayland().expect("a headless mutter session"),
        command,
    )
}

/// `command` launched on `display`, a Wayland one, and driven as a Wayland client.
fn running_on(display: VirtualDisplay, command: &str) -> Running {
    assert!(display.is_wayland());
    let (target, launched) = launch(command, Some(display), Output::Tee).expect("launch");
    assert_eq!(target.session(), automation_atspi::desk::Session::Wayland);
    Running {
        session: Session::new(target),
        launched,
    }
}

/// A Wayland test's start: the one-at-a-time lock, the tools it needs (each `(component,
/// present, what to install)`; missing fails the test, or skips it where
/// AUTOMATION_ALLOW_MISSING says so: `None`), `command` on a private headless mutter, and
/// pyatspi on its bus.
fn on_mutter(
    command: &str,
    needs: &[(&str, bool, &str)],
) -> Option<(automation_testkit::heavy::Heavy, Running, Oracle)> {
    let one = serial();
    if !mutter_session()
        || !needs
            .iter()
            .all(|(component, present, missing)| require(component, *present, missing))
    {
        return None;
    }
    let r = start_wayland(command);
    let oracle = Oracle::start(&r);
    Some((one, r, oracle))
}

/// Polls pyatspi until node `id`'s text is `want` or 5 s pass; the failure says what it last read.
fn text_becomes(oracle: &mut Oracle, id: &Value, want: &str, after: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let last = oracle.read(id);
        if last["text"] == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "pyatspi reads {want:?} in the entry after {after}: it reads {:?}",
            last["text"]
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Polls `f` (the oracle's view) until it holds or 5 s pass.
fn eventually(what: &str, mut f: impl FnMut() -> Option<Value>) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn ok(r: &mut Running, op: Value) -> Value {
    match r.op(op.clone()) {
        Reply::Ok(v) => v,
        other => panic!("{op} answered {other:?}"),
    }
}

/// The oracle's objects with `role` and `name`, in its walk order.
fn all(oracle: &mut Oracle, role: &str, name: &str) -> Vec<Value> {
    oracle
        .dump()
        .into_iter()
        .filter(|n| n["role"] == role && n["name"] == name)
        .collect()
}

/// How long each op took to answer `ok` (its settle included).
#[derive(Debug, Default)]
struct Timings {
    type_text: Vec<Duration>,
    key: Vec<Duration>,
    click: Vec<Duration>,
}

#[test]
fn gtk4_on_headless_mutter_types_clicks_and_presses_keys_as_pyatspi_sees() {
    let one = serial();
    if !mutter_session() {
        return;
    }
    let mut r = start_wayland("gtk4-widget-factory");
    let t = drive_gtk4(&mut r, true);
    // Screenshots: one frame of Mutter's monitor stream, read over PipeWire. The window's is
    // the window's size as pyatspi reports it; a node's is its bounds, and its pixels follow
    // what the app shows (a check button toggled between two shots).
    if !cfg!(feature = "pipewire") {
        // Built without PipeWire: a typed error that says how to build it in.
        match r.op(json!({"screenshot": {}})) {
            Reply::Err(e) => {
                assert_eq!(e.code, ErrorCode::Unsupported, "{}", e.message);
                assert!(e.message.contains("`pipewire` feature"), "{}", e.message);
            }
            other => panic!("a screenshot without PipeWire answered {other:?}"),
        }
        return;
    }
    let took = screenshots_follow_the_app(&mut r);
    eprintln!("mutter screenshot of the window: {} ms", took.as_millis());
    eprintln!("mutter timings: {t:?}");
    drop(r);
    drop(one);
}

/// A headless GNOME Shell can be started here, or the test fails (or skips when
/// AUTOMATION_ALLOW_MISSING lists `wayland`).
fn gnome_shell_session() -> bool {
    let missing = automation_atspi::display_wayland::Gnome::Shell.missing_tools();
    require_tools("wayland", &missing) && gtk4_and_pyatspi()
}

/// GNOME Shell, the desktop most people run, is Mutter with a top bar and an overview: its
/// remote-desktop and screen-cast APIs answer an ordinary caller on the session bus (no
/// consent is asked), so keys land as on bare Mutter, judged by pyatspi. A maximized window
/// sits under the top bar, which clients are not told but the shell shows on the
/// accessibility bus: the pointer and screenshots are placed there.
#[test]
fn gtk4_on_headless_gnome_shell_types_clicks_and_takes_screenshots_as_pyatspi_sees() {
    let one = serial();
    if !gnome_shell_session() {
        return;
    }
    let mut r = running_on(
        VirtualDisplay::start_gnome_shell().expect("a headless GNOME Shell session"),
        "gtk4-widget-factory",
    );
    let mut oracle = Oracle::start(&r);

    // Keys, where the focus is (the window's first entry at start): characters beyond the
    // keymap go through GTK's Unicode entry, as on bare Mutter.
    let focused = eventually("pyatspi sees a focused entry", || {
        let f = oracle.focused();
        (f["role"] == "text").then_some(f)
    });
    let before = focused["text"].as_str().unwrap_or_default().to_string();
    ok(&mut r, json!({"type_text": {"text": "Zoë 日本"}}));
    eventually("pyatspi reads the typed text in the focused entry", || {
        let now = oracle.read(&focused["id"]);
        let text = now["text"].as_str().unwrap_or_default();
        (text.contains("Zoë 日本") && text.len() == before.len() + "Zoë 日本".len()).then_some(now)
    });

    // The window, maximized under the top bar: as wide as the monitor, shorter.
    let window = oracle.window();
    let monitor = automation_atspi::display_wayland::MONITOR;
    assert!(
        window[2] == i64::from(monitor.0) && window[3] < i64::from(monitor.1),
        "the window under the top bar is as wide as the monitor and shorter: {window:?}"
    );
    eprintln!(
        "GNOME Shell: the maximized window is {}×{}",
        window[2], window[3]
    );

    // Clicks on a check button, the kit's and an explicit pointer's, each seen by pyatspi (a
    // point off by the top bar's height lands on another widget or none). The other check
    // buttons did not move.
    let checks = all(&mut oracle, "check box", "checkbutton");
    let second = checks[1].clone();
    let was = has_state(&second, "checked");
    let check = r.ok(json!({"find_node": {"role": "CheckBox", "label": "checkbutton", "nth": 1}}))
        ["node"]
        .as_str()
        .map(str::to_string)
        .expect("the check button's id");
    for (n, op) in [
        json!({"invoke_action": {"node": check, "action": "click"}}),
        json!({"inject_pointer": {"node": check, "action": "click"}}),
        json!({"inject_pointer": {"node": check, "action": "click"}}),
    ]
    .into_iter()
    .enumerate()
    {
        let reply = ok(&mut r, op.clone());
        if let Some(via) = reply["via"].as_str() {
            eprintln!("GNOME Shell: the kit's click went via {via}");
        }
        // Toggled after the first and third clicks, as it was after the second.
        let want = was != (n % 2 == 0);
        eventually(
            &format!(
                "pyatspi sees the check button checked={want} after click {}",
                n + 1
            ),
            || {
                let now = oracle.read(&second["id"]);
                (has_state(&now, "checked") == want).then_some(now)
            },
        );
    }
    for (i, c) in checks.iter().enumerate().filter(|(i, _)| *i != 1) {
        let now = oracle.read(&c["id"]);
        assert_eq!(
            has_state(&now, "checked"),
            has_state(c, "checked"),
            "check button {i}: {now}"
        );
    }

    // The overview, open, covers every window: a pointer click is refused naming it, and
    // nothing moves; closed again, the pointer is placed as before.
    set_overview(&r, true);
    std::thread::sleep(Duration::from_millis(500));
    let checked = has_state(&oracle.read(&second["id"]), "checked");
    match r.op(json!({"inject_pointer": {"node": check, "action": "click"}})) {
        Reply::Err(e) => {
            assert_eq!(e.code, ErrorCode::Unsupported, "{}", e.message);
            assert!(e.message.contains("overview"), "{}", e.message);
        }
        other => panic!("a click under the overview answered {other:?}"),
    }
    assert_eq!(has_state(&oracle.read(&second["id"]), "checked"), checked);
    set_overview(&r, false);
    std::thread::sleep(Duration::from_millis(500));
    ok(
        &mut r,
        json!({"inject_pointer": {"node": check, "action": "click"}}),
    );
    eventually(
        "pyatspi sees the check button toggled once the overview closed",
        || {
            let now = oracle.read(&second["id"]);
            (has_state(&now, "checked") != checked).then_some(now)
        },
    );

    // Screenshots: the window's is its size as pyatspi reports it, and starts at its header
    // bar, not in the shell's black top bar above it; a node's follows what the app shows.
    if cfg!(feature = "pipewire") {
        let reply = r.op(json!({"screenshot": {}}));
        let shot = reply
            .image()
            .unwrap_or_else(|| panic!("no image: {reply:?}"));
        let (w, h, rgb) = rgb_of(&shot.png);
        assert_eq!((i64::from(w), i64::from(h)), (window[2], window[3]));
        let top_rows = &rgb[..(w as usize) * 3 * 8];
        let mean = top_rows.iter().map(|v| u64::from(*v)).sum::<u64>() / top_rows.len() as u64;
        assert!(
            mean > 128,
            "the PNG's top rows are the window's light header bar, not the top bar: mean {mean}"
        );
        screenshots_follow_the_app(&mut r);
    }
    drop(oracle);
    drop(r);
    drop(one);
}

/// Opens or closes GNOME Shell's overview on `r`'s session, as any client of its bus may.
fn set_overview(r: &Running, open: bool) {
    let mut set = std::process::Command::new("gdbus");
    set.args([
        "call",
        "--session",
        "--dest",
        "org.gnome.Shell",
        "--object-path",
        "/org/gnome/Shell",
        "--method",
        "org.freedesktop.DBus.Properties.Set",
        "org.gnome.Shell",
        "OverviewActive",
    ])
    .arg(format!("<{open}>"))
    .stdout(std::process::Stdio::null());
    r.launched
        .display
        .as_ref()
        .expect("the display")
        .env_into(&mut set);
    assert!(
        set.status().expect("gdbus").success(),
        "gdbus could not set the overview"
    );
}

/// Screenshots on a compositor: the window's is the window's size as pyatspi reports it; a
/// node's is its bounds, and its pixels follow what the app shows (a check button toggled
/// between two shots). Answers how long the window's took.
fn screenshots_follow_the_app(r: &mut Running) -> Duration {
    let mut oracle = Oracle::start(r);
    let window = oracle.window();
    let started = Instant::now();
    let reply = r.op(json!({"screenshot": {}}));
    let took = started.elapsed();
    let shot = reply
        .image()
        .unwrap_or_else(|| panic!("no image: {reply:?}"));
    assert_eq!(png_size(&shot.png), (shot.width, shot.height));
    assert_eq!(
        (i64::from(shot.width), i64::from(shot.height)),
        (window[2], window[3]),
        "the PNG is the window, as pyatspi reports it"
    );
    let check = r.ok(json!({"find_node": {"role": "CheckBox", "label": "checkbutton", "nth": 1}}))
        ["node"]
        .as_str()
        .map(str::to_string)
        .expect("the check button's id");
    let bounds = ok(r, json!({"read_node": {"node": check}}))["bounds"].clone();
    let node_shot = |r: &mut Running| {
        let reply = r.op(json!({"screenshot": {"node": check}}));
        reply
            .image()
            .unwrap_or_else(|| panic!("no image of the check button: {reply:?}"))
            .clone()
    };
    let before = node_shot(r);
    assert_eq!(
        (f64::from(before.width), f64::from(before.height)),
        (
            bounds["width"].as_f64().unwrap().ceil(),
            bounds["height"].as_f64().unwrap().ceil()
        ),
        "{bounds}"
    );
    ok(
        r,
        json!({"inject_pointer": {"node": check, "action": "click"}}),
    );
    std::thread::sleep(Duration::from_millis(300));
    let after = node_shot(r);
    assert_ne!(
        before.png, after.png,
        "the toggled check button looks the same"
    );
    took
}

/// Headless sway (wlroots) can be started here, or the test fails (or skips when
/// AUTOMATION_ALLOW_MISSING lists `sway`).
fn sway_session() -> bool {
    let missing = automation_atspi::display_sway::missing_tools();
    require_tools("sway", &missing)
        && require(
            "sway",
            on_path("grim"),
            "grim is not installed (Debian: grim; scripts/test installs it)",
        )
        && gtk4_and_pyatspi()
}

/// The same ops on gtk4-widget-factory as a Wayland client of headless sway: keys through a
/// virtual keyboard whose keymap holds each character typed ("Zoë 日本" with no input method),
/// clicks through a virtual pointer at the window's place from sway's IPC, and screenshots
/// through screencopy. Each effect is judged by pyatspi on the same bus.
#[test]
fn gtk4_on_headless_sway_types_clicks_and_takes_screenshots_as_pyatspi_sees() {
    let one = serial();
    if !sway_session() {
        return;
    }
    let mut r = running_on(
        VirtualDisplay::start_sway().expect("a headless sway session"),
        "gtk4-widget-factory",
    );
    let t = drive_gtk4(&mut r, true);
    let took = screenshots_follow_the_app(&mut r);
    grim_sees_what_the_kit_shot(&mut r);
    a_window_over_the_check_button_refuses_the_click(&mut r);
    eprintln!("sway screenshot of the window: {} ms", took.as_millis());
    eprintln!("sway timings: {t:?}");
    drop(r);
    drop(one);
}

/// sway's tree, read with swaymsg (not the kit's code).
fn sway_tree(ipc: &std::path::Path) -> Value {
    let out = std::process::Command::new("swaymsg")
        .arg("-s")
        .arg(ipc)
        .args(["-t", "get_tree", "-r"])
        .output()
        .expect("swaymsg");
    serde_json::from_slice(&out.stdout).expect("sway's tree")
}

/// The container of client `pid` in sway's tree.
fn sway_con(tree: &Value, pid: u32) -> Option<Value> {
    if tree["pid"] == pid {
        return Some(tree.clone());
    }
    ["nodes", "floating_nodes"]
        .iter()
        .flat_map(|k| tree[*k].as_array().into_iter().flatten())
        .find_map(|c| sway_con(c, pid))
}

/// A floating window over the check button (zenity's dialog, moved there with swaymsg): the
/// kit's click is refused, naming that window, and pyatspi sees the button unchanged; with the
/// dialog gone, the same click toggles it.
fn a_window_over_the_check_button_refuses_the_click(r: &mut Running) {
    let vd = r.launched.display.as_ref().unwrap();
    let ipc = automation_atspi::display_sway::ipc_socket(&vd.runtime_dir()).expect("sway's IPC");
    let mut dialog = std::process::Command::new("zenity");
    dialog.args([
        "--info",
        "--title",
        "Cover",
        "--text",
        "over the check button",
    ]);
    vd.env_into(&mut dialog);
    let mut dialog = dialog
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("zenity");
    let mut oracle = Oracle::start(r);
    let second = all(&mut oracle, "check box", "checkbutton")[1].clone();
    let was = has_state(&second, "checked");
    let app = sway_con(&sway_tree(&ipc), r.session.target.app().pid.unwrap()).unwrap();
    let e = &second["extents"];
    let at = |k: &str| app["rect"][k].as_i64().unwrap() + app["window_rect"][k].as_i64().unwrap();
    let centre = (
        at("x") + e[0].as_i64().unwrap() + e[2].as_i64().unwrap() / 2,
        at("y") + e[1].as_i64().unwrap() + e[3].as_i64().unwrap() / 2,
    );
    let zenity = dialog.id();
    eventually("sway shows zenity's dialog", || {
        sway_con(&sway_tree(&ipc), zenity).map(|_| json!(true))
    });
    let moved = std::process::Command::new("swaymsg")
        .arg("-s")
        .arg(&ipc)
        .arg(format!(
            "[pid={zenity}] floating enable, move absolute position {} {}",
            centre.0 - 40,
            centre.1 - 20
        ))
        .output()
        .expect("swaymsg");
    assert!(moved.status.success(), "{moved:?}");
    eventually(
        "sway shows the dialog over the check button's centre",
        || {
            let con = sway_con(&sway_tree(&ipc), zenity)?;
            let r = &con["rect"];
            let n = |k: &str| r[k].as_i64().unwrap_or(0);
            (centre.0 >= n("x")
                && centre.1 >= n("y")
                && centre.0 < n("x") + n("width")
                && centre.1 < n("y") + n("height"))
            .then_some(con)
        },
    );
    let check = r.ok(json!({"find_node": {"role": "CheckBox", "label": "checkbutton", "nth": 1}}))
        ["node"]
        .clone();
    let click = json!({"invoke_action": {"node": check, "action": "click"}});
    match r.op(click.clone()) {
        Reply::Err(e) => {
            eprintln!("under zenity's dialog: {} {}", e.code.as_str(), e.message);
            assert!(
                e.message.contains("another window covers it") && e.message.contains("Cover"),
                "{e:?}"
            );
        }
        other => panic!("a click under zenity's dialog answered {other:?}"),
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        has_state(&oracle.read(&second["id"]), "checked"),
        was,
        "pyatspi sees the covered check button unchanged"
    );
    let _ = dialog.kill();
    let _ = dialog.wait();
    eventually("zenity's dialog is gone from sway's tree", || {
        sway_con(&sway_tree(&ipc), zenity)
            .is_none()
            .then_some(json!(true))
    });
    ok(r, click);
    eventually("pyatspi sees the uncovered check button toggled", || {
        let now = oracle.read(&second["id"]);
        (has_state(&now, "checked") != was).then_some(now)
    });
}

/// A PNG's pixels as RGB rows.
fn rgb_of(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    let channels = frame.color_type.samples();
    let rgb = buf[..frame.buffer_size()]
        .chunks_exact(channels)
        .flat_map(|px| [px[0], px[1], px[2]])
        .collect();
    (frame.width, frame.height, rgb)
}

/// The kit's screenshot of a check button on sway is what grim (an independent screencopy
/// client) reads at the same place: the window's from sway's own tree (swaymsg), the node's
/// from pyatspi.
fn grim_sees_what_the_kit_shot(r: &mut Running) {
    let vd = r.launched.display.as_ref().unwrap();
    let runtime = vd.runtime_dir();
    let wayland = vd.display.clone();
    let ipc = automation_atspi::display_sway::ipc_socket(&runtime).expect("sway's IPC socket");
    let pid = r.session.target.app().pid.unwrap();
    let con = sway_con(&sway_tree(&ipc), pid).expect("the app's window in sway's tree");
    let at = |k: &str| con["rect"][k].as_i64().unwrap() + con["window_rect"][k].as_i64().unwrap();
    let mut oracle = Oracle::start(r);
    let check = all(&mut oracle, "check box", "checkbutton")[1].clone();
    let e = &check["extents"];
    let (x, y, w, h) = (
        at("x") + e[0].as_i64().unwrap(),
        at("y") + e[1].as_i64().unwrap(),
        e[2].as_i64().unwrap(),
        e[3].as_i64().unwrap(),
    );
    let node =
        r.ok(json!({"find_node": {"role": "CheckBox", "label": "checkbutton", "nth": 1}}))["node"]
            .clone();
    let reply = r.op(json!({"screenshot": {"node": node}}));
    let kit = reply
        .image()
        .unwrap_or_else(|| panic!("no image: {reply:?}"))
        .clone();
    let grim_at = |x: i64| {
        let grim = std::process::Command::new("grim")
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("WAYLAND_DISPLAY", &wayland)
            .args(["-g", &format!("{x},{y} {w}x{h}"), "-t", "png", "-"])
            .output()
            .expect("grim");
        assert!(
            grim.status.success(),
            "grim: {}",
            String::from_utf8_lossy(&grim.stderr)
        );
        rgb_of(&grim.stdout)
    };
    let (kw, kh, kit_rgb) = rgb_of(&kit.png);
    let agree = |rgb: &[u8]| kit_rgb.iter().zip(rgb).filter(|(a, b)| a == b).count();
    let (gw, gh, grim_rgb) = grim_at(x);
    assert_eq!((kw, kh), (gw, gh), "the kit's and grim's sizes of {check}");
    let same = agree(&grim_rgb);
    assert!(
        same * 100 >= kit_rgb.len() * 99,
        "the kit's screenshot of the check button is grim's at ({x},{y}): {same} of {} bytes agree",
        kit_rgb.len()
    );
    // The comparison tells places apart: grim 12 px to the right does not agree.
    let (_, _, beside) = grim_at(x + 12);
    assert!(
        agree(&beside) * 100 < kit_rgb.len() * 99,
        "the kit's check button is also grim's 12 px beside it: the comparison sees nothing"
    );
}

/// The same ops on the same app under Xvfb (XTEST): the X11 path the desk layer keeps, and
/// the figures the Wayland ones are compared with.
#[test]
fn gtk4_on_xvfb_the_same_ops_land_as_before() {
    let Some((one, mut r)) = support::serial_start(
        "gtk4-widget-factory",
        "gtk-4-examples",
        "gtk4-widget-factory",
        Output::Null,
    ) else {
        return;
    };
    if !pyatspi() {
        return;
    }
    assert_eq!(
        r.session.target.session(),
        automation_atspi::desk::Session::X11
    );
    let t = drive_gtk4(&mut r, false);
    eprintln!("x11 timings: {t:?}");
    drop(r);
    drop(one);
}

/// On gtk4-widget-factory's first page: `type_text` into an empty entry ("abc" as the
/// session's first keys, then "Zoë 日本"), Backspace, and two pointer clicks on a check button,
/// each judged by pyatspi.
fn drive_gtk4(r: &mut Running, wayland: bool) -> Timings {
    let mut t = Timings::default();
    let mut oracle = Oracle::start(r);

    // Typing: the first keys of the session (the compositor drops the first keyboard event
    // after its session starts: the kit's warm-up must take its place), then characters no
    // US keymap has (through GTK's Unicode entry).
    // An empty entry that does not have the focus: the kit's focus (a pointer click on it)
    // comes first. The kit's node is the oracle's object: the same place in the window.
    let entries = all(&mut oracle, "text", "GtkEntry");
    let nth = entries
        .iter()
        .position(|e| {
            e["text"] == "" && e["extents"][2].as_i64() > Some(0) && has_state(e, "sensitive")
        })
        .expect("an empty, enabled GtkEntry");
    let id = entries[nth]["id"].clone();
    let entry = r.ok(json!({"find_node": {"role": "TextInput", "label": "GtkEntry", "nth": nth}}))
        ["node"]
        .as_str()
        .map(str::to_string)
        .expect("the entry's id");
    let read = ok(r, json!({"read_node": {"node": entry}}));
    assert_eq!(
        (read["bounds"]["x"].as_f64(), read["bounds"]["y"].as_f64()),
        (
            entries[nth]["extents"][0].as_f64(),
            entries[nth]["extents"][1].as_f64()
        ),
        "the kit's {read} vs pyatspi's {}",
        entries[nth]
    );
    let before = String::new();
    let started = Instant::now();
    let typed = ok(r, json!({"type_text": {"node": entry, "text": "abc"}}));
    t.type_text.push(started.elapsed());
    let want = format!("{before}abc");
    text_becomes(&mut oracle, &id, &want, "typing \"abc\"");
    assert!(typed.get("note").is_none(), "{typed}");
    let started = Instant::now();
    ok(r, json!({"type_text": {"node": entry, "text": "Zoë 日本"}}));
    t.type_text.push(started.elapsed());
    let want = format!("{before}abcZoë 日本");
    text_becomes(&mut oracle, &id, &want, "typing \"Zoë 日本\"");

    // A key press: Backspace takes the last character away.
    let started = Instant::now();
    ok(r, json!({"inject_key": {"key": "Backspace"}}));
    t.key.push(started.elapsed());
    let want = format!("{before}abcZoë 日");
    text_becomes(&mut oracle, &id, &want, "Backspace");
    // More presses, each read back: x, then Backspace.
    for _ in 0..3 {
        for (key, text) in [("x", format!("{want}x")), ("Backspace", want.clone())] {
            let started = Instant::now();
            ok(r, json!({"inject_key": {"key": key}}));
            t.key.push(started.elapsed());
            text_becomes(&mut oracle, &id, &text, key);
        }
    }
    // A key held past the repeat delay (500 ms) types once where the kit made the session
    // (no key repeat: a loaded machine's late release doubled "abc" in CI); a person's
    // desktop keeps its own setting, so only the private session is held to this.
    if wayland {
        ok(r, json!({"inject_key": {"key": "y", "phase": "down"}}));
        std::thread::sleep(Duration::from_millis(1200));
        ok(r, json!({"inject_key": {"key": "y", "phase": "up"}}));
        text_becomes(&mut oracle, &id, &format!("{want}y"), "y held 1.2 s");
        ok(r, json!({"inject_key": {"key": "Backspace"}}));
        text_becomes(&mut oracle, &id, &want, "Backspace");
    }

    // A pointer click on a check button (GTK 4 advertises no click action: only the pointer
    // toggles it): the second "checkbutton", unchecked and enabled at start.
    let checks = all(&mut oracle, "check box", "checkbutton");
    let second = checks[1].clone();
    assert!(has_state(&second, "sensitive"), "{second}");
    let was = has_state(&second, "checked");
    let check = r.ok(json!({"find_node": {"role": "CheckBox", "label": "checkbutton", "nth": 1}}))
        ["node"]
        .as_str()
        .map(str::to_string)
        .expect("the check button's id");
    for round in 0..6 {
        let started = Instant::now();
        ok(
            r,
            json!({"inject_pointer": {"node": check, "action": "click"}}),
        );
        t.click.push(started.elapsed());
        let want = (round % 2 == 0) != was;
        eventually(
            &format!("pyatspi sees the check button checked={want}"),
            || {
                let now = oracle.read(&second["id"]);
                (has_state(&now, "checked") == want).then_some(now)
            },
        );
    }
    // The other check buttons did not move.
    for (i, c) in checks.iter().enumerate().filter(|(i, _)| *i != 1) {
        let now = oracle.read(&c["id"]);
        assert_eq!(
            has_state(&now, "checked"),
            has_state(c, "checked"),
            "check button {i}: {now}"
        );
    }

    t
}

#[test]
fn keys_on_a_wayland_session_without_mutter_name_the_cause() {
    let one = serial();
    if !support::app("zenity", "zenity") {
        return;
    }
    // A real app and buses with no GNOME compositor on them: an X11 session's, its target
    // told the app is a Wayland client (a socket name for its display).
    let r = support::start("zenity --entry --text Name", Output::Null);
    let address = r.launched.display.as_ref().unwrap().session_address.clone();
    let bus = Bus::connect(Some(&address)).unwrap();
    let pid = r.session.target.app().pid.unwrap();
    let target = attach(&bus, &AppSelector::Pid(pid), Some("wayland-0".into())).unwrap();
    let mut on_wayland = Session::new(target);
    let req =
        automation_core::Request::from_value(json!({"op": {"inject_key": {"key": "a"}}})).unwrap();
    match automation_atspi::serve(&mut on_wayland, &req) {
        Reply::Err(e) => {
            assert_eq!(e.code, ErrorCode::Unsupported, "{}", e.message);
            for part in [
                "org.gnome.Mutter.RemoteDesktop",
                "sway",
                "SWAYSOCK",
                "KWin is not supported yet",
            ] {
                assert!(e.message.contains(part), "{part:?} in {}", e.message);
            }
            assert!(!e.message.contains("X display"), "{}", e.message);
        }
        other => panic!("keys on a Wayland session without Mutter answered {other:?}"),
    }
    drop(on_wayland);
    drop(r);
    drop(one);
}

/// GTK 3 as a Wayland client of headless mutter: the session's first op is a pointer click on
/// gtk3-widget-factory's "Page 2" switch, made while the window is not yet maximized (the kit
/// maximizes it first, and reads the switch's place after the window has moved it: a point
/// read before landed 67 px beside it); then keys typed into an entry. Each effect is judged
/// by pyatspi.
#[test]
fn gtk3_on_headless_mutter_takes_a_first_click_and_keys_as_pyatspi_sees() {
    let Some((one, mut r, mut oracle)) = on_mutter(
        "gtk3-widget-factory",
        &[(
            "atspi-apps",
            on_path("gtk3-widget-factory"),
            "gtk3-widget-factory is not installed (Debian package gtk-3-examples; scripts/test installs it)",
        )],
    ) else {
        return;
    };
    let page = |oracle: &mut Oracle, name: &str| {
        oracle
            .dump()
            .into_iter()
            .find(|n| n["name"] == name && n["role"] != "page tab")
            .unwrap_or_else(|| panic!("pyatspi has no {name:?} switch"))
    };
    let two = page(&mut oracle, "Page 2");
    assert!(!has_state(&two, "checked"), "{two}");
    let node = r.find("RadioButton", "Page 2");
    ok(
        &mut r,
        json!({"inject_pointer": {"node": node, "action": "click"}}),
    );
    eventually("pyatspi sees Page 2 checked", || {
        let now = oracle.read(&two["id"]);
        has_state(&now, "checked").then_some(now)
    });
    let one_page = page(&mut oracle, "Page 1");
    assert!(!has_state(&one_page, "checked"), "{one_page}");
    // Back to page 1, and keys into its first empty entry.
    let node = r.find("RadioButton", "Page 1");
    ok(
        &mut r,
        json!({"inject_pointer": {"node": node, "action": "click"}}),
    );
    eventually("pyatspi sees Page 1 checked", || {
        let now = oracle.read(&one_page["id"]);
        has_state(&now, "checked").then_some(now)
    });
    let entries = all(&mut oracle, "text", "");
    let Some(entry) = entries
        .iter()
        .find(|e| e["text"] == "" && has_state(e, "editable") && has_state(e, "showing"))
    else {
        panic!("no empty, editable, showing entry: {entries:?}")
    };
    let id = entry["id"].clone();
    let kit_entry = r.ok(json!({"find_node": {"role": "TextInput", "value": ""}}))["node"]
        .as_str()
        .map(str::to_string)
        .expect("an empty text input");
    ok(
        &mut r,
        json!({"type_text": {"node": kit_entry, "text": "wayland"}}),
    );
    eventually("pyatspi reads the typed text", || {
        let now = oracle.read(&id);
        (now["text"] == "wayland").then_some(now)
    });
    drop(r);
    drop(one);
}

/// Qt 5 as a Wayland client of headless mutter: the calculator's window has a fixed size, so
/// it cannot be maximized and the kit cannot place a pointer on it. A click is still carried
/// out, by Qt's own action (the reply says the pointer was skipped and why), and keys still
/// reach the window; an explicit pointer op is refused with the reason. Judged by pyatspi.
#[test]
fn qt5_on_headless_mutter_clicks_by_its_action_where_the_pointer_cannot_go() {
    let plugin = "/usr/lib/x86_64-linux-gnu/qt5/plugins/platforms/libqwayland-generic.so";
    let calculator = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/widgets/calculator/calculator";
    let Some((one, mut r, mut oracle)) = on_mutter(
        calculator,
        &[
            (
                "wayland",
                std::path::Path::new(plugin).is_file(),
                "Qt 5's Wayland platform plugin is not installed (Debian package qtwayland5; scripts/test installs it)",
            ),
            (
                "atspi-apps",
                std::path::Path::new(calculator).is_file(),
                "the Qt 5 calculator example is not installed (Debian package qtbase5-examples)",
            ),
        ],
    ) else {
        return;
    };
    let display = || {
        move |oracle: &mut Oracle| {
            oracle
                .dump()
                .into_iter()
                .find(|n| n["role"] == "text")
                .expect("pyatspi shows the calculator's display")
        }
    };
    let shown = display()(&mut oracle);
    assert_eq!(shown["text"], "0", "{shown}");
    let seven = r.find("Button", "7");
    let reply = ok(
        &mut r,
        json!({"invoke_action": {"node": seven, "action": "click"}}),
    );
    assert_eq!(reply["via"], "action", "{reply}");
    let skipped = reply["tried"][0]["skipped"].as_str().unwrap_or_default();
    assert!(
        reply["tried"][0]["means"] == "pointer"
            && skipped.contains("not the 1600×1000 monitor's size"),
        "{reply}"
    );
    eventually("pyatspi reads 7 on the display", || {
        let now = oracle.read(&shown["id"]);
        (now["text"] == "7").then_some(now)
    });
    // Keys reach the window though the pointer cannot: Tab moves Qt's focus.
    let before = oracle.focused();
    ok(&mut r, json!({"inject_key": {"key": "Tab"}}));
    eventually("pyatspi sees the focus move after Tab", || {
        let now = oracle.focused();
        (now["id"] != before["id"] && !now["id"].is_null()).then_some(now)
    });
    match r.op(json!({"inject_pointer": {"node": seven, "action": "click"}})) {
        Reply::Err(e) => {
            assert_eq!(e.code, ErrorCode::Unsupported, "{}", e.message);
            assert!(e.message.contains("Mutter"), "{}", e.message);
        }
        other => panic!("a pointer on a window the kit cannot place answered {other:?}"),
    }
    // Nor its pixels: the refusal speaks of a screenshot, and its hint leads elsewhere than
    // back to the pointer.
    match r.op(json!({"screenshot": {}})) {
        Reply::Err(e) if !cfg!(feature = "pipewire") => {
            assert!(e.message.contains("`pipewire` feature"), "{}", e.message);
        }
        Reply::Err(e) => {
            assert_eq!(e.code, ErrorCode::Unsupported, "{}", e.message);
            assert!(
                e.message.starts_with("a screenshot on Wayland"),
                "{}",
                e.message
            );
            assert!(!e.message.contains("invoke_action"), "{}", e.message);
            let hint = e.hint.unwrap_or_default();
            assert!(hint.contains("--virtual-display"), "{hint}");
        }
        other => panic!("a screenshot of a window the kit cannot place answered {other:?}"),
    }
    drop(r);
    drop(one);
}

/// A GTK 4 popover menu on headless mutter (GNOME Text Editor's main menu): the popover is a
/// surface of its own, which the compositor places without telling where, so a pointer into
/// it is refused with the reason (it clicked beside the item and answered ok before), and a
/// click is carried out by the item's own action: the Preferences window opens, as pyatspi
/// sees. After the maximize the first pointer op made, the kit's bounds are pyatspi's.
#[test]
fn gtk4_popover_on_headless_mutter_is_clicked_by_its_action_not_a_guessed_point() {
    let Some((one, mut r, mut oracle)) = on_mutter(
        "gnome-text-editor",
        &[(
            "atspi-apps",
            on_path("gnome-text-editor"),
            "gnome-text-editor is not installed (scripts/test installs it)",
        )],
    ) else {
        return;
    };
    let menu = r.ok(json!({"find_node": {"role": "Button", "label": "Menu", "nth": 1}}))["node"]
        .as_str()
        .map(str::to_string)
        .expect("the main menu's button");
    ok(
        &mut r,
        json!({"inject_pointer": {"node": menu, "action": "click"}}),
    );
    let item = eventually("the kit finds Preferences in the open menu", || {
        let found = r.ok(json!({"find_node": {"role": "MenuItem", "label": "Preferences"}}));
        found["node"].as_str().map(|n| json!(n))
    });
    // The menu button, read now, is where pyatspi has it on the maximized window.
    let read = ok(&mut r, json!({"read_node": {"node": menu}}));
    let x = read["bounds"]["x"].as_f64();
    let buttons: Vec<Value> = oracle
        .dump()
        .into_iter()
        .filter(|n| n["name"] == "Menu" && n["extents"][2].as_i64() > Some(0))
        .collect();
    assert!(
        buttons.iter().any(|b| b["extents"][0].as_f64() == x),
        "the kit's {read} is none of pyatspi's {buttons:?}"
    );
    match r.op(json!({"inject_pointer": {"node": item, "action": "click"}})) {
        Reply::Err(e) => {
            assert_eq!(e.code, ErrorCode::Unsupported, "{}", e.message);
            assert!(e.message.contains("popup"), "{}", e.message);
        }
        other => panic!("a pointer into a popover on Wayland answered {other:?}"),
    }
    let reply = ok(
        &mut r,
        json!({"invoke_action": {"node": item, "action": "click"}}),
    );
    assert_eq!(reply["via"], "action", "{reply}");
    eventually("pyatspi sees the Preferences window", || {
        let windows = oracle.ask(json!({"windows": true}));
        windows
            .as_array()
            .is_some_and(|w| w.iter().any(|w| w["name"] == "Preferences"))
            .then_some(windows)
    });
    drop(r);
    drop(one);
}
