//! How a request names a node: a reference from a reply (`"e12"`), a selector, or a raw id.
//!
//! Replies hand out short references ([`RefKey`], see [`crate::refs`]) bound to what they
//! named, so a reference never silently retargets when the toolkit reuses an id. Raw ids are
//! AccessKit `NodeId`s (egui's are 64-bit hashes), still accepted for the Rust harness:
//! JavaScript clients parse JSON numbers as f64 and corrupt anything above 2^53, so raw ids
//! travel as decimal *strings* ([`NodeKey`]); a JSON integer is accepted when it is exact.
//!
//! ```
//! let s: automation_core::Selector =
//!     serde_json::from_str(r#"{"role":"Button","label":"Save"}"#).unwrap();
//! assert_eq!(s.label.as_deref(), Some("Save"));
//! ```

use std::fmt;

use accesskit::NodeId;

use crate::refs::RefKey;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

/// A node id that survives any JSON parser: serialised as a decimal string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeKey(pub u64);

impl NodeKey {
    /// The AccessKit id.
    pub fn id(self) -> NodeId {
        NodeId(self.0)
    }
}

impl From<NodeId> for NodeKey {
    fn from(id: NodeId) -> Self {
        Self(id.0)
    }
}

impl fmt::Display for NodeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Serialize for NodeKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// Integers below this survive an f64 parse; 2^53 itself is what 2^53 + 1 rounds to.
const MAX_EXACT_F64_INT: u64 = 1 << 53;

fn key_from_value<E: de::Error>(value: &serde_json::Value) -> Result<NodeKey, E> {
    match value {
        serde_json::Value::String(s) => s.trim().parse::<u64>().map(NodeKey).map_err(|_| {
            E::custom(format!(
                "node reference {s:?} is neither a reference like \"e12\" nor a raw id; pass the `id` from snapshot_tree or find_node, or a selector object"
            ))
        }),
        serde_json::Value::Number(n) => match n.as_u64() {
            Some(v) if v < MAX_EXACT_F64_INT => Ok(NodeKey(v)),
            Some(v) => Err(E::custom(format!(
                "node id {v} is 2^53 or more and may have been rounded by a JSON parser; pass it as the string from snapshot_tree"
            ))),
            None => Err(E::custom(format!(
                "node id {n} is not a non-negative integer; pass the `id` string from snapshot_tree"
            ))),
        },
        other => Err(E::custom(format!(
            "expected a node id string, got {}",
            json_kind(other)
        ))),
    }
}

/// What kind of JSON value `value` is, as an error names it ("an array", "null", …).
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

impl<'de> Deserialize<'de> for NodeKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        key_from_value(&value)
    }
}

/// Picks nodes by what they are rather than by id. Every given field must match.
///
/// `label` is the accessible name; `name` is accepted for it (and `name_contains` for
/// `label_contains`), the word the JS client, Playwright and ARIA use. Replies, schemas and
/// serialisation say `label`; a selector giving both spellings is refused.
///
/// ```
/// let s: automation_core::Selector = serde_json::from_str(r#"{"name": "Save"}"#).unwrap();
/// assert_eq!(s.label.as_deref(), Some("Save"));
/// let both = serde_json::from_str::<automation_core::Selector>(r#"{"name": "a", "label": "b"}"#);
/// assert!(both.unwrap_err().to_string().contains("`name` is another name for `label`"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(deny_unknown_fields))]
pub struct Selector {
    /// AccessKit role name, case-insensitive (`Button`, `CheckBox`, `TextInput`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Exact accessible name: the label, or a Label's text (what a screen reader says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Substring of the accessible name, case-insensitive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_contains: Option<String>,
    /// Exact value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The app's own stable id for the node (AccessKit `author_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_id: Option<String>,
    /// Pick the n-th match (0-based, document order) when several match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<usize>,
    /// Only nodes inside the one node this selector picks (a named group, dialog or window):
    /// `{"role": "Button", "label": "OK", "within": {"role": "Dialog", "label": "Save as"}}`.
    /// One level: a `within` holds no `within` of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<Anchor>"))]
    pub within: Option<Box<Selector>>,
}

/// The schema of a selector's `within` (a selector without a `within` of its own): one level
/// keeps the schema free of recursion, which some clients cannot read.
#[cfg(feature = "schemars")]
#[derive(schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code)]
struct Anchor {
    /// Role of the node to search inside.
    role: Option<String>,
    /// Its exact accessible name.
    label: Option<String>,
    /// Its app-given id.
    author_id: Option<String>,
    /// The n-th match, when several match.
    nth: Option<usize>,
}

/// A selector as written: every field under its canonical name and its alias.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SelectorAsWritten {
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    label_contains: Option<String>,
    #[serde(default)]
    name_contains: Option<String>,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    author_id: Option<String>,
    #[serde(default)]
    nth: Option<usize>,
    #[serde(default)]
    within: Option<Box<Selector>>,
}

/// One field given under its name or its alias, not both.
fn one_of<E: de::Error>(
    canonical: Option<String>,
    alias: Option<String>,
    names: (&str, &str),
) -> Result<Option<String>, E> {
    match (canonical, alias) {
        (Some(a), Some(b)) => Err(E::custom(format!(
            "the selector gives both `{}` ({a:?}) and `{}` ({b:?}), and `{}` is another name for `{}` (the accessible name); give one, e.g. {{\"{}\": {a:?}}}",
            names.0, names.1, names.1, names.0, names.0
        ))),
        (a, b) => Ok(a.or(b)),
    }
}

impl<'de> Deserialize<'de> for Selector {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = SelectorAsWritten::deserialize(d)?;
        Ok(Selector {
            role: w.role,
            label: one_of(w.label, w.name, ("label", "name"))?,
            label_contains: one_of(
                w.label_contains,
                w.name_contains,
                ("label_contains", "name_contains"),
            )?,
            value: w.value,
            author_id: w.author_id,
            nth: w.nth,
            within: match w.within {
                Some(scope) if scope.within.is_some() => {
                    return Err(de::Error::custom(
                        "a `within` holds no `within` of its own (one level); name the outer group by a unique role and label, or add `nth`",
                    ));
                }
                Some(scope) if scope.is_empty() => {
                    return Err(de::Error::custom(
                        "`within` needs at least one of role, label, label_contains, value, author_id; e.g. {\"within\": {\"role\": \"Dialog\", \"label\": \"Save as\"}}",
                    ));
                }
                other => other,
            },
        })
    }
}

impl Selector {
    /// `true` when no field constrains the match.
    pub fn is_empty(&self) -> bool {
        self.role.is_none()
            && self.label.is_none()
            && self.label_contains.is_none()
            && self.value.is_none()
            && self.author_id.is_none()
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(r) = &self.role {
            parts.push(format!("role={r:?}"));
        }
        if let Some(l) = &self.label {
            parts.push(format!("label={l:?}"));
        }
        if let Some(l) = &self.label_contains {
            parts.push(format!("label_contains={l:?}"));
        }
        if let Some(v) = &self.value {
            parts.push(format!("value={v:?}"));
        }
        if let Some(a) = &self.author_id {
            parts.push(format!("author_id={a:?}"));
        }
        if let Some(n) = self.nth {
            parts.push(format!("nth={n}"));
        }
        if let Some(scope) = &self.within {
            parts.push(format!("within={scope}"));
        }
        write!(f, "{{{}}}", parts.join(", "))
    }
}

/// A node reference in a request: a reference from a reply (`"e12"`), a selector object
/// (`{"role": "Button", "label": "Save"}`), or a raw id (`"4294967297"`, or a small integer).
#[derive(Debug, Clone, PartialEq)]
pub enum NodeTarget {
    /// A reference an earlier reply handed out, bound to what it named.
    Ref(RefKey),
    /// A raw toolkit id (the Rust harness's; replies hand out references instead).
    Id(NodeKey),
    /// Whatever single node the selector matches.
    Select(Selector),
}

impl From<NodeKey> for NodeTarget {
    fn from(key: NodeKey) -> Self {
        Self::Id(key)
    }
}

impl From<NodeId> for NodeTarget {
    fn from(id: NodeId) -> Self {
        Self::Id(id.into())
    }
}

impl From<RefKey> for NodeTarget {
    fn from(key: RefKey) -> Self {
        Self::Ref(key)
    }
}

impl From<Selector> for NodeTarget {
    fn from(s: Selector) -> Self {
        Self::Select(s)
    }
}

impl fmt::Display for NodeTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ref(k) => write!(f, "{k}"),
            Self::Id(k) => write!(f, "node {k}"),
            Self::Select(s) => write!(f, "selector {s}"),
        }
    }
}

/// A node named by a string: a reference (`"e12"`) or a raw id (`"4294967297"`); the error
/// says what a reference looks like.
impl std::str::FromStr for NodeTarget {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if let Ok(key) = s.parse::<RefKey>() {
            return Ok(Self::Ref(key));
        }
        key_from_value::<serde_json::Error>(&serde_json::Value::String(s.to_string()))
            .map(Self::Id)
            .map_err(|e| e.to_string())
    }
}

impl Serialize for NodeTarget {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Ref(k) => k.serialize(s),
            Self::Id(k) => k.serialize(s),
            Self::Select(sel) => sel.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for NodeTarget {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        if value.is_object() {
            let selector: Selector = serde_json::from_value(value).map_err(de::Error::custom)?;
            if selector.is_empty() {
                return Err(de::Error::custom(
                    "the node selector is empty; give at least one of role, label, label_contains, value, author_id",
                ));
            }
            Ok(Self::Select(selector))
        } else if let Some(key) = value.as_str().and_then(|s| s.parse::<RefKey>().ok()) {
            Ok(Self::Ref(key))
        } else {
            key_from_value(&value).map(Self::Id)
        }
    }
}

#[cfg(feature = "schemars")]
mod schema {
    use super::*;
    use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
    use std::borrow::Cow;

    impl JsonSchema for NodeKey {
        fn schema_name() -> Cow<'static, str> {
            "NodeKey".into()
        }
        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "string",
                "pattern": "^[0-9]+$",
                "description": "A raw node id (a decimal string)."
            })
        }
    }

    impl JsonSchema for NodeTarget {
        fn schema_name() -> Cow<'static, str> {
            "NodeTarget".into()
        }
        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            let selector = generator.subschema_for::<Selector>();
            json_schema!({
                "description": "A reference from a reply (\"e12\"), or a selector object.",
                "anyOf": [
                    {"type": "string", "pattern": "^(e?[0-9]+)$"},
                    {"type": "integer", "minimum": 0, "maximum": 9007199254740991u64},
                    selector
                ]
            })
        }
    }
}
