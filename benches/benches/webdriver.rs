//! Find + click over WebDriver against the same over MCP stdio, in one run, on the same
//! headless demo: two real `automation` processes (release), `webdriver` and `--headless`.
//!
//! - `webdriver/mcp_stdio_find_click`: rmcp client → `find_node {role: Button, label: Save}`
//!   then `invoke_action {node, action: click}` (the anchor).
//! - `webdriver/wd_name_find_click`: HTTP keep-alive → `POST /element {using: name, value:
//!   Save}` then `POST /element/{id}/click` (what a Selenium or Appium client sends).
//! - `webdriver/wd_xpath_find_click`: the same found by `//Button[@name='Save']`, an XPath over
//!   the whole page source (the tree read and turned into XML on every find).
//!
//! Goal: `wd_name_find_click` ≤ 1.5× `mcp_stdio_find_click`. Needs the release binary
//! (`cargo build --release -p automation-cli`, or `AUTOMATION_BIN`); skipped with a note
//! otherwise.
//!
//! Run: `cargo build --release -p automation-cli && cargo bench -p automation-benches --bench webdriver -- --warm-up-time 1 --measurement-time 5`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

fn object(v: Value) -> JsonObject {
    v.as_object().cloned().unwrap_or_default()
}

struct WebDriver {
    child: Child,
    url: String,
    agent: ureq::Agent,
    session: String,
}

impl WebDriver {
    fn start(bin: &std::path::Path) -> Self {
        let mut child = Command::new(bin)
            .args(["webdriver", "--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_once("listening on ")
            .unwrap()
            .1
            .trim()
            .to_string();
        let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
        let mut wd = Self {
            child,
            url,
            agent,
            session: String::new(),
        };
        let created = wd.post(
            "/session",
            &json!({"capabilities": {"alwaysMatch": {"automation:headless": true}}}),
        );
        wd.session = created["sessionId"].as_str().unwrap().to_string();
        wd
    }

    fn post(&self, path: &str, body: &Value) -> Value {
        let text = self
            .agent
            .post(format!("{}{path}", self.url))
            .content_type("application/json")
            .send(body.to_string())
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["value"].take()
    }

    fn find_click(&self, using: &str, value: &str) {
        let s = &self.session;
        let found = self.post(
            &format!("/session/{s}/element"),
            &json!({"using": using, "value": value}),
        );
        let id = found["element-6066-11e4-a52e-4f735466cecf"]
            .as_str()
            .unwrap();
        let clicked = self.post(&format!("/session/{s}/element/{id}/click"), &json!({}));
        assert!(clicked.is_null(), "{clicked}");
    }
}

impl Drop for WebDriver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bench(c: &mut Criterion) {
    let Some(bin) = automation_benches::automation_bin() else {
        println!(
            "note: webdriver skipped: build the binary first (cargo build --release -p automation-cli) or set AUTOMATION_BIN"
        );
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mcp = rt.block_on(async {
        let cmd = tokio::process::Command::new(&bin).configure(|c| {
            c.arg("--headless");
        });
        ().serve(TokioChildProcess::new(cmd).unwrap())
            .await
            .unwrap()
    });
    let mcp_find_click = || {
        rt.block_on(async {
            let found = mcp
                .call_tool(
                    CallToolRequestParams::new("find_node")
                        .with_arguments(object(json!({"role": "Button", "label": "Save"}))),
                )
                .await
                .unwrap();
            let node = found.structured_content.unwrap()["node"].clone();
            let clicked = mcp
                .call_tool(
                    CallToolRequestParams::new("invoke_action")
                        .with_arguments(object(json!({"node": node, "action": "click"}))),
                )
                .await
                .unwrap();
            assert_eq!(clicked.is_error, Some(false));
        });
    };
    let wd = WebDriver::start(&bin);

    let mut g = c.benchmark_group("webdriver");
    g.bench_function("mcp_stdio_find_click", |b| b.iter(mcp_find_click));
    g.bench_function("wd_name_find_click", |b| {
        b.iter(|| wd.find_click("name", "Save"))
    });
    g.bench_function("wd_xpath_find_click", |b| {
        b.iter(|| wd.find_click("xpath", "//Button[@name='Save']"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
