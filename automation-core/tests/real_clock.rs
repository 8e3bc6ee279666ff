//! The target boundary for a real-clock, out-of-process app, proved against the laggy fixture
//! (effects land after the action returns, as a GTK3 click's do ~250 ms later): settle waits
//! for the first effect and a quiet period, bounded, and reports the time it measured; waits
//! run on the wall clock; a dead app is a typed error, not a hang.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use automation_core::ErrorCode;
use automation_testkit::laggy::{BURST_GAP, LaggyApp};
use automation_testkit::rig::Rig;
use serde_json::json;

const LAG: Duration = Duration::from_millis(120);

fn rig() -> Rig<LaggyApp> {
    Rig::new(LaggyApp::new(LAG))
}

fn click(label: &str) -> serde_json::Value {
    json!({"op": {"invoke_action": {"node": {"role": "Button", "label": label}, "action": "click"}}})
}

fn status(r: &mut Rig<LaggyApp>) -> serde_json::Value {
    r.ok(json!({"op": {"read_node": {"node": {"role": "Label"}}}}))["value"].clone()
}

#[test]
fn settle_waits_for_the_first_effect_and_reports_measured_time() {
    let mut r = rig();
    let started = Instant::now();
    let reply = r.ok(click("Go"));
    let took = started.elapsed();
    assert!(
        took >= LAG,
        "settle returned before the effect landed: {took:?}"
    );
    assert!(took < LAG + Duration::from_millis(400), "{took:?}");
    let settled = &reply["settled"];
    let effect = settled["first_effect_ms"]
        .as_u64()
        .unwrap_or_else(|| panic!("{reply}"));
    assert!(
        effect + 5 >= LAG.as_millis() as u64,
        "first effect {effect} ms vs lag {LAG:?}: {reply}"
    );
    let waited = settled["waited_ms"].as_u64().unwrap();
    assert!(waited >= effect + 90, "then a 100 ms quiet period: {reply}");
    assert_eq!(settled["still_changing"], false);
    assert!(
        settled.get("frames").is_none(),
        "no simulated frames on a real clock: {reply}"
    );
    // The reply's tree already holds the effect.
    assert_eq!(status(&mut r), "Done 1");
}

#[test]
fn a_burst_of_changes_settles_after_the_last_one() {
    let mut r = rig();
    let reply = r.ok(click("Burst"));
    assert_eq!(status(&mut r), "Burst 3", "{reply}");
    let waited = reply["settled"]["waited_ms"].as_u64().unwrap();
    let last = LAG + BURST_GAP * 2;
    assert!(waited as u128 >= last.as_millis(), "{reply}");
}

#[test]
fn an_action_with_no_effect_says_so_within_the_budget() {
    let mut r = rig();
    let started = Instant::now();
    let reply = r.ok(json!({
        "op": {"invoke_action": {"node": {"label": "Nothing"}, "action": "click"}},
        "settle": {"settle_timeout_ms": 250}
    }));
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(250) && took < Duration::from_millis(700),
        "{took:?}"
    );
    assert!(reply["settled"]["first_effect_ms"].is_null(), "{reply}");
}

#[test]
fn an_effect_later_than_the_budget_is_caught_by_a_wait() {
    let mut r = Rig::new(LaggyApp::new(Duration::from_millis(400)));
    let reply = r.ok(
        json!({"op": {"invoke_action": {"node": {"label": "Go"}, "action": "click"}},
        "settle": {"settle_timeout_ms": 100}}),
    );
    assert!(reply["settled"]["first_effect_ms"].is_null(), "{reply}");
    let waited = r.ok(json!({
        "op": {"wait_for_condition": {"condition": {"kind": "node_value", "node": {"role": "Label"}, "expected": "Done 1"}}},
        "settle": {"settle_timeout_ms": 2000}
    }));
    let ms = waited["waited_ms"].as_u64().unwrap();
    assert!(
        (200..1500).contains(&ms),
        "wall-clock wait measured {ms} ms: {waited}"
    );
    let e = r.err(json!({
        "op": {"wait_for_condition": {"condition": {"kind": "node_value", "node": {"role": "Label"}, "expected": "never"}}},
        "settle": {"settle_timeout_ms": 150}
    }));
    assert_eq!(e.code, ErrorCode::WaitTimeout);
}

#[test]
fn pointer_input_settles_on_the_real_clock_too() {
    let mut r = rig();
    let reply = r.ok(json!({"op": {"inject_pointer": {"node": {"label": "Go"}}}}));
    assert!(reply["settled"]["first_effect_ms"].is_u64(), "{reply}");
    assert_eq!(status(&mut r), "Done 1");
}

#[test]
fn advance_clock_is_unsupported_on_a_real_clock() {
    let mut r = rig();
    let e = r.err(json!({"op": {"advance_clock": {"millis": 10}}}));
    assert_eq!(e.code, ErrorCode::Unsupported);
}

#[test]
fn an_app_that_exits_is_a_typed_error_not_a_hang() {
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    r.s.target.gone = true;
    let started = Instant::now();
    let e = r.err(click("Go"));
    assert_eq!(e.code, ErrorCode::AppGone, "{e:?}");
    assert!(!e.code.is_retryable());
    assert!(e.hint.is_some());
    assert!(started.elapsed() < Duration::from_millis(100));
    assert_eq!(
        r.err(json!({"op": "snapshot_tree"})).code,
        ErrorCode::AppGone
    );
}

#[test]
fn a_bare_settle_waits_only_for_quiet() {
    let mut r = rig();
    r.ok(json!({"op": "snapshot_tree"}));
    let started = Instant::now();
    let reply = r.ok(json!({"op": "settle", "settle": {"quiet_ms": 50}}));
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(50) && took < Duration::from_millis(400),
        "{took:?}: {reply}"
    );
}
