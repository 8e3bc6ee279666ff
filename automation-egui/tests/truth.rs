//! No `ok` that did nothing, on the real egui demo: each case answered `ok` while doing nothing
//! or the wrong thing before (issue "truth and economy"), and now acts or fails typed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_core::ErrorCode;
use automation_egui::{EguiHost, EguiTarget, demo_target};
use serde_json::{Value, json};

type Rig = automation_testkit::rig::Rig<EguiTarget<'static>, EguiHost>;

fn rig() -> Rig {
    Rig::with_host(demo_target(), EguiHost)
}

fn reference(r: &mut Rig, selector: Value) -> Value {
    let v = r.ok(json!({"op": {"find_node": selector}}));
    assert!(v["node"].is_string(), "{selector} found nothing: {v}");
    v["node"].clone()
}

fn delete_row(r: &mut Rig, label: &str) {
    r.ok(json!({"op": {"right_click": {"node": {"label": label}}}}));
    r.ok(json!({"op": {"invoke_action": {"node": {"role": "Button", "label": "Delete"}, "action": "click"}}}));
    let gone = r.ok(json!({"op": {"find_node": {"label": label}}}));
    assert!(gone["node"].is_null(), "{label} was not deleted: {gone}");
}

#[test]
fn a_reference_to_a_deleted_row_is_stale_and_never_clicks_the_next_row() {
    let mut r = rig();
    let row3 = reference(&mut r, json!({"label": "Row 3"}));
    assert!(row3.as_str().unwrap().starts_with('e'), "{row3}");
    delete_row(&mut r, "Row 3");
    // egui's ids are positional: Row 4 now sits where Row 3 was.
    let e = r.err(json!({"op": {"invoke_action": {"node": row3, "action": "click"}}}));
    assert_eq!(e.code, ErrorCode::Stale, "{e:?}");
    assert!(e.message.contains("\"Row 3\""), "{}", e.message);
    assert!(e.message.contains("\"Row 4\""), "{}", e.message);
    let row4 = r.node(json!({"label": "Row 4"}));
    assert_ne!(
        row4["selected"],
        json!(true),
        "the stale click must not reach Row 4"
    );
    assert_ne!(
        row4["toggled"],
        json!(true),
        "the stale click must not reach Row 4"
    );
    let e = r.err(json!({"op": {"read_node": {"node": row3}}}));
    assert_eq!(e.code, ErrorCode::Stale);
    let gone = r.ok(
        json!({"op": {"wait_for_condition": {"condition": {"kind": "node_gone", "node": row3}}}}),
    );
    assert_eq!(gone["satisfied"], true);
    let by_selector = r.ok(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_gone", "node": {"label": "Row 3"}}}}}));
    assert_eq!(by_selector["satisfied"], true);
}

#[test]
fn a_reference_survives_a_change_of_text_on_a_label() {
    let mut r = rig();
    let status = reference(&mut r, json!({"role": "Label", "label": "Ready"}));
    r.ok(json!({"op": {"invoke_action": {"node": {"role": "Button", "label": "Save"}, "action": "click"}}}));
    let v = r.ok(json!({"op": {"read_node": {"node": status}}}));
    assert_eq!(v["value"], "Saved");
    r.ok(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_value", "node": status, "expected": "Saved"}}}}));
}

#[test]
fn a_label_is_found_by_the_name_a_screen_reader_says() {
    let mut r = rig();
    r.ok(json!({"op": {"invoke_action": {"node": {"role": "Button", "label": "Save"}, "action": "click"}}}));
    let v = r.ok(json!({"op": {"find_node": {"label": "Saved"}}}));
    assert_eq!(v["record"]["role"], "Label", "{v}");
    r.ok(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_exists", "label": "Saved"}}}}));
    r.ok(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_exists", "role": "label", "label_contains": "sav"}}}}));
    // "Name" names both the label and the field it labels: the field is meant.
    let field = r.node(json!({"label": "Name"}));
    assert_eq!(field["role"], "TextInput");
}

#[test]
fn an_unknown_role_is_an_error_with_did_you_mean() {
    let mut r = rig();
    let e = r.err(json!({"op": {"find_node": {"role": "Labell", "label": "Saved"}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    assert!(e.hint.unwrap_or_default().contains("Label"));
    let e = r.err(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_exists", "role": "Buton"}}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
}

#[test]
fn not_found_candidates_and_empty_find_consider_values() {
    let mut r = rig();
    r.ok(json!({"op": {"set_value": {"node": {"label": "Name"}, "value": "Grace Hopper"}}}));
    let e = r.err(json!({"op": {"read_node": {"node": {"value": "Grace Hoper"}}}}));
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(
        e.candidates
            .iter()
            .any(|c| c.value.as_deref() == Some("Grace Hopper")),
        "{e:?}"
    );
    let v = r.ok(json!({"op": {"find_node": {"label": "Sav"}}}));
    assert!(v["node"].is_null());
    assert!(
        v["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["label"] == "Save"),
        "{v}"
    );
    let e = r.err(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_exists", "label": "Savd"}}}, "settle": {"settle_timeout_ms": 50}}));
    assert_eq!(e.code, ErrorCode::WaitTimeout);
    assert!(
        e.candidates
            .iter()
            .any(|c| c.label.as_deref() == Some("Save")),
        "{e:?}"
    );
}

#[test]
fn set_value_refuses_what_the_node_cannot_take_and_shows_the_new_value() {
    let mut r = rig();
    r.ok(json!({"op": {"expand": {"node": {"label": "Advanced"}}}}));
    let v = r.ok(json!({"op": {"set_value": {"node": {"role": "Slider"}, "value": "75"}}}));
    assert_eq!(
        v["value"], 75.0,
        "a number string on a numeric node is parsed: {v}"
    );
    assert_eq!(r.node(json!({"role": "Slider"}))["numeric_value"], 75.0);
    let e = r.err(json!({"op": {"set_value": {"node": {"role": "Slider"}, "value": "loud"}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    let e = r.err(json!({"op": {"set_value": {"node": {"role": "Slider"}, "value": 400}}}));
    assert_eq!(e.code, ErrorCode::BadArgument, "{e:?}");
    let e = r.err(json!({"op": {"set_value": {"node": {"label": "Name"}, "value": 42}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    assert!(e.hint.unwrap_or_default().contains("\"42\""));
    let v = r.ok(json!({"op": {"set_value": {"node": {"label": "Name"}, "value": "Ada"}}}));
    assert_eq!(v["value"], "Ada");
    let e = r.err(
        json!({"op": {"set_value": {"node": {"role": "Button", "label": "Save"}, "value": "x"}}}),
    );
    assert!(
        matches!(e.code, ErrorCode::BadArgument | ErrorCode::UnhandledAction),
        "{e:?}"
    );
}

#[test]
fn type_text_goes_to_a_field_or_to_the_focused_window() {
    let mut r = rig();
    // No node, nothing focused: the keys go to the window, as a person's would, and nothing
    // in the demo takes them.
    let e = r.err(json!({"op": {"type_text": {"text": "hello"}}}));
    assert_eq!(e.code, ErrorCode::NoEffect, "{e:?}");
    assert!(e.message.contains("focus"), "{}", e.message);
    assert!(e.hint.unwrap_or_default().contains("inject_key"));
    // A node that takes no text is refused.
    let e = r.err(json!({"op": {"type_text": {"node": {"role": "Button", "label": "Save"}, "text": "hello"}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    assert!(e.message.contains("Save"), "{}", e.message);
    r.ok(json!({"op": {"focus_node": {"node": {"role": "Button", "label": "Save"}}}}));
    let e = r.err(json!({"op": {"type_text": {"text": "hello"}}}));
    assert_eq!(e.code, ErrorCode::NoEffect, "{e:?}");
    assert!(
        e.message.contains("\"Save\""),
        "names the focused node: {}",
        e.message
    );
    let v = r
        .ok(json!({"op": {"type_text": {"node": {"label": "Name"}, "text": "Zoë Ångström café"}}}));
    assert_eq!(v["value"], "Zoë Ångström café");
    assert_eq!(v["keys"], 17);
}

#[test]
fn a_pointer_click_below_the_scroll_area_scrolls_the_row_into_view_first() {
    let mut r = rig();
    // The list's scroll area shows about eight rows; Row 18 is laid out below its edge.
    let row1 = r.node(json!({"label": "Row 1"}));
    let before = r.node(json!({"label": "Row 18"}));
    assert!(
        before["bounds"]["y"].as_f64().unwrap() > row1["bounds"]["y"].as_f64().unwrap() + 160.0,
        "Row 18 starts out of view: {before}"
    );
    // egui reports a selectable label's selection as its toggled state.
    let picked = |n: &Value| n["selected"] == json!(true) || n["toggled"] == json!(true);
    assert!(!picked(&before), "{before}");
    r.ok(json!({"op": {"inject_pointer": {"node": {"label": "Row 18"}, "action": "click"}}}));
    let after = r.node(json!({"label": "Row 18"}));
    assert!(picked(&after), "the click reached Row 18: {after}");
}

#[test]
fn a_point_outside_the_window_is_refused() {
    let mut r = rig();
    let e = r.err(json!({"op": {"inject_pointer": {"x": 5000.0, "y": 10.0, "action": "click"}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    assert!(e.message.contains("outside the window"), "{}", e.message);
}

#[test]
fn an_assertion_failure_carries_actual_and_expected_as_data() {
    let mut r = rig();
    let e = r.err(json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "toggled", "flag": true}}}));
    assert_eq!(e.code, ErrorCode::AssertionFailed);
    assert_eq!(e.actual.as_deref(), Some(&json!(false)));
    assert_eq!(e.expected.as_deref(), Some(&json!(true)));
    assert!(!e.message.contains("Some("), "{}", e.message);
    let e = r.err(json!({"op": {"assert_node": {"node": {"role": "Slider"}, "kind": "label_equals", "value": "x"}}}));
    assert!(
        !e.message.contains("Some(") && !e.message.contains("None"),
        "{}",
        e.message
    );
}

/// A hint leads somewhere else: never back to the op that just failed (issue 35: NO_EFFECT
/// said "try inject_pointer" after inject_pointer, "type_text into it" where type_text refused).
#[test]
fn no_hint_names_the_op_that_just_failed() {
    let mut r = rig();
    let failing = [
        json!({"op": {"invoke_action": {"node": {"role": "Button", "label": "Sav"}, "action": "click"}}}),
        json!({"op": {"invoke_action": {"node": {"role": "Button", "label": "Save"}, "action": "expand"}}}),
        json!({"op": {"set_value": {"node": {"role": "Button", "label": "Save"}, "value": "x"}}}),
        json!({"op": {"set_value": {"node": {"role": "Slider"}, "value": "loud"}}}),
        json!({"op": {"set_value": {"node": {"role": "Slider"}, "value": 400}}}),
        json!({"op": {"type_text": {"node": {"role": "Button", "label": "Save"}, "text": "x"}}}),
        json!({"op": {"type_text": {"text": "hello"}}}),
        json!({"op": {"focus_node": {"node": {"label": "Nothing"}}}}),
        json!({"op": {"inject_pointer": {"node": {"label": "Nothing"}, "action": "click"}}}),
        json!({"op": {"read_node": {"node": {"label": "Nothing"}}}}),
        json!({"op": {"assert_node": {"node": {"role": "Button", "label": "Save"}, "kind": "toggled"}}}),
        json!({"op": {"scroll": {"node": {"label": "Nothing"}, "dy": 3}}}),
    ];
    let mut checked = 0;
    for request in failing {
        let op = request["op"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        let e = r.err(request.clone());
        let hint = e.hint.clone().unwrap_or_default();
        let named = hint
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == op);
        assert!(
            !named,
            "{op} failed ({:?}: {}) and its hint sends the caller back to it: {hint}",
            e.code, e.message
        );
        checked += 1;
    }
    assert_eq!(checked, 12);
}
