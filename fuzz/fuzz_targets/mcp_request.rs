//! MCP tool calls and core requests.
//! mode 0: `Request::from_json` on arbitrary text.
//! mode 1: `tools::parse(name, arguments)` with `arguments` parsed from arbitrary bytes.
//! mode 2+: `tools::parse` with a structured argument object built from the ops' vocabulary.
//! Oracles: no panic; an accepted request serialises and parses back to itself.
#![no_main]

#[path = "common.rs"]
mod common;

use arbitrary::Unstructured;
use automation_session::tools::parse;
use automation_core::{CATALOG, Request};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn round_trip(r: &Request) {
    let text = serde_json::to_string(r).expect("a request serialises");
    let back = match Request::from_json(&text) {
        Ok(b) => b,
        Err(e) => panic!("{r:?} serialises to {text}, which is refused: {e:?}"),
    };
    assert_eq!(&back, r, "request does not round-trip through {text}");
    let _ = r.op.args_json();
}

fuzz_target!(|data: &[u8]| {
    let [mode, pick, rest @ ..] = data else { return };
    let name = if *pick == 255 { "no_such_tool" } else { CATALOG[*pick as usize % CATALOG.len()].name };
    match mode % 3 {
        0 => {
            if let Ok(text) = std::str::from_utf8(rest) {
                if let Ok(r) = Request::from_json(text) {
                    round_trip(&r);
                }
            }
        }
        1 => {
            let args = match serde_json::from_slice::<Value>(rest) {
                Ok(Value::Object(m)) => Some(m),
                Ok(Value::Null) | Err(_) => None,
                Ok(_) => return,
            };
            if let Ok(call) = parse(name, args.unwrap_or_default()) {
                round_trip(&call.request);
            }
        }
        _ => {
            let mut u = Unstructured::new(rest);
            let Ok(mut args) = common::op_args(&mut u, name) else { return };
            if u.ratio(1, 4).unwrap_or(false) {
                if let Ok(v) = common::value(&mut u, 2) {
                    args.insert("settle".into(), v);
                }
            }
            let text = serde_json::to_string(&args).expect("args serialise");
            if let Ok(call) = parse(name, args) {
                round_trip(&call.request);
                // The same request through the wire form.
                let req = format!(r#"{{"op": {{"{name}": {text}}}}}"#);
                let _ = Request::from_json(&req);
            }
        }
    }
});
