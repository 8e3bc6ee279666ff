//! `execute`: one op against a [`Session`] — sync the mirror, run the op, settle, reply.
//!
//! The path of a request: [`crate::Request`] (parsed, strict) → [`execute`] → sync the tree →
//! the op's body (`query`, `act`, `pointer`, `time`) → settle (mutating ops) → hand the clock
//! back → [`Reply`].

mod act;
mod pointer;
mod query;
mod resolve;
mod time;

use serde_json::Value;

use crate::catalog::{Access, Op};
use crate::error::{ErrorCode, OpError, OpResult};
use crate::mirror::Mirror;
use crate::request::Reply;
use crate::settle::SettleSpec;
use crate::target::{Target, WindowOps};

pub use pointer::{PointerRecord, Pointers};
pub use resolve::Resolved;
pub use time::SettleReport;

/// The app under test plus what automation remembers about it between ops: the mirrored tree,
/// live pointers and held keys.
pub struct Session<T: ?Sized> {
    /// Held keys (pressed with `phase: down`, not yet released).
    pub held_keys: Vec<crate::input::Key>,
    /// Pointers the session has put down.
    pub pointers: Pointers,
    /// The mirrored accessibility tree.
    pub mirror: Mirror,
    /// The app under test.
    pub target: T,
}

impl<T: Target> Session<T> {
    /// Wraps a target. Its first tree is read on the first op (or [`Session::sync`]).
    pub fn new(target: T) -> Self {
        Self {
            held_keys: Vec::new(),
            pointers: Pointers::default(),
            mirror: Mirror::new(),
            target,
        }
    }
}

impl<T: Target + ?Sized> Session<T> {
    /// Applies every pending tree update from the target, validated.
    pub fn sync(&mut self) -> Result<(), OpError> {
        while let Some(update) = self.target.take_tree_update() {
            self.mirror.apply(update)?;
        }
        Ok(())
    }
}

/// Runs one op: syncs the tree, performs the op, settles mutating ops with `settle`, and
/// always hands the clock back to real time before replying.
///
/// ```
/// use automation_core::{execute, Op, Request, RecordingWindowOps, Session, SettleSpec};
/// # #[cfg(feature = "fixture")] {
/// let mut session = Session::new(automation_core::fixture::DemoApp::new());
/// let mut windows = RecordingWindowOps::new();
/// let req = Request::from_json(r#"{"op": {"find_node": {"role": "Button", "label": "Save"}}}"#).unwrap();
/// let reply = execute(&mut session, &mut windows, &req.op, &req.settle_or_default());
/// assert!(reply.is_ok());
/// # }
/// ```
pub fn execute<T: Target + ?Sized>(
    session: &mut Session<T>,
    windows: &mut dyn WindowOps,
    op: &Op,
    settle: &SettleSpec,
) -> Reply {
    let result = settle
        .check()
        .and_then(|()| session.sync())
        .and_then(|()| dispatch(session, windows, op, settle));
    session.target.resume_real_time();
    result.into()
}

/// Evaluates an assertion against the current mirror without syncing or settling (the
/// harness's typed assertions; read-only, so no `&mut`).
pub fn assert_only<T: Target + ?Sized>(
    session: &Session<T>,
    op: &crate::ops::AssertNode,
) -> Result<(), OpError> {
    query::assert_node(session, op).map(|_| ())
}

/// Runs a parsed [`crate::Request`].
pub fn execute_request<T: Target + ?Sized>(
    session: &mut Session<T>,
    windows: &mut dyn WindowOps,
    request: &crate::Request,
) -> Reply {
    if let Err(e) = request.check_settle() {
        return Reply::Err(e);
    }
    execute(session, windows, &request.op, &request.settle_or_default())
}

fn dispatch<T: Target + ?Sized>(
    s: &mut Session<T>,
    w: &mut dyn WindowOps,
    op: &Op,
    settle: &SettleSpec,
) -> OpResult {
    let data = match op {
        Op::SnapshotTree(a) => return query::snapshot(s, a),
        Op::ReadNode(a) => return query::read_node(s, &a.node),
        Op::FindNode(a) => return query::find_node(s, a),
        Op::AssertNode(a) => return query::assert_node(s, a),
        Op::ListWindows(_) => return Err(host_required("list_windows")),
        Op::QueryPointers(_) => return pointer::query_pointers(s),
        Op::LayoutTree(a) => return s.target.layout_tree(a.max_depth, a.include_debug),
        Op::InspectNode(a) => {
            let id = s.resolve(&a.node)?.id;
            return s.target.inspect_node(id);
        }
        Op::ListLiveRegions(_) => return query::live_regions(s),
        Op::PullAnnouncements(a) => return query::announcements(s, a.since_seq),
        Op::GetOverlays(_) => return s.target.overlays(),
        Op::GetShortcuts(_) => return s.target.shortcuts(),
        Op::Settle(_) => return time::settle(s, w, settle).map(|r| r.to_json(s)),
        Op::WaitForCondition(a) => return time::wait_for(s, w, &a.condition, settle),
        Op::AdvanceClock(a) => return time::advance_clock(s, w, a.millis),
        Op::Screenshot(a) => {
            if let Some(node) = &a.node {
                s.resolve(node)?;
            }
            time::settle(s, w, settle)?;
            return Err(host_required("screenshot"));
        }
        Op::InvokeAction(a) => act::invoke_action(s, w, a)?,
        Op::FocusNode(a) => act::simple_action(s, w, &a.node, accesskit::Action::Focus)?,
        Op::SetValue(a) => act::set_value(s, w, a)?,
        Op::Expand(a) => act::simple_action(s, w, &a.node, accesskit::Action::Expand)?,
        Op::Collapse(a) => act::simple_action(s, w, &a.node, accesskit::Action::Collapse)?,
        Op::Scroll(a) => pointer::scroll(s, w, a)?,
        Op::InjectPointer(a) => pointer::inject_pointer(s, w, a)?,
        Op::RightClick(a) => pointer::right_click(s, w, &a.node)?,
        Op::InjectKey(a) => act::inject_key(s, w, a)?,
        Op::TypeText(a) => act::type_text(s, w, a)?,
        Op::TypeIme(a) => act::type_ime(s, w, a)?,
        Op::DragNode(a) => pointer::drag_node(s, w, a)?,
        Op::InjectTouchSequence(a) => pointer::touch_sequence(s, w, &a.steps)?,
        Op::Pinch(a) => pointer::pinch(s, w, a)?,
        Op::Fling(a) => pointer::fling(s, w, a)?,
        Op::LongPress(a) => pointer::long_press(s, w, a)?,
        Op::CancelPointer(a) => pointer::cancel_pointer(s, w, a.pointer_id)?,
        Op::SetDensity(a) => {
            s.target.set_density(a.density, w)?;
            Value::Null
        }
    };
    debug_assert_eq!(op.spec().access, Access::Mutating);
    let report = time::settle(s, w, settle)?;
    Ok(merge(data, report.to_json(s)))
}

/// Adds the settle report to an op's own reply data.
fn merge(data: Value, settled: Value) -> Value {
    match data {
        Value::Object(mut map) => {
            if let Value::Object(extra) = settled {
                map.extend(extra);
            }
            Value::Object(map)
        }
        Value::Null => settled,
        other => serde_json::json!({ "result": other, "settled": settled }),
    }
}

fn host_required(op: &str) -> OpError {
    OpError::new(
        ErrorCode::HostRequired,
        format!("{op} needs the host (window manager or GPU)"),
    )
    .with_hint("call it through the automation CLI or MCP server, which serves it")
}
