//! What this process starts ends with it, however it ends — SIGKILL included.
//!
//! A script's process group, a virtual display's group (Xvfb, both buses, the registry, the
//! app), a launched app's group, and the private directories of a run are *watched* while
//! they live: each is told to one small `sh` child, the watchdog, over a pipe whose write end
//! only this process holds. When this process ends — returning, by a signal's default action,
//! or killed outright — the pipe closes, and the watchdog ends every group still watched
//! (SIGTERM, a moment, SIGKILL: Xvfb removes its lock and socket on SIGTERM) and removes every
//! directory still watched, then exits. What was ended normally was unwatched first, so a
//! clean exit leaves the watchdog nothing to do.
//!
//! The watchdog runs in a process group of its own and ignores SIGINT, SIGTERM and SIGHUP, so
//! a Ctrl-C or a hang-up that reaches our group does not stop it before it has done its work.
//! It holds no descriptor but its end of the pipe (stdout and stderr are `/dev/null`), so it
//! never keeps a caller's pipe open. A watchdog that died is started again with what is
//! watched. A directory whose path holds a newline is never watched (the protocol is lines);
//! the private directories this crate makes never do.

use std::io::Write as _;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, MutexGuard};

/// The watchdog: reads `+ item` / `- item` lines (an item is `g<pgid>` or `d<path>`) until
/// its input closes, then ends what is still listed.
const SCRIPT: &str = r#"trap '' INT TERM HUP
while IFS= read -r line; do
  op=${line%% *}; item=${line#* }
  case $op in
    +) set -- "$@" "$item" ;;
    -) n=$#
       while [ "$n" -gt 0 ]; do
         x=$1; shift; n=$((n - 1))
         [ "$x" = "$item" ] || set -- "$@" "$x"
       done ;;
  esac
done
groups=0
for x; do case $x in g[0-9]*) kill -TERM "-${x#g}" 2>/dev/null && groups=1 ;; esac; done
[ "$groups" = 1 ] && sleep 0.3
for x; do case $x in g[0-9]*) kill -KILL "-${x#g}" 2>/dev/null ;; esac; done
for x; do case $x in d/*) rm -rf -- "${x#d}" ;; esac; done
"#;

struct Running {
    stdin: ChildStdin,
    child: Child,
}

#[derive(Default)]
struct State {
    watched: Vec<String>,
    running: Option<Running>,
    /// Said once: the watchdog could not start.
    warned: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    watched: Vec::new(),
    running: None,
    warned: false,
});

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|p| p.into_inner())
}

fn spawn() -> std::io::Result<Running> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(SCRIPT)
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn()?;
    let stdin = child
        .stdin
        .take()
        .ok_or_else(|| std::io::Error::other("the watchdog has no stdin"))?;
    Ok(Running { stdin, child })
}

impl State {
    /// Sends `line`, (re)starting the watchdog when it is not running: a new one is told
    /// everything watched first.
    fn send(&mut self, line: &str) {
        let alive = self
            .running
            .as_mut()
            .is_some_and(|r| matches!(r.child.try_wait(), Ok(None)));
        if alive
            && let Some(r) = self.running.as_mut()
            && r.stdin.write_all(line.as_bytes()).is_ok()
        {
            return;
        }
        if let Some(mut old) = self.running.take() {
            let _ = old.child.try_wait();
        }
        match spawn() {
            Ok(mut r) => {
                // `line` has been applied to `watched` already.
                let all: String = self.watched.iter().map(|w| format!("+ {w}\n")).collect();
                if r.stdin.write_all(all.as_bytes()).is_ok() {
                    self.running = Some(r);
                }
            }
            Err(e) if !self.warned => {
                self.warned = true;
                tracing::warn!(
                    "cannot start the watchdog (sh): {e}; what this process starts may outlive a SIGKILL"
                );
            }
            Err(_) => {}
        }
    }

    fn add(&mut self, item: String) {
        let line = format!("+ {item}\n");
        self.watched.push(item);
        self.send(&line);
    }

    fn remove(&mut self, item: &str) {
        let Some(at) = self.watched.iter().position(|w| w == item) else {
            return;
        };
        self.watched.remove(at);
        if self.running.is_some() {
            self.send(&format!("- {item}\n"));
        }
    }
}

fn group_item(pgid: i32) -> Option<String> {
    (pgid > 0).then(|| format!("g{pgid}"))
}

fn dir_item(dir: &Path) -> Option<String> {
    let s = dir.to_str()?;
    (dir.is_absolute() && !s.contains('\n')).then(|| format!("d{s}"))
}

/// Watches process group `pgid` (until [`unwatch_group`]).
pub fn watch_group(pgid: i32) {
    if let Some(item) = group_item(pgid) {
        state().add(item);
    }
}

/// Stops watching process group `pgid` (it was ended).
pub fn unwatch_group(pgid: i32) {
    if let Some(item) = group_item(pgid) {
        state().remove(&item);
    }
}

/// Watches directory `dir` (absolute; until [`unwatch_dir`]).
pub fn watch_dir(dir: &Path) {
    if let Some(item) = dir_item(dir) {
        state().add(item);
    }
}

/// Stops watching directory `dir` (it was removed, or is kept on purpose).
pub fn unwatch_dir(dir: &Path) {
    if let Some(item) = dir_item(dir) {
        state().remove(&item);
    }
}

/// A process group watched while this lives; dropping it ends the group (SIGKILL to what is
/// left of it) and unwatches it.
#[derive(Debug)]
pub struct Group(i32);

impl Group {
    /// Watches group `pgid`.
    pub fn watch(pgid: i32) -> Self {
        watch_group(pgid);
        Self(pgid)
    }

    /// The group's id.
    pub fn id(&self) -> i32 {
        self.0
    }

    /// Ends every process still in the group (SIGKILL); true when a signal was sent.
    pub fn kill(&self) -> bool {
        #[cfg(unix)]
        if self.0 > 0 {
            // SAFETY: kill(2) takes plain integers; a negative pid names our child's group.
            return unsafe { libc::kill(-self.0, libc::SIGKILL) } == 0;
        }
        false
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
        unwatch_group(self.0);
    }
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn items_are_numbers_and_absolute_paths_without_newlines() {
        assert_eq!(group_item(12).as_deref(), Some("g12"));
        assert_eq!(group_item(0), None);
        assert_eq!(group_item(-3), None);
        assert_eq!(
            dir_item(Path::new("/tmp/a b")).as_deref(),
            Some("d/tmp/a b")
        );
        assert_eq!(dir_item(Path::new("rel")), None);
        assert_eq!(dir_item(Path::new("/tmp/a\nb")), None);
    }
}
