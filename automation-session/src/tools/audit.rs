//! `audit_app`: the accessibility audit (`automation-audit`) as a tool — for MCP clients, a
//! flow's step and the HTTP sessions. Served from the kit's own ops on the caller's target
//! thread, like `assert_screenshot`.

use automation_audit::report::Accepted;
use automation_audit::{Baseline, Options, audit};
use automation_core::{ErrorCode, OpError, Reply, Request};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The tool's name.
pub const AUDIT_APP: &str = "audit_app";

/// What the tool list says of it.
pub const DESCRIPTION: &str = "Accessibility audit: rules over the tree and a real Tab walk. Answers findings, needs_review (never failing), per-rule counts and the focus order; expect_pass fails ASSERTION_FAILED on a finding outside baseline. Rules: docs/audit.md.";

/// One accepted finding of a baseline.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptedArg {
    /// The rule's id.
    pub rule: String,
    /// The node's selector, as a report gave it.
    pub selector: String,
}

/// `audit_app`'s arguments.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Rule ids (default all).
    #[serde(default)]
    pub rules: Option<Vec<String>>,
    /// The Tab walk (default true).
    #[serde(default)]
    pub keyboard: Option<bool>,
    /// Accepted findings: {rule, selector}.
    #[serde(default)]
    pub baseline: Vec<AcceptedArg>,
    /// Fail on a finding.
    #[serde(default)]
    pub expect_pass: bool,
}

/// The input schema the tool list shows.
pub fn input_schema() -> Map<String, Value> {
    super::compact::tool_schema(schemars::schema_for!(Args).to_value())
}

/// Serves one `audit_app` call: `serve` answers the ops the audit sends.
pub fn audit_app(
    args: Map<String, Value>,
    serve: &mut dyn FnMut(&Request) -> Reply,
) -> Result<Value, OpError> {
    let args: Args = serde_json::from_value(Value::Object(args)).map_err(|e| {
        OpError::new(ErrorCode::BadRequest, format!("{AUDIT_APP}: {e}"))
            .with_hint(r#"e.g. {"rules": ["control-name", "keyboard-reach"], "expect_pass": true}; see the inputSchema of audit_app in tools/list"#)
    })?;
    let options = Options {
        rules: args.rules,
        keyboard: args.keyboard.unwrap_or(true),
        ..Options::default()
    };
    let mut driver = |request: Request| serve(&request);
    let mut report = audit(&mut driver, &options).map_err(|e| match e {
        automation_audit::AuditError::UnknownRule(..) => {
            OpError::bad_argument(format!("{AUDIT_APP}: {e}"))
                .with_hint("name rules by their ids (docs/audit.md), or leave `rules` out")
        }
        automation_audit::AuditError::Op { error, .. } => error,
        other => OpError::new(ErrorCode::TargetFailed, format!("{AUDIT_APP}: {other}")),
    })?;
    let baseline = Baseline {
        accepted: args
            .baseline
            .into_iter()
            .map(|a| Accepted {
                rule: a.rule,
                selector: a.selector,
            })
            .collect(),
    };
    baseline.apply(&mut report);
    let passed = report.passes();
    let mut data = serde_json::to_value(&report)
        .map_err(|e| OpError::new(ErrorCode::TargetFailed, format!("{AUDIT_APP}: {e}")))?;
    data["passed"] = json!(passed);
    if args.expect_pass && !passed {
        let first: Vec<String> = report
            .findings
            .iter()
            .take(5)
            .map(|f| {
                format!(
                    "{} on {}",
                    f.rule,
                    f.selector.clone().unwrap_or_else(|| f.role.clone())
                )
            })
            .collect();
        return Err(OpError::new(
            ErrorCode::AssertionFailed,
            format!(
                "the audit found {} finding(s): {}",
                report.findings.len(),
                first.join("; ")
            ),
        )
        .with_hint("fix what each finding says (docs/audit.md), or accept it in `baseline` by its rule and selector")
        .with_actual_expected(data, json!({"findings": []})));
    }
    Ok(data)
}
