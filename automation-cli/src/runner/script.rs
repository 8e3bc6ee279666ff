//! A script run: the TypeScript gate, then node (or bun) as a child that drives the caller's
//! session through a private bridge endpoint and streams events over the event pipe.
//!
//! The child's environment carries `AUTOMATION_ENDPOINT` and `AUTOMATION_TOKEN` (a bridge
//! server started for this run only, with a fresh token, no descriptor published),
//! `MCP_EVENT_PIPE_PATH` / `MCP_LOG_PIPE_PATH`, `AUTOMATION_EXECUTION_ID` and
//! `AUTOMATION_INPUTS` (the inputs as JSON). The bridge hands each op the script sends
//! straight to the caller's target thread (the same session a direct MCP call drives), which
//! answers it and sends its record back; this thread pushes the pipe's events, the child's
//! output and those records into the sink.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use automation_core::{Cancel, Reply, Request};
use automation_wire::events::{EventKind, EventPipe, LogLevel, LogRecord, LogSource, PipeItem};
use automation_wire::server::{BridgeServer, JsonProtocol, PendingRequest, ServerOptions};
use serde_json::{Map, Value, json};

use super::events::{CallRecord, RunEvent, Sink};
use super::flow::Script;
use super::poll::Coalesce;
use super::report::{RunReport, StepStatus, runner_error};
use super::runtime;
use super::sourcemap::{self, Mapped};
use super::step_events::StepEvents;
use super::steps::one_line;
use crate::backend::{Backend, TargetHandle, serve_caught};

/// Env var: the bridge endpoint handed to the child.
pub const ENDPOINT_ENV: &str = "AUTOMATION_ENDPOINT";
/// Env var: the token for that endpoint.
pub const TOKEN_ENV: &str = "AUTOMATION_TOKEN";
/// Env var: the run's execution id.
pub const EXECUTION_ID_ENV: &str = "AUTOMATION_EXECUTION_ID";
/// Env var: the run's inputs, as a JSON object.
pub const INPUTS_ENV: &str = "AUTOMATION_INPUTS";

/// How long the child's output is waited on between looks at the pipe, the records and the
/// child.
const POLL: Duration = Duration::from_millis(5);
/// Env var: the longest a script may run, in seconds (default 600).
pub const TIMEOUT_ENV: &str = "AUTOMATION_SCRIPT_TIMEOUT";

fn script_timeout() -> Duration {
    std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(Duration::from_secs(600), Duration::from_secs_f64)
}

/// Runs one script to its end.
pub fn run(
    script: &Script,
    inputs: &Map<String, Value>,
    target: &TargetHandle,
    sink: &mut dyn Sink,
    report: &mut RunReport,
    cancelled: &dyn Fn() -> bool,
) {
    // 1. The gate: a script that does not compile answers with the transpiler's contract.
    let gate = match automation_transpile::transpile(&script.source) {
        Ok(t) => t,
        Err(e) => {
            report.fail(e.to_json());
            return;
        }
    };
    let runtime = match runtime::find() {
        Ok(r) => r,
        Err(e) => {
            report.fail(e);
            return;
        }
    };
    let work = match tempfile::Builder::new().prefix("automation-run-").tempdir() {
        Ok(d) => d,
        Err(e) => {
            report.fail(runner_error(
                "TARGET_FAILED",
                format!("cannot create a directory for the script: {e}"),
                "check that the temp directory is writable, then retry",
            ));
            return;
        }
    };
    // 2. What node runs: a plain JS file in place (its own imports resolve, lines are
    // exact); otherwise a file in the run's directory, with its map for TypeScript.
    let (entry, mapped) = match entry_file(script, gate.was_typescript, gate.code, work.path()) {
        Ok(x) => x,
        Err(e) => {
            report.fail(e);
            return;
        }
    };
    // 3. The event pipe and the private endpoint, for this run only. Each op the script
    // sends is handed from the bridge's connection thread straight to the target thread,
    // which serves it, files its record and answers (this thread is not on the way).
    let (pipe, pipe_rx) = match EventPipe::create() {
        Ok(p) => p,
        Err(e) => {
            report.fail(runner_error(
                "BRIDGE_IO",
                format!("cannot create the event pipe: {e}"),
                "retry; check $XDG_RUNTIME_DIR is writable",
            ));
            return;
        }
    };
    let (served_tx, served_rx) = mpsc::channel::<Served>();
    let ops = Arc::new(ScriptOps {
        marker_out: Mutex::new(
            std::fs::OpenOptions::new()
                .write(true)
                .open(pipe.event_path())
                .ok(),
        ),
        calls: AtomicU64::new(0),
        served: served_tx,
    });
    let mut opts = ServerOptions::new(format!("automation run {}", report.execution_id));
    opts.publish_descriptor = false;
    let handler = {
        let (target, ops) = (target.clone(), ops.clone());
        move |pending: PendingRequest<JsonProtocol>| {
            let ops = ops.clone();
            // Refused only when the target thread is gone: the request is dropped with the
            // task, and the script's call answers BRIDGE_DROPPED.
            drop(target.run_task(move |backend| ops.serve(backend, pending)));
            Ok(())
        }
    };
    let server = match BridgeServer::<JsonProtocol>::start_with_handler(opts, handler) {
        Ok(s) => s,
        Err(e) => {
            report.fail(runner_error(
                "BRIDGE_IO",
                format!("cannot start the script's bridge endpoint: {e}"),
                "retry; check $XDG_RUNTIME_DIR is writable",
            ));
            return;
        }
    };
    let mut cmd = runtime.command(&entry, work.path());
    cmd.current_dir(script.dir.clone().unwrap_or_else(|| PathBuf::from(".")))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env(ENDPOINT_ENV, server.address())
        .env(TOKEN_ENV, server.token())
        .env(EXECUTION_ID_ENV, &report.execution_id)
        .env(INPUTS_ENV, Value::Object(inputs.clone()).to_string());
    for (k, v) in pipe.env() {
        cmd.env(k, v);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            report.fail(runner_error(
                "TARGET_FAILED",
                format!("cannot start {}: {e}", runtime.describe()),
                "install node (https://nodejs.org/) or set AUTOMATION_NODE to its path",
            ));
            return;
        }
    };
    let (out_tx, out_rx) = mpsc::channel::<(bool, String)>();
    let readers = [
        child
            .stdout
            .take()
            .map(|s| read_lines(s, false, out_tx.clone())),
        child.stderr.take().map(|s| read_lines(s, true, out_tx)),
    ];
    let mut state = State::default();
    let (begun, limit) = (Instant::now(), script_timeout());
    let mut timed_out = false;
    let status = loop {
        // Woken by the child's output, or every POLL to look at the rest (a child that
        // closed both its streams and runs on is looked at every POLL too, not in a spin).
        match out_rx.recv_timeout(POLL) {
            Ok(line) => output_line(line, sink, &mut state),
            Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(POLL),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        state.take_served(&served_rx, sink);
        drain_pipe(&pipe_rx, &served_rx, sink, &mut state);
        drain_output(&out_rx, sink, &mut state);
        if cancelled() {
            let _ = child.kill();
        }
        if !timed_out && begun.elapsed() > limit {
            timed_out = true;
            let _ = child.kill();
        }
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => break Err(e),
        }
    };
    drop(server);
    // No marker after this point: the pipe's readers see end of stream once the child's
    // ends and this one are closed (an op still on the target thread is filed unmarked).
    ops.close_markers();
    // The child has exited: everything it wrote is in the pipe; drain it all, then tear down.
    let _ = pipe.finish();
    drain_pipe(&pipe_rx, &served_rx, sink, &mut state);
    state.take_served(&served_rx, sink);
    state.file_calls(sink, None);
    state.coalesce.flush(sink);
    for r in readers.into_iter().flatten() {
        let _ = r.join();
    }
    drain_output(&out_rx, sink, &mut state);
    if timed_out {
        report.fail(runner_error(
            "TARGET_TIMEOUT",
            format!(
                "the script ran longer than {:.0} s and was stopped",
                limit.as_secs_f64()
            ),
            "make the script finish sooner, or raise AUTOMATION_SCRIPT_TIMEOUT (seconds)",
        ));
    }
    finish(
        report,
        state,
        status,
        &mapped,
        &entry,
        script,
        cancelled(),
        &mut child,
    );
}

/// The file node runs, and how its positions map back to the submitted source.
fn entry_file(
    script: &Script,
    was_typescript: bool,
    gate_code: String,
    work: &Path,
) -> Result<(PathBuf, Mapped), Value> {
    let write = |name: &str, code: &str| -> Result<PathBuf, Value> {
        let path = work.join(name);
        std::fs::write(&path, code).map_err(|e| {
            runner_error(
                "TARGET_FAILED",
                format!("cannot write the script to {}: {e}", path.display()),
                "check that the temp directory is writable, then retry",
            )
        })?;
        Ok(path)
    };
    if !was_typescript {
        if let Some(dir) = &script.dir {
            let own = dir.join(Path::new(&script.file_name).file_name().unwrap_or_default());
            if own.is_file() {
                return Ok((own, Mapped::identity(script.source.clone())));
            }
        }
        let path = write("script.mjs", &script.source)?;
        return Ok((path, Mapped::identity(script.source.clone())));
    }
    let mapped =
        sourcemap::transpile(&script.source).unwrap_or_else(|| Mapped::identity(gate_code));
    let path = write("script.mjs", &mapped.code)?;
    Ok((path, mapped))
}

fn read_lines<R: std::io::Read + Send + 'static>(
    from: R,
    stderr: bool,
    tx: mpsc::Sender<(bool, String)>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if tx.send((stderr, line)).is_err() {
                break;
            }
        }
    })
}

/// What the stream told us so far.
#[derive(Default)]
struct State {
    steps: StepEvents,
    crash: Option<Value>,
    stderr_tail: Vec<String>,
    /// Calls whose marker has not been read yet, with when each started.
    pending: Vec<(u64, CallRecord, Instant)>,
    /// Polls folded into one item each.
    coalesce: Coalesce,
}

/// The data key of the runner's own call markers (never passed on to the sinks).
const CALL_MARKER: &str = "__automation_call__";

/// What the target thread tells the run's thread about the ops it served for the script.
enum Served {
    /// An op's record, its marker's number and when it started: filed when the marker is
    /// read from the event channel.
    Call(u64, CallRecord, Instant),
    /// Marker `n` could not be written: file the calls up to it now.
    Unmarked(u64),
}

/// What the target thread needs to serve the script's ops, shared by their tasks (which run
/// one at a time, in order, on that thread).
struct ScriptOps {
    /// The runner's own end of the event channel, for the call markers.
    marker_out: Mutex<Option<std::fs::File>>,
    /// Calls served so far (the markers' numbers).
    calls: AtomicU64,
    served: mpsc::Sender<Served>,
}

impl ScriptOps {
    /// Serves one op on the target thread: the reply, then its record to the run's thread,
    /// then a marker on the event channel, then the answer. The marker lands after every
    /// event the script wrote before this request and before any it writes after the reply,
    /// so the call is filed under the right step when the marker is read; the record was
    /// sent before the marker, so it is there to file when the marker is read.
    fn serve(&self, backend: &mut Box<dyn Backend>, pending: PendingRequest<JsonProtocol>) {
        let (request, responder) = pending.into_parts();
        let started = Instant::now();
        let (reply, call) = serve(backend, request);
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = self.served.send(Served::Call(n, call, started));
        let marked = self
            .marker_out
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
            .is_some_and(|f| write_marker(f, n));
        if !marked {
            let _ = self.served.send(Served::Unmarked(n));
        }
        let sent = responder.respond(reply);
        tracing::debug!(sent, "script reply");
    }

    fn close_markers(&self) {
        *self
            .marker_out
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
    }
}

fn write_marker(f: &mut std::fs::File, n: u64) -> bool {
    use std::io::Write as _;
    let line = format!(
        "{{\"__mcp_event__\":true,\"type\":\"data\",\"timestamp\":\"{}\",\"key\":\"{CALL_MARKER}\",\"value\":{n}}}\n",
        automation_wire::events::iso8601_now()
    );
    f.write_all(line.as_bytes()).is_ok()
}

impl State {
    /// Takes the records the target thread has sent so far.
    fn take_served(&mut self, served: &mpsc::Receiver<Served>, sink: &mut dyn Sink) {
        while let Ok(s) = served.try_recv() {
            match s {
                Served::Call(n, call, at) => self.pending.push((n, call, at)),
                Served::Unmarked(n) => self.file_calls(sink, Some(n)),
            }
        }
    }

    /// Files the calls up to marker `upto` (all when `None`) under the current step; a poll
    /// is held until it ends ([`Coalesce`]).
    fn file_calls(&mut self, sink: &mut dyn Sink, upto: Option<u64>) {
        let (ready, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|(n, _, _)| upto.is_none_or(|u| *n <= u));
        self.pending = rest;
        for (_, mut call, at) in ready {
            call.step_id = self.step_id();
            if call.is_error {
                self.steps.op_failed(call.result.clone());
            }
            self.coalesce.push(call, at, sink);
        }
    }

    fn step_id(&self) -> String {
        self.steps.current().unwrap_or("script").to_string()
    }

    fn see(&mut self, kind: &EventKind) {
        self.steps.see(kind);
        if let EventKind::Log {
            data: Some(data), ..
        } = kind
            && is_crash(kind)
        {
            self.crash = Some(data.clone());
        }
    }
}

/// The JS client's crash report: a `log` at level error whose data says `uncaught`.
fn is_crash(kind: &EventKind) -> bool {
    matches!(kind, EventKind::Log {
        level: LogLevel::Error,
        data: Some(data),
        ..
    } if data.get("uncaught").is_some())
}

fn drain_pipe(
    rx: &mpsc::Receiver<PipeItem>,
    served: &mpsc::Receiver<Served>,
    sink: &mut dyn Sink,
    state: &mut State,
) {
    while let Ok(item) = rx.try_recv() {
        match item {
            PipeItem::Event(e) => {
                if let EventKind::Data { key, value } = &e.kind
                    && key == CALL_MARKER
                {
                    // The marker's record was sent before the marker was written.
                    state.take_served(served, sink);
                    state.file_calls(sink, value.as_u64());
                    continue;
                }
                if matches!(
                    e.kind,
                    EventKind::StepStarted { .. }
                        | EventKind::StepCompleted { .. }
                        | EventKind::StepFailed { .. }
                ) {
                    // A poll does not run across a step's boundary.
                    state.coalesce.flush(sink);
                }
                state.see(&e.kind);
                // The crash report becomes the run's error (and its step's, already sent as
                // step_failed): passed on, it would be the same failure shown twice.
                if is_crash(&e.kind) {
                    continue;
                }
                sink.event(&RunEvent::Event(e.kind));
            }
            PipeItem::Log(record) => sink.event(&RunEvent::Log(record)),
        }
    }
}

fn drain_output(rx: &mpsc::Receiver<(bool, String)>, sink: &mut dyn Sink, state: &mut State) {
    while let Ok(line) = rx.try_recv() {
        output_line(line, sink, state);
    }
}

/// A line the child wrote on stdout (`false`) or stderr (`true`).
fn output_line((stderr, line): (bool, String), sink: &mut dyn Sink, state: &mut State) {
    if stderr {
        state.stderr_tail.push(line.clone());
        if state.stderr_tail.len() > 40 {
            state.stderr_tail.remove(0);
        }
    }
    sink.event(&RunEvent::Log(LogRecord {
        level: if stderr {
            LogLevel::Warn
        } else {
            LogLevel::Info
        },
        message: line,
        data: None,
        timestamp: None,
        source: LogSource::EventChannel,
        rejected: None,
    }));
}

/// Serves one bridge request with the backend (on the target thread): the reply, and its
/// record.
/// Answers one bridge request on the caller's target thread: the reply, and its record.
fn serve(backend: &mut Box<dyn Backend>, request: Value) -> (Value, CallRecord) {
    let (tool, args) = match request.get("op") {
        Some(Value::String(name)) => (name.clone(), json!({})),
        Some(Value::Object(m)) if m.len() == 1 => m
            .iter()
            .next()
            .map(|(k, v)| (k.clone(), v.clone()))
            .unwrap_or_default(),
        _ => ("?".to_string(), Value::Null),
    };
    let t = Instant::now();
    tracing::debug!(op = %tool, "script request");
    let reply = match Request::from_value(request) {
        Ok(req) => serve_caught(backend, &req, &Cancel::new()),
        Err(e) => Reply::Err(e),
    };
    // The script's wire is JSON: a screenshot's PNG becomes base64 here, for the script only;
    // the record keeps the bytes (its `.png`) and the image's size as the result.
    let reply_json = serde_json::to_value(&reply).unwrap_or(Value::Null);
    let (is_error, result, image) = match reply {
        Reply::Ok(data) => (false, data, None),
        Reply::Image(image) => (
            false,
            Value::Object(image.meta()),
            Some(Arc::new(image.png)),
        ),
        Reply::Err(_) => (true, reply_json.clone(), None),
    };
    let call = CallRecord {
        step_id: String::new(),
        tool,
        args,
        result,
        is_error,
        duration_ms: t.elapsed().as_secs_f64() * 1000.0,
        image,
    };
    (reply_json, call)
}

/// A `{file, line, column}` in the entry file (a frame the JS client reports), mapped to the
/// submitted source; `None` for another file or a malformed frame.
fn entry_frame(loc: &Value, entry: &Path, mapped: &Mapped) -> Option<(u32, u32)> {
    let file = loc.get("file")?.as_str()?;
    (Path::new(file) == entry).then_some(())?;
    let line = u32::try_from(loc.get("line")?.as_u64()?).ok()?;
    let column = u32::try_from(loc.get("column")?.as_u64()?).ok()?;
    mapped.original(line, column)
}

/// A stack frame `…<path>:L:C` of the entry file, mapped to the submitted source.
fn locate(text: &str, entry: &Path, mapped: &Mapped) -> Option<(u32, u32)> {
    let plain = entry.display().to_string();
    for line in text.lines() {
        let Some(at) = line.find(&plain) else {
            continue;
        };
        let rest = &line[at + plain.len()..];
        let mut nums = rest
            .trim_start_matches(':')
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<u32>().ok());
        if let (Some(Some(l)), Some(Some(c))) = (nums.next(), nums.next()) {
            return mapped.original(l, c);
        }
    }
    None
}

#[allow(clippy::too_many_arguments)]
fn finish(
    report: &mut RunReport,
    state: State,
    status: std::io::Result<std::process::ExitStatus>,
    mapped: &Mapped,
    entry: &Path,
    script: &Script,
    cancelled: bool,
    child: &mut Child,
) {
    let _ = child.wait();
    let mut steps = state.steps.finish("the script exited during this step");
    let source_line = |line: u32| {
        script
            .source
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .unwrap_or_default()
            .to_string()
    };
    // Where in the submitted source a failed step threw: the frame its error carries (the JS
    // client adds it), else the crash's when the crash was that step's.
    let crash_frame = state.crash.as_ref().and_then(|crash| {
        let step = crash.pointer("/step/stepId")?.as_str()?.to_string();
        Some((step, entry_frame(crash.get("location")?, entry, mapped)?))
    });
    for s in steps.iter_mut().filter(|s| s.status == StepStatus::Failed) {
        let Some(Value::Object(e)) = &mut s.error else {
            continue;
        };
        let own = e
            .get("location")
            .and_then(|loc| entry_frame(loc, entry, mapped));
        let frame = own.or_else(|| {
            crash_frame
                .as_ref()
                .filter(|(step, _)| *step == s.id)
                .map(|(_, f)| *f)
        });
        if let Some((line, column)) = frame {
            e.insert(
                "location".into(),
                json!({"file": script.file_name, "line": line, "column": column}),
            );
            e.insert("error_line".into(), json!(source_line(line)));
        }
        // Else a location the client gave stays as it is: a module the script imports, a
        // real file.
    }
    let failed_step = steps
        .iter()
        .find(|s| s.status == StepStatus::Failed)
        .and_then(|s| s.error.clone());
    report.steps = steps;
    if let Some(crash) = &state.crash {
        let frame = crash
            .get("location")
            .and_then(|loc| entry_frame(loc, entry, mapped))
            .or_else(|| {
                crash
                    .get("stack")
                    .and_then(Value::as_str)
                    .and_then(|s| locate(s, entry, mapped))
            });
        let kit = crash.get("error").cloned();
        let mut err = json!({
            "code": crash.get("code").and_then(Value::as_str).unwrap_or("SCRIPT_ERROR"),
            "message": format!(
                "{}: {}",
                crash.get("name").and_then(Value::as_str).unwrap_or("Error"),
                crash.get("message").and_then(Value::as_str).unwrap_or("uncaught exception")
            ),
            "hint": "fix the script at that line and resubmit",
        });
        if let Value::Object(m) = &mut err {
            if let Some((line, column)) = frame {
                m.insert(
                    "location".into(),
                    json!({"file": script.file_name, "line": line, "column": column}),
                );
                m.insert("error_line".into(), json!(source_line(line)));
            }
            if let Some(step) = crash.get("step").filter(|s| !s.is_null()) {
                m.insert(
                    "step".into(),
                    step.get("stepId").cloned().unwrap_or_else(|| step.clone()),
                );
            }
            if let Some(Value::Object(k)) = kit {
                for key in ["hint", "candidates", "actual", "expected", "op"] {
                    if let Some(v) = k.get(key) {
                        m.insert(key.into(), v.clone());
                    }
                }
            }
        }
        report.fail(err);
    }
    if let Some(e) = failed_step {
        report.fail(e);
    }
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            let tail = state.stderr_tail.join("\n");
            let mut err = runner_error(
                if cancelled {
                    "CANCELLED"
                } else {
                    "SCRIPT_ERROR"
                },
                if cancelled {
                    "the run was cancelled; the script was stopped".to_string()
                } else {
                    format!("the script exited with {s}")
                },
                "read stderr below; fix the script and resubmit",
            );
            if let (Value::Object(m), Some((line, column))) =
                (&mut err, locate(&tail, entry, mapped))
            {
                m.insert(
                    "location".into(),
                    json!({"file": script.file_name, "line": line, "column": column}),
                );
                m.insert("error_line".into(), json!(source_line(line)));
            }
            if let Value::Object(m) = &mut err
                && !tail.is_empty()
            {
                m.insert("stderr".into(), json!(tail));
            }
            report.fail(err);
        }
        Err(e) => report.fail(runner_error(
            "TARGET_FAILED",
            format!("waiting for the script failed: {e}"),
            "retry",
        )),
    }
    if !report.passed()
        && let Some(e) = &report.error
    {
        tracing::debug!(error = %one_line(e), "script failed");
    }
}
