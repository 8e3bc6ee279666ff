//! `execute`: one op against a [`Session`] — sync the mirror, run the op, settle, reply.
//!
//! The path of a request: [`crate::Request`] (parsed, strict) → [`execute`] → sync the tree →
//! the op's body (`query`, `act`, `pointer`, `time`) → settle (mutating ops) → hand the clock
//! back → [`Reply`].

mod act;
mod actionable;
mod choose;
mod durable;
mod effect;
pub mod limits;
mod means;
mod options;
mod outline;
mod pointer;
mod query;
mod resolve;
mod time;
mod value;
mod visibility;
mod wheel;

use serde_json::Value;

use crate::catalog::{Access, Op, ServedBy};
use crate::error::{ErrorCode, OpError, OpResult};
use crate::mirror::Mirror;
use crate::request::{Reply, Request};
use crate::settle::SettleSpec;
use crate::target::{Host, Target};
use time::Expect;

pub use durable::NoSelector;
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
    /// Set from another thread to stop a long op between its steps (a key of `type_text`, a
    /// settle frame, a wait poll, a gesture sample): the op then fails with `CANCELLED`.
    pub cancel: Cancel,
    /// The app under test.
    pub target: T,
}

/// A cancellation flag shared with whoever may cancel the op in flight (an MCP client's
/// `notifications/cancelled`). Cheap to clone; all clones are one flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Cancel {
    /// A flag that is not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the op in flight to stop at its next step.
    pub fn cancel(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether cancellation was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// `CANCELLED` when the flag is set; `done` says what already happened.
    pub fn check(&self, done: impl FnOnce() -> String) -> Result<(), OpError> {
        if self.is_cancelled() {
            return Err(OpError::new(
                ErrorCode::Cancelled,
                format!("cancelled by the caller; {}", done()),
            )
            .with_hint(
                "the app may have received part of the input: read the tree before going on",
            ));
        }
        Ok(())
    }
}

impl<T: Target> Session<T> {
    /// Wraps a target. Its first tree is read on the first op (or [`Session::sync`]).
    pub fn new(target: T) -> Self {
        Self {
            held_keys: Vec::new(),
            pointers: Pointers::default(),
            mirror: Mirror::new(),
            cancel: Cancel::new(),
            target,
        }
    }
}

impl<T: Target + ?Sized> Session<T> {
    /// Applies every pending tree update from the target, validated.
    pub fn sync(&mut self) -> Result<(), OpError> {
        while let Some(update) = self.target.poll_tree()? {
            self.mirror.apply(update)?;
        }
        Ok(())
    }
}

/// Runs one op: syncs the tree, performs the op, settles mutating ops with `settle`, and
/// always hands the clock back to real time before replying. Ops the catalog marks as served
/// by the host answer `HOST_REQUIRED` here (there is no host); [`serve`] hands them to one.
///
/// ```
/// use automation_core::{execute, Request, Session};
/// use automation_testkit::fixture::DemoApp;
///
/// let mut session = Session::new(DemoApp::new());
/// let req = Request::from_json(r#"{"op": {"find_node": {"role": "Button", "label": "Save"}}}"#).unwrap();
/// let reply = execute(&mut session, &req.op, &req.settle_or_default());
/// assert!(reply.is_ok());
/// ```
pub fn execute<T: Target + ?Sized>(
    session: &mut Session<T>,
    op: &Op,
    settle: &SettleSpec,
) -> Reply {
    let result = settle
        .check()
        .and_then(|()| limits::check(op))
        .and_then(|()| session.sync())
        .and_then(|()| {
            let running = session.target.exit().is_none();
            let result = dispatch(session, op, settle);
            if running {
                ended_the_app(session, op, result)
            } else {
                result
            }
        });
    session.target.resume_real_time();
    #[cfg(debug_assertions)]
    let result = result.and_then(|data| declared(op, data));
    result.into()
}

/// In debug builds, every reply is read back through its op's declared type: JSON the type
/// does not hold fails the op here, in the kit's own tests, instead of reaching a typed
/// caller that would silently drop it.
#[cfg(debug_assertions)]
fn declared(op: &Op, data: Value) -> OpResult {
    match crate::replies::check_shape(op.name(), &data) {
        Ok(()) => Ok(data),
        Err(why) => Err(OpError::new(ErrorCode::TargetFailed, why).with_hint(
            "the kit's reply and its declared type in core's catalog differ: fix one of them",
        )),
    }
}

/// An op after which the app has exited (a dialog's OK): `ok`, with how it ended — the
/// failures the exit itself caused (the app gone mid-call, its node no longer answering) are
/// its effect, not an error.
fn ended_the_app<T: Target + ?Sized>(s: &mut Session<T>, op: &Op, result: OpResult) -> OpResult {
    if op.spec().access != Access::Mutating {
        return result;
    }
    let Some(exit) = s.target.exit() else {
        return result;
    };
    let exit = serde_json::to_value(exit).unwrap_or(Value::Null);
    match result {
        Ok(Value::Object(mut data)) => {
            data.insert("app_exited".into(), exit);
            Ok(Value::Object(data))
        }
        Ok(other) => Ok(serde_json::json!({ "result": other, "app_exited": exit })),
        Err(e)
            if matches!(
                e.code,
                ErrorCode::AppGone
                    | ErrorCode::TargetFailed
                    | ErrorCode::TargetTimeout
                    | ErrorCode::NoEffect
            ) =>
        {
            Ok(serde_json::json!({ "app_exited": exit }))
        }
        Err(e) => Err(e),
    }
}

/// Runs a request with the host beside the target: the ops the catalog marks as served by
/// the host go to it with what they need already done (the tree synced, the app settled, a
/// screenshot's node resolved once to its bounds); every other op is [`execute_request`].
///
/// ```
/// use automation_core::{NoHost, Request, Session, serve};
/// use automation_testkit::fixture::DemoApp;
///
/// let mut session = Session::new(DemoApp::new());
/// let req = Request::from_json(r#"{"op": "list_windows"}"#).unwrap();
/// let reply = serve(&mut session, &mut NoHost, &req);
/// assert_eq!(reply.data().unwrap()["windows"][0]["title"], "main");
/// ```
pub fn serve<T: Target + ?Sized, H: Host<T> + ?Sized>(
    session: &mut Session<T>,
    host: &mut H,
    request: &Request,
) -> Reply {
    if request.op.spec().served_by != ServedBy::Host {
        return execute_request(session, request);
    }
    if request.with_selector {
        let plain = Request {
            with_selector: false,
            ..request.clone()
        };
        return durable::with_selector(session, &request.op, |s| serve(s, host, &plain));
    }
    let settle = request.settle_or_default();
    let result = request
        .check_settle()
        .and_then(|()| settle.check())
        .and_then(|()| limits::check(&request.op))
        .and_then(|()| session.sync())
        .and_then(|()| hosted(session, host, &request.op, &settle));
    session.target.resume_real_time();
    result.unwrap_or_else(Reply::Err)
}

/// A host op, handed to `host`: the window list as is; a screenshot after the app settles,
/// cropped to its node's bounds (resolved here, once, after the settle), as its bytes.
fn hosted<T: Target + ?Sized, H: Host<T> + ?Sized>(
    s: &mut Session<T>,
    host: &mut H,
    op: &Op,
    settle: &SettleSpec,
) -> OpResult<Reply> {
    match op {
        Op::ListWindows(_) => host.list_windows(&mut s.target).map(|windows| {
            Reply::Ok(
                serde_json::to_value(crate::replies::Windows { windows })
                    .unwrap_or(serde_json::Value::Null),
            )
        }),
        Op::Screenshot(a) => {
            time::settle(s, settle, Expect::Quiet)?;
            match &a.node {
                Some(node) => {
                    let resolved = s.resolve(node)?;
                    let bounds = resolved.require_bounds()?;
                    host.screenshot_node(&mut s.target, resolved.id, bounds)
                }
                None => host.screenshot(&mut s.target, None),
            }
            .map(Reply::Image)
        }
        other => Err(host_required(other)),
    }
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
pub fn execute_request<T: Target + ?Sized>(session: &mut Session<T>, request: &Request) -> Reply {
    if let Err(e) = request.check_settle() {
        return Reply::Err(e);
    }
    let settle = request.settle_or_default();
    if request.with_selector {
        return durable::with_selector(session, &request.op, |s| execute(s, &request.op, &settle));
    }
    execute(session, &request.op, &settle)
}

fn dispatch<T: Target + ?Sized>(s: &mut Session<T>, op: &Op, settle: &SettleSpec) -> OpResult {
    if op.spec().served_by == ServedBy::Host {
        return Err(host_required(op));
    }
    let before = s.mirror.version();
    let data = match op {
        Op::SnapshotTree(a) => return query::snapshot(s, a),
        Op::ReadNode(a) => return query::read_node(s, &a.node),
        Op::FindNode(a) => return query::find_node(s, a),
        Op::AssertNode(a) => return query::assert_node(s, a),
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
        Op::Settle(_) => {
            return time::settle(s, settle, Expect::Quiet).map(|r| r.to_json(s));
        }
        Op::WaitForCondition(a) => return time::wait_for(s, &a.condition, settle),
        Op::AdvanceClock(a) => return time::advance_clock(s, a.millis),
        Op::InvokeAction(a) => return act::invoke_action(s, a, settle),
        Op::FocusNode(a) => {
            return act::simple_action(s, &a.node, accesskit::Action::Focus, settle);
        }
        Op::SetValue(a) => return choose::set_value(s, a, settle),
        Op::Expand(a) => return act::simple_action(s, &a.node, accesskit::Action::Expand, settle),
        Op::Collapse(a) => {
            return act::simple_action(s, &a.node, accesskit::Action::Collapse, settle);
        }
        Op::Scroll(a) => return wheel::scroll(s, a, settle),
        Op::InjectPointer(a) => return pointer::inject_pointer(s, a, settle),
        Op::RightClick(a) => pointer::right_click(s, &a.node)?,
        Op::InjectKey(a) => act::inject_key(s, a)?,
        Op::TypeText(a) => return act::type_text(s, a, settle),
        Op::TypeIme(a) => act::type_ime(s, a, settle)?,
        Op::DragNode(a) => pointer::drag_node(s, a)?,
        Op::InjectTouchSequence(a) => pointer::touch_sequence(s, &a.steps)?,
        Op::Pinch(a) => pointer::pinch(s, a)?,
        Op::Fling(a) => pointer::fling(s, a)?,
        Op::LongPress(a) => pointer::long_press(s, a)?,
        Op::CancelPointer(a) => pointer::cancel_pointer(s, a.pointer_id)?,
        Op::SetDensity(a) => {
            s.target.set_density(a.density)?;
            Value::Null
        }
        Op::ListWindows(_) | Op::Screenshot(_) => return Err(host_required(op)),
    };
    debug_assert_eq!(op.spec().access, Access::Mutating);
    settled(s, settle, before, data)
}

/// Settles a mutating op (waiting for an effect after tree version `before`) and adds the
/// settle report to its reply data.
fn settled<T: Target + ?Sized>(
    s: &mut Session<T>,
    settle: &SettleSpec,
    before: u64,
    data: Value,
) -> OpResult {
    let report = time::settle(s, settle, Expect::EffectAfter(before))?;
    Ok(merge(data, report.to_json(s)))
}

/// An op the host serves, asked of `execute` alone (no host beside the target).
fn host_required(op: &Op) -> OpError {
    OpError::new(
        ErrorCode::HostRequired,
        format!("{} needs the host (window manager or GPU)", op.name()),
    )
    .with_hint("call it through automation_core::serve, the automation CLI or its MCP server")
}

/// Adds the settle report to an op's own reply data.
pub(super) fn merge(data: Value, settled: Value) -> Value {
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
