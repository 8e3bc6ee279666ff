//! Shorter tool schemas: the same strict contract in fewer tokens. What every tool shares is
//! spelled out once, where it belongs — a node reference in `find_node` (the selector) and the
//! server instructions, the settle spec in the `settle` tool — and named briefly elsewhere;
//! schemars' bookkeeping (`$schema`, `title`, `format`, per-variant notes) is dropped.
//! `automation-cli/tests/cli/tools_budget.rs` counts what this saves.

use std::sync::LazyLock;

use automation_core::{NodeKey, NodeTarget};
use schemars::JsonSchema;
use serde_json::{Map, Value, json};

/// What a node-reference property says, instead of repeating the id/selector schema.
pub const NODE_REF: &str =
    "A node: its id from snapshot_tree/find_node, or a selector object as find_node takes.";

/// What a `settle` property says on every tool but `settle` itself.
pub const SETTLE_REF: &str = "Optional settle spec, as the settle tool's `settle`.";

/// Field descriptions that only say "the node": replaced by [`NODE_REF`].
const GENERIC_NODE_DOCS: &[&str] = &["The node.", "The node id."];

/// Keys schemars adds that a model needs no tokens for.
const NOISE: &[&str] = &["$schema", "title", "format"];

fn schema_of<T: JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
    });
    let mut v = schemars::SchemaGenerator::new(settings)
        .into_root_schema_for::<T>()
        .to_value();
    simplify_nullable(&mut v);
    strip_noise(&mut v);
    if let Value::Object(m) = &mut v {
        m.remove("description");
    }
    v
}

/// The node-reference schemas core generates (an id or selector; a bare id), without their
/// descriptions: a property equal to one of them is a node reference.
static NODE_SCHEMAS: LazyLock<[Value; 2]> =
    LazyLock::new(|| [schema_of::<NodeTarget>(), schema_of::<NodeKey>()]);

/// `Option<T>` comes out of schemars as `type: [T, "null"]` or `anyOf: [T, null]`, which some
/// clients refuse; an optional property is simply absent, so drop the `null` arm.
pub fn simplify_nullable(v: &mut Value) {
    let Value::Object(m) = v else { return };
    if let Some(Value::Array(types)) = m.get("type") {
        let rest: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if rest.len() == 1 && types.len() == 2 {
            m.insert(
                "type".into(),
                rest.into_iter().next().unwrap_or(Value::Null),
            );
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(arms)) = m.get(key) else {
            continue;
        };
        let rest: Vec<Value> = arms
            .iter()
            .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
            .cloned()
            .collect();
        if rest.len() == 1 && arms.len() == 2 {
            m.remove(key);
            if let Some(Value::Object(inner)) = rest.into_iter().next() {
                for (k, val) in inner {
                    m.entry(k).or_insert(val);
                }
            }
        }
    }
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for p in props.values_mut() {
            simplify_nullable(p);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(inner) = m.get_mut(key) {
            simplify_nullable(inner);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(arms)) = m.get_mut(key) {
            for a in arms {
                simplify_nullable(a);
            }
        }
    }
}

/// Removes the `NOISE` keys at every level.
pub fn strip_noise(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for k in NOISE {
                m.remove(*k);
            }
            m.values_mut().for_each(strip_noise);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_noise),
        _ => {}
    }
}

/// Whether `v` (a property schema, description aside) is one of core's node references, and
/// whether it is the id-only kind.
fn node_ref_kind(v: &Value) -> Option<bool> {
    let Value::Object(m) = v else { return None };
    let mut bare = m.clone();
    bare.remove("description");
    let bare = Value::Object(bare);
    let [target, key] = &*NODE_SCHEMAS;
    if bare == *target {
        Some(false)
    } else if bare == *key {
        Some(true)
    } else {
        None
    }
}

/// The short form of a node-reference property.
fn short_node_ref(doc: Option<&str>, id_only: bool) -> Value {
    let doc = doc
        .filter(|d| !GENERIC_NODE_DOCS.contains(d))
        .map(str::to_owned);
    if id_only {
        let doc = doc.unwrap_or_else(|| "A node id from snapshot_tree/find_node.".into());
        return json!({"type": "string", "description": doc});
    }
    let doc = doc.map_or_else(|| NODE_REF.to_owned(), |d| format!("{d} {NODE_REF}"));
    json!({"anyOf": [{"type": "string"}, {"type": "object"}], "description": doc})
}

/// `oneOf: [{const: "a", description}, …]` → `enum: ["a", …]`: the values are what a model
/// needs; the property's own description says what they mean.
fn enum_of_consts(m: &Map<String, Value>) -> Option<Vec<Value>> {
    ["oneOf", "anyOf"].iter().find_map(|key| {
        let Some(Value::Array(arms)) = m.get(*key) else {
            return None;
        };
        arms.iter()
            .map(|a| {
                let c = a.get("const").or_else(|| {
                    a.get("enum")
                        .and_then(Value::as_array)
                        .filter(|e| e.len() == 1)
                        .and_then(|e| e.first())
                })?;
                c.is_string().then(|| c.clone())
            })
            .collect::<Option<Vec<_>>>()
    })
}

/// Compacts one property schema, recursively.
pub fn compact(v: &mut Value) {
    if let Some(id_only) = node_ref_kind(v) {
        let doc = v
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        *v = short_node_ref(doc.as_deref(), id_only);
        return;
    }
    let Value::Object(m) = v else {
        if let Value::Array(items) = v {
            items.iter_mut().for_each(compact);
        }
        return;
    };
    if let Some(values) = enum_of_consts(m) {
        m.remove("oneOf");
        m.remove("anyOf");
        m.insert("type".into(), json!("string"));
        m.insert("enum".into(), Value::Array(values));
    }
    for (k, child) in m.iter_mut() {
        match k.as_str() {
            "properties" => {
                if let Value::Object(props) = child {
                    props.values_mut().for_each(compact);
                }
            }
            "items" | "anyOf" | "oneOf" | "allOf" | "additionalProperties" => compact(child),
            _ => {}
        }
    }
}

/// A tool's input schema from its arguments' schemars schema, as the tool list shows it:
/// nullable options simplified, noise stripped, no top description, each property
/// compacted, and no property beyond those.
pub fn tool_schema(mut schema: Value) -> Map<String, Value> {
    simplify_nullable(&mut schema);
    strip_noise(&mut schema);
    let mut map = match schema {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    map.remove("description");
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for v in props.values_mut() {
            compact(v);
        }
    }
    map.insert("additionalProperties".into(), Value::Bool(false));
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_references_become_one_short_line() {
        let mut target = schema_of::<NodeTarget>();
        assert!(node_ref_kind(&target) == Some(false), "{target}");
        compact(&mut target);
        assert_eq!(target["description"], NODE_REF);
        let mut key = schema_of::<NodeKey>();
        key["description"] = json!("The node id.");
        compact(&mut key);
        assert_eq!(key["type"], "string");
        // A distinctive field doc is kept in front of the shared line.
        let mut crop = schema_of::<NodeTarget>();
        crop["description"] = json!("Crop to this node's bounds.");
        compact(&mut crop);
        assert_eq!(
            crop["description"],
            format!("Crop to this node's bounds. {NODE_REF}")
        );
    }

    #[test]
    fn documented_enums_become_plain_enums() {
        let mut v = json!({"description": "What to do.", "oneOf": [
            {"type": "string", "const": "click", "description": "Down then up."},
            {"type": "string", "const": "move", "description": "Move."}
        ]});
        compact(&mut v);
        assert_eq!(
            v,
            json!({"description": "What to do.", "type": "string", "enum": ["click", "move"]})
        );
        // Arms that are objects (a tagged enum) stay.
        let mut tagged =
            json!({"oneOf": [{"type": "object", "properties": {"kind": {"const": "a"}}}]});
        let before = tagged.clone();
        compact(&mut tagged);
        assert_eq!(tagged, before);
    }
}
