//! The endpoint descriptor: `<base>/automation/<pid>.json`, owner-only, naming a live bridge.
//!
//! ```json
//! {"version":1,"pid":12345,"transport":"unix","address":"/run/user/1000/automation/12345.d/s",
//!  "token":"8f3c…","app":"widget-catalog","started_unix_ms":1772000000000}
//! ```
//!
//! Writing it is part of the security boundary: the staging file is opened `create_new` with
//! mode 0600 *in the same open* (never create-then-chmod; `create_new` also refuses a planted
//! symlink), the directory's owner is compared with the owner of that fresh file (proof of our
//! uid) before the token touches the disk, and only then is it written and renamed into place.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fsguard::{DirError, FileError, Follow, ensure_private_dir, kind_name, read_regular};

/// The descriptor format version this crate writes and the newest it reads.
pub const DESCRIPTOR_VERSION: u32 = 1;
/// Name of the descriptor directory under the base (runtime) directory.
pub const DESCRIPTOR_DIR_NAME: &str = "automation";
/// Largest descriptor file read (a real one is a few hundred bytes).
pub const MAX_DESCRIPTOR_BYTES: u64 = 64 * 1024;

/// How the endpoint is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// A Unix-domain socket path.
    Unix,
    /// A Windows named pipe (`\\.\pipe\…`).
    NamedPipe,
}

impl TransportKind {
    /// The kind this platform uses.
    pub fn native() -> Self {
        if cfg!(windows) {
            TransportKind::NamedPipe
        } else {
            TransportKind::Unix
        }
    }
}

/// One published endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Descriptor {
    /// Format version ([`DESCRIPTOR_VERSION`]).
    pub version: u32,
    /// The serving process.
    pub pid: u32,
    /// `unix` or `named_pipe`.
    pub transport: TransportKind,
    /// Socket path or pipe name.
    pub address: String,
    /// The token the client must send as its first line.
    pub token: String,
    /// A human name for the app.
    pub app: String,
    /// When the bridge started (Unix epoch, ms).
    pub started_unix_ms: u64,
}

/// Why a descriptor could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum DescriptorError {
    /// The directory failed its trust check.
    #[error(transparent)]
    Dir(#[from] DirError),
    /// Written by a newer version of this kit.
    #[error(
        "{path}: descriptor version {found} is newer than this build understands ({max}); upgrade the client"
    )]
    FutureVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u64,
        /// Newest we read.
        max: u32,
    },
    /// Not a descriptor.
    #[error("{path}: not a valid endpoint descriptor: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// Something other than a regular file sits where a descriptor should be (a FIFO, a
    /// socket, a device, a directory, a symlink). It is never opened for a blocking read.
    #[error("{path} is a {kind}, not a regular file; it is not an endpoint descriptor: remove it")]
    NotARegularFile {
        /// The path.
        path: PathBuf,
        /// What it is (`fifo`, `socket`, `symlink`, `directory`, …).
        kind: &'static str,
    },
    /// The file is larger than any descriptor could be; it was not read.
    #[error(
        "{path} is {len} bytes, over the {cap}-byte descriptor cap; it was not read: it is not an endpoint descriptor, remove it"
    )]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size (as reported by `fstat`, or at least `cap + 1` if it grew while read).
        len: u64,
        /// [`MAX_DESCRIPTOR_BYTES`].
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

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> DescriptorError + '_ {
    move |source| DescriptorError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Milliseconds since the Unix epoch (0 if the clock is before 1970).
pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Descriptor {
    /// Parse a descriptor, refusing a future version before looking at other fields.
    pub fn from_json(path: &Path, text: &str) -> Result<Self, DescriptorError> {
        #[derive(Deserialize)]
        struct VersionOnly {
            version: Option<serde_json::Value>,
        }
        let invalid = |message: String| DescriptorError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let v: VersionOnly = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        match v.version.as_ref().and_then(|v| v.as_u64()) {
            Some(found) if found > u64::from(DESCRIPTOR_VERSION) => {
                return Err(DescriptorError::FutureVersion {
                    path: path.to_path_buf(),
                    found,
                    max: DESCRIPTOR_VERSION,
                });
            }
            Some(0) | None => return Err(invalid("missing or invalid \"version\"".into())),
            Some(_) => {}
        }
        serde_json::from_str(text).map_err(|e| invalid(e.to_string()))
    }

    /// Serialise to pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// The default base directory: `$XDG_RUNTIME_DIR` when set, else a directory of this user's
/// own in the temp dir, `<temp>/automation-<uid>` (Windows: `%LOCALAPPDATA%`). Never a
/// directory every user shares: whoever made a shared `/tmp/automation` first would own it,
/// and every other user's bridge would be refused there.
pub fn default_base_dir() -> PathBuf {
    #[cfg(windows)]
    {
        if let Some(d) = std::env::var_os("LOCALAPPDATA").filter(|d| !d.is_empty()) {
            return PathBuf::from(d);
        }
        std::env::temp_dir()
    }
    #[cfg(not(windows))]
    {
        if let Some(d) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
            return PathBuf::from(d);
        }
        crate::fsguard::per_user_temp_dir()
    }
}

/// A vetted descriptor directory.
#[derive(Debug, Clone)]
pub struct DescriptorDir {
    path: PathBuf,
}

/// One listed descriptor.
#[derive(Debug, Clone)]
pub struct ListedDescriptor {
    /// The file.
    pub path: PathBuf,
    /// Its contents.
    pub descriptor: Descriptor,
}

/// The result of [`DescriptorDir::list`].
#[derive(Debug, Default)]
pub struct Listing {
    /// Readable descriptors, newest first.
    pub entries: Vec<ListedDescriptor>,
    /// Files that were skipped, and why (future version, invalid JSON…).
    pub skipped: Vec<DescriptorError>,
}

impl DescriptorDir {
    /// `<default_base_dir()>/automation`, created or vetted.
    pub fn open_default() -> Result<Self, DescriptorError> {
        Self::open_in(&default_base_dir())
    }

    /// `<base>/automation`, created 0700 or vetted (symlink / foreign owner refused,
    /// tightened to 0700). `base` is injectable for tests.
    pub fn open_in(base: &Path) -> Result<Self, DescriptorError> {
        crate::fsguard::ready_base_dir(base)?;
        let path = base.join(DESCRIPTOR_DIR_NAME);
        ensure_private_dir(&path)?;
        Ok(DescriptorDir { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the descriptor of `pid` lives.
    pub fn path_for(&self, pid: u32) -> PathBuf {
        self.path.join(format!("{pid}.json"))
    }

    /// Publish `d` atomically (see the module doc). Returns the final path.
    pub fn publish(&self, d: &Descriptor) -> Result<PathBuf, DescriptorError> {
        self.publish_observed(d, |_| {})
    }

    /// [`publish`](Self::publish), calling `observe(staging_path)` right after the staging file
    /// is created and before anything is written to it (tests look at its mode there).
    #[doc(hidden)]
    pub fn publish_observed(
        &self,
        d: &Descriptor,
        observe: impl FnOnce(&Path),
    ) -> Result<PathBuf, DescriptorError> {
        let final_path = self.path_for(d.pid);
        let suffix = crate::handshake::random_hex(6).map_err(io_at(&self.path))?;
        let staging = self.path.join(format!(".{}.{suffix}.tmp", d.pid));
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut file = opts.open(&staging).map_err(io_at(&staging))?;
        let result = (|| {
            observe(&staging);
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                let ours = file.metadata().map_err(io_at(&staging))?.uid();
                let dir_owner = std::fs::symlink_metadata(&self.path)
                    .map_err(io_at(&self.path))?
                    .uid();
                if dir_owner != ours {
                    return Err(DescriptorError::Dir(DirError::ForeignOwner {
                        path: self.path.clone(),
                        owner: dir_owner,
                        us: ours,
                    }));
                }
            }
            file.write_all(d.to_json().as_bytes())
                .map_err(io_at(&staging))?;
            file.sync_all().map_err(io_at(&staging))?;
            std::fs::rename(&staging, &final_path).map_err(io_at(&final_path))
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&staging);
        }
        result.map(|()| final_path)
    }

    /// Read one descriptor file.
    ///
    /// Only a regular file of at most [`MAX_DESCRIPTOR_BYTES`] is read. On Unix it is opened
    /// `O_NONBLOCK | O_NOFOLLOW` (a FIFO planted under a `.json` name cannot block the open, a
    /// symlink is not followed) and checked with `fstat` on the opened file before any byte
    /// is read; the read itself is bounded by the cap even if the file grows meanwhile.
    pub fn read(path: &Path) -> Result<Descriptor, DescriptorError> {
        let text = read_capped(path)?;
        Descriptor::from_json(path, &text)
    }

    /// The descriptor of `pid`, if published.
    pub fn find(&self, pid: u32) -> Result<Option<Descriptor>, DescriptorError> {
        let path = self.path_for(pid);
        match std::fs::symlink_metadata(&path) {
            Ok(_) => Self::read(&path).map(Some),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_at(&path)(e)),
        }
    }

    /// Every descriptor, newest (`started_unix_ms`) first. Unreadable ones are reported in
    /// [`Listing::skipped`], not silently dropped.
    pub fn list(&self) -> Result<Listing, DescriptorError> {
        let mut listing = Listing::default();
        for entry in std::fs::read_dir(&self.path).map_err(io_at(&self.path))? {
            let entry = entry.map_err(io_at(&self.path))?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || !name.ends_with(".json") {
                continue;
            }
            // The entry's own type (no open, no following): a FIFO or a directory named
            // `*.json` is reported at once. `read` checks again on the opened file.
            if let Ok(ft) = entry.file_type()
                && !ft.is_file()
            {
                listing.skipped.push(DescriptorError::NotARegularFile {
                    path,
                    kind: kind_name(&ft),
                });
                continue;
            }
            match Self::read(&path) {
                Ok(descriptor) => listing.entries.push(ListedDescriptor { path, descriptor }),
                Err(e) => listing.skipped.push(e),
            }
        }
        listing.entries.sort_by(|a, b| {
            b.descriptor
                .started_unix_ms
                .cmp(&a.descriptor.started_unix_ms)
                .then(b.descriptor.pid.cmp(&a.descriptor.pid))
        });
        Ok(listing)
    }

    /// Remove the descriptor at `path` (missing is fine).
    pub fn remove(path: &Path) -> Result<(), DescriptorError> {
        match std::fs::remove_file(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_at(path)(e)),
        }
    }
}

/// Read `path` through [`crate::fsguard::read_regular`]: no blocking open, no symlink
/// followed, a regular file of at most [`MAX_DESCRIPTOR_BYTES`], UTF-8.
fn read_capped(path: &Path) -> Result<String, DescriptorError> {
    let bytes = read_regular(path, MAX_DESCRIPTOR_BYTES, Follow::No).map_err(|e| match e {
        FileError::NotARegularFile { path, kind } => {
            DescriptorError::NotARegularFile { path, kind }
        }
        FileError::TooLarge { path, len, cap } => DescriptorError::TooLarge { path, len, cap },
        FileError::Io { path, source } => DescriptorError::Io { path, source },
    })?;
    String::from_utf8(bytes).map_err(|e| DescriptorError::Invalid {
        path: path.to_path_buf(),
        message: format!("not UTF-8: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(pid: u32, started: u64) -> Descriptor {
        Descriptor {
            version: 1,
            pid,
            transport: TransportKind::Unix,
            address: format!("/run/user/1000/automation/{pid}.d/s"),
            token: "8f3c".into(),
            app: "demo".into(),
            started_unix_ms: started,
        }
    }

    #[test]
    fn json_round_trip() {
        let d = sample(12345, 1_772_000_000_000);
        let json = d.to_json();
        assert!(json.contains("\"transport\": \"unix\""));
        assert_eq!(Descriptor::from_json(Path::new("x"), &json).unwrap(), d);
        let pipe = Descriptor {
            transport: TransportKind::NamedPipe,
            ..d
        };
        assert!(pipe.to_json().contains("named_pipe"));
    }

    #[test]
    fn future_version_refused() {
        let mut v: serde_json::Value = serde_json::from_str(&sample(1, 1).to_json()).unwrap();
        v["version"] = 2.into();
        v["something_new"] = true.into();
        let err = Descriptor::from_json(Path::new("x"), &v.to_string()).unwrap_err();
        assert!(
            matches!(err, DescriptorError::FutureVersion { found: 2, .. }),
            "{err}"
        );
        assert!(Descriptor::from_json(Path::new("x"), "{\"pid\":1}").is_err());
        assert!(Descriptor::from_json(Path::new("x"), "not json").is_err());
    }

    #[test]
    fn list_newest_first_and_skips_reported() {
        let t = tempfile::tempdir().unwrap();
        let dir = DescriptorDir::open_in(t.path()).unwrap();
        dir.publish(&sample(10, 100)).unwrap();
        dir.publish(&sample(11, 300)).unwrap();
        dir.publish(&sample(12, 200)).unwrap();
        std::fs::write(dir.path().join("99.json"), "{\"version\":7}").unwrap();
        let l = dir.list().unwrap();
        let pids: Vec<u32> = l.entries.iter().map(|e| e.descriptor.pid).collect();
        assert_eq!(pids, [11, 12, 10]);
        assert_eq!(l.skipped.len(), 1);
        assert!(dir.find(11).unwrap().is_some());
        assert!(dir.find(77).unwrap().is_none());
        DescriptorDir::remove(&dir.path_for(11)).unwrap();
        assert!(dir.find(11).unwrap().is_none());
    }
}
