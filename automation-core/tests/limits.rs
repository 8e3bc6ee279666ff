//! Hostile numbers and strings: refused before anything reaches the app, naming the field;
//! snapshots bounded by bytes as well as nodes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_core::ErrorCode;
use automation_testkit::fixture::{DemoApp, DemoHost, Received};
use automation_testkit::rig::Rig;
use serde_json::{Value, json};

fn rig() -> Rig<DemoApp, DemoHost> {
    let mut r = Rig::with_host(DemoApp::new(), DemoHost);
    r.ok(json!({"op": "snapshot_tree"}));
    r
}

fn inputs(r: &Rig<DemoApp, DemoHost>) -> usize {
    r.app()
        .received()
        .filter(|e| !matches!(e, Received::ResumeRealTime))
        .count()
}

/// The op is refused with BAD_ARGUMENT naming `field`, and the app received nothing.
fn refused(op: Value, field: &str) {
    let mut r = rig();
    let name = op
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .unwrap_or_default();
    let before = inputs(&r);
    let e = r
        .reply(json!({ "op": op }))
        .err()
        .cloned()
        .unwrap_or_else(|| panic!("{name} succeeded"));
    assert_eq!(e.code, ErrorCode::BadArgument, "{name}: {}", e.message);
    assert!(
        e.message.contains(field),
        "{name}: {} does not name {field}",
        e.message
    );
    assert_eq!(inputs(&r), before, "{name}: something was sent");
}

#[test]
fn numbers_that_overflow_an_f32_are_refused_naming_the_field() {
    let huge = 1e39;
    refused(json!({"inject_pointer": {"x": huge, "y": 10}}), "`x`");
    refused(json!({"inject_pointer": {"x": 10, "y": -huge}}), "`y`");
    refused(
        json!({"scroll": {"node": {"label": "Items"}, "dx": huge}}),
        "`dx`",
    );
    refused(
        json!({"scroll": {"node": {"label": "Items"}, "at": [1, huge]}}),
        "`at.y`",
    );
    refused(
        json!({"drag_node": {"node": {"label": "Row 1"}, "to_x": huge, "to_y": 1}}),
        "`to_x`",
    );
    refused(
        json!({"pinch": {"node": {"label": "Items"}, "scale": huge}}),
        "`scale`",
    );
    refused(
        json!({"pinch": {"node": {"label": "Items"}, "scale": 2, "start_distance": huge}}),
        "`start_distance`",
    );
    refused(
        json!({"fling": {"node": {"label": "Items"}, "dy": huge}}),
        "`dy`",
    );
    refused(
        json!({"long_press": {"node": {"label": "Save"}, "x": huge, "y": 1}}),
        "`x`",
    );
    refused(
        json!({"inject_touch_sequence": {"steps": [{"phase": "down", "x": 1, "y": 1}, {"phase": "up", "x": huge, "y": 1}]}}),
        "`steps[1].x`",
    );
}

#[test]
fn strings_have_byte_caps() {
    let long = "a".repeat(automation_core::limits::MAX_TEXT_BYTES + 1);
    refused(json!({"type_text": {"text": long}}), "`text`");
    refused(
        json!({"set_value": {"node": {"role": "TextInput"}, "value": long}}),
        "`value`",
    );
    let name = "b".repeat(automation_core::limits::MAX_NAME_BYTES + 1);
    refused(json!({"find_node": {"label": name}}), "`label`");
    refused(
        json!({"invoke_action": {"node": {"label": "Save"}, "action": name}}),
        "`action`",
    );
    let steps: Vec<Value> = (0..1001)
        .map(|_| json!({"phase": "move", "x": 1, "y": 1}))
        .collect();
    refused(
        json!({"inject_touch_sequence": {"steps": steps}}),
        "`steps`",
    );
}

#[test]
fn a_long_value_is_cut_in_snapshots_and_whole_in_read_node() {
    let mut r = rig();
    let value = "z".repeat(60_000);
    r.ok(json!({"op": {"set_value": {"node": {"role": "TextInput"}, "value": value}}}));
    let outline = r.ok(json!({"op": "snapshot_tree"}));
    let tree = outline["tree"].as_str().unwrap();
    assert!(tree.len() < 4_000, "text snapshot is {} bytes", tree.len());
    assert!(tree.contains("zzz…"), "{tree}");
    let snap = r.ok(json!({"op": {"snapshot_tree": {"format": "json"}}}));
    let text = snap.to_string();
    assert!(text.len() < 40_000, "snapshot is {} bytes", text.len());
    let field = snap["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["role"] == "TextInput")
        .unwrap()
        .clone();
    assert_eq!(field["cut"], json!(["value"]), "{field}");
    assert!(
        snap["cut_note"].as_str().unwrap().contains("read_node"),
        "{snap}"
    );
    let whole = r.ok(json!({"op": {"read_node": {"node": {"role": "TextInput"}}}}));
    assert_eq!(whole["value"].as_str().map(str::len), Some(60_000));
}
