//! `automation audit`: the accessibility audit (`automation-audit`) of the app a mode reaches,
//! its report as text, JSON or SARIF, on stdout or in a file, against a baseline.

use std::path::{Path, PathBuf};

use automation_audit::{Baseline, Options, Report, audit, format};
use automation_session::backend::TargetHandle;

use crate::cli::AuditFormat;
use crate::error::CliError;
use crate::verbs::Outcome;

/// What the command line asked of the audit.
#[derive(Debug)]
pub struct How {
    /// The report's shape.
    pub format: AuditFormat,
    /// A file for the report (stdout when `None`).
    pub out: Option<PathBuf>,
    /// Only these rules.
    pub rules: Option<Vec<String>>,
    /// Accepted findings.
    pub baseline: Option<PathBuf>,
    /// Where to write a baseline of this run's findings.
    pub write_baseline: Option<PathBuf>,
    /// Whether to walk with Tab.
    pub keyboard: bool,
}

fn usage(message: String) -> Outcome {
    Outcome::error(
        2,
        format!("error: {message}\n\nFor more information, try 'automation audit --help'."),
    )
}

/// The most a baseline file may hold (a FIFO or a device is refused before any read).
const BASELINE_BYTES: u64 = 16 * 1024 * 1024;

fn read_baseline(path: &Path) -> Result<Baseline, CliError> {
    use automation_wire::fsguard::{Follow, read_regular};
    let bytes = read_regular(path, BASELINE_BYTES, Follow::Yes).map_err(|source| {
        CliError::BaselineUnreadable {
            path: path.to_path_buf(),
            source,
        }
    })?;
    serde_json::from_slice(&bytes).map_err(|source| CliError::NotABaseline {
        path: path.to_path_buf(),
        source,
    })
}

/// Runs the audit on `target` and renders it.
pub fn run(target: &TargetHandle, how: &How) -> Outcome {
    let baseline = match how.baseline.as_deref().map(read_baseline).transpose() {
        Ok(b) => b,
        Err(e) => return usage(e.to_string()),
    };
    let options = Options {
        rules: how.rules.clone(),
        keyboard: how.keyboard,
        ..Options::default()
    };
    let mut driver = |request| target.call_blocking(request);
    let mut report: Report = match audit(&mut driver, &options) {
        Ok(r) => r,
        Err(e @ automation_audit::AuditError::UnknownRule(..)) => {
            return usage(format!("--rules: {e}"));
        }
        Err(e) => return Outcome::error(1, format!("error: the audit stopped: {e}")),
    };
    if let Some(b) = &baseline {
        b.apply(&mut report);
    }
    if let Some(path) = &how.write_baseline {
        let text = serde_json::to_string_pretty(&Baseline::of(&report)).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            return Outcome::error(
                1,
                format!("error: --write-baseline {}: {e}", path.display()),
            );
        }
    }
    let body = match how.format {
        AuditFormat::Text => format::text(&report),
        AuditFormat::Json => serde_json::to_string_pretty(&report).unwrap_or_default(),
        AuditFormat::Sarif => {
            serde_json::to_string_pretty(&format::sarif(&report)).unwrap_or_default()
        }
        AuditFormat::Junit => match automation_runner::sinks::junit::audit_report(&report) {
            Ok(xml) => xml,
            Err(e) => return Outcome::error(1, format!("error: the JUnit report: {e}")),
        },
    };
    let code = u8::from(!report.passes());
    match &how.out {
        Some(path) => match std::fs::write(path, body + "\n") {
            Ok(()) => Outcome {
                stdout: String::new(),
                stderr: format!(
                    "{} finding(s), {} to review: {}",
                    report.findings.len(),
                    report.needs_review.len(),
                    path.display()
                ),
                code,
            },
            Err(e) => Outcome::error(1, format!("error: --out {}: {e}", path.display())),
        },
        None => Outcome {
            stdout: body.trim_end().to_string(),
            stderr: String::new(),
            code,
        },
    }
}
