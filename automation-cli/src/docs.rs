//! The generated part of `docs/mcp.md`: the tool table, from the catalog and the MCP schemas
//! (the error-code table is `automation_core::docs::error_code_table`). `tests/cli/docs.rs` fails
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
        let schema = automation_session::tools::schema::input_schema(spec);
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

/// `docs/cli.md`'s verb table, from the clap definition: each verb, what it does (its help's
/// first line) and its flags, so a verb or flag the binary has is never missing from the page.
pub fn verbs_table() -> String {
    use clap::CommandFactory as _;
    let mut out = String::from("| verb | what it does | flags |\n|---|---|---|\n");
    for verb in crate::cli::Cli::command().get_subcommands() {
        let about = verb.get_about().map(|a| a.to_string()).unwrap_or_default();
        let first = about
            .split(". ")
            .next()
            .unwrap_or_default()
            .trim_end_matches('.');
        let flags: Vec<String> = verb
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|l| *l != "help")
            .map(|l| format!("`--{l}`"))
            .collect();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            verb.get_name(),
            escape(&first.replace('\n', " ")),
            flags.join(", ")
        );
    }
    out
}

/// The fields of each op in `automation tools` (and `--full`), read from its output.
pub fn tools_fields() -> String {
    let fields = |full: bool| -> Vec<String> {
        let catalog = crate::verbs::catalog_json(full);
        let mut keys: Vec<String> = catalog
            .as_array()
            .and_then(|ops| ops.first())
            .and_then(Value::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    };
    let plain = fields(false);
    let extra: Vec<String> = fields(true)
        .into_iter()
        .filter(|k| !plain.contains(k))
        .collect();
    let quote = |ks: &[String]| {
        ks.iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "Fields of each op: {}; `--full` adds {}.\n",
        quote(&plain),
        quote(&extra)
    )
}
