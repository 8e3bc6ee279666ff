//! A release build of a stock eframe app — no automation code, no bridge, eframe's default
//! `accesskit` feature only — driven over AT-SPI: click a button, read a label.
//!
//! The app (`stock-eframe-app/`, its own workspace) is built here with `cargo build
//! --release`; the first build takes minutes, later ones are no-ops.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::PathBuf;
use std::process::Command;

use automation_atspi::Output;
use serde_json::json;
use support::{serial, session_tools, start};

fn build_release() -> PathBuf {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/stock-eframe-app/Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let t = std::time::Instant::now();
    let out = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--manifest-path", manifest])
        .output()
        .expect("cargo");
    assert!(
        out.status.success(),
        "building the stock eframe app failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("stock-eframe-app release build: {:?}", t.elapsed());
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/stock-eframe-app/target"
            ))
        },
        PathBuf::from,
    );
    target.join("release/stock-eframe-app")
}

#[test]
#[ignore = "needs a release build of eframe + wgpu (over 18 minutes cold on the 2-core CI machine, past its budget); run with `cargo test -p automation-atspi --test atspi_eframe -- --ignored`"]
fn a_release_build_of_a_stock_eframe_app_clicks_and_reads() {
    let _one = serial();
    if !session_tools() {
        return;
    }
    let bin = build_release();
    let mut r = start(&bin.display().to_string(), Output::Null);
    let button = r.find("Button", "Add one");
    r.ok(json!({"invoke_action": {"node": button, "action": "click"}}));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let nodes = r.nodes();
        let read = nodes.iter().any(|n| {
            [&n["label"], &n["value"]]
                .iter()
                .any(|v| v.as_str() == Some("Clicked 1 times"))
        });
        if read {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no label reads 'Clicked 1 times': {nodes:#?}"
        );
        r.ok(json!("settle"));
    }
}
