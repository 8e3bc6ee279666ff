#![doc = include_str!("../README.md")]
// Issue 38: no function longer than 100 lines (threshold in the workspace clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod authoring;
pub mod budget;
pub mod child;
pub mod error;
pub mod events;
pub mod evidence;
pub mod exec;
pub mod flow;
pub mod notes;
pub mod on_target;
pub mod partition;
pub mod poll;
pub mod report;
pub mod report_page;
pub mod router;
pub mod runtime;
pub mod script;
pub mod sinks;
pub mod sourcemap;
pub mod step_events;
pub mod steps;
pub mod suite;
pub mod template;
mod verdict;
pub mod yaml_depth;

use std::time::Instant;

use automation_session::backend::TargetHandle;

use events::{RunEvent, Sink};
use flow::{Flow, FlowBody};
use report::RunReport;

/// A fresh execution id (a UUID), or a time-and-pid one when the OS has no randomness.
pub fn new_execution_id() -> String {
    automation_wire::events::new_execution_id().unwrap_or_else(|_| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        format!(
            "{:08x}-{:04x}-4000-8000-{:012x}",
            std::process::id(),
            (nanos >> 48) & 0xffff,
            nanos & 0xffff_ffff_ffff
        )
    })
}

/// The time limit of `flow`, from now: its own (`--timeout`), else the default.
pub fn deadline_of(flow: &Flow) -> budget::Deadline {
    match flow.timeout {
        Some(limit) => budget::Deadline::after(limit, "--timeout"),
        None => budget::Deadline::after(budget::DEFAULT_RUN_TIMEOUT, "default"),
    }
}

/// Runs one flow on `target`, pushing its stream into `sink`; finishes the sink with the
/// report and returns it. `cancelled` is polled as the stream comes (steps: the running op
/// stops at its next step, the run before its next step; a script child is stopped). The run
/// ends at its time limit ([`deadline_of`]) with `RUN_TIMEOUT`.
pub fn run_flow(
    flow: &Flow,
    execution_id: &str,
    target: &TargetHandle,
    sink: &mut dyn Sink,
    cancelled: &dyn Fn() -> bool,
) -> RunReport {
    let started = Instant::now();
    let deadline = deadline_of(flow);
    let mut report = RunReport::new(&flow.name, execution_id);
    match &flow.body {
        FlowBody::Steps(seq) => {
            let forward = on_target::Forward::All;
            (report, _) =
                on_target::StepsRun::start_until(seq, flow, target, report, (), forward, deadline)
                    .drive_blocking(sink, cancelled);
        }
        FlowBody::Script(s) => script::run(flow, s, target, sink, &mut report, cancelled, deadline),
    }
    if flow.evidence
        && !report.passed()
        && let Some(shot) = evidence::at_failure(target)
    {
        sink.event(&RunEvent::Failure(std::sync::Arc::new(shot)));
    }
    finish_run(report, started, sink)
}

/// A run's end: its duration set from `started`, and `sink` finished with the report.
pub fn finish_run(mut report: RunReport, started: Instant, sink: &mut dyn Sink) -> RunReport {
    report.duration_ms = started.elapsed().as_millis().try_into().unwrap_or(u64::MAX);
    if let Err(e) = sink.finish(&report) {
        tracing::warn!("a sink failed: {e}");
    }
    report
}
