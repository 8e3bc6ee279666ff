//! Recorded output of each tool, parsed into the one error shape (runs without any tool).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "transpile")]

use automation_transpile::transpile::{
    TranspileErrorKind, parse_any, parse_bun, parse_esbuild, parse_tsc, suggest_fix,
};

const SRC: &str = "const x string = 1;\n";

/// esbuild 0.28.2, `esbuild a.ts --color=false` (exit 1).
const ESBUILD_ERROR: &str = "✘ [ERROR] Expected \";\" but found \"string\"

    script.ts:1:8:
      1 │ const x string = 1;
        │         ~~~~~~
        ╵         ;

1 error
";

/// esbuild 0.28.2 on `const x = 1;\nx = 2;` (exit 0: only a warning).
const ESBUILD_CONST_WARNING: &str =
    "▲ [WARNING] This assignment will throw because \"x\" is a constant [assign-to-constant]

    script.ts:2:0:
      2 │ x = 2;
        ╵ ^

  The symbol \"x\" was declared a constant here:

    script.ts:1:6:
      1 │ const x = 1;
        ╵       ^

1 warning
";

const ESBUILD_HARMLESS_WARNING: &str =
    "▲ [WARNING] Duplicate key \"a\" in object literal [duplicate-object-key]

    script.ts:1:16:
      1 │ const o = {a: 1, a: 2};
        ╵                  ^

1 warning
";

/// esbuild before 0.9 printed the location inline.
const ESBUILD_INLINE: &str = " > script.ts:1:8: error: Expected \";\" but found \"string\"\n";

/// bun 1.x, `bun build --no-bundle a.ts` (exit 1).
const BUN_ERROR: &str = "1 | const x string = 1;
            ^
error: Expected \";\" but found \"string\"
    at script.ts:1:9

1 | const x string = 1;
          ^
error: The constant \"x\" must be initialized
    at script.ts:1:7
";

const TSC_CLASSIC: &str = "script.ts(1,9): error TS1005: ';' expected.\n";
const TSC_PRETTY: &str =
    "script.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n";

#[test]
fn esbuild_028_error_with_location_on_a_later_line() {
    let d = parse_esbuild(ESBUILD_ERROR, SRC).expect("parsed");
    assert_eq!(d.message, "Expected \";\" but found \"string\"");
    assert_eq!((d.line, d.column), (Some(1), Some(8)));
    assert_eq!(d.kind, TranspileErrorKind::SyntaxError);
}

#[test]
fn esbuild_warning_that_is_really_an_error() {
    let src = "const x = 1;\nx = 2;\n";
    let d = parse_esbuild(ESBUILD_CONST_WARNING, src).expect("fatal warning");
    assert_eq!(
        d.message,
        "This assignment will throw because \"x\" is a constant"
    );
    assert_eq!((d.line, d.column), (Some(2), Some(0)));
    assert_eq!(d.kind, TranspileErrorKind::TypeError);
}

#[test]
fn esbuild_harmless_warning_is_ignored() {
    assert_eq!(
        parse_esbuild(ESBUILD_HARMLESS_WARNING, "const o = {a: 1, a: 2};"),
        None
    );
}

#[test]
fn esbuild_byte_columns_become_character_columns() {
    let out = ESBUILD_ERROR.replace("script.ts:1:8:", "script.ts:1:9:");
    let d = parse_esbuild(&out, "const é string = 1;").expect("parsed");
    assert_eq!(d.column, Some(8));
}

#[test]
fn esbuild_old_inline_format() {
    let d = parse_esbuild(ESBUILD_INLINE, SRC).expect("parsed");
    assert_eq!((d.line, d.column), (Some(1), Some(8)));
}

#[test]
fn bun_first_error_with_one_based_columns() {
    let d = parse_bun(BUN_ERROR).expect("parsed");
    assert_eq!(d.message, "Expected \";\" but found \"string\"");
    assert_eq!((d.line, d.column), (Some(1), Some(8)));
}

#[test]
fn typescript_codes_both_formats() {
    let d = parse_tsc(TSC_CLASSIC).expect("classic");
    assert_eq!(d.message, "TS1005: ';' expected.");
    assert_eq!((d.line, d.column), (Some(1), Some(8)));
    assert_eq!(d.kind, TranspileErrorKind::SyntaxError);
    let d = parse_tsc(TSC_PRETTY).expect("pretty");
    assert_eq!((d.line, d.column), (Some(3), Some(6)));
    assert_eq!(d.kind, TranspileErrorKind::TypeError);
    assert!(d.message.starts_with("TS2322: Type 'string'"));
}

#[test]
fn parse_any_recognises_every_format() {
    for out in [ESBUILD_ERROR, ESBUILD_INLINE, BUN_ERROR, TSC_CLASSIC] {
        let d = parse_any(out, SRC).unwrap_or_else(|| panic!("not parsed: {out}"));
        assert_eq!((d.line, d.column), (Some(1), Some(8)), "{out}");
    }
    assert_eq!(parse_any("Segmentation fault", SRC), None);
}

#[test]
fn ansi_colours_are_tolerated() {
    let coloured = "\u{1b}[31m✘ \u{1b}[41;31m[\u{1b}[41;97mERROR\u{1b}[41;31m]\u{1b}[0m \u{1b}[1mExpected \";\" but found \"string\"\u{1b}[0m\n\n    script.ts:1:8:\n";
    let d = parse_any(coloured, SRC).expect("parsed");
    assert_eq!((d.line, d.column), (Some(1), Some(8)));
}

#[test]
fn fixes_for_common_messages() {
    let cases = [
        (
            "Expected \";\" but found \"string\"",
            Some("let n number = 1;"),
            "`let n: number`",
        ),
        (
            "TS1005: ';' expected.",
            Some("const s string = ''"),
            "`const s: string`",
        ),
        ("Unterminated string literal", None, "quote"),
        ("Expected \")\" but found \"{\"", None, "')'"),
        ("TS2304: Cannot find name 'foo'.", None, "Declare or import"),
        (
            "TS2322: Type 'string' is not assignable to type 'number'.",
            None,
            "match",
        ),
        (
            "Cannot assign to \"x\" because it is a constant",
            None,
            "`let`",
        ),
    ];
    for (msg, line, want) in cases {
        let fix = suggest_fix(msg, line).unwrap_or_default();
        assert!(fix.contains(want), "{msg}: {fix}");
    }
    assert_eq!(suggest_fix("something odd happened", None), None);
}
