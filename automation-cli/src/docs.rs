//! The generated part of `docs/mcp.md`: the tool table, from the catalog and the MCP schemas
//! (the error-code table is `automation_core::docs::error_code_table`). `tests/docs.rs` fails
//! when the checked-in page drifts; `UPDATE_DOCS=1` rewrites it.

use std::fmt::Write as _;

use automation_core::{Access, CATALOG};
use serde_json::Value;

fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// One row per tool: name, cap (the tool set that lists it), access, hints, parameters,
/// description.
pub fn tools_table() -> String {
    let mut out = String::from(
        "| Tool | Cap | Access | Idempotent | Settle | Parameters | What it does |\n|---|---|---|---|---|---|---|\n",
    );
    for spec in CATALOG {
        let schema = crate::tools::schema::input_schema(spec);
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
                    .filter(|k| k.as_str() != "settle")
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
            "| `{}` | {} | {access} | {} | {} | {} | {} |",
            spec.name,
            spec.cap.name(),
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
