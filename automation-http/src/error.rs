//! The HTTP crate's one error type: why a server does not start or stops, and why a session
//! may not launch the app it asked for. A request's refusal is an HTTP reply, never this.

/// Why a server did not start, or a launch was not allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// Its settings say it must not start: an origin or a glob that does not parse, or no
    /// token and allow-list beyond loopback.
    #[error("{0}")]
    Config(String),
    /// Its address could not be bound.
    #[error("{0}")]
    Listen(String),
    /// The random token its URL carries could not be made.
    #[error("{0}")]
    Token(String),
    /// A session asked for an app the server's allow-list does not hold.
    #[error("{0}")]
    NotAllowed(String),
}
