//! Real apps over AT-SPI, each under its own private Xvfb, session bus and accessibility bus.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::io::Read as _;

use automation_atspi::Output;
use automation_core::{ErrorCode, Reply};
use serde_json::json;
use support::{app, serial, start};

#[test]
fn zenity_entry_set_text_press_ok_prints_it_and_exits_0() {
    let _one = serial();
    if !app("zenity", "zenity") {
        return;
    }
    let mut r = start("zenity --entry --text 'Your name?'", Output::Piped);
    let v = r.ok(json!({"find_node": {"role": "TextInput"}}));
    let entry = v["node"].as_str().expect("an entry").to_string();
    let v = r.ok(json!({"set_value": {"node": entry, "value": "hello from the kit"}}));
    eprintln!("set_value: {v}");
    r.ok(json!({"assert_node": {"node": entry, "kind": "value_equals", "value": "hello from the kit"}}));
    let ok = r.find("Button", "OK");
    r.op(json!({"invoke_action": {"node": ok, "action": "press"}}));
    let status = r.launched.child.wait().unwrap();
    let mut out = String::new();
    r.launched.child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert_eq!(out, "hello from the kit\n");
    assert!(status.success(), "{status}");
    // The app is gone: the next op is a typed error, at once.
    let t = std::time::Instant::now();
    let Reply::Err(e) = r.op(json!("snapshot_tree")) else {
        panic!("snapshot of an exited app succeeded")
    };
    assert_eq!(e.code, ErrorCode::AppGone, "{}", e.message);
    assert!(t.elapsed() < std::time::Duration::from_secs(3), "{:?}", t.elapsed());
}
