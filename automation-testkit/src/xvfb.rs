//! A private X server for a test that opens a real window (a live eframe app), and the child
//! guard that ends it (or the app) when the test ends, passing or not.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::require::require;

/// Ends a child on drop the way it can clean up after itself: SIGTERM, up to 2 s, then
/// SIGKILL; and reaps it. (An Xvfb ended by SIGKILL leaves its socket in `/tmp/.X11-unix`
/// and, started without `-displayfd`, its lock: every later run skips that number.)
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        if let Ok(pid) = libc::pid_t::try_from(self.0.id()) {
            // SAFETY: kill has no memory preconditions; the child is ours and not yet reaped,
            // so its pid names no other process.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            let until = Instant::now() + Duration::from_secs(2);
            while Instant::now() < until {
                if let Ok(Some(_)) = self.0.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An Xvfb on a free display and its `DISPLAY` value (`":N"`), or `None` when Xvfb cannot
/// start and the run allows `xvfb` to be missing (the skip is recorded). Panics when no display
/// number is free or the server does not come up within 10 s. A skip names the calling test.
///
/// Each number of `:90..:199` is tried in turn with `-displayfd`: Xvfb prints the number once
/// it accepts connections, or exits when a live server holds it. Files a dead server left
/// behind (a lock, a socket) take no number out of use.
#[track_caller]
pub fn start_xvfb() -> Option<(Killed, String)> {
    let deadline = Instant::now() + Duration::from_secs(10);
    for display in 90..200u32 {
        let spawned = Command::new("Xvfb")
            .args([
                format!(":{display}").as_str(),
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
                "-displayfd",
                "1",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => Killed(child),
            Err(e) => {
                let why =
                    format!("cannot start Xvfb ({e}); install it: apt-get install xvfb xauth");
                require("xvfb", false, &why);
                return None;
            }
        };
        let mut line = String::new();
        if let Some(out) = child.0.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        if line.trim() == display.to_string() {
            return Some((child, format!(":{display}")));
        }
        // Taken (this Xvfb exited) or not up: the guard ends it; try the next number.
        drop(child);
        if Instant::now() >= deadline {
            panic!("Xvfb did not come up on any of :90..:{display} within 10 s");
        }
    }
    panic!("no free X display number in :90..:199");
}
