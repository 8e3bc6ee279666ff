//! Shared helpers for the benches.

use std::path::PathBuf;

/// The `automation` binary the process benches drive: `AUTOMATION_BIN`, else the one next to
/// this bench's profile dir (`target/<profile>/deps/<bench>-…` → `target/<profile>/automation`),
/// else `target/release/automation`. `None` when none is built
/// (`cargo build --release -p automation-cli`).
pub fn automation_bin() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("AUTOMATION_BIN") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    let profile_dir = exe.parent()?.parent()?;
    [
        profile_dir.join("automation"),
        profile_dir.parent()?.join("release").join("automation"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}
