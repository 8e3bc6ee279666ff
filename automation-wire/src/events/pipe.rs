//! The per-execution channel on Unix: two FIFOs (events and log) in a fresh 0700 directory
//! named by the execution id.
//!
//! The reader opens each FIFO `O_RDWR | O_NONBLOCK`, so it holds a write end itself: a producer
//! may open, write and close the path as often as it likes (one `echo … > "$MCP_EVENT_PIPE_PATH"`
//! per event) without the reader ever seeing an early EOF, and a producer's `open` never blocks.
//! [`EventPipe::finish`] is called after the child exited: every write the child made has
//! completed into the pipe buffer by then, so the reader drains until the pipe is empty, flushes
//! a last unterminated line, and only then removes the FIFOs. Nothing written is lost.
//!
//! Only the FIFO handling lives here; splitting, the line cap and classifying lines are in
//! `lines.rs`, shared with the Windows reader.

use std::ffi::CString;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use super::lines::{CHUNK, LineSplitter};
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
    dir: PathBuf,
    event_path: PathBuf,
    log_path: PathBuf,
    finishing: Arc<AtomicBool>,
    readers: Vec<JoinHandle<Result<PipeSummary, PipeError>>>,
}

fn mkfifo(path: &Path) -> Result<(), PipeError> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|e| io_at(path)(io::Error::new(io::ErrorKind::InvalidInput, e)))?;
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io_at(path)(io::Error::last_os_error()))
    }
}

impl EventPipe {
    /// Create the channel under `$XDG_RUNTIME_DIR` (else this user's own directory in the
    /// temp dir, [`crate::fsguard::per_user_temp_dir`]) and start reading.
    pub fn create() -> Result<(EventPipe, Receiver<PipeItem>), PipeError> {
        let base = crate::descriptor::default_base_dir();
        crate::fsguard::ready_base_dir(&base).map_err(|e| PipeError::Io {
            path: base.clone(),
            source: io::Error::other(e.to_string()),
        })?;
        Self::create_in(&base)
    }

    /// Create the channel under `base` and start reading. Items arrive on the receiver.
    pub fn create_in(base: &Path) -> Result<(EventPipe, Receiver<PipeItem>), PipeError> {
        let execution_id = super::new_execution_id().map_err(io_at(base))?;
        let dir = base.join(format!("mcp-exec-{execution_id}"));
        // A fresh name: mkdir fails rather than reuse anything that already exists.
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(io_at(&dir))?;
        let event_path = dir.join("events");
        let log_path = dir.join("log");
        let setup = (|| {
            mkfifo(&event_path)?;
            mkfifo(&log_path)
        })();
        if let Err(e) = setup {
            let _ = std::fs::remove_file(&event_path);
            let _ = std::fs::remove_dir(&dir);
            return Err(e);
        }
        let finishing = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let mut readers = Vec::new();
        for (path, is_log) in [(&event_path, false), (&log_path, true)] {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true) // our own write end: no early EOF between producer opens
                .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open(path)
                .map_err(io_at(path))?;
            let fin = finishing.clone();
            let tx = tx.clone();
            let p = path.clone();
            let h = std::thread::Builder::new()
                .name("automation-event-pipe".into())
                .spawn(move || read_loop(file, &p, is_log, &fin, &tx))
                .map_err(io_at(path))?;
            readers.push(h);
        }
        Ok((
            EventPipe {
                execution_id,
                dir,
                event_path,
                log_path,
                finishing,
                readers,
            },
            rx,
        ))
    }

    /// The execution id (embedded in the directory name).
    pub fn execution_id(&self) -> &str {
        &self.execution_id
    }
    /// The event FIFO (`MCP_EVENT_PIPE_PATH`).
    pub fn event_path(&self) -> &Path {
        &self.event_path
    }
    /// The log FIFO (`MCP_LOG_PIPE_PATH`).
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
        let _ = std::fs::remove_file(&self.event_path);
        let _ = std::fs::remove_file(&self.log_path);
        let _ = std::fs::remove_dir(&self.dir);
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
    mut file: std::fs::File,
    path: &Path,
    is_log: bool,
    finishing: &AtomicBool,
    tx: &Sender<PipeItem>,
) -> Result<PipeSummary, PipeError> {
    let mut lines = LineSplitter::new(is_log);
    // A dropped receiver must not stall the producer: keep draining regardless.
    let mut out = |item| {
        let _ = tx.send(item);
    };
    let mut chunk = vec![0u8; CHUNK];
    let fd = file.as_raw_fd();
    loop {
        // Observe the flag *before* draining: everything written before it was set is read below.
        let fin = finishing.load(Ordering::SeqCst);
        loop {
            match file.read(&mut chunk) {
                // Never at EOF in practice (we hold a write end ourselves); treat it as empty.
                Ok(0) => break,
                Ok(n) => lines.feed(chunk.get(..n).unwrap_or_default(), &mut out),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_at(path)(e)),
            }
        }
        if fin {
            lines.finish(&mut out);
            return Ok(lines.summary());
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, count 1; a short timeout so `finishing` is seen promptly.
        let _ = unsafe { libc::poll(&mut pfd, 1, 20) };
    }
}
