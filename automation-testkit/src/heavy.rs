//! The one lock of the heavy tests, across the whole suite: a test that starts an app, a
//! virtual display, a browser or Selenium holds it for as long as those run.
//!
//! The lock is `flock(2)` on one file in the target directory's profile directory (beside
//! `deps/`), so it holds between the threads of one test binary and between test binaries
//! run at once (cargo-nextest, or two `cargo test`s on one target dir) alike. Two modes:
//!
//! - [`heavy`] (exclusive): the test needs the machine alone — its timing is bounded (a 2 s
//!   answer on a 2-core machine), it watches for a refusal, or it uses fixed virtual display
//!   numbers. No other heavy test runs beside it.
//! - [`heavy_shared`]: the test starts an app or a browser but bears another such test beside
//!   it (as it did when its file was a binary of its own and ran two at a time). Shared holders
//!   run together; none runs beside an exclusive holder.
//!
//! The lock is released when the guard drops — also when the test panics, or its process
//! dies. It is not reentrant: take it once per test, at its start.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

/// Held for as long as it lives; see the [module docs](self).
#[derive(Debug)]
#[must_use = "the lock is released when the guard drops"]
pub struct Heavy {
    _file: File,
}

/// The exclusive lock: no other heavy test runs until the guard drops.
pub fn heavy() -> Heavy {
    lock(libc::LOCK_EX)
}

/// The shared lock: other shared holders may run beside this test, an exclusive one may not.
pub fn heavy_shared() -> Heavy {
    lock(libc::LOCK_SH)
}

/// The lock file: `<target>/<profile>/heavy-tests.lock` for a test binary in
/// `<target>/<profile>/deps/`, else one in the temp directory.
fn path() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            let deps = exe.parent()?;
            (deps.file_name()? == "deps")
                .then(|| deps.parent().map(|p| p.join("heavy-tests.lock")))?
        })
        .unwrap_or_else(|| std::env::temp_dir().join("automation-heavy-tests.lock"))
}

fn lock(mode: libc::c_int) -> Heavy {
    let path = path();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("cannot open the heavy-test lock {}: {e}", path.display()));
    loop {
        // SAFETY: flock(2) on a descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), mode) } == 0 {
            return Heavy { _file: file };
        }
        let e = std::io::Error::last_os_error();
        assert!(
            e.kind() == std::io::ErrorKind::Interrupted,
            "cannot lock {}: {e}",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn exclusive_holders_never_overlap_and_shared_ones_may() {
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (inside, most) = (inside.clone(), most.clone());
                std::thread::spawn(move || {
                    let _g = heavy();
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(30));
                    inside.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
        let a = heavy_shared();
        let b = heavy_shared();
        drop((a, b));
    }
}
