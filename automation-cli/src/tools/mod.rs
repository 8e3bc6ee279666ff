//! The tool-call layer every front door shares — the MCP server, the runner's steps (and,
//! later, WebDriver): look a tool up, parse a call into a core [`Request`], run it, shape the
//! reply. Typed end to end and free of any protocol's types: MCP turns an [`Outcome`] into a
//! `CallToolResult` (and only there are PNG bytes base64), a step reads it as it is.
//!
//! The data's path, one module each:
//! - [`lookup`](mod@lookup): what a tool name names (an op of the catalog, or the sequence tool);
//! - [`parse`](mod@parse): a tool name and its JSON arguments → a [`Call`] (the request and how to
//!   deliver its reply), or a typed refusal;
//! - [`shape`]: the target's [`Reply`] → an [`Outcome`] (data, a snapshot's text, an image
//!   as bytes, or an error), as the catalog's [`ReplyKind`](automation_core::catalog::ReplyKind)
//!   says;
//! - [`schema`] and [`compact`]: the input schema of each tool (what [`parse()`] accepts);
//! - [`image`]: screenshot budgets; [`save`]: writing a PNG without following links.
//!
//! [`call`] is the one entry point for a caller that serves the request in place; an async
//! caller (MCP) runs the same two halves, [`parse()`] and [`shape::shape`], around its await
//! (moving the request to the target thread rather than copying it).

pub mod compact;
pub mod image;
pub mod lookup;
pub mod parse;
pub mod save;
pub mod schema;
pub mod shape;

use automation_core::{Reply, Request};
use serde_json::{Map, Value};

pub use lookup::{EXPORT, SEQUENCE, Tool, UnknownTool, lookup};
pub use parse::{Call, Delivery, ParseError, ShotOptions, parse};
pub use shape::{Image, Outcome};

/// One op tool call, start to end: parsed, served by `serve` (which gets the request), shaped.
/// Bad arguments (and the sequence tool, which is no op) are an [`Outcome::Failed`] like any op
/// error; only an unknown name is refused.
pub fn call(
    name: &str,
    args: Map<String, Value>,
    serve: impl FnOnce(&Request) -> Reply,
) -> Result<Outcome, UnknownTool> {
    match parse(name, args) {
        Ok(call) => Ok(shape::shape(serve(&call.request), &call.delivery)),
        Err(ParseError::Bad(e)) => Ok(Outcome::Failed(e)),
        Err(ParseError::Unknown(u)) => Err(u),
    }
}
