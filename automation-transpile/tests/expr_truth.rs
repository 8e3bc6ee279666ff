//! Conditions tell the truth: missing paths are reported (or an error in strict mode),
//! `.length` works on arrays and strings, unsupported operators say what to write instead,
//! and `coalesce` has Terminator's semantics (the first truthy argument, else the last).

#![cfg(feature = "expr")]

use automation_transpile::expr::{Expr, MissingPath};
use serde_json::{Value, json};

fn vars() -> Value {
    json!({
        "runtime": { "attempts": 2, "count": 0 },
        "env": { "locale": "en-US", "status": "" },
        "items": ["a", "b"],
        "name": "Jürgen",
        "box": { "length": 7 },
    })
}

fn parse(src: &str) -> Expr {
    let parsed = Expr::parse(src);
    assert!(parsed.is_ok(), "{src}: {parsed:?}");
    parsed.unwrap_or(Expr::Literal(Value::Null))
}

fn eval(src: &str) -> bool {
    parse(src).evaluate(&vars())
}

#[test]
fn missing_paths_are_reported_with_the_closest_existing_path() {
    let out = parse("runtime.atempts < 3 && env.locale == 'en-US'").evaluate_with_warnings(&vars());
    assert!(out.value);
    assert_eq!(
        out.warnings,
        vec![MissingPath {
            path: "runtime.atempts".into(),
            did_you_mean: Some("runtime.attempts".into()),
        }]
    );
    assert_eq!(
        out.warnings[0].to_string(),
        "variable `runtime.atempts` is not in the inputs (did you mean `runtime.attempts`?)"
    );

    // A typo in the first segment keeps the rest when it resolves from there.
    let w = parse("envv.locale == 'x'").missing_paths(&vars());
    assert_eq!(w[0].did_you_mean.as_deref(), Some("env.locale"));
    // Transposed letters, other case.
    let w = parse("runtime.atetmpts").missing_paths(&vars());
    assert_eq!(w[0].did_you_mean.as_deref(), Some("runtime.attempts"));
    let w = parse("Items").missing_paths(&vars());
    assert_eq!(w[0].did_you_mean.as_deref(), Some("items"));
    // Nothing close: no guess. Reported once however often it is used.
    let w = parse("zzz == 1 || zzz == 2 || missing.deep.path").missing_paths(&vars());
    assert_eq!(w.len(), 2);
    assert_eq!(w[0].path, "zzz");
    assert_eq!(w[0].did_you_mean, None);
    assert_eq!(w[1].path, "missing.deep.path");
    // Inside calls and comparisons too; present paths and `.length` are not reported.
    let w = parse("contains(itmes, 'a') && items.length == 2 && name.length > 0")
        .missing_paths(&vars());
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].did_you_mean.as_deref(), Some("items"));
}

#[test]
fn strict_mode_makes_a_missing_path_an_error() {
    let e = parse("runtime.atempts < 3");
    let result = e.evaluate_strict(&vars());
    assert!(result.is_err());
    let Err(err) = result else { return };
    assert_eq!(err.missing.path, "runtime.atempts");
    assert_eq!(
        err.fix,
        "write `runtime.attempts` instead of `runtime.atempts`"
    );
    let payload = err.to_json();
    assert_eq!(payload["error_type"], "missing_variable");
    assert_eq!(payload["can_fix"], true);
    assert_eq!(payload["did_you_mean"], "runtime.attempts");
    assert_eq!(payload["recovery"], "fix_code");

    let err = parse("qqqq").evaluate_strict(&vars()).err();
    assert!(err.is_some_and(|e| e.fix.contains("add `qqqq` to the inputs")));

    assert_eq!(
        parse("runtime.attempts < 3").evaluate_strict(&vars()),
        Ok(true)
    );
    assert_eq!(
        parse("items.length > 5").evaluate_strict(&vars()),
        Ok(false)
    );
}

#[test]
fn length_of_arrays_and_strings() {
    assert!(eval("items.length > 1"));
    assert!(eval("items.length == 2"));
    assert!(eval("name.length == 6")); // characters, not bytes
    assert!(eval("env.status.length == 0"));
    // An object's own `length` key wins; an object without one has no length.
    assert!(eval("box.length == 7"));
    assert!(!eval("runtime.length > 0"));
    assert!(eval("runtime.length == null"));
    // Past the length there is nothing.
    assert!(parse("items.length.x").evaluate_value(&vars()).is_null());
    assert_eq!(parse("items.length").evaluate_value(&vars()), json!(2));
}

fn parse_error(src: &str) -> (usize, String) {
    let result = Expr::parse(src);
    assert!(result.is_err(), "{src} parsed: {result:?}");
    result
        .err()
        .map_or((0, String::new()), |e| (e.position, e.fix))
}

#[test]
fn unsupported_operators_say_what_to_write() {
    let (pos, fix) = parse_error("'a' in items");
    assert_eq!(pos, 4);
    assert!(fix.contains("contains(list, x)"), "{fix}");
    for (src, pos) in [("a + 1 > 2", 2), ("a * 2", 2), ("a / 2", 2), ("a % 2", 2)] {
        let (at, fix) = parse_error(src);
        assert_eq!(at, pos, "{src}");
        assert!(
            fix.starts_with("arithmetic is not supported"),
            "{src}: {fix}"
        );
    }
    let (at, fix) = parse_error("runtime.attempts - 1 > 0");
    assert_eq!(at, 17);
    assert!(fix.starts_with("arithmetic is not supported"), "{fix}");
    let (at, fix) = parse_error("ready ? 'a' : 'b'");
    assert_eq!(at, 6);
    assert!(fix.contains("(cond && a) || (!cond && b)"), "{fix}");
    let (_, fix) = parse_error("a ?? 'x'");
    assert!(fix.contains("coalesce(a, b)"), "{fix}");
    let (_, fix) = parse_error("a?.b");
    assert!(fix.contains("a.b"), "{fix}");
    // Inside quotes they are text.
    assert!(eval("env.locale != 'a + b ? c : d in e'"));
}

#[test]
fn coalesce_returns_the_first_truthy_argument_else_the_last() {
    // Terminator's examples.
    assert!(eval("coalesce(runtime.count, 10) == 10"));
    assert!(eval("coalesce(env.status, 'default') == 'default'"));
    assert!(eval("coalesce(missing, runtime.attempts) == 2"));
    let v = vars();
    assert_eq!(
        parse("coalesce(runtime.count, env.status)").evaluate_value(&v),
        json!("")
    );
    assert_eq!(parse("coalesce(missing, 0)").evaluate_value(&v), json!(0));
    assert_eq!(parse("coalesce(missing)").evaluate_value(&v), Value::Null);
    assert!(!eval("coalesce(runtime.count, env.status)"));
}
