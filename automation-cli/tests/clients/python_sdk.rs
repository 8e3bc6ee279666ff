//! The Python `mcp` SDK (a real third-party client) drives the demo through the real binary.
//!
//! The interpreter comes from `AUTOMATION_PYTHON` (a venv with `pip install mcp`; `scripts/test`
//! sets it up). Unset: the test fails, unless `AUTOMATION_ALLOW_MISSING` lists `python-mcp`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};

/// Runs `tests/python/<script> <automation binary> <extra…>` and returns its stdout, or `None`
/// when the run opted out of a missing Python (the skip is logged). A failing script fails.
fn run_python(script: &str, extra: &[String]) -> Option<String> {
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    if !automation_testkit::require::require(
        "python-mcp",
        !python.is_empty(),
        "AUTOMATION_PYTHON is not set: point it at a Python with the `mcp` package \
         (python3 -m venv venv && venv/bin/pip install mcp; AUTOMATION_PYTHON=venv/bin/python)",
    ) {
        return None;
    }
    let path = format!("{}/tests/python/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(&python)
        .arg(path)
        .arg(crate::support::AUTOMATION)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "python client failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    Some(stdout)
}

#[test]
fn python_mcp_sdk_lists_tools_and_drives_the_demo() {
    // The catalog's core ops (the default caps) and the tools that are no op.
    let listed = automation_core::CATALOG
        .iter()
        .filter(|s| s.cap == automation_core::Cap::Core)
        .count()
        + automation_session::tools::NOT_OPS.len();
    let Some(stdout) = run_python("mcp_client.py", &[listed.to_string()]) else {
        return;
    };
    assert!(stdout.starts_with("ok "), "{stdout}");
}

#[test]
fn python_mcp_sdk_meets_the_why_cases_of_issue_10() {
    let Some(stdout) = run_python("why_cases.py", &[]) else {
        return;
    };
    assert_eq!(
        stdout.trim(),
        // Every catalog op and the tools that are no op.
        format!(
            "ok {}",
            automation_core::CATALOG.len() + automation_session::tools::NOT_OPS.len()
        ),
        "every tool checked"
    );
}

#[test]
fn python_mcp_sdk_sees_no_ok_that_did_nothing() {
    let Some(stdout) = run_python("truth_cases.py", &[]) else {
        return;
    };
    assert_eq!(stdout.trim(), "ok");
}

/// Issue 24's first proof: a 12-call exploration through the Python SDK (a miss and its
/// corrected retry, reads, a typed name, a click, an assertion, a screenshot) exported as
/// TypeScript, YAML and JSON; each runs green under `automation run` against a fresh start,
/// names its nodes by durable selectors only, and leaves the failed call out.
#[test]
fn python_mcp_sdk_session_exports_a_test_that_runs_green() {
    let dir = tempfile::tempdir().unwrap();
    let Some(stdout) = run_python(
        "authoring_session.py",
        &[dir.path().to_string_lossy().into_owned()],
    ) else {
        return;
    };
    let out: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let reference = regex_lite::Regex::new(r#""e\d+"|"\d{4,}""#).unwrap();
    for format in ["ts", "yaml", "json"] {
        let e = &out["exports"][format];
        let source = e["source"].as_str().unwrap();
        assert_eq!(
            e["run_exit"], 0,
            "{format} run:\n{}\n{source}",
            e["run_output"]
        );
        assert!(
            !reference.is_match(source),
            "{format} holds a reference or raw id:\n{source}"
        );
        // The miss (call 6, "Save file") is no step: only the closing comment may name it.
        let steps = source.split("Left out").next().unwrap();
        assert!(
            !steps.contains("Save file"),
            "{format} runs the failed call:\n{source}"
        );
        let left: Vec<u64> = e["left_out"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["call"].as_u64().unwrap())
            .collect();
        assert!(left.contains(&6), "{format}: {left:?}");
        assert_eq!(
            e["inputs"]["name"], "Grace",
            "{format}: the typed name is an input"
        );
        assert!(
            source.contains("Saved") && source.contains("screenshot"),
            "{source}"
        );
    }
}
