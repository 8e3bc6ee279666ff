//! What a tool name names: an op of core's catalog, or one of the tools that are no op:
//! `execute_sequence` (the runner serves it), `export_test` (the MCP server's session log) and
//! `assert_screenshot` (ops composed with a baseline file, [`super::golden`]) and `audit_app`
//! (the accessibility audit, [`super::audit`]).

use automation_core::OpSpec;

/// The tool that runs a test (steps or a script) against the session: not an op of the
/// catalog, served by the runner.
pub const SEQUENCE: &str = "execute_sequence";

/// The tool that exports the MCP session as a test: not an op of the catalog, served by the
/// MCP server from its session log (`crate::authoring`).
pub const EXPORT: &str = "export_test";

/// The tools that are no op of the catalog, in the order the tool list shows them after the
/// ops.
pub const NOT_OPS: [&str; 4] = [
    SEQUENCE,
    EXPORT,
    super::golden::ASSERT_SCREENSHOT,
    super::audit::AUDIT_APP,
];

/// What a tool name names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// An op of core's catalog.
    Op(&'static OpSpec),
    /// `execute_sequence`: a test run against the session.
    Sequence,
    /// `export_test`: the session so far, as a test.
    Export,
    /// `assert_screenshot`: a capture against its baseline.
    Golden,
    /// `audit_app`: the accessibility audit.
    Audit,
}

/// The tool called `name`, if there is one.
pub fn lookup(name: &str) -> Option<Tool> {
    if name == SEQUENCE {
        return Some(Tool::Sequence);
    }
    if name == EXPORT {
        return Some(Tool::Export);
    }
    if name == super::golden::ASSERT_SCREENSHOT {
        return Some(Tool::Golden);
    }
    if name == super::audit::AUDIT_APP {
        return Some(Tool::Audit);
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
