//! Hostile input for the in-process transpiler: nothing may overflow the stack (that aborts
//! the whole process, which would end this test binary too). Deep scripts are either
//! transpiled on the big-stack thread or refused with a typed, fixable error.

#![cfg(feature = "oxc")]

use automation_transpile::transpile::depth::{INLINE_NESTING, MAX_NESTING, measure};
use automation_transpile::transpile::{Backend, TranspileErrorKind, Transpiler};

fn oxc() -> Transpiler {
    Transpiler::builder().backends([Backend::Oxc]).build()
}

fn assert_too_deep(src: &str) {
    let result = oxc().transpile(src);
    assert!(result.is_err(), "not refused: {result:?}");
    let Err(err) = result else { return };
    assert_eq!(err.kind, TranspileErrorKind::SyntaxError, "{err}");
    assert!(err.can_fix());
    assert!(
        err.message.contains(&MAX_NESTING.to_string()),
        "{}",
        err.message
    );
    let payload = err.to_json();
    assert_eq!(payload["recovery"], "fix_code");
    assert!(
        payload["fix"]
            .as_str()
            .is_some_and(|f| f.contains("Flatten"))
    );
    assert!(payload["location"]["line"].as_u64().is_some());
    // The offending line is a window, not the whole megabyte line.
    assert!(
        payload["error_line"]
            .as_str()
            .is_some_and(|l| l.len() < 1_000)
    );
}

#[test]
fn six_thousand_nested_parentheses_are_refused() {
    let n = 6_000;
    assert_too_deep(&format!(
        "let a: number = {}1{};",
        "(".repeat(n),
        ")".repeat(n)
    ));
}

#[test]
fn an_88_000_term_sum_is_refused() {
    assert_too_deep(&format!("let a: number = 1{};", "+1".repeat(88_000)));
    // Split over lines it is still one expression.
    assert_too_deep(&format!("let a: number = 1{};", "\n+1".repeat(88_000)));
}

#[test]
fn every_deep_construct_is_refused_or_transpiled() {
    let n = 20_000;
    for src in [
        format!("let a: number = {}1{};", "[".repeat(n), "]".repeat(n)),
        format!("let a: number = 1; {}{}", "{".repeat(n), "}".repeat(n)),
        format!("let a: boolean = {}1;", "!".repeat(n)),
        format!("let a: number = {}1;", "x ? 1 : ".repeat(n)),
        format!("let a: number = x{};", ".b".repeat(n)),
        format!("let a: {}number{} = 1;", "Array<".repeat(n), ">".repeat(n)),
        format!("let a: {}number = 1;", "A | ".repeat(n)),
        format!("let a: any = {}1;", "x => ".repeat(n)),
        format!("let a: any = {}1;", "typeof ".repeat(n)),
        format!("let a: any = {}1{};", "`${".repeat(n), "}`".repeat(n)),
        format!("let a: any = {}1{};", "f(".repeat(n), ")".repeat(n)),
        format!("let a: any = 1;{}", "if (a) a; else ".repeat(n)),
        format!("let a: any = 1;{}", "if (a) {} else ".repeat(n)),
        format!("let a: any = 1;{}a;", "if (a)\n".repeat(n)),
        format!("let a: any = 1;{}a;", "while (a) for (;;) ".repeat(n)),
        format!("let a: any = 1;{}a;", "l: ".repeat(n)),
    ] {
        assert_too_deep(&src);
    }
}

#[test]
fn deep_but_allowed_scripts_run_on_the_big_stack() {
    // Past the inline limit, under the cap: the worker thread has the stack for it even
    // unoptimised, where the test thread's 2 MiB holds about 300 levels.
    let n = MAX_NESTING - 10;
    assert!(n > INLINE_NESTING);
    let src = format!("let a: number = {}1{};", "(".repeat(n), ")".repeat(n));
    // `:` and `=` are operators of the declaration, then one level per `(`.
    assert_eq!(measure(&src, MAX_NESTING).depth, n + 2);
    let out = oxc().transpile(&src).expect("transpiled");
    assert!(out.code.contains("let a = 1"), "{}", out.code);

    let sum = format!("let a: number = 1{};", "+1".repeat(n - 10));
    let out = oxc().transpile(&sum).expect("transpiled");
    assert!(out.code.starts_with("let a = 1 + 1"));
}

#[test]
fn long_scripts_of_shallow_statements_are_not_deep() {
    // Without semicolons (a line break starts the next statement) and with them.
    let body = "desktop.click('#ok')\nawait desktop.wait(100)\n".repeat(5_000);
    let src = format!("let a: number = 1\n{body}");
    assert!(measure(&src, MAX_NESTING).depth < 10);
    let out = oxc().transpile(&src).expect("transpiled");
    assert!(out.was_typescript);
    let cases = format!(
        "function f(x: string) {{ switch (x) {{ {} default: return 0; }} }}",
        "case 'a':\ncase 'b': return 1;\n".repeat(2_000)
    );
    assert!(measure(&cases, MAX_NESTING).depth < 10);
    assert!(oxc().transpile(&cases).is_ok());
    let list = format!("const xs: number[] = [{}];", "1 + 2, ".repeat(50_000));
    assert!(measure(&list, MAX_NESTING).depth < 10);
    assert!(oxc().transpile(&list).is_ok());
}

#[test]
fn strings_comments_and_regexes_do_not_count() {
    let src = format!(
        "let a: string = '{0}'; // {0}\n/* {0} */ let r = /{0}/; let t = `{0}`;",
        "(((((".repeat(1_000)
    );
    assert!(measure(&src, MAX_NESTING).depth < 10);
    assert!(oxc().transpile(&src).is_ok());
}
