//! What stops an audit before it has judged the app.

use automation_core::OpError;

/// Why an audit did not finish.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// An op the audit needs was refused.
    #[error("{what}: {}", error.message)]
    Op {
        /// What the audit was doing.
        what: &'static str,
        /// The op's error.
        error: OpError,
    },
    /// A reply was not of the shape the audit reads.
    #[error("{what}: the reply is not what the audit reads ({why})")]
    Shape {
        /// What the audit was doing.
        what: &'static str,
        /// Why it could not be read.
        why: String,
    },
    /// A rule id no rule has.
    #[error("no rule is named {0:?}; the rules are {1}")]
    UnknownRule(String, String),
}
