//! A step's tries: each substitutes the step's `{{expr}}` arguments, calls the tool through
//! the router and reports the call; a failed try waits `retry_delay_ms` before the next,
//! within the run's limits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use automation_session::tools::Outcome;
use automation_wire::events::{EventKind, LogLevel};
use serde_json::{Map, Value, json};

use super::{DEFAULT_RETRY_DELAY, Done, Failure, Run, ms, one_line};
use crate::error::RunnerError;
use crate::events::{CallRecord, RunEvent};
use crate::flow::Step;
use crate::template::substitute_map;

impl Run<'_> {
    /// Every try of one step; the value on success, with tries and time taken. A try the
    /// run's limits forbid is not made: the failure then comes with `limits.stopped` set.
    pub(super) fn attempt_all(&mut self, step: &Step, id: &str) -> Result<Done, Failure> {
        let begun = Instant::now();
        let tries = step.retries.saturating_add(1);
        let delay = step
            .retry_delay_ms
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_RETRY_DELAY);
        let mut last = Value::Null;
        for attempt in 1..=tries {
            let failed = |error| Failure {
                error,
                attempts: attempt - 1,
                duration: begun.elapsed(),
            };
            if !self.limits.try_one(id) {
                return Err(failed(self.limits.stopped.clone().unwrap_or(Value::Null)));
            }
            let args = match self.args_for_try(step, attempt, tries, last) {
                Ok(m) => m,
                Err(e) => return Err(failed(e.to_json())),
            };
            let (value, is_error) = self.call(step, id, args);
            if !is_error {
                return Ok((value, attempt, begun.elapsed()));
            }
            last = value;
            if self.limits.deadline.passed() {
                // The op was stopped by the deadline (or failed right at it): the run's time is up.
                self.limits.stopped = Some(self.limits.deadline.error());
                break;
            }
            if attempt < tries && self.wait_to_retry(id, attempt, tries, delay, &last) {
                break;
            }
        }
        Err(Failure {
            error: last,
            attempts: tries,
            duration: begun.elapsed(),
        })
    }

    /// The step's arguments for try `attempt`, substituted.
    fn args_for_try(
        &mut self,
        step: &Step,
        attempt: u32,
        tries: u32,
        last: Value,
    ) -> Result<Map<String, Value>, RunnerError> {
        // `runtime.attempt` (1-based) and `runtime.last_error` (the previous try's error:
        // its hint and candidates) are visible to this try's `{{expr}}` arguments only: set
        // for the substitution, then the variable it shadowed (if any) is put back.
        let runtime =
            json!({"attempt": attempt, "attempts": attempt, "tries": tries, "last_error": last});
        with_var(&mut self.vars, "runtime", runtime, |vars| {
            substitute_map(&step.args, vars, "args")
        })
    }

    /// One call of the step's tool: its value (the selector left out unless asked for) and
    /// whether it failed; the call record and any image go to the sink.
    fn call(&mut self, step: &Step, id: &str, args: Map<String, Value>) -> (Value, bool) {
        let (router, sink) = (&mut *self.router, &mut *self.sink);
        let t = Instant::now();
        // A call record copies the arguments and the result: made only for a sink that
        // reads calls (records, a forwarded stream).
        let asked = automation_session::tools::asks_selector(&args);
        let (call_args, recorded) = if sink.wants_calls() {
            (args.clone(), Some(args))
        } else {
            (args, None)
        };
        let out = router.call(&step.tool, call_args);
        let is_error = out.is_error();
        let (mut value, image) = match out {
            Outcome::Image(i) => (Value::Object(i.meta), Some(Arc::new(i.png))),
            other => (other.into_value(), None),
        };
        if let Some(args) = recorded {
            // The record keeps the node's durable selector (its replay snippet uses it).
            sink.event(&RunEvent::Call(CallRecord {
                step_id: id.to_string(),
                tool: step.tool.clone(),
                args: Value::Object(args),
                result: value.clone(),
                is_error,
                duration_ms: ms(t.elapsed()),
                image: image.clone(),
                evidence: router.take_evidence(),
            }));
        }
        if !asked {
            automation_session::tools::strip_selector(&mut value);
        }
        if let Some(png) = image {
            sink.event(&RunEvent::Image(png));
            sink.event(&RunEvent::Event(EventKind::Screenshot {
                path: None,
                base64: None,
                annotation: Some(format!("step {id}")),
                element: None,
            }));
        }
        (value, is_error)
    }

    /// Between a failed try and the next: a warning, progress, the pause. True when the
    /// tries end here (the run's deadline passed, or it was cancelled).
    fn wait_to_retry(
        &mut self,
        id: &str,
        attempt: u32,
        tries: u32,
        delay: Duration,
        last: &Value,
    ) -> bool {
        let sink = &mut *self.sink;
        sink.event(&RunEvent::Event(EventKind::Log {
            level: LogLevel::Warn,
            message: format!(
                "step {id}: try {attempt} of {tries} failed ({}); retrying in {} ms",
                one_line(last),
                delay.as_millis()
            ),
            data: None,
        }));
        // Below the next whole number: progress still only grows.
        let frac = f64::from(attempt) / f64::from(tries);
        self.progress.emit(
            sink,
            self.progress.finished as f64 + frac,
            &format!("retrying {id} ({attempt}/{tries} failed)"),
        );
        let limits = &mut self.limits;
        let stopped = pause(delay.min(limits.deadline.left()), self.cancelled);
        if limits.deadline.passed() {
            limits.stopped = Some(limits.deadline.error());
            return true;
        }
        stopped
    }
}

/// Sleeps `delay` in short slices, so a cancelled run (it holds the target thread) stops
/// within one; true when it was cancelled.
fn pause(delay: Duration, cancelled: &dyn Fn() -> bool) -> bool {
    const SLICE: Duration = Duration::from_millis(20);
    let until = Instant::now() + delay;
    loop {
        if cancelled() {
            return true;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(left.min(SLICE));
    }
}

/// Runs `f` with `vars.key` set to `value`, then restores what `key` held before.
fn with_var<T>(vars: &mut Value, key: &str, value: Value, f: impl FnOnce(&Value) -> T) -> T {
    let before = match vars {
        Value::Object(m) => m.insert(key.to_string(), value),
        _ => None,
    };
    let out = f(vars);
    if let Value::Object(m) = vars {
        match before {
            Some(v) => m.insert(key.to_string(), v),
            None => m.remove(key),
        };
    }
    out
}
