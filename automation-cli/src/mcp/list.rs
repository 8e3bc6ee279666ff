//! The MCP tool list, generated from core's catalog: one tool per op, its input schema from
//! the tool layer ([`automation_session::tools::schema`]), annotations from the catalog.
//!
//! Which tools `tools/list` shows is each op's [`Cap`] in the catalog, and nothing else:
//! `core` by default, more with `--caps`. A tool that is not an op would be added in
//! [`tools`] with a cap of its own; `tests/cli/tools_budget.rs` counts whatever the real binary
//! sends.

use std::sync::Arc;

use automation_core::{Access, CATALOG, Cap, OpSpec};
use rmcp::model::{Tool, ToolAnnotations};

use automation_session::tools::schema::input_schema;

/// The tool sets a server lists: `core` always, plus those asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caps(Vec<Cap>);

impl Default for Caps {
    fn default() -> Self {
        Self(vec![Cap::Core])
    }
}

impl Caps {
    /// Every cap: all ops listed.
    pub fn all() -> Self {
        Self(Cap::ALL.to_vec())
    }

    /// Parses `--caps`: a comma-separated list of cap names, or `all`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut caps = vec![Cap::Core];
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name.eq_ignore_ascii_case("all") {
                return Ok(Self::all());
            }
            let cap = Cap::from_name(name).ok_or_else(|| {
                let known: Vec<&str> = Cap::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "--caps: unknown capability {name:?}; known: {}, or all",
                    known.join(", ")
                )
            })?;
            if !caps.contains(&cap) {
                caps.push(cap);
            }
        }
        caps.sort();
        Ok(Self(caps))
    }

    /// Whether tools of `cap` are listed.
    pub fn lists(&self, cap: Cap) -> bool {
        self.0.contains(&cap)
    }

    /// The caps, in catalog order.
    pub fn caps(&self) -> &[Cap] {
        &self.0
    }
}

/// The tools `tools/list` shows for `caps`: the catalog's, in its order, then
/// `execute_sequence`, `export_test`, `assert_screenshot` and `audit_app`.
pub fn tools(caps: &Caps) -> Vec<Tool> {
    let mut tools: Vec<Tool> = CATALOG
        .iter()
        .filter(|s| caps.lists(s.cap))
        .map(tool)
        .collect();
    tools.push(super::sequence::tool());
    tools.push(export_tool());
    tools.push(writing_tool(
        automation_session::tools::ASSERT_SCREENSHOT,
        automation_session::tools::golden::DESCRIPTION,
        automation_session::tools::golden::input_schema(),
    ));
    tools.push(writing_tool(
        automation_session::tools::audit::AUDIT_APP,
        automation_session::tools::audit::DESCRIPTION,
        automation_session::tools::audit::input_schema(),
    ));
    tools
}

/// `assert_screenshot` (it writes baselines and diff images) and `audit_app` (its Tab walk
/// moves the focus), from their typed arguments: not read-only, never destructive, the same
/// call answering the same.
fn writing_tool(
    name: &'static str,
    description: &'static str,
    schema: serde_json::Map<String, serde_json::Value>,
) -> Tool {
    Tool::new(name, description, Arc::new(schema)).with_annotations(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    )
}

/// `export_test`, from its typed arguments.
fn export_tool() -> Tool {
    Tool::new(
        automation_session::tools::EXPORT,
        automation_runner::authoring::DESCRIPTION,
        Arc::new(automation_runner::authoring::input_schema()),
    )
    .with_annotations(ToolAnnotations::new().read_only(true).open_world(false))
}

/// The tool for one catalog entry. Annotations carry only what differs from the spec's
/// defaults or matters for this kind of tool: `destructiveHint` and `idempotentHint` mean
/// something only when `readOnlyHint` is false, and `idempotentHint` defaults to false.
pub fn tool(spec: &OpSpec) -> Tool {
    let read_only = spec.access == Access::ReadOnly;
    let mut annotations = ToolAnnotations::new().open_world(false);
    if read_only {
        annotations = annotations.read_only(true);
    } else {
        annotations = annotations.destructive(false);
        if spec.idempotent {
            annotations = annotations.idempotent(true);
        }
    }
    Tool::new(spec.name, spec.description, Arc::new(input_schema(spec)))
        .with_annotations(annotations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use automation_core::catalog::spec;
    use serde_json::{Value, json};

    #[test]
    fn one_tool_per_op_and_strict_schemas() {
        let tools = tools(&Caps::all());
        assert_eq!(
            tools.len(),
            CATALOG.len() + automation_session::tools::NOT_OPS.len(),
            "every op and the tools that are no op"
        );
        for t in tools
            .iter()
            .filter(|t| !automation_session::tools::NOT_OPS.contains(&t.name.as_ref()))
        {
            assert_eq!(
                t.input_schema.get("additionalProperties"),
                Some(&json!(false)),
                "{}",
                t.name
            );
            assert_eq!(
                t.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                t.name
            );
            let props = t
                .input_schema
                .get("properties")
                .and_then(Value::as_object)
                .unwrap();
            assert!(!props.contains_key("window_id"));
            let s = spec(&t.name).unwrap();
            assert_eq!(props.contains_key("settle"), s.accepts_settle, "{}", t.name);
            let a = t.annotations.as_ref().unwrap();
            assert_eq!(a.open_world_hint, Some(false));
            if s.access == Access::ReadOnly {
                assert_eq!(a.read_only_hint, Some(true), "{}", t.name);
            } else {
                // Absent means false (the spec's default) for both.
                assert_eq!(a.read_only_hint, None, "{}", t.name);
                assert_eq!(a.destructive_hint, Some(false), "{}", t.name);
                assert_eq!(
                    a.idempotent_hint.unwrap_or(false),
                    s.idempotent,
                    "{}",
                    t.name
                );
            }
        }
    }

    #[test]
    fn no_nullable_types_left_in_properties() {
        for t in tools(&Caps::all()) {
            let text = Value::Object((*t.input_schema).clone()).to_string();
            assert!(!text.contains(r#""null""#), "{}: {text}", t.name);
        }
    }

    #[test]
    fn core_is_listed_by_default_and_caps_add_the_rest() {
        let core = tools(&Caps::default());
        assert!(core.len() < CATALOG.len());
        assert!(
            core.iter()
                .filter(|t| !automation_session::tools::NOT_OPS.contains(&t.name.as_ref()))
                .all(|t| spec(&t.name).unwrap().cap == Cap::Core)
        );
        assert!(core.iter().any(|t| t.name == "snapshot_tree"));
        let touch = tools(&Caps::parse("touch").unwrap());
        assert!(touch.iter().any(|t| t.name == "pinch"));
        assert!(touch.len() > core.len());
        assert_eq!(Caps::parse(" Touch , all").unwrap(), Caps::all());
        let e = Caps::parse("tuoch").unwrap_err();
        assert!(e.contains("tuoch") && e.contains("touch"), "{e}");
        // Unlisted tools are still callable: the list is a budget, not a permission.
        assert!(
            automation_session::tools::parse(
                "pinch",
                json!({"node": "1", "scale": 2.0})
                    .as_object()
                    .cloned()
                    .unwrap_or_default()
            )
            .is_ok()
        );
    }

    #[test]
    fn no_schema_block_is_repeated_in_full() {
        let all = tools(&Caps::all());
        let text: Vec<String> = all
            .iter()
            .map(|t| Value::Object((*t.input_schema).clone()).to_string())
            .collect();
        // The selector's fields are spelled out once, in find_node.
        let with_selector = text.iter().filter(|t| t.contains("author_id")).count();
        assert!(
            with_selector <= 2,
            "{with_selector} tools repeat the selector"
        );
        let with_settle_fields = text
            .iter()
            .filter(|t| t.contains("max_anim_frames"))
            .count();
        assert_eq!(with_settle_fields, 1, "the settle spec is spelled out once");
        for t in &text {
            assert!(!t.contains("\"$schema\""), "{t}");
            // The `format` keyword (not snapshot_tree's `format` argument).
            assert!(!t.contains("\"format\":\""), "{t}");
        }
    }
}
