//! `automation exec [--junit FILE] -- CMD ARGS…`: run any test command with the event pipe in
//! its environment, show its events live, write JUnit from its steps, exit with its code.
//!
//! A crash is never green: a command that cannot start, dies by a signal, is interrupted, or
//! exits non-zero without a failed step is one more failing testcase. Nor is a failed step: a
//! command that exits 0 after a `step_failed` (or with a step never finished) makes `exec`
//! exit 1. The child's stdout and
//! stderr are shown live (the progress line cleared first) and kept for `system-out` /
//! `system-err`. An unwritable `--junit` path is refused before the child runs. SIGINT and
//! SIGTERM are passed on to the child; the JUnit is still written and the exit code is
//! 128 + the signal.

pub mod display;
pub mod steps;

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use automation_wire::events::{EventPipe, PipeItem};
use indicatif::ProgressBar;

use display::Display;
use steps::{CommandOutcome, StepLog};

/// How much of each of the child's streams is kept for the report (the tail beyond is
/// dropped, the live view is complete).
pub const MAX_CAPTURE_BYTES: usize = 4 * 1024 * 1024;

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
        && let Err(e) = crate::runner::sinks::junit::prepare_path(path)
    {
        say(&format!("error: --junit: {e}"));
        return 2;
    }
    // The pipe lives in a private directory of this run (removed when it ends, or by the
    // watchdog should this process be killed), never in a directory users share.
    let run_dir = match crate::files::dirs::RunDir::create(&crate::runner::new_execution_id()) {
        Ok(d) => d,
        Err(e) => {
            say(&format!(
                "error: cannot create the run's private directory: {e}"
            ));
            return 1;
        }
    };
    let (pipe, rx) = match EventPipe::create_in(run_dir.path()) {
        Ok(p) => p,
        Err(e) => {
            say(&format!("error: cannot create the event pipe: {e}"));
            return 1;
        }
    };
    let tty = std::io::stderr().is_terminal();
    let display = Display::new(tty);
    let bar = display.bar();
    let consumer = std::thread::spawn(move || {
        let mut display = display;
        let mut log = StepLog::default();
        for item in rx {
            display.show(&item);
            if let PipeItem::Event(e) = &item {
                log.record(&e.kind);
            }
        }
        display.finish();
        log
    });
    let started = Instant::now();
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in pipe.env() {
        cmd.env(k, v);
    }
    let signals = signals::Forward::install();
    let spawned = cmd.spawn();
    let (status, out, err) = match spawned {
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
    // The child has exited (or never started): drain everything it wrote, then stop.
    if let Err(e) = pipe.finish() {
        say(&format!("warning: event pipe: {e}"));
    }
    let log = consumer.join().unwrap_or_default();
    let (passed, failed, unfinished) = log.counts();
    let mut failure: Option<(String, String)> = None;
    let mut code = match status {
        Ok(s) => {
            let (code, why) = describe_exit(s);
            if let Some(why) = why {
                failure = Some(("signal".into(), format!("{program} {why}")));
            } else if code != 0 && failed == 0 {
                failure = Some((
                    "exit_code".into(),
                    format!("{program} exited with code {code} and no failed step"),
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
            failure = Some((
                "not_started".into(),
                format!("cannot start {program}: {e} (exit code {code})"),
            ));
            code
        }
    };
    // A failed step (or one that never finished) is never green, whatever the command exits
    // with: the JUnit has its failure, so `exec` exits 1, as `run` does for a failed flow.
    let child_code = code;
    if code == 0 && failed + unfinished > 0 {
        code = 1;
    }
    if let Some(sig) = interrupted {
        code = u8::try_from(128 + sig).unwrap_or(1);
        failure = Some((
            "interrupted".into(),
            format!(
                "interrupted by {} (passed on to {program}); exit code {code}",
                signals::name(sig)
            ),
        ));
        say(&format!(
            "automation exec: interrupted by {}",
            signals::name(sig)
        ));
    }
    if passed + failed + unfinished > 0 {
        let why = if code != child_code && interrupted.is_none() {
            format!(" ({program} exited {child_code}; a step did not pass)")
        } else {
            String::new()
        };
        say(&format!(
            "steps: {passed} passed, {failed} failed, {unfinished} unfinished; exit code {code}{why}"
        ));
    }
    if let Some(path) = junit {
        let outcome = CommandOutcome {
            failure,
            stdout: String::from_utf8_lossy(&out).into_owned(),
            stderr: String::from_utf8_lossy(&err).into_owned(),
        };
        let report = log.to_junit_with(&command.join(" "), started.elapsed(), &outcome);
        let written = report
            .to_string()
            .map_err(|e| e.to_string())
            .and_then(|xml| {
                crate::files::write_replacing(path, xml.as_bytes(), crate::files::REPORT_FILE)
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = written {
            say(&format!(
                "error: cannot write JUnit to {}: {e}",
                path.display()
            ));
            return if code == 0 { 1 } else { code };
        }
    }
    code
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
