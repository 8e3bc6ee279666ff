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
//!
//! Everything of the run lives in one private run directory ([`RunDir`]: the script's files,
//! the event pipe, the bridge socket), removed when the run ends. The child runs in a process
//! group of its own ([`super::child`]), killed whole when the run ends. The run is bounded:
//! its time limit (the flow's, and `AUTOMATION_SCRIPT_TIMEOUT`), [`MAX_EVENTS`] items and
//! [`MAX_STEPS`] steps; and it passes only if every step it started finished
//! (`SCRIPT_EXITED_EARLY` names the first that did not).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use automation_core::ErrorCode;
use automation_session::backend::TargetHandle;
use automation_session::files::dirs::RunDir;
use automation_wire::events::{EventKind, EventPipe, LogLevel, LogRecord, LogSource, PipeItem};
use automation_wire::server::{BridgeServer, JsonProtocol, PendingRequest, ServerOptions};
use serde_json::Value;

use super::budget::{self, Deadline, MAX_EVENTS, MAX_STEPS};
use super::child::GroupChild;
use super::child::{self, Line};
use super::error::RunnerError;
use super::events::{CallRecord, RunEvent, Sink};
use super::flow::{Flow, Script, TYPESCRIPT_EXTS};
use super::poll::Coalesce;
use super::report::{RunReport, runner_error};
use super::runtime;
use super::sourcemap::{self, Mapped};
use super::step_events::StepEvents;
use super::verdict::{self, Crash, Places};

mod served;

use served::{CALL_MARKER, ScriptOps, Served};

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
/// Lines of the script's output read ahead of the run's thread, at most.
const OUTPUT_QUEUE: usize = 1024;
/// Env var: the longest a script may run, in seconds (a number above 0, at most a day); the
/// flow's own limit applies too, and the earlier wins.
pub const TIMEOUT_ENV: &str = "AUTOMATION_SCRIPT_TIMEOUT";

/// `AUTOMATION_SCRIPT_TIMEOUT`, when set: the limit, or the refusal naming the variable and
/// its value.
pub fn script_timeout() -> Result<Option<Duration>, RunnerError> {
    let said = match std::env::var(TIMEOUT_ENV) {
        Ok(v) => budget::parse_timeout(TIMEOUT_ENV, &v),
        Err(std::env::VarError::NotPresent) => return Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => Err(format!(
            "{TIMEOUT_ENV}: {v:?} is not a number of seconds; pass e.g. 600"
        )),
    };
    said.map(Some).map_err(|message| RunnerError::Refused {
        code: ErrorCode::BadRequest,
        message,
        hint: "unset AUTOMATION_SCRIPT_TIMEOUT, or set it to a number of seconds".into(),
        field: Some(TIMEOUT_ENV.into()),
    })
}

/// Runs one script to its end, or to `deadline` (the earlier of it and
/// `AUTOMATION_SCRIPT_TIMEOUT`). Its steps, one function each: `prepare` (the limit, the
/// gate, node, the run's directory and the file node runs), `Live::start` (the event pipe,
/// the private endpoint, the child), `Live::watch` (the stream until the child exits or the
/// run stops it), `Live::wind_down` (everything the script started ended, the rest of the
/// stream filed), then the verdict.
pub fn run(
    flow: &Flow,
    script: &Script,
    target: &TargetHandle,
    sink: &mut dyn Sink,
    report: &mut RunReport,
    cancelled: &dyn Fn() -> bool,
    deadline: Deadline,
) {
    let Prepared {
        deadline,
        runtime,
        run_dir,
        entry,
        mapped,
    } = match prepare(script, &report.execution_id, deadline) {
        Ok(p) => p,
        Err(e) => return report.fail(e),
    };
    let launch = Launch {
        flow,
        script,
        target,
        execution_id: &report.execution_id,
        runtime: &runtime,
        entry: &entry,
    };
    let mut live = match Live::start(&launch, run_dir, sink) {
        Ok(l) => l,
        Err(e) => return report.fail(e),
    };
    let mut state = State {
        places: Some(Places {
            entry: &entry,
            mapped: &mapped,
            script,
        }),
        ..State::default()
    };
    let (status, ended) = live.watch(sink, &mut state, cancelled, &deadline);
    live.wind_down(sink, &mut state, ended.is_none());
    let stopped = ended.is_some() || cancelled();
    if let Some(e) = ended {
        report.fail(e);
    }
    let ended = verdict::Ended {
        steps: state.steps.into_steps(),
        crash: state.crash,
        stderr_tail: state.stderr_tail,
        status,
        cancelled: cancelled(),
        stopped,
    };
    verdict::finish(report, ended, &mapped, &entry, script);
}

/// What a script needs before its child starts.
struct Prepared {
    /// The run's time limit: the flow's, or `AUTOMATION_SCRIPT_TIMEOUT` when earlier.
    deadline: Deadline,
    /// What runs the script (node, or bun).
    runtime: runtime::Runtime,
    /// The run's private directory (its `work/`, the event pipe, the bridge socket).
    run_dir: RunDir,
    /// The file node runs.
    entry: PathBuf,
    /// How the entry file's positions map back to the submitted source.
    mapped: Mapped,
}

/// The steps before the child: the limit, the gate (a script that does not compile answers
/// with the transpiler's contract), the runtime, the run's directory, and the file node
/// runs. Each failure is the run's error.
fn prepare(
    script: &Script,
    execution_id: &str,
    deadline: Deadline,
) -> Result<Prepared, RunnerError> {
    let deadline = match script_timeout()? {
        Some(limit) => deadline.min(Deadline::after(limit, TIMEOUT_ENV)),
        None => deadline,
    };
    let gate = automation_transpile::transpile(&script.source)?;
    let runtime = runtime::find()?;
    let run_dir = RunDir::create(execution_id)
        .map_err(|e| RunnerError::file_for("cannot create the run's private directory", e))?;
    let work = run_dir.path().join("work");
    std::fs::DirBuilder::new().create(&work).map_err(|e| {
        runner_error(
            ErrorCode::TargetFailed,
            format!("cannot create {}: {e}", work.display()),
            "check that the runtime directory is writable, then retry",
        )
    })?;
    // What node runs: a plain JS file in place (its own imports resolve, lines are exact);
    // otherwise a file in the run's directory, with its map for TypeScript.
    let (entry, mapped) = entry_file(script, gate.was_typescript, gate.code, &work)?;
    Ok(Prepared {
        deadline,
        runtime,
        run_dir,
        entry,
        mapped,
    })
}

/// What starting the child reads.
struct Launch<'a> {
    flow: &'a Flow,
    script: &'a Script,
    target: &'a TargetHandle,
    execution_id: &'a str,
    runtime: &'a runtime::Runtime,
    entry: &'a Path,
}

/// A running script and what it was given: its pipe, its endpoint, its process group, the
/// readers of its output, and the run's directory, each ended in [`Live::wind_down`]'s order.
struct Live {
    run_dir: RunDir,
    pipe: EventPipe,
    pipe_rx: mpsc::Receiver<PipeItem>,
    served_rx: mpsc::Receiver<Served>,
    ops: Arc<ScriptOps>,
    server: BridgeServer<JsonProtocol>,
    child: std::process::Child,
    group: automation_session::watchdog::Group,
    out_rx: mpsc::Receiver<Line>,
    readers: Vec<mpsc::Receiver<()>>,
}

impl Live {
    /// The event pipe and the private endpoint, for this run only, then the child. Each op
    /// the script sends is handed from the bridge's connection thread straight to the target
    /// thread, which serves it, files its record and answers (this thread is not on the way).
    fn start(launch: &Launch, run_dir: RunDir, sink: &mut dyn Sink) -> Result<Live, RunnerError> {
        let (pipe, pipe_rx) = EventPipe::create_in(run_dir.path()).map_err(|e| {
            runner_error(
                ErrorCode::BridgeIo,
                format!("cannot create the event pipe: {e}"),
                "retry; check $XDG_RUNTIME_DIR is writable",
            )
        })?;
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
            snapshots: launch.flow.snapshots(),
            evidence: launch.flow.evidence,
            records: sink.wants_calls(),
        });
        let mut opts = ServerOptions::new(format!("automation run {}", launch.execution_id));
        opts.publish_descriptor = false;
        opts.base_dir = Some(run_dir.path().to_path_buf());
        let handler = {
            let (target, ops) = (launch.target.clone(), ops.clone());
            move |pending: PendingRequest<JsonProtocol>| {
                let ops = ops.clone();
                // Refused only when the target thread is gone: the request is dropped with
                // the task, and the script's call answers BRIDGE_DROPPED.
                drop(target.run_task(move |backend| ops.serve(backend, pending)));
                Ok(())
            }
        };
        let server =
            BridgeServer::<JsonProtocol>::start_with_handler(opts, handler).map_err(|e| {
                runner_error(
                    ErrorCode::BridgeIo,
                    format!("cannot start the script's bridge endpoint: {e}"),
                    "retry; check $XDG_RUNTIME_DIR is writable",
                )
            })?;
        let work = run_dir.path().join("work");
        let mut cmd = launch.runtime.command(launch.entry, &work);
        cmd.current_dir(
            launch
                .script
                .dir
                .clone()
                .unwrap_or_else(|| PathBuf::from(".")),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env(ENDPOINT_ENV, server.address())
        .env(TOKEN_ENV, server.token())
        .env(EXECUTION_ID_ENV, launch.execution_id)
        .env(
            INPUTS_ENV,
            Value::Object(launch.flow.inputs.clone()).to_string(),
        );
        for (k, v) in pipe.env() {
            cmd.env(k, v);
        }
        let GroupChild { mut child, group } = child::spawn_in_group(cmd).map_err(|e| {
            runner_error(
                ErrorCode::TargetFailed,
                format!("cannot start {}: {e}", launch.runtime.describe()),
                "install node (https://nodejs.org/) or set AUTOMATION_NODE to its path",
            )
        })?;
        // Bounded: a script flooding its output waits for us (its pipe fills), it does not
        // fill our memory.
        let (out_tx, out_rx) = mpsc::sync_channel::<Line>(OUTPUT_QUEUE);
        let mut readers = Vec::new();
        if let Some(s) = child.stdout.take() {
            readers.push(child::read_lines(s, false, out_tx.clone()));
        }
        if let Some(s) = child.stderr.take() {
            readers.push(child::read_lines(s, true, out_tx));
        }
        Ok(Live {
            run_dir,
            pipe,
            pipe_rx,
            served_rx,
            ops,
            server,
            child,
            group,
            out_rx,
            readers,
        })
    }

    /// The stream, until the child exits: its output, the pipe's events and the ops' records
    /// into `sink`. The run's time limit, a budget or `cancelled` kills the child's group;
    /// the error that stopped it is the second value.
    fn watch(
        &mut self,
        sink: &mut dyn Sink,
        state: &mut State,
        cancelled: &dyn Fn() -> bool,
        deadline: &Deadline,
    ) -> (std::io::Result<std::process::ExitStatus>, Option<Value>) {
        let mut ended: Option<Value> = None;
        loop {
            // Woken by the child's output, or every POLL to look at the rest (a child that
            // closed both its streams and runs on is looked at every POLL too, not in a spin).
            match self.out_rx.recv_timeout(POLL) {
                Ok(line) => output_line(line, sink, state),
                Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(POLL),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if ended.is_none() {
                state.take_served(&self.served_rx, sink);
                drain_pipe(&self.pipe_rx, &self.served_rx, sink, state);
                drain_output(&self.out_rx, sink, state);
                ended = if deadline.passed() {
                    Some(deadline.error())
                } else {
                    state.over_budget()
                };
                if ended.is_some() {
                    self.group.kill();
                }
            }
            if cancelled() {
                self.group.kill();
            }
            match self.child.try_wait() {
                Ok(Some(status)) => return (Ok(status), ended),
                Ok(None) => {}
                Err(e) => return (Err(e), ended),
            }
        }
    }

    /// The run has ended: so has everything the script started. The rest of the stream is
    /// filed (the pipe's only when `drain`: not after a budget stopped the run), then the
    /// run's directory is removed.
    fn wind_down(self, sink: &mut dyn Sink, state: &mut State, drain: bool) {
        let Live {
            run_dir,
            pipe,
            pipe_rx,
            served_rx,
            ops,
            server,
            mut child,
            group,
            out_rx,
            readers,
        } = self;
        drop(group);
        drop(server);
        // No marker after this point: the pipe's readers see end of stream once the child's
        // ends and this one are closed (an op still on the target thread is filed unmarked).
        ops.close_markers();
        // The child has exited: everything it wrote is in the pipe; drain it all (unless the
        // run was stopped for going over a budget), then tear down.
        let _ = pipe.finish();
        if drain {
            drain_pipe(&pipe_rx, &served_rx, sink, state);
        }
        state.take_served(&served_rx, sink);
        state.file_calls(sink, None);
        state.coalesce.flush(sink);
        child::join_readers(readers, Duration::from_millis(500));
        drain_output(&out_rx, sink, state);
        drop(run_dir);
        let _ = child.wait();
    }
}

/// The file node runs, and how its positions map back to the submitted source.
fn entry_file(
    script: &Script,
    was_typescript: bool,
    gate_code: String,
    work: &Path,
) -> Result<(PathBuf, Mapped), RunnerError> {
    let write = |name: &str, code: &str| -> Result<PathBuf, RunnerError> {
        let path = work.join(name);
        std::fs::write(&path, code).map_err(|e| {
            runner_error(
                ErrorCode::TargetFailed,
                format!("cannot write the script to {}: {e}", path.display()),
                "check that the temp directory is writable, then retry",
            )
        })?;
        Ok(path)
    };
    // A TypeScript file is transpiled whatever its content looks like: node runs no `.ts`.
    let ts_file = script.dir.is_some()
        && Path::new(&script.file_name)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| TYPESCRIPT_EXTS.contains(&e.to_ascii_lowercase().as_str()));
    if !was_typescript && !ts_file {
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

/// What the stream told us so far.
#[derive(Default)]
struct State<'a> {
    /// Where the script's positions point (none before its file is written).
    places: Option<Places<'a>>,
    steps: StepEvents,
    crash: Option<Crash>,
    stderr_tail: Vec<String>,
    /// Calls whose marker has not been read yet, with when each started.
    pending: Vec<(u64, CallRecord, Instant)>,
    /// Polls folded into one item each.
    coalesce: Coalesce,
    /// Items the run put on the stream so far (events, log records, output lines, calls).
    items: usize,
    /// Steps the script started.
    started: usize,
}

impl State<'_> {
    /// The run's error when it went over a budget.
    fn over_budget(&self) -> Option<Value> {
        if self.items > MAX_EVENTS {
            return Some(budget::exceeded(
                "events",
                MAX_EVENTS,
                &self.step_id(),
                format!(
                    "the script put more than {MAX_EVENTS} items (events, log lines, output lines, op calls) on the stream and was stopped"
                ),
                "emit fewer events and log lines; report progress, not every item",
            ).to_json());
        }
        if self.started > MAX_STEPS {
            return Some(
                budget::exceeded(
                    "steps",
                    MAX_STEPS,
                    &self.step_id(),
                    format!("the script started more than {MAX_STEPS} steps and was stopped"),
                    "group the work into fewer steps",
                )
                .to_json(),
            );
        }
        None
    }

    /// Whether the run may take one more item (counted).
    fn count(&mut self) -> bool {
        self.items += 1;
        self.items <= MAX_EVENTS
    }

    /// Takes the records the target thread has sent so far.
    fn take_served(&mut self, served: &mpsc::Receiver<Served>, sink: &mut dyn Sink) {
        while let Ok(s) = served.try_recv() {
            self.items += 1;
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
            } else if call.tool == automation_session::tools::ASSERT_SCREENSHOT {
                super::notes::baseline_note(&call.result, sink);
            }
            self.coalesce.push(call, at, sink);
        }
    }

    fn step_id(&self) -> String {
        self.steps.current().unwrap_or("script").to_string()
    }

    /// An event with the script's positions in it pointing into the submitted source: a
    /// step's error (the kit's error as JSON, or text) and a log message.
    fn placed(&self, kind: EventKind) -> EventKind {
        let Some(places) = self.places else {
            return kind;
        };
        match kind {
            EventKind::StepFailed {
                step_id,
                step_name,
                error: Some(text),
                duration,
            } => {
                let error = match serde_json::from_str::<Value>(&text) {
                    Ok(Value::Object(mut m)) => {
                        if places.error(&mut m) {
                            Value::Object(m).to_string()
                        } else {
                            text
                        }
                    }
                    Ok(_) => text,
                    Err(_) => places.text(&text),
                };
                EventKind::StepFailed {
                    step_id,
                    step_name,
                    error: Some(error),
                    duration,
                }
            }
            EventKind::Log {
                level,
                message,
                data,
            } => EventKind::Log {
                level,
                message: places.text(&message),
                data,
            },
            other => other,
        }
    }

    /// A line of text with the script's positions pointing into the submitted source.
    fn placed_text(&self, text: String) -> String {
        match self.places {
            Some(places) => places.text(&text),
            None => text,
        }
    }

    fn see(&mut self, kind: &EventKind) {
        if let EventKind::StepStarted { .. } = kind {
            // Past the budget a step is not tracked (the run stops the script at the next
            // check): no report of millions of steps.
            self.started += 1;
            if self.started > MAX_STEPS {
                return;
            }
        }
        self.steps.see(kind);
        if let Some(crash) = crash_report(kind) {
            self.crash = Some(crash);
        }
    }
}

/// The JS client's crash report: a `log` at level error whose data says `uncaught`.
fn crash_report(kind: &EventKind) -> Option<Crash> {
    match kind {
        EventKind::Log {
            level: LogLevel::Error,
            data: Some(data),
            ..
        } => Crash::of(data),
        _ => None,
    }
}

fn drain_pipe(
    rx: &mpsc::Receiver<PipeItem>,
    served: &mpsc::Receiver<Served>,
    sink: &mut dyn Sink,
    state: &mut State,
) {
    while let Ok(item) = rx.try_recv() {
        if !state.count() || state.started > MAX_STEPS {
            // Over a budget: the run is being stopped; the rest is not looked at.
            return;
        }
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
                let kind = state.placed(e.kind);
                state.see(&kind);
                // The crash report becomes the run's error (and its step's, already sent as
                // step_failed): passed on, it would be the same failure shown twice.
                if crash_report(&kind).is_some() {
                    continue;
                }
                sink.event(&RunEvent::Event(kind));
            }
            PipeItem::Log(mut record) => {
                record.message = state.placed_text(record.message);
                sink.event(&RunEvent::Log(record));
            }
        }
    }
}

fn drain_output(rx: &mpsc::Receiver<Line>, sink: &mut dyn Sink, state: &mut State) {
    while let Ok(line) = rx.try_recv() {
        output_line(line, sink, state);
    }
}

/// A line the child wrote on stdout (`false`) or stderr (`true`).
fn output_line((stderr, line): Line, sink: &mut dyn Sink, state: &mut State) {
    if !state.count() {
        return;
    }
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
        // The tail above keeps the raw frames: the verdict maps them itself.
        message: state.placed_text(line),
        data: None,
        timestamp: None,
        source: LogSource::EventChannel,
        rejected: None,
    }));
}
