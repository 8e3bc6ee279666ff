#![doc = include_str!("../README.md")]

#[cfg(feature = "atspi")]
pub mod atspi_mode;
pub mod backend;
pub mod display;
pub mod files;
pub mod mode;
pub mod tools;
pub mod watchdog;
