#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
// The workspace's lints (Cargo.toml `[workspace.lints]`) apply; input (expressions, scripts,
// tool output) must never be able to panic the caller, so indexing that could is refused too.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

#[cfg(feature = "detect")]
pub mod detect;
#[cfg(feature = "expr")]
pub mod expr;
#[cfg(feature = "transpile")]
pub mod transpile;

#[cfg(feature = "detect")]
pub use detect::{Detection, detect, is_typescript};
#[cfg(feature = "expr")]
pub use expr::{Expr, ParseError, evaluate};
#[cfg(feature = "transpile")]
pub use transpile::{
    Backend, Location, McpError, Recovery, TranspileError, TranspileErrorKind, Transpiled,
    Transpiler, TranspilerBuilder, transpile,
};
