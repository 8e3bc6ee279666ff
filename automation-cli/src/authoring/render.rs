//! A [`Plan`] written as a test `automation run` runs unchanged: TypeScript through the JS
//! client (one `step()` per group), or steps in YAML or JSON (one step per call, named after
//! its group). Typed values are the flow's inputs; what was left out closes the file as a
//! comment (JSON has none: the export's reply lists it).

use serde_json::{Map, Value, json};

use super::plan::{Plan, Planned};

/// The formats a test is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// TypeScript through `@automation-kit/client`.
    Ts,
    /// Steps in YAML.
    Yaml,
    /// Steps in JSON.
    Json,
}

impl Format {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Ts => "ts",
            Self::Yaml => "yaml",
            Self::Json => "json",
        }
    }
}

/// Where the test came from, for its header.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    /// The test's name.
    pub name: String,
    /// What recorded it (`an MCP session`, `records in DIR`).
    pub source: String,
    /// Calls made in all, and how many fell off the log's front.
    pub total: usize,
    /// Calls dropped to keep the log within its bound.
    pub dropped: usize,
}

/// Writes `plan` in `format`.
pub fn render(plan: &Plan, format: Format, origin: &Origin) -> String {
    match format {
        Format::Ts => typescript(plan, origin),
        Format::Yaml => yaml(plan, origin),
        Format::Json => serde_json::to_string_pretty(&steps_value(plan)).unwrap_or_default() + "\n",
    }
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

fn header(origin: &Origin, plan: &Plan, comment: &str) -> String {
    let span = match plan.span {
        Some((a, b)) => format!("calls {a}–{b} of {}", origin.total),
        None => "no calls".into(),
    };
    let mut text = format!(
        "{comment} {}: exported by automation from {} ({span}).\n",
        one_line(&origin.name),
        one_line(&origin.source)
    );
    if origin.dropped > 0 {
        text.push_str(&format!(
            "{comment} The session log kept its last calls only: {} earlier calls were dropped.\n",
            origin.dropped
        ));
    }
    text.push_str(&format!(
        "{comment} Run it against the app as the session had it: automation run <this file> (with the same --launch / --atspi / --headless).\n"
    ));
    text
}

fn footer(plan: &Plan, comment: &str) -> String {
    if plan.left_out.is_empty() {
        return String::new();
    }
    let mut text = format!("\n{comment} Left out of this test:\n");
    for l in &plan.left_out {
        text.push_str(&format!(
            "{comment}   call {} {}: {}\n",
            l.index,
            l.tool,
            one_line(&l.why)
        ));
    }
    text
}

/// The call's arguments with its input in place: `{{ name }}` for steps, a sentinel the
/// TypeScript writer swaps for `inputs.name`.
fn args_with_input(call: &Planned, placeholder: impl Fn(&str) -> String) -> Map<String, Value> {
    let mut args = call.args.clone();
    if let Some((field, name)) = &call.input {
        args.insert(field.clone(), json!(placeholder(name)));
    }
    args
}

fn step_id(name: &str, n: usize) -> String {
    let slug = super::plan::slug(name, '-');
    if n == 0 {
        slug
    } else {
        format!("{slug}-{}", n + 1)
    }
}

fn steps_value(plan: &Plan) -> Value {
    let mut steps = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for group in &plan.groups {
        for (n, call) in group.calls.iter().enumerate() {
            let mut id = step_id(&group.name, n);
            if id.is_empty() || ids.contains(&id) {
                id = format!("call-{}", call.index);
            }
            ids.push(id.clone());
            steps.push(json!({
                "id": id,
                "name": group.name,
                "tool": call.tool,
                "args": Value::Object(args_with_input(call, |n| format!("{{{{ {n} }}}}"))),
            }));
        }
    }
    let inputs: Map<String, Value> = plan
        .inputs
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let mut flow = Map::new();
    if !inputs.is_empty() {
        flow.insert("inputs".into(), Value::Object(inputs));
    }
    flow.insert("steps".into(), Value::Array(steps));
    Value::Object(flow)
}

fn yaml(plan: &Plan, origin: &Origin) -> String {
    let body = serde_norway::to_string(&steps_value(plan)).unwrap_or_default();
    format!("{}{body}{}", header(origin, plan, "#"), footer(plan, "#"))
}

/// Marks an input inside serialized JSON; no JSON string a caller sends can hold it, since
/// it is built around a NUL that serde writes as `\u0000`.
fn sentinel(name: &str) -> String {
    format!("\u{0}input:{name}\u{0}")
}

fn typescript(plan: &Plan, origin: &Origin) -> String {
    let mut ts = header(origin, plan, "//");
    ts.push_str("import { connect, step } from '@automation-kit/client';\n\n");
    if !plan.inputs.is_empty() {
        let defaults: Map<String, Value> = plan
            .inputs
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        // `{"name":"Ada"}` without its braces: the defaults, then what the run passes.
        let defaults = Value::Object(defaults).to_string();
        let fields = &defaults[1..defaults.len() - 1];
        ts.push_str(&format!(
            "const inputs = {{ {fields}, ...JSON.parse(process.env.AUTOMATION_INPUTS ?? '{{}}') }};\n"
        ));
    }
    ts.push_str("const app = await connect();\n");
    for group in &plan.groups {
        let name = serde_json::to_string(&group.name).unwrap_or_default();
        ts.push_str(&format!("\nawait step({name}, async () => {{\n"));
        for call in &group.calls {
            let mut args = args_with_input(call, sentinel);
            // The client takes the settle spec as an option, beside the op's arguments.
            let options = match args.remove("settle") {
                Some(settle) => format!(", {{ settle: {settle} }}"),
                None => String::new(),
            };
            let args = Value::Object(args).to_string();
            let args = match &call.input {
                Some((_, n)) => {
                    let marked = serde_json::to_string(&sentinel(n)).unwrap_or_default();
                    args.replace(&marked, &format!("inputs.{n}"))
                }
                None => args,
            };
            ts.push_str(&format!(
                "  await app.op({}, {args}{options}); // call {}\n",
                serde_json::to_string(call.tool).unwrap_or_default(),
                call.index
            ));
        }
        ts.push_str("});\n");
    }
    ts.push_str("\napp.close();\n");
    ts.push_str(&footer(plan, "//"));
    ts
}
