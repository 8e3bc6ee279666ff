//! The `automation` binary: an MCP server over stdio for headless and attached apps, one-shot
//! verbs for scripts, and a runner for any test command's events.
//!
//! It is thin on purpose: core executes ops, wire connects to live apps and reads the event
//! pipe, transpile parses expressions and scripts, `automation-session` holds what a session
//! drives (the target thread, the modes, the tool-call layer, files, the watchdog),
//! `automation-runner` runs flows, `exec` and authoring, and `automation-http` serves
//! WebDriver, the inspector and `show-report` behind one edge; this crate composes them.
//!
//! - [`cli`]: the clap definitions (modes as one mutually exclusive group, and the verbs).
//! - [`app`]: dispatch, streams and exit codes.
//! - [`mcp`]: the MCP server, a thin adapter over `automation_session::tools` (the tool list
//!   generated from the catalog, `execute_sequence` and its progress notifications), over
//!   stdio and over streamable HTTP (`automation serve --http`, [`mcp::http`]).
//! - [`verbs`]: `op`, `tools`, `eval`, `transpile`.
//! - [`audit`]: `audit`, over `automation-audit`.
//! - [`docs`]: the generated part of `docs/mcp.md`.
//! - [`error`]: the crate's one error type, [`CliError`](error::CliError): a mode line that
//!   makes no sense, a baseline, the MCP server on stdio, and the session's and HTTP's errors
//!   as they reach a verb.

// Issue 38: no function longer than 100 lines (threshold in the workspace clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod app;
pub mod audit;
pub mod cli;
pub mod docs;
pub mod error;
pub mod mcp;
pub mod verbs;

pub use app::run;
