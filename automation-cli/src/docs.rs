//! The generated part of `docs/mcp.md`: the tool table and the error codes, from the catalog.
//! `tests/docs.rs` fails when the checked-in doc drifts; `UPDATE_DOCS=1` rewrites it.

use std::fmt::Write as _;

use automation_core::{Access, CATALOG, ErrorCode};
use serde_json::Value;

/// Marker opening the generated tool table.
pub const TOOLS_BEGIN: &str = "<!-- BEGIN GENERATED: tools -->";
/// Marker closing it.
pub const TOOLS_END: &str = "<!-- END GENERATED: tools -->";
/// Marker opening the generated error-code table.
pub const ERRORS_BEGIN: &str = "<!-- BEGIN GENERATED: errors -->";
/// Marker closing it.
pub const ERRORS_END: &str = "<!-- END GENERATED: errors -->";

fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// One row per tool: name, access, hints, parameters, description.
pub fn tools_table() -> String {
    let mut out = String::from(
        "| Tool | Access | Idempotent | Settle | Parameters | What it does |\n|---|---|---|---|---|---|\n",
    );
    for spec in CATALOG {
        let schema = crate::mcp::tools::input_schema(spec);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let params: Vec<String> = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| {
                p.keys()
                    .filter(|k| k.as_str() != "window_id" && k.as_str() != "settle")
                    .map(|k| {
                        if required.contains(&k.as_str()) {
                            format!("`{k}`")
                        } else {
                            format!("`{k}`?")
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let access = match spec.access {
            Access::ReadOnly => "read-only",
            Access::Mutating => "mutating",
        };
        let _ = writeln!(
            out,
            "| `{}` | {access} | {} | {} | {} | {} |",
            spec.name,
            if spec.idempotent { "yes" } else { "no" },
            if spec.accepts_settle { "yes" } else { "no" },
            if params.is_empty() {
                "—".to_string()
            } else {
                params.join(", ")
            },
            escape(spec.description),
        );
    }
    out
}

/// One row per error code.
pub fn errors_table() -> String {
    let mut out = String::from("| Code | Retry? | Meaning |\n|---|---|---|\n");
    for code in ErrorCode::ALL {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            code.as_str(),
            if code.is_retryable() { "yes" } else { "no" },
            escape(code.meaning())
        );
    }
    out
}

/// Replaces the text between `begin` and `end` (exclusive) with `body`; `None` when a marker
/// is missing.
pub fn replace_between(doc: &str, begin: &str, end: &str, body: &str) -> Option<String> {
    let start = doc.find(begin)? + begin.len();
    let stop = start + doc.get(start..)?.find(end)?;
    Some(format!(
        "{}\n{}{}",
        doc.get(..start)?,
        body,
        doc.get(stop..)?
    ))
}

/// The doc with both generated sections refreshed.
pub fn regenerate(doc: &str) -> Option<String> {
    let doc = replace_between(doc, TOOLS_BEGIN, TOOLS_END, &tools_table())?;
    replace_between(&doc, ERRORS_BEGIN, ERRORS_END, &errors_table())
}
