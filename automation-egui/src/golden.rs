//! Golden screenshots in a Rust test: `harness.expect_screenshot("main")?` renders the
//! harness's egui frame on the CPU and checks it against `tests/snapshots/main.png` (the
//! crate's own, under `CARGO_MANIFEST_DIR`) with [`automation_golden`] — the same compare as
//! the kit's `assert_screenshot`. The first run writes the baseline;
//! `AUTOMATION_UPDATE_SNAPSHOTS=1` replaces a differing one; a mismatch is an
//! `ASSERTION_FAILED` error naming the counts and the `.actual.png` / `.diff.png` written
//! beside the baseline.
//!
//! ```
//! use automation_core::harness::Harness;
//! use automation_egui::golden::ExpectScreenshot;
//! use automation_golden::{Limits, Verdict};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut h = Harness::new(automation_egui::demo_target()).unwrap();
//! let first = h.expect_screenshot_in(dir.path(), "demo", &Limits::default()).unwrap();
//! assert_eq!(first, Verdict::Created);
//! let again = h.expect_screenshot_in(dir.path(), "demo", &Limits::default()).unwrap();
//! assert!(matches!(again, Verdict::Matched(c) if c.diff_pixels == 0));
//! ```

use std::path::{Path, PathBuf};

use automation_core::harness::Harness;
use automation_core::{ErrorCode, OpError};
use automation_golden::{Limits, Rgba, Update, Verdict};
use serde_json::json;

use crate::EguiTarget;

/// The environment variable that turns on replacing differing baselines (`1` or `true`).
pub const UPDATE_ENV: &str = "AUTOMATION_UPDATE_SNAPSHOTS";

/// Where [`ExpectScreenshot::expect_screenshot`] keeps baselines: `tests/snapshots` under the
/// crate being tested (`CARGO_MANIFEST_DIR`, which cargo sets for tests), else under the
/// current directory.
pub fn default_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default()
        .join("tests")
        .join("snapshots")
}

/// Golden screenshots on a harness.
pub trait ExpectScreenshot {
    /// The frame matches `tests/snapshots/<name>.png` with the default limits (threshold 0.1,
    /// no differing pixel).
    fn expect_screenshot(&mut self, name: &str) -> Result<Verdict, OpError> {
        self.expect_screenshot_in(&default_dir(), name, &Limits::default())
    }

    /// The frame matches `<dir>/<name>.png` within `limits`.
    fn expect_screenshot_in(
        &mut self,
        dir: &Path,
        name: &str,
        limits: &Limits,
    ) -> Result<Verdict, OpError>;
}

impl ExpectScreenshot for Harness<EguiTarget<'_>> {
    fn expect_screenshot_in(
        &mut self,
        dir: &Path,
        name: &str,
        limits: &Limits,
    ) -> Result<Verdict, OpError> {
        let files = automation_golden::files(name).map_err(|why| {
            OpError::bad_argument(format!("expect_screenshot: {why}"))
                .with_hint("name the screenshot as a file stem: its baseline is <name>.png")
        })?;
        let shot = crate::screenshot::capture(self.target_mut(), None)?;
        let actual = Rgba {
            width: shot.width,
            height: shot.height,
            pixels: shot.rgba,
        };
        let update = if std::env::var(UPDATE_ENV).is_ok_and(|v| matches!(v.trim(), "1" | "true")) {
            Update::Differing
        } else {
            Update::Missing
        };
        let (base, actual_path, diff_path) = (
            dir.join(&files.baseline),
            dir.join(&files.actual),
            dir.join(&files.diff),
        );
        let baseline = read(&base)?;
        let check =
            automation_golden::check(baseline.as_deref(), &actual, &shot.png, limits, &[], update)
                .map_err(|e| {
                    OpError::bad_argument(format!("expect_screenshot: {}: {e}", base.display()))
                        .with_hint(format!("delete it, or rerun with {UPDATE_ENV}=1"))
                })?;
        for (bytes, path) in [
            (&check.write_baseline, &base),
            (&check.write_actual, &actual_path),
            (&check.write_diff, &diff_path),
        ] {
            if let Some(bytes) = bytes {
                write(dir, path, bytes)?;
            }
        }
        match check.verdict {
            Verdict::Differs(c) => Err(OpError::new(
                ErrorCode::AssertionFailed,
                format!(
                    "screenshot {name:?} differs from {} in {} of {} pixels, {} allowed; diff image: {}",
                    base.display(),
                    c.diff_pixels,
                    c.compared_pixels,
                    c.allowed,
                    diff_path.display()
                ),
            )
            .with_hint(format!(
                "if the change is intended, rerun with {UPDATE_ENV}=1 to make it the baseline"
            ))
            .with_actual_expected(
                json!({"diff_pixels": c.diff_pixels, "actual": actual_path.display().to_string(), "diff": diff_path.display().to_string()}),
                json!({"baseline": base.display().to_string(), "allowed": c.allowed}),
            )),
            Verdict::SizeDiffers { expected, actual } => Err(OpError::new(
                ErrorCode::AssertionFailed,
                format!(
                    "screenshot {name:?} is {}×{} px but {} is {}×{}",
                    actual.0,
                    actual.1,
                    base.display(),
                    expected.0,
                    expected.1
                ),
            )
            .with_hint(format!("rerun with {UPDATE_ENV}=1 if the new size is intended"))),
            other => Ok(other),
        }
    }
}

/// The baseline's bytes, `None` when there is none; a symlink or a non-file is refused.
fn read(path: &Path) -> Result<Option<Vec<u8>>, OpError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Ok(m) if m.file_type().is_file() => std::fs::read(path)
            .map(Some)
            .map_err(|e| io_error(path, "read", &e)),
        Ok(_) => Err(OpError::bad_argument(format!(
            "expect_screenshot: {} is not a regular file (symlinks are not followed)",
            path.display()
        ))
        .with_hint("remove what is at that path")),
        Err(e) => Err(io_error(path, "inspect", &e)),
    }
}

/// Writes `bytes` to `path` in `dir`: into a fresh file beside it, renamed over it (never
/// through a symlink: a rename replaces the link itself, and one is refused first).
fn write(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), OpError> {
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, "create", &e))?;
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        return Err(OpError::bad_argument(format!(
            "expect_screenshot: {} is not a regular file; nothing was written",
            path.display()
        ))
        .with_hint("remove what is at that path"));
    }
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    let written = opts
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_error(path, "write", &e));
    }
    Ok(())
}

fn io_error(path: &Path, doing: &str, e: &std::io::Error) -> OpError {
    OpError::new(
        ErrorCode::TargetFailed,
        format!("expect_screenshot: cannot {doing} {}: {e}", path.display()),
    )
    .with_hint("check the directory exists and is writable")
}
