//! The sinks: each one consumer of a run's [`RunEvent`](super::events::RunEvent) stream.
//!
//! - [`display`]: the live terminal view (`exec`'s display).
//! - [`junit`]: one JUnit testcase per step (quick-junit), failures with message and logs.
//! - [`records`]: per-step records on disk (`.json`, a replay snippet, `.png`).
//! - [`html`]: the HTML report (`--report DIR`): every flow, step and call, with screenshots.
//!
//! MCP's progress notifications are a sink too, kept with the MCP server
//! (the CLI's `mcp::progress`): the runner knows no protocol.

pub mod display;
pub mod html;
pub mod junit;
pub mod records;
