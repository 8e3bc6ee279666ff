//! Evaluation over `serde_json::Value` variables: truthiness and loose comparison rules.
//!
//! The rules (documented as a table in `docs/expressions.md`):
//! - truthy: `true`; non-empty strings other than `"false"` and `"0"`; numbers other than 0
//!   (and NaN); non-empty arrays and objects. Falsy: everything else, and missing variables.
//! - `==`: strings exactly; numbers numerically; a number and a numeric string numerically;
//!   a boolean and a string: `true` equals `"true"`/`"1"`, `false` equals `"false"`/`"0"`;
//!   a boolean and a number: true = 1, false = 0; null equals null and a missing variable;
//!   a missing variable equals nothing else (not even another missing one); arrays/objects structurally.
//! - `<`, `<=`, `>`, `>=`: numbers (numeric strings, booleans as 1/0 and null as 0 convert);
//!   two non-numeric strings compare lexicographically; a missing variable is below every
//!   value; anything else is false.

use super::ast::{CmpOp, Expr, Func, Path, Segment};
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::Ordering;

/// An evaluated operand: a missing variable, or a borrowed / computed JSON value.
#[derive(Debug, Clone)]
pub enum Val<'a> {
    /// A path that does not resolve.
    Missing,
    /// A value from the variables or the tree, or computed.
    Json(Cow<'a, Value>),
}

impl<'a> Val<'a> {
    fn borrowed(v: &'a Value) -> Self {
        Self::Json(Cow::Borrowed(v))
    }

    fn owned(v: Value) -> Self {
        Self::Json(Cow::Owned(v))
    }

    fn json(&self) -> Option<&Value> {
        match self {
            Self::Missing => None,
            Self::Json(v) => Some(v),
        }
    }

    /// The value, with a missing variable as `null`.
    pub fn into_value(self) -> Value {
        match self {
            Self::Missing => Value::Null,
            Self::Json(v) => v.into_owned(),
        }
    }
}

/// The truthiness of a JSON value, as in Terminator's `expression_eval`.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !(s.is_empty() || s == "false" || s == "0"),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn truthy_val(v: &Val<'_>) -> bool {
    v.json().is_some_and(truthy)
}

/// How far a path resolves: the number of leading segments found, and the value they lead
/// to (the variables themselves for zero).
pub fn resolve_prefix<'a>(path: &Path, vars: &'a Value) -> (usize, &'a Value) {
    let mut cur = vars;
    for (i, seg) in path.segments.iter().enumerate() {
        match step(seg, cur) {
            Some(next) => cur = next,
            None => return (i, cur),
        }
    }
    (path.segments.len(), cur)
}

fn step<'a>(seg: &Segment, cur: &'a Value) -> Option<&'a Value> {
    match (seg, cur) {
        (Segment::Key(k), Value::Object(m)) => m.get(k),
        (Segment::Key(k), Value::Array(a)) => a.get(k.parse::<usize>().ok()?),
        (Segment::Index(i), Value::Array(a)) => a.get(*i),
        (Segment::Index(i), Value::Object(m)) => m.get(&i.to_string()),
        _ => None,
    }
}

/// `.length` of an array (items) or a string (characters), as in JavaScript.
fn length_property(seg: &Segment, v: &Value) -> Option<usize> {
    if !matches!(seg, Segment::Key(k) if k == "length") {
        return None;
    }
    match v {
        Value::Array(a) => Some(a.len()),
        Value::String(s) => Some(s.chars().count()),
        _ => None,
    }
}

/// Resolves a path against the variables. A last segment `length` on an array or a string
/// (that has no such key) is its length.
pub fn lookup<'a>(path: &Path, vars: &'a Value) -> Val<'a> {
    let (found, v) = resolve_prefix(path, vars);
    if found == path.segments.len() {
        return Val::borrowed(v);
    }
    match path.segments.get(found) {
        Some(seg) if found + 1 == path.segments.len() => {
            length_property(seg, v).map_or(Val::Missing, |n| Val::owned(Value::from(n)))
        }
        _ => Val::Missing,
    }
}

/// Whether `path` resolves (including `.length` of an array or string).
pub fn exists(path: &Path, vars: &Value) -> bool {
    !matches!(lookup(path, vars), Val::Missing)
}

/// Evaluates `e` to a value.
pub fn eval<'a>(e: &'a Expr, vars: &'a Value) -> Val<'a> {
    match e {
        Expr::Literal(v) => Val::borrowed(v),
        Expr::Pattern(p) => Val::owned(Value::String(p.source.clone())),
        Expr::Path(p) => lookup(p, vars),
        Expr::Not(inner) => Val::owned(Value::Bool(!test(inner, vars))),
        Expr::And(items) => Val::owned(Value::Bool(items.iter().all(|i| test(i, vars)))),
        Expr::Or(items) => Val::owned(Value::Bool(items.iter().any(|i| test(i, vars)))),
        Expr::Compare { op, lhs, rhs } => {
            let (l, r) = (eval(lhs, vars), eval(rhs, vars));
            Val::owned(Value::Bool(compare(*op, &l, &r)))
        }
        Expr::Call { func, args } => call(*func, args, vars),
    }
}

/// Evaluates `e` in a boolean context (without building intermediate booleans).
pub fn test(e: &Expr, vars: &Value) -> bool {
    match e {
        Expr::Not(inner) => !test(inner, vars),
        Expr::And(items) => items.iter().all(|i| test(i, vars)),
        Expr::Or(items) => items.iter().any(|i| test(i, vars)),
        Expr::Compare { op, lhs, rhs } => compare(*op, &eval(lhs, vars), &eval(rhs, vars)),
        other => truthy_val(&eval(other, vars)),
    }
}

/// Applies a comparison operator with the loose rules of the module docs.
pub fn compare(op: CmpOp, l: &Val<'_>, r: &Val<'_>) -> bool {
    match op {
        CmpOp::Eq => loose_eq(l, r),
        CmpOp::Ne => !loose_eq(l, r),
        CmpOp::Lt => order(l, r) == Some(Ordering::Less),
        CmpOp::Le => matches!(order(l, r), Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => order(l, r) == Some(Ordering::Greater),
        CmpOp::Ge => matches!(order(l, r), Some(Ordering::Greater | Ordering::Equal)),
    }
}

fn parse_num(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    t.parse::<f64>().ok().filter(|f| !f.is_nan())
}

fn bool_eq_str(b: bool, s: &str) -> bool {
    if b {
        s == "true" || s == "1"
    } else {
        s == "false" || s == "0"
    }
}

/// Loose equality (`==`).
pub fn loose_eq(l: &Val<'_>, r: &Val<'_>) -> bool {
    let (l, r) = match (l.json(), r.json()) {
        (None, None) => return false,
        (None, Some(v)) | (Some(v), None) => return v.is_null(),
        (Some(l), Some(r)) => (l, r),
    };
    json_eq(l, r)
}

fn json_eq(l: &Value, r: &Value) -> bool {
    use Value as V;
    match (l, r) {
        (V::String(a), V::String(b)) => a == b,
        (V::Number(a), V::Number(b)) => a.as_f64() == b.as_f64(),
        (V::Number(n), V::String(s)) | (V::String(s), V::Number(n)) => {
            parse_num(s).is_some_and(|x| n.as_f64() == Some(x))
        }
        (V::Bool(b), V::String(s)) | (V::String(s), V::Bool(b)) => bool_eq_str(*b, s),
        (V::Bool(b), V::Number(n)) | (V::Number(n), V::Bool(b)) => {
            n.as_f64() == Some(if *b { 1.0 } else { 0.0 })
        }
        (V::Bool(a), V::Bool(b)) => a == b,
        (V::Null, V::Null) => true,
        (V::Array(a), V::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| json_eq(x, y))
        }
        (V::Object(a), V::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| json_eq(x, y)))
        }
        _ => false,
    }
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_num(s),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Null => Some(0.0),
        _ => None,
    }
}

/// Ordering for `<`, `<=`, `>`, `>=`; `None` means "not comparable" (all four are false).
pub fn order(l: &Val<'_>, r: &Val<'_>) -> Option<Ordering> {
    let (l, r) = match (l.json(), r.json()) {
        (None, _) => return Some(Ordering::Less),
        (Some(_), None) => return Some(Ordering::Greater),
        (Some(l), Some(r)) => (l, r),
    };
    if let (Some(a), Some(b)) = (as_number(l), as_number(r)) {
        return a.partial_cmp(&b);
    }
    match (l, r) {
        (Value::String(a), Value::String(b)) => Some(a.as_str().cmp(b.as_str())),
        _ => None,
    }
}

/// The text of a scalar (strings as is, numbers and booleans printed); `None` otherwise.
fn text<'v>(v: &'v Val<'_>) -> Option<Cow<'v, str>> {
    match v.json()? {
        Value::String(s) => Some(Cow::Borrowed(s.as_str())),
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        Value::Bool(b) => Some(Cow::Owned(b.to_string())),
        _ => None,
    }
}

fn call<'a>(func: Func, args: &'a [Expr], vars: &'a Value) -> Val<'a> {
    let arg = |i: usize| args.get(i).map_or(Val::Missing, |a| eval(a, vars));
    let bool_val = |b: bool| Val::owned(Value::Bool(b));
    match func {
        Func::Always => bool_val(true),
        // Terminator's semantics: the first truthy argument, else the last one.
        Func::Coalesce => {
            let mut last = Val::Missing;
            for a in args {
                let v = eval(a, vars);
                if truthy_val(&v) {
                    return v;
                }
                last = v;
            }
            last
        }
        Func::Contains => {
            let (hay, needle) = (arg(0), arg(1));
            let found = match hay.json() {
                Some(Value::Array(items)) => items
                    .iter()
                    .any(|item| loose_eq(&Val::borrowed(item), &needle)),
                Some(Value::Object(map)) => {
                    text(&needle).is_some_and(|k| map.contains_key(k.as_ref()))
                }
                Some(Value::String(s)) => text(&needle).is_some_and(|n| s.contains(n.as_ref())),
                _ => false,
            };
            bool_val(found)
        }
        Func::StartsWith | Func::EndsWith => {
            let (s, affix) = (arg(0), arg(1));
            let ok = match (text(&s), text(&affix)) {
                (Some(s), Some(a)) if func == Func::StartsWith => s.starts_with(a.as_ref()),
                (Some(s), Some(a)) => s.ends_with(a.as_ref()),
                _ => false,
            };
            bool_val(ok)
        }
        Func::Length => {
            let n = match arg(0).json() {
                Some(Value::String(s)) => Some(s.chars().count()),
                Some(Value::Array(a)) => Some(a.len()),
                Some(Value::Object(o)) => Some(o.len()),
                None | Some(Value::Null) => Some(0),
                _ => None,
            };
            n.map_or(Val::owned(Value::Null), |n| Val::owned(Value::from(n)))
        }
        Func::Lower | Func::Upper => {
            let v = arg(0);
            match text(&v) {
                Some(t) if func == Func::Lower => Val::owned(Value::String(t.to_lowercase())),
                Some(t) => Val::owned(Value::String(t.to_uppercase())),
                None => Val::owned(Value::Null),
            }
        }
        Func::Matches => {
            let s = arg(0);
            let Some(s) = text(&s) else {
                return bool_val(false);
            };
            let hit = match args.get(1) {
                Some(Expr::Pattern(p)) => p.regex.is_match(&s),
                _ => {
                    let pat = arg(1);
                    text(&pat)
                        .and_then(|p| regex_lite::Regex::new(&p).ok())
                        .is_some_and(|re| re.is_match(&s))
                }
            };
            bool_val(hit)
        }
    }
}
