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
//! - [`mcp`]: the MCP server (tools generated from the catalog, screenshot budgets).
//! - [`verbs`]: `op`, `tools`, `eval`, `transpile`.
//! - [`exec`]: `exec`, the event display and JUnit.
//! - [`runner`]: `run` and `execute_sequence`: scripts and steps, live sinks, sharding.
//! - [`docs`]: the generated part of `docs/mcp.md`.

pub mod app;
#[cfg(feature = "atspi")]
pub mod atspi_mode;
pub mod backend;
pub mod cli;
pub mod docs;
pub mod exec;
pub mod mcp;
pub mod mode;
pub mod runner;
pub mod verbs;

pub use app::run;
