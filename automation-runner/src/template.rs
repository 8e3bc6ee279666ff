//! `{{expr}}` in step arguments: each is an expression of the condition language, evaluated
//! over the run's variables (inputs, `<id>_result`, `<id>_status`).
//!
//! A string that is exactly one `{{expr}}` becomes the expression's JSON value (a number stays
//! a number); otherwise each `{{expr}}` is replaced by its text. `${{expr}}` is accepted too.
//!
//! What one call renders is bounded while it is rendered: every byte produced (text, and the
//! size of a whole value) is counted against [`MAX_RENDERED_BYTES`], and the first piece that
//! would pass it ends the substitution with `BUDGET_EXCEEDED` — a 1 MB input referenced a
//! thousand times costs one megabyte, not a gigabyte.

use automation_transpile::expr::Expr;
use serde_json::{Map, Value};

use super::budget::{self, MAX_RENDERED_BYTES};
use super::error::RunnerError;

/// Substitutes every string inside `value` (object values and array items, recursively).
/// The error is the expression language's structured parse error, with the field and the
/// template it came from.
pub fn substitute(value: &Value, vars: &Value, field: &str) -> Result<Value, RunnerError> {
    walk(value, vars, &FieldPath::Root(field), &mut Budget::new())
}

/// [`substitute`] over an object's entries (a step's arguments), without wrapping it first.
pub fn substitute_map(
    map: &Map<String, Value>,
    vars: &Value,
    field: &str,
) -> Result<Map<String, Value>, RunnerError> {
    walk_map(map, vars, &FieldPath::Root(field), &mut Budget::new())
}

/// Bytes left to render.
struct Budget {
    left: usize,
}

impl Budget {
    fn new() -> Self {
        Self {
            left: MAX_RENDERED_BYTES,
        }
    }

    /// Takes `n` bytes, or fails naming where the budget ran out.
    fn take(&mut self, n: usize, field: &FieldPath<'_>, template: &str) -> Result<(), RunnerError> {
        if n > self.left {
            let shown: String = template.chars().take(120).collect();
            let more = if shown.len() < template.len() {
                "…"
            } else {
                ""
            };
            return Err(budget::exceeded(
                "rendered_bytes",
                MAX_RENDERED_BYTES,
                &field.to_string(),
                format!(
                    "{field}: the arguments render to more than {MAX_RENDERED_BYTES} bytes (at `{shown}{more}`); nothing was called"
                ),
                "reference large values fewer times, or pass smaller inputs",
            ));
        }
        self.left -= n;
        Ok(())
    }
}

/// About how many bytes `v` takes as JSON; stops counting once past `limit`.
fn weigh(v: &Value, limit: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total += match v {
            Value::String(s) => s.len() + 2,
            Value::Array(items) => {
                stack.extend(items);
                2 + items.len()
            }
            Value::Object(m) => {
                for (k, v) in m {
                    total += k.len() + 4;
                    stack.push(v);
                }
                2
            }
            _ => 8,
        };
        if total > limit {
            break;
        }
    }
    total
}

/// Where a value sits (`args.node.label`, `args.keys[2]`), spelled out only for an error: a
/// step's arguments are walked on every try, and most strings hold no template.
enum FieldPath<'a> {
    Root(&'a str),
    Key(&'a FieldPath<'a>, &'a str),
    Index(&'a FieldPath<'a>, usize),
}

impl std::fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldPath::Root(r) => f.write_str(r),
            FieldPath::Key(p, k) => write!(f, "{p}.{k}"),
            FieldPath::Index(p, i) => write!(f, "{p}[{i}]"),
        }
    }
}

fn walk(
    value: &Value,
    vars: &Value,
    path: &FieldPath<'_>,
    budget: &mut Budget,
) -> Result<Value, RunnerError> {
    match value {
        Value::String(s) => substitute_str(s, vars, path, budget),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| walk(v, vars, &FieldPath::Index(path, i), budget))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        Value::Object(m) => walk_map(m, vars, path, budget).map(Value::Object),
        other => Ok(other.clone()),
    }
}

fn walk_map(
    map: &Map<String, Value>,
    vars: &Value,
    path: &FieldPath<'_>,
    budget: &mut Budget,
) -> Result<Map<String, Value>, RunnerError> {
    let mut out = Map::new();
    for (k, v) in map {
        budget.take(k.len(), path, k)?;
        out.insert(k.clone(), walk(v, vars, &FieldPath::Key(path, k), budget)?);
    }
    Ok(out)
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

fn eval(
    src: &str,
    vars: &Value,
    field: &FieldPath<'_>,
    template: &str,
) -> Result<Value, RunnerError> {
    let expr = Expr::parse(src).map_err(|error| RunnerError::Template {
        error: Box::new(error),
        field: field.to_string(),
        template: template.to_string(),
    })?;
    Ok(expr.evaluate_value(vars))
}

fn substitute_str(
    s: &str,
    vars: &Value,
    field: &FieldPath<'_>,
    budget: &mut Budget,
) -> Result<Value, RunnerError> {
    if !s.contains("{{") {
        budget.take(s.len(), field, s)?;
        return Ok(Value::String(s.to_string()));
    }
    let parts = pieces(s);
    if let [Piece::Expr(src)] = parts.as_slice() {
        let v = eval(src, vars, field, s)?;
        budget.take(weigh(&v, budget.left), field, s)?;
        return Ok(v);
    }
    if !parts.iter().any(|p| matches!(p, Piece::Expr(_))) {
        budget.take(s.len(), field, s)?;
        return Ok(Value::String(s.to_string()));
    }
    let mut out = String::new();
    for p in parts {
        match p {
            Piece::Text(t) => {
                budget.take(t.len(), field, s)?;
                out.push_str(t);
            }
            Piece::Expr(src) => match eval(src, vars, field, s)? {
                Value::String(v) => {
                    budget.take(v.len(), field, s)?;
                    out.push_str(&v);
                }
                Value::Null => {}
                other => {
                    budget.take(weigh(&other, budget.left), field, s)?;
                    out.push_str(&other.to_string());
                }
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
    fn rendering_stops_at_the_budget_while_substituting() {
        let big = "x".repeat(1_000_000);
        let vars = json!({"big": big});
        let label = "{{big}}".repeat(1000);
        let started = std::time::Instant::now();
        let e = substitute(&json!({"label": label}), &vars, "args")
            .unwrap_err()
            .to_json();
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(e["code"], "BUDGET_EXCEEDED");
        assert_eq!(e["budget"], "rendered_bytes");
        assert_eq!(e["at"], "args.label");
        // Whole values count too: a list of many references.
        let many: Vec<Value> = (0..2000).map(|_| json!("{{big}}")).collect();
        let e = substitute(&json!({"keys": many}), &vars, "args")
            .unwrap_err()
            .to_json();
        assert_eq!(e["budget"], "rendered_bytes");
        // Under the budget, it renders.
        assert_eq!(
            substitute(&json!({"a": "{{big}}"}), &vars, "args").unwrap()["a"]
                .as_str()
                .map(str::len),
            Some(1_000_000)
        );
    }

    #[test]
    fn a_broken_expression_is_the_structured_parse_error() {
        let e = substitute(&json!({"text": "{{name ==}}"}), &json!({}), "args")
            .unwrap_err()
            .to_json();
        assert_eq!(e["error_type"], "syntax_error");
        assert_eq!(e["field"], "args.text");
        let e = substitute(&json!({"a": [1, {"b": "{{ ) }}"}]}), &json!({}), "args")
            .unwrap_err()
            .to_json();
        assert_eq!(e["field"], "args.a[1].b");
        assert_eq!(e["recovery"], "fix_code");
    }
}
