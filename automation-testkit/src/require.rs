//! A test whose real component is missing fails — unless the run opted out explicitly.
//!
//! Some tests need something outside Cargo: an X server (`xvfb`), a Python with the `mcp` SDK
//! (`python-mcp`), the `bun` and `esbuild` binaries. `scripts/test` installs all of them. When one is missing anyway, the
//! test calls [`require`] and
//!
//! - **fails** (panics) with a message naming the component, why it is missing, how to get
//!   it, and how to opt out — by default, so a green run is never an empty one;
//! - **skips** (returns `false`) only when [`ALLOW_MISSING`] (`AUTOMATION_ALLOW_MISSING`)
//!   lists the component (`AUTOMATION_ALLOW_MISSING=bun,xvfb`) or is `1` / `all` / `*`.
//!   The skip prints `SKIPPED <test> — <component>: <why>` to stderr and appends that line
//!   to the file named by [`SKIP_LOG`] (`AUTOMATION_SKIP_LOG`), so the runner can list every
//!   skipped test at the end of the run.
//!
//! ```
//! use automation_testkit::require::require;
//!
//! let present = std::env::var_os("PATH").is_some();
//! if !require("path", present, "PATH is not set") {
//!     return; // skipped: the run opted out and the skip is logged
//! }
//! // … the test proper …
//! ```

use std::io::Write as _;
use std::panic::Location;

/// The opt-out variable: a comma-separated list of components that may be missing, or
/// `1` / `all` / `*` for every component.
pub const ALLOW_MISSING: &str = "AUTOMATION_ALLOW_MISSING";

/// The file every skip line is appended to, when set (`scripts/test` sets it and prints the
/// file at the end of the run).
pub const SKIP_LOG: &str = "AUTOMATION_SKIP_LOG";

/// Whether the opt-out value `allow` (the content of [`ALLOW_MISSING`]) lets `component` be
/// missing. Component names compare case-insensitively, surrounding spaces ignored.
pub fn allowed(component: &str, allow: Option<&str>) -> bool {
    let Some(allow) = allow else {
        return false;
    };
    allow.split(',').map(str::trim).any(|entry| {
        matches!(
            entry.to_ascii_lowercase().as_str(),
            "1" | "all" | "*" | "true" | "yes"
        ) || entry.eq_ignore_ascii_case(component.trim())
    })
}

/// The line a skip prints and logs: `SKIPPED <test> — <component>: <why>`.
pub fn skip_line(test: &str, component: &str, why_missing: &str) -> String {
    let why = why_missing.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("SKIPPED {test} — {component}: {why}")
}

/// The failure message for a missing component that was not opted out.
pub fn failure_message(test: &str, component: &str, why_missing: &str) -> String {
    format!(
        "{test} needs `{component}`, which is missing: {why_missing}\n\
         Install it: `scripts/test` sets up everything the suite needs (system packages as \
         root, the node tools, the Python venv), or install it by hand as described above.\n\
         Or skip the tests that need it, explicitly: {ALLOW_MISSING}={component} (a comma list \
         of components, or `all`); the skips are then listed at the end of `scripts/test`."
    )
}

/// The name of the running test: libtest names each test's thread after the test
/// (`module::test_name`); `location` (the caller's file and line) identifies it otherwise.
fn test_name(location: &Location<'_>) -> String {
    let at = format!("{}:{}", location.file(), location.line());
    match std::thread::current().name() {
        Some(name) if name != "main" => format!("{name} ({at})"),
        _ => at,
    }
}

/// Append `line` to the skip log `path`. One `write` of a whole line on a file opened for
/// appending, so lines from test binaries running side by side do not interleave.
pub fn append_to_log(path: &std::path::Path, line: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(format!("{line}\n").as_bytes())
}

/// `true` when `component` is `present`. When it is not: `false` (skip) if the run opted out
/// through [`ALLOW_MISSING`], after printing and logging the skip line; otherwise a panic
/// that names the component, `why_missing` (say how to install it there) and the opt-out.
///
/// `component` is a short stable name (`xvfb`, `python-mcp`, `bun`, `esbuild`): it is
/// what a person lists in [`ALLOW_MISSING`].
#[track_caller]
pub fn require(component: &str, present: bool, why_missing: &str) -> bool {
    if present {
        return true;
    }
    let test = test_name(Location::caller());
    let allow = std::env::var(ALLOW_MISSING).ok();
    if !allowed(component, allow.as_deref()) {
        fail(&failure_message(&test, component, why_missing));
    }
    let line = skip_line(&test, component, why_missing);
    eprintln!("{line}");
    if let Some(log) = std::env::var_os(SKIP_LOG).filter(|p| !p.is_empty())
        && let Err(e) = append_to_log(std::path::Path::new(&log), &line)
    {
        eprintln!("cannot append to {SKIP_LOG}={}: {e}", log.to_string_lossy());
    }
    false
}

/// The panic of a missing, not opted-out component (a test failure by design).
#[allow(clippy::panic)]
#[track_caller]
fn fail(message: &str) -> ! {
    panic!("{message}")
}

/// Whether `program` runs here: a path to a file, or a name found in a `PATH` directory
/// (what a test checks before it `require`s an app or a tool).
pub fn on_path(program: &str) -> bool {
    std::path::Path::new(program).is_file()
        || std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

/// [`require`] of `component` on a list of what is missing (each named with its package, as
/// `automation_atspi::display::missing_tools` names them): present when the list is empty.
#[track_caller]
pub fn require_tools(component: &str, missing: &[&str]) -> bool {
    require(
        component,
        missing.is_empty(),
        &format!(
            "{} missing (scripts/test installs them)",
            missing.join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_allowed_without_the_variable() {
        assert!(!allowed("bun", None));
        assert!(!allowed("bun", Some("")));
        assert!(!allowed("bun", Some("esbuild,xvfb")));
        assert!(!allowed("bun", Some("0")));
    }

    #[test]
    fn a_list_allows_exactly_its_components() {
        assert!(allowed("bun", Some("bun")));
        assert!(allowed("bun", Some("esbuild, bun ")));
        assert!(allowed("xvfb", Some("XVFB")));
        assert!(!allowed("python-mcp", Some("bun,esbuild")));
    }

    #[test]
    fn all_allows_everything() {
        for v in ["1", "all", "ALL", "*", "true", "bun,all"] {
            assert!(allowed("gpu", Some(v)), "{v}");
        }
    }

    #[test]
    fn skip_line_names_test_component_and_reason_on_one_line() {
        let line = skip_line(
            "live_bridge::attach",
            "xvfb",
            "Xvfb is not installed\n   (apt-get install xvfb)",
        );
        assert_eq!(
            line,
            "SKIPPED live_bridge::attach — xvfb: Xvfb is not installed (apt-get install xvfb)"
        );
    }

    #[test]
    fn failure_names_component_reason_and_opt_out() {
        let m = failure_message("t", "python-mcp", "AUTOMATION_PYTHON is not set");
        assert!(m.contains("`python-mcp`"), "{m}");
        assert!(m.contains("AUTOMATION_PYTHON is not set"), "{m}");
        assert!(m.contains("scripts/test"), "{m}");
        assert!(m.contains("AUTOMATION_ALLOW_MISSING=python-mcp"), "{m}");
    }

    #[test]
    fn present_is_true_whatever_the_environment() {
        assert!(require("anything", true, "unused"));
    }

    #[test]
    fn the_test_name_is_the_thread_name_and_the_call_site() {
        let name = test_name(Location::caller());
        assert!(name.contains("the_test_name_is_the_thread_name"), "{name}");
        assert!(name.contains("require.rs:"), "{name}");
    }

    #[test]
    fn log_lines_are_appended() {
        let dir = std::env::temp_dir().join(format!("require-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("skips.log");
        let _ = std::fs::remove_file(&log);
        append_to_log(&log, "SKIPPED a — bun: x").unwrap();
        append_to_log(&log, "SKIPPED b — xvfb: y").unwrap();
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "SKIPPED a — bun: x\nSKIPPED b — xvfb: y\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // A missing component that is not opted out panics. The variable is read from the
    // process environment, so this only runs when the environment does not opt out.
    #[test]
    fn missing_and_not_allowed_panics() {
        if allowed(
            "testkit-selftest",
            std::env::var(ALLOW_MISSING).ok().as_deref(),
        ) {
            return;
        }
        let r = std::panic::catch_unwind(|| require("testkit-selftest", false, "on purpose"));
        let err = r.expect_err("must panic");
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("`testkit-selftest`"), "{msg}");
        assert!(msg.contains("on purpose"), "{msg}");
    }
}
