//! Printing: the printed form of an [`Expr`] parses back to the same tree.

use super::ast::{Expr, Path, Segment};
use super::lexer::{is_ident_continue, is_ident_start};
use super::normalize::is_normalized_away;
use serde_json::Value;
use std::fmt::{self, Write};

/// Writes `s` as a single-quoted literal the lexer reads back unchanged.
pub fn write_string(f: &mut impl Write, s: &str) -> fmt::Result {
    f.write_char('\'')?;
    for c in s.chars() {
        match c {
            '\'' => f.write_str("\\'")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            c if c.is_control() || is_normalized_away(c) => write!(f, "\\u{{{:x}}}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('\'')
}

/// True when `s` can be written bare after a `.` (or as the first segment of a path).
pub fn is_plain_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(is_ident_start) && chars.all(is_ident_continue)
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.segments.iter().enumerate() {
            match seg {
                Segment::Key(k) if i == 0 => f.write_str(k)?,
                Segment::Key(k) if is_plain_ident(k) => write!(f, ".{k}")?,
                Segment::Key(k) => {
                    f.write_char('[')?;
                    write_string(f, k)?;
                    f.write_char(']')?;
                }
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

fn write_literal(f: &mut fmt::Formatter<'_>, v: &Value) -> fmt::Result {
    match v {
        Value::String(s) => write_string(f, s),
        // Scalars print as JSON (numbers via ryu, which the lexer reads back exactly).
        other => write!(f, "{other}"),
    }
}

/// Operand of `!`, or of a comparison: bare when it is an atom.
fn is_atom(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Literal(_) | Expr::Path(_) | Expr::Call { .. } | Expr::Pattern(_) | Expr::Not(_)
    )
}

fn write_operand(f: &mut fmt::Formatter<'_>, e: &Expr, bare: bool) -> fmt::Result {
    if bare {
        write!(f, "{e}")
    } else {
        write!(f, "({e})")
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Literal(v) => write_literal(f, v),
            Self::Pattern(p) => write_string(f, &p.source),
            Self::Path(p) => write!(f, "{p}"),
            Self::Not(inner) => {
                f.write_char('!')?;
                write_operand(f, inner, is_atom(inner))
            }
            Self::Compare { op, lhs, rhs } => {
                write_operand(f, lhs, is_atom(lhs))?;
                write!(f, " {} ", op.symbol())?;
                write_operand(f, rhs, is_atom(rhs))
            }
            Self::And(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" && ")?;
                    }
                    let bare = is_atom(item) || matches!(item, Self::Compare { .. });
                    write_operand(f, item, bare)?;
                }
                Ok(())
            }
            Self::Or(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" || ")?;
                    }
                    let bare = !matches!(item, Self::Or(_));
                    write_operand(f, item, bare)?;
                }
                Ok(())
            }
            Self::Call { func, args } => {
                write!(f, "{}(", func.name())?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_char(')')
            }
        }
    }
}
