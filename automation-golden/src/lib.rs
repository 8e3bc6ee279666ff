#![doc = include_str!("../README.md")]

pub mod baseline;
pub mod compare;
pub mod rgba;

pub use baseline::{Check, CheckError, Files, Update, Verdict, check, files};
pub use compare::{CompareError, Comparison, DEFAULT_THRESHOLD, Limits, Region, compare};
pub use rgba::{Rgba, decode_png, encode_png};
