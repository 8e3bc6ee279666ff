//! What the server drives: a [`Backend`] that answers one [`Request`] with one [`Reply`], and
//! the one dedicated thread it lives on.
//!
//! The backend is built *on* its thread by a [`BackendFactory`], so a `!Send` target (an egui
//! context, an `Rc`-based tree) never crosses threads; callers hand it plain data over a
//! channel. One thread, one job at a time: every call is serialised, mutating or not.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use automation_core::{ErrorCode, OpError, Reply, Request, Session};
use automation_wire::core_bridge::CoreBridgeClient;

/// Anything that answers requests: the in-process demo, or a live app over the bridge.
pub trait Backend {
    /// Serves one request (including the host ops `screenshot` and `list_windows`).
    fn serve(&mut self, request: &Request) -> Reply;
}

/// Builds a backend on the target thread.
pub type BackendFactory = Box<dyn FnOnce() -> Result<Box<dyn Backend>, String> + Send>;

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
    cancelled: Arc<AtomicBool>,
    reply: tokio::sync::oneshot::Sender<Reply>,
}

/// The handle callers use to reach the target thread. Cheap to clone.
#[derive(Clone)]
pub struct TargetHandle {
    tx: mpsc::Sender<Job>,
}

/// A submitted request: await its reply, or cancel it.
pub struct Pending {
    cancelled: Arc<AtomicBool>,
    /// The reply (an error reply if the target thread is gone).
    pub reply: tokio::sync::oneshot::Receiver<Reply>,
}

impl Pending {
    /// Marks the request cancelled: if the target has not started it yet, it never will.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }

    /// A handle that cancels this request, usable after `reply` has been moved out.
    pub fn cancel_flag(&self) -> CancelFlag {
        CancelFlag(self.cancelled.clone())
    }
}

/// Cancels one submitted request.
#[derive(Clone)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// Marks the request cancelled.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl TargetHandle {
    /// Starts the target thread, builds the backend on it, and waits until it is ready.
    pub fn spawn(factory: BackendFactory) -> Result<TargetHandle, String> {
        let (tx, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
        std::thread::Builder::new()
            .name("automation-target".into())
            .spawn(move || {
                let mut backend = match factory() {
                    Ok(b) => {
                        let _ = ready_tx.send(Ok(()));
                        b
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                while let Ok(job) = rx.recv() {
                    if job.cancelled.load(Ordering::SeqCst) || job.reply.is_closed() {
                        tracing::debug!(op = job.request.op.name(), "skipping a cancelled request");
                        continue;
                    }
                    let reply = backend.serve(&job.request);
                    let _ = job.reply.send(reply);
                }
            })
            .map_err(|e| format!("cannot start the target thread: {e}"))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(TargetHandle { tx }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err("the target thread stopped while starting".into()),
        }
    }

    /// Queues a request for the target thread.
    pub fn submit(&self, request: Request) -> Pending {
        let (reply_tx, reply_rx) = tokio::sync::oneshot::channel();
        let cancelled = Arc::new(AtomicBool::new(false));
        let job = Job {
            request,
            cancelled: cancelled.clone(),
            reply: reply_tx,
        };
        if let Err(mpsc::SendError(job)) = self.tx.send(job) {
            let _ = job.reply.send(gone());
        }
        Pending {
            cancelled,
            reply: reply_rx,
        }
    }

    /// Sends a request and waits for its reply.
    pub async fn call(&self, request: Request) -> Reply {
        self.submit(request).reply.await.unwrap_or_else(|_| gone())
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

    #[test]
    fn demo_serves_find_and_list_windows() {
        let handle = TargetHandle::spawn(EguiDemo::factory()).unwrap();
        let find =
            Request::from_json(r#"{"op": {"find_node": {"role": "Button", "label": "Save"}}}"#)
                .unwrap();
        let reply = handle.call_blocking(find);
        assert!(reply.is_ok(), "{reply:?}");
        let list = Request::from_json(r#"{"op": "list_windows"}"#).unwrap();
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

    #[test]
    fn a_failing_factory_is_reported() {
        let err = TargetHandle::spawn(Box::new(|| Err("no app".to_string()))).err();
        assert_eq!(err.as_deref(), Some("no app"));
    }
}
