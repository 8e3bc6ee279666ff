//! The steps engine: conditions, `{{expr}}` arguments, retries, fallbacks, `start_from_step`,
//! `stop_on_error`; every call through the [`Router`] a direct MCP call uses.
//!
//! Progress is the count of finished step executions (a retry adds a fraction below the next
//! whole number), so it only grows, across retries and jumps alike.
//!
//! A run is bounded ([`super::budget`]): at most [`MAX_STEP_RUNS`] step executions and
//! [`MAX_TRIES`] tries, and it ends at its [`Deadline`] (checked between steps and tries, and
//! during a retry's pause; the op running then is stopped through the run's cancel flag by
//! the caller). Reaching one ends the run with `BUDGET_EXCEEDED` or `RUN_TIMEOUT`, whatever
//! `continue_on_error` or a fallback would have done.

mod tries;

use std::time::Duration;

use automation_core::ErrorCode;
use automation_transpile::expr::Expr;
use automation_wire::events::{EventKind, LogLevel};
use serde_json::{Map, Value, json};

use super::budget::{self, Deadline, MAX_STEP_RUNS, MAX_TRIES};
use super::events::{RunEvent, Sink};
use super::flow::{Sequence, Step, resolve_inputs};
use super::notes;
use super::report::{RunReport, StepReport, StepStatus};
use super::router::Router;

/// Pause between tries when a step gives no `retry_delay_ms`.
pub const DEFAULT_RETRY_DELAY: Duration = Duration::from_millis(500);

/// At most this many step executions per step in the sequence (fallback loops end).
const MAX_RUNS_PER_STEP: usize = 20;

/// What a run may still spend.
struct Limits<'a> {
    deadline: &'a Deadline,
    tries: usize,
    /// Set when a limit was reached: the run's error; the run stops.
    stopped: Option<Value>,
}

impl Limits<'_> {
    /// Counts one try; false (and `stopped` set) when the run may not make it.
    fn try_one(&mut self, at: &str) -> bool {
        if self.deadline.passed() {
            self.stopped = Some(self.deadline.error());
            return false;
        }
        self.tries += 1;
        if self.tries > MAX_TRIES {
            self.stopped = Some(budget::exceeded(
                "tries",
                MAX_TRIES,
                at,
                format!(
                    "the run made {MAX_TRIES} tries (tool calls, retries included) and was stopped before another"
                ),
                "retry fewer times, or wait for the state with wait_for_condition",
            ).to_json());
            return false;
        }
        true
    }
}

/// Runs a sequence; pushes its events into `sink` and its steps into `report`.
/// `cancelled` is polled between steps and tries; `deadline` ends it with `RUN_TIMEOUT`.
pub fn run(
    seq: &Sequence,
    given_inputs: &Map<String, Value>,
    router: &mut dyn Router,
    sink: &mut dyn Sink,
    report: &mut RunReport,
    cancelled: &dyn Fn() -> bool,
    deadline: &Deadline,
) {
    let inputs = resolve_inputs(&seq.inputs, given_inputs);
    // One variables object for the whole run, read in place by conditions and templates (no
    // copy a step: it holds every earlier step's result).
    let mut vars = Value::Object(inputs.clone());
    set(&mut vars, "inputs".into(), Value::Object(inputs));
    let total = seq.steps.len();
    let mut run = Run {
        seq,
        router,
        sink,
        report,
        cancelled,
        vars,
        progress: Progress { finished: 0, total },
        limits: Limits {
            deadline,
            tries: 0,
            stopped: None,
        },
        runs: 0,
        loop_budget: total.saturating_mul(MAX_RUNS_PER_STEP).max(1),
    };
    let mut index = run.skip_to_start();
    while let Some(step) = seq.steps.get(index) {
        match run.step(index, step) {
            Next::Jump(to) => index = to,
            Next::Continue => index += 1,
            Next::Stop => return,
        }
    }
}

/// One run of a sequence: what its steps share, so each part of a step's life is one method
/// (the way nextest keeps a dispatcher's state in one context).
struct Run<'a> {
    seq: &'a Sequence,
    router: &'a mut dyn Router,
    sink: &'a mut dyn Sink,
    report: &'a mut RunReport,
    cancelled: &'a dyn Fn() -> bool,
    /// The run's variables: the inputs, and each step's `<id>_result` and `<id>_status`.
    vars: Value,
    progress: Progress,
    limits: Limits<'a>,
    /// Step executions so far.
    runs: usize,
    /// The most step executions before a `fallback_id` loop is called one.
    loop_budget: usize,
}

impl Run<'_> {
    /// `start_from_step`: the steps before it are reported skipped; where to begin.
    fn skip_to_start(&mut self) -> usize {
        let seq = self.seq;
        let index = match &seq.start_from_step {
            Some(start) => seq
                .steps
                .iter()
                .position(|s| s.id.as_deref() == Some(start))
                .unwrap_or(0),
            None => 0,
        };
        for (i, step) in seq.steps.iter().enumerate().take(index) {
            let id = step.report_id(i);
            set(&mut self.vars, format!("{id}_status"), json!("skipped"));
            self.report
                .steps
                .push(skipped(step, &id, "before start_from_step"));
        }
        index
    }

    /// One step, start to end; where the run goes next.
    fn step(&mut self, index: usize, step: &Step) -> Next {
        if let Some(refused) = self.refusal(index, step) {
            self.report.fail(refused);
            return Next::Stop;
        }
        let id = step.report_id(index);
        let name = step.name.clone().unwrap_or_else(|| default_name(step));
        if let Some(cond) = &step.condition
            && let Some(next) = self.condition(index, step, &id, &name, cond)
        {
            return next;
        }
        started(self.sink, &id, &name, index, self.progress.total);
        let result = self.attempt_all(step, &id);
        if let (Err(failure), Some(stop)) = (&result, self.limits.stopped.take()) {
            self.stopped_by_limit(&id, name, failure, stop);
            return Next::Stop;
        }
        match result {
            Ok(done) => {
                self.passed(index, step, id, &name, done);
                Next::Continue
            }
            Err(failure) => {
                let next = self.after_failure(step, &id, &name, failure);
                self.progress.step_done(self.sink, &format!("✗ {name}"));
                next
            }
        }
    }

    /// Why step `index` may not start (the deadline passed, the run was cancelled, a budget
    /// is spent, a fallback loop), as the run's error.
    fn refusal(&mut self, index: usize, step: &Step) -> Option<Value> {
        let at = step.report_id(index);
        if self.limits.deadline.passed() {
            let mut err = self.limits.deadline.error();
            if let Value::Object(m) = &mut err {
                m.insert("step".into(), json!(at));
            }
            return Some(err);
        }
        if (self.cancelled)() {
            return Some(
                json!({"code": ErrorCode::Cancelled.as_str(), "message": format!("the run was cancelled before step {at}"), "step": at}),
            );
        }
        self.runs += 1;
        if self.runs > MAX_STEP_RUNS {
            return Some(
                budget::exceeded(
                    "step_runs",
                    MAX_STEP_RUNS,
                    &at,
                    format!(
                        "the run executed {MAX_STEP_RUNS} steps and was stopped before another"
                    ),
                    "split the flow, or end its loops sooner",
                )
                .to_json(),
            );
        }
        if self.runs > self.loop_budget {
            return Some(json!({
                "code": ErrorCode::BadRequest.as_str(),
                "message": format!("the sequence ran {} steps without ending: a fallback_id loop", self.loop_budget),
                "hint": "make the fallback step succeed or end the loop with a condition on <id>_status",
            }));
        }
        None
    }

    /// A step's `if`: `None` when it holds (the step runs); else where the run goes, the
    /// step skipped (false) or failed (an `if` that does not parse).
    fn condition(
        &mut self,
        index: usize,
        step: &Step,
        id: &str,
        name: &str,
        cond: &str,
    ) -> Option<Next> {
        let parsed = Expr::parse(cond).map(|expr| {
            let out = expr.evaluate_with_warnings(&self.vars);
            notes::missing_in_condition(id, cond, &out.warnings, self.sink);
            out.value
        });
        match parsed {
            Ok(false) => {
                set(&mut self.vars, format!("{id}_status"), json!("skipped"));
                self.report
                    .steps
                    .push(skipped(step, id, &format!("condition `{cond}` is false")));
                self.progress
                    .step_done(self.sink, &format!("skipped {name}"));
                Some(Next::Continue)
            }
            Ok(_) => None,
            Err(e) => {
                let error = notes::condition_error(&e, id, index, cond);
                started(self.sink, id, name, index, self.progress.total);
                let failure = Failure {
                    error,
                    attempts: 0,
                    duration: Duration::ZERO,
                };
                let next = self.after_failure(step, id, name, failure);
                self.progress.step_done(self.sink, &format!("✗ {name}"));
                Some(next)
            }
        }
    }

    /// A step that passed (its value, tries and time): its result and status become
    /// variables, its report and events.
    fn passed(&mut self, index: usize, step: &Step, id: String, name: &str, done: Done) {
        let (value, attempts, duration) = done;
        if step.tool == automation_session::tools::ASSERT_SCREENSHOT {
            notes::baseline_note(&value, self.sink);
        }
        set(&mut self.vars, format!("{id}_result"), value);
        set(&mut self.vars, format!("{id}_status"), json!("success"));
        self.sink.event(&RunEvent::Event(EventKind::StepCompleted {
            step_id: id.clone(),
            step_name: name.to_string(),
            duration: Some(ms(duration)),
            step_index: i64::try_from(index).ok(),
            total_steps: i64::try_from(self.progress.total).ok(),
        }));
        self.report.steps.push(StepReport {
            id,
            name: name.to_string(),
            status: StepStatus::Passed,
            duration_ms: duration.as_millis().try_into().unwrap_or(u64::MAX),
            attempts,
            skipped_because: None,
            error: None,
            fallback: None,
        });
        self.progress.step_done(self.sink, &format!("✓ {name}"));
    }

    /// A limit of the run, not the step, ended it: the step is reported as it ended, and
    /// the run fails with the limit's error.
    fn stopped_by_limit(&mut self, id: &str, name: String, failure: &Failure, stop: Value) {
        self.report.steps.push(StepReport {
            id: id.to_string(),
            name: name.clone(),
            status: StepStatus::Failed,
            duration_ms: failure.duration.as_millis().try_into().unwrap_or(u64::MAX),
            attempts: failure.attempts,
            skipped_because: None,
            error: Some(stop.clone()),
            fallback: None,
        });
        self.sink.event(&RunEvent::Event(EventKind::StepFailed {
            step_id: id.to_string(),
            step_name: name,
            error: Some(one_line(&stop)),
            duration: Some(ms(failure.duration)),
        }));
        let mut err = stop;
        if let Value::Object(m) = &mut err {
            m.insert("step".into(), json!(id));
        }
        self.report.fail(err);
    }

    /// Records a failed step and decides where to go: the fallback, the next step, or stop.
    fn after_failure(&mut self, step: &Step, id: &str, name: &str, failure: Failure) -> Next {
        let (seq, vars, sink, report) =
            (self.seq, &mut self.vars, &mut *self.sink, &mut *self.report);
        set(vars, format!("{id}_result"), failure.error.clone());
        set(vars, format!("{id}_status"), json!("error"));
        sink.event(&RunEvent::Event(EventKind::StepFailed {
            step_id: id.to_string(),
            step_name: name.to_string(),
            error: Some(one_line(&failure.error)),
            duration: Some(ms(failure.duration)),
        }));
        let fallback = step.fallback_id.as_ref().and_then(|to| {
            Some((
                to,
                seq.steps.iter().position(|s| s.id.as_deref() == Some(to))?,
            ))
        });
        report.steps.push(StepReport {
            id: id.to_string(),
            name: name.to_string(),
            status: StepStatus::Failed,
            duration_ms: failure.duration.as_millis().try_into().unwrap_or(u64::MAX),
            attempts: failure.attempts,
            skipped_because: None,
            error: Some(failure.error.clone()),
            fallback: fallback.map(|(to, _)| to.clone()),
        });
        let mut err = failure.error;
        if let Value::Object(m) = &mut err {
            m.insert("step".into(), json!(id));
        }
        if let Some((to, pos)) = fallback {
            sink.event(&RunEvent::Event(EventKind::Log {
                level: LogLevel::Warn,
                message: format!("step {id} failed; jumping to its fallback {to}"),
                data: None,
            }));
            // A fallback recovers the run's path, not its verdict: the run is `recovered`, which
            // is not a pass (the step stays failed in the report and in JUnit).
            if let Value::Object(m) = &mut err {
                m.insert("fallback".into(), json!(to));
            }
            report.recover(err);
            return Next::Jump(pos);
        }
        if step.continue_on_error || !seq.stop_on_error {
            return Next::Continue;
        }
        report.fail(err);
        Next::Stop
    }
}

/// Sets one run variable (`vars` is always an object).
fn set(vars: &mut Value, key: String, value: Value) {
    if let Value::Object(m) = vars {
        m.insert(key, value);
    }
}

struct Progress {
    finished: usize,
    total: usize,
}

impl Progress {
    fn step_done(&mut self, sink: &mut dyn Sink, message: &str) {
        self.finished += 1;
        self.emit(sink, self.finished as f64, message);
    }

    fn emit(&self, sink: &mut dyn Sink, current: f64, message: &str) {
        sink.event(&RunEvent::Event(EventKind::Progress {
            current,
            total: Some(self.total.max(self.finished) as f64),
            message: Some(message.to_string()),
        }));
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn started(sink: &mut dyn Sink, id: &str, name: &str, index: usize, total: usize) {
    sink.event(&RunEvent::Event(EventKind::StepStarted {
        step_id: id.to_string(),
        step_name: name.to_string(),
        step_index: i64::try_from(index).ok(),
        total_steps: i64::try_from(total).ok(),
    }));
}

/// `id (tool)`, or the tool alone for a step without an id.
fn default_name(step: &Step) -> String {
    match &step.id {
        Some(id) => format!("{id} ({})", step.tool),
        None => step.tool.clone(),
    }
}

fn skipped(step: &Step, id: &str, why: &str) -> StepReport {
    StepReport {
        id: id.to_string(),
        name: step.name.clone().unwrap_or_else(|| default_name(step)),
        status: StepStatus::Skipped,
        duration_ms: 0,
        attempts: 0,
        skipped_because: Some(why.to_string()),
        error: None,
        fallback: None,
    }
}

/// A step's success: its value, its tries and its time.
type Done = (Value, u32, Duration);

struct Failure {
    error: Value,
    attempts: u32,
    duration: Duration,
}

enum Next {
    Jump(usize),
    Continue,
    Stop,
}

/// An error's value as a step's result holds it: its code and message (either may be
/// missing in a script's own error).
#[derive(Debug, Default, serde::Deserialize)]
pub struct ErrorWords {
    /// The error's code.
    #[serde(default)]
    pub code: Option<String>,
    /// What it says.
    #[serde(default)]
    pub message: Option<String>,
}

impl ErrorWords {
    /// The words of an error value (none when it is not an object).
    pub fn of(error: &Value) -> Self {
        serde::Deserialize::deserialize(error).unwrap_or_default()
    }
}

/// `CODE: message` for the event and the display.
pub fn one_line(error: &Value) -> String {
    let words = ErrorWords::of(error);
    let message = words.message.unwrap_or_else(|| error.to_string());
    match words.code {
        Some(c) => format!("{c}: {message}"),
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Collect;
    use crate::flow::steps_from_value;
    use automation_session::tools::Outcome;
    use std::sync::Mutex;
    use std::time::Instant;

    /// A router that fails `flaky` once, then answers every call with its arguments.
    struct Echo {
        calls: Mutex<Vec<String>>,
    }

    impl Router for Echo {
        fn call(&mut self, tool: &str, args: Map<String, Value>) -> Outcome {
            let mut calls = self.calls.lock().unwrap();
            calls.push(tool.to_string());
            let failed_before = calls.iter().filter(|c| *c == "flaky").count() > 1;
            if tool == "fails" || (tool == "flaky" && !failed_before) {
                Outcome::Failed(automation_core::OpError::new(
                    automation_core::ErrorCode::NotFound,
                    "no such node",
                ))
            } else {
                Outcome::Data(Value::Object(args))
            }
        }
    }

    fn run_json(doc: Value) -> (RunReport, Vec<String>, Collect) {
        let mut sink = Collect::default();
        let (report, calls) = run_into(doc, &mut sink);
        (report, calls, sink)
    }

    /// Runs `doc` against [`Echo`] into `sink`: the report and the tools called.
    fn run_into(doc: Value, sink: &mut dyn Sink) -> (RunReport, Vec<String>) {
        let seq = steps_from_value(doc, "t").unwrap();
        let mut router = Echo {
            calls: Mutex::new(Vec::new()),
        };
        let mut report = RunReport::new("t", "x");
        let deadline = Deadline::after(budget::DEFAULT_RUN_TIMEOUT, "default");
        run(
            &seq,
            &Map::new(),
            &mut router,
            sink,
            &mut report,
            &|| false,
            &deadline,
        );
        (report, router.calls.into_inner().unwrap())
    }

    /// Keeps every item; reads calls only when `calls`.
    struct Keeps {
        items: Vec<RunEvent>,
        calls: bool,
    }

    impl Sink for Keeps {
        fn event(&mut self, event: &RunEvent) {
            self.items.push(event.clone());
        }

        fn wants_calls(&self) -> bool {
            self.calls
        }
    }

    #[test]
    fn call_records_are_made_only_for_a_sink_that_reads_them() {
        let is_call = |e: &RunEvent| matches!(e, RunEvent::Call(_));
        for wants in [true, false] {
            let mut sink = Keeps {
                items: Vec::new(),
                calls: wants,
            };
            let (report, _) = run_into(json!([{"id": "a", "tool": "find"}]), &mut sink);
            let items = sink.items;
            assert!(report.passed(), "{:#}", report.to_json());
            assert_eq!(items.iter().any(is_call), wants, "{items:?}");
        }
    }

    #[test]
    fn conditions_results_retries_and_fallbacks() {
        let (report, calls, sink) = run_json(json!({
            "inputs": {"who": {"default": "Ada"}},
            "steps": [
                {"id": "a", "tool": "echo", "args": {"text": "hi {{who}}"}},
                {"id": "b", "tool": "echo", "if": "a_result.text == 'nope'"},
                {"id": "c", "tool": "flaky", "retries": 2, "retry_delay_ms": 1},
                {"id": "d", "tool": "fails", "fallback_id": "f"},
                {"id": "e", "tool": "echo"},
                {"id": "f", "tool": "echo", "args": {"saw": "{{d_status}}", "b": "{{b_status}}"}}
            ]
        }));
        // The fallback took the run to its end, but a step failed: recovered, not passed.
        assert!(!report.passed(), "{report:?}");
        assert_eq!(report.status, "recovered");
        let err = report.error.as_ref().unwrap();
        assert_eq!(
            (err["step"].as_str(), err["fallback"].as_str()),
            (Some("d"), Some("f"))
        );
        assert_eq!(report.steps[3].fallback.as_deref(), Some("f"));
        assert_eq!(calls, ["echo", "flaky", "flaky", "fails", "echo"]);
        let st: Vec<_> = report
            .steps
            .iter()
            .map(|s| (s.id.as_str(), s.status))
            .collect();
        assert_eq!(
            st,
            [
                ("a", StepStatus::Passed),
                ("b", StepStatus::Skipped),
                ("c", StepStatus::Passed),
                ("d", StepStatus::Failed),
                ("f", StepStatus::Passed)
            ]
        );
        assert_eq!(report.steps[2].attempts, 2);
        // Progress only grows.
        let p: Vec<f64> = sink
            .items
            .iter()
            .filter_map(|e| match e {
                RunEvent::Event(EventKind::Progress { current, .. }) => Some(*current),
                _ => None,
            })
            .collect();
        assert!(p.windows(2).all(|w| w[1] > w[0]), "{p:?}");
        let f = sink.items.iter().rev().find_map(|e| match e {
            RunEvent::Call(c) if c.step_id == "f" => Some(c.args.clone()),
            _ => None,
        });
        assert_eq!(f, Some(json!({"saw": "error", "b": "skipped"})));
    }

    #[test]
    fn a_broken_condition_fails_its_step_with_the_parse_error() {
        let (report, calls, _) = run_json(json!([{"id": "a", "tool": "echo", "if": "a ==="}]));
        assert!(!report.passed());
        assert!(calls.is_empty());
        let e = report.error.unwrap();
        assert_eq!(e["error_type"], "syntax_error");
        assert_eq!(e["field"], "steps[0].if");
        assert_eq!(e["step"], "a");
    }

    #[test]
    fn stop_on_error_and_start_from_step() {
        let (report, calls, _) = run_json(json!([{"tool": "fails"}, {"tool": "echo"}]));
        assert!(!report.passed());
        assert_eq!(calls, ["fails"]);
        assert_eq!(report.error.unwrap()["code"], "NOT_FOUND");
        let (report, calls, _) = run_json(
            json!({"stop_on_error": false, "steps": [{"tool": "fails"}, {"tool": "echo"}]}),
        );
        assert_eq!(calls, ["fails", "echo"]);
        assert!(report.passed());
        let (report, calls, _) = run_json(json!({"start_from_step": "b",
            "steps": [{"id": "a", "tool": "fails"}, {"id": "b", "tool": "echo"}]}));
        assert_eq!(calls, ["echo"]);
        assert_eq!(report.steps[0].status, StepStatus::Skipped);
    }

    #[test]
    fn a_fallback_loop_ends() {
        let (report, _, _) = run_json(json!([{"id": "a", "tool": "fails", "fallback_id": "a"}]));
        assert!(!report.passed());
        assert!(
            report.error.unwrap()["message"]
                .as_str()
                .unwrap()
                .contains("loop")
        );
    }

    #[test]
    fn a_run_stops_at_its_tries_budget_whatever_continue_on_error_says() {
        let steps: Vec<Value> = (0..120)
            .map(|i| json!({"id": format!("s{i}"), "tool": "fails", "retries": 100, "retry_delay_ms": 0, "continue_on_error": true}))
            .collect();
        let started = Instant::now();
        let (report, calls, _) = run_json(json!(steps));
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(calls.len(), MAX_TRIES);
        let e = report.error.clone().unwrap();
        assert_eq!(
            (e["code"].as_str(), e["budget"].as_str()),
            (Some("BUDGET_EXCEEDED"), Some("tries"))
        );
        assert_eq!(e["limit"], MAX_TRIES);
        assert!(!report.passed());
        // The step it stopped in is reported with the budget's error; nothing ran after.
        let last = report.steps.last().unwrap();
        assert_eq!(last.error.as_ref().unwrap()["code"], "BUDGET_EXCEEDED");
        assert_eq!(report.steps.len(), MAX_TRIES / 101 + 1);
    }

    #[test]
    fn a_run_ends_at_its_deadline_even_in_a_long_retry_pause() {
        let seq = steps_from_value(
            json!([{"id": "a", "tool": "fails", "retries": 5, "retry_delay_ms": 60000}, {"id": "b", "tool": "echo"}]),
            "t",
        )
        .unwrap();
        let mut router = Echo {
            calls: Mutex::new(Vec::new()),
        };
        let mut report = RunReport::new("t", "x");
        let deadline = Deadline::after(Duration::from_millis(200), "--timeout");
        let started = Instant::now();
        run(
            &seq,
            &Map::new(),
            &mut router,
            &mut Collect::default(),
            &mut report,
            &|| false,
            &deadline,
        );
        let took = started.elapsed();
        assert!(took < Duration::from_secs(2), "{took:?}");
        let e = report.error.unwrap();
        assert_eq!(e["code"], "RUN_TIMEOUT");
        assert_eq!(e["set_by"], "--timeout");
        assert_eq!(e["step"], "a");
        assert_eq!(router.calls.into_inner().unwrap(), ["fails"]);
    }
}
