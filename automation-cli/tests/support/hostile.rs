//! What the hostile-input tests measure: the real `automation` binary run to its end, its
//! time and its peak memory (`VmHWM` of `/proc/<pid>/status`, polled while it runs), and the
//! processes a run leaves behind.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The time every hostile case must be answered within.
pub const BOUND: Duration = Duration::from_secs(2);
/// The most memory a hostile case may take (KiB).
pub const RSS_CAP_KIB: u64 = 300 * 1024;

/// `VmHWM` (peak resident set) of `pid`, KiB; `None` once it has exited.
pub fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// A finished `automation` run.
#[derive(Debug)]
pub struct Ran {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
    /// The highest `VmHWM` seen, KiB.
    pub peak_kib: u64,
}

impl Ran {
    /// Asserts it ended within [`BOUND`] and stayed under [`RSS_CAP_KIB`].
    pub fn assert_bounded(&self, what: &str) {
        eprintln!(
            "{what}: exit {:?} in {:?}, peak RSS {} MiB",
            self.code,
            self.took,
            self.peak_kib / 1024
        );
        assert!(
            self.took < BOUND,
            "{what}: took {:?}\n{}",
            self.took,
            self.stderr
        );
        assert!(
            self.peak_kib > 0 && self.peak_kib <= RSS_CAP_KIB,
            "{what}: peak RSS {} KiB\n{}",
            self.peak_kib,
            self.stderr
        );
    }
}

/// Runs `automation ARGS…` in `dir` with `env` to its end (60 s at most), polling its peak
/// memory every 2 ms.
pub fn automation<S: AsRef<OsStr>>(args: &[S], env: &[(&str, &str)], dir: &Path) -> Ran {
    let mut cmd = crate::support::automation();
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let started = Instant::now();
    let mut child = cmd.spawn().expect("spawn automation");
    let pid = child.id();
    let pipe = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut s);
            }
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = pipe(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = pipe(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = vm_hwm_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("automation {:?} still running after 60 s", cmd_line(&cmd));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let took = started.elapsed();
    Ran {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        took,
        peak_kib: peak,
    }
}

fn cmd_line(cmd: &Command) -> Vec<String> {
    cmd.get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// One process as `/proc/<pid>/stat` tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    pub pid: u32,
    pub ppid: u32,
    pub pgid: u32,
    pub state: char,
    pub cmd: String,
}

/// Every process on the machine.
pub fn processes() -> Vec<Proc> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|c| {
                String::from_utf8_lossy(&c)
                    .replace('\0', " ")
                    .trim()
                    .to_string()
            })
            .unwrap_or_default();
        out.push(Proc {
            pid,
            state: f.first().and_then(|s| s.chars().next()).unwrap_or('?'),
            ppid: f.get(1).and_then(|s| s.parse().ok()).unwrap_or(0),
            pgid: f.get(2).and_then(|s| s.parse().ok()).unwrap_or(0),
            cmd,
        });
    }
    out
}

/// `root` and every live process descending from it (by ppid), at this moment.
pub fn descendants(root: u32) -> Vec<Proc> {
    let all = processes();
    let mut found = vec![root];
    let mut i = 0;
    while let Some(p) = found.get(i).copied() {
        for q in &all {
            if q.ppid == p && !found.contains(&q.pid) {
                found.push(q.pid);
            }
        }
        i += 1;
    }
    all.into_iter()
        .filter(|p| found.contains(&p.pid) && p.pid != root)
        .collect()
}

/// The live (not zombie) processes among `pids`, or in one of `groups`, or whose parent is
/// `parent`.
pub fn still_alive(pids: &[u32], groups: &[u32], parent: u32) -> Vec<Proc> {
    processes()
        .into_iter()
        .filter(|p| p.state != 'Z' && p.state != 'X')
        .filter(|p| pids.contains(&p.pid) || groups.contains(&p.pgid) || p.ppid == parent)
        .collect()
}

/// Waits up to `limit` for `check` to return an empty list; returns the last one.
pub fn until_empty<T: std::fmt::Debug>(
    limit: Duration,
    mut check: impl FnMut() -> Vec<T>,
) -> Vec<T> {
    let until = Instant::now() + limit;
    loop {
        let left = check();
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The entries of `dir` (names), sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Makes a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// Whether node runs here (the tests that run scripts need it: `require`s it).
pub fn node_present() -> bool {
    automation_testkit::require::require(
        "node",
        Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "node is not on PATH: scripts run under node (apt-get install nodejs)",
    )
}

/// Whether this test runs as root (creating users, mounting a full tmpfs need it).
pub fn root_present(why: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    automation_testkit::require::require(
        "root",
        root,
        &format!("this test must run as root: {why}"),
    )
}
