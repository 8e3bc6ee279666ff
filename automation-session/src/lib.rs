#![doc = include_str!("../README.md")]
// Issue 38: no function longer than 100 lines (threshold in the workspace clippy.toml).
#![warn(clippy::too_many_lines)]

#[cfg(feature = "atspi")]
pub mod atspi_mode;
pub mod backend;
pub mod display;
pub mod error;
pub mod files;
pub mod mode;
pub mod quote;
pub mod tools;
pub mod watchdog;
