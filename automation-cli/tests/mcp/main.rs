//! MCP through the real binary: over stdio and HTTP, hostile input, files, attaching to a live
//! app, and the token budgets of `tools/list` and snapshots.

#[path = "../support/mod.rs"]
mod support;

mod attach;
mod attach_busy;
mod mcp_e2e;
mod mcp_files;
mod mcp_hostile;
mod mcp_http;
mod snapshot_budget;
mod tools_budget;
