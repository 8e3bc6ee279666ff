//! The session layer's one error type: what it refuses or fails at while it turns a mode into
//! a driven app and starts the target thread, a file it reads or writes, a screenshot it
//! cannot fit. An op's own failure is core's `OpError`. The files layer keeps its own
//! [`FileError`] (its code, path and hint; a tool call answers it as an `OpError`), reachable
//! from here as [`SessionError::File`].

use crate::files::FileError;

/// Why a mode did not become a driven app, a file was not read or written, or a screenshot
/// was not fitted.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The mode asks for something that makes no sense here (`--list` to drive an app,
    /// `--connect` without a token).
    #[error("{0}")]
    Usage(String),
    /// An app's bridge: the descriptors could not be read, none is live, it refused us, or
    /// another client holds it.
    #[error("{0}")]
    Bridge(String),
    /// Launching an app, or attaching to one, over AT-SPI failed (its display, its bus, the app
    /// itself).
    #[error("{0}")]
    Atspi(String),
    /// The mode needs what this build leaves out (the `atspi` feature).
    #[error("{0}")]
    NotBuilt(String),
    /// The target thread did not start, or the backend it builds failed.
    #[error("{0}")]
    Target(String),
    /// A file was not read or written: the files layer's error, as it is.
    #[error(transparent)]
    File(#[from] FileError),
    /// A screenshot that does not decode, or does not fit its byte budget.
    #[error("{0}")]
    Image(String),
}
