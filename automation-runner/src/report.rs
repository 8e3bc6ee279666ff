//! What a run answers: a small per-step report and the failing step's structured error.

use automation_core::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::RunnerError;

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// It ran and succeeded (perhaps after retries).
    Passed,
    /// It failed (after its retries).
    Failed,
    /// Its condition was false, or it came before `start_from_step`.
    Skipped,
    /// It started and never finished (a script that exited mid-step).
    Unfinished,
}

impl StepStatus {
    /// The name later conditions see in `<id>_status`.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Passed => "success",
            StepStatus::Failed => "error",
            StepStatus::Skipped => "skipped",
            StepStatus::Unfinished => "unfinished",
        }
    }
}

/// One step of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepReport {
    /// The step id.
    pub id: String,
    /// A readable name (the tool for JSON steps, the script's step name).
    pub name: String,
    /// How it ended.
    pub status: StepStatus,
    /// Milliseconds, all attempts included.
    pub duration_ms: u64,
    /// Tries made (1 when it passed first time; 0 when skipped).
    #[serde(skip_serializing_if = "is_one")]
    pub attempts: u32,
    /// Why it was skipped, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_because: Option<String>,
    /// The structured error of the last attempt (`{code, message, hint?, …}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The step its `fallback_id` jumped to after it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// The whole run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// The flow's name (file name, or `inline`).
    pub flow: String,
    /// `passed`, `failed`, or `recovered` (it reached its end, but only because a failed
    /// step's `fallback_id` took over: not a pass).
    pub status: &'static str,
    /// The execution id (names the event pipe and the records).
    pub execution_id: String,
    /// Milliseconds for the whole run.
    pub duration_ms: u64,
    /// Each step in the order it ran (a step run again after a jump appears again).
    pub steps: Vec<StepReport>,
    /// The failing step's structured error (also on that step), or the run's own error (a
    /// script that does not compile, a child that could not start), when the run failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Where the per-step records were written, when they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<String>,
}

impl RunReport {
    /// A report with no steps yet.
    pub fn new(flow: impl Into<String>, execution_id: impl Into<String>) -> Self {
        Self {
            flow: flow.into(),
            status: "passed",
            execution_id: execution_id.into(),
            duration_ms: 0,
            steps: Vec::new(),
            error: None,
            records: None,
        }
    }

    /// Whether the run passed (a `recovered` run did not).
    pub fn passed(&self) -> bool {
        self.status == "passed"
    }

    /// Marks the run failed with this error. The first failure is kept, except that a real
    /// failure replaces the error of a step a fallback took over.
    pub fn fail(&mut self, error: impl Into<Value>) {
        let error = error.into();
        if self.error.is_none() || self.status == "recovered" {
            self.error = Some(error);
        }
        self.status = "failed";
    }

    /// A step failed and its `fallback_id` took over: the run is `recovered` (unless it has
    /// already failed) and its error is that step's, until a real failure replaces it.
    pub fn recover(&mut self, error: impl Into<Value>) {
        let error = error.into();
        if self.status == "passed" {
            self.status = "recovered";
            self.error = Some(error);
        }
    }

    /// `(passed, failed, skipped)` step counts.
    pub fn counts(&self) -> (usize, usize, usize) {
        self.steps
            .iter()
            .fold((0, 0, 0), |(p, f, s), step| match step.status {
                StepStatus::Passed => (p + 1, f, s),
                StepStatus::Failed | StepStatus::Unfinished => (p, f + 1, s),
                StepStatus::Skipped => (p, f, s + 1),
            })
    }

    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// An error object in the kit's shape, for failures of the runner itself.
pub fn runner_error(code: ErrorCode, message: impl Into<String>, hint: &str) -> RunnerError {
    RunnerError::refused(code, message, hint)
}

/// An op error's candidates as one line a person reads in a run's output: the nodes by role,
/// name and value (their references mean nothing once the run is over), then the hint.
pub fn candidates_line(error: &Value) -> Option<String> {
    /// What an op error offers: the closest nodes and the hint.
    #[derive(serde::Deserialize)]
    struct Offered {
        #[serde(default)]
        candidates: Vec<Named>,
        #[serde(default)]
        hint: Option<String>,
    }
    /// A candidate as a person reads it (its reference means nothing once the run is over).
    #[derive(serde::Deserialize)]
    struct Named {
        #[serde(default)]
        role: Option<String>,
        #[serde(default)]
        label: Option<String>,
        #[serde(default)]
        value: Option<String>,
    }
    let offered: Offered = serde::Deserialize::deserialize(error).ok()?;
    if offered.candidates.is_empty() {
        return None;
    }
    let named: Vec<String> = offered
        .candidates
        .iter()
        .map(|c| {
            let mut text = c.role.clone().unwrap_or_else(|| "node".into());
            if let Some(l) = &c.label {
                text.push_str(&format!(" {l:?}"));
            }
            if let Some(v) = &c.value {
                text.push_str(&format!(" = {v:?}"));
            }
            text
        })
        .collect();
    let mut line = format!("candidates: {}", named.join(", "));
    if let Some(hint) = offered.hint {
        line.push_str(&format!("; hint: {hint}"));
    }
    Some(line)
}

/// Where an error happened: a file (absent for the TypeScript gate's errors, which are in the
/// flow's own source), a line and perhaps a column. The kit's, the runner's, the gate's and
/// the JS client's errors all write it this way.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Location {
    /// The file, when the error names one.
    #[serde(default)]
    pub file: Option<String>,
    /// 1-based line.
    pub line: u64,
    /// 1-based column.
    #[serde(default)]
    pub column: Option<u64>,
}

/// A run error as the report's readers use it, read once by serde: errors of every source (an
/// op's, the runner's, the gate's, a condition's, a script's crash) share these fields, and a
/// field of another type reads as absent rather than failing the whole view.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct ErrorView {
    /// The kit's stable code.
    #[serde(default, deserialize_with = "lenient")]
    pub code: Option<String>,
    /// The gate's and the condition language's kind of error.
    #[serde(default, deserialize_with = "lenient")]
    pub error_type: Option<String>,
    /// One sentence.
    #[serde(default, deserialize_with = "lenient")]
    pub message: Option<String>,
    /// The kit's fix.
    #[serde(default, deserialize_with = "lenient")]
    pub hint: Option<String>,
    /// The gate's and the condition language's fix.
    #[serde(default, deserialize_with = "lenient")]
    pub fix: Option<String>,
    /// Where it happened.
    #[serde(default, deserialize_with = "lenient")]
    pub location: Option<Location>,
    /// The source line at `location`.
    #[serde(default, deserialize_with = "lenient")]
    pub error_line: Option<String>,
    /// The field it is about.
    #[serde(default, deserialize_with = "lenient")]
    pub field: Option<String>,
    /// The condition the field held (the condition language's errors).
    #[serde(default)]
    pub condition: Option<Value>,
    /// The value the field held.
    #[serde(default)]
    pub value: Option<Value>,
}

/// A field that does not fit its type reads as absent: a reader of a report must not lose the
/// whole error over one odd field.
pub(crate) fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = Value::deserialize(d)?;
    Ok(serde_json::from_value(value).ok())
}

impl ErrorView {
    /// The view of an error object (an error that is not an object has none of these).
    pub fn of(error: &Value) -> Self {
        Self::deserialize(error).unwrap_or_default()
    }

    /// `file:line[:column][: source]`, with `file` standing in when the location names none.
    fn at(&self, file: Option<&str>) -> Option<String> {
        let loc = self.location.as_ref()?;
        let mut at = format!("{}:{}", loc.file.as_deref().or(file)?, loc.line);
        if let Some(c) = loc.column {
            at.push_str(&format!(":{c}"));
        }
        if let Some(src) = self
            .error_line
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            at.push_str(&format!(": {src}"));
        }
        Some(at)
    }
}

/// Where an error happened in the submitted script, from its `location` (and `error_line`):
/// `save.ts:8:3: await expect(field).toHaveValue('Bob');`, or `None` when it has none.
pub fn where_line(error: &Value) -> Option<String> {
    ErrorView::of(error).at(None)
}

/// What a person needs under a failed flow's verdict, one line each: the error (its code or
/// type, and message) unless it was `shown` already, where (`at file:line:col: source`; an
/// error placed in the flow's source with no file, the TypeScript gate's, is in `flow`), the
/// field and value it is about (what it expected is in its message), the candidates, and the
/// fix.
pub fn failure_lines(error: &Value, flow: &str, shown: bool) -> Vec<String> {
    let e = ErrorView::of(error);
    let text = |t: &Option<String>| t.as_deref().map(str::trim).map(str::to_string);
    let mut lines = Vec::new();
    if !shown {
        let message = text(&e.message).unwrap_or_else(|| "the run failed".into());
        lines.push(match text(&e.code).or(text(&e.error_type)) {
            Some(kind) => format!("{kind}: {message}"),
            None => message,
        });
    }
    // The gate's errors are placed in the flow's source and name no file.
    let gate = e.location.as_ref().is_some_and(|l| l.file.is_none())
        && e.field.is_none()
        && e.code.is_none();
    if let Some(at) = e.at(gate.then_some(flow)) {
        lines.push(format!("at {at}"));
    }
    if let (Some(field), Some(value)) = (text(&e.field), e.condition.as_ref().or(e.value.as_ref()))
    {
        lines.push(format!("field: {field} = {value}"));
    }
    let candidates = candidates_line(error);
    let has_candidates = candidates.is_some();
    lines.extend(candidates);
    // `fix` is the transpiler's and the condition language's; `hint` the kit's (the
    // candidates line carries it when there is one).
    if let Some(fix) = text(&e.fix).or(text(&e.hint).filter(|_| !has_candidates)) {
        lines.push(format!("fix: {fix}"));
    }
    lines
}
