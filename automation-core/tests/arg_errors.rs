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
