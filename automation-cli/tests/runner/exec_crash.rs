//! `automation exec` never reports a crash as green: a command that cannot start, dies by a
//! signal or is interrupted is a failing testcase; output lands in system-out/-err; an
//! unwritable --junit is refused before the child runs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn exec(junit: &std::path::Path, cmd: &[&str]) -> std::process::Output {
    crate::support::automation()
        .arg("exec")
        .arg("--junit")
        .arg(junit)
        .arg("--")
        .args(cmd)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// (tests, failures, the failure messages, system-out, system-err)
fn read_junit(path: &std::path::Path) -> (String, String, Vec<String>, String, String) {
    let xml = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    let text = |tag: &str| {
        suite
            .children()
            .find(|n| n.has_tag_name(tag))
            .and_then(|n| n.text())
            .unwrap_or_default()
            .to_string()
    };
    (
        suite.attribute("tests").unwrap().to_string(),
        suite.attribute("failures").unwrap().to_string(),
        doc.descendants()
            .filter(|n| n.has_tag_name("failure"))
            .map(|n| n.attribute("message").unwrap_or_default().to_string())
            .collect(),
        text("system-out"),
        text("system-err"),
    )
}

#[test]
fn a_command_that_cannot_start_is_a_failing_testcase() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("j.xml");
    let out = exec(&junit, &["automation-no-such-command-xyz"]);
    assert_eq!(out.status.code(), Some(127));
    let (tests, failures, messages, _, _) = read_junit(&junit);
    assert_eq!((tests.as_str(), failures.as_str()), ("1", "1"));
    assert!(messages[0].contains("cannot start"), "{messages:?}");
}

#[test]
fn death_by_signal_is_a_failing_testcase_with_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("j.xml");
    let out = exec(
        &junit,
        &[
            "bash",
            "-c",
            "echo to-stdout; echo to-stderr >&2; kill -KILL $$",
        ],
    );
    assert_eq!(out.status.code(), Some(137));
    // Still shown live.
    assert!(String::from_utf8_lossy(&out.stdout).contains("to-stdout"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("to-stderr"));
    let (tests, failures, messages, system_out, system_err) = read_junit(&junit);
    assert_eq!((tests.as_str(), failures.as_str()), ("1", "1"));
    assert!(messages[0].contains("SIGKILL"), "{messages:?}");
    assert!(system_out.contains("to-stdout"), "{system_out}");
    assert!(system_err.contains("to-stderr"), "{system_err}");
}

#[test]
fn an_unwritable_junit_path_is_refused_before_the_child_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    // Under a regular file: no directory can be made there (root passes permission checks,
    // so a read-only directory would not do).
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let junit = file.join("dir/j.xml");
    let out = exec(
        &junit,
        &["bash", "-c", &format!("touch {}", marker.display())],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--junit"), "{stderr}");
    assert!(stderr.contains("cannot write JUnit to"), "{stderr}");
    assert!(!marker.exists(), "the child must not run");
    let out = exec(dir.path(), &["true"]);
    assert_eq!(out.status.code(), Some(2), "a directory is refused too");
    // A directory not made yet is made.
    let junit = dir.path().join("new/dir/j.xml");
    let out = exec(&junit, &["true"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(junit.is_file());
}

fn interrupt(sig: &str, expect: i32) {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("j.xml");
    let mut child = crate::support::automation()
        .arg("exec")
        .arg("--junit")
        .arg(&junit)
        .args([
            "--",
            "bash",
            "-c",
            &format!(
                "trap 'echo got-{sig}; exit 5' {sig}; echo ready; while true; do sleep 0.05; done"
            ),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    let start = Instant::now();
    assert!(
        Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(child.id().to_string())
            .status()
            .unwrap()
            .success()
    );
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "exec did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    eprintln!("{sig}: exec stopped in {:?}", start.elapsed());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert!(
        rest.contains(&format!("got-{sig}")),
        "the child got it: {rest}"
    );
    assert_eq!(status.code(), Some(expect));
    let (_, failures, messages, system_out, _) = read_junit(&junit);
    assert_eq!(failures, "1");
    assert!(messages[0].contains("interrupted"), "{messages:?}");
    assert!(system_out.contains(&format!("got-{sig}")), "{system_out}");
}

#[test]
fn sigterm_reaches_the_child_and_the_junit_is_written() {
    interrupt("TERM", 143);
}

#[test]
fn sigint_reaches_the_child_and_the_junit_is_written() {
    interrupt("INT", 130);
}
