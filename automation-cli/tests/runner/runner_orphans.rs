//! Nothing a run starts outlives it: after SIGKILL (or SIGTERM, SIGINT, SIGHUP) of
//! `automation run`, of the MCP server, and of `--launch … --virtual-display`, no process it
//! started is left within 2 s — counted by process group and by parent (`/proc/*/stat`) —
//! and no directory of it stays in the temp dir (each test gives the run a temp dir of its
//! own through `TMPDIR`). Run directories of processes that ended anyway are swept at start.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::hostile;
use crate::support::mcp as common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use automation_testkit::heavy::Heavy;
use automation_testkit::require::{on_path, require, require_tools};
use hostile::{BOUND, Proc, descendants, entries, node_present, still_alive, until_empty};
use serde_json::json;

fn serial() -> Heavy {
    automation_testkit::heavy::heavy()
}

/// For a test that runs a script: the serial guard, a scratch directory and the `TMPDIR`
/// the run gets in it; `None` when node is missing (and the run opted out of it).
fn script_test() -> Option<(Heavy, tempfile::TempDir, PathBuf)> {
    let guard = serial();
    if !node_present() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    Some((guard, dir, tmp))
}

/// A script that starts a process group of its own children (a shell and two sleeps), says
/// so in `ready`, and then never ends.
fn hanging_script(dir: &Path) -> PathBuf {
    let ready = dir.join("ready");
    let script = dir.join("hang.mjs");
    std::fs::write(
        &script,
        format!(
            "import {{ spawn }} from 'node:child_process';\n\
             import fs from 'node:fs';\n\
             spawn('sh', ['-c', 'sleep 300 & sleep 301 & wait'], {{ stdio: 'ignore' }});\n\
             setTimeout(() => fs.writeFileSync({ready:?}, 'ready'), 200);\n\
             await new Promise(() => {{}});\n"
        ),
    )
    .unwrap();
    script
}

fn wait_for(path: &Path, limit: Duration) {
    let until = Instant::now() + limit;
    while !path.exists() {
        assert!(Instant::now() < until, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What the run started, at this moment: every descendant of `pid`, and their groups.
fn started_by(pid: u32) -> (Vec<Proc>, Vec<u32>) {
    let procs = descendants(pid);
    let mut groups: Vec<u32> = procs.iter().map(|p| p.pgid).collect();
    groups.sort_unstable();
    groups.dedup();
    // Our own group (the test's) is not the run's to end.
    // SAFETY: getpgrp has no preconditions.
    let ours = unsafe { libc::getpgrp() } as u32;
    groups.retain(|g| *g != ours);
    (procs, groups)
}

/// Sends `signal` to `child`, reaps it, and checks that within 2 s nothing it started is
/// alive and `tmp` holds nothing of it (this user's runtime directory may stay, empty).
fn stop_and_check(mut child: Child, signal: i32, tmp: &Path, what: &str) {
    let pid = child.id();
    let (procs, groups) = started_by(pid);
    eprintln!("{what}: started {:#?}", procs);
    // SAFETY: kill(2) on our own child.
    assert_eq!(unsafe { libc::kill(pid as i32, signal) }, 0);
    let t0 = Instant::now();
    let _ = child.wait();
    let pids: Vec<u32> = procs.iter().map(|p| p.pid).collect();
    let left = until_empty(BOUND, || still_alive(&pids, &groups, pid));
    let took = t0.elapsed();
    assert!(left.is_empty(), "{what}: left after {took:?}: {left:#?}");
    let dirs = until_empty(BOUND, || leftover_dirs(tmp));
    assert!(
        dirs.is_empty(),
        "{what}: left in {}: {dirs:?}",
        tmp.display()
    );
    eprintln!("{what}: nothing left after {:?}", t0.elapsed());
}

/// What is in `tmp` but this user's (empty) runtime directory.
fn leftover_dirs(tmp: &Path) -> Vec<String> {
    // SAFETY: geteuid has no preconditions.
    let own = format!("automation-{}", unsafe { libc::geteuid() });
    let mut out = Vec::new();
    for name in entries(tmp) {
        if name == own {
            out.extend(
                entries(&tmp.join(&name))
                    .into_iter()
                    .map(|n| format!("{own}/{n}")),
            );
        } else {
            out.push(name);
        }
    }
    out
}

/// `automation ARGS…` with `TMPDIR=tmp`, `XDG_RUNTIME_DIR` unset.
fn automation(args: &[&str], tmp: &Path, dir: &Path) -> Command {
    let mut cmd = crate::support::automation();
    cmd.args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .env_remove("XDG_RUNTIME_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    cmd
}

fn run_stopped_by(signal: i32, name: &str) {
    let Some((_s, dir, tmp)) = script_test() else {
        return;
    };
    let script = hanging_script(dir.path());
    let records = dir.path().join("records");
    let child = automation(
        &[
            "run",
            script.to_str().unwrap(),
            "--records",
            records.to_str().unwrap(),
        ],
        &tmp,
        dir.path(),
    )
    .spawn()
    .unwrap();
    wait_for(&dir.path().join("ready"), Duration::from_secs(20));
    let (procs, _) = started_by(child.id());
    assert!(
        procs.iter().any(|p| p.cmd.starts_with("sleep 300")),
        "the script's grandchildren run: {procs:#?}"
    );
    stop_and_check(child, signal, &tmp, &format!("automation run, {name}"));
}

#[test]
fn sigkill_of_automation_run_leaves_nothing() {
    run_stopped_by(libc::SIGKILL, "SIGKILL");
}

#[test]
fn sigterm_of_automation_run_leaves_nothing() {
    run_stopped_by(libc::SIGTERM, "SIGTERM");
}

#[test]
fn sigint_of_automation_run_leaves_nothing() {
    run_stopped_by(libc::SIGINT, "SIGINT");
}

#[test]
fn sighup_of_automation_run_leaves_nothing() {
    run_stopped_by(libc::SIGHUP, "SIGHUP");
}

fn server_stopped_by(signal: i32, name: &str) {
    let Some((_s, dir, tmp)) = script_test() else {
        return;
    };
    let script = hanging_script(dir.path());
    let mut s = common::Server::start_env(
        &["--headless"],
        dir.path(),
        &[
            ("TMPDIR", tmp.to_str().unwrap()),
            ("AUTOMATION_RECORDS", "off"),
        ],
    );
    s.send_call(5, "execute_sequence", json!({"file": script}));
    wait_for(&dir.path().join("ready"), Duration::from_secs(20));
    // The server is Server's child: take it out to signal and reap it here.
    let child = std::mem::replace(&mut s.child, Command::new("true").spawn().unwrap());
    stop_and_check(child, signal, &tmp, &format!("the MCP server, {name}"));
}

#[test]
fn sigkill_of_the_mcp_server_leaves_nothing() {
    server_stopped_by(libc::SIGKILL, "SIGKILL");
}

#[test]
fn sigterm_of_the_mcp_server_leaves_nothing() {
    server_stopped_by(libc::SIGTERM, "SIGTERM");
}

/// `--launch zenity --virtual-display` killed with SIGKILL: Xvfb (and its sockets), both bus
/// daemons, the launcher, the registry and the app are gone within 2 s, and so is the
/// display's private directory.
#[test]
fn sigkill_of_launch_on_a_virtual_display_leaves_nothing() {
    let _s = serial();
    if !require_tools("dbus", &automation_atspi::display::missing_tools())
        || !require(
            "atspi-apps",
            on_path("zenity"),
            "zenity is not installed (scripts/test installs it)",
        )
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // A display directory left by a process that is gone: swept when the display starts.
    let dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    drop(dead.wait_with_output());
    let stale = tmp.join(format!("automation-vd-{dead_pid}-0"));
    std::fs::create_dir(&stale).unwrap();
    let s = common::Server::start_env(
        &[
            "--launch",
            "zenity --info --text orphans",
            "--virtual-display",
        ],
        dir.path(),
        &[
            ("TMPDIR", tmp.to_str().unwrap()),
            ("AUTOMATION_VIRTUAL_DISPLAYS", "150-170"),
        ],
    );
    assert!(!stale.exists(), "a stale display directory is swept");
    let mut s = s;
    // A call that reaches the app through the registry, then every piece is up.
    let r = s.call(1, "list_windows", json!({}));
    assert_ne!(r["result"]["isError"], json!(true), "{r}");
    // The launcher, the accessibility bus and the registry may come up after the app, or
    // not at all: they are counted when they are there (by group, and below by directory).
    let want = ["Xvfb", "dbus-daemon --session", "zenity"];
    let until = Instant::now() + Duration::from_secs(10);
    let procs = loop {
        let (procs, _) = started_by(s.child.id());
        let missing: Vec<&str> = want
            .iter()
            .copied()
            .filter(|w| !procs.iter().any(|p| p.cmd.contains(w)))
            .collect();
        if missing.is_empty() {
            break procs;
        }
        assert!(Instant::now() < until, "{missing:?} not among {procs:#?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let display = procs
        .iter()
        .find_map(|p| p.cmd.strip_prefix("Xvfb :"))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_string();
    assert!(
        x_server_answers(&display),
        "the probe of the display's abstract socket finds the live server on :{display}"
    );
    let child = std::mem::replace(&mut s.child, Command::new("true").spawn().unwrap());
    let vd = format!("automation-vd-{}-", child.id());
    stop_and_check(
        child,
        libc::SIGKILL,
        &tmp,
        "--launch --virtual-display, SIGKILL",
    );
    let named: Vec<Proc> = hostile::processes()
        .into_iter()
        .filter(|p| p.state != 'Z' && p.cmd.contains(&vd))
        .collect();
    assert!(
        named.is_empty(),
        "processes of the display's directory left: {named:#?}"
    );
    // Started with `-displayfd`, Xvfb takes no lock file (a lock there is another server's,
    // or stale); it listens on a socket file and, on Linux, an abstract socket of that name.
    let socket = PathBuf::from(format!("/tmp/.X11-unix/X{display}"));
    let gone = until_empty(BOUND, || {
        if socket.exists() || x_server_answers(&display) {
            vec![socket.clone()]
        } else {
            vec![]
        }
    });
    assert!(
        gone.is_empty(),
        "display :{display} is still served or its socket stayed: {gone:?}"
    );
}

/// The compositors a Wayland virtual display runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compositor {
    Mutter,
    GnomeShell,
    Sway,
}

/// `--launch gtk4-widget-factory --virtual-display=wayland` (a private headless mutter,
/// PipeWire, WirePlumber and both buses), `=gnome-shell` (the same with GNOME Shell) or
/// `=sway` (a private headless sway, as nobody when root, and both buses); with a normal
/// exit, a bare `--virtual-display` and
/// `AUTOMATION_VIRTUAL_DISPLAY` naming the kind, the other way to ask; ended by `signal` or,
/// with `None`, by a normal exit (stdin closed): nothing it started is left, and no directory
/// of it.
fn wayland_launch_ended_by(compositor: Compositor, signal: Option<i32>, name: &str) {
    let _s = serial();
    let (component, missing, kind_name) = match compositor {
        Compositor::Mutter => (
            "wayland",
            automation_atspi::display_wayland::missing_tools(),
            "wayland",
        ),
        Compositor::GnomeShell => (
            "wayland",
            automation_atspi::display_wayland::Gnome::Shell.missing_tools(),
            "gnome-shell",
        ),
        Compositor::Sway => (
            "sway",
            automation_atspi::display_sway::missing_tools(),
            "sway",
        ),
    };
    if !require_tools(component, &missing)
        || !require(
            "atspi-apps",
            on_path("gtk4-widget-factory"),
            "gtk4-widget-factory is not installed (Debian gtk-4-examples; scripts/test installs it)",
        )
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let explicit = format!("--virtual-display={kind_name}");
    let (flag, kind) = match signal {
        Some(_) => (explicit.as_str(), "x11"),
        None => ("--virtual-display", kind_name),
    };
    let mut s = common::Server::start_env(
        &["--launch", "gtk4-widget-factory", flag],
        dir.path(),
        &[
            ("TMPDIR", tmp.to_str().unwrap()),
            ("AUTOMATION_VIRTUAL_DISPLAY", kind),
        ],
    );
    // A key through the compositor: the remote-desktop session is up too.
    let r = s.call(1, "inject_key", json!({"key": "Shift"}));
    assert_ne!(r["result"]["isError"], json!(true), "{r}");
    let want: &[&str] = match compositor {
        Compositor::Mutter => &[
            "mutter --headless",
            "pipewire",
            "wireplumber",
            "dbus-daemon --session",
            "gtk4-widget-factory",
        ],
        Compositor::GnomeShell => &[
            "gnome-shell --headless",
            "pipewire",
            "wireplumber",
            "dbus-daemon --session",
            "gtk4-widget-factory",
        ],
        Compositor::Sway => &[
            "sway --config",
            "dbus-daemon --session",
            "gtk4-widget-factory",
        ],
    };
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (procs, _) = started_by(s.child.id());
        let missing: Vec<&str> = want
            .iter()
            .copied()
            .filter(|w| !procs.iter().any(|p| p.cmd.contains(w)))
            .collect();
        if missing.is_empty() {
            break;
        }
        assert!(Instant::now() < until, "{missing:?} not among {procs:#?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let what = format!("--launch --virtual-display ({kind_name}), {name}");
    match signal {
        Some(signal) => {
            let child = std::mem::replace(&mut s.child, Command::new("true").spawn().unwrap());
            stop_and_check(child, signal, &tmp, &what);
        }
        None => {
            let pid = s.child.id();
            let (procs, groups) = started_by(pid);
            drop(s);
            let pids: Vec<u32> = procs.iter().map(|p| p.pid).collect();
            let left = until_empty(BOUND, || still_alive(&pids, &groups, pid));
            assert!(left.is_empty(), "{what}: left: {left:#?}");
            let dirs = until_empty(BOUND, || leftover_dirs(&tmp));
            assert!(
                dirs.is_empty(),
                "{what}: left in {}: {dirs:?}",
                tmp.display()
            );
        }
    }
}

#[test]
fn sigkill_of_launch_on_a_wayland_virtual_display_leaves_nothing() {
    wayland_launch_ended_by(Compositor::Mutter, Some(libc::SIGKILL), "SIGKILL");
}

#[test]
fn sigterm_of_launch_on_a_wayland_virtual_display_leaves_nothing() {
    wayland_launch_ended_by(Compositor::Mutter, Some(libc::SIGTERM), "SIGTERM");
}

#[test]
fn sigkill_of_launch_on_a_gnome_shell_virtual_display_leaves_nothing() {
    wayland_launch_ended_by(Compositor::GnomeShell, Some(libc::SIGKILL), "SIGKILL");
}

#[test]
fn exit_of_launch_on_a_wayland_virtual_display_leaves_nothing() {
    wayland_launch_ended_by(Compositor::Mutter, None, "a normal exit");
}

#[test]
fn sigkill_of_launch_on_a_sway_virtual_display_leaves_nothing() {
    wayland_launch_ended_by(Compositor::Sway, Some(libc::SIGKILL), "SIGKILL");
}

#[test]
fn sigterm_of_launch_on_a_sway_virtual_display_leaves_nothing() {
    wayland_launch_ended_by(Compositor::Sway, Some(libc::SIGTERM), "SIGTERM");
}

#[test]
fn exit_of_launch_on_a_sway_virtual_display_leaves_nothing() {
    wayland_launch_ended_by(Compositor::Sway, None, "a normal exit");
}

/// Whether an X server takes connections on `:display`'s abstract socket.
fn x_server_answers(display: &str) -> bool {
    use std::os::linux::net::SocketAddrExt as _;
    use std::os::unix::net::{SocketAddr, UnixStream};
    SocketAddr::from_abstract_name(format!("/tmp/.X11-unix/X{display}"))
        .and_then(|addr| UnixStream::connect_addr(&addr))
        .is_ok()
}

/// Run directories whose process has ended are swept when the next run starts; one that is
/// not ours (no marker) is left alone.
#[test]
fn run_directories_of_ended_processes_are_swept_at_start() {
    let _s = serial();
    if !node_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    // SAFETY: geteuid has no preconditions.
    let runtime = tmp.join(format!("automation-{}", unsafe { libc::geteuid() }));
    std::fs::create_dir_all(&runtime).unwrap();
    let dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    drop(dead.wait_with_output());
    let stale = runtime.join("automation-run-stale");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(
        stale.join(".automation"),
        format!("automation run\npid {dead_pid}\nstart 1\n"),
    )
    .unwrap();
    let unmarked = runtime.join("automation-run-unmarked");
    std::fs::create_dir(&unmarked).unwrap();
    std::fs::write(dir.path().join("ok.mjs"), "console.log('ok');\n").unwrap();
    let status = automation(&["run", "ok.mjs", "--records", "records"], &tmp, dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(!stale.exists(), "the stale run directory is swept");
    assert!(
        unmarked.exists(),
        "an unmarked directory is not ours to remove"
    );
    assert_eq!(entries(&runtime), ["automation-run-unmarked"]);
}
