//! The exit codes and streams of every usage case, against the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::process::Stdio;

use automation_core::CATALOG;
use serde_json::Value;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_in(env_dir: &std::path::Path, args: &[&str]) -> Run {
    let out = crate::support::automation()
        .args(args)
        .env("XDG_RUNTIME_DIR", env_dir)
        .env_remove("AUTOMATION_TOKEN")
        .env_remove("AUTOMATION_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run automation");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// What a case expects on each stream.
#[derive(Clone, Copy)]
enum S {
    Empty,
    Has(&'static str),
    Any,
}

fn check(label: &str, text: &str, want: S) {
    match want {
        S::Empty => assert!(
            text.trim().is_empty(),
            "{label}: expected nothing, got {text:?}"
        ),
        S::Has(needle) => assert!(
            text.contains(needle),
            "{label}: expected {needle:?} in {text:?}"
        ),
        S::Any => {}
    }
}

#[test]
fn exit_codes_and_streams() {
    let dir = tempfile::tempdir().unwrap();
    let ts = dir.path().join("script.ts");
    std::fs::write(&ts, "const x: number = 1;\nconsole.log(x);\n").unwrap();
    let broken = dir.path().join("broken.ts");
    std::fs::write(&broken, "const x: number = ;\n").unwrap();
    let ts = ts.to_str().unwrap();
    let broken = broken.to_str().unwrap();
    let sock = dir.path().join("no-such.sock");
    let sock = sock.to_str().unwrap();

    #[rustfmt::skip]
    let cases: Vec<(Vec<&str>, i32, S, S)> = vec![
        // help and version: stdout, 0
        (vec!["--help"], 0, S::Has("--attach-pid"), S::Empty),
        (vec!["--help"], 0, S::Has("AUTOMATION_TOKEN"), S::Empty),
        (vec!["--version"], 0, S::Has(env!("CARGO_PKG_VERSION")), S::Empty),
        (vec!["op", "--help"], 0, S::Has("<OP> [ARGS_JSON]"), S::Empty),
        // usage errors: stderr, 2
        (vec!["--bogus"], 2, S::Empty, S::Has("--bogus")),
        (vec!["--connect"], 2, S::Empty, S::Has("--connect")),
        (vec!["--attach-pid"], 2, S::Empty, S::Has("--attach-pid")),
        (vec!["--attach-pid", "abc"], 2, S::Empty, S::Has("abc")),
        (vec!["--attach", "--list"], 2, S::Empty, S::Has("--list")),
        (vec!["--attach", "--list"], 2, S::Empty, S::Has("--attach")),
        (vec!["--headless", "--attach-pid", "1"], 2, S::Empty, S::Has("cannot be used with")),
        (vec!["--connect", "x", "--attach"], 2, S::Empty, S::Has("cannot be used with")),
        (vec!["--token", "t"], 2, S::Empty, S::Has("--connect")),
        (vec!["frobnicate"], 2, S::Empty, S::Has("frobnicate")),
        (vec!["op"], 2, S::Empty, S::Has("<OP> [ARGS_JSON]")),
        (vec!["op", "--list", "\"snapshot_tree\""], 2, S::Empty, S::Has("--list")),
        (vec!["--attach", "op", "--headless", "\"snapshot_tree\""], 2, S::Empty, S::Has("mode once")),
        (vec!["eval"], 2, S::Empty, S::Has("EXPR")),
        (vec!["eval", "true", "--vars", "{"], 2, S::Empty, S::Has("--vars")),
        (vec!["transpile"], 2, S::Empty, S::Has("FILE")),
        (vec!["exec"], 2, S::Empty, S::Has("CMD")),
        // modes that parse and then fail: stderr, 1
        (vec!["--attach-pid", "999999"], 1, S::Empty, S::Has("999999")),
        (vec!["--attach"], 1, S::Empty, S::Has("no live automation bridge")),
        (vec!["--connect", sock], 1, S::Empty, S::Has("AUTOMATION_TOKEN")),
        (vec!["--connect", sock, "--token", "t"], 1, S::Empty, S::Has("cannot connect")),
        (vec!["op", "--attach-pid", "999999", "\"snapshot_tree\""], 1, S::Empty, S::Has("999999")),
        // the MCP server (no verb) with stdin already closed: a clean exit, nothing on stdout
        (vec![], 0, S::Empty, S::Empty),
        (vec!["--headless"], 0, S::Empty, S::Empty),
        // --list: JSON on stdout, 0
        (vec!["--list"], 0, S::Has("[]"), S::Empty),
        // verbs
        (vec!["op", "\"snapshot_tree\""], 0, S::Has("\"status\": \"ok\""), S::Empty),
        (vec!["--headless", "op", "{\"find_node\": {\"role\": \"Button\", \"label\": \"Save\"}}"], 0, S::Has("\"node\""), S::Empty),
        (vec!["op", "{\"op\": {\"invoke_action\": {\"node\": {\"role\": \"Button\", \"label\": \"Save\"}, \"action\": \"click\"}}, \"settle\": {\"clock_millis\": 16}}"], 0, S::Has("\"ok\""), S::Empty),
        (vec!["op", "{\"find_node\": {\"lable\": \"Save\"}}"], 1, S::Has("lable"), S::Empty),
        (vec!["op", "not json"], 1, S::Has("BAD_REQUEST"), S::Empty),
        (vec!["op", "{\"read_node\": {\"node\": \"12345\"}}"], 1, S::Has("NOT_FOUND"), S::Empty),
        // screenshot: a PNG with the renderer, a structured error without it
        (vec!["op", "\"screenshot\""], if cfg!(feature = "screenshot") { 0 } else { 1 }, S::Has(if cfg!(feature = "screenshot") { "iVBORw0KGgo" } else { "\"status\": \"err\"" }), S::Empty),
        (vec!["tools"], 0, S::Has("find_node"), S::Empty),
        (vec!["eval", "a.b < 3", "--vars", "{\"a\": {\"b\": 1}}"], 0, S::Has("true"), S::Empty),
        (vec!["eval", "1 > 2"], 0, S::Has("false"), S::Empty),
        (vec!["eval", "a <"], 1, S::Has("\"message\""), S::Empty),
        (vec!["transpile", ts], 0, S::Has("console.log"), S::Empty),
        (vec!["transpile", ts, "--detect"], 0, S::Has("typescript"), S::Empty),
        (vec!["transpile", broken], 1, S::Has("{"), S::Empty),
        (vec!["transpile", "/no/such/file.ts"], 1, S::Empty, S::Has("/no/such/file.ts")),
        (vec!["exec", "--", "sh", "-c", "exit 7"], 7, S::Empty, S::Any),
        (vec!["exec", "--", "/no/such/command"], 127, S::Empty, S::Has("/no/such/command")),
    ];
    for (args, code, out, err) in cases {
        let label = args.join(" ");
        let r = run_in(dir.path(), &args);
        assert_eq!(
            r.code, code,
            "{label}: exit code (stdout {:?}, stderr {:?})",
            r.stdout, r.stderr
        );
        check(&format!("{label} [stdout]"), &r.stdout, out);
        check(&format!("{label} [stderr]"), &r.stderr, err);
    }
}

#[test]
fn the_token_may_come_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("no-such.sock");
    let out = crate::support::automation()
        .args(["--connect", sock.to_str().unwrap()])
        .env("AUTOMATION_TOKEN", "from-env")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot connect"),
        "the token was found, the endpoint was not: {err}"
    );
}

#[test]
fn tools_prints_the_whole_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let r = run_in(dir.path(), &["tools"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), CATALOG.len());
    assert!(
        list.iter()
            .all(|t| t["input_schema"]["additionalProperties"] == Value::Bool(false))
    );
}

#[test]
fn the_server_exits_when_stdin_closes_and_keeps_stdout_for_protocol() {
    let mut child = crate::support::automation()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#).unwrap();
    drop(stdin);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server did not exit after stdin closed"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("non-protocol line on stdout {line:?}: {e}"));
        assert_eq!(v["jsonrpc"], "2.0");
    }
}
