//! Real apps over AT-SPI, each under its own private Xvfb, session bus and accessibility bus.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::io::Read as _;

use automation_atspi::Output;
use automation_core::{ErrorCode, Reply};
use serde_json::json;
use support::{app, png_size, serial, serial_start, start};

#[test]
fn zenity_entry_set_text_press_ok_prints_it_and_exits_0() {
    let Some((_one, mut r)) = serial_start(
        "zenity",
        "zenity",
        "zenity --entry --text 'Your name?'",
        Output::Piped,
    ) else {
        return;
    };
    let v = r.ok(json!({"find_node": {"role": "TextInput"}}));
    let entry = v["node"].as_str().expect("an entry").to_string();
    let v = r.ok(json!({"set_value": {"node": entry, "value": "hello from the kit"}}));
    eprintln!("set_value: {v}");
    r.ok(json!({"assert_node": {"node": entry, "kind": "value_equals", "value": "hello from the kit"}}));
    let ok = r.find("Button", "OK");
    r.op(json!({"invoke_action": {"node": ok, "action": "press"}}));
    let status = r.launched.child.wait().unwrap();
    let mut out = String::new();
    r.launched
        .child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(out, "hello from the kit\n");
    assert!(status.success(), "{status}");
    // The app is gone: the next op is a typed error, at once.
    let t = std::time::Instant::now();
    let Reply::Err(e) = r.op(json!("snapshot_tree")) else {
        panic!("snapshot of an exited app succeeded")
    };
    assert_eq!(e.code, ErrorCode::AppGone, "{}", e.message);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(3),
        "{:?}",
        t.elapsed()
    );
}

fn label_of(n: &serde_json::Value) -> String {
    n["label"].as_str().unwrap_or_default().to_string()
}

/// Clicks the button labelled `label` (exactly, else the first whose label starts with it:
/// GTK4 names a calculator key "6 6", its label and its tooltip).
fn press(r: &mut support::Running, label: &str) {
    let nodes = r.nodes();
    let button = nodes
        .iter()
        .find(|n| n["role"] == "Button" && label_of(n) == label)
        .or_else(|| {
            nodes
                .iter()
                .find(|n| n["role"] == "Button" && label_of(n).split(' ').next() == Some(label))
        })
        .unwrap_or_else(|| {
            let labels: Vec<String> = nodes
                .iter()
                .filter(|n| n["role"] == "Button")
                .map(label_of)
                .collect();
            panic!("no button {label:?} in {labels:?}")
        });
    let id = button["id"].as_str().unwrap().to_string();
    let v = r.ok(json!({"invoke_action": {"node": id, "action": "click"}}));
    eprintln!("click {label}: {v}");
}

fn assert_shows_42(r: &mut support::Running) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let nodes = r.nodes();
        let hit = nodes.iter().any(|n| {
            n["value"].as_str().is_some_and(|v| v.trim() == "42")
                || (n["role"] != "Button" && label_of(n).trim() == "42")
        });
        if hit {
            return;
        }
        if std::time::Instant::now() > deadline {
            let texts: Vec<String> = nodes
                .iter()
                .filter(|n| n["value"].is_string() || n["role"] == "Label")
                .map(|n| format!("{} {:?} {:?}", n["role"], n["label"], n["value"]))
                .collect();
            panic!("no node reads 42: {texts:#?}");
        }
        r.ok(json!("settle"));
    }
}

#[test]
fn gnome_calculator_gtk4_six_times_seven_reads_42() {
    let Some((_one, mut r)) = serial_start(
        "gnome-calculator",
        "gnome-calculator",
        "gnome-calculator",
        Output::Null,
    ) else {
        return;
    };
    for key in ["6", "×", "7", "="] {
        press(&mut r, key);
    }
    assert_shows_42(&mut r);
}

const QT_CALCULATOR: &str =
    "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/widgets/calculator/calculator";

#[test]
fn qt5_calculator_six_times_seven_reads_42() {
    let Some((_one, mut r)) = serial_start(
        QT_CALCULATOR,
        "qtbase5-examples",
        QT_CALCULATOR,
        Output::Null,
    ) else {
        return;
    };
    for key in ["6", "×", "7", "="] {
        press(&mut r, key);
    }
    assert_shows_42(&mut r);
}

#[test]
fn gtk3_widget_factory_toggle_a_check_box_and_set_a_slider() {
    let Some((_one, mut r)) = serial_start(
        "gtk3-widget-factory",
        "gtk-3-examples",
        "gtk3-widget-factory",
        Output::Null,
    ) else {
        return;
    };
    let nodes = r.nodes();
    eprintln!("gtk3-widget-factory: {} nodes", nodes.len());
    let check = nodes
        .iter()
        .find(|n| {
            n["role"] == "CheckBox"
                && n["disabled"] != true
                && n["bounds"].is_object()
                && n["toggled"] != "mixed"
        })
        .expect("an enabled two-state check box");
    let id = check["id"].as_str().unwrap().to_string();
    let before = check["toggled"] == true || check["toggled"] == "true";
    r.ok(json!({"invoke_action": {"node": id, "action": "press"}}));
    r.ok(json!({"assert_node": {"node": id, "kind": "toggled", "flag": !before}}));
    r.ok(json!({"invoke_action": {"node": id, "action": "click"}}));
    r.ok(json!({"assert_node": {"node": id, "kind": "toggled", "flag": before}}));

    let slider = nodes
        .iter()
        // One a person can reach: enabled, on screen (the volume button's slider sits in a
        // closed popup, hidden, and is refused NOT_VISIBLE).
        .find(|n| n["role"] == "Slider" && n["disabled"] != true && n["bounds"].is_object())
        .expect("a slider");
    let sid = slider["id"].as_str().unwrap().to_string();
    let v = r.ok(json!({"read_node": {"node": sid}}));
    eprintln!("slider: {v}");
    let current = v["numeric_value"].as_f64().expect("a slider has a value");
    // Inside every range gtk3-widget-factory's shown sliders take (the smallest is 0..=4).
    let target = if (current - 1.0).abs() < 0.5 {
        3.0
    } else {
        1.0
    };
    r.ok(json!({"set_value": {"node": sid, "value": target}}));
    let v = r.ok(json!({"read_node": {"node": sid}}));
    assert_eq!(v["numeric_value"].as_f64(), Some(target), "{v}");
    // A value the slider cannot take is refused, and nothing changes.
    let Reply::Err(e) = r.op(json!({"set_value": {"node": sid, "value": 1.0e9}})) else {
        panic!("an out-of-range value was accepted")
    };
    assert_eq!(e.code, ErrorCode::BadArgument, "{}", e.message);
    let v = r.ok(json!({"read_node": {"node": sid}}));
    assert_eq!(v["numeric_value"].as_f64(), Some(target), "{v}");
}

#[test]
fn a_selector_that_matches_nothing_lists_candidates() {
    let Some((_one, mut r)) = serial_start(
        "zenity",
        "zenity",
        "zenity --question --text 'Go on?'",
        Output::Null,
    ) else {
        return;
    };
    let Reply::Err(e) = r.op(
        json!({"invoke_action": {"node": {"role": "Button", "label": "Yess"}, "action": "click"}}),
    ) else {
        panic!("a missing button was clicked")
    };
    assert_eq!(e.code, ErrorCode::NotFound, "{}", e.message);
    let labels: Vec<String> = e
        .candidates
        .iter()
        .filter_map(|c| c.label.clone())
        .collect();
    assert!(labels.iter().any(|l| l == "Yes"), "{labels:?}");
}

#[test]
fn an_app_killed_mid_session_is_app_gone_not_a_hang() {
    let Some((_one, mut r)) = serial_start(
        "gtk3-widget-factory",
        "gtk-3-examples",
        "gtk3-widget-factory",
        Output::Null,
    ) else {
        return;
    };
    let check = r.ok(json!({"find_node": {"role": "CheckBox"}}));
    let id = check["node"].as_str().unwrap().to_string();
    r.launched.child.kill().unwrap();
    r.launched.child.wait().unwrap();
    let t = std::time::Instant::now();
    for op in [
        json!({"invoke_action": {"node": id, "action": "click"}}),
        json!("snapshot_tree"),
        json!({"settle": {}}),
    ] {
        let Reply::Err(e) = r.op(op.clone()) else {
            panic!("{op} succeeded on a killed app")
        };
        assert_eq!(e.code, ErrorCode::AppGone, "{op}: {}", e.message);
    }
    assert!(
        t.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn the_virtual_display_leaves_nothing_behind() {
    let _one = serial();
    if !app("zenity", "zenity") {
        return;
    }
    let started = std::time::SystemTime::now();
    let r = start("zenity --info --text 'bye'", Output::Null);
    let d = r.launched.display.as_ref().unwrap();
    let (pgid, dir, display) = (d.pgid, d.dir.clone(), d.display.clone());
    let members = automation_atspi::process::group_members(pgid);
    // Xvfb, the session bus, the bus launcher, the accessibility bus, the registry, the app.
    assert!(members.len() >= 5, "{members:?}");
    assert!(dir.exists());
    drop(r);
    assert_eq!(
        automation_atspi::process::group_members(pgid),
        Vec::<i32>::new()
    );
    assert!(!dir.exists(), "{} is left", dir.display());
    let n = display.trim_start_matches(':');
    assert!(!std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists());
    // Xvfb removed its lock (a lock there now is not from this run: older than the test).
    let lock = std::path::Path::new(&format!("/tmp/.X{n}-lock")).to_path_buf();
    if let Ok(meta) = std::fs::metadata(&lock) {
        assert!(
            meta.modified().unwrap() < started,
            "{} is left",
            lock.display()
        );
    }
}

#[test]
fn keys_and_pointer_go_through_xtest() {
    let Some((_one, mut r)) = serial_start(
        "zenity",
        "zenity",
        "zenity --entry --text 'Type here'",
        Output::Piped,
    ) else {
        return;
    };
    let v = r.ok(json!({"find_node": {"role": "TextInput"}}));
    let entry = v["node"].as_str().unwrap().to_string();
    // A real pointer click focuses the entry, real key presses type into it.
    r.ok(json!({"inject_pointer": {"node": entry, "action": "click"}}));
    r.ok(json!({"assert_node": {"node": entry, "kind": "focused"}}));
    r.ok(json!({"type_text": {"text": "Typed Keys"}}));
    r.ok(json!({"assert_node": {"node": entry, "kind": "value_equals", "value": "Typed Keys"}}));
    // Enter activates the entry: zenity prints and exits, maybe before the op's settle ends.
    let reply = r.op(json!({"inject_key": {"key": "Enter"}}));
    assert!(
        matches!(&reply, Reply::Ok(_))
            || matches!(&reply, Reply::Err(e) if e.code == ErrorCode::AppGone),
        "{reply:?}"
    );
    let status = r.launched.child.wait().unwrap();
    let mut out = String::new();
    r.launched
        .child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(out, "Typed Keys\n");
    assert!(status.success());
    let Reply::Err(e) = r.op(json!({"advance_clock": {"millis": 10}})) else {
        panic!("advance_clock on a real clock")
    };
    assert!(
        matches!(e.code, ErrorCode::Unsupported | ErrorCode::AppGone),
        "{}",
        e.message
    );
}

#[test]
fn a_screenshot_is_the_app_window_as_png() {
    let Some((_one, mut r)) = serial_start(
        "zenity",
        "zenity",
        "zenity --info --text 'Pixels'",
        Output::Null,
    ) else {
        return;
    };
    let reply = r.op(json!({"screenshot": {}}));
    let shot = reply
        .image()
        .unwrap_or_else(|| panic!("no image: {reply:?}"));
    assert_eq!(&shot.png[1..4], b"PNG");
    let (width, height) = png_size(&shot.png);
    assert_eq!(
        (width, height),
        (shot.width, shot.height),
        "the PNG is the size it says"
    );
    assert!(
        shot.width > 50 && shot.height > 30,
        "{}x{}",
        shot.width,
        shot.height
    );
    assert!(shot.window.is_some(), "names the X window it read");
    let w = r.ok(json!("list_windows"));
    assert!(!w["windows"].as_array().unwrap().is_empty(), "{w}");
    let Reply::Err(e) = r.op(json!({"advance_clock": {"millis": 10}})) else {
        panic!("advance_clock on a real clock")
    };
    assert_eq!(e.code, ErrorCode::Unsupported, "{}", e.message);
}

#[test]
fn a_set_value_into_a_read_only_view_is_refused_before_sending_and_changes_nothing() {
    let _one = serial();
    if !app("zenity", "zenity") {
        return;
    }
    // zenity --text-info shows the file in a read-only text view: it has EditableText (whose
    // SetTextContents changes nothing), but not the `editable` state a person's typing needs.
    let file = std::env::temp_dir().join(format!(
        "automation-atspi-read-only-{}.txt",
        std::process::id()
    ));
    std::fs::write(&file, "read only text").unwrap();
    let mut r = start(
        &format!("zenity --text-info --filename '{}'", file.display()),
        Output::Null,
    );
    let nodes = r.nodes();
    let view = nodes
        .iter()
        .find(|n| {
            n["value"]
                .as_str()
                .is_some_and(|v| v.contains("read only text"))
        })
        .unwrap_or_else(|| panic!("no node shows the file: {nodes:#?}"));
    let id = view["id"].as_str().unwrap().to_string();
    let t = std::time::Instant::now();
    let reply = r.op(json!({"set_value": {"node": id, "value": "overwritten"}}));
    let waited = t.elapsed();
    std::fs::remove_file(&file).unwrap();
    let Reply::Err(e) = reply else {
        panic!("a read-only view took a value: {reply:?}")
    };
    assert_eq!(e.code, ErrorCode::UnhandledAction, "{}", e.message);
    assert!(e.message.contains("read-only"), "{}", e.message);
    // Refused from the node's states, not after a call deadline.
    assert!(waited < std::time::Duration::from_secs(3), "{waited:?}");
    let v = r.ok(json!({"read_node": {"node": id}}));
    assert!(
        v["value"]
            .as_str()
            .is_some_and(|t| t.contains("read only text")),
        "{v}"
    );
}

/// An app that listed no action when the kit read a widget (busy rebuilding it, as
/// LibreOffice's menu bar is under load) and lists one by the time of the click, with no event
/// to say so: the kit's click reads the actions again and uses the toolkit's (a link: its
/// toolkit action is tried first), which the app's own output shows. The pointer does nothing
/// to this widget, so a click by any other means would print nothing.
#[test]
fn a_click_reads_again_the_actions_an_app_listed_late() {
    if !support::session_tools() || !support::pyatspi() {
        return;
    }
    let _one = serial();
    let (mut r, lines) = late_actions("");
    let late = r.find("Link", "Late");
    let read = r.ok(json!({"read_node": {"node": late}}));
    assert!(
        !read.to_string().contains("\"click\""),
        "the kit's first read lists no click yet: {read}"
    );
    let pid = r.launched.child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-USR1", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let wait = std::time::Duration::from_secs(10);
    assert_eq!(lines.recv_timeout(wait).as_deref(), Ok("ready"));
    let v = r.ok(json!({"invoke_action": {"node": late, "action": "click"}}));
    assert_eq!(v["via"], "action", "{v}");
    assert_eq!(lines.recv_timeout(wait).as_deref(), Ok("clicked"), "{v}");
}

/// A menu-bar title that lists no action at all (a toolkit's rebuilt one): a person clicks it,
/// and so does the kit. The app's own output says its menu opened.
#[test]
fn a_menu_bar_title_without_an_action_opens_by_a_click() {
    if !support::session_tools() || !support::pyatspi() {
        return;
    }
    let _one = serial();
    let (mut r, lines) = late_actions("menu");
    let edit = r.find("Menu", "Edit");
    let v = r.ok(json!({"invoke_action": {"node": edit, "action": "click"}}));
    assert_eq!(v["via"], "pointer", "{v}");
    let wait = std::time::Duration::from_secs(10);
    assert_eq!(lines.recv_timeout(wait).as_deref(), Ok("shown"), "{v}");
}

/// `tests/late_actions.py` in `mode`, and its output's lines as they come.
fn late_actions(mode: &str) -> (support::Running, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead as _;
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/late_actions.py");
    let mut r = start(&format!("/usr/bin/python3 {fixture} {mode}"), Output::Piped);
    let (lines_tx, lines) = std::sync::mpsc::channel::<String>();
    let stdout = r.launched.child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines_tx.send(line);
        }
    });
    (r, lines)
}
