//! Scripts: the shipped TypeScript example through the JS client (`clients/js`) from
//! `automation run` and as plain `node` against a live debug app; the TypeScript gate's
//! contract; an uncaught exception mapped back to the submitted line; a hand-written client
//! on the private endpoint.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::live_app as support;
#[allow(dead_code)]
use automation_testkit::heavy::Heavy;

use std::path::{Path, PathBuf};
use std::process::Command;

use automation_runner::events::{Collect, RunEvent};
use automation_runner::flow;
use automation_runner::report::{RunReport, StepStatus};
use automation_session::backend::{EguiDemo, TargetHandle};
use serde_json::{Value, json};

/// One script test at a time: each runs a demo and a node child, and the demo's settle has
/// a wall-clock budget (500 ms by default) that a 2-core machine running seven at once misses.
fn serial() -> Heavy {
    automation_testkit::heavy::heavy()
}

fn node_present() -> bool {
    automation_testkit::require::require(
        "node",
        Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "node is not on PATH: scripts run under node (apt-get install nodejs)",
    )
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

fn run_script(source: &str) -> (RunReport, Collect) {
    let target = TargetHandle::spawn(EguiDemo::factory()).unwrap();
    let args = json!({"script": source});
    let flow = flow::from_arguments(args.as_object().unwrap()).unwrap();
    let mut sink = Collect::default();
    let report = automation_runner::run_flow(&flow, "t", &target, &mut sink, &|| false);
    (report, sink)
}

/// `automation run FLOW --junit DIR/junit.xml --records DIR/records`: its output, and the two
/// paths.
fn run_with_reports(flow: &Path, dir: &Path) -> (std::process::Output, PathBuf, PathBuf) {
    let junit = dir.join("junit.xml");
    let records = dir.join("records");
    let out = crate::support::automation()
        .arg("run")
        .arg(flow)
        .arg("--junit")
        .arg(&junit)
        .arg("--records")
        .arg(&records)
        .output()
        .unwrap();
    (out, junit, records)
}

/// Each op record the run filed, as (its step, its tool), in order.
fn calls_by_step(sink: &Collect) -> Vec<(String, String)> {
    sink.items
        .iter()
        .filter_map(|e| match e {
            RunEvent::Call(c) => Some((c.step_id.clone(), c.tool.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn the_typescript_example_passes_from_automation_run() {
    let _serial = serial();
    if !node_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (out, junit, records) =
        run_with_reports(&repo().join("examples/flows/save-name.ts"), dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for step in [
        "type the name",
        "click Save",
        "hear \"Saved\"",
        "screenshot",
    ] {
        assert!(stderr.contains(&format!("step passed: {step}")), "{stderr}");
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let cases = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    assert_eq!(cases, 4, "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
    // Records: one per op, filed under the step that made it, the screenshot as a PNG.
    let exec = std::fs::read_dir(&records)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let names: Vec<String> = std::fs::read_dir(&exec)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(
        names.iter().any(|n| n.contains("-save-invoke_action.json")),
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .any(|n| n.ends_with("-screenshot-screenshot.png")),
        "{names:?}"
    );
    let png = names.iter().find(|n| n.ends_with(".png")).unwrap();
    assert!(
        std::fs::read(exec.join(png))
            .unwrap()
            .starts_with(b"\x89PNG")
    );
}

/// A flow whose assertion fails after polling: `toHaveValue` waits 1 s (the client's
/// `timeoutMs`) for a value the field never takes. Line 9 is the assertion.
const FAILING_POLL: &str = r#"import { connect, expect, step } from '@automation-kit/client';

const app: { find(s: object): any; close(): void } = await connect({ settle: { settle_timeout_ms: 5000 } });

await step('type the name', async () => {
  const field = app.find({ role: 'TextInput', name: 'Name' });
  await field.typeText('Ada');
  // the value is "Ada"; it never becomes "Bob"
  await expect(field).toHaveValue('Bob', { timeoutMs: 1000 });
}, { id: 'type' });

app.close();
"#;

#[test]
fn a_failing_poll_is_one_record_one_junit_line_and_one_error_at_its_line() {
    let _serial = serial();
    if !node_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("poll.ts");
    std::fs::write(&flow, FAILING_POLL).unwrap();
    let (out, junit, records) = run_with_reports(&flow, dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // The error once on stderr (not node's stack, its JSON, the crash log and the verdict
    // again), and the verdict names the line.
    let message = r#"to have value "Bob", but it was "Ada""#;
    assert_eq!(stderr.matches(message).count(), 1, "{stderr}");
    assert!(
        stderr.contains("poll.ts:9:") && stderr.contains("toHaveValue('Bob'"),
        "{stderr}"
    );
    // Records: the typing, and the ~60 read_node tries with their settles as one poll.
    let exec = std::fs::read_dir(&records)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut names: Vec<String> = std::fs::read_dir(&exec)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") && n != "run.json")
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["001-type-type_text.json", "002-type-read_node.json"],
        "one record for the poll"
    );
    let poll: Value =
        serde_json::from_str(&std::fs::read_to_string(exec.join(&names[1])).unwrap()).unwrap();
    let tries = poll["poll"]["tries"].as_u64().unwrap();
    assert!(tries >= 3, "{poll:#}");
    assert_eq!(
        poll["poll"]["settles"].as_u64(),
        Some(tries - 1),
        "{poll:#}"
    );
    assert!(
        poll["poll"]["span_ms"].as_f64().unwrap() >= 900.0,
        "{poll:#}"
    );
    assert_eq!(poll["poll"]["first"]["response"]["value"], "Ada");
    assert_eq!(poll["response"]["value"], "Ada");
    // JUnit: one line for the poll in system-out; the failure carries poll.ts:9.
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let out_text: String = doc
        .descendants()
        .filter(|n| n.has_tag_name("system-out"))
        .filter_map(|n| n.text())
        .collect();
    let read_lines = out_text
        .lines()
        .filter(|l| l.starts_with("read_node"))
        .count();
    assert_eq!(read_lines, 1, "{out_text}");
    assert!(
        out_text.contains(&format!("polled: {tries} tries")),
        "{out_text}"
    );
    assert!(
        !out_text.lines().any(|l| l.starts_with("settle")),
        "{out_text}"
    );
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    let msg = failure.attribute("message").unwrap();
    assert!(msg.starts_with("ASSERTION_FAILED: "), "{msg}");
    assert!(msg.contains("poll.ts:9:"), "{msg}");
    let detail: Value = serde_json::from_str(failure.text().unwrap()).unwrap();
    let file = detail["location"]["file"].as_str().unwrap();
    assert!(file.ends_with("poll.ts"), "{detail:#}");
    assert_eq!(detail["location"]["line"], 9, "{detail:#}");
}

#[test]
fn the_typescript_example_passes_as_plain_node_against_a_live_app() {
    let _serial = serial();
    if !node_present() {
        return;
    }
    let app = support::LiveApp::start("runner-live", |_| None);
    let dir = tempfile::tempdir().unwrap();
    // What a person does: transpile, then run with node (the client found as a package).
    let out = crate::support::automation()
        .arg("transpile")
        .arg(repo().join("examples/flows/save-name.ts"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(dir.path().join("save-name.mjs"), &out.stdout).unwrap();
    let scope = dir.path().join("node_modules/@automation-kit");
    std::fs::create_dir_all(&scope).unwrap();
    std::os::unix::fs::symlink(repo().join("clients/js"), scope.join("client")).unwrap();
    let out = Command::new("node")
        .arg("save-name.mjs")
        .current_dir(dir.path())
        .env("XDG_RUNTIME_DIR", app.base.path())
        .env_remove("AUTOMATION_ENDPOINT")
        .env_remove("AUTOMATION_TOKEN")
        .env_remove("MCP_EVENT_PIPE_PATH")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_typescript_script_that_does_not_compile_returns_the_seed_contract() {
    let (report, sink) = run_script("const x string = 1;");
    assert_eq!(report.status, "failed");
    assert_eq!(
        report.error,
        Some(json!({
            "error_type": "syntax_error",
            "can_fix": true,
            "message": "Expected a semicolon or an implicit semicolon after a statement, but found none",
            "location": {"line": 1, "column": 8},
            "error_line": "const x string = 1;",
            "fix": "Add ':' between the variable name and its type: `const x: string`",
            "recovery": "fix_code"
        }))
    );
    assert!(sink.items.is_empty(), "nothing ran");
    assert!(
        !report.to_json().to_string().contains("    at "),
        "no stack trace"
    );
}

#[test]
fn a_script_that_throws_fails_at_its_own_typescript_line() {
    let _serial = serial();
    if !node_present() {
        return;
    }
    let source = "import { connect, step } from '@automation-kit/client';\n\
                  \n\
                  interface Target {\n\
                  \x20 role: string;\n\
                  \x20 name: string;\n\
                  }\n\
                  const save: Target = { role: 'Button', name: 'Save' };\n\
                  const app = await connect();\n\
                  await step('click', () => app.find(save).click(), { id: 'click' });\n\
                  await step('check', async () => {\n\
                  \x20 const n: number = 2;\n\
                  \x20 throw new Error(`boom after ${n} steps`);\n\
                  }, { id: 'check' });\n";
    let (report, _) = run_script(source);
    assert_eq!(report.status, "failed");
    let e = report.error.clone().unwrap();
    assert_eq!(e["code"], "SCRIPT_ERROR", "{e:#}");
    assert_eq!(e["message"], "Error: boom after 2 steps");
    assert_eq!(e["location"]["file"], "inline.ts");
    assert_eq!(e["location"]["line"], 12, "{e:#}");
    assert_eq!(
        e["error_line"],
        "  throw new Error(`boom after ${n} steps`);"
    );
    assert_eq!(e["step"], "check");
    let statuses: Vec<_> = report
        .steps
        .iter()
        .map(|s| (s.id.as_str(), s.status))
        .collect();
    assert_eq!(
        statuses,
        [("click", StepStatus::Passed), ("check", StepStatus::Failed)]
    );
}

#[test]
fn an_op_error_in_a_script_carries_the_kit_code_and_candidates() {
    let _serial = serial();
    if !node_present() {
        return;
    }
    let source = "import { connect, step } from '@automation-kit/client';\n\
                  const app = await connect();\n\
                  await step('click', () => app.find({ role: 'Button', name: 'Sav' }).click(), { id: 'click' });\n";
    let (report, _) = run_script(source);
    let e = report.error.clone().unwrap();
    assert_eq!(e["code"], "NOT_FOUND", "{e:#}");
    // The JS client's class name is plumbing: the code already says what failed (issue 39).
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("no node matches")),
        "{e:#}"
    );
    assert_eq!(e["step"], "click");
    assert_eq!(e["location"]["line"], 3, "{e:#}");
    assert!(
        e["candidates"].as_array().is_some_and(|c| !c.is_empty()),
        "{e:#}"
    );
}

/// Issue 39: a failed script's hint is read by a person at a terminal as often as by an
/// agent: plain words ("run it again"), not "resubmit".
#[test]
fn a_failed_scripts_hint_speaks_to_a_person() {
    let _serial = serial();
    if !node_present() {
        return;
    }
    for source in ["throw new Error('boom');\n", "process.exitCode = 3;\n"] {
        let (report, _) = run_script(source);
        let e = report.error.clone().unwrap();
        let hint = e["hint"].as_str().unwrap_or_default();
        assert!(hint.contains("fix the script"), "{source}: {e:#}");
        assert!(!hint.contains("resubmit"), "{source}: {e:#}");
    }
}

/// Issue 39: with no JavaScript runtime, the terminal tells a person what to install, not
/// "Ask the user to install Node.js … and retry".
#[test]
fn a_missing_runtime_fix_speaks_to_a_person() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.js"), "console.log(1);\n").unwrap();
    let out = crate::support::automation()
        .args(["run", "a.js"])
        .current_dir(dir.path())
        .env_remove("AUTOMATION_NODE")
        .env_remove("AUTOMATION_NODE_DIR")
        .env("PATH", dir.path().join("no-such-dir"))
        .env("AUTOMATION_RECORDS", "off")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("missing_tool"), "{text}");
    assert!(text.contains("fix: Install Node.js"), "{text}");
    assert!(!text.contains("Ask the user"), "{text}");
}

#[test]
fn every_op_is_filed_under_the_step_that_made_it() {
    // Ops and step events race on two channels (the socket and the event pipe); each op's
    // marker orders them. Forty short steps back to back, an op before any step and one
    // after the last: each call lands in its own step, in order.
    let _serial = serial();
    if !node_present() {
        return;
    }
    let source = "import { connect, step } from '@automation-kit/client';\n\
                  const app = await connect();\n\
                  await app.op('list_windows');\n\
                  for (let i = 0; i < 40; i += 1) {\n\
                  \x20 await step(`s${i}`, async () => {\n\
                  \x20   await app.op('find_node', { role: 'Button', label: 'Save' });\n\
                  \x20   if (i % 2) await app.op('list_windows');\n\
                  \x20 }, { id: `s${i}` });\n\
                  }\n\
                  await app.op('list_windows');\n";
    let (report, sink) = run_script(source);
    assert!(report.passed(), "{:#}", report.to_json());
    assert_eq!(report.steps.len(), 40);
    let calls = calls_by_step(&sink);
    let mut expected = vec![("script".to_string(), "list_windows".to_string())];
    for i in 0..40 {
        expected.push((format!("s{i}"), "find_node".into()));
        if i % 2 == 1 {
            expected.push((format!("s{i}"), "list_windows".into()));
        }
    }
    expected.push(("script".into(), "list_windows".into()));
    assert_eq!(calls, expected);
}

/// This process's CPU time so far (user + system).
fn cpu_time() -> std::time::Duration {
    // SAFETY: `getrusage` only writes the struct it is given, zeroed first.
    let (rc, usage) = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        (libc::getrusage(libc::RUSAGE_SELF, &mut u), u)
    };
    // A failed call would leave zeros, and the CPU check below would pass whatever happened.
    assert_eq!(rc, 0, "getrusage: {}", std::io::Error::last_os_error());
    let tv = |t: libc::timeval| {
        std::time::Duration::from_micros(
            u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000
                + u64::try_from(t.tv_usec).unwrap_or(0),
        )
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

#[test]
fn a_script_that_closes_its_output_and_runs_on_is_waited_for_without_a_spin() {
    let _serial = serial();
    if !node_present() {
        return;
    }
    let source = "import fs from 'node:fs';\n\
                  fs.closeSync(1);\n\
                  fs.closeSync(2);\n\
                  await new Promise((r) => setTimeout(r, 2000));\n";
    let before = cpu_time();
    let started = std::time::Instant::now();
    let (report, _) = run_script(source);
    let (cpu, wall) = (cpu_time() - before, started.elapsed());
    eprintln!("the run used {cpu:?} of CPU in {wall:?}");
    assert!(report.passed(), "{:#}", report.to_json());
    assert!(wall >= std::time::Duration::from_secs(2), "{wall:?}");
    // The demo's start-up and the run's own work are about 150 ms of CPU in a debug build; a
    // loop that spun while the child ran on would take most of the two seconds.
    assert!(
        cpu < std::time::Duration::from_millis(500),
        "the run used {cpu:?} of CPU in {wall:?}"
    );
}

#[test]
fn a_hand_written_client_drives_the_session_on_the_private_endpoint() {
    let _serial = serial();
    if !node_present() {
        return;
    }
    // No JS client: the wire protocol by hand (token line, hello frame, u32 frames), and
    // the event pipe by hand.
    let source = r#"
import net from 'node:net';
import fs from 'node:fs';
const ev = (o) => fs.appendFileSync(process.env.MCP_EVENT_PIPE_PATH,
  JSON.stringify({ __mcp_event__: true, timestamp: new Date().toISOString(), ...o }) + '\n');
const frame = (o) => { const b = Buffer.from(JSON.stringify(o)); const h = Buffer.alloc(4); h.writeUInt32LE(b.length); return Buffer.concat([h, b]); };
const s = net.createConnection(process.env.AUTOMATION_ENDPOINT);
const replies = [];
let buf = Buffer.alloc(0), wake = null;
s.on('data', (d) => { buf = Buffer.concat([buf, d]);
  while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32LE(0)) {
    replies.push(JSON.parse(buf.subarray(4, 4 + buf.readUInt32LE(0)).toString()));
    buf = buf.subarray(4 + buf.readUInt32LE(0)); if (wake) wake(); } });
const next = () => new Promise((r) => { if (replies.length) r(replies.shift()); else wake = () => { wake = null; r(replies.shift()); }; });
s.write(process.env.AUTOMATION_TOKEN + '\n');
const hello = await next();
if (hello.bridge !== 'automation-wire') throw new Error('no hello');
ev({ type: 'step_started', stepId: 'save', stepName: 'click Save' });
s.write(frame({ op: { invoke_action: { node: { role: 'Button', label: 'Save' }, action: 'click' } }, settle: { settle_timeout_ms: 10000 } }));
const r = await next();
if (r.status !== 'ok') throw new Error(JSON.stringify(r));
s.write(frame({ op: { assert_node: { node: { role: 'Label', value: 'Saved' }, kind: 'exists' } } }));
const a = await next();
ev({ type: a.status === 'ok' ? 'step_completed' : 'step_failed', stepId: 'save', stepName: 'click Save', error: JSON.stringify(a) });
ev({ type: 'data', key: 'execution', value: process.env.AUTOMATION_EXECUTION_ID });
s.end();
"#;
    let (report, sink) = run_script(source);
    assert!(report.passed(), "{:#}", report.to_json());
    assert_eq!(report.steps.len(), 1);
    assert_eq!(report.steps[0].status, StepStatus::Passed);
    let calls = calls_by_step(&sink);
    assert_eq!(
        calls,
        [
            ("save".into(), "invoke_action".into()),
            ("save".into(), "assert_node".into())
        ]
    );
    let exec = sink.items.iter().find_map(|e| match e {
        RunEvent::Event(automation_wire::events::EventKind::Data { value, .. }) => {
            Some(value.clone())
        }
        _ => None,
    });
    assert_eq!(
        exec,
        Some(Value::from("t")),
        "the child sees its execution id"
    );
}

#[test]
fn a_script_that_hangs_is_stopped_at_its_timeout() {
    let _serial = serial();
    if !node_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("hang.mjs");
    std::fs::write(&script, "await new Promise((r) => setTimeout(r, 60000));\n").unwrap();
    let started = std::time::Instant::now();
    let out = crate::support::automation()
        .arg("run")
        .arg(&script)
        .env("AUTOMATION_SCRIPT_TIMEOUT", "1")
        .env("AUTOMATION_RECORDS", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("RUN_TIMEOUT") && stderr.contains("AUTOMATION_SCRIPT_TIMEOUT"),
        "{stderr}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}
