#![doc = include_str!("../README.md")]
// Issue 38: no function longer than 100 lines (threshold in the workspace clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod edge;
pub mod error;
pub mod reach;
pub mod seeing;
