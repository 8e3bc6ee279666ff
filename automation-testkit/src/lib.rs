//! Test support for the automation kit's own tests (not published).
//!
//! - [`fixture`]: the demo set as plain data on a simulated clock — a test double for
//!   `execute`, with every input it receives logged.
//! - [`laggy`]: a real-clock target whose effects land later, as an out-of-process app's do.
//! - [`rig`]: the JSON request rig the crates' tests share.
//! - [`docs`]: the drift check of generated docs sections.
//! - [`heavy`]: the one lock a test holds while it runs an app, a virtual display, a browser
//!   or Selenium, across every test binary.
//! - [`require`]: a test whose real component (Xvfb, node, the Python SDK, …) is missing
//!   fails, unless the run opted out explicitly; skips are recorded and listed at the end.
//! - [`selectors`]: the selector generator's coverage of a whole tree.
//! - [`stock_app`]: the stock eframe app, built in release for the AT-SPI tests.
//! - [`xvfb`]: a private X server for a test that opens a real window, and a child guard.

// Test support: failing the calling test loudly, with what was asked and what came back, is
// what these helpers are for.
#![allow(clippy::panic)]

pub mod docs;
pub mod fixture;
pub mod heavy;
pub mod laggy;
pub mod require;
pub mod rig;
pub mod selectors;
pub mod stock_app;
pub mod xvfb;
