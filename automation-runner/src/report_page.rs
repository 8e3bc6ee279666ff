//! The HTML report of a run (`automation run --report DIR`): one `index.html` that opens from
//! `file://` with no server and no network — the page (`report.html`, inline CSS and JS) with
//! the run's data inlined as JSON — and the screenshots beside it in `img/`. What goes in the
//! data is collected by the runner's report sink; this module only defines it and writes it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use automation_session::files::{self, REPORT_FILE};

use crate::error::RunnerError;

/// The page, with [`DATA_SLOT`] where the data goes.
pub const PAGE: &str = include_str!("report.html");
/// The line of [`PAGE`] the data replaces.
pub const DATA_SLOT: &str = "__REPORT_DATA__";
/// The images' directory, inside the report's.
pub const IMAGES: &str = "img";

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The page's title.
    pub title: String,
    /// When the run started (RFC 3339, UTC).
    pub started: String,
    /// Milliseconds for the whole run.
    pub duration_ms: u64,
    /// Flows by outcome.
    pub counts: Counts,
    /// The flows, in the order they were given.
    pub flows: Vec<FlowEntry>,
}

/// Flows by outcome.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    /// Flows that passed.
    pub passed: usize,
    /// Flows that failed (or only recovered through a fallback).
    pub failed: usize,
}

/// One flow.
#[derive(Debug, Clone, Serialize)]
pub struct FlowEntry {
    /// Its position among the run's flows (the page's `#flow-N`).
    pub index: usize,
    /// The flow file as given.
    pub name: String,
    /// `passed`, `failed` or `recovered`.
    pub status: String,
    /// Milliseconds.
    pub duration_ms: u64,
    /// The execution id.
    pub execution_id: String,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The source around the error's line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Excerpt>,
    /// Its steps, as run.
    pub steps: Vec<StepEntry>,
    /// The app when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Shot>,
}

/// Lines of a source file around one.
#[derive(Debug, Clone, Serialize)]
pub struct Excerpt {
    /// The file.
    pub file: String,
    /// The number of `lines[0]` (1-based).
    pub first_line: u64,
    /// The line the error is at.
    pub line: u64,
    /// Its column, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// The lines.
    pub lines: Vec<String>,
}

/// One step.
#[derive(Debug, Clone, Serialize)]
pub struct StepEntry {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `passed`, `failed`, `skipped` or `unfinished`.
    pub status: String,
    /// Milliseconds.
    pub duration_ms: u64,
    /// Tries, when more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// Why it was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_because: Option<String>,
    /// Its error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The calls it made.
    pub calls: Vec<CallEntry>,
    /// Its output and log lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<String>,
    /// Calls made past the ones kept (each step keeps as many as its records).
    #[serde(skip_serializing_if = "is_zero")]
    pub calls_dropped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One call.
#[derive(Debug, Clone, Serialize)]
pub struct CallEntry {
    /// The tool (op).
    pub tool: String,
    /// Its arguments.
    pub args: Value,
    /// Its result, or error.
    pub result: Value,
    /// Whether it failed.
    pub is_error: bool,
    /// Milliseconds.
    pub duration_ms: f64,
    /// Tries, for a poll.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tries: Option<u32>,
    /// A screenshot: the one the call returned, or the app right after it acted.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub shot: Option<Shot>,
    /// A golden screenshot that did not match: its three images.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub golden: Option<Golden>,
    /// An accessibility audit's findings, each outlined on the call's screenshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit: Option<Vec<AuditBox>>,
}

/// One finding of an audit, as the report outlines it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AuditBox {
    /// The rule's id.
    #[serde(default)]
    pub rule: String,
    /// The node's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What a person meets there.
    #[serde(default)]
    pub message: String,
    /// Where it is (window-logical px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Value>,
}

/// Where an `audit_app` call's result holds its findings: the reply itself, an
/// `expect_pass` error's `actual`, or a script call's envelope's `data`.
#[derive(Deserialize)]
struct AuditResult {
    #[serde(default)]
    findings: Option<Vec<AuditBox>>,
    #[serde(default)]
    actual: Option<Value>,
    #[serde(default)]
    data: Option<Value>,
}

#[derive(Deserialize)]
struct Findings {
    findings: Vec<AuditBox>,
}

impl AuditBox {
    /// The findings of an `audit_app` call's result: its reply, or its error's `actual` (an
    /// `expect_pass` that failed holds the report there); a script's call keeps the reply's
    /// envelope (`{status, data}`).
    #[must_use]
    pub fn of_result(result: &Value) -> Option<Vec<AuditBox>> {
        let r = AuditResult::deserialize(result).ok()?;
        let inner = |v: Option<Value>| Some(Findings::deserialize(v?).ok()?.findings);
        r.findings
            .or_else(|| inner(r.actual))
            .or_else(|| inner(r.data))
    }
}

/// A failed golden screenshot's images, relative to the page.
#[derive(Debug, Clone, Serialize)]
pub struct Golden {
    /// The baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The capture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// The diff image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// A screenshot in `img/`, and the node to outline on it.
#[derive(Debug, Clone, Serialize)]
pub struct Shot {
    /// Its path relative to the page (`img/3.png`); none when the target has no pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Physical pixels per logical pixel.
    pub scale: f64,
    /// The node's bounds (window-logical px).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Value>,
    /// The tree's outline (at a failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
}

/// Where a report is written.
#[derive(Debug, Clone)]
pub struct ReportDir {
    dir: PathBuf,
}

impl ReportDir {
    /// Makes `dir` and its `img/` (if missing) and clears the screenshots an earlier report
    /// left there (regular `.png` files only; nothing else is touched).
    pub fn prepare(dir: &Path) -> Result<Self, RunnerError> {
        let images = dir.join(IMAGES);
        for d in [dir, images.as_path()] {
            match std::fs::symlink_metadata(d) {
                Ok(m) if m.file_type().is_dir() => {}
                Ok(_) => {
                    return Err(RunnerError::NotADirectory {
                        path: d.to_path_buf(),
                    });
                }
                Err(_) => {
                    std::fs::create_dir_all(d).map_err(|source| RunnerError::Io {
                        doing: "create",
                        path: d.to_path_buf(),
                        source,
                    })?;
                }
            }
        }
        if let Ok(entries) = std::fs::read_dir(&images) {
            for e in entries.flatten() {
                let path = e.path();
                if path.extension().is_some_and(|x| x == "png")
                    && std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file())
                {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
        })
    }

    /// The page's path.
    pub fn page(&self) -> PathBuf {
        self.dir.join("index.html")
    }

    /// Writes one screenshot as `img/<name>.png`; returns its path relative to the page.
    pub fn image(&self, name: &str, png: &[u8]) -> Result<String, RunnerError> {
        let rel = format!("{IMAGES}/{name}.png");
        files::write_replacing(&self.dir.join(&rel), png, REPORT_FILE)
            .map_err(|e| RunnerError::file_for("report image", e))?;
        Ok(rel)
    }

    /// Writes the page with `report` inlined.
    pub fn write(&self, report: &Report) -> Result<PathBuf, RunnerError> {
        let page = render(report)?;
        let path = self.page();
        files::write_replacing(&path, page.as_bytes(), REPORT_FILE)
            .map_err(|e| RunnerError::file_for("report", e))?;
        Ok(path)
    }
}

/// The page with `report` inlined: JSON inside a `<script type="application/json">`, with
/// every `<` escaped so no text in it (a flow's output, an app's label) can close the tag.
pub fn render(report: &Report) -> Result<String, RunnerError> {
    let json = serde_json::to_string(report).map_err(RunnerError::ReportData)?;
    let json = json.replace('<', "\\u003c");
    if !PAGE.contains(DATA_SLOT) {
        return Err(RunnerError::NoDataSlot);
    }
    Ok(PAGE.replacen(DATA_SLOT, &json, 1))
}

/// The lines around `line` (1-based) of `text`: `context` before and after.
pub fn excerpt(
    file: &str,
    text: &str,
    line: u64,
    column: Option<u64>,
    context: u64,
) -> Option<Excerpt> {
    let total = text.lines().count() as u64;
    if line == 0 || line > total {
        return None;
    }
    let first = line.saturating_sub(context).max(1);
    let last = (line + context).min(total);
    let lines = text
        .lines()
        .skip(usize::try_from(first - 1).ok()?)
        .take(usize::try_from(last - first + 1).ok()?)
        .map(str::to_owned)
        .collect();
    Some(Excerpt {
        file: file.to_string(),
        first_line: first,
        line,
        column,
        lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_script_tag() {
        let report = Report {
            title: "</script><script>alert(1)</script>".into(),
            started: String::new(),
            duration_ms: 0,
            counts: Counts::default(),
            flows: Vec::new(),
        };
        let page = render(&report).unwrap();
        assert!(!page.contains("</script><script>alert(1)"));
        assert!(page.contains("\\u003c/script>"));
    }

    #[test]
    fn excerpts_stay_inside_the_file() {
        let text = "a\nb\nc\nd\ne\n";
        let e = excerpt("f.ts", text, 2, Some(3), 3).unwrap();
        assert_eq!((e.first_line, e.lines.len()), (1, 5));
        let e = excerpt("f.ts", text, 5, None, 1).unwrap();
        assert_eq!(
            (e.first_line, e.lines),
            (4, vec!["d".to_string(), "e".to_string()])
        );
        assert!(excerpt("f.ts", text, 9, None, 3).is_none());
        assert!(excerpt("f.ts", text, 0, None, 3).is_none());
    }
}
