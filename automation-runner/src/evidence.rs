//! What a report shows beside a call: the app right after a call acted on a node (a
//! screenshot, and that node's bounds to outline on it), and the app as it was when a flow
//! failed (a screenshot and the tree's outline). Taken only when a report asks for it
//! (`automation run --report`): each costs a read and a capture per action.

use std::sync::Arc;

use automation_core::ops::{self, NodeArgs, Screenshot};
use automation_core::replies::{ActedOn, ReadNode, SnapshotTree, TypedOp};
use automation_core::{Access, Cancel, NodeTarget, Op, Reply, Request};
use serde::Deserialize;
use serde_json::Value;

use automation_session::backend::{Backend, TargetHandle, serve_caught};

/// A capture of the app, with the node it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    /// The window's PNG.
    pub png: Arc<Vec<u8>>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Physical pixels per logical pixel (a node's box on the image is its bounds × scale).
    pub scale: f64,
    /// The node's bounds (window-logical px), when there is one.
    pub bounds: Option<Value>,
    /// The tree's outline (at a failure).
    pub tree: Option<String>,
}

/// After a call that acted on a node and succeeded: the window and that node's bounds, read
/// right after it (the reply names the node by reference). `None` for any other call, or
/// when the target has no screenshots.
pub fn after_action(
    backend: &mut Box<dyn Backend>,
    request: &Request,
    reply: &Reply,
    cancel: &Cancel,
) -> Option<Evidence> {
    if request.op.spec().access != Access::Mutating
        || !automation_session::tools::names_a_node(&request.op)
    {
        return None;
    }
    let node: NodeTarget = ActedOn::deserialize(reply.data()?).ok()?.node?.into();
    let read = Request::new(ReadNode::op(NodeArgs { node }));
    let bounds = ReadNode::decode(serve_caught(backend, &read, cancel))
        .ok()
        .and_then(|r| r.bounds)
        .and_then(|b| serde_json::to_value(b).ok());
    let mut shot = capture(&mut |r| serve_caught(backend, r, cancel))?;
    shot.bounds = bounds;
    Some(shot)
}

/// The window as it is, for a call about the whole app (an audit: its findings are outlined
/// on it).
pub fn window(backend: &mut Box<dyn Backend>, cancel: &Cancel) -> Option<Evidence> {
    capture(&mut |r| serve_caught(backend, r, cancel))
}

/// The app when a flow failed: its window and the tree's outline.
pub fn at_failure(target: &TargetHandle) -> Option<Evidence> {
    let outline = Request::new(SnapshotTree::op(ops::SnapshotTree::default()));
    let tree = SnapshotTree::decode(target.call_blocking(outline))
        .ok()
        .and_then(|s| s.tree);
    let mut shot = capture(&mut |r| target.call_blocking(r.clone())).or_else(|| {
        // No pixels (a target without screenshots): the tree alone still helps.
        tree.as_ref().map(|_| Evidence {
            png: Arc::new(Vec::new()),
            width: 0,
            height: 0,
            scale: 1.0,
            bounds: None,
            tree: None,
        })
    })?;
    shot.tree = tree;
    Some(shot)
}

/// The window as it is: the action before it already settled the app
/// ([`automation_session::tools::glance`]).
fn capture(serve: &mut dyn FnMut(&Request) -> Reply) -> Option<Evidence> {
    let mut request = Request::new(Op::Screenshot(Screenshot::default()));
    request.settle = Some(automation_session::tools::glance());
    match serve(&request) {
        Reply::Image(image) => Some(Evidence {
            width: image.width,
            height: image.height,
            scale: image.scale,
            png: Arc::new(image.png),
            bounds: None,
            tree: None,
        }),
        _ => None,
    }
}
