//! Selenium Grid 4 spreading sessions over `automation webdriver` endpoints: a hub and two
//! relay nodes (tests/grid/node.toml.in), each node in front of its own server with two
//! slots. Four Selenium sessions start at once through the hub, each launching
//! gtk3-widget-factory on a private display of its own; all pass, the hub lists both nodes, and
//! afterwards nothing the servers started is left. The four at once must take at most 0.6× the
//! time of the same four one after another, or at most 0.08 above the machine's ceiling for four
//! parallel jobs (the same ratio for a CPU-bound loop), measured in the same run and printed
//! beside it, when a loaded machine's ceiling is itself above 0.52×.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::hostile;
use crate::support::webdriver as wd;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use automation_testkit::require::{on_path, require};
use serde_json::Value;

/// A Java process of the Grid, killed on drop.
struct Java(Child);

impl Drop for Java {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn java(jar: &Path, args: &[String], log: &Path) -> Java {
    let log = std::fs::File::create(log).unwrap();
    Java(
        Command::new("java")
            .arg("-jar")
            .arg(jar)
            .args(args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    )
}

fn hub_status(hub: &str) -> Option<Value> {
    let addr = hub.trim_start_matches("http://");
    let (status, body) =
        std::panic::catch_unwind(|| wd::http(addr, "GET", "/status", b"", &[])).ok()?;
    (status == 200).then(|| body["value"].clone())
}

/// The grid script's JSON line.
fn grid_run(python: &str, hub: &str, n: usize) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/webdriver_grid.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(hub)
        .arg(n.to_string())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "webdriver_grid.py {n} failed ({:?})\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim().lines().last().unwrap_or_default()).unwrap()
}

/// The most four sessions at once may take, as a share of one after another: 0.6×, or 0.08
/// above what four CPU-bound jobs take on this machine, measured in the same run (a loaded
/// machine's ceiling alone may be above 0.52×).
fn bound(machine: f64) -> f64 {
    0.6_f64.max(machine + 0.08)
}

/// The machine's ceiling for `jobs` parallel jobs: wall time of `jobs` CPU-bound loops at
/// once over the same loops one after another.
fn ceiling(jobs: usize) -> f64 {
    fn spin() -> u64 {
        let mut x: u64 = 1;
        for i in 0..150_000_000u64 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
        }
        x
    }
    let t = Instant::now();
    for _ in 0..jobs {
        std::hint::black_box(spin());
    }
    let serial = t.elapsed();
    let t = Instant::now();
    let handles: Vec<_> = (0..jobs)
        .map(|_| std::thread::spawn(|| std::hint::black_box(spin())))
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    t.elapsed().as_secs_f64() / serial.as_secs_f64()
}

#[test]
fn selenium_grid_relays_four_parallel_sessions_to_two_automation_webdriver_nodes() {
    // Selenium Grid and its nodes.
    let _heavy = automation_testkit::heavy::heavy_shared();
    let jar = std::env::var("AUTOMATION_SELENIUM_JAR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let python = std::env::var("AUTOMATION_PYTHON").unwrap_or_default();
    let selenium = !python.is_empty()
        && Command::new(&python)
            .args(["-c", "import selenium"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !require(
        "selenium-grid",
        jar.is_file() && on_path("java"),
        "AUTOMATION_SELENIUM_JAR or java is missing (scripts/test installs the jar with npm and openjdk-17-jre-headless)",
    ) || !require(
        "python-selenium",
        selenium,
        "AUTOMATION_PYTHON is unset or has no selenium",
    ) || !require(
        "atspi-apps",
        on_path("gtk3-widget-factory"),
        "gtk3-widget-factory is missing (Debian: gtk-3-examples)",
    ) || !automation_testkit::require::require_tools(
        "dbus",
        &automation_atspi::display::missing_tools(),
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let servers = [
        wd::Server::start(&["--max-sessions", "2"]),
        wd::Server::start(&["--max-sessions", "2"]),
    ];
    let (hub_port, publish, subscribe) = (free_port(), free_port(), free_port());
    let events = [
        "--publish-events".to_string(),
        format!("tcp://127.0.0.1:{publish}"),
        "--subscribe-events".to_string(),
        format!("tcp://127.0.0.1:{subscribe}"),
    ];
    let hub = format!("http://127.0.0.1:{hub_port}");
    let mut args: Vec<String> = ["hub", "--host", "127.0.0.1", "--port"]
        .iter()
        .map(ToString::to_string)
        .collect();
    args.push(hub_port.to_string());
    args.extend(events.iter().cloned());
    args.extend(["--session-request-timeout".to_string(), "120".to_string()]);
    let _hub = java(&jar, &args, &dir.path().join("hub.log"));
    let template = include_str!("../grid/node.toml.in");
    let mut nodes = Vec::new();
    for (i, server) in servers.iter().enumerate() {
        let toml = template
            .replace("@WEBDRIVER_URL@", &server.url)
            .replace("@MAX_SESSIONS@", "2");
        let config = dir.path().join(format!("node{i}.toml"));
        std::fs::write(&config, toml).unwrap();
        let mut args: Vec<String> = ["node", "--host", "127.0.0.1", "--port"]
            .iter()
            .map(ToString::to_string)
            .collect();
        args.push(free_port().to_string());
        args.extend([
            "--hub".to_string(),
            hub.clone(),
            "--config".to_string(),
            config.display().to_string(),
        ]);
        args.extend(events.iter().cloned());
        nodes.push(java(&jar, &args, &dir.path().join(format!("node{i}.log"))));
    }
    let started = Instant::now();
    let registered = loop {
        let n = hub_status(&hub)
            .and_then(|s| s["nodes"].as_array().map(Vec::len))
            .unwrap_or(0);
        if n == 2 || started.elapsed() > Duration::from_secs(120) {
            break n;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    let logs = || {
        ["hub.log", "node0.log", "node1.log"]
            .iter()
            .map(|l| {
                format!(
                    "--- {l}\n{}",
                    std::fs::read_to_string(dir.path().join(l)).unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        registered,
        2,
        "the hub did not list both nodes within 120 s\n{}",
        logs()
    );
    eprintln!("grid up with 2 relay nodes after {:?}", started.elapsed());

    // One after another, then four at once, with what the servers start counted meanwhile.
    let mut serial_ms = 0u64;
    for _ in 0..4 {
        let one = grid_run(&python, &hub, 1);
        serial_ms += one["total_ms"].as_u64().unwrap();
        eprintln!("one session alone: {}", one["sessions"]);
    }
    let pids: Vec<u32> = servers.iter().map(wd::Server::pid).collect();
    let cpu = |pid: u32| -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let f: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, r)| r)
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        let ticks: f64 = f.get(11).and_then(|u| u.parse::<f64>().ok()).unwrap_or(0.0)
            + f.get(12).and_then(|u| u.parse::<f64>().ok()).unwrap_or(0.0);
        ticks / 100.0
    };
    // Four at once (the apps and displays the servers start counted meanwhile), then the
    // machine's ceiling. A run on a machine busy with something else is measured once more;
    // the better of the two is judged, and both are printed.
    let mut runs = Vec::new();
    for attempt in 0..2 {
        let counting = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let counter = {
            let counting = std::sync::Arc::clone(&counting);
            let pids = pids.clone();
            std::thread::spawn(move || {
                let (mut apps, mut displays) = (0usize, 0usize);
                while counting.load(std::sync::atomic::Ordering::Relaxed) {
                    let now: Vec<hostile::Proc> = pids
                        .iter()
                        .flat_map(|p| hostile::descendants(*p))
                        .filter(|p| p.state != 'Z')
                        .collect();
                    apps = apps.max(
                        now.iter()
                            .filter(|p| p.cmd.contains("gtk3-widget-factory"))
                            .count(),
                    );
                    displays = displays.max(now.iter().filter(|p| p.cmd.contains("Xvfb")).count());
                    std::thread::sleep(Duration::from_millis(100));
                }
                (apps, displays)
            })
        };
        let four = grid_run(&python, &hub, 4);
        counting.store(false, std::sync::atomic::Ordering::Relaxed);
        let (apps, displays) = counter.join().unwrap();
        let parallel_ms = four["total_ms"].as_u64().unwrap();
        let machine = ceiling(4);
        let ratio = parallel_ms as f64 / serial_ms as f64;
        eprintln!("four at once: {}", four["sessions"]);
        eprintln!(
            "grid run {attempt}: 4 sessions one after another {serial_ms} ms, at once {parallel_ms} ms: {ratio:.2}× (the machine's ceiling for 4 parallel CPU-bound jobs: {machine:.2}×); seen at once: {apps} apps on {displays} displays; hub nodes {}; the servers' CPU so far {:.1} s and {:.1} s",
            four["nodes"],
            cpu(pids[0]),
            cpu(pids[1])
        );
        assert_eq!(four["nodes"], 2, "{four}");
        assert!(
            apps >= 4 && displays >= 4,
            "four sessions should run four apps on four displays at once; saw {apps} and {displays}"
        );
        runs.push((ratio, machine));
        if ratio <= bound(machine) {
            break;
        }
    }
    let (ratio, machine) =
        runs.iter().copied().fold(
            (f64::MAX, 0.0),
            |best, r| if r.0 < best.0 { r } else { best },
        );
    assert!(
        ratio <= bound(machine),
        "four at once took {ratio:.2}× of one after another (ceiling {machine:.2}×, bound {:.2}×); runs {runs:?}",
        bound(machine)
    );

    // Every session was quit: nothing the servers started is left.
    let left = hostile::until_empty(Duration::from_secs(15), || {
        pids.iter()
            .flat_map(|p| hostile::descendants(*p))
            .filter(|p| {
                p.state != 'Z'
                    && ["gtk3-widget-factory", "Xvfb", "dbus-daemon", "at-spi"]
                        .iter()
                        .any(|n| p.cmd.contains(n))
            })
            .collect::<Vec<_>>()
    });
    assert!(left.is_empty(), "left after every session quit: {left:?}");
    drop(nodes);
}
