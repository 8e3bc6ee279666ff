//! `execute_sequence` from the Python `mcp` SDK with a progress callback (a real third-party
//! client): progress on its own token, never backwards, none after the result; no log
//! notification unless the request asked; the failing step's error; the transpile contract.
//!
//! The interpreter comes from `AUTOMATION_PYTHON` (see `python_sdk.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};

#[test]
fn python_sdk_watches_execute_sequence() {
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    if !automation_testkit::require::require(
        "python-mcp",
        !python.is_empty(),
        "AUTOMATION_PYTHON is not set: point it at a Python with the `mcp` package",
    ) {
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/runner_progress.py"
    );
    let out = Command::new(&python)
        .arg(script)
        .arg(crate::support::AUTOMATION)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "python client failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert!(stdout.trim_end().ends_with("ok"), "{stdout}");
}
