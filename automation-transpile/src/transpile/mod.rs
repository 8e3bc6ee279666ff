//! TypeScript → JavaScript with one error contract across backends.
//!
//! Plain JavaScript (see [`crate::detect`](mod@crate::detect)) short-circuits: no temp file, no process.
//! TypeScript goes to the first available backend of the chain, by default: in-process oxc
//! (feature `oxc`) → bun (next to the executable, `PATH`, local `node_modules/.bin`) →
//! esbuild (local `node_modules/.bin` from the working directory upward, `PATH`,
//! `npx --no-install esbuild`) → a `missing_tool` error.
//!
//! ```
//! use automation_transpile::transpile::{Backend, Transpiler};
//!
//! let t = Transpiler::builder().backends([Backend::Esbuild]).build();
//! let out = t.transpile("desktop.click('#ok');").expect("plain JS needs no backend");
//! assert!(!out.was_typescript);
//! assert_eq!(out.backend, None);
//! ```

// The error is the product here (it is what an agent reads): returned rarely, never in a
// hot loop, and kept flat so callers can match and serialise it without unboxing.
#![allow(clippy::result_large_err)]

#[cfg(feature = "oxc")]
pub mod depth;
mod diagnostics;
mod error;
mod external;
mod kind;
#[cfg(feature = "oxc")]
mod oxc;

pub use diagnostics::{Diagnostic, parse_any, parse_bun, parse_esbuild, parse_tsc, suggest_fix};
pub use error::{
    ESBUILD_URL, Location, McpError, Recovery, TranspileError, TranspileErrorKind,
    USE_JAVASCRIPT_INSTRUCTION,
};
pub use external::{Tool, find_in_node_modules, find_on_path, locate_bun, locate_esbuild};
pub use kind::SourceKind;

use crate::detect::{Detection, detect};
use std::path::PathBuf;
use std::time::Duration;

/// A transpiler backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// In-process oxc (cargo feature `oxc`).
    Oxc,
    /// The bun executable (`bun build --no-bundle`).
    Bun,
    /// The esbuild executable (or `npx --no-install esbuild`).
    Esbuild,
}

impl Backend {
    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Oxc => "oxc",
            Self::Bun => "bun",
            Self::Esbuild => "esbuild",
        }
    }

    /// The default chain: oxc (when compiled in), bun, esbuild.
    pub fn default_chain() -> Vec<Self> {
        let mut chain = Vec::with_capacity(3);
        if cfg!(feature = "oxc") {
            chain.push(Self::Oxc);
        }
        chain.extend([Self::Bun, Self::Esbuild]);
        chain
    }
}

/// A successful result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transpiled {
    /// JavaScript to run (the input itself when it was plain JavaScript).
    pub code: String,
    /// Whether the input was TypeScript (by [`crate::detect()`], or a `.tsx` name).
    pub was_typescript: bool,
    /// Whether it held JSX elements, transformed to calls (a `.jsx`/`.tsx` name, or found by
    /// the `oxc` backend).
    pub jsx: bool,
    /// Which backend produced `code` (`None` for plain JavaScript).
    pub backend: Option<Backend>,
    /// The detector's evidence.
    pub detection: Detection,
}

/// Scripts up to this many lines get the `use_javascript` recovery when no transpiler
/// exists (rewriting them by hand is realistic); longer ones get `install_tool`.
pub const USE_JAVASCRIPT_MAX_LINES: usize = 150;

/// A configured transpiler. [`Transpiler::default`] uses [`Backend::default_chain`].
#[derive(Debug, Clone)]
pub struct Transpiler {
    backends: Vec<Backend>,
    bun: Option<PathBuf>,
    esbuild: Option<PathBuf>,
    search_from: Option<PathBuf>,
    allow_npx: bool,
    timeout: Duration,
}

impl Default for Transpiler {
    fn default() -> Self {
        TranspilerBuilder::default().build()
    }
}

/// Builds a [`Transpiler`].
#[derive(Debug, Clone)]
pub struct TranspilerBuilder {
    inner: Transpiler,
}

impl Default for TranspilerBuilder {
    fn default() -> Self {
        Self {
            inner: Transpiler {
                backends: Backend::default_chain(),
                bun: None,
                esbuild: None,
                search_from: None,
                allow_npx: true,
                timeout: Duration::from_secs(30),
            },
        }
    }
}

impl TranspilerBuilder {
    /// The backends to try, in order (the first available one decides). [`Backend::Oxc`]
    /// is skipped when the `oxc` feature is off.
    pub fn backends(mut self, chain: impl IntoIterator<Item = Backend>) -> Self {
        self.inner.backends = chain.into_iter().collect();
        self
    }

    /// Use this bun executable instead of searching.
    pub fn bun_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.inner.bun = Some(path.into());
        self
    }

    /// Use this esbuild executable instead of searching.
    pub fn esbuild_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.inner.esbuild = Some(path.into());
        self
    }

    /// Where the `node_modules/.bin` search starts (default: the current directory).
    pub fn search_from(mut self, dir: impl Into<PathBuf>) -> Self {
        self.inner.search_from = Some(dir.into());
        self
    }

    /// Whether `npx --no-install esbuild` may be tried (default true).
    pub fn allow_npx(mut self, allow: bool) -> Self {
        self.inner.allow_npx = allow;
        self
    }

    /// Kill an external backend after this long (default 30 s): `system_error`, `retry`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.inner.timeout = timeout;
        self
    }

    /// The transpiler.
    pub fn build(self) -> Transpiler {
        self.inner
    }
}

/// Transpiles with the default chain. See [`Transpiler::transpile`].
pub fn transpile(source: &str) -> Result<Transpiled, TranspileError> {
    Transpiler::default().transpile(source)
}

/// Transpiles with the default chain, in the dialect given (say, from the file name with
/// [`SourceKind::from_path`]). See [`Transpiler::transpile_as`].
pub fn transpile_as(source: &str, kind: SourceKind) -> Result<Transpiled, TranspileError> {
    Transpiler::default().transpile_as(source, kind)
}

impl Transpiler {
    /// A builder with the default chain.
    pub fn builder() -> TranspilerBuilder {
        TranspilerBuilder::default()
    }

    /// The configured chain.
    pub fn backends(&self) -> &[Backend] {
        &self.backends
    }

    /// Detects, then (for TypeScript) runs the first available backend. Same as
    /// [`Transpiler::transpile_as`] with [`SourceKind::Detect`].
    pub fn transpile(&self, source: &str) -> Result<Transpiled, TranspileError> {
        self.transpile_as(source, SourceKind::Detect)
    }

    /// Transpiles `source` written in `kind`. `.jsx`/`.tsx` always go to a backend (JSX must
    /// be transformed). Undeclared JavaScript is returned unchanged, except with the `oxc`
    /// backend in the chain: it gets the same checks TypeScript gets (assignment to a
    /// `const` is a `type_error`), and a script that parses only with JSX elements is
    /// transpiled as JSX.
    pub fn transpile_as(
        &self,
        source: &str,
        kind: SourceKind,
    ) -> Result<Transpiled, TranspileError> {
        let detection = detect(source);
        let mut kind = kind;
        if kind == SourceKind::Detect && !detection.is_typescript {
            if !self.checks_javascript() {
                return Ok(Transpiled {
                    code: source.to_owned(),
                    was_typescript: false,
                    jsx: false,
                    backend: None,
                    detection,
                });
            }
            match check_javascript(source)? {
                JsCheck::Plain => {
                    return Ok(Transpiled {
                        code: source.to_owned(),
                        was_typescript: false,
                        jsx: false,
                        backend: None,
                        detection,
                    });
                }
                JsCheck::Jsx => kind = SourceKind::Jsx,
            }
        }
        let was_typescript =
            kind == SourceKind::Tsx || (kind == SourceKind::Detect && detection.is_typescript);
        for &backend in &self.backends {
            if let Some(result) = self.run(backend, source, kind) {
                return result.map(|(code, jsx)| Transpiled {
                    code,
                    was_typescript,
                    jsx: jsx || kind.is_jsx(),
                    backend: Some(backend),
                    detection,
                });
            }
        }
        Err(missing_tool(source, &self.backends))
    }

    /// Whether plain JavaScript gets oxc's checks: oxc is compiled in and in the chain.
    fn checks_javascript(&self) -> bool {
        cfg!(feature = "oxc") && self.backends.contains(&Backend::Oxc)
    }

    /// Whether `backend` can run here (for external tools: the executable is found; npx
    /// counts as available and may still turn out absent).
    pub fn is_available(&self, backend: Backend) -> bool {
        match backend {
            Backend::Oxc => cfg!(feature = "oxc"),
            Backend::Bun => self.bun_tool().is_some(),
            Backend::Esbuild => self.esbuild_tool().is_some(),
        }
    }

    fn start_dir(&self) -> PathBuf {
        self.search_from
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// The bun this transpiler would run.
    pub fn bun_tool(&self) -> Option<Tool> {
        match &self.bun {
            Some(p) => p.is_file().then(|| Tool {
                program: p.clone(),
                prefix: Vec::new(),
                via_npx: false,
            }),
            None => locate_bun(&self.start_dir()),
        }
    }

    /// The esbuild this transpiler would run.
    pub fn esbuild_tool(&self) -> Option<Tool> {
        match &self.esbuild {
            Some(p) => p.is_file().then(|| Tool {
                program: p.clone(),
                prefix: Vec::new(),
                via_npx: false,
            }),
            None => locate_esbuild(&self.start_dir(), self.allow_npx),
        }
    }

    /// Runs one backend; `None` when it is not available. The flag says whether the code
    /// held JSX.
    fn run(
        &self,
        backend: Backend,
        source: &str,
        kind: SourceKind,
    ) -> Option<Result<(String, bool), TranspileError>> {
        let tool = match backend {
            Backend::Oxc => return run_oxc(source, kind),
            Backend::Bun => self.bun_tool()?,
            Backend::Esbuild => self.esbuild_tool()?,
        };
        match external::run(&tool, backend, source, kind, self.timeout) {
            external::Run::Absent => None,
            external::Run::Done(result) => Some(result.map(|code| (code, kind.is_jsx()))),
        }
    }
}

/// In-process oxc. Should oxc itself panic on some input, the chain moves on to the next
/// backend instead of taking the caller down.
///
/// oxc recurses over the syntax tree, and a stack overflow aborts the process (no
/// `catch_unwind` stops it): [`depth::measure`] bounds the depth first, in one linear pass.
/// Deeper than [`depth::MAX_NESTING`]: a `syntax_error` asking to flatten the code. Deeper
/// than [`depth::INLINE_NESTING`]: oxc runs on a scoped thread with a
/// [`depth::OXC_STACK`] stack.
#[cfg(feature = "oxc")]
fn run_oxc(source: &str, kind: SourceKind) -> Option<Result<(String, bool), TranspileError>> {
    let nesting = depth::measure(source, depth::MAX_NESTING);
    if nesting.depth > depth::MAX_NESTING {
        return Some(Err(depth::too_deep(source, nesting)));
    }
    let guarded = || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            oxc::transpile(source, kind)
        }))
        .ok()
    };
    if nesting.depth <= depth::INLINE_NESTING {
        return guarded().map(|r| r.map(|o| (o.code, o.jsx)));
    }
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("automation-transpile-oxc".to_owned())
            .stack_size(depth::OXC_STACK)
            .spawn_scoped(scope, guarded);
        match worker {
            Ok(handle) => handle
                .join()
                .ok()
                .flatten()
                .map(|r| r.map(|o| (o.code, o.jsx))),
            Err(e) => Some(Err(TranspileError {
                kind: TranspileErrorKind::SystemError,
                message: format!(
                    "Could not start a thread with a {} MiB stack for a deeply nested script: {e}",
                    depth::OXC_STACK >> 20
                ),
                location: None,
                error_line: None,
                fix: None,
                recovery: Recovery::Retry,
                backend: Some(Backend::Oxc),
            })),
        }
    })
}

#[cfg(not(feature = "oxc"))]
fn run_oxc(_source: &str, _kind: SourceKind) -> Option<Result<(String, bool), TranspileError>> {
    None
}

#[cfg(feature = "oxc")]
use oxc::{JsCheck, check_javascript};

/// Without oxc, JavaScript is not parsed at all (so never found to be JSX).
#[cfg(not(feature = "oxc"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsCheck {
    Plain,
    #[allow(dead_code)]
    Jsx,
}

#[cfg(not(feature = "oxc"))]
fn check_javascript(_source: &str) -> Result<JsCheck, TranspileError> {
    Ok(JsCheck::Plain)
}

/// The `missing_tool` error: `use_javascript` for short scripts, `install_tool` otherwise.
fn missing_tool(source: &str, tried: &[Backend]) -> TranspileError {
    let names: Vec<&str> = tried
        .iter()
        .filter(|b| **b != Backend::Oxc || cfg!(feature = "oxc"))
        .map(|b| b.name())
        .collect();
    let short = source.lines().count() <= USE_JAVASCRIPT_MAX_LINES;
    let (recovery, fix) = if short {
        (
            Recovery::use_javascript(),
            "Remove the TypeScript syntax (type annotations, interfaces, `as` casts), or install esbuild (npm install esbuild)",
        )
    } else {
        (
            Recovery::install_esbuild(),
            "Install esbuild (npm install esbuild), then run the script again",
        )
    };
    TranspileError {
        kind: TranspileErrorKind::MissingTool,
        message: format!(
            "The script uses TypeScript syntax but no transpiler is available (tried: {})",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        ),
        location: None,
        error_line: None,
        fix: Some(fix.to_owned()),
        recovery,
        backend: None,
    }
}
