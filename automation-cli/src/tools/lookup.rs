//! What a tool name names: an op of core's catalog, or one of the two tools that are no op:
//! `execute_sequence` (the runner serves it) and `export_test` (the MCP server's session log).

use automation_core::OpSpec;

/// The tool that runs a test (steps or a script) against the session: not an op of the
/// catalog, served by the runner.
pub const SEQUENCE: &str = "execute_sequence";

/// The tool that exports the MCP session as a test: not an op of the catalog, served by the
/// MCP server from its session log (`crate::authoring`).
pub const EXPORT: &str = "export_test";

/// What a tool name names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// An op of core's catalog.
    Op(&'static OpSpec),
    /// `execute_sequence`: a test run against the session.
    Sequence,
    /// `export_test`: the session so far, as a test.
    Export,
}

/// The tool called `name`, if there is one.
pub fn lookup(name: &str) -> Option<Tool> {
    if name == SEQUENCE {
        return Some(Tool::Sequence);
    }
    if name == EXPORT {
        return Some(Tool::Export);
    }
    automation_core::catalog::spec(name).map(Tool::Op)
}

/// A tool name that names nothing (a protocol error, not an op's failure).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTool(pub String);

impl std::fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown tool {:?}; list the tools with tools/list",
            self.0
        )
    }
}
