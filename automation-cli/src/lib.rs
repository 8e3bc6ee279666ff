//! The `automation` binary: an MCP server over stdio for headless and attached apps, one-shot
//! verbs for scripts, and a runner for any test command's events.
//!
//! It is thin on purpose: core executes ops, wire connects to live apps and reads the event
//! pipe, transpile parses expressions and scripts, and `automation-session` holds what a
//! session drives (the target thread, the modes, the tool-call layer, files, the watchdog);
//! this crate composes them.
//!
//! - [`cli`]: the clap definitions (modes as one mutually exclusive group, and the verbs).
//! - [`app`]: dispatch, streams and exit codes.
//! - [`mcp`]: the MCP server, a thin adapter over `automation_session::tools` (the tool list generated from the
//!   catalog, `execute_sequence` and its progress notifications).
//! - [`verbs`]: `op`, `tools`, `eval`, `transpile`.
//! - [`exec`]: `exec`, any test command as one more kind of flow feeding the runner's sinks.
//! - [`runner`]: `run` and `execute_sequence`: scripts and steps, live sinks, sharding.
//! - [`authoring`]: `export_test` — the MCP session's log, planned and written as a test.
//! - [`seeing`]: the HTML report of a run, and the live inspector.
//! - [`reach`]: many sessions over HTTP: `automation webdriver` (W3C WebDriver) and
//!   `automation serve --http` (MCP over streamable HTTP).
//! - [`docs`]: the generated part of `docs/mcp.md`.
//! - [`edge`]: the one network edge every HTTP server stands behind (the loopback `Host`, the
//!   peer's user, `Origin`, the token, content types, timeouts, connection caps).

pub mod app;
pub mod authoring;
pub mod cli;
pub mod docs;
pub mod edge;
pub mod exec;
pub mod mcp;
pub mod reach;
pub mod runner;
pub mod seeing;
pub mod verbs;

pub use app::run;
