#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod announce;
pub mod catalog;
pub mod error;
pub(crate) mod execute;
#[cfg(feature = "fixture")]
pub mod fixture;
pub mod harness;
pub mod input;
pub mod mirror;
pub mod node_ref;
pub mod ops;
pub mod request;
pub mod settle;
pub mod snapshot;
pub mod target;
mod text_match;
mod validate;

pub use catalog::{Access, CATALOG, Op, OpSpec};
pub use error::{Candidate, ErrorCode, OpError, OpResult};
pub use execute::{
    PointerRecord, Pointers, Resolved, Session, SettleReport, execute, execute_request,
};
pub use input::{Key, Modifiers, NamedKey, Platform, Point, PointerButton, PointerKind};
pub use node_ref::{NodeKey, NodeTarget, Selector};
pub use request::{Reply, Request, WindowId};
pub use settle::SettleSpec;
pub use snapshot::SemanticNode;
pub use target::{ActionOutcome, ClockKind, RecordingWindowOps, Target, TargetError, WindowOps};
