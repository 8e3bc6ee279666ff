//! Owner-only directories that are not taken on trust.
//!
//! A directory we create is made by `mkdir` with mode 0700 in the same call (never
//! mkdir-then-chmod). A directory that already exists is inspected with `symlink_metadata`: a
//! symlink is refused (even one pointing at a directory we own), so is anything that is not a
//! directory and anything owned by another user; a directory of ours that others can reach is
//! tightened to 0700.
//!
//! Files read from places others may have planted something in (a descriptor, a flow file a
//! model named) go through [`read_regular`]: opened without blocking (a FIFO cannot hang the
//! open), checked to be a regular file on the opened handle, and read up to a cap that is
//! checked before reading and enforced while reading.

use std::io;
use std::path::{Path, PathBuf};

/// Why a directory was not trusted.
#[derive(Debug, thiserror::Error)]
pub enum DirError {
    /// A symlink sits where the directory should be.
    #[error("{0} is a symlink; refusing to follow it (remove it, or point the base dir elsewhere)")]
    Symlink(PathBuf),
    /// Something other than a directory sits there.
    #[error("{0} exists and is not a directory; remove it")]
    NotADirectory(PathBuf),
    /// Another user owns it.
    #[error(
        "{path} is owned by uid {owner}, not by us (uid {us}); another user may control it: remove it or use $XDG_RUNTIME_DIR"
    )]
    ForeignOwner {
        /// The directory.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// Our effective uid.
        us: u32,
    },
    /// A shared parent (such as a stock `/tmp`) that others can write to.
    #[error(
        "{0} is writable by other users; it cannot hold a private endpoint (set $XDG_RUNTIME_DIR or a shorter private base dir)"
    )]
    SharedParent(PathBuf),
    /// I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

pub(crate) fn io_at(path: &Path) -> impl FnOnce(io::Error) -> DirError + '_ {
    move |source| DirError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Something other than a regular file sits there (a FIFO, a socket, a device, a
    /// directory, or a symlink where none is followed). It was never read.
    #[error("{path} is a {kind}, not a regular file; it was not read")]
    NotARegularFile {
        /// The path.
        path: PathBuf,
        /// What it is: [`kind_name`].
        kind: &'static str,
    },
    /// The file is larger than the cap; it was not read (or reading stopped at the cap).
    #[error("{path} is {len} bytes, over the {cap}-byte cap; it was not read")]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size (from `fstat`, or at least `cap + 1` if it grew while read).
        len: u64,
        /// The cap.
        cap: u64,
    },
    /// I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

/// What a file type is, in a word for messages: `fifo`, `socket`, `device`, `symlink`,
/// `directory`, `regular file`.
pub fn kind_name(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "fifo";
        }
        if ft.is_socket() {
            return "socket";
        }
        if ft.is_block_device() || ft.is_char_device() {
            return "device";
        }
    }
    if ft.is_symlink() {
        "symlink"
    } else if ft.is_dir() {
        "directory"
    } else if ft.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

/// Whether [`read_regular`] follows a symlink at the path's last component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// A symlink is followed; what it points at must still be a regular file.
    Yes,
    /// A symlink is refused (`O_NOFOLLOW`), reported as a `symlink`.
    No,
}

/// Reads `path` if it is a regular file of at most `cap` bytes.
///
/// On Unix the open is `O_NONBLOCK` (a FIFO planted at the path cannot block it) and, with
/// [`Follow::No`], `O_NOFOLLOW`; the type and size are then checked with `fstat` on the opened
/// handle, before any byte is read, and the read stops at `cap + 1` bytes even if the file
/// grows meanwhile. A FIFO, socket, device or directory is [`FileError::NotARegularFile`]
/// without a byte read; `/dev/zero` or a 4 GiB sparse file costs nothing.
pub fn read_regular(path: &Path, cap: u64, follow: Follow) -> Result<Vec<u8>, FileError> {
    use std::io::Read;
    let io = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let not_regular = |ft: &std::fs::FileType| FileError::NotARegularFile {
        path: path.to_path_buf(),
        kind: kind_name(ft),
    };
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if follow == Follow::No {
            libc::O_NOFOLLOW
        } else {
            0
        };
        opts.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | nofollow);
    }
    let file = match opts.open(path) {
        Ok(f) => f,
        Err(e) => {
            // O_NOFOLLOW on a symlink fails with ELOOP, a socket with ENXIO: say what it is.
            let meta = match follow {
                Follow::Yes => std::fs::metadata(path),
                Follow::No => std::fs::symlink_metadata(path),
            };
            if let Ok(meta) = meta
                && !meta.is_file()
            {
                return Err(not_regular(&meta.file_type()));
            }
            return Err(io(e));
        }
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular(&meta.file_type()));
    }
    let too_large = |len: u64| FileError::TooLarge {
        path: path.to_path_buf(),
        len,
        cap,
    };
    if meta.len() > cap {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Our effective uid.
#[cfg(unix)]
pub fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Create `path` as a 0700 directory, or vet an existing one (see the module doc).
/// The parent must exist.
pub fn ensure_private_dir(path: &Path) -> Result<(), DirError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
        match std::fs::DirBuilder::new().mode(0o700).create(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let meta = std::fs::symlink_metadata(path).map_err(io_at(path))?;
                if meta.file_type().is_symlink() {
                    return Err(DirError::Symlink(path.to_path_buf()));
                }
                if !meta.is_dir() {
                    return Err(DirError::NotADirectory(path.to_path_buf()));
                }
                let us = euid();
                if meta.uid() != us {
                    return Err(DirError::ForeignOwner {
                        path: path.to_path_buf(),
                        owner: meta.uid(),
                        us,
                    });
                }
                if meta.mode() & 0o077 != 0 {
                    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
                        .map_err(io_at(path))?;
                }
                Ok(())
            }
            Err(e) => Err(io_at(path)(e)),
        }
    }
    #[cfg(not(unix))]
    {
        // Windows: the directory inherits the per-user %LOCALAPPDATA% ACL.
        match std::fs::create_dir(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let meta = std::fs::symlink_metadata(path).map_err(io_at(path))?;
                if meta.file_type().is_symlink() {
                    return Err(DirError::Symlink(path.to_path_buf()));
                }
                if !meta.is_dir() {
                    return Err(DirError::NotADirectory(path.to_path_buf()));
                }
                Ok(())
            }
            Err(e) => Err(io_at(path)(e)),
        }
    }
}

/// This user's own directory in the temp dir: `<temp>/automation-<uid>` (the base when
/// `$XDG_RUNTIME_DIR` is unset).
pub fn per_user_temp_dir() -> PathBuf {
    #[cfg(unix)]
    let uid = euid();
    #[cfg(not(unix))]
    let uid = 0;
    std::env::temp_dir().join(format!("automation-{uid}"))
}

/// Readies a base directory before anything is made in it: [`per_user_temp_dir`] is created
/// 0700 or vetted like any private directory (a symlink, or a directory another user made
/// there first, is refused); another base (`$XDG_RUNTIME_DIR`, a caller's) is created 0700
/// when missing and otherwise taken as given.
pub fn ready_base_dir(base: &Path) -> Result<(), DirError> {
    if base == per_user_temp_dir() || !base.exists() {
        ensure_private_dir(base)?;
    }
    Ok(())
}

/// Check (never modify) a parent directory that we do not own the naming of, such as the
/// `/tmp` of the short socket fallback: it must be a real directory owned by us or root and
/// writable by nobody else. A stock world-writable `/tmp` fails.
#[cfg(unix)]
pub fn check_unshared_parent(path: &Path) -> Result<(), DirError> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).map_err(io_at(path))?;
    if meta.file_type().is_symlink() {
        return Err(DirError::Symlink(path.to_path_buf()));
    }
    if !meta.is_dir() {
        return Err(DirError::NotADirectory(path.to_path_buf()));
    }
    let us = euid();
    if meta.uid() != us && meta.uid() != 0 {
        return Err(DirError::ForeignOwner {
            path: path.to_path_buf(),
            owner: meta.uid(),
            us,
        });
    }
    if meta.mode() & 0o022 != 0 {
        return Err(DirError::SharedParent(path.to_path_buf()));
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn creates_0700_and_tightens_existing() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("d");
        ensure_private_dir(&d).unwrap();
        assert_eq!(std::fs::metadata(&d).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        ensure_private_dir(&d).unwrap();
        assert_eq!(std::fs::metadata(&d).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn symlink_to_own_dir_refused() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(matches!(
            ensure_private_dir(&link),
            Err(DirError::Symlink(_))
        ));
    }

    #[test]
    fn file_refused() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("f");
        std::fs::write(&f, b"").unwrap();
        assert!(matches!(
            ensure_private_dir(&f),
            Err(DirError::NotADirectory(_))
        ));
    }

    #[test]
    fn read_regular_refuses_what_is_not_a_small_regular_file_at_once() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("f.json");
        std::fs::write(&f, b"{}").unwrap();
        assert_eq!(read_regular(&f, 2, Follow::No).unwrap(), b"{}");
        assert!(matches!(
            read_regular(&f, 1, Follow::No),
            Err(FileError::TooLarge { len: 2, cap: 1, .. })
        ));
        let fifo = t.path().join("fifo.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let link = t.path().join("zero.yaml");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let started = std::time::Instant::now();
        for (path, follow, kind) in [
            (fifo.as_path(), Follow::Yes, "fifo"),
            (Path::new("/dev/zero"), Follow::Yes, "device"),
            (link.as_path(), Follow::Yes, "device"),
            (link.as_path(), Follow::No, "symlink"),
            (t.path(), Follow::Yes, "directory"),
        ] {
            match read_regular(path, 1 << 20, follow) {
                Err(FileError::NotARegularFile { kind: k, .. }) => assert_eq!(k, kind, "{path:?}"),
                other => panic!("{path:?}: {other:?}"),
            }
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn stock_tmp_is_a_shared_parent() {
        let t = tempfile::tempdir().unwrap();
        std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert!(matches!(
            check_unshared_parent(t.path()),
            Err(DirError::SharedParent(_))
        ));
        std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        check_unshared_parent(t.path()).unwrap();
    }
}
