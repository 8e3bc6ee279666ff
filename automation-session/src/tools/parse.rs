//! From a tool call (a name and its JSON arguments) to a core [`Request`] and the way its
//! reply is delivered. Unknown arguments are refused by the op's strict parser, naming the
//! field; the delivery options of an image reply (size budget, `save_to`) are split off here.

use automation_core::catalog::{LIST_OPS_HINT, ReplyKind, args_hint};
use automation_core::{ErrorCode, OpError, Request};
use serde_json::{Map, Value, json};

use super::image::{DEFAULT_MAX_BYTES, DEFAULT_MAX_DIMENSION};
use super::lookup::{Tool, UnknownTool, lookup};

/// Where and how a screenshot is returned (delivery options, not op arguments).
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

/// How a call's successful reply is delivered: the op's [`ReplyKind`], with an image's
/// options.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    /// Structured data.
    Data,
    /// A snapshot, read as one text block.
    Snapshot,
    /// An image, within these options.
    Image(ShotOptions),
}

/// A parsed tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The core request.
    pub request: Request,
    /// How its reply is delivered.
    pub delivery: Delivery,
}

/// Why a call could not become a request.
#[derive(Debug, Clone, PartialEq)]
pub enum ParseError {
    /// No such tool (a protocol error).
    Unknown(UnknownTool),
    /// Bad arguments (an op error the caller reads).
    Bad(OpError),
}

impl From<OpError> for ParseError {
    fn from(e: OpError) -> Self {
        Self::Bad(e)
    }
}

/// Turns a tool call into a request and its delivery.
pub fn parse(name: &str, mut args: Map<String, Value>) -> Result<Call, ParseError> {
    let spec = match lookup(name) {
        Some(Tool::Op(spec)) => spec,
        Some(tool @ (Tool::Sequence | Tool::Export | Tool::Golden | Tool::Audit)) => {
            let (what, fix) = match tool {
                Tool::Sequence => (
                    "runs a test; it cannot be one call of a test",
                    "list the ops it would run as steps of this flow instead",
                ),
                Tool::Export => (
                    "exports an MCP session as a test; it is no op a test can call",
                    "call it on the MCP server after the session's calls",
                ),
                Tool::Audit => (
                    "audits the app with many ops; it is no single op",
                    "call it as a tool (MCP, a flow's step) or run `automation audit`",
                ),
                _ => (
                    "checks a screenshot against a baseline file; it is served with a snapshots directory, not as one op",
                    "call it as a tool (MCP, a flow's step, the JS client's toMatchScreenshot), not through `automation op`",
                ),
            };
            return Err(ParseError::Bad(
                OpError::new(ErrorCode::BadRequest, format!("{name} {what}")).with_hint(fix),
            ));
        }
        None => return Err(ParseError::Unknown(UnknownTool(name.to_string()))),
    };
    let settle = if spec.accepts_settle {
        args.remove("settle").unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    let with_selector = if super::schema::offers_selector(spec) {
        match args.remove("with_selector") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => b,
            Some(other) => {
                return Err(ParseError::Bad(
                    OpError::bad_argument(format!(
                        "with_selector must be true or false, got {other}"
                    ))
                    .with_hint(r#"e.g. "with_selector": true"#),
                ));
            }
        }
    } else {
        false
    };
    let delivery = match spec.reply {
        ReplyKind::Data => Delivery::Data,
        ReplyKind::Snapshot => Delivery::Snapshot,
        ReplyKind::Image => Delivery::Image(shot_options(&mut args)?),
    };
    let mut op = Map::new();
    op.insert(spec.name.into(), Value::Object(args));
    let request =
        Request::from_value(json!({"op": op, "settle": settle, "with_selector": with_selector}))
            .map_err(|e| tool_hints(spec.name, e))?;
    Ok(Call { request, delivery })
}

/// Core words its "where are the parameters" hints for the CLI (`automation tools`); a tool
/// caller finds them in the tool list. Only those hints, recognised by core's own wording,
/// are rewritten: the errors themselves stay core's.
pub fn tool_hints(tool: &str, mut e: OpError) -> OpError {
    let hint = e.hint.as_deref();
    if hint == Some(args_hint(tool).as_str()) {
        e.hint = Some(format!(
            "see the inputSchema of the `{tool}` tool in tools/list for its parameters"
        ));
    } else if hint == Some(LIST_OPS_HINT) {
        e.hint = Some("list the tools with tools/list".to_owned());
    }
    e
}

fn shot_options(args: &mut Map<String, Value>) -> Result<ShotOptions, OpError> {
    let bad = |field: &str, want: &str| {
        OpError::new(
            ErrorCode::BadRequest,
            format!("screenshot: `{field}` must be {want}"),
        )
        .with_hint("see the screenshot tool's input schema")
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

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn calls_become_requests() {
        let call = parse(
            "find_node",
            args(json!({"role": "Button", "label": "Save"})),
        )
        .unwrap();
        assert_eq!(call.request.op.name(), "find_node");
        assert_eq!(call.delivery, Delivery::Data);
        let call = parse(
            "invoke_action",
            args(json!({"node": "5", "action": "click", "settle": {"clock_millis": 10}})),
        )
        .unwrap();
        assert_eq!(call.request.settle.map(|s| s.clock_millis), Some(10));
        assert!(parse("list_windows", Map::new()).is_ok());
        assert_eq!(
            parse("snapshot_tree", Map::new()).unwrap().delivery,
            Delivery::Snapshot
        );
    }

    #[test]
    fn unknown_arguments_name_the_field() {
        let Err(ParseError::Bad(e)) = parse("find_node", args(json!({"lable": "Save"}))) else {
            panic!("expected an op error")
        };
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert!(e.message.contains("lable"), "{}", e.message);
        // The hint names the tool list, not the CLI.
        let hint = e.hint.clone().unwrap_or_default();
        assert!(hint.contains("tools/list"), "{hint}");
        assert!(!hint.contains("automation tools"), "{hint}");
        let Err(ParseError::Bad(e)) = parse("find_node", args(json!({"settle": {}}))) else {
            panic!("expected an op error")
        };
        assert!(e.message.contains("settle"), "{}", e.message);
    }

    #[test]
    fn unknown_tools_and_the_sequence_tool_are_no_op_calls() {
        assert_eq!(
            parse("nope", Map::new()),
            Err(ParseError::Unknown(UnknownTool("nope".into())))
        );
        let Err(ParseError::Bad(e)) = parse(super::super::lookup::SEQUENCE, Map::new()) else {
            panic!("execute_sequence is no op")
        };
        assert_eq!(e.code, ErrorCode::BadRequest);
    }

    #[test]
    fn screenshot_options_are_split_off() {
        let call = parse(
            "screenshot",
            args(json!({"max_dimension": 640, "save_to": "/tmp/x.png"})),
        )
        .unwrap();
        let Delivery::Image(shot) = call.delivery else {
            panic!("a screenshot delivers an image")
        };
        assert_eq!(
            (shot.max_dimension, shot.save_to.as_deref()),
            (640, Some("/tmp/x.png"))
        );
        assert!(matches!(
            parse("screenshot", args(json!({"max_dimension": "big"}))),
            Err(ParseError::Bad(_))
        ));
    }
}
