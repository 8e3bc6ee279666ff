//! Teardown that survives SIGTERM, SIGINT and SIGHUP.
//!
//! [`crate::Launched`] and [`crate::VirtualDisplay`] end their processes and remove their
//! private directory when dropped, but a signal's default action ends the process without
//! running destructors: the app, Xvfb and both buses would outlive it. So every process
//! group and directory they own is listed here while it lives, and [`end_on_signal`] starts
//! one watcher thread (signal-hook) that, on the first of those signals, ends every listed
//! group (SIGTERM, 2 s, SIGKILL), removes every listed directory, and then lets the signal
//! do what it would have done: the process dies by it. Only signals whose disposition is
//! still the default are watched (a signal the caller ignores stays ignored).
//!
//! A signal handler cannot run on SIGKILL. A caller that can end them without us (the CLI's
//! watchdog, a process that outlives this one) is told of every group and directory listed
//! and unlisted through [`observe`].

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use signal_hook::consts::signal::{SIGHUP, SIGINT, SIGTERM};

#[derive(Default)]
struct Live {
    groups: Vec<i32>,
    dirs: Vec<PathBuf>,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    groups: Vec::new(),
    dirs: Vec::new(),
});

static WATCHER: OnceLock<Result<(), String>> = OnceLock::new();

/// A group or directory listed (`Add…`) or unlisted (`Remove…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change<'a> {
    /// A process group was listed.
    AddGroup(i32),
    /// A process group was ended.
    RemoveGroup(i32),
    /// A directory was listed.
    AddDir(&'a Path),
    /// A directory was removed.
    RemoveDir(&'a Path),
}

static OBSERVER: OnceLock<fn(Change<'_>)> = OnceLock::new();

/// Tells `observer` of every group and directory listed or unlisted from now on, and of those
/// listed already (as added). One observer per process; a second call is ignored.
pub fn observe(observer: fn(Change<'_>)) {
    if OBSERVER.set(observer).is_ok() {
        let l = live();
        for g in &l.groups {
            observer(Change::AddGroup(*g));
        }
        for d in &l.dirs {
            observer(Change::AddDir(d));
        }
    }
}

fn tell(change: Change<'_>) {
    if let Some(observer) = OBSERVER.get() {
        observer(change);
    }
}

fn live() -> MutexGuard<'static, Live> {
    // A poisoned lock only means a thread panicked mid-push: the lists stay usable.
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Lists process group `pgid` for ending on a signal.
pub(crate) fn add_group(pgid: i32) {
    if pgid > 0 {
        live().groups.push(pgid);
        tell(Change::AddGroup(pgid));
    }
}

/// Unlists process group `pgid` (it was ended).
pub(crate) fn remove_group(pgid: i32) {
    live().groups.retain(|g| *g != pgid);
    tell(Change::RemoveGroup(pgid));
}

/// Lists `dir` for removal on a signal.
pub(crate) fn add_dir(dir: &Path) {
    live().dirs.push(dir.to_path_buf());
    tell(Change::AddDir(dir));
}

/// Unlists `dir` (it was removed).
pub(crate) fn remove_dir(dir: &Path) {
    live().dirs.retain(|d| d != dir);
    tell(Change::RemoveDir(dir));
}

/// Whether `signal` still has its default disposition (not handled, not ignored).
fn is_default(signal: libc::c_int) -> bool {
    // SAFETY: a null `act` only reads the current action into `old`, which is zeroed first.
    #[allow(unsafe_code)]
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_DFL
    }
}

/// Starts the watcher (once per process): SIGTERM, SIGINT or SIGHUP end every launched app
/// and virtual display of this process before the process dies by the signal. Call it
/// before launching, so a signal during start-up is covered too.
pub fn end_on_signal() -> Result<(), String> {
    WATCHER.get_or_init(start).clone()
}

fn start() -> Result<(), String> {
    let signals: Vec<libc::c_int> = [SIGTERM, SIGINT, SIGHUP]
        .into_iter()
        .filter(|s| is_default(*s))
        .collect();
    if signals.is_empty() {
        return Ok(());
    }
    let mut watched = signal_hook::iterator::Signals::new(&signals)
        .map_err(|e| format!("cannot watch SIGTERM/SIGINT/SIGHUP: {e}"))?;
    std::thread::Builder::new()
        .name("automation-atspi-signals".into())
        .spawn(move || {
            if let Some(signal) = watched.forever().next() {
                end_everything();
                // Die by the signal as its default action would have.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        })
        .map(drop)
        .map_err(|e| format!("cannot start the signal watcher: {e}"))
}

/// Set once a signal is ending this process and everything it launched.
static ENDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a signal is ending this process (so an app that exits now was ended by us, not
/// by itself).
pub fn ending() -> bool {
    ENDING.load(std::sync::atomic::Ordering::SeqCst)
}

/// Ends every listed group and removes every listed directory.
fn end_everything() {
    ENDING.store(true, std::sync::atomic::Ordering::SeqCst);
    let (groups, dirs) = {
        let l = live();
        (l.groups.clone(), l.dirs.clone())
    };
    // The app first (its own group, when it has one), then the display's group.
    for g in groups.iter().rev() {
        crate::process::kill_group(*g, Duration::from_secs(2));
    }
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}
