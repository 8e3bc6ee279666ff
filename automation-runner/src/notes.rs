//! What the steps engine (and a script's run) tell a person beside the steps themselves: a
//! step's `if` that does not parse, or reads a variable the run does not have, and a
//! baseline an `assert_screenshot` created or updated.

use automation_core::ErrorCode;
use automation_wire::events::{EventKind, LogLevel};
use serde_json::{Value, json};

use super::events::{RunEvent, Sink};

/// A step's `if` that does not parse, as the step's error: the step, the field, the
/// condition, where it broke, what was expected there, and the fix.
pub(super) fn condition_error(
    e: &automation_transpile::expr::ParseError,
    id: &str,
    index: usize,
    cond: &str,
) -> Value {
    let (_, column) = e.line_column();
    let mut err = e.to_json();
    if let Value::Object(m) = &mut err {
        m.insert("code".into(), json!(ErrorCode::BadRequest.as_str()));
        m.insert(
            "message".into(),
            json!(format!(
                "step {id}: its `if` {cond:?} does not parse: {} at column {column} (expected {})",
                e.message, e.expected
            )),
        );
        m.insert("field".into(), json!(format!("steps[{index}].if")));
        m.insert("condition".into(), json!(cond));
        m.insert("hint".into(), json!(e.fix));
    }
    err
}

/// Warns of each variable a step's `if` reads that the run does not have (a typo reads as
/// missing and quietly skips or runs the step), with the closest that exists.
pub(super) fn missing_in_condition(
    id: &str,
    cond: &str,
    missing: &[automation_transpile::expr::MissingPath],
    sink: &mut dyn Sink,
) {
    for m in missing {
        let fix = match &m.did_you_mean {
            Some(s) => format!("write `{s}` instead of `{}`", m.path),
            None => format!(
                "declare `{}` under inputs, or pass it with --inputs",
                m.path
            ),
        };
        sink.event(&RunEvent::Event(EventKind::Log {
            level: LogLevel::Warn,
            message: format!(
                "step {id}: its `if` {cond:?} reads `{}`, which the run does not have{}; it counts as missing; fix: {fix}",
                m.path,
                m.did_you_mean
                    .as_ref()
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default()
            ),
            data: None,
        }));
    }
}

/// Says which baseline a passing `assert_screenshot` created or updated (a file to commit).
pub(crate) fn baseline_note(result: &Value, sink: &mut dyn Sink) {
    if let Some(message) = automation_session::tools::golden::written_note(result) {
        sink.event(&RunEvent::Event(EventKind::Log {
            level: LogLevel::Info,
            message,
            data: None,
        }));
    }
}
