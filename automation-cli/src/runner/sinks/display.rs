//! The one live display, a sink on the run's stream (`automation run`, `automation exec`): an
//! indicatif spinner/bar on a terminal, plain lines otherwise. Everything goes to stderr, so a
//! child's own stdout stays clean.

use std::io::Write;

use automation_wire::events::{EventKind, LogRecord, LogSource};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::runner::events::{RunEvent, Sink};
use crate::runner::report::RunReport;

/// Shows events as they come.
pub struct DisplaySink {
    bar: Option<ProgressBar>,
    /// Put before every line (`automation run --jobs N`: which flow a line belongs to).
    prefix: String,
}

impl DisplaySink {
    /// A progress bar when `tty`, plain lines otherwise.
    pub fn new(tty: bool) -> Self {
        let bar = tty.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed}] {msg}") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            bar
        });
        Self {
            bar,
            prefix: String::new(),
        }
    }

    /// Plain lines, each starting with `prefix` (`automation run --jobs N`: the flow's name; no
    /// progress bar: several displays share one stderr).
    pub fn prefixed(prefix: impl Into<String>) -> Self {
        Self {
            bar: None,
            prefix: prefix.into(),
        }
    }

    /// The bar, for writing a child's output without tearing it (`ProgressBar::suspend`
    /// clears the progress line first and redraws it after; `exec` passes its command's
    /// output through this way).
    pub fn bar(&self) -> Option<ProgressBar> {
        self.bar.clone()
    }

    fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => {
                // One write per line, prefix included, so lines of parallel flows never mix.
                let mut out = String::with_capacity(text.len() + self.prefix.len() + 1);
                for l in text.split('\n') {
                    out.push_str(&self.prefix);
                    out.push_str(l);
                    out.push('\n');
                }
                let _ = std::io::stderr().lock().write_all(out.as_bytes());
            }
        }
    }

    /// Plain output or a log-channel entry.
    fn log(&self, record: &LogRecord) {
        match record.source {
            LogSource::EventChannel => match &record.rejected {
                Some(why) => self.line(&format!(
                    "warning: not an event ({why}): {}",
                    record.message
                )),
                None => self.line(&record.message),
            },
            LogSource::LogChannel => {
                self.line(&format!("[{}] {}", record.level.as_str(), record.message))
            }
        }
    }

    fn show(&mut self, kind: &EventKind) {
        let tty = self.bar.is_some();
        match kind {
            EventKind::StepStarted {
                step_name,
                step_index,
                total_steps,
                ..
            } => {
                let pos = match (step_index, total_steps) {
                    (Some(i), Some(n)) => format!(" ({}/{n})", i + 1),
                    _ => String::new(),
                };
                match &self.bar {
                    Some(bar) => bar.set_message(format!("{step_name}{pos}")),
                    None => self.line(&format!("step started: {step_name}{pos}")),
                }
            }
            EventKind::StepCompleted {
                step_name,
                duration,
                ..
            } => {
                let ms = duration
                    .map(|d| format!(" ({d:.0} ms)"))
                    .unwrap_or_default();
                self.line(&if tty {
                    format!("✓ {step_name}{ms}")
                } else {
                    format!("step passed: {step_name}{ms}")
                });
            }
            EventKind::StepFailed {
                step_name, error, ..
            } => {
                let why = error
                    .as_deref()
                    .map(|e| format!(": {}", readable_error(e)))
                    .unwrap_or_default();
                self.line(&if tty {
                    format!("✗ {step_name}{why}")
                } else {
                    format!("step failed: {step_name}{why}")
                });
            }
            EventKind::Progress {
                current,
                total,
                message,
            } => {
                let msg = message.clone().unwrap_or_default();
                match (&self.bar, total) {
                    (Some(bar), Some(t)) if *t > 0.0 => {
                        bar.set_length(*t as u64);
                        bar.set_position(*current as u64);
                        if let Ok(style) = ProgressStyle::with_template(
                            "{spinner} [{elapsed}] {bar:30} {pos}/{len} {msg}",
                        ) {
                            bar.set_style(style);
                        }
                        if !msg.is_empty() {
                            bar.set_message(msg);
                        }
                    }
                    (Some(bar), _) => bar.set_message(msg),
                    (None, Some(t)) => self.line(&format!("progress: {current}/{t} {msg}")),
                    (None, None) => self.line(&format!("progress: {current} {msg}")),
                }
            }
            EventKind::Status { message, .. } => self.line(&format!("status: {message}")),
            EventKind::Screenshot {
                path,
                base64,
                annotation,
                ..
            } => {
                let what = path.clone().or_else(|| {
                    base64
                        .as_ref()
                        .map(|b| format!("{} bytes inline", b.len() / 4 * 3))
                });
                let note = annotation
                    .as_deref()
                    .map(|a| format!(" — {a}"))
                    .unwrap_or_default();
                self.line(&format!("screenshot: {}{note}", what.unwrap_or_default()));
            }
            EventKind::Data { key, value } => self.line(&format!("data: {key} = {value}")),
            EventKind::Log { level, message, .. } => {
                self.line(&format!("[{}] {message}", level.as_str()))
            }
        }
    }
}

impl Sink for DisplaySink {
    fn event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::Event(kind) => self.show(kind),
            RunEvent::Log(record) => self.log(record),
            RunEvent::Call(_) | RunEvent::Image(_) | RunEvent::Poll(_) | RunEvent::Failure(_) => {}
        }
    }

    /// The live view shows steps and output, never calls: a run with nothing else watching
    /// makes no call records (nor the durable selectors they carry).
    fn wants_calls(&self) -> bool {
        false
    }

    /// Clears the bar.
    fn finish(&mut self, _report: &RunReport) -> Result<(), String> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        Ok(())
    }
}

/// A step's error for a person: a kit error sent as JSON (`{"code", "message", …}`) as
/// `CODE: message`; anything else as it came.
fn readable_error(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v @ serde_json::Value::Object(_)) if v.get("message").is_some_and(|m| m.is_string()) => {
            crate::runner::steps::one_line(&v)
        }
        _ => text.to_string(),
    }
}
