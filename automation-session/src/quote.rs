//! Quoting, never splicing: every string a session hands generated code — an exported test
//! (an app's text, a node's name, a failure's message, the export's own name) or the
//! inspector's snippets — reaches it through one of these, one per place in one language. An app's text can hold anything, and a test is code a
//! team commits and runs.
//!
//! - TypeScript: a comment ends at any of ECMAScript's line terminators (LF, CR, U+2028,
//!   U+2029); a string literal or a JSON value is escaped so that none of them appears raw.
//! - YAML: a comment ends at a line break, and YAML 1.1 readers count NEL (U+0085), U+2028
//!   and U+2029 among them; values go through the YAML serializer, which quotes them.

use serde_json::Value;

/// Whether `c` ends a line for a JavaScript or YAML reader, or is a control character no
/// comment should hold.
fn breaks(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// `text` as the body of one comment line (TypeScript `//` or YAML `#`): every line
/// terminator and control character becomes a space.
pub fn comment(text: &str) -> String {
    text.chars()
        .map(|c| if breaks(c) { ' ' } else { c })
        .collect()
}

/// A JSON text made safe to sit in JavaScript source: U+2028 and U+2029, which JSON allows
/// raw inside strings and older JavaScript does not, and NEL (U+0085), which some editors
/// show as a line break, are written as escapes. (They can occur only inside strings, where
/// the escape means the same character.)
fn js_safe(json: String) -> String {
    if json.contains(['\u{2028}', '\u{2029}', '\u{85}']) {
        json.replace('\u{2028}', "\\u2028")
            .replace('\u{2029}', "\\u2029")
            .replace('\u{85}', "\\u0085")
    } else {
        json
    }
}

/// `text` as a TypeScript string literal.
pub fn ts_string(text: &str) -> String {
    js_safe(serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into()))
}

/// `value` as a TypeScript expression (a JSON value written as JavaScript).
pub fn ts_value(value: &Value) -> String {
    js_safe(value.to_string())
}

/// A property access on `object`: `object.name` for a plain identifier, `object["…"]`
/// otherwise.
pub fn ts_property(object: &str, name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!("{object}.{name}")
    } else {
        format!("{object}[{}]", ts_string(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn no_line_terminator_survives_in_a_comment() {
        let hostile = "a\nb\rc\u{2028}d\u{2029}e\u{85}f\u{b}g\u{c}h\u{0}i";
        let c = comment(hostile);
        assert!(!c.chars().any(breaks), "{c:?}");
        assert_eq!(c, "a b c d e f g h i");
    }

    #[test]
    fn strings_and_values_carry_no_raw_separator() {
        assert_eq!(ts_string("x\u{2028}y"), r#""x\u2028y""#);
        assert_eq!(ts_value(&json!({"v": "\u{2029}"})), r#"{"v":"\u2029"}"#);
        assert_eq!(ts_property("inputs", "name_2"), "inputs.name_2");
        assert_eq!(ts_property("inputs", "2x"), r#"inputs["2x"]"#);
        assert_eq!(ts_property("inputs", "a;b"), r#"inputs["a;b"]"#);
    }
}
