//! Probing a published endpoint: `Live`, `Busy` or `Dead`.
//!
//! Only `Dead` (no socket or pipe, or the `ECONNREFUSED` of a stale socket) is unambiguous, and
//! only a `Dead` descriptor is ever pruned. A bridge that is serving someone else keeps its
//! single slot, so our probe waits in the backlog and times out: that is `Busy`, and it stays
//! listed.

use std::time::Duration;

use crate::descriptor::{Descriptor, DescriptorDir, DescriptorError, ListedDescriptor};
use crate::handshake::{read_hello, send_token};
use crate::transport::{TransportError, connect};

/// How long a probe waits for the hello of a bridge that accepted the connection.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// What is behind a descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeState {
    /// A bridge answered our token with its hello.
    Live,
    /// Something is listening but could not take us (slot occupied, between accepts, token
    /// refused…). Never pruned.
    Busy,
    /// Nothing is listening. Safe to prune.
    Dead,
}

/// Probe one descriptor, waiting at most `timeout` for the hello.
pub fn probe(d: &Descriptor, timeout: Duration) -> ProbeState {
    let mut conn = match connect(&d.address) {
        Ok(c) => c,
        Err(TransportError::NotListening(_)) => return ProbeState::Dead,
        Err(_) => return ProbeState::Busy,
    };
    if conn.set_read_timeout(Some(timeout)).is_err() || send_token(&mut conn, &d.token).is_err() {
        return ProbeState::Busy;
    }
    match read_hello(&mut conn) {
        Ok(_) => ProbeState::Live,
        Err(_) => ProbeState::Busy,
    }
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
pub fn list_live(
    dir: &DescriptorDir,
    timeout: Duration,
) -> Result<Vec<(ListedDescriptor, ProbeState)>, DescriptorError> {
    let listing = dir.list()?;
    let mut out = Vec::new();
    for entry in listing.entries {
        match probe(&entry.descriptor, timeout) {
            ProbeState::Dead => DescriptorDir::remove(&entry.path)?,
            state => out.push((entry, state)),
        }
    }
    Ok(out)
}

/// The descriptor to attach to: the given pid's, or the newest non-dead one. A `Dead`
/// descriptor met on the way is pruned; a `Busy` one is returned (the client will wait its turn).
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
