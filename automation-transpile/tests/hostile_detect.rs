//! Hostile input for the detector: time linear in the input, no stack growth with nesting.

#![cfg(feature = "detect")]

use automation_transpile::detect::detect;
use std::time::{Duration, Instant};

/// Best of `runs` runs (the machine may be busy with other builds).
fn time(src: &str, runs: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            let _ = std::hint::black_box(detect(std::hint::black_box(src)));
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Absolute ceiling for one input of a few hundred KB: 1 s optimised, 2 s unoptimised.
fn ceiling() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(2)
    } else {
        Duration::from_secs(1)
    }
}

/// `unit` repeated to `bytes` must be fast, and four times the input must take well under
/// 16 times as long (what a quadratic scan takes; a linear one takes about 4). A ratio over
/// 12 is measured once more, longer, before it counts (other tests share the cores).
fn assert_linear(unit: &str, bytes: usize) {
    let n = bytes / unit.len();
    let full = unit.repeat(n);
    let quarter = unit.repeat(n / 4);
    let (mut t_quarter, mut t_full) = (time(&quarter, 3), time(&full, 3));
    eprintln!("{unit:?} x {n}: {t_full:?} (a quarter of it: {t_quarter:?})");
    assert!(t_full < ceiling(), "{unit:?}: {t_full:?} for {bytes} bytes");
    // Below a few milliseconds the ratio is noise.
    if t_full > Duration::from_millis(20) && t_full > t_quarter * 12 {
        (t_quarter, t_full) = (time(&quarter, 9), time(&full, 9));
        assert!(
            t_full < t_quarter * 12,
            "{unit:?}: four times the input took {t_quarter:?} -> {t_full:?}"
        );
    }
}

#[test]
fn unterminated_regex_classes_are_linear() {
    // Every `/` may start a regex whose class `[` never closes before the line ends.
    assert_linear("/[", 320 * 1024);
}

#[test]
fn other_one_line_floods_are_linear() {
    for unit in [
        "/", "[/", "(/", "/[/", "/\\", "a/[", "'", "\"", "`", "`${", "${", "/*", "//", "<", "a<",
        "(", "[", "{", "?", "?:", "!", "a!", "x: ", "class ", "import {", "/[]/", "=/[",
    ] {
        assert_linear(unit, 320 * 1024);
    }
}

#[test]
fn many_lines_are_linear() {
    assert_linear("/[\n", 320 * 1024);
    assert_linear("let a = /[x/;\n", 320 * 1024);
}

#[test]
fn deep_nesting_does_not_overflow() {
    for (open, close) in [("(", ")"), ("[", "]"), ("{", "}"), ("`${", "}`")] {
        let src = format!(
            "let a = {}1{};",
            open.repeat(100_000),
            close.repeat(100_000)
        );
        let d = detect(&src);
        assert!(!d.is_typescript, "{open}: {d:?}");
    }
}
