//! The condition language: normalise, tokenize, parse into an [`Expr`], evaluate many times.
//!
//! ```
//! use automation_transpile::expr::Expr;
//! use serde_json::json;
//!
//! let cond = Expr::parse("contains(env.locale, ‘en’) && runtime.attempts < 3")?;
//! assert!(cond.evaluate(&json!({"env": {"locale": "en-US"}, "runtime": {"attempts": 1}})));
//! assert_eq!(cond.to_string(), "contains(env.locale, 'en') && runtime.attempts < 3");
//! # Ok::<(), automation_transpile::expr::ParseError>(())
//! ```

mod ast;
mod check;
mod display;
mod error;
mod eval;
mod lexer;
mod normalize;
mod parser;

pub use ast::{CmpOp, Expr, Func, Path, Pattern, Segment};
pub use check::{EvalError, Evaluation, MissingPath};
pub use error::ParseError;
pub use eval::truthy;
pub use normalize::normalize;
pub use parser::MAX_DEPTH;

use serde_json::Value;

impl Expr {
    /// Normalises `src` (smart quotes, backticks, Unicode spaces), strips an optional
    /// `${{ … }}` wrapper, and parses it.
    pub fn parse(src: &str) -> Result<Self, ParseError> {
        let text = unwrap_template(&normalize(src));
        parser::parse(&text)
    }

    /// Evaluates in a boolean context with the truthiness of Terminator's `expression_eval`.
    pub fn evaluate(&self, vars: &Value) -> bool {
        eval::test(self, vars)
    }

    /// Evaluates, and names every variable path absent from `vars` with the closest path
    /// that exists (`runtime.atempts` → did you mean `runtime.attempts`).
    ///
    /// ```
    /// use automation_transpile::expr::Expr;
    /// use serde_json::json;
    ///
    /// let cond = Expr::parse("runtime.atempts < 3")?;
    /// let out = cond.evaluate_with_warnings(&json!({"runtime": {"attempts": 5}}));
    /// assert!(out.value); // a missing variable is below every value
    /// assert_eq!(out.warnings[0].path, "runtime.atempts");
    /// assert_eq!(out.warnings[0].did_you_mean.as_deref(), Some("runtime.attempts"));
    /// # Ok::<(), automation_transpile::expr::ParseError>(())
    /// ```
    pub fn evaluate_with_warnings(&self, vars: &Value) -> Evaluation {
        Evaluation {
            value: self.evaluate(vars),
            warnings: self.missing_paths(vars),
        }
    }

    /// Strict mode: a variable path absent from `vars` is an [`EvalError`] (the first one,
    /// in source order), not a silent value.
    pub fn evaluate_strict(&self, vars: &Value) -> Result<bool, EvalError> {
        match self.missing_paths(vars).into_iter().next() {
            Some(missing) => Err(EvalError::from_missing(missing)),
            None => Ok(self.evaluate(vars)),
        }
    }

    /// The distinct variable paths of the condition absent from `vars`, in source order,
    /// each with the closest existing path when one is near (edit distance).
    pub fn missing_paths(&self, vars: &Value) -> Vec<MissingPath> {
        check::missing_paths(self, vars)
    }

    /// Evaluates to a JSON value (a missing variable yields `null`).
    pub fn evaluate_value(&self, vars: &Value) -> Value {
        eval::eval(self, vars).into_value()
    }
}

impl std::str::FromStr for Expr {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Blanks out a surrounding `${{ … }}` (GitHub-Actions style) keeping character positions.
fn unwrap_template(src: &str) -> String {
    let trimmed = src.trim();
    if let Some(inner) = trimmed
        .strip_prefix("${{")
        .and_then(|rest| rest.strip_suffix("}}"))
    {
        let indent = src.len() - src.trim_start().len();
        let indent_chars = src.get(..indent).map_or(0, |s| s.chars().count());
        let trail_chars = src.chars().count() - indent_chars - trimmed.chars().count();
        return format!(
            "{}   {inner}  {}",
            " ".repeat(indent_chars),
            " ".repeat(trail_chars)
        );
    }
    src.to_owned()
}

/// Compatibility wrapper shaped like the boolean entry point of Terminator's `expression_eval`:
/// parse and evaluate; a parse error is `false`.
///
/// Prefer [`Expr::parse`] (typed error, parse once) in new code.
pub fn evaluate(expr: &str, vars: &Value) -> bool {
    Expr::parse(expr).is_ok_and(|e| e.evaluate(vars))
}
