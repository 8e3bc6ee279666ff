//! The runner's one error type: why a flow could not be read, a step's arguments could not be
//! rendered, or a script could not be started. Each source stays typed (the TypeScript gate's
//! error, the expression language's, the files layer's); the kit's JSON error shape is made
//! once, by [`RunnerError::to_json`], where a report or a reply needs it.

use automation_core::ErrorCode;
use automation_session::files::FileError;
use automation_transpile::{ParseError, TranspileError};
use serde_json::{Value, json};

/// What `node` and `bun` missing says to do.
const INSTALL_NODE: &str = "Install Node.js (https://nodejs.org/), or set AUTOMATION_NODE to a node or bun executable, then run the script again";

/// Why the runner refused a flow or could not start one.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// The runner's own refusal: a code from core's table, one sentence, what to do, and the
    /// field (or variable) at fault when there is one.
    #[error("{code}: {message}")]
    Refused {
        /// Stable code.
        code: ErrorCode,
        /// One sentence.
        message: String,
        /// What to do.
        hint: String,
        /// The field or environment variable at fault.
        field: Option<String>,
    },
    /// One of the runner's budgets was exceeded; nothing past it was read or called.
    #[error("{}: {message}", ErrorCode::BudgetExceeded)]
    Budget {
        /// Which budget (`steps`, `yaml_depth`, `rendered_bytes`, …).
        budget: &'static str,
        /// Its limit.
        limit: usize,
        /// Where it ran out.
        at: String,
        /// One sentence.
        message: String,
        /// What to do.
        hint: String,
    },
    /// A script that does not compile: the TypeScript gate's contract. (The large sources
    /// are boxed: the error stays small to pass around.)
    #[error(transparent)]
    Transpile(Box<TranspileError>),
    /// A `{{ … }}` template whose expression does not parse.
    #[error("{field}: {error}")]
    Template {
        /// The expression language's error.
        error: Box<ParseError>,
        /// The field it sits in (`args.label`).
        field: String,
        /// The whole template.
        template: String,
    },
    /// Neither node nor bun is there to run a script.
    #[error("no JavaScript runtime to run the script: neither node nor bun is on PATH")]
    NoRuntime,
    /// A file or directory the run needs, with what it was for when the files layer's own
    /// sentence would not say it.
    #[error("{}", message.clone().unwrap_or_else(|| error.to_string()))]
    File {
        /// The files layer's error.
        error: Box<FileError>,
        /// The sentence to show in place of the files layer's.
        message: Option<String>,
    },
}

impl RunnerError {
    /// The runner's own refusal, without a field.
    pub fn refused(code: ErrorCode, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::Refused {
            code,
            message: message.into(),
            hint: hint.into(),
            field: None,
        }
    }

    /// A bad flow, step or argument (`BAD_REQUEST`).
    pub fn bad(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::refused(ErrorCode::BadRequest, message, hint)
    }

    /// The error in the kit's shape, as reports and replies carry it.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Refused {
                code,
                message,
                hint,
                field,
            } => {
                let mut v = json!({"code": code.as_str(), "message": message, "hint": hint});
                if let (Some(field), Value::Object(m)) = (field, &mut v) {
                    m.insert("field".into(), json!(field));
                }
                v
            }
            Self::Budget {
                budget,
                limit,
                at,
                message,
                hint,
            } => json!({
                "code": ErrorCode::BudgetExceeded.as_str(),
                "budget": budget,
                "limit": limit,
                "at": at,
                "message": message,
                "hint": hint,
            }),
            Self::Transpile(e) => e.to_json(),
            Self::Template {
                error,
                field,
                template,
            } => {
                let mut j = error.to_json();
                if let Value::Object(m) = &mut j {
                    m.insert("code".into(), json!(ErrorCode::BadRequest.as_str()));
                    m.insert("field".into(), json!(field));
                    m.insert("template".into(), json!(template));
                }
                j
            }
            Self::NoRuntime => json!({
                "error_type": "missing_tool",
                "can_fix": false,
                "message": self.to_string(),
                "fix": INSTALL_NODE,
                "recovery": {"action": "install_tool", "tool": "node", "url": "https://nodejs.org/"},
            }),
            Self::File { error, message } => {
                let mut j = error.to_json();
                if let (Some(message), Value::Object(m)) = (message, &mut j) {
                    m.insert("message".into(), json!(message));
                }
                j
            }
        }
    }
}

/// Reports and replies carry errors as JSON: this is that edge.
impl From<RunnerError> for Value {
    fn from(error: RunnerError) -> Self {
        error.to_json()
    }
}

impl From<FileError> for RunnerError {
    fn from(error: FileError) -> Self {
        Self::File {
            error: Box::new(error),
            message: None,
        }
    }
}

impl From<TranspileError> for RunnerError {
    fn from(error: TranspileError) -> Self {
        Self::Transpile(Box::new(error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_keeps_the_kits_shape() {
        let e = RunnerError::bad("x: step 1 has an empty `tool`", "name a tool");
        assert_eq!(
            e.to_json(),
            json!({"code": "BAD_REQUEST", "message": "x: step 1 has an empty `tool`", "hint": "name a tool"})
        );
        assert_eq!(e.to_string(), "BAD_REQUEST: x: step 1 has an empty `tool`");
        let budget = RunnerError::Budget {
            budget: "steps",
            limit: 3,
            at: "f.json".into(),
            message: "too many".into(),
            hint: "split it".into(),
        };
        assert_eq!(budget.to_json()["code"], "BUDGET_EXCEEDED");
        assert_eq!(budget.to_json()["limit"], 3);
        let none = RunnerError::NoRuntime.to_json();
        assert_eq!(none["error_type"], "missing_tool");
        assert!(none["message"].as_str().is_some_and(|m| m.contains("node")));
    }
}
