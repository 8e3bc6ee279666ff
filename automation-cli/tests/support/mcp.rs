//! A hand-driven MCP session with the real `automation` binary: raw lines in, raw lines out,
//! every read bounded.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The bound every reply must arrive within.
pub const BOUND: Duration = Duration::from_secs(2);

pub struct Server {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    /// Replies read while waiting for another id (see [`Server::reply_keeping`]).
    stash: Vec<Value>,
}

impl Server {
    /// Starts `automation --headless` in `dir` (its current directory) and does the handshake.
    pub fn start_in(dir: &std::path::Path) -> Server {
        Self::spawn(&["--headless"], dir)
    }

    /// Starts `automation ARGS…` in the temp dir and does the handshake.
    pub fn start_with(args: &[&str]) -> Server {
        Self::spawn(args, &std::env::temp_dir())
    }

    /// Starts `automation ARGS…` in `dir` with `env` set and does the handshake.
    pub fn start_env(args: &[&str], dir: &std::path::Path, env: &[(&str, &str)]) -> Server {
        let mut cmd = crate::support::automation();
        for (k, v) in env {
            cmd.env(k, v);
        }
        Self::spawn_cmd(cmd, args, dir)
    }

    fn spawn(args: &[&str], dir: &std::path::Path) -> Server {
        Self::spawn_cmd(crate::support::automation(), args, dir)
    }

    fn spawn_cmd(mut cmd: Command, args: &[&str], dir: &std::path::Path) -> Server {
        let mut child = cmd
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn automation");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stdin = child.stdin.take();
        let mut s = Server {
            child,
            stdin,
            lines: rx,
            stash: Vec::new(),
        };
        s.send_json(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "0"}}}),
        );
        let init = s.recv(Duration::from_secs(30));
        assert_eq!(init["id"], json!(0), "{init}");
        assert!(init.get("result").is_some(), "{init}");
        s.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    pub fn start() -> Server {
        Self::start_in(&std::env::temp_dir())
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn send_json(&mut self, v: &Value) {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// The next line from the server, parsed; panics after `within`.
    pub fn recv(&mut self, within: Duration) -> Value {
        parse(&self.recv_line(within))
    }

    /// The next line from the server as sent (no trailing newline); panics after `within`.
    pub fn recv_line(&mut self, within: Duration) -> String {
        let line = self
            .lines
            .recv_timeout(within)
            .unwrap_or_else(|e| panic!("no reply within {within:?}: {e}"));
        String::from_utf8_lossy(&line).trim_end().to_owned()
    }

    /// The raw line of the reply with this id (skipping notifications): what a client pays
    /// to read.
    pub fn reply_line_to(&mut self, id: &Value, within: Duration) -> String {
        let start = Instant::now();
        loop {
            let line = self.recv_line(within.saturating_sub(start.elapsed()));
            if &parse(&line)["id"] == id {
                return line;
            }
        }
    }

    /// Sends a request and returns its reply's raw line.
    pub fn request_line(&mut self, id: i64, method: &str, params: Value) -> String {
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.reply_line_to(&json!(id), Duration::from_secs(30))
    }

    /// The reply with this id (skipping notifications), with the time it took.
    pub fn reply_to(&mut self, id: &Value, within: Duration) -> (Value, Duration) {
        let start = Instant::now();
        loop {
            let left = within.saturating_sub(start.elapsed());
            let v = self.recv(left);
            if &v["id"] == id {
                return (v, start.elapsed());
            }
        }
    }

    /// The reply with this id; replies to other ids read meanwhile are kept for their own
    /// call (notifications are dropped). Panics after `within`.
    pub fn reply_keeping(&mut self, id: &Value, within: Duration) -> Value {
        if let Some(at) = self.stash.iter().position(|v| &v["id"] == id) {
            return self.stash.remove(at);
        }
        let start = Instant::now();
        loop {
            let v = self.recv(within.saturating_sub(start.elapsed()));
            if &v["id"] == id {
                return v;
            }
            if v.get("id").is_some() {
                self.stash.push(v);
            }
        }
    }

    /// Sends `ping` and returns how long its answer took (panics past `within`).
    pub fn ping(&mut self, id: i64, within: Duration) -> Duration {
        let start = Instant::now();
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        let r = self.reply_keeping(&json!(id), within);
        assert!(r.get("result").is_some(), "{r}");
        start.elapsed()
    }

    /// Sends a `tools/call` without waiting for its answer.
    pub fn send_call(&mut self, id: i64, name: &str, arguments: Value) {
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
    }

    /// Calls a tool and returns the JSON-RPC reply.
    pub fn call(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
        self.reply_to(&json!(id), Duration::from_secs(30)).0
    }

    /// Asserts the server still serves: a `find_node` for Save succeeds.
    pub fn assert_serving(&mut self, id: i64) {
        let r = self.call(id, "find_node", json!({"role": "Button", "label": "Save"}));
        assert_ne!(r["result"]["isError"], json!(true), "{r}");
        assert!(r["result"]["structuredContent"]["node"].is_string(), "{r}");
    }
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON: {e}: {line}"))
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
