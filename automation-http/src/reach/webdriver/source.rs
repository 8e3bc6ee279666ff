//! The page source: the app's tree as XML, and XPath 1.0 over that same XML.
//!
//! One element per node, named by its role; its attributes are the record's fields a
//! locator reads (`name`, `value`, `accessibility-id`, the states, the bounds) and `ref`, the
//! element id a command takes. The page is data ([`Page`]): `GET /source` writes it as XML,
//! and `find_element(By.XPATH, …)` evaluates the expression over the same elements
//! ([`super::xpath`]), so what Appium Inspector or lxml select on the page source is what find
//! selects.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use automation_core::RefKey;
use automation_core::snapshot::{SemanticNode, ToggledState};

/// The root element's name.
pub const ROOT: &str = "App";

/// The page-source attributes of one node record, in the order the XML gives them.
pub fn attributes(record: &SemanticNode) -> Vec<(&'static str, String)> {
    let mut out = vec![("ref", record.id.to_string())];
    // The accessible name, as core's `label` matches it: the label, or a Label's text.
    let name = record.label.clone().or_else(|| {
        (record.role == "Label")
            .then(|| record.value.clone())
            .flatten()
    });
    if let Some(n) = name.filter(|n| !n.trim().is_empty()) {
        out.push(("name", n));
    }
    if let Some(v) = record
        .value
        .clone()
        .or_else(|| record.numeric_value.map(number))
    {
        out.push(("value", v));
    }
    if let Some(a) = &record.author_id {
        out.push(("accessibility-id", a.clone()));
    }
    if let Some(d) = &record.description {
        out.push(("description", d.clone()));
    }
    out.push(("enabled", (!record.disabled).to_string()));
    out.push(("visible", (!record.hidden).to_string()));
    out.push(("focused", record.focused.to_string()));
    match record.toggled {
        Some(ToggledState::Bool(b)) => out.push(("checked", b.to_string())),
        Some(ToggledState::Mixed) => out.push(("checked", "mixed".into())),
        None => {}
    }
    if let Some(s) = record.selected {
        out.push(("selected", s.to_string()));
    }
    if let Some(e) = record.expanded {
        out.push(("expanded", e.to_string()));
    }
    if let Some(b) = record.bounds {
        for (k, v) in [
            ("x", b.x),
            ("y", b.y),
            ("width", b.width),
            ("height", b.height),
        ] {
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
    pub fn new(records: &[SemanticNode], app: &str) -> Self {
        let by_ref: HashMap<RefKey, &SemanticNode> = records.iter().map(|r| (r.id, r)).collect();
        let child_refs: HashSet<RefKey> = records
            .iter()
            .flat_map(|r| r.children.iter().copied())
            .collect();
        let mut stack: Vec<(&SemanticNode, usize)> = records
            .iter()
            .rev()
            .filter(|r| !child_refs.contains(&r.id))
            .map(|r| (r, 1))
            .collect();
        let mut elements = Vec::with_capacity(records.len());
        let mut seen = HashSet::new();
        while let Some((record, depth)) = stack.pop() {
            // A node listed as a child twice (or in a cycle) appears once.
            if !seen.insert(record.id) {
                continue;
            }
            let attributes = attributes(record)
                .into_iter()
                .map(|(k, v)| (k, clean(&v)))
                .collect();
            elements.push(Element {
                name: element_name(&record.role),
                attributes,
                depth,
            });
            for c in record.children.iter().rev() {
                if let Some(k) = by_ref.get(c) {
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

/// The page source of a snapshot's records as XML (`Page::new(…).xml()`).
pub fn xml(records: &[SemanticNode], app: &str) -> String {
    Page::new(records, app).xml()
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
