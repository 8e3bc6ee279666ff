//! [`ExitWatch`]: how a launched app ended, learnt without racing whoever reaps it, and the
//! end of what it printed.
//!
//! A thread blocks in `waitid(…, WEXITED | WNOWAIT)` on the app's pid: it learns the status
//! the moment the app exits and leaves the zombie for [`crate::Launched`] (or a test holding
//! the `Child`) to reap, so `Child::wait` keeps working. Whoever reaps first records the
//! status too, so a reap that beats the thread loses nothing. With [`crate::Output::Tee`] one
//! thread per stream copies the app's output to our stderr as `[app stdout] …` lines and keeps
//! its last [`TAIL_BYTES`].

use std::io::{Read, Write as _};
use std::os::unix::process::ExitStatusExt as _;
use std::process::ExitStatus;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use automation_core::AppExit;

/// Bytes kept of each stream: the end of what the app printed.
pub const TAIL_BYTES: usize = 4096;

/// Longest line copied to our stderr in one piece (a longer one is split).
const LINE_CAP: usize = 16 * 1024;

/// Which of the app's streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Its standard output.
    Stdout,
    /// Its standard error.
    Stderr,
}

impl Stream {
    fn tag(self) -> &'static str {
        match self {
            Self::Stdout => "stdout",
            Self::Stderr => "stderr",
        }
    }
}

#[derive(Debug, Default)]
struct State {
    status: Option<ExitStatus>,
    exited_at: Option<Instant>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// Tee threads still reading (their stream not at its end yet).
    open: u8,
}

/// A launched app's exit status, once it has one, and the tails of its output.
#[derive(Debug, Default)]
pub struct ExitWatch {
    state: Mutex<State>,
    changed: Condvar,
    /// Its owner ended it (the end of a run, a session): that exit is no news.
    ended_by_owner: std::sync::atomic::AtomicBool,
}

impl ExitWatch {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock means a tee thread panicked mid-append: the bytes are still bytes.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Watches child `pid` (a child of this process) for its exit.
    pub fn start(pid: u32) -> Arc<Self> {
        let watch = Arc::new(Self::default());
        let w = Arc::clone(&watch);
        let spawned = std::thread::Builder::new()
            .name("automation-app-exit".into())
            .spawn(move || {
                if let Some(status) = wait_no_reap(pid) {
                    w.record(status);
                }
            });
        // No thread (out of threads): the status still arrives through `record` when the
        // owner reaps the child.
        drop(spawned);
        watch
    }

    /// Notes that the owner is ending the app (before it signals it), so that exit is not
    /// reported as the app's own.
    pub fn ending_by_owner(&self) {
        self.ended_by_owner
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether the owner ended the app ([`Self::ending_by_owner`]) rather than it exiting.
    pub fn ended_by_owner(&self) -> bool {
        self.ended_by_owner
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Records the exit status (the first one recorded stands).
    pub fn record(&self, status: ExitStatus) {
        let mut s = self.lock();
        if s.status.is_none() {
            s.status = Some(status);
            s.exited_at = Some(Instant::now());
        }
        drop(s);
        self.changed.notify_all();
    }

    /// The exit status, once the app has exited.
    pub fn status(&self) -> Option<ExitStatus> {
        self.lock().status
    }

    /// Waits up to `timeout` for the exit status.
    pub fn wait(&self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        let mut s = self.lock();
        while s.status.is_none() {
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            s = self
                .changed
                .wait_timeout(s, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        s.status
    }

    /// Waits (without a deadline) for the exit status.
    pub fn wait_forever(&self) -> ExitStatus {
        let mut s = self.lock();
        loop {
            if let Some(st) = s.status {
                return st;
            }
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// How the app ended, once it has: the status and the tails of its output. Output the app
    /// wrote just before exiting may still be in the pipe, so this waits for the tee threads to
    /// reach the end of their streams, up to `grace` after the exit (a process the app left
    /// behind may hold a pipe open).
    pub fn app_exit(&self, grace: Duration) -> Option<AppExit> {
        let mut s = self.lock();
        let status = s.status?;
        let deadline = s.exited_at.unwrap_or_else(Instant::now) + grace;
        while s.open > 0 {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            s = self
                .changed
                .wait_timeout(s, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        Some(AppExit {
            status: status.code(),
            signal: status.signal(),
            stdout: Some(tail_text(&s.stdout)),
            stderr: Some(tail_text(&s.stderr)),
        })
    }

    /// Copies `stream` to our stderr as `[app stdout] …` lines, keeping its last
    /// [`TAIL_BYTES`], on a thread of its own until the stream ends.
    pub fn tee(self: &Arc<Self>, stream: impl Read + Send + 'static, which: Stream) {
        self.lock().open += 1;
        let w = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name(format!("automation-app-{}", which.tag()))
            .spawn(move || w.copy(stream, which));
        if spawned.is_err() {
            // Nobody will read it: not counted as open.
            self.lock().open -= 1;
        }
    }

    fn copy(&self, mut stream: impl Read, which: Stream) {
        let mut buf = [0u8; 8192];
        let mut line: Vec<u8> = Vec::new();
        loop {
            let n = match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let chunk = &buf[..n];
            {
                let mut s = self.lock();
                let tail = match which {
                    Stream::Stdout => &mut s.stdout,
                    Stream::Stderr => &mut s.stderr,
                };
                tail.extend_from_slice(chunk);
                if tail.len() > TAIL_BYTES {
                    let cut = tail.len() - TAIL_BYTES;
                    tail.drain(..cut);
                }
            }
            for b in chunk {
                if *b == b'\n' || line.len() >= LINE_CAP {
                    emit(which, &line);
                    line.clear();
                    if *b == b'\n' {
                        continue;
                    }
                }
                line.push(*b);
            }
        }
        if !line.is_empty() {
            emit(which, &line);
        }
        self.lock().open -= 1;
        self.changed.notify_all();
    }
}

fn emit(which: Stream, line: &[u8]) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "[app {}] {}",
        which.tag(),
        String::from_utf8_lossy(line)
    );
}

/// The tail as text: a character cut at the front by the byte bound is dropped, not shown as
/// a replacement character.
fn tail_text(bytes: &[u8]) -> String {
    let start = if bytes.len() >= TAIL_BYTES {
        bytes
            .iter()
            .take(4)
            .position(|b| (b & 0xc0) != 0x80)
            .unwrap_or(0)
    } else {
        0
    };
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// Blocks until child `pid` exits and returns its status, leaving it to be reaped. `None`
/// when it is not (or no longer) our child: someone reaped it first and recorded the status.
fn wait_no_reap(pid: u32) -> Option<ExitStatus> {
    let id = libc::id_t::try_from(pid).ok()?;
    loop {
        // SAFETY: a zeroed siginfo_t is a valid value for waitid to fill.
        #[allow(unsafe_code)]
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid writes only into `info`, which lives across the call.
        #[allow(unsafe_code)]
        let r = unsafe { libc::waitid(libc::P_PID, id, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if r == 0 {
            // SAFETY: waitid succeeded for a child event, so the SIGCHLD fields are set.
            #[allow(unsafe_code)]
            let status = unsafe { info.si_status() };
            let raw = match info.si_code {
                libc::CLD_EXITED => (status & 0xff) << 8,
                libc::CLD_KILLED => status & 0x7f,
                libc::CLD_DUMPED => (status & 0x7f) | 0x80,
                _ => return None,
            };
            return Some(ExitStatus::from_raw(raw));
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    #[test]
    fn learns_the_status_and_output_and_leaves_the_child_to_reap() {
        let mut child = Command::new("sh")
            .args(["-c", "printf 'Zoë\\nlast line'; echo oops >&2; exit 3"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let watch = ExitWatch::start(child.id());
        watch.tee(child.stdout.take().unwrap(), Stream::Stdout);
        watch.tee(child.stderr.take().unwrap(), Stream::Stderr);
        let st = watch.wait(Duration::from_secs(10)).expect("an exit");
        assert_eq!(st.code(), Some(3));
        let exit = watch.app_exit(Duration::from_secs(5)).unwrap();
        assert_eq!(exit.status, Some(3));
        assert_eq!(exit.signal, None);
        assert_eq!(exit.stdout.as_deref(), Some("Zoë\nlast line"));
        assert_eq!(exit.stderr.as_deref(), Some("oops\n"));
        // The zombie was left for its owner.
        assert_eq!(child.wait().unwrap().code(), Some(3));
    }

    #[test]
    fn a_signal_is_named_and_a_reap_that_wins_still_records() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let watch = ExitWatch::start(child.id());
        assert!(watch.status().is_none());
        assert!(watch.app_exit(Duration::ZERO).is_none());
        child.kill().unwrap();
        let st = child.wait().unwrap();
        watch.record(st);
        let exit = watch.app_exit(Duration::ZERO).unwrap();
        assert_eq!(exit.status, None);
        assert_eq!(exit.signal, Some(libc::SIGKILL));
    }

    #[test]
    fn tails_are_bounded_and_start_on_a_character() {
        // 'é' is two bytes: the last TAIL_BYTES of this start inside one.
        let mut bytes = format!("{}a", "é".repeat(TAIL_BYTES / 2)).into_bytes();
        bytes.drain(..bytes.len() - TAIL_BYTES);
        let t = tail_text(&bytes);
        assert_eq!(t, format!("{}a", "é".repeat(TAIL_BYTES / 2 - 1)));
    }
}
