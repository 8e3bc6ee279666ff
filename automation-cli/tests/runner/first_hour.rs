//! Issue 39, a new user's first hour with `automation run`, through the real binary on the
//! headless demo: `--inputs` reaching scripts, steps flows and exported tests; an explicit
//! `--records` beating `AUTOMATION_RECORDS=off`; piped output with one line per event and
//! progress numbers a person reads; a screenshot step naming its file; a TypeScript syntax
//! error and a step's bad `if` shown with where, what and the fix; and golden baselines that
//! fail on CI when missing, and say what they created or updated.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::hostile;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use automation_testkit::heavy::Heavy;
use automation_testkit::require::require;

/// One run at a time: each starts a demo, and the machine may have two cores.
fn serial() -> Heavy {
    automation_testkit::heavy::heavy()
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Both streams, as a user piping `2>&1` sees them.
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// `automation ARGS…` in `dir`, stdout and stderr piped (not a terminal), with `env`; the
/// records default, CI and snapshot updating come from the test, never from the caller.
fn automation(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = crate::support::automation();
    cmd.args(args)
        .current_dir(dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove("CI")
        .env_remove("AUTOMATION_UPDATE_SNAPSHOTS")
        .env_remove("AUTOMATION_RECORDS")
        .env_remove("AUTOMATION_TOKEN")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/flows")
}

/// The one execution directory under a records root.
fn execution(root: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("run.json").is_file())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

/// A TypeScript flow that types `inputs.name` (default Ada) into the demo's Name field and
/// prints what the field then holds, read back from the app.
const TYPES_THE_NAME: &str = r#"import { connect, step } from '@automation-kit/client';

const inputs = { name: 'Ada', ...JSON.parse(process.env.AUTOMATION_INPUTS ?? '{}') };
const app = await connect({ settle: { settle_timeout_ms: 5000 } });
const field = app.find({ role: 'TextInput', name: 'Name' });
await step('type the name', async () => {
  await field.clear();
  await field.typeText(inputs.name);
});
await step('read it back', async () => {
  console.log(`the field holds ${await field.value()}`);
});
app.close();
"#;

#[test]
fn run_inputs_reach_a_script_and_a_steps_flow() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    if hostile::node_present() {
        std::fs::write(d.join("name.ts"), TYPES_THE_NAME).unwrap();
        let r = automation(d, &["run", "name.ts", "--inputs", r#"{"name":"Bob"}"#], &[]);
        assert_eq!(r.code, 0, "{}", r.all());
        assert!(r.stderr.contains("the field holds Bob"), "{}", r.stderr);
        // Without --inputs the default: the field's value came from the inputs, not the flow.
        let r = automation(d, &["run", "name.ts"], &[]);
        assert_eq!(r.code, 0, "{}", r.all());
        assert!(r.stderr.contains("the field holds Ada"), "{}", r.stderr);
    }

    // A steps flow: --inputs, inline or from @FILE, over the declared default.
    std::fs::write(
        d.join("name.yaml"),
        "inputs:\n  name: Ada\nsteps:\n  - id: type\n    tool: set_value\n    args: { node: { role: TextInput, label: Name }, value: \"{{ name }}\", settle: { settle_timeout_ms: 5000 } }\n  - id: check\n    tool: assert_node\n    args: { node: { role: TextInput, label: Name }, kind: value_equals, value: Bob }\n",
    )
    .unwrap();
    let r = automation(
        d,
        &["run", "name.yaml", "--inputs", r#"{"name":"Bob"}"#],
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.all());
    std::fs::write(d.join("inputs.json"), r#"{"name": "Bob"}"#).unwrap();
    let r = automation(d, &["run", "name.yaml", "--inputs", "@inputs.json"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    let r = automation(d, &["run", "name.yaml"], &[]);
    assert_eq!(r.code, 1, "the default Ada is not Bob: {}", r.all());
}

/// A CommonJS flow, as `.cjs` and `.cts` hold one: no top-level await, the client imported
/// dynamically. It types its file's name into the demo's field and reads it back.
fn commonjs_flow(name: &str) -> String {
    format!(
        r#"(async () => {{
  const {{ connect, step }} = await import('@automation-kit/client');
  const app = await connect({{ settle: {{ settle_timeout_ms: 5000 }} }});
  const field = app.find({{ role: 'TextInput', name: 'Name' }});
  await step('type {name}', async () => {{
    await field.clear();
    await field.typeText('{name}');
  }});
  console.log(`{name} left ${{await field.value()}}`);
  app.close();
}})();
"#
    )
}

/// Issue 38: `automation run dir/` runs every flow `run` takes by name, `.cts` and `.cjs`
/// among them (they were skipped in a directory). Each flow's own output shows it ran.
#[test]
fn run_of_a_directory_runs_its_cts_and_cjs_flows() {
    let _serial = serial();
    assert!(hostile::node_present(), "scripts run under node");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let flows = d.join("flows");
    std::fs::create_dir(&flows).unwrap();
    std::fs::write(flows.join("a.cts"), commonjs_flow("Cleo")).unwrap();
    std::fs::write(flows.join("b.cjs"), commonjs_flow("Dora")).unwrap();
    let r = automation(d, &["run", "flows"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    for (file, name) in [("a.cts", "Cleo"), ("b.cjs", "Dora")] {
        assert!(
            r.all().contains(file),
            "{file} is not in the run: {}",
            r.all()
        );
        assert!(
            r.all().contains(&format!("{name} left {name}")),
            "{file} did not type {name}: {}",
            r.all()
        );
    }
}

#[test]
fn bad_run_inputs_are_a_usage_error_naming_the_flag_value_and_form() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("list.json"), "[1, 2]").unwrap();
    for (value, why) in [
        (r#"{"name": "#, "not valid JSON"),
        ("[1, 2]", "an array, not a JSON object"),
        ("@list.json", "in list.json are an array, not a JSON object"),
        ("@missing.json", "cannot read the inputs file"),
    ] {
        let r = automation(d, &["run", "whatever.yaml", "--inputs", value], &[]);
        assert_eq!(r.code, 2, "{value}: {}", r.all());
        for part in ["--inputs", value, why, "pass a JSON object"] {
            assert!(r.stderr.contains(part), "{value}: {part}:\n{}", r.stderr);
        }
    }
}

/// A session exported as a test checks what it typed through the input, so the test passes
/// with other inputs.
#[test]
fn an_exported_test_checks_the_input_it_typed() {
    let _serial = serial();
    if !hostile::node_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let flow = examples().join("save-name.ts");
    let r = automation(
        d,
        &["run", flow.to_str().unwrap(), "--records", "records"],
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.all());
    let run = execution(&d.join("records"));
    for (format, follows) in [
        ("yaml", "value: '{{ name }}'"),
        ("ts", "\"value\":inputs.name"),
    ] {
        let out = format!("exported.{format}");
        let r = automation(
            d,
            &[
                "export",
                "--records",
                run.to_str().unwrap(),
                "--format",
                format,
                "--out",
                &out,
            ],
            &[],
        );
        assert_eq!(r.code, 0, "{}", r.all());
        let source = std::fs::read_to_string(d.join(&out)).unwrap();
        assert!(source.contains(follows), "{format}:\n{source}");
        let r = automation(
            d,
            &["run", &out, "--inputs", r#"{"name": "Grace Hopper"}"#],
            &[],
        );
        assert_eq!(r.code, 0, "{format}:\n{source}\n{}", r.all());
    }
}

#[test]
fn an_explicit_records_dir_beats_records_off() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let flow = examples().join("save-name.yaml");
    let r = automation(
        d,
        &["run", flow.to_str().unwrap(), "--records", "mine"],
        &[("AUTOMATION_RECORDS", "off")],
    );
    assert_eq!(r.code, 0, "{}", r.all());
    let run = execution(&d.join("mine"));
    assert!(run.join("001-type-set_value.json").is_file());
    assert!(r.stderr.contains("records: mine"), "{}", r.stderr);
    // Off still turns the default place off.
    let r = automation(
        d,
        &["run", flow.to_str().unwrap()],
        &[("AUTOMATION_RECORDS", "off")],
    );
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!d.join("data").exists(), "{}", r.stderr);
    assert!(!r.stderr.contains("records:"), "{}", r.stderr);
}

#[test]
fn piped_output_shows_each_step_end_once() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let flow = examples().join("save-name.yaml");
    let r = automation(dir.path(), &["run", flow.to_str().unwrap()], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    let out = r.all();
    for step in [
        "type (set_value)",
        "save (invoke_action)",
        "saved (assert_node)",
    ] {
        let lines: Vec<&str> = out.lines().filter(|l| l.contains(step)).collect();
        assert_eq!(
            lines.len(),
            2,
            "{step}: its start and its end, once each:\n{out}"
        );
        assert!(lines[0].starts_with("step started: "), "{lines:?}");
        assert!(lines[1].starts_with("step passed: "), "{lines:?}");
    }
}

#[test]
fn retry_progress_shows_rounded_numbers() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("retry.yaml"),
        "steps:\n  - { id: a, tool: snapshot_tree }\n  - { id: b, tool: snapshot_tree }\n  - id: c\n    tool: assert_node\n    retries: 2\n    retry_delay_ms: 10\n    continue_on_error: true\n    args: { node: { role: Button, label: Nowhere }, kind: exists }\n  - { id: d, tool: snapshot_tree }\n  - { id: e, tool: snapshot_tree }\n",
    )
    .unwrap();
    let r = automation(d, &["run", "retry.yaml"], &[]);
    let out = r.all();
    // Two steps done, a third of the way through step c's tries.
    assert!(
        out.contains("progress: 2.3/5 retrying c (1/3 failed)"),
        "{out}"
    );
    assert!(
        out.contains("progress: 2.7/5 retrying c (2/3 failed)"),
        "{out}"
    );
    let long = regex_lite::Regex::new(r"progress: \S*\d\.\d\d").unwrap();
    assert!(!long.is_match(&out), "{out}");
}

#[cfg(feature = "screenshot")]
#[test]
fn a_screenshot_step_names_the_file_it_became() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("shot.yaml"),
        "steps:\n  - { id: shot, tool: screenshot }\n",
    )
    .unwrap();
    let r = automation(d, &["run", "shot.yaml", "--records", "records"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("screenshot: "))
        .unwrap_or_else(|| panic!("no screenshot line:\n{}", r.stderr));
    let path = line
        .trim_start_matches("screenshot: ")
        .split(" — ")
        .next()
        .unwrap();
    assert!(path.ends_with(".png"), "{line}");
    assert!(Path::new(path).is_absolute(), "{line}");
    assert!(
        std::fs::read(path).unwrap().starts_with(b"\x89PNG"),
        "{line}"
    );
    // Written nowhere: no screenshot line at all, never an empty path.
    let r = automation(d, &["run", "shot.yaml"], &[("AUTOMATION_RECORDS", "off")]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!r.stderr.contains("screenshot:"), "{}", r.stderr);
}

#[test]
fn a_typescript_syntax_error_shows_where_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("flow.ts"), "const x string = 1;\n").unwrap();
    let r = automation(d, &["run", "flow.ts"], &[]);
    assert_eq!(r.code, 1, "{}", r.all());
    for part in [
        "syntax_error: Expected a semicolon",
        "at flow.ts:1:8: const x string = 1;",
        "fix: Add ':' between the variable name and its type: `const x: string`",
    ] {
        assert!(r.stderr.contains(part), "{part}:\n{}", r.stderr);
    }
}

#[test]
fn a_bad_if_names_the_step_field_value_expectation_and_fix() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("if.yaml"),
        "steps:\n  - { id: a, tool: snapshot_tree }\n  - id: b\n    tool: snapshot_tree\n    if: \"a_status == 'success' &&& true\"\n",
    )
    .unwrap();
    let r = automation(d, &["run", "if.yaml"], &[]);
    assert_eq!(r.code, 1, "{}", r.all());
    for part in [
        "step b: its `if` \"a_status == 'success' &&& true\" does not parse",
        "(expected '&&')",
        "field: steps[1].if = \"a_status == 'success' &&& true\"",
        "fix: use '&&'",
    ] {
        assert!(r.stderr.contains(part), "{part}:\n{}", r.stderr);
    }
    // A misspelt variable parses, and reads as missing: said, with the name it meant.
    std::fs::write(
        d.join("typo.yaml"),
        "steps:\n  - { id: a, tool: snapshot_tree }\n  - id: b\n    tool: snapshot_tree\n    if: \"a_stauts == 'success'\"\n",
    )
    .unwrap();
    let r = automation(d, &["run", "typo.yaml"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    for part in [
        "step b: its `if` \"a_stauts == 'success'\" reads `a_stauts`",
        "did you mean `a_status`?",
        "fix: write `a_status` instead of `a_stauts`",
    ] {
        assert!(r.stderr.contains(part), "{part}:\n{}", r.stderr);
    }
}

#[test]
fn a_failed_steps_junit_output_points_into_the_users_file() {
    let _serial = serial();
    if !hostile::node_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("fails.ts"),
        "import { connect, step } from '@automation-kit/client';\n\
         \n\
         interface Target {\n  role: string;\n}\n\
         const app = await connect();\n\
         await step('bad op', async () => {\n\
         \x20 const t: Target = { role: 'Button' };\n\
         \x20 await app.op('no_such_op', { node: t });\n\
         });\n\
         app.close();\n",
    )
    .unwrap();
    let r = automation(d, &["run", "fails.ts", "--junit", "junit.xml"], &[]);
    assert_eq!(r.code, 1, "{}", r.all());
    let xml = std::fs::read_to_string(d.join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let out = doc
        .descendants()
        .find(|n| n.has_tag_name("system-out"))
        .and_then(|n| n.text())
        .unwrap_or_else(|| panic!("no system-out:\n{xml}"));
    assert!(!out.contains("script.mjs"), "{out}");
    assert!(!out.contains("automation-run-"), "{out}");
    assert!(out.contains(r#""file":"fails.ts","line":9"#), "{out}");
}

#[cfg(feature = "screenshot")]
const SHOT_FLOW: &str =
    "steps:\n  - id: look\n    tool: assert_screenshot\n    args: { name: main }\n";

#[cfg(feature = "screenshot")]
#[test]
fn a_missing_baseline_fails_on_ci_and_is_created_elsewhere() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("shot.yaml"), SHOT_FLOW).unwrap();
    let baseline = d.join("shot.yaml-snapshots/main.png");
    let shown = std::path::absolute(&baseline)
        .unwrap()
        .display()
        .to_string();
    let r = automation(d, &["run", "shot.yaml"], &[("CI", "true")]);
    assert_eq!(r.code, 1, "{}", r.all());
    for part in [
        format!("{shown} does not exist, and CI is set"),
        "run this flow once without CI".into(),
        "--update-snapshots".into(),
    ] {
        assert!(r.stderr.contains(&part), "{part}:\n{}", r.stderr);
    }
    assert!(!baseline.exists());
    // CI=false is not CI; neither is an empty CI.
    for ci in ["false", ""] {
        let r = automation(d, &["run", "shot.yaml"], &[("CI", ci)]);
        assert_eq!(r.code, 0, "CI={ci:?}: {}", r.all());
        assert!(
            r.stderr.contains(&format!("created {shown}")),
            "{}",
            r.stderr
        );
        std::fs::remove_file(&baseline).unwrap();
    }
    let r = automation(d, &["run", "shot.yaml"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stderr.contains(&format!("created {shown}")),
        "{}",
        r.stderr
    );
    assert!(baseline.is_file());
    // Now on CI it compares, and says nothing was written.
    let r = automation(d, &["run", "shot.yaml"], &[("CI", "1")]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!r.stderr.contains("created"), "{}", r.stderr);
    // A differing baseline replaced by --update-snapshots (even on CI) is said to be.
    let other = automation_golden::Rgba::filled(3, 2, [0, 0, 0, 255]);
    std::fs::write(&baseline, automation_golden::encode_png(&other).unwrap()).unwrap();
    let r = automation(
        d,
        &["run", "shot.yaml", "--update-snapshots"],
        &[("CI", "true")],
    );
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stderr.contains(&format!("updated {shown}")),
        "{}",
        r.stderr
    );
}

#[cfg(feature = "screenshot")]
#[test]
fn to_match_screenshot_on_ci_fails_without_a_baseline() {
    let _serial = serial();
    if !hostile::node_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("look.ts"),
        "import { connect, expect, step } from '@automation-kit/client';\n\
         const app = await connect();\n\
         await step('look', () => expect(app).toMatchScreenshot('main'));\n\
         app.close();\n",
    )
    .unwrap();
    let baseline = d.join("look.ts-snapshots/main.png");
    let shown = std::path::absolute(&baseline)
        .unwrap()
        .display()
        .to_string();
    let r = automation(d, &["run", "look.ts"], &[("CI", "true")]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(
        r.stderr.contains(&format!("{shown} does not exist")),
        "{}",
        r.stderr
    );
    assert!(!baseline.exists());
    let r = automation(d, &["run", "look.ts"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stderr.contains(&format!("created {shown}")),
        "{}",
        r.stderr
    );
}

/// A launched app the runner ends at the end of a run is no news; an app that exits on its
/// own (zenity, its OK clicked) is reported with how it ended.
#[cfg(feature = "atspi")]
#[test]
fn the_runner_reports_an_app_that_exits_not_one_it_ends() {
    let _serial = serial();
    if !require(
        "atspi-apps",
        automation_atspi::display::missing_tools().is_empty()
            && automation_testkit::require::on_path("zenity"),
        "Xvfb, dbus-daemon, at-spi-bus-launcher or zenity is missing (Debian: xvfb dbus at-spi2-core zenity)",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("look.yaml"),
        "steps:\n  - { id: look, tool: snapshot_tree }\n",
    )
    .unwrap();
    std::fs::write(
        d.join("ok.yaml"),
        "steps:\n  - id: ok\n    tool: invoke_action\n    args: { node: { role: Button, label: OK }, action: click }\n",
    )
    .unwrap();
    let launch = [
        "run",
        "--launch",
        "zenity --info --text hi",
        "--virtual-display",
    ];
    let r = automation(d, &[&launch[..], &["look.yaml"]].concat(), &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(!r.stderr.contains("the app exited"), "{}", r.stderr);
    let r = automation(d, &[&launch[..], &["ok.yaml"]].concat(), &[]);
    assert!(
        r.stderr
            .contains("automation: the app exited: exit status: 0"),
        "{}",
        r.all()
    );
}

/// Ctrl-C or SIGTERM ending `inspect` (or `serve`) ends the app it launched: that exit is not
/// reported as the app's own either ("the app exited: signal: 15" followed every such end).
#[test]
fn a_signal_ending_the_kit_does_not_report_the_app_it_ends() {
    let _serial = serial();
    if !require(
        "atspi-apps",
        automation_atspi::display::missing_tools().is_empty()
            && automation_testkit::require::on_path("zenity"),
        "Xvfb, dbus-daemon, at-spi-bus-launcher or zenity is missing (Debian: xvfb dbus at-spi2-core zenity)",
    ) {
        return;
    }
    use std::io::BufRead as _;
    let dir = tempfile::tempdir().unwrap();
    let err = dir.path().join("stderr");
    let mut kit = crate::support::automation()
        .args([
            "inspect",
            "--launch",
            "zenity --info --text hi",
            "--virtual-display",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(kit.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("inspector: "), "{first}");
    let pid = i32::try_from(kit.id()).unwrap();
    // SAFETY: kill has no memory preconditions; the child is ours and not yet reaped.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let status = kit.wait().unwrap();
    let stderr = std::fs::read_to_string(&err).unwrap();
    assert!(!status.success(), "it dies by the signal: {status:?}");
    assert!(!stderr.contains("the app exited"), "{stderr}");
}

/// A flow that passes because a failed step had `continue_on_error` says that step failed: its
/// line read "2 passed, 0 skipped", as if the step had never run.
#[test]
fn a_step_that_failed_and_continued_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("coe.yaml"),
        "steps:\n  - { id: a, tool: find_node, args: { role: Button, label: Save } }\n  - { id: b, tool: invoke_action, args: { node: { role: Button, label: Nope }, action: click }, continue_on_error: true }\n  - { id: c, tool: find_node, args: { role: Button, label: Help } }\n",
    )
    .unwrap();
    let r = automation(d, &["run", "coe.yaml"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.all()
            .contains("coe.yaml: 2 passed, 1 failed and continued (continue_on_error), 0 skipped"),
        "{}",
        r.all()
    );
}
