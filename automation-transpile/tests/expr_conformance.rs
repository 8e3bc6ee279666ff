//! Table-driven conformance suite for the condition language: every behaviour of Terminator's
//! `expression_eval` listed in `shared/spec/events-transpile-expr.md`, and every listed defect
//! of it done right.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "expr")]

use automation_transpile::expr::{Expr, evaluate};
use serde_json::{Value, json};

fn vars() -> Value {
    json!({
        "env": { "locale": "en-US", "troubleshooting": true, "mode": "prod", "empty": "" },
        "runtime": { "attempts": 3, "ratio": 0.5, "zero": 0, "neg": -2 },
        "policy": {
            "product_types": ["FEX", "Term"],
            "description": "Final Expense",
            "use_max_budget": false,
            "coverage_type": "Graded",
        },
        "applicant": { "name": "John Doe" },
        "flag_true": true, "flag_false": false,
        "s_true": "true", "s_false": "false", "s_one": "1", "s_zero": "0", "s_empty": "",
        "s42": "42", "n42": 42, "n40": 40, "half": 0.5, "nothing": null,
        "arr": [], "obj": {}, "items": ["first", "second", {"name": "third"}],
        "nums": [1, 2, 3],
        "a": "x", "b": "q", "c": "q", "same1": "v", "same2": "v",
        "name": "a&&b", "ge": ">=5", "csv": "a,b", "quote": "it's",
        "map": { "odd key": 7, "0": "zero" },
        "strs": ["1", "2"],
    })
}

/// (expression, expected) evaluated against [`vars`].
const CASES: &[(&str, bool)] = &[
    // --- Terminator's `expression_eval` behaviour: smart quotes, backticks and Unicode spaces ---
    ("contains(env.locale, \u{2018}en-US\u{2019})", true),
    ("env.locale == \u{201C}en-US\u{201D}", true),
    ("env.locale == `en-US`", true),
    ("env.locale\u{00A0}==\u{2009}'en-US'\u{202F}", true),
    (
        "contains(policy.description, \u{2018}Expense\u{2019})",
        true,
    ),
    // --- the functions of Terminator's `expression_eval` ---
    ("contains(policy.product_types, 'FEX')", true),
    ("contains(policy.product_types, 'MedSup')", false),
    ("contains(policy.description, 'Expense')", true),
    ("contains(missing.path, 'x')", false),
    ("startsWith(applicant.name, 'John')", true),
    ("startsWith(applicant.name, 'Doe')", false),
    ("endsWith(applicant.name, 'Doe')", true),
    ("endsWith(applicant.name, 'John')", false),
    ("always()", true),
    ("${{ always() }}", true),
    ("coalesce(missing, nothing, 'fallback') == 'fallback'", true),
    ("coalesce(missing, env.mode, 'fallback') == 'prod'", true),
    ("coalesce(missing, nothing)", false),
    // --- comparisons ---
    ("policy.use_max_budget == false", true),
    ("policy.use_max_budget == true", false),
    ("policy.coverage_type == 'Graded'", true),
    ("policy.coverage_type != 'Standard'", true),
    ("runtime.attempts >= 3", true),
    ("runtime.attempts > 3", false),
    ("runtime.attempts < 4", true),
    ("runtime.attempts <= 2", false),
    ("runtime.neg < -1", true),
    // --- truthiness ---
    ("env.troubleshooting", true),
    ("!env.troubleshooting", false),
    ("s_empty", false),
    ("s_false", false),
    ("s_zero", false),
    ("s_true", true),
    ("runtime.zero", false),
    ("nothing", false),
    ("arr", false),
    ("obj", false),
    ("items", true),
    ("env.locale", true),
    ("true", true),
    ("false", false),
    // --- undefined variables ---
    ("missing == 'x'", false),
    ("missing != 'x'", true),
    ("missing", false),
    ("!missing", true),
    ("missing.deep.path == true", false),
    ("missing < 5", true),
    ("missing > 5", false),
    // --- string/bool equality, numeric strings ---
    ("flag_true == 'true'", true),
    ("flag_true == '1'", true),
    ("flag_false == 'false'", true),
    ("flag_false == '0'", true),
    ("flag_true == 'false'", false),
    ("s42 > 40", true),
    ("s42 == 42", true),
    ("n42 == '42'", true),
    ("n42 > n40", true),
    // --- defect: && binds tighter than || ---
    ("a=='x' || b=='y' && c=='z'", true),
    ("a=='no' || b=='q' && c=='q'", true),
    ("a=='no' || b=='y' && c=='q'", false),
    // --- defect: ! applies to its operand only ---
    ("!flag_false && flag_true", true),
    ("!flag_true && flag_true", false),
    ("!(flag_true && flag_false)", true),
    // --- defect: operators inside quotes ---
    ("name == 'a&&b'", true),
    ("ge == '>=5'", true),
    ("name == 'a||b'", false),
    // --- defect: parentheses ---
    ("(a == 'x' || a == 'y') && b == 'q'", true),
    ("(a == 'no' || a == 'y') && b == 'q'", false),
    ("((((flag_true))))", true),
    // --- defect: two variables ---
    ("b == c", true),
    ("a == b", false),
    ("same1 == same2", true),
    // --- defect: null ---
    ("nothing == null", true),
    ("missing == null", true),
    ("env.locale == null", false),
    ("env.locale != null", true),
    // --- defect: === and !== ---
    ("a === 'x'", true),
    ("a !== 'x'", false),
    // --- defect: double-quoted arguments, commas inside quotes ---
    ("contains(policy.product_types, \"FEX\")", true),
    ("contains(csv, 'a,b')", true),
    ("startsWith(csv, \"a,\")", true),
    ("quote == 'it\\'s'", true),
    ("quote == \"it's\"", true),
    // --- defect: indexing ---
    ("items[0] == 'first'", true),
    ("items[1] == 'second'", true),
    ("items[2].name == 'third'", true),
    ("items[9] == 'x'", false),
    ("map['odd key'] == 7", true),
    ("map[0] == 'zero'", true),
    // --- defect: function result compared ---
    ("startsWith(applicant.name, 'J') == true", true),
    ("startsWith(applicant.name, 'J') == false", false),
    ("contains(nums, 2) && !contains(nums, 5)", true),
    // --- defect: 0.5 is truthy ---
    ("half", true),
    ("runtime.ratio", true),
    // --- defect: bare coalesce ---
    ("coalesce(missing, env.mode)", true),
    ("coalesce(missing, env.empty)", false),
    // --- extras ---
    ("length(items) == 3", true),
    ("length(env.locale) == 5", true),
    ("length(missing) == 0", true),
    ("lower(env.locale) == 'en-us'", true),
    ("upper(env.mode) == 'PROD'", true),
    ("matches(env.locale, '^[a-z]{2}-[A-Z]{2}$')", true),
    ("matches(runtime.attempts, '\\d')", true),
    ("matches(env.locale, '^fr')", false),
    ("STARTSWITH(applicant.name, 'John')", true),
    ("contains(strs, 1)", true),
    ("contains(map, 'odd key')", true),
    ("'b' > 'a'", true),
    ("TRUE && True", true),
];

#[test]
fn conformance_table() {
    let vars = vars();
    let mut failures = Vec::new();
    for (src, want) in CASES {
        match Expr::parse(src) {
            Ok(e) => {
                let got = e.evaluate(&vars);
                if got != *want {
                    failures.push(format!("{src:?}: got {got}, want {want} (tree {e:?})"));
                }
                // The printed form parses back to the same tree.
                let printed = e.to_string();
                match Expr::parse(&printed) {
                    Ok(again) if again == e => {}
                    other => failures.push(format!("{src:?}: printed {printed:?} -> {other:?}")),
                }
            }
            Err(err) => failures.push(format!("{src:?}: parse error {err}")),
        }
        assert_eq!(evaluate(src, &vars), *want, "compat wrapper on {src:?}");
    }
    assert!(CASES.len() >= 80, "suite has {} cases", CASES.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// (expression, char position, substring of the message, substring of the fix)
const ERRORS: &[(&str, usize, &str, &str)] = &[
    ("", 0, "empty expression", "always()"),
    ("a == ", 5, "expected a value", "complete the expression"),
    ("a = 'x'", 2, "single '='", "'=='"),
    ("a & b", 2, "single '&'", "'&&'"),
    ("a | b", 2, "single '|'", "'||'"),
    (
        "name == 'oops",
        8,
        "unterminated string",
        "close the string",
    ),
    ("(a == 'x'", 9, "expected ')'", "')'"),
    ("a == 'x')", 8, "unexpected ')'", "remove the extra ')'"),
    (
        "frobnicate(a)",
        0,
        "unknown function 'frobnicate'",
        "contains",
    ),
    (
        "startsWith(a)",
        0,
        "startsWith takes 2",
        "startsWith(text, prefix)",
    ),
    ("always(1)", 0, "always takes 0", "always()"),
    ("a < b < c", 6, "unexpected '<'", "do not chain"),
    ("a and b", 2, "unexpected identifier 'and'", "'&&'"),
    ("a or b", 2, "unexpected identifier 'or'", "'||'"),
    ("a == 'x' b", 9, "after a complete expression", "&&"),
    ("items[x]", 6, "index or a quoted key", "items[0]"),
    ("a.", 2, "property name after '.'", "a.b"),
    ("a # b", 2, "unexpected character '#'", "quotes"),
    (
        "matches(a, '(')",
        0,
        "invalid regular expression",
        "pattern",
    ),
    ("&& a", 0, "expected a value", "both sides"),
    (
        "- a",
        0,
        "'-' must be followed by a number",
        "negative number",
    ),
    (
        "contains(a, 'x'",
        15,
        "expected ')' or ','",
        "contains(haystack, needle)",
    ),
];

#[test]
fn parse_errors_are_typed_and_located() {
    for (src, pos, msg, fix) in ERRORS {
        let err = Expr::parse(src).expect_err(src);
        assert_eq!(err.position, *pos, "{src:?}: {err}");
        assert!(
            err.message.contains(msg),
            "{src:?}: message {:?}",
            err.message
        );
        assert!(err.fix.contains(fix), "{src:?}: fix {:?}", err.fix);
        assert!(!err.expected.is_empty());
        let json = err.to_json();
        assert_eq!(json["error_type"], "syntax_error");
        assert_eq!(json["can_fix"], true);
        assert_eq!(json["recovery"], "fix_code");
        assert_eq!(json["location"]["line"], 1);
        assert_eq!(json["location"]["column"], *pos);
        assert_eq!(json["error_line"], *src);
        assert_eq!(serde_json::to_value(&err).ok(), Some(json.clone()));
        // The compat wrapper maps parse errors to false.
        assert!(!evaluate(src, &vars()));
    }
}

#[test]
fn caret_points_at_the_error() {
    let err = Expr::parse("env.locale = 'en'").expect_err("single =");
    assert_eq!(err.caret(), "env.locale = 'en'\n           ^");
    let shown = err.to_string();
    assert!(shown.contains("column 11"), "{shown}");
    assert!(shown.contains("fix: use '=='"), "{shown}");
}

#[test]
fn multi_line_errors_report_line_and_column() {
    let err = Expr::parse("a == 'x' &&\n  b = 'y'").expect_err("single =");
    assert_eq!(err.line_column(), (2, 4));
    assert_eq!(err.error_line(), "  b = 'y'");
}

#[test]
fn smart_quote_positions_match_the_original() {
    // Normalisation is one char for one char, so the caret lands on the user's text.
    let err = Expr::parse("x == \u{2018}a\u{2019} = 1").expect_err("single =");
    assert_eq!(err.position, 9);
}

#[test]
fn evaluate_value_returns_json() {
    let vars = vars();
    let e = Expr::parse("coalesce(missing, runtime.attempts)").expect("parses");
    assert_eq!(e.evaluate_value(&vars), json!(3));
    let e = Expr::parse("lower('ABC')").expect("parses");
    assert_eq!(e.evaluate_value(&vars), json!("abc"));
    let e = Expr::parse("missing").expect("parses");
    assert_eq!(e.evaluate_value(&vars), Value::Null);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
    let err = Expr::parse(&deep).expect_err("too deep");
    assert!(err.message.contains("nested deeper"), "{}", err.message);
    let bangs = format!("{}a", "!".repeat(10_000));
    assert!(Expr::parse(&bangs).is_err());
    let long_chain = vec!["a"; 10_000].join(" && ");
    assert!(Expr::parse(&long_chain).is_ok());
}

#[test]
fn display_is_canonical() {
    let cases = [
        ("a=='x'||b=='y'&&c=='z'", "a == 'x' || b == 'y' && c == 'z'"),
        ("(a || b) && c", "(a || b) && c"),
        ("!(a == b)", "!(a == b)"),
        ("a === \"x\"", "a == 'x'"),
        ("map['odd key'][0].x", "map['odd key'][0].x"),
        ("STARTSWITH(a, `b`)", "startsWith(a, 'b')"),
        ("x > -1.5e3", "x > -1500.0"),
    ];
    for (src, want) in cases {
        assert_eq!(Expr::parse(src).expect(src).to_string(), want);
    }
}
