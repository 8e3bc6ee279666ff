//! The session layer's one error type: what it refuses or fails at while it turns a mode into
//! a driven app and starts the target thread. An op's own failure is core's `OpError`; the
//! files layer's is [`crate::files::FileError`], which a tool call answers as an `OpError`.

/// Why a mode did not become a driven app.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
}
