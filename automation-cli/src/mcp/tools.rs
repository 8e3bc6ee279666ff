//! The MCP tool list, generated from core's catalog: one tool per op, strict input schemas,
//! annotations from the catalog; and the way back from a `tools/call` to a core [`Request`].

use std::sync::Arc;

use automation_core::catalog::spec;
use automation_core::{Access, CATALOG, ErrorCode, Op, OpError, OpSpec, Request, SettleSpec};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use super::image::{DEFAULT_MAX_BYTES, DEFAULT_MAX_DIMENSION};

/// Where and how a screenshot is returned (MCP-layer options, not op arguments).
#[derive(Debug, Clone, PartialEq)]
pub struct ShotOptions {
    /// Longest side of the returned image.
    pub max_dimension: u32,
    /// Largest base64 payload.
    pub max_bytes: usize,
    /// Write the full-size PNG here and return the path instead of pixels.
    pub save_to: Option<String>,
    /// Replace an existing regular file at `save_to` (never a symlink, FIFO, device or
    /// directory).
    pub overwrite: bool,
}

impl Default for ShotOptions {
    fn default() -> Self {
        Self {
            max_dimension: DEFAULT_MAX_DIMENSION,
            max_bytes: DEFAULT_MAX_BYTES,
            save_to: None,
            overwrite: false,
        }
    }
}

/// A parsed tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The core request.
    pub request: Request,
    /// For `screenshot`: how to return it.
    pub shot: Option<ShotOptions>,
}

/// Why a call could not become a request.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// No such tool (a JSON-RPC error).
    UnknownTool(String),
    /// Bad arguments (an `isError` result the model reads).
    Op(OpError),
}

/// Every tool, in catalog order.
pub fn tools() -> Vec<Tool> {
    CATALOG.iter().map(tool).collect()
}

/// The tool for one catalog entry.
pub fn tool(spec: &OpSpec) -> Tool {
    let read_only = spec.access == Access::ReadOnly;
    let annotations = ToolAnnotations::new()
        .read_only(read_only)
        .destructive(false)
        .idempotent(spec.idempotent)
        .open_world(false);
    Tool::new(spec.name, spec.description, Arc::new(input_schema(spec)))
        .with_annotations(annotations)
}

/// The tool's input schema: the op's own arguments (strict), plus `settle`
/// where the op accepts one, plus the screenshot's delivery options.
pub fn input_schema(spec: &OpSpec) -> JsonObject {
    let mut schema = match Op::args_schema(spec.name) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    schema.remove("$schema");
    schema.remove("title");
    schema.insert("type".into(), json!("object"));
    schema.insert("additionalProperties".into(), json!(false));
    let mut props = match schema.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    if spec.accepts_settle {
        let mut settle = schemars::schema_for!(SettleSpec).to_value();
        if let Value::Object(m) = &mut settle {
            m.remove("$schema");
            m.remove("title");
            m.insert(
                "description".into(),
                json!("How far to run the app after acting (all fields optional): clock_millis, max_anim_frames (default 60), layout_after, settle_timeout_ms (default 500), quiet_ms (real-clock apps, default 100)."),
            );
        }
        props.insert("settle".into(), settle);
    }
    if spec.name == "screenshot" {
        props.insert(
            "max_dimension".into(),
            json!({"type": "integer", "minimum": 1, "default": DEFAULT_MAX_DIMENSION, "description": "Downscale so the longest side is at most this many pixels; `scale` in the reply reports the result."}),
        );
        props.insert(
            "max_bytes".into(),
            json!({"type": "integer", "minimum": 1024, "default": DEFAULT_MAX_BYTES, "description": "Downscale further until the base64 PNG is at most this many bytes."}),
        );
        props.insert(
            "save_to".into(),
            json!({"type": "string", "description": "Write the full-size PNG to this new file and return its absolute path instead of pixels. A relative path is resolved against the server's current directory. The file must not exist (see overwrite); symlinks, FIFOs, devices and directories are refused."}),
        );
        props.insert(
            "overwrite".into(),
            json!({"type": "boolean", "default": false, "description": "With save_to: replace an existing regular file (never a symlink, FIFO, device or directory)."}),
        );
    }
    for v in props.values_mut() {
        simplify_nullable(v);
    }
    schema.insert("properties".into(), Value::Object(props));
    schema
}

/// `Option<T>` comes out of schemars as `type: [T, "null"]` or `anyOf: [T, null]`, which some
/// clients refuse; an optional property is simply absent, so drop the `null` arm.
fn simplify_nullable(v: &mut Value) {
    let Value::Object(m) = v else { return };
    if let Some(Value::Array(types)) = m.get("type") {
        let rest: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if rest.len() == 1 && types.len() == 2 {
            m.insert(
                "type".into(),
                rest.into_iter().next().unwrap_or(Value::Null),
            );
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(arms)) = m.get(key) else {
            continue;
        };
        let rest: Vec<Value> = arms
            .iter()
            .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
            .cloned()
            .collect();
        if rest.len() == 1 && arms.len() == 2 {
            m.remove(key);
            if let Some(Value::Object(inner)) = rest.into_iter().next() {
                for (k, val) in inner {
                    m.entry(k).or_insert(val);
                }
            }
        }
    }
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for p in props.values_mut() {
            simplify_nullable(p);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(inner) = m.get_mut(key) {
            simplify_nullable(inner);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(arms)) = m.get_mut(key) {
            for a in arms {
                simplify_nullable(a);
            }
        }
    }
}

/// Turns a `tools/call` into a request. Unknown arguments are refused by the op's strict
/// parser, with a message naming the field.
pub fn parse_call(name: &str, arguments: Option<JsonObject>) -> Result<Call, CallError> {
    let Some(spec) = spec(name) else {
        return Err(CallError::UnknownTool(name.to_string()));
    };
    let mut args = arguments.unwrap_or_default();
    let settle = if spec.accepts_settle {
        args.remove("settle").unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    let shot = if spec.name == "screenshot" {
        Some(shot_options(&mut args)?)
    } else {
        None
    };
    let mut op = Map::new();
    op.insert(spec.name.into(), Value::Object(args));
    let request =
        Request::from_value(json!({"op": op, "settle": settle})).map_err(CallError::Op)?;
    Ok(Call { request, shot })
}

fn shot_options(args: &mut JsonObject) -> Result<ShotOptions, CallError> {
    let bad = |field: &str, want: &str| {
        CallError::Op(
            OpError::new(
                ErrorCode::BadRequest,
                format!("screenshot: `{field}` must be {want}"),
            )
            .with_hint("see the screenshot tool's input schema"),
        )
    };
    let mut o = ShotOptions::default();
    if let Some(v) = args.remove("max_dimension").filter(|v| !v.is_null()) {
        o.max_dimension = v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n >= 1)
            .ok_or_else(|| bad("max_dimension", "a positive integer"))?;
    }
    if let Some(v) = args.remove("max_bytes").filter(|v| !v.is_null()) {
        o.max_bytes = v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n >= 1024)
            .ok_or_else(|| bad("max_bytes", "an integer ≥ 1024"))?;
    }
    if let Some(v) = args.remove("save_to").filter(|v| !v.is_null()) {
        o.save_to = Some(
            v.as_str()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| bad("save_to", "a file path"))?
                .to_string(),
        );
    }
    if let Some(v) = args.remove("overwrite").filter(|v| !v.is_null()) {
        o.overwrite = v
            .as_bool()
            .ok_or_else(|| bad("overwrite", "true or false"))?;
        if o.overwrite && o.save_to.is_none() {
            return Err(bad(
                "overwrite",
                "given only with save_to (it says whether save_to may replace a file)",
            ));
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_tool_per_op_and_strict_schemas() {
        let tools = tools();
        assert_eq!(tools.len(), CATALOG.len());
        for t in &tools {
            assert_eq!(
                t.input_schema.get("additionalProperties"),
                Some(&json!(false)),
                "{}",
                t.name
            );
            assert_eq!(
                t.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                t.name
            );
            let props = t
                .input_schema
                .get("properties")
                .and_then(Value::as_object)
                .unwrap();
            assert!(!props.contains_key("window_id"));
            let s = spec(&t.name).unwrap();
            assert_eq!(props.contains_key("settle"), s.accepts_settle, "{}", t.name);
            let a = t.annotations.as_ref().unwrap();
            assert_eq!(a.read_only_hint, Some(s.access == Access::ReadOnly));
            assert_eq!(a.idempotent_hint, Some(s.idempotent));
        }
    }

    #[test]
    fn no_nullable_types_left_in_properties() {
        for t in tools() {
            let text = Value::Object((*t.input_schema).clone()).to_string();
            assert!(!text.contains(r#""null""#), "{}: {text}", t.name);
        }
    }

    #[test]
    fn calls_become_requests() {
        let args = json!({"role": "Button", "label": "Save"})
            .as_object()
            .cloned();
        let call = parse_call("find_node", args).unwrap();
        assert_eq!(call.request.op.name(), "find_node");
        let args = json!({"node": "5", "action": "click", "settle": {"clock_millis": 10}})
            .as_object()
            .cloned();
        let call = parse_call("invoke_action", args).unwrap();
        assert_eq!(call.request.settle.map(|s| s.clock_millis), Some(10));
        assert!(parse_call("list_windows", None).is_ok());
    }

    #[test]
    fn unknown_arguments_name_the_field() {
        let args = json!({"lable": "Save"}).as_object().cloned();
        let Err(CallError::Op(e)) = parse_call("find_node", args) else {
            panic!("expected an op error")
        };
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert!(e.message.contains("lable"), "{}", e.message);
        let args = json!({"settle": {}}).as_object().cloned();
        let Err(CallError::Op(e)) = parse_call("find_node", args) else {
            panic!("expected an op error")
        };
        assert!(e.message.contains("settle"), "{}", e.message);
    }

    #[test]
    fn unknown_tools_are_protocol_errors() {
        assert_eq!(
            parse_call("nope", None),
            Err(CallError::UnknownTool("nope".into()))
        );
    }

    #[test]
    fn screenshot_options_are_split_off() {
        let args = json!({"max_dimension": 640, "save_to": "/tmp/x.png"})
            .as_object()
            .cloned();
        let call = parse_call("screenshot", args).unwrap();
        let shot = call.shot.unwrap();
        assert_eq!(
            (shot.max_dimension, shot.save_to.as_deref()),
            (640, Some("/tmp/x.png"))
        );
        let args = json!({"max_dimension": "big"}).as_object().cloned();
        assert!(matches!(
            parse_call("screenshot", args),
            Err(CallError::Op(_))
        ));
    }
}
