//! The Rust producer: `EventEmitter::from_env()` writes one JSON line per event to
//! `$MCP_EVENT_PIPE_PATH`, and is a silent no-op when the variable is unset.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use super::{EVENT_PIPE_ENV, Event, EventKind, LogLevel};

/// Why an emit failed.
#[derive(Debug, thiserror::Error)]
#[error("could not write to the event pipe {path}: {source}")]
pub struct EmitError {
    /// The pipe.
    pub path: PathBuf,
    /// The error.
    pub source: io::Error,
}

/// Writes events to the channel named by `MCP_EVENT_PIPE_PATH`.
#[derive(Debug)]
pub struct EventEmitter {
    sink: Option<(PathBuf, Mutex<std::fs::File>)>,
}

impl EventEmitter {
    /// From the environment; a no-op emitter when `MCP_EVENT_PIPE_PATH` is unset or empty.
    pub fn from_env() -> Result<Self, EmitError> {
        match std::env::var_os(EVENT_PIPE_ENV).filter(|v| !v.is_empty()) {
            Some(p) => Self::to_path(PathBuf::from(p)),
            None => Ok(EventEmitter { sink: None }),
        }
    }

    /// Write to an explicit channel path.
    pub fn to_path(path: PathBuf) -> Result<Self, EmitError> {
        let file = OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|source| EmitError {
                path: path.clone(),
                source,
            })?;
        Ok(EventEmitter {
            sink: Some((path, Mutex::new(file))),
        })
    }

    /// A no-op emitter.
    pub fn disabled() -> Self {
        EventEmitter { sink: None }
    }

    /// True when events go somewhere.
    pub fn is_enabled(&self) -> bool {
        self.sink.is_some()
    }

    /// Send one event (a single `write` of the line plus its newline).
    pub fn emit(&self, event: &Event) -> Result<(), EmitError> {
        let Some((path, file)) = &self.sink else {
            return Ok(());
        };
        let mut line = event.to_json_line().into_bytes();
        line.push(b'\n');
        let mut f = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        f.write_all(&line).map_err(|source| EmitError {
            path: path.clone(),
            source,
        })
    }

    /// Emit an event of `kind`, stamped now.
    pub fn send(&self, kind: EventKind) -> Result<(), EmitError> {
        if self.sink.is_none() {
            return Ok(());
        }
        self.emit(&Event::now(kind))
    }

    /// `progress`.
    pub fn progress(
        &self,
        current: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), EmitError> {
        self.send(EventKind::Progress {
            current,
            total,
            message: message.map(str::to_owned),
        })
    }

    /// `step_started`.
    pub fn step_started(&self, step_id: &str, step_name: &str) -> Result<(), EmitError> {
        self.send(EventKind::StepStarted {
            step_id: step_id.into(),
            step_name: step_name.into(),
            step_index: None,
            total_steps: None,
        })
    }

    /// `step_completed`.
    pub fn step_completed(
        &self,
        step_id: &str,
        step_name: &str,
        duration_ms: Option<f64>,
    ) -> Result<(), EmitError> {
        self.send(EventKind::StepCompleted {
            step_id: step_id.into(),
            step_name: step_name.into(),
            duration: duration_ms,
            step_index: None,
            total_steps: None,
        })
    }

    /// `step_failed`.
    pub fn step_failed(
        &self,
        step_id: &str,
        step_name: &str,
        error: &str,
    ) -> Result<(), EmitError> {
        self.send(EventKind::StepFailed {
            step_id: step_id.into(),
            step_name: step_name.into(),
            error: Some(error.into()),
            duration: None,
        })
    }

    /// `log`.
    pub fn log(&self, level: LogLevel, message: &str) -> Result<(), EmitError> {
        self.send(EventKind::Log {
            level,
            message: message.into(),
            data: None,
        })
    }
}
