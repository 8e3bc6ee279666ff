//! Step events → one JUnit testcase per `stepId` (quick-junit).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use automation_wire::events::EventKind;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

/// Replaces every character XML 1.0 cannot carry (C0 controls other than tab, LF and CR;
/// U+FFFE and U+FFFF) with U+FFFD, so any string can go into the report. (Lone surrogates
/// cannot occur in a Rust string.)
pub fn xml_safe(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => '\u{fffd}',
            _ => c,
        })
        .collect()
}

/// How the command itself ended, as the report sees it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CommandOutcome {
    /// Why the run is a failure even without a failed step (could not start, killed by a
    /// signal, interrupted, a non-zero exit with no failed step); `None` when it is not.
    pub failure: Option<(String, String)>,
    /// What the child wrote to stdout (captured while shown live).
    pub stdout: String,
    /// What the child wrote to stderr.
    pub stderr: String,
}

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
        self.to_junit_with(suite_name, elapsed, &CommandOutcome::default())
    }

    /// [`to_junit`](Self::to_junit), plus how the command ended: a failure of the command
    /// itself (it could not start, died by a signal, was interrupted) is one more failing
    /// testcase named after the command, and the child's output goes into the suite's
    /// `system-out`/`system-err`. Every string is passed through [`xml_safe`].
    pub fn to_junit_with(
        &self,
        suite_name: &str,
        elapsed: Duration,
        outcome: &CommandOutcome,
    ) -> Report {
        let mut suite = TestSuite::new(xml_safe(suite_name));
        for step in self.steps() {
            let status = match &step.state {
                StepState::Passed => TestCaseStatus::success(),
                StepState::Failed(message) => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(xml_safe(message.as_deref().unwrap_or("step failed")));
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
                &step.id
            } else {
                &step.name
            };
            let mut case = TestCase::new(xml_safe(name), status);
            case.set_classname(xml_safe(&step.id));
            if let Some(ms) = step.duration_ms.filter(|m| m.is_finite() && *m >= 0.0) {
                case.set_time(Duration::from_secs_f64(ms / 1000.0));
            }
            suite.add_test_case(case);
        }
        if let Some((kind, message)) = &outcome.failure {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(xml_safe(message));
            s.set_type(xml_safe(kind));
            let mut case = TestCase::new(xml_safe(suite_name), s);
            case.set_classname("command");
            case.set_time(elapsed);
            suite.add_test_case(case);
        }
        if !outcome.stdout.is_empty() {
            suite.set_system_out(xml_safe(&outcome.stdout));
        }
        if !outcome.stderr.is_empty() {
            suite.set_system_err(xml_safe(&outcome.stderr));
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

    #[test]
    fn every_character_xml_cannot_carry_is_replaced() {
        // Every Unicode scalar value, in chunks, as step names, messages and output: the file
        // must parse, and what comes back is the input with only the forbidden ones replaced.
        let all: Vec<char> = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
        for chunk in all.chunks(0x4000) {
            let text: String = chunk.iter().collect();
            let mut log = StepLog::default();
            log.record(&EventKind::StepStarted {
                step_id: text.clone(),
                step_name: text.clone(),
                step_index: None,
                total_steps: None,
            });
            log.record(&EventKind::StepFailed {
                step_id: text.clone(),
                step_name: text.clone(),
                error: Some(text.clone()),
                duration: None,
            });
            let outcome = CommandOutcome {
                failure: Some(("signal".into(), text.clone())),
                stdout: text.clone(),
                stderr: text.clone(),
            };
            let xml = log
                .to_junit_with(&text, Duration::from_millis(1), &outcome)
                .to_string()
                .unwrap();
            let doc = roxmltree::Document::parse(&xml)
                .unwrap_or_else(|e| panic!("U+{:04X}..: {e}", u32::from(chunk[0])));
            let failure = doc
                .descendants()
                .find(|n| n.has_tag_name("failure"))
                .unwrap();
            let msg = failure.attribute("message").unwrap();
            assert!(!msg.contains('\u{fffe}') && !msg.contains('\u{ffff}'));
        }
        assert_eq!(
            xml_safe("a\u{0}b\u{fffe}\u{ffff}\t\n\r\u{10ffff}"),
            "a\u{fffd}b\u{fffd}\u{fffd}\t\n\r\u{10ffff}"
        );
    }
}
