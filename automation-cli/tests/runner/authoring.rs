//! Issue 24 on real GTK3 apps: an agent's session through the Python `mcp` SDK on
//! `--launch … --virtual-display` is exported with `export_test` and run by `automation run`
//! against a fresh launch (`tests/python/authoring_apps.py`). On gtk3-widget-factory both
//! exports pass; on a small GTK3 order form the export passes against the form as shipped and
//! fails against a build with the check box renamed — `NOT_FOUND`, the renamed box among the
//! candidates, at the exported file's line.
//!
//! And issue 34's rule on the headless demo: an app's text holding a line terminator and code
//! reaches an exported test as data. For each line terminator JavaScript or a YAML reader
//! knows, a real session types it into a field, checks it, fails an assertion that quotes it,
//! and names the export with it; `automation run` runs the exported TypeScript and YAML, and
//! neither the script's marker file nor the step's screenshot appears — and the runs pass, the
//! check comparing the field with the very text typed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::mcp as common;

use std::process::{Command, Stdio};

use automation_testkit::heavy::Heavy;
use automation_testkit::require::{on_path, require, require_tools};
use serde_json::{Value, json};

/// One app session at a time: they are heavy, and the machine has two cores.
fn one_at_a_time() -> Heavy {
    automation_testkit::heavy::heavy()
}

fn run(scenario: &str) -> Option<Value> {
    let _serial = one_at_a_time();
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    let gtk = Command::new("/usr/bin/python3")
        .args([
            "-c",
            "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !require(
        "python-mcp",
        !python.is_empty(),
        "AUTOMATION_PYTHON is not set (scripts/test sets up a venv with `mcp`)",
    ) || !require_tools("dbus", &automation_atspi::display::missing_tools())
        || !require(
            "atspi-apps",
            on_path("gtk3-widget-factory") && gtk,
            "gtk3-widget-factory or PyGObject's GTK 3 is missing (Debian: gtk-3-examples python3-gi gir1.2-gtk-3.0)",
        )
    {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/authoring_apps.py"
    );
    let out = Command::new(&python)
        .arg(script)
        .arg(crate::support::AUTOMATION)
        .arg(dir.path())
        .arg(scenario)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{scenario} failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    Some(serde_json::from_str(stdout.trim()).unwrap())
}

fn assert_durable(format: &str, source: &str) {
    let reference = regex_lite::Regex::new(r#""e\d+"|"\d{4,}"|: e\d+\b"#).unwrap();
    assert!(
        !reference.is_match(source),
        "{format} holds a reference or raw id:\n{source}"
    );
}

#[test]
fn a_widget_factory_session_exports_tests_that_pass_on_a_fresh_launch() {
    let Some(out) = run("widget-factory") else {
        return;
    };
    for format in ["ts", "yaml"] {
        let e = &out[format];
        let source = e["source"].as_str().unwrap();
        assert_durable(format, source);
        assert_eq!(
            e["fresh"]["exit"], 0,
            "{format} against a fresh launch:\n{}\n{source}",
            e["fresh"]["output"]
        );
        for part in ["checkbutton", "Slider", "hello", "toggled"] {
            assert!(source.contains(part), "{format} lacks {part}:\n{source}");
        }
    }
}

#[test]
fn an_exported_test_catches_a_renamed_label_at_its_line() {
    let Some(out) = run("order-form") else {
        return;
    };
    let ts = &out["ts"];
    let source = ts["source"].as_str().unwrap();
    assert_durable("ts", source);
    assert_eq!(
        ts["fresh"]["exit"], 0,
        "{}\n{source}",
        ts["fresh"]["output"]
    );
    assert_eq!(
        out["yaml"]["fresh"]["exit"], 0,
        "{}",
        out["yaml"]["fresh"]["output"]
    );
    let renamed = &ts["renamed"];
    let output = renamed["output"].as_str().unwrap();
    assert_eq!(renamed["exit"], 1, "{output}");
    // The first line that names the box is where the run must stop.
    let line = source
        .lines()
        .position(|l| l.contains(r#""label":"Gift wrap""#))
        .unwrap()
        + 1;
    let path = ts["path"].as_str().unwrap();
    assert!(output.contains("NOT_FOUND"), "{output}");
    assert!(
        output.contains(&format!("at {path}:{line}:")),
        "line {line}:\n{output}"
    );
    assert!(
        output.contains(r#"candidates: CheckBox "Gift wrapping""#),
        "{output}"
    );
}

/// Runs the binary; (exit code, stdout, stderr).
fn automation(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = crate::support::automation()
        .args(args)
        .env("AUTOMATION_RECORDS", "on")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `automation export --records DIR`: the shipped YAML flow's records become a TypeScript
/// script and the shipped script's records become YAML steps; both run green, with the
/// replay snippets and the exports naming nodes by durable selectors.
#[test]
fn a_runs_records_export_as_a_test_that_runs_green() {
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !require(
        "node",
        node,
        "node is not on PATH: scripts run under node (apt-get install nodejs)",
    ) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let examples = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/flows"));
    for (flow, format) in [("save-name.yaml", "ts"), ("save-name.ts", "yaml")] {
        let records = tmp.path().join(format!("records-{flow}"));
        let (code, out, err) = automation(&[
            "run".as_ref(),
            examples.join(flow).as_os_str(),
            "--records".as_ref(),
            records.as_os_str(),
        ]);
        assert_eq!(code, 0, "{flow}:\n{out}\n{err}");
        let run = std::fs::read_dir(&records)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.join("run.json").is_file())
            .unwrap();
        // The replay snippets name nodes by selectors, never by a reply's reference.
        for entry in std::fs::read_dir(&run).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "mjs") {
                let snippet = std::fs::read_to_string(&path).unwrap();
                assert_durable("snippet", &snippet);
            }
        }
        // The records root `run` prints, holding this one run, exports that run (issue 39).
        let (code, from_root, err) =
            automation(&["export".as_ref(), "--records".as_ref(), records.as_os_str()]);
        assert_eq!(code, 0, "{err}");
        let (_, from_run, _) =
            automation(&["export".as_ref(), "--records".as_ref(), run.as_os_str()]);
        assert_eq!(from_root, from_run, "the root with one run is that run");
        let exported = tmp.path().join(format!("exported-{flow}.{format}"));
        let (code, out, err) = automation(&[
            "export".as_ref(),
            "--records".as_ref(),
            run.as_os_str(),
            "--format".as_ref(),
            format.as_ref(),
            "--out".as_ref(),
            exported.as_os_str(),
        ]);
        assert_eq!(code, 0, "{out}\n{err}");
        let source = std::fs::read_to_string(&exported).unwrap();
        assert_durable(format, &source);
        assert!(
            source.contains("Save") && source.contains("Ada"),
            "{source}"
        );
        let (code, out, err) = automation(&["run".as_ref(), exported.as_os_str()]);
        assert_eq!(
            code, 0,
            "{flow} exported as {format}:\n{source}\n{out}\n{err}"
        );
    }
}

#[test]
fn session_text_with_line_terminators_and_code_reaches_an_export_as_data() {
    let ok = |r: &Value| {
        assert_ne!(r["result"]["isError"], json!(true), "{r}");
        r["result"]["structuredContent"].clone()
    };
    let name = json!({"role": "TextInput", "label": "Name"});
    for (i, t) in ["\n", "\r", "\r\n", "\u{2028}", "\u{2029}", "\u{85}"]
        .iter()
        .enumerate()
    {
        let dir = tempfile::tempdir().unwrap();
        let ts_marker = format!("ts-{i}");
        let yaml_marker = format!("yaml-{i}.png");
        // JavaScript after a line break, then YAML steps after another.
        let code = format!("{t}(await import('fs')).writeFileSync('{ts_marker}',''){t}//");
        let steps = format!("{t}- tool: screenshot{t}  args: {{save_to: {yaml_marker}}}{t}#");
        let payload = format!("Zoë{code}{steps}");
        // The demo's one-line field turns LF and CR into spaces (set_value then answers
        // NO_EFFECT, honestly) and keeps the other separators. What it holds is learnt in a
        // first session, and typed in the one exported.
        let held = {
            let mut probe = common::Server::start_in(dir.path());
            let first = probe.call(1, "set_value", json!({"node": name, "value": payload}));
            let rewrites = ["\n", "\r", "\r\n"].contains(t);
            assert!(first["result"]["isError"] != true || rewrites, "{first}");
            let read = ok(&probe.call(2, "read_node", json!({"node": name})));
            read["value"].as_str().unwrap().to_string()
        };
        assert!(
            held.contains("writeFileSync") && held.contains("save_to"),
            "{held:?}"
        );
        let mut s = common::Server::start_in(dir.path());
        let field = ok(&s.call(1, "find_node", json!(name)))["node"].clone();
        ok(&s.call(2, "set_value", json!({"node": field, "value": held})));
        ok(&s.call(3, "read_node", json!({"node": field})));
        // A failed assertion quoting the code first, so the footer's message carries it.
        let miss = s.call(
            4,
            "assert_node",
            json!({"node": field, "kind": "value_equals", "value": format!("{code}{steps}")}),
        );
        assert_eq!(miss["result"]["isError"], true, "{miss}");
        ok(&s.call(
            5,
            "invoke_action",
            json!({"node": {"role": "Button", "label": "Save"}, "action": "click"}),
        ));
        for (n, format) in ["ts", "yaml"].iter().enumerate() {
            let export = ok(&s.call(
                10 + n as i64,
                "export_test",
                json!({"format": format, "name": payload}),
            ));
            let source = export["source"].as_str().unwrap();
            assert!(
                source.contains("writeFileSync") && source.contains("save_to"),
                "{source}"
            );
            let path = dir.path().join(format!("exported.{format}"));
            std::fs::write(&path, source).unwrap();
            let run = crate::support::automation()
                .args(["run", path.to_str().unwrap()])
                .current_dir(dir.path())
                .env("AUTOMATION_RECORDS", "off")
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let output = format!(
                "{}{}",
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            );
            for marker in [&ts_marker, &yaml_marker] {
                assert!(
                    !dir.path().join(marker).exists(),
                    "terminator {t:?}: {format} ran session text ({marker})\n{source}\n{output}"
                );
            }
            // The run passed: its check compared the field with exactly the text typed.
            assert!(
                run.status.success(),
                "terminator {t:?}: {format} failed\n{source}\n{output}"
            );
            assert!(
                export["inputs"]
                    .to_string()
                    .contains(&serde_json::to_string(&held).unwrap()),
                "{}",
                export["inputs"]
            );
        }
    }
}
