//! The per-execution channel on Windows: two named pipes, `\\.\pipe\mcp-workflow-events-<id>`
//! and `\\.\pipe\mcp-workflow-log-<id>`, owner-only DACL, remote clients rejected.
//!
//! NOTE: written for Windows but neither compiled nor run in this repository's CI (Linux only).
//! Each producer connection (open / write / close) is accepted in turn and read to its end;
//! [`EventPipe::finish`] connects once to each pipe as a wake-up marker after the child exited,
//! so every earlier connection is drained before teardown.
//!
//! Only the pipe handling lives here; splitting, the line cap and classifying lines are in
//! `lines.rs`, shared with the Unix reader.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use interprocess::local_socket::prelude::*;
use interprocess::local_socket::{GenericNamespaced, ListenerOptions, Stream};
use interprocess::os::windows::local_socket::ListenerOptionsExt;

use super::lines::{LineSplitter, drain_to_eof};
use super::{EVENT_PIPE_ENV, LOG_PIPE_ENV, PipeError, PipeItem, PipeSummary};

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> PipeError + '_ {
    move |source| PipeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One execution's event and log channels, with their reader threads.
#[derive(Debug)]
pub struct EventPipe {
    execution_id: String,
    event_path: PathBuf,
    log_path: PathBuf,
    finishing: Arc<AtomicBool>,
    readers: Vec<JoinHandle<Result<PipeSummary, PipeError>>>,
}

impl EventPipe {
    /// Create the channel and start reading.
    pub fn create() -> Result<(EventPipe, Receiver<PipeItem>), PipeError> {
        Self::create_in(Path::new(r"\\.\pipe"))
    }

    /// Create the channel (`_base` is ignored: pipes live in the pipe namespace).
    pub fn create_in(_base: &Path) -> Result<(EventPipe, Receiver<PipeItem>), PipeError> {
        let execution_id = super::new_execution_id().map_err(io_at(_base))?;
        let ev_name = format!("mcp-workflow-events-{execution_id}");
        let log_name = format!("mcp-workflow-log-{execution_id}");
        let event_path = PathBuf::from(format!(r"\\.\pipe\{ev_name}"));
        let log_path = PathBuf::from(format!(r"\\.\pipe\{log_name}"));
        let finishing = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let mut readers = Vec::new();
        for (name, path, is_log) in [(ev_name, &event_path, false), (log_name, &log_path, true)] {
            let sd = crate::winsec::owner_only_descriptor().map_err(io_at(path))?;
            let ns = name
                .to_ns_name::<GenericNamespaced>()
                .map_err(io_at(path))?;
            let listener = ListenerOptions::new()
                .name(ns)
                .security_descriptor(sd)
                .create_sync()
                .map_err(io_at(path))?;
            let fin = finishing.clone();
            let tx = tx.clone();
            let p = path.clone();
            readers.push(
                std::thread::Builder::new()
                    .name("automation-event-pipe".into())
                    .spawn(move || read_loop(listener, &p, is_log, &fin, &tx))
                    .map_err(io_at(path))?,
            );
        }
        Ok((
            EventPipe {
                execution_id,
                event_path,
                log_path,
                finishing,
                readers,
            },
            rx,
        ))
    }

    /// The execution id (embedded in the pipe names).
    pub fn execution_id(&self) -> &str {
        &self.execution_id
    }
    /// The event pipe (`MCP_EVENT_PIPE_PATH`).
    pub fn event_path(&self) -> &Path {
        &self.event_path
    }
    /// The log pipe (`MCP_LOG_PIPE_PATH`).
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }
    /// The two variables to hand to the child.
    pub fn env(&self) -> [(&'static str, &Path); 2] {
        [
            (EVENT_PIPE_ENV, &self.event_path),
            (LOG_PIPE_ENV, &self.log_path),
        ]
    }

    /// Call after the child exited: drain everything written, deliver it, then tear down.
    pub fn finish(mut self) -> Result<PipeSummary, PipeError> {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> Result<PipeSummary, PipeError> {
        self.finishing.store(true, Ordering::SeqCst);
        for p in [&self.event_path, &self.log_path] {
            let short = p
                .to_string_lossy()
                .trim_start_matches(r"\\.\pipe\")
                .to_string();
            if let Ok(name) = short.to_ns_name::<GenericNamespaced>() {
                let _ = Stream::connect(name); // the wake-up marker
            }
        }
        let mut total = PipeSummary::default();
        let mut first_err = None;
        for h in self.readers.drain(..) {
            match h.join() {
                Ok(Ok(s)) => {
                    total.events += s.events;
                    total.logs += s.logs;
                }
                Ok(Err(e)) => {
                    first_err.get_or_insert(e);
                }
                Err(_) => {
                    first_err.get_or_insert(PipeError::Reader("reader thread panicked".into()));
                }
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(total),
        }
    }
}

impl Drop for EventPipe {
    fn drop(&mut self) {
        if !self.readers.is_empty() {
            let _ = self.stop_and_join();
        }
    }
}

fn read_loop(
    listener: interprocess::local_socket::Listener,
    path: &Path,
    is_log: bool,
    finishing: &AtomicBool,
    tx: &Sender<PipeItem>,
) -> Result<PipeSummary, PipeError> {
    let mut total = PipeSummary::default();
    // A dropped receiver must not stall the producer: keep draining regardless.
    let mut out = |item| {
        let _ = tx.send(item);
    };
    loop {
        // Read the flag before accepting: a connection accepted after it was set is ours.
        let fin = finishing.load(Ordering::SeqCst);
        let mut conn = listener.accept().map_err(io_at(path))?;
        // Each producer connection is its own stream: a line never spans two connections.
        let mut lines = LineSplitter::new(is_log);
        // A producer that vanished mid-line loses only that partial line; keep serving others.
        let _ = drain_to_eof(&mut conn, &mut lines, &mut out);
        let s = lines.summary();
        total.events += s.events;
        total.logs += s.logs;
        if fin || finishing.load(Ordering::SeqCst) {
            return Ok(total);
        }
    }
}
