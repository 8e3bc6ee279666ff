//! `automation exec [--junit FILE] -- CMD ARGS…`: run any test command with the event pipe in
//! its environment, show its events live, write JUnit from its steps, exit with its code.
//!
//! The command is one more kind of flow: its pipe's events go down the runner's stream into
//! the runner's sinks (the one live display, the one JUnit writer), its steps become the run's
//! step report as a script child's do ([`StepEvents`]), and how the command itself ended is
//! one more step of that report when it is a failure.
//!
//! A crash is never green: a command that cannot start, dies by a signal, is interrupted, or
//! exits non-zero without a failed step is one more failing testcase. Nor is a failed step: a
//! command that exits 0 after a `step_failed` (or with a step never finished) makes `exec`
//! exit 1. The child's stdout and stderr are shown live (the progress line cleared first) and
//! kept for `system-out` / `system-err`. An unwritable `--junit` path is refused before the
//! child runs. SIGINT and SIGTERM are passed on to the child; the JUnit is still written and
//! the exit code is 128 + the signal.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use automation_core::ErrorCode;
use automation_wire::events::{EventPipe, PipeItem};
use indicatif::ProgressBar;
use serde_json::Value;

use crate::error::RunnerError;
use crate::events::{Fanout, RunEvent, Sink};
use crate::report::{RunReport, StepReport, StepStatus, runner_error};
use crate::sinks::display::DisplaySink;
use crate::sinks::junit::{JunitSink, Suites, prepare_path};
use crate::step_events::StepEvents;

/// How much of each of the child's streams is kept for the report (the tail beyond is
/// dropped, the live view is complete).
pub const MAX_CAPTURE_BYTES: usize = 4 * 1024 * 1024;

/// The step that stands for the command itself in the report, when it ended badly.
pub const COMMAND_STEP: &str = "command";

/// A step of a command that exited while it ran: its message.
const UNFINISHED: &str = "the step did not finish before the command exited";

fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Copies a child's stream to ours (around the progress bar) and keeps a copy.
fn tee<R: Read + Send + 'static>(
    mut from: R,
    to_stderr: bool,
    bar: Option<ProgressBar>,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let chunk = &buf[..n];
            let write = || {
                if to_stderr {
                    let mut e = std::io::stderr().lock();
                    let _ = e.write_all(chunk).and_then(|()| e.flush());
                } else {
                    let mut o = std::io::stdout().lock();
                    let _ = o.write_all(chunk).and_then(|()| o.flush());
                }
            };
            match &bar {
                Some(b) => b.suspend(write),
                None => write(),
            }
            let room = MAX_CAPTURE_BYTES.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..n.min(room)]);
        }
        kept
    })
}

/// The command's pipe as a flow's stream: each item to the sinks, its steps kept.
pub struct Feed {
    sinks: Fanout,
    steps: StepEvents,
}

impl Feed {
    /// Feeds `sinks`.
    pub fn new(sinks: Fanout) -> Self {
        Self {
            sinks,
            steps: StepEvents::default(),
        }
    }

    /// `(passed, failed, unfinished)` steps so far.
    pub fn counts(&self) -> (usize, usize, usize) {
        self.steps.counts()
    }

    /// One item from the pipe.
    pub fn item(&mut self, item: PipeItem) {
        let event = match item {
            PipeItem::Event(e) => {
                self.steps.see(&e.kind);
                RunEvent::Event(e.kind)
            }
            PipeItem::Log(record) => RunEvent::Log(record),
        };
        self.sinks.event(&event);
    }

    /// The run's report: the command's steps (one still running is a failure), then the
    /// command itself as one more failed step when `ended` says it failed; the sinks are
    /// finished with it. The error names a sink that failed.
    pub fn finish(
        mut self,
        name: &str,
        execution_id: &str,
        elapsed_ms: u64,
        ended: Option<Value>,
    ) -> (RunReport, Result<(), RunnerError>) {
        let mut report = RunReport::new(name, execution_id);
        report.steps = self.steps.finish(UNFINISHED);
        let failed: Vec<Value> = report
            .steps
            .iter()
            .filter(|s| matches!(s.status, StepStatus::Failed | StepStatus::Unfinished))
            .filter_map(|s| s.error.clone())
            .collect();
        for e in failed {
            report.fail(e);
        }
        if let Some(error) = ended {
            report.steps.push(StepReport {
                id: COMMAND_STEP.into(),
                name: name.into(),
                status: StepStatus::Failed,
                duration_ms: elapsed_ms,
                attempts: 1,
                skipped_because: None,
                error: Some(error.clone()),
                fallback: None,
            });
            report.fail(error);
        }
        report.duration_ms = elapsed_ms;
        let finished = self.sinks.finish(&report);
        (report, finished)
    }
}

/// Runs the command; returns the exit code to use (the child's, or 128 + signal, or 126/127
/// when it could not be started, 130/143 when interrupted, 2 when `--junit` is unwritable,
/// or 1 when the child exited 0 with a step failed or unfinished, or the pipe or the JUnit
/// file failed).
pub fn run(command: &[String], junit: Option<&Path>) -> u8 {
    let Some((program, args)) = command.split_first() else {
        say("error: exec needs a command: automation exec -- CMD ARGS…");
        return 2;
    };
    if let Some(path) = junit
        && let Err(e) = prepare_path(path)
    {
        say(&format!("error: --junit: {e}"));
        return 2;
    }
    // The pipe lives in a private directory of this run (removed when it ends, or by the
    // watchdog should this process be killed), never in a directory users share.
    let (_run_dir, pipe, rx) = match open_pipe() {
        Ok(opened) => opened,
        Err(e) => {
            say(&format!("error: {e}"));
            return 1;
        }
    };
    let execution_id = pipe.execution_id().to_string();
    let live = Live::start(rx, junit.is_some());
    let started = Instant::now();
    let ran = run_child(program, args, &pipe, &live.bar);
    // The child has exited (or never started): drain everything it wrote, then stop.
    if let Err(e) = pipe.finish() {
        say(&format!("warning: event pipe: {e}"));
    }
    let elapsed_ms = started.elapsed().as_millis().try_into().unwrap_or(u64::MAX);
    let Ok(feed) = live.consumer.join() else {
        // A sink panicked: its report is lost, so the run is not green.
        say("error: the live display or the JUnit report failed while the command ran");
        return 1;
    };
    let counts = feed.counts();
    let verdict = Verdict::of(program, &ran, counts);
    let (_, finished) = feed.finish(
        &command.join(" "),
        &execution_id,
        elapsed_ms,
        verdict.ended.clone(),
    );
    verdict.say(program, ran.interrupted, counts);
    let Some(path) = junit else {
        return verdict.code;
    };
    let written = finished
        .and_then(|()| {
            live.suites.set_output(
                0,
                &String::from_utf8_lossy(&ran.out),
                &String::from_utf8_lossy(&ran.err),
            )
        })
        .and_then(|()| live.suites.write(path, "automation exec"));
    if let Err(e) = written {
        say(&format!("error: {e}"));
        return if verdict.code == 0 { 1 } else { verdict.code };
    }
    verdict.code
}

/// The run's private directory and the event pipe in it, with the pipe's receiver.
fn open_pipe() -> Result<
    (
        automation_session::files::dirs::RunDir,
        EventPipe,
        std::sync::mpsc::Receiver<PipeItem>,
    ),
    RunnerError,
> {
    let run_dir = automation_session::files::dirs::RunDir::create(&crate::new_execution_id())
        .map_err(|e| RunnerError::file_for("cannot create the run's private directory", e))?;
    let (pipe, rx) = EventPipe::create_in(run_dir.path()).map_err(RunnerError::Pipe)?;
    Ok((run_dir, pipe, rx))
}

/// The sinks, fed from the pipe on a thread of their own while the command runs.
struct Live {
    consumer: std::thread::JoinHandle<Feed>,
    /// The live display's progress bar, which the command's output is printed above.
    bar: Option<indicatif::ProgressBar>,
    suites: Suites,
}

impl Live {
    fn start(rx: std::sync::mpsc::Receiver<PipeItem>, junit: bool) -> Self {
        let display = DisplaySink::new(std::io::stderr().is_terminal());
        let bar = display.bar();
        let suites = Suites::default();
        let mut sinks = Fanout::new().with(Box::new(display));
        if junit {
            sinks.push(Box::new(JunitSink::new(0, suites.clone())));
        }
        let consumer = std::thread::spawn(move || {
            let mut feed = Feed::new(sinks);
            for item in rx {
                feed.item(item);
            }
            feed
        });
        Self {
            consumer,
            bar,
            suites,
        }
    }
}

/// How the command ran: its status (or why it did not start), its output, and the signal
/// that interrupted the run, if one did.
struct Ran {
    status: std::io::Result<std::process::ExitStatus>,
    out: Vec<u8>,
    err: Vec<u8>,
    interrupted: Option<i32>,
}

/// Starts the command with the pipe's environment, its output teed above the live display,
/// a signal to this process passed on to it; waits for it.
fn run_child(
    program: &str,
    args: &[String],
    pipe: &EventPipe,
    bar: &Option<indicatif::ProgressBar>,
) -> Ran {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in pipe.env() {
        cmd.env(k, v);
    }
    let signals = signals::Forward::install();
    let (status, out, err) = match cmd.spawn() {
        Ok(mut child) => {
            signals::set_child(child.id());
            // A signal that came between the spawn and now has not reached the child yet.
            if let Some(sig) = signals.received() {
                signals::forward(child.id(), sig);
            }
            let out = child.stdout.take().map(|s| tee(s, false, bar.clone()));
            let err = child.stderr.take().map(|s| tee(s, true, bar.clone()));
            let status = child.wait();
            signals::set_child(0);
            let out = out.and_then(|t| t.join().ok()).unwrap_or_default();
            let err = err.and_then(|t| t.join().ok()).unwrap_or_default();
            (status, out, err)
        }
        Err(e) => (Err(e), Vec::new(), Vec::new()),
    };
    let interrupted = signals.received();
    drop(signals);
    Ran {
        status,
        out,
        err,
        interrupted,
    }
}

/// The exit code `exec` answers, the command's own, and the command's failure as one more
/// step's error when it failed.
struct Verdict {
    code: u8,
    child_code: u8,
    ended: Option<Value>,
}

impl Verdict {
    /// From how the command ended and its steps' `(passed, failed, unfinished)` counts.
    fn of(program: &str, ran: &Ran, (_, failed, unfinished): (usize, usize, usize)) -> Self {
        let mut ended = None;
        let mut code = match &ran.status {
            Ok(s) => {
                let (code, why) = describe_exit(*s);
                if let Some(why) = why {
                    ended = Some(runner_error(
                        ErrorCode::CommandKilled,
                        format!("{program} {why}"),
                        "read the command's output in system-out / system-err",
                    ));
                } else if code != 0 && failed == 0 {
                    ended = Some(runner_error(
                        ErrorCode::CommandFailed,
                        format!("{program} exited with code {code} and no failed step"),
                        "read the command's output in system-out / system-err",
                    ));
                }
                code
            }
            Err(e) => {
                say(&format!("error: cannot run {program}: {e}"));
                let code = if e.kind() == std::io::ErrorKind::NotFound {
                    127
                } else {
                    126
                };
                ended = Some(runner_error(
                    ErrorCode::CommandNotStarted,
                    format!("cannot start {program}: {e} (exit code {code})"),
                    "check the command's name, path and permissions",
                ));
                code
            }
        };
        // A failed step (or one that never finished) is never green, whatever the command
        // exits with: the JUnit has its failure, so `exec` exits 1, as `run` does for a
        // failed flow.
        let child_code = code;
        if code == 0 && failed + unfinished > 0 {
            code = 1;
        }
        if let Some(sig) = ran.interrupted {
            code = u8::try_from(128 + sig).unwrap_or(1);
            ended = Some(runner_error(
                ErrorCode::Interrupted,
                format!(
                    "interrupted by {} (passed on to {program}); exit code {code}",
                    signals::name(sig)
                ),
                "the run was stopped from outside; run it again",
            ));
        }
        Self {
            code,
            child_code,
            ended: ended.map(|e| e.to_json()),
        }
    }

    /// The lines a person reads at the end: an interruption, and the steps' counts with the
    /// exit code (and why it is not the command's).
    fn say(&self, program: &str, interrupted: Option<i32>, counts: (usize, usize, usize)) {
        let (passed, failed, unfinished) = counts;
        if let Some(sig) = interrupted {
            say(&format!(
                "automation exec: interrupted by {}",
                signals::name(sig)
            ));
        }
        if passed + failed + unfinished > 0 {
            let why = if self.code != self.child_code && interrupted.is_none() {
                format!(
                    " ({program} exited {}; a step did not pass)",
                    self.child_code
                )
            } else {
                String::new()
            };
            say(&format!(
                "steps: {passed} passed, {failed} failed, {unfinished} unfinished; exit code {}{why}",
                self.code
            ));
        }
    }
}

/// The exit code, and why the child died when it was a signal.
#[cfg(unix)]
fn describe_exit(s: std::process::ExitStatus) -> (u8, Option<String>) {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => (u8::try_from(c & 0xff).unwrap_or(1), None),
        (None, Some(sig)) => (
            u8::try_from((128 + sig) & 0xff).unwrap_or(1),
            Some(format!(
                "was killed by signal {sig} ({}){}",
                signals::name(sig),
                if s.core_dumped() { ", core dumped" } else { "" }
            )),
        ),
        (None, None) => (1, Some("ended without an exit code".into())),
    }
}

#[cfg(not(unix))]
fn describe_exit(s: std::process::ExitStatus) -> (u8, Option<String>) {
    (
        s.code().map_or(1, |c| u8::try_from(c & 0xff).unwrap_or(1)),
        None,
    )
}

/// Passing SIGINT/SIGTERM on to the child while it runs.
#[cfg(unix)]
mod signals {
    use std::sync::atomic::{AtomicI32, Ordering};

    static CHILD: AtomicI32 = AtomicI32::new(0);
    static RECEIVED: AtomicI32 = AtomicI32::new(0);

    extern "C" fn on_signal(sig: libc::c_int) {
        RECEIVED.store(sig, Ordering::SeqCst);
        let pid = CHILD.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: kill is async-signal-safe; pid is our own child's.
            unsafe {
                libc::kill(pid, sig);
            }
        }
    }

    /// The installed handlers; dropping restores the previous ones.
    pub struct Forward {
        previous: Vec<(libc::c_int, libc::sighandler_t)>,
    }

    impl Forward {
        /// Installs the handlers for SIGINT and SIGTERM.
        pub fn install() -> Forward {
            RECEIVED.store(0, Ordering::SeqCst);
            let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            let mut previous = Vec::new();
            for sig in [libc::SIGINT, libc::SIGTERM] {
                // SAFETY: the handler only touches atomics and calls kill.
                let old = unsafe { libc::signal(sig, handler) };
                if old != libc::SIG_ERR {
                    previous.push((sig, old));
                }
            }
            Forward { previous }
        }

        /// The signal received while installed, if any.
        pub fn received(&self) -> Option<i32> {
            match RECEIVED.load(Ordering::SeqCst) {
                0 => None,
                s => Some(s),
            }
        }
    }

    impl Drop for Forward {
        fn drop(&mut self) {
            for (sig, old) in self.previous.drain(..) {
                // SAFETY: restoring the handler that was there before.
                unsafe {
                    libc::signal(sig, old);
                }
            }
        }
    }

    /// Records the child to forward to (0: none).
    pub fn set_child(pid: u32) {
        CHILD.store(i32::try_from(pid).unwrap_or(0), Ordering::SeqCst);
    }

    /// Sends `sig` to `pid`.
    pub fn forward(pid: u32, sig: i32) {
        if let Ok(pid) = i32::try_from(pid) {
            // SAFETY: plain kill(2) to our own child.
            unsafe {
                libc::kill(pid, sig);
            }
        }
    }

    /// A signal's name.
    pub fn name(sig: i32) -> String {
        match sig {
            libc::SIGINT => "SIGINT".into(),
            libc::SIGTERM => "SIGTERM".into(),
            libc::SIGKILL => "SIGKILL".into(),
            libc::SIGSEGV => "SIGSEGV".into(),
            libc::SIGABRT => "SIGABRT".into(),
            libc::SIGHUP => "SIGHUP".into(),
            libc::SIGQUIT => "SIGQUIT".into(),
            libc::SIGBUS => "SIGBUS".into(),
            libc::SIGPIPE => "SIGPIPE".into(),
            libc::SIGILL => "SIGILL".into(),
            libc::SIGFPE => "SIGFPE".into(),
            other => format!("signal {other}"),
        }
    }
}

#[cfg(not(unix))]
mod signals {
    pub struct Forward;
    impl Forward {
        pub fn install() -> Forward {
            Forward
        }
        pub fn received(&self) -> Option<i32> {
            None
        }
    }
    pub fn set_child(_pid: u32) {}
    pub fn forward(_pid: u32, _sig: i32) {}
    pub fn name(sig: i32) -> String {
        format!("signal {sig}")
    }
}

#[cfg(test)]
mod tests {
    use automation_wire::events::{Event, EventKind};

    use super::*;
    use crate::sinks::junit::xml_safe;

    fn item(kind: EventKind) -> PipeItem {
        PipeItem::Event(Event {
            timestamp: "2026-01-01T00:00:00Z".into(),
            kind,
        })
    }

    fn started(id: &str) -> PipeItem {
        item(EventKind::StepStarted {
            step_id: id.into(),
            step_name: format!("step {id}"),
            step_index: None,
            total_steps: None,
        })
    }

    fn completed(id: &str, duration: Option<f64>) -> PipeItem {
        item(EventKind::StepCompleted {
            step_id: id.into(),
            step_name: format!("step {id}"),
            duration,
            step_index: None,
            total_steps: None,
        })
    }

    /// A feed into the JUnit sink alone, and the suites it writes into.
    fn junit_feed() -> (Feed, Suites) {
        let suites = Suites::default();
        let sinks = Fanout::new().with(Box::new(JunitSink::new(0, suites.clone())));
        (Feed::new(sinks), suites)
    }

    /// The report written and read back.
    fn written(suites: &Suites) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.xml");
        suites.write(&path, "automation exec").unwrap();
        std::fs::read_to_string(&path).unwrap()
    }

    #[test]
    fn steps_become_cases_in_order() {
        let (mut feed, suites) = junit_feed();
        feed.item(started("a"));
        feed.item(completed("a", Some(5.0)));
        feed.item(started("b"));
        feed.item(item(EventKind::StepFailed {
            step_id: "b".into(),
            step_name: "step b".into(),
            error: Some("boom".into()),
            duration: None,
        }));
        feed.item(started("c"));
        assert_eq!(feed.counts(), (1, 1, 1));
        let (report, finished) = feed.finish("suite", "x", 10, None);
        finished.unwrap();
        assert!(!report.passed(), "a failed step is never green");
        let xml = written(&suites);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let cases: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(cases.len(), 3, "{xml}");
        assert_eq!(cases[0].attribute("classname"), Some("suite::a"));
        assert_eq!(cases[0].attribute("time"), Some("0.005"));
        let failure = |case: &roxmltree::Node| {
            case.children()
                .find(|n| n.has_tag_name("failure"))
                .and_then(|n| n.attribute("message"))
                .map(str::to_string)
        };
        assert_eq!(failure(&cases[1]).as_deref(), Some("STEP_FAILED: boom"));
        assert!(
            failure(&cases[2]).is_some_and(|m| m.contains(UNFINISHED)),
            "a step that never finished is a failure: {xml}"
        );
    }

    #[test]
    fn how_the_command_ended_is_one_more_failing_case() {
        let (mut feed, suites) = junit_feed();
        feed.item(started("a"));
        feed.item(completed("a", None));
        let ended = runner_error(
            ErrorCode::CommandKilled,
            "bash was killed by signal 9 (SIGKILL)",
            "",
        )
        .to_json();
        let (report, finished) = feed.finish("bash x.sh", "x", 10, Some(ended));
        finished.unwrap();
        assert!(!report.passed());
        suites.set_output(0, "out", "err").unwrap();
        let xml = written(&suites);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let suite = doc
            .descendants()
            .find(|n| n.has_tag_name("testsuite"))
            .unwrap();
        assert_eq!(suite.attribute("tests"), Some("2"), "{xml}");
        assert_eq!(suite.attribute("failures"), Some("1"), "{xml}");
        let failed = doc
            .descendants()
            .find(|n| n.has_tag_name("failure"))
            .unwrap();
        assert_eq!(failed.attribute("type"), Some("COMMAND_KILLED"));
        assert!(failed.attribute("message").unwrap().contains("SIGKILL"));
        assert_eq!(
            failed.parent().and_then(|c| c.attribute("classname")),
            Some("bash x.sh::command")
        );
        let text = |tag: &str| {
            suite
                .children()
                .find(|n| n.has_tag_name(tag))
                .and_then(|n| n.text())
        };
        assert_eq!(
            (text("system-out"), text("system-err")),
            (Some("out"), Some("err"))
        );
    }

    #[test]
    fn every_character_xml_cannot_carry_is_replaced() {
        // Every Unicode scalar value, in chunks, as step ids, names, messages and output: the
        // file must parse, and what comes back is the input with only the forbidden ones
        // replaced.
        let all: Vec<char> = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
        for chunk in all.chunks(0x4000) {
            let text: String = chunk.iter().collect();
            let (mut feed, suites) = junit_feed();
            feed.item(item(EventKind::StepStarted {
                step_id: text.clone(),
                step_name: text.clone(),
                step_index: None,
                total_steps: None,
            }));
            feed.item(item(EventKind::StepFailed {
                step_id: text.clone(),
                step_name: text.clone(),
                error: Some(text.clone()),
                duration: None,
            }));
            let ended = runner_error(ErrorCode::CommandKilled, text.clone(), "").to_json();
            let (_, finished) = feed.finish(&text, "x", 1, Some(ended));
            finished.unwrap();
            suites.set_output(0, &text, &text).unwrap();
            let xml = written(&suites);
            let doc = roxmltree::Document::parse(&xml)
                .unwrap_or_else(|e| panic!("U+{:04X}..: {e}", u32::from(chunk[0])));
            let failures: Vec<_> = doc
                .descendants()
                .filter(|n| n.has_tag_name("failure"))
                .collect();
            assert_eq!(failures.len(), 2, "the step and the command");
            for f in failures {
                let msg = f.attribute("message").unwrap();
                assert!(!msg.contains('\u{fffe}') && !msg.contains('\u{ffff}'));
            }
        }
        assert_eq!(
            xml_safe("a\u{0}b\u{fffe}\u{ffff}\t\n\r\u{10ffff}"),
            "a\u{fffd}b\u{fffd}\u{fffd}\t\n\r\u{10ffff}"
        );
    }
}
