//! Hostile requests against the real egui demo (not core's fixture): refused with a typed
//! error naming the field before egui sees them, and the session answers the next request.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use automation_core::ErrorCode;
use automation_egui::{EguiHost, EguiTarget, demo_target};
use automation_testkit::rig::Rig;
use serde_json::{Value, json};

fn rig() -> Rig<EguiTarget<'static>, EguiHost> {
    Rig::with_host(demo_target(), EguiHost)
}

#[test]
fn a_number_no_f32_can_hold_is_refused_and_egui_keeps_running() {
    let huge = 1e39;
    let mut r = rig();
    let cases: Vec<(Value, &str)> = vec![
        (json!({"inject_pointer": {"x": huge, "y": 10}}), "`x`"),
        (
            json!({"scroll": {"node": {"label": "Row 1"}, "dx": huge}}),
            "`dx`",
        ),
        (
            json!({"drag_node": {"node": {"label": "Row 1"}, "to_x": huge, "to_y": 1}}),
            "`to_x`",
        ),
        (
            json!({"pinch": {"node": {"label": "Row 1"}, "scale": huge}}),
            "`scale`",
        ),
        (
            json!({"long_press": {"node": {"label": "Save"}, "x": huge, "y": 1}}),
            "`x`",
        ),
        (
            json!({"fling": {"node": {"label": "Row 1"}, "dy": -huge}}),
            "`dy`",
        ),
    ];
    for (op, field) in cases {
        let e = r.err(json!({ "op": op }));
        assert_eq!(e.code, ErrorCode::BadArgument, "{op}: {e:?}");
        assert!(e.message.contains(field), "{op}: {}", e.message);
        // The demo still answers and still acts.
        r.ok(json!({"op": {"invoke_action": {"node": {"label": "Save"}, "action": "click"}}}));
    }
}

#[test]
fn a_huge_value_is_refused_and_snapshots_stay_small() {
    let mut r = rig();
    let e = r.err(json!({"op": {"set_value": {"node": {"role": "TextInput"}, "value": "x".repeat(15 << 20)}}}));
    assert_eq!(e.code, ErrorCode::BadArgument);
    let value = "y".repeat(60_000);
    r.ok(json!({"op": {"set_value": {"node": {"role": "TextInput"}, "value": value}}}));
    let started = Instant::now();
    let snap = r.ok(json!({"op": "snapshot_tree"}));
    assert!(started.elapsed() < Duration::from_secs(5));
    let bytes = snap.to_string().len();
    assert!(bytes < 64 * 1024, "snapshot of {bytes} bytes");
}
