//! JSX is transpiled (oxc parses it) and never answered with a wrong "add ';'" fix; the
//! `const`-reassignment check is the same whether or not a script holds TypeScript syntax.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "oxc")]

use automation_transpile::transpile::{Backend, SourceKind, TranspileErrorKind, Transpiler};

fn oxc() -> Transpiler {
    Transpiler::builder().backends([Backend::Oxc]).build()
}

const TSX: &str = r#"type Props = { name: string };
function Hello({ name }: Props) {
  return <div className="greeting">Hello {name}</div>;
}
const el = <Hello name="Zoë" />;
"#;

const JSX: &str = r#"function Hello({ name }) {
  return <div className="greeting">Hello {name}</div>;
}
const el = <Hello name="Zoë" />;
"#;

fn assert_no_jsx_left(code: &str) {
    assert!(!code.contains("<div"), "{code}");
    assert!(!code.contains("<Hello"), "{code}");
    assert!(code.contains("greeting"), "{code}");
}

#[test]
fn tsx_and_jsx_files_are_transpiled() {
    let t = oxc();
    let out = t.transpile_as(TSX, SourceKind::Tsx).unwrap();
    assert!(out.was_typescript && out.jsx, "{out:?}");
    assert_no_jsx_left(&out.code);
    assert!(!out.code.contains("Props"), "types stripped: {}", out.code);
    // oxc's default JSX runtime: the automatic one.
    assert!(out.code.contains("react/jsx-runtime"), "{}", out.code);

    let out = t.transpile_as(JSX, SourceKind::Jsx).unwrap();
    assert!(!out.was_typescript && out.jsx, "{out:?}");
    assert_no_jsx_left(&out.code);
    assert_eq!(out.backend, Some(Backend::Oxc));
}

#[test]
fn jsx_without_a_telling_file_name_is_found_and_transpiled() {
    let t = oxc();
    for src in [TSX, JSX] {
        let out = t
            .transpile(src)
            .unwrap_or_else(|e| panic!("{src}\n{:?}", e.to_json()));
        assert!(out.jsx, "{out:?}");
        assert_no_jsx_left(&out.code);
    }
    // One element, nothing else (the detector sees plain JavaScript).
    let out = t.transpile("const x = <b>bold</b>;").unwrap();
    assert!(out.jsx && !out.was_typescript, "{out:?}");
    assert!(!out.code.contains("<b>"), "{}", out.code);
}

#[test]
fn jsx_pragmas_pick_the_runtime() {
    let src = "/** @jsxRuntime classic @jsx h */\nconst n: number = 1;\nconst el = <p>{n}</p>;\n";
    let out = oxc().transpile_as(src, SourceKind::Tsx).unwrap();
    assert!(out.code.contains("h(\"p\""), "{}", out.code);
    assert!(!out.code.contains("react/jsx-runtime"), "{}", out.code);
}

#[test]
fn broken_jsx_never_gets_a_semicolon_fix() {
    let t = oxc();
    for (src, kind) in [
        (
            "const a: number = 1;\nconst el = <div className=\"a\">unclosed;\n",
            SourceKind::Detect,
        ),
        (
            "const a: number = 1;\nconst el = <div>unclosed;\n",
            SourceKind::Tsx,
        ),
        ("const el = <div className=>x</div>;\n", SourceKind::Jsx),
        (
            "let n: number = 1;\nreturn <div><span></div>;\n",
            SourceKind::Detect,
        ),
    ] {
        let e = t.transpile_as(src, kind).expect_err(src);
        let j = e.to_json();
        eprintln!("{src:?} as {kind:?}: {j}");
        assert_eq!(j["error_type"], "syntax_error", "{src}: {j}");
        let fix = j["fix"].as_str().unwrap_or_default();
        assert!(!fix.contains("';'"), "{src}: a wrong semicolon fix: {j}");
        assert!(!fix.contains("':'"), "{src}: a wrong colon fix: {j}");
        // Parsed as JSX (declared, or found): the fix is about the element, not the dialect.
        assert!(fix.starts_with("Correct the JSX"), "{src}: {j}");
    }
}

#[test]
fn a_jsx_line_parsed_as_ts_says_jsx_is_not_supported() {
    // What an external backend reports for JSX in a `.ts` file (recorded esbuild 0.28
    // output): the fix names JSX, not a missing ';'.
    let fix = automation_transpile::transpile::suggest_fix(
        "Expected \">\" but found \"className\"",
        Some("  return <div className=\"greeting\">Hello</div>;"),
    );
    assert!(
        fix.as_deref()
            .is_some_and(|f| f.starts_with("JSX is not supported")),
        "{fix:?}"
    );
    let fix = automation_transpile::transpile::suggest_fix(
        "Expected \";\" but found \"string\"",
        Some("const x string = 1;"),
    );
    assert!(fix.is_some_and(|f| f.contains("':'")));
}

#[test]
fn const_reassignment_is_the_same_error_with_or_without_typescript() {
    let t = oxc();
    let js = "const x = 1;\nx = 2;\n";
    let ts = "const x: number = 1;\nx = 2;\n";
    let e_js = t.transpile(js).expect_err("JavaScript writing a const");
    let e_ts = t.transpile(ts).expect_err("TypeScript writing a const");
    assert_eq!(e_js.kind, TranspileErrorKind::TypeError);
    let (j, k) = (e_js.to_json(), e_ts.to_json());
    for field in [
        "error_type",
        "message",
        "location",
        "error_line",
        "fix",
        "recovery",
    ] {
        assert_eq!(j[field], k[field], "{field}: {j} vs {k}");
    }
    assert_eq!(j["location"]["line"], 2, "{j}");
    // In a .jsx file, and in a script ending with a top-level `return`, too.
    let e = t
        .transpile_as("const x = 1;\nx = 2;\nconst el = <b />;\n", SourceKind::Jsx)
        .expect_err("jsx");
    assert_eq!(e.to_json()["message"], j["message"]);
    let e = t
        .transpile("const x = 1;\nx++;\nreturn { x };\n")
        .expect_err("top-level return");
    assert_eq!(e.kind, TranspileErrorKind::TypeError);
    // Plain JavaScript that writes no const is still returned byte for byte.
    let fine = "let x = 1;\nx = 2;\nreturn { x };\n";
    let out = t.transpile(fine).unwrap();
    assert_eq!(out.code, fine);
    assert!(!out.was_typescript && !out.jsx && out.backend.is_none());
}
