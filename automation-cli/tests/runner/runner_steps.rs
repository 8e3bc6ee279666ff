//! The runner's steps engine against the real headless demo, through the same router a
//! direct MCP call uses; and `automation run` on flow files: JUnit, records, `--partition`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use automation_runner::events::{Collect, RunEvent};
use automation_runner::flow::{self, Flow, FlowBody};
use automation_runner::report::{RunReport, StepStatus};
use automation_session::backend::{EguiDemo, TargetHandle};
use automation_wire::events::EventKind;
use serde_json::{Value, json};

fn run(doc: Value) -> (RunReport, Collect) {
    // A demo in this process: never beside a test that needs the machine alone (one measures
    // this process's CPU time).
    let _heavy = automation_testkit::heavy::heavy_shared();
    let target = TargetHandle::spawn(EguiDemo::factory()).unwrap();
    let flow = flow::from_arguments(doc.as_object().unwrap()).unwrap();
    let mut sink = Collect::default();
    let report = automation_runner::run_flow(&flow, "test", &target, &mut sink, &|| false);
    (report, sink)
}

#[test]
fn the_save_flow_as_steps_a_condition_skips_and_a_retry_recovers() {
    let (report, sink) = run(json!({"steps": [
        {"id": "find", "tool": "find_node", "args": {"role": "TextInput", "label": "Name"}},
        {"id": "type", "tool": "type_text", "args": {"node": "{{ find_result.node }}", "text": "{{ who }}"}},
        {"id": "cancel", "tool": "invoke_action", "if": "type_status != 'success'",
         "args": {"node": {"role": "Button", "label": "Cancel"}, "action": "click"}},
        // The first try names a button that is not there; the retry takes the candidate
        // the NOT_FOUND error suggested.
        {"id": "save", "tool": "invoke_action", "retries": 1, "retry_delay_ms": 5,
         "args": {"node": {"role": "Button", "label": "{{ coalesce(runtime.last_error.candidates[0].label, 'Sav') }}"}, "action": "click"}},
        {"id": "saved", "tool": "assert_node", "args": {"node": {"role": "Label", "value": "Saved"}, "kind": "exists"}},
        {"id": "heard", "tool": "pull_announcements"},
        {"id": "typed", "tool": "assert_node", "args": {"node": "{{ find_result.node }}", "kind": "value_equals", "value": "Ada"}},
        {"id": "shot", "tool": "screenshot"}
    ], "inputs": {"who": "Ada"}}));
    assert!(report.passed(), "{:#}", report.to_json());
    let by_id = |id: &str| report.steps.iter().find(|s| s.id == id).unwrap();
    assert_eq!(by_id("cancel").status, StepStatus::Skipped);
    assert!(
        by_id("cancel")
            .skipped_because
            .as_deref()
            .unwrap()
            .contains("type_status")
    );
    assert_eq!(by_id("save").status, StepStatus::Passed);
    assert_eq!(by_id("save").attempts, 2, "the retry recovered the step");
    // The first try's error was the real NOT_FOUND, with candidates.
    let first_try = sink.items.iter().find_map(|e| match e {
        RunEvent::Call(c) if c.step_id == "save" => Some(c.clone()),
        _ => None,
    });
    let first_try = first_try.unwrap();
    assert!(first_try.is_error);
    assert_eq!(first_try.result["code"], "NOT_FOUND");
    // "Saved" was announced (the live region), and the screenshot came back as a PNG.
    let heard = sink.items.iter().find_map(|e| match e {
        RunEvent::Call(c) if c.step_id == "heard" => Some(c.result.clone()),
        _ => None,
    });
    let texts: Vec<String> = heard.unwrap()["announcements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(texts.iter().any(|t| t == "Saved"), "{texts:?}");
    // The PNG travels as bytes (base64 only at a wire edge), with a screenshot event beside it.
    assert!(sink.items.iter().any(
        |e| matches!(e, RunEvent::Image(png) if png.len() > 100 && png.starts_with(b"\x89PNG"))
    ));
    assert!(
        sink.items
            .iter()
            .any(|e| matches!(e, RunEvent::Event(EventKind::Screenshot { .. })))
    );
    // Progress only grows.
    let p: Vec<f64> = sink
        .items
        .iter()
        .filter_map(|e| match e {
            RunEvent::Event(EventKind::Progress { current, .. }) => Some(*current),
            _ => None,
        })
        .collect();
    assert!(p.windows(2).all(|w| w[1] > w[0]), "{p:?}");
}

#[test]
fn a_broken_condition_fails_its_step_with_the_expression_error() {
    let (report, _) = run(json!({"steps": [
        {"id": "a", "tool": "list_windows", "if": "a_status == 'x' &&"},
        {"id": "b", "tool": "list_windows"}
    ]}));
    assert!(!report.passed());
    let e = report.error.clone().unwrap();
    assert_eq!(e["code"], "BAD_REQUEST");
    assert_eq!(e["error_type"], "syntax_error");
    assert_eq!(e["can_fix"], true);
    assert_eq!(e["recovery"], "fix_code");
    assert_eq!(e["field"], "steps[0].if");
    assert_eq!(e["step"], "a");
    assert!(e["location"]["column"].is_number(), "{e}");
    assert_eq!(report.steps.len(), 1, "stop_on_error stopped the run");
}

#[test]
fn a_failing_op_is_the_result_with_its_structured_error() {
    let (report, _) = run(json!({"steps": [
        {"id": "gone", "tool": "invoke_action", "args": {"node": {"role": "Button", "label": "Nope"}, "action": "click"}},
        {"id": "never", "tool": "list_windows"}
    ]}));
    let e = report.error.clone().unwrap();
    assert_eq!(e["code"], "NOT_FOUND");
    assert_eq!(e["step"], "gone");
    assert!(!e["candidates"].as_array().unwrap().is_empty());
    assert_eq!(report.steps.len(), 1);
    // The report is small enough for a model to read.
    assert!(report.to_json().to_string().len() < 4096);
}

#[test]
fn yaml_steps_run_through_a_maintained_yaml_parser() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/flows/save-name.yaml"
    );
    let flow: Flow = flow::from_file(std::path::Path::new(path)).unwrap();
    assert!(matches!(flow.body, FlowBody::Steps(_)));
    // A demo in this process: never beside a test that needs the machine alone (one measures
    // this process's CPU time).
    let _heavy = automation_testkit::heavy::heavy_shared();
    let target = TargetHandle::spawn(EguiDemo::factory()).unwrap();
    let mut sink = Collect::default();
    let report = automation_runner::run_flow(&flow, "y", &target, &mut sink, &|| false);
    assert!(report.passed(), "{:#}", report.to_json());
}

fn automation() -> Command {
    crate::support::automation()
}

fn junit_cases(xml: &str) -> Vec<(String, String)> {
    let doc = roxmltree::Document::parse(xml).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .flat_map(|s| {
            let suite = s.attribute("name").unwrap().to_string();
            s.children()
                .filter(|n| n.has_tag_name("testcase"))
                .map(move |c| (suite.clone(), c.attribute("name").unwrap().to_string()))
        })
        .collect()
}

#[test]
fn a_junit_path_that_is_a_directory_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("f.json");
    std::fs::write(&flow, r#"[{"id": "w", "tool": "list_windows"}]"#).unwrap();
    let out = automation()
        .arg("run")
        .arg(&flow)
        .arg("--junit")
        .arg(dir.path())
        .env("AUTOMATION_RECORDS", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is a directory, not a regular file")
            && stderr.contains("pass the path of a regular file"),
        "{stderr}"
    );
    assert!(!stderr.contains("run "), "nothing ran: {stderr}");
}

#[test]
fn run_writes_junit_and_records_and_exits_by_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join("flows");
    std::fs::create_dir(&flows).unwrap();
    std::fs::write(
        flows.join("a.json"),
        r#"[{"id": "w", "tool": "list_windows"}, {"id": "s", "tool": "find_node", "args": {"label": "Save"}}]"#,
    )
    .unwrap();
    std::fs::write(
        flows.join("b.json"),
        r#"[{"id": "bad", "tool": "invoke_action", "args": {"node": {"label": "Nope"}, "action": "click"}}]"#,
    )
    .unwrap();
    // In a directory not made yet, as `--junit reports/junit.xml` in a fresh checkout.
    let junit = dir.path().join("reports/ci/junit.xml");
    let records = dir.path().join("records");
    let out = automation()
        .arg("run")
        .arg(&flows)
        .arg("--junit")
        .arg(&junit)
        .arg("--records")
        .arg(&records)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("flows: 1 passed, 1 failed"), "{stderr}");
    assert!(
        stderr.contains(&format!("junit: {}", junit.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("records: {}", records.display())),
        "{stderr}"
    );
    assert!(stderr.contains("NOT_FOUND"), "{stderr}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    let cases = junit_cases(&xml);
    assert_eq!(cases.len(), 3, "{xml}");
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert!(
        failure
            .attribute("message")
            .unwrap()
            .starts_with("NOT_FOUND"),
        "{xml}"
    );
    // One directory per execution, each with a record per call and the run's report.
    let execs: Vec<_> = std::fs::read_dir(&records)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(execs.len(), 2);
    for e in &execs {
        assert!(e.join("run.json").is_file());
        assert!(
            std::fs::read_dir(e).unwrap().any(|f| f
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".mjs"))
        );
    }
    // Only passing flows: exit 0; records off by the environment, but an explicit
    // --records still writes them (the variable turns off the default place only).
    let out = automation()
        .arg("run")
        .arg(flows.join("a.json"))
        .arg("--records")
        .arg(dir.path().join("off"))
        .env("AUTOMATION_RECORDS", "off")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.path().join("off").is_dir());
}

#[test]
fn run_takes_the_mode_on_either_side_of_the_verb() {
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("f.json");
    std::fs::write(
        &flow,
        r#"[{"id": "s", "tool": "find_node", "args": {"label": "Save"}}]"#,
    )
    .unwrap();
    let flow = flow.to_str().unwrap();
    for args in [
        vec!["run", "--headless", flow],
        vec!["--headless", "run", flow],
        vec!["run", flow, "--headless"],
    ] {
        let out = automation()
            .args(&args)
            .env("AUTOMATION_RECORDS", "off")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            stderr.contains("flows: 1 passed, 0 failed"),
            "{args:?}: {stderr}"
        );
    }
    // `--virtual-display` is a flag of `run` too: without `--launch` it is the usage error
    // that names what it goes with, not "unexpected argument".
    if !cfg!(feature = "atspi") {
        return;
    }
    for args in [
        vec!["run", "--virtual-display", flow],
        vec!["--virtual-display", "run", flow],
    ] {
        let out = automation().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("goes with --launch"), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("unexpected argument"),
            "{args:?}: {stderr}"
        );
    }
}

/// `to` as a path relative to `from` (both absolute and canonical).
fn relative_to(from: &Path, to: &Path) -> PathBuf {
    let (f, t): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..f.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

/// Shard `shard` of `total` of the suite `args`, as the keys `--partition hash` hashes.
fn hash_shard(args: &[PathBuf], shard: u64, total: u64) -> Vec<String> {
    use automation_runner::partition::Partition;
    let part: Partition = format!("hash:{shard}/{total}").parse().unwrap();
    automation_runner::suite::collect_keyed(args)
        .unwrap()
        .into_iter()
        .enumerate()
        .filter(|(i, f)| part.contains(*i, &f.key))
        .map(|(_, f)| f.key)
        .collect()
}

#[cfg(unix)]
#[test]
fn partition_hash_shards_alike_however_the_suite_path_is_spelled() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let flows = root.join("flows");
    std::fs::create_dir_all(flows.join("nested")).unwrap();
    let n = 12;
    for i in 0..n {
        let sub = if i % 3 == 0 { "nested/" } else { "" };
        std::fs::write(
            flows.join(format!("{sub}f{i}.json")),
            format!(r#"[{{"id": "s{i}", "tool": "list_windows"}}]"#),
        )
        .unwrap();
    }
    std::os::unix::fs::symlink(&flows, root.join("link")).unwrap();
    // Relative spellings are relative to this process's directory (the keys are computed by
    // the binary's own code, collect_keyed, in this process).
    let rel = relative_to(
        &std::env::current_dir().unwrap().canonicalize().unwrap(),
        &root,
    );
    let spellings: Vec<Vec<PathBuf>> = vec![
        vec![rel.join("flows")],
        vec![PathBuf::from(format!("./{}/flows", rel.display()))],
        vec![PathBuf::from(format!("{}/flows/", rel.display()))],
        vec![flows.clone()],
        vec![PathBuf::from(format!("{}/./flows/", root.display()))],
        vec![rel.join("link")],
        vec![PathBuf::from(format!("{}/link/", root.display()))],
        vec![root.join("flows/nested/..")],
    ];
    for total in [2, 3, 5] {
        let want: Vec<Vec<String>> = (1..=total)
            .map(|m| hash_shard(&spellings[0], m, total))
            .collect();
        let mut union: Vec<String> = want.iter().flatten().cloned().collect();
        let count = union.len();
        union.sort();
        union.dedup();
        assert_eq!(
            union.len(),
            count,
            "hash 1..{total}: shards overlap: {want:?}"
        );
        assert_eq!(
            union.len(),
            n,
            "hash 1..{total}: the union is the suite: {union:?}"
        );
        assert!(union.iter().any(|k| k == "nested/f0.json"), "{union:?}");
        for spelling in &spellings[1..] {
            let got: Vec<Vec<String>> = (1..=total)
                .map(|m| hash_shard(spelling, m, total))
                .collect();
            assert_eq!(got, want, "{spelling:?}, {total} shards");
        }
    }
    // The binary agrees: the same flows run in shard 1/2 from a relative and an absolute path.
    let mut ran = Vec::new();
    for arg in [PathBuf::from("./flows/"), flows.clone()] {
        let junit = root.join("shard.xml");
        let out = automation()
            .current_dir(&root)
            .arg("run")
            .arg(&arg)
            .args(["--partition", "hash:1/2", "--junit"])
            .arg(&junit)
            .env("AUTOMATION_RECORDS", "off")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let xml = std::fs::read_to_string(&junit).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap();
        // The step ids (`classname` is `<flow as typed>::<step id>`).
        let mut steps: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .filter_map(|c| {
                c.attribute("classname")?
                    .rsplit("::")
                    .next()
                    .map(str::to_string)
            })
            .collect();
        steps.sort();
        ran.push(steps);
    }
    assert!(!ran[0].is_empty());
    assert_eq!(ran[0], ran[1]);
}

#[test]
fn partition_shards_are_disjoint_and_their_union_is_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    let n = 7;
    for i in 0..n {
        std::fs::write(
            dir.path().join(format!("f{i}.json")),
            format!(r#"[{{"id": "s{i}", "tool": "list_windows"}}]"#),
        )
        .unwrap();
    }
    for kind in ["slice", "hash"] {
        let mut all = Vec::new();
        for shard in 1..=3 {
            let junit = dir.path().join(format!("{kind}-{shard}.xml"));
            let out = automation()
                .arg("run")
                .arg(dir.path())
                .arg("--partition")
                .arg(format!("{kind}:{shard}/3"))
                .arg("--junit")
                .arg(&junit)
                .env("AUTOMATION_RECORDS", "off")
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{stderr}");
            assert!(
                stderr.contains(&format!("partition {kind} {shard}/3")),
                "{stderr}"
            );
            let suites: Vec<String> = junit_cases(&std::fs::read_to_string(&junit).unwrap())
                .into_iter()
                .map(|(s, _)| s)
                .collect();
            all.extend(suites);
        }
        let before = all.len();
        all.sort();
        all.dedup();
        assert_eq!(before, all.len(), "{kind}: shards overlap");
        assert_eq!(
            all.len(),
            n,
            "{kind}: the union is the whole suite: {all:?}"
        );
    }
    let out = automation()
        .args(["run", "x.json", "--partition", "slice:4/3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_fallback_recovers_the_path_not_the_verdict() {
    // The failed step stays failed (with the step its fallback jumped to); the run is
    // `recovered`, which is not a pass: exit 1, a JUnit failure on that step.
    let doc = json!({"steps": [
        {"id": "gone", "tool": "invoke_action", "fallback_id": "fix",
         "args": {"node": {"role": "Button", "label": "Nope"}, "action": "click"}},
        {"id": "never", "tool": "list_windows"},
        {"id": "fix", "tool": "find_node", "args": {"role": "Button", "label": "Save"}}
    ]});
    let (report, _) = run(doc.clone());
    assert_eq!(report.status, "recovered", "{:#}", report.to_json());
    assert!(!report.passed());
    let st: Vec<_> = report
        .steps
        .iter()
        .map(|s| (s.id.as_str(), s.status, s.fallback.as_deref()))
        .collect();
    assert_eq!(
        st,
        [
            ("gone", StepStatus::Failed, Some("fix")),
            ("fix", StepStatus::Passed, None)
        ]
    );
    let err = report.error.as_ref().unwrap();
    assert_eq!(err["code"], "NOT_FOUND");
    assert_eq!(
        (err["step"].as_str(), err["fallback"].as_str()),
        (Some("gone"), Some("fix"))
    );

    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("fb.json");
    std::fs::write(&flow, doc.to_string()).unwrap();
    let junit = dir.path().join("junit.xml");
    let out = automation()
        .arg("run")
        .arg(&flow)
        .arg("--junit")
        .arg(&junit)
        .env("AUTOMATION_RECORDS", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("recovered through a fallback"), "{stderr}");
    assert!(
        stderr.contains("flows: 0 passed, 1 failed (1 of them recovered"),
        "{stderr}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failures: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .map(|f| {
            (
                f.parent().unwrap().attribute("name").unwrap().to_string(),
                f.attribute("message").unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(failures.len(), 1, "{xml}");
    assert_eq!(failures[0].0, "gone (invoke_action)", "{xml}");
    assert!(failures[0].1.starts_with("NOT_FOUND"), "{xml}");
    assert!(failures[0].1.contains("fallback_id jumped to fix"), "{xml}");
    assert_eq!(junit_cases(&xml).len(), 2, "{xml}");
}

#[test]
fn parallel_flows_mark_every_line_with_their_flow() {
    let dir = tempfile::tempdir().unwrap();
    let names = ["alpha", "beta", "gamma"];
    for n in names {
        std::fs::write(
            dir.path().join(format!("{n}.json")),
            format!(
                r#"[{{"id": "{n}-find", "tool": "find_node", "args": {{"label": "Save"}}}},
                    {{"id": "{n}-gone", "tool": "invoke_action", "continue_on_error": true,
                      "args": {{"node": {{"label": "Nope-{n}"}}, "action": "click"}}}},
                    {{"id": "{n}-windows", "tool": "list_windows"}}]"#
            ),
        )
        .unwrap();
    }
    let out = automation()
        .arg("run")
        .arg(dir.path())
        .args(["--jobs", "2"])
        .env("AUTOMATION_RECORDS", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let mut per_flow = std::collections::HashMap::<&str, usize>::new();
    for line in stderr.lines() {
        if line.starts_with("flows: ") {
            continue; // the suite's own summary
        }
        let flow = names
            .iter()
            .find(|n| line.starts_with(&format!("[{n}.json] ")))
            .unwrap_or_else(|| panic!("a line with no flow prefix: {line:?}\n{stderr}"));
        // What a line talks about belongs to the flow its prefix names.
        for other in names.iter().filter(|o| *o != flow) {
            assert!(
                !line.contains(&format!("{other}-")) && !line.contains(&format!("Nope-{other}")),
                "{line:?} is marked {flow} but belongs to {other}\n{stderr}"
            );
        }
        *per_flow.entry(flow).or_default() += 1;
    }
    for n in names {
        // run, 3 × (started, passed/failed), the failure's line, the verdict at least.
        assert!(
            per_flow.get(n).copied().unwrap_or(0) >= 8,
            "{n}: {per_flow:?}\n{stderr}"
        );
        assert!(
            stderr.contains(&format!(
                "[{n}.json] step failed: {n}-gone (invoke_action): NOT_FOUND"
            )),
            "{stderr}"
        );
    }
    // One job: no prefixes (one flow's lines at a time).
    let out = automation()
        .arg("run")
        .arg(dir.path().join("alpha.json"))
        .env("AUTOMATION_RECORDS", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("step started: alpha-find")),
        "{stderr}"
    );
}

/// Runs `steps` on `target` through the steps engine, cancelled `after` it starts: the report
/// and how long the run took.
fn run_cancelled_after(
    target: &TargetHandle,
    steps: serde_json::Value,
    after: std::time::Duration,
) -> (RunReport, std::time::Duration) {
    use automation_runner::on_target::{Forward, StepsRun};
    let flow = flow::from_arguments(json!({ "steps": steps }).as_object().unwrap()).unwrap();
    let FlowBody::Steps(seq) = &flow.body else {
        panic!("steps expected")
    };
    let started = std::time::Instant::now();
    let run = StepsRun::start(
        seq,
        &flow,
        target,
        RunReport::new("c", "c"),
        (),
        Forward::All,
    );
    let cancel = run.cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(after);
        cancel.cancel();
    });
    let (report, _) = run.drive_blocking(&mut Collect::default(), &|| false);
    (report, started.elapsed())
}

/// Steps run on the target thread; cancelling the run stops the op that is running (a long
/// `type_text`) at its next key, not after it, and the report says CANCELLED.
#[test]
fn cancelling_a_steps_run_stops_the_running_op() {
    // A demo in this process: never beside a test that needs the machine alone (one measures
    // this process's CPU time).
    let _heavy = automation_testkit::heavy::heavy_shared();
    let target = TargetHandle::spawn(EguiDemo::factory()).unwrap();
    let text = "a".repeat(20_000);
    let (report, took) = run_cancelled_after(
        &target,
        json!([
            {"id": "type", "tool": "type_text", "args": {"node": {"role": "TextInput", "label": "Name"}, "text": text}},
            {"id": "after", "tool": "list_windows"}
        ]),
        std::time::Duration::from_millis(200),
    );
    assert_eq!(report.status, "failed", "{:#}", report.to_json());
    let typed = &report.steps[0];
    assert_eq!(typed.status, StepStatus::Failed, "{:#}", report.to_json());
    assert_eq!(typed.error.as_ref().unwrap()["code"], "CANCELLED");
    assert!(
        report.steps.iter().all(|s| s.id != "after"),
        "the step after the cancelled one must not run: {:#}",
        report.to_json()
    );
    // Uncancelled, 20 000 characters take seconds (debug build).
    assert!(took < std::time::Duration::from_millis(1500), "{took:?}");
    // The target serves the next request as usual.
    let list = automation_core::Request::from_json(r#"{"op": "list_windows"}"#).unwrap();
    assert!(target.call_blocking(list).is_ok());
}

/// A retry's pause holds the target thread (the steps run there), so cancelling the run ends
/// the pause too, not only the op.
#[test]
fn cancelling_a_run_ends_its_retry_pause() {
    // A demo in this process: never beside a test that needs the machine alone (one measures
    // this process's CPU time).
    let _heavy = automation_testkit::heavy::heavy_shared();
    let target = TargetHandle::spawn(EguiDemo::factory()).unwrap();
    let (report, took) = run_cancelled_after(
        &target,
        json!([
            {"id": "gone", "tool": "invoke_action", "retries": 1, "retry_delay_ms": 60000,
             "args": {"node": {"role": "Button", "label": "No such button"}, "action": "click"}}
        ]),
        std::time::Duration::from_millis(300),
    );
    assert_eq!(report.status, "failed", "{:#}", report.to_json());
    assert_eq!(report.steps[0].error.as_ref().unwrap()["code"], "NOT_FOUND");
    assert!(
        took < std::time::Duration::from_secs(5),
        "the 60 s pause went on: {took:?}"
    );
}
