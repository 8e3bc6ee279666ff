//! Real apps under a private Xvfb, session bus and accessibility bus, for the tests.
#![allow(dead_code)]

use automation_atspi::{AtspiTarget, Launched, Output, VirtualDisplay, launch};
use automation_core::{Reply, Request, Session};
use automation_testkit::require::{on_path, require};
use serde_json::Value;

/// Display numbers these tests may use.
pub const DISPLAYS: std::ops::RangeInclusive<u32> = 90..=93;

/// One app at a time: the machine is small and the apps are real. The suite's one heavy-test
/// lock (the testkit's), so no other crate's app test runs beside these either.
pub fn serial() -> automation_testkit::heavy::Heavy {
    automation_testkit::heavy::heavy()
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
    let (target, launched) = match launch(command, Some(display), output) {
        Ok(started) => started,
        // A Qt 5 example now and then runs and never registers: nothing at all on the bus.
        // The kit is not what these tests judge; one whole new display and its buses.
        Err(e) if e.to_string().contains("apps there: []") => {
            eprintln!("note: {command} never reached the accessibility bus ({e}); once more");
            let display = VirtualDisplay::start_in(DISPLAYS).expect("virtual display");
            launch(command, Some(display), output).expect("launch")
        }
        Err(e) => panic!("launch: {e:?}"),
    };
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
) -> Option<(automation_testkit::heavy::Heavy, Running)> {
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

/// pyatspi on the app's bus (`tests/oracle.py` under the system python3): the independent
/// reader that judges what an op did. Ended when dropped.
pub struct Oracle {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    out: std::io::BufReader<std::process::ChildStdout>,
}

/// The system python3 has pyatspi (Debian python3-pyatspi), or the test fails (or skips when
/// AUTOMATION_ALLOW_MISSING lists it).
pub fn pyatspi() -> bool {
    let ok = std::process::Command::new("/usr/bin/python3")
        .args(["-c", "import pyatspi"])
        .output()
        .is_ok_and(|o| o.status.success());
    require(
        "pyatspi",
        ok,
        "/usr/bin/python3 cannot import pyatspi (Debian: python3-pyatspi; scripts/test installs it)",
    )
}

impl Oracle {
    /// Starts the reader on `r`'s display and buses, for `r`'s app (by pid).
    pub fn start(r: &Running) -> Self {
        use std::io::BufRead as _;
        let d = r.launched.display.as_ref().expect("a virtual display");
        let pid = r.session.target.app().pid.expect("the app's pid");
        let mut cmd = std::process::Command::new("/usr/bin/python3");
        cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle.py"))
            .arg(pid.to_string())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        d.env_into(&mut cmd);
        // Not in the display's process group: the oracle is ended here, not with the display.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().expect("/usr/bin/python3");
        let stdin = child.stdin.take().unwrap();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(line.contains("ready"), "the oracle did not start: {line:?}");
        Self { child, stdin, out }
    }

    /// One command, its answer.
    pub fn ask(&mut self, cmd: Value) -> Value {
        use std::io::{BufRead as _, Write as _};
        writeln!(self.stdin, "{cmd}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("the oracle answered {line:?}: {e}"));
        assert!(v.get("error").is_none(), "the oracle failed on {cmd}: {v}");
        v
    }

    /// The first object with this role (pyatspi's name) and name, or null.
    pub fn find(&mut self, role: &str, name: &str) -> Value {
        self.ask(serde_json::json!({"find": {"role": role, "name": name}}))
    }

    /// Every object of the app, as pyatspi reads it now.
    pub fn dump(&mut self) -> Vec<Value> {
        let v = self.ask(serde_json::json!({"dump": true}));
        v["nodes"].as_array().cloned().unwrap_or_default()
    }

    /// One object of the last dump, read again now.
    pub fn read(&mut self, id: &Value) -> Value {
        self.ask(serde_json::json!({ "read": id }))
    }

    /// The object with STATE_FOCUSED, or null.
    pub fn focused(&mut self) -> Value {
        self.ask(serde_json::json!({"focused": true}))["focused"].clone()
    }

    /// The app's first window on the screen: `[x, y, w, h]`.
    pub fn window(&mut self) -> Vec<i64> {
        let v = self.ask(serde_json::json!({"window": true}));
        v["window"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default()
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether an oracle object reports `state` (pyatspi's name: "focused", "checked"…).
pub fn has_state(node: &Value, state: &str) -> bool {
    node["states"]
        .as_array()
        .is_some_and(|s| s.iter().any(|x| x == state))
}

/// A PNG's width and height, read from its header.
pub fn png_size(png: &[u8]) -> (u32, u32) {
    let info = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap()
        .info()
        .clone();
    (info.width, info.height)
}
