//! The session manager: many apps driven from one server, each by the one session that
//! started it.
//!
//! A session owns its target — a launched app (on its own private display and buses, when
//! asked), an app on the bus, the headless demo or a live bridge — on a target thread of its
//! own, so two sessions never wait for each other. Sessions are created and ended
//! independently, at most `max` at once (a slot is taken before the app starts, so a burst
//! of requests cannot overshoot), and one unused for `idle` is ended by the reaper. Ending a
//! session ends everything it started: the app's process group, its Xvfb and its buses.
//!
//! Both HTTP front doors (`automation webdriver`, MCP over HTTP) sit on this; each keeps its
//! own per-session state `S` beside the target.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use automation_core::replies::TypedOp;
use automation_core::{Cancel, ErrorCode, OpError, Request};
use serde_json::{Map, Value};

use automation_session::backend::{Backend, TargetHandle, serve_caught};
use automation_session::mode::{Mode, SessionError};
use automation_session::tools::{self, Outcome, Snapshots};

/// Why a session was not created.
#[derive(Debug)]
pub enum CreateError {
    /// Every slot is taken.
    Full {
        /// The limit.
        max: usize,
    },
    /// The target could not be started or reached.
    Failed(SessionError),
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Full { max } => write!(
                f,
                "all {max} session slots are in use; end a session (DELETE /session/ID) or start the server with a larger --max-sessions"
            ),
            Self::Failed(why) => write!(f, "{why}"),
        }
    }
}

/// What a session started and must end: a launched app and its display.
enum Owned {
    None,
    #[cfg(feature = "atspi")]
    Launched(automation_session::atspi_mode::Launched),
}

/// One session: its id, its target thread, what it started, and the front door's state.
pub struct Session<S> {
    /// The id clients name it by (128 random bits, hex).
    pub id: String,
    /// What it drives, for logs and replies.
    pub describe: String,
    target: TargetHandle,
    owned: Mutex<Owned>,
    last_used: Mutex<Instant>,
    /// Commands running now: the reaper never ends a session mid-command.
    running: AtomicUsize,
    ended: AtomicBool,
    snapshots: Arc<Snapshots>,
    /// The front door's own state (timeouts, the current window, …).
    pub state: Mutex<S>,
}

/// Locks a mutex whose data stays usable after a panic elsewhere.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<S> Session<S> {
    /// The target thread (for a front door that runs its own calls, like MCP).
    pub fn target(&self) -> &TargetHandle {
        &self.target
    }

    /// Whether the session was ended (a command racing its end gets an error, not a panic).
    pub fn is_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// Marks the session used now.
    pub fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    /// One tool call through the tool layer every front door shares, on this session's
    /// target thread. An unknown tool name is a `BAD_REQUEST` failure.
    pub async fn call(&self, tool: &str, args: Map<String, Value>) -> Outcome {
        let name = tool.to_string();
        let snapshots = Arc::clone(&self.snapshots);
        let done = self
            .on_target(move |backend| {
                let cancel = Cancel::new();
                tools::call(&name, args, &snapshots, |r| {
                    serve_caught(backend, r, &cancel)
                })
            })
            .await;
        match done {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(unknown)) => {
                Outcome::Failed(OpError::new(ErrorCode::BadRequest, unknown.to_string()))
            }
            Err(e) => Outcome::Failed(e),
        }
    }

    /// One op with a declared reply type (`automation_core::replies`), on this session's
    /// target thread: built from its typed arguments (no tool name, no JSON), its reply
    /// decoded into that type.
    pub async fn op<O>(&self, args: O::Args) -> Result<O::Reply, OpError>
    where
        O: TypedOp,
        O::Args: Send + 'static,
        O::Reply: Send + 'static,
    {
        self.on_target(move |backend| {
            let cancel = Cancel::new();
            O::decode(serve_caught(backend, &Request::new(O::op(args)), &cancel))
        })
        .await?
    }

    /// Runs `task` on the target thread, the session kept alive (not reaped, marked used)
    /// while it runs; an ended session, or a target thread that stopped, is a typed error.
    async fn on_target<R: Send + 'static>(
        &self,
        task: impl FnOnce(&mut Box<dyn Backend>) -> R + Send + 'static,
    ) -> Result<R, OpError> {
        if self.is_ended() {
            return Err(OpError::new(
                ErrorCode::TargetFailed,
                format!("session {} has ended", self.id),
            ));
        }
        self.running.fetch_add(1, Ordering::AcqRel);
        self.touch();
        let done = self.target.run_task(task).await.map_err(|_| {
            OpError::new(
                ErrorCode::TargetFailed,
                "the session's target thread stopped during the call",
            )
            .with_hint("end this session and start a new one")
        });
        self.touch();
        self.running.fetch_sub(1, Ordering::AcqRel);
        done
    }

    /// Ends what the session started (idempotent; blocks while the app and display end).
    fn end_blocking(&self) {
        self.ended.store(true, Ordering::Release);
        let owned = std::mem::replace(&mut *lock(&self.owned), Owned::None);
        match owned {
            Owned::None => {}
            #[cfg(feature = "atspi")]
            Owned::Launched(mut launched) => launched.stop(),
        }
    }
}

impl<S> Drop for Session<S> {
    fn drop(&mut self) {
        self.end_blocking();
    }
}

/// Every live session of a server.
pub struct Sessions<S> {
    max: usize,
    idle: Duration,
    live: Mutex<HashMap<String, Arc<Session<S>>>>,
    /// Slots taken by sessions still starting.
    starting: AtomicUsize,
    snapshots: Arc<Snapshots>,
}

impl<S: Default + Send + 'static> Sessions<S> {
    /// A manager of at most `max` sessions, each ended after `idle` unused.
    pub fn new(max: usize, idle: Duration, snapshots: Snapshots) -> Arc<Self> {
        Arc::new(Self {
            max: max.max(1),
            idle,
            live: Mutex::new(HashMap::new()),
            starting: AtomicUsize::new(0),
            snapshots: Arc::new(snapshots),
        })
    }

    /// The session limit.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Sessions live now (not counting those starting).
    pub fn count(&self) -> usize {
        lock(&self.live).len()
    }

    /// Whether a new session would get a slot.
    pub fn ready(&self) -> bool {
        self.count() + self.starting.load(Ordering::Acquire) < self.max
    }

    /// What `GET /status` answers on both HTTP servers: whether a new session would be taken,
    /// and how many are in use of how many.
    pub fn status(&self) -> serde_json::Value {
        let (ready, count, max) = (self.ready(), self.count(), self.max());
        let word = if ready { "ready" } else { "full" };
        serde_json::json!({
            "ready": ready,
            "message": format!("{word}: {count} of {max} sessions in use"),
            "sessions": count,
            "maxSessions": max,
        })
    }

    /// Starts a session on `mode`'s target (a launch starts the app; that blocks a worker
    /// thread, never the server's). The slot is taken first and given back on failure.
    pub async fn create(self: &Arc<Self>, mode: Mode) -> Result<Arc<Session<S>>, CreateError> {
        self.take_slot()?;
        // Given back however this ends, the caller's future dropped mid-start included (a
        // client that hung up): a lost slot would shrink the server for good.
        let _slot = Starting(&self.starting);
        let snapshots = Arc::clone(&self.snapshots);
        let opened = tokio::task::spawn_blocking(move || open(mode))
            .await
            .unwrap_or_else(|e| {
                Err(SessionError::Target(format!(
                    "starting the target failed: {e}"
                )))
            });
        let result = opened.map(|(target, describe, owned)| {
            let session = Arc::new(Session {
                id: new_id(),
                describe,
                target,
                owned: Mutex::new(owned),
                last_used: Mutex::new(Instant::now()),
                running: AtomicUsize::new(0),
                ended: AtomicBool::new(false),
                snapshots,
                state: Mutex::new(S::default()),
            });
            lock(&self.live).insert(session.id.clone(), Arc::clone(&session));
            session
        });
        result.map_err(CreateError::Failed)
    }

    fn take_slot(&self) -> Result<(), CreateError> {
        let live = lock(&self.live);
        let starting = self.starting.load(Ordering::Acquire);
        if live.len() + starting >= self.max {
            return Err(CreateError::Full { max: self.max });
        }
        self.starting.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// The live session `id`.
    pub fn get(&self, id: &str) -> Option<Arc<Session<S>>> {
        lock(&self.live).get(id).cloned()
    }

    /// The ids of the live sessions.
    pub fn ids(&self) -> Vec<String> {
        lock(&self.live).keys().cloned().collect()
    }

    /// Ends session `id` and everything it started; false if there was none.
    pub async fn end(&self, id: &str) -> bool {
        let removed = lock(&self.live).remove(id);
        match removed {
            Some(session) => {
                end_in_background(session).await;
                true
            }
            None => false,
        }
    }

    /// Ends every session (the server is stopping).
    pub async fn end_all(&self) {
        let all: Vec<_> = lock(&self.live).drain().map(|(_, s)| s).collect();
        for session in all {
            end_in_background(session).await;
        }
    }

    /// Ends the sessions unused for longer than the idle timeout, every second, until the
    /// manager is dropped.
    pub fn reap_idle(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tick.tick().await;
                let Some(sessions) = weak.upgrade() else {
                    return;
                };
                let idle: Vec<String> = lock(&sessions.live)
                    .values()
                    .filter(|s| {
                        s.running.load(Ordering::Acquire) == 0
                            && lock(&s.last_used).elapsed() > sessions.idle
                    })
                    .map(|s| s.id.clone())
                    .collect();
                for id in idle {
                    tracing::info!(session = %id, "ending a session idle for {:?}", sessions.idle);
                    sessions.end(&id).await;
                }
            }
        });
    }
}

/// A slot taken by a session that is starting; given back on drop.
struct Starting<'a>(&'a AtomicUsize);

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Ends a session off the async threads (stopping an app waits for it).
async fn end_in_background<S: Send + 'static>(session: Arc<Session<S>>) {
    let _ = tokio::task::spawn_blocking(move || session.end_blocking()).await;
}

/// 128 random bits as hex (the ids are names, not secrets: the bearer token guards a server
/// beyond loopback); with no OS randomness, time and a counter keep them unique.
fn new_id() -> String {
    automation_wire::handshake::generate_token().unwrap_or_else(|_| {
        static N: AtomicUsize = AtomicUsize::new(0);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        format!("{t:x}{:04x}", N.fetch_add(1, Ordering::Relaxed))
    })
}

/// Starts `mode`'s target on a new target thread.
fn open(mode: Mode) -> Result<(TargetHandle, String, Owned), SessionError> {
    let (resolved, owned) = match mode {
        #[cfg(feature = "atspi")]
        Mode::Launch {
            command,
            virtual_display,
            display,
        } => {
            let (resolved, launched) = automation_session::atspi_mode::launch_owned(
                &command,
                virtual_display.then_some(display),
            )?;
            (resolved, Owned::Launched(launched))
        }
        other => (automation_session::mode::resolve(&other)?, Owned::None),
    };
    let describe = resolved.describe;
    // If the target thread cannot start, `owned` drops here and ends the app.
    let target = TargetHandle::spawn(resolved.factory)?;
    Ok((target, describe, owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sessions(max: usize, idle: Duration) -> Arc<Sessions<()>> {
        Sessions::new(max, idle, Snapshots::new("snapshots", false))
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn sessions_are_isolated_capped_and_ended() {
        let s = sessions(2, Duration::from_secs(60));
        let a = s.create(Mode::Headless).await.unwrap();
        let b = s.create(Mode::Headless).await.unwrap();
        assert_ne!(a.id, b.id);
        assert!(!s.ready());
        let full = s.create(Mode::Headless).await.err();
        assert!(
            matches!(full, Some(CreateError::Full { max: 2 })),
            "{full:?}"
        );
        // Each demo is its own: typing into one leaves the other's field empty.
        let find = |m: &str| -> Map<String, Value> {
            serde_json::from_str(&format!(r#"{{"label": "{m}"}}"#)).unwrap()
        };
        let Outcome::Data(found) = a.call("find_node", find("Name")).await else {
            panic!()
        };
        let node = found["node"].clone();
        let mut args = Map::new();
        args.insert("node".into(), node);
        args.insert("text".into(), "alpha".into());
        assert!(matches!(a.call("type_text", args).await, Outcome::Data(_)));
        let Outcome::Data(other) = b.call("find_node", find("Name")).await else {
            panic!()
        };
        assert_eq!(other["record"]["value"], "", "{other}");
        assert!(s.end(&a.id).await);
        assert!(!s.end(&a.id).await);
        assert!(s.ready());
        assert!(matches!(
            a.call("find_node", find("Name")).await,
            Outcome::Failed(e) if e.code == ErrorCode::TargetFailed
        ));
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn an_idle_session_is_reaped() {
        let s = sessions(1, Duration::from_millis(200));
        s.reap_idle();
        let a = s.create(Mode::Headless).await.unwrap();
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert!(s.get(&a.id).is_none());
        assert!(s.ready());
    }
}
