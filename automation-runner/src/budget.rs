//! Every run is bounded: what it may read, render, run, keep and take, each cap in one place
//! with the error a run ends with when it reaches one (`BUDGET_EXCEEDED`, naming the budget,
//! its limit and where it was reached; `RUN_TIMEOUT` for time). `docs/workflows.md`'s
//! "Budgets" table lists them.

use std::time::{Duration, Instant};

use automation_core::ErrorCode;
use serde_json::{Value, json};

use super::error::RunnerError;

/// Most steps in one sequence (a flow file or `execute_sequence`'s `steps`), and most steps a
/// script may start in one run.
pub const MAX_STEPS: usize = 5_000;
/// Most step executions in one run (a step run again by a jump counts again).
pub const MAX_STEP_RUNS: usize = 5_000;
/// Most tries (tool calls made by steps, retries included) in one run.
pub const MAX_TRIES: usize = 5_000;
/// Most items one script run may put on the stream: events and log records from its pipe,
/// lines of its output, and the ops it calls.
pub const MAX_EVENTS: usize = 100_000;
/// Most bytes one step's arguments may render to (every `{{expr}}` substituted), counted
/// while substituting.
pub const MAX_RENDERED_BYTES: usize = 1024 * 1024;
/// Deepest nesting of a YAML flow file, checked on the text before the YAML parser sees it
/// (its cost grows with the square of the depth).
pub const MAX_YAML_DEPTH: usize = 64;
/// Most bytes of log lines kept per step (JUnit `system-out`, a record's `logs`); the rest is
/// counted and said.
pub const MAX_STEP_LOG_BYTES: usize = 64 * 1024;
/// Most bytes of log lines kept per run in memory until its end (JUnit `system-out` of all its
/// steps together).
pub const MAX_RUN_LOG_BYTES: usize = 16 * 1024 * 1024;
/// Most per-call records written per step; the rest are counted in `records-dropped.json`.
pub const MAX_RECORDS_PER_STEP: usize = 1_000;
/// Longest line of a script's output kept (a longer one is cut, and says so).
pub const MAX_OUTPUT_LINE_BYTES: usize = 64 * 1024;
/// A run's time limit when none is given (`automation run --timeout`, `execute_sequence`).
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(600);
/// The longest time limit accepted (a day).
pub const MAX_RUN_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// The run's error when it reached `budget` (`steps`, `step_runs`, `tries`, `events`,
/// `rendered_bytes`, `yaml_depth`): `BUDGET_EXCEEDED`, the limit, and `at` (a field or a step).
pub fn exceeded(
    budget: &'static str,
    limit: usize,
    at: &str,
    message: String,
    hint: &str,
) -> RunnerError {
    RunnerError::Budget {
        budget,
        limit,
        at: at.to_string(),
        message,
        hint: hint.to_string(),
    }
}

/// Parses a time limit in seconds (`--timeout`, `AUTOMATION_SCRIPT_TIMEOUT`): a finite number
/// above 0 and at most [`MAX_RUN_TIMEOUT`]. The error names `what` and the value.
pub fn parse_timeout(what: &str, value: &str) -> Result<Duration, String> {
    let secs = value.trim().parse::<f64>().map_err(|_| {
        format!("{what}: {value:?} is not a number of seconds; pass e.g. 600 or 2.5")
    })?;
    let max = MAX_RUN_TIMEOUT.as_secs_f64();
    if !secs.is_finite() || secs <= 0.0 || secs > max {
        return Err(format!(
            "{what}: {value:?} is out of range; pass a number of seconds above 0 and at most {max:.0}"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// When a run must have ended, and what set the limit (for the error).
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    /// The instant.
    pub at: Instant,
    /// The limit.
    pub limit: Duration,
    /// What set it: `--timeout`, `AUTOMATION_SCRIPT_TIMEOUT`, or `default`.
    pub set_by: &'static str,
}

impl Deadline {
    /// `limit` from now.
    pub fn after(limit: Duration, set_by: &'static str) -> Self {
        Self {
            at: Instant::now() + limit,
            limit,
            set_by,
        }
    }

    /// The earlier of the two.
    pub fn min(self, other: Self) -> Self {
        if other.at < self.at { other } else { self }
    }

    /// Whether it has passed.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// Time left (zero once passed).
    pub fn left(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// The run's error: `RUN_TIMEOUT`, the limit and what set it.
    pub fn error(&self) -> Value {
        let fix = match self.set_by {
            "AUTOMATION_SCRIPT_TIMEOUT" => {
                "make the flow finish sooner, or raise AUTOMATION_SCRIPT_TIMEOUT (seconds)"
            }
            _ => "make the flow finish sooner, or raise the limit with --timeout SECONDS",
        };
        json!({
            "code": ErrorCode::RunTimeout.as_str(),
            "message": format!(
                "the run took longer than its {:.1} s limit ({}) and was stopped",
                self.limit.as_secs_f64(),
                self.set_by
            ),
            "limit_s": self.limit.as_secs_f64(),
            "set_by": self.set_by,
            "hint": fix,
        })
    }
}

/// Log lines kept up to [`MAX_STEP_LOG_BYTES`]; the rest counted, and said in the last line.
#[derive(Debug, Default, Clone)]
pub struct BoundedLines {
    lines: Vec<String>,
    bytes: usize,
    dropped: usize,
}

impl BoundedLines {
    /// Keeps `line` while there is room.
    pub fn push(&mut self, line: String) {
        if self.bytes + line.len() > MAX_STEP_LOG_BYTES {
            self.dropped += 1;
            return;
        }
        self.bytes += line.len() + 1;
        self.lines.push(line);
    }

    /// Counts a line that was not kept (the run's own cap was reached).
    pub fn skip(&mut self) {
        self.dropped += 1;
    }

    /// Bytes kept.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.dropped == 0
    }

    /// The lines kept, and a last one counting the dropped, if any.
    pub fn lines(&self) -> Vec<String> {
        let mut out = self.lines.clone();
        if self.dropped > 0 {
            out.push(self.dropped_note());
        }
        out
    }

    /// Takes the lines (as [`lines`](Self::lines)), leaving it empty.
    pub fn take(&mut self) -> Vec<String> {
        let out = self.lines();
        *self = Self::default();
        out
    }

    fn dropped_note(&self) -> String {
        format!(
            "… {} more lines not kept (a step keeps {} KiB of logs, a run {} MiB)",
            self.dropped,
            MAX_STEP_LOG_BYTES / 1024,
            MAX_RUN_LOG_BYTES / (1024 * 1024)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_positive_finite_and_bounded() {
        assert_eq!(
            parse_timeout("t", "2.5").unwrap(),
            Duration::from_millis(2500)
        );
        for bad in ["1e20", "inf", "NaN", "-1", "0", "ten", "", "86401"] {
            let e = parse_timeout("AUTOMATION_SCRIPT_TIMEOUT", bad).unwrap_err();
            assert!(e.contains("AUTOMATION_SCRIPT_TIMEOUT"), "{e}");
        }
    }

    #[test]
    fn lines_are_kept_up_to_the_cap_and_the_rest_counted() {
        let mut b = BoundedLines::default();
        for _ in 0..100_000 {
            b.push("x".repeat(100));
        }
        let lines = b.take();
        let kept: usize = lines.iter().map(|l| l.len() + 1).sum();
        assert!(kept <= MAX_STEP_LOG_BYTES + 200, "{kept}");
        assert!(lines.last().unwrap().contains("more lines not kept"));
        assert!(b.is_empty());
    }
}
