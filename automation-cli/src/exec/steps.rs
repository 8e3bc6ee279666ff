//! Step events → one JUnit testcase per `stepId` (quick-junit).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use automation_wire::events::EventKind;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

/// Where a step ended up.
#[derive(Debug, Clone, PartialEq)]
pub enum StepState {
    /// Started, not finished.
    Running,
    /// `step_completed`.
    Passed,
    /// `step_failed`, with its message.
    Failed(Option<String>),
}

/// One step.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// `stepId`.
    pub id: String,
    /// `stepName` (the latest seen).
    pub name: String,
    /// Outcome.
    pub state: StepState,
    /// Milliseconds, as reported or as measured between started and finished.
    pub duration_ms: Option<f64>,
    started: Option<Instant>,
}

/// Steps in order of first appearance.
#[derive(Debug, Default, Clone)]
pub struct StepLog {
    order: Vec<String>,
    steps: HashMap<String, Step>,
}

impl StepLog {
    /// Records one event (non-step events are ignored).
    pub fn record(&mut self, event: &EventKind) {
        let (id, name) = match event {
            EventKind::StepStarted {
                step_id, step_name, ..
            }
            | EventKind::StepCompleted {
                step_id, step_name, ..
            }
            | EventKind::StepFailed {
                step_id, step_name, ..
            } => (step_id, step_name),
            _ => return,
        };
        let step = self.entry(id, name);
        match event {
            EventKind::StepStarted { .. } => {
                step.state = StepState::Running;
                step.started = Some(Instant::now());
            }
            EventKind::StepCompleted { duration, .. } => {
                step.state = StepState::Passed;
                step.duration_ms =
                    duration.or_else(|| step.started.map(|s| s.elapsed().as_secs_f64() * 1000.0));
            }
            EventKind::StepFailed {
                error, duration, ..
            } => {
                step.state = StepState::Failed(error.clone());
                step.duration_ms =
                    duration.or_else(|| step.started.map(|s| s.elapsed().as_secs_f64() * 1000.0));
            }
            _ => {}
        }
    }

    fn entry(&mut self, id: &str, name: &str) -> &mut Step {
        if !self.steps.contains_key(id) {
            self.order.push(id.to_string());
        }
        let step = self.steps.entry(id.to_string()).or_insert_with(|| Step {
            id: id.to_string(),
            name: name.to_string(),
            state: StepState::Running,
            duration_ms: None,
            started: None,
        });
        if !name.is_empty() {
            step.name = name.to_string();
        }
        step
    }

    /// The steps, in order of first appearance.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.order.iter().filter_map(|id| self.steps.get(id))
    }

    /// `(passed, failed, unfinished)`.
    pub fn counts(&self) -> (usize, usize, usize) {
        self.steps().fold((0, 0, 0), |(p, f, r), s| match s.state {
            StepState::Passed => (p + 1, f, r),
            StepState::Failed(_) => (p, f + 1, r),
            StepState::Running => (p, f, r + 1),
        })
    }

    /// A JUnit report: one suite named after the command, one testcase per step. A step that
    /// never finished is an error ("did not finish").
    pub fn to_junit(&self, suite_name: &str, elapsed: Duration) -> Report {
        let mut suite = TestSuite::new(suite_name);
        for step in self.steps() {
            let status = match &step.state {
                StepState::Passed => TestCaseStatus::success(),
                StepState::Failed(message) => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(message.clone().unwrap_or_else(|| "step failed".into()));
                    s.set_type("step_failed");
                    s
                }
                StepState::Running => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                    s.set_message("step did not finish before the command exited");
                    s.set_type("unfinished");
                    s
                }
            };
            let name = if step.name.is_empty() {
                step.id.clone()
            } else {
                step.name.clone()
            };
            let mut case = TestCase::new(name, status);
            case.set_classname(step.id.clone());
            if let Some(ms) = step.duration_ms.filter(|m| m.is_finite() && *m >= 0.0) {
                case.set_time(Duration::from_secs_f64(ms / 1000.0));
            }
            suite.add_test_case(case);
        }
        suite.set_time(elapsed);
        let mut report = Report::new("automation exec");
        report.set_time(elapsed);
        report.add_test_suite(suite);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(id: &str) -> EventKind {
        EventKind::StepStarted {
            step_id: id.into(),
            step_name: format!("step {id}"),
            step_index: None,
            total_steps: None,
        }
    }

    #[test]
    fn steps_become_cases_in_order() {
        let mut log = StepLog::default();
        log.record(&started("a"));
        log.record(&EventKind::StepCompleted {
            step_id: "a".into(),
            step_name: "step a".into(),
            duration: Some(5.0),
            step_index: None,
            total_steps: None,
        });
        log.record(&started("b"));
        log.record(&EventKind::StepFailed {
            step_id: "b".into(),
            step_name: "step b".into(),
            error: Some("boom".into()),
            duration: None,
        });
        log.record(&started("c"));
        assert_eq!(log.counts(), (1, 1, 1));
        let xml = log
            .to_junit("suite", Duration::from_millis(10))
            .to_string()
            .unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let cases: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(cases.len(), 3);
        assert_eq!(cases[0].attribute("classname"), Some("a"));
        let failure = cases[1]
            .children()
            .find(|n| n.has_tag_name("failure"))
            .unwrap();
        assert_eq!(failure.attribute("message"), Some("boom"));
        assert!(cases[2].children().any(|n| n.has_tag_name("error")));
    }
}
