//! `automation exec [--junit FILE] -- CMD ARGS…`: run any test command with the event pipe in
//! its environment, show its events live, write JUnit from its steps, exit with its code.

pub mod display;
pub mod steps;

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use automation_wire::events::{EventPipe, PipeItem};

use display::Display;
use steps::StepLog;

fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Runs the command; returns the exit code to use (the child's, or 128 + signal, or 126/127
/// when it could not be started, or 1 when the pipe or the JUnit file failed).
pub fn run(command: &[String], junit: Option<&Path>) -> u8 {
    let Some((program, args)) = command.split_first() else {
        say("error: exec needs a command: automation exec -- CMD ARGS…");
        return 2;
    };
    let (pipe, rx) = match EventPipe::create() {
        Ok(p) => p,
        Err(e) => {
            say(&format!("error: cannot create the event pipe: {e}"));
            return 1;
        }
    };
    let tty = std::io::stderr().is_terminal();
    let consumer = std::thread::spawn(move || {
        let mut display = Display::new(tty);
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
    cmd.args(args);
    for (k, v) in pipe.env() {
        cmd.env(k, v);
    }
    let status = cmd.status();
    // The child has exited (or never started): drain everything it wrote, then stop.
    if let Err(e) = pipe.finish() {
        say(&format!("warning: event pipe: {e}"));
    }
    let log = consumer.join().unwrap_or_default();
    let code = match status {
        Ok(s) => exit_code(s),
        Err(e) => {
            say(&format!("error: cannot run {program}: {e}"));
            if e.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            }
        }
    };
    let (passed, failed, unfinished) = log.counts();
    if passed + failed + unfinished > 0 {
        say(&format!(
            "steps: {passed} passed, {failed} failed, {unfinished} unfinished; exit code {code}"
        ));
    }
    if let Some(path) = junit {
        let report = log.to_junit(&command.join(" "), started.elapsed());
        let written = report
            .to_string()
            .map_err(|e| e.to_string())
            .and_then(|xml| std::fs::write(path, xml).map_err(|e| e.to_string()));
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

#[cfg(unix)]
fn exit_code(s: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => u8::try_from(c & 0xff).unwrap_or(1),
        (None, Some(sig)) => u8::try_from((128 + sig) & 0xff).unwrap_or(1),
        (None, None) => 1,
    }
}

#[cfg(not(unix))]
fn exit_code(s: std::process::ExitStatus) -> u8 {
    s.code().map_or(1, |c| u8::try_from(c & 0xff).unwrap_or(1))
}
