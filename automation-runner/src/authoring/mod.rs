//! Authoring: what an agent did in a session becomes a committed regression test.
//!
//! The data's path, one module each:
//! - [`log`]: the MCP session's calls and what they came to, bounded in memory, each node
//!   named by the durable selector core generated at that call (the tree as it was then);
//! - [`plan`](mod@plan): recorded calls → the test's steps, checks, inputs and what is left out;
//! - [`render`](mod@render): a plan → TypeScript, YAML or JSON that `automation run` runs unchanged;
//!   Every session string goes in through `automation_session::quote`: one quoting function per
//!   place and language (comments, literals, values, names), quoted, never spliced;
//! - [`records`]: a run's records directory read back as a log (`automation export`).
//!
//! [`export`] is the `export_test` tool: arguments in, the test's source (or the file it was
//! saved to) out.

pub mod log;
pub mod plan;
pub mod records;
pub mod render;

use automation_core::{ErrorCode, OpError};
use serde::Deserialize;
use serde_json::{Value, json};

pub use log::SessionLog;
pub use plan::{Plan, Range, plan};
pub use render::{Format, Origin, render};

pub use automation_session::tools::EXPORT;

/// `export_test`'s arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportArgs {
    /// ts (TypeScript through the JS client), yaml or json (steps).
    #[serde(default = "default_format")]
    pub format: Format,
    /// The test's name (its header; a report's title).
    #[serde(default = "default_name")]
    pub name: String,
    /// First call to export (1-based, as `calls` in this reply count them); default the first.
    #[serde(default)]
    pub from: Option<usize>,
    /// Last call to export (inclusive); default the last.
    #[serde(default)]
    pub to: Option<usize>,
    /// Calls whose read must not become a check.
    #[serde(default)]
    pub no_expect: Vec<usize>,
    /// Write the test to this new file (relative: to the server's directory) and return its
    /// path, not its source.
    #[serde(default)]
    pub save_to: Option<String>,
    /// With save_to: replace an existing regular file.
    #[serde(default)]
    pub overwrite: bool,
}

fn default_format() -> Format {
    Format::Ts
}

fn default_name() -> String {
    "exported session".into()
}

/// The tool's input schema.
pub fn input_schema() -> serde_json::Map<String, Value> {
    let mut schema = schemars::schema_for!(ExportArgs).to_value();
    automation_session::tools::compact::simplify_nullable(&mut schema);
    automation_session::tools::compact::strip_noise(&mut schema);
    let mut map = match schema {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    map.remove("description");
    map.insert("additionalProperties".into(), json!(false));
    map
}

/// The tool's description.
pub const DESCRIPTION: &str = "Export this session as a test that `automation run` runs unchanged: actions with durable selectors (never references), your assert_node calls, reads after an action as checks, typed text as inputs; failed calls and exploration are left out (listed). Returns the source, or the path with save_to.";

/// Serves `export_test` from `log`.
pub fn export(log: &SessionLog, args: serde_json::Map<String, Value>) -> Result<Value, OpError> {
    let args: ExportArgs = serde_json::from_value(Value::Object(args)).map_err(|e| {
        OpError::new(ErrorCode::BadRequest, format!("export_test: {e}")).with_hint(
            r#"see the inputSchema of the `export_test` tool in tools/list, e.g. {"format": "yaml", "name": "save a name"}"#,
        )
    })?;
    if let (Some(from), Some(to)) = (args.from, args.to)
        && from > to
    {
        return Err(OpError::bad_argument(format!(
            "export_test: from ({from}) is after to ({to})"
        ))
        .with_hint("give from <= to, or leave either out"));
    }
    let range = Range {
        from: args.from,
        to: args.to,
        no_expect: args.no_expect.iter().copied().collect(),
    };
    let (plan, source) = write(log, &range, args.format, &args.name, "an MCP session");
    let left_out: Vec<Value> = plan
        .left_out
        .iter()
        .map(|l| json!({"call": l.index, "tool": l.tool, "why": l.why}))
        .collect();
    let mut reply = json!({
        "format": args.format.extension(),
        "steps": plan.groups.len(),
        "calls": plan.groups.iter().map(|g| g.calls.len()).sum::<usize>(),
        "inputs": plan.inputs.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "left_out": left_out,
        "session": {"calls": log.total(), "kept": log.entries().count(), "dropped": log.dropped()},
    });
    match &args.save_to {
        Some(path) => {
            let written =
                automation_session::tools::save::save_to(path, source.as_bytes(), args.overwrite)?;
            reply["path"] = json!(written.display().to_string());
            reply["bytes"] = json!(source.len());
        }
        None => reply["source"] = json!(source),
    }
    Ok(reply)
}

/// Plans `log` over `range` and writes it in `format`: the plan (for what was left out) and
/// the source.
pub fn write(
    log: &SessionLog,
    range: &Range,
    format: Format,
    name: &str,
    source: &str,
) -> (Plan, String) {
    let plan = plan(log.entries(), range);
    let origin = Origin {
        name: name.to_string(),
        source: source.to_string(),
        total: log.total(),
        dropped: log.dropped(),
    };
    let text = render(&plan, format, &origin);
    (plan, text)
}
