//! Shared generators: JSON built from a small vocabulary of the ops' field names and values,
//! so inputs get past the strict argument structs and reach the executors.
#![allow(dead_code)]

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Number, Value, json};

pub const FIELDS: &[&str] = &[
    "node", "to_node", "root", "role", "label", "label_contains", "value", "author_id", "nth",
    "id", "kind", "flag", "action", "x", "y", "to_x", "to_y", "dx", "dy", "at", "lines", "ctrl",
    "shift", "alt", "meta", "command", "button", "pointer_id", "pressure", "tilt", "key",
    "text", "phase", "preedit", "commit", "steps", "contact", "advance_ms", "scale",
    "start_distance", "over_ms", "density", "condition", "expected", "version", "timeout_ms",
    "millis", "max_depth", "max_nodes", "include_debug", "since_seq", "settle", "quiet_ms",
    "max_anim_frames", "settle_timeout_ms", "clock_millis", "layout_after", "max_dimension",
    "max_bytes", "save_to", "crop", "width", "height", "lable",
];

pub const STRINGS: &[&str] = &[
    "Button", "Label", "TextInput", "CheckBox", "Slider", "Window", "Save", "Cancel", "Help",
    "Name", "Remember me", "Volume", "Details", "Toggle details", "Advanced", "Delete",
    "Open window", "Second window", "demo-details", "Saved", "click", "focus", "expand",
    "collapse", "increment", "decrement", "show_context_menu", "double_click", "down", "up",
    "move", "press", "primary", "secondary", "middle", "mouse", "touch", "pen", "start",
    "end", "cancel", "compact", "comfortable", "exists", "focused", "label_equals",
    "value_equals", "toggled", "expanded", "node_exists", "node_value", "node_gone",
    "at_version_at_least", "Enter", "Tab", "Escape", "Backspace", "ArrowLeft", "a", "S", "",
    " ", "é", "\u{0}", "\u{202e}", "👍🏽", "\r\n", "e\u{301}", "/tmp/x.png",
];

/// A number from the interesting set, or arbitrary.
pub fn number(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=7)? {
        0 => json!(u.int_in_range(0..=5)?),
        1 => json!(u.int_in_range(0..=800)?),
        2 => json!(*u.choose(&[-1i64, i64::MIN, i64::MAX, 4294967296])?),
        3 => json!(*u.choose(&[u64::MAX, u32::MAX as u64 + 1])?),
        4 => json!(*u.choose(&[1e39, -1e39, 1e308, -1e308, 5e-324, -0.0, 0.5, 1e15, 3.4e38])?),
        5 => Number::from_f64(u.arbitrary::<f64>()?).map_or(Value::Null, Value::Number),
        6 => json!(u.arbitrary::<u32>()?),
        _ => json!(u.arbitrary::<i32>()?),
    })
}

pub fn string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=9)? {
        0..=5 => u.choose(STRINGS)?.to_string(),
        6 => u.arbitrary::<String>()?,
        7 => {
            let n = u.int_in_range(1..=if long_strings() { 12_000 } else { 300 })?;
            u.choose(&["a", "é", "👍", "\n", "x"])?.repeat(n)
        }
        _ => u.choose(FIELDS)?.to_string(),
    })
}

fn long_strings() -> bool {
    std::env::var_os("FUZZ_LONG_STRINGS").is_some()
}

/// Any JSON value, biased to the vocabulary; objects nest up to `depth`.
pub fn value(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    Ok(match u.int_in_range(0..=12)? {
        0 => Value::Null,
        1 => json!(u.arbitrary::<bool>()?),
        2..=4 => number(u)?,
        5..=7 => json!(string(u)?),
        8 if depth > 0 => {
            let n = u.int_in_range(0..=4)?;
            Value::Array((0..n).map(|_| value(u, depth - 1)).collect::<Result<_>>()?)
        }
        9 if depth > 0 => {
            // A deep selector chain: {"node": {"node": … {"label": "Save"}}}.
            let mut v = json!({"label": string(u)?});
            let levels = u.int_in_range(1..=64)?;
            let key = *u.choose(&["node", "root", "to_node", "condition"])?;
            for _ in 0..levels {
                v = json!({ key: v });
            }
            v
        }
        _ if depth > 0 => Value::Object(object(u, depth - 1)?),
        _ => json!(string(u)?),
    })
}

pub fn object(u: &mut Unstructured<'_>, depth: u32) -> Result<Map<String, Value>> {
    let mut m = Map::new();
    let n = u.int_in_range(0..=5)?;
    for _ in 0..n {
        let k = if u.ratio(15, 16)? { u.choose(FIELDS)?.to_string() } else { u.arbitrary()? };
        m.insert(k, value(u, depth)?);
    }
    Ok(m)
}

/// A plausible argument object for op `name`: a selector or id for `node`, then fields.
pub fn op_args(u: &mut Unstructured<'_>, name: &str) -> Result<Map<String, Value>> {
    let mut m = object(u, 3)?;
    if u.ratio(3, 4)? && !matches!(name, "snapshot_tree" | "list_windows" | "settle") {
        let node = if u.ratio(1, 3)? {
            json!(u.int_in_range(0..=40)?)
        } else {
            let mut sel = Map::new();
            for f in ["role", "label", "label_contains", "value", "author_id"] {
                if u.ratio(1, 3)? {
                    sel.insert(f.into(), json!(string(u)?));
                }
            }
            if u.ratio(1, 6)? {
                sel.insert("nth".into(), number(u)?);
            }
            Value::Object(sel)
        };
        m.insert("node".into(), node);
    }
    Ok(m)
}
