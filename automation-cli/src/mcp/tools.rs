//! The MCP tool list, generated from core's catalog: one tool per op, strict input schemas
//! (compacted, see [`super::compact`]), annotations from the catalog; and the way back from a
//! `tools/call` to a core [`Request`].
//!
//! Which tools `tools/list` shows is each op's [`Cap`] in the catalog, and nothing else:
//! `core` by default, more with `--caps`. A tool that is not an op would be added in
//! [`tools`] with a cap of its own; `tests/tools_budget.rs` counts whatever the real binary
//! sends.

use std::sync::Arc;

use automation_core::catalog::spec;
use automation_core::{Access, CATALOG, Cap, ErrorCode, Op, OpError, OpSpec, Request, SettleSpec};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use super::compact;
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

/// The tool sets a server lists: `core` always, plus those asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caps(Vec<Cap>);

impl Default for Caps {
    fn default() -> Self {
        Self(vec![Cap::Core])
    }
}

impl Caps {
    /// Every cap: all ops listed.
    pub fn all() -> Self {
        Self(Cap::ALL.to_vec())
    }

    /// Parses `--caps`: a comma-separated list of cap names, or `all`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut caps = vec![Cap::Core];
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name.eq_ignore_ascii_case("all") {
                return Ok(Self::all());
            }
            let cap = Cap::from_name(name).ok_or_else(|| {
                let known: Vec<&str> = Cap::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "--caps: unknown capability {name:?}; known: {}, or all",
                    known.join(", ")
                )
            })?;
            if !caps.contains(&cap) {
                caps.push(cap);
            }
        }
        caps.sort();
        Ok(Self(caps))
    }

    /// Whether tools of `cap` are listed.
    pub fn lists(&self, cap: Cap) -> bool {
        self.0.contains(&cap)
    }

    /// The caps, in catalog order.
    pub fn caps(&self) -> &[Cap] {
        &self.0
    }
}

/// The tools `tools/list` shows for `caps`, in catalog order.
pub fn tools(caps: &Caps) -> Vec<Tool> {
    CATALOG
        .iter()
        .filter(|s| caps.lists(s.cap))
        .map(tool)
        .collect()
}

/// The tool for one catalog entry. Annotations carry only what differs from the spec's
/// defaults or matters for this kind of tool: `destructiveHint` and `idempotentHint` mean
/// something only when `readOnlyHint` is false, and `idempotentHint` defaults to false.
pub fn tool(spec: &OpSpec) -> Tool {
    let read_only = spec.access == Access::ReadOnly;
    let mut annotations = ToolAnnotations::new().open_world(false);
    if read_only {
        annotations = annotations.read_only(true);
    } else {
        annotations = annotations.destructive(false);
        if spec.idempotent {
            annotations = annotations.idempotent(true);
        }
    }
    Tool::new(spec.name, spec.description, Arc::new(input_schema(spec)))
        .with_annotations(annotations)
}

/// The tool's input schema: the op's own arguments (strict), plus `settle` where the op
/// accepts one, plus the screenshot's delivery options; compacted.
pub fn input_schema(spec: &OpSpec) -> JsonObject {
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
    if spec.name == "screenshot" {
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
    let request = Request::from_value(json!({"op": op, "settle": settle}))
        .map_err(|e| CallError::Op(for_mcp(spec.name, e)))?;
    Ok(Call { request, shot })
}

/// Core words its "where are the parameters" hints for the CLI (`automation tools`); an MCP
/// client finds them in `tools/list`. Only those hints, recognised by core's own wording,
/// are rewritten: the errors themselves stay core's.
pub fn for_mcp(tool: &str, mut e: OpError) -> OpError {
    let hint = e.hint.as_deref();
    if hint == Some(automation_core::catalog::args_hint(tool).as_str()) {
        e.hint = Some(format!(
            "see the inputSchema of the `{tool}` tool in tools/list for its parameters"
        ));
    } else if hint == Some(automation_core::catalog::LIST_OPS_HINT) {
        e.hint = Some("list the tools with tools/list".to_owned());
    }
    e
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
        let tools = tools(&Caps::all());
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
            assert_eq!(a.open_world_hint, Some(false));
            if s.access == Access::ReadOnly {
                assert_eq!(a.read_only_hint, Some(true), "{}", t.name);
            } else {
                // Absent means false (the spec's default) for both.
                assert_eq!(a.read_only_hint, None, "{}", t.name);
                assert_eq!(a.destructive_hint, Some(false), "{}", t.name);
                assert_eq!(
                    a.idempotent_hint.unwrap_or(false),
                    s.idempotent,
                    "{}",
                    t.name
                );
            }
        }
    }

    #[test]
    fn no_nullable_types_left_in_properties() {
        for t in tools(&Caps::all()) {
            let text = Value::Object((*t.input_schema).clone()).to_string();
            assert!(!text.contains(r#""null""#), "{}: {text}", t.name);
        }
    }

    #[test]
    fn core_is_listed_by_default_and_caps_add_the_rest() {
        let core = tools(&Caps::default());
        assert!(core.len() < CATALOG.len());
        assert!(core.iter().all(|t| spec(&t.name).unwrap().cap == Cap::Core));
        assert!(core.iter().any(|t| t.name == "snapshot_tree"));
        let touch = tools(&Caps::parse("touch").unwrap());
        assert!(touch.iter().any(|t| t.name == "pinch"));
        assert!(touch.len() > core.len());
        assert_eq!(Caps::parse(" Touch , all").unwrap(), Caps::all());
        let e = Caps::parse("tuoch").unwrap_err();
        assert!(e.contains("tuoch") && e.contains("touch"), "{e}");
        // Unlisted tools are still callable: the list is a budget, not a permission.
        assert!(
            parse_call(
                "pinch",
                json!({"node": "1", "scale": 2.0}).as_object().cloned()
            )
            .is_ok()
        );
    }

    #[test]
    fn no_schema_block_is_repeated_in_full() {
        let all = tools(&Caps::all());
        let text: Vec<String> = all
            .iter()
            .map(|t| Value::Object((*t.input_schema).clone()).to_string())
            .collect();
        // The selector's fields are spelled out once, in find_node.
        let with_selector = text.iter().filter(|t| t.contains("author_id")).count();
        assert!(
            with_selector <= 2,
            "{with_selector} tools repeat the selector"
        );
        let with_settle_fields = text
            .iter()
            .filter(|t| t.contains("max_anim_frames"))
            .count();
        assert_eq!(with_settle_fields, 1, "the settle spec is spelled out once");
        for t in &text {
            assert!(!t.contains("\"$schema\""), "{t}");
            // The `format` keyword (not snapshot_tree's `format` argument).
            assert!(!t.contains("\"format\":\""), "{t}");
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
        // The hint speaks MCP, not CLI.
        let hint = e.hint.clone().unwrap_or_default();
        assert!(hint.contains("tools/list"), "{hint}");
        assert!(!hint.contains("automation tools"), "{hint}");
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
