//! A child's step lifecycle events (`step_started`, `step_completed`, `step_failed`, from its
//! event pipe) → the run's step reports. A script child (the JS client) and `automation exec`'s
//! command both report their steps this way.

use std::time::Instant;

use automation_core::ErrorCode;
use automation_wire::events::EventKind;
use serde_json::{Value, json};

use super::report::{StepReport, StepStatus};

/// The steps seen so far, in the order they started.
#[derive(Debug, Default)]
pub struct StepEvents {
    steps: Vec<StepReport>,
    /// The step running now, and when it started.
    current: Option<(String, Instant)>,
    /// The current step's last failed op (its code names a step failure sent as plain text).
    last_error: Option<Value>,
}

impl StepEvents {
    /// Takes one event (any other than a step's start or end is ignored).
    pub fn see(&mut self, kind: &EventKind) {
        match kind {
            EventKind::StepStarted {
                step_id, step_name, ..
            } => {
                self.current = Some((step_id.clone(), Instant::now()));
                self.last_error = None;
                self.steps.push(StepReport {
                    id: step_id.clone(),
                    name: name_or_id(step_name, step_id),
                    status: StepStatus::Unfinished,
                    duration_ms: 0,
                    attempts: 1,
                    skipped_because: None,
                    error: None,
                    fallback: None,
                });
            }
            EventKind::StepCompleted {
                step_id,
                step_name,
                duration,
                ..
            } => self.end(step_id, step_name, *duration, None),
            EventKind::StepFailed {
                step_id,
                step_name,
                error,
                duration,
            } => {
                // The JS client sends the kit's error object as JSON text; plain text is the
                // message, with the step's last failed op for the code.
                let parsed = error
                    .as_deref()
                    .and_then(|e| serde_json::from_str::<Value>(e).ok())
                    .filter(Value::is_object);
                let mut err = match parsed {
                    Some(e) => e,
                    None => {
                        let mut e = self
                            .last_error
                            .clone()
                            .unwrap_or_else(|| json!({"code": ErrorCode::StepFailed.as_str()}));
                        if let Value::Object(m) = &mut e {
                            m.insert(
                                "message".into(),
                                json!(error.clone().unwrap_or_else(|| "the step failed".into())),
                            );
                        }
                        e
                    }
                };
                if let Value::Object(m) = &mut err {
                    m.remove("status");
                    m.insert("step".into(), json!(step_id));
                }
                self.end(step_id, step_name, *duration, Some(err));
            }
            _ => {}
        }
    }

    /// The id of the step running now.
    pub fn current(&self) -> Option<&str> {
        self.current.as_ref().map(|(id, _)| id.as_str())
    }

    /// `(passed, failed, unfinished)` steps so far.
    pub fn counts(&self) -> (usize, usize, usize) {
        self.steps
            .iter()
            .fold((0, 0, 0), |(p, f, u), s| match s.status {
                StepStatus::Passed => (p + 1, f, u),
                StepStatus::Failed => (p, f + 1, u),
                StepStatus::Unfinished => (p, f, u + 1),
                StepStatus::Skipped => (p, f, u),
            })
    }

    /// An op of the current step failed with `error` (a plain-text `step_failed` takes its
    /// code).
    pub fn op_failed(&mut self, error: Value) {
        self.last_error = Some(error);
    }

    /// The steps as they are, a step still running left `Unfinished` (the caller says why it
    /// never finished).
    pub fn into_steps(self) -> Vec<StepReport> {
        self.steps
    }

    /// The steps, a step still running marked with `STEP_FAILED` and `unfinished` as its
    /// message (it started and the child ended before it did: never a pass).
    pub fn finish(self, unfinished: &str) -> Vec<StepReport> {
        let mut steps = self.steps;
        for s in &mut steps {
            if s.status == StepStatus::Unfinished {
                s.error =
                    Some(json!({"code": ErrorCode::StepFailed.as_str(), "message": unfinished}));
            }
        }
        steps
    }

    fn end(&mut self, id: &str, name: &str, duration: Option<f64>, error: Option<Value>) {
        let measured = self
            .current
            .as_ref()
            .filter(|(c, _)| c == id)
            .map(|(_, t)| t.elapsed().as_secs_f64() * 1000.0);
        let ms = duration.or(measured).unwrap_or(0.0).max(0.0);
        let status = if error.is_some() {
            StepStatus::Failed
        } else {
            StepStatus::Passed
        };
        let entry = self
            .steps
            .iter_mut()
            .rev()
            .find(|s| s.id == id && s.status == StepStatus::Unfinished);
        let report = StepReport {
            id: id.to_string(),
            name: name_or_id(name, id),
            status,
            duration_ms: ms as u64,
            attempts: 1,
            skipped_because: None,
            error,
            fallback: None,
        };
        match entry {
            Some(e) => *e = report,
            None => self.steps.push(report),
        }
        if self.current.as_ref().is_some_and(|(c, _)| c == id) {
            self.current = None;
        }
    }
}

/// A step's name, or its id when it was sent without one.
fn name_or_id(name: &str, id: &str) -> String {
    if name.is_empty() { id } else { name }.to_string()
}
