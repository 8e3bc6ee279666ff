//! `execute_sequence` over MCP: the run, its stream turned into notifications, the report as
//! the result. Steps run on the target thread (`runner::on_target`) and their stream comes
//! to this async task as it happens. A script runs on a blocking thread with its stream sent
//! here as it comes; when nobody listens (no progress token, no log level) it runs on the
//! worker thread itself (`block_in_place`), with no per-event hand-off.
//!
//! Progress goes only on the client's own `_meta.progressToken` (none sent: no progress),
//! strictly increasing (a value not above the last one becomes the last one plus a
//! thousandth, so retries, jumps, a script's own progress and heartbeats never go back),
//! at most one per [`MIN_INTERVAL`], and never after the response: the result is built only
//! once the stream has ended and the last pending notification has gone out. Step and log
//! events become `notifications/message` only when the request carries
//! `_meta["io.modelcontextprotocol/logLevel"]` (MCP 2026-07-28); otherwise their text rides
//! in the progress `message`.

// MCP logging is deprecated (SEP-2577) but still the opt-in channel for step events.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use automation_wire::events::{EventKind, LogLevel};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, JsonObject, LoggingLevel,
    ProgressNotificationParam, ProgressToken, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use serde_json::{Value, json};

use crate::backend::TargetHandle;
use crate::mcp::image;
use crate::runner::events::{Fanout, RunEvent, Sink};
use crate::runner::flow::{self, FlowBody};
use crate::runner::on_target::{Forward, StepsRun};
use crate::runner::report::RunReport;
use crate::runner::sinks::records::{self, RecordsSink};
use crate::runner::steps::one_line;

/// The tool's name.
pub const TOOL: &str = "execute_sequence";
/// Fewest milliseconds between two progress notifications.
pub const MIN_INTERVAL: Duration = Duration::from_millis(50);
/// A notification at least this often while a step runs (the client may reset its timeout).
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// Screenshots returned as image content, at most.
pub const MAX_IMAGES: usize = 3;

/// The tool's description and schema.
pub fn tool() -> Tool {
    let schema = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "script": {"type": "string", "description": "A TypeScript or JavaScript test (detected, no flag). It drives this session through the JS client: import { connect, expect, emit, step } from '@automation-kit/client'; const app = await connect(); await app.find({role: 'Button', name: 'Save'}).click();"},
            "file": {"type": "string", "description": "A flow file: .ts/.js (a script) or .json/.yaml (steps)."},
            "steps": {"type": "array", "description": "Tool calls in order: {id?, tool, args?, if?, retries?, retry_delay_ms?, continue_on_error?, fallback_id?}. Strings in args may hold {{expr}}; conditions see inputs, <id>_result and <id>_status.", "items": {"type": "object"}},
            "inputs": {"type": "object", "description": "Values for the flow's inputs (over their defaults); a script reads them from $AUTOMATION_INPUTS."},
            "stop_on_error": {"type": "boolean", "default": true, "description": "Steps: stop at the first failure without fallback_id or continue_on_error."},
            "start_from_step": {"type": "string", "description": "Steps: begin at the step with this id."}
        }
    });
    let schema = match schema {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    };
    Tool::new(
        TOOL,
        "Run a test against this session: a TypeScript/JavaScript `script`, a flow `file`, or a list of `steps`. Progress arrives on your progress token; the result is a per-step report (status, duration, error) with the failing step's structured error (a script that does not compile returns the transpiler's {error_type, can_fix, location, error_line, fix, recovery}).",
        Arc::new(schema),
    )
    .with_annotations(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(false)
            .idempotent(false)
            .open_world(false),
    )
}

/// Handles one `tools/call execute_sequence`.
pub async fn call(
    target: TargetHandle,
    arguments: Option<JsonObject>,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let args = arguments.unwrap_or_default();
    let flow = match flow::from_arguments(&args) {
        Ok(f) => f,
        Err(e) => return Ok(CallToolResult::structured_error(e).into()),
    };
    let mut notifier = Notifier {
        peer: context.peer.clone(),
        token: context.meta.get_progress_token(),
        log_level: context.meta.log_level(),
        last: 0.0,
        total: None,
        // The request's start counts as the last send: a run done within one interval
        // sends one progress (its last) rather than two.
        sent_at: Instant::now(),
        pending: None,
    };
    let execution_id = crate::runner::new_execution_id();
    // Nobody to notify (no progress token, no log level): no live stream at all. The run
    // goes on this worker thread (`block_in_place`: no hand-off to a blocking thread, no
    // wake-up of this task per event), its screenshots collected on the way.
    let live = notifier.token.is_some() || notifier.log_level.is_some();
    let multi_thread = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    let (report, shots) = match &flow.body {
        FlowBody::Steps(seq) => {
            let run = Run {
                flow: &flow,
                execution_id: &execution_id,
                context: &context,
            };
            run.steps(seq, &target, &mut notifier, live).await
        }
        FlowBody::Script(_) if !live && multi_thread => {
            let ct = context.ct.clone();
            tokio::task::block_in_place(|| {
                run_collecting(&flow, &execution_id, &target, None, &|| ct.is_cancelled())
            })
        }
        FlowBody::Script(_) => run_live(flow, &execution_id, target, &context, &mut notifier).await?,
    };
    if context.ct.is_cancelled() {
        return Err(McpError::internal_error("request cancelled", None));
    }
    let summary = report.to_json();
    let mut content = vec![ContentBlock::text(summary.to_string())];
    for b64 in shots.fitted() {
        content.push(ContentBlock::image(b64, "image/png"));
    }
    let mut result = if report.passed() {
        CallToolResult::success(content)
    } else {
        CallToolResult::error(content)
    };
    result.structured_content = Some(summary);
    tracing::debug!(execution = %execution_id, passed = report.passed(), "execute_sequence done");
    Ok(result.into())
}

/// One `execute_sequence` call's steps run.
struct Run<'a> {
    flow: &'a flow::Flow,
    execution_id: &'a str,
    context: &'a RequestContext<RoleServer>,
}

impl Run<'_> {
    /// A steps flow: the engine on the target thread with the records and the screenshot
    /// collector beside it; its stream comes here only when somebody listens (`live`), to
    /// become notifications.
    async fn steps(
        &self,
        seq: &flow::Sequence,
        target: &TargetHandle,
        notifier: &mut Notifier,
        live: bool,
    ) -> (RunReport, Shots) {
        let started = Instant::now();
        let (records, records_dir) = records_sinks(self.execution_id);
        let kept = Kept {
            shots: Shots::default(),
            records,
        };
        let report = RunReport::new(&self.flow.name, self.execution_id);
        let forward = if live {
            Forward::AllButCalls
        } else {
            Forward::Nothing
        };
        let mut run = StepsRun::start(seq, &self.flow.inputs, target, report, kept, forward);
        let cancel = run.cancel.clone();
        let ct = &self.context.ct;
        // Not live: nothing was forwarded, and the stream is already closed.
        loop {
            let wait = notifier.next_deadline();
            tokio::select! {
                item = run.events.recv() => match item {
                    Some(event) => notifier.on(&event).await,
                    None => break,
                },
                () = ct.cancelled(), if !cancel.is_cancelled() => cancel.cancel(),
                () = tokio::time::sleep(wait), if live => notifier.tick().await,
            }
        }
        // Everything pending goes out now, before the response.
        notifier.flush().await;
        let finish = run.finish();
        tokio::pin!(finish);
        let (report, kept) = loop {
            tokio::select! {
                done = &mut finish => break done,
                () = ct.cancelled(), if !cancel.is_cancelled() => cancel.cancel(),
            }
        };
        let Kept { shots, mut records } = kept.unwrap_or_default();
        let mut report = crate::runner::finish_run(report, started, &mut records);
        report.records = records_dir;
        (report, shots)
    }
}

/// What a steps run keeps on the target thread: its screenshots and its records.
#[derive(Default)]
struct Kept {
    shots: Shots,
    records: Fanout,
}

impl Sink for Kept {
    fn event(&mut self, event: &RunEvent) {
        self.shots.see(event);
        self.records.event(event);
    }
}

/// The records sink when records are on (and its directory), in a fanout.
fn records_sinks(execution_id: &str) -> (Fanout, Option<String>) {
    let mut sinks = Fanout::new();
    let mut records_dir = None;
    if records::enabled()
        && let Some(root) = records::default_root()
        && let Ok(r) = RecordsSink::create(&root, execution_id)
    {
        records_dir = Some(r.dir().display().to_string());
        sinks.push(Box::new(r));
    }
    (sinks, records_dir)
}

/// Runs a script flow on this thread with the records sink (when records are on), the run's
/// screenshots collected, and every item also passed to `forward` (the live stream).
fn run_collecting(
    flow: &flow::Flow,
    execution_id: &str,
    target: &TargetHandle,
    forward: Option<ToNotifier>,
    cancelled: &dyn Fn() -> bool,
) -> (RunReport, Shots) {
    let (mut sinks, records_dir) = records_sinks(execution_id);
    if let Some(f) = forward {
        sinks.push(Box::new(f));
    }
    let mut shots = Shots::default();
    let mut tee = Tee(&mut shots, &mut sinks);
    let mut report = crate::runner::run_flow(flow, execution_id, target, &mut tee, cancelled);
    report.records = records_dir;
    (report, shots)
}

/// The run on a blocking thread, its stream turned into notifications here as it comes;
/// returns once the stream has ended and the last held notification has gone out.
async fn run_live(
    flow: flow::Flow,
    execution_id: &str,
    target: TargetHandle,
    context: &RequestContext<RoleServer>,
    notifier: &mut Notifier,
) -> Result<(RunReport, Shots), McpError> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = cancelled.clone();
    let id = execution_id.to_string();
    let run = tokio::task::spawn_blocking(move || {
        run_collecting(&flow, &id, &target, Some(ToNotifier(tx)), &|| {
            flag.load(Ordering::SeqCst)
        })
    });
    loop {
        let wait = notifier.next_deadline();
        tokio::select! {
            item = rx.recv() => match item {
                Some(event) => notifier.on(&event).await,
                None => break,
            },
            () = context.ct.cancelled(), if !cancelled.load(Ordering::SeqCst) => {
                cancelled.store(true, Ordering::SeqCst);
            }
            () = tokio::time::sleep(wait) => notifier.tick().await,
        }
    }
    // Everything pending goes out now, before the response.
    notifier.flush().await;
    run.await
        .map_err(|e| McpError::internal_error(format!("the run stopped: {e}"), None))
}

/// Feeds the screenshot collector and the other sinks.
struct Tee<'a>(&'a mut Shots, &'a mut Fanout);

impl Sink for Tee<'_> {
    fn event(&mut self, event: &RunEvent) {
        self.0.see(event);
        self.1.event(event);
    }

    fn finish(&mut self, report: &RunReport) -> Result<(), String> {
        self.1.finish(report)
    }
}

/// Passes the run's stream to the async side, without the calls (their arguments and
/// results are not notified; their screenshots are collected where the run is).
struct ToNotifier(tokio::sync::mpsc::UnboundedSender<RunEvent>);

impl Sink for ToNotifier {
    fn event(&mut self, event: &RunEvent) {
        if !matches!(event, RunEvent::Call(_)) {
            let _ = self.0.send(event.clone());
        }
    }
}

/// The screenshots a run took (a call's image and the screenshot event it raised are one),
/// the last [`MAX_IMAGES`] of them returned as image content.
#[derive(Default)]
struct Shots(Vec<String>);

impl Shots {
    fn see(&mut self, event: &RunEvent) {
        let b64 = match event {
            RunEvent::Call(c) => c.image_base64.as_deref(),
            RunEvent::Event(EventKind::Screenshot { base64, .. }) => base64.as_deref(),
            _ => None,
        };
        if let Some(b64) = b64
            && !self.0.iter().any(|s| s == b64)
        {
            self.0.push(b64.to_string());
        }
    }

    /// The last ones, each downscaled to the screenshot tool's default budget (decoded and
    /// re-encoded once, at the end, and only those returned).
    fn fitted(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for b64 in self.0.iter().rev().take(MAX_IMAGES).rev() {
            let Ok(png) = B64.decode(b64) else { continue };
            if let Ok(f) = image::fit(&png, image::DEFAULT_MAX_DIMENSION, image::DEFAULT_MAX_BYTES)
                && !out.contains(&f.base64)
            {
                out.push(f.base64);
            }
        }
        out
    }
}

struct Notifier {
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    log_level: Option<LoggingLevel>,
    last: f64,
    total: Option<f64>,
    /// When progress last went out (the request's start before the first).
    sent_at: Instant,
    /// A progress notification held back by the rate limit: (value, message).
    pending: Option<(f64, Option<String>)>,
}

fn level_of(l: LogLevel) -> LoggingLevel {
    match l {
        LogLevel::Trace | LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Warn => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
    }
}

fn rank(l: LoggingLevel) -> u8 {
    match l {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

impl Notifier {
    /// The text and level of an event as a log line, when it is one.
    fn as_log(event: &RunEvent) -> Option<(LoggingLevel, String, Value)> {
        match event {
            RunEvent::Event(kind) => {
                let (level, text) = match kind {
                    EventKind::StepStarted {
                        step_name, step_id, ..
                    } => (LoggingLevel::Info, format!("▶ {step_name} ({step_id})")),
                    EventKind::StepCompleted {
                        step_name,
                        duration,
                        ..
                    } => (
                        LoggingLevel::Info,
                        format!(
                            "✓ {step_name}{}",
                            duration
                                .map(|d| format!(" ({d:.0} ms)"))
                                .unwrap_or_default()
                        ),
                    ),
                    EventKind::StepFailed {
                        step_name, error, ..
                    } => (
                        LoggingLevel::Error,
                        format!("✗ {step_name}: {}", error.as_deref().unwrap_or("failed")),
                    ),
                    EventKind::Log { level, message, .. } => (level_of(*level), message.clone()),
                    EventKind::Status { message, .. } => (LoggingLevel::Info, message.clone()),
                    EventKind::Screenshot { annotation, .. } => (
                        LoggingLevel::Info,
                        format!(
                            "screenshot{}",
                            annotation
                                .as_deref()
                                .map(|a| format!(": {a}"))
                                .unwrap_or_default()
                        ),
                    ),
                    EventKind::Progress { .. } | EventKind::Data { .. } => return None,
                };
                let data = json!({"type": kind.wire_type(), "message": text});
                Some((level, text, data))
            }
            RunEvent::Log(r) => Some((
                level_of(r.level),
                r.message.clone(),
                json!({"type": "output", "message": r.message}),
            )),
            RunEvent::Call(_) => None,
        }
    }

    async fn on(&mut self, event: &RunEvent) {
        if let RunEvent::Event(EventKind::Progress {
            current,
            total,
            message,
        }) = event
        {
            if let Some(t) = total {
                self.total = Some(*t);
            }
            self.queue(*current, message.clone()).await;
            return;
        }
        if self.token.is_none() && self.log_level.is_none() {
            return; // neither progress nor log notifications: nothing to format
        }
        let Some((level, text, data)) = Self::as_log(event) else {
            return;
        };
        match self.log_level {
            Some(min) => {
                if rank(level) >= rank(min) {
                    #[allow(deprecated)]
                    let param = rmcp::model::LoggingMessageNotificationParam::new(level, data)
                        .with_logger("automation");
                    #[allow(deprecated)]
                    let _ = self.peer.notify_logging_message(param).await;
                }
            }
            // The capability downgrade: the text rides in the progress message.
            None => {
                if matches!(event, RunEvent::Event(_)) {
                    let v = self.last;
                    self.queue(v, Some(text)).await;
                }
            }
        }
    }

    /// Queues a progress notification (sent now, or when the rate limit allows).
    async fn queue(&mut self, value: f64, message: Option<String>) {
        if self.token.is_none() {
            return;
        }
        let base = self.pending.as_ref().map_or(self.last, |p| p.0);
        let v = if value > base { value } else { base + 0.001 };
        let message = message.or_else(|| self.pending.take().and_then(|p| p.1));
        self.pending = Some((v, message));
        if self.sent_at.elapsed() >= MIN_INTERVAL {
            self.flush().await;
        }
    }

    fn next_deadline(&self) -> Duration {
        let since = self.sent_at.elapsed();
        if self.pending.is_some() {
            MIN_INTERVAL.saturating_sub(since)
        } else {
            HEARTBEAT.saturating_sub(since)
        }
    }

    /// A timer fired: send what is pending, or a heartbeat.
    async fn tick(&mut self) {
        if self.pending.is_some() {
            self.flush().await;
        } else if self.token.is_some() {
            let v = self.last + 0.001;
            self.pending = Some((v, Some("still running".into())));
            self.flush().await;
        }
    }

    async fn flush(&mut self) {
        let (Some(token), Some((value, message))) = (self.token.clone(), self.pending.take())
        else {
            return;
        };
        if value <= self.last {
            return;
        }
        let mut p = ProgressNotificationParam::new(token, value);
        if let Some(t) = self.total {
            p = p.with_total(t.max(value));
        }
        if let Some(m) = message {
            p = p.with_message(m);
        }
        self.last = value;
        self.sent_at = Instant::now();
        let _ = self.peer.notify_progress(p).await;
    }
}

/// `CODE: message` of a report's error (for logs).
pub fn describe_error(report: &Value) -> String {
    report.get("error").map(one_line).unwrap_or_default()
}
