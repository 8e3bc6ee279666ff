//! The `automation` binary: an MCP server over stdio for headless and attached apps, one-shot
//! verbs for scripts, and a runner for any test command's events.
//!
//! It is thin on purpose: core executes ops, wire connects to live apps and reads the event
//! pipe, transpile parses expressions and scripts; this crate composes them.
//!
//! - [`cli`]: the clap definitions (modes as one mutually exclusive group, and the verbs).
//! - [`app`]: dispatch, streams and exit codes.
//! - [`backend`]: what the server drives, and the one thread it lives on.
//! - [`mode`]: from a mode to a backend (connecting to live apps).
//! - `atspi_mode` (feature `atspi`): `--launch`, `--atspi`, `--virtual-display`.
//! - [`tools`]: the tool-call layer every front door shares: look up, parse, run, shape
//!   (typed, no protocol types).
//! - [`mcp`]: the MCP server, a thin adapter over [`tools`] (the tool list generated from the
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
//! - [`files`]: the one way a file someone else may have touched is read or written, and the
//!   private directories; [`watchdog`]: what we start ends with us, SIGKILL included.

pub mod app;
#[cfg(feature = "atspi")]
pub mod atspi_mode;
pub mod authoring;
pub mod backend;
pub mod cli;
pub mod docs;
pub mod edge;
pub mod exec;
pub mod files;
pub mod mcp;
pub mod mode;
pub mod reach;
pub mod runner;
pub mod seeing;
pub mod tools;
pub mod verbs;
pub mod watchdog;

pub use app::run;
