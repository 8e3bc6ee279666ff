//! The `automation` binary's own surface, through the real binary: the command line a
//! newcomer meets, MCP over stdio and HTTP (hostile input, files, attaching to a live app, the
//! token budgets of `tools/list` and snapshots), the docs (generated sections, examples, every
//! code block) and the house rules.

#[path = "../support/mod.rs"]
mod support;

mod attach;
mod attach_busy;
mod cli;
mod docs;
mod docs_blocks;
mod docs_examples;
mod house;
mod mcp_e2e;
mod mcp_files;
mod mcp_hostile;
mod mcp_http;
mod newcomer;
mod snapshot_budget;
mod tools_budget;
