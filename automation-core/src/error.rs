//! Error codes and the structured error every failed op returns.
//!
//! An agent reads these and decides what to do next, so each carries a stable `code`, a
//! one-sentence `message`, and where useful a `hint` (what to do) and `candidates` (what it
//! could have meant). [`ErrorCode::is_retryable`] separates "the environment, retry" from
//! "your request, fix it".

use serde::{Deserialize, Serialize};

/// Whose fault an error is: what the caller should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// The request is wrong: fix it (the same request fails again).
    Request,
    /// The environment: the same request may succeed if retried.
    Retry,
    /// The environment, for good: the app is gone and must be started again.
    Relaunch,
}

/// Declares every error code once: the enum variant, its wire spelling, whose [`Fault`] it is,
/// and its one-line meaning. [`ErrorCode::ALL`], [`ErrorCode::as_str`], [`ErrorCode::fault`]
/// and [`ErrorCode::meaning`] are generated
/// from this list, so a code cannot exist without its docs row.
macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])* $variant:ident = $wire:literal, $fault:ident, $meaning:literal; )*) => {
        /// Stable machine-readable error codes (serialised `SCREAMING_SNAKE_CASE`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
        #[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
        pub enum ErrorCode { $( $(#[doc = $doc])* $variant, )* }

        impl ErrorCode {
            /// Every code, in declaration order (for docs and drift tests).
            pub const ALL: &'static [ErrorCode] = &[ $( Self::$variant, )* ];

            /// The wire spelling, e.g. `"NOT_FOUND"`.
            pub fn as_str(self) -> &'static str {
                match self { $( Self::$variant => $wire, )* }
            }

            /// Whose fault it is, and so what the caller does next.
            pub fn fault(self) -> Fault {
                match self { $( Self::$variant => Fault::$fault, )* }
            }

            /// One line on what the code means, for generated docs.
            pub fn meaning(self) -> &'static str {
                match self { $( Self::$variant => $meaning, )* }
            }
        }
    };
}

error_codes! {
    /// The request itself is malformed: unknown op, unknown field, wrong type.
    BadRequest = "BAD_REQUEST", Request,
        "the request is malformed: unknown op or field, wrong type";
    /// No node (or pointer, or window) matches the node reference or selector.
    NotFound = "NOT_FOUND", Request,
        "no node, pointer or window matches the node reference or selector";
    /// A selector matched several nodes; `candidates` lists them.
    Ambiguous = "AMBIGUOUS", Request,
        "a selector matched several nodes; pick one from `candidates`";
    /// Arguments contradict each other or the app's state; nothing was sent.
    BadArgument = "BAD_ARGUMENT", Request,
        "arguments contradict each other or the app's state; nothing was sent";
    /// An unrecognised action or key name (checked before the node is looked up).
    UnknownName = "UNKNOWN_NAME", Request,
        "unrecognised action or key name (checked before the node)";
    /// The node exists but nothing handled the action.
    UnhandledAction = "UNHANDLED_ACTION", Request,
        "the node exists but nothing handled the action";
    /// A reference from an earlier reply names a node that is gone or has become something
    /// else (the toolkit reused its id); `candidates` holds the likely successor.
    Stale = "STALE", Request,
        "a reference names a node that is gone or became something else; use a candidate or a fresh snapshot";
    /// An assertion was false.
    AssertionFailed = "ASSERTION_FAILED", Request,
        "the assertion was false (or `exists` on a missing node)";
    /// `wait_for_condition` spent its budget.
    WaitTimeout = "WAIT_TIMEOUT", Retry,
        "wait_for_condition spent its budget";
    /// `settle` passed its wall-clock budget.
    SettleTimeout = "SETTLE_TIMEOUT", Retry,
        "settle passed its wall-clock budget";
    /// The node has no bounds yet but the op needs them.
    NoGeometry = "NO_GEOMETRY", Request,
        "the node has no bounds yet but the op needs them";
    /// Pointer input aimed at a node outside the visible area, and scrolling it into view did
    /// not bring it in; nothing was sent.
    OutOfView = "OUT_OF_VIEW", Request,
        "the node is outside the visible area even after scrolling it into view; nothing was sent";
    /// The op was delivered but the app did not take it: the node's state is not what the op
    /// asked for (`actual` / `expected` say what it is).
    NoEffect = "NO_EFFECT", Request,
        "the op reached the app but the node did not change as asked; `actual` says what it holds";
    /// The node is disabled: a person could not act on it, so nothing was sent.
    Disabled = "DISABLED", Request,
        "the node is disabled: a person could not act on it; nothing was sent";
    /// The node is not shown (hidden, on a closed page or popup, no on-screen bounds): a
    /// person could not reach it, so nothing was sent.
    NotVisible = "NOT_VISIBLE", Request,
        "the node is not shown (hidden, on another page, in a closed popup); nothing was sent";
    /// The op needs the host (window manager or GPU); `execute` cannot serve it.
    HostRequired = "HOST_REQUIRED", Request,
        "the op needs the window manager or a GPU; the host serves it";
    /// The target does not implement this optional capability.
    Unsupported = "UNSUPPORTED", Request,
        "the target does not implement this optional capability";
    /// The app produced a malformed accessibility tree update; the mirror kept the last good tree.
    InvalidTreeUpdate = "INVALID_TREE_UPDATE", Retry,
        "the app sent a malformed tree update; the last good tree is kept";
    /// Screenshot: the host has no GPU to render with (a target that renders on the GPU; the
    /// built-in egui targets rasterize on the CPU and never answer it).
    GpuUnavailable = "GPU_UNAVAILABLE", Retry,
        "no GPU to render the screenshot with";
    /// Screenshot: reading the pixels back failed (a lost device, a window closed mid-capture).
    GpuReadbackFailed = "GPU_READBACK_FAILED", Retry,
        "reading the screenshot's pixels back failed";
    /// Live bridge: the app's UI thread did not answer in time.
    BridgeTimeout = "BRIDGE_TIMEOUT", Retry,
        "the app's UI thread did not answer within 15 s";
    /// Live bridge: the app is shutting down.
    BridgeDropped = "BRIDGE_DROPPED", Retry,
        "the app is shutting down";
    /// Live bridge: client-side I/O failure.
    BridgeIo = "BRIDGE_IO", Retry,
        "client-side I/O error talking to the bridge";
    /// The target failed in a way that is not the caller's fault.
    TargetFailed = "TARGET_FAILED", Retry,
        "the target failed for a reason that is not the request's fault";
    /// The app did not answer within the target's own deadline.
    TargetTimeout = "TARGET_TIMEOUT", Retry,
        "the app did not answer in time (busy, or a modal loop); retry";
    /// The caller cancelled the op while it ran (between two of its steps).
    Cancelled = "CANCELLED", Retry,
        "the caller cancelled the op while it ran; the app may have received part of it";
    /// The app under test is gone: it exited, crashed or closed its connection.
    AppGone = "APP_GONE", Relaunch,
        "the app under test exited or closed its connection; relaunch it";

    // The runner's codes: how a run (`automation run`, `execute_sequence`, `automation exec`)
    // failed where no op answered. They appear in a step's or a run's error, never in an op's
    // reply.

    /// A run: a step its script or command reported failed carried no error code of its own,
    /// or the child ended while the step was still running.
    StepFailed = "STEP_FAILED", Request,
        "a run: a step the script or command reported failed without a code of its own, or never finished";
    /// A run: the script threw outside any op error, or exited non-zero.
    ScriptError = "SCRIPT_ERROR", Request,
        "a run: the script threw, or exited non-zero; `location` points into the script";
    /// A run: the script exited while a step it started was still running (`process.exit`
    /// inside a step, a step never awaited): never a pass.
    ScriptExitedEarly = "SCRIPT_EXITED_EARLY", Request,
        "a run: the script exited during a step it started; await every step, no process.exit inside one";
    /// A run reached one of its caps (steps, tries, events, rendered bytes, YAML depth);
    /// `budget`, `limit` and `at` say which.
    BudgetExceeded = "BUDGET_EXCEEDED", Request,
        "a run reached one of its caps (`budget`, `limit` and `at` say which); the flow must ask for less";
    /// A run passed its time limit (`--timeout`, `AUTOMATION_SCRIPT_TIMEOUT`, or the default)
    /// and was stopped.
    RunTimeout = "RUN_TIMEOUT", Retry,
        "a run passed its time limit and was stopped; make it shorter or raise the limit";
    /// `automation exec`: the command could not start (not found, not executable).
    CommandNotStarted = "COMMAND_NOT_STARTED", Request,
        "`automation exec`: the command could not start (not found, not executable)";
    /// `automation exec`: the command exited non-zero with no failed step to say why.
    CommandFailed = "COMMAND_FAILED", Request,
        "`automation exec`: the command exited non-zero with no failed step";
    /// `automation exec`: the command died by a signal.
    CommandKilled = "COMMAND_KILLED", Retry,
        "`automation exec`: the command died by a signal";
    /// A run was stopped from outside (SIGINT, SIGTERM), passed on to its child.
    Interrupted = "INTERRUPTED", Retry,
        "a run was stopped from outside (SIGINT, SIGTERM); run it again";

    // The file codes: a flow file, `execute_sequence`'s `file`, records, reports and `save_to`
    // go through one reader and writer, which refuses with these.

    /// A path that must be a regular file is a FIFO, socket, device, directory or symlink.
    NotARegularFile = "NOT_A_REGULAR_FILE", Request,
        "a file path names a FIFO, socket, device, directory or (where we write) a symlink; `kind` says which";
    /// A file is over its cap (a flow: 8 MiB).
    FileTooLarge = "FILE_TOO_LARGE", Request,
        "a file is over its cap (a flow file: 8 MiB)";
    /// A private directory is not ours, is a symlink, or is open to other users.
    UnsafePath = "UNSAFE_PATH", Request,
        "a directory we keep private is a symlink, not ours, or open to others; name another";
    /// Reading or writing a file failed (permissions, a full disk).
    FileIo = "FILE_IO", Retry,
        "reading or writing a file failed (permissions, a full disk)";

    // The HTTP edge's refusals (WebDriver, MCP over HTTP, the inspector, `show-report`): who
    // is asking, checked before any request is served.

    /// A request whose `Host` header is not the server's loopback address (DNS rebinding).
    HostRefused = "HOST_REFUSED", Request,
        "the HTTP edge: the Host header is not the server's loopback address; call it at the address it printed";
    /// A loopback connection that belongs to another local user.
    PeerRefused = "PEER_REFUSED", Request,
        "the HTTP edge: the connection belongs to another local user; each user starts their own server";
    /// A request a web page sent (its `Origin` is not allowed).
    OriginRefused = "ORIGIN_REFUSED", Request,
        "the HTTP edge: a web page sent it (its Origin is not allowed); allow it with --allow-origin where that is meant";
    /// A browser's cross-site request that named no origin (`Sec-Fetch-Site`).
    CrossSiteRefused = "CROSS_SITE_REFUSED", Request,
        "the HTTP edge: a browser's cross-site request that named no origin";
    /// No token, or another one, where the server needs its token.
    TokenRequired = "TOKEN_REQUIRED", Request,
        "the HTTP edge: the request had no token or another one; send the token the server printed";
    /// A POST body that is not `application/json`.
    ContentTypeRefused = "CONTENT_TYPE_REFUSED", Request,
        "the HTTP edge: a POST body that is not application/json";
}

impl ErrorCode {
    /// `true` when the failure comes from the environment and the same request may succeed
    /// later; `false` when the request must change (or the app must be relaunched).
    pub fn is_retryable(self) -> bool {
        self.fault() == Fault::Retry
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
    /// The node reference to use next (`"e12"`).
    pub node: crate::RefKey,
    /// AccessKit role name.
    pub role: String,
    /// Accessible name, when the node has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Value, when the node has one (a text field's text, a slider's number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
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
    /// What was found, as data (a failed assertion or wait). Boxed: most errors carry none,
    /// and the error stays small to pass around.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<Box<serde_json::Value>>,
    /// What was expected, as data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Box<serde_json::Value>>,
    /// Each means tried when an intent was carried out by none (`[{means, skipped | no_effect}]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tried: Option<Box<serde_json::Value>>,
}

impl OpError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            hint: None,
            candidates: Vec::new(),
            actual: None,
            expected: None,
            tried: None,
        }
    }

    /// Adds what was found and what was expected, as data.
    #[must_use]
    pub fn with_actual_expected(
        mut self,
        actual: serde_json::Value,
        expected: serde_json::Value,
    ) -> Self {
        self.actual = Some(Box::new(actual));
        self.expected = Some(Box::new(expected));
        self
    }

    /// Adds the means tried.
    #[must_use]
    pub fn with_tried(mut self, tried: serde_json::Value) -> Self {
        self.tried = Some(Box::new(tried));
        self
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

    /// A `BAD_ARGUMENT` error.
    pub fn bad_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadArgument, message)
    }

    /// An `UNSUPPORTED` error naming the capability.
    pub fn unsupported(capability: &str) -> Self {
        Self::new(
            ErrorCode::Unsupported,
            format!("this target does not support {capability}"),
        )
        .with_hint("use snapshot_tree / find_node and the generic input ops instead")
    }
}

/// Result of an op body.
pub type OpResult<T = serde_json::Value> = Result<T, OpError>;
