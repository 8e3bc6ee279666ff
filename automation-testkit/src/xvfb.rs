//! A private X server for a test that opens a real window (a live eframe app), and the child
//! guard that ends it (or the app) when the test ends, passing or not.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::require::require;

/// Kills a child on drop, and reaps it.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An Xvfb on a free display and its `DISPLAY` value (`":N"`), or `None` when Xvfb cannot
/// start and the run allows `xvfb` to be missing (the skip is recorded). Panics when no display
/// number is free or the server does not come up within 10 s. A skip names the calling test.
#[track_caller]
pub fn start_xvfb() -> Option<(Killed, String)> {
    let Some(display) = (90..200).find(|n| {
        !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
    }) else {
        panic!("no free X display number in :90..:199");
    };
    let spawned = Command::new("Xvfb")
        .args([
            format!(":{display}").as_str(),
            "-screen",
            "0",
            "1024x768x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let child = match spawned {
        Ok(child) => Killed(child),
        Err(e) => {
            let why = format!("cannot start Xvfb ({e}); install it: apt-get install xvfb xauth");
            require("xvfb", false, &why);
            return None;
        }
    };
    let socket = format!("/tmp/.X11-unix/X{display}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !Path::new(&socket).exists() {
        if Instant::now() >= deadline {
            panic!("Xvfb did not come up on :{display} within 10 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some((child, format!(":{display}")))
}
