//! `{{expr}}` in step arguments: each is an expression of the condition language, evaluated
//! over the run's variables (inputs, `<id>_result`, `<id>_status`).
//!
//! A string that is exactly one `{{expr}}` becomes the expression's JSON value (a number stays
//! a number); otherwise each `{{expr}}` is replaced by its text. `${{expr}}` is accepted too.

use automation_transpile::expr::Expr;
use serde_json::{Map, Value};

/// Substitutes every string inside `value` (object values and array items, recursively).
/// The error is the expression language's structured parse error, with the field and the
/// template it came from.
pub fn substitute(value: &Value, vars: &Value, field: &str) -> Result<Value, Value> {
    match value {
        Value::String(s) => substitute_str(s, vars, field),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| substitute(v, vars, &format!("{field}[{i}]")))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                out.insert(k.clone(), substitute(v, vars, &format!("{field}.{k}"))?);
            }
            Ok(Value::Object(out))
        }
        other => Ok(other.clone()),
    }
}

/// One template piece: literal text, or an expression.
enum Piece<'a> {
    Text(&'a str),
    Expr(&'a str),
}

fn pieces(s: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open + 2..].find("}}") else {
            break;
        };
        // `${{` is the same template with a GitHub-Actions dollar.
        let lit_end = if open > 0 && rest.as_bytes().get(open - 1) == Some(&b'$') {
            open - 1
        } else {
            open
        };
        if lit_end > 0 {
            out.push(Piece::Text(&rest[..lit_end]));
        }
        out.push(Piece::Expr(&rest[open + 2..open + 2 + close]));
        rest = &rest[open + 2 + close + 2..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

fn eval(src: &str, vars: &Value, field: &str, template: &str) -> Result<Value, Value> {
    let expr = Expr::parse(src).map_err(|e| {
        let mut j = e.to_json();
        if let Value::Object(m) = &mut j {
            m.insert("code".into(), Value::from("BAD_REQUEST"));
            m.insert("field".into(), Value::from(field));
            m.insert("template".into(), Value::from(template));
        }
        j
    })?;
    Ok(expr.evaluate_value(vars))
}

fn substitute_str(s: &str, vars: &Value, field: &str) -> Result<Value, Value> {
    let parts = pieces(s);
    if let [Piece::Expr(src)] = parts.as_slice() {
        return eval(src, vars, field, s);
    }
    if !parts.iter().any(|p| matches!(p, Piece::Expr(_))) {
        return Ok(Value::String(s.to_string()));
    }
    let mut out = String::new();
    for p in parts {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Expr(src) => match eval(src, vars, field, s)? {
                Value::String(v) => out.push_str(&v),
                Value::Null => {}
                other => out.push_str(&other.to_string()),
            },
        }
    }
    Ok(Value::String(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_templates_keep_their_type_and_parts_become_text() {
        let vars = json!({"name": "Ada", "n": 3, "find_result": {"node": "7"}});
        assert_eq!(substitute(&json!("{{n}}"), &vars, "a").unwrap(), json!(3));
        assert_eq!(
            substitute(&json!("Hi {{name}}, ${{ n }}!"), &vars, "a").unwrap(),
            json!("Hi Ada, 3!")
        );
        assert_eq!(
            substitute(&json!({"node": "{{find_result.node}}"}), &vars, "args").unwrap(),
            json!({"node": "7"})
        );
        assert_eq!(
            substitute(&json!("no {{ template"), &vars, "a").unwrap(),
            json!("no {{ template")
        );
    }

    #[test]
    fn a_broken_expression_is_the_structured_parse_error() {
        let e = substitute(&json!({"text": "{{name ==}}"}), &json!({}), "args").unwrap_err();
        assert_eq!(e["error_type"], "syntax_error");
        assert_eq!(e["field"], "args.text");
        assert_eq!(e["recovery"], "fix_code");
    }
}
