//! TypeScript → JavaScript with a position map, so a script's stack frames point into the
//! source the caller submitted.
//!
//! automation-transpile is the gate (detect, transpile, the structured error); once it has
//! accepted a script, this runs oxc's transform once more with codegen's source map on and
//! keeps the map's tokens. (oxc reprints the program, so line counts do not stay aligned; the
//! map is what ties them together.)

use std::path::{Path, PathBuf};

use oxc::allocator::Allocator;
use oxc::codegen::{Codegen, CodegenOptions};
use oxc::parser::Parser;
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::transformer::{TransformOptions, Transformer};

/// Transpiled code and its map.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapped {
    /// The JavaScript to run.
    pub code: String,
    /// `(generated line, generated column, source line, source column)`, all 0-based, sorted.
    tokens: Vec<(u32, u32, u32, u32)>,
}

impl Mapped {
    /// JavaScript that is its own source (a plain JS script): positions map to themselves.
    pub fn identity(code: String) -> Self {
        Self {
            code,
            tokens: Vec::new(),
        }
    }

    /// Where generated `line:column` (1-based, as in a stack frame) came from in the
    /// submitted source: `(line 1-based, column 0-based)`, the transpile error's convention.
    pub fn original(&self, line: u32, column: u32) -> Option<(u32, u32)> {
        let (l, c) = (line.checked_sub(1)?, column.saturating_sub(1));
        if self.tokens.is_empty() {
            return Some((line, c));
        }
        // The last token at or before (l, c) on that line; else the line's first token.
        let at = self.tokens.partition_point(|t| (t.0, t.1) <= (l, c));
        let before = at.checked_sub(1).and_then(|i| self.tokens.get(i));
        let token = match before {
            Some(t) if t.0 == l => Some(t),
            _ => self.tokens.get(at).filter(|t| t.0 == l),
        }?;
        let delta = c.saturating_sub(token.1);
        Some((token.2 + 1, token.3 + delta))
    }
}

/// Transpiles `source` (already accepted by the gate) with a source map; `None` when oxc
/// reports anything (the gate's output is used then, unmapped).
pub fn transpile(source: &str) -> Option<Mapped> {
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, source, SourceType::ts()).parse();
    if parsed.diagnostics.has_errors() || parsed.panicked {
        return None;
    }
    let mut program = parsed.program;
    let semantic = SemanticBuilder::new().build(&program);
    let scoping = semantic.semantic.into_scoping();
    let ret = Transformer::new(
        &allocator,
        Path::new("script.ts"),
        &TransformOptions::default(),
    )
    .build_with_scoping(scoping, &mut program);
    if ret.diagnostics.has_errors() {
        return None;
    }
    let options = CodegenOptions {
        source_map_path: Some(PathBuf::from("script.ts")),
        ..CodegenOptions::default()
    };
    let out = Codegen::new().with_options(options).build(&program);
    let mut tokens: Vec<(u32, u32, u32, u32)> = out
        .map
        .map(|m| {
            m.get_tokens()
                .map(|t| {
                    (
                        t.get_dst_line(),
                        t.get_dst_col(),
                        t.get_src_line(),
                        t.get_src_col(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    tokens.sort_unstable();
    Some(Mapped {
        code: out.code,
        tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_throw_maps_back_to_its_typescript_line() {
        let src = "interface P {\n  name: string;\n}\n\nconst p: P = { name: 'x' };\n\n\nthrow new Error(p.name);\n";
        let m = transpile(src).unwrap();
        // Find the generated line of the throw.
        let (gl, gc) = m
            .code
            .lines()
            .enumerate()
            .find_map(|(i, l)| l.find("throw").map(|c| (i as u32 + 1, c as u32 + 1)))
            .unwrap();
        assert_ne!(gl, 8, "oxc reprinted the program: {}", m.code);
        assert_eq!(m.original(gl, gc), Some((8, 0)));
    }
}
