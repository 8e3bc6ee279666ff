//! Per-step records on disk: for every call a step made, a `.json` (request, response,
//! duration, status, logs), a `.mjs` snippet that replays it through the JS client, and a
//! `.png` when it returned a screenshot.
//!
//! Under `--records DIR`, else `$XDG_DATA_HOME/automation/executions` (else
//! `~/.local/share/…`; `%LOCALAPPDATA%\automation\executions` on Windows), one directory per
//! execution id (a fresh UUID per run, so two runs in one second never collide). Directories
//! older than 7 days are swept when a run starts. `AUTOMATION_RECORDS=off` (or `0`) turns
//! records off.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::runner::events::{CallRecord, Poll, RunEvent, Sink};
use crate::runner::report::RunReport;

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
/// how many were removed. Only directories named like an execution id are touched.
pub fn sweep(root: &Path, keep: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(root) else {
        return 0;
    };
    let now = SystemTime::now();
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Ok(meta) = e.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > keep);
        if meta.is_dir()
            && is_execution_id(name)
            && old
            && std::fs::remove_dir_all(e.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// Writes the records of one execution.
pub struct RecordsSink {
    dir: PathBuf,
    count: usize,
    logs: Vec<String>,
    error: Option<String>,
}

impl RecordsSink {
    /// Records for `execution_id` under `root` (created; old executions swept first).
    pub fn create(root: &Path, execution_id: &str) -> Result<Self, String> {
        let _ = sweep(root, RETENTION);
        let dir = root.join(execution_id);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create the records directory {}: {e}", dir.display()))?;
        Ok(Self {
            dir,
            count: 0,
            logs: Vec::new(),
            error: None,
        })
    }

    /// The execution's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn write(&mut self, call: &CallRecord) -> Result<(), String> {
        self.write_with(call, None)
    }

    /// One record: a call, or (with `poll`) a whole poll, its last try as the call.
    fn write_with(&mut self, call: &CallRecord, poll: Option<&Poll>) -> Result<(), String> {
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
                std::fs::write(&p, bytes.as_slice())
                    .map_err(|e| format!("{}: {e}", p.display()))?;
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
            "logs": std::mem::take(&mut self.logs),
            "screenshot": png,
        });
        if let (Some(poll), Value::Object(m)) = (poll, &mut record) {
            // The poll as a whole: its time, and its first try beside the last.
            m.insert("duration_ms".into(), json!(poll.span_ms));
            m.insert("poll".into(), crate::runner::poll::summary(poll));
        }
        let p = self.dir.join(format!("{stem}.json"));
        std::fs::write(
            &p,
            serde_json::to_string_pretty(&record).unwrap_or_default(),
        )
        .map_err(|e| format!("{}: {e}", p.display()))?;
        let p = self.dir.join(format!("{stem}.mjs"));
        std::fs::write(&p, snippet(call)).map_err(|e| format!("{}: {e}", p.display()))?;
        Ok(())
    }
}

/// A JS-client script that replays one call.
pub fn snippet(call: &CallRecord) -> String {
    let args = serde_json::to_string_pretty(&call.args).unwrap_or_else(|_| "{}".into());
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
            RunEvent::Event(_) | RunEvent::Image(_) => {}
        }
    }

    fn finish(&mut self, report: &RunReport) -> Result<(), String> {
        let p = self.dir.join("run.json");
        std::fs::write(
            &p,
            serde_json::to_string_pretty(&report.to_json()).unwrap_or_default(),
        )
        .map_err(|e| format!("{}: {e}", p.display()))?;
        match self.error.take() {
            Some(e) => Err(format!("records: {e}")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_removes_only_old_execution_directories() {
        let root = tempfile::tempdir().unwrap();
        let id = "0123abcd-0000-4000-8000-0123456789ab";
        std::fs::create_dir(root.path().join(id)).unwrap();
        std::fs::create_dir(root.path().join("keep-me")).unwrap();
        assert_eq!(sweep(root.path(), RETENTION), 0);
        assert_eq!(sweep(root.path(), Duration::ZERO), 1);
        assert!(!root.path().join(id).exists());
        assert!(root.path().join("keep-me").exists());
    }

    #[test]
    fn a_call_becomes_json_snippet_and_png() {
        let root = tempfile::tempdir().unwrap();
        let mut sink =
            RecordsSink::create(root.path(), "0123abcd-0000-4000-8000-0123456789ab").unwrap();
        // A 1x1 PNG.
        let png = std::sync::Arc::new(crate::runner::sinks::records::tests::one_pixel());
        sink.event(&RunEvent::Call(CallRecord {
            step_id: "shot".into(),
            tool: "screenshot".into(),
            args: json!({}),
            result: json!({"width": 1}),
            is_error: false,
            duration_ms: 2.0,
            image: Some(png),
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
