#![doc = include_str!("../README.md")]

pub mod announce;
pub mod catalog;
pub mod docs;
pub mod error;
pub(crate) mod execute;
pub mod harness;
pub mod image;
pub mod input;
pub mod intent;
pub mod mirror;
pub mod node_ref;
pub mod ops;
pub mod refs;
pub mod replies;
pub mod request;
pub mod settle;
pub mod snapshot;
pub mod target;
mod text_match;
mod validate;

pub use catalog::{Access, CATALOG, Cap, Op, OpSpec, ServedBy};
pub use error::{Candidate, ErrorCode, Fault, OpError, OpResult};
pub use execute::limits;
pub use execute::{
    Cancel, NoSelector, PointerRecord, Pointers, Resolved, Session, SettleReport, execute,
    execute_request, serve,
};
pub use image::Image;
pub use input::{Key, Modifiers, NamedKey, Platform, Point, PointerButton, PointerKind};
pub use intent::{Intent, Means};
pub use node_ref::{NodeKey, NodeTarget, Selector};
pub use refs::RefKey;
pub use request::{Reply, Request, WindowId};
pub use settle::SettleSpec;
pub use snapshot::Bounds;
pub use snapshot::SemanticNode;
pub use target::{
    ActionOutcome, Aim, AppExit, ClockKind, Hit, Host, NoHost, OpenWindowRequest, PartialChildren,
    RecordingWindowOps, Target, TargetError, WindowInfo, WindowOps,
};
