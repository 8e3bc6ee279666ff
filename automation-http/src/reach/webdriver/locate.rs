//! Locator strategies. `accessibility id`, `name`, `class name`, `tag name` and the simple
//! CSS forms Selenium 4 rewrites `By.ID`, `By.NAME` and `By.CLASS_NAME` into are each one
//! XPath over the page source, so every strategy but our own selector selects from the same
//! XML a client sees; `-automation selector` is the kit's JSON selector, answered by core's
//! `find_node`.

use serde_json::{Map, Value};

use super::error::{W3c, WdError};
use super::source::literal;

/// Our own strategy: a JSON selector (`{"role": "Button", "label": "Save"}`).
pub const SELECTOR: &str = "-automation selector";

/// How a locator is answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Locator {
    /// An XPath over the page source.
    XPath(String),
    /// A selector for `find_node`.
    Selector(Map<String, Value>),
}

/// A find's body, `{using, value}`, as the client sent it (either may be missing or not a
/// string: the find then says what it needs).
#[derive(Debug, Default, serde::Deserialize)]
pub struct FindBody {
    #[serde(default)]
    using: Option<Value>,
    #[serde(default)]
    value: Option<Value>,
}

impl FindBody {
    /// The body's fields (none, for a body that is not an object).
    pub fn of(body: &Value) -> Self {
        serde::Deserialize::deserialize(body).unwrap_or_default()
    }

    /// The strategy.
    pub fn using(&self) -> Option<&str> {
        self.using.as_ref()?.as_str()
    }

    /// What to look for.
    pub fn value(&self) -> Option<&str> {
        self.value.as_ref()?.as_str()
    }

    /// The value as the client sent it, for a message.
    pub fn value_json(&self) -> String {
        self.value
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default()
    }
}

/// The `find_node` selector a one-element find from the root may use instead of its XPath:
/// `accessibility id` and `class name` (and the id's CSS form) select the first node in
/// document order with that author id or role either way, and core answers without reading
/// the whole tree. `None` for the rest — `name` too: core's label match leaves out a `Label`
/// that names a matching field, which the page source's `name` attribute keeps, so the first
/// by one would not be the first by the other.
pub fn as_selector(body: &Value) -> Option<Map<String, Value>> {
    let find = FindBody::of(body);
    let (using, value) = (find.using()?, find.value()?);
    let (field, v) = match using {
        "accessibility id" | "id" => ("author_id", value.to_string()),
        "class name" | "tag name" => ("role", value.trim().to_string()),
        "css selector" => match css(value, false).ok()? {
            Locator::XPath(x) => {
                let (attr, lit) = x
                    .strip_prefix("//*[@")?
                    .strip_suffix(']')?
                    .split_once('=')?;
                let v = lit.strip_prefix('"')?.strip_suffix('"')?;
                match attr {
                    "accessibility-id" => ("author_id", v.to_string()),
                    _ => return None,
                }
            }
            Locator::Selector(_) => return None,
        },
        _ => return None,
    };
    if field == "role" && !v.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let mut m = Map::new();
    m.insert(field.into(), Value::String(v));
    Some(m)
}

/// The strategies, for the error that lists them.
pub const STRATEGIES: &[&str] = &[
    "accessibility id",
    "name",
    "class name",
    "tag name",
    "xpath",
    "css selector",
    SELECTOR,
];

/// Reads `{using, value}`; `scoped`: from an element (the XPath is then relative to it).
pub fn read(body: &Value, scoped: bool) -> Result<Locator, WdError> {
    let find = FindBody::of(body);
    let using = find
        .using()
        .ok_or_else(|| WdError::argument("a find needs `using` (the strategy) and `value`"))?;
    let value = find
        .value()
        .ok_or_else(|| WdError::argument("a find needs `value`, a string"))?;
    let anywhere = if scoped { ".//*" } else { "//*" };
    let by_attr = |attr: &str| Locator::XPath(format!("{anywhere}[@{attr}={}]", literal(value)));
    match using {
        "accessibility id" | "id" => Ok(by_attr("accessibility-id")),
        "name" => Ok(by_attr("name")),
        "class name" | "tag name" => role(value, scoped),
        "xpath" => Ok(Locator::XPath(value.to_string())),
        "css selector" => css(value, scoped),
        SELECTOR => match serde_json::from_str::<Value>(value) {
            Ok(Value::Object(m)) => Ok(Locator::Selector(m)),
            _ => Err(WdError::new(
                W3c::InvalidSelector,
                format!(
                    "{SELECTOR} takes a JSON object like {{\"role\": \"Button\", \"label\": \"Save\"}}, got {value:?}"
                ),
            )),
        },
        other => Err(WdError::new(
            W3c::InvalidSelector,
            format!(
                "unknown locator strategy {other:?}; use one of {}",
                STRATEGIES.join(", ")
            ),
        )),
    }
}

/// A role, matched without regard to case (`checkbox` finds `CheckBox`).
fn role(value: &str, scoped: bool) -> Result<Locator, WdError> {
    let v = value.trim();
    if v.is_empty()
        || !v
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(WdError::new(
            W3c::InvalidSelector,
            format!(
                "{value:?} is not a role name; class name takes a role as the page source names elements (Button, CheckBox, TextInput)"
            ),
        ));
    }
    let anywhere = if scoped { ".//*" } else { "//*" };
    Ok(Locator::XPath(format!(
        "{anywhere}[translate(name(), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')={}]",
        literal(&v.to_ascii_lowercase())
    )))
}

/// The CSS forms Selenium 4 sends for `By.ID`, `By.NAME` and `By.CLASS_NAME`: `#x` and
/// `[id="x"]` (accessibility id), `[name="x"]`, `.x` (role), and a bare role.
fn css(value: &str, scoped: bool) -> Result<Locator, WdError> {
    let v = value.trim();
    let unescape = |s: &str| -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    let anywhere = if scoped { ".//*" } else { "//*" };
    let attr =
        |name: &str, val: &str| Locator::XPath(format!("{anywhere}[@{name}={}]", literal(val)));
    if let Some(inner) = v
        .strip_prefix("*")
        .unwrap_or(v)
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        && let Some((name, quoted)) = inner.split_once('=')
    {
        let q = quoted.trim();
        let val = q
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .or_else(|| q.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')));
        if let Some(val) = val {
            let val = unescape(val);
            return match name.trim() {
                "id" => Ok(attr("accessibility-id", &val)),
                "name" => Ok(attr("name", &val)),
                other => Ok(attr(other, &val)).and_then(|l| {
                    if other
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                        && !other.is_empty()
                    {
                        Ok(l)
                    } else {
                        Err(css_error(value))
                    }
                }),
            };
        }
    }
    if let Some(id) = v.strip_prefix('#') {
        return Ok(attr("accessibility-id", &unescape(id)));
    }
    if let Some(class) = v.strip_prefix('.') {
        return role(&unescape(class), scoped);
    }
    if v.chars().all(|c| c.is_ascii_alphanumeric()) && !v.is_empty() {
        return role(v, scoped);
    }
    Err(css_error(value))
}

fn css_error(value: &str) -> WdError {
    WdError::new(
        W3c::InvalidSelector,
        format!(
            "CSS {value:?} is beyond the forms this server reads (#id, [name=\"x\"], [id=\"x\"], .Role, Role); use xpath over the page source"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn xpath(using: &str, value: &str) -> String {
        match read(&json!({"using": using, "value": value}), false).unwrap() {
            Locator::XPath(x) => x,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn selenium_css_forms_are_read_as_their_strategies() {
        assert_eq!(
            xpath("css selector", r#"[name="Zoë's"]"#),
            r#"//*[@name="Zoë's"]"#
        );
        assert_eq!(
            xpath("css selector", r#"[id="save"]"#),
            r#"//*[@accessibility-id="save"]"#
        );
        assert_eq!(
            xpath("css selector", "#save"),
            r#"//*[@accessibility-id="save"]"#
        );
        assert_eq!(
            xpath("css selector", ".CheckBox"),
            xpath("class name", "checkbox")
        );
        assert_eq!(xpath("name", "6"), r#"//*[@name="6"]"#);
        let bad = read(&json!({"using": "css selector", "value": "div > p"}), false).unwrap_err();
        assert_eq!(bad.kind, W3c::InvalidSelector);
        let bad = read(&json!({"using": "link text", "value": "x"}), false).unwrap_err();
        assert!(bad.message.contains("accessibility id"), "{}", bad.message);
        assert_eq!(
            read(&json!({"using": "xpath"}), false).unwrap_err().kind,
            W3c::InvalidArgument
        );
        let sel = |using: &str, value: &str| {
            as_selector(&json!({"using": using, "value": value})).map(Value::Object)
        };
        // By name goes through the page source, as find_elements and XPath do.
        assert_eq!(sel("css selector", r#"[name="Save"]"#), None);
        assert_eq!(sel("name", "Save"), None);
        assert_eq!(
            sel("accessibility id", "zoom"),
            Some(json!({"author_id": "zoom"}))
        );
        assert_eq!(
            sel("class name", "CheckBox"),
            Some(json!({"role": "CheckBox"}))
        );
        assert_eq!(sel("css selector", r#"[name="a\"b"]"#), None);
        assert_eq!(sel("xpath", "//Button"), None);
    }
}
