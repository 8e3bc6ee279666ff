//! A run's records directory (`automation run --records`, `execute_sequence`) read back as a
//! session log, so the export that writes an MCP session as a test writes a run as one too:
//! the steps of a YAML flow become a TypeScript script, a script's calls become steps.

use std::path::Path;

use automation_core::{ErrorCode, OpError};
use automation_session::files;
use automation_session::tools::{self, Outcome};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::log::SessionLog;
use crate::error::RunnerError;

/// The largest record read (a record holds one call's arguments and reply).
const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;

/// Whether a file name is a call's record: `NNN-<step>-<tool>.json`.
fn is_call_record(name: &str) -> bool {
    name.len() > 9
        && name.ends_with(".json")
        && name.as_bytes()[..3].iter().all(u8::is_ascii_digit)
        && name.as_bytes()[3] == b'-'
}

/// The run a `--records DIR` names: `DIR` itself, or its one run when `DIR` is a records root
/// holding exactly one (what `automation run` prints).
pub fn run_dir(dir: &Path) -> std::path::PathBuf {
    match scan(dir) {
        Ok((calls, runs)) if calls.is_empty() && runs.len() == 1 => dir.join(&runs[0]),
        _ => dir.to_path_buf(),
    }
}

/// A directory's call record files and the runs under it (directories holding `run.json`).
fn scan(dir: &Path) -> Result<(Vec<String>, Vec<String>), RunnerError> {
    let entries = std::fs::read_dir(dir).map_err(|source| RunnerError::Io {
        doing: "read",
        path: dir.to_path_buf(),
        source,
    })?;
    let mut names: Vec<String> = Vec::new();
    let mut runs: Vec<String> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_call_record(&name) {
            names.push(name);
        } else if entry.path().join("run.json").is_file() {
            runs.push(name);
        }
    }
    Ok((names, runs))
}

/// Reads every call record of one run's directory, in order, into a log. Records of calls
/// that are no op of the catalog are skipped.
pub fn log_from_records(dir: &Path) -> Result<SessionLog, RunnerError> {
    let (mut names, mut runs) = scan(dir)?;
    if names.is_empty() {
        runs.sort();
        return Err(RunnerError::NoRecords {
            dir: dir.to_path_buf(),
            runs,
        });
    }
    names.sort();
    let mut log = SessionLog::default();
    for name in names {
        let path = dir.join(&name);
        let text = files::read_text(&path, MAX_RECORD_BYTES)?;
        let record: Value =
            serde_json::from_str(&text).map_err(|source| RunnerError::NotARecord {
                path: path.clone(),
                source,
            })?;
        // A record of another shape (another kit's, a hand-edited one) is no call: skipped.
        let Ok(record) = RecordFile::deserialize(&record) else {
            continue;
        };
        let RecordFile {
            request: RecordedCall { tool, args },
            status,
            response,
        } = record;
        let Ok(call) = tools::parse(&tool, args.clone()) else {
            continue;
        };
        let outcome = if status == "success" {
            Outcome::Data(response)
        } else {
            let error = FailedReply::deserialize(&response).unwrap_or_default();
            Outcome::Failed(OpError::new(
                error.code(),
                error.message.unwrap_or_default(),
            ))
        };
        let mut sent = args;
        sent.remove("with_selector");
        log.record(&call.request.op, sent, &outcome);
    }
    Ok(log)
}

/// A call record as `sinks/records.rs` writes it: what an export reads of it.
#[derive(serde::Deserialize)]
struct RecordFile {
    request: RecordedCall,
    status: String,
    #[serde(default)]
    response: Value,
}

/// The call a record holds.
#[derive(serde::Deserialize)]
struct RecordedCall {
    tool: String,
    #[serde(default)]
    args: Map<String, Value>,
}

/// A failed call's response: its code and message.
#[derive(Default, serde::Deserialize)]
struct FailedReply {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

impl FailedReply {
    /// Its code; another kit's code this one does not know is `TARGET_FAILED`.
    fn code(&self) -> ErrorCode {
        self.code
            .clone()
            .and_then(|c| serde_json::from_value(Value::String(c)).ok())
            .unwrap_or(ErrorCode::TargetFailed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_records_are_told_from_the_rest() {
        assert!(is_call_record("001-type-set_value.json"));
        assert!(!is_call_record("run.json"));
        assert!(!is_call_record("records-dropped.json"));
        assert!(!is_call_record("001-type-set_value.mjs"));
    }
}
