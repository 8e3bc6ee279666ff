//! The one way this crate opens a file someone else may have put something at: flow files,
//! `execute_sequence`'s `file`, the records, JUnit, `save_to` screenshots and reports.
//!
//! - **Reads** ([`read_text`]): only a regular file, at most a cap (a flow: [`MAX_FLOW_BYTES`]),
//!   through automation-wire's [`read_regular`](automation_wire::fsguard::read_regular) — the
//!   bridge's descriptor reader: an `O_NONBLOCK` open (a FIFO cannot hang it), the type and
//!   size checked with `fstat` on the opened handle before a byte is read, the read bounded
//!   even if the file grows. A FIFO, socket, device or directory is
//!   [`FileError::NotARegularFile`] naming it; `/dev/zero`, `/dev/stdin` or a `*.yaml`
//!   symlink to either costs nothing. The caller checks the extension first. An async caller
//!   runs these on a blocking thread, never on a runtime worker.
//! - **Writes** ([`write_replacing`], [`write_new`]): never through a symlink at the path, never
//!   into a FIFO or device. A report is written to a fresh file in the same directory and
//!   renamed over the old one, so a full disk or a crash leaves the old report whole.
//! - **Directories** ([`dirs`]): private (0700, files 0600), vetted like the bridge's
//!   descriptor directory, marked as ours so a sweep removes only what we made.

pub mod dirs;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use automation_core::ErrorCode;
use automation_wire::fsguard::{self, Follow};
use serde_json::{Value, json};

/// Largest flow file read (a script, or steps in JSON or YAML): 8 MiB.
pub const MAX_FLOW_BYTES: u64 = 8 * 1024 * 1024;

/// Mode of the files of a private directory (records).
pub const PRIVATE_FILE: u32 = 0o600;
/// Mode of a report the user asked for (JUnit), before the umask.
pub const REPORT_FILE: u32 = 0o644;

/// Why a file was not read or written.
#[derive(Debug)]
pub enum FileError {
    /// A FIFO, socket, device, directory — or a symlink where we write — sits at the path.
    NotARegularFile {
        /// The path.
        path: PathBuf,
        /// What it is (`fifo`, `device`, `socket`, `directory`, `symlink`).
        kind: &'static str,
    },
    /// Larger than the cap; not read.
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size (at least `cap + 1`).
        len: u64,
        /// The cap.
        cap: u64,
    },
    /// A directory that is not ours to trust (a symlink, another user's, shared).
    Unsafe {
        /// The directory.
        path: PathBuf,
        /// Why, in a sentence.
        why: String,
    },
    /// Not UTF-8 text.
    NotText {
        /// The path.
        path: PathBuf,
        /// Where the first bad byte is.
        at: usize,
    },
    /// An I/O error.
    Io {
        /// The path.
        path: PathBuf,
        /// What was being done (`read`, `write`, `create`, …).
        doing: &'static str,
        /// The error.
        source: std::io::Error,
    },
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotARegularFile { path, kind } => write!(
                f,
                "{} is a {kind}, not a regular file; it was not opened",
                path.display()
            ),
            Self::TooLarge { path, len, cap } => write!(
                f,
                "{} is {len} bytes, over the {cap}-byte cap; it was not read",
                path.display()
            ),
            Self::Unsafe { path, why } => write!(f, "{}: {why}", path.display()),
            Self::NotText { path, at } => write!(
                f,
                "{} is not UTF-8 text (invalid byte at offset {at})",
                path.display()
            ),
            Self::Io {
                path,
                doing,
                source,
            } => write!(f, "cannot {doing} {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for FileError {}

impl FileError {
    /// The error code: `NOT_A_REGULAR_FILE`, `FILE_TOO_LARGE`, `UNSAFE_PATH`, `BAD_REQUEST`
    /// (not text) or `FILE_IO`.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::NotARegularFile { .. } => ErrorCode::NotARegularFile,
            Self::TooLarge { .. } => ErrorCode::FileTooLarge,
            Self::Unsafe { .. } => ErrorCode::UnsafePath,
            Self::NotText { .. } => ErrorCode::BadRequest,
            Self::Io { .. } => ErrorCode::FileIo,
        }
    }

    /// The path it is about.
    pub fn path(&self) -> &Path {
        match self {
            Self::NotARegularFile { path, .. }
            | Self::TooLarge { path, .. }
            | Self::Unsafe { path, .. }
            | Self::NotText { path, .. }
            | Self::Io { path, .. } => path,
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            Self::NotARegularFile { .. } => {
                "pass the path of a regular file (not a FIFO, device, socket, directory or, where a file is written, a symlink)"
            }
            Self::TooLarge { .. } => "split the file, or pass a smaller one",
            Self::Unsafe { .. } => {
                "use a directory of your own that other users cannot write to (remove the symlink or the other user's directory)"
            }
            Self::NotText { .. } => "save the file as UTF-8",
            Self::Io { .. } => "check the path, its permissions and free space, then retry",
        }
    }

    /// The error in the kit's shape: `{code, message, hint, path, kind?, cap?}`.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "code": self.code().as_str(),
            "message": self.to_string(),
            "hint": self.hint(),
            "path": self.path().display().to_string(),
        });
        if let Value::Object(m) = &mut v {
            match self {
                Self::NotARegularFile { kind, .. } => {
                    m.insert("kind".into(), json!(kind));
                }
                Self::TooLarge { len, cap, .. } => {
                    m.insert("size".into(), json!(len));
                    m.insert("cap".into(), json!(cap));
                }
                _ => {}
            }
        }
        v
    }

    fn io<'a>(path: &'a Path, doing: &'static str) -> impl FnOnce(std::io::Error) -> Self + 'a {
        move |source| Self::Io {
            path: path.to_path_buf(),
            doing,
            source,
        }
    }
}

impl From<fsguard::FileError> for FileError {
    fn from(e: fsguard::FileError) -> Self {
        match e {
            fsguard::FileError::NotARegularFile { path, kind } => {
                Self::NotARegularFile { path, kind }
            }
            fsguard::FileError::TooLarge { path, len, cap } => Self::TooLarge { path, len, cap },
            fsguard::FileError::Io { path, source } => Self::Io {
                path,
                doing: "read",
                source,
            },
        }
    }
}

/// Reads `path` as UTF-8 text if it is a regular file of at most `cap` bytes (a symlink is
/// followed to what it names, which must be one too). See the module doc.
pub fn read_text(path: &Path, cap: u64) -> Result<String, FileError> {
    let bytes = fsguard::read_regular(path, cap, Follow::Yes)?;
    String::from_utf8(bytes).map_err(|e| FileError::NotText {
        path: path.to_path_buf(),
        at: e.utf8_error().valid_up_to(),
    })
}

/// What sits at `path`, without following a symlink: `None` when nothing does.
fn existing_kind(path: &Path) -> Result<Option<std::fs::FileType>, FileError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) => Ok(Some(m.file_type())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(FileError::io(path, "inspect")(e)),
    }
}

/// Refuses anything but a regular file (or nothing) at `path`; a symlink is refused too.
fn regular_or_absent(path: &Path) -> Result<bool, FileError> {
    match existing_kind(path)? {
        None => Ok(false),
        Some(ft) if ft.is_file() => Ok(true),
        Some(ft) => Err(FileError::NotARegularFile {
            path: path.to_path_buf(),
            kind: fsguard::kind_name(&ft),
        }),
    }
}

/// Opens a new file at `path` for writing: created here and now (`O_CREAT | O_EXCL`, so
/// nothing planted there — a symlink included — is ever opened), with `mode`.
fn create_new(path: &Path, mode: u32) -> std::io::Result<std::fs::File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(mode)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    #[cfg(not(unix))]
    let _ = mode;
    opts.open(path)
}

/// Writes `bytes` to a new file at `path` (in a directory of ours; records), with `mode`.
/// Anything already there is refused, never opened.
pub fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), FileError> {
    let mut f = create_new(path, mode).map_err(|e| match existing_kind(path) {
        Ok(Some(ft)) if !ft.is_file() => FileError::NotARegularFile {
            path: path.to_path_buf(),
            kind: fsguard::kind_name(&ft),
        },
        _ => FileError::io(path, "create")(e),
    })?;
    f.write_all(bytes).map_err(FileError::io(path, "write"))
}

/// The directory `path` is in (`.` for a bare file name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to `path`, replacing a regular file there: into a fresh file in the same
/// directory (`mode`), flushed to disk, then renamed over `path`. A full disk (or a crash)
/// leaves the old file whole; a symlink, FIFO, device or directory at `path` is refused and
/// left alone (a rename would not follow a symlink, but a report silently replacing a link
/// someone made is no better).
pub fn write_replacing(path: &Path, bytes: &[u8], mode: u32) -> Result<(), FileError> {
    regular_or_absent(path)?;
    let dir = parent_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let mut staged = None;
    for attempt in 0..16u32 {
        let tmp = dir.join(format!(".{name}.{}-{attempt}.tmp", std::process::id()));
        match create_new(&tmp, mode) {
            Ok(f) => {
                staged = Some((tmp, f));
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(FileError::io(dir, "create a file in")(e)),
        }
    }
    let Some((tmp, mut f)) = staged else {
        return Err(FileError::Io {
            path: dir.to_path_buf(),
            doing: "create a file in",
            source: std::io::Error::other("no free temporary name"),
        });
    };
    let written = f
        .write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(FileError::io(path, "write"))
        .and_then(|()| {
            // Checked again right before the swap: a FIFO or symlink planted meanwhile stays.
            regular_or_absent(path)?;
            std::fs::rename(&tmp, path).map_err(FileError::io(path, "replace"))
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Readies a path a report will be written to at the end of a run, before anything runs: a
/// regular file or nothing may sit there (see [`write_replacing`]), its directory is made if
/// missing, and a file can be created in it (tried, then removed).
pub fn prepare_report_path(path: &Path) -> Result<(), FileError> {
    regular_or_absent(path)?;
    let dir = parent_of(path);
    std::fs::create_dir_all(dir).map_err(FileError::io(dir, "create the directory"))?;
    let probe = dir.join(format!(".automation-probe-{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&probe);
    create_new(&probe, PRIVATE_FILE).map_err(FileError::io(dir, "create a file in"))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn reads_refuse_fifos_devices_and_oversize_files_naming_them() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("x.json");
        mkfifo(&fifo);
        let e = read_text(&fifo, MAX_FLOW_BYTES).unwrap_err();
        assert_eq!(e.code().as_str(), "NOT_A_REGULAR_FILE");
        assert!(e.to_string().contains("is a fifo"), "{e}");
        assert_eq!(e.to_json()["kind"], "fifo");
        let e = read_text(Path::new("/dev/zero"), MAX_FLOW_BYTES).unwrap_err();
        assert_eq!(e.to_json()["kind"], "device");
        let big = t.path().join("big.json");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_FLOW_BYTES + 1)
            .unwrap();
        let e = read_text(&big, MAX_FLOW_BYTES).unwrap_err();
        assert_eq!(e.code().as_str(), "FILE_TOO_LARGE");
        let bad = t.path().join("bad.json");
        std::fs::write(&bad, b"{\"a\": \"\xff\"}").unwrap();
        assert_eq!(
            read_text(&bad, 100).unwrap_err().code().as_str(),
            "BAD_REQUEST"
        );
    }

    #[test]
    fn a_report_replaces_a_regular_file_and_refuses_links_and_fifos() {
        let t = tempfile::tempdir().unwrap();
        let report = t.path().join("junit.xml");
        write_replacing(&report, b"old", REPORT_FILE).unwrap();
        write_replacing(&report, b"new", REPORT_FILE).unwrap();
        assert_eq!(std::fs::read(&report).unwrap(), b"new");
        let victim = t.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let link = t.path().join("link.xml");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = write_replacing(&link, b"x", REPORT_FILE).unwrap_err();
        assert_eq!(
            (e.code().as_str(), e.to_json()["kind"].clone()),
            ("NOT_A_REGULAR_FILE", json!("symlink"))
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(prepare_report_path(&link).is_err());
        let fifo = t.path().join("fifo.xml");
        mkfifo(&fifo);
        let started = std::time::Instant::now();
        assert_eq!(
            prepare_report_path(&fifo).unwrap_err().code().as_str(),
            "NOT_A_REGULAR_FILE"
        );
        assert_eq!(
            write_replacing(&fifo, b"x", REPORT_FILE)
                .unwrap_err()
                .code()
                .as_str(),
            "NOT_A_REGULAR_FILE"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        // No staging file is left behind.
        let left: Vec<_> = std::fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn write_new_never_opens_what_is_there() {
        let t = tempfile::tempdir().unwrap();
        let victim = t.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let link = t.path().join("001-a-b.json");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = write_new(&link, b"x", PRIVATE_FILE).unwrap_err();
        assert_eq!(e.to_json()["kind"], "symlink");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        let f = t.path().join("new.json");
        write_new(&f, b"x", PRIVATE_FILE).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
