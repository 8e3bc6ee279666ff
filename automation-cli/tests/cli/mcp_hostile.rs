//! Hostile lines at the real server: each gets a JSON-RPC error within a bound, and the
//! server keeps serving the next request.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::mcp as common;

use common::{BOUND, Server};
use serde_json::{Value, json};

fn assert_error(s: &mut Server, id: Value, code: i64, what: &str) {
    let (r, took) = s.reply_to(&id, BOUND);
    assert_eq!(r["error"]["code"], json!(code), "{what}: {r}");
    assert!(r["error"]["message"].is_string(), "{what}: {r}");
    eprintln!("{what}: answered {code} in {took:?}");
}

#[test]
fn deep_nesting_is_a_parse_error_with_the_id() {
    let mut s = Server::start();
    for depth in [127usize, 200, 10_000] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{{"name":"find_node","arguments":{{"x":{}1{}}}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        s.send_raw(format!("{line}\n").as_bytes());
        assert_error(&mut s, json!(11), -32700, &format!("depth {depth}"));
    }
    s.assert_serving(12);
}

#[test]
fn a_lone_surrogate_is_a_parse_error_with_the_id() {
    let mut s = Server::start();
    s.send_raw(
        br#"{"jsonrpc":"2.0","id":"sur","method":"tools/call","params":{"name":"find_node","arguments":{"label":"\ud800"}}}"#,
    );
    s.send_raw(b"\n");
    assert_error(&mut s, json!("sur"), -32700, "lone surrogate");
    s.assert_serving(2);
}

#[test]
fn invalid_utf8_is_a_parse_error_with_the_id() {
    let mut s = Server::start();
    s.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/call\",\"params\":{\"name\":\"find_node\",\"arguments\":{\"label\":\"\xff\xfe\"}}}\n",
    );
    assert_error(&mut s, json!(21), -32700, "invalid UTF-8");
    // Not JSON at all, no id: answered with id null.
    s.send_raw(b"this is not json\n");
    assert_error(&mut s, Value::Null, -32700, "garbage");
    s.assert_serving(22);
}

#[test]
fn an_over_long_line_is_answered_and_skipped() {
    let mut s = Server::start();
    let cap = 16 * 1024 * 1024;
    let mut line = br#"{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"type_text","arguments":{"node":"1","text":""#.to_vec();
    line.resize(cap + 1024, b'a');
    line.extend_from_slice(b"\"}}}\n");
    s.send_raw(&line);
    let (r, took) = s.reply_to(&json!(31), std::time::Duration::from_secs(10));
    assert_eq!(r["error"]["code"], json!(-32700), "{r}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("16777216"),
        "names the cap: {r}"
    );
    eprintln!("over-long line answered in {took:?}");
    s.assert_serving(32);
}

#[test]
fn array_arguments_are_invalid_params() {
    let mut s = Server::start();
    s.send_json(&json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
        "params": {"name": "find_node", "arguments": ["Save"]}}));
    assert_error(&mut s, json!(41), -32602, "array arguments");
    s.send_json(&json!({"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": [1]}));
    assert_error(&mut s, json!(42), -32602, "array params");
    s.assert_serving(43);
}
