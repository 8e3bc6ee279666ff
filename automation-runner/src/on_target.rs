//! A steps flow run on the target thread: the engine and every tool call it makes run there,
//! so a step costs a plain call instead of a thread hop and a wake-up. Sinks nobody waits for
//! run beside it; a caller that watches gets the stream on a channel as it happens.
//!
//! The target thread serves one job at a time, so a direct call that arrives during a run is
//! answered after the run, as it would be after any long op.

use std::sync::Arc;

use automation_core::Cancel;
use automation_core::ErrorCode;
use automation_session::backend::TargetHandle;
use tokio::sync::{mpsc, oneshot};

use super::budget::{DEFAULT_RUN_TIMEOUT, Deadline};
use super::events::{RunEvent, Sink};
use super::flow::{Flow, Sequence};
use super::report::{RunReport, runner_error};
use super::router::OnTarget;
use super::steps;

/// What of the stream goes to [`StepsRun::events`] (each item forwarded wakes the receiver).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forward {
    /// Nothing: nobody watches.
    Nothing,
    /// Every item.
    All,
}

/// A steps flow started on the target thread.
pub struct StepsRun<L> {
    /// The run's stream, in order, when it is forwarded; it closes when the run has ended (at
    /// once when it is not forwarded).
    pub events: mpsc::UnboundedReceiver<RunEvent>,
    /// Stops the run before its next step or try, and the running op at its next step.
    pub cancel: Cancel,
    done: oneshot::Receiver<(RunReport, L)>,
    lost: RunReport,
}

impl<L: Sink + 'static> StepsRun<L> {
    /// Queues the run on `target` (after the requests already queued), its report started as
    /// `report`. `local` sees the stream on the target thread and comes back with the report
    /// (sinks that nobody waits for: records, collected screenshots); what `forward` names
    /// also comes to [`StepsRun::events`]. Its time limit is the default one.
    pub fn start(
        seq: &Arc<Sequence>,
        flow: &Flow,
        target: &TargetHandle,
        report: RunReport,
        local: L,
        forward: Forward,
    ) -> Self {
        let deadline = Deadline::after(DEFAULT_RUN_TIMEOUT, "default");
        Self::start_until(seq, flow, target, report, local, forward, deadline)
    }

    /// [`StepsRun::start`], ending at `deadline` (`RUN_TIMEOUT`): the engine stops between
    /// steps and tries, and the op running then is stopped at its next step (a timer sets
    /// the run's cancel flag at the deadline).
    pub fn start_until(
        seq: &Arc<Sequence>,
        flow: &Flow,
        target: &TargetHandle,
        report: RunReport,
        local: L,
        forward: Forward,
        deadline: Deadline,
    ) -> Self {
        let (tx, events) = mpsc::unbounded_channel();
        let cancel = Cancel::new();
        let lost = RunReport::new(&report.flow, &report.execution_id);
        let (seq, inputs, flag) = (Arc::clone(seq), flow.inputs.clone(), cancel.clone());
        let snapshots = flow.snapshots();
        let evidence = flow.evidence;
        let tx = (forward == Forward::All).then_some(tx);
        // The timer: woken by the run's end (its sender dropped) or by the deadline, when it
        // stops the op that is running through the run's flag (the engine checks the
        // deadline before the flag, so the run ends `RUN_TIMEOUT`, not `CANCELLED`).
        let (ended, timer) = std::sync::mpsc::channel::<()>();
        let timer_flag = cancel.clone();
        let _ = std::thread::Builder::new()
            .name("automation-run-deadline".into())
            .spawn(move || {
                if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    timer.recv_timeout(deadline.left())
                {
                    timer_flag.cancel();
                }
            });
        let done = target.run_task(move |backend| {
            let _ended = ended;
            let mut report = report;
            let mut router = OnTarget::new(backend, flag.clone(), &snapshots);
            router.evidence = evidence;
            let mut sink = Local { local, tx };
            steps::run(
                &seq,
                &inputs,
                &mut router,
                &mut sink,
                &mut report,
                &|| flag.is_cancelled(),
                &deadline,
            );
            (report, sink.local)
        });
        Self {
            events,
            cancel,
            done,
            lost,
        }
    }

    /// Feeds the forwarded stream to `sink` on this (non-async) thread, polling `cancelled`
    /// as each item arrives; returns the report (and `local`, unless the run was lost).
    pub fn drive_blocking(
        mut self,
        sink: &mut dyn Sink,
        cancelled: &dyn Fn() -> bool,
    ) -> (RunReport, Option<L>) {
        while let Some(event) = self.events.blocking_recv() {
            sink.event(&event);
            if cancelled() {
                self.cancel.cancel();
            }
        }
        match self.done.blocking_recv() {
            Ok((report, local)) => (report, Some(local)),
            Err(_) => (lost(self.lost), None),
        }
    }

    /// The report (and `local`, unless the run was lost), once the run has ended; the
    /// forwarded stream must have been read to its end first.
    pub async fn finish(self) -> (RunReport, Option<L>) {
        match self.done.await {
            Ok((report, local)) => (report, Some(local)),
            Err(_) => (lost(self.lost), None),
        }
    }
}

/// The run ended with no report: the target thread stopped, or the engine panicked there.
fn lost(mut report: RunReport) -> RunReport {
    report.fail(runner_error(
        ErrorCode::TargetFailed,
        "the run stopped on the target thread without a report (the target thread stopped or panicked)",
        "run the flow again; if it stops again, restart the automation server and report it",
    ));
    report
}

/// The engine's sink on the target thread: the local sink, and the caller when forwarded.
struct Local<L> {
    local: L,
    /// The caller's end, when forwarded.
    tx: Option<mpsc::UnboundedSender<RunEvent>>,
}

impl<L: Sink> Sink for Local<L> {
    fn wants_calls(&self) -> bool {
        self.tx.is_some() || self.local.wants_calls()
    }

    fn event(&mut self, event: &RunEvent) {
        self.local.event(event);
        if let Some(tx) = &self.tx {
            // The caller stopped listening (it went away): the run goes on to its end.
            let _ = tx.send(event.clone());
        }
    }
}

/// A sink that keeps nothing (a run whose whole stream is forwarded).
impl Sink for () {
    fn event(&mut self, _event: &RunEvent) {}

    fn wants_calls(&self) -> bool {
        false
    }
}
