//! In-process backend: oxc parses, checks and strips types; exact byte spans.

use super::Backend;
use super::diagnostics::{Diagnostic, kind_of, to_error};
use super::error::{TranspileError, TranspileErrorKind};
use oxc::allocator::Allocator;
use oxc::codegen::Codegen;
use oxc::diagnostics::OxcDiagnostic;
use oxc::parser::Parser;
use oxc::semantic::{Scoping, Semantic, SemanticBuilder};
use oxc::span::{GetSpan, SourceType};
use oxc::transformer::{TransformOptions, Transformer};
use std::cell::RefCell;
use std::path::Path;

thread_local! {
    /// One arena per thread, reset between calls (saves re-allocating it every call).
    static ALLOCATOR: RefCell<Allocator> = RefCell::new(Allocator::default());
}

/// Transpiles TypeScript to JavaScript in process.
pub fn transpile(source: &str) -> Result<String, TranspileError> {
    ALLOCATOR.with(|cell| match cell.try_borrow_mut() {
        Ok(mut allocator) => {
            allocator.reset();
            run(&allocator, source)
        }
        Err(_) => run(&Allocator::default(), source),
    })
}

fn run(allocator: &Allocator, source: &str) -> Result<String, TranspileError> {
    let parsed = Parser::new(allocator, source, SourceType::ts()).parse();
    // "Missing initializer" is a consequence of the real error that follows it.
    let mut errors = parsed.diagnostics.errors();
    if let Some(first) = errors.next() {
        let d = errors
            .next()
            .filter(|_| first.message.starts_with("Missing initializer"))
            .unwrap_or(first);
        return Err(error(d, source));
    }
    let mut program = parsed.program;
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
    let options = TransformOptions::default();
    let ret = Transformer::new(allocator, Path::new("script.ts"), &options)
        .build_with_scoping(scoping, &mut program);
    if let Some(d) = ret.diagnostics.errors().next() {
        return Err(error(d, source));
    }
    Ok(Codegen::new().build(&program).code)
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
