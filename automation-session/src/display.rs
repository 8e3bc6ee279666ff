//! The kinds of private display a launch may ask for (the mode's, the launcher's and the
//! HTTP sessions' one vocabulary; `automation-atspi` starts them).

/// The kind of private display `--launch … --virtual-display` starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DisplayKind {
    /// The kind `AUTOMATION_VIRTUAL_DISPLAY` names (`x11`, `wayland`, `gnome-shell` or
    /// `sway`), else X11.
    #[default]
    FromEnvironment,
    /// Xvfb.
    X11,
    /// A headless GNOME compositor (mutter), with PipeWire and the buses.
    Wayland,
    /// A headless GNOME Shell (mutter with GNOME's top bar and overview), with PipeWire and
    /// the buses.
    GnomeShell,
    /// A headless sway (wlroots), with the buses.
    Sway,
}

impl std::str::FromStr for DisplayKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "x11" | "xvfb" => Ok(Self::X11),
            "wayland" | "mutter" => Ok(Self::Wayland),
            "gnome-shell" => Ok(Self::GnomeShell),
            "sway" => Ok(Self::Sway),
            _ => Err(format!(
                "{s:?} is no kind of virtual display: pass x11 (Xvfb), wayland (a headless GNOME compositor), gnome-shell (a headless GNOME Shell) or sway (a headless sway)"
            )),
        }
    }
}
