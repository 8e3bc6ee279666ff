//! Starting an app and driving it: [`Launched`] owns the process (and the virtual display,
//! when there is one) and ends them when dropped.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use automation_core::TargetError;

use crate::AtspiTarget;
use crate::bus::{App, Bus};
use crate::display::{APP_ENV, VirtualDisplay};
use crate::exit::{ExitWatch, Stream};
use crate::process::{descendants, group_members, is_alive, kill_group, signal};

/// How long a launched app may take to show a window on the accessibility bus.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);

/// Where the app's standard output and error go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// Inherit ours.
    #[default]
    Inherit,
    /// Pipes the caller takes from [`Launched::child`].
    Piped,
    /// Discarded.
    Null,
    /// Copied to our stderr as `[app stdout] …` / `[app stderr] …` lines, their ends kept
    /// for [`automation_core::AppExit`] (what an op whose effect is the app exiting reports).
    Tee,
}

impl Output {
    fn stdio(self) -> Stdio {
        match self {
            Self::Inherit => Stdio::inherit(),
            Self::Piped | Self::Tee => Stdio::piped(),
            Self::Null => Stdio::null(),
        }
    }
}

/// A launched app: its process (in a process group of its own, or the virtual display's)
/// and the display it runs on. Dropping it ends the app, then the display.
#[derive(Debug)]
pub struct Launched {
    /// The launched process (`sh -c 'exec …'`): the app, or a wrapper script or launcher
    /// whose descendant the app is.
    pub child: Child,
    /// The private display, with `--virtual-display`.
    pub display: Option<VirtualDisplay>,
    /// The app's exit status once it has one, and (with [`Output::Tee`]) its output's tails;
    /// the target holds it too.
    pub exit: Arc<ExitWatch>,
    pgid: i32,
}

impl Launched {
    /// The app's exit status, if it has exited (reaping it).
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        let status = self.child.try_wait().ok().flatten();
        if let Some(st) = status {
            self.exit.record(st);
        }
        status
    }

    /// Ends the app (its whole process group, unless that is the display's, which ends
    /// with the display) and the display.
    pub fn stop(&mut self) {
        if self.exited().is_none() {
            self.exit.ending_by_owner();
            let own_group = self.display.as_ref().is_none_or(|d| d.pgid != self.pgid);
            if own_group && self.pgid > 0 {
                kill_group(self.pgid, Duration::from_secs(2));
            } else if let Ok(pid) = i32::try_from(self.child.id()) {
                signal(pid, libc::SIGTERM);
            }
            let deadline = std::time::Instant::now() + Duration::from_secs(2);
            while self.exited().is_none() && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.child.kill();
        }
        if let Ok(st) = self.child.wait() {
            self.exit.record(st);
        }
        if self.display.as_ref().is_none_or(|d| d.pgid != self.pgid) {
            crate::cleanup::remove_group(self.pgid);
        }
        if let Some(mut d) = self.display.take() {
            d.stop();
        }
    }
}

impl Drop for Launched {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts `command_line` (through `sh -c 'exec …'`) with the environment that makes any
/// toolkit accessible, waits until it — or a process it started: a descendant, or one of its
/// process group — is on the accessibility bus with a window, and attaches. With `display`
/// (a [`VirtualDisplay`]) the app runs there and ends with it; else on `$DISPLAY` and this
/// process's session bus.
pub fn launch(
    command_line: &str,
    display: Option<VirtualDisplay>,
    output: Output,
) -> Result<(AtspiTarget, Launched), TargetError> {
    launch_within(command_line, display, output, LAUNCH_TIMEOUT)
}

/// [`launch`], waiting at most `timeout` for the app's window on the bus (a caller that will
/// start it again on a new display can give up sooner on a first try).
pub fn launch_within(
    command_line: &str,
    display: Option<VirtualDisplay>,
    output: Output,
    timeout: Duration,
) -> Result<(AtspiTarget, Launched), TargetError> {
    let bus = Bus::connect(display.as_ref().map(|d| d.session_address.as_str()))?;
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("exec {command_line}"))
        .stdin(Stdio::null())
        .stdout(output.stdio())
        .stderr(output.stdio());
    match &display {
        Some(d) => d.env_into(&mut cmd),
        None => {
            for (k, v) in APP_ENV {
                if std::env::var_os(k).is_none() {
                    cmd.env(k, v);
                }
            }
            std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        }
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| TargetError::AppGone(format!("cannot start {command_line:?}: {e}")))?;
    let pid = child.id();
    let exit = ExitWatch::start(pid);
    if output == Output::Tee {
        if let Some(out) = child.stdout.take() {
            exit.tee(out, Stream::Stdout);
        }
        if let Some(err) = child.stderr.take() {
            exit.tee(err, Stream::Stderr);
        }
    }
    let pgid = match &display {
        Some(d) => d.pgid,
        None => {
            let own = i32::try_from(pid).unwrap_or(0);
            crate::cleanup::add_group(own);
            own
        }
    };
    let display_name = display.as_ref().map(|d| d.display.clone());
    let mut launched = Launched {
        child,
        display,
        exit: Arc::clone(&exit),
        pgid,
    };
    let app = wait_for_launched(&bus, &mut launched, pid, command_line, timeout)?;
    let mut target = AtspiTarget::new(&bus, app, display_name)?;
    target.watch_exit(exit);
    Ok((target, launched))
}

/// The launched app: the first process with a window on the bus among the launched one, its
/// descendants (a wrapper script such as `localc` runs `soffice`, which runs `soffice.bin`:
/// the app on the bus is a grandchild with its own pid), and its process group (a launcher
/// that detached its app: the group outlives the parent link). With a virtual display the
/// group is the display's, whose bus holds only this launch's apps.
///
/// The wait ends early when the launched process failed, or exited and left nothing it had
/// started running (no descendant seen; without a virtual display, an empty group).
fn wait_for_launched(
    bus: &Bus,
    launched: &mut Launched,
    pid: u32,
    command_line: &str,
    timeout: Duration,
) -> Result<App, TargetError> {
    let pgid = launched.pgid;
    let own_group = launched.display.is_none();
    let own = i32::try_from(pid).unwrap_or(0);
    // The display's own services share its group; one of them may be on the bus too (GNOME
    // Shell is an app there) and is never the app launched.
    let services: Vec<i32> = launched
        .display
        .as_ref()
        .map(|d| {
            d.children
                .iter()
                .filter_map(|c| i32::try_from(c.id()).ok())
                .collect()
        })
        .unwrap_or_default();
    let mut seen: Vec<i32> = Vec::new();
    let mut alive = || {
        let family = descendants(own);
        seen.extend(
            family
                .iter()
                .filter(|p| !seen.contains(p))
                .collect::<Vec<_>>(),
        );
        let Some(status) = launched.exited() else {
            return Ok(());
        };
        // Exited well, it may have left its app running: a descendant seen before, or (in a
        // group of its own) a detached process of its group.
        let running =
            seen.iter().any(|p| is_alive(*p)) || (own_group && !group_members(pgid).is_empty());
        if status.success() && running {
            Ok(())
        } else {
            Err(format!(
                "{command_line:?} exited ({status}) before it showed a window on the accessibility bus"
            ))
        }
    };
    let family = || -> Vec<u32> {
        let mut pids = vec![own];
        for p in descendants(own).into_iter().chain(group_members(pgid)) {
            if !pids.contains(&p) && !services.contains(&p) {
                pids.push(p);
            }
        }
        pids.into_iter()
            .filter_map(|p| u32::try_from(p).ok())
            .collect()
    };
    let what = format!("started by {command_line:?} (pid {pid} or its descendants)");
    bus.wait_with(&what, timeout, &mut alive, |bus| bus.find_among(&family()))
}
