//! The typed event pipe: test processes stream progress and step events to whoever runs them.
//!
//! One JSON object per line, tagged `"__mcp_event__": true` (a JSON boolean), with `type` and
//! an ISO-8601 `timestamp`; fields are camelCase. Anything else on the channel is plain output
//! and becomes a [`LogRecord`], never mixed with events and never dropped.
//!
//! The format is Terminator's (mediar-ai/terminator, the MIT MCP agent: its `event_pipe.rs` and
//! `log_pipe.rs`), so producers written for it work unchanged; `docs/events.md` lists the
//! defects of that parser which this one does the right way.

mod emitter;
// The line reader shared by both transports.
mod lines;
mod parse;
#[cfg(unix)]
mod pipe;
#[cfg(windows)]
#[path = "pipe_windows.rs"]
mod pipe;

pub use emitter::{EmitError, EventEmitter};
pub use parse::{ParsedLine, parse_line, parse_log_line};
pub use pipe::EventPipe;

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// Env var naming the event channel handed to a child.
pub const EVENT_PIPE_ENV: &str = "MCP_EVENT_PIPE_PATH";
/// Env var naming the companion log channel.
pub const LOG_PIPE_ENV: &str = "MCP_LOG_PIPE_PATH";
/// The tag every event line carries (as JSON `true`).
pub const EVENT_TAG: &str = "__mcp_event__";

/// One typed event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// ISO-8601 timestamp as sent.
    pub timestamp: String,
    /// What happened.
    pub kind: EventKind,
}

/// The eight event types (wire `type` in parentheses).
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// `progress {current, total?, message?}`
    Progress {
        /// Units done.
        current: f64,
        /// Units in total.
        total: Option<f64>,
        /// What is being done.
        message: Option<String>,
    },
    /// `step_started {stepId, stepName, stepIndex?, totalSteps?}`
    StepStarted {
        /// Step id.
        step_id: String,
        /// Step name.
        step_name: String,
        /// Index (any integer; fractions truncate).
        step_index: Option<i64>,
        /// Number of steps.
        total_steps: Option<i64>,
    },
    /// `step_completed {stepId, stepName, duration?, stepIndex?, totalSteps?}`
    StepCompleted {
        /// Step id.
        step_id: String,
        /// Step name.
        step_name: String,
        /// Milliseconds (fractions accepted).
        duration: Option<f64>,
        /// Index.
        step_index: Option<i64>,
        /// Number of steps.
        total_steps: Option<i64>,
    },
    /// `step_failed {stepId, stepName, error?, duration?}`
    StepFailed {
        /// Step id.
        step_id: String,
        /// Step name.
        step_name: String,
        /// What went wrong.
        error: Option<String>,
        /// Milliseconds.
        duration: Option<f64>,
    },
    /// `screenshot {path?, base64?, annotation?, element?}` (`base64` without any `data:` prefix)
    Screenshot {
        /// File path.
        path: Option<String>,
        /// PNG bytes, base64 (a `data:…;base64,` prefix is stripped on parse).
        base64: Option<String>,
        /// Caption.
        annotation: Option<String>,
        /// Element described.
        element: Option<String>,
    },
    /// `data {key, value}`
    Data {
        /// Key.
        key: String,
        /// Any JSON.
        value: Value,
    },
    /// `status {message, duration?, element?}`
    Status {
        /// Status text.
        message: String,
        /// Milliseconds.
        duration: Option<f64>,
        /// Element concerned.
        element: Option<String>,
    },
    /// `log {level, message, data?}`
    Log {
        /// Level.
        level: LogLevel,
        /// Message (kept even when `data` is present).
        message: String,
        /// Structured payload.
        data: Option<Value>,
    },
}

impl EventKind {
    /// The wire `type`.
    pub fn wire_type(&self) -> &'static str {
        match self {
            EventKind::Progress { .. } => "progress",
            EventKind::StepStarted { .. } => "step_started",
            EventKind::StepCompleted { .. } => "step_completed",
            EventKind::StepFailed { .. } => "step_failed",
            EventKind::Screenshot { .. } => "screenshot",
            EventKind::Data { .. } => "data",
            EventKind::Status { .. } => "status",
            EventKind::Log { .. } => "log",
        }
    }
}

/// Log levels (lenient on parse: `warning` → `Warn`, unknown → `Info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// trace
    Trace,
    /// debug
    Debug,
    /// info
    Info,
    /// warn
    Warn,
    /// error
    Error,
}

impl LogLevel {
    /// Lenient parse.
    pub fn parse(s: &str) -> LogLevel {
        match s.trim().to_ascii_lowercase().as_str() {
            "trace" => LogLevel::Trace,
            "debug" | "verbose" => LogLevel::Debug,
            "warn" | "warning" => LogLevel::Warn,
            "error" | "err" | "fatal" | "critical" => LogLevel::Error,
            _ => LogLevel::Info,
        }
    }
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Trace => "trace",
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
        }
    }
}

/// Where a log record came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogSource {
    /// A non-event line on the event channel (plain output).
    EventChannel,
    /// A line on the log channel.
    LogChannel,
}

/// Anything that is not an event: plain output, or a log-channel entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRecord {
    /// Level (plain output is `Info`).
    pub level: LogLevel,
    /// The text (the whole line for plain output).
    pub message: String,
    /// Structured payload (log channel).
    pub data: Option<Value>,
    /// Timestamp, if the line had one.
    pub timestamp: Option<String>,
    /// Which channel.
    pub source: LogSource,
    /// Why a line that was tagged as an event was not accepted as one.
    pub rejected: Option<String>,
}

impl Event {
    /// An event stamped now.
    pub fn now(kind: EventKind) -> Self {
        Event {
            timestamp: iso8601_now(),
            kind,
        }
    }

    /// One JSON line (no trailing newline).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(EVENT_TAG, &true)?;
        m.serialize_entry("type", self.kind.wire_type())?;
        m.serialize_entry("timestamp", &self.timestamp)?;
        fn opt<M: SerializeMap, T: Serialize>(
            m: &mut M,
            k: &str,
            v: &Option<T>,
        ) -> Result<(), M::Error> {
            match v {
                Some(v) => m.serialize_entry(k, v),
                None => Ok(()),
            }
        }
        match &self.kind {
            EventKind::Progress {
                current,
                total,
                message,
            } => {
                m.serialize_entry("current", current)?;
                opt(&mut m, "total", total)?;
                opt(&mut m, "message", message)?;
            }
            EventKind::StepStarted {
                step_id,
                step_name,
                step_index,
                total_steps,
            } => {
                m.serialize_entry("stepId", step_id)?;
                m.serialize_entry("stepName", step_name)?;
                opt(&mut m, "stepIndex", step_index)?;
                opt(&mut m, "totalSteps", total_steps)?;
            }
            EventKind::StepCompleted {
                step_id,
                step_name,
                duration,
                step_index,
                total_steps,
            } => {
                m.serialize_entry("stepId", step_id)?;
                m.serialize_entry("stepName", step_name)?;
                opt(&mut m, "duration", duration)?;
                opt(&mut m, "stepIndex", step_index)?;
                opt(&mut m, "totalSteps", total_steps)?;
            }
            EventKind::StepFailed {
                step_id,
                step_name,
                error,
                duration,
            } => {
                m.serialize_entry("stepId", step_id)?;
                m.serialize_entry("stepName", step_name)?;
                opt(&mut m, "error", error)?;
                opt(&mut m, "duration", duration)?;
            }
            EventKind::Screenshot {
                path,
                base64,
                annotation,
                element,
            } => {
                opt(&mut m, "path", path)?;
                opt(&mut m, "base64", base64)?;
                opt(&mut m, "annotation", annotation)?;
                opt(&mut m, "element", element)?;
            }
            EventKind::Data { key, value } => {
                m.serialize_entry("key", key)?;
                m.serialize_entry("value", value)?;
            }
            EventKind::Status {
                message,
                duration,
                element,
            } => {
                m.serialize_entry("message", message)?;
                opt(&mut m, "duration", duration)?;
                opt(&mut m, "element", element)?;
            }
            EventKind::Log {
                level,
                message,
                data,
            } => {
                m.serialize_entry("level", level.as_str())?;
                m.serialize_entry("message", message)?;
                opt(&mut m, "data", data)?;
            }
        }
        m.end()
    }
}

/// Now as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC), without a date-time dependency.
pub fn iso8601_now() -> String {
    let ms = crate::descriptor::now_unix_ms();
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        ms % 1000
    )
}

/// A UUID-v4-shaped execution id from the OS RNG.
pub fn new_execution_id() -> std::io::Result<String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)
        .map_err(|e| std::io::Error::other(format!("OS RNG unavailable: {e}")))?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    // One allocation: the id is made for every run, a cost an `execute_sequence` step pays.
    let mut id = String::with_capacity(36);
    for (i, x) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            id.push('-');
        }
        // Writing to a String cannot fail.
        let _ = write!(id, "{x:02x}");
    }
    Ok(id)
}

/// Longest line accepted (bytes before the newline); a longer one is reported once as a log
/// record with `rejected` set and skipped up to its newline (see `lines.rs`).
pub(crate) const LINE_CAP: usize = 64 * 1024 * 1024;

/// What the reader delivers, in order per channel.
#[derive(Debug, Clone, PartialEq)]
pub enum PipeItem {
    /// A typed event.
    Event(Event),
    /// Plain output on the event channel, or a log-channel entry.
    Log(LogRecord),
}

/// Counts after draining.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PipeSummary {
    /// Events delivered.
    pub events: u64,
    /// Log records delivered.
    pub logs: u64,
}

/// Why the channel could not be set up or drained.
#[derive(Debug, thiserror::Error)]
pub enum PipeError {
    /// I/O error at a path.
    #[error("event pipe {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A reader thread panicked or failed.
    #[error("event pipe reader failed: {0}")]
    Reader(String),
}

#[cfg(test)]
mod tests {
    #[test]
    fn execution_ids_are_uuid_v4_shaped_and_differ() {
        let a = super::new_execution_id().unwrap_or_default();
        let b = super::new_execution_id().unwrap_or_default();
        assert_ne!(a, b);
        let groups: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12], "{a}");
        assert!(
            a.chars()
                .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_eq!(a.as_bytes()[14], b'4', "version nibble: {a}");
        assert!(
            matches!(a.as_bytes()[19], b'8' | b'9' | b'a' | b'b'),
            "variant: {a}"
        );
    }
}
