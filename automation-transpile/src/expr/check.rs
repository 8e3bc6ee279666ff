//! Conditions tell the truth: variable paths absent from the inputs are reported (with the
//! closest existing path), or, in strict mode, are an error.

use super::ast::{Expr, Path, Segment};
use super::eval::{exists, resolve_prefix};
use serde_json::{Value, json};
use std::fmt;

/// A variable path of the condition that the inputs do not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingPath {
    /// The path as written in canonical form, e.g. `runtime.atempts`.
    pub path: String,
    /// The closest path that exists, e.g. `runtime.attempts`, when one is close enough.
    pub did_you_mean: Option<String>,
}

impl fmt::Display for MissingPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "variable `{}` is not in the inputs", self.path)?;
        if let Some(s) = &self.did_you_mean {
            write!(f, " (did you mean `{s}`?)")?;
        }
        Ok(())
    }
}

/// The result of [`Expr::evaluate_with_warnings`]: the value, and every missing path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    /// The condition's value (missing paths evaluated as missing, see `docs/expressions.md`).
    pub value: bool,
    /// Each distinct path of the condition absent from the inputs, in source order.
    pub warnings: Vec<MissingPath>,
}

/// Why [`Expr::evaluate_strict`] refused to evaluate: a path absent from the inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// One sentence: what is wrong.
    pub message: String,
    /// The first missing path.
    pub missing: MissingPath,
    /// A one-line suggestion.
    pub fix: String,
}

impl EvalError {
    pub(crate) fn from_missing(missing: MissingPath) -> Self {
        let fix = match &missing.did_you_mean {
            Some(s) => format!("write `{s}` instead of `{}`", missing.path),
            None => format!(
                "add `{}` to the inputs, or evaluate without strict mode if it is optional",
                missing.path
            ),
        };
        Self {
            message: format!("{missing}"),
            missing,
            fix,
        }
    }

    /// The AI-shaped payload: `error_type` `"missing_variable"`, `can_fix`, `message`,
    /// `path`, `did_you_mean` (or null), `expected`, `fix`, `recovery` `"fix_code"`.
    pub fn to_json(&self) -> Value {
        json!({
            "error_type": "missing_variable",
            "can_fix": true,
            "message": self.message,
            "path": self.missing.path,
            "did_you_mean": self.missing.did_you_mean,
            "expected": "a variable path present in the inputs",
            "fix": self.fix,
            "recovery": "fix_code",
        })
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\nfix: {}", self.message, self.fix)
    }
}

impl std::error::Error for EvalError {}

/// Serialises as [`EvalError::to_json`].
impl serde::Serialize for EvalError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// Every path of `e`, in source order.
fn paths<'e>(e: &'e Expr, out: &mut Vec<&'e Path>) {
    match e {
        Expr::Path(p) => out.push(p),
        Expr::Not(inner) => paths(inner, out),
        Expr::Compare { lhs, rhs, .. } => {
            paths(lhs, out);
            paths(rhs, out);
        }
        Expr::And(items) | Expr::Or(items) | Expr::Call { args: items, .. } => {
            for i in items {
                paths(i, out);
            }
        }
        Expr::Literal(_) | Expr::Pattern(_) => {}
    }
}

/// The distinct paths of `e` absent from `vars`, each with the closest existing path.
pub fn missing_paths(e: &Expr, vars: &Value) -> Vec<MissingPath> {
    let mut all = Vec::new();
    paths(e, &mut all);
    let mut out: Vec<MissingPath> = Vec::new();
    for p in all {
        if exists(p, vars) {
            continue;
        }
        let path = p.to_string();
        if out.iter().any(|m| m.path == path) {
            continue;
        }
        out.push(MissingPath {
            did_you_mean: suggest(p, vars),
            path,
        });
    }
    out
}

/// Keys looked at per level for a suggestion (a huge object is not scanned whole).
const MAX_CANDIDATES: usize = 1_000;

/// The closest existing path: the prefix that resolves, then the nearest key at the first
/// segment that does not, then the remaining segments if they resolve from there.
fn suggest(p: &Path, vars: &Value) -> Option<String> {
    let (found, at) = resolve_prefix(p, vars);
    let Some(Segment::Key(wrong)) = p.segments.get(found) else {
        return None;
    };
    let Value::Object(map) = at else {
        return None;
    };
    let budget = (wrong.chars().count() / 3).max(2);
    let (best, _) = map
        .keys()
        .take(MAX_CANDIDATES)
        .filter_map(|k| {
            let d = distance(wrong, k, budget)?;
            Some((k, d))
        })
        .min_by_key(|&(_, d)| d)?;
    let mut segments: Vec<Segment> = p.segments.get(..found).unwrap_or_default().to_vec();
    segments.push(Segment::Key(best.clone()));
    let rest = p.segments.get(found + 1..).unwrap_or_default();
    let mut full = segments.clone();
    full.extend(rest.iter().cloned());
    let full = Path { segments: full };
    Some(if exists(&full, vars) {
        full.to_string()
    } else {
        Path { segments }.to_string()
    })
}

/// Edit distance (insert, delete, substitute, swap two neighbours) of `a` and `b`, or `None`
/// when it exceeds `max` (or either is long: a name of over 64 characters gets no guess).
fn distance(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    if a.len() > 64 || b.len() > 64 || a.len().abs_diff(b.len()) > max {
        return None;
    }
    // Rows of the Damerau (optimal string alignment) table.
    let mut prev2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev.get(j).copied().unwrap_or(usize::MAX / 2) + usize::from(ca != cb);
            let del = prev.get(j + 1).copied().unwrap_or(usize::MAX / 2) + 1;
            let ins = cur.get(j).copied().unwrap_or(usize::MAX / 2) + 1;
            let mut best = sub.min(del).min(ins);
            let swapped = i > 0
                && j > 0
                && a.get(i - 1) == Some(&cb)
                && b.get(j - 1) == Some(&ca)
                && ca != cb;
            if swapped {
                best = best.min(prev2.get(j - 1).copied().unwrap_or(usize::MAX / 2) + 1);
            }
            if let Some(slot) = cur.get_mut(j + 1) {
                *slot = best;
            }
        }
        prev2 = std::mem::replace(&mut prev, cur);
    }
    prev.last().copied().filter(|&d| d <= max)
}
