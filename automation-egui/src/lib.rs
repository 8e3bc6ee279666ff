#![doc = include_str!("../README.md")]

pub mod app;
pub mod demo;
mod input;
pub mod serve;
pub mod target;

#[cfg(feature = "screenshot")]
pub mod screenshot;

#[cfg(feature = "golden")]
pub mod golden;

#[cfg(feature = "live")]
pub mod live;

pub use app::{EguiApp, HostUiFn, UiFn};
pub use demo::{Demo, demo_target};
pub use serve::{EguiHost, serve};
pub use target::EguiTarget;

#[cfg(feature = "live")]
pub use eframe;
pub use egui;
