//! The op contract's rules (defaults, key and pointer conventions, settle, the error codes)
//! and the known accesskit_consumer pitfalls, pinned against the fixture target.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use accesskit::{Node, NodeId, Role, TreeInfo, TreeUpdate};
use automation_core::input::{Key, NamedKey, PointerPhase};
use automation_core::{ErrorCode, Reply};
use automation_testkit::fixture::{DemoApp, DemoHost, Received, ids};
use serde_json::{Value, json};

type Rig = automation_testkit::rig::Rig<DemoApp, DemoHost>;

fn rig() -> Rig {
    Rig::with_host(DemoApp::new(), DemoHost)
}

fn log_len(r: &Rig) -> usize {
    r.app().log.len()
}

fn key(id: NodeId) -> String {
    id.0.to_string()
}

/// The short reference replies hand out for a raw id.
fn reference(r: &mut Rig, id: NodeId) -> Value {
    r.ok(json!({"op": {"read_node": {"node": key(id)}}}))["id"].clone()
}

// --- strict parsing ---------------------------------------------------------------------

#[test]
fn unknown_field_is_refused_and_named() {
    let mut r = rig();
    let e = r.err(json!({"op": {"find_node": {"lable": "Save"}}}));
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(e.message.contains("lable"), "{}", e.message);
    let e = r.err(json!({"op": "settle", "settle": {"clock_milis": 5}}));
    assert!(e.message.contains("clock_milis"), "{}", e.message);
    let e = r.err(json!({"op": {"inject_touch_sequence": {"steps": [{"phase": "down", "x": 1, "y": 1, "contatc": 1}]}}}));
    assert!(e.message.contains("contatc"), "{}", e.message);
    let e = r.err(json!({"op": "snapshot_tree", "extra": 1}));
    assert!(e.message.contains("extra"), "{}", e.message);
}

#[test]
fn unknown_op_suggests_close_names() {
    let mut r = rig();
    let e = r.err(json!({"op": "snapshot_tre"}));
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(e.hint.unwrap_or_default().contains("snapshot_tree"));
}

#[test]
fn settle_on_a_read_only_op_is_refused() {
    let mut r = rig();
    let e = r.err(json!({"op": {"find_node": {"label": "Save"}}, "settle": {}}));
    assert!(
        e.message.contains("does not accept `settle`"),
        "{}",
        e.message
    );
}

#[test]
fn bare_names_work_for_ops_without_required_args() {
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    r.ok(json!({"op": {"snapshot_tree": {"max_depth": 1}}}));
    let e = r.err(json!({"op": "read_node"}));
    assert!(e.message.contains("node"), "{}", e.message);
}

// --- queries and assertions -----------------------------------------------------------------

#[test]
fn find_node_no_match_is_ok_null() {
    let mut r = rig();
    let v = r.ok(json!({"op": {"find_node": {"role": "Button", "label": "Nope"}}}));
    assert_eq!(v["node"], Value::Null);
    assert_eq!(v["count"], 0);
}

#[test]
fn find_node_role_is_case_insensitive_and_label_exact() {
    let mut r = rig();
    let v = r.ok(json!({"op": {"find_node": {"role": "button", "label": "Save"}}}));
    assert_eq!(v["node"], reference(&mut r, ids::SAVE));
    let v = r.ok(json!({"op": {"find_node": {"label": "save"}}}));
    assert_eq!(v["node"], Value::Null);
}

#[test]
fn label_resolves_through_labelled_by() {
    let mut r = rig();
    let v = r.ok(json!({"op": {"read_node": {"node": key(ids::NAME_FIELD)}}}));
    assert_eq!(v["label"], "Name");
    assert!(
        v.get("raw_label").is_none(),
        "raw label is absent, so raw_label is omitted"
    );
    let v = r.ok(json!({"op": {"find_node": {"label": "Name", "role": "TextInput"}}}));
    assert_eq!(v["node"], reference(&mut r, ids::NAME_FIELD));
}

#[test]
fn mixed_checkbox_fails_both_ways() {
    let mut r = rig();
    for flag in [true, false] {
        let e = r.err(json!({"op": {"assert_node": {"node": {"label": "Select all"}, "kind": "toggled", "flag": flag}}}));
        assert_eq!(e.code, ErrorCode::AssertionFailed);
        assert!(e.message.contains("mixed"), "{}", e.message);
    }
    r.ok(json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "toggled", "flag": false}}}));
}

#[test]
fn exists_on_missing_is_assertion_failed_other_kinds_not_found() {
    let mut r = rig();
    let e = r.err(json!({"op": {"assert_node": {"node": "424242", "kind": "exists"}}}));
    assert_eq!(e.code, ErrorCode::AssertionFailed);
    let e = r.err(json!({"op": {"assert_node": {"node": "424242", "kind": "focused"}}}));
    assert_eq!(e.code, ErrorCode::NotFound);
    let e = r.err(json!({"op": {"assert_node": {"node": {"label": "Nope"}, "kind": "exists"}}}));
    assert_eq!(e.code, ErrorCode::AssertionFailed);
}

#[test]
fn assert_arguments_are_checked() {
    let mut r = rig();
    let e = r.err(json!({"op": {"assert_node": {"node": key(ids::SAVE), "kind": "label_equals"}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    let e = r.err(
        json!({"op": {"assert_node": {"node": key(ids::SAVE), "kind": "toggled", "value": "x"}}}),
    );
    assert_eq!(e.code, ErrorCode::BadArgument);
    let e = r.err(json!({"op": {"assert_node": {"node": key(ids::SAVE), "kind": "frobbed"}}}));
    assert_eq!(e.code, ErrorCode::BadRequest);
    let e = r.err(json!({"op": {"assert_node": {"node": key(ids::SAVE), "kind": "label_equals", "value": "Cancel"}}}));
    assert_eq!(e.code, ErrorCode::AssertionFailed);
    assert!(
        e.message.contains("Save") && e.message.contains("Cancel"),
        "{}",
        e.message
    );
}

#[test]
fn text_runs_are_not_children_but_addressable() {
    let mut r = rig();
    let v = r.ok(json!({"op": {"read_node": {"node": key(ids::HEADING_TEXT)}}}));
    assert_eq!(v["children"], json!([]));
    assert_eq!(v["text"]["document_text"], "Automation demo");
    assert_eq!(v["text"]["run_count"], 1);
    r.ok(json!({"op": {"assert_node": {"node": key(ids::HEADING_TEXT), "kind": "supports_text_ranges"}}}));
    r.ok(json!({"op": {"assert_node": {"node": key(ids::HEADING_TEXT), "kind": "document_text_equals", "value": "Automation demo"}}}));
    let v = r.ok(json!({"op": {"read_node": {"node": key(ids::HEADING_RUN)}}}));
    assert_eq!(v["role"], "TextRun");
    let e = r.err(
        json!({"op": {"assert_node": {"node": key(ids::SAVE), "kind": "supports_text_ranges"}}}),
    );
    assert_eq!(e.code, ErrorCode::AssertionFailed);
}

// --- selectors ----------------------------------------------------------------------------

#[test]
fn ambiguous_selector_lists_candidates_and_nth_picks() {
    let mut r = rig();
    let e =
        r.err(json!({"op": {"invoke_action": {"node": {"role": "CheckBox"}, "action": "click"}}}));
    assert_eq!(e.code, ErrorCode::Ambiguous);
    assert_eq!(e.candidates.len(), 2);
    assert!(e.hint.unwrap_or_default().contains("nth"));
    r.ok(json!({"op": {"invoke_action": {"node": {"role": "CheckBox", "nth": 0}, "action": "click"}}}));
    r.ok(json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "toggled", "flag": true}}}));
}

#[test]
fn not_found_names_the_closest_candidates() {
    let mut r = rig();
    let e = r.err(json!({"op": {"invoke_action": {"node": {"role": "Button", "label": "Sav"}, "action": "click"}}}));
    assert_eq!(e.code, ErrorCode::NotFound);
    assert_eq!(
        e.candidates
            .first()
            .and_then(|c| c.label.clone())
            .as_deref(),
        Some("Save")
    );
}

#[test]
fn stale_id_after_structural_change_offers_its_successor_shape() {
    let mut r = rig();
    let row = r.ok(json!({"op": {"find_node": {"label": "Row 2"}}}))["node"].clone();
    r.ok(json!({"op": {"invoke_action": {"node": row, "action": "show_context_menu"}}}));
    r.ok(json!({"op": {"invoke_action": {"node": {"role": "MenuItem", "label": "Delete"}, "action": "click"}}}));
    let e = r.err(json!({"op": {"read_node": {"node": row}}}));
    assert_eq!(e.code, ErrorCode::Stale);
    assert!(e.message.contains("gone"), "{}", e.message);
    assert!(e.message.contains("\"Row 2\""), "{}", e.message);
    let e = r.err(json!({"op": {"read_node": {"node": "77777"}}}));
    assert!(e.message.contains("never"), "{}", e.message);
}

#[test]
fn empty_selector_is_refused() {
    let mut r = rig();
    let e = r.err(json!({"op": {"read_node": {"node": {}}}}));
    assert_eq!(e.code, ErrorCode::BadRequest);
    let e = r.err(json!({"op": {"find_node": {}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
}

// --- ids and f64 ---------------------------------------------------------------------------

fn walk_ids(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                if matches!(k.as_str(), "id" | "node" | "root" | "focus") && !v.is_object() {
                    out.push(v.clone());
                }
                if k == "children" || k == "frontier" {
                    out.extend(v.as_array().cloned().unwrap_or_default());
                }
                walk_ids(v, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| walk_ids(v, out)),
        _ => {}
    }
}

#[test]
fn every_id_survives_an_f64_round_trip() {
    let mut r = rig();
    let snap = r.ok(json!({"op": {"snapshot_tree": {"max_nodes": 1000, "format": "json"}}}));
    let text = serde_json::to_string(&snap).unwrap();
    // What a JavaScript client does: numbers become f64.
    let as_js: Value = serde_json::from_str(&text).unwrap();
    let mut found = Vec::new();
    walk_ids(&as_js, &mut found);
    assert!(found.len() > 30);
    for id in found {
        if id.is_null() {
            continue;
        }
        let s = id
            .as_str()
            .unwrap_or_else(|| panic!("id {id} is not a string"));
        let n: automation_core::RefKey = s.parse().unwrap();
        r.ok(json!({"op": {"read_node": {"node": s}}}));
        assert_eq!(n.to_string(), s);
    }
    // The 64-bit ids are really above 2^53 here, so numbers would have been corrupted.
    const { assert!(ids::SAVE.0 > 1 << 53) };
    let e = r.err(json!({"op": {"read_node": {"node": ids::SAVE.0}}}));
    assert!(e.message.contains("2^53"), "{}", e.message);
    r.ok(json!({"op": {"read_node": {"node": 30}}}));
}

// --- actions --------------------------------------------------------------------------------

#[test]
fn unknown_action_is_unknown_name_before_node_lookup() {
    let mut r = rig();
    let e = r.err(json!({"op": {"invoke_action": {"node": "999999", "action": "clik"}}}));
    assert_eq!(e.code, ErrorCode::UnknownName);
    assert!(e.hint.unwrap_or_default().contains("click"));
}

#[test]
fn action_aliases_map_to_click_and_context_menu() {
    let mut r = rig();
    r.ok(json!({"op": {"invoke_action": {"node": key(ids::SAVE), "action": "press"}}}));
    r.ok(json!({"op": {"invoke_action": {"node": {"label": "Row 1"}, "action": "context_menu"}}}));
    r.ok(json!({"op": {"find_node": {"role": "Menu"}}}));
    assert!(
        r.ok(json!({"op": {"find_node": {"role": "MenuItem", "label": "Rename"}}}))["node"]
            .is_string()
    );
}

#[test]
fn unhandled_action_lists_advertised_actions() {
    let mut r = rig();
    let e = r.err(json!({"op": {"invoke_action": {"node": key(ids::SAVE), "action": "expand"}}}));
    assert_eq!(e.code, ErrorCode::UnhandledAction);
    assert!(
        e.message.contains("click") && e.message.contains("focus"),
        "{}",
        e.message
    );
}

#[test]
fn set_value_text_and_number() {
    let mut r = rig();
    r.ok(json!({"op": {"set_value": {"node": {"label": "Name"}, "value": "Grace"}}}));
    r.ok(json!({"op": {"assert_node": {"node": {"label": "Name"}, "kind": "value_equals", "value": "Grace"}}}));
    let v = r.ok(json!({"op": {"set_value": {"node": {"label": "Volume"}, "value": 75}}}));
    assert!(v["settled"].is_object());
    let v = r.ok(json!({"op": {"read_node": {"node": key(ids::SLIDER)}}}));
    assert_eq!(v["numeric_value"], 75.0);
}

#[test]
fn expand_and_collapse() {
    let mut r = rig();
    r.ok(json!({"op": {"expand": {"node": {"label": "Details"}}}}));
    r.ok(json!({"op": {"assert_node": {"node": {"label": "Details"}, "kind": "expanded", "flag": true}}}));
    assert!(r.ok(json!({"op": {"find_node": {"value": "Hidden details"}}}))["node"].is_string());
    r.ok(json!({"op": {"collapse": {"node": {"label": "Details"}}}}));
    assert!(r.ok(json!({"op": {"find_node": {"value": "Hidden details"}}}))["node"].is_null());
}

// --- time -------------------------------------------------------------------------------------

#[test]
fn clock_moves_exactly_clock_millis_plus_16_per_frame() {
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    r.ok(json!({"op": {"invoke_action": {"node": {"label": "Animate"}, "action": "click"}}, "settle": {"max_anim_frames": 0}}));
    let before = r.app().clock_ms;
    let v = r.ok(json!({"op": "settle", "settle": {"clock_millis": 40, "max_anim_frames": 5}}));
    assert_eq!(v["settled"]["frames"], 5);
    assert_eq!(v["settled"]["advanced_ms"], 40 + 16 * 5);
    assert_eq!(r.app().clock_ms - before, 40 + 16 * 5);
    // Not animating: only clock_millis moves.
    let mut r = rig();
    let before = r.app().clock_ms;
    let v = r.ok(json!({"op": "settle", "settle": {"clock_millis": 7}}));
    assert_eq!(v["settled"]["frames"], 0);
    assert_eq!(r.app().clock_ms - before, 7);
}

#[test]
fn frame_cap_is_silent_success() {
    let mut r = rig();
    r.s.target.animate_forever = true;
    let v =
        r.ok(json!({"op": "settle", "settle": {"max_anim_frames": 3, "settle_timeout_ms": 10000}}));
    assert_eq!(v["settled"]["frames"], 3);
    assert_eq!(v["settled"]["still_animating"], true);
}

#[test]
fn wall_deadline_gives_settle_timeout() {
    let mut r = rig();
    r.s.target.animate_forever = true;
    let e = r.err(json!({"op": "settle", "settle": {"max_anim_frames": 4000000000u32, "settle_timeout_ms": 30}}));
    assert_eq!(e.code, ErrorCode::SettleTimeout);
    assert!(e.code.is_retryable());
    let e = r.err(json!({"op": "settle", "settle": {"settle_timeout_ms": 100000000}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    let e = r.err(json!({"op": {"fling": {"node": {"label": "Items"}, "dy": 5, "over_ms": 1000000000000u64}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
}

#[test]
fn animation_settles_to_its_end() {
    let mut r = rig();
    r.ok(json!({"op": {"invoke_action": {"node": {"label": "Animate"}, "action": "click"}}}));
    let v = r.ok(json!({"op": {"read_node": {"node": {"label": "Progress"}}}}));
    assert_eq!(v["numeric_value"], 100.0);
}

fn hover_save(r: &mut Rig) {
    r.ok(json!({"op": {"inject_pointer": {"node": key(ids::SAVE), "action": "move"}}}));
}

#[test]
fn wait_budget_160_resolves_a_128_dwell_and_80_times_out() {
    let mut r = rig();
    hover_save(&mut r);
    let v = r.ok(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_exists", "role": "Tooltip"}}}, "settle": {"settle_timeout_ms": 160}}));
    assert_eq!(v["waited_ms"], 128);
    let mut r = rig();
    hover_save(&mut r);
    let e = r.err(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_exists", "role": "Tooltip"}}}, "settle": {"settle_timeout_ms": 80}}));
    assert_eq!(e.code, ErrorCode::WaitTimeout);
    assert_eq!(
        r.app().clock_ms,
        80,
        "the budget is spent as simulated frames"
    );
}

#[test]
fn node_gone_is_true_at_once_for_a_never_seen_id() {
    let mut r = rig();
    let before = r.app().clock_ms;
    let v = r.ok(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_gone", "node": "123456789"}}}}));
    assert_eq!(v["waited_ms"], 0);
    assert_eq!(r.app().clock_ms, before);
    let e = r.err(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_gone", "node": key(ids::SAVE)}}}, "settle": {"settle_timeout_ms": 32}}));
    assert_eq!(e.code, ErrorCode::WaitTimeout);
}

#[test]
fn node_value_and_version_conditions() {
    let mut r = rig();
    let version = r.ok(json!({"op": "snapshot_tree"}))["version"]
        .as_u64()
        .unwrap();
    r.ok(json!({"op": {"invoke_action": {"node": key(ids::SAVE), "action": "click"}}}));
    r.ok(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_value", "node": key(ids::STATUS), "expected": "Saved"}}}}));
    r.ok(json!({"op": {"wait_for_condition": {"condition": {"kind": "at_version_at_least", "version": version + 1}}}}));
}

#[test]
fn every_op_hands_the_clock_back() {
    let mut r = rig();
    for req in [
        json!({"op": "snapshot_tree"}),
        json!({"op": {"invoke_action": {"node": key(ids::SAVE), "action": "click"}}}),
        json!({"op": {"invoke_action": {"node": key(ids::SAVE), "action": "nope"}}}),
        json!({"op": {"advance_clock": {"millis": 10}}}),
    ] {
        let _ = r.reply(req);
        assert_eq!(
            r.app().log.last().map(|(_, e)| e),
            Some(&Received::ResumeRealTime)
        );
    }
}

#[test]
fn advance_clock_moves_time_and_takes_no_settle() {
    let mut r = rig();
    r.ok(json!({"op": {"advance_clock": {"millis": 500}}}));
    assert_eq!(r.app().clock_ms, 500);
    let e = r.err(json!({"op": {"advance_clock": {"millis": 5}}, "settle": {}}));
    assert_eq!(e.code, ErrorCode::BadRequest);
}

// --- keys -------------------------------------------------------------------------------------

fn keys_since(app: &DemoApp, from: usize) -> Vec<(Key, bool, Option<String>, bool)> {
    app.log[from..]
        .iter()
        .filter_map(|(_, r)| match r {
            Received::Key(k) => Some((k.key, k.pressed, k.text.clone(), k.modifiers.shift)),
            _ => None,
        })
        .collect()
}

#[test]
fn type_text_is_one_key_per_character() {
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    let from = log_len(&r);
    r.ok(json!({"op": {"type_text": {"node": {"label": "Name"}, "text": "aB c\r\n\t!"}}}));
    let keys = keys_since(r.app(), from);
    let presses: Vec<_> = keys.iter().filter(|k| k.1).collect();
    assert_eq!(keys.len(), presses.len() * 2, "every press has its release");
    let expect = [
        (Key::Character('A'), Some("a"), false),
        (Key::Character('B'), Some("B"), true),
        (Key::Named(NamedKey::Space), Some(" "), false),
        (Key::Character('C'), Some("c"), false),
        (Key::Named(NamedKey::Enter), Some("\r"), false),
        (Key::Named(NamedKey::Tab), Some("\t"), false),
        (Key::Character('!'), Some("!"), false),
    ];
    assert_eq!(
        presses.len(),
        expect.len(),
        "\\r\\n is one Enter: {presses:?}"
    );
    for (got, want) in presses.iter().zip(expect) {
        assert_eq!((got.0, got.2.as_deref(), got.3), want);
    }
    assert!(
        keys.iter().filter(|k| !k.1).all(|k| k.2.is_none()),
        "releases carry no text"
    );
    // The Tab moved focus out of the field (it takes no tabs), so `!` landed elsewhere.
    assert_eq!(r.app().name(), "aB c");
}

#[test]
fn inject_key_default_text_is_control_char_for_five_keys_only() {
    let cases = [
        ("enter", Some("\r")),
        ("tab", Some("\t")),
        ("space", Some(" ")),
        ("backspace", Some("\u{8}")),
        ("esc", Some("\u{1b}")),
        ("a", None),
        ("F5", None),
        ("Ins", None),
        ("page_up", None),
    ];
    for (name, text) in cases {
        let mut r = rig();
        r.ok(json!({"op": "snapshot_tree"}));
        let from = log_len(&r);
        r.ok(json!({"op": {"inject_key": {"key": name}}}));
        let keys = keys_since(r.app(), from);
        assert_eq!(keys.len(), 2, "{name}: press then release");
        assert_eq!(keys[0].2.as_deref(), text, "{name}");
    }
}

#[test]
fn inject_key_rules() {
    let mut r = rig();
    let e = r.err(json!({"op": {"inject_key": {"key": "Entr"}}}));
    assert_eq!(e.code, ErrorCode::UnknownName);
    assert!(e.hint.unwrap_or_default().contains("enter"));
    let e = r.err(json!({"op": {"inject_key": {"key": "a", "phase": "up", "text": "a"}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    r.ok(json!({"op": {"inject_key": {"key": "shift", "phase": "down"}}}));
    assert_eq!(r.s.held_keys.len(), 1);
    r.ok(json!({"op": {"inject_key": {"key": "Shift", "phase": "up"}}}));
    assert!(r.s.held_keys.is_empty());
}

#[test]
fn command_is_ctrl_on_linux_and_meta_on_macos() {
    use automation_core::{Modifiers, Platform};
    let linux = Modifiers::resolve(false, false, false, false, true, Platform::Other);
    assert!(linux.ctrl && !linux.meta);
    let mac = Modifiers::resolve(false, false, false, false, true, Platform::MacOs);
    assert!(mac.meta && !mac.ctrl);
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    let from = log_len(&r);
    r.ok(json!({"op": {"inject_key": {"key": "s", "command": true}}}));
    let Some((_, Received::Key(k))) = r.app().log.get(from) else {
        panic!("no key")
    };
    assert_eq!(k.modifiers.ctrl, cfg!(not(target_os = "macos")));
    assert_eq!(k.modifiers.meta, cfg!(target_os = "macos"));
    assert!(k.modifiers.command);
}

// --- pointers -----------------------------------------------------------------------------------

#[test]
fn mouse_buttons_are_held_across_ops() {
    let mut r = rig();
    r.ok(json!({"op": {"inject_pointer": {"x": 50, "y": 160, "action": "down"}}}));
    let v = r.ok(json!({"op": "query_pointers"}));
    assert_eq!(v["pointers"][0]["buttons"], json!(["primary"]));
    assert_eq!(v["pointers"][0]["down"], true);
    let from = log_len(&r);
    r.ok(json!({"op": {"inject_pointer": {"x": 60, "y": 170, "action": "move"}}}));
    let held = r.app().log[from..].iter().find_map(|(_, e)| match e {
        Received::Pointer(p) => Some(p.buttons_held.clone()),
        _ => None,
    });
    assert_eq!(held, Some(vec![automation_core::PointerButton::Primary]));
    r.ok(json!({"op": {"inject_pointer": {"x": 60, "y": 170, "action": "up"}}}));
    let v = r.ok(json!({"op": "query_pointers"}));
    assert_eq!(v["pointers"][0]["buttons"], json!([]));
}

#[test]
fn pointer_argument_rules() {
    let mut r = rig();
    for bad in [
        json!({"x": 1, "y": 1, "pressure": 0.5}),
        json!({"x": 1, "y": 1, "pointer_id": 3}),
        json!({"x": 1}),
        json!({}),
        json!({"x": 1, "y": 1, "kind": "pen", "pressure": 2.0}),
        json!({"x": 1, "y": 1, "kind": "pen", "pressure": 1e308}),
        json!({"x": 1, "y": 1, "kind": "pen", "tilt": [200, 0]}),
    ] {
        let e = r.err(json!({"op": {"inject_pointer": bad}}));
        assert_eq!(e.code, ErrorCode::BadArgument, "{bad}");
    }
    r.ok(json!({"op": {"inject_pointer": {"x": 1, "y": 1, "kind": "pen", "pressure": 0.5, "tilt": [10, 5]}}}));
}

#[test]
fn pointer_click_on_save_announces_saved() {
    let mut r = rig();
    r.ok(json!({"op": {"inject_pointer": {"node": {"label": "Save"}}}}));
    let v = r.ok(json!({"op": "pull_announcements"}));
    assert_eq!(v["announcements"][0]["text"], "Saved");
    assert_eq!(v["announcements"][0]["politeness"], "polite");
}

#[test]
fn right_click_opens_context_menu() {
    let mut r = rig();
    r.ok(json!({"op": {"right_click": {"node": {"label": "Row 3"}}}}));
    r.ok(json!({"op": {"invoke_action": {"node": {"role": "MenuItem", "label": "Rename"}, "action": "click"}}}));
    assert!(r.ok(json!({"op": {"find_node": {"label": "Row 3 (renamed)"}}}))["node"].is_string());
}

#[test]
fn bad_touch_step_sends_nothing() {
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    for steps in [
        json!([{"phase": "down", "x": 50, "y": 160}, {"phase": "move", "x": 50, "y": 170, "node": "99999"}]),
        json!([{"phase": "down", "x": 50, "y": 160}, {"phase": "move", "contact": 1, "x": 50, "y": 170}]),
        json!([{"phase": "down", "x": 50, "y": 160}, {"phase": "down", "x": 50, "y": 170}]),
        json!([]),
    ] {
        let from = log_len(&r);
        let e = r.err(json!({"op": {"inject_touch_sequence": {"steps": steps}}}));
        assert!(
            matches!(e.code, ErrorCode::NotFound | ErrorCode::BadArgument),
            "{e:?}"
        );
        let sent = r.app().log[from..]
            .iter()
            .filter(|(_, e)| matches!(e, Received::Pointer(_)))
            .count();
        assert_eq!(sent, 0, "nothing is sent for {steps}");
    }
}

#[test]
fn touch_sequence_pans_the_list_and_reports_slots() {
    let mut r = rig();
    let v = r.ok(json!({"op": {"inject_touch_sequence": {"steps": [
        {"phase": "down", "x": 200, "y": 240},
        {"phase": "move", "x": 200, "y": 200, "advance_ms": 16},
        {"phase": "move", "x": 200, "y": 160, "advance_ms": 16},
    ]}}}));
    assert_eq!(r.app().scroll_y(), 80.0);
    let id = v["slots"]["0"].as_u64().unwrap();
    let p = r.ok(json!({"op": "query_pointers"}));
    assert_eq!(
        p["pointers"][0]["pointer_id"], id,
        "a sequence without its up leaves the finger down"
    );
    r.ok(json!({"op": {"cancel_pointer": {"pointer_id": id}}}));
    assert_eq!(r.ok(json!({"op": "query_pointers"}))["pointers"], json!([]));
    let e = r.err(json!({"op": {"cancel_pointer": {"pointer_id": id}}}));
    assert_eq!(e.code, ErrorCode::NotFound);
}

#[test]
fn pinch_lands_both_fingers_before_either_moves() {
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    let from = log_len(&r);
    r.ok(json!({"op": {"pinch": {"node": {"label": "Items"}, "scale": 2.0}}}));
    let phases: Vec<PointerPhase> = r.app().log[from..]
        .iter()
        .filter_map(|(_, e)| {
            if let Received::Pointer(p) = e {
                Some(p.phase)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        &phases[..3],
        &[PointerPhase::Down, PointerPhase::Down, PointerPhase::Move]
    );
    assert!((r.app().zoom() - 2.0).abs() < 1e-9);
}

#[test]
fn fling_spreads_samples_one_frame_apart() {
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    let from = log_len(&r);
    let v = r.ok(json!({"op": {"fling": {"node": {"label": "Items"}, "dy": -60, "over_ms": 80}}}));
    assert_eq!(v["samples"], 5);
    let stamps: Vec<u64> = r.app().log[from..]
        .iter()
        .filter_map(|(t, e)| {
            matches!(e, Received::Pointer(p) if p.phase == PointerPhase::Move).then_some(*t)
        })
        .collect();
    assert_eq!(stamps.len(), 5);
    assert!(stamps.windows(2).all(|w| w[1] - w[0] == 16), "{stamps:?}");
}

#[test]
fn long_press_holds_exactly_the_threshold() {
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    let from = log_len(&r);
    let v = r.ok(json!({"op": {"long_press": {"node": {"label": "Row 1"}}}}));
    assert_eq!(v["held_ms"], 500);
    let stamps: Vec<(u64, PointerPhase)> = r.app().log[from..]
        .iter()
        .filter_map(|(t, e)| {
            if let Received::Pointer(p) = e {
                Some((*t, p.phase))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(stamps.len(), 2);
    assert_eq!(stamps[1].0 - stamps[0].0, 500);
    let e = r.err(json!({"op": {"long_press": {"node": {"label": "Row 1"}, "kind": "mouse"}}}));
    assert_eq!(e.code, ErrorCode::Unsupported);
}

#[test]
fn drag_reorders_rows() {
    let mut r = rig();
    r.ok(json!({"op": {"drag_node": {"node": {"label": "Row 1"}, "to_node": {"label": "Row 3"}}}}));
    let snap = r.ok(json!({"op": {"snapshot_tree": {"root": {"label": "Items"}, "max_depth": 1, "format": "json"}}}));
    let labels: Vec<&str> = snap["nodes"].as_array().unwrap()[1..4]
        .iter()
        .map(|n| n["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Row 2", "Row 3", "Row 1"]);
    let e = r.err(json!({"op": {"drag_node": {"node": {"label": "Row 1"}}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    let e = r.err(json!({"op": {"drag_node": {"node": {"label": "Row 1"}, "to_x": 5}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
}

#[test]
fn scroll_wheel_pixels_and_lines_with_modifiers() {
    let mut r = rig();
    r.ok(json!({"op": {"scroll": {"node": {"label": "Items"}, "dy": 30}}}));
    assert_eq!(r.app().scroll_y(), 30.0);
    r.ok(json!({"op": {"scroll": {"node": {"label": "Items"}, "dy": 2, "lines": true, "ctrl": true}}}));
    assert_eq!(r.app().scroll_y(), 80.0);
    let last = r.app().log.iter().rev().find_map(|(_, e)| {
        if let Received::Scroll(s) = e {
            Some(s.clone())
        } else {
            None
        }
    });
    let last = last.unwrap();
    assert!(last.modifiers.ctrl);
    assert_eq!(last.unit, automation_core::input::ScrollUnit::Lines);
}

// --- announcements ---------------------------------------------------------------------------

#[test]
fn announcement_rules() {
    let mut r = rig();
    // Initial empty status: blank names are not recorded.
    assert_eq!(
        r.ok(json!({"op": "pull_announcements"}))["announcements"],
        json!([])
    );
    r.ok(json!({"op": {"invoke_action": {"node": key(ids::SAVE), "action": "click"}}}));
    // The same name again is not a change.
    r.ok(json!({"op": {"invoke_action": {"node": key(ids::SAVE), "action": "click"}}}));
    r.ok(json!({"op": {"invoke_action": {"node": key(ids::CANCEL), "action": "click"}}}));
    let v = r.ok(json!({"op": "pull_announcements"}));
    let texts: Vec<&str> = v["announcements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["Saved", "Cancelled"]);
    let seq = v["announcements"][0]["seq"].as_u64().unwrap();
    let v = r.ok(json!({"op": {"pull_announcements": {"since_seq": seq}}}));
    assert_eq!(v["announcements"].as_array().unwrap().len(), 1);
    let regions = r.ok(json!({"op": "list_live_regions"}));
    assert_eq!(
        regions["regions"][0]["node"],
        reference(&mut r, ids::STATUS)
    );
}

fn live_tree(
    label_hidden: bool,
    clipped: bool,
    role: Role,
    text: &str,
    politeness_only: bool,
) -> TreeUpdate {
    let mut root = Node::new(Role::Window);
    root.set_children(vec![NodeId(2)]);
    let mut clip = Node::new(Role::ScrollView);
    clip.set_clips_children();
    clip.set_bounds(accesskit::Rect {
        x0: 0.0,
        y0: 0.0,
        x1: 100.0,
        y1: 100.0,
    });
    clip.set_children(vec![NodeId(3)]);
    let mut live = Node::new(role);
    live.set_live(if politeness_only {
        accesskit::Live::Assertive
    } else {
        accesskit::Live::Polite
    });
    if role == Role::Label {
        live.set_value(text);
    } else {
        live.set_value(text);
        live.set_label(if role == Role::Button { text } else { "" });
    }
    if label_hidden {
        live.set_hidden();
    }
    let y = if clipped { 500.0 } else { 10.0 };
    live.set_bounds(accesskit::Rect {
        x0: 0.0,
        y0: y,
        x1: 50.0,
        y1: y + 10.0,
    });
    TreeUpdate {
        nodes: vec![(NodeId(1), root), (NodeId(2), clip), (NodeId(3), live)],
        tree: Some(TreeInfo::new(NodeId(1))),
        tree_id: accesskit::TreeId::ROOT,
        focus: NodeId(1),
    }
}

fn announced_after(first: TreeUpdate, second: TreeUpdate) -> Vec<String> {
    let mut m = automation_core::mirror::Mirror::new();
    m.apply(first).unwrap();
    let before = m.announcements.last_seq();
    m.apply(second).unwrap();
    m.announcements
        .since(Some(before))
        .into_iter()
        .map(|a| a.text)
        .collect()
}

#[test]
fn announcement_filters() {
    let label = |t: &str| live_tree(false, false, Role::Label, t, false);
    assert_eq!(announced_after(label("a"), label("b")), ["b"]);
    // Hidden: not heard.
    assert!(
        announced_after(label("a"), live_tree(true, false, Role::Label, "b", false)).is_empty()
    );
    // Scrolled out of view: not heard; scrolled back in: an arrival.
    assert!(
        announced_after(label("a"), live_tree(false, true, Role::Label, "b", false)).is_empty()
    );
    assert_eq!(
        announced_after(live_tree(false, true, Role::Label, "b", false), label("b")),
        ["b"]
    );
    // A non-Label whose text is only a value: not heard.
    let group = |t: &str| live_tree(false, false, Role::Group, t, false);
    assert!(announced_after(group("a"), group("b")).is_empty());
    // A change of politeness alone: not heard.
    assert!(
        announced_after(label("a"), live_tree(false, false, Role::Label, "a", true)).is_empty()
    );
    // Blank: not heard.
    assert!(announced_after(label("a"), label("  ")).is_empty());
}

// --- tree validation --------------------------------------------------------------------------

fn update(nodes: Vec<(u64, Vec<u64>)>, root: Option<u64>, focus: u64) -> TreeUpdate {
    TreeUpdate {
        nodes: nodes
            .into_iter()
            .map(|(id, children)| {
                let mut n = Node::new(Role::GenericContainer);
                n.set_children(children.into_iter().map(NodeId).collect::<Vec<_>>());
                (NodeId(id), n)
            })
            .collect(),
        tree: root.map(|r| TreeInfo::new(NodeId(r))),
        tree_id: accesskit::TreeId::ROOT,
        focus: NodeId(focus),
    }
}

#[test]
fn malformed_updates_are_errors_and_keep_the_last_good_tree() {
    let mut r = rig();
    let before = r.ok(json!({"op": {"snapshot_tree": {"max_nodes": 1000, "format": "json"}}}));
    let bad = [
        ("missing root", update(vec![(2, vec![])], Some(99), 2)),
        ("dangling child", update(vec![(1, vec![5555])], Some(1), 1)),
        (
            "duplicate child",
            update(vec![(1, vec![2, 2]), (2, vec![])], Some(1), 1),
        ),
        (
            "child of two parents",
            update(
                vec![(1, vec![2, 3]), (2, vec![4]), (3, vec![4]), (4, vec![])],
                Some(1),
                1,
            ),
        ),
        ("missing focus", update(vec![(1, vec![])], Some(1), 77)),
        (
            "cycle",
            update(vec![(1, vec![2]), (2, vec![3]), (3, vec![2])], Some(1), 1),
        ),
        (
            "root as child",
            update(vec![(1, vec![2]), (2, vec![1])], Some(1), 1),
        ),
        ("orphan", update(vec![(1, vec![]), (9, vec![])], Some(1), 1)),
        // Found by the property tests: the heading still belongs to the root, which is not re-sent.
        (
            "adopted child",
            update(vec![(ids::SAVE.0, vec![ids::HEADING.0])], None, 1),
        ),
    ];
    for (what, u) in bad {
        r.s.target.next_raw_update = Some(u);
        let e = r.err(json!({"op": "snapshot_tree"}));
        assert_eq!(e.code, ErrorCode::InvalidTreeUpdate, "{what}: {e:?}");
        let after = r.ok(json!({"op": {"snapshot_tree": {"max_nodes": 1000, "format": "json"}}}));
        assert_eq!(after, before, "{what}: the mirror kept the last good tree");
    }
}

#[test]
fn first_update_without_tree_info_is_an_error() {
    let mut m = automation_core::mirror::Mirror::new();
    let e = m.apply(update(vec![(1, vec![])], None, 1)).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidTreeUpdate);
    assert!(m.state().is_none());
    m.apply(update(vec![(1, vec![2]), (2, vec![])], Some(1), 2))
        .unwrap();
    // Incremental update: reparent 2 under a new node 3.
    m.apply(update(vec![(1, vec![3]), (3, vec![2])], None, 2))
        .unwrap();
    assert_eq!(m.len(), 3);
}

// --- snapshot budget ----------------------------------------------------------------------------

#[test]
fn snapshot_budget_truncates_and_says_how_to_see_the_rest() {
    let mut r = rig();
    let v = r.ok(json!({"op": {"snapshot_tree": {"max_nodes": 5, "format": "json"}}}));
    assert_eq!(v["truncated"], true);
    assert_eq!(v["nodes"].as_array().unwrap().len(), 5);
    assert!(v["note"].as_str().unwrap().contains("root"));
    let listed: Vec<&Value> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| &n["id"])
        .collect();
    for n in v["nodes"].as_array().unwrap() {
        for c in n["children"].as_array().unwrap() {
            assert!(listed.contains(&c), "no dangling child ids");
        }
    }
    let frontier = v["frontier"][0].clone();
    let sub = r.ok(json!({"op": {"snapshot_tree": {"root": frontier, "format": "json"}}}));
    assert_eq!(sub["root"], v["frontier"][0]);
    let full = r.ok(json!({"op": {"snapshot_tree": {"format": "json"}}}));
    assert_eq!(full["truncated"], false);
    let depth = r.ok(json!({"op": {"snapshot_tree": {"max_depth": 0, "format": "json"}}}));
    assert_eq!(depth["nodes"].as_array().unwrap().len(), 1);
    assert_eq!(depth["nodes"][0]["children"], json!([]));
    let e = r.err(json!({"op": {"snapshot_tree": {"max_nodes": 0}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
}

#[test]
fn text_snapshot_is_one_line_a_node_with_references_that_work() {
    let mut r = rig();
    let v = r.ok(json!({"op": "snapshot_tree"}));
    let tree = v["tree"].as_str().unwrap();
    assert!(v.get("nodes").is_none(), "the text form carries no records");
    let save = tree
        .lines()
        .find(|l| l.contains("Button \"Save\""))
        .unwrap_or_else(|| panic!("{tree}"));
    let reference = save
        .split('[')
        .nth(1)
        .and_then(|s| s.split(']').next())
        .unwrap();
    let read = r.ok(json!({"op": {"read_node": {"node": reference}}}));
    assert_eq!(read["label"], "Save");
    assert!(
        tree.lines().all(|l| l.trim_start().starts_with("- ")),
        "{tree}"
    );
    let cut = r.ok(json!({"op": {"snapshot_tree": {"max_nodes": 3}}}));
    assert_eq!(cut["truncated"], true);
    assert_eq!(cut["tree"].as_str().unwrap().lines().count(), 3);
    assert!(cut["note"].as_str().unwrap().contains("root"));
    let with_bounds = r.ok(json!({"op": {"snapshot_tree": {"bounds": true}}}));
    assert!(with_bounds["tree"].as_str().unwrap().contains(" @"));
}

// --- host and optional capabilities ----------------------------------------------------------------

#[test]
fn host_ops_and_optional_capabilities() {
    let mut r = rig();
    // `execute` alone cannot serve them; `serve` hands them to the host.
    for op in ["list_windows", "screenshot"] {
        let op = automation_core::Op::from_json(json!(op)).unwrap();
        let reply = automation_core::execute(&mut r.s, &op, &Default::default());
        assert_eq!(reply.err().map(|e| e.code), Some(ErrorCode::HostRequired));
    }
    let windows = r.ok(json!({"op": "list_windows"}));
    assert_eq!(windows["windows"][0]["title"], "main", "{windows}");
    assert_eq!(windows["windows"][0]["node"], "1", "{windows}");
    assert_eq!(
        r.err(json!({"op": "screenshot"})).code,
        ErrorCode::Unsupported
    );
    assert_eq!(
        r.err(json!({"op": {"screenshot": {"node": "4444"}}})).code,
        ErrorCode::NotFound
    );
    for op in [
        json!("layout_tree"),
        json!("get_overlays"),
        json!("get_shortcuts"),
        json!({"set_density": {"density": "touch"}}),
        json!({"inspect_node": {"node": key(ids::SAVE)}}),
    ] {
        let e = r.err(json!({"op": op}));
        assert_eq!(e.code, ErrorCode::Unsupported, "{op}");
        assert!(e.hint.is_some());
    }
}

#[test]
fn opening_a_window_goes_to_the_recording_sink() {
    let mut r = rig();
    r.ok(json!({"op": {"invoke_action": {"node": {"label": "Open window"}, "action": "click"}}}));
    assert_eq!(r.app().windows.opened.len(), 1);
    assert_eq!(r.app().windows.opened[0].title, "Second window");
    assert_eq!(r.app().opened_windows.len(), 1);
}

#[test]
fn typing_focus_tab_and_ime() {
    let mut r = rig();
    r.ok(json!({"op": {"focus_node": {"node": {"label": "Name"}}}}));
    r.ok(json!({"op": {"assert_node": {"node": {"label": "Name"}, "kind": "focused"}}}));
    r.ok(json!({"op": {"type_ime": {"preedit": "ni"}}}));
    r.ok(json!({"op": {"assert_node": {"node": {"label": "Name"}, "kind": "value_equals", "value": "ni"}}}));
    r.ok(json!({"op": {"type_ime": {"commit": "你"}}}));
    r.ok(json!({"op": {"assert_node": {"node": {"label": "Name"}, "kind": "value_equals", "value": "你"}}}));
    assert_eq!(
        r.err(json!({"op": {"type_ime": {}}})).code,
        ErrorCode::BadArgument
    );
    r.ok(json!({"op": {"inject_key": {"key": "tab"}}}));
    r.ok(json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "focused"}}}));
    r.ok(json!({"op": {"inject_key": {"key": "space"}}}));
    r.ok(json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "toggled", "flag": true}}}));
}

#[test]
fn reply_envelope_shape() {
    let ok = serde_json::to_value(Reply::Ok(json!({"a": 1}))).unwrap();
    assert_eq!(ok, json!({"status": "ok", "data": {"a": 1}}));
    let err = serde_json::to_value(Reply::error(ErrorCode::NotFound, "x")).unwrap();
    assert_eq!(
        err,
        json!({"status": "err", "code": "NOT_FOUND", "message": "x"})
    );
    // Replies are lenient on unknown fields.
    let back: Reply = serde_json::from_value(
        json!({"status": "err", "code": "NOT_FOUND", "message": "x", "new_field": 1}),
    )
    .unwrap();
    assert_eq!(back.err().unwrap().code, ErrorCode::NotFound);
}
