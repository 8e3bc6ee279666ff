//! The event-channel and log-channel line parsers on arbitrary UTF-8 (first byte 0) or on
//! generated JSON-ish event objects (first byte != 0).
//! Oracles: no panic; an accepted event serialises (`to_json_line`) to a line that parses
//! back to the same event; a rejected tagged line says why.
#![no_main]

use arbitrary::{Result, Unstructured};
use automation_wire::events::{ParsedLine, parse_line, parse_log_line};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

const TYPES: &[&str] = &[
    "progress", "step_started", "step_completed", "step_failed", "log", "status", "result",
    "screenshot", "data", "PROGRESS", "", "unknown",
];
const KEYS: &[&str] = &[
    "__mcp_event__", "type", "timestamp", "current", "total", "message", "stepId", "stepName",
    "stepIndex", "totalSteps", "duration", "durationMs", "error", "level", "data", "status",
    "text", "key", "path", "value", "base64", "annotation", "element",
];

fn value(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    Ok(match u.int_in_range(0..=10)? {
        0 => Value::Null,
        1 => json!(u.arbitrary::<bool>()?),
        2 => json!(u.arbitrary::<i64>()?),
        3 => json!(u.arbitrary::<u64>()?),
        4 => serde_json::Number::from_f64(u.arbitrary::<f64>()?).map_or(Value::Null, Value::Number),
        5 => json!(*u.choose(&[1e39, -1e308, 1.7976931348623157e308, 5e-324, -0.0, 0.5])?),
        6 => json!(u.arbitrary::<String>()?),
        7 => json!(*u.choose(TYPES)?),
        8 => json!(*u.choose(&["info", "warn", "ERROR", "debug", "trace", "2024-01-01T00:00:00Z"])?),
        9 if depth < 24 => {
            let n = u.int_in_range(0..=3)?;
            Value::Array((0..n).map(|_| value(u, depth + 1)).collect::<Result<_>>()?)
        }
        _ if depth < 24 => Value::Object(object(u, depth + 1)?),
        _ => Value::Null,
    })
}

fn object(u: &mut Unstructured<'_>, depth: u32) -> Result<Map<String, Value>> {
    let mut m = Map::new();
    let n = u.int_in_range(0..=8)?;
    for _ in 0..n {
        let k = if u.ratio(7, 8)? { u.choose(KEYS)?.to_string() } else { u.arbitrary()? };
        m.insert(k, value(u, depth)?);
    }
    Ok(m)
}

fn event(u: &mut Unstructured<'_>) -> Result<String> {
    let mut m = object(u, 0)?;
    if u.ratio(7, 8)? {
        m.insert("__mcp_event__".into(), json!(true));
    }
    if u.ratio(7, 8)? {
        m.insert("type".into(), json!(*u.choose(TYPES)?));
    }
    let mut line = serde_json::to_string(&Value::Object(m)).unwrap_or_default();
    match u.int_in_range(0..=7)? {
        0 => line.push('\r'),
        1 => line.insert_str(0, "   "),
        2 => line.push_str(" trailing"),
        3 => {
            let cut = u.int_in_range(0..=line.len())?;
            while !line.is_char_boundary(cut.min(line.len())) {
                line.pop();
            }
            line.truncate(cut.min(line.len()));
        }
        _ => {}
    }
    Ok(line)
}

fn check(line: &str) {
    match parse_line(line) {
        ParsedLine::Event(ev) => {
            let out = ev.to_json_line();
            assert!(!out.contains('\n'), "a serialised event spans lines: {out:?}");
            match parse_line(&out) {
                ParsedLine::Event(back) => assert_eq!(back, ev, "event does not round-trip: {out}"),
                ParsedLine::Log(l) => panic!("{line:?} -> {out:?} re-parses as a log: {l:?}"),
            }
        }
        ParsedLine::Log(rec) => {
            let _ = rec.level.as_str();
        }
    }
    let rec = parse_log_line(line);
    let _ = rec.level.as_str();
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode == 0 {
        if let Ok(s) = std::str::from_utf8(rest) {
            check(s);
        }
    } else {
        let mut u = Unstructured::new(rest);
        if let Ok(line) = event(&mut u) {
            check(&line);
        }
    }
});
