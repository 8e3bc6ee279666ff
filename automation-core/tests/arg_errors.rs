//! Argument mistakes a new user makes, answered with the field, the value given, what is
//! expected, and a hint saying what to write (parsed with `Request::from_value`, run on the
//! testkit's demo app where the check happens at execution).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_core::{ErrorCode, OpError, Reply, Request, Session, execute_request};
use automation_testkit::fixture::DemoApp;
use serde_json::{Value, json};

fn refused(args: Value) -> OpError {
    let req = json!({"op": {"assert_node": args}});
    match Request::from_value(req.clone()) {
        Err(e) => e,
        Ok(r) => match execute_request(&mut Session::new(DemoApp::new()), &r) {
            Reply::Err(e) => e,
            Reply::Ok(data) => panic!("{req} was accepted: {data}"),
            Reply::Image(_) => panic!("{req} was accepted: an image"),
        },
    }
}

fn has(e: &OpError, in_message: &[&str], in_hint: &str) {
    for want in in_message {
        assert!(
            e.message.contains(want),
            "message {:?} lacks {want:?}",
            e.message
        );
    }
    let hint = e.hint.as_deref().unwrap_or_default();
    assert!(
        hint.contains(in_hint),
        "hint {hint:?} lacks {in_hint:?} ({})",
        e.message
    );
}

const CHECKBOX: &str = "Remember me";

fn node() -> Value {
    json!({"role": "CheckBox", "label": CHECKBOX})
}

#[test]
fn assert_node_toggled_true_names_the_flag_field() {
    // `{"toggled": true}`: the state as a field.
    let e = refused(json!({"node": node(), "toggled": true}));
    assert_eq!(e.code, ErrorCode::BadRequest);
    has(
        &e,
        &["`toggled`", "true", "`flag`"],
        r#""kind": "toggled", "flag": true"#,
    );
    let e = refused(json!({"node": node(), "kind": "toggled", "toggled": false}));
    has(&e, &["`toggled`"], r#""flag": false"#);

    // The bool in `value` (serde alone said "invalid type: boolean `true`, expected a string").
    let e = refused(json!({"node": node(), "kind": "toggled", "value": true}));
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(!e.message.contains("invalid type"), "{}", e.message);
    has(
        &e,
        &["`value`", "boolean true", "string"],
        r#""flag": true in place of "value": true"#,
    );
    let e = refused(json!({"node": node(), "kind": "value_equals", "value": false}));
    has(&e, &["`value`", "boolean false"], r#""value": "false""#);

    // A quoted bool in `flag`, or something else there.
    let e = refused(json!({"node": node(), "kind": "expanded", "flag": "true"}));
    has(
        &e,
        &["`flag`", "a string \"true\"", "true or false"],
        r#""flag": true (a JSON boolean"#,
    );
    let e = refused(json!({"node": node(), "kind": "expanded", "flag": 1}));
    has(
        &e,
        &["`flag`", "a number 1"],
        r#""flag": true or "flag": false"#,
    );

    // A quoted bool in `value` for a state kind: refused when run, with the same fix.
    let e = refused(json!({"node": node(), "kind": "toggled", "value": "true"}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    has(
        &e,
        &["toggled", "`value`", "\"true\""],
        r#""flag": true in place of "value": "true""#,
    );

    // What the hints say to write is accepted.
    let ok = Request::from_value(
        json!({"op": {"assert_node": {"node": node(), "kind": "toggled", "flag": false}}}),
    )
    .unwrap();
    let reply = execute_request(&mut Session::new(DemoApp::new()), &ok);
    assert!(reply.is_ok(), "{reply:?}");
}

/// The data of a request that must succeed on the demo.
fn served(req: Value) -> Value {
    let r = Request::from_value(req.clone()).unwrap_or_else(|e| panic!("{req}: {e:?}"));
    match execute_request(&mut Session::new(DemoApp::new()), &r) {
        Reply::Ok(data) => data,
        Reply::Image(_) => panic!("{req}: an image, not data"),
        Reply::Err(e) => panic!("{req}: {e:?}"),
    }
}

#[test]
fn selector_name_is_an_alias_of_label_everywhere() {
    // The same node by `label` and by `name`, in every place a selector goes.
    for key in ["label", "name"] {
        let found = served(json!({"op": {"find_node": {"role": "CheckBox", key: CHECKBOX}}}));
        assert_eq!(found["count"], 1, "{key}: {found}");
        let contains = if key == "label" {
            "label_contains"
        } else {
            "name_contains"
        };
        let found = served(json!({"op": {"find_node": {contains: "remember"}}}));
        assert_eq!(found["count"], 1, "{contains}: {found}");
        served(json!({"op": {"assert_node": {
            "node": {"role": "CheckBox", key: CHECKBOX}, "kind": "toggled", "flag": false
        }}}));
        served(json!({"op": {"wait_for_condition": {
            "condition": {"kind": "node_exists", key: CHECKBOX}
        }}}));
        // Serialised (replies, records) it is `label`, whatever was written.
        let sel: automation_core::Selector =
            serde_json::from_value(json!({ key: CHECKBOX })).unwrap();
        assert_eq!(
            serde_json::to_value(&sel).unwrap(),
            json!({"label": CHECKBOX})
        );
    }
}

#[test]
fn selector_with_both_name_and_label_is_refused() {
    for (args, names) in [
        (
            json!({"name": "Save", "label": "Save"}),
            ["`label`", "`name`"],
        ),
        (
            json!({"name_contains": "sa", "label_contains": "sa"}),
            ["`label_contains`", "`name_contains`"],
        ),
    ] {
        for op in [
            json!({"find_node": args.clone()}),
            json!({"read_node": {"node": args.clone()}}),
        ] {
            let e = Request::from_value(json!({ "op": op })).unwrap_err();
            assert_eq!(e.code, ErrorCode::BadRequest, "{op}");
            for n in names {
                assert!(e.message.contains(n), "{op}: {}", e.message);
            }
            assert!(e.message.contains("give one"), "{op}: {}", e.message);
        }
    }
}

/// The schemas (what MCP clients are sent) keep the one canonical spelling.
#[cfg(feature = "schemars")]
#[test]
fn selector_schemas_say_label_not_name() {
    let schema = automation_core::Op::args_schema("find_node").unwrap();
    let props = schema["properties"].as_object().unwrap();
    assert!(
        props.contains_key("label") && props.contains_key("label_contains"),
        "{schema}"
    );
    assert!(
        !props.contains_key("name") && !props.contains_key("name_contains"),
        "{schema}"
    );
    assert_eq!(schema["additionalProperties"], false, "{schema}");
}
