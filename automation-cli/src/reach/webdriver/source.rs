//! The page source: the app's tree as XML, and XPath 1.0 over that same XML.
//!
//! One element per node, named by its role; its attributes are the record's fields a
//! locator reads (`name`, `value`, `accessibility-id`, the states, the bounds) and `ref`, the
//! element id a command takes. `find_element(By.XPATH, …)` evaluates the expression on the
//! very XML `GET /source` returns, so what Appium Inspector or lxml select on the page source
//! is what find selects.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::error::{W3c, WdError};

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

/// The page source of a snapshot: `<App name="…">`, then each root node and its subtree.
pub fn xml(snapshot: &Map<String, Value>, app: &str) -> String {
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
    let mut out = String::with_capacity(records.len() * 160);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = write!(out, "<{ROOT} name=\"{}\">", escape(app));
    // Iteratively, so a deep tree cannot overflow the stack: (record, closing?).
    let mut stack: Vec<(Option<&Map<String, Value>>, String)> = records
        .iter()
        .rev()
        .filter(|r| {
            r.get("id")
                .and_then(Value::as_str)
                .is_none_or(|id| !child_refs.contains(id))
        })
        .map(|r| (Some(*r), String::new()))
        .collect();
    let mut depth = 1usize;
    while let Some((record, closing)) = stack.pop() {
        let Some(record) = record else {
            depth -= 1;
            indent(&mut out, depth);
            let _ = write!(out, "</{closing}>");
            continue;
        };
        let name = element_name(
            record
                .get("role")
                .and_then(Value::as_str)
                .unwrap_or("Unknown"),
        );
        indent(&mut out, depth);
        let _ = write!(out, "<{name}");
        for (k, v) in attributes(record) {
            let _ = write!(out, " {k}=\"{}\"", escape(&v));
        }
        let kids: Vec<&Map<String, Value>> = children(record)
            .iter()
            .filter_map(|c| by_ref.get(c.as_str()).copied())
            .collect();
        if kids.is_empty() {
            out.push_str("/>");
        } else {
            out.push('>');
            depth += 1;
            stack.push((None, name));
            for k in kids.into_iter().rev() {
                stack.push((Some(k), String::new()));
            }
        }
    }
    out.push_str(&format!("\n</{ROOT}>\n"));
    out
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

/// Escapes an attribute value; characters XML 1.0 cannot hold become U+FFFD.
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
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
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

/// The `ref`s of the elements `expr` selects in `xml`, in document order; evaluated from the
/// element `context` (a `ref`) when given, else from the document.
pub fn select(xml: &str, expr: &str, context: Option<&str>) -> Result<Vec<String>, WdError> {
    let package = sxd_document::parser::parse(xml).map_err(|e| {
        WdError::new(
            W3c::UnknownError,
            format!("the page source did not parse as XML: {e}"),
        )
    })?;
    let document = package.as_document();
    let xpath = sxd_xpath::Factory::new()
        .build(expr)
        .map_err(|e| invalid(expr, &e.to_string()))?
        .ok_or_else(|| invalid(expr, "it is empty"))?;
    let root = document.root();
    let start: sxd_xpath::nodeset::Node<'_> = match context {
        None => root.into(),
        Some(r) => find_ref(root, r).ok_or_else(|| {
            WdError::new(
                W3c::StaleElementReference,
                format!("element {r} is not in the app's tree any more; find it again"),
            )
        })?,
    };
    let value = xpath
        .evaluate(&sxd_xpath::Context::new(), start)
        .map_err(|e| invalid(expr, &e.to_string()))?;
    let sxd_xpath::Value::Nodeset(nodes) = value else {
        return Err(invalid(
            expr,
            "it gives a value, not elements (a count, a string, a boolean)",
        ));
    };
    let mut refs = Vec::new();
    for node in nodes.document_order() {
        match node {
            sxd_xpath::nodeset::Node::Element(e) => {
                if let Some(r) = e.attribute_value("ref") {
                    refs.push(r.to_string());
                } else if e.name().local_part() != ROOT {
                    return Err(invalid(expr, "it selects an element without a ref"));
                }
            }
            _ => {
                return Err(invalid(
                    expr,
                    "it selects attributes or text, not elements; select the element (drop the trailing /@name or /text())",
                ));
            }
        }
    }
    Ok(refs)
}

fn invalid(expr: &str, why: &str) -> WdError {
    WdError::new(
        W3c::InvalidSelector,
        format!(
            "the XPath {expr:?} cannot be used: {why}; XPath 1.0 over GET /source, e.g. //Button[@name='OK']"
        ),
    )
}

/// The element whose `ref` is `r`, searched depth-first.
fn find_ref<'d>(
    root: sxd_document::dom::Root<'d>,
    r: &str,
) -> Option<sxd_xpath::nodeset::Node<'d>> {
    let mut stack: Vec<sxd_document::dom::Element<'d>> = root
        .children()
        .into_iter()
        .filter_map(|c| c.element())
        .collect();
    while let Some(e) = stack.pop() {
        if e.attribute_value("ref") == Some(r) {
            return Some(e.into());
        }
        stack.extend(e.children().into_iter().filter_map(|c| c.element()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snapshot() -> Map<String, Value> {
        json!({"nodes": [
            {"id": "e1", "role": "Window", "label": "Demo", "children": ["e2", "e3", "e4"], "disabled": false, "focused": false},
            {"id": "e2", "role": "Button", "label": "Say \"hi\" & <go>", "children": [], "disabled": false, "focused": true,
             "bounds": {"x": 8.0, "y": 32.4, "width": 42.6, "height": 20.0}},
            {"id": "e3", "role": "CheckBox", "label": "Remember", "toggled": false, "children": [], "disabled": true, "focused": false},
            {"id": "e4", "role": "Slider", "numeric_value": 30.0, "author_id": "zoom", "children": [], "disabled": false, "focused": false}
        ]})
        .as_object()
        .cloned()
        .unwrap()
    }

    #[test]
    fn the_source_is_xml_that_xpath_reads() {
        let xml = xml(&snapshot(), "demo");
        assert!(xml.contains(r#"<Button ref="e2" name="Say &quot;hi&quot; &amp; &lt;go&gt;" enabled="true" visible="true" focused="true" x="8" y="32" width="43" height="20"/>"#), "{xml}");
        assert_eq!(select(&xml, "//CheckBox", None).unwrap(), ["e3"]);
        assert_eq!(select(&xml, "//*[@enabled='false']", None).unwrap(), ["e3"]);
        assert_eq!(
            select(&xml, "//*[@accessibility-id='zoom']", None).unwrap(),
            ["e4"]
        );
        assert_eq!(select(&xml, "//Slider[@value='30']", None).unwrap(), ["e4"]);
        assert_eq!(
            select(&xml, "//Window/*", None).unwrap(),
            ["e2", "e3", "e4"]
        );
        assert_eq!(select(&xml, "./*", Some("e1")).unwrap(), ["e2", "e3", "e4"]);
        let name = literal("Say \"hi\" & <go>");
        assert_eq!(
            select(&xml, &format!("//*[@name={name}]"), None).unwrap(),
            ["e2"]
        );
        assert_eq!(literal(r#"a"b'c"#), r#"concat("a", '"', "b'c")"#);
        assert_eq!(
            select(&xml, "//Nothing", None).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn an_xpath_that_selects_no_elements_is_an_invalid_selector() {
        let xml = xml(&snapshot(), "demo");
        for bad in ["//Button[", "count(//Button)", "//Button/@name", ""] {
            let e = select(&xml, bad, None).unwrap_err();
            assert_eq!(e.kind, W3c::InvalidSelector, "{bad}: {}", e.message);
        }
        assert_eq!(
            select(&xml, "./*", Some("e99")).unwrap_err().kind,
            W3c::StaleElementReference
        );
    }
}
