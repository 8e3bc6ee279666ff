//! The one live display, a sink on the run's stream (`automation run`, `automation exec`): an
//! indicatif spinner/bar on a terminal, plain lines otherwise. Everything goes to stderr, so a
//! child's own stdout stays clean.

use std::io::Write;

use automation_wire::events::{EventKind, LogRecord, LogSource};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::events::{LastImage, RunEvent, Sink};
use crate::report::RunReport;

/// Shows events as they come.
pub struct DisplaySink {
    bar: Option<ProgressBar>,
    /// Put before every line (`automation run --jobs N`: which flow a line belongs to).
    prefix: String,
    /// The step whose end was shown last: the steps engine's progress after it repeats it.
    last_end: Option<String>,
    /// Where the records wrote the last image, for a screenshot event without a path.
    shots: Option<LastImage>,
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
            last_end: None,
            shots: None,
        }
    }

    /// A screenshot event with no path shows where the records wrote its image (`shots`),
    /// or nothing when they did not.
    pub fn with_shots(mut self, shots: LastImage) -> Self {
        self.shots = Some(shots);
        self
    }

    /// Plain lines, each starting with `prefix` (`automation run --jobs N`: the flow's name; no
    /// progress bar: several displays share one stderr).
    pub fn prefixed(prefix: impl Into<String>) -> Self {
        Self {
            bar: None,
            prefix: prefix.into(),
            last_end: None,
            shots: None,
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
                self.last_end = Some(format!("✓ {step_name}"));
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
                self.last_end = Some(format!("✗ {step_name}"));
            }
            EventKind::Progress {
                current,
                total,
                message,
            } => self.show_progress(*current, *total, message.as_deref()),
            EventKind::Status { message, .. } => self.line(&format!("status: {message}")),
            EventKind::Screenshot {
                path,
                base64,
                annotation,
                ..
            } => self.show_screenshot(path.as_deref(), base64.as_deref(), annotation.as_deref()),
            EventKind::Data { key, value } => self.line(&format!("data: {key} = {value}")),
            EventKind::Log { level, message, .. } => {
                self.line(&format!("[{}] {message}", level.as_str()))
            }
        }
    }

    /// A progress event: the bar moves, or a line (none for the step end just shown).
    fn show_progress(&self, current: f64, total: Option<f64>, message: Option<&str>) {
        let msg = message.map(str::to_string).unwrap_or_default();
        // A line per event: the engine's progress after a step repeats the step's end,
        // already a line of its own (the bar takes it: it moves the bar).
        if self.bar.is_none() && self.last_end.as_deref() == Some(msg.as_str()) {
            return;
        }
        match (&self.bar, total) {
            (Some(bar), Some(t)) if t > 0.0 => {
                bar.set_length(t as u64);
                bar.set_position(current as u64);
                if let Ok(style) =
                    ProgressStyle::with_template("{spinner} [{elapsed}] {bar:30} {pos}/{len} {msg}")
                {
                    bar.set_style(style);
                }
                if !msg.is_empty() {
                    bar.set_message(msg);
                }
            }
            (Some(bar), _) => bar.set_message(msg),
            (None, Some(t)) => self.line(&format!(
                "progress: {}/{} {msg}",
                for_people(current),
                for_people(t)
            )),
            (None, None) => self.line(&format!("progress: {} {msg}", for_people(current))),
        }
    }

    /// A screenshot event: where its image is (a path, inline bytes, or where the records
    /// wrote it), and its annotation.
    fn show_screenshot(&self, path: Option<&str>, base64: Option<&str>, annotation: Option<&str>) {
        let written = || self.shots.as_ref().and_then(LastImage::take);
        let what = path
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .or_else(|| base64.map(|b| format!("{} bytes inline", b.len() / 4 * 3)))
            .or_else(written);
        // Not written anywhere: no line (an empty path tells nobody anything).
        let Some(what) = what else {
            return;
        };
        let note = annotation.map(|a| format!(" — {a}")).unwrap_or_default();
        self.line(&format!("screenshot: {what}{note}"));
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
    fn finish(&mut self, _report: &RunReport) -> Result<(), crate::error::RunnerError> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        Ok(())
    }
}

/// A progress number for a person: whole numbers as integers, others to one decimal
/// (`2.3`, not `2.3333333333333335`).
fn for_people(x: f64) -> String {
    let tenths = (x * 10.0).round() / 10.0;
    if tenths.fract() == 0.0 {
        format!("{tenths:.0}")
    } else {
        format!("{tenths:.1}")
    }
}

/// A step's error for a person: a kit error sent as JSON (`{"code", "message", …}`) as
/// `CODE: message`; anything else as it came.
fn readable_error(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) if crate::steps::ErrorWords::of(&v).message.is_some() => crate::steps::one_line(&v),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::for_people;

    #[test]
    fn progress_numbers_read_as_people_write_them() {
        assert_eq!(for_people(2.0), "2");
        assert_eq!(for_people(7.0 / 3.0), "2.3");
        assert_eq!(for_people(4.96), "5");
        assert_eq!(for_people(0.25), "0.3");
    }
}
