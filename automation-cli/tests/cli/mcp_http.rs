//! MCP over streamable HTTP (`automation serve --http`): two clients of the official Python
//! MCP SDK at once on one server, each on its own launched app (its own private display), each
//! typing into its own field — neither sees the other's text, as the kit reads it and as
//! pyatspi reads it on each app's own private bus; and when the sessions close,
//! their apps, displays and buses are gone.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::hostile;
use crate::support::webdriver as wd;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use automation_testkit::require::{on_path, require};
use serde_json::Value;

const APP: &str = "zenity --entry --title Reach --text Name";

#[test]
fn two_mcp_clients_over_http_each_drive_their_own_app() {
    // Two launched apps on virtual displays.
    let _heavy = automation_testkit::heavy::heavy_shared();
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    let has_mcp = !python.is_empty()
        && Command::new(&python)
            .args(["-c", "import mcp"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !require(
        "python-mcp",
        has_mcp,
        "AUTOMATION_PYTHON is unset or has no mcp SDK",
    ) || !require(
        "atspi-apps",
        on_path("zenity"),
        "zenity is missing (Debian: zenity)",
    ) || !automation_testkit::require::require_tools(
        "dbus",
        &automation_atspi::display::missing_tools(),
    ) {
        return;
    }
    let server = wd::Server::spawn(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--launch",
        APP,
        "--virtual-display",
        "--max-sessions",
        "2",
    ]);
    // The same edge as WebDriver's: an oversized body, a foreign Host, an unknown MCP session.
    let addr = server.addr();
    let big = vec![b'x'; 10 * 1024 * 1024];
    assert_eq!(wd::http(&addr, "POST", "/mcp", &big, &[]).0, 413);
    assert_eq!(
        wd::http(&addr, "POST", "/mcp", b"{}", &[("Host", "evil.example")]).0,
        403
    );
    let (status, _) = wd::http(
        &addr,
        "POST",
        "/mcp",
        br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#,
        &[
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Session-Id", "no-such-session"),
        ],
    );
    assert_eq!(status, 404, "an unknown MCP session id");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/mcp_http_two.py");
    let ours = |p: &hostile::Proc| {
        p.state != 'Z'
            && ["zenity", "Xvfb", "dbus-daemon", "at-spi"]
                .iter()
                .any(|n| p.cmd.contains(n))
    };
    let child = Command::new(&python)
        .arg(&script)
        .arg(&server.url)
        .env("AUTOMATION_SERVER_PID", server.pid().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // While the clients run, count what the server started: two apps, two displays.
    let pid = server.pid();
    let watching = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let watch = {
        let watching = std::sync::Arc::clone(&watching);
        std::thread::spawn(move || {
            let (mut apps, mut displays) = (0, 0);
            while watching.load(std::sync::atomic::Ordering::Relaxed) {
                let now = hostile::descendants(pid);
                apps = apps.max(
                    now.iter()
                        .filter(|p| p.state != 'Z' && p.cmd.contains("zenity"))
                        .count(),
                );
                displays = displays.max(
                    now.iter()
                        .filter(|p| p.state != 'Z' && p.cmd.contains("Xvfb"))
                        .count(),
                );
                std::thread::sleep(Duration::from_millis(100));
            }
            (apps, displays)
        })
    };
    let out = child.wait_with_output().unwrap();
    watching.store(false, std::sync::atomic::Ordering::Relaxed);
    let (apps, displays) = watch.join().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "mcp_http_two.py failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let facts: Value =
        serde_json::from_str(stdout.trim().lines().last().unwrap_or_default()).unwrap();
    eprintln!("two MCP clients over HTTP: {facts}; seen at once: {apps} apps, {displays} displays");
    assert!(
        apps >= 2 && displays >= 2,
        "expected two apps on two displays at once, saw {apps} and {displays}"
    );

    // The clients closed their sessions: nothing they started is left under the server.
    let left = hostile::until_empty(Duration::from_secs(15), || {
        hostile::descendants(server.pid())
            .into_iter()
            .filter(|p| ours(p))
            .collect::<Vec<_>>()
    });
    assert!(left.is_empty(), "left after both sessions closed: {left:?}");
}

/// Issue 39: `serve --http` answers `GET /status` as `--help` says (`ready: false` once
/// `--max-sessions` are in use), and a `--host` that disagrees with `--http ADDR` is refused,
/// not silently ignored.
#[test]
fn serve_http_answers_status_and_refuses_a_second_host() {
    let server = wd::Server::spawn(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--headless",
        "--max-sessions",
        "1",
    ]);
    let (code, status) = wd::http(&server.addr(), "GET", "/status", b"", &[]);
    assert_eq!(code, 200, "{status}");
    assert_eq!(status["ready"], Value::Bool(true), "{status}");
    assert_eq!(status["maxSessions"], 1, "{status}");
    assert_eq!(
        status["message"], "ready: 0 of 1 sessions in use",
        "{status}"
    );
    // One MCP session takes the only place.
    let (code, _) = wd::http(
        &server.addr(),
        "POST",
        "/mcp",
        br#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}"#,
        &[("Accept", "application/json, text/event-stream")],
    );
    assert_eq!(code, 200);
    let (_, status) = wd::http(&server.addr(), "GET", "/status", b"", &[]);
    assert_eq!(status["ready"], Value::Bool(false), "{status}");

    let out = crate::support::automation()
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--host",
            "0.0.0.0",
            "--headless",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--host 0.0.0.0") && err.contains("--http 0.0.0.0:0"),
        "{err}"
    );
}
