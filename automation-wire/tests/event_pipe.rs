//! The event pipe with real producers: bash `echo >`, Python `open(path, "w")`, Node
//! `fs.createWriteStream`, and the Rust emitter in a child process. Needs `bash`, `python3`
//! and `node` on PATH.
// Tests fail loudly by design: helpers outside `#[test]` may unwrap, expect and panic too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(unix)]

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::process::Command;
use std::sync::mpsc::Receiver;

use automation_wire::events::{
    EVENT_PIPE_ENV, Event, EventEmitter, EventKind, EventPipe, LOG_PIPE_ENV, LogLevel, LogSource,
    PipeItem,
};

fn collect(rx: &Receiver<PipeItem>) -> (Vec<Event>, Vec<automation_wire::events::LogRecord>) {
    let (mut ev, mut logs) = (Vec::new(), Vec::new());
    for item in rx.try_iter() {
        match item {
            PipeItem::Event(e) => ev.push(e),
            PipeItem::Log(l) => logs.push(l),
        }
    }
    (ev, logs)
}

fn run(mut cmd: Command) -> (Vec<Event>, Vec<automation_wire::events::LogRecord>) {
    let base = tempfile::tempdir().unwrap();
    let (pipe, rx) = EventPipe::create_in(base.path()).unwrap();
    let status = cmd.envs(pipe.env()).status().unwrap();
    assert!(status.success(), "producer failed: {status}");
    let summary = pipe.finish().unwrap();
    let out = collect(&rx);
    assert_eq!(summary.events as usize, out.0.len());
    assert_eq!(summary.logs as usize, out.1.len());
    out
}

fn steps(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::StepStarted { step_id, .. } => Some(step_id.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn bash_one_echo_per_event_reopening_the_fifo_each_time() {
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(
        r#"set -e
for i in $(seq 1 200); do
  echo "{\"__mcp_event__\":true,\"type\":\"step_started\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"stepId\":\"s$i\",\"stepName\":\"step $i\"}" > "$MCP_EVENT_PIPE_PATH"
done
echo "plain output line" > "$MCP_EVENT_PIPE_PATH"
echo '{"__mcp_event__":"true","type":"status","timestamp":"t","message":"not an event"}' > "$MCP_EVENT_PIPE_PATH"
echo '{"level":"warn","message":"from the log channel"}' > "$MCP_LOG_PIPE_PATH"
printf '{"__mcp_event__":true,"type":"status","timestamp":"t","message":"no trailing newline"}' > "$MCP_EVENT_PIPE_PATH"
"#,
    );
    let (events, logs) = run(cmd);
    let want: Vec<String> = (1..=200).map(|i| format!("s{i}")).collect();
    assert_eq!(steps(&events), want, "every event, in order");
    assert_eq!(events.len(), 201);
    assert!(
        matches!(&events[200].kind, EventKind::Status { message, .. } if message == "no trailing newline")
    );
    assert_eq!(logs.len(), 3, "{logs:?}");
    assert!(
        logs.iter()
            .any(|l| l.message == "plain output line" && l.source == LogSource::EventChannel)
    );
    assert!(
        logs.iter()
            .any(|l| l.message.contains("not an event") && l.source == LogSource::EventChannel)
    );
    assert!(logs.iter().any(|l| l.message == "from the log channel"
        && l.level == LogLevel::Warn
        && l.source == LogSource::LogChannel));
}

#[test]
fn python_open_write_close_many_times() {
    let mut cmd = Command::new("python3");
    cmd.arg("-c").arg(
        r#"
import json, os
path = os.environ["MCP_EVENT_PIPE_PATH"]
for i in range(50):
    with open(path, "w") as f:
        f.write(json.dumps({"__mcp_event__": True, "type": "step_started", "timestamp": "2026-01-01T00:00:00Z",
                            "stepId": "p%d" % i, "stepName": "py"}) + "\n")
with open(path, "w") as f:
    f.write(json.dumps({"__mcp_event__": True, "type": "step_completed", "timestamp": "t",
                        "stepId": "p49", "stepName": "py", "duration": 12.75, "stepIndex": 1.5}) + "\n")
    print("stdout stays stdout")
with open(os.environ["MCP_LOG_PIPE_PATH"], "w") as f:
    f.write(json.dumps({"level": "error", "message": "py log", "data": {"k": 1}, "timestamp": "t"}) + "\n")
"#,
    );
    let (events, logs) = run(cmd);
    assert_eq!(
        steps(&events),
        (0..50).map(|i| format!("p{i}")).collect::<Vec<_>>()
    );
    assert!(
        matches!(events.last().unwrap().kind, EventKind::StepCompleted { duration: Some(d), step_index: Some(1), .. } if d == 12.75)
    );
    assert_eq!(logs.len(), 1);
    assert_eq!(
        (logs[0].level, logs[0].message.as_str()),
        (LogLevel::Error, "py log")
    );
}

#[test]
fn node_create_write_stream() {
    let mut cmd = Command::new("node");
    cmd.arg("-e").arg(
        r#"
const fs = require("fs");
const s = fs.createWriteStream(process.env.MCP_EVENT_PIPE_PATH);
const emit = (type, fields) => s.write(JSON.stringify({__mcp_event__: true, type, timestamp: new Date().toISOString(), ...fields}) + "\n");
emit("progress", {current: 0, total: 3, message: "starting"});
for (let i = 0; i < 100; i++) emit("step_started", {stepId: "n" + i, stepName: "node step"});
emit("screenshot", {base64: "data:image/png;base64,AAAA", annotation: "shot"});
emit("data", {key: "k", value: [1, {"a": null}]});
console.log("console output is not on the pipe");
s.end();
"#,
    );
    let (events, logs) = run(cmd);
    assert!(logs.is_empty(), "{logs:?}");
    assert_eq!(
        steps(&events),
        (0..100).map(|i| format!("n{i}")).collect::<Vec<_>>()
    );
    assert!(
        matches!(&events[0].kind, EventKind::Progress { current, total: Some(t), .. } if *current == 0.0 && *t == 3.0)
    );
    assert!(
        matches!(&events[101].kind, EventKind::Screenshot { base64: Some(b), .. } if b == "AAAA")
    );
    assert!(
        matches!(&events[102].kind, EventKind::Data { key, value } if key == "k" && value[1]["a"].is_null())
    );
}

/// Runs only as the child of `rust_emitter_from_env_in_a_child_process`.
#[test]
#[ignore = "child process for rust_emitter_from_env_in_a_child_process"]
fn emitter_child() {
    let n: usize = std::env::var("EMIT_COUNT").unwrap().parse().unwrap();
    let em = EventEmitter::from_env().unwrap();
    assert!(em.is_enabled());
    for i in 0..n {
        em.send(EventKind::StepStarted {
            step_id: format!("r{i}"),
            step_name: "rust".into(),
            step_index: Some(i as i64),
            total_steps: None,
        })
        .unwrap();
    }
    em.log(LogLevel::Info, "done").unwrap();
}

fn rust_child(count: usize) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--ignored",
        "--exact",
        "emitter_child",
        "--quiet",
        "--test-threads=1",
    ])
    .env("EMIT_COUNT", count.to_string());
    cmd.stdout(std::process::Stdio::null());
    cmd
}

#[test]
fn rust_emitter_from_env_in_a_child_process() {
    let (events, logs) = run(rust_child(500));
    assert!(logs.is_empty());
    assert_eq!(
        steps(&events),
        (0..500).map(|i| format!("r{i}")).collect::<Vec<_>>()
    );
    assert!(
        matches!(&events[500].kind, EventKind::Log { level: LogLevel::Info, message, .. } if message == "done")
    );
}

#[test]
fn burst_of_100k_events_arrives_complete_and_in_order() {
    let (events, logs) = run(rust_child(100_000));
    assert!(logs.is_empty());
    assert_eq!(events.len(), 100_001);
    for (i, e) in events.iter().take(100_000).enumerate() {
        match &e.kind {
            EventKind::StepStarted {
                step_index: Some(ix),
                ..
            } => assert_eq!(*ix, i as i64, "out of order at {i}"),
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn python_burst_of_100k_lines_in_one_write_stream() {
    let mut cmd = Command::new("python3");
    cmd.arg("-c").arg(
        r#"
import os
with open(os.environ["MCP_EVENT_PIPE_PATH"], "w") as f:
    for i in range(100000):
        f.write('{"__mcp_event__":true,"type":"progress","timestamp":"t","current":%d,"total":100000}\n' % i)
"#,
    );
    let (events, logs) = run(cmd);
    assert!(logs.is_empty());
    assert_eq!(events.len(), 100_000);
    assert!(events.iter().enumerate().all(
        |(i, e)| matches!(e.kind, EventKind::Progress { current, .. } if current == i as f64)
    ));
}

#[test]
fn emitter_without_env_is_a_noop() {
    let em = EventEmitter::disabled();
    assert!(!em.is_enabled());
    em.progress(1.0, None, None).unwrap();
    if std::env::var_os(EVENT_PIPE_ENV).is_none() {
        assert!(!EventEmitter::from_env().unwrap().is_enabled());
    }
}

#[test]
fn channel_is_private_unique_and_removed_after_finish() {
    let base = tempfile::tempdir().unwrap();
    let (a, _ra) = EventPipe::create_in(base.path()).unwrap();
    let (b, _rb) = EventPipe::create_in(base.path()).unwrap();
    assert_ne!(
        a.event_path(),
        b.event_path(),
        "two runs in one process never share a channel"
    );
    assert_ne!(a.execution_id(), b.execution_id());
    let dir = a.event_path().parent().unwrap().to_path_buf();
    assert!(
        dir.file_name()
            .unwrap()
            .to_string_lossy()
            .contains(a.execution_id())
    );
    assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    for p in [a.event_path(), a.log_path()] {
        let m = std::fs::symlink_metadata(p).unwrap();
        assert!(m.file_type().is_fifo());
        assert_eq!(m.mode() & 0o777, 0o600);
    }
    let env = a.env();
    assert_eq!(env[0].0, EVENT_PIPE_ENV);
    assert_eq!(env[1].0, LOG_PIPE_ENV);
    a.finish().unwrap();
    assert!(!dir.exists());
    drop(b);
}
