//! Reach: many sessions in one server, over HTTP — W3C WebDriver for Selenium, Appium,
//! WebdriverIO and Selenium Grid, and MCP over streamable HTTP for agents.
//!
//! - [`sessions`]: the session manager both sit on (each session owns its target and what it
//!   started; a cap, an idle timeout);
//! - [`http`]: the network edge they share (loopback by default, token and allow-list beyond
//!   it, body caps, slow-client timeouts);
//! - [`webdriver`]: `automation webdriver`;
//! - [`mcp_http`]: `automation serve --http`.

pub mod http;
pub mod mcp_http;
pub mod sessions;
pub mod webdriver;
