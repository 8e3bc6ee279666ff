//! `{{expr}}` in step arguments: `template::substitute` on arbitrary strings (mode 0) or on
//! generated argument objects whose strings mix text, templates and broken templates over a
//! set of variables that includes a 64 KiB string (mode 1+).
//! Oracles: no panic; the result is a value or a typed error (`BUDGET_EXCEEDED` naming
//! `rendered_bytes`, or the expression language's `syntax_error`); what renders stays within
//! `MAX_RENDERED_BYTES` (counting every string and key of the result); a string without `{{`
//! comes back as it was.
#![no_main]

#[path = "common.rs"]
mod common;

use arbitrary::{Result, Unstructured};
use automation_runner::budget::MAX_RENDERED_BYTES;
use automation_runner::error::RunnerError;
use automation_runner::template::substitute;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::sync::OnceLock;

fn vars() -> &'static Value {
    static VARS: OnceLock<Value> = OnceLock::new();
    VARS.get_or_init(|| {
        json!({
            "big": "x".repeat(64 * 1024),
            "name": "Ada",
            "n": 3,
            "list": [1, "two", {"three": 3}],
            "find_result": {"node": "7", "candidates": [{"label": "Save"}]},
            "inputs": {"who": "Ada"},
            "runtime": {"attempt": 2, "last_error": {"code": "NOT_FOUND"}},
        })
    })
}

const PIECES: &[&str] = &[
    "{{big}}", "{{ big }}", "${{big}}", "{{name}}", "{{n}}", "{{list}}", "{{find_result}}",
    "{{find_result.node}}", "{{ coalesce(runtime.last_error.candidates[0].label, 'Sav') }}",
    "{{ upper(big) }}", "{{ lower(name) }}", "{{ length(big) }}", "{{", "}}", "{{}}",
    "{{ ) }}", "{{name ==}}", "$", "{{{{big}}}}", "text ", "é", "\u{0}", "{{ inputs.who }}",
];

fn template(u: &mut Unstructured<'_>) -> Result<String> {
    let mut s = String::new();
    for _ in 0..u.int_in_range(0..=64)? {
        if u.ratio(1, 5)? {
            s.push_str(&common::string(u)?);
        } else {
            s.push_str(u.choose(PIECES)?);
        }
    }
    Ok(s)
}

fn args(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    Ok(match u.int_in_range(0..=5)? {
        0 | 1 => json!(template(u)?),
        2 if depth > 0 => Value::Array((0..u.int_in_range(0..=40)?).map(|_| args(u, depth - 1)).collect::<Result<_>>()?),
        3 if depth > 0 => {
            let mut m = serde_json::Map::new();
            for _ in 0..u.int_in_range(0..=6)? {
                m.insert(u.choose(common::FIELDS)?.to_string(), args(u, depth - 1)?);
            }
            Value::Object(m)
        }
        _ => common::value(u, 1)?,
    })
}

/// Bytes of every string and key in `v`.
fn rendered(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(rendered).sum(),
        Value::Object(m) => m.iter().map(|(k, v)| k.len() + rendered(v)).sum(),
        _ => 0,
    }
}

fn check(input: &Value) {
    match substitute(input, vars(), "args") {
        Ok(out) => {
            assert!(rendered(&out) <= MAX_RENDERED_BYTES, "rendered {} bytes", rendered(&out));
            if let Value::String(s) = input {
                if !s.contains("{{") {
                    assert_eq!(&out, input);
                }
            }
        }
        Err(e) => {
            assert!(
                matches!(
                    e,
                    RunnerError::Budget {
                        budget: "rendered_bytes",
                        ..
                    } | RunnerError::Template { .. }
                ),
                "an error of another kind: {e:?}"
            );
            let json = e.to_json();
            assert!(json.get("code").and_then(Value::as_str).is_some(), "{json}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [mode, rest @ ..] = data else { return };
    if mode % 2 == 0 {
        if let Ok(text) = std::str::from_utf8(rest) {
            check(&json!(text));
        }
        return;
    }
    let mut u = Unstructured::new(rest);
    if let Ok(a) = args(&mut u, 4) {
        check(&a);
    }
});
