//! A script's verdict, once it has ended: the steps it reported, its crash report, its exit
//! status and whether the run stopped it, made into the run's report — each failure located
//! in the submitted source (through the source map) where a frame of the entry file says
//! where. A step the script started and never finished fails the run
//! (`SCRIPT_EXITED_EARLY`), unless the run stopped the script itself (its time, a budget, a
//! cancel), whose own error then says why.

use std::path::Path;

use automation_core::ErrorCode;
use serde_json::{Value, json};

use super::flow::Script;
use super::report::{
    ErrorView, Location, RunReport, StepReport, StepStatus, lenient, runner_error,
};
use super::sourcemap::Mapped;
use super::steps::one_line;
use serde::Deserialize;

/// How a script ended.
pub(super) struct Ended {
    /// The steps it reported (unfinished ones included).
    pub steps: Vec<StepReport>,
    /// Its crash report, if it sent one.
    pub crash: Option<Crash>,
    /// The last lines of its stderr.
    pub stderr_tail: Vec<String>,
    /// Its exit status.
    pub status: std::io::Result<std::process::ExitStatus>,
    /// The run was cancelled.
    pub cancelled: bool,
    /// The run stopped it (time, budget, cancel).
    pub stopped: bool,
}

/// The JS client's crash report (`clients/js/src/crash.js`): a `log` at level error whose data
/// says `uncaught`. Read once, where it arrives; a field of another type reads as absent.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub(super) struct Crash {
    /// `exception` or `rejection`: what makes a log a crash report.
    #[serde(default)]
    uncaught: Option<Value>,
    /// The JS error's class (`TypeError`).
    #[serde(default, deserialize_with = "lenient")]
    name: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    message: Option<String>,
    /// The kit's code, or a JS error's own string `code`.
    #[serde(default, deserialize_with = "lenient")]
    code: Option<String>,
    /// A kit error's whole object.
    #[serde(default, deserialize_with = "lenient")]
    error: Option<serde_json::Map<String, Value>>,
    #[serde(default, deserialize_with = "lenient")]
    stack: Option<String>,
    /// The first frame outside node and the client.
    #[serde(default, deserialize_with = "lenient")]
    location: Option<Location>,
    /// The step that was running: `{stepId, stepName}`.
    #[serde(default)]
    step: Option<Value>,
}

impl Crash {
    /// The crash report in a log's data, if it is one.
    pub(super) fn of(data: &Value) -> Option<Self> {
        let crash = Self::deserialize(data).ok()?;
        crash.uncaught.is_some().then_some(crash)
    }

    /// The id of the step that was running, as the client sent it.
    fn step_id(&self) -> Option<Value> {
        /// The client's step record.
        #[derive(serde::Deserialize)]
        struct Started {
            #[serde(rename = "stepId")]
            step_id: Value,
        }
        let step = self.step.as_ref().filter(|s| !s.is_null())?;
        Some(Started::deserialize(step).map_or_else(|_| step.clone(), |s| s.step_id))
    }
}

/// A `{file, line, column}` in the entry file (a frame the JS client reports), mapped to the
/// submitted source; `None` for another file or a frame without a column.
fn entry_frame(loc: &Location, entry: &Path, mapped: &Mapped) -> Option<(u32, u32)> {
    (Path::new(loc.file.as_deref()?) == entry).then_some(())?;
    let line = u32::try_from(loc.line).ok()?;
    let column = u32::try_from(loc.column?).ok()?;
    mapped.original(line, column)
}

/// Where the script's own positions are: the file node ran (`entry`, in the run's private
/// directory) and its map back to the submitted source. Whatever the run passes on (a step's
/// error, a log line, the child's output) points into the user's file, never the temp copy.
#[derive(Clone, Copy)]
pub(super) struct Places<'a> {
    pub entry: &'a Path,
    pub mapped: &'a Mapped,
    pub script: &'a Script,
}

impl Places<'_> {
    /// An error's `location` in the entry file, made the submitted file's (with its
    /// `error_line`); `false` when it was elsewhere (a module it imports) or absent.
    pub fn error(&self, e: &mut serde_json::Map<String, Value>) -> bool {
        let Some((line, column)) = ErrorView::of(&Value::Object(e.clone()))
            .location
            .and_then(|loc| entry_frame(&loc, self.entry, self.mapped))
        else {
            return false;
        };
        self.put(e, (line, column));
        true
    }

    /// Sets an error's `location` to `(line, column)` of the submitted file, and its
    /// `error_line` to that line's source.
    fn put(&self, e: &mut serde_json::Map<String, Value>, (line, column): (u32, u32)) {
        e.insert(
            "location".into(),
            json!({"file": self.script.file_name, "line": line, "column": column}),
        );
        let source = self
            .script
            .source
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .unwrap_or_default();
        e.insert("error_line".into(), json!(source));
    }

    /// `text` with every `…<entry>:L:C` (a stack frame, `file://` or not) made
    /// `<file>:l:c` in the submitted source.
    pub fn text(&self, text: &str) -> String {
        let plain = self.entry.display().to_string();
        if plain.is_empty() || !text.contains(&plain) {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(&plain) {
            let head = &rest[..at];
            let head = head.strip_suffix("file://").unwrap_or(head);
            out.push_str(head);
            let after = &rest[at + plain.len()..];
            let (line, column, len) = line_column(after);
            // A frame without a column is placed at its line's start.
            let mapped = line.and_then(|l| self.mapped.original(l, column.unwrap_or(1)));
            out.push_str(&self.script.file_name);
            match mapped {
                Some((l, c)) if column.is_some() => out.push_str(&format!(":{l}:{c}")),
                Some((l, _)) => out.push_str(&format!(":{l}")),
                // Not placed: the generated numbers would name the wrong line, so none.
                None => {}
            }
            rest = &after[len..];
        }
        out.push_str(rest);
        out
    }
}

/// `:L:C` (or `:L`) at the start of `s`: the numbers, and how many bytes they took.
fn line_column(s: &str) -> (Option<u32>, Option<u32>, usize) {
    let number = |s: &str| -> Option<(u32, usize)> {
        let digits = s.strip_prefix(':')?;
        let n = digits.bytes().take_while(u8::is_ascii_digit).count();
        Some((digits[..n].parse().ok()?, n + 1))
    };
    let Some((line, a)) = number(s) else {
        return (None, None, 0);
    };
    match number(&s[a..]) {
        Some((column, b)) => (Some(line), Some(column), a + b),
        None => (Some(line), None, a),
    }
}

/// A stack frame `…<path>:L:C` of the entry file, mapped to the submitted source.
fn locate(text: &str, entry: &Path, mapped: &Mapped) -> Option<(u32, u32)> {
    let plain = entry.display().to_string();
    for line in text.lines() {
        let Some(at) = line.find(&plain) else {
            continue;
        };
        let rest = &line[at + plain.len()..];
        let mut nums = rest
            .trim_start_matches(':')
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<u32>().ok());
        if let (Some(Some(l)), Some(Some(c))) = (nums.next(), nums.next()) {
            return mapped.original(l, c);
        }
    }
    None
}

/// Sets the report from how the script ended (see the module doc). The failures are laid
/// down in this order, the first kept as the run's error: the crash, the first failed step,
/// the exit status, a step the script exited during.
pub(super) fn finish(
    report: &mut RunReport,
    ended: Ended,
    mapped: &Mapped,
    entry: &Path,
    script: &Script,
) {
    let places = Places {
        entry,
        mapped,
        script,
    };
    let Ended {
        mut steps,
        crash,
        stderr_tail,
        status,
        cancelled,
        stopped,
    } = ended;
    let exited_early = mark_unfinished(&mut steps, report.error.as_ref(), stopped);
    place_failed_steps(&mut steps, crash.as_ref(), &places);
    let failed_step = steps
        .iter()
        .find(|s| s.status == StepStatus::Failed)
        .and_then(|s| s.error.clone());
    report.steps = steps;
    if let Some(crash) = &crash {
        report.fail(crash_error(crash, &places));
    }
    if let Some(e) = failed_step {
        report.fail(e);
    }
    if let Some(e) = exit_error(status, cancelled, &stderr_tail, &places) {
        report.fail(e);
    }
    if let Some(e) = exited_early {
        report.fail(e);
    }
    if !report.passed()
        && let Some(e) = &report.error
    {
        tracing::debug!(error = %one_line(e), "script failed");
    }
}

/// Gives each step the script started and never ended its error; the first
/// `SCRIPT_EXITED_EARLY`, if any, for the run.
fn mark_unfinished(
    steps: &mut [StepReport],
    run_error: Option<&Value>,
    stopped: bool,
) -> Option<Value> {
    // A step the script started and never ended: the script exited in the middle of it
    // (`process.exit` in a step, a step never awaited). Never a pass. (When the run stopped
    // the script — its time, a budget, a cancel — the run's own error says why instead.)
    let mut exited_early = None;
    for s in steps {
        if s.status == StepStatus::Unfinished && stopped {
            s.error = run_error.cloned().or_else(|| {
                Some(json!({"code": ErrorCode::Cancelled.as_str(), "message": "the run was cancelled during this step"}))
            });
        } else if s.status == StepStatus::Unfinished {
            let err = json!({
                "code": ErrorCode::ScriptExitedEarly.as_str(),
                "message": format!("the script exited during step {:?}; the step never finished", s.name),
                "step": s.id,
                "hint": "let every step's function return before the script ends: await it, and do not call process.exit inside a step",
            });
            exited_early.get_or_insert_with(|| err.clone());
            s.error = Some(err);
        }
    }
    exited_early
}

/// Places each failed step's error in the submitted source.
fn place_failed_steps(steps: &mut [StepReport], crash: Option<&Crash>, places: &Places<'_>) {
    let (entry, mapped) = (places.entry, places.mapped);
    // Where in the submitted source a failed step threw: the frame its error carries (the JS
    // client adds it), else the crash's when the crash was that step's.
    let crash_frame = crash.and_then(|crash| {
        let step = crash.step_id()?.as_str()?.to_string();
        Some((step, entry_frame(crash.location.as_ref()?, entry, mapped)?))
    });
    for s in steps.iter_mut().filter(|s| s.status == StepStatus::Failed) {
        let own = s
            .error
            .as_ref()
            .and_then(|e| ErrorView::of(e).location)
            .and_then(|loc| entry_frame(&loc, entry, mapped));
        let Some(Value::Object(e)) = &mut s.error else {
            continue;
        };
        let frame = own.or_else(|| {
            crash_frame
                .as_ref()
                .filter(|(step, _)| *step == s.id)
                .map(|(_, f)| *f)
        });
        if let Some(frame) = frame {
            places.put(e, frame);
        }
        // Else a location the client gave stays as it is: a module the script imports, a
        // real file.
    }
}

/// The run's error for the script's crash report, placed in the submitted source where a
/// frame of the entry file says where.
fn crash_error(crash: &Crash, places: &Places<'_>) -> Value {
    let (entry, mapped) = (places.entry, places.mapped);
    let frame = crash
        .location
        .as_ref()
        .and_then(|loc| entry_frame(loc, entry, mapped))
        .or_else(|| {
            crash
                .stack
                .as_deref()
                .and_then(|s| locate(s, entry, mapped))
        });
    let kit = crash.error.as_ref();
    let message = crash.message.as_deref().unwrap_or("uncaught exception");
    // A kit error's class name (`AutomationError`) is the client's plumbing, and its code
    // already says what kind of failure it is; a plain JS error keeps its `TypeError: `.
    let message = if kit.is_some() {
        message.to_string()
    } else {
        format!("{}: {message}", crash.name.as_deref().unwrap_or("Error"))
    };
    let mut err = json!({
        "code": crash.code.as_deref().unwrap_or(ErrorCode::ScriptError.as_str()),
        "message": message,
        "hint": "fix the script at that line and run it again",
    });
    if let Value::Object(m) = &mut err {
        if let Some(frame) = frame {
            places.put(m, frame);
        }
        if let Some(step) = crash.step_id() {
            m.insert("step".into(), step);
        }
        if let Some(k) = kit {
            for key in ["hint", "candidates", "actual", "expected", "op"] {
                if let Some(v) = k.get(key) {
                    m.insert(key.into(), v.clone());
                }
            }
        }
    }
    err
}

/// The run's error for the script's exit status: none for a success; a failure carries its
/// stderr's tail, placed where a frame in it says.
fn exit_error(
    status: std::io::Result<std::process::ExitStatus>,
    cancelled: bool,
    stderr_tail: &[String],
    places: &Places<'_>,
) -> Option<Value> {
    match status {
        Ok(s) if s.success() => None,
        Ok(s) => {
            let tail = stderr_tail.join("\n");
            let mut err = runner_error(
                if cancelled {
                    ErrorCode::Cancelled
                } else {
                    ErrorCode::ScriptError
                },
                if cancelled {
                    "the run was cancelled; the script was stopped".to_string()
                } else {
                    format!("the script exited with {s}")
                },
                "the script's stderr is below; fix the script and run it again",
            )
            .to_json();
            if let (Value::Object(m), Some(frame)) =
                (&mut err, locate(&tail, places.entry, places.mapped))
            {
                places.put(m, frame);
            }
            if let Value::Object(m) = &mut err
                && !tail.is_empty()
            {
                m.insert("stderr".into(), json!(tail));
            }
            Some(err)
        }
        Err(e) => Some(Value::from(runner_error(
            ErrorCode::TargetFailed,
            format!("waiting for the script failed: {e}"),
            "retry",
        ))),
    }
}
