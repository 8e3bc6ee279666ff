//! In-process backend: oxc parses, checks and strips types (and transforms JSX); exact byte
//! spans.

use super::Backend;
use super::diagnostics::{
    Diagnostic, JSX_FIX, JSX_SYNTAX_FIX, kind_of, line_at, looks_like_jsx, to_error,
};
use super::error::{TranspileError, TranspileErrorKind};
use super::kind::SourceKind;
use oxc::allocator::Allocator;
use oxc::ast::ast::Program;
use oxc::codegen::Codegen;
use oxc::diagnostics::OxcDiagnostic;
use oxc::parser::{ParseOptions, Parser, ParserReturn};
use oxc::semantic::{Scoping, Semantic, SemanticBuilder};
use oxc::span::{GetSpan, SourceType};
use oxc::transformer::{TransformOptions, Transformer};
use std::cell::RefCell;
use std::path::Path;

thread_local! {
    /// One arena per thread, reset between calls (saves re-allocating it every call).
    static ALLOCATOR: RefCell<Allocator> = RefCell::new(Allocator::default());
}

fn with_allocator<T>(f: impl FnOnce(&Allocator) -> T) -> T {
    ALLOCATOR.with(|cell| match cell.try_borrow_mut() {
        Ok(mut allocator) => {
            allocator.reset();
            f(&allocator)
        }
        Err(_) => f(&Allocator::default()),
    })
}

/// JavaScript from oxc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The code.
    pub code: String,
    /// Whether JSX elements were parsed (declared, or found when the TypeScript parse failed).
    pub jsx: bool,
}

/// Transpiles TypeScript (or JSX) to JavaScript in process.
pub fn transpile(source: &str, kind: SourceKind) -> Result<Output, TranspileError> {
    with_allocator(|allocator| run(allocator, source, kind))
}

/// What oxc makes of a script the detector calls JavaScript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsCheck {
    /// Plain JavaScript (or not parseable at all: it is passed on unchanged, as before).
    Plain,
    /// It parses only with JSX elements allowed: transpile it as [`SourceKind::Jsx`].
    Jsx,
}

/// Runs on JavaScript the checks TypeScript gets (assignment to a `const`), and tells JSX
/// apart, so that whether a script happens to contain TypeScript syntax changes nothing.
pub fn check_javascript(source: &str) -> Result<JsCheck, TranspileError> {
    with_allocator(|allocator| {
        let plain = parse(allocator, source, SourceType::unambiguous());
        if !plain.diagnostics.has_errors() {
            let semantic = SemanticBuilder::new().build(&plain.program);
            if writes_a_const(semantic.semantic.scoping()) {
                let located = SemanticBuilder::new()
                    .with_build_nodes(true)
                    .build(&plain.program);
                if let Some(e) = const_assignment(&located.semantic, source) {
                    return Err(e);
                }
            }
            return Ok(JsCheck::Plain);
        }
        let jsx = parse(allocator, source, SourceType::unambiguous().with_jsx(true));
        Ok(if jsx.diagnostics.has_errors() {
            JsCheck::Plain
        } else {
            JsCheck::Jsx
        })
    })
}

/// Scripts are function bodies in practice (a final `return { … }` hands back a result), so a
/// top-level `return` is allowed in every dialect.
fn parse<'a>(allocator: &'a Allocator, source: &'a str, ty: SourceType) -> ParserReturn<'a> {
    Parser::new(allocator, source, ty)
        .with_options(ParseOptions {
            allow_return_outside_function: true,
            ..ParseOptions::default()
        })
        .parse()
}

/// Where the first error of a parse sits (how far the parser understood the script).
fn first_error_offset(parsed: &ParserReturn<'_>) -> usize {
    parsed
        .diagnostics
        .errors()
        .next()
        .and_then(|d| d.labels.first().map(|l| l.offset() as usize))
        .unwrap_or(usize::MAX)
}

/// Parses `source` as `kind` says. Undeclared, it is TypeScript; should that fail, it is tried
/// with JSX elements allowed (`.tsx`). The `.tsx` parse wins when it succeeds, when the
/// TypeScript parse stumbled on a line holding a JSX element, or when it got further — so
/// an element such as `<div className="a">` is transpiled, not reported as a missing `;`.
fn parse_kind<'a>(
    allocator: &'a Allocator,
    source: &'a str,
    kind: SourceKind,
) -> (ParserReturn<'a>, &'static str) {
    match kind {
        SourceKind::Jsx => (
            parse(allocator, source, SourceType::unambiguous().with_jsx(true)),
            "script.jsx",
        ),
        SourceKind::Tsx => (parse(allocator, source, SourceType::tsx()), "script.tsx"),
        SourceKind::Detect => {
            let ts = parse(allocator, source, SourceType::ts());
            if !ts.diagnostics.has_errors() {
                return (ts, "script.ts");
            }
            let tsx = parse(allocator, source, SourceType::tsx());
            let ts_at = first_error_offset(&ts);
            let ts_line_is_jsx = line_at(source, ts_at).is_some_and(looks_like_jsx);
            if !tsx.diagnostics.has_errors() || ts_line_is_jsx || first_error_offset(&tsx) > ts_at {
                (tsx, "script.tsx")
            } else {
                (ts, "script.ts")
            }
        }
    }
}

fn run(allocator: &Allocator, source: &str, kind: SourceKind) -> Result<Output, TranspileError> {
    let (parsed, file_name) = parse_kind(allocator, source, kind);
    let jsx = file_name.ends_with('x');
    // "Missing initializer" is a consequence of the real error that follows it.
    let mut errors = parsed.diagnostics.errors();
    if let Some(first) = errors.next() {
        let d = errors
            .next()
            .filter(|_| first.message.starts_with("Missing initializer"))
            .unwrap_or(first);
        let mut e = error(d, source);
        if jsx && e.fix.as_deref() == Some(JSX_FIX) {
            // JSX was allowed: the element itself is wrong.
            e.fix = Some(JSX_SYNTAX_FIX.to_owned());
        }
        return Err(e);
    }
    let mut program: Program<'_> = parsed.program;
    let semantic = SemanticBuilder::new()
        .with_check_syntax_error(true)
        .with_excess_capacity(2.0)
        .with_enum_eval(true)
        .build(&program);
    if let Some(d) = semantic.diagnostics.errors().next() {
        return Err(error(d, source));
    }
    if writes_a_const(semantic.semantic.scoping()) {
        // Rare path: build the node table once more to locate the assignment.
        let located = SemanticBuilder::new()
            .with_build_nodes(true)
            .build(&program);
        if let Some(e) = const_assignment(&located.semantic, source) {
            return Err(e);
        }
    }
    let scoping = semantic.semantic.into_scoping();
    // JSX: oxc's defaults (the automatic runtime importing `react/jsx-runtime`), overridden
    // per file by `@jsxRuntime classic`, `@jsx h`, `@jsxImportSource`, `@jsxFrag` comments.
    let options = TransformOptions::default();
    let ret = Transformer::new(allocator, Path::new(file_name), &options)
        .build_with_scoping(scoping, &mut program);
    if let Some(d) = ret.diagnostics.errors().next() {
        return Err(error(d, source));
    }
    Ok(Output {
        code: Codegen::new().build(&program).code,
        jsx,
    })
}

fn writes_a_const(scoping: &Scoping) -> bool {
    scoping
        .symbol_ids()
        .filter(|&s| scoping.symbol_flags(s).is_const_variable())
        .any(|s| scoping.get_resolved_references(s).any(|r| r.is_write()))
}

/// Assignment to a `const` (a run-time TypeError; esbuild only warns, bun and tsc reject it).
fn const_assignment(semantic: &Semantic<'_>, source: &str) -> Option<TranspileError> {
    let scoping = semantic.scoping();
    let (name, offset) = scoping
        .symbol_ids()
        .filter(|&s| scoping.symbol_flags(s).is_const_variable())
        .find_map(|s| {
            scoping
                .get_resolved_references(s)
                .find(|r| r.is_write())
                .map(|r| {
                    (
                        scoping.symbol_name(s),
                        semantic.nodes().kind(r.node_id()).span().start,
                    )
                })
        })?;
    let (line, column) = line_col(source, offset as usize);
    Some(to_error(
        Diagnostic {
            message: format!("Cannot assign to \"{name}\" because it is a constant"),
            line: Some(line),
            column: Some(column),
            kind: TranspileErrorKind::TypeError,
        },
        source,
        Backend::Oxc,
    ))
}

fn error(d: &OxcDiagnostic, source: &str) -> TranspileError {
    let label = d
        .labels
        .iter()
        .find(|l| l.primary())
        .or_else(|| d.labels.first());
    // A zero-length span sits between tokens ("expected ';' … but found none"): point at
    // the token that was found instead, as esbuild and bun do.
    let offset = label.map(|l| {
        let off = l.offset() as usize;
        if !l.is_empty() {
            return off;
        }
        let rest = source.get(off..).unwrap_or("");
        off + (rest.len() - rest.trim_start_matches([' ', '\t']).len())
    });
    let (line, column) = match offset {
        Some(off) => {
            let (l, c) = line_col(source, off);
            (Some(l), Some(c))
        }
        None => (None, None),
    };
    let message = d.message.to_string();
    to_error(
        Diagnostic {
            kind: kind_of(&message),
            message,
            line,
            column,
        },
        source,
        Backend::Oxc,
    )
}

/// 1-based line and 0-based character column of byte `offset`.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(source.len());
    while end > 0 && !source.is_char_boundary(end) {
        end -= 1;
    }
    let before = source.get(..end).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count());
    (line, column)
}
