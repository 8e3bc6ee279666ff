//! A steps flow run on the target thread: the engine and every tool call it makes run there,
//! so a step costs a plain call instead of a thread hop and a wake-up; its stream comes back
//! to the caller's sinks on a channel as it happens (a sink never slows the steps down).
//!
//! The target thread serves one job at a time, so a direct call that arrives during a run is
//! answered after the run, as it would be after any long op.

use automation_core::Cancel;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

use super::events::{RunEvent, Sink};
use super::flow::Sequence;
use super::report::{RunReport, runner_error};
use super::router::OnTarget;
use super::steps;
use crate::backend::TargetHandle;

/// A steps flow started on the target thread.
pub struct StepsRun {
    /// The run's stream, in order; it closes when the run has ended.
    pub events: mpsc::UnboundedReceiver<RunEvent>,
    /// Stops the run before its next step or try, and the running op at its next step.
    pub cancel: Cancel,
    done: oneshot::Receiver<RunReport>,
    lost: RunReport,
}

impl StepsRun {
    /// Queues the run on `target` (after the requests already queued), its report
    /// started as `report`.
    pub fn start(
        seq: &Sequence,
        inputs: &Map<String, Value>,
        target: &TargetHandle,
        report: RunReport,
    ) -> Self {
        let (tx, events) = mpsc::unbounded_channel();
        let cancel = Cancel::new();
        let lost = RunReport::new(&report.flow, &report.execution_id);
        let (seq, inputs, flag) = (seq.clone(), inputs.clone(), cancel.clone());
        let done = target.run_task(move |backend| {
            let mut report = report;
            let mut router = OnTarget::new(backend, flag.clone());
            let mut sink = Forward(tx);
            steps::run(&seq, &inputs, &mut router, &mut sink, &mut report, &|| {
                flag.is_cancelled()
            });
            report
        });
        Self {
            events,
            cancel,
            done,
            lost,
        }
    }

    /// Feeds the stream to `sink` on this (non-async) thread, polling `cancelled` as each item
    /// arrives; returns the report once the run has ended.
    pub fn drive_blocking(mut self, sink: &mut dyn Sink, cancelled: &dyn Fn() -> bool) -> RunReport {
        while let Some(event) = self.events.blocking_recv() {
            sink.event(&event);
            if cancelled() {
                self.cancel.cancel();
            }
        }
        self.done.blocking_recv().unwrap_or_else(|_| lost(self.lost))
    }

    /// The report, once the stream has closed (the async counterpart of the end of
    /// [`StepsRun::drive_blocking`]).
    pub async fn report(self) -> RunReport {
        self.done.await.unwrap_or_else(|_| lost(self.lost))
    }
}

/// The run ended with no report: the target thread stopped, or the engine panicked there.
fn lost(mut report: RunReport) -> RunReport {
    report.fail(runner_error(
        "TARGET_FAILED",
        "the run stopped on the target thread without a report (the target thread stopped or panicked)",
        "run the flow again; if it stops again, restart the automation server and report it",
    ));
    report
}

/// The engine's sink on the target thread: every item to the caller.
struct Forward(mpsc::UnboundedSender<RunEvent>);

impl Sink for Forward {
    fn event(&mut self, event: &RunEvent) {
        // The caller stopped listening (it went away): the run goes on to its end regardless.
        let _ = self.0.send(event.clone());
    }
}
