//! `automation run FLOW… [mode] [--junit FILE] [--records DIR] [--partition …] [--jobs N]
//! [--timeout SECONDS]`: the same engine as `execute_sequence`, with `exec`'s live display;
//! exit 0 when every flow passed, 1 otherwise, 2 on a usage error.
//!
//! Directories are searched without following symlinks to directories (a link to `.`, `..` or
//! `/` is not a way to run a flow twice, or every file on the machine).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use automation_core::ErrorCode;
use automation_session::backend::TargetHandle;
use automation_session::mode;
use automation_session::mode::Mode;

use super::error::RunnerError;
use super::events::Fanout;
use super::flow;
use super::partition::Partition;
use super::report::{RunReport, StepStatus};
use super::sinks::display::DisplaySink;
use super::sinks::html::{Flows, HtmlSink};
use super::sinks::junit::{JunitSink, Suites};
use super::sinks::records::{self, RecordsSink};
use super::steps::one_line;
use crate::report_page::ReportDir;

/// What `automation run` was given.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Flow files and directories (searched for flow files).
    pub flows: Vec<PathBuf>,
    /// Which app.
    pub mode: Mode,
    /// Wait for a busy app.
    pub wait: Option<Duration>,
    /// JUnit output.
    pub junit: Option<PathBuf>,
    /// Records root (default: the user's data directory).
    pub records: Option<PathBuf>,
    /// The HTML report's directory.
    pub report: Option<PathBuf>,
    /// The shard to run.
    pub partition: Option<Partition>,
    /// Flows at once, each on its own headless target.
    pub jobs: usize,
    /// Each flow's time limit (`None`: the default).
    pub timeout: Option<Duration>,
    /// `assert_screenshot` replaces a differing baseline (`--update-snapshots`).
    pub update_snapshots: bool,
    /// Every flow's inputs (`--inputs`): over a steps flow's defaults; a script's
    /// `AUTOMATION_INPUTS`.
    pub inputs: serde_json::Map<String, serde_json::Value>,
}

/// The flow files: files as given, directories searched (sorted, recursively).
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, RunnerError> {
    Ok(collect_keyed(paths)?.into_iter().map(|f| f.path).collect())
}

/// A flow file found, with the name `--partition hash:M/N` hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The path, as found from the argument (what the run shows and JUnit names).
    pub path: PathBuf,
    /// Its path relative to the suite root, `/`-separated: the same whichever way the
    /// arguments are spelled (`flows`, `./flows/`, an absolute path, a symlink to it).
    pub key: String,
}

/// An argument resolved: a directory itself, a file's directory (and the file's name kept,
/// so a symlinked flow keeps its name), canonical when it can be.
fn resolved(p: &Path) -> PathBuf {
    let canonical = |p: &Path| {
        p.canonicalize()
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    if p.is_dir() {
        return canonical(p);
    }
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            canonical(dir).join(name)
        }
        _ => canonical(p),
    }
}

/// The suite root of these arguments: the deepest directory holding all of them (a directory
/// argument counts as itself, a file argument as its directory), resolved. One directory
/// argument is its own root; `flows/a flows/b` have `flows`.
pub fn suite_root(paths: &[PathBuf]) -> Option<PathBuf> {
    let mut root: Option<PathBuf> = None;
    for p in paths {
        let r = resolved(p);
        let dir = if p.is_dir() {
            r
        } else {
            r.parent().map(Path::to_path_buf).unwrap_or(r)
        };
        root = Some(match root {
            None => dir,
            Some(prev) => prev
                .components()
                .zip(dir.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    root
}

/// The key of `path` (found under the argument `arg`, whose resolved form is `arg_resolved`)
/// relative to `root`.
fn key_of(path: &Path, arg: &Path, arg_resolved: &Path, root: Option<&Path>) -> String {
    let full = match path.strip_prefix(arg) {
        Ok(rel) if !rel.as_os_str().is_empty() => arg_resolved.join(rel),
        _ => arg_resolved.to_path_buf(),
    };
    let rel = root
        .and_then(|r| full.strip_prefix(r).ok())
        .unwrap_or(&full);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// [`collect`], each flow with its partition key (see [`suite_root`]).
pub fn collect_keyed(paths: &[PathBuf]) -> Result<Vec<Found>, RunnerError> {
    let root = suite_root(paths);
    let mut out = Vec::new();
    for arg in paths {
        let arg_resolved = resolved(arg);
        for path in collect_paths(std::slice::from_ref(arg))? {
            let key = key_of(&path, arg, &arg_resolved, root.as_deref());
            out.push(Found { path, key });
        }
    }
    Ok(out)
}

fn collect_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, RunnerError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), RunnerError> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|source| RunnerError::Io {
                doing: "read",
                path: dir.to_path_buf(),
                source,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            // The entry itself, not what a symlink names: a linked directory is not entered.
            let Ok(meta) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if meta.is_dir() {
                walk(&p, out)?;
            } else if meta.file_type().is_symlink() && p.is_dir() {
                continue;
            } else if super::flow::FileKind::of(&p).is_ok() {
                // One list of flow types: a file `run` takes by name is one it finds in a
                // directory (`.cts` and `.cjs` were run by name and skipped in a directory).
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else if std::fs::symlink_metadata(p).is_ok() {
            // A file, or something that is not one (a FIFO, a device): reading it says which.
            out.push(p.clone());
        } else {
            // The user's input, not the disk: a refusal, said without its code on a terminal.
            return Err(RunnerError::refused(
                ErrorCode::BadRequest,
                format!(
                    "{} does not exist; pass flow files (.ts, .js, .json, .yaml) or directories",
                    p.display()
                ),
                "check the path; `automation run` takes flow files and directories holding them",
            ));
        }
    }
    Ok(out)
}

fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Each line of `text` with `prefix` before it, in one write (lines of parallel flows never
/// mix).
fn say_as(prefix: &str, text: &str) {
    let mut out = String::new();
    for line in text.split('\n') {
        out.push_str(prefix);
        out.push_str(line);
        out.push('\n');
    }
    let _ = std::io::stderr().lock().write_all(out.as_bytes());
}

/// What marks a flow's lines when several run at once: `[file name] `, or `[path] ` when two
/// selected flows share a file name. Empty with one job (one flow's lines at a time).
fn prefixes(selected: &[(usize, PathBuf)], jobs: usize) -> Vec<String> {
    let short = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    selected
        .iter()
        .map(|(_, p)| {
            if jobs <= 1 {
                return String::new();
            }
            let name = short(p);
            let shared = selected.iter().filter(|(_, q)| short(q) == name).count() > 1;
            if shared {
                format!("[{}] ", p.display())
            } else {
                format!("[{name}] ")
            }
        })
        .collect()
}

/// Runs the suite; returns the exit code. Its steps: refuse what cannot run (exit 2), pick
/// this shard's flows, prepare the outputs, run the flows on `jobs` workers, then sum up and
/// write the reports.
pub fn run(opts: &RunOptions) -> u8 {
    let all = match usable_flows(opts) {
        Ok(all) => all,
        Err(code) => return code,
    };
    let selected = this_shard(&all, opts);
    let Some(outputs) = prepare_outputs(opts) else {
        return 2;
    };
    let started_at = automation_wire::events::iso8601_now();
    let tty = std::io::stderr().is_terminal() && opts.jobs <= 1;
    let prefixes = prefixes(&selected, opts.jobs.min(selected.len()));
    let started = Instant::now();
    let reports = run_flows(&selected, &prefixes, opts, &outputs, tty);
    let code = sum_up(&reports, started);
    write_outputs(opts, &outputs, &reports, &started_at, started, code)
}

/// The flow files, once every option that could stop the run before it starts is checked;
/// the exit code (2) when one does, its error said.
fn usable_flows(opts: &RunOptions) -> Result<Vec<Found>, u8> {
    let all = match collect_keyed(&opts.flows) {
        Ok(f) if f.is_empty() => {
            say(
                "error: no flow files found; pass .ts, .js, .json or .yaml files or directories holding them",
            );
            return Err(2);
        }
        Ok(f) => f,
        Err(e) => {
            say(&format!("error: {}", e.sentence()));
            return Err(2);
        }
    };
    if opts.jobs > 1 && opts.mode != Mode::Headless {
        say(
            "error: --jobs N > 1 runs each flow on its own headless target; it needs --headless (the default), not an attached app",
        );
        return Err(2);
    }
    if let Some(path) = &opts.junit
        && let Err(e) = super::sinks::junit::prepare_path(path)
    {
        say(&format!("error: --junit: {e}"));
        return Err(2);
    }
    if let Err(e) = super::script::script_timeout() {
        say(&format!("error: {}", e.sentence()));
        return Err(2);
    }
    if let Some(root) = opts.records.as_deref()
        && let Err(e) = automation_session::files::dirs::private_root(root)
    {
        say(&format!("error: --records: {e}; {}", e.hint()));
        return Err(2);
    }
    Ok(all)
}

/// The flows `--partition` selects (all without one), each with its place in the suite.
fn this_shard(all: &[Found], opts: &RunOptions) -> Vec<(usize, PathBuf)> {
    // `hash` hashes each flow's path relative to the suite root, so CI jobs that spell the
    // arguments differently still agree on the shards.
    let selected: Vec<(usize, PathBuf)> = all
        .iter()
        .enumerate()
        .filter(|(i, f)| opts.partition.is_none_or(|part| part.contains(*i, &f.key)))
        .map(|(i, f)| (i, f.path.clone()))
        .collect();
    if let Some(p) = &opts.partition {
        say(&format!(
            "partition {}: {} of {} flows",
            p.describe(),
            selected.len(),
            all.len()
        ));
    }
    selected
}

/// Where the reports go; `None` (the error said) when the report directory cannot be made.
fn prepare_outputs(opts: &RunOptions) -> Option<Outputs> {
    // An explicit --records wins; AUTOMATION_RECORDS=off only turns off the default place.
    let records_root = opts
        .records
        .clone()
        .or_else(|| records::enabled().then(records::default_root).flatten());
    let report = match opts.report.as_deref().map(ReportDir::prepare).transpose() {
        Ok(dir) => dir.map(|d| (d, Flows::default())),
        Err(e) => {
            say(&format!("error: --report: {e}"));
            return None;
        }
    };
    Some(Outputs {
        records_root,
        suites: Suites::default(),
        report,
    })
}

/// Runs the selected flows on `opts.jobs` workers, each taking the next flow not yet taken;
/// their reports in suite order.
fn run_flows(
    selected: &[(usize, PathBuf)],
    prefixes: &[String],
    opts: &RunOptions,
    outputs: &Outputs,
    tty: bool,
) -> Vec<(usize, RunReport)> {
    let next = AtomicUsize::new(0);
    let reports: Mutex<Vec<(usize, RunReport)>> = Mutex::new(Vec::new());
    let worker = || {
        loop {
            let k = next.fetch_add(1, Ordering::SeqCst);
            let Some((index, path)) = selected.get(k) else {
                break;
            };
            let prefix = prefixes.get(k).map_or("", String::as_str);
            let report = run_one(*index, path, opts, outputs, tty, prefix);
            if let Ok(mut r) = reports.lock() {
                r.push((*index, report));
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.clamp(1, 64) {
            s.spawn(worker);
        }
    });
    let mut reports = reports.into_inner().unwrap_or_default();
    reports.sort_by_key(|(i, _)| *i);
    reports
}

/// Says how many flows passed and failed; the exit code they make (1 when one failed).
fn sum_up(reports: &[(usize, RunReport)], started: Instant) -> u8 {
    let passed = reports.iter().filter(|(_, r)| r.passed()).count();
    let recovered = reports
        .iter()
        .filter(|(_, r)| r.status == "recovered")
        .count();
    let failed = reports.len() - passed;
    let recovered_note = if recovered > 0 {
        format!(" ({recovered} of them recovered through a fallback)")
    } else {
        String::new()
    };
    say(&format!(
        "flows: {passed} passed, {failed} failed{recovered_note} ({:.1} s)",
        started.elapsed().as_secs_f64()
    ));
    u8::from(failed > 0)
}

/// Writes the HTML report and the JUnit file, and says where they and the records are; the
/// exit code, 1 when a write failed.
fn write_outputs(
    opts: &RunOptions,
    outputs: &Outputs,
    reports: &[(usize, RunReport)],
    started_at: &str,
    started: Instant,
    mut code: u8,
) -> u8 {
    if let Some((dir, flows)) = &outputs.report {
        let ms = started.elapsed().as_millis().try_into().unwrap_or(u64::MAX);
        match flows.write(dir, started_at, ms) {
            Ok(page) => say(&format!("report: {}", page.display())),
            Err(e) => {
                say(&format!("error: {e}"));
                code = 1;
            }
        }
    }
    if let Some(path) = &opts.junit {
        match outputs.suites.write(path, "automation run") {
            Ok(()) => say(&format!("junit: {}", path.display())),
            Err(e) => {
                say(&format!("error: {e}"));
                code = 1;
            }
        }
    }
    if let Some(root) = &outputs.records_root
        && !reports.is_empty()
    {
        say(&format!("records: {}", root.display()));
    }
    code
}

/// Where a run's reports go, shared by its flows.
struct Outputs {
    records_root: Option<PathBuf>,
    suites: Suites,
    report: Option<(ReportDir, Flows)>,
}

fn run_one(
    index: usize,
    path: &Path,
    opts: &RunOptions,
    outputs: &Outputs,
    tty: bool,
    prefix: &str,
) -> RunReport {
    let execution_id = super::new_execution_id();
    let name = path.display().to_string();
    let say = |text: &str| say_as(prefix, text);
    say(&format!("run {name} ({execution_id})"));
    let shots = super::events::LastImage::default();
    let display = if prefix.is_empty() {
        DisplaySink::new(tty)
    } else {
        DisplaySink::prefixed(prefix)
    }
    .with_shots(shots.clone());
    let mut sinks = Fanout::new().with(Box::new(display));
    // The JUnit suite is built only when it is written.
    if opts.junit.is_some() {
        sinks.push(Box::new(JunitSink::new(index, outputs.suites.clone())));
    }
    if let Some((dir, flows)) = &outputs.report {
        sinks.push(Box::new(HtmlSink::new(index, dir.clone(), flows.clone())));
    }
    let mut records_dir = None;
    if let Some(root) = outputs.records_root.as_deref() {
        match RecordsSink::create(root, &execution_id).map(|r| r.with_shots(shots)) {
            Ok(r) => {
                records_dir = Some(r.dir().to_path_buf());
                sinks.push(Box::new(r));
            }
            Err(e) => say(&format!("warning: {e}; no records for this run")),
        }
    }
    let flow = match flow::from_file(path) {
        Ok(mut f) => {
            f.timeout = opts.timeout;
            f.inputs = opts.inputs.clone();
            f.snapshots = Some(automation_session::tools::Snapshots::beside(
                path,
                opts.update_snapshots,
            ));
            f.evidence = outputs.report.is_some();
            f
        }
        Err(e) => {
            return failed_before_start(&name, &execution_id, e.to_json(), &mut sinks, prefix);
        }
    };
    let target = match mode::resolve_with_wait(&opts.mode, opts.wait)
        .and_then(|r| TargetHandle::spawn(r.factory))
    {
        Ok(t) => t,
        Err(e) => {
            let err = super::report::runner_error(
                ErrorCode::TargetFailed,
                format!("cannot start the target: {e}"),
                "check the mode (--headless, --attach, …) and retry",
            )
            .to_json();
            return failed_before_start(&name, &execution_id, err, &mut sinks, prefix);
        }
    };
    let mut report = super::run_flow(&flow, &execution_id, &target, &mut sinks, &|| false);
    report.records = records_dir.map(|d| d.display().to_string());
    let (p, f, s) = report.counts();
    if report.passed() {
        // A step that failed under `continue_on_error` is not a pass: it is said.
        let continued = if f > 0 {
            format!(", {f} failed and continued (continue_on_error)")
        } else {
            String::new()
        };
        say(&format!(
            "✓ {name}: {p} passed{continued}, {s} skipped ({} ms)",
            report.duration_ms
        ));
    } else {
        // `recovered`: it reached its end only through a fallback; not a pass.
        let verdict = if report.status == "recovered" {
            "recovered through a fallback, not passed"
        } else {
            "failed"
        };
        let mut text = format!(
            "✗ {name}: {verdict}: {p} passed, {f} failed, {s} skipped ({} ms)",
            report.duration_ms,
        );
        // The report first: the run's whole story, with screenshots, at this flow.
        if let Some((dir, _)) = &outputs.report {
            let page = std::path::absolute(dir.page()).unwrap_or_else(|_| dir.page());
            text.push_str(&format!(
                "
  report: {}#flow-{index}",
                page.display()
            ));
        }
        // A failed step's error was shown when it failed (`step failed: …`): said once. The
        // whole error is in the JUnit and the records' run.json.
        let shown = report.steps.iter().any(|s| s.status == StepStatus::Failed);
        if let Some(e) = &report.error {
            for line in super::report::failure_lines(e, &name, shown) {
                text.push_str(&format!("\n  {line}"));
            }
        }
        say(&text);
    }
    report
}

fn failed_before_start(
    name: &str,
    execution_id: &str,
    error: serde_json::Value,
    sinks: &mut Fanout,
    prefix: &str,
) -> RunReport {
    use super::events::Sink as _;
    let mut report = RunReport::new(name, execution_id);
    report.fail(error);
    let _ = sinks.finish(&report);
    say_as(
        prefix,
        &format!(
            "✗ {name}: {}",
            report.error.as_ref().map(one_line).unwrap_or_default()
        ),
    );
    report
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    /// A directory yields every file `run` takes by name (issue 38: `.cts` and `.cjs` ran by
    /// name and were skipped in a directory), and nothing else.
    #[test]
    fn a_directory_yields_what_run_takes_by_name() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.cts", "b.cjs", "c.mts", "d.yml", "notes.txt", "e.sh"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let found: Vec<String> = super::collect(&[dir.path().to_path_buf()])
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(found, ["a.cts", "b.cjs", "c.mts", "d.yml"]);
        for name in &found {
            assert!(super::super::flow::FileKind::of(&dir.path().join(name)).is_ok());
        }
    }

    /// A path that is not there is the user's input refused: `BAD_REQUEST`, said on the
    /// terminal without its code, in the sentence it always had.
    #[test]
    fn a_missing_path_is_a_refusal_in_its_old_words() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.yaml");
        let e = super::collect(std::slice::from_ref(&missing)).unwrap_err();
        assert_eq!(e.to_json()["code"], "BAD_REQUEST");
        assert_eq!(
            e.sentence(),
            format!(
                "{} does not exist; pass flow files (.ts, .js, .json, .yaml) or directories",
                missing.display()
            )
        );
    }
}
