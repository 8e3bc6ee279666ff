//! Hostile conditions: deep nesting is a typed error (never a stack overflow), long flat
//! chains parse and evaluate in linear time.

#![cfg(feature = "expr")]

use automation_transpile::expr::{Expr, MAX_DEPTH};
use serde_json::json;
use std::time::{Duration, Instant};

fn assert_too_deep(src: &str) {
    let result = Expr::parse(src);
    assert!(result.is_err(), "parsed: {result:?}");
    let Err(err) = result else { return };
    assert!(
        err.message
            .contains(&format!("deeper than {MAX_DEPTH} levels")),
        "{}",
        err.message
    );
    assert!(!err.fix.is_empty());
    assert!(err.position <= src.chars().count());
    assert_eq!(err.to_json()["error_type"], "syntax_error");
}

#[test]
fn a_hundred_thousand_open_parentheses_are_an_error() {
    let n = 100_000;
    assert_too_deep(&format!("{}a{}", "(".repeat(n), ")".repeat(n)));
    assert_too_deep(&"(".repeat(n));
}

#[test]
fn a_hundred_thousand_nots_are_an_error() {
    assert_too_deep(&format!("{}a", "!".repeat(100_000)));
    assert_too_deep(&format!("{}a", "!(".repeat(50_000)));
}

#[test]
fn deeply_nested_calls_are_an_error() {
    let n = 100_000;
    assert_too_deep(&format!("{}1{}", "coalesce(".repeat(n), ")".repeat(n)));
    assert_too_deep(&format!("{}'x'{}", "lower(".repeat(n), ")".repeat(n)));
}

#[test]
fn nesting_up_to_the_cap_parses() {
    let n = MAX_DEPTH;
    let e = Expr::parse(&format!("{}a{}", "(".repeat(n), ")".repeat(n))).expect("at the cap");
    assert!(e.evaluate(&json!({"a": true})));
    let e = Expr::parse(&format!("{}a", "!".repeat(n))).expect("at the cap");
    assert!(e.evaluate(&json!({"a": true})));
}

#[test]
fn long_flat_chains_are_linear() {
    let t = Instant::now();
    for op in [" && ", " || "] {
        let src = vec!["a == 1"; 100_000].join(op);
        let e = Expr::parse(&src).expect("a flat chain");
        let _ = e.evaluate(&json!({"a": 1}));
        // Printing and re-parsing is iterative too.
        assert_eq!(Expr::parse(&e.to_string()).ok(), Some(e));
    }
    let bound = if cfg!(debug_assertions) { 10 } else { 2 };
    assert!(
        t.elapsed() < Duration::from_secs(bound),
        "{:?}",
        t.elapsed()
    );
}
