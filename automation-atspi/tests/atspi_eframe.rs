//! A release build of a stock eframe app — no automation code, no bridge, eframe's default
//! `accesskit` feature only — driven over AT-SPI: click a button, read a label.
//!
//! The app (`stock-eframe-app/`, its own workspace; eframe with the glow renderer, as a
//! stock app may pick) is built here with `cargo build --release`; the first build takes
//! minutes, later ones are no-ops.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use automation_atspi::Output;
use serde_json::json;
use support::{serial, session_tools, start};

#[test]
fn a_release_build_of_a_stock_eframe_app_clicks_and_reads() {
    let _one = serial();
    if !session_tools() {
        return;
    }
    let bin = automation_testkit::stock_app::build_stock_eframe_app();
    let mut r = start(&bin.display().to_string(), Output::Null);
    // Before: the label reads 0 (a Label's text is its value, as in AccessKit).
    let before = r.ok(json!({"find_node": {"role": "Label", "value": "Clicked 0 times"}}));
    assert_eq!(before["count"], json!(1), "{before}");
    let button = r.find("Button", "Add one");
    r.ok(json!({"invoke_action": {"node": button, "action": "click"}}));
    // The click settles on its first effect; the label may land a frame later.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let after = r.ok(json!({"find_node": {"role": "Label", "value": "Clicked 1 times"}}));
        if after["count"] == json!(1) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no label reads 'Clicked 1 times': {:#?}",
            r.nodes()
        );
        r.ok(json!("settle"));
    }
    // A second click counts too (each click waits for its effect before the next).
    let again = r.ok(json!({"invoke_action": {"node": button, "action": "click"}}));
    assert_eq!(again["action"], json!("click"), "{again}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while r.ok(json!({"find_node": {"role": "Label", "value": "Clicked 2 times"}}))["count"]
        != json!(1)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no label reads 'Clicked 2 times'"
        );
        r.ok(json!("settle"));
    }
}

/// Typed keys reach a stock eframe app's text field (winit takes keys only once its X window
/// has the input focus, which nobody gives it under Xvfb without a window manager), ASCII and
/// beyond: pyatspi reads the field's text.
#[test]
fn a_stock_eframe_app_takes_typed_text() {
    let _one = serial();
    if !session_tools() || !support::pyatspi() {
        return;
    }
    let bin = automation_testkit::stock_app::build_stock_eframe_app();
    let mut r = start(&bin.display().to_string(), Output::Null);
    let mut oracle = support::Oracle::start(&r);
    let field = r.ok(json!({"find_node": {"role": "TextInput", "label": "Name"}}));
    let id = field["node"].as_str().expect("the name field").to_string();
    let twin = |oracle: &mut support::Oracle| {
        oracle
            .dump()
            .into_iter()
            .find(|n| n["role"] == "text" || n["role"] == "entry")
            .unwrap_or_else(|| panic!("pyatspi sees no text field"))
    };
    let before = twin(&mut oracle);
    assert_eq!(before["text"], json!(""), "{before}");
    for (typed, expected) in [("Ada", "Ada"), (" Zoë 日本", "Ada Zoë 日本")] {
        let v = r.ok(json!({"type_text": {"node": id, "text": typed}}));
        eprintln!("type_text {typed:?}: {v}");
        // The text lands on the app's next frame.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let now = oracle.read(&before["id"]);
            if now["text"] == json!(expected) {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "typed {typed:?}; pyatspi reads {now}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}
