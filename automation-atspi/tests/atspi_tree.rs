//! The mirrored tree on real apps, judged by pyatspi on the same bus (`tests/oracle.py`):
//! a GTK3 combo box's popup (its menu re-parented into a new window), bounds that put a
//! pointer click on its node (GTK3 popups, Qt's screen coordinates).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use automation_atspi::Output;
use automation_core::Reply;
use serde_json::{Value, json};
use support::{Oracle, Running, has_state, pyatspi, serial_start};

/// Polls `f` (the oracle's view) until it holds or 3 s pass.
fn eventually(what: &str, mut f: impl FnMut() -> Option<Value>) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(std::time::Instant::now() < deadline, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn ok(r: &mut Running, op: Value) -> Value {
    match r.op(op.clone()) {
        Reply::Ok(v) => v,
        other => panic!("{op} answered {other:?}"),
    }
}

/// The id of the first node of the snapshot with `role` and `label`, under `root` if given.
fn node_in(r: &mut Running, root: Option<&str>, role: &str, label: &str) -> Option<String> {
    let snap = match root {
        Some(root) => ok(
            r,
            json!({"snapshot_tree": {"format": "json", "root": root}}),
        ),
        None => ok(r, json!({"snapshot_tree": {"format": "json"}})),
    };
    snap["nodes"]
        .as_array()?
        .iter()
        .find(|n| n["role"] == role && n["label"] == label)
        .and_then(|n| n["id"].as_str().map(str::to_string))
}

/// Opens the combo box labelled `label` and answers the popup window's node from
/// `list_windows` (the window that was not there before).
fn open_combo(r: &mut Running, label: &str) -> String {
    let before: Vec<Value> = ok(r, json!("list_windows"))["windows"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let combo = r.find("ComboBox", label);
    ok(
        r,
        json!({"invoke_action": {"node": combo, "action": "click"}}),
    );
    let mut popup = None;
    for _ in 0..20 {
        let now = ok(r, json!("list_windows"));
        popup = now["windows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| !before.iter().any(|b| b["node"] == w["node"]))
            .and_then(|w| w["node"].as_str().map(str::to_string));
        if popup.is_some() {
            break;
        }
        ok(r, json!({"settle": {}}));
    }
    popup.unwrap_or_else(|| panic!("no popup window among {:?}", ok(r, json!("list_windows"))))
}

#[test]
fn gtk3_combo_popup_is_listed_and_its_item_selects() {
    let Some((_one, mut r)) = serial_start(
        "gtk3-widget-factory",
        "gtk-3-examples",
        "gtk3-widget-factory",
        Output::Null,
    ) else {
        return;
    };
    if !pyatspi() {
        return;
    }
    let mut oracle = Oracle::start(&r);
    assert_eq!(oracle.find("combo box", "Left")["name"], "Left");
    let popup = open_combo(&mut r, "Left");
    // The popup's node resolves, and its items are under it (not under the combo).
    let item = node_in(&mut r, Some(&popup), "MenuItem", "Middle")
        .unwrap_or_else(|| panic!("no item Middle under the popup {popup}"));
    let v = ok(
        &mut r,
        json!({"invoke_action": {"node": item, "action": "click"}}),
    );
    eprintln!("click Middle: {v}");
    eventually("pyatspi sees the combo read Middle", || {
        let c = oracle.find("combo box", "Middle");
        c.is_object().then_some(c)
    });
    assert!(oracle.find("combo box", "Left").is_null());
}

#[test]
fn a_pointer_click_on_a_gtk3_popup_item_lands_on_it() {
    let Some((_one, mut r)) = serial_start(
        "gtk3-widget-factory",
        "gtk-3-examples",
        "gtk3-widget-factory",
        Output::Null,
    ) else {
        return;
    };
    if !pyatspi() {
        return;
    }
    let mut oracle = Oracle::start(&r);
    let popup = open_combo(&mut r, "Left");
    let item = node_in(&mut r, Some(&popup), "MenuItem", "Right").expect("item Right");
    // The node's bounds are where pyatspi says the item is on the screen, relative to the
    // main window (which sits at the screen's origin without a window manager).
    let read = ok(&mut r, json!({"read_node": {"node": item}}));
    let b = &read["bounds"];
    let truth = oracle.find("menu item", "Right")["screen"].clone();
    let frame = oracle.ask(json!({"windows": true}))[0]["screen"].clone();
    assert_eq!(
        (b["x"].as_f64(), b["y"].as_f64()),
        (
            Some((truth[0].as_i64().unwrap() - frame[0].as_i64().unwrap()) as f64),
            Some((truth[1].as_i64().unwrap() - frame[1].as_i64().unwrap()) as f64)
        ),
        "bounds {read} vs pyatspi {truth} in the window at {frame}"
    );
    ok(
        &mut r,
        json!({"inject_pointer": {"node": item, "action": "click"}}),
    );
    eventually("pyatspi sees the combo read Right", || {
        let c = oracle.find("combo box", "Right");
        c.is_object().then_some(c)
    });
}

const QT_STYLES: &str = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/widgets/styles/styles";

#[test]
fn a_pointer_click_on_a_qt_check_box_lands_on_it() {
    let Some((_one, mut r)) = serial_start(QT_STYLES, "qtbase5-examples", QT_STYLES, Output::Null)
    else {
        return;
    };
    if !pyatspi() {
        return;
    }
    let mut oracle = Oracle::start(&r);
    let label = "Use style's standard palette";
    let before = oracle.find("check box", label);
    let window = oracle.ask(json!({"windows": true}))[0]["screen"].clone();
    // Qt centres its window on the screen and answers screen coordinates for window ones.
    assert!(
        window[0].as_i64() > Some(0),
        "the window is not at the origin: {window}"
    );
    let id = r.find("CheckBox", label);
    let read = ok(&mut r, json!({"read_node": {"node": id}}));
    assert_eq!(
        read["bounds"]["x"].as_f64(),
        Some((before["screen"][0].as_i64().unwrap() - window[0].as_i64().unwrap()) as f64),
        "{read} vs pyatspi {before} in the window at {window}"
    );
    let was = has_state(&before, "checked");
    ok(
        &mut r,
        json!({"inject_pointer": {"node": id, "action": "click"}}),
    );
    eventually("pyatspi sees the check box flip", || {
        let now = oracle.find("check box", label);
        (has_state(&now, "checked") != was).then_some(now)
    });
}

#[test]
fn a_gtk3_table_that_manages_its_cells_shows_its_headers_and_cells() {
    let Some((_one, mut r)) = serial_start(
        "gtk3-widget-factory",
        "gtk-3-examples",
        "gtk3-widget-factory",
        Output::Null,
    ) else {
        return;
    };
    if !pyatspi() {
        return;
    }
    let mut oracle = Oracle::start(&r);
    // gtk3-widget-factory's 4 × 4 table: 4 column headers, 16 cells (manages-descendants).
    let truth: Vec<String> = oracle
        .ask(json!({"children": "table"}))
        .as_array()
        .expect("a showing table")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default().to_string())
        .collect();
    let table = ok(&mut r, json!({"find_node": {"role": "Table"}}))["node"]
        .as_str()
        .expect("a table")
        .to_string();
    let snap = ok(
        &mut r,
        json!({"snapshot_tree": {"format": "json", "root": table}}),
    );
    let nodes = snap["nodes"].as_array().unwrap();
    let kids = nodes[0]["children"].as_array().unwrap();
    let labels: Vec<String> = kids
        .iter()
        .map(|k| {
            let n = nodes.iter().find(|n| n["id"] == *k).unwrap();
            n["label"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    assert_eq!(labels, truth, "the kit's children vs pyatspi's");
}
