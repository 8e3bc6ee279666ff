//! The HTTP doors through the real binary: WebDriver (clients, attach, Grid, windows), the edge
//! every door shares, and the report and inspector seen in a real browser.

#[path = "../support/mod.rs"]
mod support;

mod edge;
mod seeing;
mod webdriver;
mod webdriver_attach;
mod webdriver_clients;
mod webdriver_grid;
mod webdriver_windows;
