//! Typing into the real egui demo: any Unicode text arrives whole, and the time grows
//! linearly with the text (consecutive characters share a frame).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use automation_egui::{EguiHost, EguiTarget, demo_target};
use automation_testkit::rig::Rig;
use serde_json::json;

fn rig() -> Rig<EguiTarget<'static>, EguiHost> {
    Rig::with_host(demo_target(), EguiHost)
}

fn field_value(r: &mut Rig<EguiTarget<'static>, EguiHost>) -> String {
    r.node(json!({"role": "TextInput"}))["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn non_ascii_text_arrives_whole() {
    let mut r = rig();
    let text = "Zoë Ångström café — 漢字 ✓";
    r.ok(json!({"op": {"type_text": {"node": {"role": "TextInput"}, "text": text}}}));
    assert_eq!(field_value(&mut r), text);
}

fn type_n(n: usize) -> Duration {
    let mut r = rig();
    let text = "ab".repeat(n / 2);
    let started = Instant::now();
    r.ok(
        json!({"op": {"type_text": {"node": {"role": "TextInput"}, "text": text}},
        "settle": {"settle_timeout_ms": 60000}}),
    );
    let took = started.elapsed();
    assert_eq!(field_value(&mut r).len(), n);
    took
}

#[test]
fn typing_time_grows_linearly() {
    let small = type_n(2_000);
    let large = type_n(8_000);
    // 4× the text: linear is ~4×, quadratic ~16×. Allow noise from parallel tests.
    assert!(
        large < small * 9 + Duration::from_millis(500),
        "2 000 chars: {small:?}, 8 000 chars: {large:?}"
    );
    assert!(
        large < Duration::from_secs(30),
        "8 000 chars took {large:?}"
    );
}
