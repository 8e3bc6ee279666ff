#![doc = include_str!("../README.md")]

pub mod edge;
pub mod reach;
pub mod seeing;
