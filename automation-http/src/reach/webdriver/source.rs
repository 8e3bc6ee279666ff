//! The page source: the app's tree as XML, and XPath 1.0 over that same XML.
//!
//! One element per node, named by its role; its attributes are the record's fields a
//! locator reads (`name`, `value`, `accessibility-id`, the states, the bounds) and `ref`, the
//! element id a command takes. The page is data ([`Page`]): `GET /source` writes it as XML,
//! and `find_element(By.XPATH, …)` evaluates the expression over the same elements
//! ([`super::xpath`]), so what Appium Inspector or lxml select on the page source is what find
//! selects.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// The root element's name.
pub const ROOT: &str = "App";

/// The page-source attributes of one node record, in the order the XML gives them.
pub fn attributes(record: &Map<String, Value>) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let text = |k: &str| record.get(k).and_then(Value::as_str).map(str::to_string);
    let flag = |k: &str| record.get(k).and_then(Value::as_bool);
    if let Some(r) = text("id") {
        out.push(("ref", r));
    }
    // The accessible name, as core's `label` matches it: the label, or a Label's text.
    let name = text("label").or_else(|| {
        (record.get("role").and_then(Value::as_str) == Some("Label"))
            .then(|| text("value"))
            .flatten()
    });
    if let Some(n) = name.filter(|n| !n.trim().is_empty()) {
        out.push(("name", n));
    }
    let value = text("value").or_else(|| {
        record
            .get("numeric_value")
            .and_then(Value::as_f64)
            .map(number)
    });
    if let Some(v) = value {
        out.push(("value", v));
    }
    if let Some(a) = text("author_id") {
        out.push(("accessibility-id", a));
    }
    if let Some(d) = text("description") {
        out.push(("description", d));
    }
    out.push(("enabled", (!flag("disabled").unwrap_or(false)).to_string()));
    out.push(("visible", (!flag("hidden").unwrap_or(false)).to_string()));
    out.push(("focused", flag("focused").unwrap_or(false).to_string()));
    match record.get("toggled") {
        Some(Value::Bool(b)) => out.push(("checked", b.to_string())),
        Some(Value::String(s)) => out.push(("checked", s.clone())),
        _ => {}
    }
    if let Some(s) = flag("selected") {
        out.push(("selected", s.to_string()));
    }
    if let Some(e) = flag("expanded") {
        out.push(("expanded", e.to_string()));
    }
    if let Some(Value::Object(b)) = record.get("bounds") {
        for k in ["x", "y", "width", "height"] {
            let v = b.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            out.push((k, format!("{}", v.round() as i64)));
        }
    }
    out
}

/// A number as a person writes it (`30`, not `30.0`).
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The records of a `snapshot_tree {format: json}` reply: `nodes` at the top or under `tree`.
pub fn records(snapshot: &Map<String, Value>) -> Vec<&Map<String, Value>> {
    let nodes = snapshot
        .get("nodes")
        .or_else(|| snapshot.get("tree").and_then(|t| t.get("nodes")));
    nodes
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default()
}

/// One element of the page source: its name, its attributes (values already as the XML
/// holds them), and how deep it sits under the root `<App>` (its children are one deeper).
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    /// The element's name (the node's role).
    pub name: String,
    /// Its attributes, in order.
    pub attributes: Vec<(&'static str, String)>,
    /// 1 for a root node, its children 2, and so on.
    pub depth: usize,
}

/// The page source as data: the app's name and its elements in document order. `GET /source`
/// writes it as XML ([`Page::xml`]); a find evaluates XPath over the very same elements
/// ([`super::xpath`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Page {
    /// The root element's `name`.
    pub app: String,
    /// Every element, in document order.
    pub elements: Vec<Element>,
}

impl Page {
    /// The page of a snapshot: each root node and its subtree, walked without recursion (a
    /// deep tree cannot overflow the stack).
    pub fn new(snapshot: &Map<String, Value>, app: &str) -> Self {
        let records = records(snapshot);
        let by_ref: std::collections::HashMap<&str, &Map<String, Value>> = records
            .iter()
            .filter_map(|r| Some((r.get("id")?.as_str()?, *r)))
            .collect();
        let children = |r: &Map<String, Value>| -> Vec<String> {
            r.get("children")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|c| c.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let child_refs: std::collections::HashSet<String> =
            records.iter().flat_map(|r| children(r)).collect();
        let mut stack: Vec<(&Map<String, Value>, usize)> = records
            .iter()
            .rev()
            .filter(|r| {
                r.get("id")
                    .and_then(Value::as_str)
                    .is_none_or(|id| !child_refs.contains(id))
            })
            .map(|r| (*r, 1))
            .collect();
        let mut elements = Vec::with_capacity(records.len());
        let mut seen = std::collections::HashSet::new();
        while let Some((record, depth)) = stack.pop() {
            // A node listed as a child twice (or in a cycle) appears once.
            if let Some(id) = record.get("id").and_then(Value::as_str)
                && !seen.insert(id)
            {
                continue;
            }
            let name = element_name(
                record
                    .get("role")
                    .and_then(Value::as_str)
                    .unwrap_or("Unknown"),
            );
            let attributes = attributes(record)
                .into_iter()
                .map(|(k, v)| (k, clean(&v)))
                .collect();
            elements.push(Element {
                name,
                attributes,
                depth,
            });
            for c in children(record).iter().rev() {
                if let Some(k) = by_ref.get(c.as_str()) {
                    stack.push((k, depth + 1));
                }
            }
        }
        Self {
            app: clean(app),
            elements,
        }
    }

    /// The page as XML: `<App name="…">`, then each element, indented by its depth.
    pub fn xml(&self) -> String {
        let mut out = String::with_capacity(self.elements.len() * 160);
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = write!(out, "<{ROOT} name=\"{}\">", escape(&self.app));
        // The names of the elements still open, innermost last.
        let mut open: Vec<&str> = Vec::new();
        for (i, e) in self.elements.iter().enumerate() {
            while open.len() >= e.depth {
                let name = open.pop().unwrap_or_default();
                indent(&mut out, open.len() + 1);
                let _ = write!(out, "</{name}>");
            }
            indent(&mut out, e.depth);
            let _ = write!(out, "<{}", e.name);
            for (k, v) in &e.attributes {
                let _ = write!(out, " {k}=\"{}\"", escape(v));
            }
            let has_children = self
                .elements
                .get(i + 1)
                .is_some_and(|next| next.depth > e.depth);
            if has_children {
                out.push('>');
                open.push(&e.name);
            } else {
                out.push_str("/>");
            }
        }
        while let Some(name) = open.pop() {
            indent(&mut out, open.len() + 1);
            let _ = write!(out, "</{name}>");
        }
        out.push_str(&format!("\n</{ROOT}>\n"));
        out
    }
}

/// The page source of a snapshot as XML (`Page::new(…).xml()`).
pub fn xml(snapshot: &Map<String, Value>, app: &str) -> String {
    Page::new(snapshot, app).xml()
}

fn indent(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// A role as an XML element name (roles are CamelCase words; anything else becomes `_`).
pub fn element_name(role: &str) -> String {
    let mut name: String = role
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    name
}

/// A value as XML 1.0 can hold it: characters it cannot become U+FFFD. The page keeps values
/// cleaned, so XPath compares what the XML shows.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => c,
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// Escapes an attribute value's markup (its characters are already [`clean`]).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}

/// An XPath string literal for `s` (`concat` when it holds both quote kinds).
pub fn literal(s: &str) -> String {
    if !s.contains('"') {
        format!("\"{s}\"")
    } else if !s.contains('\'') {
        format!("'{s}'")
    } else {
        let parts: Vec<String> = s.split('"').map(|p| format!("\"{p}\"")).collect();
        format!("concat({})", parts.join(", '\"', "))
    }
}
