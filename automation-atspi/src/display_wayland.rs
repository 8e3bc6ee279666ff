//! [`VirtualDisplay::start_wayland`]: a private headless GNOME compositor (Mutter) in place of
//! Xvfb, with its session bus, accessibility bus, PipeWire and WirePlumber.
//!
//! The same lifetime rules as Xvfb's: every process is in the display's one process group and
//! every socket in its private directory, both listed with [`crate::cleanup`] while they
//! live, so exit, a signal, and (through the CLI's watchdog) SIGKILL end them all. Mutter
//! needs PipeWire for its screen-cast streams (the pointer's coordinates); WirePlumber is
//! PipeWire's session manager, as GTK's own headless tests run it.

use std::process::{Command, Stdio};

use futures_lite::future::block_on;

use crate::display::{APP_ENV, VirtualDisplay, private_dir, wait_until};
use crate::shell::SHELL;

/// The Wayland socket's name in the display's private runtime directory.
pub const SOCKET: &str = "wayland-0";

pub use crate::display::MONITOR;

/// What an app needs on this session beyond [`APP_ENV`]: the Wayland backend of each toolkit.
pub const WAYLAND_APP_ENV: &[(&str, &str)] = &[
    ("GDK_BACKEND", "wayland"),
    ("QT_QPA_PLATFORM", "wayland"),
    // Qt 5 draws its own title bar and borders on Wayland (a maximized window's content is
    // then 6x33 px short of the monitor, at an offset Qt does not tell): without them a
    // maximized Qt window fills the monitor as GTK's does, and the pointer can reach it.
    ("QT_WAYLAND_DISABLE_WINDOWDECORATION", "1"),
    ("WINIT_UNIX_BACKEND", "wayland"),
    ("XDG_SESSION_TYPE", "wayland"),
];

/// What a Wayland virtual display needs that is missing on this machine, if anything.
pub fn missing_tools() -> Vec<&'static str> {
    Gnome::Mutter.missing_tools()
}

/// Which GNOME compositor a private Wayland session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gnome {
    /// Bare Mutter: no panel, no overview; a maximized window fills the monitor.
    Mutter,
    /// GNOME Shell on Mutter: the top bar, the overview, the shell's D-Bus services.
    Shell,
}

impl Gnome {
    /// The compositor's program.
    pub fn program(self) -> &'static str {
        match self {
            Self::Mutter => "mutter",
            Self::Shell => "gnome-shell",
        }
    }

    /// What a session with this compositor needs that is missing here, if anything.
    pub fn missing_tools(self) -> Vec<&'static str> {
        crate::display::missing_of(&[
            match self {
                Self::Mutter => ("mutter", "mutter (Debian: mutter)"),
                Self::Shell => ("gnome-shell", "gnome-shell (Debian: gnome-shell)"),
            },
            ("pipewire", "pipewire (Debian: pipewire)"),
            ("wireplumber", "wireplumber (Debian: wireplumber)"),
        ])
    }
}

impl VirtualDisplay {
    /// Whether this display is a Wayland compositor's (its name is a Wayland socket's).
    pub fn is_wayland(&self) -> bool {
        self.display.starts_with("wayland")
    }

    /// Starts a private headless Mutter with a [`MONITOR`]-sized virtual monitor, its session
    /// bus, the accessibility bus, PipeWire and WirePlumber.
    pub fn start_wayland() -> Result<Self, String> {
        Self::start_gnome(Gnome::Mutter)
    }

    /// Starts a private headless GNOME Shell (Mutter with GNOME's top bar, overview and
    /// D-Bus services) the way [`VirtualDisplay::start_wayland`] starts bare Mutter: the
    /// nearest a test gets to a person's GNOME desktop. The overview GNOME Shell opens at
    /// startup (it holds the keyboard and covers the windows) is closed before this returns.
    pub fn start_gnome_shell() -> Result<Self, String> {
        Self::start_gnome(Gnome::Shell)
    }

    fn start_gnome(gnome: Gnome) -> Result<Self, String> {
        let missing = gnome.missing_tools();
        if !missing.is_empty() {
            return Err(format!(
                "--virtual-display wayland needs {}; install them (as root: apt-get install -y \
                 {} pipewire wireplumber dbus at-spi2-core)",
                missing.join(", "),
                gnome.program()
            ));
        }
        let dir = private_dir()?;
        crate::cleanup::add_dir(&dir);
        let mut vd = Self {
            display: SOCKET.to_string(),
            session_address: String::new(),
            dir,
            pgid: 0,
            screen: MONITOR,
            children: Vec::new(),
        };
        match vd.start_compositor(gnome) {
            Ok(()) => Ok(vd),
            Err(e) => {
                vd.stop();
                Err(e)
            }
        }
    }

    fn start_compositor(&mut self, gnome: Gnome) -> Result<(), String> {
        let runtime = self.dir.join("runtime");
        {
            use std::os::unix::fs::DirBuilderExt as _;
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(&runtime)
                .map_err(|e| format!("cannot create {}: {e}", runtime.display()))?;
        }
        let config = self.dir.join("config");
        write_settings(&config)?;
        let display = self.display.clone();
        self.start_session_bus(&runtime, |bus| {
            bus.env("WAYLAND_DISPLAY", &display).env_remove("DISPLAY");
        })?;
        let plain = |program: &str, args: &[&str], vd: &Self| {
            let mut c = Command::new(program);
            c.args(args)
                .env("XDG_RUNTIME_DIR", &runtime)
                .env("DBUS_SESSION_BUS_ADDRESS", &vd.session_address)
                .env("GSETTINGS_BACKEND", "keyfile")
                .env("XDG_CONFIG_HOME", &config)
                .env_remove("DISPLAY")
                .env_remove("WAYLAND_DISPLAY")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            c
        };
        let pipewire = plain("pipewire", &[], self);
        self.spawn(pipewire)?;
        wait_until("pipewire's socket", || runtime.join("pipewire-0").exists())?;
        let wireplumber = plain("wireplumber", &[], self);
        self.spawn(wireplumber)?;
        let size = format!("{}x{}", self.screen.0, self.screen.1);
        let mut compositor = plain(
            gnome.program(),
            &[
                "--headless",
                "--wayland",
                "--no-x11",
                "--virtual-monitor",
                &size,
                "--wayland-display",
                &self.display,
            ],
            self,
        );
        if gnome == Gnome::Shell
            && let Some(system_bus) = self.private_system_bus(&runtime)?
        {
            compositor.env("DBUS_SYSTEM_BUS_ADDRESS", system_bus);
        }
        self.spawn(compositor)?;
        self.start_accessibility_bus()?;
        let wayland_socket = runtime.join(&self.display);
        wait_until("mutter's Wayland socket", || wayland_socket.exists())?;
        let addr = self.session_address.clone();
        let mut last = String::new();
        wait_until("mutter's remote-desktop and screen-cast services", || {
            compositor_up(&addr, &mut last)
        })
        .map_err(|e| format!("{e}: {last}"))?;
        if gnome == Gnome::Shell {
            wait_until("GNOME Shell's D-Bus service", || {
                block_on(async {
                    match crate::dbus::connect(&addr).await {
                        Ok(c) => crate::dbus::has_owner(&c, SHELL).await,
                        Err(_) => false,
                    }
                })
            })?;
            close_overview(&addr)?;
        }
        crate::display::accessibility_bus_up(&addr)
    }

    /// GNOME Shell asks logind on the system bus for its seat when `/run/systemd/seats`
    /// exists, and exits at startup when there is no system bus to ask ("Could not connect",
    /// in a container). An empty private bus in its place is enough: logind is not on it, and
    /// the shell goes on without it. `None`: the machine's own system bus is there.
    fn private_system_bus(&mut self, runtime: &std::path::Path) -> Result<Option<String>, String> {
        if !std::path::Path::new("/run/systemd/seats").exists()
            || std::path::Path::new("/run/dbus/system_bus_socket").exists()
        {
            return Ok(None);
        }
        let socket = self.dir.join("system-bus");
        let mut bus = Command::new("dbus-daemon");
        bus.args(["--session", "--nofork"])
            .arg(format!("--address=unix:path={}", socket.display()))
            .env("XDG_RUNTIME_DIR", runtime)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        self.spawn(bus)?;
        wait_until("the private system bus", || socket.exists())?;
        Ok(Some(format!("unix:path={}", socket.display())))
    }

    /// [`VirtualDisplay::env_into`] for a Wayland display.
    pub(crate) fn wayland_env_into(&self, cmd: &mut Command) {
        cmd.env("WAYLAND_DISPLAY", &self.display)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.session_address)
            .env("XDG_RUNTIME_DIR", self.dir.join("runtime"))
            .env_remove("DISPLAY")
            .env_remove("AT_SPI_BUS_ADDRESS");
        // The kit drives sway's clients through sway (its IPC), Mutter's through Mutter: an
        // app on a private Mutter must not inherit the kit's own sway session.
        match crate::display_sway::ipc_socket(&self.runtime_dir()) {
            Some(ipc) => cmd.env("SWAYSOCK", ipc),
            None => cmd.env_remove("SWAYSOCK"),
        };
        for (k, v) in APP_ENV.iter().chain(WAYLAND_APP_ENV) {
            cmd.env(k, v);
        }
        if self.pgid != 0 {
            std::os::unix::process::CommandExt::process_group(cmd, self.pgid);
        }
    }

    /// The private runtime directory (the Wayland socket's, PipeWire's, the buses').
    pub fn runtime_dir(&self) -> std::path::PathBuf {
        self.dir.join("runtime")
    }
}

/// The compositor's settings, apart from the user's (GLib's keyfile backend under `config`):
/// GNOME's defaults, but no key repeat. A key's press and release are two D-Bus calls; when a
/// loaded machine holds them more than the repeat delay (500 ms) apart, the app repeats the
/// key ("abc" became "abcc" in CI). Nobody holds a key down in a private session, so a key
/// typed there is typed once.
fn write_settings(config: &std::path::Path) -> Result<(), String> {
    let dir = config.join("glib-2.0").join("settings");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let file = dir.join("keyfile");
    std::fs::write(
        &file,
        "[org/gnome/desktop/peripherals/keyboard]\nrepeat=false\n",
    )
    .map_err(|e| format!("cannot write {}: {e}", file.display()))
}

/// Whether Mutter's remote-desktop and screen-cast services answer on the bus at `address`.
fn compositor_up(address: &str, last: &mut String) -> bool {
    block_on(async {
        let conn = match crate::dbus::connect(address).await {
            Ok(c) => c,
            Err(e) => {
                *last = e.to_string();
                return false;
            }
        };
        let up = crate::dbus::has_owner(&conn, crate::mutter::REMOTE_DESKTOP).await
            && crate::dbus::has_owner(&conn, crate::mutter::SCREEN_CAST).await;
        if !up {
            *last = "not on the session bus yet".into();
        }
        up
    })
}

/// Closes the overview GNOME Shell opens at startup: a window opened under it is covered and
/// gets no keys (they go to its search). The shell opens it once its services are up and
/// runs an animation (GNOME 43); closed before that ends, it stays open. So: wait until it
/// is open (at most 10 s: a shell that opens none goes on), let the animation run, then
/// close it until it reads closed twice 500 ms apart. `OverviewActive` is writable by any
/// caller on the session bus.
fn close_overview(address: &str) -> Result<(), String> {
    block_on(async {
        let conn = crate::dbus::connect(address)
            .await
            .map_err(|e| e.to_string())?;
        let props = zbus::fdo::PropertiesProxy::builder(&conn)
            .destination(SHELL)
            .and_then(|b| b.path("/org/gnome/Shell"))
            .map_err(|e| e.to_string())?
            .build()
            .await
            .map_err(|e| e.to_string())?;
        let iface = zbus::names::InterfaceName::from_static_str_unchecked(SHELL);
        let open = || async {
            props
                .get(iface.clone(), "OverviewActive")
                .await
                .ok()
                .and_then(|v| bool::try_from(&*v).ok())
        };
        let opened_by = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while open().await != Some(true) && std::time::Instant::now() < opened_by {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
        let deadline = std::time::Instant::now() + crate::display::START_TIMEOUT;
        let mut closed_in_a_row = 0;
        while closed_in_a_row < 2 {
            if std::time::Instant::now() > deadline {
                return Err("GNOME Shell's overview stayed open".to_string());
            }
            if open().await == Some(false) {
                closed_in_a_row += 1;
            } else {
                closed_in_a_row = 0;
                let _ = props
                    .set(
                        iface.clone(),
                        "OverviewActive",
                        zbus::zvariant::Value::from(false),
                    )
                    .await;
            }
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        Ok(())
    })
}
