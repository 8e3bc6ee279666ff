//! A [`Plan`] written as a test `automation run` runs unchanged: TypeScript through the JS
//! client (one `step()` per group), or steps in YAML or JSON (one step per call, named after
//! its group). Typed values are the flow's inputs; what was left out closes the file as a
//! comment (JSON has none: the export's reply lists it).

use serde_json::{Map, Value, json};

use super::plan::{Plan, Planned};
use automation_session::quote;

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

fn header(origin: &Origin, plan: &Plan, comment: &str) -> String {
    let span = match plan.span {
        Some((a, b)) => format!("calls {a}–{b} of {}", origin.total),
        None => "no calls".into(),
    };
    let mut text = format!(
        "{comment} {}: exported by automation from {} ({span}).\n",
        quote::comment(&origin.name),
        quote::comment(&origin.source)
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
            quote::comment(&l.why)
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
        let defaults = quote::ts_value(&Value::Object(defaults));
        let fields = &defaults[1..defaults.len() - 1];
        ts.push_str(&format!(
            "const inputs = {{ {fields}, ...JSON.parse(process.env.AUTOMATION_INPUTS ?? '{{}}') }};\n"
        ));
    }
    ts.push_str("const app = await connect();\n");
    for group in &plan.groups {
        let name = quote::ts_string(&group.name);
        ts.push_str(&format!("\nawait step({name}, async () => {{\n"));
        for call in &group.calls {
            let mut args = args_with_input(call, sentinel);
            // The client takes the settle spec as an option, beside the op's arguments.
            let options = match args.remove("settle") {
                Some(settle) => format!(", {{ settle: {} }}", quote::ts_value(&settle)),
                None => String::new(),
            };
            let args = quote::ts_value(&Value::Object(args));
            let args = match &call.input {
                Some((_, n)) => {
                    let marked = serde_json::to_string(&sentinel(n)).unwrap_or_default();
                    args.replace(&marked, &quote::ts_property("inputs", n))
                }
                None => args,
            };
            ts.push_str(&format!(
                "  await app.op({}, {args}{options}); // call {}\n",
                quote::ts_string(call.tool),
                call.index
            ));
        }
        ts.push_str("});\n");
    }
    ts.push_str("\napp.close();\n");
    ts.push_str(&footer(plan, "//"));
    ts
}

#[cfg(test)]
mod tests {
    use super::super::plan::{Group, LeftOut};
    use super::*;
    use proptest::prelude::*;

    /// A plan whose every session string is `text(i)`.
    fn plan(text: &dyn Fn(usize) -> String) -> (Plan, Origin) {
        let call =
            |index: usize, tool: &'static str, args: Value, input: Option<(&str, &str)>| Planned {
                index,
                tool,
                args: args.as_object().cloned().unwrap_or_default(),
                input: input.map(|(a, n)| (a.to_string(), n.to_string())),
                check: false,
            };
        let plan = Plan {
            inputs: vec![("name".into(), text(0))],
            groups: vec![
                Group {
                    name: text(1),
                    calls: vec![
                        call(
                            1,
                            "type_text",
                            json!({"node": {"label": text(2)}, "text": text(0)}),
                            Some(("text", "name")),
                        ),
                        call(
                            2,
                            "assert_node",
                            json!({"node": {"role": "Label", "value": text(3)}, "kind": "value", "expected": text(4), "settle": {"quiet_ms": 1}}),
                            None,
                        ),
                    ],
                },
                Group {
                    name: text(5),
                    calls: vec![call(
                        3,
                        "invoke_action",
                        json!({"node": {"label": text(6)}, "action": "click"}),
                        None,
                    )],
                },
            ],
            left_out: vec![LeftOut {
                index: 4,
                tool: "assert_node".into(),
                why: text(7),
            }],
            span: Some((1, 4)),
        };
        let origin = Origin {
            name: text(8),
            source: text(9),
            total: 4,
            dropped: 1,
        };
        (plan, origin)
    }

    /// Line terminators of JavaScript and of YAML 1.1 readers, and other controls.
    fn terminator() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "\n", "\r", "\r\n", "\u{2028}", "\u{2029}", "\u{85}", "\u{b}", "\u{c}", "\u{0}",
        ])
    }

    /// Text an app could show: anything, around line terminators and code.
    fn hostile() -> impl Strategy<Value = String> {
        (any::<String>(), terminator(), terminator(), any::<String>()).prop_map(|(a, t1, t2, b)| {
            format!("{a}{t1}(await import('fs')).writeFileSync('/tmp/pwned', 'x');{t2}- tool: screenshot{t1}  args: {{save_to: /tmp/pwned}}{t2}// {b}\"'`${{x}}")
        })
    }

    fn breaks_js(s: &str) -> usize {
        s.chars()
            .filter(|c| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'))
            .count()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// No session string adds a line to an exported TypeScript test, nor leaves a raw
        /// separator in it; a YAML export reads back as exactly the plan's steps, and its
        /// comments stay as many lines as they were.
        #[test]
        fn session_strings_are_quoted_never_spliced(texts in prop::collection::vec(hostile(), 10)) {
            let (hostile_plan, hostile_origin) = plan(&|i| texts[i].clone());
            let (plain_plan, plain_origin) = plan(&|_| "x".to_string());

            let ts = render(&hostile_plan, Format::Ts, &hostile_origin);
            let plain_ts = render(&plain_plan, Format::Ts, &plain_origin);
            prop_assert_eq!(breaks_js(&ts), breaks_js(&plain_ts), "{}", ts);
            prop_assert!(!ts.contains(['\r', '\u{2028}', '\u{2029}', '\u{85}']), "{}", ts);

            let yaml = render(&hostile_plan, Format::Yaml, &hostile_origin);
            let data: Value = serde_norway::from_str(&yaml).map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
            prop_assert_eq!(&data, &steps_value(&hostile_plan));
            let comments = |y: &str| y.lines().filter(|l| l.starts_with('#')).count();
            let plain_yaml = render(&plain_plan, Format::Yaml, &plain_origin);
            prop_assert_eq!(comments(&yaml), comments(&plain_yaml), "{}", yaml);
            for l in yaml.lines().filter(|l| l.starts_with('#')) {
                prop_assert!(!l.contains(['\u{85}', '\u{2028}', '\u{2029}']), "{}", l);
            }
        }
    }
}
