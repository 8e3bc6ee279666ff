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

pub mod audit;
pub mod compact;
pub mod golden;
pub mod image;
pub mod lookup;
pub mod parse;
pub mod save;
pub mod schema;
pub mod shape;

use automation_core::{Reply, Request};
use serde_json::{Map, Value};

pub use golden::{ASSERT_SCREENSHOT, DEFAULT_SNAPSHOTS_DIR, Snapshots};
pub use lookup::{EXPORT, NOT_OPS, SEQUENCE, Tool, UnknownTool, lookup};
pub use parse::{Call, Delivery, ParseError, ShotOptions, parse};
pub use shape::{Image, Outcome};

/// One tool call, start to end: parsed, served by `serve` (which gets each request), shaped.
/// Bad arguments (and the sequence tool, which is no op) are an [`Outcome::Failed`] like any op
/// error; only an unknown name is refused. A call that names a node answers its durable
/// `selector` too (for records and logs; [`strip_selector`] takes it out of a reply nobody
/// asked it for). `assert_screenshot` is served from its ops with `snapshots`.
pub fn call(
    name: &str,
    args: Map<String, Value>,
    snapshots: &Snapshots,
    mut serve: impl FnMut(&Request) -> Reply,
) -> Result<Outcome, UnknownTool> {
    if lookup(name) == Some(Tool::Golden) {
        return Ok(golden::assert_screenshot(args, snapshots, &mut serve)
            .map_or_else(Outcome::Failed, Outcome::Data));
    }
    if lookup(name) == Some(Tool::Audit) {
        return Ok(audit::audit_app(args, &mut serve).map_or_else(Outcome::Failed, Outcome::Data));
    }
    match parse(name, args) {
        Ok(mut call) => {
            call.request.with_selector |= names_a_node(&call.request.op);
            Ok(shape::shape(serve(&call.request), &call.delivery))
        }
        Err(ParseError::Bad(e)) => Ok(Outcome::Failed(e)),
        Err(ParseError::Unknown(u)) => Err(u),
    }
}

/// Whether an op names one node (a `node` argument, or `find_node`'s match): a record or a
/// session log wants that node's durable selector, taken by core at the call.
pub fn names_a_node(op: &automation_core::Op) -> bool {
    matches!(op, automation_core::Op::FindNode(_)) || op.node().is_some()
}

/// The settle of a capture that shows the app as it is (the report's screenshot after an
/// action, the inspector's): one frame, at most 150 ms — a spinner on a live app would
/// otherwise hold it for the whole default budget.
pub fn glance() -> automation_core::SettleSpec {
    automation_core::SettleSpec {
        max_anim_frames: 1,
        settle_timeout_ms: 150,
        quiet_ms: 30,
        ..automation_core::SettleSpec::default()
    }
}

/// The reply fields `with_selector` adds.
pub const SELECTOR_FIELDS: [&str; 2] = ["selector", "selector_note"];

/// Takes the durable selector (or the note why there is none) out of a reply's data.
pub fn strip_selector(data: &mut Value) {
    if let Value::Object(m) = data {
        for field in SELECTOR_FIELDS {
            m.remove(field);
        }
    }
}

/// Whether a tool call's arguments ask for the selector themselves.
pub fn asks_selector(args: &Map<String, Value>) -> bool {
    args.get("with_selector") == Some(&Value::Bool(true))
}
