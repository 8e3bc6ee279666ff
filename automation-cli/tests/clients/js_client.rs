//! The JS client (`clients/js`) against the real thing: its `node --test` suites (unit, and
//! live against the egui demo served through automation-wire's bridge server with a real
//! descriptor, attached the way `node test.js` attaches), its events read back by
//! automation-wire's event parser through a real event pipe, its crash report, its mirrors
//! of core's error codes and op catalog, its `.d.ts` under `tsc --strict`, its npm tarball, and
//! plain `node examples/save-name.mjs` — and the shipped TypeScript flow, transpiled — against
//! the eframe demo running as a live debug app under Xvfb.
//! Needs `node` ≥ 18 (fails without it unless `AUTOMATION_ALLOW_MISSING` lists `node`) and,
//! for the types, `tsc` (`typescript`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::Receiver;

use automation_core::{CATALOG, ErrorCode};
use automation_testkit::require::require;
use automation_testkit::xvfb::live_demo;
use automation_wire::events::{Event, EventKind, EventPipe, LogLevel, LogRecord, PipeItem};
use serde_json::{Value, json};

#[allow(dead_code)] // the app's `automation()` command is not needed here
use crate::support::live_app::LiveApp;

fn js_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../clients/js")
        .canonicalize()
        .unwrap()
}

/// `node` ≥ 18 on PATH, or the test fails (skips only when `AUTOMATION_ALLOW_MISSING` lists it).
fn node() -> bool {
    let version = Command::new("node").arg("--version").output();
    let why = match &version {
        Ok(out) if out.status.success() => {
            let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let major: u32 = v
                .trim_start_matches('v')
                .split('.')
                .next()
                .and_then(|m| m.parse().ok())
                .unwrap_or(0);
            if major >= 18 {
                return true;
            }
            format!(
                "node {v} is older than 18 (the client's engines field); install node 18 or later"
            )
        }
        Ok(out) => format!("`node --version` failed: {}", out.status),
        Err(e) => format!("no `node` on PATH ({e}); install it: apt-get install nodejs"),
    };
    require("node", false, &why)
}

/// A `node` command in `clients/js`, with no endpoint of its own in the environment.
fn node_cmd(args: &[&str]) -> Command {
    let mut cmd = Command::new("node");
    cmd.args(args)
        .current_dir(js_dir())
        .env_remove("AUTOMATION_ENDPOINT")
        .env_remove("AUTOMATION_TOKEN")
        .env_remove("MCP_EVENT_PIPE_PATH")
        .env_remove("MCP_LOG_PIPE_PATH")
        .env_remove("NODE_OPTIONS")
        .stdin(Stdio::null());
    cmd
}

fn text(out: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The `*.test.js` files of a directory of `clients/js`, sorted (node's directory and glob
/// arguments differ between versions; explicit files work on every one).
fn test_files(dir: &str) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(js_dir().join(dir))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.ends_with(".test.js").then(|| format!("{dir}/{name}"))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no tests in clients/js/{dir}");
    files
}

/// Runs `node --test` over `files` and checks that it passed and ran `expected_tests` tests.
fn node_test(cmd: &mut Command, expected_tests: usize) {
    let out = cmd.output().unwrap();
    let report = text(&out);
    eprintln!("{report}");
    assert!(out.status.success(), "node --test failed:\n{report}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let count = |key: &str| -> usize {
        stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix(&format!("# {key} ")))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(usize::MAX)
    };
    assert_eq!(count("pass"), expected_tests, "{report}");
    assert_eq!(count("fail"), 0, "{report}");
    assert_eq!(count("skipped"), 0, "{report}");
}

#[test]
fn node_unit_tests_pass() {
    if !node() {
        return;
    }
    let empty = tempfile::tempdir().unwrap();
    let mut cmd = node_cmd(&["--test", "--test-reporter=tap"]);
    cmd.args(test_files("test/unit"));
    cmd.env("XDG_RUNTIME_DIR", empty.path());
    node_test(&mut cmd, 34);
}

#[test]
fn node_live_tests_pass_against_the_demo_attached_by_descriptor() {
    if !node() {
        return;
    }
    let app = LiveApp::start("js-client-test", |_| None);
    let mut cmd = node_cmd(&["--test", "--test-reporter=tap"]);
    cmd.args(test_files("test/live"));
    cmd.env("XDG_RUNTIME_DIR", app.base.path());
    node_test(&mut cmd, 13);
}

fn collect(rx: &Receiver<PipeItem>) -> (Vec<Event>, Vec<LogRecord>) {
    let (mut events, mut logs) = (Vec::new(), Vec::new());
    for item in rx.try_iter() {
        match item {
            PipeItem::Event(e) => events.push(e),
            PipeItem::Log(l) => logs.push(l),
        }
    }
    (events, logs)
}

/// Runs a fixture with a real event pipe; returns its output and what the Rust reader parsed.
fn with_pipe(fixture: &str) -> (Output, Vec<Event>, Vec<LogRecord>) {
    let base = tempfile::tempdir().unwrap();
    let (pipe, rx) = EventPipe::create_in(base.path()).unwrap();
    let out = node_cmd(&[fixture]).envs(pipe.env()).output().unwrap();
    let summary = pipe.finish().unwrap();
    let (events, logs) = collect(&rx);
    assert_eq!(summary.events as usize, events.len());
    assert_eq!(summary.logs as usize, logs.len());
    (out, events, logs)
}

#[test]
fn every_event_the_client_emits_is_accepted_by_the_rust_parser() {
    if !node() {
        return;
    }
    let (out, events, logs) = with_pipe("test/fixtures/emit_all.mjs");
    assert!(out.status.success(), "{}", text(&out));
    // Nothing on the event channel was rejected: every line was a typed event.
    let event_channel: Vec<_> = logs
        .iter()
        .filter(|l| l.source == automation_wire::events::LogSource::EventChannel)
        .collect();
    assert!(
        event_channel.is_empty(),
        "rejected lines: {event_channel:#?}"
    );
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.wire_type()).collect();
    assert_eq!(
        kinds,
        [
            "progress",
            "progress",
            "step_started",
            "step_completed",
            "step_started",
            "step_failed",
            "step_failed",
            "screenshot",
            "screenshot",
            "data",
            "data",
            "status",
            "log",
            "log",
            "step_started",
            "step_completed",
        ]
    );
    for e in &events {
        assert!(
            e.timestamp.ends_with('Z') && e.timestamp.contains('T'),
            "ISO-8601: {}",
            e.timestamp
        );
    }
    use EventKind as K;
    assert_eq!(
        events[0].kind,
        K::Progress {
            current: 1.0,
            total: Some(4.0),
            message: Some("logging in".into())
        }
    );
    assert_eq!(
        events[1].kind,
        K::Progress {
            current: 1.5,
            total: Some(4.0),
            message: None
        }
    );
    assert_eq!(
        events[2].kind,
        K::StepStarted {
            step_id: "s1".into(),
            step_name: "Type the name".into(),
            step_index: Some(0),
            total_steps: Some(2)
        }
    );
    assert_eq!(
        events[3].kind,
        K::StepCompleted {
            step_id: "s1".into(),
            step_name: "Type the name".into(),
            duration: Some(12.5),
            step_index: Some(0),
            total_steps: Some(2)
        }
    );
    // A kit error travels with its code and candidates (as JSON text in `error`).
    let K::StepFailed {
        step_id,
        error: Some(error),
        duration,
        ..
    } = &events[5].kind
    else {
        panic!("{:?}", events[5]);
    };
    assert_eq!(step_id, "s2");
    assert_eq!(*duration, Some(3.0));
    let error: Value = serde_json::from_str(error).unwrap();
    assert_eq!(error["code"], "NOT_FOUND");
    assert_eq!(error["fault"], "request");
    assert_eq!(error["candidates"][0]["label"], "Save");
    assert_eq!(
        events[6].kind,
        K::StepFailed {
            step_id: "s3".into(),
            step_name: "s3".into(),
            error: Some("plain text error".into()),
            duration: None
        }
    );
    assert_eq!(
        events[7].kind,
        K::Screenshot {
            path: Some("/tmp/after-save.png".into()),
            base64: None,
            annotation: Some("after save".into()),
            element: None
        }
    );
    assert_eq!(
        events[8].kind,
        K::Screenshot {
            path: None,
            base64: Some("iVBORw==".into()),
            annotation: Some("inline".into()),
            element: None
        }
    );
    assert_eq!(
        events[9].kind,
        K::Data {
            key: "rows".into(),
            value: json!([1, 2, 3])
        }
    );
    assert_eq!(
        events[10].kind,
        K::Data {
            key: "who".into(),
            value: json!({"name": "Zoë Ångström"})
        }
    );
    assert_eq!(
        events[11].kind,
        K::Status {
            message: "saving…".into(),
            duration: Some(4.25),
            element: Some("Save".into())
        }
    );
    assert_eq!(
        events[12].kind,
        K::Log {
            level: LogLevel::Warn,
            message: "slow disk".into(),
            data: Some(json!({"ms": 1200}))
        }
    );
    assert_eq!(
        events[13].kind,
        K::Log {
            level: LogLevel::Info,
            message: "no data".into(),
            data: None
        }
    );
    let K::StepCompleted {
        step_id,
        step_name,
        duration: Some(d),
        ..
    } = &events[15].kind
    else {
        panic!("{:?}", events[15]);
    };
    assert_eq!(
        (step_id.as_str(), step_name.as_str()),
        ("s4", "Wait a tick")
    );
    assert!(*d >= 4.0, "step() measured {d} ms for a 5 ms wait");
    // The log channel.
    let log_channel: Vec<(LogLevel, &str, Option<&Value>)> = logs
        .iter()
        .map(|l| (l.level, l.message.as_str(), l.data.as_ref()))
        .collect();
    assert_eq!(
        log_channel,
        [
            (
                LogLevel::Warn,
                "from the log channel",
                Some(&json!({"n": 1}))
            ),
            (LogLevel::Info, "plain log", None),
        ]
    );
    assert!(logs.iter().all(|l| l.timestamp.is_some()));
}

/// The `log` event the crash handler sends, as (message, data).
fn crash_report(events: &[Event]) -> (String, Value) {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Log {
                level: LogLevel::Error,
                message,
                data: Some(data),
            } => Some((message.clone(), data.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no crash report in {events:#?}"))
}

#[test]
fn an_uncaught_exception_is_a_structured_failure_with_the_script_location() {
    if !node() {
        return;
    }
    let (out, events, _) = with_pipe("test/fixtures/crash.mjs");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("TypeError: save.click is not a function"),
        "{stderr}"
    );
    // The running step failed with the message.
    assert!(
        events.iter().any(|e| e.kind
            == EventKind::StepFailed {
                step_id: "save".into(),
                step_name: "Click Save".into(),
                error: Some("save.click is not a function".into()),
                duration: None
            }),
        "{events:#?}"
    );
    let (message, data) = crash_report(&events);
    assert_eq!(
        message,
        "Uncaught exception: TypeError: save.click is not a function"
    );
    assert_eq!(data["uncaught"], "exception");
    assert_eq!(data["name"], "TypeError");
    assert_eq!(data["step"]["stepId"], "save");
    let fixture = js_dir().join("test/fixtures/crash.mjs");
    assert_eq!(
        data["location"],
        json!({"file": fixture.to_str().unwrap(), "line": 6, "column": 9}),
        "{data:#}"
    );
    assert!(
        data["stack"].as_str().unwrap().contains("crash.mjs:6:9"),
        "{data:#}"
    );
}

#[test]
fn an_unhandled_rejection_of_a_kit_error_keeps_its_code() {
    if !node() {
        return;
    }
    let (out, events, _) = with_pipe("test/fixtures/reject.mjs");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (message, data) = crash_report(&events);
    assert!(
        message.starts_with("Unhandled rejection: AutomationError"),
        "{message}"
    );
    assert_eq!(data["uncaught"], "rejection");
    assert_eq!(data["code"], "NOT_FOUND");
    assert_eq!(data["error"]["candidates"][0]["label"], "Save");
    assert_eq!(data["location"]["line"], 6, "{data:#}");
    assert!(data["step"].is_null());
    // No step was running: no step_failed invented.
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::StepFailed { .. }))
    );
}

/// Evaluates `expr` (an expression over the client's exports `m`) in node, as JSON.
fn node_json(expr: &str) -> Value {
    let script = format!(
        "import('./src/index.js').then((m) => process.stdout.write(JSON.stringify({expr})))"
    );
    let out = node_cmd(&["--input-type=module", "-e", &script])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_js_error_codes_are_cores_list() {
    if !node() {
        return;
    }
    let js = node_json("m.ERROR_CODES");
    let core: Vec<Value> = ErrorCode::ALL
        .iter()
        .map(|c| json!({"code": c.as_str(), "fault": serde_json::to_value(c.fault()).unwrap()}))
        .collect();
    assert_eq!(
        js,
        Value::Array(core),
        "clients/js/src/codes.js drifted from automation-core's ErrorCode list: update it"
    );
}

#[test]
fn the_js_op_table_is_cores_catalog_and_every_op_has_a_method() {
    if !node() {
        return;
    }
    let js = node_json(
        "m.OPS.map((o) => ({name: o.name, access: o.access, servedBy: o.servedBy, settle: o.settle, method: typeof m.App.prototype[o.method]}))",
    );
    let core: Vec<Value> = CATALOG
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "access": serde_json::to_value(s.access).unwrap(),
                "servedBy": serde_json::to_value(s.served_by).unwrap(),
                "settle": s.accepts_settle,
                "method": "function",
            })
        })
        .collect();
    assert_eq!(
        js,
        Value::Array(core),
        "clients/js/src/catalog.js drifted from automation-core's CATALOG: update it"
    );
}

/// `tsc`: `$AUTOMATION_TSC`, PATH, or the node tools `scripts/test` installs.
fn tsc() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("AUTOMATION_TSC") {
        candidates.push(p.into());
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("tsc")));
    }
    let cache = std::env::var_os("AUTOMATION_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/automation-kit"))
        });
    if let Some(c) = cache {
        candidates.push(c.join("node/node_modules/.bin/tsc"));
    }
    candidates.into_iter().find(|p| p.is_file())
}

#[test]
fn the_type_declarations_check_under_tsc_strict() {
    if !node() {
        return;
    }
    let found = tsc();
    if !require(
        "typescript",
        found.is_some(),
        "no `tsc` ($AUTOMATION_TSC, PATH, or $AUTOMATION_CACHE/node/node_modules/.bin); install it: npm install typescript@5",
    ) {
        return;
    }
    let out = Command::new(found.unwrap())
        .args(["-p", "test/types/tsconfig.json"])
        .current_dir(js_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "tsc: {}", text(&out));
    // And the check can fail: a misuse is an error.
    let bad = tempfile::Builder::new()
        .prefix("misuse")
        .suffix(".ts")
        .tempfile_in(js_dir().join("test/types"))
        .unwrap();
    std::fs::write(
        bad.path(),
        "import { connect } from '../../index.js';\nconst app = await connect();\nawait app.find({ role: 'Button', name: 'Save' }).click(42);\n",
    )
    .unwrap();
    let out = Command::new(tsc().unwrap())
        .args([
            "--noEmit",
            "--strict",
            "--module",
            "nodenext",
            "--target",
            "es2022",
            "--moduleResolution",
            "nodenext",
        ])
        .arg(bad.path())
        .current_dir(js_dir())
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "tsc accepted a misuse: {}",
        text(&out)
    );
}

#[test]
fn the_package_packs_and_installs_from_its_tarball() {
    if !node() {
        return;
    }
    let npm = Command::new("npm").arg("--version").output();
    if !require(
        "node",
        npm.as_ref().is_ok_and(|o| o.status.success()),
        "no `npm` on PATH; install it with node (Debian: apt-get install npm)",
    ) {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let out = Command::new("npm")
        .args(["pack", "--json", "--pack-destination"])
        .arg(work.path())
        .current_dir(js_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "npm pack: {}", text(&out));
    let packed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = packed[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    for needed in [
        "package.json",
        "README.md",
        "index.d.ts",
        "src/index.js",
        "src/wire.js",
    ] {
        assert!(files.contains(&needed), "{needed} not packed: {files:?}");
    }
    assert!(
        files.iter().all(|f| !f.starts_with("test/")),
        "tests are not shipped: {files:?}"
    );
    let tarball = work.path().join(packed[0]["filename"].as_str().unwrap());
    // A consumer project installs the tarball (no dependencies: nothing is fetched) and
    // imports the package by name.
    let consumer = work.path().join("consumer");
    std::fs::create_dir(&consumer).unwrap();
    std::fs::write(
        consumer.join("package.json"),
        r#"{"name":"consumer","private":true,"type":"module"}"#,
    )
    .unwrap();
    let out = Command::new("npm")
        .args(["install", "--offline", "--no-audit", "--no-fund"])
        .arg(&tarball)
        .current_dir(&consumer)
        .output()
        .unwrap();
    assert!(out.status.success(), "npm install: {}", text(&out));
    let out = Command::new("node")
        .args([
            "--input-type=module",
            "-e",
            "const m = await import('@automation-kit/client'); console.log(typeof m.connect, typeof m.expect, typeof m.emit.progress, m.OPS.length);",
        ])
        .current_dir(&consumer)
        .env_remove("MCP_EVENT_PIPE_PATH")
        .output()
        .unwrap();
    assert!(out.status.success(), "import: {}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("function function function {}", CATALOG.len())
    );
}

#[test]
fn plain_node_drives_the_eframe_demo_running_as_a_live_debug_app() {
    // The eframe demo under Xvfb.
    let _heavy = automation_testkit::heavy::heavy_shared();
    if !node() {
        return;
    }
    // automation-egui's example: the demo in a real eframe window with the bridge installed
    // in debug builds. `cargo test --workspace --all-features` builds it.
    let Some(demo) = live_demo() else {
        return;
    };
    let (pid, runtime) = (demo.pid(), &demo.runtime);
    // Exactly what a person types: `node examples/save-name.mjs`, no endpoint given; with an
    // event pipe as well, so its steps are seen.
    let base = tempfile::tempdir().unwrap();
    let (pipe, rx) = EventPipe::create_in(base.path()).unwrap();
    let out = node_cmd(&["examples/save-name.mjs"])
        .env("XDG_RUNTIME_DIR", runtime.path())
        .envs(pipe.env())
        .output()
        .unwrap();
    pipe.finish().unwrap();
    let (events, _) = collect(&rx);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("saved \"Zoë Ångström\" in bridge_smoke (pid {pid})")
    );
    let completed: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::StepCompleted { step_name, .. } => Some(step_name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(completed, ["Type the name", "Click Save", "Screenshot"]);
    let shot = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Data { key, value } if key == "screenshot" => Some(value.clone()),
            _ => None,
        })
        .unwrap();
    assert!(shot["width"].as_u64().unwrap() > 100, "{shot}");
    assert!(events.iter().any(
        |e| matches!(&e.kind, EventKind::Screenshot { base64: Some(b), .. } if b.len() > 1000)
    ));

    // The shipped TypeScript test, as docs/workflows.md tells a person to debug it: transpile
    // it with `automation transpile`, then plain `node` with the client installed beside it
    // (what `npm install clients/js` or `npm link` leave: node_modules/@automation-kit/client).
    let work = tempfile::tempdir().unwrap();
    let flow = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/flows/save-name.ts");
    let js = crate::support::automation()
        .arg("transpile")
        .arg(&flow)
        .output()
        .unwrap();
    assert!(js.status.success(), "{}", text(&js));
    std::fs::write(work.path().join("save-name.mjs"), &js.stdout).unwrap();
    let scope = work.path().join("node_modules/@automation-kit");
    std::fs::create_dir_all(&scope).unwrap();
    std::os::unix::fs::symlink(js_dir(), scope.join("client")).unwrap();
    let (pipe, rx) = EventPipe::create_in(base.path()).unwrap();
    let out = node_cmd(&["save-name.mjs"])
        .current_dir(work.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .envs(pipe.env())
        .output()
        .unwrap();
    pipe.finish().unwrap();
    let (events, _) = collect(&rx);
    assert!(out.status.success(), "{}", text(&out));
    let completed: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::StepCompleted { step_name, .. } => Some(step_name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        completed,
        [
            "type the name",
            "click Save",
            "hear \"Saved\"",
            "screenshot"
        ],
        "{}",
        text(&out)
    );
}
