//! Error codes and the structured error every failed op returns.
//!
//! An agent reads these and decides what to do next, so each carries a stable `code`, a
//! one-sentence `message`, and where useful a `hint` (what to do) and `candidates` (what it
//! could have meant). [`ErrorCode::is_retryable`] separates "the environment, retry" from
//! "your request, fix it".

use serde::{Deserialize, Serialize};

/// Stable machine-readable error codes (serialised `SCREAMING_SNAKE_CASE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ErrorCode {
    /// The request itself is malformed: unknown op, unknown field, wrong type.
    BadRequest,
    /// No node (or pointer, or window) matches the reference.
    NotFound,
    /// A selector matched several nodes; `candidates` lists them.
    Ambiguous,
    /// Arguments contradict each other or the app's state; nothing was sent.
    BadArgument,
    /// An unrecognised action or key name (checked before the node is looked up).
    UnknownName,
    /// The node exists but nothing handled the action.
    UnhandledAction,
    /// An assertion was false.
    AssertionFailed,
    /// `wait_for_condition` spent its budget.
    WaitTimeout,
    /// `settle` passed its wall-clock budget.
    SettleTimeout,
    /// The node has no bounds yet but the op needs them.
    NoGeometry,
    /// The op needs the host (window manager or GPU); `execute` cannot serve it.
    HostRequired,
    /// The target does not implement this optional capability.
    Unsupported,
    /// The app produced a malformed accessibility tree update; the mirror kept the last good tree.
    InvalidTreeUpdate,
    /// Screenshot: no GPU adapter at all, not even a software one.
    GpuUnavailable,
    /// Screenshot: device lost during readback.
    GpuReadbackFailed,
    /// Live bridge: the app's UI thread did not answer in time.
    BridgeTimeout,
    /// Live bridge: the app is shutting down.
    BridgeDropped,
    /// Live bridge: client-side I/O failure.
    BridgeIo,
    /// The target failed in a way that is not the caller's fault.
    TargetFailed,
}

impl ErrorCode {
    /// Every code, in declaration order (for docs and drift tests).
    pub const ALL: &'static [ErrorCode] = &[
        Self::BadRequest,
        Self::NotFound,
        Self::Ambiguous,
        Self::BadArgument,
        Self::UnknownName,
        Self::UnhandledAction,
        Self::AssertionFailed,
        Self::WaitTimeout,
        Self::SettleTimeout,
        Self::NoGeometry,
        Self::HostRequired,
        Self::Unsupported,
        Self::InvalidTreeUpdate,
        Self::GpuUnavailable,
        Self::GpuReadbackFailed,
        Self::BridgeTimeout,
        Self::BridgeDropped,
        Self::BridgeIo,
        Self::TargetFailed,
    ];

    /// The wire spelling, e.g. `"NOT_FOUND"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::BadRequest => "BAD_REQUEST",
            Self::NotFound => "NOT_FOUND",
            Self::Ambiguous => "AMBIGUOUS",
            Self::BadArgument => "BAD_ARGUMENT",
            Self::UnknownName => "UNKNOWN_NAME",
            Self::UnhandledAction => "UNHANDLED_ACTION",
            Self::AssertionFailed => "ASSERTION_FAILED",
            Self::WaitTimeout => "WAIT_TIMEOUT",
            Self::SettleTimeout => "SETTLE_TIMEOUT",
            Self::NoGeometry => "NO_GEOMETRY",
            Self::HostRequired => "HOST_REQUIRED",
            Self::Unsupported => "UNSUPPORTED",
            Self::InvalidTreeUpdate => "INVALID_TREE_UPDATE",
            Self::GpuUnavailable => "GPU_UNAVAILABLE",
            Self::GpuReadbackFailed => "GPU_READBACK_FAILED",
            Self::BridgeTimeout => "BRIDGE_TIMEOUT",
            Self::BridgeDropped => "BRIDGE_DROPPED",
            Self::BridgeIo => "BRIDGE_IO",
            Self::TargetFailed => "TARGET_FAILED",
        }
    }

    /// `true` when the failure comes from the environment and the same request may succeed
    /// later; `false` when the request must change.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            Self::SettleTimeout
                | Self::WaitTimeout
                | Self::GpuUnavailable
                | Self::GpuReadbackFailed
                | Self::BridgeTimeout
                | Self::BridgeDropped
                | Self::BridgeIo
                | Self::TargetFailed
                | Self::InvalidTreeUpdate
        )
    }

    /// One line on what the code means, for generated docs.
    pub fn meaning(self) -> &'static str {
        match self {
            Self::BadRequest => "the request is malformed: unknown op or field, wrong type",
            Self::NotFound => "no node, pointer or window matches the reference",
            Self::Ambiguous => "a selector matched several nodes; pick one from `candidates`",
            Self::BadArgument => {
                "arguments contradict each other or the app's state; nothing was sent"
            }
            Self::UnknownName => "unrecognised action or key name (checked before the node)",
            Self::UnhandledAction => "the node exists but nothing handled the action",
            Self::AssertionFailed => "the assertion was false (or `exists` on a missing node)",
            Self::WaitTimeout => "wait_for_condition spent its budget",
            Self::SettleTimeout => "settle passed its wall-clock budget",
            Self::NoGeometry => "the node has no bounds yet but the op needs them",
            Self::HostRequired => "the op needs the window manager or a GPU; the host serves it",
            Self::Unsupported => "the target does not implement this optional capability",
            Self::InvalidTreeUpdate => {
                "the app sent a malformed tree update; the last good tree is kept"
            }
            Self::GpuUnavailable => "no GPU adapter, not even a software one",
            Self::GpuReadbackFailed => "the GPU device was lost during readback",
            Self::BridgeTimeout => "the app's UI thread did not answer within 15 s",
            Self::BridgeDropped => "the app is shutting down",
            Self::BridgeIo => "client-side I/O error talking to the bridge",
            Self::TargetFailed => "the target failed for a reason that is not the request's fault",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A node an error points at: what the caller might have meant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Candidate {
    /// The node reference to use next (a decimal string, safe in any JSON parser).
    pub node: crate::NodeKey,
    /// AccessKit role name.
    pub role: String,
    /// Resolved label, when the node has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The structured error of a failed op: `{code, message, hint?, candidates?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct OpError {
    /// Stable code.
    pub code: ErrorCode,
    /// One sentence on what went wrong.
    pub message: String,
    /// What to do next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Nodes the caller may have meant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
}

impl OpError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            hint: None,
            candidates: Vec::new(),
        }
    }

    /// Adds the hint (what to do next).
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Adds candidate nodes.
    #[must_use]
    pub fn with_candidates(mut self, candidates: Vec<Candidate>) -> Self {
        self.candidates = candidates;
        self
    }

    pub(crate) fn bad_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadArgument, message)
    }

    pub(crate) fn unsupported(capability: &str) -> Self {
        Self::new(
            ErrorCode::Unsupported,
            format!("this target does not support {capability}"),
        )
        .with_hint("use snapshot_tree / find_node and the generic input ops instead")
    }
}

/// Result of an op body.
pub type OpResult<T = serde_json::Value> = Result<T, OpError>;
