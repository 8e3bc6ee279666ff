//! External backends: locating bun and esbuild, running them on a unique temp file, and
//! reading their output back through [`super::diagnostics`].

use super::Backend;
use super::diagnostics::{parse_any, parse_bun, parse_esbuild, to_error};
use super::error::{Recovery, TranspileError, TranspileErrorKind};
use super::kind::SourceKind;
use std::ffi::OsString;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// How to start a located tool: a program and leading arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    /// The executable.
    pub program: PathBuf,
    /// Arguments before the tool's own (e.g. `--no-install esbuild` for npx).
    pub prefix: Vec<OsString>,
    /// The tool is reached through `npx` (it may turn out to be absent at run time).
    pub via_npx: bool,
}

impl Tool {
    fn direct(program: PathBuf) -> Self {
        Self {
            program,
            prefix: Vec::new(),
            via_npx: false,
        }
    }
}

fn exe_name(name: &str) -> String {
    if cfg!(windows) {
        format!("{name}.exe")
    } else {
        name.to_owned()
    }
}

/// Finds `name` on `PATH` (with `.exe`/`.cmd` on Windows).
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let names: Vec<String> = if cfg!(windows) {
        vec![
            format!("{name}.exe"),
            format!("{name}.cmd"),
            name.to_owned(),
        ]
    } else {
        vec![name.to_owned()]
    };
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Finds `node_modules/.bin/<name>` in `start` or any parent directory.
pub fn find_in_node_modules(start: &Path, name: &str) -> Option<PathBuf> {
    let names: Vec<String> = if cfg!(windows) {
        vec![
            format!("{name}.cmd"),
            format!("{name}.exe"),
            name.to_owned(),
        ]
    } else {
        vec![name.to_owned()]
    };
    start.ancestors().find_map(|dir| {
        names
            .iter()
            .map(|n| dir.join("node_modules").join(".bin").join(n))
            .find(|p| p.is_file())
    })
}

/// bun: next to the current executable, then `PATH`, then a local `node_modules/.bin`.
pub fn locate_bun(search_from: &Path) -> Option<Tool> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join(exe_name("bun"))))
        .filter(|p| p.is_file());
    beside
        .or_else(|| find_on_path("bun"))
        .or_else(|| find_in_node_modules(search_from, "bun"))
        .map(Tool::direct)
}

/// esbuild: a local `node_modules/.bin/esbuild` (from `search_from` upward), then `PATH`,
/// then `npx --no-install esbuild`.
pub fn locate_esbuild(search_from: &Path, allow_npx: bool) -> Option<Tool> {
    if let Some(p) =
        find_in_node_modules(search_from, "esbuild").or_else(|| find_on_path("esbuild"))
    {
        return Some(Tool::direct(p));
    }
    if !allow_npx {
        return None;
    }
    find_on_path("npx").map(|npx| Tool {
        program: npx,
        prefix: vec!["--no-install".into(), "esbuild".into()],
        via_npx: true,
    })
}

/// The outcome of running a tool: absent (npx found nothing), or a result.
pub enum Run {
    /// The tool turned out not to be installed.
    Absent,
    /// Transpiled code or a shaped error.
    Done(Result<String, TranspileError>),
}

fn system_error(message: impl Into<String>, backend: Backend) -> TranspileError {
    TranspileError {
        kind: TranspileErrorKind::SystemError,
        message: message.into(),
        location: None,
        error_line: None,
        fix: None,
        recovery: Recovery::Retry,
        backend: Some(backend),
    }
}

/// Runs `tool` for `backend` on `source`, through a unique temp file.
pub fn run(
    tool: &Tool,
    backend: Backend,
    source: &str,
    kind: SourceKind,
    timeout: Duration,
) -> Run {
    match run_inner(tool, backend, source, kind, timeout) {
        Ok(run) => run,
        Err(e) => Run::Done(Err(system_error(
            format!("could not run {}: {}", backend.name(), e.kind()),
            backend,
        ))),
    }
}

fn read_all(mut f: std::fs::File) -> std::io::Result<String> {
    f.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn run_inner(
    tool: &Tool,
    backend: Backend,
    source: &str,
    kind: SourceKind,
    timeout: Duration,
) -> std::io::Result<Run> {
    let mut script = tempfile::Builder::new()
        .prefix("automation-transpile-")
        .suffix(kind.suffix())
        .tempfile()?;
    script.write_all(source.as_bytes())?;
    script.flush()?;
    let path = script.path().to_path_buf();
    let (out, err) = (tempfile::tempfile()?, tempfile::tempfile()?);
    let mut cmd = Command::new(&tool.program);
    cmd.args(&tool.prefix);
    match backend {
        Backend::Bun => cmd.arg("build").arg("--no-bundle").arg(&path),
        _ => cmd
            .arg(&path)
            .arg("--color=false")
            .arg("--log-level=warning"),
    };
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(out.try_clone()?))
        .stderr(Stdio::from(err.try_clone()?))
        .env("NO_COLOR", "1");
    let mut child = cmd.spawn()?;
    let status = match child.wait_timeout(timeout)? {
        Some(status) => status,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Run::Done(Err(system_error(
                format!(
                    "{} did not finish within {} s",
                    backend.name(),
                    timeout.as_secs()
                ),
                backend,
            ))));
        }
    };
    let stdout = read_all(out)?;
    let path_text = path.to_string_lossy().into_owned();
    let stderr = read_all(err)?.replace(&path_text, &format!("script{}", kind.suffix()));
    if status.success() {
        // esbuild exits 0 on some errors (assignment to a constant): a fatal warning.
        let fatal = (backend == Backend::Esbuild)
            .then(|| parse_esbuild(&stderr, source))
            .flatten();
        return Ok(Run::Done(match fatal {
            Some(d) => Err(to_error(d, source, backend)),
            None => Ok(stdout),
        }));
    }
    let diag = match backend {
        Backend::Bun => parse_bun(&stderr).or_else(|| parse_any(&stderr, source)),
        _ => parse_esbuild(&stderr, source).or_else(|| parse_any(&stderr, source)),
    };
    if let Some(d) = diag {
        return Ok(Run::Done(Err(to_error(d, source, backend))));
    }
    if tool.via_npx {
        return Ok(Run::Absent);
    }
    Ok(Run::Done(Err(system_error(
        format!(
            "{} failed (exit status {}) without a diagnostic",
            backend.name(),
            status
                .code()
                .map_or_else(|| "signal".to_owned(), |c| c.to_string())
        ),
        backend,
    ))))
}
