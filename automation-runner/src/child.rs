//! A script's child process: started in a process group of its own that ends with the run,
//! and whose output is read as bytes.
//!
//! - **Its own group**, watched by [`automation_session::watchdog`] while it lives: when the run ends —
//!   normally, by its time limit, by a cancel — the whole group is killed, so whatever the
//!   script started (a server, a `sleep` holding its stdout) goes with it. Should this process
//!   die first (SIGTERM, SIGINT, SIGHUP, or SIGKILL), the child dies with it
//!   (`PR_SET_PDEATHSIG` on Linux) and the watchdog ends the rest of the group.
//! - **Output as bytes**: each line is decoded lossily (a non-UTF-8 byte becomes U+FFFD, it
//!   never stops the reader) and cut at [`MAX_OUTPUT_LINE_BYTES`]; a line without an end is
//!   never buffered past the cap.

use std::io::Read;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::time::Duration;

use automation_session::watchdog;

use super::budget::MAX_OUTPUT_LINE_BYTES;

/// A started child and its watched group.
pub struct GroupChild {
    /// The child (the group's leader).
    pub child: Child,
    /// Its group: killed (what is left of it) when dropped.
    pub group: watchdog::Group,
}

/// Starts `cmd` as the leader of a new process group that dies with this process.
pub fn spawn_in_group(mut cmd: Command) -> std::io::Result<GroupChild> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        #[cfg(target_os = "linux")]
        {
            // SAFETY: getpid has no preconditions.
            let parent = unsafe { libc::getpid() };
            let hook = move || {
                // SAFETY: prctl with PR_SET_PDEATHSIG takes the signal as its one argument.
                let set =
                    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) };
                if set != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent died before the prctl took effect: do not run orphaned.
                // SAFETY: getppid has no preconditions.
                if unsafe { libc::getppid() } != parent {
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            };
            // SAFETY: between fork and exec the hook makes only async-signal-safe calls
            // (prctl, getppid) and allocates nothing.
            unsafe {
                cmd.pre_exec(hook);
            }
        }
    }
    let child = cmd.spawn()?;
    let pgid = i32::try_from(child.id()).unwrap_or(0);
    Ok(GroupChild {
        child,
        group: watchdog::Group::watch(pgid),
    })
}

/// One line of a child's output: (from stderr, the text).
pub type Line = (bool, String);

/// Reads `from` line by line on a thread of its own, sending each (lossily decoded, cut at
/// [`MAX_OUTPUT_LINE_BYTES`]) to `tx`; a last line without a newline is sent too. The
/// returned receiver says when the reader is done.
pub fn read_lines<R: Read + Send + 'static>(
    mut from: R,
    stderr: bool,
    tx: mpsc::SyncSender<Line>,
) -> mpsc::Receiver<()> {
    let (done_tx, done) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("automation-script-output".into())
        .spawn(move || {
            let _done = done_tx;
            let mut line: Vec<u8> = Vec::new();
            // Bytes of the current line not kept (over the cap).
            let mut cut = 0usize;
            let mut buf = [0u8; 16 * 1024];
            let send = |line: &mut Vec<u8>, cut: &mut usize| {
                let mut text = String::from_utf8_lossy(line).into_owned();
                if *cut > 0 {
                    text.push_str(&format!(" … (line cut: {} bytes)", line.len() + *cut));
                }
                line.clear();
                *cut = 0;
                tx.send((stderr, text)).is_ok()
            };
            loop {
                let n = match from.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                for chunk in buf
                    .get(..n)
                    .unwrap_or_default()
                    .split_inclusive(|b| *b == b'\n')
                {
                    let (body, ends) = match chunk.split_last() {
                        Some((b'\n', body)) => (body, true),
                        _ => (chunk, false),
                    };
                    let room = MAX_OUTPUT_LINE_BYTES.saturating_sub(line.len());
                    let keep = body.len().min(room);
                    line.extend_from_slice(body.get(..keep).unwrap_or_default());
                    cut += body.len() - keep;
                    if ends {
                        if line.last() == Some(&b'\r') {
                            line.pop();
                        }
                        if !send(&mut line, &mut cut) {
                            return;
                        }
                    }
                }
            }
            if !line.is_empty() || cut > 0 {
                send(&mut line, &mut cut);
            }
        });
    if spawned.is_err() {
        tracing::warn!("cannot start a reader for the script's output");
    }
    done
}

/// Waits up to `grace` for each reader to finish. A reader still blocked then (a process
/// outside the group kept the pipe open) is left to end on its own; the run does not wait.
pub fn join_readers(readers: Vec<mpsc::Receiver<()>>, grace: Duration) {
    let until = std::time::Instant::now() + grace;
    for r in readers {
        let left = until.saturating_duration_since(std::time::Instant::now());
        let _ = r.recv_timeout(left);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(bytes: &[u8]) -> Vec<String> {
        let (tx, rx) = mpsc::sync_channel(1024);
        let done = read_lines(std::io::Cursor::new(bytes.to_vec()), false, tx);
        join_readers(vec![done], Duration::from_secs(5));
        rx.try_iter().map(|(_, l)| l).collect()
    }

    #[test]
    fn output_is_bytes_decoded_lossily_and_cut() {
        assert_eq!(
            lines_of(b"a\nb\xff c\r\nlast"),
            ["a", "b\u{fffd} c", "last"]
        );
        let long = vec![b'x'; MAX_OUTPUT_LINE_BYTES * 3];
        let got = lines_of(&[long.as_slice(), b"\nnext\n"].concat());
        assert_eq!(got.len(), 2);
        assert!(got[0].len() < MAX_OUTPUT_LINE_BYTES + 100);
        assert!(
            got[0].ends_with(&format!("(line cut: {} bytes)", MAX_OUTPUT_LINE_BYTES * 3)),
            "{}",
            &got[0][got[0].len() - 60..]
        );
        assert_eq!(got[1], "next");
    }
}
