//! Real apps under a private Xvfb, session bus and accessibility bus, for the tests.
#![allow(dead_code)]

use std::sync::{Mutex, MutexGuard};

use automation_atspi::{AtspiTarget, Launched, Output, VirtualDisplay, launch};
use automation_core::{Reply, Request, Session};
use automation_testkit::require::require;
use serde_json::Value;

/// Display numbers these tests may use.
pub const DISPLAYS: std::ops::RangeInclusive<u32> = 90..=93;

/// One app at a time: the machine is small and the apps are real.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn on_path(p: &str) -> bool {
    std::path::Path::new(p).is_file()
        || std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(p).is_file()))
}

/// The session tools (Xvfb, dbus, at-spi2-core) are there, or the test fails (or skips when
/// AUTOMATION_ALLOW_MISSING lists them).
pub fn session_tools() -> bool {
    require(
        "xvfb",
        on_path("Xvfb"),
        "Xvfb is not installed (Debian: xvfb; scripts/test installs it)",
    ) && require(
        "dbus",
        on_path("dbus-daemon") && automation_atspi::display::bus_launcher().is_some(),
        "dbus-daemon or at-spi-bus-launcher is missing (Debian: dbus at-spi2-core; scripts/test installs them)",
    )
}

/// An app binary is installed.
pub fn app(bin: &str, package: &str) -> bool {
    session_tools()
        && require(
            "atspi-apps",
            on_path(bin),
            &format!("{bin} is not installed (Debian package {package}; scripts/test installs it)"),
        )
}

pub struct Running {
    pub session: Session<AtspiTarget>,
    pub launched: Launched,
}

pub fn start(command: &str, output: Output) -> Running {
    let display = VirtualDisplay::start_in(DISPLAYS).expect("virtual display");
    let (target, launched) = launch(command, Some(display), output).expect("launch");
    Running {
        session: Session::new(target),
        launched,
    }
}

/// A test's usual start: one app test at a time (the guard), then `command` launched on its own
/// display, or `None` (the skip recorded) when `bin` is not installed.
pub fn serial_start(
    bin: &str,
    package: &str,
    command: &str,
    output: Output,
) -> Option<(MutexGuard<'static, ()>, Running)> {
    let one = serial();
    app(bin, package).then(|| (one, start(command, output)))
}

impl Running {
    pub fn op(&mut self, json: Value) -> Reply {
        let req = Request::from_value(serde_json::json!({ "op": json })).expect("request");
        automation_atspi::serve(&mut self.session, &req)
    }

    pub fn op_settle(&mut self, json: Value, settle: Value) -> Reply {
        let req = Request::from_value(serde_json::json!({ "op": json, "settle": settle }))
            .expect("request");
        automation_atspi::serve(&mut self.session, &req)
    }

    pub fn ok(&mut self, json: Value) -> Value {
        match self.op(json.clone()) {
            Reply::Ok(v) => v,
            Reply::Image(_) => panic!("{json} answered an image: read it with op(…).image()"),
            Reply::Err(e) => panic!("{json} failed: {} {}", e.code, e.message),
        }
    }

    /// The node of the first match of `role`/`label` (exact label).
    pub fn find(&mut self, role: &str, label: &str) -> String {
        let v = self.ok(serde_json::json!({"find_node": {"role": role, "label": label}}));
        v["node"]["id"]
            .as_str()
            .or_else(|| v["node"].as_str())
            .unwrap_or_else(|| panic!("no {role} {label:?}: {v}"))
            .to_string()
    }

    /// Every node of the snapshot.
    pub fn nodes(&mut self) -> Vec<Value> {
        let v = self.ok(serde_json::json!({"snapshot_tree": {"format": "json"}}));
        v["nodes"].as_array().cloned().unwrap_or_default()
    }
}
