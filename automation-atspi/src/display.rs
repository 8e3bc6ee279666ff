//! [`VirtualDisplay`]: a private Xvfb, session bus and accessibility bus, torn down whole.
//!
//! Every process it starts — and every process those start (the registry daemon the
//! accessibility bus activates, the app launched into it) — is in one process group, so
//! teardown signals the group, waits, and kills what is left. Sockets live in one private
//! temporary directory (the session bus socket, and the accessibility bus's, through
//! `XDG_RUNTIME_DIR`), which is removed; Xvfb removes its socket on exit (started with
//! `-displayfd` it takes no lock file: a live server's abstract socket is what refuses it). The
//! group and the directory are listed with [`crate::cleanup`] while they live, so a signal
//! that ends the process ends them too.

use std::io::{BufRead as _, BufReader};
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::process::kill_group;

/// Display numbers tried when none are configured.
pub const DEFAULT_DISPLAYS: std::ops::RangeInclusive<u32> = 100..=199;

/// The variable that narrows the display numbers tried (`90-93`).
pub const DISPLAYS_ENV: &str = "AUTOMATION_VIRTUAL_DISPLAYS";

/// The variable that picks the kind of private display [`VirtualDisplay::start`] starts:
/// `x11` (Xvfb; the default), `wayland` (a headless GNOME compositor, see
/// [`VirtualDisplay::start_wayland`]), `gnome-shell` or `sway`.
pub const KIND_ENV: &str = "AUTOMATION_VIRTUAL_DISPLAY";

/// The kinds of private display [`VirtualDisplay::start_kind`] starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Xvfb.
    X11,
    /// A headless GNOME compositor ([`VirtualDisplay::start_wayland`]).
    Wayland,
    /// A headless GNOME Shell ([`VirtualDisplay::start_gnome_shell`]).
    GnomeShell,
    /// A headless sway ([`VirtualDisplay::start_sway`]).
    Sway,
}

impl Kind {
    /// The kind [`KIND_ENV`] names (X11 when unset); an unknown value is an error naming the
    /// known ones.
    pub fn from_environment() -> Result<Self, String> {
        match std::env::var(KIND_ENV).ok().as_deref().map(str::trim) {
            None | Some("") | Some("x11") | Some("X11") => Ok(Self::X11),
            Some("wayland") | Some("Wayland") | Some("mutter") => Ok(Self::Wayland),
            Some("gnome-shell") => Ok(Self::GnomeShell),
            Some("sway") => Ok(Self::Sway),
            Some(other) => Err(format!(
                "{KIND_ENV}={other:?}: the kinds of virtual display are x11 (Xvfb), wayland \
                 (a headless GNOME compositor), gnome-shell (a headless GNOME Shell) and sway \
                 (a headless sway)"
            )),
        }
    }
}

/// A Wayland virtual display's monitor size: apps' windows are maximized on it on Mutter (see
/// `wayland.rs`).
pub const MONITOR: (u32, u32) = (1600, 1000);

/// The virtual screen's size: larger than the windows apps open (gtk3-widget-factory's is
/// 1366 px wide), since the X server has no pixels for the part of a window off the screen.
pub const SCREEN: (u32, u32) = (2560, 1600);

/// How long each piece may take to come up.
pub const START_TIMEOUT: Duration = Duration::from_secs(15);

/// The environment an app needs to be accessible under this display, whatever its toolkit.
pub const APP_ENV: &[(&str, &str)] = &[
    ("GTK_A11Y", "atspi"),
    ("GSK_RENDERER", "cairo"),
    ("GDK_BACKEND", "x11"),
    ("NO_AT_BRIDGE", "0"),
    ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"),
    ("QT_ACCESSIBILITY", "1"),
    ("QT_QPA_PLATFORM", "xcb"),
    ("GSETTINGS_BACKEND", "memory"),
    ("WINIT_UNIX_BACKEND", "x11"),
];

/// A private X display with its session and accessibility buses.
#[derive(Debug)]
pub struct VirtualDisplay {
    /// `:N`.
    pub display: String,
    /// The session bus address.
    pub session_address: String,
    /// The private directory (sockets, runtime dir).
    pub dir: PathBuf,
    /// The process group every child is in.
    pub pgid: i32,
    /// The screen's size in pixels.
    pub screen: (u32, u32),
    pub(crate) children: Vec<Child>,
}

fn display_range() -> std::ops::RangeInclusive<u32> {
    let Ok(v) = std::env::var(DISPLAYS_ENV) else {
        return DEFAULT_DISPLAYS;
    };
    let mut it = v.split('-').map(|p| p.trim().parse::<u32>());
    match (it.next(), it.next()) {
        (Some(Ok(a)), Some(Ok(b))) if a <= b => a..=b,
        (Some(Ok(a)), None) => a..=a,
        _ => DEFAULT_DISPLAYS,
    }
}

/// The name prefix of a display's private directory in the temp dir.
const DIR_PREFIX: &str = "automation-vd-";

/// A fresh private directory, 0700 from its creation (`mkdir`'s own mode). Directories of
/// this kind left by processes that have ended (killed before they could clean up) are
/// removed first: only ours (owned by our uid, a real directory) whose pid is gone.
pub(crate) fn private_dir() -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt as _;
    let base = std::env::temp_dir();
    sweep_stale(&base);
    for i in 0..100u32 {
        let p = base.join(format!("{DIR_PREFIX}{}-{i}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "cannot create a directory in {}: {e}",
                    base.display()
                ));
            }
        }
    }
    Err("cannot find a free private directory name".into())
}

/// Removes `automation-vd-<pid>-<n>` directories in `base` that we own and whose process is
/// gone.
fn sweep_stale(base: &std::path::Path) {
    use std::os::unix::fs::MetadataExt as _;
    // SAFETY: geteuid has no preconditions.
    #[allow(unsafe_code)]
    let us = unsafe { libc::geteuid() };
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(DIR_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let path = e.path();
        let ours = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == us);
        let gone = !std::path::Path::new(&format!("/proc/{pid}")).exists();
        if ours && gone {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

pub(crate) fn wait_until(what: &str, mut ready: impl FnMut() -> bool) -> Result<(), String> {
    let deadline = Instant::now() + START_TIMEOUT;
    while !ready() {
        if Instant::now() >= deadline {
            return Err(format!(
                "{what} did not come up within {} s",
                START_TIMEOUT.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Waits until the accessibility bus at session `addr` answers and its registry lists apps.
pub(crate) fn accessibility_bus_up(addr: &str) -> Result<(), String> {
    let mut last = String::new();
    wait_until(
        "the accessibility bus and its registry",
        || match crate::bus::Bus::connect(Some(addr)) {
            Ok(bus) => match bus.apps() {
                Ok(_) => true,
                Err(e) => {
                    last = e.to_string();
                    false
                }
            },
            Err(e) => {
                last = e.to_string();
                false
            }
        },
    )
    .map_err(|e| format!("{e}: {last}"))
}

/// The first line `program` prints (empty when it exits first), within `limit`: a server that
/// hangs before it says it is up fails the start instead of holding it forever (the reading
/// thread ends when the server is killed and its pipe closes).
pub(crate) fn first_line(
    out: std::process::ChildStdout,
    program: &str,
    limit: Duration,
) -> Result<String, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(out).read_line(&mut line);
        let _ = tx.send(line);
    });
    rx.recv_timeout(limit)
        .map_err(|_| format!("{program} printed nothing within {} s", limit.as_secs()))
}

/// Which of a display's programs (`(binary, what to install)`), the session bus and the
/// accessibility bus launcher are missing on this machine.
pub(crate) fn missing_of(programs: &[(&str, &'static str)]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = programs
        .iter()
        .chain(&[("dbus-daemon", "dbus-daemon (Debian: dbus)")])
        .filter(|(bin, _)| which(bin).is_none())
        .map(|(_, what)| *what)
        .collect();
    if bus_launcher().is_none() {
        out.push("at-spi-bus-launcher (Debian: at-spi2-core)");
    }
    out
}

pub(crate) fn which(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(program))
            .find(|c| c.is_file())
    })
}

/// Where `at-spi-bus-launcher` lives (it is not on `PATH` on Debian).
pub fn bus_launcher() -> Option<PathBuf> {
    which("at-spi-bus-launcher").or_else(|| {
        [
            "/usr/libexec/at-spi-bus-launcher",
            "/usr/lib/at-spi2-core/at-spi-bus-launcher",
            "/usr/lib/at-spi2/at-spi-bus-launcher",
        ]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
    })
}

/// What a virtual display needs that is missing on this machine, if anything.
pub fn missing_tools() -> Vec<&'static str> {
    missing_of(&[("Xvfb", "Xvfb (Debian: xvfb)")])
}

impl VirtualDisplay {
    /// Starts Xvfb on the first free display number, a session bus and the accessibility
    /// bus, and switches assistive technology on — or, with [`KIND_ENV`]`=wayland`, a
    /// headless GNOME compositor ([`VirtualDisplay::start_wayland`]).
    pub fn start() -> Result<Self, String> {
        Self::start_kind(Kind::from_environment()?)
    }

    /// A private display of `kind`: Xvfb on the first free display number, or a headless
    /// GNOME compositor.
    pub fn start_kind(kind: Kind) -> Result<Self, String> {
        match kind {
            Kind::X11 => Self::start_in(display_range()),
            Kind::Wayland => Self::start_wayland(),
            Kind::GnomeShell => Self::start_gnome_shell(),
            Kind::Sway => Self::start_sway(),
        }
    }

    /// [`VirtualDisplay::start`] on the first free display number in `range`.
    pub fn start_in(range: std::ops::RangeInclusive<u32>) -> Result<Self, String> {
        Self::start_sized(range, SCREEN)
    }

    /// [`VirtualDisplay::start_in`] with a screen of `screen` pixels (width, height).
    pub fn start_sized(
        range: std::ops::RangeInclusive<u32>,
        screen: (u32, u32),
    ) -> Result<Self, String> {
        let missing = missing_tools();
        if !missing.is_empty() {
            return Err(format!(
                "--virtual-display needs {}; install them or run under an existing display",
                missing.join(", ")
            ));
        }
        let dir = private_dir()?;
        crate::cleanup::add_dir(&dir);
        let mut vd = Self {
            display: String::new(),
            session_address: String::new(),
            dir,
            pgid: 0,
            screen,
            children: Vec::new(),
        };
        match vd.start_all(range) {
            Ok(()) => Ok(vd),
            Err(e) => {
                vd.stop();
                Err(e)
            }
        }
    }

    /// Starts Xvfb on `:n`; `false` when the number is taken.
    fn start_xvfb(&mut self, n: u32) -> Result<bool, String> {
        let mut xvfb = Command::new("Xvfb");
        xvfb.arg(format!(":{n}"))
            .args([
                "-screen",
                "0",
                &format!("{}x{}x24", self.screen.0, self.screen.1),
                "-noreset",
                "-nolisten",
                "tcp",
                "-displayfd",
                "1",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let first = self.pgid == 0;
        let child = self.spawn(xvfb)?;
        let out = child
            .stdout
            .take()
            .ok_or_else(|| "Xvfb gave no stdout".to_string())?;
        let line = first_line(out, "Xvfb", START_TIMEOUT)?;
        if line.trim() == n.to_string() {
            return Ok(true);
        }
        // Taken: reap this Xvfb; the next one leads the group.
        if let Some(mut c) = self.children.pop() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if first {
            crate::cleanup::remove_group(self.pgid);
            self.pgid = 0;
        }
        Ok(false)
    }

    /// Starts the accessibility bus (its launcher, at once) in this display's environment.
    pub(crate) fn start_accessibility_bus(&mut self) -> Result<(), String> {
        let launcher = bus_launcher().ok_or_else(|| "at-spi-bus-launcher not found".to_string())?;
        let mut a11y = Command::new(launcher);
        a11y.args(["--launch-immediately", "--a11y=1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        self.env_into(&mut a11y);
        self.spawn(a11y)?;
        Ok(())
    }

    /// Starts the private session bus on a socket in this display's directory, with
    /// `XDG_RUNTIME_DIR` set to `runtime` and `env` giving the display's own variables (what
    /// the services it activates inherit), and keeps its address.
    pub(crate) fn start_session_bus(
        &mut self,
        runtime: &std::path::Path,
        env: impl FnOnce(&mut Command),
    ) -> Result<(), String> {
        let socket = self.dir.join("session-bus");
        let mut bus = Command::new("dbus-daemon");
        bus.args(["--session", "--nofork", "--print-address=1"])
            .arg(format!("--address=unix:path={}", socket.display()))
            .env("XDG_RUNTIME_DIR", runtime)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        env(&mut bus);
        let child = self.spawn(bus)?;
        let out = child
            .stdout
            .take()
            .ok_or_else(|| "dbus-daemon gave no stdout".to_string())?;
        self.session_address = first_line(out, "dbus-daemon", START_TIMEOUT)?
            .trim()
            .to_string();
        if self.session_address.is_empty() {
            return Err("dbus-daemon printed no address".into());
        }
        Ok(())
    }

    pub(crate) fn spawn(&mut self, mut cmd: Command) -> Result<&mut Child, String> {
        cmd.process_group(self.pgid);
        let name = format!("{:?}", cmd.get_program());
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        if self.pgid == 0 {
            self.pgid = i32::try_from(child.id()).map_err(|e| e.to_string())?;
            crate::cleanup::add_group(self.pgid);
        }
        self.children.push(child);
        self.children
            .last_mut()
            .ok_or_else(|| "no child".to_string())
    }

    fn start_all(&mut self, range: std::ops::RangeInclusive<u32>) -> Result<(), String> {
        // Xvfb takes the display atomically (its lock file) and, with -displayfd, prints the
        // number once it accepts connections, or exits when the number is taken.
        let mut tried = Vec::new();
        for n in range.clone() {
            // A stale lock (its server gone) is Xvfb's to clear; a live one makes it exit.
            tried.push(n);
            if self.start_xvfb(n)? {
                self.display = format!(":{n}");
                break;
            }
        }
        if self.display.is_empty() {
            return Err(format!(
                "no free X display number in {}..={} (tried {tried:?}; set {DISPLAYS_ENV}=A-B)",
                range.start(),
                range.end()
            ));
        }
        let runtime = self.dir.join("runtime");
        std::fs::create_dir(&runtime).map_err(|e| e.to_string())?;
        {
            use std::os::unix::fs::PermissionsExt as _;
            // Qt and GLib insist on an owner-only runtime directory.
            std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| e.to_string())?;
        }
        // A service the bus activates gets the daemon's environment: the accessibility bus
        // launcher, activated by a call that comes before ours owns the name, names its socket
        // after DISPLAY under XDG_RUNTIME_DIR. With the caller's, it took the caller's own
        // accessibility bus socket, and removed it on exit.
        let display = self.display.clone();
        self.start_session_bus(&runtime, |bus| {
            bus.env("DISPLAY", &display).env_remove("WAYLAND_DISPLAY");
        })?;

        self.start_accessibility_bus()?;
        let addr = self.session_address.clone();
        // Up, and its registry answering: the registry starts by D-Bus activation on the
        // first call, and an app whose registration meets a registry still starting may never
        // register (seen with a Qt 5 example under load: never on the bus).
        accessibility_bus_up(&addr)
    }

    /// Puts this display's environment into `cmd` (display, buses, runtime dir, and
    /// [`APP_ENV`]), and `cmd` into the display's process group.
    pub fn env_into(&self, cmd: &mut Command) {
        if self.is_wayland() {
            self.wayland_env_into(cmd);
            return;
        }
        cmd.env("DISPLAY", &self.display)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.session_address)
            .env("XDG_RUNTIME_DIR", self.dir.join("runtime"))
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("AT_SPI_BUS_ADDRESS");
        for (k, v) in APP_ENV {
            cmd.env(k, v);
        }
        if self.pgid != 0 {
            cmd.process_group(self.pgid);
        }
    }

    /// Stops everything: SIGTERM to the group, up to 2 s, then SIGKILL; reaps the children
    /// it started; removes the private directory.
    pub fn stop(&mut self) {
        if self.pgid > 0 {
            kill_group(self.pgid, Duration::from_secs(2));
        }
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        self.children.clear();
        if self.dir.exists() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        crate::cleanup::remove_dir(&self.dir);
        crate::cleanup::remove_group(self.pgid);
        self.pgid = 0;
    }
}

impl Drop for VirtualDisplay {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn piped(script: &str) -> Child {
        Command::new("sh")
            .args(["-c", script])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap()
    }

    #[test]
    fn a_server_that_prints_nothing_in_time_fails_the_start() {
        let mut quiet = piped("sleep 5");
        let out = quiet.stdout.take().unwrap();
        let started = Instant::now();
        let e = first_line(out, "Xvfb", Duration::from_millis(300)).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(2), "{e}");
        assert!(e.contains("Xvfb printed nothing"), "{e}");
        let _ = quiet.kill();
        let _ = quiet.wait();

        let mut says = piped("echo 104; sleep 5");
        let line = first_line(says.stdout.take().unwrap(), "Xvfb", Duration::from_secs(5));
        assert_eq!(line.unwrap(), "104\n");
        let _ = says.kill();
        let _ = says.wait();
        // One that exits first: an empty line (a taken display), not a wait.
        let mut gone = piped("exit 1");
        let line = first_line(gone.stdout.take().unwrap(), "Xvfb", Duration::from_secs(5));
        assert_eq!(line.unwrap(), "");
        let _ = gone.wait();
    }
}
