//! One-shot verbs for scripts: `op`, `tools`, `eval`, `transpile`. Each returns what to print
//! and the exit code, so the table of streams and codes is testable without a process.

use std::path::Path;

use automation_core::catalog::ReplyKind;
use automation_core::{CATALOG, ErrorCode, Image, Op, OpError, Reply, Request};
use automation_transpile::expr::Expr;
use serde_json::{Value, json};

use automation_session::backend::TargetHandle;

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

/// Parses the `op` argument: a whole request (`{"op": …}`), just the op, or a bare op name
/// (`snapshot_tree`), with the op's arguments as a separate JSON object when given
/// (`find_node '{"label": "Save"}'`).
pub fn parse_op_arg(text: &str, args: Option<&str>) -> Result<Request, OpError> {
    let trimmed = text.trim();
    let bare_name = !trimmed.is_empty()
        && trimmed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    if let Some(args) = args {
        if !bare_name {
            return Err(OpError::new(
                ErrorCode::BadRequest,
                format!(
                    "with a separate arguments object the op must be a bare name, got {text:?}"
                ),
            )
            .with_hint(r#"e.g. automation op find_node '{"label": "Save"}'"#));
        }
        let args: Value = serde_json::from_str(args).map_err(|e| {
            OpError::new(
                ErrorCode::BadRequest,
                format!("the arguments of {trimmed} are not valid JSON: {e}"),
            )
            .with_hint(format!(
                r#"quote them for the shell, e.g. automation op {trimmed} '{{"node": "42"}}'"#
            ))
        })?;
        // `automation tools` lists `settle` and `with_selector` among a tool's arguments; they
        // are the request's, so they are lifted to it here as the tool layer does.
        let mut request = json!({ "op": { trimmed: args } });
        if let Some(Value::Object(args)) = request["op"].get_mut(trimmed) {
            let lifted: Vec<(&str, Value)> = ["settle", "with_selector"]
                .into_iter()
                .filter_map(|field| Some((field, args.remove(field)?)))
                .collect();
            for (field, value) in lifted {
                request[field] = value;
            }
        }
        return Request::from_value(request);
    }
    if bare_name {
        return Request::from_value(json!({ "op": trimmed }));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        OpError::new(
            ErrorCode::BadRequest,
            format!("the op is neither an op name nor valid JSON: {e}"),
        )
        .with_hint(
            r#"give a name (automation op snapshot_tree), a name and its arguments (automation op find_node '{"label": "Save"}'), or the op as JSON"#,
        )
    })?;
    let is_request = value.as_object().is_some_and(|m| m.contains_key("op"));
    if is_request {
        Request::from_value(value)
    } else {
        Request::from_value(json!({ "op": value }))
    }
}

/// Where `automation op screenshot` writes its PNG (`--out`, `--overwrite`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SaveTo {
    /// The file.
    pub path: Option<String>,
    /// Replace an existing regular file.
    pub overwrite: bool,
}

/// `automation op`: one request through the target, the reply envelope on stdout. With
/// `save.path`, a screenshot's PNG goes to that file and the reply says `{path, bytes}` in
/// place of the pixels.
pub fn op(target: &TargetHandle, text: &str, args: Option<&str>, save: &SaveTo) -> Outcome {
    let request = match parse_op_arg(text, args) {
        Ok(r) => r,
        Err(e) => return reply_outcome(&Reply::Err(e)),
    };
    let is_shot = request.op.spec().reply == ReplyKind::Image;
    if save.path.is_some() && !is_shot {
        return Outcome::error(
            2,
            format!(
                "error: --out saves a screenshot, and this op is {}\n\nFor more information, try '--help'.",
                request.op.name()
            ),
        );
    }
    let mut reply = target.call_blocking(request);
    if let (Some(path), Reply::Image(image)) = (&save.path, &reply) {
        reply = save_screenshot(image, path, save.overwrite).unwrap_or_else(Reply::Err);
    }
    reply_outcome(&reply)
}

fn reply_outcome(reply: &Reply) -> Outcome {
    let value = serde_json::to_value(reply).unwrap_or_else(
        |e| json!({"status": "err", "code": ErrorCode::TargetFailed.as_str(), "message": e.to_string()}),
    );
    Outcome {
        stdout: pretty(&value),
        stderr: String::new(),
        code: u8::from(!reply.is_ok()),
    }
}

/// Writes a screenshot's PNG to `path` (the MCP server's `save_to` rules: a new file, or a
/// regular one with `overwrite`; symlinks never followed); the reply says where, and how big,
/// in place of the pixels.
fn save_screenshot(image: &Image, path: &str, overwrite: bool) -> Result<Reply, OpError> {
    let written = automation_session::tools::save::save_to(path, &image.png, overwrite).map_err(
        |mut e| {
            // save_to speaks of the MCP option; here it is the flag.
            e.message = e.message.replacen("save_to: ", "--out: ", 1);
            e.hint = e.hint.map(|h| {
                h.replace("save_to", "--out")
                    .replace("overwrite: true", "--overwrite")
            });
            e
        },
    )?;
    let mut data = image.meta();
    data.insert("path".into(), json!(written.display().to_string()));
    data.insert("bytes".into(), json!(image.png.len()));
    Ok(Reply::Ok(Value::Object(data)))
}

/// The catalog as JSON: every op (whatever its cap) with the input schema the MCP server
/// sends; `full` adds `args_schema`, the op's own arguments with every subschema spelled out.
pub fn catalog_json(full: bool) -> Value {
    Value::Array(
        CATALOG
            .iter()
            .map(|s| {
                let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
                if let Value::Object(m) = &mut v {
                    m.insert(
                        "input_schema".into(),
                        Value::Object(automation_session::tools::schema::input_schema(s)),
                    );
                    if full {
                        m.insert(
                            "args_schema".into(),
                            Op::args_schema(s.name).unwrap_or(Value::Null),
                        );
                    }
                }
                v
            })
            .collect(),
    )
}

/// `automation tools [--full]`.
pub fn tools(full: bool) -> Outcome {
    Outcome::ok(pretty(&catalog_json(full)))
}

/// `automation eval`: the value on stdout; each variable path absent from `--vars` is a
/// warning on stderr naming it and the closest existing path. With `strict`, such a path is
/// the error (JSON on stdout, exit 1).
pub fn eval(expr: &str, vars: Option<&str>, strict: bool) -> Outcome {
    let vars = match vars {
        None => json!({}),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(v) => v,
            Err(e) => return Outcome::error(2, format!("error: --vars is not valid JSON: {e}")),
        },
    };
    let e = match Expr::parse(expr) {
        Ok(e) => e,
        Err(e) => return Outcome::failed_with(pretty(&e.to_json())),
    };
    if strict {
        return match e.evaluate_strict(&vars) {
            Ok(v) => Outcome::ok(v.to_string()),
            Err(err) => Outcome::failed_with(pretty(&err.to_json())),
        };
    }
    let out = e.evaluate_with_warnings(&vars);
    let stderr: Vec<String> = out
        .warnings
        .iter()
        .map(|w| format!("warning: {w}; it counts as missing (--strict makes it an error)"))
        .collect();
    Outcome {
        stdout: out.value.to_string(),
        stderr: stderr.join("\n"),
        code: 0,
    }
}

/// `automation export --records DIR`: the run's calls as a test, on stdout or in `out`; what
/// was left out on stderr.
pub fn export(
    records: &Path,
    format: &str,
    name: &str,
    out: Option<&str>,
    overwrite: bool,
) -> Outcome {
    use automation_runner::authoring::{self, Format, Range};
    let format = match format {
        "yaml" => Format::Yaml,
        "json" => Format::Json,
        _ => Format::Ts,
    };
    let records = &authoring::records::run_dir(records);
    let log = match authoring::records::log_from_records(records) {
        Ok(log) => log,
        Err(e) => return Outcome::error(1, format!("error: {e}")),
    };
    let source = format!("the records in {}", records.display());
    let (plan, text) = authoring::write(&log, &Range::default(), format, name, &source);
    let left: Vec<String> = plan
        .left_out
        .iter()
        .map(|l| format!("left out: call {} {}: {}", l.index, l.tool, l.why))
        .collect();
    match out {
        None => Outcome {
            stdout: text.trim_end().to_string(),
            stderr: left.join("\n"),
            code: 0,
        },
        Some(path) => {
            match automation_session::tools::save::save_to(path, text.as_bytes(), overwrite) {
                Ok(written) => Outcome {
                    stdout: written.display().to_string(),
                    stderr: left.join("\n"),
                    code: 0,
                },
                Err(e) => Outcome::error(
                    1,
                    format!("error: {}", e.message.replacen("save_to", "--out", 1)),
                ),
            }
        }
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
    let kind = automation_transpile::transpile::SourceKind::from_path(file);
    match automation_transpile::transpile::transpile_as(&source, kind) {
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
            parse_op_arg(r#""snapshot_tree""#, None).unwrap().op.name(),
            "snapshot_tree"
        );
        assert_eq!(
            parse_op_arg("snapshot_tree", None).unwrap().op.name(),
            "snapshot_tree"
        );
        assert_eq!(
            parse_op_arg(r#"{"find_node": {"label": "Save"}}"#, None)
                .unwrap()
                .op
                .name(),
            "find_node"
        );
        let r = parse_op_arg(
            "find_node",
            Some(r#"{"label": "Save", "with_selector": true}"#),
        )
        .unwrap();
        assert!(
            r.with_selector,
            "the tool list's with_selector is the request's"
        );
        let r = parse_op_arg("find_node", Some(r#"{"label": "Save"}"#)).unwrap();
        assert_eq!(r.op.name(), "find_node");
        let r = parse_op_arg(r#"{"op": {"invoke_action": {"node": "1", "action": "click"}}, "settle": {"clock_millis": 5}}"#, None).unwrap();
        assert_eq!(r.settle.map(|s| s.clock_millis), Some(5));
        assert!(parse_op_arg("{nope", None).is_err());
        assert!(parse_op_arg(r#""find_node""#, Some("{}")).is_err());
        assert!(
            parse_op_arg(r#"{"find_node": {"lable": "x"}}"#, None)
                .unwrap_err()
                .message
                .contains("lable")
        );
        // An unknown bare name gets the closest op, in CLI words.
        let e = parse_op_arg("snapshot_tre", None).unwrap_err();
        assert!(e.hint.unwrap_or_default().contains("snapshot_tree"));
    }

    #[test]
    fn eval_prints_booleans_or_the_parse_error() {
        assert_eq!(
            eval("a.b < 3", Some(r#"{"a": {"b": 1}}"#), false),
            Outcome::ok("true")
        );
        assert_eq!(eval("1 > 2", None, false), Outcome::ok("false"));
        let bad = eval("a <", None, false);
        assert_eq!(bad.code, 1);
        assert!(serde_json::from_str::<Value>(&bad.stdout).is_ok());
        assert_eq!(eval("true", Some("{"), false).code, 2);
        let strict = eval("a.c < 3", Some(r#"{"a": {"b": 1}}"#), true);
        assert_eq!(strict.code, 1);
        assert!(
            strict.stdout.contains("missing_variable"),
            "{}",
            strict.stdout
        );
    }

    #[test]
    fn catalog_lists_every_op() {
        assert_eq!(
            catalog_json(false).as_array().map(Vec::len),
            Some(CATALOG.len())
        );
        assert!(catalog_json(true)[0].get("args_schema").is_some());
        assert!(catalog_json(false)[0].get("args_schema").is_none());
    }
}
