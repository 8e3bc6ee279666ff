//! The surface a newcomer meets first, through the real binary: `op` with a bare name (and
//! arguments), a screenshot saved with `--out`, hints that speak CLI on the CLI, `eval`
//! warning on a misspelled path, `.length` on lists, and `transpile` on `.tsx`/`.jsx` files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Stdio;

use serde_json::Value;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_in(dir: &std::path::Path, args: &[&str]) -> Run {
    let out = crate::support::automation()
        .args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", dir)
        .env_remove("AUTOMATION_TOKEN")
        .env_remove("AUTOMATION_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run automation");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn json(r: &Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

#[test]
fn op_takes_a_bare_name_and_separate_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let r = run_in(dir.path(), &["op", "snapshot_tree"]);
    assert_eq!(r.code, 0, "{} {}", r.stdout, r.stderr);
    assert_eq!(json(&r)["status"], "ok");
    assert!(json(&r)["data"]["tree"].is_string());

    let r = run_in(
        dir.path(),
        &["op", "find_node", r#"{"role": "Button", "label": "Save"}"#],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(json(&r)["data"]["node"].is_string());

    // A typo gets the closest op name, in CLI words.
    let r = run_in(dir.path(), &["op", "snapshot_tre"]);
    assert_eq!(r.code, 1);
    assert!(json(&r)["hint"].as_str().unwrap().contains("snapshot_tree"));
}

#[test]
fn hints_on_the_cli_speak_cli() {
    let dir = tempfile::tempdir().unwrap();
    let r = run_in(dir.path(), &["op", "find_node", r#"{"window_id": "7"}"#]);
    assert_eq!(r.code, 1);
    let v = json(&r);
    assert_eq!(v["code"], "BAD_REQUEST");
    assert!(v["message"].as_str().unwrap().contains("window_id"), "{v}");
    let hint = v["hint"].as_str().unwrap();
    assert!(hint.contains("automation tools"), "{hint}");
    assert!(!hint.contains("tools/list"), "{hint}");
    // A request-level window_id says why there is none.
    let r = run_in(
        dir.path(),
        &["op", r#"{"op": "snapshot_tree", "window_id": "7"}"#],
    );
    assert_eq!(r.code, 1);
    assert!(json(&r)["hint"].as_str().unwrap().contains("list_windows"));
}

#[test]
fn op_screenshot_saves_the_png_with_out() {
    let dir = tempfile::tempdir().unwrap();
    let r = run_in(dir.path(), &["op", "screenshot", "--out", "shot.png"]);
    if !cfg!(feature = "screenshot") {
        assert_eq!(r.code, 1, "{}", r.stdout);
        return;
    }
    assert_eq!(r.code, 0, "{} {}", r.stdout, r.stderr);
    let v = json(&r);
    let path = std::path::PathBuf::from(v["data"]["path"].as_str().unwrap());
    assert_eq!(path, dir.path().join("shot.png").canonicalize().unwrap());
    let png = std::fs::read(&path).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(v["data"]["bytes"], png.len());
    assert!(v["data"].get("image").is_none(), "no base64 on stdout");
    assert!(r.stdout.len() < 2000, "{} bytes on stdout", r.stdout.len());

    // The file exists now: refused without --overwrite, replaced with it.
    let r = run_in(dir.path(), &["op", "screenshot", "--out", "shot.png"]);
    assert_eq!(r.code, 1);
    let v = json(&r);
    assert_eq!(v["code"], "BAD_ARGUMENT");
    assert!(v["message"].as_str().unwrap().starts_with("--out:"), "{v}");
    assert!(v["hint"].as_str().unwrap().contains("--overwrite"), "{v}");
    let r = run_in(
        dir.path(),
        &["op", "screenshot", "--out", "shot.png", "--overwrite"],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);

    // --out is for screenshots only: a usage error.
    let r = run_in(dir.path(), &["op", "snapshot_tree", "--out", "x.png"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--out"), "{}", r.stderr);
    assert!(!dir.path().join("x.png").exists());
}

#[test]
fn eval_warns_about_a_misspelled_path_and_lengths_work() {
    let dir = tempfile::tempdir().unwrap();
    let vars = r#"{"runtime": {"attempts": 2}, "items": ["a", "b"]}"#;
    let r = run_in(dir.path(), &["eval", "runtime.atempts < 3", "--vars", vars]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout.trim(), "true");
    assert!(r.stderr.contains("`runtime.atempts`"), "{}", r.stderr);
    assert!(
        r.stderr.contains("did you mean `runtime.attempts`"),
        "{}",
        r.stderr
    );

    let r = run_in(
        dir.path(),
        &["eval", "runtime.atempts < 3", "--vars", vars, "--strict"],
    );
    assert_eq!(r.code, 1);
    let v = json(&r);
    assert_eq!(v["error_type"], "missing_variable");
    assert_eq!(v["did_you_mean"], "runtime.attempts");

    let r = run_in(dir.path(), &["eval", "items.length > 1", "--vars", vars]);
    assert_eq!((r.code, r.stdout.trim()), (0, "true"), "{}", r.stderr);
    assert!(r.stderr.trim().is_empty(), "{}", r.stderr);
}

#[test]
fn transpile_reads_tsx_and_jsx_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("App.tsx"),
        "const n: number = 2;\nexport const App = () => <p className=\"n\">{n}</p>;\n",
    )
    .unwrap();
    let r = run_in(dir.path(), &["transpile", "App.tsx"]);
    assert_eq!(r.code, 0, "{} {}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("<p"), "{}", r.stdout);
    assert!(!r.stdout.contains(": number"), "{}", r.stdout);

    std::fs::write(dir.path().join("bad.jsx"), "const x = 1;\nx = 2;\n").unwrap();
    let r = run_in(dir.path(), &["transpile", "bad.jsx"]);
    assert_eq!(r.code, 1);
    assert_eq!(json(&r)["error_type"], "type_error");
}
