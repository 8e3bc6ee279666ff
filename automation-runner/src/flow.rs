//! What a run runs: a script (TypeScript or JavaScript) or a sequence of steps, from a file
//! (`.ts`/`.js`/`.mjs`/`.mts`, `.json`, `.yaml`/`.yml`) or from `execute_sequence`'s arguments.
//!
//! A flow file is read through [`automation_session::files`]: its extension is checked first (nothing is
//! opened for an unknown one), then only a regular file of at most
//! [`MAX_FLOW_BYTES`](automation_session::files::MAX_FLOW_BYTES) is read; YAML is checked for depth before
//! it is parsed ([`super::yaml_depth`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use automation_session::tools::{DEFAULT_SNAPSHOTS_DIR, Snapshots};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::budget;

impl Flow {
    /// Where this flow's baselines live.
    pub fn snapshots(&self) -> Snapshots {
        self.snapshots
            .clone()
            .unwrap_or_else(|| Snapshots::new(DEFAULT_SNAPSHOTS_DIR, false))
    }
}
use super::error::RunnerError;

/// One flow.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    /// Its name in reports (the file path as given, or `inline`).
    pub name: String,
    /// Values for the flow's inputs (over the declared defaults).
    pub inputs: Map<String, Value>,
    /// What it runs.
    pub body: FlowBody,
    /// Its time limit (`None`: [`DEFAULT_RUN_TIMEOUT`](super::budget::DEFAULT_RUN_TIMEOUT)).
    pub timeout: Option<Duration>,
    /// Where its `assert_screenshot` baselines live: `<file>-snapshots/` beside a flow file;
    /// `None` for an inline flow, which uses its front door's (the MCP server's `--snapshots`,
    /// else [`DEFAULT_SNAPSHOTS_DIR`]).
    pub snapshots: Option<Snapshots>,
    /// Capture the app after each action and at a failure, for a report (`--report`).
    pub evidence: bool,
}

/// A script or steps.
#[derive(Debug, Clone, PartialEq)]
pub enum FlowBody {
    /// A TypeScript or JavaScript program driving the session through the JS client.
    Script(Script),
    /// A list of tool calls (shared: a run hands it to the target thread without a copy).
    Steps(Arc<Sequence>),
}

/// A script's source and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The source as submitted.
    pub source: String,
    /// The name its stack frames are reported under (the file as given, or `inline.ts`).
    pub file_name: String,
    /// The directory imports resolve from (the file's own; none for inline source).
    pub dir: Option<PathBuf>,
}

/// A sequence of steps and its flags.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sequence {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Declared inputs and their defaults: `{"name": "Ada"}` or `{"name": {"default": "Ada"}}`.
    #[serde(default)]
    pub inputs: Map<String, Value>,
    /// Stop at the first failed step that has no `fallback_id` or `continue_on_error`
    /// (default true).
    #[serde(default = "yes")]
    pub stop_on_error: bool,
    /// Start at the step with this id (the steps before it are reported skipped).
    #[serde(default)]
    pub start_from_step: Option<String>,
}

fn yes() -> bool {
    true
}

/// One step: a tool call with its flow control.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Names the step: later conditions read `<id>_result` and `<id>_status`.
    #[serde(default)]
    pub id: Option<String>,
    /// A readable name (default: the tool).
    #[serde(default)]
    pub name: Option<String>,
    /// The tool, as in `tools/list`.
    #[serde(alias = "tool_name")]
    pub tool: String,
    /// Its arguments; every string may hold `{{expr}}`.
    #[serde(default, alias = "arguments")]
    pub args: Map<String, Value>,
    /// Run only when this condition holds (the expression language of `automation eval`).
    #[serde(default, rename = "if")]
    pub condition: Option<String>,
    /// Tries after the first failure.
    #[serde(default)]
    pub retries: u32,
    /// Pause between tries, ms (default 500).
    #[serde(default)]
    pub retry_delay_ms: Option<u64>,
    /// A failure does not stop the sequence.
    #[serde(default)]
    pub continue_on_error: bool,
    /// After the last failure, jump to the step with this id.
    #[serde(default)]
    pub fallback_id: Option<String>,
}

impl Step {
    /// The id used in reports: the given id, else `step-N` (1-based position).
    pub fn report_id(&self, index: usize) -> String {
        self.id
            .clone()
            .unwrap_or_else(|| format!("step-{}", index + 1))
    }
}

fn bad(message: impl Into<String>, hint: &str) -> RunnerError {
    RunnerError::bad(message, hint)
}

/// Script file extensions.
const SCRIPT_EXTS: &[&str] = &["ts", "mts", "cts", "js", "mjs", "cjs"];
/// TypeScript file extensions: always transpiled, whatever the source looks like.
pub const TYPESCRIPT_EXTS: &[&str] = &["ts", "mts", "cts"];

/// What a flow file holds, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A script.
    Script,
    /// Steps in JSON.
    Json,
    /// Steps in YAML.
    Yaml,
}

impl FileKind {
    /// The kind of `path` by its extension (lower-cased), or the error naming it.
    pub fn of(path: &Path) -> Result<Self, RunnerError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        match ext.as_str() {
            e if SCRIPT_EXTS.contains(&e) => Ok(Self::Script),
            "json" => Ok(Self::Json),
            "yaml" | "yml" => Ok(Self::Yaml),
            _ => Err(bad(
                format!("{}: unknown flow type .{ext}", path.display()),
                &format!(
                    "name the file .{} (a script) or .json, .yaml, .yml (steps)",
                    SCRIPT_EXTS.join(", .")
                ),
            )),
        }
    }
}

/// Reads a flow file: a script, or steps in JSON or YAML. The extension is checked before
/// the file is opened; see the module doc for how it is read.
pub fn from_file(path: &Path) -> Result<Flow, RunnerError> {
    let shown = path.display().to_string();
    let kind = FileKind::of(path)?;
    let text =
        automation_session::files::read_text(path, automation_session::files::MAX_FLOW_BYTES)?;
    let mut flow = from_text(kind, text, &shown)?;
    flow.snapshots = Some(Snapshots::beside(path, false));
    if let FlowBody::Script(s) = &mut flow.body {
        s.dir = path
            .parent()
            .map(|p| {
                if p.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    p
                }
            })
            .and_then(|p| p.canonicalize().ok());
    }
    Ok(flow)
}

/// A flow from the text of a file of `kind` named `name` (what [`from_file`] parses once it
/// has read the file): YAML is checked for depth first, then parsed; steps are validated.
pub fn from_text(kind: FileKind, text: String, name: &str) -> Result<Flow, RunnerError> {
    let body = match kind {
        FileKind::Script => FlowBody::Script(Script {
            source: text,
            file_name: name.to_string(),
            dir: None,
        }),
        FileKind::Json => FlowBody::Steps(Arc::new(steps_from_value(
            serde_json::from_str(&text).map_err(|e| {
                bad(
                    format!("{name} is not valid JSON: {e}"),
                    "fix the JSON at that line and column",
                )
            })?,
            name,
        )?)),
        FileKind::Yaml => {
            if let Err(deep) = super::yaml_depth::check(&text, budget::MAX_YAML_DEPTH) {
                return Err(budget::exceeded(
                    "yaml_depth",
                    budget::MAX_YAML_DEPTH,
                    &format!("{name}:{}", deep.line),
                    format!(
                        "{name} nests deeper than {} levels (line {}); it was not parsed",
                        budget::MAX_YAML_DEPTH,
                        deep.line
                    ),
                    "a flow file needs a few levels: steps, a step, its args",
                ));
            }
            let value: Value = serde_norway::from_str(&text).map_err(|e| {
                bad(
                    format!("{name} is not valid YAML: {e}"),
                    "fix the YAML at that line and column",
                )
            })?;
            FlowBody::Steps(Arc::new(steps_from_value(value, name)?))
        }
    };
    Ok(Flow {
        name: name.to_string(),
        inputs: Map::new(),
        body,
        timeout: None,
        snapshots: None,
        evidence: false,
    })
}

/// Steps from a document: `{steps: […], inputs?, stop_on_error?, start_from_step?}` or a bare
/// array of steps.
pub fn steps_from_value(value: Value, what: &str) -> Result<Sequence, RunnerError> {
    let value = match value {
        Value::Array(steps) => serde_json::json!({ "steps": steps }),
        other => other,
    };
    let seq: Sequence = serde_json::from_value(value).map_err(|e| {
        bad(
            format!("{what}: not a valid sequence: {e}"),
            "a sequence is {\"steps\": [{\"id\"?, \"tool\", \"args\"?, \"if\"?, \"retries\"?, \"retry_delay_ms\"?, \"continue_on_error\"?, \"fallback_id\"?}], \"inputs\"?, \"stop_on_error\"?, \"start_from_step\"?}",
        )
    })?;
    validate(&seq, what)?;
    Ok(seq)
}

/// Ids unique; `fallback_id` and `start_from_step` name existing steps; a step runs a tool.
/// Most tries after a step's first failure.
pub const MAX_RETRIES: u32 = 100;
/// Longest pause between tries, ms (the steps run on the target thread: a pause holds it).
pub const MAX_RETRY_DELAY_MS: u64 = 60_000;

fn validate(seq: &Sequence, what: &str) -> Result<(), RunnerError> {
    if seq.steps.len() > budget::MAX_STEPS {
        return Err(budget::exceeded(
            "steps",
            budget::MAX_STEPS,
            what,
            format!(
                "{what} has {} steps, over the limit of {} a sequence may have",
                seq.steps.len(),
                budget::MAX_STEPS
            ),
            "split the flow into several files",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, s) in seq.steps.iter().enumerate() {
        if s.tool.trim().is_empty() {
            return Err(bad(
                format!("{what}: step {} has an empty `tool`", i + 1),
                "name a tool from tools/list",
            ));
        }
        if s.retries > MAX_RETRIES {
            return Err(bad(
                format!(
                    "{what}: step {}'s retries {} is over the limit of {MAX_RETRIES}",
                    i + 1,
                    s.retries
                ),
                "retry fewer times, or wait for the state with wait_for_condition",
            ));
        }
        if let Some(ms) = s.retry_delay_ms.filter(|ms| *ms > MAX_RETRY_DELAY_MS) {
            return Err(bad(
                format!(
                    "{what}: step {}'s retry_delay_ms {ms} is over the limit of {MAX_RETRY_DELAY_MS} ms",
                    i + 1
                ),
                "pause less between tries, or wait for the state with wait_for_condition",
            ));
        }
        if s.tool == "execute_sequence" {
            return Err(bad(
                format!("{what}: step {} calls execute_sequence", i + 1),
                "a sequence cannot run another sequence; inline its steps",
            ));
        }
        if let Some(id) = &s.id
            && !seen.insert(id.as_str())
        {
            return Err(bad(
                format!("{what}: two steps have the id {id:?}"),
                "give every step its own id",
            ));
        }
    }
    let known = |id: &str| seq.steps.iter().any(|s| s.id.as_deref() == Some(id));
    for (i, s) in seq.steps.iter().enumerate() {
        if let Some(f) = &s.fallback_id
            && !known(f)
        {
            return Err(bad(
                format!("{what}: step {}'s fallback_id {f:?} names no step", i + 1),
                "set fallback_id to the id of another step",
            ));
        }
    }
    if let Some(start) = &seq.start_from_step
        && !known(start)
    {
        return Err(bad(
            format!("{what}: start_from_step {start:?} names no step"),
            "set start_from_step to the id of a step",
        ));
    }
    Ok(())
}

/// `execute_sequence`'s arguments: exactly one of `script`, `file`, `steps`; then `inputs`,
/// `stop_on_error`, `start_from_step`.
pub fn from_arguments(args: &Map<String, Value>) -> Result<Flow, RunnerError> {
    from_owned_arguments(args.clone())
}

/// [`from_arguments`], taking the arguments (the steps move into the flow, uncopied).
pub fn from_owned_arguments(mut args: Map<String, Value>) -> Result<Flow, RunnerError> {
    let given = the_one_source(&args)?;
    let inputs = take_inputs(&mut args)?;
    let mut flow = flow_from(given, &mut args)?;
    // Flags given beside `file` override the file's own.
    if let FlowBody::Steps(seq) = &mut flow.body {
        let seq = Arc::make_mut(seq);
        if let Some(v) = args.get("stop_on_error").and_then(Value::as_bool) {
            seq.stop_on_error = v;
        }
        if let Some(v) = args.get("start_from_step").and_then(Value::as_str) {
            seq.start_from_step = Some(v.to_string());
            validate(seq, &flow.name)?;
        }
    }
    flow.inputs = inputs;
    Ok(flow)
}

/// Which of `script`, `file`, `steps` the arguments give, refusing unknown arguments and
/// anything but exactly one of the three.
fn the_one_source(args: &Map<String, Value>) -> Result<&'static str, RunnerError> {
    const KNOWN: &[&str] = &[
        "script",
        "file",
        "steps",
        "inputs",
        "stop_on_error",
        "start_from_step",
    ];
    if let Some(k) = args.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(bad(
            format!("execute_sequence: unknown argument `{k}`"),
            "pass one of script, file, steps, and optionally inputs, stop_on_error, start_from_step",
        ));
    }
    let given: Vec<&'static str> = ["script", "file", "steps"]
        .into_iter()
        .filter(|k| args.get(*k).is_some_and(|v| !v.is_null()))
        .collect();
    match given[..] {
        [one] => Ok(one),
        _ => Err(bad(
            format!(
                "execute_sequence takes exactly one of script, file, steps; got {}",
                if given.is_empty() {
                    "none".to_string()
                } else {
                    given.join(", ")
                }
            ),
            "pass the script source in `script`, a flow file path in `file`, or a list in `steps`",
        )),
    }
}

/// Takes `inputs` out of the arguments: an object, or none.
fn take_inputs(args: &mut Map<String, Value>) -> Result<Map<String, Value>, RunnerError> {
    match args.remove("inputs") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(other) => Err(bad(
            format!("execute_sequence: `inputs` must be an object, got {other}"),
            "pass inputs as {\"name\": value}",
        )),
    }
}

/// The flow `given` (`script`, `file` or `steps`) names; the steps move out of `args`.
fn flow_from(given: &str, args: &mut Map<String, Value>) -> Result<Flow, RunnerError> {
    let inline = |body| Flow {
        name: "inline".into(),
        inputs: Map::new(),
        body,
        timeout: None,
        snapshots: None,
        evidence: false,
    };
    match given {
        "script" => {
            let Some(source) = args.get("script").and_then(Value::as_str) else {
                return Err(bad(
                    "execute_sequence: `script` must be a string (the source)",
                    "pass the TypeScript or JavaScript source as one string",
                ));
            };
            Ok(inline(FlowBody::Script(Script {
                source: source.to_string(),
                file_name: "inline.ts".into(),
                dir: None,
            })))
        }
        "file" => {
            let Some(path) = args.get("file").and_then(Value::as_str) else {
                return Err(bad(
                    "execute_sequence: `file` must be a string (a path)",
                    "pass the path of a flow file",
                ));
            };
            from_file(Path::new(path))
        }
        _ => {
            let mut doc = Map::new();
            doc.insert("steps".into(), args.remove("steps").unwrap_or(Value::Null));
            for k in ["stop_on_error", "start_from_step"] {
                if let Some(v) = args.get(k).filter(|v| !v.is_null()) {
                    doc.insert(k.into(), v.clone());
                }
            }
            let steps = steps_from_value(Value::Object(doc), "steps")?;
            Ok(inline(FlowBody::Steps(Arc::new(steps))))
        }
    }
}

/// The largest `--inputs @FILE` read (inputs are names and values, not data sets).
pub const MAX_INPUTS_BYTES: u64 = 1024 * 1024;

/// `automation run --inputs JSON|@FILE`: a JSON object, inline or read from the file after
/// `@`. The error names what was given and the form expected (clap adds the flag and value).
pub fn parse_inputs_arg(value: &str) -> Result<Map<String, Value>, String> {
    const FORM: &str =
        "pass a JSON object, e.g. --inputs '{\"name\": \"Bob\"}', or @PATH to a file holding one";
    let (text, from) = match value.strip_prefix('@') {
        Some(path) => {
            let text = automation_session::files::read_text(Path::new(path), MAX_INPUTS_BYTES)
                .map_err(|e| format!("cannot read the inputs file: {e}; {FORM}"))?;
            (text, format!(" in {path}"))
        }
        None => (value.to_string(), String::new()),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(format!(
            "the inputs{from} are {}, not a JSON object; {FORM}",
            automation_core::node_ref::json_kind(&other)
        )),
        Err(e) => Err(format!("the inputs{from} are not valid JSON ({e}); {FORM}")),
    }
}

/// The input values a run sees: each declared default, overridden by what was passed.
pub fn resolve_inputs(
    declared: &Map<String, Value>,
    given: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in declared {
        let default = match v {
            Value::Object(m) if m.keys().all(|k| k == "default" || k == "description") => {
                m.get("default").cloned().unwrap_or(Value::Null)
            }
            other => other.clone(),
        };
        out.insert(k.clone(), default);
    }
    for (k, v) in given {
        out.insert(k.clone(), v.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn retries_and_their_pause_are_bounded() {
        let over = |step: Value| {
            from_arguments(json!({"steps": [step]}).as_object().unwrap())
                .unwrap_err()
                .to_json()["message"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let m = over(json!({"tool": "find_node", "retries": MAX_RETRIES + 1}));
        assert!(
            m.contains("retries 101") && m.contains("limit of 100"),
            "{m}"
        );
        let m = over(json!({"tool": "find_node", "retry_delay_ms": MAX_RETRY_DELAY_MS + 1}));
        assert!(m.contains("retry_delay_ms 60001"), "{m}");
        let ok = json!({"steps": [{"tool": "find_node", "retries": MAX_RETRIES, "retry_delay_ms": MAX_RETRY_DELAY_MS}]});
        assert!(from_arguments(ok.as_object().unwrap()).is_ok());
    }

    #[test]
    fn one_of_script_file_steps() {
        let e = from_arguments(json!({}).as_object().unwrap())
            .unwrap_err()
            .to_json();
        assert_eq!(e["code"], "BAD_REQUEST");
        let e = from_arguments(json!({"script": "1", "steps": []}).as_object().unwrap())
            .unwrap_err()
            .to_json();
        assert!(e["message"].as_str().unwrap().contains("script, steps"));
        let e = from_arguments(json!({"stepz": []}).as_object().unwrap())
            .unwrap_err()
            .to_json();
        assert!(e["message"].as_str().unwrap().contains("stepz"));
    }

    #[test]
    fn steps_validate_ids_and_fields() {
        let e = steps_from_value(json!([{"tool": "settle", "retry": 2}]), "t")
            .unwrap_err()
            .to_json();
        assert!(e["message"].as_str().unwrap().contains("retry"), "{e}");
        let e = steps_from_value(
            json!([{"id": "a", "tool": "settle", "fallback_id": "zz"}]),
            "t",
        )
        .unwrap_err()
        .to_json();
        assert!(e["message"].as_str().unwrap().contains("zz"));
        let s = steps_from_value(
            json!({"steps": [{"tool_name": "settle", "arguments": {}}], "stop_on_error": false}),
            "t",
        )
        .unwrap();
        assert!(!s.stop_on_error);
    }

    #[test]
    fn inputs_defaults_then_given() {
        let declared = json!({"name": {"default": "Ada"}, "n": 3});
        let given = json!({"n": 4});
        let r = resolve_inputs(declared.as_object().unwrap(), given.as_object().unwrap());
        assert_eq!(Value::Object(r), json!({"name": "Ada", "n": 4}));
    }
}
