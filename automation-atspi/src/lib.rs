#![doc = include_str!("../README.md")]

pub mod bus;
pub mod cache;
pub mod cleanup;
pub mod dbus;
pub mod display;
pub mod events;
pub mod fetch;
pub mod host;
pub mod launch;
pub mod map;
pub mod node;
pub mod process;
pub mod target;
pub mod tree;
pub mod wire;
pub mod x11;

pub use bus::{App, AppSelector, Bus};
pub use display::VirtualDisplay;
pub use host::AtspiHost;
pub use launch::{Launched, Output, launch};
pub use target::{AtspiTarget, attach};

/// Serves one request against an AT-SPI app: core's `serve` with the X11 host.
pub fn serve(
    session: &mut automation_core::Session<AtspiTarget>,
    request: &automation_core::Request,
) -> automation_core::Reply {
    automation_core::serve(session, &mut AtspiHost, request)
}
