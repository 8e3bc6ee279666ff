//! What a test session over AT-SPI needs (`dbus-run-session`, Xvfb, the accessibility bus,
//! pyatspi for the reader, a Python with the `mcp` SDK), checked once for the matrix and the
//! named cases alike.

use std::process::{Command, Stdio};

use automation_testkit::require::{on_path, require};

/// The Python with the `mcp` SDK when everything a session needs is there; `None` when a
/// missing piece was allowed to be skipped.
pub fn session_ready() -> Option<String> {
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    let pyatspi = Command::new("/usr/bin/python3")
        .args(["-c", "import pyatspi"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let ok = require(
        "python-mcp",
        !python.is_empty(),
        "AUTOMATION_PYTHON is not set (scripts/test sets up a venv with `mcp`)",
    ) && require(
        "dbus",
        on_path("dbus-run-session") && automation_atspi::display::missing_tools().is_empty(),
        "dbus-run-session, Xvfb or at-spi-bus-launcher is missing (Debian: dbus xvfb at-spi2-core; scripts/test installs them)",
    ) && require(
        "atspi-apps",
        pyatspi,
        "pyatspi is not importable by /usr/bin/python3 (Debian: python3-pyatspi; scripts/test installs it)",
    ) && require(
        "atspi-apps",
        on_path("xwininfo"),
        "xwininfo is missing (Debian: x11-utils; scripts/test installs it)",
    );
    ok.then_some(python)
}
