//! The session commands: each one tool calls on the session's target, through the tool layer
//! every front door shares, and its reply as W3C shapes it. One file a group, over `common`.

mod common;
mod element;
mod find;
mod page;
mod timeouts;
mod windows;

pub(super) use element::*;
pub(super) use find::*;
pub(super) use page::*;
pub(super) use timeouts::*;
pub(super) use windows::*;
