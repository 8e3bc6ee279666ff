//! Issue 34: nobody but the user drives the kit, and no request takes a server down. The four
//! HTTP servers of the binary — WebDriver, MCP over HTTP, the inspector and `show-report` —
//! stand behind one edge (`automation_http::edge`); each test here runs the real binary.
//!
//! - A page in headless Chromium, served from another loopback origin, tries every way a web
//!   page reaches a server (a no-cors fetch, three kinds of form post, sendBeacon, a JSON fetch
//!   with its preflight, a cross-origin read) against each door. No command runs (marker
//!   files), no session is made, no app sees an action (the apps' own record of what reached
//!   them), nothing is read; each door logs the refusals. With the page's origin allowed, the
//!   same page does launch: the oracles can see an attack.
//! - Another local user is refused by every door.
//! - The issue's reproducers over raw HTTP get the status named for them; an allowed origin
//!   and a client that sends no origin still work.
//! - The edge lets through exactly what its rules allow (a property test, in process: any
//!   Host, Origin, Sec-Fetch-Site, token, content type and body, sent piecewise).
//! - A hostile XPath stalls no one; 1 100 held idle sockets stop no real client; a silent
//!   connection is closed.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::live_app as live;
use crate::support::webdriver as wd;

mod load;
mod property;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use automation_core::Access;
use automation_testkit::require::{on_path, require};
use live::LiveApp;
use serde_json::{Value, json};
use wd::{ELEMENT, Server, Session};

/// The ops that reached an app and would have changed it.
type Acts = Arc<Mutex<Vec<String>>>;

/// A live demo app that records every mutating op that reaches it.
fn recorded_app(name: &str) -> (LiveApp, Acts) {
    let acts: Acts = Arc::default();
    let seen = Arc::clone(&acts);
    let app = LiveApp::start(name, move |request| {
        if request.op.spec().access == Access::Mutating {
            seen.lock().unwrap().push(request.op.name().to_string());
        }
        None
    });
    (app, acts)
}

/// One raw HTTP/1.1 request, `Connection: close`: the status, the headers (lower-case names)
/// and the body.
fn raw(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<(String, String)>, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    parse_response(&out)
}

fn parse_response(bytes: &[u8]) -> (u16, Vec<(String, String)>, String) {
    let text = String::from_utf8_lossy(bytes);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn code(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v["code"].as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The four doors, each logging to a file in `dir`; the inspector drives `inspected`.
struct Doors {
    webdriver: Server,
    mcp: Server,
    inspector: Server,
    report: Server,
}

impl Doors {
    fn start(dir: &Path, inspected: &LiveApp, extra: &[&str]) -> Self {
        let log = |n: &str| dir.join(format!("{n}.log"));
        let mut wd_args = vec!["webdriver", "--port", "0"];
        wd_args.extend_from_slice(extra);
        let webdriver = Server::spawn_logged(&wd_args, &[], &log("webdriver"));
        let launched = format!("touch {}", dir.join("mcp-launched").display());
        let mut mcp_args = vec![
            "serve",
            "--http",
            "127.0.0.1:0",
            "--launch",
            launched.as_str(),
        ];
        mcp_args.extend_from_slice(extra);
        let mcp = Server::spawn_logged(&mcp_args, &[], &log("mcp"));
        let inspector = Server::spawn_logged(
            &["--attach", "inspect"],
            &[(
                "XDG_RUNTIME_DIR".into(),
                inspected.base.path().display().to_string(),
            )],
            &log("inspector"),
        );
        let report_dir = dir.join("report");
        std::fs::create_dir_all(report_dir.join("img")).unwrap();
        std::fs::write(
            report_dir.join("index.html"),
            "<html><body>the report's secret: Zoë typed hunter2</body></html>",
        )
        .unwrap();
        let report = Server::spawn_logged(
            &["show-report", report_dir.to_str().unwrap()],
            &[],
            &log("report"),
        );
        Self {
            webdriver,
            mcp,
            inspector,
            report,
        }
    }

    /// The inspector's token (from the URL it printed).
    fn token(&self) -> String {
        self.inspector
            .url
            .split("token=")
            .nth(1)
            .unwrap()
            .to_string()
    }

    fn all(&self) -> [(&'static str, &Server); 4] {
        [
            ("webdriver", &self.webdriver),
            ("mcp", &self.mcp),
            ("inspector", &self.inspector),
            ("report", &self.report),
        ]
    }
}

const MCP_INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}"#;

/// Serves `page` at every path on a loopback port of its own: another origin.
fn serve_page(page: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    format!("http://127.0.0.1:{}", addr.port())
}

fn browser_ready() -> Option<String> {
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    let selenium = !python.is_empty()
        && Command::new(&python)
            .args(["-c", "import selenium"])
            .output()
            .is_ok_and(|o| o.status.success());
    (require(
        "chromium",
        on_path("chromium") && on_path("chromedriver"),
        "chromium or chromedriver is missing (Debian: chromium chromium-driver)",
    ) && require(
        "python-selenium",
        selenium,
        "AUTOMATION_PYTHON is unset or has no selenium (scripts/test installs it in the venv)",
    ))
    .then_some(python)
}

/// Runs the attack page against `targets`; its findings per target.
fn attack(python: &str, page: &str, targets: &Value) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/edge_browser.py");
    let out = Command::new(python)
        .arg(script)
        .arg(page)
        .arg(targets.to_string())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "edge_browser.py failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim().lines().last().unwrap_or_default()).unwrap()
}

fn launch_body(marker: &Path) -> String {
    json!({"capabilities": {"alwaysMatch": {"appium:app": format!("touch {}", marker.display())}}})
        .to_string()
}

#[test]
fn a_web_page_cannot_drive_launch_or_read_through_any_door() {
    // Headless Chromium.
    let _heavy = automation_testkit::heavy::heavy_shared();
    let Some(python) = browser_ready() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (driven, driven_acts) = recorded_app("edge-driven");
    let (inspected, inspected_acts) = recorded_app("edge-inspected");
    let doors = Doors::start(dir.path(), &inspected, &[]);
    let wd = doors.webdriver.addr();
    // A session of the user's own, on an app the page would click through it.
    let session = Session::new(
        &wd,
        json!({"automation:connect": driven.address, "automation:token": driven.token}),
    );
    let save = Session::element(&session.call(
        "POST",
        "/element",
        json!({"using": "name", "value": "Save"}),
    ));
    let token = doors.token();
    let page = serve_page(include_str!("../python/edge_attacks.html"));
    let targets = json!([
        {"name": "webdriver-new-session", "url": format!("http://{wd}/session"), "body": launch_body(&dir.path().join("wd-launched")),
         "read": format!("http://{wd}/sessions")},
        {"name": "webdriver-click", "url": format!("http://{wd}/session/{}/element/{save}/click", session.id), "body": "{\"x\":1}",
         "read": format!("http://{wd}/session/{}/source", session.id)},
        {"name": "mcp-initialize", "url": format!("{}", doors.mcp.url), "body": MCP_INIT},
        {"name": "inspector-act", "url": format!("http://{}/api/act?token={token}", doors.inspector.addr()),
         "body": json!({"node": {"role": "Button", "label": "Save"}, "action": "click"}).to_string(),
         "read": format!("http://{}/api/tree?token={token}", doors.inspector.addr())},
        {"name": "report", "url": format!("http://{}/", doors.report.addr()), "body": "{\"x\":1}",
         "read": format!("http://{}/index.html", doors.report.addr())},
    ]);
    let found = attack(&python, &page, &targets);
    eprintln!("the page's findings: {found}");

    for marker in ["wd-launched", "mcp-launched"] {
        assert!(
            !dir.path().join(marker).exists(),
            "the page launched a command ({marker}): {found}"
        );
    }
    let (_, _, sessions) = raw(&wd, "GET", "/sessions", &[], b"");
    let ids: Vec<Value> = serde_json::from_str::<Value>(&sessions).unwrap()["value"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        ids,
        vec![json!({"id": session.id})],
        "the page made a session"
    );
    assert!(
        driven_acts.lock().unwrap().is_empty(),
        "an action reached the WebDriver session's app: {:?}",
        driven_acts.lock().unwrap()
    );
    assert!(
        inspected_acts.lock().unwrap().is_empty(),
        "an action reached the inspected app: {:?}",
        inspected_acts.lock().unwrap()
    );
    for (name, result) in found.as_object().unwrap() {
        assert_eq!(
            result["json"], "blocked",
            "{name}: the page's JSON request was answered: {result}"
        );
        if !result["read"].is_null() {
            assert_eq!(
                result["read"], "blocked",
                "{name}: the page read a reply: {result}"
            );
        }
    }
    // Every door logged the refusals, naming the page's origin.
    for (name, server) in doors.all() {
        let log = server.log_text();
        let refused = log
            .lines()
            .filter(|l| l.contains("ORIGIN_REFUSED") && l.contains(&page))
            .count();
        assert!(
            refused >= 5,
            "{name} logged {refused} refusals of {page}:\n{log}"
        );
    }

    // The oracle sees an attack that gets through: a server that allows the page's origin
    // launches what the page asks, and lets it read the reply.
    let allowed = Server::spawn_logged(
        &["webdriver", "--port", "0", "--allow-origin", &page],
        &[],
        &dir.path().join("allowed.log"),
    );
    let marker = dir.path().join("allowed-launched");
    let targets = json!([{"name": "allowed", "url": format!("http://{}/session", allowed.addr()), "body": launch_body(&marker)}]);
    let found = attack(&python, &page, &targets);
    assert!(
        marker.exists(),
        "an allowed origin's request did not launch: {found}"
    );
    assert!(
        found["allowed"]["json"]
            .as_str()
            .unwrap()
            .starts_with("read 500"),
        "{found}"
    );
}

#[test]
fn another_local_user_is_refused_by_every_door() {
    // SAFETY: geteuid(2) cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !require(
        "root",
        root,
        "creating a second local user needs root (CI runs as root)",
    ) {
        return;
    }
    let user = "automation-edge-other";
    if !Command::new("id")
        .args(["-u", user])
        .output()
        .unwrap()
        .status
        .success()
    {
        let made = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                user,
            ])
            .status()
            .unwrap();
        assert!(made.success(), "useradd {user}");
    }
    let dir = tempfile::tempdir().unwrap();
    let (inspected, inspected_acts) = recorded_app("edge-users");
    let doors = Doors::start(dir.path(), &inspected, &[]);
    let token = doors.token();
    let marker = dir.path().join("other-launched");
    // The requests a well-formed client sends: JSON, no Origin, the token where one is needed.
    let requests = json!([
        {"door": "webdriver", "url": format!("http://{}/session", doors.webdriver.addr()), "body": launch_body(&marker)},
        {"door": "mcp", "url": doors.mcp.url, "body": MCP_INIT},
        {"door": "inspector", "url": format!("http://{}/api/act?token={token}", doors.inspector.addr()),
         "body": json!({"node": {"role": "Button", "label": "Save"}, "action": "click"}).to_string()},
        {"door": "report", "url": format!("http://{}/index.html", doors.report.addr())},
    ]);
    let client = r#"
import json, sys, urllib.request, urllib.error
out = {}
for r in json.loads(sys.argv[1]):
    body = r.get("body")
    req = urllib.request.Request(r["url"], data=None if body is None else body.encode(), method="GET" if body is None else "POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", "application/json, text/event-stream")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            out[r["door"]] = [resp.status, resp.read(300).decode("utf-8", "replace")]
    except urllib.error.HTTPError as e:
        out[r["door"]] = [e.code, e.read(300).decode("utf-8", "replace")]
print(json.dumps(out))
"#;
    let run_as = |who: Option<&str>| -> Value {
        let mut cmd = match who {
            Some(u) => {
                let mut c = Command::new("runuser");
                c.args(["-u", u, "--", "/usr/bin/python3"]);
                c
            }
            None => Command::new("/usr/bin/python3"),
        };
        let out = cmd
            .args(["-c", client, &requests.to_string()])
            .current_dir("/")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap()
    };
    let other = run_as(Some(user));
    for (door, server) in doors.all() {
        let (status, body) = (&other[door][0], other[door][1].as_str().unwrap());
        assert_eq!(status, 403, "{door} answered another user: {body}");
        assert!(body.contains("PEER_REFUSED"), "{door}: {body}");
        assert!(
            server.log_text().contains("PEER_REFUSED"),
            "{door} did not log the refusal"
        );
    }
    assert!(!marker.exists(), "another user launched a command");
    assert!(
        inspected_acts.lock().unwrap().is_empty(),
        "another user's action reached the app"
    );
    // The same requests from the user who started the servers are served.
    let own = run_as(None);
    assert_ne!(own["webdriver"][0], 403, "{own}");
    assert!(
        marker.exists(),
        "the user's own session did not launch: {own}"
    );
    assert_eq!(own["inspector"][0], 200, "{own}");
    assert_eq!(own["report"][0], 200, "{own}");
    assert_eq!(
        own["mcp"][0], 500,
        "the --launch app exits at once, after the session started: {own}"
    );
    assert!(
        dir.path().join("mcp-launched").exists(),
        "the user's own MCP session did not launch: {own}"
    );
}

#[test]
fn the_reproducers_are_refused_and_allowed_origins_and_plain_clients_still_work() {
    let dir = tempfile::tempdir().unwrap();
    let (inspected, _acts) = recorded_app("edge-repro");
    let doors = Doors::start(
        dir.path(),
        &inspected,
        &["--allow-origin", "http://localhost:3000"],
    );
    let wd = doors.webdriver.addr();
    let marker = dir.path().join("launched");
    let launch = launch_body(&marker);
    let evil = ("Origin", "https://evil.example");
    // A web page's simple requests, and its JSON: 403 whatever the type.
    for ct in [
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json",
    ] {
        let (status, _, body) = raw(
            &wd,
            "POST",
            "/session",
            &[evil, ("Content-Type", ct)],
            launch.as_bytes(),
        );
        assert_eq!(
            (status, code(&body).as_str()),
            (403, "ORIGIN_REFUSED"),
            "{ct}: {body}"
        );
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            v["value"]["error"], "unknown error",
            "a W3C client reads it too: {body}"
        );
    }
    // Without an Origin, anything but JSON is 415; a form cannot post JSON.
    for ct in [
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let (status, _, body) = raw(
            &wd,
            "POST",
            "/session",
            &[("Content-Type", ct)],
            launch.as_bytes(),
        );
        assert_eq!(
            (status, code(&body).as_str()),
            (415, "CONTENT_TYPE_REFUSED"),
            "{ct}: {body}"
        );
    }
    let (status, _, body) = raw(&wd, "POST", "/session", &[], launch.as_bytes());
    assert_eq!(status, 415, "a JSON body with no content type: {body}");
    assert!(!marker.exists(), "a refused request launched");
    // A cross-site GET that names no origin (an image, a link).
    let (status, _, body) = raw(
        &wd,
        "GET",
        "/status",
        &[("Sec-Fetch-Site", "cross-site")],
        b"",
    );
    assert_eq!((status, code(&body).as_str()), (403, "CROSS_SITE_REFUSED"));
    // MCP: an initialize from a page's origin is 403, as the MCP transport spec says.
    let accept = ("Accept", "application/json, text/event-stream");
    let mcp = doors.mcp.addr();
    let (status, _, body) = raw(
        &mcp,
        "POST",
        "/mcp",
        &[evil, accept, ("Content-Type", "application/json")],
        MCP_INIT.as_bytes(),
    );
    assert_eq!(
        (status, code(&body).as_str()),
        (403, "ORIGIN_REFUSED"),
        "{body}"
    );
    assert!(!dir.path().join("mcp-launched").exists());
    // show-report answers only its own Host (a DNS-rebinding page's is another).
    let report = doors.report.addr();
    let port = report.rsplit(':').next().unwrap();
    let (status, _, body) = raw(
        &report,
        "GET",
        "/",
        &[("Host", &format!("attacker.example:{port}"))],
        b"",
    );
    assert_eq!(
        (status, code(&body).as_str()),
        (403, "HOST_REFUSED"),
        "{body}"
    );
    assert!(!body.contains("hunter2"));
    let (status, _, body) = raw(&report, "GET", "/", &[], b"");
    assert_eq!(status, 200);
    assert!(body.contains("hunter2"));
    // The inspector: a page of another origin is refused even with the token; its own page's
    // origin is served.
    let inspector = doors.inspector.addr();
    let tree = format!("/api/tree?token={}", doors.token());
    let (status, _, body) = raw(&inspector, "GET", &tree, &[evil], b"");
    assert_eq!((status, code(&body).as_str()), (403, "ORIGIN_REFUSED"));
    let own = format!("http://{inspector}");
    let (status, _, _) = raw(&inspector, "GET", &tree, &[("Origin", &own)], b"");
    assert_eq!(status, 200);

    // The allowed origin: its preflight is answered, its request served, CORS headers named.
    let allowed = ("Origin", "http://localhost:3000");
    let (status, headers, _) = raw(
        &wd,
        "OPTIONS",
        "/session",
        &[
            allowed,
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type"),
        ],
        b"",
    );
    assert_eq!(status, 204);
    assert_eq!(
        header(&headers, "access-control-allow-origin"),
        Some("http://localhost:3000")
    );
    assert!(
        header(&headers, "access-control-allow-headers")
            .unwrap()
            .contains("content-type")
    );
    let (status, headers, _) = raw(
        &wd,
        "OPTIONS",
        "/session",
        &[evil, ("Access-Control-Request-Method", "POST")],
        b"",
    );
    assert_eq!(status, 403, "a foreign preflight");
    assert_eq!(header(&headers, "access-control-allow-origin"), None);
    let headless =
        json!({"capabilities": {"alwaysMatch": {"automation:headless": true}}}).to_string();
    let (status, headers, body) = raw(
        &wd,
        "POST",
        "/session",
        &[allowed, ("Content-Type", "application/json")],
        headless.as_bytes(),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        header(&headers, "access-control-allow-origin"),
        Some("http://localhost:3000")
    );
    // And a client with no Origin (Selenium, Appium, curl) is served as before.
    let (status, headers, body) = raw(
        &wd,
        "POST",
        "/session",
        &[("Content-Type", "application/json; charset=utf-8")],
        headless.as_bytes(),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(header(&headers, "access-control-allow-origin"), None);
    let (status, _, body) = raw(
        &mcp,
        "POST",
        "/mcp",
        &[accept, ("Content-Type", "application/json")],
        MCP_INIT.as_bytes(),
    );
    assert_eq!(
        status, 500,
        "the launched app exits at once, after the session started: {body}"
    );
    assert!(dir.path().join("mcp-launched").exists());
    // A bad --allow-origin is refused before the server starts.
    let out = crate::support::automation()
        .args(["webdriver", "--port", "0", "--allow-origin", "*"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("name each origin"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
