//! Dispatch: parse, pick the mode, run the verb (or the MCP server), map outcomes to streams
//! and exit codes. 0 ok; 1 a mode or op that failed; 2 a usage error; `exec` passes its
//! child's code through.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::time::Duration;

use automation_session::backend::TargetHandle;
use automation_session::mode;
use automation_session::mode::Mode;
use clap::Parser;

use crate::cli::{Cli, RunArgs, Verb, resolve_target};
use crate::error::CliError;
use crate::verbs::{self, Outcome};

/// Env var for the log filter (tracing `EnvFilter` syntax; default `warn`). Logs go to stderr.
pub const LOG_ENV: &str = "AUTOMATION_LOG";

/// Runs the binary with these arguments (the first is the program name); returns the exit code.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            // --help / --version go to stdout with 0; usage errors to stderr with 2.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    init_tracing();
    // A verb that drives no app still refuses a mode line that makes no sense.
    if !matches!(
        cli.verb,
        None | Some(
            Verb::Op { .. }
                | Verb::Audit { .. }
                | Verb::Run { .. }
                | Verb::Inspect { .. }
                | Verb::Serve { .. }
        )
    ) && let Err(e) = resolve_target(&cli.target, None)
    {
        return emit(&refused(e));
    }
    // A verb refused after its app was launched (its target thread did not start) ends the
    // app too: a launched app and its virtual display end with us, whatever the verb came to.
    let code = dispatch(cli).unwrap_or_else(|refused| refused);
    #[cfg(feature = "atspi")]
    automation_session::atspi_mode::shutdown();
    code
}

/// Runs the verb (or the MCP server); its exit code, or `Err` with the code of a verb refused
/// on its mode line or its app (its error printed).
fn dispatch(cli: Cli) -> Result<u8, u8> {
    let unusable = |e: CliError| emit(&refused(e));
    // The MCP server's settings, stdio or HTTP (read before the match takes the verb apart).
    let (caps, snapshots) = (cli.caps.clone().unwrap_or_default(), server_snapshots(&cli));
    Ok(match cli.verb {
        None => match resolve_target(&cli.target, None) {
            Ok((mode, wait)) => serve(mode.unwrap_or(Mode::Headless), wait, &caps, snapshots),
            Err(e) => emit(&refused(e)),
        },
        Some(Verb::Op {
            target,
            op,
            args,
            out,
            overwrite,
        }) => {
            let target = verb_target(&cli.target, "op", &target).map_err(unusable)?;
            let save = verbs::SaveTo {
                path: out,
                overwrite,
            };
            emit(&verbs::op(&target, &op, args.as_deref(), &save))
        }
        Some(Verb::Audit {
            target,
            format,
            out,
            rules,
            baseline,
            write_baseline,
            no_keyboard,
        }) => {
            let target = verb_target(&cli.target, "audit", &target).map_err(unusable)?;
            let how = crate::audit::How {
                format,
                out,
                rules,
                baseline,
                write_baseline,
                keyboard: !no_keyboard,
            };
            emit(&crate::audit::run(&target, &how))
        }
        Some(Verb::Tools { full }) => emit(&verbs::tools(full)),
        Some(Verb::Eval { expr, vars, strict }) => {
            emit(&verbs::eval(&expr, vars.as_deref(), strict))
        }
        Some(Verb::Transpile { file, detect }) => emit(&verbs::transpile(&file, detect)),
        Some(Verb::Export {
            records,
            format,
            name,
            out,
            overwrite,
        }) => emit(&verbs::export(
            &records,
            &format,
            &name,
            out.as_deref(),
            overwrite,
        )),
        Some(Verb::Exec { junit, command }) => {
            automation_runner::exec::run(&command, junit.as_deref())
        }
        Some(Verb::Inspect { target, port }) => match verb_mode(&cli.target, "inspect", &target) {
            Ok((mode, wait)) => inspect(mode, wait, port),
            Err(e) => emit(&refused(e)),
        },
        Some(Verb::ShowReport { dir, port }) => show_report(dir, port),
        Some(Verb::Webdriver { port, reach }) => webdriver(port, &reach),
        Some(Verb::Serve {
            target,
            http,
            caps: serve_caps,
            reach,
        }) => {
            let caps = serve_caps.unwrap_or(caps);
            let (mode, wait) = verb_mode(&cli.target, "serve", &target).map_err(unusable)?;
            match http {
                None => serve(mode, wait, &caps, snapshots),
                Some(addr) => serve_http(&addr, mode, &reach, caps, snapshots),
            }
        }
        Some(Verb::Run(run)) => {
            let (mode, wait) = verb_mode(&cli.target, "run", &run.target).map_err(unusable)?;
            automation_runner::suite::run(&run_options(run, mode, wait, cli.update_snapshots))
        }
    })
}

/// The runner's options for `automation run` on `mode`; `update_snapshots` is the flag given
/// before the verb (either one updates).
fn run_options(
    run: RunArgs,
    mode: Mode,
    wait: Option<Duration>,
    update_snapshots: bool,
) -> automation_runner::suite::RunOptions {
    automation_runner::suite::RunOptions {
        flows: run.flows,
        mode,
        wait,
        junit: run.junit,
        records: run.records,
        report: run.report,
        partition: run.partition,
        jobs: usize::from(run.jobs),
        timeout: run.timeout,
        update_snapshots: run.update_snapshots || update_snapshots,
        inputs: run.inputs.unwrap_or_default(),
    }
}

fn usage(message: &str) -> Outcome {
    Outcome::error(
        2,
        format!("error: {message}\n\nFor more information, try '--help'."),
    )
}

/// What a refused or failed command prints, and its exit code: the command line's own
/// mistake is a usage error (2), anything else a failure (1).
fn refused(e: CliError) -> Outcome {
    if e.is_usage() {
        usage(&e.to_string())
    } else {
        Outcome::error(1, format!("error: {e}"))
    }
}

/// Prints an outcome (ignoring a closed pipe) and returns its code.
pub fn emit(o: &Outcome) -> u8 {
    if !o.stdout.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", o.stdout);
        let _ = out.flush();
    }
    if !o.stderr.is_empty() {
        let _ = writeln!(std::io::stderr().lock(), "{}", o.stderr);
    }
    o.code
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env(LOG_ENV)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .try_init();
}

/// No verb: `--list`, or the MCP server on stdio.
fn serve(
    mode: Mode,
    wait: Option<Duration>,
    caps: &crate::mcp::list::Caps,
    snapshots: automation_session::tools::Snapshots,
) -> u8 {
    if mode == Mode::List {
        return match mode::list() {
            Ok(apps) => emit(&Outcome::ok(
                serde_json::to_string_pretty(&apps).unwrap_or_default(),
            )),
            Err(e) => emit(&refused(e.into())),
        };
    }
    let resolved = match mode::resolve_with_wait(&mode, wait) {
        Ok(r) => r,
        Err(e) => return emit(&refused(e.into())),
    };
    let describe = resolved.describe;
    let target = match TargetHandle::spawn(resolved.factory) {
        Ok(t) => t,
        Err(e) => return emit(&refused(e.into())),
    };
    if std::io::stdin().is_terminal() {
        let listed = crate::mcp::list::tools(caps).len();
        let _ = writeln!(std::io::stderr().lock(), "{}", banner(&describe, listed));
    }
    tracing::info!(target = %describe, "serving MCP on stdio");
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            return emit(&Outcome::error(
                1,
                format!("error: cannot start the async runtime: {e}"),
            ));
        }
    };
    let result = rt.block_on(crate::mcp::serve_stdio(target, caps, snapshots));
    rt.shutdown_timeout(Duration::from_millis(200));
    match result {
        Ok(()) => 0,
        Err(e) => emit(&refused(e)),
    }
}

/// A runtime for a loopback web server.
fn web_runtime() -> Result<tokio::runtime::Runtime, Outcome> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // A WebDriver XPath is evaluated on a blocking thread: its recursion is bounded, and
        // this stack holds the bound.
        .thread_stack_size(automation_http::reach::webdriver::xpath::STACK)
        .enable_all()
        .build()
        .map_err(|e| Outcome::error(1, format!("error: cannot start the async runtime: {e}")))
}

/// Prints `line` on stdout at once (a script reads the URL from it).
fn announce(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `inspect`: the inspector over the app, until stopped.
fn inspect(mode: Mode, wait: Option<Duration>, port: u16) -> u8 {
    let target = match mode::resolve_with_wait(&mode, wait).and_then(|r| {
        let describe = r.describe.clone();
        TargetHandle::spawn(r.factory).map(|t| (t, describe))
    }) {
        Ok(t) => t,
        Err(e) => return emit(&refused(e.into())),
    };
    let rt = match web_runtime() {
        Ok(rt) => rt,
        Err(o) => return emit(&o),
    };
    let result = rt.block_on(async {
        let inspector = automation_http::seeing::inspect::bind(target.0, port).await?;
        announce(&format!("inspector: {} ({})", inspector.url, target.1));
        inspector.serve().await
    });
    match result {
        Ok(()) => 0,
        Err(e) => emit(&refused(e.into())),
    }
}

/// The mode a verb drives (given before or after it; the headless demo by default): `--list`
/// drives nothing, so it is refused with the verb.
fn verb_mode(
    top: &crate::cli::TargetArgs,
    verb: &str,
    after: &crate::cli::TargetArgs,
) -> Result<(Mode, Option<Duration>), CliError> {
    let (mode, wait) = resolve_target(top, Some((verb, after)))?;
    match mode.unwrap_or(Mode::Headless) {
        Mode::List => Err(CliError::ListWithVerb { verb: verb.into() }),
        mode => Ok((mode, wait)),
    }
}

/// The app a one-shot verb drives, on its target thread: a mode line that makes no sense is a
/// usage error (2), an app that does not start a failure (1) ([`refused`] says which).
fn verb_target(
    top: &crate::cli::TargetArgs,
    verb: &str,
    after: &crate::cli::TargetArgs,
) -> Result<TargetHandle, CliError> {
    let (mode, wait) = verb_mode(top, verb, after)?;
    let resolved = mode::resolve_with_wait(&mode, wait)?;
    Ok(TargetHandle::spawn(resolved.factory)?)
}

/// Where an MCP server (stdio or HTTP) keeps `assert_screenshot` baselines.
fn server_snapshots(cli: &Cli) -> automation_session::tools::Snapshots {
    automation_session::tools::Snapshots::new(
        cli.snapshots
            .clone()
            .unwrap_or_else(|| automation_session::tools::DEFAULT_SNAPSHOTS_DIR.into()),
        cli.update_snapshots,
    )
}

/// `webdriver`: W3C WebDriver over the session manager, until stopped.
fn webdriver(port: u16, reach: &crate::cli::ReachArgs) -> u8 {
    let rt = match web_runtime() {
        Ok(rt) => rt,
        Err(o) => return emit(&o),
    };
    let config = automation_http::reach::webdriver::Config {
        addr: std::net::SocketAddr::new(reach.host(), port),
        max_sessions: usize::from(reach.max_sessions),
        idle_timeout: Duration::from_secs(reach.idle_timeout),
        access: reach.access(),
    };
    let result = rt.block_on(automation_http::reach::webdriver::serve(config, |url| {
        announce(&format!("automation webdriver: listening on {url}"));
    }));
    match result {
        Ok(()) => 0,
        Err(e) => emit(&refused(e.into())),
    }
}

/// `serve --http ADDR`: MCP over streamable HTTP, a target per MCP session, until stopped.
fn serve_http(
    addr: &str,
    mode: Mode,
    reach: &crate::cli::ReachArgs,
    caps: crate::mcp::list::Caps,
    snapshots: automation_session::tools::Snapshots,
) -> u8 {
    let addr: std::net::SocketAddr = match addr.parse() {
        Ok(a) => a,
        Err(_) => {
            return emit(&usage(&format!(
                "--http takes an address like 127.0.0.1:8931 (port 0: a free one), got {addr:?}"
            )));
        }
    };
    // ADDR names the host; a --host beside it that says otherwise is a mistake, not a choice.
    if let Some(host) = reach.host
        && host != addr.ip()
    {
        return emit(&usage(&format!(
            "--host {host} and --http {addr} name two addresses; give the host in --http (--http {host}:{port})",
            port = addr.port()
        )));
    }
    let rt = match web_runtime() {
        Ok(rt) => rt,
        Err(o) => return emit(&o),
    };
    let config = crate::mcp::http::Config {
        addr,
        mode,
        max_sessions: usize::from(reach.max_sessions),
        idle_timeout: Duration::from_secs(reach.idle_timeout),
        access: reach.access(),
        caps,
        snapshots,
    };
    let result = rt.block_on(crate::mcp::http::serve(config, |url| {
        announce(&format!("automation serve: MCP over HTTP at {url}"));
    }));
    match result {
        Ok(()) => 0,
        Err(e) => emit(&refused(e.into())),
    }
}

/// `show-report DIR`: the report on loopback, until stopped.
fn show_report(dir: std::path::PathBuf, port: u16) -> u8 {
    let rt = match web_runtime() {
        Ok(rt) => rt,
        Err(o) => return emit(&o),
    };
    let result = rt.block_on(async {
        let server =
            automation_http::seeing::show::bind(dir, automation_runner::report_page::IMAGES, port)
                .await?;
        announce(&format!("report: {}", server.url));
        server.serve().await
    });
    match result {
        Ok(()) => 0,
        Err(e) => emit(&refused(e.into())),
    }
}

/// What a person who started the server by hand in a terminal sees on stderr.
pub fn banner(describe: &str, listed: usize) -> String {
    format!(
        "automation {v}: MCP server on stdio, driving {describe} ({listed} of {n} tools listed; --caps all lists every one).\n\
It is meant to be started by an MCP client, which speaks JSON-RPC on its stdin/stdout:\n\
\x20 Claude Code:  claude mcp add automation -- automation --headless\n\
\x20 .mcp.json / Cursor:  {{\"mcpServers\": {{\"automation\": {{\"command\": \"automation\", \"args\": [\"--headless\"]}}}}}}\n\
For a one-shot op from a shell: automation op '{{\"find_node\": {{\"label\": \"Save\"}}}}'\n\
Waiting for a client on stdin (Ctrl-D to quit).",
        v = env!("CARGO_PKG_VERSION"),
        n = crate::mcp::list::tools(&crate::mcp::list::Caps::all()).len(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_says_what_is_served_and_how_to_connect() {
        let b = banner("the built-in headless demo", 17);
        assert!(b.contains("MCP server on stdio"));
        assert!(b.contains("the built-in headless demo"));
        assert!(b.contains(".mcp.json"));
        assert!(b.lines().count() <= 8, "a few lines, not a page");
    }

    #[test]
    fn help_and_usage_errors_map_to_0_and_2() {
        assert_eq!(run(["automation", "--version"]), 0);
        assert_eq!(run(["automation", "--attach", "--list"]), 2);
        assert_eq!(run(["automation", "eval", "1 < 2"]), 0);
        assert_eq!(run(["automation", "eval", "1 <"]), 1);
    }
}
