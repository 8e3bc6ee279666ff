//! Process groups: who is in one, signalling, and ending one (SIGTERM, a grace period,
//! SIGKILL). Used by the display, the launcher and the signal watcher alike, so it lives
//! apart from all three.

use std::time::{Duration, Instant};

/// Every live (not zombie) process: pid, parent pid, process group, read from `/proc`.
fn processes() -> Vec<(i32, i32, i32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()))
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // Fields after the command (which may hold spaces) start after the last ')'.
            let rest = stat.rsplit_once(')').map(|(_, r)| r)?;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            if fields.first().is_none_or(|s| *s == "Z") {
                return None;
            }
            let ppid = fields.get(1)?.parse().ok()?;
            let pgid = fields.get(2)?.parse().ok()?;
            Some((pid, ppid, pgid))
        })
        .collect()
}

/// Pids of live (not zombie) processes in group `pgid`, read from `/proc`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    processes()
        .into_iter()
        .filter(|(_, _, g)| *g == pgid)
        .map(|(pid, _, _)| pid)
        .collect()
}

/// Pids of the live descendants of `pid` (children first), read from `/proc`: what a
/// wrapper script or launcher started.
pub fn descendants(pid: i32) -> Vec<i32> {
    let all = processes();
    let mut out = vec![pid];
    let mut i = 0;
    while let Some(&p) = out.get(i) {
        i += 1;
        out.extend(
            all.iter()
                .filter(|(c, parent, _)| *parent == p && !out.contains(c))
                .map(|(c, _, _)| *c)
                .collect::<Vec<_>>(),
        );
    }
    out.remove(0);
    out
}

/// Whether process `pid` is alive (not a zombie).
pub fn is_alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .and_then(|(_, r)| r.split_whitespace().next().map(|st| st != "Z"))
        })
        .unwrap_or(false)
}

/// SIGTERM to the group, wait up to `grace` for it to empty, then SIGKILL.
pub fn kill_group(pgid: i32, grace: Duration) {
    // A negative pid names the group.
    let term = signal(-pgid, libc::SIGTERM);
    if !term {
        return;
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if group_members(pgid).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(-pgid, libc::SIGKILL);
}

/// `kill(2)`; `true` when the signal was sent.
pub fn signal(pid: i32, sig: i32) -> bool {
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    #[allow(unsafe_code)]
    let r = unsafe { libc::kill(pid, sig) };
    r == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_s_grandchild_is_a_descendant() {
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "sleep 30 & sleep 30; wait"]);
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut found = Vec::new();
        while found.len() < 2 && Instant::now() < deadline {
            found = descendants(pid);
            std::thread::sleep(Duration::from_millis(20));
        }
        kill_group(pid, Duration::from_secs(1));
        let _ = child.wait();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(!found.contains(&pid));
    }
}
