//! The typed parse error of the condition language, in the same AI-shaped contract as
//! [`crate::TranspileError`].

use serde_json::{Value, json};
use std::fmt;

/// Why a condition did not parse: where, what was expected, and how to fix it.
///
/// `position` is a 0-based character offset into `source` (the normalised source: smart
/// quotes already replaced, one character for one character, so it is also the offset in
/// what the user typed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// One sentence: what is wrong.
    pub message: String,
    /// 0-based character offset of the offending token.
    pub position: usize,
    /// The (normalised) expression that failed to parse.
    pub source: String,
    /// What the parser expected at `position`, e.g. `"an operand"`, `"')'"`.
    pub expected: String,
    /// A one-line suggestion an agent (or a human) can apply.
    pub fix: String,
}

impl ParseError {
    pub(crate) fn new(
        source: &str,
        position: usize,
        message: impl Into<String>,
        expected: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Self {
            message: message.into(),
            position,
            source: source.to_owned(),
            expected: expected.into(),
            fix: fix.into(),
        }
    }

    /// 1-based line and 0-based character column of `position` (the crate-wide convention).
    pub fn line_column(&self) -> (usize, usize) {
        let mut line = 1;
        let mut column = 0;
        for c in self.source.chars().take(self.position) {
            if c == '\n' {
                line += 1;
                column = 0;
            } else {
                column += 1;
            }
        }
        (line, column)
    }

    /// The source line holding `position`.
    pub fn error_line(&self) -> &str {
        let (line, _) = self.line_column();
        self.source
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or("")
    }

    /// The offending line followed by a caret line pointing at the column.
    pub fn caret(&self) -> String {
        let (_, column) = self.line_column();
        format!("{}\n{}^", self.error_line(), " ".repeat(column))
    }

    /// The AI-shaped payload: `error_type`, `can_fix`, `location`, `error_line`, `message`,
    /// `expected`, `fix`, `recovery` (always `"fix_code"`: a condition is always fixable by
    /// rewriting it).
    pub fn to_json(&self) -> Value {
        let (line, column) = self.line_column();
        json!({
            "error_type": "syntax_error",
            "can_fix": true,
            "message": self.message,
            "location": { "line": line, "column": column },
            "error_line": self.error_line(),
            "expected": self.expected,
            "fix": self.fix,
            "recovery": "fix_code",
        })
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (line, column) = self.line_column();
        write!(
            f,
            "{} at line {line}, column {column} (expected {})\n{}\nfix: {}",
            self.message,
            self.expected,
            self.caret(),
            self.fix
        )
    }
}

impl std::error::Error for ParseError {}

/// Serialises as [`ParseError::to_json`].
impl serde::Serialize for ParseError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}
