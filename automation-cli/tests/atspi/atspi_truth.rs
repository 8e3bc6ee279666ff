//! Issue 22's "Why" cases on gtk3-widget-factory, each its own test: the Python `mcp` SDK
//! drives `automation --atspi` in a private session (`tests/python/truth_apps.py`), and pyatspi
//! on the same bus (`tests/python/atspi_oracle.py`, the matrix's reader) judges every effect.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};

use automation_testkit::heavy::Heavy;
use automation_testkit::require::{require, require_tools};

/// One app session at a time: they are heavy, and the machine has two cores.
fn one_at_a_time() -> Heavy {
    automation_testkit::heavy::heavy()
}

fn run(scenario: &str, app: &str) {
    let _serial = one_at_a_time();
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    if !require(
        "python-mcp",
        !python.is_empty(),
        "AUTOMATION_PYTHON is not set (scripts/test sets up a venv with `mcp`)",
    ) || !require_tools("dbus", &automation_atspi::display::missing_tools())
        || !require(
            "atspi-apps",
            std::path::Path::new("/usr/lib/python3/dist-packages/pyatspi").is_dir()
                && std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                    .any(|d| d.join(app).is_file()),
            &format!(
                "{app} or pyatspi is not installed (Debian: gtk-3-examples python3-pyatspi; scripts/test installs them)"
            ),
        )
    {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/truth_apps.py");
    let out = Command::new("dbus-run-session")
        .arg("--")
        .arg(&python)
        .arg(script)
        .arg(crate::support::AUTOMATION)
        .arg(scenario)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run dbus-run-session {python}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        // The registry daemon the session activates prints to stdout too.
        out.status.success() && stdout.lines().any(|l| l.trim() == format!("ok {scenario}")),
        "{scenario} failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
}

#[test]
fn clearing_a_field_found_by_its_value_answers_ok() {
    run("value_selector_clear", "gtk3-widget-factory");
}

#[test]
fn a_disabled_check_box_and_slider_are_refused_and_left_unchanged() {
    run("disabled_refused", "gtk3-widget-factory");
}

#[test]
fn a_check_box_on_a_page_not_shown_is_refused_and_left_unchanged() {
    run("off_page_refused", "gtk3-widget-factory");
}

#[test]
fn snapshot_depth_counts_shown_levels_and_announces_the_cut() {
    run("snapshot_depth", "gtk3-widget-factory");
}
