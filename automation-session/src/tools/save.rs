//! Writing a file where a caller asked (`save_to` of a screenshot or an exported test, `--out`): a new file, or a regular one
//! replaced on request; never through a symlink, never blocking on a FIFO.

use automation_core::{ErrorCode, OpError};

fn save_error(path: &std::path::Path, why: impl std::fmt::Display, fix: &str) -> OpError {
    OpError::new(
        ErrorCode::BadArgument,
        format!("save_to: cannot write {}: {why}", path.display()),
    )
    .with_hint(fix)
}

/// A file kind as [`crate::files`] names it, in words for a refusal.
fn kind_phrase(kind: &str) -> &'static str {
    match kind {
        "symlink" => "a symbolic link",
        "directory" => "a directory",
        "fifo" => "a FIFO (named pipe)",
        "socket" => "a socket",
        "device" => "a device",
        _ => "not a regular file",
    }
}

/// Writes `bytes` (a screenshot, an exported test) to `path` (relative paths land in the server's current directory) and
/// returns the absolute path written, through [`crate::files`]: a new file is created (nothing
/// planted at the path is opened); an existing one is replaced only when `overwrite` and it is
/// a regular file, by writing a fresh file beside it and renaming it over (a full disk leaves
/// the old one whole). Symlinks are never followed or replaced; a FIFO, socket, device or
/// directory is refused at once.
pub fn save_to(path: &str, png: &[u8], overwrite: bool) -> Result<std::path::PathBuf, OpError> {
    use crate::files::{self, FileError, REPORT_FILE};
    let given = std::path::Path::new(path);
    let path = if given.is_absolute() {
        given.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| {
                save_error(
                    given,
                    format!("the server has no current directory ({e})"),
                    "pass an absolute path in save_to",
                )
            })?
            .join(given)
    };
    let exists = match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_file() => true,
        Ok(meta) => {
            let kind = kind_phrase(automation_wire::fsguard::kind_name(&meta.file_type()));
            return Err(save_error(
                &path,
                format!(
                    "it is {kind}, and save_to only writes regular files (symlinks are never followed)"
                ),
                "pass the path of a new file in save_to",
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => {
            return Err(save_error(
                &path,
                e,
                "pass a path in a directory the server can write",
            ));
        }
    };
    if exists && !overwrite {
        return Err(save_error(
            &path,
            "the file already exists",
            "pass a new path in save_to, or overwrite: true to replace this file",
        ));
    }
    let written = if exists {
        files::write_replacing(&path, png, REPORT_FILE)
    } else {
        files::write_new(&path, png, REPORT_FILE)
    };
    written.map_err(|e| match e {
        FileError::NotARegularFile { kind, .. } => save_error(
            &path,
            format!(
                "it is {}, and save_to only writes regular files",
                kind_phrase(kind)
            ),
            "pass the path of a new file in save_to",
        ),
        FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => {
            save_error(
                &path,
                "a file appeared there while saving",
                "pass a new path in save_to",
            )
        }
        FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            save_error(
                &path,
                "its directory does not exist",
                "create the directory first, or pass a path in an existing one",
            )
        }
        other => save_error(&path, other, "check free space and permissions"),
    })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_to_creates_refuses_and_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.png");
        let ps = p.to_str().unwrap();
        assert_eq!(save_to(ps, b"one", false).unwrap(), p);
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        let e = save_to(ps, b"two", false).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadArgument);
        assert!(e.message.contains("already exists"), "{}", e.message);
        assert!(e.hint.as_deref().unwrap_or_default().contains("overwrite"));
        save_to(ps, b"2", true).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"2");
    }

    #[cfg(unix)]
    #[test]
    fn save_to_never_follows_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let link = dir.path().join("link.png");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        for overwrite in [false, true] {
            let e = save_to(link.to_str().unwrap(), b"x", overwrite).unwrap_err();
            assert!(e.message.contains("symbolic link"), "{}", e.message);
        }
        // A dangling link is not followed to create its target either.
        let dangling = dir.path().join("dangling.png");
        std::os::unix::fs::symlink(dir.path().join("created"), &dangling).unwrap();
        assert!(save_to(dangling.to_str().unwrap(), b"x", false).is_err());
        assert!(!dir.path().join("created").exists());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    }

    #[cfg(unix)]
    #[test]
    fn save_to_refuses_fifos_devices_and_directories_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.png");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let start = std::time::Instant::now();
        for overwrite in [false, true] {
            let e = save_to(fifo.to_str().unwrap(), b"x", overwrite).unwrap_err();
            assert!(e.message.contains("FIFO"), "{}", e.message);
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        let e = save_to("/dev/null", b"x", true).unwrap_err();
        assert!(e.message.contains("device"), "{}", e.message);
        let e = save_to(dir.path().to_str().unwrap(), b"x", true).unwrap_err();
        assert!(e.message.contains("directory"), "{}", e.message);
        let e = save_to(
            dir.path().join("no/such/dir.png").to_str().unwrap(),
            b"x",
            false,
        )
        .unwrap_err();
        assert!(e.message.contains("does not exist"), "{}", e.message);
    }
}
