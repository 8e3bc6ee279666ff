//! The runner's one error type: why a flow could not be read, a step's arguments could not be
//! rendered, a script could not be started, or a run's reports and records could not be
//! written. Each source stays typed (the TypeScript gate's error, the expression language's,
//! the files layer's, I/O, JSON, JUnit's XML); the kit's JSON error shape is made once, by
//! [`RunnerError::to_json`], where a report or a reply needs it.

use std::path::PathBuf;

use automation_core::ErrorCode;
use automation_session::files::FileError;
use automation_transpile::{ParseError, TranspileError};
use serde_json::{Value, json};

/// What `node` and `bun` missing says to do.
const INSTALL_NODE: &str = "Install Node.js (https://nodejs.org/), or set AUTOMATION_NODE to a node or bun executable, then run the script again";

/// Why the runner refused a flow or could not start one.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// The runner's own refusal: a code from core's table, one sentence, what to do, and the
    /// field (or variable) at fault when there is one.
    #[error("{code}: {message}")]
    Refused {
        /// Stable code.
        code: ErrorCode,
        /// One sentence.
        message: String,
        /// What to do.
        hint: String,
        /// The field or environment variable at fault.
        field: Option<String>,
    },
    /// One of the runner's budgets was exceeded; nothing past it was read or called.
    #[error("{}: {message}", ErrorCode::BudgetExceeded)]
    Budget {
        /// Which budget (`steps`, `yaml_depth`, `rendered_bytes`, …).
        budget: &'static str,
        /// Its limit.
        limit: usize,
        /// Where it ran out.
        at: String,
        /// One sentence.
        message: String,
        /// What to do.
        hint: String,
    },
    /// A script that does not compile: the TypeScript gate's contract. (The large sources
    /// are boxed: the error stays small to pass around.)
    #[error(transparent)]
    Transpile(Box<TranspileError>),
    /// A `{{ … }}` template whose expression does not parse.
    #[error("{field}: {error}")]
    Template {
        /// The expression language's error.
        error: Box<ParseError>,
        /// The field it sits in (`args.label`).
        field: String,
        /// The whole template.
        template: String,
    },
    /// Neither node nor bun is there to run a script.
    #[error("no JavaScript runtime to run the script: neither node nor bun is on PATH")]
    NoRuntime,
    /// A file or directory the run needs, with what it was for when the files layer's own
    /// sentence would not say it.
    #[error("{}", message.clone().unwrap_or_else(|| error.to_string()))]
    File {
        /// The files layer's error.
        error: Box<FileError>,
        /// The sentence to show in place of the files layer's.
        message: Option<String>,
    },
    /// Reading or creating a directory of the run's own (a suite's, a report's, a run's
    /// records) failed.
    #[error("cannot {doing} {}: {source}", path.display())]
    Io {
        /// What was being done (`read`, `create`).
        doing: &'static str,
        /// The directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Something other than a directory sits where a report's directory goes.
    #[error("{} exists and is not a directory (symlinks are not followed)", path.display())]
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// A directory named as one run's records holds none, or holds several runs.
    #[error("{}", records_sentence(dir, runs))]
    NoRecords {
        /// The directory.
        dir: PathBuf,
        /// The runs under it (directories holding `run.json`), sorted.
        runs: Vec<String>,
    },
    /// A call record that is not JSON.
    #[error("{} is not a call record: {source}", path.display())]
    NotARecord {
        /// The record's path.
        path: PathBuf,
        /// Why it did not parse.
        source: serde_json::Error,
    },
    /// The HTML report's data could not be serialized.
    #[error("report data: {0}")]
    ReportData(#[source] serde_json::Error),
    /// The HTML report's page lost the slot its data goes into (a build mistake).
    #[error("the report page has no data slot")]
    NoDataSlot,
    /// The JUnit report could not be serialized: quick-junit's error, as it is (behind a
    /// box, so that quick-junit stays named by the one JUnit writer, `sinks::junit`).
    #[error("{0}")]
    Junit(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// `automation exec` asked for the output of a flow the JUnit report has no suite for.
    #[error("no JUnit suite for flow {0}")]
    NoSuite(usize),
    /// A lock over what a run's flows share (the JUnit suites, the report's flows) was
    /// poisoned: a thread panicked holding it.
    #[error("{0} were poisoned")]
    Poisoned(&'static str),
    /// The event pipe of `automation exec` could not be made.
    #[error("cannot create the event pipe: {0}")]
    Pipe(#[source] automation_wire::events::PipeError),
    /// Several sinks failed as a run finished: each one's error, in order.
    #[error("{}", join(.0))]
    Many(Vec<RunnerError>),
}

/// [`RunnerError::NoRecords`]'s sentence: what to pass instead.
fn records_sentence(dir: &std::path::Path, runs: &[String]) -> String {
    match runs.last() {
        None => format!(
            "{} holds no call records (NNN-<step>-<tool>.json); pass the directory of one run, as `automation run` prints it",
            dir.display()
        ),
        Some(newest) => format!(
            "{} holds {} runs; pass the directory of the one to export, e.g. {} (the newest)",
            dir.display(),
            runs.len(),
            dir.join(newest).display()
        ),
    }
}

/// [`RunnerError::Many`]'s sentence: each error, joined with `; `.
fn join(errors: &[RunnerError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl RunnerError {
    /// The runner's own refusal, without a field.
    pub fn refused(code: ErrorCode, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::Refused {
            code,
            message: message.into(),
            hint: hint.into(),
            field: None,
        }
    }

    /// A bad flow, step or argument (`BAD_REQUEST`).
    pub fn bad(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::refused(ErrorCode::BadRequest, message, hint)
    }

    /// The files layer's error, said with what it was for in front: `records: …`.
    pub fn file_for(what: &str, error: FileError) -> Self {
        Self::File {
            message: Some(format!("{what}: {error}")),
            error: Box::new(error),
        }
    }

    /// The errors of several sinks as one: none is `None`, one is itself, more are
    /// [`RunnerError::Many`].
    pub fn all(mut errors: Vec<RunnerError>) -> Option<Self> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(Self::Many(errors)),
        }
    }

    /// The error as a person reads it on a terminal: a refusal's sentence (its code is for
    /// programs, which read [`RunnerError::to_json`]), any other error as displayed.
    pub fn sentence(&self) -> String {
        match self {
            Self::Refused { message, .. } => message.clone(),
            other => other.to_string(),
        }
    }

    /// The error in the kit's shape, as reports and replies carry it.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Refused {
                code,
                message,
                hint,
                field,
            } => {
                let mut v = json!({"code": code.as_str(), "message": message, "hint": hint});
                if let (Some(field), Value::Object(m)) = (field, &mut v) {
                    m.insert("field".into(), json!(field));
                }
                v
            }
            Self::Budget {
                budget,
                limit,
                at,
                message,
                hint,
            } => json!({
                "code": ErrorCode::BudgetExceeded.as_str(),
                "budget": budget,
                "limit": limit,
                "at": at,
                "message": message,
                "hint": hint,
            }),
            Self::Transpile(e) => e.to_json(),
            Self::Template {
                error,
                field,
                template,
            } => {
                let mut j = error.to_json();
                if let Value::Object(m) = &mut j {
                    m.insert("code".into(), json!(ErrorCode::BadRequest.as_str()));
                    m.insert("field".into(), json!(field));
                    m.insert("template".into(), json!(template));
                }
                j
            }
            Self::NoRuntime => json!({
                "error_type": "missing_tool",
                "can_fix": false,
                "message": self.to_string(),
                "fix": INSTALL_NODE,
                "recovery": {"action": "install_tool", "tool": "node", "url": "https://nodejs.org/"},
            }),
            Self::File { error, message } => {
                let mut j = error.to_json();
                if let (Some(message), Value::Object(m)) = (message, &mut j) {
                    m.insert("message".into(), json!(message));
                }
                j
            }
            Self::Io { path, .. } => json!({
                "code": ErrorCode::FileIo.as_str(),
                "message": self.to_string(),
                "hint": "check the path, its permissions and free space, then retry",
                "path": path.display().to_string(),
            }),
            Self::NotADirectory { path } => json!({
                "code": ErrorCode::BadRequest.as_str(),
                "message": self.to_string(),
                "hint": "name a directory, or a path where one can be made",
                "path": path.display().to_string(),
            }),
            Self::NoRecords { dir, .. } => json!({
                "code": ErrorCode::BadRequest.as_str(),
                "message": self.to_string(),
                "hint": "pass the records directory of one run",
                "path": dir.display().to_string(),
            }),
            Self::NotARecord { path, .. } => json!({
                "code": ErrorCode::BadRequest.as_str(),
                "message": self.to_string(),
                "hint": "pass a records directory `automation run` or execute_sequence wrote",
                "path": path.display().to_string(),
            }),
            Self::ReportData(_)
            | Self::NoDataSlot
            | Self::Junit(_)
            | Self::NoSuite(_)
            | Self::Poisoned(_)
            | Self::Pipe(_) => json!({
                "code": ErrorCode::TargetFailed.as_str(),
                "message": self.to_string(),
                "hint": "retry; if it fails again, report it",
            }),
            // The first error's shape (its code), with every error's sentence.
            Self::Many(errors) => {
                let mut j = errors
                    .first()
                    .map(Self::to_json)
                    .unwrap_or_else(|| json!({}));
                if let Value::Object(m) = &mut j {
                    m.insert("message".into(), json!(self.to_string()));
                }
                j
            }
        }
    }
}

/// Reports and replies carry errors as JSON: this is that edge.
impl From<RunnerError> for Value {
    fn from(error: RunnerError) -> Self {
        error.to_json()
    }
}

impl From<FileError> for RunnerError {
    fn from(error: FileError) -> Self {
        Self::File {
            error: Box::new(error),
            message: None,
        }
    }
}

impl From<TranspileError> for RunnerError {
    fn from(error: TranspileError) -> Self {
        Self::Transpile(Box::new(error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_keeps_the_kits_shape() {
        let e = RunnerError::bad("x: step 1 has an empty `tool`", "name a tool");
        assert_eq!(
            e.to_json(),
            json!({"code": "BAD_REQUEST", "message": "x: step 1 has an empty `tool`", "hint": "name a tool"})
        );
        assert_eq!(e.to_string(), "BAD_REQUEST: x: step 1 has an empty `tool`");
        let budget = RunnerError::Budget {
            budget: "steps",
            limit: 3,
            at: "f.json".into(),
            message: "too many".into(),
            hint: "split it".into(),
        };
        assert_eq!(budget.to_json()["code"], "BUDGET_EXCEEDED");
        assert_eq!(budget.to_json()["limit"], 3);
        let none = RunnerError::NoRuntime.to_json();
        assert_eq!(none["error_type"], "missing_tool");
        assert!(none["message"].as_str().is_some_and(|m| m.contains("node")));
    }

    /// The sentences the runner printed as strings before it had these variants, unchanged.
    #[test]
    fn each_sentence_is_the_one_it_was() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let read = RunnerError::Io {
            doing: "read",
            path: "flows".into(),
            source: io(),
        };
        assert_eq!(read.to_string(), "cannot read flows: gone");
        assert_eq!(read.to_json()["code"], "FILE_IO");
        let many = RunnerError::all(vec![
            RunnerError::Poisoned("the JUnit suites"),
            RunnerError::NoSuite(2),
        ]);
        assert_eq!(
            many.map(|e| e.to_string()).as_deref(),
            Some("the JUnit suites were poisoned; no JUnit suite for flow 2")
        );
        assert!(RunnerError::all(Vec::new()).is_none());
        let none = RunnerError::NoRecords {
            dir: "r".into(),
            runs: Vec::new(),
        };
        assert!(none.to_string().starts_with("r holds no call records"));
        let two = RunnerError::NoRecords {
            dir: "r".into(),
            runs: vec!["a".into(), "b".into()],
        };
        assert_eq!(
            two.to_string(),
            format!(
                "r holds 2 runs; pass the directory of the one to export, e.g. {} (the newest)",
                std::path::Path::new("r").join("b").display()
            )
        );
        let bad = RunnerError::bad("x does not exist", "check it");
        assert_eq!(bad.sentence(), "x does not exist");
        assert_eq!(read.sentence(), read.to_string());
    }
}
