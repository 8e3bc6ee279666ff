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
        // Read on a thread: an Xvfb that hangs before printing fails the test at the deadline
        // (the thread ends when the guard kills it).
        let (tx, rx) = std::sync::mpsc::channel();
        if let Some(out) = child.0.stdout.take() {
            std::thread::spawn(move || {
                let mut line = String::new();
                let _ = BufReader::new(out).read_line(&mut line);
                let _ = tx.send(line);
            });
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) if line.trim() == display.to_string() => {
                return Some((child, format!(":{display}")));
            }
            // Taken: this Xvfb exited; the guard reaps it; try the next number.
            Ok(_) => drop(child),
            Err(_) => {
                drop(child);
                panic!("Xvfb did not come up on any of :90..:{display} within 10 s");
            }
        }
    }
    panic!("no free X display number in :90..:199");
}

/// automation-egui's `bridge_smoke` example (the demo in a real eframe window, its bridge
/// installed) running on a private Xvfb, with a private runtime directory where it publishes
/// its descriptor. Dropping it ends the app, then the X server.
pub struct LiveDemo {
    /// The app (field order: dropped before the X server).
    pub app: Killed,
    /// Its `XDG_RUNTIME_DIR` (owner-only): the descriptor is `automation/PID.json` in it.
    pub runtime: tempfile::TempDir,
    /// Its `DISPLAY`.
    pub display: String,
    _xvfb: Killed,
}

impl LiveDemo {
    /// The app's pid.
    pub fn pid(&self) -> u32 {
        self.app.0.id()
    }
}

/// Starts [`LiveDemo`] and waits (up to 60 s) for its descriptor; `None` when Xvfb is missing
/// and the run allows that. Panics when the example is not built (`cargo test --workspace
/// --all-features` builds it) or the app exits first.
#[track_caller]
pub fn live_demo() -> Option<LiveDemo> {
    use std::os::unix::fs::PermissionsExt as _;
    // A test binary is target/<profile>/deps/NAME: the examples are beside deps.
    let exe = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.parent()?.join("examples/bridge_smoke")))
        .unwrap_or_default();
    assert!(
        exe.exists(),
        "{} is missing: build it with `cargo build -p automation-egui --features live --example bridge_smoke` (`cargo test --workspace --all-features` does)",
        exe.display()
    );
    let (xvfb, display) = start_xvfb()?;
    let runtime = tempfile::tempdir().unwrap_or_else(|e| panic!("a temp dir: {e}"));
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700))
        .unwrap_or_else(|e| panic!("chmod 700 the runtime dir: {e}"));
    let app = Command::new(&exe)
        .args(["--exit-after-ms", "120000"])
        .env("DISPLAY", &display)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
    let mut demo = LiveDemo {
        app: Killed(app),
        runtime,
        display,
        _xvfb: xvfb,
    };
    let pid = demo.pid();
    let descriptor = demo.runtime.path().join(format!("automation/{pid}.json"));
    let deadline = Instant::now() + Duration::from_secs(60);
    while !descriptor.exists() {
        if let Ok(Some(status)) = demo.app.0.try_wait() {
            panic!("the app exited before publishing its descriptor: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "no descriptor for pid {pid} after 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(demo)
}
