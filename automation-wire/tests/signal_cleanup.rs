//! A live app (the `bridge_canary` example: a real process that installs the bridge with
//! `install_bridge_in_debug`, as the egui live app does) stopped by SIGTERM or SIGINT
//! removes its socket, the socket's directory and its descriptor, and still dies by the
//! signal. SIGKILL cannot be caught: what it leaves is pruned by `automation --list`.
//! (`cargo test` builds the example; `--test signal_cleanup` alone does not rebuild it.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(all(unix, debug_assertions))]

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use automation_wire::descriptor::DescriptorDir;

/// `cargo test` builds the examples next to the test binaries.
fn canary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(Path::parent).unwrap();
    debug.join("examples").join("bridge_canary")
}

fn stop_with(signal: libc::c_int) {
    let exe = canary();
    assert!(
        exe.exists(),
        "{} is missing: run through `cargo test`",
        exe.display()
    );
    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut command = Command::new(&exe);
    // A child inherits ignored signals (a CI job started in the background ignores SIGINT);
    // the app under test starts with the default disposition, as one started from a shell.
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut app = command
        .env("CANARY_SERVE_MS", "60000")
        .env("XDG_RUNTIME_DIR", runtime.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = app.id();
    let dir = DescriptorDir::open_in(runtime.path()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let descriptor = loop {
        if let Some(d) = dir.find(pid).unwrap() {
            break d;
        }
        if let Ok(Some(status)) = app.try_wait() {
            panic!("the app exited before publishing its descriptor: {status}");
        }
        assert!(Instant::now() < deadline, "no descriptor for pid {pid}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let socket = PathBuf::from(&descriptor.address);
    let socket_dir = socket.parent().unwrap().to_path_buf();
    let descriptor_file = dir.path_for(pid);
    assert!(socket.exists() && socket_dir.is_dir() && descriptor_file.exists());
    // Give the watcher thread its moment to start (it is started before the banner).
    std::thread::sleep(Duration::from_millis(100));

    // SAFETY: sending a signal to the child we spawned.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, signal) }, 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = app.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = app.kill();
            panic!("the app did not stop on signal {signal}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        status.signal(),
        Some(signal),
        "dies by the signal: {status}"
    );
    assert!(!socket.exists(), "socket {} left behind", socket.display());
    assert!(
        !socket_dir.exists(),
        "socket directory {} left behind",
        socket_dir.display()
    );
    assert!(
        !descriptor_file.exists(),
        "descriptor {} left behind",
        descriptor_file.display()
    );
}

#[test]
fn sigterm_removes_the_socket_directory_and_descriptor() {
    stop_with(libc::SIGTERM);
}

#[test]
fn sigint_removes_the_socket_directory_and_descriptor() {
    stop_with(libc::SIGINT);
}
