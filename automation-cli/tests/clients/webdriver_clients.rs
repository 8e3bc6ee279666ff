//! Third-party WebDriver clients against the real `automation webdriver`: the official
//! Selenium Python client, the Appium Python client and WebdriverIO each drive
//! gtk3-widget-factory (a check box, a slider, "Zoë" into an entry, each read back) and the
//! Qt 5 calculator (6 × 7 = 42). Each app runs on a private display of its own, and every
//! script judges each effect with pyatspi too (the system python's `atspi_oracle.py`, on the
//! app's own bus, found through the session's `automation:pid`). The Selenium script also
//! checks that lxml's XPath over the page source selects what `find_elements(By.XPATH)` does.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::webdriver as wd;

use std::path::Path;
use std::process::{Command, Stdio};

use automation_testkit::heavy::Heavy;
use automation_testkit::require::{on_path, require};
use serde_json::Value;

/// One client at a time: each launches real apps on a two-core machine.
fn serial() -> Heavy {
    automation_testkit::heavy::heavy()
}

const CALCULATOR: &str =
    "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/widgets/calculator/calculator";

fn apps_present() -> bool {
    let pyatspi = Command::new("/usr/bin/python3")
        .args(["-c", "import pyatspi"])
        .output()
        .is_ok_and(|o| o.status.success());
    require(
        "pyatspi",
        pyatspi,
        "/usr/bin/python3 cannot import pyatspi, the oracle (Debian: python3-pyatspi)",
    ) && require(
        "atspi-apps",
        on_path("gtk3-widget-factory") && Path::new(CALCULATOR).is_file(),
        "gtk3-widget-factory or the Qt 5 calculator is missing (Debian: gtk-3-examples qtbase5-examples)",
    ) && require(
        "xvfb",
        std::env::var_os("DISPLAY").is_some()
            && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
        "no DISPLAY or session bus (run under Xvfb and dbus-run-session, as scripts/test does)",
    )
}

/// The venv's Python when it has `modules`.
fn python_with(modules: &[&str], component: &str) -> Option<String> {
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    let import = format!("import {}", modules.join(", "));
    let ok = !python.is_empty()
        && Command::new(&python)
            .args(["-c", &import])
            .output()
            .is_ok_and(|o| o.status.success());
    require(
        component,
        ok,
        &format!(
            "AUTOMATION_PYTHON is unset or lacks {} (scripts/test installs them in the venv)",
            modules.join(", ")
        ),
    )
    .then_some(python)
}

/// Runs a client script against a fresh server; its last stdout line as JSON.
fn run_client(program: &str, script: &Path, env: &[(&str, String)]) -> Value {
    let server = wd::Server::start(&["--max-sessions", "2"]);
    let out = Command::new(program)
        .arg(script)
        .arg(&server.url)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .env("CALCULATOR", CALCULATOR)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{}:\n{stdout}\n{stderr}", script.display());
    assert!(
        out.status.success(),
        "{} failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        script.display(),
        out.status
    );
    let facts: Value =
        serde_json::from_str(stdout.trim().lines().last().unwrap_or_default()).unwrap();
    // Every session the client opened was ended with it.
    let (_, status) = wd::http(&server.addr(), "GET", "/status", b"", &[]);
    assert_eq!(status["value"]["sessions"], 0, "{status}");
    facts
}

fn script(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
}

#[test]
fn selenium_python_drives_gtk3_and_the_qt5_calculator_and_its_xpath_agrees_with_lxml() {
    let _one = serial();
    let Some(python) = python_with(&["selenium", "lxml"], "python-selenium") else {
        return;
    };
    if !apps_present() {
        return;
    }
    let facts = run_client(&python, &script("python/webdriver_selenium.py"), &[]);
    eprintln!("selenium: {facts}");
}

#[test]
fn appium_python_client_drives_gtk3_and_the_qt5_calculator() {
    let _one = serial();
    let Some(python) = python_with(&["appium"], "python-appium") else {
        return;
    };
    if !apps_present() {
        return;
    }
    let facts = run_client(&python, &script("python/webdriver_appium.py"), &[]);
    eprintln!("appium: {facts}");
}

#[test]
fn webdriverio_drives_gtk3_and_the_qt5_calculator() {
    let _one = serial();
    let node_dir = std::env::var("AUTOMATION_NODE_DIR").unwrap_or_default();
    let present = on_path("node")
        && Path::new(&node_dir)
            .join("node_modules/webdriverio/package.json")
            .is_file();
    if !require(
        "webdriverio",
        present,
        "node or WebdriverIO is missing (scripts/test installs webdriverio@9 into $AUTOMATION_NODE_DIR)",
    ) {
        return;
    }
    if !apps_present() {
        return;
    }
    let facts = run_client(
        "node",
        &script("js/webdriver_wdio.mjs"),
        &[("AUTOMATION_NODE_DIR", node_dir)],
    );
    eprintln!("webdriverio: {facts}");
}
