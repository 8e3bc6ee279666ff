//! Turns each backend's real output into one [`TranspileError`]: esbuild 0.28 (and the
//! older inline format), bun 1.x, TypeScript `TS####` messages; plus the `fix` suggestions.

use super::Backend;
use super::error::{Location, Recovery, TranspileError, TranspileErrorKind};
use regex_lite::Regex;
use std::sync::LazyLock;

/// A diagnostic as read from a tool, before being shaped into a [`TranspileError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The tool's message, one line, without file paths.
    pub message: String,
    /// 1-based line.
    pub line: Option<usize>,
    /// 0-based character column.
    pub column: Option<usize>,
    /// Syntax or type error.
    pub kind: TranspileErrorKind,
}

fn re(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

static ESBUILD_HEAD: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"^\s*(?:[✘▲X] )?\[(ERROR|WARNING)\] (.+?)\s*$"));
static ESBUILD_LOC: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"^\s*(.+?):(\d+):(\d+):\s*$"));
static ESBUILD_INLINE: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"^\s*>?\s*(.+?):(\d+):(\d+): (?i:error): (.+?)\s*$"));
static BUN_HEAD: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"^\s*(?:error|SyntaxError|TypeError): (.+?)\s*$"));
static BUN_AT: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"^\s*at (.+?):(\d+):(\d+)\)?\s*$"));
static TSC: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"^(?:.+?)(?:\((\d+),(\d+)\)|:(\d+):(\d+))(?::| -) error TS(\d+): (.+?)\s*$")
});
static WARNING_ID: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"\s*\[([a-z0-9-]+)\]$"));
static MISSING_COLON: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"^\s*(?:export\s+)?(const|let|var)\s+([^\s:=;,]+)\s+([A-Za-z_$][\w$.<>\[\]|]*)")
});

/// A JSX element where a value starts: `= <div`, `(<App />`, `return <span>`.
static JSX_ELEMENT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"(?:^|[=(,:?&|{\[]|=>|\breturn)\s*<([A-Za-z][\w.:-]*)(?:\s+[A-Za-z_$][\w$-]*(?:=|\s|/?>)|\s*/?>)|^\s*<>",
    )
});

/// What to do about JSX in a script parsed as plain TypeScript (only an external backend,
/// or oxc when even the JSX parse failed earlier, gets here).
pub const JSX_FIX: &str = "JSX is not supported in a script parsed as .ts: name the file .tsx (or .jsx), or build the element with a function call such as React.createElement";

/// The fix for a syntax error inside JSX that was parsed as JSX (only oxc parses JSX).
#[cfg(feature = "oxc")]
pub const JSX_SYNTAX_FIX: &str = "Correct the JSX at the reported location: close every element (`<b>…</b>` or `<b />`) and give attribute values as \"text\" or {expression}";

/// Whether `line` holds what looks like a JSX element where a value starts.
pub(crate) fn looks_like_jsx(line: &str) -> bool {
    JSX_ELEMENT.as_ref().is_some_and(|r| r.is_match(line))
}

/// esbuild warnings that are errors at run time (esbuild exits 0 on them).
const ESBUILD_FATAL_WARNINGS: &[&str] = &[
    "assign-to-constant",
    "assign-to-import",
    "assign-to-define",
    "class-name-will-throw",
    "private-name-will-throw",
    "delete-super-property",
];

fn num(s: Option<regex_lite::Match<'_>>) -> Option<usize> {
    s.and_then(|m| m.as_str().parse().ok())
}

/// Converts a 0-based byte column on `line` of `source` into a 0-based character column.
pub fn byte_to_char_column(source: &str, line: usize, byte_col: usize) -> usize {
    let text = source_line(source, line).unwrap_or("");
    let mut end = byte_col.min(text.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).map_or(byte_col, |p| p.chars().count())
}

/// The 1-based `line` of `source`, without its line break.
pub fn source_line(source: &str, line: usize) -> Option<&str> {
    source.lines().nth(line.checked_sub(1)?)
}

/// The line holding byte `offset`, if `offset` is inside `source`.
#[cfg(feature = "oxc")]
pub(crate) fn line_at(source: &str, offset: usize) -> Option<&str> {
    let head = source.get(..offset)?;
    let start = head.rfind('\n').map_or(0, |i| i + 1);
    let rest = source.get(start..)?;
    Some(rest.split('\n').next().unwrap_or(rest))
}

/// Removes ANSI colour sequences (`ESC [ … letter`).
pub fn strip_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    std::borrow::Cow::Owned(out)
}

/// Parses esbuild output: the first `[ERROR]`, or else the first warning that throws at
/// run time (`assign-to-constant`, …: esbuild exits 0 on those).
pub fn parse_esbuild(output: &str, source: &str) -> Option<Diagnostic> {
    let output = strip_ansi(output);
    let (head, loc, inline) = (
        ESBUILD_HEAD.as_ref()?,
        ESBUILD_LOC.as_ref()?,
        ESBUILD_INLINE.as_ref()?,
    );
    let lines: Vec<&str> = output.lines().collect();
    let mut warning: Option<Diagnostic> = None;
    for (i, l) in lines.iter().enumerate() {
        if let Some(c) = inline.captures(l) {
            let line = num(c.get(2));
            let column = num(c.get(3)).map(|b| byte_to_char_column(source, line.unwrap_or(1), b));
            return Some(Diagnostic {
                message: c.get(4).map_or("", |m| m.as_str()).to_owned(),
                line,
                column,
                kind: kind_of(c.get(4).map_or("", |m| m.as_str())),
            });
        }
        let Some(c) = head.captures(l) else { continue };
        let is_error = c.get(1).is_some_and(|m| m.as_str() == "ERROR");
        let mut message = c.get(2).map_or("", |m| m.as_str()).to_owned();
        let mut fatal = false;
        if let Some(id) = WARNING_ID.as_ref().and_then(|w| w.captures(&message)) {
            let name = id.get(1).map_or("", |m| m.as_str());
            fatal = ESBUILD_FATAL_WARNINGS.contains(&name);
            let cut = id.get(0).map_or(message.len(), |m| m.start());
            message.truncate(cut);
        }
        if !is_error && !fatal {
            continue;
        }
        let (line, column) = lines
            .iter()
            .skip(i + 1)
            .take(4)
            .find_map(|l| loc.captures(l))
            .map_or((None, None), |c| {
                let line = num(c.get(2));
                let col = num(c.get(3)).map(|b| byte_to_char_column(source, line.unwrap_or(1), b));
                (line, col)
            });
        let kind = if is_error {
            kind_of(&message)
        } else {
            TranspileErrorKind::TypeError
        };
        let d = Diagnostic {
            message,
            line,
            column,
            kind,
        };
        if is_error {
            return Some(d);
        }
        warning = warning.or(Some(d));
    }
    warning
}

/// Parses bun 1.x output (`error: msg` then `    at file:L:C`, 1-based character columns).
pub fn parse_bun(output: &str) -> Option<Diagnostic> {
    let output = strip_ansi(output);
    let (head, at) = (BUN_HEAD.as_ref()?, BUN_AT.as_ref()?);
    let lines: Vec<&str> = output.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        let Some(c) = head.captures(l) else { continue };
        let message = c.get(1).map_or("", |m| m.as_str()).to_owned();
        let (line, column) = lines
            .iter()
            .skip(i + 1)
            .take(3)
            .find_map(|l| at.captures(l))
            .map_or((None, None), |c| {
                (num(c.get(2)), num(c.get(3)).map(|c| c.saturating_sub(1)))
            });
        return Some(Diagnostic {
            kind: kind_of(&message),
            message,
            line,
            column,
        });
    }
    None
}

/// Parses TypeScript compiler messages: `file.ts(1,9): error TS1005: ';' expected.` or
/// `file.ts:1:9 - error TS2322: …` (1-based columns). TS1xxx are syntax errors, others type
/// errors.
pub fn parse_tsc(output: &str) -> Option<Diagnostic> {
    let output = strip_ansi(output);
    let tsc = TSC.as_ref()?;
    output.lines().find_map(|l| {
        let c = tsc.captures(l)?;
        let line = num(c.get(1)).or(num(c.get(3)));
        let column = num(c.get(2)).or(num(c.get(4))).map(|c| c.saturating_sub(1));
        let code: usize = num(c.get(5))?;
        let text = c.get(6).map_or("", |m| m.as_str());
        Some(Diagnostic {
            message: format!("TS{code}: {text}"),
            line,
            column,
            kind: if (1000..2000).contains(&code) {
                TranspileErrorKind::SyntaxError
            } else {
                TranspileErrorKind::TypeError
            },
        })
    })
}

/// Tries every known format (TypeScript codes first: they are the most specific).
pub fn parse_any(output: &str, source: &str) -> Option<Diagnostic> {
    parse_tsc(output)
        .or_else(|| parse_esbuild(output, source))
        .or_else(|| parse_bun(output))
}

/// Syntax vs type error from a message without a TS code.
pub fn kind_of(message: &str) -> TranspileErrorKind {
    let m = message.to_ascii_lowercase();
    if m.contains("is a constant") || m.contains("not assignable") || m.contains("cannot find name")
    {
        TranspileErrorKind::TypeError
    } else {
        TranspileErrorKind::SyntaxError
    }
}

/// A one-line fix for common messages, using the offending line when it helps.
pub fn suggest_fix(message: &str, error_line: Option<&str>) -> Option<String> {
    let m = message.to_ascii_lowercase();
    if (m.contains("expected") || m.contains("unexpected") || m.contains("unterminated regular"))
        && error_line.is_some_and(looks_like_jsx)
    {
        return Some(JSX_FIX.to_owned());
    }
    let expects_semicolon = m.contains("expected \";\"")
        || m.contains("';' expected")
        || m.contains("expected a semicolon")
        || m.contains("must be initialized");
    if expects_semicolon
        && let Some(c) = error_line.and_then(|l| MISSING_COLON.as_ref()?.captures(l))
    {
        let kw = c.get(1).map_or("const", |m| m.as_str());
        let name = c.get(2).map_or("x", |m| m.as_str());
        let ty = c.get(3).map_or("string", |m| m.as_str());
        return Some(format!(
            "Add ':' between the variable name and its type: `{kw} {name}: {ty}`"
        ));
    }
    let fix = if m.contains("is a constant") || m.contains("cannot assign to") {
        "Declare the variable with `let` instead of `const` if it must change"
    } else if m.contains("must be initialized") {
        "Give the constant a value (`const x = ...`) or declare it with `let`"
    } else if expects_semicolon {
        "End the previous statement with ';' or complete the expression before this point"
    } else if m.contains("unterminated string") {
        "Close the string literal with the matching quote"
    } else if m.contains("unterminated template") {
        "Close the template literal with a backtick"
    } else if m.contains("end of file")
        || m.contains("`eof`")
        || m.contains("'}' expected")
        || m.contains("expected \"}\"")
    {
        "Close the unterminated block, call or object before the end of the script"
    } else if m.contains("expected \")\"") || m.contains("')' expected") {
        "Add the missing ')'"
    } else if m.contains("expected \"]\"") || m.contains("']' expected") {
        "Add the missing ']'"
    } else if m.contains("cannot find name") {
        "Declare or import the name before using it"
    } else if m.contains("not assignable") {
        "Change the value or the type annotation so that they match"
    } else if m.contains("already been declared") || m.contains("cannot redeclare") {
        "Rename or remove the duplicate declaration"
    } else if m.contains("unexpected") || m.contains("expected") {
        "Correct or remove the token at the reported location"
    } else {
        return None;
    };
    Some(fix.to_owned())
}

/// Shapes a [`Diagnostic`] into the contract, filling `error_line` and `fix` from `source`.
pub fn to_error(d: Diagnostic, source: &str, backend: Backend) -> TranspileError {
    let error_line = d
        .line
        .and_then(|l| source_line(source, l))
        .map(str::to_owned);
    let fix = suggest_fix(&d.message, error_line.as_deref());
    TranspileError {
        kind: d.kind,
        message: d.message,
        location: (d.line.is_some() || d.column.is_some()).then_some(Location {
            line: d.line,
            column: d.column,
        }),
        error_line,
        fix,
        recovery: Recovery::FixCode,
        backend: Some(backend),
    }
}
