//! Flow files, JSON and YAML, through `flow::from_text` (what `automation run` and
//! `execute_sequence {"file": …}` parse once the file is read).
//! mode 0: raw text as JSON; mode 1: raw text as YAML; mode 2+: a generated flow (steps from
//! the tools' vocabulary, nested arguments, templates, flow control) printed as JSON or as
//! YAML in block, flow and compact styles, with random indentation, quoting and comments.
//! Oracles: no panic and no hang (libFuzzer's `-timeout`: deep or aliased YAML must not take
//! long); an accepted sequence has at most `MAX_STEPS` steps and unique ids; and the YAML
//! depth check never under-counts: text it accepts at a small cap parses, if it parses at
//! all, to a value no deeper than that cap (this found two holes in a first check that
//! scanned the text; the check now reads the parser's own events).
#![no_main]

#[path = "common.rs"]
mod common;

use arbitrary::{Result, Unstructured};
use automation_runner::budget::MAX_STEPS;
use automation_runner::flow::{FileKind, FlowBody, from_text};
use automation_runner::yaml_depth;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

const TOOLS: &[&str] = &[
    "find_node", "invoke_action", "type_text", "snapshot_tree", "screenshot", "list_windows",
    "settle", "assert_node", "pull_announcements", "execute_sequence", "", "nope",
];
const STEP_FIELDS: &[&str] = &[
    "id", "name", "tool", "tool_name", "args", "arguments", "if", "retries", "retry_delay_ms",
    "continue_on_error", "fallback_id", "retry",
];
const IDS: &[&str] = &["a", "b", "c", "find", "save", "a"];

/// The nesting depth of a value (a scalar is 0).
fn depth(v: &Value) -> usize {
    match v {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

fn step(u: &mut Unstructured<'_>) -> Result<Value> {
    let mut m = Map::new();
    m.insert("tool".into(), json!(*u.choose(TOOLS)?));
    for _ in 0..u.int_in_range(0..=4)? {
        let k = *u.choose(STEP_FIELDS)?;
        let v = match k {
            "id" | "fallback_id" => json!(*u.choose(IDS)?),
            "args" | "arguments" => {
                let mut a = common::object(u, 3)?;
                if u.ratio(1, 2)? {
                    let t = *u.choose(&["{{a_result.node}}", "Hi {{ inputs.who }}!", "${{ runtime.attempt }}", "{{", "{{ ) }}", "{{big}}{{big}}"])?;
                    a.insert("label".into(), json!(t));
                }
                Value::Object(a)
            }
            "if" => json!(*u.choose(&["a_status == 'success'", "x ==", "true", "runtime.attempt > 1"])?),
            "retries" | "retry_delay_ms" => common::number(u)?,
            "continue_on_error" => json!(u.arbitrary::<bool>()?),
            _ => common::value(u, 2)?,
        };
        m.insert(k.into(), v);
    }
    Ok(Value::Object(m))
}

fn flow(u: &mut Unstructured<'_>) -> Result<Value> {
    let steps: Vec<Value> = (0..u.int_in_range(0..=6)?).map(|_| step(u)).collect::<Result<_>>()?;
    if u.ratio(1, 4)? {
        return Ok(Value::Array(steps));
    }
    let mut doc = json!({ "steps": steps });
    if u.ratio(1, 2)? {
        doc["inputs"] = json!({"who": "Ada", "big": {"default": "x"}});
    }
    if u.ratio(1, 4)? {
        doc["stop_on_error"] = json!(u.arbitrary::<bool>()?);
    }
    if u.ratio(1, 4)? {
        doc["start_from_step"] = json!(*u.choose(IDS)?);
    }
    Ok(doc)
}

/// A YAML scalar for `s`: plain, single- or double-quoted.
fn scalar(u: &mut Unstructured<'_>, v: &Value) -> Result<String> {
    Ok(match v {
        Value::String(s) => match u.int_in_range(0..=2)? {
            0 if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ') => s.clone(),
            1 => format!("'{}'", s.replace('\'', "''")),
            _ => serde_json::to_string(s).unwrap_or_default(),
        },
        other => other.to_string(),
    })
}

/// `v` as YAML in flow style (`[a, {b: c}]`).
fn flow_style(u: &mut Unstructured<'_>, v: &Value, out: &mut String) -> Result<()> {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow_style(u, x, out)?;
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&scalar(u, &json!(k))?);
                out.push_str(": ");
                flow_style(u, x, out)?;
            }
            out.push('}');
        }
        other => out.push_str(&scalar(u, other)?),
    }
    Ok(())
}

/// `v` as YAML in block style at `indent`, sometimes switching to flow style, sometimes
/// compact (`- key: …`), with random extra indentation and comments.
fn block(u: &mut Unstructured<'_>, v: &Value, indent: usize, out: &mut String) -> Result<()> {
    let pad = " ".repeat(indent);
    let step = u.int_in_range(1..=4)?;
    match v {
        Value::Array(items) if !items.is_empty() && !u.ratio(1, 5)? => {
            for x in items {
                out.push_str(&pad);
                out.push_str("- ");
                if matches!(x, Value::Array(_) | Value::Object(_)) && u.ratio(1, 2)? {
                    out.push('\n');
                    block(u, x, indent + step, out)?;
                } else if let (Value::Object(m), true) = (x, u.ratio(1, 2)?) {
                    // Compact: the first key on the dash's line.
                    let inner = indent + 2;
                    let mut first = true;
                    for (k, y) in m {
                        if !first {
                            out.push_str(&" ".repeat(inner));
                        }
                        first = false;
                        key_value(u, k, y, inner, out)?;
                    }
                    if m.is_empty() {
                        out.push_str("{}\n");
                    }
                } else {
                    flow_style(u, x, out)?;
                    out.push('\n');
                }
            }
        }
        Value::Object(m) if !m.is_empty() && !u.ratio(1, 5)? => {
            for (k, y) in m {
                out.push_str(&pad);
                key_value(u, k, y, indent, out)?;
                if u.ratio(1, 8)? {
                    out.push_str(&pad);
                    out.push_str("# a comment with [brackets {\n");
                }
            }
        }
        other => {
            out.push_str(&pad);
            flow_style(u, other, out)?;
            out.push('\n');
        }
    }
    Ok(())
}

fn key_value(u: &mut Unstructured<'_>, k: &str, y: &Value, indent: usize, out: &mut String) -> Result<()> {
    out.push_str(&scalar(u, &json!(k))?);
    out.push(':');
    match y {
        Value::Array(_) | Value::Object(_) if u.ratio(2, 3)? => {
            out.push('\n');
            // A sequence may sit at its key's own indentation.
            let extra = if matches!(y, Value::Array(_)) && u.ratio(1, 3)? { 0 } else { u.int_in_range(1..=4)? };
            block(u, y, indent + extra, out)?;
        }
        Value::String(s) if s.contains('\n') && u.ratio(1, 2)? => {
            out.push_str(" |\n");
            for line in s.lines() {
                out.push_str(&" ".repeat(indent + 2));
                out.push_str(line);
                out.push('\n');
            }
        }
        _ => {
            out.push(' ');
            flow_style(u, y, out)?;
            out.push('\n');
        }
    }
    Ok(())
}

fn check(kind: FileKind, text: &str) {
    if kind == FileKind::Yaml && yaml_depth::check(text, 8).is_ok() {
        if let Ok(v) = serde_norway::from_str::<Value>(text) {
            assert!(depth(&v) <= 8, "the depth check accepted {} levels:\n{text}", depth(&v));
        }
    }
    if let Ok(flow) = from_text(kind, text.to_string(), "fuzz") {
        if let FlowBody::Steps(seq) = &flow.body {
            assert!(seq.steps.len() <= MAX_STEPS);
            let mut ids: Vec<&str> = seq.steps.iter().filter_map(|s| s.id.as_deref()).collect();
            let n = ids.len();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), n, "duplicate ids accepted");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [mode, rest @ ..] = data else { return };
    match mode % 4 {
        0 | 1 => {
            if let Ok(text) = std::str::from_utf8(rest) {
                check(if mode % 4 == 0 { FileKind::Json } else { FileKind::Yaml }, text);
            }
        }
        _ => {
            let mut u = Unstructured::new(rest);
            let Ok(doc) = flow(&mut u) else { return };
            if mode % 4 == 2 {
                check(FileKind::Json, &doc.to_string());
            } else {
                let mut text = String::new();
                if block(&mut u, &doc, 0, &mut text).is_ok() {
                    check(FileKind::Yaml, &text);
                }
            }
        }
    }
});
