//! Op sequences against the real egui demo target (not core's fixture): up to 8 ops, each
//! picked from `CATALOG` with an argument object from the ops' vocabulary, run with
//! `automation_egui::serve` on a fresh `Session::new(demo_target())`.
//! Oracles: no panic; every reply serialises; the session still answers `snapshot_tree`.
//! Input starting with `[` is a hand-written JSON array of requests (see `from_json`).
//!
//! Optional filter for the two known weaknesses reported before this target existed (set
//! FUZZ_EGUI_FILTER=1 if they come back and dominate a run): skip inputs with any number of
//! magnitude > 1e15 (egui panicked on NaN compares for coordinates like 1e39). Strings are at
//! most 300 characters unless FUZZ_LONG_STRINGS is set (10 000-character type_text takes
//! about a second per input, which starves the fuzzer). On the tree of 2026-12-01 neither
//! reproduces (1e39 in every pointer, scroll, gesture and set_value op answers cleanly), so
//! the filter is off by default.
#![no_main]

#[path = "common.rs"]
mod common;

use arbitrary::{Result, Unstructured};
use automation_core::{CATALOG, Reply, Request, Session};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

fn huge(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_some_and(|f| f.abs() > 1e15),
        Value::Array(a) => a.iter().any(huge),
        Value::Object(m) => m.values().any(huge),
        _ => false,
    }
}

fn filtered() -> bool {
    std::env::var_os("FUZZ_EGUI_FILTER").is_some()
}

fn ops(u: &mut Unstructured<'_>) -> Result<Vec<Request>> {
    let n = u.int_in_range(1..=8)?;
    let mut out = Vec::new();
    for _ in 0..n {
        let spec = u.choose(CATALOG)?;
        // Screenshots need the `screenshot` feature: they answer UNSUPPORTED here, cheaply.
        let args: Map<String, Value> = common::op_args(u, spec.name)?;
        let mut req = Map::new();
        req.insert("op".into(), json!({ spec.name: args }));
        if spec.accepts_settle && u.ratio(1, 4)? {
            req.insert("settle".into(), common::value(u, 1)?);
        }
        let req = Value::Object(req);
        if filtered() && huge(&req) {
            continue;
        }
        if let Ok(r) = Request::from_value(req) {
            out.push(r);
        }
    }
    Ok(out)
}

fn reply_json(reply: &Reply) -> String {
    serde_json::to_string(reply).expect("every reply serialises")
}

/// A reproducer can also be written by hand: input that starts with `[` is a JSON array of
/// requests (not filtered), e.g. `[{"op": {"inject_pointer": {"x": 1e39, "y": 1}}}]`.
fn from_json(data: &[u8]) -> Option<Vec<Request>> {
    let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(data) else { return Some(vec![]) };
    Some(items.into_iter().filter_map(|v| Request::from_value(v).ok()).take(8).collect())
}

fuzz_target!(|data: &[u8]| {
    let requests = if data.first() == Some(&b'[') {
        from_json(data)
    } else {
        ops(&mut Unstructured::new(data)).ok()
    };
    let Some(requests) = requests else { return };
    if requests.is_empty() {
        return;
    }
    let mut session = Session::new(automation_egui::demo_target());
    for r in &requests {
        let reply = automation_egui::serve(&mut session, r);
        let _ = reply_json(&reply);
    }
    let snap = Request::from_json(r#"{"op": "snapshot_tree"}"#).expect("snapshot_tree");
    let reply = automation_egui::serve(&mut session, &snap);
    let text = reply_json(&reply);
    assert!(matches!(reply, Reply::Ok(_)), "snapshot_tree after {requests:?} failed: {text}");
});
