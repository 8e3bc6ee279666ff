//! JUnit: one testsuite per flow, one testcase per step (quick-junit); a failure carries the
//! step's error and the step's logs (at most
//! [`MAX_STEP_LOG_BYTES`](crate::budget::MAX_STEP_LOG_BYTES) a step). The one JUnit
//! writer: `automation run` and `automation exec` both write theirs here. The file is written
//! through [`automation_session::files::write_replacing`]: never through a symlink or into a FIFO, and a full
//! disk leaves the previous report whole.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use automation_session::files;
use automation_wire::events::EventKind;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::budget::{BoundedLines, MAX_RUN_LOG_BYTES};
use crate::error::RunnerError;
use crate::events::{RunEvent, Sink};
use crate::report::{RunReport, StepStatus, where_line};
use crate::steps::{ErrorWords, one_line};

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

/// What a poisoned lock over the suites says (a flow's thread panicked holding it).
const POISONED: RunnerError = RunnerError::Poisoned("the JUnit suites");

/// The suites of a whole `automation run`, in flow order.
#[derive(Clone, Default)]
pub struct Suites(Arc<Mutex<Vec<(usize, TestSuite)>>>);

impl Suites {
    /// Writes them as one report to `path`.
    pub fn write(&self, path: &Path, name: &str) -> Result<(), RunnerError> {
        let mut suites = self.0.lock().map_err(|_| POISONED)?.clone();
        suites.sort_by_key(|(i, _)| *i);
        let mut report = Report::new(xml_safe(name));
        let mut total = Duration::ZERO;
        for (_, s) in suites {
            if let Some(t) = s.time {
                total += t;
            }
            report.add_test_suite(s);
        }
        report.set_time(total);
        let xml = report.to_string().map_err(serialize)?;
        files::write_replacing(path, xml.as_bytes(), files::REPORT_FILE)
            .map_err(|e| RunnerError::file_for("cannot write JUnit", e))
    }

    /// Puts a command's own output into the `index`-th flow's suite, as its `system-out` and
    /// `system-err` (`automation exec`: what the command printed, beside its steps). Empty
    /// output is left out.
    pub fn set_output(&self, index: usize, stdout: &str, stderr: &str) -> Result<(), RunnerError> {
        let mut suites = self.0.lock().map_err(|_| POISONED)?;
        let (_, suite) = suites
            .iter_mut()
            .find(|(i, _)| *i == index)
            .ok_or(RunnerError::NoSuite(index))?;
        if !stdout.is_empty() {
            suite.set_system_out(xml_safe(stdout));
        }
        if !stderr.is_empty() {
            suite.set_system_err(xml_safe(stderr));
        }
        Ok(())
    }
}

/// Readies a `--junit` path before anything runs (`run` and `exec`): its directory is made
/// if missing (`--junit reports/junit.xml` in a fresh checkout), and a path that cannot be
/// written — or where something other than a regular file sits (a symlink, a FIFO, a
/// directory) — is refused, naming why.
pub fn prepare_path(path: &Path) -> Result<(), RunnerError> {
    files::prepare_report_path(path).map_err(|e| RunnerError::File {
        message: Some(format!(
            "cannot write JUnit to {}: {e}; {}",
            path.display(),
            e.hint()
        )),
        error: Box::new(e),
    })
}

/// Collects one flow's steps and logs; its suite goes into [`Suites`] when the flow ends.
pub struct JunitSink {
    index: usize,
    suites: Suites,
    current: Option<String>,
    logs: HashMap<String, BoundedLines>,
    /// Bytes of logs kept, all steps together.
    kept: usize,
}

impl JunitSink {
    /// The sink for the `index`-th flow.
    pub fn new(index: usize, suites: Suites) -> Self {
        Self {
            index,
            suites,
            current: None,
            logs: HashMap::new(),
            kept: 0,
        }
    }

    fn log(&mut self, line: String) {
        let key = self.current.clone().unwrap_or_default();
        let total: usize = self.kept;
        let lines = self.logs.entry(key).or_default();
        if total + line.len() > MAX_RUN_LOG_BYTES {
            lines.skip();
            return;
        }
        let before = lines.bytes();
        lines.push(line);
        self.kept += lines.bytes() - before;
    }
}

impl Sink for JunitSink {
    fn event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::Event(EventKind::StepStarted { step_id, .. }) => {
                self.current = Some(step_id.clone());
            }
            RunEvent::Event(EventKind::StepCompleted { .. } | EventKind::StepFailed { .. }) => {
                if let RunEvent::Event(EventKind::StepFailed { error: Some(e), .. }) = event {
                    self.log(format!("[error] {e}"));
                }
                self.current = None;
            }
            RunEvent::Event(EventKind::Log { level, message, .. }) => {
                self.log(format!("[{}] {message}", level.as_str()));
            }
            RunEvent::Event(EventKind::Status { message, .. }) => {
                self.log(format!("status: {message}"));
            }
            RunEvent::Log(record) => self.log(record.message.clone()),
            RunEvent::Call(call) => self.log(format!(
                "{} {} ({:.1} ms){}",
                call.tool,
                call.args,
                call.duration_ms,
                if call.is_error { " failed" } else { "" }
            )),
            RunEvent::Poll(p) => self.log(format!(
                "{} {} polled: {} tries in {:.0} ms ({} settles between){}",
                p.last.tool,
                p.last.args,
                p.tries,
                p.span_ms,
                p.settles,
                if p.last.is_error { " last failed" } else { "" }
            )),
            RunEvent::Event(_) | RunEvent::Image(_) | RunEvent::Failure(_) => {}
        }
    }

    fn finish(&mut self, report: &RunReport) -> Result<(), RunnerError> {
        let mut suite = TestSuite::new(xml_safe(&report.flow));
        for step in &report.steps {
            let logs = self.logs.get(&step.id).map(|l| l.lines().join("\n"));
            let status = match step.status {
                StepStatus::Passed => TestCaseStatus::success(),
                StepStatus::Skipped => {
                    let mut s = TestCaseStatus::skipped();
                    if let Some(why) = &step.skipped_because {
                        s.set_message(xml_safe(why));
                    }
                    s
                }
                StepStatus::Failed | StepStatus::Unfinished => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    let mut message = step
                        .error
                        .as_ref()
                        .map(one_line)
                        .unwrap_or_else(|| "step failed".into());
                    // The script's file:line, where CI shows the message.
                    if let Some(at) = step.error.as_ref().and_then(where_line) {
                        message.push_str(&format!(" (at {at})"));
                    }
                    if let Some(to) = &step.fallback {
                        message.push_str(&format!(" (its fallback_id jumped to {to})"));
                    }
                    s.set_message(xml_safe(&message));
                    let code = step.error.as_ref().and_then(|e| ErrorWords::of(e).code);
                    s.set_type(xml_safe(code.as_deref().unwrap_or("step_failed")));
                    if let Some(e) = &step.error {
                        s.set_description(xml_safe(
                            &serde_json::to_string_pretty(e).unwrap_or_default(),
                        ));
                    }
                    s
                }
            };
            let mut case = TestCase::new(xml_safe(&step.name), status);
            case.set_classname(xml_safe(&format!("{}::{}", report.flow, step.id)));
            case.set_time(Duration::from_millis(step.duration_ms));
            if let Some(logs) = logs {
                case.set_system_out(xml_safe(&logs));
            }
            suite.add_test_case(case);
        }
        // A run that failed outside any step (does not compile, cannot start, crashed
        // between steps) is one more failing testcase: never green.
        let step_failed = report
            .steps
            .iter()
            .any(|s| matches!(s.status, StepStatus::Failed | StepStatus::Unfinished));
        if !report.passed() && !step_failed {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            let err = report.error.clone().unwrap_or_default();
            let mut message = one_line(&err);
            if let Some(at) = where_line(&err) {
                message.push_str(&format!(" (at {at})"));
            }
            s.set_message(xml_safe(&message));
            s.set_type("run_failed");
            s.set_description(xml_safe(
                &serde_json::to_string_pretty(&err).unwrap_or_default(),
            ));
            let mut case = TestCase::new(xml_safe(&report.flow), s);
            case.set_classname(xml_safe(&format!("{}::run", report.flow)));
            if let Some(logs) = self.logs.get("") {
                case.set_system_out(xml_safe(&logs.lines().join("\n")));
            }
            suite.add_test_case(case);
        }
        suite.set_time(Duration::from_millis(report.duration_ms));
        self.suites
            .0
            .lock()
            .map_err(|_| POISONED)?
            .push((self.index, suite));
        Ok(())
    }
}

/// An accessibility audit (`automation audit --format junit`) as JUnit: one suite, one case per
/// rule run — failing with its findings (each the node's selector and what a person meets),
/// its items to review in the case's output.
pub fn audit_report(report: &automation_audit::Report) -> Result<String, RunnerError> {
    let name = if report.app.is_empty() {
        "audit".to_string()
    } else {
        format!("audit {}", report.app)
    };
    let mut suite = TestSuite::new(xml_safe(&name));
    let line = |i: &automation_audit::Item| {
        let at = i.selector.clone().unwrap_or_else(|| i.role.clone());
        format!("{at}: {}", i.message)
    };
    for run in &report.rules {
        let of_rule = |items: &[automation_audit::Item]| -> Vec<String> {
            items
                .iter()
                .filter(|i| i.rule == run.rule)
                .map(line)
                .collect()
        };
        let found = of_rule(&report.findings);
        let status = if found.is_empty() {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(xml_safe(&format!(
                "{} finding(s) of {} checked",
                found.len(),
                run.checked
            )));
            s.set_type(xml_safe(&run.rule));
            s.set_description(xml_safe(&found.join("\n")));
            s
        };
        let mut case = TestCase::new(xml_safe(&run.rule), status);
        case.set_classname("audit");
        let review = of_rule(&report.needs_review);
        if !review.is_empty() {
            case.set_system_out(xml_safe(&format!("to review:\n{}", review.join("\n"))));
        }
        suite.add_test_case(case);
    }
    suite.set_time(Duration::from_millis(report.ms));
    let mut out = Report::new("automation audit");
    out.add_test_suite(suite);
    out.to_string().map_err(serialize)
}

/// quick-junit's error as the runner's.
fn serialize(e: quick_junit::SerializeError) -> RunnerError {
    RunnerError::Junit(Box::new(e))
}
