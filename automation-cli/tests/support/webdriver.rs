//! A real `automation webdriver` (or `serve --http`, `inspect`) for a test, and raw HTTP to it (the
//! hostile tests need to send what no client library would).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// W3C's element key.
pub const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A running server, killed (SIGTERM, so it ends its sessions) on drop.
pub struct Server {
    pub child: Child,
    pub url: String,
    /// Where its stderr goes, when the test reads its log.
    pub log: Option<std::path::PathBuf>,
}

impl Server {
    /// `automation webdriver --port 0 ARGS`.
    pub fn start(args: &[&str]) -> Self {
        let mut all = vec!["webdriver", "--port", "0"];
        all.extend_from_slice(args);
        Self::spawn(&all)
    }

    /// `automation ARGS`, a verb that serves HTTP and says where on its first stdout line
    /// (`webdriver`, `serve --http`, `inspect`): the first `http://` word of that line.
    pub fn spawn(args: &[&str]) -> Self {
        Self::spawn_env(args, &[])
    }

    /// [`Server::spawn`] with `env` set for the server.
    /// An empty value removes the variable.
    pub fn spawn_env(args: &[&str], env: &[(String, String)]) -> Self {
        Self::spawn_cmd(crate::support::automation(), args, env, None)
    }

    /// [`Server::spawn_env`] with its stderr in `log` (read it with [`Server::log_text`]).
    pub fn spawn_logged(args: &[&str], env: &[(String, String)], log: &std::path::Path) -> Self {
        Self::spawn_cmd(crate::support::automation(), args, env, Some(log))
    }

    /// `cmd` (the binary, or a wrapper such as `prlimit … automation`) with `args`.
    pub fn spawn_cmd(
        mut cmd: Command,
        args: &[&str],
        env: &[(String, String)],
        log: Option<&std::path::Path>,
    ) -> Self {
        for (k, v) in env {
            if v.is_empty() {
                cmd.env_remove(k);
            } else {
                cmd.env(k, v);
            }
        }
        let stderr = match log {
            Some(path) => Stdio::from(std::fs::File::create(path).unwrap()),
            None => Stdio::inherit(),
        };
        let mut child = cmd
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no URL in {line:?}");
        };
        Self {
            url: url.to_string(),
            child,
            log: log.map(std::path::Path::to_path_buf),
        }
    }

    /// What the server has logged so far (with [`Server::spawn_logged`]).
    pub fn log_text(&self) -> String {
        self.log
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default()
    }

    /// `host:port`.
    pub fn addr(&self) -> String {
        let rest = self.url.trim_start_matches("http://");
        let host_port = rest.split('/').next().unwrap_or_default();
        host_port.replace("0.0.0.0", "127.0.0.1")
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Ends the server with SIGTERM and waits for it.
    pub fn stop(&mut self) {
        unsafe_free_term(self.child.id());
        for _ in 0..100 {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// SIGTERM through kill(1): no unsafe code in tests.
fn unsafe_free_term(pid: u32) {
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One HTTP/1.1 request with `Connection: close`; the status and the body as JSON (`Null` if
/// it is not JSON). Sends the body even when the server answers before reading it all.
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    body: &[u8],
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let host = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("host"))
        .map_or(addr.to_string(), |(_, v)| (*v).to_string());
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) and close before a big body is all sent.
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let payload = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or_default();
    (status, serde_json::from_str(payload).unwrap_or(Value::Null))
}

/// A session on a server, for tests that drive it command by command.
pub struct Session {
    pub addr: String,
    pub id: String,
    /// The capabilities the new session answered with.
    pub caps: Value,
}

impl Session {
    /// `POST /session` with `alwaysMatch` = `caps`; panics with the reply unless it is 200.
    pub fn new(addr: &str, caps: Value) -> Self {
        let body = serde_json::json!({"capabilities": {"alwaysMatch": caps}}).to_string();
        let (status, reply) = http(addr, "POST", "/session", body.as_bytes(), &[]);
        assert_eq!(status, 200, "new session {caps}: {reply}");
        let id = reply["value"]["sessionId"].as_str().unwrap().to_string();
        Self {
            addr: addr.to_string(),
            id,
            caps: reply["value"]["capabilities"].clone(),
        }
    }

    /// `METHOD /session/{id}PATH` with `v` as the body (none when `Null`): the reply's
    /// `value`; panics with the reply unless it is 200.
    pub fn call(&self, method: &str, path: &str, v: Value) -> Value {
        let body = if v.is_null() {
            Vec::new()
        } else {
            v.to_string().into_bytes()
        };
        let (status, reply) = http(
            &self.addr,
            method,
            &format!("/session/{}{path}", self.id),
            &body,
            &[],
        );
        assert_eq!(status, 200, "{method} {path} {v}: {reply}");
        reply["value"].clone()
    }

    /// The element id of a find reply.
    pub fn element(found: &Value) -> String {
        found[ELEMENT].as_str().unwrap().to_string()
    }
}

/// The two-window GTK 3 app (`tests/python/two_windows.py`) and the record it keeps of what
/// each window's entry holds: the app's own word on where typed text landed.
pub struct TwoWindows {
    /// The command line a session launches (`appium:app`).
    pub app: String,
    record: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl TwoWindows {
    /// `None` (after the requirement check) when Xvfb, dbus-daemon or the system python's
    /// GTK 3 bindings are missing.
    #[track_caller]
    pub fn new() -> Option<Self> {
        use automation_testkit::require::require;
        let gtk3 = Command::new("/usr/bin/python3")
            .args(["-c", "import gi; gi.require_version('Gtk', '3.0')"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !automation_testkit::require::require_tools(
            "dbus",
            &automation_atspi::display::missing_tools(),
        ) || !require(
            "atspi-apps",
            gtk3,
            "the system python's GTK 3 bindings are missing (Debian: python3-gi gir1.2-gtk-3.0)",
        ) {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("notes.txt");
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/two_windows.py");
        Some(Self {
            app: format!("/usr/bin/python3 {} {}", script.display(), record.display()),
            record,
            _dir: dir,
        })
    }

    /// The record once it holds `line` (waiting up to 20 s), or as it is then.
    pub fn record_with(&self, line: &str) -> String {
        let until = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            let text = std::fs::read_to_string(&self.record).unwrap_or_default();
            if text.lines().any(|l| l == line) || std::time::Instant::now() > until {
                return text;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
