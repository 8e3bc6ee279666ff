//! The event line parser: wire names, the defects of Terminator's event pipe
//! (mediar-ai/terminator, `event_pipe.rs` / `log_pipe.rs`; each pinned the right way), never
//! panicking, and serialise → parse round trips.
// Tests fail loudly by design: helpers outside `#[test]` may unwrap, expect and panic too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_wire::events::{
    Event, EventKind, LogLevel, LogSource, ParsedLine, parse_line, parse_log_line,
};
use proptest::prelude::*;
use serde_json::{Value, json};

fn event(line: &str) -> Event {
    match parse_line(line) {
        ParsedLine::Event(e) => e,
        ParsedLine::Log(l) => panic!("expected an event, got log {l:?}"),
    }
}

fn is_log(line: &str) -> bool {
    matches!(parse_line(line), ParsedLine::Log(_))
}

const TS: &str = "2026-01-02T03:04:05.678Z";

#[test]
fn all_eight_types_with_camel_case_fields() {
    let e = event(&json!({"__mcp_event__": true, "type": "progress", "timestamp": TS, "current": 2, "total": 5, "message": "m"}).to_string());
    assert_eq!(
        e.kind,
        EventKind::Progress {
            current: 2.0,
            total: Some(5.0),
            message: Some("m".into())
        }
    );
    let e = event(&json!({"__mcp_event__": true, "type": "step_started", "timestamp": TS, "stepId": "s1", "stepName": "Open", "stepIndex": 0, "totalSteps": 3}).to_string());
    assert_eq!(
        e.kind,
        EventKind::StepStarted {
            step_id: "s1".into(),
            step_name: "Open".into(),
            step_index: Some(0),
            total_steps: Some(3)
        }
    );
    let e = event(&json!({"__mcp_event__": true, "type": "step_completed", "timestamp": TS, "stepId": "s1", "stepName": "Open", "duration": 12.5}).to_string());
    assert!(matches!(e.kind, EventKind::StepCompleted { duration: Some(d), .. } if d == 12.5));
    let e = event(&json!({"__mcp_event__": true, "type": "step_failed", "timestamp": TS, "stepId": "s2", "stepName": "Save", "error": "boom", "duration": 3}).to_string());
    assert!(
        matches!(e.kind, EventKind::StepFailed { ref error, .. } if error.as_deref() == Some("boom"))
    );
    let e = event(&json!({"__mcp_event__": true, "type": "screenshot", "timestamp": TS, "path": "/tmp/a.png", "annotation": "after", "element": "btn"}).to_string());
    assert!(
        matches!(e.kind, EventKind::Screenshot { ref path, .. } if path.as_deref() == Some("/tmp/a.png"))
    );
    let e = event(&json!({"__mcp_event__": true, "type": "data", "timestamp": TS, "key": "k", "value": {"a": [1, 2]}}).to_string());
    assert_eq!(
        e.kind,
        EventKind::Data {
            key: "k".into(),
            value: json!({"a": [1, 2]})
        }
    );
    let e = event(&json!({"__mcp_event__": true, "type": "status", "timestamp": TS, "message": "ready", "duration": 1.5, "element": "w"}).to_string());
    assert_eq!(
        e.kind,
        EventKind::Status {
            message: "ready".into(),
            duration: Some(1.5),
            element: Some("w".into())
        }
    );
    let e = event(&json!({"__mcp_event__": true, "type": "log", "timestamp": TS, "level": "warning", "message": "careful"}).to_string());
    assert_eq!(
        e.kind,
        EventKind::Log {
            level: LogLevel::Warn,
            message: "careful".into(),
            data: None
        }
    );
    assert_eq!(e.timestamp, TS);
}

#[test]
fn tag_must_be_json_true() {
    for tag in [
        json!("true"),
        json!(1),
        json!(false),
        json!(null),
        json!({}),
    ] {
        let line = json!({"__mcp_event__": tag, "type": "status", "timestamp": TS, "message": "x"})
            .to_string();
        assert!(is_log(&line), "{line} must not be an event");
    }
    assert!(is_log(
        &json!({"type": "status", "timestamp": TS, "message": "x"}).to_string()
    ));
}

#[test]
fn non_event_lines_are_log_records_never_dropped() {
    for line in [
        "hello world",
        "",
        "   ",
        "{",
        "{\"a\":1}",
        "[1,2]",
        "{\"__mcp_event__\": tru",
        "\u{0}\u{1}",
    ] {
        match parse_line(line) {
            ParsedLine::Log(l) => {
                assert_eq!(l.message, line);
                assert_eq!(l.source, LogSource::EventChannel);
            }
            ParsedLine::Event(e) => panic!("{line:?} parsed as {e:?}"),
        }
    }
    // A tagged line that is not a valid event says why.
    let ParsedLine::Log(l) =
        parse_line(&json!({"__mcp_event__": true, "type": "nope", "timestamp": TS}).to_string())
    else {
        panic!()
    };
    assert!(l.rejected.unwrap().contains("unknown event type"));
    let ParsedLine::Log(l) =
        parse_line(&json!({"__mcp_event__": true, "type": "status", "message": "x"}).to_string())
    else {
        panic!()
    };
    assert!(l.rejected.unwrap().contains("timestamp"));
}

#[test]
fn defect_fractional_and_negative_numbers_do_not_reject_the_line() {
    let e = event(&json!({"__mcp_event__": true, "type": "step_completed", "timestamp": TS, "stepId": "a", "stepName": "b", "duration": 1234.567, "stepIndex": 2.7, "totalSteps": -1}).to_string());
    assert_eq!(
        e.kind,
        EventKind::StepCompleted {
            step_id: "a".into(),
            step_name: "b".into(),
            duration: Some(1234.567),
            step_index: Some(2),
            total_steps: Some(-1)
        }
    );
    let e = event(&json!({"__mcp_event__": true, "type": "step_failed", "timestamp": TS, "stepId": "a", "stepName": "b", "duration": -0.5}).to_string());
    assert!(matches!(e.kind, EventKind::StepFailed { duration: Some(d), .. } if d == -0.5));
    // A nonsense duration is dropped, not the event.
    let e = event(&json!({"__mcp_event__": true, "type": "status", "timestamp": TS, "message": "m", "duration": "soon"}).to_string());
    assert_eq!(
        e.kind,
        EventKind::Status {
            message: "m".into(),
            duration: None,
            element: None
        }
    );
}

#[test]
fn defect_status_serialises_what_its_parser_reads() {
    let ev = Event {
        timestamp: TS.into(),
        kind: EventKind::Status {
            message: "hi".into(),
            duration: Some(2.5),
            element: Some("e".into()),
        },
    };
    let v: Value = serde_json::from_str(&ev.to_json_line()).unwrap();
    assert_eq!(
        v,
        json!({"__mcp_event__": true, "type": "status", "timestamp": TS, "message": "hi", "duration": 2.5, "element": "e"})
    );
    assert_eq!(event(&ev.to_json_line()), ev);
}

#[test]
fn defect_log_with_data_keeps_its_message() {
    let e = event(&json!({"__mcp_event__": true, "type": "log", "timestamp": TS, "level": "error", "message": "failed", "data": {"code": 7}}).to_string());
    assert_eq!(
        e.kind,
        EventKind::Log {
            level: LogLevel::Error,
            message: "failed".into(),
            data: Some(json!({"code": 7}))
        }
    );
}

#[test]
fn defect_screenshot_data_url_prefix_is_stripped() {
    let e = event(&json!({"__mcp_event__": true, "type": "screenshot", "timestamp": TS, "base64": "data:image/png;base64,iVBORw0K"}).to_string());
    assert!(
        matches!(e.kind, EventKind::Screenshot { ref base64, .. } if base64.as_deref() == Some("iVBORw0K"))
    );
}

#[test]
fn unknown_fields_ignored_and_crlf_tolerated() {
    let line = json!({"__mcp_event__": true, "type": "progress", "timestamp": TS, "current": 1, "extra": {"deep": [1]}}).to_string() + "\r";
    assert!(matches!(event(&line).kind, EventKind::Progress { current, .. } if current == 1.0));
}

#[test]
fn log_channel_lines() {
    let r = parse_log_line(
        &json!({"level": "error", "message": "m", "data": [1], "timestamp": TS}).to_string(),
    );
    assert_eq!(
        (r.level, r.message.as_str(), r.data, r.source),
        (
            LogLevel::Error,
            "m",
            Some(json!([1])),
            LogSource::LogChannel
        )
    );
    assert_eq!(r.timestamp.as_deref(), Some(TS));
    let r = parse_log_line("console.log output");
    assert_eq!(
        (r.level, r.message.as_str()),
        (LogLevel::Info, "console.log output")
    );
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _\\-\\.:/\"\\\\\u{e9}\u{1F600}]{0,16}"
}
fn num() -> impl Strategy<Value = f64> {
    prop_oneof![(-1.0e9f64..1.0e9), (-1000i64..1000).prop_map(|i| i as f64)]
}
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1_000_000i64..1_000_000).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
fn level() -> impl Strategy<Value = LogLevel> {
    prop_oneof![
        Just(LogLevel::Trace),
        Just(LogLevel::Debug),
        Just(LogLevel::Info),
        Just(LogLevel::Warn),
        Just(LogLevel::Error)
    ]
}
fn kind() -> impl Strategy<Value = EventKind> {
    let o = |s: BoxedStrategy<String>| proptest::option::of(s);
    let t = || text().boxed();
    let b64 = || "[A-Za-z0-9+/=]{0,24}".boxed();
    prop_oneof![
        (num(), proptest::option::of(num()), o(t())).prop_map(|(current, total, message)| {
            EventKind::Progress {
                current,
                total,
                message,
            }
        }),
        (
            t(),
            t(),
            proptest::option::of(-100i64..100),
            proptest::option::of(0i64..100)
        )
            .prop_map(|(step_id, step_name, step_index, total_steps)| {
                EventKind::StepStarted {
                    step_id,
                    step_name,
                    step_index,
                    total_steps,
                }
            }),
        (
            t(),
            t(),
            proptest::option::of(num()),
            proptest::option::of(-5i64..100),
            proptest::option::of(0i64..100)
        )
            .prop_map(|(step_id, step_name, duration, step_index, total_steps)| {
                EventKind::StepCompleted {
                    step_id,
                    step_name,
                    duration,
                    step_index,
                    total_steps,
                }
            }),
        (t(), t(), o(t()), proptest::option::of(num())).prop_map(
            |(step_id, step_name, error, duration)| EventKind::StepFailed {
                step_id,
                step_name,
                error,
                duration
            }
        ),
        (o(t()), o(b64()), o(t()), o(t())).prop_map(|(path, base64, annotation, element)| {
            EventKind::Screenshot {
                path,
                base64,
                annotation,
                element,
            }
        }),
        (t(), json_value()).prop_map(|(key, value)| EventKind::Data { key, value }),
        (t(), proptest::option::of(num()), o(t())).prop_map(|(message, duration, element)| {
            EventKind::Status {
                message,
                duration,
                element,
            }
        }),
        (
            level(),
            t(),
            proptest::option::of(json_value().prop_filter("null data is absent", |v| !v.is_null()))
        )
            .prop_map(|(level, message, data)| EventKind::Log {
                level,
                message,
                data
            }),
    ]
}

proptest! {
    #[test]
    fn serialise_then_parse_is_identity(kind in kind(), ts in "[0-9T:\\.Z\\-]{1,30}") {
        let ev = Event { timestamp: ts, kind };
        let line = ev.to_json_line();
        prop_assert!(!line.contains('\n'));
        match parse_line(&line) {
            ParsedLine::Event(back) => prop_assert_eq!(back, ev),
            ParsedLine::Log(l) => prop_assert!(false, "round trip became a log: {:?}", l),
        }
    }

    #[test]
    fn parser_never_panics_on_arbitrary_text(line in ".{0,200}") {
        let _ = parse_line(&line);
        let _ = parse_log_line(&line);
    }

    #[test]
    fn parser_never_panics_on_tagged_garbage(fields in prop::collection::btree_map("[a-zA-Z_]{1,12}", json_value(), 0..8), ty in "[a-z_]{0,14}") {
        let mut m: serde_json::Map<String, Value> = fields.into_iter().collect();
        m.insert("__mcp_event__".into(), Value::Bool(true));
        m.insert("type".into(), Value::String(ty));
        let _ = parse_line(&Value::Object(m).to_string());
    }
}
