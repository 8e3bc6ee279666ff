//! Bounds on what an op may ask for, checked before anything is sent to the app: every number
//! that becomes a toolkit's `f32` coordinate, delta or scale is finite and in range (1e39 is a
//! finite f64 but an infinite f32, and a toolkit comparing NaN vectors panics), and every
//! string has a byte cap, so no request can make an op or the next snapshot unbounded.

use serde_json::Value;

use crate::catalog::Op;
use crate::error::OpError;

/// Largest coordinate or delta, in window-logical px (far beyond any screen).
pub const MAX_COORD: f64 = 1_000_000.0;
/// Pinch scale range.
pub const SCALE_RANGE: (f64, f64) = (0.001, 1000.0);
/// Largest number of samples in one touch sequence.
pub const MAX_TOUCH_STEPS: usize = 1000;
/// Largest text payload (`type_text`, `set_value`, IME text, an expected value), in bytes.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;
/// Largest other string (labels, roles, key and action names, ids), in bytes.
pub const MAX_NAME_BYTES: usize = 4096;

/// Fields whose strings are text payloads rather than names.
const TEXT_FIELDS: &[&str] = &["text", "value", "preedit", "commit", "expected"];

fn coordinate(field: &str, v: f64) -> Result<(), OpError> {
    if v.is_finite() && v.abs() <= MAX_COORD {
        return Ok(());
    }
    Err(OpError::bad_argument(format!(
        "`{field}` is {v}, outside ±{MAX_COORD} (window-logical px)"
    ))
    .with_hint("give a point inside the window: take bounds from read_node or snapshot_tree"))
}

fn point(field: &str, x: Option<f64>, y: Option<f64>) -> Result<(), OpError> {
    if let Some(x) = x {
        coordinate(&format!("{field}x"), x)?;
    }
    if let Some(y) = y {
        coordinate(&format!("{field}y"), y)?;
    }
    Ok(())
}

/// Checks an op's numbers and strings; `BAD_ARGUMENT` naming the field when one is out of
/// bounds. Nothing has been sent to the app when this fails.
pub(super) fn check(op: &Op) -> Result<(), OpError> {
    match op {
        Op::Scroll(a) => {
            coordinate("dx", a.dx)?;
            coordinate("dy", a.dy)?;
            if let Some([x, y]) = a.at {
                point("at.", Some(x), Some(y))?;
            }
        }
        Op::InjectPointer(a) => point("", a.x, a.y)?,
        Op::DragNode(a) => point("to_", a.to_x, a.to_y)?,
        Op::InjectTouchSequence(a) => {
            if a.steps.len() > MAX_TOUCH_STEPS {
                return Err(OpError::bad_argument(format!(
                    "`steps` has {} samples; a touch sequence takes at most {MAX_TOUCH_STEPS}",
                    a.steps.len()
                ))
                .with_hint("split the gesture into several inject_touch_sequence calls"));
            }
            for (i, step) in a.steps.iter().enumerate() {
                point(&format!("steps[{i}]."), Some(step.x), Some(step.y))?;
            }
        }
        Op::Pinch(a) => {
            let (lo, hi) = SCALE_RANGE;
            if !(a.scale.is_finite() && (lo..=hi).contains(&a.scale)) {
                return Err(OpError::bad_argument(format!(
                    "`scale` is {}, outside {lo}..={hi}",
                    a.scale
                ))
                .with_hint("2.0 zooms in twice, 0.5 out"));
            }
            if let Some(d) = a.start_distance {
                coordinate("start_distance", d)?;
            }
        }
        Op::Fling(a) => {
            coordinate("dx", a.dx)?;
            coordinate("dy", a.dy)?;
        }
        Op::LongPress(a) => point("", a.x, a.y)?,
        _ => {}
    }
    strings(&op.args_json(), "")
}

/// Every string in the op's arguments within its cap.
fn strings(value: &Value, field: &str) -> Result<(), OpError> {
    match value {
        Value::String(s) => {
            let cap = if TEXT_FIELDS.contains(&field) {
                MAX_TEXT_BYTES
            } else {
                MAX_NAME_BYTES
            };
            if s.len() > cap {
                return Err(OpError::bad_argument(format!(
                    "`{field}` is {} bytes; the limit is {cap}",
                    s.len()
                ))
                .with_hint("send long text in several calls"));
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|v| strings(v, field)),
        Value::Object(map) => map.iter().try_for_each(|(k, v)| strings(v, k)),
        _ => Ok(()),
    }
}
