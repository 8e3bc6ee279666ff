//! `--launch`, `--atspi` and `--virtual-display`: any desktop app over AT-SPI.
//!
//! The app (and the private display, with `--virtual-display`) is started while the mode
//! resolves, before anything is served, so a launch that fails exits 1 at once. The launched
//! process is held here until [`shutdown`], which the CLI's `app` calls when the server or
//! the `op` verb ends: the app is ended, then Xvfb and both buses, and the private directory
//! removed.
//! The app's output goes to our stderr line by line (stdout is the MCP channel), its last
//! few KiB kept for the reply of an op whose effect is the app exiting, and its exit is
//! logged as `automation: the app exited: <status>` (not when we ended it ourselves). A
//! SIGTERM, SIGINT or SIGHUP ends them the same way ([`automation_atspi::cleanup`]), then the process dies by it; and
//! every process group and directory the launch makes is also given to the
//! [`watchdog`](crate::watchdog) the moment it exists, so a SIGKILL ends them too.

use std::io::Write as _;
use std::sync::{Arc, Mutex};

pub use automation_atspi::Launched;
use automation_atspi::exit::ExitWatch;
use automation_atspi::{AppSelector, AtspiTarget, Bus, Output, VirtualDisplay};
use automation_core::{Cancel, Reply, Request, Session};

use crate::backend::{Backend, BackendFactory, Resolved};
use crate::display::DisplayKind;
use crate::error::SessionError;

/// The launched app, until [`shutdown`].
static LAUNCHED: Mutex<Option<Launched>> = Mutex::new(None);

/// An AT-SPI app as a backend.
pub struct AtspiBackend {
    session: Session<AtspiTarget>,
}

impl Backend for AtspiBackend {
    fn serve(&mut self, request: &Request) -> Reply {
        automation_atspi::serve(&mut self.session, request)
    }

    fn serve_cancellable(&mut self, request: &Request, cancel: &Cancel) -> Reply {
        self.session.cancel = cancel.clone();
        let reply = automation_atspi::serve(&mut self.session, request);
        self.session.cancel = Cancel::new();
        reply
    }
}

fn factory(target: AtspiTarget) -> BackendFactory {
    Box::new(move || {
        Ok(Box::new(AtspiBackend {
            session: Session::new(target),
        }) as Box<dyn Backend>)
    })
}

/// Logs the app's exit once, when it happens, unless we ended it (the end of a run or a
/// session is no news; an app that died is).
fn watch_exit(exit: Arc<ExitWatch>) {
    let _ = std::thread::Builder::new()
        .name("automation-app-exit-log".into())
        .spawn(move || {
            let status = exit.wait_forever();
            // After the last of its output (still in the pipes at the exit) is copied.
            let _ = exit.app_exit(automation_atspi::target::OUTPUT_GRACE);
            // Ended by us: the end of a run or a session, or a signal ending this process
            // (Ctrl-C on `inspect` or `serve`).
            if exit.ended_by_owner() || automation_atspi::cleanup::ending() {
                return;
            }
            let _ = writeln!(
                std::io::stderr().lock(),
                "automation: the app exited: {status}"
            );
        });
}

/// `--launch CMD [--virtual-display]`. SIGTERM, SIGINT or SIGHUP from here on end the app
/// and the display before the process dies by the signal (start-up included).
pub fn launch(
    command: &str,
    virtual_display: Option<DisplayKind>,
) -> Result<Resolved, SessionError> {
    let (resolved, launched) = launch_owned(command, virtual_display)?;
    *LAUNCHED.lock().unwrap_or_else(|e| e.into_inner()) = Some(launched);
    Ok(resolved)
}

/// [`launch`], the launched app (and its display) handed to the caller, who ends it by
/// dropping or stopping it: a session of `automation webdriver` or of MCP over HTTP owns its
/// own. A signal still ends every launch of the process.
pub fn launch_owned(
    command: &str,
    virtual_display: Option<DisplayKind>,
) -> Result<(Resolved, Launched), SessionError> {
    automation_atspi::cleanup::end_on_signal().map_err(SessionError::Atspi)?;
    automation_atspi::cleanup::observe(watch);
    let (target, launched) = if let Some(kind) = virtual_display {
        // A private display is ours to start again: when it, or its accessibility bus, did
        // not come up, or the app never appeared on that bus (a Qt 5 example now and then
        // under load: its one registration attempt met a registry still starting), the
        // second try is a whole new display, buses and app. An app that exited is its own
        // failure and is reported at once.
        match launch_on_new_display(command, kind, FIRST_TRY) {
            Ok(ok) => ok,
            Err((first, true)) => {
                tracing::warn!("{first}; starting {command:?} once more on a new display");
                launch_on_new_display(command, kind, automation_atspi::launch::LAUNCH_TIMEOUT)
                    .map_err(|(second, _)| {
                        SessionError::Atspi(format!("{second} (a first try failed too: {first})"))
                    })?
            }
            Err((first, false)) => return Err(SessionError::Atspi(first)),
        }
    } else {
        automation_atspi::launch(command, None, Output::Tee)
            .map_err(|e| SessionError::Atspi(e.to_string()))?
    };
    let where_ = launched
        .display
        .as_ref()
        .map(|d| format!(" on the virtual display {}", d.display))
        .unwrap_or_default();
    let describe = format!(
        "{} (pid {}) over AT-SPI{where_}",
        target.app().name,
        launched.child.id()
    );
    watch_exit(Arc::clone(&launched.exit));
    Ok((
        Resolved {
            factory: factory(target),
            describe,
        },
        launched,
    ))
}

/// How long a first try on a private display waits for the app on the bus before starting
/// again: a good start registers within a second or two, even LibreOffice within ten; an app
/// whose one registration attempt was lost never will (the second try waits the full 30 s).
const FIRST_TRY: std::time::Duration = std::time::Duration::from_secs(15);

/// `command` on a new private display; the error says whether the environment failed (the
/// display or its buses did not come up, or the app never reached the bus) rather than the app.
fn launch_on_new_display(
    command: &str,
    kind: DisplayKind,
    timeout: std::time::Duration,
) -> Result<(AtspiTarget, Launched), (String, bool)> {
    let kind = match kind {
        DisplayKind::FromEnvironment => automation_atspi::display::Kind::from_environment(),
        DisplayKind::X11 => Ok(automation_atspi::display::Kind::X11),
        DisplayKind::Wayland => Ok(automation_atspi::display::Kind::Wayland),
        DisplayKind::GnomeShell => Ok(automation_atspi::display::Kind::GnomeShell),
        DisplayKind::Sway => Ok(automation_atspi::display::Kind::Sway),
    }
    .map_err(|e| (e, false))?;
    let display = VirtualDisplay::start_kind(kind).map_err(|e| (e, true))?;
    automation_atspi::launch_within(command, Some(display), Output::Tee, timeout).map_err(|e| {
        // Timeout: never on the bus; Ipc: the bus itself failed. An app that exited or could
        // not start is AppGone.
        let environment = matches!(
            e,
            automation_core::TargetError::Timeout { .. } | automation_core::TargetError::Ipc(_)
        );
        (e.to_string(), environment)
    })
}

/// Hands what the launch lists for ending to the watchdog.
fn watch(change: automation_atspi::cleanup::Change<'_>) {
    use automation_atspi::cleanup::Change;
    match change {
        Change::AddGroup(g) => crate::watchdog::watch_group(g),
        Change::RemoveGroup(g) => crate::watchdog::unwatch_group(g),
        Change::AddDir(d) => crate::watchdog::watch_dir(d),
        Change::RemoveDir(d) => crate::watchdog::unwatch_dir(d),
    }
}

/// `--atspi NAME|PID`: a running app on this session's accessibility bus.
pub fn attach(which: &str) -> Result<Resolved, SessionError> {
    let bus = Bus::connect(None).map_err(|e| SessionError::Atspi(e.to_string()))?;
    let target = automation_atspi::attach(&bus, &AppSelector::parse(which), None)
        .map_err(|e| SessionError::Atspi(e.to_string()))?;
    let describe = format!(
        "{} (pid {}) over AT-SPI",
        target.app().name,
        target
            .app()
            .pid
            .map_or_else(|| "?".to_string(), |p| p.to_string())
    );
    Ok(Resolved {
        factory: factory(target),
        describe,
    })
}

/// Ends the launched app and its virtual display, if any (idempotent).
pub fn shutdown() {
    let launched = LAUNCHED.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(mut l) = launched {
        l.stop();
    }
}
