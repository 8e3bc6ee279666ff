//! What the CLI's test binaries share, included once by each (`#[path]` in its `main.rs`): the
//! one way to start the real `automation` binary, and the helpers built on it.
//!
//! - [`automation`] / [`AUTOMATION`]: the binary under test, as a command or a path.
//! - [`mcp`]: a hand-driven MCP session over stdio.
//! - [`hostile`]: a run measured to its end (time, peak memory, what it leaves behind).
//! - [`webdriver`]: a real `automation webdriver` (or `serve --http`, `inspect`) and raw HTTP.
//! - [`live_app`]: a live app served from this process through the bridge.
//! - [`atspi_session`]: what a test session over AT-SPI needs, checked once.
//!
//! The lock heavy tests hold is the testkit's: [`automation_testkit::heavy`].
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod atspi_session;
pub mod hostile;
pub mod live_app;
pub mod mcp;
pub mod webdriver;

/// The `automation` binary this build of the tests runs.
pub const AUTOMATION: &str = env!("CARGO_BIN_EXE_automation");

/// `automation`, ready for arguments: the way every test here starts the binary.
pub fn automation() -> std::process::Command {
    std::process::Command::new(AUTOMATION)
}

/// [`automation`] for an async caller (an `rmcp` client's child process).
pub fn automation_async() -> tokio::process::Command {
    tokio::process::Command::new(AUTOMATION)
}
