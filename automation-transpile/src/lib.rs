#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// Input (expressions, scripts, tool output) must never be able to panic the caller.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::indexing_slicing,
        clippy::todo
    )
)]

pub mod detect;
pub mod expr;
pub mod transpile;

pub use detect::{Detection, detect, is_typescript};
pub use expr::{Expr, ParseError, evaluate};
pub use transpile::{
    Backend, Location, McpError, Recovery, TranspileError, TranspileErrorKind, Transpiled,
    Transpiler, TranspilerBuilder, transpile,
};
