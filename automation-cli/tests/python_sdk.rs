//! The Python `mcp` SDK (a real third-party client) drives the demo through the real binary.
//!
//! The interpreter comes from `AUTOMATION_PYTHON` (a venv with `pip install mcp`). Unset and
//! not on CI: the test says why it skips. Unset on CI (`CI` set): the test fails.

use std::process::{Command, Stdio};

#[test]
fn python_mcp_sdk_lists_tools_and_drives_the_demo() {
    let python = match std::env::var("AUTOMATION_PYTHON") {
        Ok(p) if !p.is_empty() => p,
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but AUTOMATION_PYTHON is not: point it at a Python with the `mcp` package \
                 (python3 -m venv venv && venv/bin/pip install mcp; AUTOMATION_PYTHON=venv/bin/python)"
            );
            eprintln!(
                "skipping the Python MCP SDK test: AUTOMATION_PYTHON is not set \
                 (python3 -m venv venv && venv/bin/pip install mcp; then AUTOMATION_PYTHON=venv/bin/python)"
            );
            return;
        }
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/mcp_client.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_automation"))
        .arg(automation_core::CATALOG.len().to_string())
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
    assert!(stdout.starts_with("ok "), "{stdout}");
}
