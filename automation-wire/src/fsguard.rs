//! Owner-only directories that are not taken on trust.
//!
//! A directory we create is made by `mkdir` with mode 0700 in the same call (never
//! mkdir-then-chmod). A directory that already exists is inspected with `symlink_metadata`: a
//! symlink is refused (even one pointing at a directory we own), so is anything that is not a
//! directory and anything owned by another user; a directory of ours that others can reach is
//! tightened to 0700.

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
