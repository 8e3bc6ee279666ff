//! `automation exec` over a bash script that emits three steps (one failing) through the
//! event pipe: JUnit read back by a parser, live lines on stderr, the script's exit code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Stdio;

const SCRIPT: &str = r#"#!/usr/bin/env bash
set -u
ev() { echo "{\"__mcp_event__\": true, \"timestamp\": \"2026-01-01T00:00:00Z\", $1}" > "$MCP_EVENT_PIPE_PATH"; }
ev '"type": "step_started", "stepId": "s1", "stepName": "open the app"'
ev '"type": "step_completed", "stepId": "s1", "stepName": "open the app", "duration": 12'
ev '"type": "step_started", "stepId": "s2", "stepName": "click save"'
ev '"type": "step_failed", "stepId": "s2", "stepName": "click save", "error": "Save button not found"'
ev '"type": "step_started", "stepId": "s3", "stepName": "close"'
ev '"type": "step_completed", "stepId": "s3", "stepName": "close"'
echo "plain output from the script"
echo "a log line" > "$MCP_LOG_PIPE_PATH"
exit 3
"#;

/// `automation exec --junit JUNIT -- bash SCRIPT`, stdin closed.
fn exec_bash(script: &std::path::Path, junit: &std::path::Path) -> std::process::Output {
    crate::support::automation()
        .arg("exec")
        .arg("--junit")
        .arg(junit)
        .arg("--")
        .arg("bash")
        .arg(script)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn exec_writes_junit_and_passes_the_exit_code_through() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("steps.sh");
    std::fs::write(&script, SCRIPT).unwrap();
    let junit = dir.path().join("report.xml");
    let out = exec_bash(&script, &junit);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "stderr: {stderr}");
    // The child's own output passes through; events are shown as plain lines (no TTY).
    assert!(stdout.contains("plain output from the script"), "{stdout}");
    assert!(
        stderr.contains("step failed: click save: Save button not found"),
        "{stderr}"
    );
    assert!(stderr.contains("step passed: open the app"), "{stderr}");
    assert!(stderr.contains("a log line"), "{stderr}");

    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 3, "{xml}");
    let failures: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert_eq!(failures.len(), 1, "{xml}");
    assert_eq!(
        failures[0].attribute("message"),
        Some("STEP_FAILED: Save button not found")
    );
    assert_eq!(
        failures[0].parent().and_then(|p| p.attribute("name")),
        Some("click save")
    );
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("tests"), Some("3"));
    assert_eq!(suite.attribute("failures"), Some("1"));

    // quick-junit reads its own output back the same way.
    let report = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    assert_eq!(report.test_suites[0].test_cases.len(), 3);
    assert_eq!(report.test_suites[0].failures, 1);
}

#[test]
fn exec_without_events_still_exits_with_the_child_code() {
    let out = crate::support::automation()
        .args(["exec", "--", "bash", "-c", "echo hi; exit 0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "hi");
}

/// A bash script emitting `events` (the JSON fields after the tag and timestamp) on the event
/// pipe, then exiting 0.
fn exits_zero_after(events: &[&str]) -> String {
    let mut s = String::from(
        "#!/usr/bin/env bash\nset -u\nev() { echo \"{\\\"__mcp_event__\\\": true, \\\"timestamp\\\": \\\"2026-01-01T00:00:00Z\\\", $1}\" > \"$MCP_EVENT_PIPE_PATH\"; }\n",
    );
    for e in events {
        s.push_str(&format!("ev '{e}'\n"));
    }
    s.push_str("exit 0\n");
    s
}

#[test]
fn exec_exits_non_zero_when_a_step_failed_and_the_command_exited_zero() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, Vec<&str>, i32, usize); 3] = [
        (
            "failed",
            vec![
                r#""type": "step_started", "stepId": "s1", "stepName": "save""#,
                r#""type": "step_failed", "stepId": "s1", "stepName": "save", "error": "no Save button""#,
            ],
            1,
            1,
        ),
        (
            "unfinished",
            vec![r#""type": "step_started", "stepId": "s1", "stepName": "save""#],
            1,
            1,
        ),
        (
            "passed",
            vec![
                r#""type": "step_started", "stepId": "s1", "stepName": "save""#,
                r#""type": "step_completed", "stepId": "s1", "stepName": "save""#,
            ],
            0,
            0,
        ),
    ];
    for (label, events, code, failing) in cases {
        let script = dir.path().join(format!("{label}.sh"));
        std::fs::write(&script, exits_zero_after(&events)).unwrap();
        let junit = dir.path().join(format!("{label}.xml"));
        let out = exec_bash(&script, &junit);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{label}: {stderr}");
        if code != 0 {
            assert!(
                stderr.contains("exit code 1 (bash exited 0; a step did not pass)"),
                "{label}: {stderr}"
            );
        }
        // The JUnit says the same as the exit code.
        let xml = std::fs::read_to_string(&junit).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let bad = doc
            .descendants()
            .filter(|n| n.has_tag_name("failure") || n.has_tag_name("error"))
            .count();
        assert_eq!(bad, failing, "{label}: {xml}");
    }
}
