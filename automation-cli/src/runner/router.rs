//! Where a step's tool call goes: the MCP server's own router (`mcp::call_shaped`: the same
//! parsing and result shaping as a direct `tools/call`), answered in place by [`OnTarget`]
//! on the target thread, where the steps run.

use automation_core::Cancel;
use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

use crate::backend::{Backend, serve_caught};
use crate::mcp::Shaped;

/// A tool call's outcome, as a step sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// The call failed (an `isError` result, or a protocol error such as an unknown tool).
    pub is_error: bool,
    /// The structured content (the op's data, or the error `{code, message, hint?, …}`).
    pub value: Value,
    /// A PNG the call returned (base64), for screenshots.
    pub image_base64: Option<String>,
}

/// Anything that answers tool calls ([`OnTarget`], or a test double in unit tests).
pub trait Router {
    /// Runs one tool call to completion.
    fn call(&mut self, tool: &str, args: Map<String, Value>) -> ToolOutcome;
}

/// The router of steps that run on the target thread: each call served in place, stoppable
/// through `cancel` like a direct call (a key of `type_text`, a settle frame, a wait poll).
pub struct OnTarget<'a> {
    backend: &'a mut Box<dyn Backend>,
    cancel: Cancel,
}

impl<'a> OnTarget<'a> {
    /// Calls served by `backend`, stopped by `cancel`.
    pub fn new(backend: &'a mut Box<dyn Backend>, cancel: Cancel) -> Self {
        Self { backend, cancel }
    }
}

impl Router for OnTarget<'_> {
    fn call(&mut self, tool: &str, args: Map<String, Value>) -> ToolOutcome {
        let (backend, cancel) = (&mut *self.backend, &self.cancel);
        from_call(crate::mcp::call_shaped(tool, Some(args), |request| {
            serve_caught(backend, &request, cancel)
        }))
    }
}

fn from_call(call: Result<Shaped, McpError>) -> ToolOutcome {
    match call {
        // The data as is: a direct call's JSON text of it is never read here.
        Ok(Shaped::Data { value, is_error }) => ToolOutcome {
            is_error,
            value,
            image_base64: None,
        },
        Ok(shaped) => outcome(shaped.into_result()),
        Err(e) => ToolOutcome {
            is_error: true,
            value: json!({"code": "BAD_REQUEST", "message": e.message, "hint": "list the tools with tools/list"}),
            image_base64: None,
        },
    }
}

/// A tool result as an outcome: its structured content (or its text), and its image.
pub fn outcome(result: CallToolResult) -> ToolOutcome {
    let is_error = result.is_error.unwrap_or(false);
    let mut image = None;
    let mut text = None;
    for block in result.content {
        match block {
            ContentBlock::Image(i) if image.is_none() => image = Some(i.data),
            ContentBlock::Text(t) if text.is_none() => text = Some(t.text),
            _ => {}
        }
    }
    let value = result.structured_content.unwrap_or_else(|| {
        text.as_deref()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_else(|| text.map(Value::String).unwrap_or(Value::Null))
    });
    ToolOutcome {
        is_error,
        value,
        image_base64: image,
    }
}
