//! The private local endpoint, through `interprocess` local sockets.
//!
//! **Unix**: a socket `s` inside a per-process directory created 0700 by `mkdir`'s own mode (so
//! the socket is never briefly reachable by others), the socket itself 0600; both removed when
//! the [`Endpoint`] is dropped. The socket path is measured against a 100-byte ceiling
//! (`sun_path` is 104 bytes on macOS); if the preferred path is longer, a short
//! `<fallback>/tka-<pid>` directory is used instead, under the same checks, and its parent must
//! not be shared (a stock world-writable `/tmp` is refused rather than settled into). On Linux
//! the peer's uid is read with `SO_PEERCRED` and anyone but our own uid is refused, even with a
//! leaked token.
//!
//! **Windows**: a named pipe with an owner-only DACL built from the process token's user SID and
//! remote clients rejected. That code is written under `cfg(windows)` but was neither compiled
//! nor run in this repository's CI (Linux only).

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use interprocess::local_socket::prelude::*;
use interprocess::local_socket::{ListenerOptions, Stream};

use crate::fsguard::DirError;

/// Longest socket path we bind (bytes).
pub const SOCKET_PATH_CEILING: usize = 100;

static ENDPOINT_SEQ: AtomicU32 = AtomicU32::new(0);

/// Why binding, accepting or connecting failed.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// A directory failed its trust check.
    #[error(transparent)]
    Dir(#[from] DirError),
    /// Neither the preferred nor the fallback path fits under the ceiling.
    #[error(
        "socket path {path} is {len} bytes, over the {ceiling}-byte ceiling, and the short fallback is unavailable ({fallback}); set a shorter $XDG_RUNTIME_DIR"
    )]
    PathTooLong {
        /// The preferred path.
        path: PathBuf,
        /// Its length.
        len: usize,
        /// The ceiling.
        ceiling: usize,
        /// Why the fallback was not used.
        fallback: String,
    },
    /// A connection from another user was refused (Linux SO_PEERCRED).
    #[error("refused a connection from uid {peer:?}: only uid {us} may use this endpoint")]
    PeerRejected {
        /// The peer's uid, if known.
        peer: Option<u32>,
        /// Ours.
        us: u32,
    },
    /// Nothing listens at the address (no socket / ECONNREFUSED).
    #[error("no bridge is listening at {0}; the app has exited (run --list to see live ones)")]
    NotListening(String),
    /// I/O error.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        source: io::Error,
    },
}

fn io_ctx(context: impl Into<String>) -> impl FnOnce(io::Error) -> TransportError {
    let context = context.into();
    move |source| TransportError::Io { context, source }
}

/// Where to bind.
#[derive(Debug, Clone)]
pub struct EndpointOptions {
    /// Parent of the per-process directory (default: the descriptor directory).
    pub base_dir: PathBuf,
    /// Parent of the short fallback directory (default `/tmp`).
    pub fallback_base: PathBuf,
    /// Test hook: the uid accepted by the peer check (default: our own).
    #[doc(hidden)]
    pub allowed_uid: Option<u32>,
}

impl EndpointOptions {
    /// Bind under `base_dir`, falling back to `/tmp/tka-<pid>`.
    pub fn new(base_dir: impl Into<PathBuf>) -> Self {
        EndpointOptions {
            base_dir: base_dir.into(),
            fallback_base: PathBuf::from("/tmp"),
            allowed_uid: None,
        }
    }
}

/// A bound, listening endpoint. Dropping it removes the socket and its directory.
#[derive(Debug)]
pub struct Endpoint {
    listener: Option<interprocess::local_socket::Listener>,
    address: String,
    dir: Option<PathBuf>,
    #[cfg(unix)]
    allowed_uid: u32,
}

/// An accepted or connected stream.
#[derive(Debug)]
pub struct Connection {
    stream: Stream,
}

impl Connection {
    /// Set (or clear) the per-read timeout. A timeout surfaces as `TimedOut`/`WouldBlock`
    /// and leaves the stream usable.
    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        self.stream.set_recv_timeout(t)
    }

    /// Set (or clear) the per-write timeout.
    pub fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        self.stream.set_send_timeout(t)
    }

    /// The peer's effective uid (Unix), when the OS reports it.
    #[cfg(unix)]
    pub fn peer_uid(&self) -> Option<u32> {
        self.stream.peer_creds().ok().and_then(|c| c.euid())
    }
}

/// Reads from a [`Connection`] under one overall deadline: before every read the per-read
/// timeout is set to what is left, and once it has passed a read fails with `TimedOut`. A peer
/// dripping one byte just under any per-read timeout is cut at the deadline.
#[derive(Debug)]
pub struct DeadlineReader<'a> {
    conn: &'a Connection,
    deadline: Instant,
}

impl<'a> DeadlineReader<'a> {
    /// Read `conn` until `deadline`.
    pub fn new(conn: &'a Connection, deadline: Instant) -> Self {
        DeadlineReader { conn, deadline }
    }
}

impl Read for DeadlineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "deadline passed before the peer finished",
            ));
        }
        self.conn.set_read_timeout(Some(left))?;
        let mut c = self.conn;
        c.read(buf)
    }
}

impl Read for Connection {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.read(buf)
    }
}

impl Write for Connection {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stream.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

impl Read for &Connection {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&self.stream).read(buf)
    }
}

impl Write for &Connection {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&self.stream).write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        (&self.stream).flush()
    }
}

impl Endpoint {
    /// Bind a fresh endpoint (see the module doc).
    #[cfg(unix)]
    pub fn bind(opts: &EndpointOptions) -> Result<Endpoint, TransportError> {
        use interprocess::local_socket::GenericFilePath;
        use interprocess::os::unix::local_socket::ListenerOptionsExt;

        let pid = std::process::id();
        let seq = ENDPOINT_SEQ.fetch_add(1, Ordering::Relaxed);
        let stem = if seq == 0 {
            format!("{pid}")
        } else {
            format!("{pid}-{seq}")
        };
        let preferred_dir = opts.base_dir.join(format!("{stem}.d"));
        let preferred = preferred_dir.join("s");
        let len = preferred.as_os_str().len();
        let (dir, sock) = if len <= SOCKET_PATH_CEILING {
            (preferred_dir, preferred)
        } else {
            let too_long = |fallback: String| TransportError::PathTooLong {
                path: preferred.clone(),
                len,
                ceiling: SOCKET_PATH_CEILING,
                fallback,
            };
            crate::fsguard::check_unshared_parent(&opts.fallback_base)
                .map_err(|e| too_long(e.to_string()))?;
            let dir = opts.fallback_base.join(format!("tka-{stem}"));
            let sock = dir.join("s");
            if sock.as_os_str().len() > SOCKET_PATH_CEILING {
                return Err(too_long(format!("{} is too long as well", sock.display())));
            }
            (dir, sock)
        };
        crate::fsguard::ensure_private_dir(&dir)?;
        // A stale socket left in our own private dir by a previous process with our pid.
        let _ = std::fs::remove_file(&sock);
        let address = sock.to_string_lossy().into_owned();
        let name = sock
            .as_path()
            .to_fs_name::<GenericFilePath>()
            .map_err(io_ctx(format!("socket name {address}")))?;
        let listener = match ListenerOptions::new()
            .name(name.clone())
            .mode(0o600)
            .create_sync()
        {
            Err(e) if e.kind() == io::ErrorKind::Unsupported => {
                // Platforms without fchmod-before-bind: the 0700 directory already keeps others
                // out; tighten the socket right after bind.
                let l = ListenerOptions::new()
                    .name(name)
                    .create_sync()
                    .map_err(io_ctx(format!("bind {address}")))?;
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o600))
                    .map_err(io_ctx(format!("chmod {address}")))?;
                l
            }
            other => other.map_err(io_ctx(format!("bind {address}")))?,
        };
        Ok(Endpoint {
            listener: Some(listener),
            address,
            dir: Some(dir),
            allowed_uid: opts.allowed_uid.unwrap_or_else(crate::fsguard::euid),
        })
    }

    /// Bind a fresh endpoint: a named pipe with an owner-only DACL, remote clients rejected.
    /// NOTE: written for Windows but not compiled or run in this repository's CI.
    #[cfg(windows)]
    pub fn bind(_opts: &EndpointOptions) -> Result<Endpoint, TransportError> {
        use interprocess::local_socket::GenericNamespaced;
        use interprocess::os::windows::local_socket::ListenerOptionsExt;

        let pid = std::process::id();
        let seq = ENDPOINT_SEQ.fetch_add(1, Ordering::Relaxed);
        let pipe = if seq == 0 {
            format!("automation-{pid}")
        } else {
            format!("automation-{pid}-{seq}")
        };
        let sd = crate::winsec::owner_only_descriptor()
            .map_err(io_ctx("build the owner-only DACL from the user SID"))?;
        let name = pipe
            .clone()
            .to_ns_name::<GenericNamespaced>()
            .map_err(io_ctx(format!("pipe name {pipe}")))?;
        // interprocess sets PIPE_REJECT_REMOTE_CLIENTS on local-socket pipes.
        let listener = ListenerOptions::new()
            .name(name)
            .security_descriptor(sd)
            .create_sync()
            .map_err(io_ctx(format!("create pipe {pipe}")))?;
        Ok(Endpoint {
            listener: Some(listener),
            address: format!(r"\\.\pipe\{pipe}"),
            dir: None,
        })
    }

    /// The address to put in the descriptor (socket path or pipe path).
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The per-process directory holding the socket (Unix).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Wait up to `timeout` for a connection to be ready to accept (Unix: `poll` on the
    /// listening socket). Returns true when `accept` will not block. Lets an accept loop notice
    /// shutdown without depending on the socket path still existing.
    #[cfg(unix)]
    pub fn wait_acceptable(&self, timeout: Duration) -> bool {
        use std::os::fd::{AsFd, AsRawFd};
        let Some(interprocess::local_socket::Listener::UdSocket(l)) = self.listener.as_ref() else {
            return false;
        };
        let mut pfd = libc::pollfd {
            fd: l.as_fd().as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd, count 1.
        let rc = unsafe { libc::poll(&mut pfd, 1, ms) };
        rc > 0
    }

    /// Windows: accept blocks; shutdown wakes it by connecting.
    #[cfg(windows)]
    pub fn wait_acceptable(&self, _timeout: Duration) -> bool {
        true
    }

    /// Accept one connection, refusing other uids on Linux.
    pub fn accept(&self) -> Result<Connection, TransportError> {
        let listener = self
            .listener
            .as_ref()
            .ok_or_else(|| io_ctx("accept")(io::Error::other("endpoint closed")))?;
        let stream = listener.accept().map_err(io_ctx("accept"))?;
        let conn = Connection { stream };
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            let peer = conn.peer_uid();
            if peer != Some(self.allowed_uid) {
                return Err(TransportError::PeerRejected {
                    peer,
                    us: self.allowed_uid,
                });
            }
        }
        Ok(conn)
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        // The listener removes its socket file on drop; then the (now empty) directory goes.
        drop(self.listener.take());
        if let Some(dir) = self.dir.take() {
            let _ = std::fs::remove_file(dir.join("s"));
            let _ = std::fs::remove_dir(&dir);
        }
    }
}

/// Connect to an endpoint address. A missing socket or ECONNREFUSED is
/// [`TransportError::NotListening`]: unambiguously nothing there.
pub fn connect(address: &str) -> Result<Connection, TransportError> {
    #[cfg(unix)]
    let name = {
        use interprocess::local_socket::GenericFilePath;
        Path::new(address)
            .to_fs_name::<GenericFilePath>()
            .map_err(io_ctx(format!("socket name {address}")))?
    };
    #[cfg(windows)]
    let name = {
        use interprocess::local_socket::GenericNamespaced;
        let short = address
            .strip_prefix(r"\\.\pipe\")
            .unwrap_or(address)
            .to_string();
        short
            .to_ns_name::<GenericNamespaced>()
            .map_err(io_ctx(format!("pipe name {address}")))?
    };
    match Stream::connect(name) {
        Ok(stream) => Ok(Connection { stream }),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
            ) =>
        {
            Err(TransportError::NotListening(address.to_string()))
        }
        Err(e) => Err(io_ctx(format!("connect {address}"))(e)),
    }
}
