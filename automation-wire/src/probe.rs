//! Probing a published endpoint: `Live`, `Busy` or `Dead`.
//!
//! Only `Dead` (no socket or pipe, or the `ECONNREFUSED` of a stale socket) is unambiguous, and
//! only a `Dead` descriptor is ever pruned. A bridge that is serving someone else answers our
//! probe at once with a busy notice instead of its hello: that is `Busy`, and it stays listed.
//!
//! A probe has **one** deadline for all of it (token write, then the whole greeting), not a
//! timeout per read, and it runs on its own thread so even a `connect` that blocks (a listener
//! that never accepts, its backlog full) costs no more than the deadline. [`list_live`] probes
//! up to [`PROBE_PARALLELISM`] descriptors at a time, so one hostile or frozen entry delays the
//! listing by at most one deadline.
//!
//! A `connect` that really blocks (a listener whose backlog is full) cannot be cancelled
//! portably: its probe thread is left behind and ends when the connect returns; the caller has
//! its answer (`Busy`) at the deadline either way.

use std::collections::VecDeque;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::descriptor::{Descriptor, DescriptorDir, DescriptorError, ListedDescriptor};
use crate::handshake::{HandshakeError, read_hello, send_token};
use crate::transport::{DeadlineReader, TransportError, connect};

/// The whole-probe deadline used by the CLI's `--list` / `--attach`.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
/// How many descriptors [`list_live`] probes at once.
pub const PROBE_PARALLELISM: usize = 8;
/// Extra wait for a probe thread to report after its deadline (scheduling on a loaded machine).
const REPORT_SLACK: Duration = Duration::from_millis(250);

/// What is behind a descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeState {
    /// A bridge answered our token with its hello.
    Live,
    /// Something is listening but could not take us: another client is attached (the bridge
    /// said so), or it did not greet us before the deadline, or it refused the token. Never
    /// pruned.
    Busy,
    /// Nothing is listening. Safe to prune.
    Dead,
}

/// Probe one descriptor; the whole probe takes at most `timeout` (plus a little scheduling
/// slack).
pub fn probe(d: &Descriptor, timeout: Duration) -> ProbeState {
    let deadline = Instant::now() + timeout;
    let (tx, rx) = mpsc::channel();
    let owned = d.clone();
    let spawned = std::thread::Builder::new()
        .name("automation-probe".into())
        .spawn(move || {
            let _ = tx.send(probe_until(&owned, deadline));
        });
    if spawned.is_err() {
        // No thread to spare: probe inline (the reads are still bounded by the deadline).
        return probe_until(d, deadline);
    }
    // No report in time (a connect that blocks): something is there but not answering.
    rx.recv_timeout(timeout + REPORT_SLACK)
        .unwrap_or(ProbeState::Busy)
}

/// The probe itself, on the calling thread, with every read bounded by `deadline`.
fn probe_until(d: &Descriptor, deadline: Instant) -> ProbeState {
    let conn = match connect(&d.address) {
        Ok(c) => c,
        Err(TransportError::NotListening(_)) => return ProbeState::Dead,
        Err(_) => return ProbeState::Busy,
    };
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() || conn.set_write_timeout(Some(left)).is_err() {
        return ProbeState::Busy;
    }
    let mut w = &conn;
    if let Err(e) = send_token(&mut w, &d.token) {
        // A busy bridge may have answered and closed before our token went out: read on.
        if !matches!(e, HandshakeError::Io(_)) {
            return ProbeState::Busy;
        }
    }
    match read_hello(&mut DeadlineReader::new(&conn, deadline)) {
        Ok(_) => ProbeState::Live,
        Err(_) => ProbeState::Busy,
    }
}

/// Probe every descriptor, [`PROBE_PARALLELISM`] at a time, each under its own `timeout`.
/// Returns the states in the order given. An entry whose probe did not report in time is
/// `Busy` (never pruned).
pub fn probe_all(descriptors: &[Descriptor], timeout: Duration) -> Vec<ProbeState> {
    let n = descriptors.len();
    let mut states = vec![None; n];
    if n == 0 {
        return Vec::new();
    }
    let workers = n.min(PROBE_PARALLELISM);
    let queue: Arc<Mutex<VecDeque<(usize, Descriptor)>>> = Arc::new(Mutex::new(
        descriptors.iter().cloned().enumerate().collect(),
    ));
    let (tx, rx) = mpsc::channel();
    let mut spawned = 0usize;
    for _ in 0..workers {
        let queue = queue.clone();
        let tx = tx.clone();
        let worker = move || {
            loop {
                let next = queue
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .pop_front();
                let Some((i, d)) = next else { return };
                if tx
                    .send((i, probe_until(&d, Instant::now() + timeout)))
                    .is_err()
                {
                    return; // nobody waits for us any more
                }
            }
        };
        if std::thread::Builder::new()
            .name("automation-probe".into())
            .spawn(worker)
            .is_ok()
        {
            spawned += 1;
        }
    }
    drop(tx);
    if spawned == 0 {
        return descriptors.iter().map(|d| probe(d, timeout)).collect();
    }
    // Each worker probes at most ceil(n / spawned) entries one after the other.
    let rounds = u32::try_from(n.div_ceil(spawned)).unwrap_or(u32::MAX);
    let all_done_by = Instant::now() + timeout.saturating_mul(rounds) + REPORT_SLACK;
    let mut got = 0;
    while got < n {
        let left = all_done_by.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((i, state)) => {
                if let Some(slot) = states.get_mut(i) {
                    *slot = Some(state);
                }
                got += 1;
            }
            Err(_) => break, // timed out, or every worker is gone
        }
    }
    states
        .into_iter()
        .map(|s| s.unwrap_or(ProbeState::Busy))
        .collect()
}

/// Why attaching failed.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    /// Descriptor directory problem.
    #[error(transparent)]
    Descriptor(#[from] DescriptorError),
    /// No descriptor for that pid, or it was dead (and has been pruned).
    #[error(
        "no live automation bridge for pid {0}; is the app a debug build that installs the bridge? (run --list)"
    )]
    NoSuchPid(u32),
    /// No live bridge at all.
    #[error(
        "no live automation bridge found in {0}; start a debug build of the app that installs the bridge"
    )]
    NoneLive(String),
}

/// Every descriptor with its state, newest first; `Dead` ones are removed and left out.
/// Probes run in parallel ([`probe_all`]): the listing takes about one `timeout` per
/// [`PROBE_PARALLELISM`] unresponsive entries, not one per entry.
pub fn list_live(
    dir: &DescriptorDir,
    timeout: Duration,
) -> Result<Vec<(ListedDescriptor, ProbeState)>, DescriptorError> {
    let listing = dir.list()?;
    let descriptors: Vec<Descriptor> = listing
        .entries
        .iter()
        .map(|e| e.descriptor.clone())
        .collect();
    let states = probe_all(&descriptors, timeout);
    let mut out = Vec::new();
    for (entry, state) in listing.entries.into_iter().zip(states) {
        match state {
            ProbeState::Dead => DescriptorDir::remove(&entry.path)?,
            state => out.push((entry, state)),
        }
    }
    Ok(out)
}

/// The descriptor to attach to: the given pid's, or the newest non-dead one. A `Dead`
/// descriptor met on the way is pruned; a `Busy` one is returned (connecting to it gives
/// [`ClientError::Busy`](crate::client::ClientError::Busy) until the other client detaches;
/// [`BridgeClient::connect_with_wait`](crate::client::BridgeClient::connect_with_wait) waits).
pub fn attach(
    dir: &DescriptorDir,
    pid: Option<u32>,
    timeout: Duration,
) -> Result<(Descriptor, ProbeState), AttachError> {
    match pid {
        Some(pid) => {
            let d = dir.find(pid)?.ok_or(AttachError::NoSuchPid(pid))?;
            match probe(&d, timeout) {
                ProbeState::Dead => {
                    DescriptorDir::remove(&dir.path_for(pid))?;
                    Err(AttachError::NoSuchPid(pid))
                }
                state => Ok((d, state)),
            }
        }
        None => list_live(dir, timeout)?
            .into_iter()
            .next()
            .map(|(e, s)| (e.descriptor, s))
            .ok_or_else(|| AttachError::NoneLive(dir.path().display().to_string())),
    }
}
