//! Reach: many sessions in one server, over HTTP — W3C WebDriver for Selenium, Appium,
//! WebdriverIO and Selenium Grid here, and MCP over streamable HTTP for agents (the CLI's
//! `mcp::http`, on the same session manager and edge).
//!
//! - [`sessions`]: the session manager both sit on (each session owns its target and what it
//!   started; a cap, an idle timeout);
//! - [`http`]: the network edge they share (loopback by default, token and allow-list beyond
//!   it, body caps, slow-client timeouts);
//! - [`webdriver`]: `automation webdriver`.

pub mod http;
pub mod sessions;
pub mod webdriver;
