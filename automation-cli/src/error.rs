//! The command line's one error type: a mode line that makes no sense, a baseline that cannot
//! be read, the MCP server on stdio stopping, and the session's and the HTTP servers' errors
//! as they come up to a verb. Each source stays typed; what is printed, and with which exit
//! code, is decided where a verb ends ([`CliError::is_usage`]). The runner's errors reach the
//! command line only where a verb prints them at once (`export`, `audit --format junit`), and
//! `automation run` and `exec` print their own: no variant carries them.

use std::path::PathBuf;

use automation_http::error::HttpError;
use automation_session::error::SessionError;

/// Why a command was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A mode flag given both before and after the verb.
    #[error("give the mode once, either before or after `{verb}`")]
    ModeTwice {
        /// The verb (empty when there is none).
        verb: String,
    },
    /// `--token` without `--connect`.
    #[error("--token goes with --connect ENDPOINT")]
    TokenWithoutConnect,
    /// `--virtual-display` without `--launch`.
    #[error("--virtual-display goes with --launch")]
    VirtualDisplayWithoutLaunch,
    /// `--list` with a verb that drives an app.
    #[error("--list cannot be combined with `{verb}`")]
    ListWithVerb {
        /// The verb.
        verb: String,
    },
    /// `automation audit --baseline FILE`: the file could not be read.
    #[error(
        "--baseline {}: cannot read it ({source}): a regular file of at most 16 MiB",
        path.display()
    )]
    BaselineUnreadable {
        /// The file.
        path: PathBuf,
        /// Why (a FIFO, too large, I/O).
        source: automation_wire::fsguard::FileError,
    },
    /// `automation audit --baseline FILE`: the file is not a baseline.
    #[error(
        "--baseline {}: not a baseline ({source}); write one with --write-baseline FILE",
        path.display()
    )]
    NotABaseline {
        /// The file.
        path: PathBuf,
        /// Why it did not parse.
        source: serde_json::Error,
    },
    /// The MCP server on stdio stopped with an error.
    #[error("MCP server stopped: {0}")]
    McpStopped(#[source] tokio::task::JoinError),
    /// The MCP handshake on stdio failed. (Boxed: rmcp's error is large, this one stays
    /// small to pass around.)
    #[error("MCP handshake failed: {0}")]
    McpHandshake(#[source] Box<rmcp::service::ServerInitializeError>),
    /// A mode did not become a driven app.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// An HTTP server (WebDriver, MCP over HTTP, the inspector, `show-report`) did not start
    /// or stopped.
    #[error(transparent)]
    Http(#[from] HttpError),
}

impl CliError {
    /// Whether the command line itself is at fault (exit 2, with the usage hint) rather than
    /// what it asked for (exit 1).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Self::ModeTwice { .. }
                | Self::TokenWithoutConnect
                | Self::VirtualDisplayWithoutLaunch
                | Self::ListWithVerb { .. }
                | Self::BaselineUnreadable { .. }
                | Self::NotABaseline { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sentences the command line printed as strings before it had this type, unchanged.
    #[test]
    fn each_sentence_is_the_one_it_was() {
        let twice = CliError::ModeTwice { verb: "op".into() };
        assert_eq!(
            twice.to_string(),
            "give the mode once, either before or after `op`"
        );
        assert!(twice.is_usage());
        let list = CliError::ListWithVerb { verb: "run".into() };
        assert_eq!(list.to_string(), "--list cannot be combined with `run`");
        let session = CliError::from(SessionError::Usage("--list does not drive an app".into()));
        assert_eq!(session.to_string(), "--list does not drive an app");
        assert!(!session.is_usage());
    }
}
