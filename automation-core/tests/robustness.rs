//! Robustness: no request and no tree update can make `execute` panic.
//!
//! - arbitrary JSON values and strings through `Request::from_value` / `Request::from_json`,
//!   then `execute` when they parse;
//! - structurally plausible requests (every catalog op, per-op field names, hostile values:
//!   huge / negative / fractional numbers, ids above 2^53, empty strings, nested selectors);
//! - arbitrary `accesskit::TreeUpdate`s from the app (duplicates, dangling ids, cycles, missing
//!   root / focus, NaN bounds): malformed ones are `INVALID_TREE_UPDATE` replies and the mirror
//!   keeps its last good tree;
//! - random sequences of valid ops: no panic, and every node reference in every reply is a
//!   string that survives a JavaScript (f64) JSON parse.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{HashMap, HashSet};

use accesskit::{Action, Live, Node, NodeId, Rect, Role, Toggled, TreeId, TreeInfo, TreeUpdate};
use automation_core::mirror::Mirror;
use automation_core::ops::{
    AdvanceClock, AssertKind, AssertNode, Condition, DragNode, FieldValue, Fling, InjectKey,
    InjectPointer, InjectTouchSequence, InvokeAction, KeyPhase, LongPress, NoArgs, NodeArgs, Pinch,
    PointerAction, PullAnnouncements, Scroll, SetValue, SnapshotFormat, SnapshotTree, TouchStep,
    TypeIme, TypeText, WaitForCondition,
};
use automation_core::{
    CATALOG, ErrorCode, NodeKey, NodeTarget, Op, PointerButton, PointerKind, Reply, Request,
    Selector, Session, SettleSpec, execute, execute_request,
};
use automation_testkit::fixture::{DemoApp, ids};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Map, Value, json};

/// Largest integer an f64 (a JavaScript number) holds exactly.
const F64_EXACT: u64 = 1 << 53;

fn config() -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(256),
        // No regression files in the source tree; a failure prints its minimal input.
        failure_persistence: None,
        ..Config::default()
    }
}

fn session() -> Session<DemoApp> {
    Session::new(DemoApp::new())
}

// ---------------------------------------------------------------------------------------------
// Reply checks
// ---------------------------------------------------------------------------------------------

/// Keys whose value is a node reference (or a list of them) in any reply.
const REF_KEYS: &[&str] = &["id", "node", "root", "focus"];
const REF_LIST_KEYS: &[&str] = &["children", "frontier"];

fn check_ref(path: &str, v: &Value) -> Result<(), String> {
    match v {
        Value::Null => Ok(()),
        // Replies hand out short references ("e12"), never raw ids.
        Value::String(s) => match s.parse::<automation_core::RefKey>() {
            Ok(k) if k.to_string() == *s => Ok(()),
            _ => Err(format!(
                "{path}: node reference {s:?} is not a canonical short reference like \"e12\""
            )),
        },
        other => Err(format!("{path}: node reference {other} is not a string")),
    }
}

/// Walks a reply as a JavaScript client would read it: every node reference must be a string,
/// and no number may change when parsed as an f64.
fn check_json(path: &str, v: &Value) -> Result<(), String> {
    match v {
        // Other numbers (positions, echoed durations) are the caller's own values.
        Value::Number(_) => Ok(()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_json(&format!("{path}[{i}]"), item)?;
            }
            Ok(())
        }
        Value::Object(map) => {
            for (k, item) in map {
                let p = format!("{path}.{k}");
                // A pointer record's `id` is a pointer id (a small counter), not a node.
                let pointer_record = map.contains_key("primary") && map.contains_key("buttons");
                if k == "id" && pointer_record {
                    if item.as_u64().is_none_or(|n| n > F64_EXACT) {
                        return Err(format!("{p}: pointer id {item} is not a small integer"));
                    }
                } else if k.ends_with("pointer_id")
                    || k == "seq"
                    || k == "last_seq"
                    || k == "version"
                {
                    // Counters: numbers, but never beyond what an f64 holds exactly.
                    if !item.is_null() && item.as_u64().is_none_or(|n| n > F64_EXACT) {
                        return Err(format!("{p}: counter {item} does not survive an f64 parse"));
                    }
                } else if REF_KEYS.contains(&k.as_str()) && !item.is_object() {
                    check_ref(&p, item)?;
                } else if REF_KEYS.contains(&k.as_str()) {
                    return Err(format!("{p}: node reference is an object: {item}"));
                }
                if REF_LIST_KEYS.contains(&k.as_str()) {
                    let Some(list) = item.as_array() else {
                        return Err(format!(
                            "{p}: expected a list of node references, got {item}"
                        ));
                    };
                    for (i, r) in list.iter().enumerate() {
                        check_ref(&format!("{p}[{i}]"), r)?;
                    }
                }
                check_json(&p, item)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Serialises the reply to text, parses it back, checks it; panics (test failure) on a bad id.
fn check_reply(reply: &Reply) -> Value {
    let text = serde_json::to_string(reply).expect("a reply always serialises");
    let parsed: Value = serde_json::from_str(&text).expect("a reply is valid JSON");
    if let Err(e) = check_json("$", &parsed) {
        panic!("reply fails the f64 round trip: {e}\nreply: {text}");
    }
    // The reply envelope parses back (lenient on the way in).
    let back: Reply = serde_json::from_str(&text).expect("reply parses back");
    assert_eq!(back.is_ok(), reply.is_ok());
    parsed
}

fn run_request(s: &mut Session<DemoApp>, req: &Request) -> Reply {
    let reply = execute_request(s, req);
    check_reply(&reply);
    reply
}

fn run_op(s: &mut Session<DemoApp>, op: &Op) -> Reply {
    let reply = execute(s, op, &SettleSpec::default());
    check_reply(&reply);
    reply
}

// ---------------------------------------------------------------------------------------------
// Arbitrary JSON
// ---------------------------------------------------------------------------------------------

/// Numbers that break naive code: extremes, ids above 2^53, negatives, fractions.
fn nasty_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(1)),
        Just(json!(16)),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(i64::MAX)),
        Just(json!(F64_EXACT)),
        Just(json!(F64_EXACT + 1)),
        Just(json!(ids::SAVE.0)),
        Just(json!(ids::NAME_FIELD.0)),
        Just(json!(1e308)),
        Just(json!(-1e308)),
        Just(json!(f64::MIN_POSITIVE)),
        Just(json!(0.5)),
        Just(json!(-0.0)),
        Just(json!(1e-300)),
        Just(json!(u32::MAX)),
        Just(json!(20001)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)), // NaN and infinities become null
        (-500.0..900.0f64).prop_map(|n| json!(n)),
    ]
}

const OP_NAMES_EXTRA: &[&str] = &["", "nope", "snapshot", "Find_Node", "find_node ", "click"];

fn op_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(CATALOG.iter().map(|s| s.name).collect::<Vec<_>>()).prop_map(str::to_string),
        1 => prop::sample::select(OP_NAMES_EXTRA).prop_map(str::to_string),
    ]
}

/// Every field name any op, nested struct or the envelope uses, plus near misses.
const FIELD_NAMES: &[&str] = &[
    "op",
    "settle",
    "window_id",
    "node",
    "x",
    "y",
    "action",
    "button",
    "kind",
    "pointer_id",
    "pressure",
    "tilt",
    "ctrl",
    "shift",
    "alt",
    "meta",
    "command",
    "key",
    "text",
    "phase",
    "dx",
    "dy",
    "at",
    "lines",
    "value",
    "flag",
    "role",
    "label",
    "label_contains",
    "author_id",
    "nth",
    "max_depth",
    "max_nodes",
    "root",
    "include_debug",
    "since_seq",
    "preedit",
    "commit",
    "to_node",
    "to_x",
    "to_y",
    "steps",
    "contact",
    "advance_ms",
    "scale",
    "start_distance",
    "over_ms",
    "density",
    "condition",
    "millis",
    "expected",
    "version",
    "clock_millis",
    "max_anim_frames",
    "layout_after",
    "settle_timeout_ms",
    "lable",
    "Node",
    "",
    "id",
];

/// Strings an op might see: names, labels, keys, junk.
const STRINGS: &[&str] = &[
    "",
    " ",
    "Save",
    "Cancel",
    "Name",
    "Row 3",
    "Items",
    "Demo",
    "Automation demo",
    "Saved",
    "Nope",
    "click",
    "press",
    "focus",
    "expand",
    "collapse",
    "increment",
    "show_context_menu",
    "context_menu",
    "scroll_down",
    "set_value",
    "Click",
    "double_click",
    "down",
    "up",
    "move",
    "cancel",
    "press",
    "mouse",
    "touch",
    "pen",
    "primary",
    "secondary",
    "middle",
    "exists",
    "focused",
    "toggled",
    "role_equals",
    "label_contains",
    "value_equals",
    "document_text_equals",
    "disabled",
    "node_exists",
    "node_value",
    "node_gone",
    "at_version_at_least",
    "compact",
    "comfortable",
    "enter",
    "tab",
    "space",
    "backspace",
    "escape",
    "a",
    "A",
    "f5",
    "arrowup",
    "ctrl+a",
    "Button",
    "button",
    "ListItem",
    "CheckBox",
    "TextInput",
    "Label",
    "Window",
    "\r\n",
    "\t",
    "é",
    "日本語",
    "🙂",
    "\u{0}",
    "1",
    "18446744073709551615",
    "18446744073709551616",
    "9007199254740993",
    "-1",
    "0x10",
    "1e3",
    " 12 ",
    "15228925633216577297",
];

fn plausible_string() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(STRINGS).prop_map(str::to_string),
        1 => ".{0,16}",
        1 => "[a-z_]{0,12}",
    ]
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        nasty_number(),
        plausible_string().prop_map(Value::String),
    ]
}

fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(FIELD_NAMES).prop_map(str::to_string),
        2 => op_name(),
        1 => "[a-z_]{0,10}",
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((field_name(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A request-shaped object with arbitrary contents.
fn arb_request_value() -> impl Strategy<Value = Value> {
    let op = prop_oneof![
        op_name().prop_map(Value::String),
        (op_name(), arb_json()).prop_map(|(n, a)| json!({ n: a })),
        arb_json(),
    ];
    (
        op,
        prop::option::of(arb_json()),
        prop::option::of(arb_json()),
        prop::option::of((field_name(), arb_json())),
    )
        .prop_map(|(op, settle, window, extra)| {
            let mut m = Map::new();
            m.insert("op".into(), op);
            if let Some(s) = settle {
                m.insert("settle".into(), s);
            }
            if let Some(w) = window {
                m.insert("window_id".into(), w);
            }
            if let Some((k, v)) = extra {
                m.insert(k, v);
            }
            Value::Object(m)
        })
}

// ---------------------------------------------------------------------------------------------
// Plausible requests: per-op fields, hostile values
// ---------------------------------------------------------------------------------------------

fn fields_of(op: &str) -> &'static [&'static str] {
    match op {
        "snapshot_tree" => &["max_depth", "root", "max_nodes"],
        "read_node" | "inspect_node" | "focus_node" | "expand" | "collapse" | "right_click"
        | "screenshot" => &["node"],
        "find_node" => &[
            "role",
            "label",
            "label_contains",
            "value",
            "author_id",
            "nth",
        ],
        "assert_node" => &["node", "kind", "value", "flag"],
        "layout_tree" => &["max_depth", "include_debug"],
        "pull_announcements" => &["since_seq"],
        "invoke_action" => &["node", "action"],
        "set_value" => &["node", "value"],
        "scroll" => &[
            "node", "dx", "dy", "at", "lines", "ctrl", "shift", "alt", "meta", "command",
        ],
        "inject_pointer" => &[
            "x",
            "y",
            "node",
            "action",
            "button",
            "kind",
            "pointer_id",
            "pressure",
            "tilt",
            "ctrl",
            "shift",
            "alt",
            "meta",
            "command",
        ],
        "inject_key" => &[
            "key", "text", "phase", "ctrl", "shift", "alt", "meta", "command",
        ],
        "type_text" => &["node", "text"],
        "type_ime" => &["node", "preedit", "commit"],
        "drag_node" => &["node", "to_node", "to_x", "to_y"],
        "inject_touch_sequence" => &["steps"],
        "pinch" => &["node", "scale", "start_distance", "over_ms"],
        "fling" => &["node", "dx", "dy", "over_ms"],
        "long_press" => &["node", "x", "y", "kind"],
        "cancel_pointer" => &["pointer_id"],
        "set_density" => &["density"],
        "wait_for_condition" => &["condition"],
        "advance_clock" => &["millis"],
        _ => &[],
    }
}

/// Node ids the fixture has (and some it never had), as the wire may carry them.
fn id_strings() -> Vec<String> {
    [
        ids::ROOT,
        ids::HEADING,
        ids::HEADING_RUN,
        ids::SAVE,
        ids::CANCEL,
        ids::NAME_LABEL,
        ids::NAME_FIELD,
        ids::REMEMBER,
        ids::SELECT_ALL,
        ids::SCROLLER,
        ids::STATUS,
        ids::TOOLTIP,
        ids::ANIMATE,
        ids::DETAILS,
        ids::DETAILS_BODY,
        ids::SLIDER,
        ids::MENU_RENAME,
        NodeId(ids::ROW_BASE),
        NodeId(ids::ROW_BASE + 3),
        NodeId(ids::ROW_BASE + 19),
        NodeId(999_999),
        NodeId(u64::MAX),
    ]
    .iter()
    .map(|id| id.0.to_string())
    .collect()
}

fn selector_value() -> impl Strategy<Value = Value> {
    let field = prop::sample::select(
        &[
            "role",
            "label",
            "label_contains",
            "value",
            "author_id",
            "nth",
        ][..],
    );
    let val = prop_oneof![
        4 => plausible_string().prop_map(Value::String),
        1 => nasty_number(),
        1 => Just(json!({"label": "Save"})), // nested selector: refused
        1 => Just(Value::Null),
    ];
    prop::collection::vec((field, val), 0..4)
        .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
}

fn node_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => prop::sample::select(id_strings()).prop_map(Value::String),
        1 => any::<u64>().prop_map(|n| Value::String(n.to_string())),
        1 => nasty_number(),
        3 => prop::sample::select(vec![
            json!({"role": "Button", "label": "Save"}),
            json!({"label": "Save"}),
            json!({"role": "button"}),
            json!({"label": "Name"}),
            json!({"role": "TextInput"}),
            json!({"role": "ListItem", "nth": 2}),
            json!({"role": "ListItem", "nth": 99}),
            json!({"label_contains": "row"}),
            json!({"label": "Volume"}),
            json!({"label": "Details"}),
            json!({"role": "Label", "value": "Saved"}),
            json!({"label": "Sav"}),
            json!({}),
        ]),
        2 => selector_value(),
        1 => json_leaf(),
    ]
}

/// Simulated milliseconds. Bounded: see the report on huge `over_ms` / wait budgets (they loop
/// for as long as asked, which is not a panic but is not testable either).
fn millis_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => (0u64..2_000).prop_map(|n| json!(n)),
        1 => Just(json!(-1)),
        1 => Just(json!(0.5)),
        1 => Just(json!("16")),
    ]
}

fn step_value() -> impl Strategy<Value = Value> {
    let phase = prop::sample::select(&["down", "move", "up", "cancel", "press", ""][..]);
    (
        0u32..3,
        phase,
        nasty_number(),
        nasty_number(),
        prop::option::of(node_value()),
        prop::option::of(millis_value()),
        any::<bool>(),
    )
        .prop_map(|(contact, phase, x, y, node, adv, junk)| {
            let mut m = Map::new();
            m.insert("contact".into(), json!(contact));
            m.insert("phase".into(), json!(phase));
            m.insert("x".into(), x);
            m.insert("y".into(), y);
            if let Some(n) = node {
                m.insert("node".into(), n);
            }
            if let Some(a) = adv {
                m.insert("advance_ms".into(), a);
            }
            if junk {
                m.insert("pressure".into(), json!(0.5));
            }
            Value::Object(m)
        })
}

/// Plausible touch coordinates, so many sequences pass validation and reach the app.
fn small_step() -> impl Strategy<Value = Value> {
    (
        0u32..3,
        prop::sample::select(&["down", "move", "up", "cancel"][..]),
        0.0..400.0f64,
        0.0..400.0f64,
        prop::option::of(0u64..200),
    )
        .prop_map(|(c, p, x, y, adv)| {
            let mut v = json!({"contact": c, "phase": p, "x": x, "y": y});
            if let Some(a) = adv {
                v["advance_ms"] = json!(a);
            }
            v
        })
}

fn condition_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        (
            prop::option::of(plausible_string()),
            prop::option::of(plausible_string())
        )
            .prop_map(|(r, l)| {
                let mut v = json!({"kind": "node_exists"});
                if let Some(r) = r {
                    v["role"] = json!(r);
                }
                if let Some(l) = l {
                    v["label"] = json!(l);
                }
                v
            }),
        (node_value(), plausible_string())
            .prop_map(|(n, e)| json!({"kind": "node_value", "node": n, "expected": e})),
        node_value().prop_map(|n| json!({"kind": "node_gone", "node": n})),
        nasty_number().prop_map(|v| json!({"kind": "at_version_at_least", "version": v})),
        arb_json(),
    ]
}

fn value_for(field: &str) -> BoxedStrategy<Value> {
    let junk = json_leaf();
    match field {
        "node" | "root" | "to_node" => node_value().boxed(),
        "x" | "y" | "dx" | "dy" | "to_x" | "to_y" | "scale" | "start_distance" | "pressure" => {
            prop_oneof![
                3 => (-100.0..500.0f64).prop_map(|n| json!(n)),
                2 => nasty_number(),
                1 => junk,
            ]
            .boxed()
        }
        "max_depth" | "max_nodes" | "nth" | "since_seq" | "pointer_id" | "version" => prop_oneof![
            3 => (0u64..50).prop_map(|n| json!(n)),
            2 => nasty_number(),
            1 => junk,
        ]
        .boxed(),
        "over_ms" | "millis" | "advance_ms" => millis_value().boxed(),
        "at" | "tilt" => prop_oneof![
            (nasty_number(), nasty_number()).prop_map(|(a, b)| json!([a, b])),
            prop::collection::vec(nasty_number(), 0..4).prop_map(Value::Array),
            junk,
        ]
        .boxed(),
        "steps" => prop_oneof![
            2 => prop::collection::vec(step_value(), 0..6).prop_map(Value::Array),
            3 => prop::collection::vec(small_step(), 1..8).prop_map(Value::Array),
            1 => junk,
        ]
        .boxed(),
        "condition" => condition_value().boxed(),
        "ctrl" | "shift" | "alt" | "meta" | "command" | "lines" | "include_debug" | "flag" => {
            prop_oneof![
                6 => any::<bool>().prop_map(Value::Bool),
                1 => junk,
            ]
            .boxed()
        }
        "value" => prop_oneof![
            3 => plausible_string().prop_map(Value::String),
            2 => nasty_number(),
            1 => junk,
        ]
        .boxed(),
        _ => prop_oneof![
            5 => plausible_string().prop_map(Value::String),
            1 => junk,
        ]
        .boxed(),
    }
}

/// A settle spec: small values mostly (huge wait budgets loop for as long as asked), hostile
/// ones sometimes.
fn settle_value() -> impl Strategy<Value = Value> {
    let small = (0u64..300, 0u64..100, any::<bool>(), 0u64..2_000);
    prop_oneof![
        4 => small.prop_map(|(c, f, l, t)| json!({"clock_millis": c, "max_anim_frames": f, "layout_after": l, "settle_timeout_ms": t})),
        1 => Just(json!({})),
        1 => Just(json!({"clock_milis": 5})),
        1 => Just(json!({"max_anim_frames": -1})),
        1 => Just(json!({"max_anim_frames": u64::MAX})),
        1 => Just(json!(null)),
        1 => Just(json!("fast")),
    ]
}

/// `(op name, args)` with args built from that op's fields (sometimes a foreign field).
fn plausible_op() -> impl Strategy<Value = (String, Value)> {
    prop::sample::select(CATALOG.iter().map(|s| s.name).collect::<Vec<_>>()).prop_flat_map(|name| {
        let fields = fields_of(name);
        let entries: BoxedStrategy<Vec<(String, Value)>> = if fields.is_empty() {
            Just(Vec::new()).boxed()
        } else {
            prop::collection::vec(
                prop::sample::select(fields.to_vec())
                    .prop_flat_map(|f| value_for(f).prop_map(move |v| (f.to_string(), v))),
                0..=fields.len().min(5),
            )
            .boxed()
        };
        let foreign = prop::option::weighted(0.1, (field_name(), json_leaf()));
        (Just(name.to_string()), entries, foreign).prop_map(|(name, entries, foreign)| {
            let mut args: Map<String, Value> = entries.into_iter().collect();
            if let Some((k, v)) = foreign {
                args.insert(k, v);
            }
            (name, Value::Object(args))
        })
    })
}

fn plausible_request() -> impl Strategy<Value = Value> {
    (
        plausible_op(),
        prop::option::of(settle_value()),
        prop::option::weighted(0.1, node_value()),
        any::<bool>(),
    )
        .prop_map(|((name, args), settle, window, bare)| {
            let op = if bare && args.as_object().is_some_and(Map::is_empty) {
                json!(name)
            } else {
                json!({ name: args })
            };
            let mut m = Map::new();
            m.insert("op".into(), op);
            if let Some(s) = settle {
                m.insert("settle".into(), s);
            }
            if let Some(w) = window {
                m.insert("window_id".into(), w);
            }
            Value::Object(m)
        })
}

/// Parses and, when it parses, executes against a fresh fixture; returns the parsed request.
fn parse_and_run(value: Value) -> Option<(Request, Reply)> {
    let req = Request::from_value(value).ok()?;
    let mut s = session();
    // Something to aim at: a first op puts the demo's tree in the mirror (and a second one
    // leaves a pointer down so pointer_id / cancel_pointer find something live).
    run_op(
        &mut s,
        &Op::SnapshotTree(SnapshotTree {
            max_depth: None,
            root: None,
            max_nodes: None,
            format: Some(SnapshotFormat::Json),
            bounds: false,
            include_hidden: false,
        }),
    );
    let reply = run_request(&mut s, &req);
    // Whatever happened, the session still answers.
    let after = run_op(
        &mut s,
        &Op::SnapshotTree(SnapshotTree {
            max_depth: None,
            root: None,
            max_nodes: Some(20_000),
            format: Some(SnapshotFormat::Json),
            bounds: false,
            include_hidden: false,
        }),
    );
    assert!(after.is_ok(), "snapshot after {req:?} failed: {after:?}");
    Some((req, reply))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_strings_never_panic(text in prop_oneof![".{0,64}", "\\{\"op\": ?\"[a-z_]{0,16}\"\\}", "\\{\"op\":\\{\"[a-z_]{1,20}\":\\{.{0,40}\\}\\}\\}"]) {
        if let Ok(req) = Request::from_json(&text) {
            let mut s = session();
            run_request(&mut s, &req);
        }
    }

    #[test]
    fn arbitrary_json_never_panics(value in prop_oneof![arb_json(), arb_request_value()]) {
        // Text and value entry points agree.
        let text = serde_json::to_string(&value).unwrap();
        let by_text = Request::from_json(&text);
        let by_value = Request::from_value(value.clone());
        prop_assert_eq!(by_text.is_ok(), by_value.is_ok());
        if let Err(e) = &by_value {
            prop_assert_eq!(e.code, ErrorCode::BadRequest);
            prop_assert!(!e.message.is_empty());
        }
        parse_and_run(value);
    }

    #[test]
    fn plausible_requests_never_panic(value in plausible_request()) {
        if let Some((req, reply)) = parse_and_run(value.clone()) {
            // A parsed request re-serialises to one that parses the same.
            let again = Request::from_value(serde_json::to_value(&req).unwrap());
            prop_assert_eq!(again.as_ref().ok(), Some(&req), "{}", value);
            if let Reply::Err(e) = &reply {
                prop_assert!(!e.message.is_empty());
                prop_assert!(e.code != ErrorCode::InvalidTreeUpdate, "{:?}", e);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Arbitrary tree updates
// ---------------------------------------------------------------------------------------------

/// Ids of raw updates: a small range that overlaps the demo's small ids (1..=42), so
/// incremental updates hit existing nodes too.
fn raw_id() -> impl Strategy<Value = NodeId> {
    prop_oneof![
        8 => (1u64..16).prop_map(NodeId),
        1 => Just(ids::SAVE),
        1 => Just(NodeId(ids::ROW_BASE)),
        1 => (30u64..43).prop_map(NodeId),
    ]
}

fn raw_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => -50.0..500.0f64,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(-0.0),
        1 => Just(1e300),
    ]
}

const ROLES: &[Role] = &[
    Role::Window,
    Role::Button,
    Role::Label,
    Role::TextInput,
    Role::CheckBox,
    Role::ListItem,
    Role::ScrollView,
    Role::GenericContainer,
    Role::TextRun,
    Role::Tooltip,
    Role::Heading,
    Role::Slider,
    Role::Unknown,
];

#[derive(Debug, Clone)]
struct RawNode {
    id: NodeId,
    role: Role,
    label: Option<String>,
    value: Option<String>,
    children: Vec<NodeId>,
    labelled_by: Vec<NodeId>,
    bounds: Option<[f64; 4]>,
    transform: Option<[f64; 6]>,
    live: bool,
    hidden: bool,
    toggled: Option<u8>,
    clips: bool,
    scroll_y: Option<f64>,
    click: bool,
}

impl RawNode {
    fn node(&self) -> Node {
        let mut n = Node::new(self.role);
        if let Some(l) = &self.label {
            n.set_label(l.clone());
        }
        if let Some(v) = &self.value {
            n.set_value(v.clone());
        }
        n.set_children(self.children.clone());
        if !self.labelled_by.is_empty() {
            n.set_labelled_by(self.labelled_by.clone());
        }
        if let Some([x, y, w, h]) = self.bounds {
            n.set_bounds(Rect {
                x0: x,
                y0: y,
                x1: x + w,
                y1: y + h,
            });
        }
        if let Some(t) = self.transform {
            n.set_transform(accesskit::Affine::new(t));
        }
        if self.live {
            n.set_live(Live::Polite);
        }
        if self.hidden {
            n.set_hidden();
        }
        match self.toggled {
            Some(0) => n.set_toggled(Toggled::False),
            Some(1) => n.set_toggled(Toggled::True),
            Some(_) => n.set_toggled(Toggled::Mixed),
            None => {}
        }
        if self.clips {
            n.set_clips_children();
        }
        if let Some(y) = self.scroll_y {
            n.set_scroll_y(y);
        }
        if self.click {
            n.add_action(Action::Click);
            n.add_action(Action::Focus);
        }
        n
    }
}

fn raw_node() -> impl Strategy<Value = RawNode> {
    let labels = prop::option::of(prop::sample::select(
        &["", "Save", "Name", "Row 1", "A", "B", "Status", "Saved"][..],
    ));
    (
        raw_id(),
        prop::sample::select(ROLES),
        labels.clone(),
        labels,
        prop::collection::vec(raw_id(), 0..4),
        prop::collection::vec(raw_id(), 0..2),
        prop::option::of([raw_f64(), raw_f64(), raw_f64(), raw_f64()]),
        prop::option::weighted(
            0.2,
            [
                raw_f64(),
                raw_f64(),
                raw_f64(),
                raw_f64(),
                raw_f64(),
                raw_f64(),
            ],
        ),
        (
            any::<bool>(),
            prop::bool::weighted(0.1),
            prop::option::of(0u8..3),
            any::<bool>(),
        ),
        (prop::option::weighted(0.2, raw_f64()), any::<bool>()),
    )
        .prop_map(
            |(
                id,
                role,
                label,
                value,
                children,
                labelled_by,
                bounds,
                transform,
                (live, hidden, toggled, clips),
                (scroll_y, click),
            )| RawNode {
                id,
                role,
                label: label.map(str::to_string),
                value: value.map(str::to_string),
                children,
                labelled_by,
                bounds,
                transform,
                live,
                hidden,
                toggled,
                clips,
                scroll_y,
                click,
            },
        )
}

#[derive(Debug, Clone)]
struct RawUpdate {
    nodes: Vec<RawNode>,
    root: Option<NodeId>,
    focus: NodeId,
}

impl RawUpdate {
    fn update(&self) -> TreeUpdate {
        TreeUpdate {
            nodes: self.nodes.iter().map(|n| (n.id, n.node())).collect(),
            tree: self.root.map(TreeInfo::new),
            tree_id: TreeId::ROOT,
            focus: self.focus,
        }
    }

    /// Whether this is a well-formed *first* update (an oracle independent of core's
    /// validator): tree info, unique ids, root present, every child present and listed once,
    /// the root nobody's child, every node and the focus reachable from the root.
    fn valid_as_first(&self) -> bool {
        let Some(root) = self.root else { return false };
        let mut by_id = HashMap::new();
        for n in &self.nodes {
            if by_id.insert(n.id, n).is_some() {
                return false;
            }
        }
        if !by_id.contains_key(&root) {
            return false;
        }
        let mut parent_count: HashMap<NodeId, usize> = HashMap::new();
        for n in &self.nodes {
            for c in &n.children {
                if !by_id.contains_key(c) || *c == root {
                    return false;
                }
                *parent_count.entry(*c).or_default() += 1;
            }
        }
        if parent_count.values().any(|&k| k > 1) {
            return false;
        }
        let mut reached = HashSet::from([root]);
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            for c in &by_id[&id].children {
                if reached.insert(*c) {
                    stack.push(*c);
                }
            }
        }
        // Text runs must carry their text.
        if self
            .nodes
            .iter()
            .any(|n| n.role == Role::TextRun && n.value.is_none())
        {
            return false;
        }
        // accesskit_consumer unwraps every `labelled_by` target when it computes a label.
        let labels_ok = self
            .nodes
            .iter()
            .all(|n| n.labelled_by.iter().all(|t| reached.contains(t)));
        reached.len() == by_id.len() && reached.contains(&self.focus) && labels_ok
    }
}

fn raw_update() -> impl Strategy<Value = RawUpdate> {
    (
        prop::collection::vec(raw_node(), 0..10),
        prop::option::weighted(0.85, raw_id()),
        raw_id(),
        prop::bool::weighted(0.4),
    )
        .prop_map(|(mut nodes, root, focus, make_tree)| {
            // Often shape it into a proper tree so valid updates are common too: the first
            // node is the root, each later node hangs from an earlier one.
            if make_tree && !nodes.is_empty() {
                let mut seen = HashSet::new();
                nodes.retain(|n| seen.insert(n.id));
                for n in &mut nodes {
                    n.children.clear();
                }
                for i in 1..nodes.len() {
                    let parent = (i * 7 + 3) % i;
                    let id = nodes[i].id;
                    nodes[parent].children.push(id);
                }
                let root = nodes[0].id;
                let focus = nodes[nodes.len() / 2].id;
                return RawUpdate {
                    nodes,
                    root: Some(root),
                    focus,
                };
            }
            RawUpdate { nodes, root, focus }
        })
}

fn full_snapshot(s: &mut Session<DemoApp>) -> Reply {
    run_op(
        s,
        &Op::SnapshotTree(SnapshotTree {
            max_depth: None,
            root: None,
            max_nodes: Some(20_000),
            format: Some(SnapshotFormat::Json),
            bounds: false,
            include_hidden: false,
        }),
    )
}

/// `update`, arriving as the demo's next frame, is refused as `INVALID_TREE_UPDATE` and leaves
/// the tree as it was; every op still serves after it.
fn assert_update_refused(what: &str, update: TreeUpdate) {
    let mut s = session();
    let before = full_snapshot(&mut s);
    s.target.next_raw_update = Some(update);
    let reply = full_snapshot(&mut s);
    assert_eq!(
        reply.err().map(|e| e.code),
        Some(ErrorCode::InvalidTreeUpdate),
        "{what}: {reply:?}"
    );
    assert_eq!(full_snapshot(&mut s), before, "{what}: tree changed");
    poke(&mut s);
}

/// A few ops that read and act on whatever tree there is.
fn poke(s: &mut Session<DemoApp>) {
    let sel = |role: Option<&str>, label: Option<&str>| {
        NodeTarget::Select(Selector {
            role: role.map(str::to_string),
            label: label.map(str::to_string),
            ..Selector::default()
        })
    };
    let ops = [
        Op::FindNode(Selector {
            label: Some("Save".into()),
            ..Selector::default()
        }),
        Op::FindNode(Selector {
            label_contains: Some("a".into()),
            ..Selector::default()
        }),
        Op::ReadNode(NodeArgs {
            node: NodeTarget::Id(NodeKey(1)),
        }),
        Op::ReadNode(NodeArgs {
            node: sel(None, Some("Name")),
        }),
        Op::ListLiveRegions(NoArgs {}),
        Op::PullAnnouncements(PullAnnouncements { since_seq: None }),
        Op::SnapshotTree(SnapshotTree {
            max_depth: Some(1),
            root: Some(NodeTarget::Id(NodeKey(3))),
            max_nodes: Some(3),
            format: Some(SnapshotFormat::Json),
            bounds: false,
            include_hidden: false,
        }),
        Op::InvokeAction(InvokeAction {
            node: sel(Some("Button"), None),
            action: "click".into(),
        }),
        Op::InjectPointer(InjectPointer {
            x: None,
            y: None,
            node: Some(sel(None, Some("Save"))),
            action: PointerAction::Click,
            button: PointerButton::Primary,
            kind: PointerKind::Mouse,
            pointer_id: None,
            pressure: None,
            tilt: None,
            ctrl: false,
            shift: false,
            alt: false,
            meta: false,
            command: false,
        }),
        Op::AssertNode(AssertNode {
            node: NodeTarget::Id(NodeKey(2)),
            kind: AssertKind::Exists,
            value: None,
            flag: None,
        }),
        Op::Settle(NoArgs {}),
    ];
    for op in &ops {
        run_op(s, op);
    }
}

proptest! {
    #![proptest_config(config())]

    /// A raw update as the app's very first tree: ok exactly when it is well formed.
    #[test]
    fn first_tree_update_is_validated(raw in raw_update()) {
        let valid = raw.valid_as_first();
        // Straight into a mirror: accepted exactly when well formed, and then fully readable.
        let mut mirror = Mirror::new();
        match mirror.apply(raw.update()) {
            Ok(()) => {
                prop_assert!(valid, "accepted a malformed first update");
                prop_assert_eq!(mirror.len(), raw.nodes.len());
                for n in &raw.nodes {
                    let node = mirror.node(n.id).expect("every node of the update is in the mirror");
                    let _ = (node.label(), node.value(), node.bounding_box(), mirror.nodes_labelled("Save"));
                }
            }
            Err(e) => {
                prop_assert!(!valid, "refused a well-formed first update: {:?}", e);
                prop_assert_eq!(e.code, ErrorCode::InvalidTreeUpdate, "{:?}", e);
                prop_assert!(mirror.state().is_none() && mirror.is_empty());
            }
        }
        // Through execute: the raw update comes first (then the demo's own tree, when it was
        // accepted); the reply is the refusal, or the demo's tree.
        let mut s = session();
        s.target.next_raw_update = Some(raw.update());
        let reply = full_snapshot(&mut s);
        match &reply {
            Reply::Ok(_) | Reply::Image(_) => prop_assert!(valid),
            // A valid raw tree can still make the demo's next update unappliable (e.g. the
            // demo's root is a child there): that one is refused instead.
            Reply::Err(e) => prop_assert_eq!(e.code, ErrorCode::InvalidTreeUpdate, "{:?}", e),
        }
        poke(&mut s);
    }

    /// A raw update on top of the demo's tree: applied, or refused with the last good tree kept.
    #[test]
    fn incremental_tree_update_keeps_last_good_tree(raw in raw_update(), then_ops in 0usize..3) {
        let mut s = session();
        let before = full_snapshot(&mut s);
        prop_assert!(before.is_ok());
        let version = s.mirror.version();
        s.target.next_raw_update = Some(raw.update());
        let reply = full_snapshot(&mut s);
        match &reply {
            Reply::Ok(_) | Reply::Image(_) => {}
            Reply::Err(e) => {
                prop_assert_eq!(e.code, ErrorCode::InvalidTreeUpdate, "{:?}", e);
                prop_assert_eq!(s.mirror.version(), version);
                let again = full_snapshot(&mut s);
                prop_assert_eq!(&again, &before, "the mirror changed after a refused update");
            }
        }
        for _ in 0..then_ops {
            poke(&mut s);
        }
    }
}

/// The bare minimum of the tree-update contract, pinned without randomness.
#[test]
fn known_malformed_updates_are_refused_and_tree_kept() {
    let node = |role: Role, children: &[u64]| {
        let mut n = Node::new(role);
        n.set_children(children.iter().map(|c| NodeId(*c)).collect::<Vec<_>>());
        n
    };
    let cases: Vec<(&str, TreeUpdate)> = vec![
        (
            "missing root",
            TreeUpdate {
                nodes: vec![(NodeId(500), node(Role::Window, &[]))],
                tree: Some(TreeInfo::new(NodeId(501))),
                tree_id: TreeId::ROOT,
                focus: NodeId(500),
            },
        ),
        (
            "dangling child",
            TreeUpdate {
                nodes: vec![(NodeId(500), node(Role::Window, &[777]))],
                tree: Some(TreeInfo::new(NodeId(500))),
                tree_id: TreeId::ROOT,
                focus: NodeId(500),
            },
        ),
        (
            "duplicate child",
            TreeUpdate {
                nodes: vec![
                    (NodeId(500), node(Role::Window, &[501, 501])),
                    (NodeId(501), node(Role::Button, &[])),
                ],
                tree: Some(TreeInfo::new(NodeId(500))),
                tree_id: TreeId::ROOT,
                focus: NodeId(500),
            },
        ),
        (
            "missing focus",
            TreeUpdate {
                nodes: vec![(NodeId(500), node(Role::Window, &[]))],
                tree: Some(TreeInfo::new(NodeId(500))),
                tree_id: TreeId::ROOT,
                focus: NodeId(9),
            },
        ),
        (
            "cycle",
            TreeUpdate {
                nodes: vec![
                    (NodeId(500), node(Role::Window, &[])),
                    (NodeId(501), node(Role::Group, &[502])),
                    (NodeId(502), node(Role::Group, &[501])),
                ],
                tree: Some(TreeInfo::new(NodeId(500))),
                tree_id: TreeId::ROOT,
                focus: NodeId(500),
            },
        ),
        (
            "root as child",
            TreeUpdate {
                nodes: vec![
                    (NodeId(500), node(Role::Window, &[501])),
                    (NodeId(501), node(Role::Group, &[500])),
                ],
                tree: Some(TreeInfo::new(NodeId(500))),
                tree_id: TreeId::ROOT,
                focus: NodeId(500),
            },
        ),
        (
            "same id twice",
            TreeUpdate {
                nodes: vec![
                    (NodeId(500), node(Role::Window, &[])),
                    (NodeId(500), node(Role::Window, &[])),
                ],
                tree: Some(TreeInfo::new(NodeId(500))),
                tree_id: TreeId::ROOT,
                focus: NodeId(500),
            },
        ),
        (
            "existing child re-parented twice",
            TreeUpdate {
                nodes: vec![
                    (ids::HEADING, node(Role::Heading, &[ids::SCROLLER.0])),
                    (ids::STATUS, node(Role::Label, &[ids::SCROLLER.0])),
                ],
                tree: None,
                tree_id: TreeId::ROOT,
                focus: ids::ROOT,
            },
        ),
    ];
    for (what, update) in cases {
        assert_update_refused(what, update);
    }
    // A label reference to a node the tree will not have (accesskit_consumer unwraps it when
    // computing the label): in the update itself, and by removing the labelling node.
    let mut field = Node::new(Role::TextInput);
    field.set_labelled_by(vec![NodeId(4242)]);
    let mut root = Node::new(Role::Window);
    root.set_children(vec![ids::HEADING, NodeId(600)]);
    let dangling_label = TreeUpdate {
        nodes: vec![(ids::ROOT, root), (NodeId(600), field)],
        tree: None,
        tree_id: TreeId::ROOT,
        focus: ids::ROOT,
    };
    let mut root = Node::new(Role::Window);
    root.set_label("Demo");
    root.set_children(vec![ids::HEADING, ids::NAME_FIELD]); // drops NAME_LABEL, which labels NAME_FIELD
    let removed_label = TreeUpdate {
        nodes: vec![(ids::ROOT, root)],
        tree: None,
        tree_id: TreeId::ROOT,
        focus: ids::ROOT,
    };
    for (what, update) in [
        ("dangling labelled_by", dangling_label),
        ("labelling node removed", removed_label),
    ] {
        assert_update_refused(what, update);
    }
    // The same removal is fine when the field goes too, or stops naming the label.
    let mut root = Node::new(Role::Window);
    root.set_children(vec![ids::HEADING]);
    let mut s = session();
    full_snapshot(&mut s);
    s.target.next_raw_update = Some(TreeUpdate {
        nodes: vec![(ids::ROOT, root)],
        tree: None,
        tree_id: TreeId::ROOT,
        focus: ids::ROOT,
    });
    assert!(full_snapshot(&mut s).is_ok());
    let mut root = Node::new(Role::Window);
    root.set_children(vec![ids::HEADING, ids::NAME_FIELD]);
    let mut field = Node::new(Role::TextInput);
    field.set_label("Name");
    let mut s = session();
    full_snapshot(&mut s);
    s.target.next_raw_update = Some(TreeUpdate {
        nodes: vec![(ids::ROOT, root), (ids::NAME_FIELD, field)],
        tree: None,
        tree_id: TreeId::ROOT,
        focus: ids::ROOT,
    });
    assert!(full_snapshot(&mut s).is_ok());
    poke(&mut s);

    // Root changes that promote a current node: the old parent still listing it (a cycle), and
    // the old parent listed after the new root (accesskit_consumer would drop the new root).
    let mut save = Node::new(Role::Window);
    save.set_children(vec![ids::ROOT]);
    let cycle = TreeUpdate {
        nodes: vec![(ids::SAVE, save)],
        tree: Some(TreeInfo::new(ids::SAVE)),
        tree_id: TreeId::ROOT,
        focus: ids::SAVE,
    };
    assert_update_refused("reroot cycle", cycle);
    // Found by incremental_tree_update_keeps_last_good_tree: a bare root change to a current
    // child (it keeps its parent link to the removed old root).
    assert_update_refused(
        "bare reroot",
        TreeUpdate {
            nodes: vec![],
            tree: Some(TreeInfo::new(ids::SAVE)),
            tree_id: TreeId::ROOT,
            focus: ids::SAVE,
        },
    );
    // The same with the new root in the update is a legal re-root.
    let mut s = session();
    full_snapshot(&mut s);
    s.target.next_raw_update = Some(TreeUpdate {
        nodes: vec![(ids::SAVE, Node::new(Role::Window))],
        tree: Some(TreeInfo::new(ids::SAVE)),
        tree_id: TreeId::ROOT,
        focus: ids::SAVE,
    });
    let reply = run_op(&mut s, &Op::ListLiveRegions(NoArgs {}));
    assert!(reply.is_ok(), "{reply:?}");
    assert_eq!(s.mirror.len(), 1);
    // Found by first_tree_update_is_validated: {S -> [1]} then the demo's tree rooted at 1
    // (which lists S as a child, after 1).
    let mut mirror = Mirror::new();
    let mut old_root = Node::new(Role::Window);
    old_root.set_children(vec![ids::ROOT]);
    mirror
        .apply(TreeUpdate {
            nodes: vec![(ids::SAVE, old_root), (ids::ROOT, Node::new(Role::Window))],
            tree: Some(TreeInfo::new(ids::SAVE)),
            tree_id: TreeId::ROOT,
            focus: ids::ROOT,
        })
        .unwrap();
    let mut new_root = Node::new(Role::Window);
    new_root.set_children(vec![ids::SAVE]);
    let reroot = |order_ok: bool| {
        let mut nodes = vec![
            (ids::ROOT, new_root.clone()),
            (ids::SAVE, Node::new(Role::Button)),
        ];
        if order_ok {
            nodes.reverse();
        }
        TreeUpdate {
            nodes,
            tree: Some(TreeInfo::new(ids::ROOT)),
            tree_id: TreeId::ROOT,
            focus: ids::ROOT,
        }
    };
    assert_eq!(
        mirror.apply(reroot(false)).err().map(|e| e.code),
        Some(ErrorCode::InvalidTreeUpdate)
    );
    assert_eq!(
        mirror.state().map(|s| s.root().locate().0),
        Some(ids::SAVE),
        "refused update left the tree as it was"
    );
    mirror
        .apply(reroot(true))
        .expect("old parent first: accepted");
    assert_eq!(mirror.state().map(|s| s.root().locate().0), Some(ids::ROOT));
    assert_eq!(
        mirror
            .node(ids::SAVE)
            .and_then(|n| n.parent())
            .map(|p| p.locate().0),
        Some(ids::ROOT)
    );

    // And as the very first update: no tree info at all.
    let mut s = session();
    s.target.next_raw_update = Some(TreeUpdate {
        nodes: vec![],
        tree: None,
        tree_id: TreeId::ROOT,
        focus: NodeId(1),
    });
    let reply = full_snapshot(&mut s);
    assert_eq!(
        reply.err().map(|e| e.code),
        Some(ErrorCode::InvalidTreeUpdate)
    );
}

// ---------------------------------------------------------------------------------------------
// Sequences of valid ops
// ---------------------------------------------------------------------------------------------

fn target_strategy() -> impl Strategy<Value = NodeTarget> {
    let ids_: Vec<NodeId> = vec![
        ids::SAVE,
        ids::CANCEL,
        ids::NAME_FIELD,
        ids::REMEMBER,
        ids::SELECT_ALL,
        ids::SCROLLER,
        ids::DETAILS,
        ids::SLIDER,
        ids::ANIMATE,
        ids::OPEN_WINDOW,
        ids::HEADING,
        ids::TOOLTIP,
        ids::MENU_RENAME,
        NodeId(ids::ROW_BASE + 2),
        NodeId(ids::ROW_BASE + 15),
    ];
    const LABELS: &[&str] = &[
        "Save",
        "Cancel",
        "Name",
        "Remember me",
        "Select all",
        "Details",
        "Volume",
        "Animate",
        "Row 3",
        "Rename",
        "Delete",
    ];
    prop_oneof![
        prop::sample::select(ids_).prop_map(NodeTarget::from),
        prop::sample::select(LABELS).prop_map(|l| NodeTarget::Select(Selector {
            label: Some(l.into()),
            ..Selector::default()
        })),
        (0usize..25).prop_map(|n| NodeTarget::Select(Selector {
            role: Some("ListItem".into()),
            nth: Some(n),
            ..Selector::default()
        })),
        Just(NodeTarget::Select(Selector {
            role: Some("Button".into()),
            ..Selector::default()
        })),
    ]
}

fn valid_op() -> impl Strategy<Value = Op> {
    let t = target_strategy;
    let pointer = (
        prop::option::of(t()),
        prop::option::of((0.0..400.0f64, 0.0..450.0f64)),
        prop::sample::select(vec![
            PointerAction::Click,
            PointerAction::DoubleClick,
            PointerAction::Down,
            PointerAction::Up,
            PointerAction::Move,
        ]),
        prop::sample::select(vec![
            PointerKind::Mouse,
            PointerKind::Touch,
            PointerKind::Pen,
        ]),
        prop::sample::select(vec![PointerButton::Primary, PointerButton::Secondary]),
        prop::option::weighted(0.3, 1u64..6),
    )
        .prop_map(|(node, xy, action, kind, button, pointer_id)| {
            let (x, y) = match (xy, &node) {
                (Some((x, y)), None) => (Some(x), Some(y)),
                (Some((x, y)), Some(_)) => (Some(x / 10.0), Some(y / 20.0)),
                (None, _) => (None, None),
            };
            let node = if x.is_none() && node.is_none() {
                Some(NodeTarget::from(ids::SAVE))
            } else {
                node
            };
            Op::InjectPointer(InjectPointer {
                x,
                y,
                node,
                action,
                button: if kind == PointerKind::Mouse {
                    button
                } else {
                    PointerButton::Primary
                },
                kind,
                pointer_id: if kind == PointerKind::Mouse {
                    None
                } else {
                    pointer_id
                },
                pressure: None,
                tilt: None,
                ctrl: false,
                shift: false,
                alt: false,
                meta: false,
                command: false,
            })
        });
    let steps = prop::collection::vec(
        (
            0u32..2,
            prop::sample::select(vec!["down", "move", "up", "cancel"]),
            0.0..400.0f64,
            100.0..300.0f64,
            prop::option::of(0u64..100),
        ),
        1..8,
    )
    .prop_map(|steps| {
        let steps = steps
            .into_iter()
            .map(|(contact, phase, x, y, advance_ms)| {
                serde_json::from_value::<TouchStep>(
                    json!({"contact": contact, "phase": phase, "x": x, "y": y, "advance_ms": advance_ms}),
                )
                .expect("valid touch step")
            })
            .collect();
        Op::InjectTouchSequence(InjectTouchSequence { steps })
    });
    let condition = prop_oneof![
        prop::sample::select(vec!["Save the document", "Saved", "Row 1", "Nope"]).prop_map(|l| {
            Condition::NodeExists(Selector {
                label: Some(l.into()),
                ..Selector::default()
            })
        }),
        Just(Condition::NodeValue {
            node: NodeTarget::from(ids::NAME_FIELD),
            expected: "ab".into()
        }),
        prop::sample::select(vec![
            ids::TOOLTIP,
            ids::MENU,
            NodeId(123_456_789_012_345_678)
        ])
        .prop_map(|id| Condition::NodeGone { node: id.into() }),
        (0u64..40).prop_map(|version| Condition::AtVersionAtLeast { version }),
    ];
    prop_oneof![
        t().prop_map(|node| Op::InvokeAction(InvokeAction {
            node,
            action: "click".into()
        })),
        (
            t(),
            prop::sample::select(vec![
                "focus",
                "expand",
                "collapse",
                "increment",
                "show_context_menu",
                "scroll_down",
                "press"
            ])
        )
            .prop_map(|(node, a)| Op::InvokeAction(InvokeAction {
                node,
                action: a.into()
            })),
        (prop::option::of(t()), "[a-zA-Z \\n\\t]{0,8}|\\PC{0,4}")
            .prop_map(|(node, text)| Op::TypeText(TypeText { node, text })),
        (t(), -200.0..200.0f64, -200.0..200.0f64, any::<bool>()).prop_map(
            |(node, dx, dy, lines)| Op::Scroll(Scroll {
                node,
                dx,
                dy,
                at: None,
                lines,
                ctrl: false,
                shift: false,
                alt: false,
                meta: false,
                command: false,
            })
        ),
        pointer,
        steps,
        (t(), 0.2..4.0f64, prop::option::of(16u64..400)).prop_map(|(node, scale, over_ms)| {
            Op::Pinch(Pinch {
                node,
                scale,
                start_distance: None,
                over_ms,
            })
        }),
        (
            t(),
            -300.0..300.0f64,
            -300.0..300.0f64,
            prop::option::of(16u64..300)
        )
            .prop_map(|(node, dx, dy, over_ms)| Op::Fling(Fling {
                node,
                dx,
                dy,
                over_ms
            })),
        (
            t(),
            prop::sample::select(vec![
                PointerKind::Touch,
                PointerKind::Pen,
                PointerKind::Mouse
            ])
        )
            .prop_map(|(node, kind)| Op::LongPress(LongPress {
                node,
                x: None,
                y: None,
                kind
            })),
        (t(), t()).prop_map(|(node, to)| Op::DragNode(DragNode {
            node,
            to_node: Some(to),
            to_x: None,
            to_y: None
        })),
        (t(), "[a-z]{0,5}").prop_map(|(node, v)| Op::SetValue(SetValue {
            node,
            value: FieldValue::Text(v)
        })),
        (t(), -10.0..120.0f64).prop_map(|(node, v)| Op::SetValue(SetValue {
            node,
            value: FieldValue::Number(v)
        })),
        (
            prop::sample::select(vec![
                "enter",
                "tab",
                "escape",
                "backspace",
                "space",
                "a",
                "Z",
                "arrowdown"
            ]),
            prop::sample::select(vec![KeyPhase::Press, KeyPhase::Down, KeyPhase::Up])
        )
            .prop_map(|(key, phase)| Op::InjectKey(InjectKey {
                key: key.into(),
                text: None,
                phase,
                ctrl: false,
                shift: false,
                alt: false,
                meta: false,
                command: false
            })),
        (
            prop::option::of("[a-z]{0,3}"),
            prop::option::of("[a-z]{1,3}")
        )
            .prop_map(|(preedit, commit)| Op::TypeIme(TypeIme {
                node: Some(NodeTarget::from(ids::NAME_FIELD)),
                preedit,
                commit
            })),
        Just(Op::Settle(NoArgs {})),
        condition.prop_map(|condition| Op::WaitForCondition(WaitForCondition { condition })),
        (0u64..500).prop_map(|millis| Op::AdvanceClock(AdvanceClock { millis })),
        t().prop_map(|node| Op::RightClick(NodeArgs { node })),
        t().prop_map(|node| Op::FocusNode(NodeArgs { node })),
        (1u64..6).prop_map(
            |pointer_id| Op::CancelPointer(automation_core::ops::CancelPointer { pointer_id })
        ),
        Just(Op::QueryPointers(NoArgs {})),
        (prop::option::of(0u32..3), prop::option::of(1usize..30)).prop_map(
            |(max_depth, max_nodes)| Op::SnapshotTree(SnapshotTree {
                max_depth,
                root: None,
                max_nodes,
                ..SnapshotTree::default()
            })
        ),
        t().prop_map(|node| Op::ReadNode(NodeArgs { node })),
        Just(Op::PullAnnouncements(PullAnnouncements { since_seq: None })),
        Just(Op::ListLiveRegions(NoArgs {})),
    ]
}

fn settle_strategy() -> impl Strategy<Value = SettleSpec> {
    (0u64..300, 0u32..80, any::<bool>(), 50u64..2_000).prop_map(
        |(clock_millis, max_anim_frames, layout_after, settle_timeout_ms)| SettleSpec {
            clock_millis,
            max_anim_frames,
            layout_after,
            settle_timeout_ms,
            ..SettleSpec::default()
        },
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn op_sequences_never_panic_and_ids_survive_f64(seq in prop::collection::vec((valid_op(), prop::option::of(settle_strategy())), 1..=20)) {
        let mut s = session();
        let mut clock = 0;
        for (op, settle) in &seq {
            let settle = settle.unwrap_or_default();
            let reply = execute(&mut s, op, &settle);
            let parsed = check_reply(&reply);
            // Every op passes its own request parser after a round trip through the wire.
            let wire = serde_json::to_value(op).unwrap();
            prop_assert_eq!(&Op::from_json(wire).unwrap(), op);
            if let Reply::Err(e) = &reply {
                prop_assert!(e.code != ErrorCode::InvalidTreeUpdate, "the fixture's own tree was refused: {:?}", e);
                prop_assert!(!e.message.is_empty());
            } else {
                prop_assert!(parsed["status"] == "ok");
            }
            // Time never runs backwards.
            prop_assert!(s.target.clock_ms >= clock);
            clock = s.target.clock_ms;
        }
        // The ids a snapshot hands out resolve, as strings, to the nodes they name.
        let snap = full_snapshot(&mut s);
        let data = snap.data().expect("snapshot ok").clone();
        for node in data["nodes"].as_array().unwrap() {
            let id = node["id"].as_str().unwrap().to_string();
            let req = Request::from_value(json!({"op": {"read_node": {"node": id}}})).unwrap();
            let read = run_request(&mut s, &req);
            prop_assert_eq!(read.data().map(|d| d["id"].clone()), Some(json!(id)));
        }
    }
}

/// Extreme time values: the settle deadline, the wait backstop, the simulated clock.
#[test]
fn huge_time_values_do_not_panic() {
    let max = u64::MAX;
    let requests = [
        json!({"op": "settle", "settle": {"settle_timeout_ms": max}}),
        json!({"op": "settle", "settle": {"clock_millis": max}}),
        json!({"op": "settle", "settle": {"clock_millis": max, "max_anim_frames": 3}}),
        json!({"op": {"wait_for_condition": {"condition": {"kind": "node_gone", "node": "77"}}}, "settle": {"settle_timeout_ms": max}}),
        json!({"op": {"advance_clock": {"millis": max}}}),
        json!({"op": {"inject_touch_sequence": {"steps": [{"phase": "down", "x": 20, "y": 160, "advance_ms": max}, {"phase": "up", "x": 20, "y": 160, "advance_ms": max}]}}}),
        json!({"op": {"snapshot_tree": {"max_depth": u32::MAX, "max_nodes": 20000}}}),
        json!({"op": {"pull_announcements": {"since_seq": max}}}),
    ];
    let mut failures = Vec::new();
    // An app that never stops animating, given a clock near its end: the settle report's
    // `clock_millis + 16 × frames` must not overflow.
    let forever = std::panic::catch_unwind(|| {
        let mut s = session();
        s.target.animate_forever = true;
        let req = Request::from_value(
            json!({"op": "settle", "settle": {"clock_millis": max, "max_anim_frames": 4}}),
        )
        .unwrap();
        run_request(&mut s, &req)
    });
    if forever.is_err() {
        failures.push("animate_forever + clock_millis u64::MAX".to_string());
    }
    for (i, value) in requests.iter().enumerate() {
        let req = Request::from_value(value.clone()).expect("parses");
        let outcome = std::panic::catch_unwind(|| {
            let mut s = session();
            // Twice: a clock already near the end must not overflow either.
            run_request(&mut s, &req);
            run_request(&mut s, &req);
            let click = Request::from_value(json!({"op": {"invoke_action": {"node": {"label": "Animate"}, "action": "click"}}, "settle": {"max_anim_frames": 2}})).unwrap();
            run_request(&mut s, &click);
            run_request(&mut s, &req)
        });
        if outcome.is_err() {
            failures.push(format!("#{i}: {value}"));
        }
    }
    assert!(failures.is_empty(), "panicked on:\n{}", failures.join("\n"));
}
