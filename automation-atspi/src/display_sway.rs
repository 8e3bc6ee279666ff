//! [`VirtualDisplay::start_sway`]: a private headless sway (wlroots) in place of Xvfb, with its
//! session bus and accessibility bus.
//!
//! The same lifetime rules as the other displays: every process in the display's one process
//! group and every socket in its private directory. sway needs no PipeWire: its pixels come
//! through wlroots' screencopy protocol. sway refuses to run as root (it checks that it could
//! not regain root), so as root it runs as `nobody`, in a runtime directory of that user's.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::display::{MONITOR, VirtualDisplay, private_dir, wait_until};

/// The user sway runs as when the kit is root: `nobody`.
const NOBODY: u32 = 65534;

/// What a sway virtual display needs that is missing on this machine, if anything.
pub fn missing_tools() -> Vec<&'static str> {
    crate::display::missing_of(&[("sway", "sway (Debian: sway)")])
}

/// sway's configuration for a private session: one output of [`MONITOR`]'s size, no borders
/// (a window's content is its tile), no Xwayland, and no key repeat (a key's press and release
/// are two requests; a loaded machine may hold them apart longer than the repeat delay).
fn config() -> String {
    format!(
        "xwayland disable\n\
         default_border none\n\
         default_floating_border none\n\
         output * resolution {}x{} position 0 0\n\
         input type:keyboard repeat_rate 0\n",
        MONITOR.0, MONITOR.1
    )
}

/// sway's IPC socket in runtime directory `runtime`, once it is there.
pub fn ipc_socket(runtime: &Path) -> Option<PathBuf> {
    std::fs::read_dir(runtime).ok()?.flatten().find_map(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        (name.starts_with("sway-ipc.") && name.ends_with(".sock")).then(|| e.path())
    })
}

/// The Wayland socket's name in runtime directory `runtime`, once it is there.
fn wayland_socket(runtime: &Path) -> Option<String> {
    std::fs::read_dir(runtime).ok()?.flatten().find_map(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        (name.starts_with("wayland-") && !name.ends_with(".lock")).then_some(name)
    })
}

impl VirtualDisplay {
    /// Starts a private headless sway with a [`MONITOR`]-sized output, its session bus and the
    /// accessibility bus. Apps started on it get `SWAYSOCK`, and the kit drives them through
    /// sway (see [`crate::sway`]).
    pub fn start_sway() -> Result<Self, String> {
        let missing = missing_tools();
        if !missing.is_empty() {
            return Err(format!(
                "a sway session needs {}; install them (as root: apt-get install -y sway dbus \
                 at-spi2-core)",
                missing.join(", ")
            ));
        }
        let dir = private_dir()?;
        crate::cleanup::add_dir(&dir);
        let mut vd = Self {
            // Named once sway has made its socket.
            display: "wayland-".to_string(),
            session_address: String::new(),
            dir,
            pgid: 0,
            screen: MONITOR,
            children: Vec::new(),
        };
        match vd.start_sway_compositor() {
            Ok(()) => Ok(vd),
            Err(e) => {
                vd.stop();
                Err(e)
            }
        }
    }

    fn start_sway_compositor(&mut self) -> Result<(), String> {
        let runtime = self.runtime_dir();
        {
            use std::os::unix::fs::DirBuilderExt as _;
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(&runtime)
                .map_err(|e| format!("cannot create {}: {e}", runtime.display()))?;
        }
        let config_file = self.dir.join("sway-config");
        std::fs::write(&config_file, config())
            .map_err(|e| format!("cannot write {}: {e}", config_file.display()))?;
        // SAFETY: getuid cannot fail.
        let root = unsafe { libc::getuid() } == 0;
        if root {
            use std::os::unix::fs::PermissionsExt as _;
            std::os::unix::fs::chown(&runtime, Some(NOBODY), Some(NOBODY))
                .map_err(|e| format!("cannot give {} to nobody: {e}", runtime.display()))?;
            // nobody passes through the private directory to its runtime directory and the
            // configuration, and lists nothing there.
            std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o711))
                .map_err(|e| format!("cannot open {} to nobody: {e}", self.dir.display()))?;
            std::fs::set_permissions(&config_file, std::fs::Permissions::from_mode(0o644))
                .map_err(|e| format!("cannot open {} to nobody: {e}", config_file.display()))?;
        }
        self.start_session_bus(&runtime, |bus| {
            bus.env_remove("DISPLAY");
        })?;
        let mut sway = Command::new("sway");
        sway.arg("--config")
            .arg(&config_file)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("HOME", &runtime)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.session_address)
            .env("WLR_BACKENDS", "headless")
            .env("WLR_LIBINPUT_NO_DEVICES", "1")
            .env("WLR_RENDERER", "pixman")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("SWAYSOCK")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if root {
            sway.uid(NOBODY).gid(NOBODY);
        }
        self.spawn(sway)?;
        wait_until("sway's Wayland and IPC sockets", || {
            wayland_socket(&runtime).is_some() && ipc_socket(&runtime).is_some()
        })
        .map_err(|e| {
            if root {
                format!(
                    "{e}: as root, sway runs as nobody, who must be able to reach {} (every \
                     directory above it searchable by others; set TMPDIR to one that is)",
                    runtime.display()
                )
            } else {
                e
            }
        })?;
        self.display = wayland_socket(&runtime).unwrap_or_default();
        self.start_accessibility_bus()?;
        crate::display::accessibility_bus_up(&self.session_address)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_sizes_the_output_and_turns_key_repeat_off() {
        let c = config();
        assert!(c.contains("output * resolution 1600x1000"), "{c}");
        assert!(c.contains("repeat_rate 0"), "{c}");
        assert!(c.contains("xwayland disable"), "{c}");
    }
}
