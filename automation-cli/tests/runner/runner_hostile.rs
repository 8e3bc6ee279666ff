//! The runner's files and budgets against a hostile or careless user (issue 27, "Why"): each
//! reproducer ends with a typed error or a bounded result within 2 s, the MCP server answers
//! `ping` within 100 ms throughout, and no case takes more than 300 MB (`VmHWM` of the
//! `automation` process, polled while it runs).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::hostile;
use crate::support::mcp as common;
use automation_testkit::heavy::Heavy;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::Server;
use hostile::{BOUND, RSS_CAP_KIB, Ran, automation, entries, mkfifo, node_present, vm_hwm_kib};
use serde_json::{Value, json};

/// How fast `ping` must be answered while a hostile call is handled.
const PING: Duration = Duration::from_millis(100);

/// One test that runs node or a demo at a time: a 2-core machine running several misses the
/// 2 s bound for reasons of its own.
fn serial() -> Heavy {
    automation_testkit::heavy::heavy()
}

/// For a test that runs a script: the serial guard and a scratch directory; `None` when node
/// is missing (and the run opted out of it).
fn script_test() -> Option<(Heavy, tempfile::TempDir)> {
    let guard = serial();
    node_present().then(|| (guard, tempfile::tempdir().unwrap()))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `automation run ARGS… --records DIR/records` in `dir`.
fn run(dir: &Path, args: &[&str]) -> Ran {
    run_env(dir, args, &[])
}

fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    let records = dir.join("records");
    let mut all: Vec<&str> = vec!["run"];
    all.extend_from_slice(args);
    all.push("--records");
    all.push(records.to_str().unwrap());
    automation(&all, env, dir)
}

/// The structured content of a tools/call reply, and whether it is an error.
fn content(r: &Value) -> (&Value, bool) {
    (
        &r["result"]["structuredContent"],
        r["result"]["isError"] == json!(true),
    )
}

/// The server's peak memory so far.
fn server_peak(s: &Server) -> u64 {
    vm_hwm_kib(s.child.id()).unwrap()
}

// --- Reads of anything ------------------------------------------------------------------

/// `execute_sequence {"file": …}` on two FIFOs, the server's own `/dev/stdin`, `/dev/zero`
/// and a `*.yaml` symlink to it: each refused at once with `NOT_A_REGULAR_FILE` naming the
/// path and what it is; `ping` answered within 100 ms meanwhile; the server reads its own
/// input on and serves on.
#[test]
fn execute_sequence_refuses_fifos_devices_and_its_own_stdin_at_once() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    let (f1, f2) = (dir.path().join("a.json"), dir.path().join("b.yaml"));
    mkfifo(&f1);
    mkfifo(&f2);
    let zero = dir.path().join("zero.yaml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    // The server's own input, under a flow's name (a link resolved in the server).
    let stdin = dir.path().join("stdin.json");
    std::os::unix::fs::symlink("/dev/stdin", &stdin).unwrap();
    let mut s = Server::start_in(dir.path());
    // `/dev/stdin` and `/dev/zero` themselves have no flow extension: refused before they
    // are opened.
    let cases: [(&Path, &str); 7] = [
        (&f1, "fifo"),
        (&f2, "fifo"),
        (&stdin, "fifo"),
        (&zero, "device"),
        (Path::new("/dev/stdin"), "unknown"),
        (Path::new("/dev/zero"), "unknown"),
        (dir.path(), "unknown"),
    ];
    let started = Instant::now();
    for (i, (path, _)) in cases.iter().enumerate() {
        s.send_call(100 + i as i64, "execute_sequence", json!({"file": path}));
    }
    let ping = s.ping(1, BOUND);
    eprintln!("ping answered in {ping:?} with seven hostile reads in flight");
    assert!(ping < PING, "{ping:?}");
    for (i, (path, kind)) in cases.iter().enumerate() {
        let r = s.reply_keeping(&json!(100 + i as i64), BOUND);
        let (c, is_error) = content(&r);
        assert!(is_error, "{r}");
        if *kind == "unknown" {
            assert_eq!(c["code"], "BAD_REQUEST", "{r}");
            assert!(
                c["message"].as_str().unwrap().contains("unknown flow type"),
                "{r}"
            );
            continue;
        }
        assert_eq!(c["code"], "NOT_A_REGULAR_FILE", "{r}");
        assert_eq!(c["kind"], *kind, "{r}");
        assert_eq!(c["path"], path.display().to_string(), "{r}");
    }
    let took = started.elapsed();
    eprintln!("seven hostile reads answered in {took:?}");
    assert!(took < BOUND, "{took:?}");
    assert!(s.ping(2, BOUND) < PING);
    s.assert_serving(3);
    let peak = server_peak(&s);
    eprintln!("server peak RSS {} MiB", peak / 1024);
    assert!(peak <= RSS_CAP_KIB, "{peak} KiB");
}

/// `automation run` on a FIFO, a directory holding a FIFO and a `*.yaml` link to
/// `/dev/zero`: each flow fails at once naming the path and what it is.
#[test]
fn automation_run_refuses_fifos_and_devices_at_once() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join("flows");
    std::fs::create_dir(&flows).unwrap();
    mkfifo(&flows.join("a.json"));
    std::os::unix::fs::symlink("/dev/zero", flows.join("b.yaml")).unwrap();
    let r = run(dir.path(), &["flows"]);
    r.assert_bounded("a FIFO and /dev/zero in a directory");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr.contains("a.json is a fifo, not a regular file"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("b.yaml is a device, not a regular file"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("NOT_A_REGULAR_FILE"), "{}", r.stderr);
    let r = run(dir.path(), &["flows/a.json"]);
    r.assert_bounded("a FIFO as the argument");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
}

// --- Amplification ----------------------------------------------------------------------

/// A 1 MB input referenced 1 000 times in one label: stopped while rendering with
/// `BUDGET_EXCEEDED`, nothing called, and the JUnit and records stay small.
#[test]
fn a_template_referencing_a_large_input_a_thousand_times_stops_while_rendering() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    let flow = json!({
        "inputs": {"big": "x".repeat(1_000_000)},
        "steps": [{"id": "find", "tool": "find_node", "args": {"label": "{{big}}".repeat(1000)}}]
    });
    write(dir.path(), "amp.json", &flow.to_string());
    let r = run(dir.path(), &["amp.json", "--junit", "junit.xml"]);
    r.assert_bounded("{{big}} x 1000");
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("BUDGET_EXCEEDED"), "{}", r.stderr);
    let junit = std::fs::metadata(dir.path().join("junit.xml"))
        .unwrap()
        .len();
    assert!(junit < 64 * 1024, "JUnit of {junit} bytes");
    let records: u64 = walk_sizes(&dir.path().join("records"));
    assert!(records < 64 * 1024, "records of {records} bytes");
    let xml = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(xml.contains("rendered_bytes"), "{xml}");
}

fn walk_sizes(dir: &Path) -> u64 {
    let mut total = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let m = std::fs::symlink_metadata(e.path()).unwrap();
        total += if m.is_dir() {
            walk_sizes(&e.path())
        } else {
            m.len()
        };
    }
    total
}

/// Over MCP, 2 000 references to a 1 MB input (the server used to abort): a typed error,
/// `ping` within 100 ms while it is refused, and the server serves on.
#[test]
fn over_mcp_two_thousand_references_are_refused_and_the_server_lives() {
    let _s = serial();
    let mut s = Server::start();
    s.send_call(
        10,
        "execute_sequence",
        json!({
            "inputs": {"big": "x".repeat(1_000_000)},
            "steps": [{"tool": "find_node", "args": {"label": "{{big}}".repeat(2000)}}]
        }),
    );
    let ping = s.ping(11, BOUND);
    eprintln!("ping answered in {ping:?} with 2 000 references to 1 MB in flight");
    assert!(ping < PING, "{ping:?}");
    let r = s.reply_keeping(&json!(10), BOUND);
    let (c, is_error) = content(&r);
    assert!(is_error, "{r}");
    assert_eq!(c["error"]["code"], "BUDGET_EXCEEDED", "{r}");
    assert_eq!(c["error"]["budget"], "rendered_bytes", "{r}");
    s.assert_serving(12);
    let peak = server_peak(&s);
    eprintln!("server peak RSS {} MiB", peak / 1024);
    assert!(peak <= RSS_CAP_KIB, "{peak} KiB");
}

/// 100 000 steps: refused before anything runs (`BUDGET_EXCEEDED`, `steps`), no records
/// but the report.
#[test]
fn a_hundred_thousand_steps_are_refused_before_anything_runs() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    let steps: Vec<Value> = (0..100_000)
        .map(|_| json!({"tool": "list_windows"}))
        .collect();
    write(
        dir.path(),
        "many.json",
        &json!({ "steps": steps }).to_string(),
    );
    let r = run(dir.path(), &["many.json"]);
    r.assert_bounded("100 000 steps");
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("BUDGET_EXCEEDED") && r.stderr.contains("100000 steps"),
        "{}",
        r.stderr
    );
    let exec = entries(&dir.path().join("records"));
    assert_eq!(exec.len(), 1, "{exec:?}");
    let files = entries(&dir.path().join("records").join(&exec[0]));
    assert_eq!(files, [".automation", "run.json"]);
}

/// A small looping flow (fallbacks back to the start, a hundred retries each) stops at the
/// run's tries budget instead of making 101 000 calls.
#[test]
fn a_looping_flow_stops_at_its_tries_budget() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    let steps: Vec<Value> = (0..40)
        .map(|i| {
            json!({"id": format!("s{i}"), "tool": "invoke_action", "retries": 100, "retry_delay_ms": 0,
                   "fallback_id": "s0", "args": {"node": "no-such-node", "action": "click"}})
        })
        .collect();
    let text = json!({ "steps": steps }).to_string();
    assert!(text.len() < 8 * 1024, "{} bytes", text.len());
    write(dir.path(), "loop.json", &text);
    let r = run(dir.path(), &["loop.json"]);
    r.assert_bounded("a looping flow");
    // Two records a try at most (5 000 tries), the report, the marker.
    let root = dir.path().join("records");
    let files = entries(&root.join(&entries(&root)[0])).len();
    eprintln!("{files} record files");
    assert!(files <= 2 * 5000 + 3, "{files}");
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("BUDGET_EXCEEDED") && r.stderr.contains("5000 tries"),
        "{}",
        r.stderr
    );
}

/// A retry pause of 60 s (a run of ~70 days before): the run's time limit ends it, naming
/// the limit and what set it.
#[test]
fn a_run_ends_at_its_time_limit() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "slow.json",
        &json!({"steps": [{"id": "wait", "tool": "invoke_action", "retries": 100, "retry_delay_ms": 60000,
            "args": {"node": {"role": "Button", "label": "Nope"}, "action": "click"}}]})
        .to_string(),
    );
    let r = run(
        dir.path(),
        &["slow.json", "--timeout", "1", "--junit", "j.xml"],
    );
    r.assert_bounded("retry_delay_ms 60000 with --timeout 1");
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("RUN_TIMEOUT"), "{}", r.stderr);
    assert!(r.stderr.contains("--timeout"), "{}", r.stderr);
    let xml = std::fs::read_to_string(dir.path().join("j.xml")).unwrap();
    assert!(xml.contains("RUN_TIMEOUT"), "{xml}");
    // A bad --timeout is a usage error.
    for bad in ["0", "-1", "1e20", "soon"] {
        let r = run(dir.path(), &["slow.json", &format!("--timeout={bad}")]);
        assert_eq!(r.code, Some(2), "--timeout {bad}: {}", r.stderr);
        assert!(r.stderr.contains("--timeout"), "{}", r.stderr);
    }
}

/// 10⁶ raw `step_started` events from a script: stopped at the steps budget, a small JUnit.
#[test]
fn a_million_step_events_stop_the_script_at_its_budget() {
    let Some((_s, dir)) = script_test() else {
        return;
    };
    write(
        dir.path(),
        "flood.mjs",
        r#"import fs from 'node:fs';
const fd = fs.openSync(process.env.MCP_EVENT_PIPE_PATH, 'a');
for (let i = 0; i < 1e6; i++) {
  fs.writeSync(fd, `{"__mcp_event__":true,"type":"step_started","timestamp":"2026-01-01T00:00:00Z","stepId":"s${i}","stepName":"step ${i}"}\n`);
}
"#,
    );
    let r = run(dir.path(), &["flood.mjs", "--junit", "j.xml"]);
    r.assert_bounded("10^6 step_started events");
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("BUDGET_EXCEEDED"), "{}", r.stderr);
    let junit = std::fs::metadata(dir.path().join("j.xml")).unwrap().len();
    eprintln!("JUnit: {junit} bytes");
    assert!(junit < 8 * 1024 * 1024, "{junit}");
}

/// YAML nested 100 000 levels (200 KB): refused before the parser sees it, and over MCP a
/// direct call does not wait behind it.
#[test]
fn deep_yaml_is_refused_before_it_is_parsed() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "deep.yaml", &"[".repeat(100_000));
    let block: String = (0..2000)
        .map(|i| format!("{}a:\n", " ".repeat(i)))
        .collect();
    write(dir.path(), "block.yaml", &block);
    for f in ["deep.yaml", "block.yaml"] {
        let r = run(dir.path(), &[f]);
        r.assert_bounded(f);
        assert_eq!(r.code, Some(1));
        assert!(
            r.stderr.contains("BUDGET_EXCEEDED") && r.stderr.contains("deeper than 64"),
            "{}",
            r.stderr
        );
    }
    let mut s = Server::start_in(dir.path());
    s.send_call(20, "execute_sequence", json!({"file": "deep.yaml"}));
    let ping = s.ping(21, BOUND);
    eprintln!("ping answered in {ping:?} with a 100 000-level YAML file in flight");
    assert!(ping < PING, "{ping:?}");
    let r = s.reply_keeping(&json!(20), BOUND);
    assert_eq!(content(&r).0["budget"], "yaml_depth", "{r}");
    s.assert_serving(22);
}

/// YAML aliases that expand a billion times: a bounded, typed refusal.
#[test]
fn yaml_alias_bombs_are_refused() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    let mut y = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        y.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    y.push_str("steps: [{tool: list_windows, args: {x: *a9}}]\n");
    write(dir.path(), "bomb.yaml", &y);
    let r = run(dir.path(), &["bomb.yaml"]);
    r.assert_bounded("a billion laughs");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
}

// --- Our data or theirs -----------------------------------------------------------------

/// The 7-day sweep removes an old execution directory of ours, never an old directory that
/// is only named like one.
#[test]
fn the_sweep_removes_only_directories_marked_as_ours() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ok.json", r#"[{"tool": "list_windows"}]"#);
    let r = run(dir.path(), &["ok.json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let root = dir.path().join("records");
    let ours = root.join(&entries(&root)[0]);
    let theirs = root.join("0123abcd-0000-4000-8000-0123456789ab");
    std::fs::create_dir(&theirs).unwrap();
    write(&theirs, "thesis.tex", "years of work");
    let old = std::time::SystemTime::now() - Duration::from_secs(8 * 24 * 3600);
    for d in [&ours, &theirs] {
        std::fs::File::open(d).unwrap().set_modified(old).unwrap();
    }
    let r = run(dir.path(), &["ok.json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(!ours.exists(), "our old execution is swept");
    assert_eq!(
        std::fs::read_to_string(theirs.join("thesis.tex")).unwrap(),
        "years of work"
    );
}

/// `--junit` at a symlink: refused before anything runs, the target untouched; at a FIFO:
/// refused at once.
#[test]
fn junit_never_follows_a_link_or_waits_on_a_fifo() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ok.json", r#"[{"tool": "list_windows"}]"#);
    let victim = write(dir.path(), "victim.txt", "precious");
    std::os::unix::fs::symlink(&victim, dir.path().join("link.xml")).unwrap();
    let r = run(dir.path(), &["ok.json", "--junit", "link.xml"]);
    r.assert_bounded("--junit at a symlink");
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("is a symlink"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    mkfifo(&dir.path().join("fifo.xml"));
    let r = run(dir.path(), &["ok.json", "--junit", "fifo.xml"]);
    r.assert_bounded("--junit at a FIFO");
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("is a fifo"), "{}", r.stderr);
}

/// A full disk: the JUnit cannot be written, the run says so, and the previous report is
/// whole (it was truncated to 0 bytes before). Needs root, for a small tmpfs.
#[test]
fn a_full_disk_leaves_the_previous_report_whole() {
    let _s = serial();
    if !hostile::root_present("it mounts a 512 KiB tmpfs to fill it") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ok.json", r#"[{"tool": "list_windows"}]"#);
    let disk = dir.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=512k", "tmpfs"])
        .arg(&disk)
        .status()
        .unwrap();
    assert!(mounted.success(), "mount tmpfs");
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(disk.clone());
    let old = "<testsuites><!-- the previous report --></testsuites>";
    write(&disk, "junit.xml", old);
    // Fill the disk to the last byte.
    {
        use std::io::Write as _;
        let mut f = std::fs::File::create(disk.join("filler")).unwrap();
        let chunk = vec![0u8; 4096];
        while f.write_all(&chunk).is_ok() {}
        while f.write_all(&[0]).is_ok() {}
    }
    let junit = disk.join("junit.xml");
    let r = run(dir.path(), &["ok.json", "--junit", junit.to_str().unwrap()]);
    eprintln!("{}", r.stderr);
    assert_ne!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("No space left") || r.stderr.contains("cannot"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read_to_string(&junit).unwrap(), old);
    let left: Vec<String> = entries(&disk)
        .into_iter()
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

// --- Directory walks --------------------------------------------------------------------

/// `self → .`, `up → ..` and `r → /` in a flow directory: the flow runs once, at once.
#[test]
fn directory_links_are_not_walked() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join("flows");
    std::fs::create_dir(&flows).unwrap();
    write(&flows, "one.json", r#"[{"tool": "list_windows"}]"#);
    for (name, to) in [("self", "."), ("up", ".."), ("r", "/")] {
        std::os::unix::fs::symlink(to, flows.join(name)).unwrap();
    }
    let r = run(dir.path(), &["flows"]);
    r.assert_bounded("links to ., .. and /");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("flows: 1 passed, 0 failed"),
        "{}",
        r.stderr
    );
}

// --- Processes and verdicts (scripts) ---------------------------------------------------

/// A script whose child keeps the script's stdout open runs on: the run still ends when
/// the script does, and the child goes with it.
#[test]
fn a_child_holding_the_scripts_output_neither_hangs_the_run_nor_outlives_it() {
    let Some((_s, dir)) = script_test() else {
        return;
    };
    let marker = format!("automation-orphan-{}", std::process::id());
    write(
        dir.path(),
        "spawn.mjs",
        &format!(
            "import {{ spawn }} from 'node:child_process';\n\
             spawn('sh', ['-c', 'sleep 300; echo {marker}'], {{ stdio: 'inherit' }}).unref();\n\
             console.log('spawned');\n"
        ),
    );
    let r = run(dir.path(), &["spawn.mjs"]);
    r.assert_bounded("a child with the script's stdout");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let left = hostile::until_empty(BOUND, || {
        hostile::processes()
            .into_iter()
            .filter(|p| p.state != 'Z' && p.cmd.contains(&marker))
            .collect()
    });
    assert!(left.is_empty(), "outlived the run: {left:?}");
}

/// `process.exit(0)` inside a step: never green — exit 1, `SCRIPT_EXITED_EARLY` naming the
/// step, `run.json` failed.
#[test]
fn exiting_inside_a_step_fails_the_run() {
    let Some((_s, dir)) = script_test() else {
        return;
    };
    write(
        dir.path(),
        "early.mjs",
        "import { step } from '@automation-kit/client';\n\
         await step('done', async () => 1, { id: 'done' });\n\
         await step('leaves', async () => { process.exit(0); }, { id: 'leaves' });\n",
    );
    let r = run(dir.path(), &["early.mjs"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("SCRIPT_EXITED_EARLY"), "{}", r.stderr);
    assert!(r.stderr.contains("\"leaves\""), "{}", r.stderr);
    let root = dir.path().join("records");
    let run_json: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(&entries(&root)[0]).join("run.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(run_json["status"], "failed");
    assert_eq!(run_json["error"]["code"], "SCRIPT_EXITED_EARLY");
    assert_eq!(run_json["error"]["step"], "leaves");
}

/// `AUTOMATION_SCRIPT_TIMEOUT=1e20` (and other nonsense): a usage error naming it — no
/// panic, no JUnit left behind, no node started; over MCP a typed answer.
#[test]
fn a_bad_script_timeout_is_a_usage_error() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "s.mjs", "console.log(1);\n");
    for bad in ["1e20", "-5", "inf", "soon"] {
        let r = run_env(
            dir.path(),
            &["s.mjs", "--junit", "j.xml"],
            &[("AUTOMATION_SCRIPT_TIMEOUT", bad)],
        );
        assert_eq!(r.code, Some(2), "{bad}: {}", r.stderr);
        assert!(
            r.stderr.contains("AUTOMATION_SCRIPT_TIMEOUT"),
            "{}",
            r.stderr
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert!(!dir.path().join("j.xml").exists());
    }
    let mut s = Server::start_env(
        &["--headless"],
        dir.path(),
        &[("AUTOMATION_SCRIPT_TIMEOUT", "1e20")],
    );
    s.send_call(30, "execute_sequence", json!({"script": "console.log(1)"}));
    let r = s.reply_keeping(&json!(30), BOUND);
    let (c, is_error) = content(&r);
    assert!(is_error, "{r}");
    assert_eq!(c["error"]["code"], "BAD_REQUEST", "{r}");
    assert_eq!(c["error"]["field"], "AUTOMATION_SCRIPT_TIMEOUT", "{r}");
    s.assert_serving(31);
}

/// A non-UTF-8 byte on the script's stdout is read (as U+FFFD), and the script runs on.
#[test]
fn non_utf8_output_is_read_lossily() {
    let Some((_s, dir)) = script_test() else {
        return;
    };
    write(
        dir.path(),
        "bytes.mjs",
        "process.stdout.write(Buffer.from([0x62, 0x61, 0x64, 0xff, 0x0a]));\n\
         await new Promise((r) => setTimeout(r, 100));\n\
         console.log('still running');\n",
    );
    let r = run(dir.path(), &["bytes.mjs"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stderr.contains("bad\u{fffd}"), "{}", r.stderr);
    assert!(r.stderr.contains("still running"), "{}", r.stderr);
}

/// A `.ts` file that holds only JavaScript is transpiled like any `.ts` (node was handed
/// the `.ts` itself: `ERR_UNKNOWN_FILE_EXTENSION`).
#[test]
fn a_ts_file_of_plain_javascript_runs() {
    let Some((_s, dir)) = script_test() else {
        return;
    };
    write(
        dir.path(),
        "plain.ts",
        "const x = 1 + 1;\nconsole.log('two is', x);\n",
    );
    let r = run(dir.path(), &["plain.ts"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stderr.contains("two is 2"), "{}", r.stderr);
    assert!(
        !r.stderr.contains("ERR_UNKNOWN_FILE_EXTENSION"),
        "{}",
        r.stderr
    );
}
