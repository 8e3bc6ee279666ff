//! How the audit reaches the app: one request at a time, through whatever runs the kit's ops
//! (an in-process session, the CLI's target thread, a bridge). The few requests it sends are
//! built here.

use automation_core::catalog::Op;
use automation_core::ops::{self, InjectKey, KeyPhase, NodeArgs, SnapshotFormat};
use automation_core::refs::RefKey;
use automation_core::replies::{ReadNode, Snapshot, SnapshotTree, TypedOp};
use automation_core::{Reply, Request, Selector, SemanticNode, SettleSpec};
use serde_json::Value;

use crate::error::AuditError;

/// Runs one request against the app.
pub trait Driver {
    /// The reply to `request`.
    fn call(&mut self, request: Request) -> Reply;
}

impl<F: FnMut(Request) -> Reply> Driver for F {
    fn call(&mut self, request: Request) -> Reply {
        self(request)
    }
}

/// The data of an ok reply; an error as the audit's.
fn data(
    driver: &mut dyn Driver,
    request: Request,
    what: &'static str,
) -> Result<Value, AuditError> {
    match driver.call(request) {
        Reply::Ok(v) => Ok(v),
        Reply::Err(e) => Err(AuditError::Op { what, error: e }),
        Reply::Image(_) => Err(AuditError::Shape {
            what,
            why: "an image came back".into(),
        }),
    }
}

/// A typed op's reply; its error as the audit's.
fn typed<O: TypedOp>(
    driver: &mut dyn Driver,
    args: O::Args,
    what: &'static str,
) -> Result<O::Reply, AuditError> {
    O::decode(driver.call(Request::new(O::op(args))))
        .map_err(|error| AuditError::Op { what, error })
}

/// The whole tree, hidden nodes included, within `max_nodes`.
pub fn snapshot(driver: &mut dyn Driver, max_nodes: usize) -> Result<Snapshot, AuditError> {
    let args = ops::SnapshotTree {
        max_nodes: Some(max_nodes),
        format: Some(SnapshotFormat::Json),
        include_hidden: true,
        ..ops::SnapshotTree::default()
    };
    typed::<SnapshotTree>(driver, args, "reading the tree")
}

/// Where the keyboard focus is now (the reply of a one-node snapshot names it).
pub fn focus_now(driver: &mut dyn Driver) -> Result<Option<RefKey>, AuditError> {
    let args = ops::SnapshotTree {
        max_nodes: Some(1),
        format: Some(SnapshotFormat::Json),
        ..ops::SnapshotTree::default()
    };
    Ok(typed::<SnapshotTree>(driver, args, "reading the focus")?.focused())
}

/// A short settle: the walk reads (and waits for) the focus itself.
fn quick() -> SettleSpec {
    SettleSpec {
        settle_timeout_ms: 100,
        quiet_ms: 10,
        ..SettleSpec::default()
    }
}

/// Presses a key as a keyboard does: `tab`, `ctrl+tab` or `shift+tab`.
pub fn press(driver: &mut dyn Driver, key: &str) -> Result<(), AuditError> {
    let (ctrl, shift, name) = match key.split_once('+') {
        Some(("ctrl", rest)) => (true, false, rest),
        Some(("shift", rest)) => (false, true, rest),
        _ => (false, false, key),
    };
    let op = Op::InjectKey(InjectKey {
        key: name.to_string(),
        text: None,
        phase: KeyPhase::Press,
        ctrl,
        shift,
        alt: false,
        meta: false,
        command: false,
    });
    let mut request = Request::new(op);
    request.settle = Some(quick());
    data(driver, request, "pressing a key").map(|_| ())
}

/// One node's record now; `None` when it went away.
pub fn read(driver: &mut dyn Driver, id: RefKey) -> Result<Option<SemanticNode>, AuditError> {
    Ok(typed::<ReadNode>(driver, NodeArgs { node: id.into() }, "reading a node").ok())
}

/// The durable selector of a node (what a baseline and SARIF name it by), or why none.
pub fn selector(driver: &mut dyn Driver, id: RefKey) -> Result<String, String> {
    let mut request = Request::new(Op::ReadNode(NodeArgs { node: id.into() }));
    request.with_selector = true;
    match driver.call(request) {
        Reply::Ok(v) => match v.get("selector") {
            Some(sel) => serde_json::from_value::<Selector>(sel.clone())
                .map(|s| s.to_string())
                .map_err(|e| e.to_string()),
            None => Err(v
                .get("selector_note")
                .and_then(Value::as_str)
                .unwrap_or("no selector")
                .to_string()),
        },
        Reply::Err(e) => Err(e.message),
        Reply::Image(_) => Err("an image came back".into()),
    }
}
