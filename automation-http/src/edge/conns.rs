//! The open connections of one server: how many may be open, which are idle, which to close.
//!
//! - A connection is *busy* while a request is in flight on it — from the moment its handler
//!   starts until its response body has been sent or dropped (a server-sent-event stream is
//!   busy as long as it is open) — and *idle* otherwise.
//! - An idle connection is closed once it has been idle for [`IDLE`].
//! - At most [`Conns::cap`] are open, a cap below the descriptor limit. A new connection at
//!   the cap closes the connection idle the longest to make room; when every one is busy, the
//!   newcomer is answered 503 and closed. So sockets opened and held take no room from a real
//!   client: they are the idlest, and go first.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use http_body::{Body as HttpBody, Frame, SizeHint};
use tokio::sync::Notify;

/// How long a connection may sit idle (no request in flight, none arriving) before it is
/// closed — also how long a client may take to send a request's headers.
pub const IDLE: Duration = Duration::from_secs(30);
/// Descriptors kept back from the cap for everything else the server opens (each session's
/// app, display and buses; logs; the runtime's own).
const RESERVE: u64 = 256;
/// The cap when the descriptor limit is high.
const MOST: u64 = 1024;
/// The cap when the descriptor limit is very low.
const LEAST: u64 = 16;

/// One open connection's state.
#[derive(Debug)]
pub struct Conn {
    id: u64,
    in_flight: AtomicUsize,
    /// When it was last busy, in ms since the registry's start.
    last: AtomicU64,
    /// Told when the registry wants it closed (evicted at the cap).
    pub close: Notify,
    epoch: Instant,
}

impl Conn {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Marks a request begun; the guard marks it done when dropped.
    pub fn begin(self: &Arc<Self>) -> Busy {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        self.last.store(self.now(), Ordering::SeqCst);
        Busy(Arc::clone(self))
    }

    /// How long it has been idle, or `None` while busy.
    pub fn idle_for(&self) -> Option<Duration> {
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            return None;
        }
        let since = self.now().saturating_sub(self.last.load(Ordering::SeqCst));
        Some(Duration::from_millis(since))
    }
}

/// A request in flight on a connection: dropped when its response is done.
#[derive(Debug)]
pub struct Busy(Arc<Conn>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.last.store(self.0.now(), Ordering::SeqCst);
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The open connections.
#[derive(Debug)]
pub struct Conns {
    cap: usize,
    open: Mutex<HashMap<u64, Arc<Conn>>>,
    next: AtomicU64,
    epoch: Instant,
}

impl Conns {
    /// A registry capped below this process's descriptor limit.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::with_cap(cap_for(descriptor_limit())))
    }

    /// A registry with an explicit cap.
    pub fn with_cap(cap: usize) -> Self {
        Self {
            cap: cap.max(1),
            open: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    /// How many connections may be open.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// How many are open.
    pub fn count(&self) -> usize {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Room for one more: registered, after asking the idlest to close if the registry is
    /// full; `None` when every open connection is busy.
    pub fn admit(&self) -> Option<Arc<Conn>> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.len() >= self.cap {
            let idlest = open
                .values()
                .filter_map(|c| c.idle_for().map(|d| (d, Arc::clone(c))))
                .max_by_key(|(d, _)| *d)
                .map(|(_, c)| c)?;
            // Out of the count at once: it is closing, and its room is the newcomer's.
            open.remove(&idlest.id);
            idlest.close.notify_one();
        }
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let conn = Arc::new(Conn {
            id,
            in_flight: AtomicUsize::new(0),
            last: AtomicU64::new(0),
            close: Notify::new(),
            epoch: self.epoch,
        });
        conn.last.store(conn.now(), Ordering::SeqCst);
        open.insert(id, Arc::clone(&conn));
        Some(conn)
    }

    /// Forgets a connection that ended.
    pub fn remove(&self, conn: &Conn) {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&conn.id);
    }
}

/// This process's soft limit on open descriptors.
fn descriptor_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit(2) writes the struct passed, which lives for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) } == 0 {
        limit.rlim_cur
    } else {
        1024
    }
}

/// The cap for a descriptor limit: the limit less what the rest of the server needs.
pub fn cap_for(limit: u64) -> usize {
    usize::try_from(limit.saturating_sub(RESERVE).clamp(LEAST, MOST)).unwrap_or(16)
}

/// A response body that keeps its request marked busy until it is sent or dropped.
pub struct Tracked {
    inner: Body,
    _busy: Busy,
}

impl Tracked {
    /// `inner`, holding `busy` for its life.
    pub fn new(inner: Body, busy: Busy) -> Self {
        Self { inner, _busy: busy }
    }
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_idlest_makes_room_and_a_busy_server_refuses() {
        let conns = Conns::with_cap(2);
        let a = conns.admit().unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let b = conns.admit().unwrap();
        let _busy_b = b.begin();
        // Full: `a` (idle) is asked to close and forgotten; `b` (busy) stays.
        let c = conns.admit().unwrap();
        assert_eq!(conns.count(), 2);
        assert!(a.idle_for().is_some());
        assert!(b.idle_for().is_none());
        // Both busy: no room.
        let _busy_c = c.begin();
        assert!(conns.admit().is_none());
        drop(_busy_c);
        assert!(conns.admit().is_some());
    }

    #[test]
    fn the_cap_stays_below_the_descriptor_limit() {
        assert_eq!(cap_for(1024), 768);
        assert_eq!(cap_for(100), 16);
        assert_eq!(cap_for(1 << 20), 1024);
    }
}
