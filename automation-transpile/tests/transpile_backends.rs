//! Backend tests. External tools (bun, esbuild) are looked up like the library does; when
//! one is absent the test fails, unless `AUTOMATION_ALLOW_MISSING` lists it (e.g. `bun`):
//! then that backend is skipped and the skip logged.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "transpile")]

use automation_transpile::transpile::{
    Backend, Recovery, TranspileErrorKind, Transpiler, USE_JAVASCRIPT_INSTRUCTION,
};
use automation_transpile::{detect::is_typescript, transpile};
use serde_json::json;

/// A transpiler forced onto `backend`, or `None` (skip) when the backend is absent here.
fn only(backend: Backend) -> Option<Transpiler> {
    let t = Transpiler::builder()
        .backends([backend])
        .allow_npx(false)
        .build();
    if t.is_available(backend) {
        return Some(t);
    }
    if backend == Backend::Oxc {
        // A build choice (`--no-default-features`), not a missing component.
        eprintln!("SKIP oxc: the `oxc` feature is off");
        return None;
    }
    let why = match backend {
        Backend::Oxc => "the `oxc` feature is off".to_owned(),
        Backend::Bun => "bun not found next to the test binary, on PATH, or in node_modules/.bin \
                         (install both in ONE command at the repo root: \
                         npm install --no-save --no-package-lock esbuild@0.28 bun)"
            .to_owned(),
        Backend::Esbuild => "esbuild not found in node_modules/.bin or on PATH \
                             (install both in ONE command at the repo root: \
                             npm install --no-save --no-package-lock esbuild@0.28 bun)"
            .to_owned(),
    };
    // A missing tool is a failure, unless the run opts out explicitly with
    // AUTOMATION_ALLOW_MISSING="bun" (a comma list of components, or `all`).
    automation_testkit::require::require(backend.name(), false, &why);
    None
}

fn all() -> Vec<(Backend, Transpiler)> {
    [Backend::Oxc, Backend::Bun, Backend::Esbuild]
        .into_iter()
        .filter_map(|b| only(b).map(|t| (b, t)))
        .collect()
}

#[test]
fn missing_colon_contract_from_every_backend() {
    for (backend, t) in all() {
        let err = t.transpile("const x string = 1;").expect_err("must fail");
        let j = err.to_json();
        assert_eq!(j["error_type"], "syntax_error", "{backend:?}: {j}");
        assert_eq!(j["can_fix"], true, "{backend:?}");
        assert_eq!(
            j["location"],
            json!({"line": 1, "column": 8}),
            "{backend:?}: {j}"
        );
        assert_eq!(j["error_line"], "const x string = 1;", "{backend:?}");
        assert_eq!(j["recovery"], "fix_code", "{backend:?}");
        assert_eq!(
            j["fix"], "Add ':' between the variable name and its type: `const x: string`",
            "{backend:?}"
        );
        assert_eq!(err.backend, Some(backend));
        let keys: Vec<&String> = j
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        for k in &keys {
            assert!(
                [
                    "error_type",
                    "can_fix",
                    "message",
                    "location",
                    "error_line",
                    "fix",
                    "recovery"
                ]
                .contains(&k.as_str()),
                "{backend:?}: unexpected key {k}"
            );
        }
        let text = j.to_string();
        assert!(
            !text.contains("automation-transpile-"),
            "{backend:?}: temp path leaked: {text}"
        );
        assert!(
            !text.contains("    at "),
            "{backend:?}: stack frame leaked: {text}"
        );
    }
}

#[test]
fn non_ascii_columns_are_characters() {
    for (backend, t) in all() {
        let err = t.transpile("const é string = 1;").expect_err("must fail");
        assert_eq!(
            err.to_json()["location"],
            json!({"line": 1, "column": 8}),
            "{backend:?}"
        );
    }
}

#[test]
fn assignment_to_const_is_an_error_everywhere() {
    // esbuild only warns here and exits 0; it must still be reported.
    for (backend, t) in all() {
        let err = t
            .transpile("const x: number = 1;\nx = 2;\n")
            .expect_err("must fail");
        assert_eq!(
            err.kind,
            TranspileErrorKind::TypeError,
            "{backend:?}: {err}"
        );
        assert_eq!(
            err.to_json()["location"],
            json!({"line": 2, "column": 0}),
            "{backend:?}"
        );
        assert_eq!(err.error_line.as_deref(), Some("x = 2;"));
        assert!(
            err.fix.as_deref().is_some_and(|f| f.contains("let")),
            "{backend:?}"
        );
    }
}

const SAMPLE: &str = r##"
interface Step { name: string; timeout?: number }
enum Mode { Fast, Slow }
function run<T extends Step>(step: T, mode: Mode = Mode.Fast): string {
    const el = document.querySelector("#x")!;
    return `${step.name}:${mode}` as string;
}
console.log(run({ name: "a" }));
"##;

#[test]
fn every_backend_strips_types() {
    for (backend, t) in all() {
        let out = t
            .transpile(SAMPLE)
            .unwrap_or_else(|e| panic!("{backend:?}: {e}"));
        assert!(out.was_typescript);
        assert_eq!(out.backend, Some(backend));
        assert!(
            !is_typescript(&out.code),
            "{backend:?} left TypeScript:\n{}",
            out.code
        );
        assert!(
            out.code.contains("console.log(run("),
            "{backend:?}:\n{}",
            out.code
        );
    }
}

#[test]
fn plain_javascript_short_circuits() {
    // No backend is even configured: plain JS must not need one.
    let t = Transpiler::builder().backends([]).build();
    let src = "desktop.click('#ok'); // timeout: 5000, as admin";
    let out = t.transpile(src).expect("plain JS");
    assert_eq!(out.code, src);
    assert!(!out.was_typescript);
    assert_eq!(out.backend, None);
}

#[test]
fn missing_tool_short_script_says_use_javascript() {
    let t = Transpiler::builder()
        .backends([Backend::Bun, Backend::Esbuild])
        .bun_path("/nonexistent/bun")
        .esbuild_path("/nonexistent/esbuild")
        .build();
    let err = t
        .transpile("let el: HTMLElement | null = null;")
        .expect_err("no tool");
    assert_eq!(err.kind, TranspileErrorKind::MissingTool);
    let j = err.to_json();
    assert_eq!(j["error_type"], "missing_tool");
    assert_eq!(j["can_fix"], true);
    assert_eq!(
        j["recovery"],
        json!({"action": "use_javascript", "instruction": USE_JAVASCRIPT_INSTRUCTION})
    );
    assert!(USE_JAVASCRIPT_INSTRUCTION.starts_with("Rewrite without TypeScript syntax. Remove:"));
    assert!(j.get("location").is_none());
}

#[test]
fn missing_tool_long_script_says_install_tool() {
    let t = Transpiler::builder().backends([]).build();
    let src = "let n: number = 1;\n".repeat(400);
    let err = t.transpile(&src).expect_err("no tool");
    let j = err.to_json();
    assert_eq!(j["error_type"], "missing_tool");
    assert_eq!(j["can_fix"], false);
    assert_eq!(
        j["recovery"],
        json!({"action": "install_tool", "tool": "esbuild", "url": "https://esbuild.github.io/getting-started/"})
    );
    assert_eq!(err.recovery, Recovery::install_esbuild());
}

#[test]
fn mcp_error_carries_the_contract() {
    let t = Transpiler::builder().backends([]).build();
    let err = t.transpile("type A = string;").expect_err("no tool");
    let payload = err.to_json();
    let mcp = err.clone().into_mcp_error();
    assert_eq!(mcp.code, -32602);
    assert!(mcp.message.starts_with("TypeScript transpilation failed: "));
    assert_eq!(mcp.data, Some(payload.clone()));
    assert_eq!(serde_json::to_value(&err).ok(), Some(payload.clone()));
    let wire = serde_json::to_value(&mcp).expect("serializes");
    assert_eq!(wire["data"]["error_type"], "missing_tool");
}

#[test]
fn concurrent_transpiles_do_not_collide() {
    for (backend, t) in all() {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let t = &t;
                    s.spawn(move || {
                        let src = format!("const v{i}: number = {i};\nconsole.log(v{i});\n");
                        (i, t.transpile(&src))
                    })
                })
                .collect();
            for h in handles {
                let (i, r) = h.join().expect("thread");
                let out = r.unwrap_or_else(|e| panic!("{backend:?}: {e}"));
                assert!(
                    out.code.contains(&format!("v{i} = {i}")),
                    "{backend:?}: {}",
                    out.code
                );
                for j in (0..8).filter(|j| *j != i) {
                    assert!(
                        !out.code.contains(&format!("v{j} ")),
                        "{backend:?} mixed outputs"
                    );
                }
            }
        });
    }
}

#[test]
fn default_chain_prefers_in_process() {
    let out = match transpile("let a: number = 1;") {
        // Only without the `oxc` feature: no backend compiled in, none installed.
        Err(e) if !cfg!(feature = "oxc") && e.kind == TranspileErrorKind::MissingTool => {
            eprintln!("SKIP default chain: `oxc` is off and no bun/esbuild is installed");
            return;
        }
        other => other.expect("some backend or oxc"),
    };
    if cfg!(feature = "oxc") {
        assert_eq!(out.backend, Some(Backend::Oxc));
    }
    assert!(out.code.contains("let a = 1"));
}

#[test]
fn npx_fallback_finds_or_reports_missing() {
    // Start the node_modules search at / so only PATH or npx can provide esbuild.
    let t = Transpiler::builder()
        .backends([Backend::Esbuild])
        .search_from("/")
        .build();
    match t.transpile("let a: number = 1;") {
        Ok(out) => assert!(out.code.contains("let a = 1")),
        Err(e) => assert_eq!(e.kind, TranspileErrorKind::MissingTool, "{e}"),
    }
}

/// A fake external tool: a shell script with the given body (unix only).
#[cfg(unix)]
fn fake_tool(dir: &std::path::Path, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("fake-tool");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

#[cfg(unix)]
#[test]
fn hung_tool_is_killed_and_reported_as_retry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tool = fake_tool(dir.path(), "sleep 30");
    let t = Transpiler::builder()
        .backends([Backend::Esbuild])
        .esbuild_path(tool)
        .timeout(std::time::Duration::from_millis(300))
        .build();
    let err = t.transpile("let a: number = 1;").expect_err("times out");
    let j = err.to_json();
    assert_eq!(j["error_type"], "system_error");
    assert_eq!(j["can_fix"], false);
    assert_eq!(j["recovery"], "retry");
}

#[cfg(unix)]
#[test]
fn crashing_tool_without_diagnostic_is_a_system_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tool = fake_tool(
        dir.path(),
        "echo 'Segmentation fault (core dumped) at 0xdeadbeef' >&2; exit 139",
    );
    let t = Transpiler::builder()
        .backends([Backend::Bun])
        .bun_path(tool)
        .build();
    let err = t.transpile("let a: number = 1;").expect_err("crash");
    assert_eq!(err.kind, TranspileErrorKind::SystemError);
    assert_eq!(err.recovery, Recovery::Retry);
    // No raw tool output in the payload.
    assert!(!err.to_json().to_string().contains("deadbeef"));
}

#[cfg(unix)]
#[test]
fn typescript_codes_from_a_tool_become_type_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tool = fake_tool(
        dir.path(),
        "echo \"$1(2,7): error TS2322: Type 'string' is not assignable to type 'number'.\" >&2; exit 2",
    );
    let t = Transpiler::builder()
        .backends([Backend::Esbuild])
        .esbuild_path(tool)
        .build();
    let err = t
        .transpile("let ok = 1;\nlet n: number = 'x';\n")
        .expect_err("type error");
    let j = err.to_json();
    assert_eq!(j["error_type"], "type_error");
    assert_eq!(j["location"], json!({"line": 2, "column": 6}));
    assert_eq!(j["error_line"], "let n: number = 'x';");
    assert_eq!(
        j["fix"],
        "Change the value or the type annotation so that they match"
    );
    assert!(
        !j.to_string().contains("automation-transpile-"),
        "temp path leaked: {j}"
    );
}

#[test]
fn tsx_and_jsx_from_every_backend() {
    use automation_transpile::transpile::SourceKind;
    let tsx = "type P = { n: number };\nconst f = ({ n }: P) => <b className=\"x\">{n}</b>;\n";
    let jsx = "const f = ({ n }) => <b className=\"x\">{n}</b>;\n";
    for (backend, t) in all() {
        for (src, kind) in [(tsx, SourceKind::Tsx), (jsx, SourceKind::Jsx)] {
            let out = t
                .transpile_as(src, kind)
                .unwrap_or_else(|e| panic!("{backend:?} {kind:?}: {:?}", e.to_json()));
            assert!(out.jsx, "{backend:?} {kind:?}");
            assert_eq!(out.backend, Some(backend));
            assert!(
                !out.code.contains("<b"),
                "{backend:?} {kind:?}: {}",
                out.code
            );
            assert!(
                !out.code.contains(": P"),
                "{backend:?} {kind:?}: {}",
                out.code
            );
        }
    }
}

/// Issue 39: the `fix` is read by a person at a terminal as often as by an agent: it says
/// what to do in plain words (no "resubmit", no "ask the user"), and names the command.
#[test]
fn missing_tool_fixes_speak_to_a_person() {
    let t = Transpiler::builder().backends([]).build();
    for src in [
        "let n: number = 1;\n".to_owned(),
        "let n: number = 1;\n".repeat(400),
    ] {
        let fix = t.transpile(&src).expect_err("no tool").to_json()["fix"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let lower = fix.to_lowercase();
        assert!(
            !lower.contains("resubmit") && !lower.contains("the user"),
            "{fix}"
        );
        assert!(fix.contains("npm install esbuild"), "{fix}");
    }
}
