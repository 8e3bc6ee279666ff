//! Each op tool's input schema: the op's own arguments (strict), `settle` where the op
//! accepts one, and an image's delivery options — what [`super::parse()`] accepts, compacted
//! (see [`super::compact`]). The MCP tool list and `automation tools` both show it.

use automation_core::catalog::ReplyKind;
use automation_core::{Op, OpSpec, SettleSpec};
use serde_json::{Map, Value, json};

use super::compact;
use super::image::{DEFAULT_MAX_BYTES, DEFAULT_MAX_DIMENSION};

/// The tool's input schema: the op's own arguments (strict), plus `settle` where the op
/// accepts one, plus the screenshot's delivery options; compacted.
pub fn input_schema(spec: &OpSpec) -> Map<String, Value> {
    let mut schema = match Op::args_schema(spec.name) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    schema.remove("$schema");
    schema.remove("title");
    // The struct's doc ("`scroll`: turn the wheel over a node") repeats the tool's description.
    schema.remove("description");
    schema.insert("type".into(), json!("object"));
    schema.insert("additionalProperties".into(), json!(false));
    let mut props = match schema.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    if spec.accepts_settle {
        props.insert("settle".into(), settle_schema(spec.name == "settle"));
    }
    if offers_selector(spec) {
        props.insert(
            "with_selector".into(),
            json!({"type": "boolean", "description": "Also return `selector`: the durable selector a test should use for this node."}),
        );
    }
    if spec.reply == ReplyKind::Image {
        props.insert(
            "max_dimension".into(),
            json!({"type": "integer", "minimum": 1, "default": DEFAULT_MAX_DIMENSION, "description": "Longest side in px (downscaled; `scale` in the reply)."}),
        );
        props.insert(
            "max_bytes".into(),
            json!({"type": "integer", "minimum": 1024, "default": DEFAULT_MAX_BYTES, "description": "Largest base64 PNG (downscaled further)."}),
        );
        props.insert(
            "save_to".into(),
            json!({"type": "string", "description": "Write the full-size PNG to this new file (relative: to the server's directory) and return its path, not pixels."}),
        );
        props.insert(
            "overwrite".into(),
            json!({"type": "boolean", "description": "With save_to: replace an existing regular file."}),
        );
    }
    for v in props.values_mut() {
        compact::simplify_nullable(v);
        compact::strip_noise(v);
        compact::compact(v);
    }
    schema.insert("properties".into(), Value::Object(props));
    schema
}

/// Whether a tool takes `with_selector`: the read-only data tools that name one node (by a
/// `node` argument, or as `find_node` by being a selector). Every op can be asked for it on
/// the wire (`Request::with_selector`); the tool list offers it where a reader wants it.
pub fn offers_selector(spec: &OpSpec) -> bool {
    use std::collections::HashSet;
    use std::sync::LazyLock;
    static OFFERED: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
        automation_core::CATALOG
            .iter()
            .filter(|s| s.access == automation_core::Access::ReadOnly && s.reply == ReplyKind::Data)
            .filter(|s| {
                Op::args_schema(s.name)
                    .and_then(|v| v.get("properties").cloned())
                    .is_some_and(|p| p.get("node").is_some() || p.get("author_id").is_some())
            })
            .map(|s| s.name)
            .collect()
    });
    OFFERED.contains(spec.name)
}

/// The settle spec in full on the `settle` tool, a pointer to it everywhere else.
fn settle_schema(full: bool) -> Value {
    if !full {
        return json!({"type": "object", "description": compact::SETTLE_REF});
    }
    let mut settle = schemars::schema_for!(SettleSpec).to_value();
    if let Value::Object(m) = &mut settle {
        m.remove("$schema");
        m.remove("title");
        m.insert(
            "description".into(),
            json!("How far to run the app after acting (all fields optional; every settling tool takes it)."),
        );
    }
    settle
}
