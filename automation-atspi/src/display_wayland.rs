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
    crate::display::missing_of(&[
        ("mutter", "mutter (Debian: mutter)"),
        ("pipewire", "pipewire (Debian: pipewire)"),
        ("wireplumber", "wireplumber (Debian: wireplumber)"),
    ])
}

impl VirtualDisplay {
    /// Whether this display is a Wayland compositor's (its name is a Wayland socket's).
    pub fn is_wayland(&self) -> bool {
        self.display.starts_with("wayland")
    }

    /// Starts a private headless Mutter with a [`MONITOR`]-sized virtual monitor, its session
    /// bus, the accessibility bus, PipeWire and WirePlumber.
    pub fn start_wayland() -> Result<Self, String> {
        let missing = missing_tools();
        if !missing.is_empty() {
            return Err(format!(
                "--virtual-display wayland needs {}; install them (as root: apt-get install -y \
                 mutter pipewire wireplumber dbus at-spi2-core)",
                missing.join(", ")
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
        match vd.start_compositor() {
            Ok(()) => Ok(vd),
            Err(e) => {
                vd.stop();
                Err(e)
            }
        }
    }

    fn start_compositor(&mut self) -> Result<(), String> {
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
        let mutter = plain(
            "mutter",
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
        self.spawn(mutter)?;
        self.start_accessibility_bus()?;
        let wayland_socket = runtime.join(&self.display);
        wait_until("mutter's Wayland socket", || wayland_socket.exists())?;
        let addr = self.session_address.clone();
        let mut last = String::new();
        wait_until("mutter's remote-desktop and screen-cast services", || {
            compositor_up(&addr, &mut last)
        })
        .map_err(|e| format!("{e}: {last}"))?;
        crate::display::accessibility_bus_up(&addr)
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
