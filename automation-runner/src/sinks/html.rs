//! The HTML report sink (`automation run --report DIR`): files each call under its step,
//! writes each screenshot into the report's `img/` as it arrives (a call's own, the app right
//! after an action, the app at a failure), and at the flow's end hands its entry to the
//! run's [`Flows`]; the suite writes the page once every flow has ended.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use automation_wire::events::EventKind;
use serde::Deserialize;
use serde_json::Value;

use crate::budget::MAX_RECORDS_PER_STEP;
use crate::error::RunnerError;
use crate::events::{CallRecord, RunEvent, Sink};
use crate::evidence::Evidence;
use crate::report::{RunReport, StepStatus};
use crate::report_page::{
    CallEntry, Counts, FlowEntry, Golden, Report, ReportDir, Shot, StepEntry, excerpt,
};

/// Screenshots one flow may put in the report; past it, calls are listed without one.
pub const MAX_IMAGES_PER_FLOW: usize = 200;
/// Log lines one step keeps in the report.
pub const MAX_LOG_LINES_PER_STEP: usize = 200;
/// The largest arguments or result a call keeps in the report (a whole snapshot can be
/// megabytes); a larger one is shown by its size and first characters.
pub const MAX_CALL_JSON_BYTES: usize = 64 * 1024;

/// `value`, or a note of its size and start when its JSON is over [`MAX_CALL_JSON_BYTES`].
fn bounded(value: &Value) -> Value {
    let text = value.to_string();
    if text.len() <= MAX_CALL_JSON_BYTES {
        return value.clone();
    }
    let mut cut = 2048.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    serde_json::json!({"truncated": true, "bytes": text.len(), "start": &text[..cut]})
}

/// The id calls outside any step are filed under (a script's calls before its first step).
const OUTSIDE: &str = "";

/// What a poisoned lock over the flows says (a flow's thread panicked holding it).
const POISONED: RunnerError = RunnerError::Poisoned("the report's flows");

/// The flows of a whole run, in the order given.
#[derive(Clone, Default)]
pub struct Flows(Arc<Mutex<Vec<FlowEntry>>>);

impl Flows {
    /// Writes the report: the page with every flow so far.
    pub fn write(
        &self,
        dir: &ReportDir,
        started: &str,
        duration_ms: u64,
    ) -> Result<std::path::PathBuf, RunnerError> {
        let mut flows = self.0.lock().map_err(|_| POISONED)?.clone();
        flows.sort_by_key(|f| f.index);
        let passed = flows.iter().filter(|f| f.status == "passed").count();
        let report = Report {
            title: "automation run".into(),
            started: started.to_string(),
            duration_ms,
            counts: Counts {
                passed,
                failed: flows.len() - passed,
            },
            flows,
        };
        dir.write(&report)
    }
}

/// One flow's part of the report.
pub struct HtmlSink {
    index: usize,
    dir: ReportDir,
    flows: Flows,
    calls: BTreeMap<String, Vec<CallEntry>>,
    /// Calls past [`MAX_RECORDS_PER_STEP`], per step.
    dropped: BTreeMap<String, usize>,
    logs: BTreeMap<String, Vec<String>>,
    current: String,
    images: usize,
    failure: Option<Shot>,
    errors: Vec<RunnerError>,
}

impl HtmlSink {
    /// The sink of flow `index`, writing into `dir`, its entry going to `flows`.
    pub fn new(index: usize, dir: ReportDir, flows: Flows) -> Self {
        Self {
            index,
            dir,
            flows,
            calls: BTreeMap::new(),
            dropped: BTreeMap::new(),
            logs: BTreeMap::new(),
            current: OUTSIDE.to_string(),
            images: 0,
            failure: None,
            errors: Vec::new(),
        }
    }

    /// Writes a screenshot (within the flow's cap) and describes it.
    fn shot(&mut self, png: &[u8], meta: ShotMeta) -> Option<Shot> {
        if png.is_empty() && meta.tree.is_none() {
            return None;
        }
        let image = if png.is_empty() || self.images >= MAX_IMAGES_PER_FLOW {
            None
        } else {
            self.images += 1;
            match self
                .dir
                .image(&format!("f{}-{}", self.index, self.images), png)
            {
                Ok(rel) => Some(rel),
                Err(e) => {
                    self.errors.push(e);
                    None
                }
            }
        };
        Some(Shot {
            image,
            width: meta.width,
            height: meta.height,
            scale: meta.scale,
            bounds: meta.bounds,
            tree: meta.tree,
        })
    }

    fn call(&mut self, call: &CallRecord, tries: Option<u32>) {
        // As many calls a step as its records keep; the rest are counted.
        let kept = self.calls.get(&call.step_id).map_or(0, Vec::len);
        if kept >= MAX_RECORDS_PER_STEP {
            *self.dropped.entry(call.step_id.clone()).or_default() += 1;
            return;
        }
        let shot = if let Some(png) = &call.image {
            let meta = ShotMeta::of_result(&call.result);
            self.shot(png, meta)
        } else if let Some(ev) = &call.evidence {
            self.shot(&ev.png, ShotMeta::of(ev))
        } else {
            None
        };
        let golden = if call.tool == automation_session::tools::ASSERT_SCREENSHOT && call.is_error {
            self.golden(&call.result)
        } else {
            None
        };
        let audit = (call.tool == automation_session::tools::audit::AUDIT_APP)
            .then(|| crate::report_page::AuditBox::of_result(&call.result))
            .flatten();
        let entry = CallEntry {
            tool: call.tool.clone(),
            args: bounded(&call.args),
            result: bounded(&call.result),
            is_error: call.is_error,
            duration_ms: call.duration_ms,
            tries,
            shot,
            golden,
            audit,
        };
        self.calls
            .entry(call.step_id.clone())
            .or_default()
            .push(entry);
    }

    /// A failed `assert_screenshot`'s baseline, capture and diff (the paths its error names),
    /// copied into the report so it shows them side by side.
    fn golden(&mut self, error: &Value) -> Option<Golden> {
        // A step's error is the op error; a script's call keeps the reply (`{status, …}`).
        let path = |section: &str, key: &str| -> Option<String> {
            error
                .get(section)
                .and_then(|v| v.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let mut copy = |p: Option<String>| -> Option<String> {
            use automation_wire::fsguard::{Follow, read_regular};
            let png = read_regular(std::path::Path::new(&p?), 64 * 1024 * 1024, Follow::No).ok()?;
            self.shot(&png, ShotMeta::of_result(&Value::Null))?.image
        };
        let golden = Golden {
            expected: copy(path("expected", "baseline")),
            actual: copy(path("actual", "actual")),
            diff: copy(path("actual", "diff")),
        };
        (golden.expected.is_some() || golden.actual.is_some()).then_some(golden)
    }

    fn log(&mut self, line: String) {
        let lines = self.logs.entry(self.current.clone()).or_default();
        if lines.len() < MAX_LOG_LINES_PER_STEP {
            lines.push(line);
        }
    }

    /// The flow's entry, from its report and what the stream brought.
    fn entry(&mut self, report: &RunReport) -> FlowEntry {
        let mut steps: Vec<StepEntry> = Vec::with_capacity(report.steps.len() + 1);
        let mut seen = std::collections::HashSet::new();
        for s in &report.steps {
            // A step run again after a jump has one entry per run; its calls go to the first.
            let first = seen.insert(s.id.clone());
            steps.push(StepEntry {
                id: s.id.clone(),
                name: s.name.clone(),
                status: status_word(s.status).into(),
                duration_ms: s.duration_ms,
                attempts: (s.attempts > 1).then_some(s.attempts),
                skipped_because: s.skipped_because.clone(),
                error: s.error.clone(),
                calls: if first {
                    self.calls.remove(&s.id).unwrap_or_default()
                } else {
                    Vec::new()
                },
                logs: if first {
                    self.logs.remove(&s.id).unwrap_or_default()
                } else {
                    Vec::new()
                },
                calls_dropped: if first {
                    self.dropped.remove(&s.id).unwrap_or(0)
                } else {
                    0
                },
            });
        }
        // Calls and output outside any step (a script without steps) come first, as one
        // entry; then anything filed under an id no step reported.
        let mut rest: Vec<String> = self.calls.keys().chain(self.logs.keys()).cloned().collect();
        rest.sort();
        rest.dedup();
        for id in rest {
            let calls = self.calls.remove(&id).unwrap_or_default();
            let logs = self.logs.remove(&id).unwrap_or_default();
            let calls_dropped = self.dropped.remove(&id).unwrap_or(0);
            let outside = id == OUTSIDE;
            let failed = calls.last().is_some_and(|c| c.is_error) && !report.passed();
            let entry = StepEntry {
                name: if outside {
                    "calls outside a step".into()
                } else {
                    id.clone()
                },
                id,
                status: if failed { "failed" } else { "passed" }.into(),
                duration_ms: calls.iter().map(|c| c.duration_ms).sum::<f64>().round() as u64,
                attempts: None,
                skipped_because: None,
                error: if failed { report.error.clone() } else { None },
                calls,
                logs,
                calls_dropped,
            };
            if outside {
                steps.insert(0, entry);
            } else {
                steps.push(entry);
            }
        }
        FlowEntry {
            index: self.index,
            name: report.flow.clone(),
            status: report.status.to_string(),
            duration_ms: report.duration_ms,
            execution_id: report.execution_id.clone(),
            error: report.error.clone(),
            source: report.error.as_ref().and_then(source_of),
            steps,
            failure: self.failure.take(),
        }
    }
}

/// What describes a screenshot.
struct ShotMeta {
    width: u32,
    height: u32,
    scale: f64,
    bounds: Option<Value>,
    tree: Option<String>,
}

impl ShotMeta {
    fn of(ev: &Evidence) -> Self {
        Self {
            width: ev.width,
            height: ev.height,
            scale: ev.scale,
            bounds: ev.bounds.clone(),
            tree: ev.tree.clone(),
        }
    }

    /// A screenshot call's result: `{width, height, scale, …}`.
    fn of_result(result: &Value) -> Self {
        /// A screenshot's size, as its result gives it.
        #[derive(serde::Deserialize)]
        struct Size {
            #[serde(default)]
            width: u32,
            #[serde(default)]
            height: u32,
            #[serde(default = "one")]
            scale: f64,
        }
        fn one() -> f64 {
            1.0
        }
        let size = Size::deserialize(result).unwrap_or(Size {
            width: 0,
            height: 0,
            scale: 1.0,
        });
        Self {
            width: size.width,
            height: size.height,
            scale: size.scale,
            bounds: None,
            tree: None,
        }
    }
}

fn status_word(s: StepStatus) -> &'static str {
    match s {
        StepStatus::Passed => "passed",
        StepStatus::Failed => "failed",
        StepStatus::Skipped => "skipped",
        StepStatus::Unfinished => "unfinished",
    }
}

/// The lines around an error's `location` in its file (a regular file, read within the flow
/// cap; an error without a location has none).
fn source_of(error: &Value) -> Option<crate::report_page::Excerpt> {
    let loc = crate::report::ErrorView::of(error).location?;
    let file = loc.file?;
    let (line, column) = (loc.line, loc.column);
    let text = automation_session::files::read_text(
        std::path::Path::new(&file),
        automation_session::files::MAX_FLOW_BYTES,
    )
    .ok()?;
    excerpt(&file, &text, line, column, 4)
}

impl Sink for HtmlSink {
    fn event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::Call(call) => self.call(call, None),
            RunEvent::Poll(poll) => self.call(&poll.last, Some(poll.tries)),
            RunEvent::Failure(ev) => {
                let ev = Arc::clone(ev);
                self.failure = self.shot(&ev.png, ShotMeta::of(&ev));
            }
            RunEvent::Event(EventKind::StepStarted { step_id, .. }) => {
                self.current = step_id.clone();
            }
            RunEvent::Event(EventKind::StepCompleted { .. } | EventKind::StepFailed { .. }) => {
                self.current = OUTSIDE.to_string();
            }
            RunEvent::Log(record) => self.log(record.message.clone()),
            RunEvent::Event(_) | RunEvent::Image(_) => {}
        }
    }

    fn wants_evidence(&self) -> bool {
        true
    }

    fn finish(&mut self, report: &RunReport) -> Result<(), RunnerError> {
        let entry = self.entry(report);
        self.flows.0.lock().map_err(|_| POISONED)?.push(entry);
        RunnerError::all(std::mem::take(&mut self.errors)).map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(step: &str, result: Value) -> CallRecord {
        CallRecord {
            step_id: step.into(),
            tool: "read_node".into(),
            args: serde_json::json!({"node": "e1"}),
            result,
            is_error: false,
            duration_ms: 1.0,
            image: None,
            evidence: None,
        }
    }

    #[test]
    fn a_step_keeps_its_records_worth_of_calls_and_each_call_a_bounded_json() {
        let dir = tempfile::tempdir().unwrap();
        let flows = Flows::default();
        let mut sink = HtmlSink::new(0, ReportDir::prepare(dir.path()).unwrap(), flows.clone());
        let huge = Value::String("x".repeat(MAX_CALL_JSON_BYTES * 2));
        sink.event(&RunEvent::Call(call("s", huge)));
        for _ in 0..MAX_RECORDS_PER_STEP + 4 {
            sink.event(&RunEvent::Call(call("s", serde_json::json!({"ok": true}))));
        }
        sink.finish(&RunReport::new("f.ts", "x")).unwrap();
        let entries = flows.0.lock().unwrap();
        let step = &entries[0].steps[0];
        assert_eq!(step.calls.len(), MAX_RECORDS_PER_STEP);
        assert_eq!(step.calls_dropped, 5);
        let first = &step.calls[0].result;
        assert_eq!(first["truncated"], true, "{first}");
        assert!(first.to_string().len() < 4096);
    }
}
