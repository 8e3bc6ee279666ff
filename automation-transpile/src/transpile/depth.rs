//! A linear pre-scan that bounds how deep oxc will recurse, before oxc sees the script.
//!
//! oxc's parser, semantic pass, transformer and code generator recurse over the syntax tree,
//! so `((((…1…))))` 6 000 levels deep or an 88 000-term `1+1+…+1` overflows the stack and
//! aborts the process (a stack overflow is not a panic: `catch_unwind` cannot stop it). The
//! pre-scan runs the detector's lexer ([`crate::detect::scan`]: strings, comments, regexes
//! and template literals are skipped) and computes an upper bound of the tree depth:
//!
//! - every open bracket `(`, `[`, `{` and template substitution `${` starts a level one
//!   deeper than the point where it opens;
//! - inside a level, every operator (punctuator other than brackets, `,` and `;`, and the
//!   operator words `typeof`, `new`, `await`, `else`, …) adds one, since chains of binary
//!   operators, ternaries, member accesses and arrows nest too;
//! - statements nested without braces (`if (a) if (b) …`, `else if` chains, loops) add one
//!   each, until a statement ends that no `else` continues;
//! - `,`, `;` and `case` (and a line break between two values, where a new statement
//!   starts) end a chain of operators.
//!
//! Scripts deeper than [`MAX_NESTING`] are refused with a `syntax_error` (`can_fix`, a fix
//! saying to flatten the code). Scripts deeper than [`INLINE_NESTING`] run oxc on a
//! dedicated thread with an [`OXC_STACK`] stack; shallower ones on the caller's thread.

use super::Backend;
use super::error::{Location, Recovery, TranspileError, TranspileErrorKind};
use super::oxc::line_col;
use crate::detect::scan::{EXPR_START, Kind, Scanner, Token};

/// Deepest nesting (brackets plus operator chains, see the module docs) the in-process oxc
/// backend accepts. Hand-written code stays far below; measured headroom: 3 000 levels of
/// any single construct run on an [`OXC_STACK`] stack in an unoptimised build.
pub const MAX_NESTING: usize = 1_000;

/// Up to this nesting oxc runs on the caller's thread (well inside a 2 MiB thread stack
/// even unoptimised, where about 300 nested parentheses fit).
pub const INLINE_NESTING: usize = 64;

/// The stack of the dedicated oxc thread for scripts nested deeper than [`INLINE_NESTING`].
pub const OXC_STACK: usize = 64 << 20;

/// The measured nesting of a script and where it peaked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nesting {
    /// The upper bound of the tree depth, up to the first token over [`MAX_NESTING`].
    pub depth: usize,
    /// Byte offset of the token where `depth` was reached.
    pub offset: usize,
}

#[derive(Default)]
struct Level {
    /// Depth at which this level starts.
    base: usize,
    /// Operators in the current chain at this level.
    run: usize,
    /// Statements nested without braces: `if (a) if (b) …`, `else if` chains, loops.
    stmts: usize,
    /// A statement just ended here (`;` or a block's `}`): an `else` continues the chain of
    /// statements, anything else starts afresh.
    after_end: bool,
    /// This `(` opened the head of `if`/`while`/`for`/`with` (the statement continues after
    /// its `)`).
    head: bool,
}

impl Level {
    fn depth(&self) -> usize {
        self.base + self.run + self.stmts
    }
}

fn is_statement_word(text: &[u8]) -> bool {
    matches!(text, b"if" | b"else" | b"while" | b"for" | b"with" | b"do")
}

fn is_operator(text: &[u8], t: Token) -> bool {
    match t.kind {
        Kind::Punct => !matches!(
            text,
            b"(" | b"[" | b"{" | b"${" | b")" | b"]" | b"}" | b"," | b";"
        ),
        Kind::Ident => t.class & EXPR_START != 0,
        _ => false,
    }
}

fn ends_value(text: &[u8], t: Token) -> bool {
    match t.kind {
        Kind::Ident => t.class & EXPR_START == 0 && !is_statement_word(text),
        Kind::Num | Kind::Str | Kind::Regex => true,
        Kind::Template => text.ends_with(b"`"),
        Kind::Punct => matches!(text, b")" | b"]" | b"}"),
    }
}

/// Measures `source`; stops at the first token deeper than `limit`.
pub fn measure(source: &str, limit: usize) -> Nesting {
    let bytes = source.as_bytes();
    let text = |t: Token| bytes.get(t.start..t.end).unwrap_or_default();
    let mut levels = vec![Level::default()];
    let mut deepest = Nesting {
        depth: 0,
        offset: 0,
    };
    let mut prev: Option<Token> = None;
    // The previous token closed a statement head `if (…)`: what follows is its body.
    let mut prev_closed_head = false;
    for t in Scanner::new(source) {
        let tx = text(t);
        let new_statement = t.nl_before
            && matches!(t.kind, Kind::Ident | Kind::Num | Kind::Str)
            && !is_operator(tx, t)
            && !prev_closed_head
            && prev.is_some_and(|p| ends_value(text(p), p));
        let head = prev.is_some_and(|p| {
            p.kind == Kind::Ident && matches!(text(p), b"if" | b"while" | b"for" | b"with")
        });
        prev = Some(t);
        prev_closed_head = false;
        let Some(top) = levels.last_mut() else {
            break;
        };
        if new_statement {
            top.run = 0;
            top.after_end = true;
        }
        if top.after_end && tx != b";" {
            top.after_end = false;
            if !(t.kind == Kind::Ident && tx == b"else") {
                top.stmts = 0;
            }
        }
        let opens = matches!(tx, b"(" | b"[" | b"{" | b"${")
            || (t.kind == Kind::Template && tx.ends_with(b"${"));
        let depth = if t.kind == Kind::Punct && matches!(tx, b")" | b"]" | b"}") {
            if levels.len() > 1 {
                prev_closed_head = levels.pop().is_some_and(|l| l.head);
            }
            if tx == b"}"
                && let Some(outer) = levels.last_mut()
            {
                outer.after_end = true;
            }
            continue;
        } else if t.kind == Kind::Ident && tx == b"case" {
            // Case clauses are a list, not nested: `case 'a': case 'b': …`.
            top.run = 0;
            continue;
        } else if t.kind == Kind::Punct && matches!(tx, b"," | b";") {
            top.run = 0;
            top.after_end |= tx == b";";
            continue;
        } else if opens {
            let base = top.depth() + 1;
            levels.push(Level {
                base,
                head: head && tx == b"(",
                ..Level::default()
            });
            base
        } else if t.kind == Kind::Ident && is_statement_word(tx) {
            top.stmts += 1;
            top.depth()
        } else if is_operator(tx, t) {
            top.run += 1;
            top.depth()
        } else {
            continue;
        };
        if depth > deepest.depth {
            deepest = Nesting {
                depth,
                offset: t.start,
            };
            if depth > limit {
                break;
            }
        }
    }
    deepest
}

/// At most this many characters of the offending line go into `error_line`.
const LINE_WINDOW: usize = 120;

/// The `syntax_error` for a script nested deeper than [`MAX_NESTING`].
pub fn too_deep(source: &str, nesting: Nesting) -> TranspileError {
    let (line, column) = line_col(source, nesting.offset);
    let full = source.lines().nth(line.saturating_sub(1)).unwrap_or("");
    // A one-line flood can be megabytes long: keep a window around the column.
    let error_line = if full.chars().count() <= 2 * LINE_WINDOW {
        full.to_owned()
    } else {
        let from = column.saturating_sub(LINE_WINDOW);
        let window: String = full.chars().skip(from).take(2 * LINE_WINDOW).collect();
        format!("{}{window}…", if from > 0 { "…" } else { "" })
    };
    TranspileError {
        kind: TranspileErrorKind::SyntaxError,
        message: format!(
            "The script nests deeper than {MAX_NESTING} levels (brackets plus chained \
             operators) at line {line}, column {column}; the in-process transpiler accepts at \
             most {MAX_NESTING}"
        ),
        location: Some(Location::at(line, column)),
        error_line: Some(error_line),
        fix: Some(
            "Flatten the expression: split long operator chains and deep brackets into \
             intermediate variables or helper functions"
                .to_owned(),
        ),
        recovery: Recovery::FixCode,
        backend: Some(Backend::Oxc),
    }
}
