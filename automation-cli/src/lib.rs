//! The `automation` binary: an MCP server over stdio for headless and attached apps, one-shot
//! verbs for scripts, and a runner for any test command's events.
//!
//! It is thin on purpose: core executes ops, wire connects to live apps and reads the event
//! pipe, transpile parses expressions and scripts, `automation-session` holds what a session
//! drives (the target thread, the modes, the tool-call layer, files, the watchdog), and
//! `automation-runner` runs flows, `exec` and authoring; this crate composes them.
//!
//! - [`cli`]: the clap definitions (modes as one mutually exclusive group, and the verbs).
//! - [`app`]: dispatch, streams and exit codes.
//! - [`mcp`]: the MCP server, a thin adapter over `automation_session::tools` (the tool list generated from the
//!   catalog, `execute_sequence` and its progress notifications).
//! - [`verbs`]: `op`, `tools`, `eval`, `transpile`.
//! - [`seeing`]: the live inspector, and `show-report` (the report itself is the runner's).
//! - [`reach`]: many sessions over HTTP: `automation webdriver` (W3C WebDriver) and
//!   `automation serve --http` (MCP over streamable HTTP).
//! - [`docs`]: the generated part of `docs/mcp.md`.
//! - [`edge`]: the one network edge every HTTP server stands behind (the loopback `Host`, the
//!   peer's user, `Origin`, the token, content types, timeouts, connection caps).

pub mod app;
pub mod cli;
pub mod docs;
pub mod edge;
pub mod mcp;
pub mod reach;
pub mod seeing;
pub mod verbs;

pub use app::run;
