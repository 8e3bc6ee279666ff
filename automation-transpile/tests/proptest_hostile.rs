//! Property tests with hostile shapes: deep nesting, long operator chains and token soup
//! for the condition parser and the TypeScript detector. No panic, no stack overflow, and
//! each input handled within a time bound (generous: other tests share the cores).

#![cfg(any(feature = "expr", feature = "detect"))]

use proptest::prelude::*;
use std::time::{Duration, Instant};

/// One input may take this long at most (unoptimised builds are ~10x slower).
fn bound() -> Duration {
    Duration::from_millis(if cfg!(debug_assertions) { 1_500 } else { 300 })
}

fn timed<T>(what: &str, input: &str, f: impl FnOnce() -> T) -> Result<T, TestCaseError> {
    let t = Instant::now();
    let out = f();
    let took = t.elapsed();
    prop_assert!(
        took < bound(),
        "{what} took {took:?} on {} bytes starting {:?}",
        input.len(),
        input.chars().take(60).collect::<String>()
    );
    Ok(out)
}

/// `pieces` concatenated, each repeated `times` (floods of one shape), in sequence.
fn flood(pieces: &'static [&'static str], max_times: usize) -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(pieces), 1..max_times), 1..4).prop_map(|runs| {
        runs.into_iter()
            .map(|(piece, times)| piece.repeat(times))
            .collect()
    })
}

/// Random tokens from `pieces`, up to `max_len` of them.
fn soup(pieces: &'static [&'static str], max_len: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(pieces), 0..max_len).prop_map(|t| t.concat())
}

#[cfg(feature = "expr")]
mod expr {
    use super::*;
    use automation_transpile::expr::Expr;
    use serde_json::json;

    const OPENERS: &[&str] = &[
        "(",
        "!",
        "!(",
        "contains(a, ",
        "coalesce(",
        "lower(",
        "((",
        "! ",
    ];
    const TOKENS: &[&str] = &[
        "(",
        ")",
        "!",
        "a",
        "b.c",
        "items[0]",
        "'x'",
        "\"y\"",
        "1",
        "-2",
        "0.5",
        "==",
        "!=",
        "<",
        ">=",
        "&&",
        "||",
        ",",
        "contains(",
        "coalesce(",
        "always()",
        "true",
        "null",
        " ",
        "[",
        "]",
        ".",
        "'",
        "=",
        "&",
        "and",
        "in",
        "+",
        "?",
        ":",
    ];
    const OPS: &[&str] = &[" && ", " || ", " == ", " < ", "&&", "||", " and ", " , "];

    fn parse_and_use(src: &str) -> Result<(), TestCaseError> {
        let parsed = timed("parse", src, || Expr::parse(src))?;
        match parsed {
            Ok(e) => {
                let vars = json!({"a": [1, "x"], "b": {"c": 0}, "items": ["q"]});
                timed("evaluate", src, || e.evaluate(&vars))?;
                let printed = timed("print", src, || e.to_string())?;
                let again = timed("reparse", src, || Expr::parse(&printed))?;
                prop_assert_eq!(again.ok(), Some(e));
            }
            Err(err) => {
                prop_assert!(err.position <= src.chars().count());
                prop_assert!(!err.fix.is_empty());
                let _ = err.to_json();
            }
        }
        Ok(())
    }

    fn nested() -> impl Strategy<Value = String> {
        (
            prop::collection::vec(prop::sample::select(OPENERS), 0..400),
            prop::sample::select(&["a", "1", "'x'", "a == 1", "always()"][..]),
            0usize..3,
        )
            .prop_map(|(openers, leaf, drop)| {
                let closers: usize = openers.iter().map(|o| o.matches('(').count()).sum();
                format!(
                    "{}{leaf}{}",
                    openers.concat(),
                    ")".repeat(closers.saturating_sub(drop))
                )
            })
    }

    fn chain() -> impl Strategy<Value = String> {
        prop::collection::vec(
            (
                prop::sample::select(&["a", "!a", "(a)", "b.c == 0", "contains(a, 'x')"][..]),
                prop::sample::select(OPS),
            ),
            1..5_000,
        )
        .prop_map(|terms| {
            let mut s = String::new();
            for (i, (term, op)) in terms.iter().enumerate() {
                if i > 0 {
                    s.push_str(op);
                }
                s.push_str(term);
            }
            s
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn deep_nesting_is_an_error_or_parses(src in nested()) {
            parse_and_use(&src)?;
        }

        #[test]
        fn long_chains_parse_in_bounded_time(src in chain()) {
            parse_and_use(&src)?;
        }

        #[test]
        fn token_soup_never_panics(src in soup(TOKENS, 3_000)) {
            parse_and_use(&src)?;
        }

        #[test]
        fn floods_never_overflow(src in flood(OPENERS, 50_000)) {
            parse_and_use(&src)?;
        }
    }
}

#[cfg(feature = "detect")]
mod detect {
    use super::*;
    use automation_transpile::detect::detect;

    const JS: &[&str] = &[
        "/",
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        "`",
        "${",
        "'",
        "\"",
        "//",
        "/*",
        "*/",
        "\n",
        "a",
        "1",
        ":",
        "?",
        "<",
        ">",
        "!",
        "=",
        "as",
        "class",
        "import",
        "\\",
        " ",
        ";",
        ",",
        ".",
        "=>",
        "case",
        "let",
        "x:",
        "?.",
        "<T>",
        "interface",
        "+",
    ];

    fn check(src: &str) -> Result<(), TestCaseError> {
        let d = timed("detect", src, || detect(src))?;
        if let Some((start, end)) = d.span {
            prop_assert!(start <= end && end <= src.len());
        }
        #[cfg(feature = "oxc")]
        {
            use automation_transpile::transpile::depth::{MAX_NESTING, measure};
            let n = timed("measure", src, || measure(src, MAX_NESTING))?;
            prop_assert!(n.offset <= src.len());
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn token_soup_is_fast(src in soup(JS, 20_000)) {
            check(&src)?;
        }

        #[test]
        fn floods_are_fast(src in flood(JS, 100_000)) {
            check(&src)?;
        }
    }
}
