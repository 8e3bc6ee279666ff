//! The kit as its clients reach it, through the real binary: WebDriver (Selenium,
//! WebdriverIO, Appium, attach, Grid, windows), the edge every HTTP door shares, the report and
//! inspector seen in a real browser, the JS client and the Python SDK.

#[path = "../support/mod.rs"]
mod support;

mod edge;
mod js_client;
mod python_sdk;
mod seeing;
mod webdriver;
mod webdriver_attach;
mod webdriver_clients;
mod webdriver_grid;
mod webdriver_windows;
