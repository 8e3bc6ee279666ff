//! The bridge with automation-core's Request/Reply over a real Unix socket.
// Tests fail loudly by design: helpers outside `#[test]` may unwrap, expect and panic too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(all(unix, feature = "bridge"))]

use std::thread;
use std::time::Duration;

use automation_core::{ErrorCode, Reply, Request, SettleSpec};
use automation_wire::client::BridgeClient;
use automation_wire::core_bridge::{CoreBridgeClient, CoreBridgeServer};
use automation_wire::server::ServerOptions;
use serde_json::{Value, json};

fn start(tweak: impl FnOnce(&mut ServerOptions)) -> (CoreBridgeServer, tempfile::TempDir) {
    let base = tempfile::Builder::new()
        .prefix("awc")
        .tempdir_in("/tmp")
        .unwrap();
    let mut opts = ServerOptions::new("core-test");
    opts.base_dir = Some(base.path().to_path_buf());
    tweak(&mut opts);
    (CoreBridgeServer::start(opts).unwrap(), base)
}

fn code(r: &Reply) -> ErrorCode {
    r.err().map(|e| e.code).unwrap()
}

#[test]
fn core_request_round_trip_with_settle_clamped() {
    let (server, _b) = start(|_| {});
    let (addr, token) = (server.address().to_string(), server.token().to_string());
    let t = thread::spawn(move || {
        let mut c = CoreBridgeClient::connect(&addr, &token).unwrap();
        let snap = c.request(&Request::from_json(r#"{"op": "snapshot_tree"}"#).unwrap());
        let big = Request::from_json(
            r#"{"op": {"invoke_action": {"node": 1, "action": "click"}}, "settle": {"max_anim_frames": 100000, "settle_timeout_ms": 999999, "clock_millis": 7}}"#,
        )
        .unwrap();
        let clicked = c.request(&big);
        (snap, clicked)
    });
    let p = server.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(p.request().op.name(), "snapshot_tree");
    assert_eq!(p.request().settle, None, "no settle is not invented");
    p.respond(Reply::Ok(json!({"root": 1})));
    let p = server.recv_timeout(Duration::from_secs(10)).unwrap();
    let s: SettleSpec = p.request().settle.unwrap();
    assert_eq!(
        (s.max_anim_frames, s.settle_timeout_ms, s.clock_millis),
        (120, 2000, 7)
    );
    p.respond(Reply::Ok(json!({"clicked": true})));
    let (snap, clicked) = t.join().unwrap();
    assert_eq!(snap.data(), Some(&json!({"root": 1})));
    assert!(clicked.is_ok());
}

#[test]
fn strict_request_errors_are_bad_request_naming_the_field_and_connection_stays() {
    let (server, _b) = start(|_| {});
    let (addr, token) = (server.address().to_string(), server.token().to_string());
    let t = thread::spawn(move || {
        let mut c = BridgeClient::connect(&addr, &token).unwrap();
        let typo: Value = serde_json::from_str(
            &c.request_raw(br#"{"op": "snapshot_tree", "setle": {}}"#)
                .unwrap(),
        )
        .unwrap();
        let garbage: Value = serde_json::from_str(&c.request_raw(b"\x00garbage").unwrap()).unwrap();
        let ok: Value =
            serde_json::from_str(&c.request_raw(br#"{"op": "list_windows"}"#).unwrap()).unwrap();
        (typo, garbage, ok)
    });
    let p = server.recv_timeout(Duration::from_secs(10)).unwrap();
    p.respond(Reply::Ok(json!([])));
    let (typo, garbage, ok) = t.join().unwrap();
    assert_eq!(typo["status"], "err");
    assert_eq!(typo["code"], "BAD_REQUEST");
    assert!(
        typo["message"].as_str().unwrap().contains("setle"),
        "{typo}"
    );
    assert_eq!(garbage["code"], "BAD_REQUEST");
    assert_eq!(ok, json!({"status": "ok", "data": []}));
}

#[test]
fn timeout_dropped_and_client_io_are_typed_core_codes() {
    let (server, _b) = start(|o| o.reply_timeout = Duration::from_millis(200));
    let (addr, token) = (server.address().to_string(), server.token().to_string());
    let t = thread::spawn(move || {
        let mut c = CoreBridgeClient::connect(&addr, &token).unwrap();
        let req = Request::from_json(r#"{"op": "list_windows"}"#).unwrap();
        (c.request(&req), c.request(&req))
    });
    let _silent = server.recv_timeout(Duration::from_secs(10)).unwrap();
    thread::sleep(Duration::from_millis(400));
    drop(server.recv_timeout(Duration::from_secs(10)).unwrap());
    let (timed_out, dropped) = t.join().unwrap();
    assert_eq!(code(&timed_out), ErrorCode::BridgeTimeout);
    assert_eq!(code(&dropped), ErrorCode::BridgeDropped);
    let err = CoreBridgeClient::connect("/nonexistent/automation/s", "t").unwrap_err();
    assert_eq!(err.error_code(), ErrorCode::BridgeIo);
    assert_eq!(code(&err.to_reply()), ErrorCode::BridgeIo);
}
