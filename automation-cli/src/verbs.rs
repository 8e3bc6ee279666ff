//! One-shot verbs for scripts: `op`, `tools`, `eval`, `transpile`. Each returns what to print
//! and the exit code, so the table of streams and codes is testable without a process.

use std::path::Path;

use automation_core::{CATALOG, ErrorCode, Op, OpError, Reply, Request};
use automation_transpile::expr::Expr;
use serde_json::{Value, json};

use crate::backend::TargetHandle;

/// What a verb prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// For stdout (a trailing newline is added).
    pub stdout: String,
    /// For stderr (a trailing newline is added when non-empty).
    pub stderr: String,
    /// Exit code.
    pub code: u8,
}

impl Outcome {
    /// Exit 0 with this on stdout.
    pub fn ok(stdout: impl Into<String>) -> Self {
        Self {
            stdout: stdout.into(),
            stderr: String::new(),
            code: 0,
        }
    }
    /// Exit 1 with this on stdout (a structured error is the output).
    pub fn failed_with(stdout: impl Into<String>) -> Self {
        Self {
            stdout: stdout.into(),
            stderr: String::new(),
            code: 1,
        }
    }
    /// Exit `code` with a message on stderr.
    pub fn error(code: u8, stderr: impl Into<String>) -> Self {
        Self {
            stdout: String::new(),
            stderr: stderr.into(),
            code,
        }
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// Parses the `op` argument: a whole request (`{"op": …}`) or just the op.
pub fn parse_op_arg(text: &str) -> Result<Request, OpError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        OpError::new(
            ErrorCode::BadRequest,
            format!("the op is not valid JSON: {e}"),
        )
        .with_hint(
            r#"quote it for the shell, e.g. automation op '{"find_node": {"label": "Save"}}'"#,
        )
    })?;
    let is_request = value.as_object().is_some_and(|m| m.contains_key("op"));
    if is_request {
        Request::from_value(value)
    } else {
        Request::from_value(json!({ "op": value }))
    }
}

/// `automation op`: one request through the target, the reply envelope on stdout.
pub fn op(target: &TargetHandle, text: &str) -> Outcome {
    let reply = match parse_op_arg(text) {
        Ok(request) => target.call_blocking(request),
        Err(e) => Reply::Err(e),
    };
    let value = serde_json::to_value(&reply).unwrap_or_else(
        |e| json!({"status": "err", "code": "TARGET_FAILED", "message": e.to_string()}),
    );
    Outcome {
        stdout: pretty(&value),
        stderr: String::new(),
        code: u8::from(!reply.is_ok()),
    }
}

/// The catalog as JSON: every op with its MCP input schema.
pub fn catalog_json() -> Value {
    Value::Array(
        CATALOG
            .iter()
            .map(|s| {
                let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
                if let Value::Object(m) = &mut v {
                    m.insert(
                        "input_schema".into(),
                        Value::Object(crate::mcp::tools::input_schema(s)),
                    );
                    m.insert(
                        "args_schema".into(),
                        Op::args_schema(s.name).unwrap_or(Value::Null),
                    );
                }
                v
            })
            .collect(),
    )
}

/// `automation tools`.
pub fn tools() -> Outcome {
    Outcome::ok(pretty(&catalog_json()))
}

/// `automation eval`.
pub fn eval(expr: &str, vars: Option<&str>) -> Outcome {
    let vars = match vars {
        None => json!({}),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(v) => v,
            Err(e) => return Outcome::error(2, format!("error: --vars is not valid JSON: {e}")),
        },
    };
    match Expr::parse(expr) {
        Ok(e) => Outcome::ok(e.evaluate(&vars).to_string()),
        Err(e) => Outcome::failed_with(pretty(&e.to_json())),
    }
}

/// `automation transpile`.
pub fn transpile(file: &Path, detect: bool) -> Outcome {
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => return Outcome::error(1, format!("error: cannot read {}: {e}", file.display())),
    };
    if detect {
        let d = automation_transpile::detect(&source);
        return Outcome::ok(if d.is_typescript {
            "typescript"
        } else {
            "javascript"
        });
    }
    match automation_transpile::transpile(&source) {
        Ok(t) => Outcome::ok(t.code.trim_end_matches('\n').to_string()),
        Err(e) => Outcome::failed_with(pretty(&e.to_json())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_arg_accepts_bare_ops_and_requests() {
        assert_eq!(
            parse_op_arg(r#""snapshot_tree""#).unwrap().op.name(),
            "snapshot_tree"
        );
        assert_eq!(
            parse_op_arg(r#"{"find_node": {"label": "Save"}}"#)
                .unwrap()
                .op
                .name(),
            "find_node"
        );
        let r = parse_op_arg(r#"{"op": {"invoke_action": {"node": "1", "action": "click"}}, "settle": {"clock_millis": 5}}"#).unwrap();
        assert_eq!(r.settle.map(|s| s.clock_millis), Some(5));
        assert!(parse_op_arg("{nope").is_err());
        assert!(
            parse_op_arg(r#"{"find_node": {"lable": "x"}}"#)
                .unwrap_err()
                .message
                .contains("lable")
        );
    }

    #[test]
    fn eval_prints_booleans_or_the_parse_error() {
        assert_eq!(
            eval("a.b < 3", Some(r#"{"a": {"b": 1}}"#)),
            Outcome::ok("true")
        );
        assert_eq!(eval("1 > 2", None), Outcome::ok("false"));
        let bad = eval("a <", None);
        assert_eq!(bad.code, 1);
        assert!(serde_json::from_str::<Value>(&bad.stdout).is_ok());
        assert_eq!(eval("true", Some("{")).code, 2);
    }

    #[test]
    fn catalog_lists_every_op() {
        assert_eq!(catalog_json().as_array().map(Vec::len), Some(CATALOG.len()));
    }
}
