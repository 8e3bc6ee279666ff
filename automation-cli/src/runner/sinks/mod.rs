//! The sinks: each one consumer of a run's [`RunEvent`](super::events::RunEvent) stream.
//!
//! - [`display`]: the live terminal view (`exec`'s display).
//! - [`junit`]: one JUnit testcase per step (quick-junit), failures with message and logs.
//! - [`records`]: per-step records on disk (`.json`, a replay snippet, `.png`).
//! - [`mcp`]: `execute_sequence`: the run over MCP, its report as the result.
//! - [`progress`]: which of the stream becomes MCP progress (or, when asked, log)
//!   notifications, and when.

pub mod display;
pub mod junit;
pub mod mcp;
pub mod progress;
pub mod records;
