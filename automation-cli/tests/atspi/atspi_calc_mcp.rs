//! LibreOffice Calc over MCP: `automation --launch 'localc …' --virtual-display` (a wrapper
//! script whose app is a grandchild) answers every call within 2 s — `find_node`, a snapshot,
//! and a value typed into B2 that pyatspi reads back on the server's private bus
//! (`tests/python/atspi_calc.py`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};

use automation_testkit::require::{on_path, require, require_tools};

/// Not a first run (no "what's new" bar), no tip of the day (a dialog over the sheet).
const SETTINGS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="ooSetupLastVersion" oor:op="fuse"><value>99.9</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="LastTimeDonateShown" oor:op="fuse"><value>4102444800</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="LastTimeGetInvolvedShown" oor:op="fuse"><value>4102444800</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"#;

#[test]
fn mcp_answers_calc_within_2_s_and_a_typed_cell_reads_back() {
    // Fixed display numbers (90-93) and a 2 s bound: the machine alone.
    let _heavy = automation_testkit::heavy::heavy();
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    let pyatspi = Command::new("/usr/bin/python3")
        .args(["-c", "import pyatspi"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !require(
        "python-mcp",
        !python.is_empty(),
        "AUTOMATION_PYTHON is not set (scripts/test sets up a venv with `mcp`)",
    ) || !require_tools("dbus", &automation_atspi::display::missing_tools())
        || !require(
            "pyatspi",
            pyatspi,
            "/usr/bin/python3 cannot import pyatspi (Debian: python3-pyatspi)",
        )
        || !require(
            "libreoffice",
            on_path("localc"),
            "localc is not installed (Debian: libreoffice-calc libreoffice-gtk3)",
        )
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    std::fs::create_dir_all(profile.join("user")).unwrap();
    std::fs::write(profile.join("user/registrymodifications.xcu"), SETTINGS).unwrap();
    let errlog = dir.path().join("server.stderr");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/atspi_calc.py");
    let oracle = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../automation-atspi/tests/oracle.py"
    );
    let out = Command::new(&python)
        .arg(script)
        .arg(crate::support::AUTOMATION)
        .arg(&profile)
        .arg(oracle)
        .arg(&errlog)
        .env("AUTOMATION_VIRTUAL_DISPLAYS", "90-93")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let log = std::fs::read_to_string(&errlog).unwrap_or_default();
    eprintln!("{stdout}");
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok calc"),
        "python client failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}\nserver stderr:\n{log}",
        out.status
    );
}
