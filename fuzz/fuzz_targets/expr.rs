//! The condition language: `Expr::parse` on arbitrary UTF-8 (first byte 0) or on a generated
//! nested expression (first byte != 0), then every evaluator against a small JSON value.
//! Oracles: no panic; a parsed expression prints (`Display`) to text that parses again and
//! prints the same (the printed form is canonical).
#![no_main]

use arbitrary::{Result, Unstructured};
use automation_transpile::expr::Expr;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::sync::OnceLock;

const PATHS: &[&str] = &[
    "env.locale", "runtime.attempts", "runtime.atempts", "a", "a.b", "a.b.c", "list[0]",
    "list[1].name", "list[99999999999999999999]", "s.length", "list.length", "x.y[0][1]",
    "$v", "_", "a['b']", "a[\"b c\"]", "deep.a.a.a.a.a", "ünï.cødé", "true.x", "null",
];
const LITERALS: &[&str] = &[
    "0", "1", "-1", "3.5", "1e39", "-1e309", "1e-400", "0x10", "007", "9007199254740993",
    "'en'", "\"\"", "'a\\'b'", "'\\n'", "'\\u00e9'", "‘smart’", "`tick`", "true", "false",
    "null", "'^a.*$'", "'('", "'[z-a]'", "'(?i)EN'", "'\\\\'",
];
const FUNCS: &[&str] = &[
    "contains", "startsWith", "endsWith", "always", "coalesce", "length", "lower", "upper",
    "matches", "CONTAINS", "nope",
];
const CMP: &[&str] = &["==", "!=", "<", "<=", ">", ">=", "===", "=", "=>", "<>"];
const BOOL: &[&str] = &["&&", "||", "and", "or", "&", "|"];

fn build(u: &mut Unstructured<'_>, out: &mut String, depth: u32) -> Result<()> {
    if depth > 80 || u.is_empty() {
        out.push_str(u.choose(PATHS)?);
        return Ok(());
    }
    match u.int_in_range(0..=11)? {
        0 | 1 => out.push_str(u.choose(PATHS)?),
        2 | 3 => out.push_str(u.choose(LITERALS)?),
        4 => {
            out.push('!');
            build(u, out, depth + 1)?;
        }
        5 => {
            out.push('(');
            build(u, out, depth + 1)?;
            out.push(')');
        }
        6 | 7 => {
            build(u, out, depth + 1)?;
            out.push(' ');
            out.push_str(u.choose(CMP)?);
            out.push(' ');
            build(u, out, depth + 1)?;
        }
        8 | 9 => {
            build(u, out, depth + 1)?;
            out.push(' ');
            out.push_str(u.choose(BOOL)?);
            out.push(' ');
            build(u, out, depth + 1)?;
        }
        10 => {
            out.push_str(u.choose(FUNCS)?);
            out.push('(');
            let n = u.int_in_range(0..=3)?;
            for i in 0..n {
                if i > 0 {
                    out.push_str(", ");
                }
                build(u, out, depth + 1)?;
            }
            out.push(')');
        }
        _ => {
            // Raw noise: a character, or a deep run of one opener.
            if u.ratio(1, 2)? {
                out.push(u.arbitrary::<char>()?);
            } else {
                let reps = u.int_in_range(1..=200)?;
                let s = u.choose(&["(", "!", "[", "a.", "-"])?;
                for _ in 0..reps {
                    out.push_str(s);
                }
            }
        }
    }
    if u.ratio(1, 24)? {
        // The optional `${{ … }}` wrapper.
        *out = format!("${{{{ {out} }}}}");
    }
    Ok(())
}

fn vars() -> &'static Value {
    static V: OnceLock<Value> = OnceLock::new();
    V.get_or_init(|| {
        json!({
            "env": {"locale": "en-US"},
            "runtime": {"attempts": 2, "nan_ish": 1e308},
            "a": {"b": {"c": true}},
            "list": [{"name": "first"}, {"name": ""}, 0, null, [1, 2]],
            "s": "héllo",
            "x": {"y": [[0, 1], []]},
            "$v": "dollar",
            "_": false,
            "deep": {"a": {"a": {"a": {"a": {"a": "bottom"}}}}},
        })
    })
}

fn check(src: &str) {
    let Ok(e) = Expr::parse(src) else { return };
    let v = vars();
    let b = e.evaluate(v);
    let w = e.evaluate_with_warnings(v);
    assert_eq!(b, w.value, "evaluate and evaluate_with_warnings disagree on {src:?}");
    let _ = e.evaluate_strict(v);
    let _ = e.missing_paths(v);
    let _ = e.evaluate_value(v);
    let _ = e.evaluate(&Value::Null);
    let printed = e.to_string();
    let again = match Expr::parse(&printed) {
        Ok(again) => again,
        Err(err) => panic!("{src:?} printed as {printed:?}, which does not parse: {err:?}"),
    };
    assert_eq!(printed, again.to_string(), "printing is not canonical for {src:?}");
    assert_eq!(b, again.evaluate(v), "{src:?} and its printed form {printed:?} disagree");
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode == 0 {
        if let Ok(s) = std::str::from_utf8(rest) {
            check(s);
        }
    } else {
        let mut u = Unstructured::new(rest);
        let mut src = String::new();
        let _ = build(&mut u, &mut src, 0);
        check(&src);
    }
});
