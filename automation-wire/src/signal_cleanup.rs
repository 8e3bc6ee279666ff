//! A live app stopped by SIGTERM or SIGINT leaves nothing behind: no socket, no socket
//! directory, no descriptor. Dropping the [`crate::server::BridgeServer`] removes them, but a
//! signal's default action ends the process without running destructors.
//!
//! For each of the two signals whose disposition is still the default, a watcher thread
//! (signal-hook) removes what every bridge of the process published, then lets the signal do
//! what it would have done: the process dies by it, with the same exit status. A signal the
//! app handles or ignores itself is left alone.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use signal_hook::consts::signal::{SIGINT, SIGTERM};

/// What the watcher removes: (socket file, descriptor) of every bridge started.
static PUBLISHED: Mutex<Vec<(PathBuf, Option<PathBuf>)>> = Mutex::new(Vec::new());

/// Started once per process.
static WATCHER: OnceLock<()> = OnceLock::new();

/// Removes `socket`, its directory and `descriptor` should SIGTERM or SIGINT end the process.
pub fn remove_on_signal(socket: PathBuf, descriptor: Option<PathBuf>) {
    if let Ok(mut published) = PUBLISHED.lock() {
        published.push((socket, descriptor));
    }
    WATCHER.get_or_init(start_watcher);
}

/// Whether `signal` still has its default disposition (not handled, not ignored).
fn is_default(signal: libc::c_int) -> bool {
    // SAFETY: a null `act` only reads the current action into `old`, which is zeroed first.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_DFL
    }
}

fn start_watcher() {
    let signals: Vec<libc::c_int> = [SIGTERM, SIGINT]
        .into_iter()
        .filter(|s| is_default(*s))
        .collect();
    if signals.is_empty() {
        return;
    }
    let mut watched = match signal_hook::iterator::Signals::new(&signals) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("automation: cannot watch SIGTERM/SIGINT to clean up the bridge: {e}");
            return;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("automation-bridge-signals".into())
        .spawn(move || {
            if let Some(signal) = watched.forever().next() {
                remove_published();
                // Die by the signal as its default action would have.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    if let Err(e) = spawned {
        eprintln!("automation: cannot start the bridge's signal watcher: {e}");
    }
}

fn remove_published() {
    let published = match PUBLISHED.lock() {
        Ok(p) => p.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    for (socket, descriptor) in published {
        let _ = std::fs::remove_file(&socket);
        // Only the endpoint's own directory, and only once it is empty.
        if let Some(dir) = socket.parent() {
            let _ = std::fs::remove_dir(dir);
        }
        if let Some(d) = descriptor {
            let _ = std::fs::remove_file(d);
        }
    }
}
