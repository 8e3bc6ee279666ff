//! `execute_sequence` over MCP: the run, its notifications, the report as the result (the
//! runner runs the flow; this is its MCP front door).
//!
//! Steps run on the target thread (`runner::on_target`), a script on a blocking thread (or,
//! when nobody listens, on this worker thread itself: `block_in_place`). Either way the run's
//! items pass through the request's [`Gate`] where the run is, and only the notifications due
//! now cross to this task, which sends them, keeps the heartbeat, and sends the held progress
//! before the response.

use std::sync::Arc;
use std::time::Instant;

use automation_core::Cancel;
use automation_runner::error::RunnerError;
use automation_runner::events::{Fanout, RunEvent, Sink};
use automation_runner::flow::{self, FlowBody};
use automation_runner::on_target::{Forward, StepsRun};
use automation_runner::report::RunReport;
use automation_runner::sinks::records::{self, RecordsSink};
use automation_session::backend::TargetHandle;
use automation_session::tools::{SEQUENCE, image};
use automation_wire::events::EventKind;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use crate::mcp::progress::{Gate, GateSink, NOTE_QUEUE, Note, Sender, SharedGate};

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
        SEQUENCE,
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
/// An inline flow keeps its `assert_screenshot` baselines in the server's `snapshots`.
pub async fn call(
    target: TargetHandle,
    args: JsonObject,
    snapshots: &automation_session::tools::Snapshots,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    // A `file` is read here: on a blocking thread, never on a runtime worker (a slow or
    // hostile file must not keep the server from answering anything else).
    let parsed = tokio::task::spawn_blocking(move || flow::from_owned_arguments(args)).await;
    let flow = match parsed {
        Ok(Ok(mut f)) => {
            f.snapshots.get_or_insert_with(|| snapshots.clone());
            f
        }
        Ok(Err(e)) => return Ok(CallToolResult::structured_error(e.to_json()).into()),
        Err(e) => {
            return Err(McpError::internal_error(
                format!("reading the flow stopped: {e}"),
                None,
            ));
        }
    };
    let gate = Gate::new(context.meta.get_progress_token(), context.meta.log_level());
    let live = gate.listening();
    let run = Run {
        flow: &flow,
        execution_id: automation_runner::new_execution_id(),
        context: &context,
        gate: SharedGate::new(gate),
    };
    let multi_thread = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    let (report, shots) = match &flow.body {
        FlowBody::Steps(seq) => run.steps(seq, &target, live).await,
        // Nobody to notify (no progress token, no log level): the script runs on this
        // worker thread (no hand-off to a blocking thread), its screenshots collected.
        FlowBody::Script(_) if !live && multi_thread => {
            let ct = context.ct.clone();
            tokio::task::block_in_place(|| {
                run_collecting(&flow, &run.execution_id, &target, None, &|| {
                    ct.is_cancelled()
                })
            })
        }
        FlowBody::Script(_) => run.script(target).await?,
    };
    if context.ct.is_cancelled() {
        return Err(McpError::internal_error("request cancelled", None));
    }
    let summary = report.to_json();
    let mut content = vec![ContentBlock::text(summary.to_string())];
    for png in shots.fitted() {
        content.push(ContentBlock::image(B64.encode(png), "image/png"));
    }
    let mut result = if report.passed() {
        CallToolResult::success(content)
    } else {
        CallToolResult::error(content)
    };
    result.structured_content = Some(summary);
    tracing::debug!(execution = %report.execution_id, passed = report.passed(), "execute_sequence done");
    Ok(result.into())
}

/// One `execute_sequence` call's run.
struct Run<'a> {
    flow: &'a flow::Flow,
    execution_id: String,
    context: &'a RequestContext<RoleServer>,
    gate: SharedGate,
}

impl Run<'_> {
    /// A steps flow: the engine on the target thread with the records, the screenshot
    /// collector and the gate beside it.
    async fn steps(
        &self,
        seq: &Arc<flow::Sequence>,
        target: &TargetHandle,
        live: bool,
    ) -> (RunReport, Shots) {
        let started = Instant::now();
        let deadline = automation_runner::deadline_of(self.flow);
        let id = self.execution_id.clone();
        let (mut sinks, records_dir) = tokio::task::spawn_blocking(move || records_sinks(&id))
            .await
            .unwrap_or_default();
        let (tx, notes) = tokio::sync::mpsc::channel(NOTE_QUEUE);
        if live {
            sinks.push(Box::new(GateSink::new(self.gate.clone(), tx)));
        }
        let kept = Kept {
            shots: Shots::default(),
            sinks,
        };
        let report = RunReport::new(&self.flow.name, &self.execution_id);
        let run = StepsRun::start_until(
            seq,
            self.flow,
            target,
            report,
            kept,
            Forward::Nothing,
            deadline,
        );
        let cancel = run.cancel.clone();
        let (report, kept) = Notes::new(self, notes)
            .relay(self, run.finish(), live, &cancel)
            .await;
        let Kept { shots, mut sinks } = kept.unwrap_or_default();
        let mut report = automation_runner::finish_run(report, started, &mut sinks);
        report.records = records_dir;
        (report, shots)
    }

    /// A script flow on a blocking thread, the gate beside it.
    async fn script(&self, target: TargetHandle) -> Result<(RunReport, Shots), McpError> {
        let (tx, notes) = tokio::sync::mpsc::channel(NOTE_QUEUE);
        let cancel = Cancel::new();
        let flag = cancel.clone();
        let (flow, id) = (self.flow.clone(), self.execution_id.clone());
        let sink = GateSink::new(self.gate.clone(), tx);
        let run = tokio::task::spawn_blocking(move || {
            run_collecting(&flow, &id, &target, Some(sink), &|| flag.is_cancelled())
        });
        let done = Notes::new(self, notes)
            .relay(self, run, true, &cancel)
            .await;
        done.map_err(|e| McpError::internal_error(format!("the run stopped: {e}"), None))
    }
}

/// The request's side of the gate: the notes the run sends, the heartbeat and the held
/// progress's window, in order.
struct Notes {
    gate: SharedGate,
    rx: tokio::sync::mpsc::Receiver<Note>,
    sender: Sender,
    open: bool,
}

impl Notes {
    fn new(run: &Run<'_>, rx: tokio::sync::mpsc::Receiver<Note>) -> Self {
        Self {
            gate: run.gate.clone(),
            rx,
            sender: Sender::new(run.context.peer.clone()),
            open: true,
        }
    }

    /// Waits for the next notes: one the run sent, or (when the timer fires) those already
    /// sent and then what the timer made due — in that order, so the timer's never overtakes
    /// them. Cancel-safe: nothing is taken before the wait is over.
    async fn wait(&mut self) -> Vec<Note> {
        let wait = self.gate.lock().next_deadline();
        tokio::select! {
            note = self.rx.recv(), if self.open => match note {
                Some(note) => vec![note],
                None => {
                    self.open = false;
                    Vec::new()
                }
            },
            () = tokio::time::sleep(wait) => {
                let mut due = Vec::new();
                while let Ok(note) = self.rx.try_recv() {
                    due.push(note);
                }
                due.extend(self.gate.lock().due());
                due
            }
        }
    }

    /// Awaits `run`, sending the notes it makes (and the timer's, when `listen`) as they fall
    /// due, then what the gate still holds; the request's cancellation goes on to `cancel`.
    async fn relay<T>(
        mut self,
        request: &Run<'_>,
        run: impl std::future::Future<Output = T>,
        listen: bool,
        cancel: &Cancel,
    ) -> T {
        tokio::pin!(run);
        let done = loop {
            let due = tokio::select! {
                done = &mut run => break done,
                due = self.wait(), if listen => due,
                () = request.context.ct.cancelled(), if !cancel.is_cancelled() => {
                    cancel.cancel();
                    Vec::new()
                }
            };
            self.send(due).await;
        };
        self.finish().await;
        done
    }

    async fn send(&mut self, notes: Vec<Note>) {
        for note in notes {
            self.sender.send(note).await;
        }
    }

    /// The run has ended: what it sent, then the held progress — all before the response.
    async fn finish(mut self) {
        let mut last = Vec::new();
        while let Ok(note) = self.rx.try_recv() {
            last.push(note);
        }
        last.extend(self.gate.lock().last());
        self.send(last).await;
    }
}

/// What a steps run keeps on the target thread: its screenshots, and its other sinks (the
/// records, the notification gate).
#[derive(Default)]
struct Kept {
    shots: Shots,
    sinks: Fanout,
}

impl Sink for Kept {
    /// The records read calls; the screenshots come from the screenshot events too.
    fn wants_calls(&self) -> bool {
        self.sinks.wants_calls()
    }

    fn event(&mut self, event: &RunEvent) {
        self.shots.see(event);
        self.sinks.event(event);
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
    forward: Option<GateSink>,
    cancelled: &dyn Fn() -> bool,
) -> (RunReport, Shots) {
    let (mut sinks, records_dir) = records_sinks(execution_id);
    if let Some(f) = forward {
        sinks.push(Box::new(f));
    }
    let mut shots = Shots::default();
    let mut tee = Tee(&mut shots, &mut sinks);
    let mut report = automation_runner::run_flow(flow, execution_id, target, &mut tee, cancelled);
    report.records = records_dir;
    (report, shots)
}

/// Feeds the screenshot collector and the other sinks.
struct Tee<'a>(&'a mut Shots, &'a mut Fanout);

impl Sink for Tee<'_> {
    fn event(&mut self, event: &RunEvent) {
        self.0.see(event);
        self.1.event(event);
    }

    fn finish(&mut self, report: &RunReport) -> Result<(), RunnerError> {
        self.1.finish(report)
    }
}

/// The screenshots a run took (a call's image and the screenshot event it raised are one),
/// the last [`MAX_IMAGES`] of them returned as image content.
#[derive(Default)]
struct Shots(Vec<Arc<Vec<u8>>>);

impl Shots {
    fn see(&mut self, event: &RunEvent) {
        let png = match event {
            RunEvent::Call(c) => c.image.clone(),
            RunEvent::Image(png) => Some(Arc::clone(png)),
            // A script's own screenshot event: base64 from its pipe, decoded at this edge.
            RunEvent::Event(EventKind::Screenshot {
                base64: Some(b64), ..
            }) => B64
                .decode(b64.trim_start_matches("data:image/png;base64,"))
                .ok()
                .map(Arc::new),
            _ => None,
        };
        if let Some(png) = png
            && !self.0.iter().any(|s| Arc::ptr_eq(s, &png) || **s == *png)
        {
            self.0.push(png);
        }
    }

    /// The last ones, each downscaled to the screenshot tool's default budget (decoded and
    /// re-encoded once, at the end, and only those returned).
    fn fitted(&self) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = Vec::new();
        for png in self.0.iter().rev().take(MAX_IMAGES).rev() {
            if let Ok(f) = image::fit(png, image::DEFAULT_MAX_DIMENSION, image::DEFAULT_MAX_BYTES)
                && !out.contains(&f.png)
            {
                out.push(f.png);
            }
        }
        out
    }
}
