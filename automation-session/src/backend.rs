//! What the server drives: a [`Backend`] that answers one [`Request`] with one [`Reply`], and
//! the one dedicated thread it lives on.
//!
//! The backend is built *on* its thread by a [`BackendFactory`], so a `!Send` target (an egui
//! context, an `Rc`-based tree) never crosses threads; callers hand it plain data over a
//! channel. One thread, one job at a time: every call is serialised, mutating or not.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;

use automation_core::replies::TypedOp;

use crate::error::SessionError;
use automation_core::{Cancel, ErrorCode, OpError, Reply, Request, Session};
use automation_wire::core_bridge::CoreBridgeClient;

/// Anything that answers requests: the in-process demo, or a live app over the bridge.
pub trait Backend {
    /// Serves one request (including the host ops `screenshot` and `list_windows`).
    fn serve(&mut self, request: &Request) -> Reply;

    /// Serves one request that `cancel` may stop between its steps (a key of `type_text`, a
    /// settle frame, a wait poll); the op then fails with `CANCELLED`. The default ignores
    /// `cancel` (a bridge cannot stop an op already sent).
    fn serve_cancellable(&mut self, request: &Request, cancel: &Cancel) -> Reply {
        let _ = cancel;
        self.serve(request)
    }

    /// Called after `serve` panicked (the panic was caught on the target thread): put the
    /// backend back in a usable state and say what was done, for the error reply. The
    /// default keeps the backend as it is (a bridge client holds no toolkit state).
    fn recover_from_panic(&mut self) -> String {
        "the backend keeps serving".into()
    }
}

/// Builds a backend on the target thread.
pub type BackendFactory = Box<dyn FnOnce() -> Result<Box<dyn Backend>, SessionError> + Send>;

/// A backend ready to be started, with a line saying what it drives.
pub struct Resolved {
    /// Builds the backend on the target thread.
    pub factory: BackendFactory,
    /// What is being driven, for the banner and logs.
    pub describe: String,
}

/// The built-in headless demo: automation-egui's demo app (a real egui UI on a simulated
/// clock: a Save button whose polite status announces "Saved", Cancel, a Name field, …),
/// served by `automation_egui::serve` (which also answers `list_windows`, and `screenshot`
/// when built with the `screenshot` feature).
pub struct EguiDemo {
    session: Session<automation_egui::EguiTarget<'static>>,
}

impl EguiDemo {
    /// A fresh demo.
    pub fn new() -> Self {
        Self {
            session: Session::new(automation_egui::demo_target()),
        }
    }

    /// A factory for [`TargetHandle::spawn`].
    pub fn factory() -> BackendFactory {
        Box::new(|| Ok(Box::new(EguiDemo::new()) as Box<dyn Backend>))
    }
}

impl Default for EguiDemo {
    fn default() -> Self {
        Self::new()
    }
}

impl Backend for EguiDemo {
    fn serve(&mut self, request: &Request) -> Reply {
        automation_egui::serve(&mut self.session, request)
    }

    fn serve_cancellable(&mut self, request: &Request, cancel: &Cancel) -> Reply {
        self.session.cancel = cancel.clone();
        let reply = automation_egui::serve(&mut self.session, request);
        self.session.cancel = Cancel::new();
        reply
    }

    fn recover_from_panic(&mut self) -> String {
        *self = EguiDemo::new();
        "the headless demo was rebuilt (node ids from before are gone: run snapshot_tree or find_node again)".into()
    }
}

/// The headless demo `--headless` drives: automation-egui's demo.
pub fn headless_backend() -> Box<dyn Backend> {
    Box::new(EguiDemo::new())
}

/// A factory for [`headless_backend`].
pub fn headless_factory() -> BackendFactory {
    Box::new(|| Ok(headless_backend()))
}

/// A live app behind the wire bridge (`--attach`, `--attach-pid`, `--connect`).
pub struct BridgeBackend {
    client: CoreBridgeClient,
}

impl BridgeBackend {
    /// Wraps a connected client.
    pub fn new(client: CoreBridgeClient) -> Self {
        Self { client }
    }

    /// A factory that moves the connected client onto the target thread.
    pub fn factory(client: CoreBridgeClient) -> BackendFactory {
        Box::new(move || Ok(Box::new(BridgeBackend::new(client)) as Box<dyn Backend>))
    }
}

impl Backend for BridgeBackend {
    fn serve(&mut self, request: &Request) -> Reply {
        self.client.request(request)
    }
}

struct Job {
    request: Request,
    cancelled: Cancel,
    reply: tokio::sync::oneshot::Sender<Reply>,
}

/// Work run on the target thread with the backend in hand (a workflow's steps: each step is
/// then a plain call, with no thread hop of its own).
type Task = Box<dyn FnOnce(&mut Box<dyn Backend>) + Send>;

/// What the target thread is asked to do.
// Requests are nearly all of the traffic: kept inline rather than boxed (one allocation
// fewer a call); a task is already a box.
#[allow(clippy::large_enum_variant)]
enum Work {
    Request(Job),
    Task(Task),
}

/// The handle callers use to reach the target thread. Cheap to clone.
#[derive(Clone)]
pub struct TargetHandle {
    tx: mpsc::Sender<Work>,
}

/// A submitted request: await its reply, or cancel it.
pub struct Pending {
    cancelled: Cancel,
    /// The reply (an error reply if the target thread is gone).
    pub reply: tokio::sync::oneshot::Receiver<Reply>,
}

impl Pending {
    /// Marks the request cancelled: if the target has not started it yet, it never will; if it
    /// is running, a long op stops at its next step with `CANCELLED`.
    pub fn cancel(&self) {
        self.cancelled.cancel();
    }

    /// A handle that cancels this request, usable after `reply` has been moved out.
    pub fn cancel_flag(&self) -> CancelFlag {
        CancelFlag(self.cancelled.clone())
    }
}

/// Cancels one submitted request.
#[derive(Clone)]
pub struct CancelFlag(Cancel);

impl CancelFlag {
    /// Marks the request cancelled.
    pub fn cancel(&self) {
        self.0.cancel();
    }
}

/// The name of the target thread (the panic hook recognises it).
const TARGET_THREAD: &str = "automation-target";

/// A panic on the target thread is caught and answered; the default hook's multi-line report
/// is replaced there by one log line (other threads keep the previous hook).
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() == Some(TARGET_THREAD) {
                let at = info
                    .location()
                    .map(|l| format!(" at {}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                tracing::error!("the target panicked{at}: {}", panic_message(info.payload()));
            } else {
                previous(info);
            }
        }));
    });
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".into()
    }
}

/// Serves one request, catching a panic: the reply is then `TARGET_FAILED` saying what
/// panicked and how the backend recovered. What the target thread runs for every request,
/// and what a [`TargetHandle::run_task`] task calls for each of its own.
pub fn serve_caught(backend: &mut Box<dyn Backend>, request: &Request, cancel: &Cancel) -> Reply {
    match std::panic::catch_unwind(AssertUnwindSafe(|| {
        backend.serve_cancellable(request, cancel)
    })) {
        Ok(reply) => reply,
        Err(payload) => {
            let msg = panic_message(payload.as_ref());
            let recovered = recover(backend);
            Reply::Err(
                OpError::new(
                    ErrorCode::TargetFailed,
                    format!(
                        "the toolkit panicked while serving {}: {msg}; {recovered}",
                        request.op.name()
                    ),
                )
                .with_hint("retry the call; if it panics again, report the panic message"),
            )
        }
    }
}

/// Puts a backend back in a usable state after a panic; says what was done.
fn recover(backend: &mut Box<dyn Backend>) -> String {
    match std::panic::catch_unwind(AssertUnwindSafe(|| backend.recover_from_panic())) {
        Ok(r) => r,
        Err(_) => "recovering failed too; restart the automation server".into(),
    }
}

/// The target thread's loop: requests and tasks in arrival order, one at a time.
fn serve_loop(mut backend: Box<dyn Backend>, rx: &mpsc::Receiver<Work>) {
    while let Ok(work) = rx.recv() {
        match work {
            Work::Request(job) => {
                if job.cancelled.is_cancelled() || job.reply.is_closed() {
                    tracing::debug!(op = job.request.op.name(), "skipping a cancelled request");
                    continue;
                }
                let reply = serve_caught(&mut backend, &job.request, &job.cancelled);
                let _ = job.reply.send(reply);
            }
            Work::Task(task) => {
                // A task answers through its own channel; a panic drops it unanswered (the
                // caller sees the channel close) and the backend is rebuilt as after a
                // request's panic.
                if std::panic::catch_unwind(AssertUnwindSafe(|| task(&mut backend))).is_err() {
                    let recovered = recover(&mut backend);
                    tracing::error!("a task on the target thread panicked; {recovered}");
                }
            }
        }
    }
}

impl TargetHandle {
    /// Starts the target thread, builds the backend on it, and waits until it is ready.
    pub fn spawn(factory: BackendFactory) -> Result<TargetHandle, SessionError> {
        let (tx, rx) = mpsc::channel::<Work>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), SessionError>>();
        install_panic_hook();
        std::thread::Builder::new()
            .name(TARGET_THREAD.into())
            .spawn(move || {
                let backend = match factory() {
                    Ok(b) => {
                        let _ = ready_tx.send(Ok(()));
                        b
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                serve_loop(backend, &rx);
            })
            .map_err(|e| SessionError::Target(format!("cannot start the target thread: {e}")))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(TargetHandle { tx }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(SessionError::Target(
                "the target thread stopped while starting".into(),
            )),
        }
    }

    /// Queues a request for the target thread.
    pub fn submit(&self, request: Request) -> Pending {
        let (reply_tx, reply_rx) = tokio::sync::oneshot::channel();
        let cancelled = Cancel::new();
        let job = Job {
            request,
            cancelled: cancelled.clone(),
            reply: reply_tx,
        };
        if let Err(mpsc::SendError(Work::Request(job))) = self.tx.send(Work::Request(job)) {
            let _ = job.reply.send(gone());
        }
        Pending {
            cancelled,
            reply: reply_rx,
        }
    }

    /// Queues `task` to run on the target thread with the backend, after the requests already
    /// queued; its value arrives on the receiver, which closes unanswered if the target thread
    /// is gone or the task panicked.
    pub fn run_task<R: Send + 'static>(
        &self,
        task: impl FnOnce(&mut Box<dyn Backend>) -> R + Send + 'static,
    ) -> tokio::sync::oneshot::Receiver<R> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let work = Work::Task(Box::new(move |backend| {
            let _ = tx.send(task(backend));
        }));
        // Refused only when the target thread is gone: the task (and its sender) is dropped,
        // so the receiver closes.
        let _ = self.tx.send(work);
        rx
    }

    /// Sends a request and waits for its reply.
    pub async fn call(&self, request: Request) -> Reply {
        self.submit(request).reply.await.unwrap_or_else(|_| gone())
    }

    /// One op with a declared reply type (`automation_core::replies`): built from its typed
    /// arguments (no tool name, no JSON), its reply decoded into that type.
    pub async fn op<O: TypedOp>(&self, args: O::Args) -> Result<O::Reply, OpError> {
        O::decode(self.call(Request::new(O::op(args))).await)
    }

    /// Sends a request and blocks the current (non-async) thread for its reply.
    pub fn call_blocking(&self, request: Request) -> Reply {
        self.submit(request)
            .reply
            .blocking_recv()
            .unwrap_or_else(|_| gone())
    }
}

fn gone() -> Reply {
    Reply::Err(
        OpError::new(ErrorCode::TargetFailed, "the target thread has stopped")
            .with_hint("restart the automation server"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find_save() -> Request {
        Request::from_json(r#"{"op": {"find_node": {"role": "Button", "label": "Save"}}}"#).unwrap()
    }

    fn list_windows() -> Request {
        Request::from_json(r#"{"op": "list_windows"}"#).unwrap()
    }

    #[test]
    fn demo_serves_find_and_list_windows() {
        let handle = TargetHandle::spawn(EguiDemo::factory()).unwrap();
        let find = find_save();
        let reply = handle.call_blocking(find);
        assert!(reply.is_ok(), "{reply:?}");
        let list = list_windows();
        let reply = handle.call_blocking(list);
        assert!(
            reply.data().unwrap()["windows"]
                .as_array()
                .is_some_and(|w| !w.is_empty()),
            "{reply:?}"
        );
    }

    #[test]
    fn a_cancelled_job_is_skipped() {
        let handle = TargetHandle::spawn(EguiDemo::factory()).unwrap();
        let p = handle.submit(Request::from_json(r#"{"op": "settle"}"#).unwrap());
        p.cancel();
        // Either it ran before the flag was seen or it was skipped (the reply is then dropped).
        let _ = p.reply.blocking_recv();
    }

    struct PanicsOnce {
        panicked: bool,
        recovered: bool,
    }

    impl Backend for PanicsOnce {
        fn serve(&mut self, _request: &Request) -> Reply {
            if !self.panicked {
                self.panicked = true;
                panic!("boom in the toolkit");
            }
            Reply::Ok(serde_json::json!({"recovered": self.recovered}))
        }

        fn recover_from_panic(&mut self) -> String {
            self.recovered = true;
            "rebuilt".into()
        }
    }

    #[test]
    fn a_panic_on_the_target_thread_is_answered_and_the_next_request_served() {
        let handle = TargetHandle::spawn(Box::new(|| {
            Ok(Box::new(PanicsOnce {
                panicked: false,
                recovered: false,
            }) as Box<dyn Backend>)
        }))
        .unwrap();
        let req = || list_windows();
        let Reply::Err(e) = handle.call_blocking(req()) else {
            panic!("expected an error reply")
        };
        assert_eq!(e.code, ErrorCode::TargetFailed);
        assert!(
            e.message.contains("panicked") && e.message.contains("boom in the toolkit"),
            "{}",
            e.message
        );
        assert!(e.message.contains("rebuilt"), "{}", e.message);
        let reply = handle.call_blocking(req());
        assert_eq!(reply.data().unwrap()["recovered"], serde_json::json!(true));
    }

    #[test]
    fn a_task_runs_with_the_backend_and_a_panicking_one_closes_its_channel() {
        let handle = TargetHandle::spawn(EguiDemo::factory()).unwrap();
        let find = find_save();
        let found = handle
            .run_task(move |backend| backend.serve(&find).is_ok())
            .blocking_recv();
        assert_eq!(found, Ok(true));
        let boom = handle.run_task(|_| -> u8 { panic!("boom in a task") });
        assert!(boom.blocking_recv().is_err());
        let list = list_windows();
        assert!(handle.call_blocking(list).is_ok());
    }

    #[test]
    fn the_demo_recovers_by_rebuilding() {
        let mut demo = EguiDemo::new();
        assert!(demo.recover_from_panic().contains("rebuilt"));
        let find = find_save();
        assert!(demo.serve(&find).is_ok());
    }

    #[test]
    fn a_running_type_text_is_cancelled() {
        let handle = TargetHandle::spawn(EguiDemo::factory()).unwrap();
        let find = Request::from_json(r#"{"op": {"find_node": {"label": "Name"}}}"#).unwrap();
        let reply = handle.call_blocking(find);
        let node = reply.data().unwrap()["node"].as_str().unwrap().to_string();
        let text = "a".repeat(20_000);
        let req = Request::from_value(
            serde_json::json!({"op": {"type_text": {"node": node, "text": text}}}),
        )
        .unwrap();
        let start = std::time::Instant::now();
        let p = handle.submit(req);
        std::thread::sleep(std::time::Duration::from_millis(200));
        p.cancel();
        let reply = p.reply.blocking_recv().unwrap();
        let took = start.elapsed();
        eprintln!("type_text of 20000 characters cancelled after 200 ms: replied in {took:?}");
        let Reply::Err(e) = reply else {
            panic!("expected CANCELLED, got {reply:?}")
        };
        assert_eq!(e.code, ErrorCode::Cancelled, "{}", e.message);
        // Uncancelled, 20 000 characters take ~3 s here (debug build).
        assert!(took < std::time::Duration::from_millis(1500), "{took:?}");
        let list = list_windows();
        assert!(handle.call_blocking(list).is_ok());
    }

    #[test]
    fn a_failing_factory_is_reported() {
        let err = TargetHandle::spawn(Box::new(|| {
            Err(crate::error::SessionError::Target("no app".into()))
        }))
        .err();
        assert!(
            matches!(&err, Some(crate::error::SessionError::Target(why)) if why == "no app"),
            "{err:?}"
        );
    }
}
