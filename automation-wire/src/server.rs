//! The bridge server: host-agnostic, one connection and one request in flight.
//!
//! An accept loop runs on its own thread. Each accepted connection (checked first: peer uid on
//! Linux) gets a short-lived handshake thread of its own, so connections are greeted side by
//! side, never one after another: it must send the token line within one deadline (a
//! connection that never does holds nothing but its own thread, never the slot), and only
//! then is the single slot tried. Free, the connection goes to the connection thread, gets a
//! [`Hello`](crate::handshake::Hello) frame and then sends request frames; taken, it is
//! answered at once with a [`BusyNotice`](crate::handshake::BusyNotice) frame (instead of the
//! hello) and closed, so a second client learns "another client is attached" immediately
//! instead of waiting in the backlog (it waits at most 200 ms for a client that is just
//! leaving). At most [`MAX_HANDSHAKES`] connections are in their handshake at once; one more
//! is closed at once. Each request is handed to the host through a queue
//! ([`BridgeServer::poll`] / [`BridgeServer::recv_timeout`]) as a [`PendingRequest`]; the host
//! (an app's UI thread, or the CLI's target thread) answers with [`PendingRequest::respond`].
//! No answer within the reply timeout (15 s) gives `BRIDGE_TIMEOUT` and the bridge keeps
//! serving; an unparsable frame gets `BAD_REQUEST` and the connection stays; a reply too large
//! to frame becomes a typed error reply instead of desynchronising the stream.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::descriptor::{Descriptor, DescriptorDir, DescriptorError, TransportKind, now_unix_ms};
use crate::frame::{FrameError, MAX_REPLY_FRAME, MAX_REQUEST_FRAME, read_frame, write_frame};
use crate::handshake::{HANDSHAKE_DEADLINE, accept_token, generate_token, write_busy, write_hello};
#[cfg(windows)]
use crate::transport::connect;
use crate::transport::{Connection, Endpoint, EndpointOptions, TransportError};

/// A settle clamp: at most this many animation frames and this wall-clock budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettleLimits {
    /// Animation frames.
    pub max_frames: u32,
    /// Wall-clock budget, ms.
    pub max_timeout_ms: u64,
}

/// Default wait for the host's answer.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(15);
/// How long the bridge spins for an immediate answer before parking.
const SPIN_FOR_REPLY: Duration = Duration::from_micros(50);
/// A reply write that makes no progress for this long drops the connection.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a blocked read wakes to check for shutdown.
const POLL_INTERVAL: Duration = Duration::from_millis(200);
/// How long a new connection waits for the slot to free before it is told the bridge is busy.
const BUSY_GRACE: Duration = Duration::from_millis(200);
/// How long writing a busy notice may take.
const BUSY_WRITE: Duration = Duration::from_millis(100);
/// Most connections in their token handshake at once (each on a thread of its own); one more
/// is closed at once.
pub const MAX_HANDSHAKES: usize = 256;
/// The stack of a handshake thread (it reads one line and writes one frame).
const HANDSHAKE_STACK: usize = 64 * 1024;

/// The request/reply types a bridge speaks, and how it builds its own error replies.
pub trait BridgeProtocol: 'static {
    /// A request, parsed strictly from a frame.
    type Request: DeserializeOwned + Send + 'static;
    /// A reply, serialised into a frame.
    type Reply: Serialize + Send + 'static;
    /// `BAD_REQUEST`: the frame was not a valid request.
    fn bad_request(message: String) -> Self::Reply;
    /// `BRIDGE_TIMEOUT`: the host did not answer in time.
    fn timeout(message: String) -> Self::Reply;
    /// `BRIDGE_DROPPED`: the host dropped the request (shutting down).
    fn dropped(message: String) -> Self::Reply;
    /// The reply could not be framed (too large, or not serialisable).
    fn unframeable(message: String) -> Self::Reply;
    /// Parse a request frame (default: strict serde); an error becomes the `BAD_REQUEST` reply.
    fn parse(text: &str) -> Result<Self::Request, Self::Reply> {
        serde_json::from_str(text).map_err(|e| {
            Self::bad_request(format!(
                "unparsable request frame: {e}; send one JSON request per frame"
            ))
        })
    }
    /// Clamp the request's settle to the live limits: the protocol's own (core's
    /// `SettleSpec::LIVE_MAX_*` for core's protocol), or `limits` when the server was given
    /// some (default: unchanged).
    fn clamp_settle(request: Self::Request, limits: Option<SettleLimits>) -> Self::Request {
        let _ = limits;
        request
    }
}

/// A protocol over plain JSON values, with core-shaped error replies
/// (`{"status":"err","code":…,"message":…}`). For tests, tools and the canary.
#[derive(Debug, Clone, Copy)]
pub struct JsonProtocol;

fn json_err(code: &str, message: String) -> serde_json::Value {
    serde_json::json!({"status": "err", "code": code, "message": message})
}

impl BridgeProtocol for JsonProtocol {
    type Request = serde_json::Value;
    type Reply = serde_json::Value;
    fn bad_request(message: String) -> Self::Reply {
        json_err("BAD_REQUEST", message)
    }
    fn timeout(message: String) -> Self::Reply {
        json_err("BRIDGE_TIMEOUT", message)
    }
    fn dropped(message: String) -> Self::Reply {
        json_err("BRIDGE_DROPPED", message)
    }
    fn unframeable(message: String) -> Self::Reply {
        json_err("BRIDGE_IO", message)
    }
}

/// One request waiting for the host's answer.
#[derive(Debug)]
pub struct PendingRequest<P: BridgeProtocol> {
    request: P::Request,
    reply: SyncSender<P::Reply>,
}

impl<P: BridgeProtocol> PendingRequest<P> {
    /// The request (its settle already clamped).
    pub fn request(&self) -> &P::Request {
        &self.request
    }
    /// Take the request out, keeping the responder.
    pub fn into_parts(self) -> (P::Request, Responder<P>) {
        (self.request, Responder { reply: self.reply })
    }
    /// Answer. Returns false if the bridge stopped waiting (timed out or shut down).
    pub fn respond(self, reply: P::Reply) -> bool {
        self.reply.try_send(reply).is_ok()
    }
}

/// The answering half of a [`PendingRequest`].
#[derive(Debug)]
pub struct Responder<P: BridgeProtocol> {
    reply: SyncSender<P::Reply>,
}

impl<P: BridgeProtocol> Responder<P> {
    /// Answer. Returns false if the bridge stopped waiting.
    pub fn respond(self, reply: P::Reply) -> bool {
        self.reply.try_send(reply).is_ok()
    }
}

/// Server settings.
pub struct ServerOptions {
    /// Name published in the descriptor.
    pub app: String,
    /// Base directory of the descriptor directory (default: `$XDG_RUNTIME_DIR` / temp dir).
    pub base_dir: Option<PathBuf>,
    /// Publish a descriptor (the CLI serving its own children may not want one).
    pub publish_descriptor: bool,
    /// Wait for the host's answer (default 15 s).
    pub reply_timeout: Duration,
    /// Deadline for the whole token handshake (default 10 s).
    pub handshake_deadline: Duration,
    /// Settle clamp in place of the protocol's own live limits (default: the protocol's).
    pub settle_limits: Option<SettleLimits>,
    /// Called after each request is queued (e.g. to wake the UI loop).
    pub waker: Option<Box<dyn Fn() + Send + Sync>>,
    /// Parent of the short socket fallback (default `/tmp`).
    pub fallback_base: Option<PathBuf>,
    /// Test hook: the uid accepted by the Linux peer check.
    #[doc(hidden)]
    pub allowed_uid: Option<u32>,
    /// Test hook: the reply cap (default [`MAX_REPLY_FRAME`]).
    #[doc(hidden)]
    pub max_reply_frame: usize,
}

impl ServerOptions {
    /// Defaults for an app called `app`.
    pub fn new(app: impl Into<String>) -> Self {
        ServerOptions {
            app: app.into(),
            base_dir: None,
            publish_descriptor: true,
            reply_timeout: REPLY_TIMEOUT,
            handshake_deadline: HANDSHAKE_DEADLINE,
            settle_limits: None,
            waker: None,
            fallback_base: None,
            allowed_uid: None,
            max_reply_frame: MAX_REPLY_FRAME,
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// Descriptor directory or file.
    #[error(transparent)]
    Descriptor(#[from] DescriptorError),
    /// Endpoint.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// Token generation or thread spawn.
    #[error("bridge start-up: {0}")]
    Io(#[from] io::Error),
}

/// A running bridge server. Dropping it stops the accept loop, removes the socket, its
/// directory and the descriptor.
pub struct BridgeServer<P: BridgeProtocol> {
    requests: Option<Receiver<PendingRequest<P>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    address: String,
    token: String,
    descriptor_path: Option<PathBuf>,
}

impl<P: BridgeProtocol> std::fmt::Debug for BridgeServer<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BridgeServer")
            .field("address", &self.address)
            .field("descriptor_path", &self.descriptor_path)
            .finish_non_exhaustive()
    }
}

struct Shared {
    token: String,
    stop: Arc<AtomicBool>,
    reply_timeout: Duration,
    handshake_deadline: Duration,
    settle_limits: Option<SettleLimits>,
    waker: Option<Box<dyn Fn() + Send + Sync>>,
    max_reply: usize,
}

/// Where the connection thread hands each request: the server's own queue, or a host's
/// handler. Called on that one thread only; a request it cannot take is given back.
type Deliver<P> = Box<dyn FnMut(PendingRequest<P>) -> Result<(), PendingRequest<P>> + Send>;

impl<P: BridgeProtocol> BridgeServer<P> {
    /// Bind, publish the descriptor (unless disabled) and start the accept thread. Requests
    /// wait in the server's queue for [`poll`](Self::poll) or
    /// [`recv_timeout`](Self::recv_timeout).
    pub fn start(opts: ServerOptions) -> Result<Self, BridgeError> {
        let (tx, rx) = mpsc::channel();
        let deliver: Deliver<P> = Box::new(move |p| tx.send(p).map_err(|e| e.0));
        Self::start_delivering(opts, deliver, Some(rx))
    }

    /// Like [`start`](Self::start), but each request is handed to `handler` on the bridge's
    /// connection thread as it arrives, instead of waiting in the queue (`poll` and
    /// `recv_timeout` then find nothing). For a host that forwards it to its own thread at
    /// once: one thread hop fewer a request. The handler must not block; it answers through
    /// the [`PendingRequest`] (the client gets `BRIDGE_TIMEOUT` after the reply timeout, and
    /// `BRIDGE_DROPPED` if the request is dropped unanswered), or gives the request back
    /// when it cannot take it (it is answered `BRIDGE_DROPPED`).
    pub fn start_with_handler(
        opts: ServerOptions,
        handler: impl FnMut(PendingRequest<P>) -> Result<(), PendingRequest<P>> + Send + 'static,
    ) -> Result<Self, BridgeError> {
        Self::start_delivering(opts, Box::new(handler), None)
    }

    fn start_delivering(
        opts: ServerOptions,
        deliver: Deliver<P>,
        requests: Option<Receiver<PendingRequest<P>>>,
    ) -> Result<Self, BridgeError> {
        let base = opts
            .base_dir
            .clone()
            .unwrap_or_else(crate::descriptor::default_base_dir);
        let dir = DescriptorDir::open_in(&base)?;
        let mut ep_opts = EndpointOptions::new(dir.path());
        if let Some(fb) = &opts.fallback_base {
            ep_opts.fallback_base = fb.clone();
        }
        ep_opts.allowed_uid = opts.allowed_uid;
        let endpoint = Endpoint::bind(&ep_opts)?;
        let token = generate_token()?;
        let address = endpoint.address().to_string();
        let descriptor_path = if opts.publish_descriptor {
            let d = Descriptor {
                version: crate::descriptor::DESCRIPTOR_VERSION,
                pid: std::process::id(),
                transport: TransportKind::native(),
                address: address.clone(),
                token: token.clone(),
                app: opts.app.clone(),
                started_unix_ms: now_unix_ms(),
            };
            Some(dir.publish(&d)?)
        } else {
            None
        };
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared {
            token: token.clone(),
            stop: stop.clone(),
            reply_timeout: opts.reply_timeout,
            handshake_deadline: opts.handshake_deadline,
            settle_limits: opts.settle_limits,
            waker: opts.waker,
            max_reply: opts.max_reply_frame.min(MAX_REPLY_FRAME),
        });
        let thread = std::thread::Builder::new()
            .name("automation-bridge".into())
            .spawn(move || accept_loop::<P>(endpoint, shared, deliver))?;
        Ok(BridgeServer {
            requests,
            stop,
            thread: Some(thread),
            address,
            token,
            descriptor_path,
        })
    }

    /// The endpoint address (socket path or pipe name).
    pub fn address(&self) -> &str {
        &self.address
    }
    /// The token clients must send.
    pub fn token(&self) -> &str {
        &self.token
    }
    /// Where the descriptor was published, if it was.
    pub fn descriptor_path(&self) -> Option<&std::path::Path> {
        self.descriptor_path.as_deref()
    }

    /// The next waiting request, if any (non-blocking; call it from the host's frame loop).
    pub fn poll(&self) -> Option<PendingRequest<P>> {
        self.requests.as_ref()?.try_recv().ok()
    }

    /// Wait up to `timeout` for the next request.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<PendingRequest<P>> {
        self.requests.as_ref()?.recv_timeout(timeout).ok()
    }
}

impl<P: BridgeProtocol> Drop for BridgeServer<P> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Queued requests answer BRIDGE_DROPPED.
        drop(self.requests.take());
        // Wake a blocked accept() at once where accept blocks (Windows); on Unix the loop
        // also polls the stop flag.
        #[cfg(windows)]
        let _ = connect(&self.address);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(p) = self.descriptor_path.take() {
            let _ = DescriptorDir::remove(&p);
        }
    }
}

/// Reads that wake every [`POLL_INTERVAL`] to check the stop flag, and otherwise keep waiting
/// (so a slow frame is never cut mid-way by the poll timeout).
struct StopAware<'a> {
    conn: &'a Connection,
    stop: &'a AtomicBool,
}

impl Read for StopAware<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut c = self.conn;
            match c.read(buf) {
                Err(e) if crate::frame::is_timeout_kind(e.kind()) => {
                    if self.stop.load(Ordering::SeqCst) {
                        return Err(io::Error::new(
                            io::ErrorKind::ConnectionAborted,
                            "bridge shutting down",
                        ));
                    }
                }
                other => return other,
            }
        }
    }
}

/// The single connection slot: taken by the connection being served (from accept to close).
#[derive(Default)]
struct Slot {
    taken: Mutex<bool>,
    freed: Condvar,
}

impl Slot {
    /// Take the slot, waiting up to `grace` for the current connection to finish (a client
    /// that just closed, such as `--attach`'s own probe, is still being wound down).
    fn take_within(&self, grace: Duration) -> bool {
        let taken = self
            .taken
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (mut taken, _) = self
            .freed
            .wait_timeout_while(taken, grace, |t| *t)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if *taken {
            false
        } else {
            *taken = true;
            true
        }
    }

    fn release(&self) {
        *self
            .taken
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = false;
        self.freed.notify_all();
    }
}

/// The accept thread: it keeps accepting while a connection is served on the connection
/// thread, and hands each new connection to a handshake thread of its own.
fn accept_loop<P: BridgeProtocol>(
    endpoint: Endpoint,
    shared: Arc<Shared>,
    mut deliver: Deliver<P>,
) {
    let stop = shared.stop.clone();
    let slot = Arc::new(Slot::default());
    let (conn_tx, conn_rx) = mpsc::channel::<Connection>();
    let worker_slot = slot.clone();
    let worker_shared = shared.clone();
    let worker = std::thread::Builder::new()
        .name("automation-bridge-conn".into())
        .spawn(move || {
            // Handshake threads hold senders too; the stop flag ends the loop without them.
            loop {
                match conn_rx.recv_timeout(POLL_INTERVAL) {
                    Ok(conn) => {
                        serve_connection::<P>(&conn, &worker_shared, &mut deliver);
                        drop(conn);
                        worker_slot.release();
                    }
                    Err(RecvTimeoutError::Timeout)
                        if !worker_shared.stop.load(Ordering::SeqCst) => {}
                    Err(_) => break,
                }
            }
        });
    let Ok(worker) = worker else {
        eprintln!("automation: could not start the bridge's connection thread; bridge disabled");
        return;
    };
    let handshaking = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::SeqCst) {
        if !endpoint.wait_acceptable(POLL_INTERVAL) {
            continue;
        }
        let conn = match endpoint.accept() {
            Ok(c) => c,
            Err(TransportError::PeerRejected { peer, us }) => {
                eprintln!(
                    "automation: refused a connection from uid {peer:?} (only uid {us} may attach)"
                );
                continue;
            }
            Err(_) => {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
        };
        if stop.load(Ordering::SeqCst) {
            break;
        }
        if handshaking.fetch_add(1, Ordering::SeqCst) >= MAX_HANDSHAKES {
            handshaking.fetch_sub(1, Ordering::SeqCst);
            continue; // dropped: closed at once
        }
        let (shared, slot, conn_tx, count) = (
            shared.clone(),
            slot.clone(),
            conn_tx.clone(),
            handshaking.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("automation-bridge-hello".into())
            .stack_size(HANDSHAKE_STACK)
            .spawn(move || {
                admit(conn, &shared, &slot, &conn_tx);
                count.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            handshaking.fetch_sub(1, Ordering::SeqCst);
        }
    }
    drop(conn_tx);
    let _ = worker.join();
}

/// One connection's way in, on its own thread: the token line within the deadline (else it is
/// dropped, having held nothing), then the slot (at most [`BUSY_GRACE`] for a client that is
/// just leaving): free, the connection goes to the connection thread; taken, the busy notice.
fn admit(conn: Connection, shared: &Shared, slot: &Slot, to_worker: &mpsc::Sender<Connection>) {
    let deadline = Instant::now() + shared.handshake_deadline;
    let mut rd = &conn;
    if accept_token(&mut rd, &shared.token, deadline, |left| {
        conn.set_read_timeout(Some(left))
    })
    .is_err()
    {
        return;
    }
    if shared.stop.load(Ordering::SeqCst) {
        return;
    }
    if !slot.take_within(BUSY_GRACE) {
        answer_busy(&conn);
        return;
    }
    if let Err(mpsc::SendError(conn)) = to_worker.send(conn) {
        drop(conn);
        slot.release();
    }
}

/// Tell a client whose token was good that the slot is taken, then hang up (its token line
/// has been read, so the close finds no unread data and does not reset the connection before
/// the client has read the notice).
fn answer_busy(conn: &Connection) {
    if conn.set_write_timeout(Some(BUSY_WRITE)).is_ok() {
        let _ = write_busy(&mut writer(conn));
    }
}

fn serve_connection<P: BridgeProtocol>(
    conn: &Connection,
    shared: &Shared,
    deliver: &mut Deliver<P>,
) {
    // The token was accepted on the connection's handshake thread. A client that stops reading must not hold the single slot forever.
    if conn.set_read_timeout(Some(POLL_INTERVAL)).is_err()
        || conn.set_write_timeout(Some(WRITE_TIMEOUT)).is_err()
        || write_hello(&mut writer(conn)).is_err()
    {
        return;
    }
    let mut reader = StopAware {
        conn,
        stop: &shared.stop,
    };
    loop {
        let reply = match read_frame(&mut reader, MAX_REQUEST_FRAME) {
            Ok(None) => return,
            Ok(Some(text)) => match P::parse(&text) {
                Ok(req) => dispatch::<P>(req, shared, deliver),
                Err(bad) => bad,
            },
            Err(FrameError::NotUtf8(e)) => {
                P::bad_request(format!("request frame is not UTF-8: {e}"))
            }
            Err(e @ FrameError::TooLarge { .. }) => {
                // The body was not read, so the stream is out of sync: answer, then hang up.
                let _ = send_reply::<P>(conn, shared.max_reply, &P::bad_request(e.to_string()));
                return;
            }
            Err(_) => return,
        };
        if send_reply::<P>(conn, shared.max_reply, &reply).is_err() {
            return;
        }
    }
}

fn dispatch<P: BridgeProtocol>(
    req: P::Request,
    shared: &Shared,
    deliver: &mut Deliver<P>,
) -> P::Reply {
    let request = P::clamp_settle(req, shared.settle_limits);
    let (reply_tx, reply_rx) = mpsc::sync_channel(1);
    if deliver(PendingRequest {
        request,
        reply: reply_tx,
    })
    .is_err()
    {
        return P::dropped("the app is shutting down its automation bridge".into());
    }
    if let Some(w) = &shared.waker {
        w();
    }
    // A host that answers at once (the CLI's target thread, a benchmark) is picked up without
    // parking this thread: spin for a few tens of microseconds first, then block.
    let spin_until = Instant::now() + SPIN_FOR_REPLY;
    let first = loop {
        match reply_rx.try_recv() {
            Ok(rep) => break Some(Ok(rep)),
            Err(mpsc::TryRecvError::Disconnected) => {
                break Some(Err(RecvTimeoutError::Disconnected));
            }
            Err(mpsc::TryRecvError::Empty) if Instant::now() < spin_until => std::hint::spin_loop(),
            Err(mpsc::TryRecvError::Empty) => break None,
        }
    };
    let outcome = match first {
        Some(o) => o,
        None => reply_rx.recv_timeout(shared.reply_timeout),
    };
    match outcome {
        Ok(rep) => rep,
        Err(RecvTimeoutError::Timeout) => P::timeout(format!(
            "the app's UI thread did not answer within {:?} (a native modal loop, a drag, or a busy frame?); the bridge is still serving, retry",
            shared.reply_timeout
        )),
        Err(RecvTimeoutError::Disconnected) => {
            P::dropped("the app dropped the request without answering (shutting down?)".into())
        }
    }
}

fn send_reply<P: BridgeProtocol>(
    conn: &Connection,
    max: usize,
    reply: &P::Reply,
) -> Result<(), FrameError> {
    let bytes = match serde_json::to_vec(reply) {
        Ok(b) if b.len() <= max => b,
        Ok(b) => serde_json::to_vec(&P::unframeable(format!(
            "reply of {} bytes exceeds the {max}-byte reply cap; ask for less (max_depth, a node's subtree, a smaller screenshot)",
            b.len()
        )))
        .map_err(|e| FrameError::Io(io::Error::other(e)))?,
        Err(e) => serde_json::to_vec(&P::unframeable(format!("reply could not be serialised: {e}")))
            .map_err(|e| FrameError::Io(io::Error::other(e)))?,
    };
    write_frame(&mut writer(conn), &bytes, MAX_REPLY_FRAME)
}

fn writer(conn: &Connection) -> &Connection {
    conn
}
