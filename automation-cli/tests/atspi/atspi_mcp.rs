//! The Python `mcp` SDK drives real desktop apps through `automation --launch … --virtual-display`:
//! zenity (GTK3) and gnome-calculator (GTK4), each on a private Xvfb with its own buses, and
//! nothing is left behind (processes, sockets, temporary directories) — also when the server
//! is stopped by SIGTERM or SIGINT.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};

use automation_testkit::heavy::Heavy;
use automation_testkit::require::{require, require_tools};

/// Our processes of a virtual display: anything whose command line names a private directory
/// (`automation-vd-…`: the session bus) or an Xvfb on one of our display numbers.
fn leftovers() -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains("automation-vd-")
            || (90..=93).any(|n| cmd.starts_with(&format!("Xvfb :{n} ")))
        {
            out.push(format!("{pid}: {cmd}"));
        }
    }
    for e in std::fs::read_dir(std::env::temp_dir()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with("automation-vd-") {
            out.push(format!("dir {name}"));
        }
    }
    out
}

/// One virtual display at a time: `leftovers` looks at every process of ours, so a second
/// test's live display would read as left behind by the first.
fn one_at_a_time() -> Heavy {
    automation_testkit::heavy::heavy()
}

fn run(scenario: &str, app: &str) {
    let _serial = one_at_a_time();
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    if !require(
        "python-mcp",
        !python.is_empty(),
        "AUTOMATION_PYTHON is not set (scripts/test sets up a venv with `mcp`)",
    ) || !require_tools("dbus", &automation_atspi::display::missing_tools())
        || !require(
            "atspi-apps",
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .any(|d| d.join(app).is_file()),
            &format!("{app} is not installed (scripts/test installs zenity gnome-calculator)"),
        )
    {
        return;
    }
    let before = leftovers();
    let dir = tempfile::tempdir().unwrap();
    let errlog = dir.path().join("server.stderr");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/atspi_client.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(crate::support::AUTOMATION)
        .arg(scenario)
        .arg(&errlog)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../automation-atspi/tests/oracle.py"
        ))
        .env("AUTOMATION_VIRTUAL_DISPLAYS", "90-93")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let log = std::fs::read_to_string(&errlog).unwrap_or_default();
    // The client's measurements (calculator_speed), for the test's output.
    eprint!("{stderr}");
    assert!(
        out.status.success(),
        "python client failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}\nserver stderr:\n{log}",
        out.status
    );
    assert_eq!(stdout.trim(), format!("ok {scenario}"));
    // The server has exited (the SDK waits for it): nothing of its display is left.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let after: Vec<String> = leftovers()
            .into_iter()
            .filter(|l| !before.contains(l))
            .collect();
        if after.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "left behind: {after:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn mcp_drives_zenity_entry_on_a_virtual_display() {
    run("zenity", "zenity");
}

#[test]
fn mcp_drives_gnome_calculator_on_a_virtual_display() {
    run("calculator", "gnome-calculator");
}

/// 24 clicks on gnome-calculator's "1" over MCP, each reply at its first effect (settle
/// `quiet_ms: 0`) and each effect read back by pyatspi on the display: the median reply is
/// within 150 ms (`AUTOMATION_CLICK_MEDIAN_LIMIT_MS` moves the bound on a slower machine).
#[test]
fn mcp_clicks_on_gnome_calculator_land_fast_and_pyatspi_sees_each() {
    let pyatspi = Command::new("/usr/bin/python3")
        .args(["-c", "import pyatspi"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !require(
        "pyatspi",
        pyatspi,
        "/usr/bin/python3 cannot import pyatspi (Debian: python3-pyatspi; scripts/test installs it)",
    ) {
        return;
    }
    run("calculator_speed", "gnome-calculator");
}

/// `automation --launch … --virtual-display` stopped by `signal` while serving: it dies by
/// the signal, and the app, Xvfb, both buses and the private directory go with it.
fn stopped_by(signal: libc::c_int) {
    use std::io::{BufRead as _, Write as _};
    use std::os::unix::process::ExitStatusExt as _;
    let _serial = one_at_a_time();
    if !require_tools("dbus", &automation_atspi::display::missing_tools())
        || !require(
            "atspi-apps",
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .any(|d| d.join("zenity").is_file()),
            "zenity is not installed (scripts/test installs it)",
        )
    {
        return;
    }
    let before = leftovers();
    let marker = format!("signal-{signal}-{}", std::process::id());
    // The server's stderr, for the failure message (a launch that fails says why there).
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut command = crate::support::automation();
    command
        .args([
            "--launch",
            &format!("zenity --info --text {marker}"),
            "--virtual-display",
        ])
        .env("AUTOMATION_VIRTUAL_DISPLAYS", "90-93")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log.reopen().unwrap()));
    // The test harness may run with SIGINT ignored (a background job), and an ignored
    // disposition is inherited: give the server the defaults an interactive shell gives.
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut server = command.spawn().unwrap();
    // Serving means the launch is done: the app is up with a window.
    let mut stdin = server.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"signal-test","version":"0"}}}}}}"#
    )
    .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.contains("\"result\""),
        "no initialize reply: {line:?}; the server's stderr: {}",
        std::fs::read_to_string(log.path()).unwrap_or_default()
    );
    let app_running = || leftovers_matching(&marker);
    assert!(!app_running().is_empty(), "the app is not running");
    let during: Vec<String> = leftovers()
        .into_iter()
        .filter(|l| !before.contains(l))
        .collect();
    assert!(!during.is_empty(), "no virtual display seen while serving");
    let pid = i32::try_from(server.id()).unwrap();
    // SAFETY: kill(2) with plain integers.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let status = server.wait().unwrap();
    drop(stdin);
    assert_eq!(
        status.signal(),
        Some(signal),
        "dies by the signal: {status}"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let after: Vec<String> = leftovers()
            .into_iter()
            .chain(app_running())
            .filter(|l| !before.contains(l))
            .collect();
        if after.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "left behind after the signal: {after:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The zenity processes whose command line contains `needle`.
fn leftovers_matching(needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.starts_with("zenity ") && cmd.contains(needle) {
            out.push(format!("{pid}: {cmd}"));
        }
    }
    out
}

#[test]
fn sigterm_ends_the_launched_app_and_its_virtual_display() {
    stopped_by(libc::SIGTERM);
}

#[test]
fn sigint_ends_the_launched_app_and_its_virtual_display() {
    stopped_by(libc::SIGINT);
}
