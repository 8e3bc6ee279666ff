//! W3C WebDriver errors: the error code a client library turns into its exception, the HTTP
//! status the spec gives it, and the kit's own `{code, message, hint, candidates}` in `data`
//! so nothing the tool layer said is lost.

use automation_core::{ErrorCode, OpError};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The W3C error codes this server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum W3c {
    /// No element matched the locator.
    NoSuchElement,
    /// The element's node is gone or became something else.
    StaleElementReference,
    /// A person could not act on it (disabled, hidden, out of view).
    ElementNotInteractable,
    /// The locator is not one we read (unknown strategy, bad XPath or selector).
    InvalidSelector,
    /// The command's arguments are wrong.
    InvalidArgument,
    /// No such session.
    InvalidSessionId,
    /// The session could not start.
    SessionNotCreated,
    /// The command ran out of time.
    Timeout,
    /// No such command.
    UnknownCommand,
    /// The command exists but not for this target.
    UnsupportedOperation,
    /// No window with that handle.
    NoSuchWindow,
    /// A script (an `automation: <op>` call) failed.
    JavascriptError,
    /// Anything else.
    UnknownError,
}

impl W3c {
    /// The code as the spec spells it.
    pub fn code(self) -> &'static str {
        match self {
            Self::NoSuchElement => "no such element",
            Self::StaleElementReference => "stale element reference",
            Self::ElementNotInteractable => "element not interactable",
            Self::InvalidSelector => "invalid selector",
            Self::InvalidArgument => "invalid argument",
            Self::InvalidSessionId => "invalid session id",
            Self::SessionNotCreated => "session not created",
            Self::Timeout => "timeout",
            Self::UnknownCommand => "unknown command",
            Self::UnsupportedOperation => "unsupported operation",
            Self::NoSuchWindow => "no such window",
            Self::JavascriptError => "javascript error",
            Self::UnknownError => "unknown error",
        }
    }

    /// The HTTP status the spec's error table gives it.
    pub fn status(self) -> StatusCode {
        match self {
            Self::NoSuchElement
            | Self::StaleElementReference
            | Self::InvalidSessionId
            | Self::UnknownCommand
            | Self::NoSuchWindow => StatusCode::NOT_FOUND,
            Self::ElementNotInteractable | Self::InvalidSelector | Self::InvalidArgument => {
                StatusCode::BAD_REQUEST
            }
            Self::SessionNotCreated
            | Self::Timeout
            | Self::UnsupportedOperation
            | Self::JavascriptError
            | Self::UnknownError => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// An error reply.
#[derive(Debug, Clone)]
pub struct WdError {
    /// The W3C code.
    pub kind: W3c,
    /// One sentence.
    pub message: String,
    /// The kit's error (`code`, `hint`, `candidates`, …), when the tool layer gave one.
    pub data: Option<Value>,
}

impl WdError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: W3c, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            data: None,
        }
    }

    /// `invalid argument`.
    pub fn argument(message: impl Into<String>) -> Self {
        Self::new(W3c::InvalidArgument, message)
    }

    /// A tool-layer error as W3C names it. `on_element`: the call named an element the
    /// client holds, so a node that is gone is a stale reference, not a missing element.
    pub fn from_op(e: &OpError, on_element: bool) -> Self {
        let kind = match e.code {
            ErrorCode::NotFound if on_element => W3c::StaleElementReference,
            ErrorCode::NotFound => W3c::NoSuchElement,
            ErrorCode::Stale => W3c::StaleElementReference,
            ErrorCode::Disabled
            | ErrorCode::NotVisible
            | ErrorCode::OutOfView
            | ErrorCode::NoGeometry => W3c::ElementNotInteractable,
            ErrorCode::BadRequest | ErrorCode::BadArgument | ErrorCode::UnknownName => {
                W3c::InvalidArgument
            }
            ErrorCode::Unsupported | ErrorCode::HostRequired => W3c::UnsupportedOperation,
            ErrorCode::WaitTimeout | ErrorCode::SettleTimeout => W3c::Timeout,
            _ => W3c::UnknownError,
        };
        let mut message = e.message.clone();
        if let Some(hint) = &e.hint {
            message = format!("{message} ({hint})");
        }
        Self {
            kind,
            message,
            data: Some(automation_session::tools::shape::error_value(e)),
        }
    }
}

impl IntoResponse for WdError {
    fn into_response(self) -> Response {
        let mut value = json!({
            "error": self.kind.code(),
            "message": self.message,
            "stacktrace": "",
        });
        if let Some(data) = self.data {
            value["data"] = data;
        }
        (self.kind.status(), axum::Json(json!({ "value": value }))).into_response()
    }
}

/// A command's result.
pub type WdResult = Result<Value, WdError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gone_node_is_stale_on_an_element_and_missing_on_a_find() {
        let e = OpError::new(ErrorCode::NotFound, "no node").with_hint("take a fresh snapshot");
        assert_eq!(WdError::from_op(&e, true).kind, W3c::StaleElementReference);
        let missing = WdError::from_op(&e, false);
        assert_eq!(missing.kind, W3c::NoSuchElement);
        assert_eq!(missing.kind.status(), StatusCode::NOT_FOUND);
        assert_eq!(missing.data.unwrap()["code"], "NOT_FOUND");
        let disabled = OpError::new(ErrorCode::Disabled, "disabled");
        assert_eq!(
            WdError::from_op(&disabled, true).kind,
            W3c::ElementNotInteractable
        );
    }
}
