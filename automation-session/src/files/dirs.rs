//! Private directories, vetted like the bridge's descriptor directory and marked as ours.
//!
//! - The **records root** (`--records DIR`, or the user's data directory) is created 0700 or
//!   vetted by automation-wire's [`ensure_private_dir`](fsguard::ensure_private_dir): a
//!   symlink, something not a directory, or a directory another user owns is refused; group
//!   or world access is taken away. Each execution's directory in it is made fresh (0700) and
//!   carries our [`MARKER`] file.
//! - The **runtime directory** holds each run's private directory (the script's work files,
//!   its event pipe, its bridge socket): `$XDG_RUNTIME_DIR` when it is ours and private, else
//!   this user's own `<temp>/automation-<uid>` (automation-wire's `per_user_temp_dir`), else —
//!   when another user made that one first — a fresh directory of our own. Never a directory
//!   users share, so nobody can block anybody.
//! - A **sweep** removes only a directory that is a real directory we own holding our marker
//!   (a regular file we own): the records' 7-day sweep, and at start the run directories whose
//!   process is gone.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use automation_wire::fsguard::{self, DirError, euid};

use super::{FileError, PRIVATE_FILE, write_new};

/// The file that marks a directory as made by this kit (by which process, and what for).
pub const MARKER: &str = ".automation";

/// The name prefix of a run's directory in the runtime directory.
pub const RUN_DIR_PREFIX: &str = "automation-run-";

fn unsafe_dir(e: DirError) -> FileError {
    let path = match &e {
        DirError::Symlink(p) | DirError::NotADirectory(p) | DirError::SharedParent(p) => p.clone(),
        DirError::ForeignOwner { path, .. } | DirError::Io { path, .. } => path.clone(),
    };
    match e {
        DirError::Io { path, source } => FileError::Io {
            path,
            doing: "create the directory",
            source,
        },
        other => FileError::Unsafe {
            path,
            why: other.to_string(),
        },
    }
}

/// Creates `root` (and its parents) or vets it: see the module doc.
pub fn private_root(root: &Path) -> Result<(), FileError> {
    if let Some(parent) = root.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| FileError::Io {
            path: parent.to_path_buf(),
            doing: "create the directory",
            source,
        })?;
    }
    fsguard::ensure_private_dir(root).map_err(unsafe_dir)
}

/// What our marker says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// What the directory is for (`execution`, `run`).
    pub what: String,
    /// The process that made it.
    pub pid: u32,
    /// That process's start time (`/proc/<pid>/stat` field 22), 0 when unknown.
    pub start: u64,
}

impl Marker {
    fn current(what: &str) -> Self {
        let pid = std::process::id();
        Self {
            what: what.to_string(),
            pid,
            start: start_time(pid).unwrap_or(0),
        }
    }

    fn to_text(&self) -> String {
        format!(
            "automation {}\npid {}\nstart {}\n",
            self.what, self.pid, self.start
        )
    }

    fn parse(text: &str) -> Option<Self> {
        let mut lines = text.lines();
        let what = lines.next()?.strip_prefix("automation ")?.to_string();
        let pid = lines.next()?.strip_prefix("pid ")?.parse().ok()?;
        let start = lines.next()?.strip_prefix("start ")?.parse().ok()?;
        Some(Self { what, pid, start })
    }

    /// Whether the process that made the directory has ended (its pid is gone, or is now
    /// another process's).
    pub fn maker_gone(&self) -> bool {
        match start_time(self.pid) {
            None => true,
            Some(now) => self.start != 0 && now != self.start,
        }
    }
}

/// A process's start time in clock ticks since boot (`/proc/<pid>/stat` field 22), or `None`
/// when there is no such process (or it is a zombie).
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command (which may hold spaces or parentheses) start after the last ')'.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // rest[0] is field 3 (the state).
    if fields.first() == Some(&"Z") {
        return None;
    }
    fields.get(19)?.parse().ok()
}

/// Makes `dir` afresh (mkdir 0700: it must not exist) and marks it as ours, made for `what`.
pub fn create_marked(dir: &Path, what: &str) -> Result<(), FileError> {
    let mut b = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir).map_err(|source| FileError::Io {
        path: dir.to_path_buf(),
        doing: "create the directory",
        source,
    })?;
    let written = write_new(
        &dir.join(MARKER),
        Marker::current(what).to_text().as_bytes(),
        PRIVATE_FILE,
    );
    if written.is_err() {
        let _ = std::fs::remove_dir_all(dir);
    }
    written
}

/// The marker of `dir` when `dir` is ours: a real directory (not a symlink) we own, holding
/// our marker, a regular file we own. Anything else is `None` and must be left alone.
pub fn ours(dir: &Path) -> Option<Marker> {
    let owned = |m: &std::fs::Metadata| {
        #[cfg(unix)]
        {
            std::os::unix::fs::MetadataExt::uid(m) == euid()
        }
        #[cfg(not(unix))]
        {
            let _ = m;
            true
        }
    };
    let meta = std::fs::symlink_metadata(dir).ok()?;
    if !meta.is_dir() || !owned(&meta) {
        return None;
    }
    let marker = dir.join(MARKER);
    let mmeta = std::fs::symlink_metadata(&marker).ok()?;
    if !mmeta.is_file() || !owned(&mmeta) {
        return None;
    }
    let text = fsguard::read_regular(&marker, 4096, fsguard::Follow::No).ok()?;
    Marker::parse(std::str::from_utf8(&text).ok()?)
}

/// Removes the directories of `root` named by `matches` that are [`ours`] and for which
/// `remove` says so; returns how many were removed.
pub fn sweep(
    root: &Path,
    matches: impl Fn(&str) -> bool,
    remove: impl Fn(&Marker, &std::fs::Metadata) -> bool,
) -> usize {
    let Ok(entries) = std::fs::read_dir(root) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        if !name.to_str().is_some_and(&matches) {
            continue;
        }
        let path = e.path();
        let (Some(marker), Ok(meta)) = (ours(&path), std::fs::symlink_metadata(&path)) else {
            continue;
        };
        if remove(&marker, &meta) && std::fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Whether `dir` may hold our run directories as it is: a real directory we own that no one
/// else can write to.
fn private_as_is(dir: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.is_dir() && meta.uid() == euid() && meta.mode() & 0o022 == 0
    }
    #[cfg(not(unix))]
    {
        meta.is_dir()
    }
}

fn choose_runtime_dir() -> Result<PathBuf, FileError> {
    if let Some(xdg) = std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        && xdg.is_absolute()
        && private_as_is(&xdg)
    {
        return Ok(xdg);
    }
    let own = fsguard::per_user_temp_dir();
    match fsguard::ready_base_dir(&own) {
        Ok(()) => Ok(own),
        Err(e) => {
            // Someone else made it first (or planted a link): a fresh one of ours, removed
            // by the watchdog when this process ends.
            tracing::warn!("{e}; using a fresh private directory instead");
            let fresh = tempfile::Builder::new()
                .prefix(&format!("automation-{}-", euid()))
                .tempdir()
                .map_err(|source| FileError::Io {
                    path: std::env::temp_dir(),
                    doing: "create a private directory in",
                    source,
                })?
                .keep();
            crate::watchdog::watch_dir(&fresh);
            Ok(fresh)
        }
    }
}

/// The runtime directory (see the module doc). Chosen once per process; the first call also
/// sweeps the run directories whose process has ended.
pub fn runtime_dir() -> Result<PathBuf, FileError> {
    static CHOSEN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    CHOSEN
        .get_or_init(|| {
            let dir = choose_runtime_dir().map_err(|e| e.to_string())?;
            let swept = sweep(
                &dir,
                |n| n.starts_with(RUN_DIR_PREFIX),
                |m, _| m.what == "run" && m.maker_gone(),
            );
            if swept > 0 {
                tracing::info!("removed {swept} run directories left by ended processes");
            }
            Ok(dir)
        })
        .clone()
        .map_err(|why| FileError::Unsafe {
            path: std::env::temp_dir(),
            why: format!("no private runtime directory: {why}"),
        })
}

/// One run's private directory in the [`runtime_dir`]: marked, watched (the watchdog removes
/// it should this process die), removed when dropped.
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
}

impl RunDir {
    /// A fresh run directory for execution `id`, named by its first 12 hex digits: the
    /// bridge's socket lives three levels below, and a socket path has 100 bytes at most.
    pub fn create(id: &str) -> Result<Self, FileError> {
        let short: String = id
            .chars()
            .filter(char::is_ascii_hexdigit)
            .take(12)
            .collect();
        let path = runtime_dir()?.join(format!("{RUN_DIR_PREFIX}{short}"));
        create_marked(&path, "run")?;
        crate::watchdog::watch_dir(&path);
        Ok(Self { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        crate::watchdog::unwatch_dir(&self.path);
    }
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_marked_dir_is_private_ours_and_swept_only_when_its_maker_is_gone() {
        let root = tempfile::tempdir().unwrap();
        let mine = root.path().join(format!("{RUN_DIR_PREFIX}a"));
        create_marked(&mine, "run").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&mine), 0o700);
        assert_eq!(mode(&mine.join(MARKER)), 0o600);
        let m = ours(&mine).unwrap();
        assert_eq!((m.what.as_str(), m.pid), ("run", std::process::id()));
        assert!(!m.maker_gone());
        // A dead maker: pid 0 has no /proc entry of its own.
        let dead = root.path().join(format!("{RUN_DIR_PREFIX}b"));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(
            dead.join(MARKER),
            "automation run\npid 999999999\nstart 1\n",
        )
        .unwrap();
        // Unmarked, and a symlink to a marked one: never touched.
        let unmarked = root.path().join(format!("{RUN_DIR_PREFIX}c"));
        std::fs::create_dir(&unmarked).unwrap();
        let link = root.path().join(format!("{RUN_DIR_PREFIX}d"));
        std::os::unix::fs::symlink(&dead, &link).unwrap();
        let n = sweep(
            root.path(),
            |n| n.starts_with(RUN_DIR_PREFIX),
            |m, _| m.maker_gone(),
        );
        assert_eq!(n, 1);
        assert!(mine.exists() && unmarked.exists() && !dead.exists());
        assert!(std::fs::symlink_metadata(&link).is_ok());
    }

    #[test]
    fn a_records_root_that_is_a_link_or_shared_is_refused_or_tightened() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("a/b/records");
        private_root(&root).unwrap();
        assert_eq!(
            std::fs::metadata(&root).unwrap().permissions().mode() & 0o777,
            0o700
        );
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
        private_root(&root).unwrap();
        assert_eq!(
            std::fs::metadata(&root).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&root, &link).unwrap();
        assert_eq!(
            private_root(&link).unwrap_err().code().as_str(),
            "UNSAFE_PATH"
        );
    }

    #[test]
    fn start_time_names_live_processes_only() {
        assert!(start_time(std::process::id()).is_some());
        assert!(start_time(999_999_999).is_none());
    }
}
