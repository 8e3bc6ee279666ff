//! Per-step records on disk: for every call a step made, a `.json` (request, response,
//! duration, status, logs), a `.mjs` snippet that replays it through the JS client, and a
//! `.png` when it returned a screenshot.
//!
//! Under `--records DIR`, else `$XDG_DATA_HOME/automation/executions` (else
//! `~/.local/share/…`; `%LOCALAPPDATA%\automation\executions` on Windows), one directory per
//! execution id (a fresh UUID per run, so two runs in one second never collide). Directories
//! older than 7 days are swept when a run starts — only those that carry our marker and that
//! we own ([`automation_session::files::dirs::sweep`]). `AUTOMATION_RECORDS=off` (or `0`) turns the default
//! records off; an explicit `--records DIR` still writes them.
//!
//! Private: the root is 0700 and vetted (a symlink or another user's directory is refused),
//! each execution's directory 0700, every file 0600 and created new (nothing planted is
//! opened); `run.json` is replaced whole. Bounded per step: at most
//! [`MAX_RECORDS_PER_STEP`] records (the rest counted in `records-dropped.json`) and
//! [`MAX_STEP_LOG_BYTES`](crate::budget::MAX_STEP_LOG_BYTES) of logs a record.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use automation_core::replies::Selected;
use automation_session::files::{self, FileError, PRIVATE_FILE, dirs};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::budget::{BoundedLines, MAX_RECORDS_PER_STEP};
use crate::error::RunnerError;
use crate::events::{CallRecord, LastImage, Poll, RunEvent, Sink};
use crate::report::RunReport;

/// Env var: `off` / `0` / `false` turns the records off.
pub const RECORDS_ENV: &str = "AUTOMATION_RECORDS";
/// How long records are kept.
pub const RETENTION: Duration = Duration::from_secs(7 * 24 * 3600);
/// The JS client's package name, for the replay snippets.
pub const CLIENT_PACKAGE: &str = "@automation-kit/client";

/// Whether records are on (the environment did not turn them off).
pub fn enabled() -> bool {
    !matches!(
        std::env::var(RECORDS_ENV)
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
            .as_str(),
        "off" | "0" | "false" | "no"
    )
}

/// The default root: the user's data directory.
pub fn default_root() -> Option<PathBuf> {
    let nonempty = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        nonempty("LOCALAPPDATA")
    } else {
        nonempty("XDG_DATA_HOME").or_else(|| nonempty("HOME").map(|h| h.join(".local/share")))
    }?;
    Some(base.join("automation").join("executions"))
}

/// An execution id: 8-4-4-4-12 hex digits.
fn is_execution_id(name: &str) -> bool {
    let parts: Vec<&str> = name.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Removes execution directories under `root` last changed more than `keep` ago; returns
/// how many were removed. Only directories named like an execution id, that we own and that
/// carry our marker, are touched.
pub fn sweep(root: &Path, keep: Duration) -> usize {
    let now = SystemTime::now();
    dirs::sweep(root, is_execution_id, |marker, meta| {
        marker.what == "execution"
            && meta
                .modified()
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age > keep)
    })
}

/// Writes the records of one execution.
pub struct RecordsSink {
    dir: PathBuf,
    count: usize,
    logs: BoundedLines,
    /// The first record that could not be written.
    error: Option<FileError>,
    /// Records written, then not written (over the cap), per step.
    per_step: BTreeMap<String, (usize, usize)>,
    /// Told where each call's image went (the live display shows it).
    shots: Option<LastImage>,
}

impl RecordsSink {
    /// Records for `execution_id` under `root` (created or vetted, private; old executions
    /// swept first).
    pub fn create(root: &Path, execution_id: &str) -> Result<Self, RunnerError> {
        dirs::private_root(root).map_err(|e| RunnerError::file_for("records", e))?;
        let _ = sweep(root, RETENTION);
        let dir = root.join(execution_id);
        dirs::create_marked(&dir, "execution")
            .map_err(|e| RunnerError::file_for("cannot create the records directory", e))?;
        Ok(Self {
            dir,
            count: 0,
            logs: BoundedLines::default(),
            error: None,
            per_step: BTreeMap::new(),
            shots: None,
        })
    }

    /// Tells `shots` where each call's image is written.
    pub fn with_shots(mut self, shots: LastImage) -> Self {
        self.shots = Some(shots);
        self
    }

    /// The execution's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn write(&mut self, call: &CallRecord) -> Result<(), FileError> {
        self.write_with(call, None)
    }

    /// One record: a call, or (with `poll`) a whole poll, its last try as the call. Only the
    /// files layer can fail here; [`Sink::finish`] says its error as the records'.
    fn write_with(&mut self, call: &CallRecord, poll: Option<&Poll>) -> Result<(), FileError> {
        if let (Some(shots), Some(_)) = (&self.shots, &call.image) {
            // Cleared first: an image over the cap, or whose write fails, went nowhere.
            shots.set(None);
        }
        let (written, dropped) = self.per_step.entry(call.step_id.clone()).or_default();
        if *written >= MAX_RECORDS_PER_STEP {
            *dropped += 1;
            self.logs = BoundedLines::default();
            return Ok(());
        }
        *written += 1;
        self.count += 1;
        let safe = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(48)
                .collect()
        };
        let stem = format!(
            "{:03}-{}-{}",
            self.count,
            safe(&call.step_id),
            safe(&call.tool)
        );
        let png = match &call.image {
            Some(bytes) => {
                let p = self.dir.join(format!("{stem}.png"));
                files::write_new(&p, bytes, PRIVATE_FILE)?;
                let shown = std::path::absolute(&p).unwrap_or_else(|_| p.clone());
                if let Some(shots) = &self.shots {
                    shots.set(Some(shown.display().to_string()));
                }
                Some(p.display().to_string())
            }
            None => None,
        };
        let mut record = json!({
            "step": call.step_id,
            "request": {"tool": call.tool, "args": call.args},
            "response": call.result,
            "status": if call.is_error { "error" } else { "success" },
            "duration_ms": call.duration_ms,
            "logs": self.logs.take(),
            "screenshot": png,
        });
        if let (Some(poll), Value::Object(m)) = (poll, &mut record) {
            // The poll as a whole: its time, and its first try beside the last.
            m.insert("duration_ms".into(), json!(poll.span_ms));
            m.insert("poll".into(), crate::poll::summary(poll));
        }
        let p = self.dir.join(format!("{stem}.json"));
        let json = serde_json::to_string_pretty(&record).unwrap_or_default();
        files::write_new(&p, json.as_bytes(), PRIVATE_FILE)?;
        let p = self.dir.join(format!("{stem}.mjs"));
        files::write_new(&p, snippet(call).as_bytes(), PRIVATE_FILE)?;
        Ok(())
    }
}

/// A JS-client script that replays one call, its node named by the durable selector core
/// generated at the call (a reference like `e12` means nothing in another run).
pub fn snippet(call: &CallRecord) -> String {
    let mut args = call.args.clone();
    let selector = Selected::deserialize(&call.result)
        .ok()
        .and_then(|r| r.selector);
    if let (Some(selector), Value::Object(m)) = (selector, &mut args)
        && m.contains_key("node")
    {
        m.insert("node".into(), json!(selector));
    }
    let args = serde_json::to_string_pretty(&args).unwrap_or_else(|_| "{}".into());
    format!(
        "// Replays step {step:?} ({tool}); was {status} in {ms:.1} ms.\n\
         // Run against a live debug app: node this-file.mjs\n\
         import {{ connect }} from {pkg};\n\n\
         const app = await connect();\n\
         const reply = await app.op({tool_js}, {args});\n\
         console.log(JSON.stringify(reply, null, 2));\n\
         app.close();\n",
        step = call.step_id,
        tool = call.tool,
        status = if call.is_error { "an error" } else { "ok" },
        ms = call.duration_ms,
        pkg = Value::from(CLIENT_PACKAGE),
        tool_js = Value::from(call.tool.as_str()),
    )
}

impl Sink for RecordsSink {
    fn event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::Call(call) => {
                if let Err(e) = self.write(call) {
                    self.error.get_or_insert(e);
                }
            }
            RunEvent::Poll(poll) => {
                if let Err(e) = self.write_with(&poll.last, Some(poll)) {
                    self.error.get_or_insert(e);
                }
            }
            RunEvent::Log(r) => self.logs.push(r.message.clone()),
            RunEvent::Event(automation_wire::events::EventKind::Log { level, message, .. }) => {
                self.logs.push(format!("[{}] {message}", level.as_str()));
            }
            RunEvent::Event(_) | RunEvent::Image(_) | RunEvent::Failure(_) => {}
        }
    }

    fn finish(&mut self, report: &RunReport) -> Result<(), RunnerError> {
        let dropped: BTreeMap<&String, usize> = self
            .per_step
            .iter()
            .filter(|(_, (_, d))| *d > 0)
            .map(|(step, (_, d))| (step, *d))
            .collect();
        if !dropped.is_empty() {
            let note = json!({
                "message": format!("calls over the {MAX_RECORDS_PER_STEP} records a step keeps were not recorded"),
                "not_recorded": dropped,
            });
            let p = self.dir.join("records-dropped.json");
            let text = serde_json::to_string_pretty(&note).unwrap_or_default();
            files::write_replacing(&p, text.as_bytes(), PRIVATE_FILE)?;
        }
        let p = self.dir.join("run.json");
        let text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
        files::write_replacing(&p, text.as_bytes(), PRIVATE_FILE)?;
        match self.error.take() {
            Some(e) => Err(RunnerError::file_for("records", e)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_removes_only_old_execution_directories_of_ours() {
        let root = tempfile::tempdir().unwrap();
        let id = "0123abcd-0000-4000-8000-0123456789ab";
        dirs::create_marked(&root.path().join(id), "execution").unwrap();
        // Named like an execution, but not ours: no marker.
        let foreign = "0123abcd-0000-4000-8000-0123456789ac";
        std::fs::create_dir(root.path().join(foreign)).unwrap();
        std::fs::write(root.path().join(foreign).join("precious"), b"x").unwrap();
        std::fs::create_dir(root.path().join("keep-me")).unwrap();
        assert_eq!(sweep(root.path(), RETENTION), 0);
        assert_eq!(sweep(root.path(), Duration::ZERO), 1);
        assert!(!root.path().join(id).exists());
        assert!(root.path().join(foreign).join("precious").exists());
        assert!(root.path().join("keep-me").exists());
    }

    #[test]
    fn a_step_keeps_at_most_its_records_and_logs() {
        let root = tempfile::tempdir().unwrap();
        let mut sink =
            RecordsSink::create(root.path(), "0123abcd-0000-4000-8000-0123456789ab").unwrap();
        let call = CallRecord {
            step_id: "loop".into(),
            tool: "find_node".into(),
            args: json!({}),
            result: json!({}),
            is_error: false,
            duration_ms: 1.0,
            image: None,
            evidence: None,
        };
        for _ in 0..MAX_RECORDS_PER_STEP + 5 {
            for _ in 0..1000 {
                sink.event(&RunEvent::Log(automation_wire::events::LogRecord {
                    level: automation_wire::events::LogLevel::Info,
                    message: "x".repeat(100),
                    data: None,
                    timestamp: None,
                    source: automation_wire::events::LogSource::EventChannel,
                    rejected: None,
                }));
            }
            sink.event(&RunEvent::Call(call.clone()));
        }
        sink.finish(&RunReport::new("t", "x")).unwrap();
        let files = std::fs::read_dir(sink.dir()).unwrap().count();
        // Two files a record, run.json, the note, the marker.
        assert_eq!(files, 2 * MAX_RECORDS_PER_STEP + 3);
        let note: Value = serde_json::from_str(
            &std::fs::read_to_string(sink.dir().join("records-dropped.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(note["not_recorded"]["loop"], 5);
        let first: Value = serde_json::from_str(
            &std::fs::read_to_string(sink.dir().join("001-loop-find_node.json")).unwrap(),
        )
        .unwrap();
        let logs = first["logs"].as_array().unwrap();
        assert!(logs.len() < 1000, "{}", logs.len());
        assert!(logs.last().unwrap().as_str().unwrap().contains("not kept"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sink.dir().join("001-loop-find_node.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_call_becomes_json_snippet_and_png() {
        let root = tempfile::tempdir().unwrap();
        let mut sink =
            RecordsSink::create(root.path(), "0123abcd-0000-4000-8000-0123456789ab").unwrap();
        // A 1x1 PNG.
        let png = std::sync::Arc::new(crate::sinks::records::tests::one_pixel());
        sink.event(&RunEvent::Call(CallRecord {
            step_id: "shot".into(),
            tool: "screenshot".into(),
            args: json!({}),
            result: json!({"width": 1}),
            is_error: false,
            duration_ms: 2.0,
            image: Some(png),
            evidence: None,
        }));
        sink.finish(&RunReport::new("t", "x")).unwrap();
        let names: Vec<String> = std::fs::read_dir(sink.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        for want in [
            "001-shot-screenshot.json",
            "001-shot-screenshot.mjs",
            "001-shot-screenshot.png",
            "run.json",
        ] {
            assert!(names.iter().any(|n| n == want), "{names:?}");
        }
        let js = std::fs::read_to_string(sink.dir().join("001-shot-screenshot.mjs")).unwrap();
        assert!(js.contains("app.op(\"screenshot\""), "{js}");
    }

    pub(super) fn one_pixel() -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, 1, 1);
            enc.set_color(png::ColorType::Rgba);
            let mut w = enc.write_header().unwrap();
            w.write_image_data(&[0, 0, 0, 255]).unwrap();
        }
        out
    }
}
