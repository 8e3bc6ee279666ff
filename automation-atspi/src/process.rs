//! Process groups: who is in one, signalling, and ending one (SIGTERM, a grace period,
//! SIGKILL). Used by the display, the launcher and the signal watcher alike, so it lives
//! apart from all three.

use std::time::{Duration, Instant};

/// Pids of live (not zombie) processes in group `pgid`, read from `/proc`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()))
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // Fields after the command (which may hold spaces) start after the last ')'.
            let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
                return false;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.first().is_some_and(|s| *s != "Z")
                && fields.get(2).and_then(|g| g.parse::<i32>().ok()) == Some(pgid)
        })
        .collect()
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
