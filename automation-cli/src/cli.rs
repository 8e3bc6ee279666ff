//! The command line: one mutually exclusive group of modes, and the verbs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use automation_session::mode::{DisplayKind, Mode};

use crate::error::CliError;

/// Drive desktop apps through their accessibility tree: an MCP server over stdio (the default),
/// one-shot verbs for scripts, and a runner for any test command's events.
#[derive(Debug, Parser)]
#[command(
    name = "automation",
    version,
    about,
    long_about = None,
    after_help = "With no verb, `automation` is an MCP server on stdio (headless demo unless a mode says otherwise).\n\
Exit codes: 0 ok, 1 a mode or op that failed, 2 a usage error.\n\
Token for --connect: --token, else $AUTOMATION_TOKEN."
)]
pub struct Cli {
    /// Which app to drive, and the flags that go with the mode.
    #[command(flatten)]
    pub target: TargetArgs,

    /// MCP tool sets to list besides `core`: comma-separated touch, toolkit, input, clock,
    /// or all [default: core only]. Every op stays callable either way.
    #[arg(long, value_name = "LIST", value_parser = crate::mcp::list::Caps::parse)]
    pub caps: Option<crate::mcp::list::Caps>,

    /// The MCP server's directory for `assert_screenshot` baselines (and for inline
    /// `execute_sequence` flows) [default: ./snapshots].
    #[arg(long, value_name = "DIR")]
    pub snapshots: Option<PathBuf>,

    /// `assert_screenshot` makes a differing capture the new baseline (also
    /// AUTOMATION_UPDATE_SNAPSHOTS=1).
    #[arg(long)]
    pub update_snapshots: bool,

    /// What to do (none: serve MCP on stdio).
    #[command(subcommand)]
    pub verb: Option<Verb>,
}

/// Which app to drive: the mode group and the flags that go with a mode (`--token`, `--wait`,
/// `--virtual-display`). The same set is taken before the verb and by every verb that drives
/// an app (`op`, `run`), so each flag may be given on either side; [`resolve_target`] merges
/// the two.
#[derive(Debug, Clone, Default, Args)]
pub struct TargetArgs {
    /// Which app to drive.
    #[command(flatten)]
    pub mode: ModeArgs,
    /// Token for `--connect`.
    #[command(flatten)]
    pub token: TokenArg,
    /// How long to wait for a busy app.
    #[command(flatten)]
    pub wait: WaitArg,
    /// A private display for `--launch`.
    #[cfg(feature = "atspi")]
    #[command(flatten)]
    pub display: VirtualDisplayArg,
}

impl TargetArgs {
    /// Whether `--virtual-display` was given.
    pub fn virtual_display(&self) -> bool {
        self.display_kind().is_some()
    }

    /// `--virtual-display[=KIND]`: the kind of private display asked for, when one was.
    #[cfg(feature = "atspi")]
    pub fn display_kind(&self) -> Option<DisplayKind> {
        self.display
            .virtual_display
            .map(|kind| kind.unwrap_or_default())
    }

    /// Never, without the `atspi` feature.
    #[cfg(not(feature = "atspi"))]
    pub fn display_kind(&self) -> Option<DisplayKind> {
        None
    }
}

/// The app a command line names, from the flags before the verb (`top`) and after it (`verb`,
/// with the verb's name): the mode given once on either side (`None` when neither gives one),
/// `--token`, `--wait` and `--virtual-display` from either side (after the verb wins).
pub fn resolve_target(
    top: &TargetArgs,
    verb: Option<(&str, &TargetArgs)>,
) -> Result<(Option<Mode>, Option<std::time::Duration>), CliError> {
    let none = TargetArgs::default();
    let (name, after) = verb.unwrap_or(("", &none));
    let token = TokenArg {
        token: after
            .token
            .token
            .clone()
            .or_else(|| top.token.token.clone()),
    };
    let mode = match (top.mode.mode(&token), after.mode.mode(&token)) {
        (Some(_), Some(_)) => {
            return Err(CliError::ModeTwice { verb: name.into() });
        }
        (a, b) => a.or(b),
    };
    if token.token.is_some() && !matches!(mode, Some(Mode::Connect { .. })) {
        return Err(CliError::TokenWithoutConnect);
    }
    let display = after.display_kind().or(top.display_kind());
    let mode = match mode {
        Some(m) => Some(with_virtual_display(m, display)?),
        None if display.is_some() => return Err(CliError::VirtualDisplayWithoutLaunch),
        None => None,
    };
    Ok((mode, after.wait.wait.or(top.wait.wait)))
}

/// The modes, declared as one group: at most one may be given.
#[derive(Debug, Clone, Default, Args)]
#[group(id = "mode", multiple = false)]
pub struct ModeArgs {
    /// Drive the built-in headless demo (the default when no mode is given).
    #[arg(long)]
    pub headless: bool,

    /// Attach to the newest live app that installed the automation bridge.
    #[arg(long)]
    pub attach: bool,

    /// Attach to the app with this process id.
    #[arg(long, value_name = "PID")]
    pub attach_pid: Option<u32>,

    /// Connect to an explicit bridge endpoint (socket path or pipe name).
    #[arg(long, value_name = "ENDPOINT")]
    pub connect: Option<String>,

    /// List the live apps (pruning only dead descriptors) and exit.
    #[arg(long)]
    pub list: bool,

    /// Start this app (a shell command line), wait until it is on the accessibility bus with
    /// a window, drive it over AT-SPI, and end it on exit.
    #[cfg(feature = "atspi")]
    #[arg(long, value_name = "COMMAND")]
    pub launch: Option<String>,

    /// Drive a running app over AT-SPI: its accessible name (zenity, gnome-calculator) or pid.
    #[cfg(feature = "atspi")]
    #[arg(long, value_name = "NAME|PID")]
    pub atspi: Option<String>,
}

/// `--virtual-display` (outside the mode group: it goes with `--launch`).
#[cfg(feature = "atspi")]
#[derive(Debug, Clone, Default, Args)]
pub struct VirtualDisplayArg {
    /// With --launch: run the app on a private display with its own session and
    /// accessibility buses, all torn down on exit (for machines without a display, like CI).
    /// KIND: x11 (Xvfb), wayland (a headless GNOME compositor), gnome-shell (a headless
    /// GNOME Shell) or sway (a headless sway)
    /// [default: the kind $AUTOMATION_VIRTUAL_DISPLAY names, else x11].
    #[arg(long, value_name = "KIND", num_args = 0..=1, require_equals = true)]
    pub virtual_display: Option<Option<DisplayKind>>,
}

/// The token for `--connect` (outside the mode group: it goes with `--connect`).
#[derive(Debug, Clone, Default, Args)]
pub struct TokenArg {
    /// Token for --connect [default: $AUTOMATION_TOKEN].
    #[arg(long, value_name = "T")]
    pub token: Option<String>,
}

/// How long to wait while another client is attached to the app (outside the mode group: it
/// goes with `--attach`, `--attach-pid` and `--connect`).
#[derive(Debug, Clone, Default, Args)]
pub struct WaitArg {
    /// While another client is attached to the app, wait up to SECS for it to detach
    /// [default: fail at once]. Applies to --attach, --attach-pid and --connect.
    #[arg(long, value_name = "SECS", value_parser = parse_wait)]
    pub wait: Option<std::time::Duration>,
}

/// `--wait SECS`: a non-negative number of seconds, at most a day.
pub fn parse_wait(s: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("--wait takes a number of seconds (like 10 or 0.5), got {s:?}"))?;
    if !secs.is_finite() || !(0.0..=86_400.0).contains(&secs) {
        return Err(format!(
            "--wait takes 0 to 86400 seconds, got {s:?}; pass e.g. --wait 10"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

impl ModeArgs {
    /// The mode these flags name, or `None` when no mode flag was given.
    pub fn mode(&self, token: &TokenArg) -> Option<Mode> {
        if self.headless {
            Some(Mode::Headless)
        } else if self.attach {
            Some(Mode::Attach)
        } else if let Some(pid) = self.attach_pid {
            Some(Mode::AttachPid(pid))
        } else if let Some(endpoint) = &self.connect {
            Some(Mode::Connect {
                endpoint: endpoint.clone(),
                token: token.token.clone(),
            })
        } else if self.list {
            Some(Mode::List)
        } else {
            self.atspi_mode()
        }
    }

    #[cfg(feature = "atspi")]
    fn atspi_mode(&self) -> Option<Mode> {
        if let Some(command) = &self.launch {
            Some(Mode::Launch {
                command: command.clone(),
                virtual_display: false,
                display: DisplayKind::default(),
            })
        } else {
            self.atspi.clone().map(Mode::Atspi)
        }
    }

    #[cfg(not(feature = "atspi"))]
    fn atspi_mode(&self) -> Option<Mode> {
        None
    }
}

/// `--virtual-display[=KIND]` applied to a mode: only `--launch` takes it.
fn with_virtual_display(mode: Mode, display: Option<DisplayKind>) -> Result<Mode, CliError> {
    match (mode, display) {
        (Mode::Launch { command, .. }, display) => Ok(Mode::Launch {
            command,
            virtual_display: display.is_some(),
            display: display.unwrap_or_default(),
        }),
        (other, None) => Ok(other),
        _ => Err(CliError::VirtualDisplayWithoutLaunch),
    }
}

/// The sessions of an HTTP server (`webdriver`, `serve --http`).
#[derive(Debug, Clone, Args)]
pub struct ReachArgs {
    /// The address to listen on [default: 127.0.0.1]. Beyond loopback the server needs
    /// --auth-token and --allow-app, or it refuses to start. `serve --http ADDR` takes it
    /// from ADDR; a different --host beside it is refused.
    #[arg(long, value_name = "IP")]
    pub host: Option<std::net::IpAddr>,
    /// Sessions at once; a new session beyond them is refused (`GET /status` says
    /// `ready: false`).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub max_sessions: u16,
    /// End a session unused for this many seconds, and everything it started.
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub idle_timeout: u64,
    /// A bearer token every request must carry (`Authorization: Bearer T`, or T as the
    /// basic-auth password) [default: $AUTOMATION_AUTH_TOKEN].
    #[arg(long, value_name = "T")]
    pub auth_token: Option<String>,
    /// A glob of the command lines a session may launch (repeatable); required beyond
    /// loopback.
    #[arg(long, value_name = "GLOB")]
    pub allow_app: Vec<String>,
    /// A web origin whose pages may call the server (repeatable), as a browser sends it:
    /// `http://localhost:3000`. Requests from any other page are refused (403); clients
    /// that are not browsers send no origin and are not affected.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
}

impl ReachArgs {
    /// The address to listen on: `--host`, else loopback.
    pub fn host(&self) -> std::net::IpAddr {
        self.host
            .unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))
    }

    /// The token (the flag, or `$AUTOMATION_AUTH_TOKEN`), the apps and the origins.
    pub fn access(&self) -> automation_http::reach::http::Access {
        automation_http::reach::http::Access {
            token: self
                .auth_token
                .clone()
                .or_else(|| std::env::var("AUTOMATION_AUTH_TOKEN").ok()),
            allow_app: self.allow_app.clone(),
            allow_origin: self.allow_origin.clone(),
        }
    }
}

/// How `audit` prints its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuditFormat {
    /// Lines for a terminal.
    Text,
    /// The whole report as JSON.
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// JUnit: one case per rule, failing with its findings.
    Junit,
}

/// `automation run`'s arguments (a struct of their own: the dispatch makes the runner's
/// options of them in one place).
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Which app (the same modes as the server, before or after `run`; default headless:
    /// each flow gets a fresh demo).
    #[command(flatten)]
    pub target: TargetArgs,
    /// Write JUnit XML here (one testsuite per flow, one testcase per step; the
    /// directory is made if missing).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write per-step records under DIR [default: the user's data dir,
    /// automation/executions; AUTOMATION_RECORDS=off turns the default off, not this flag].
    #[arg(long, value_name = "DIR")]
    pub records: Option<PathBuf>,
    /// Write an HTML report of the run here (`DIR/index.html`, screenshots in `DIR/img`;
    /// opens from file://, or with `automation show-report DIR`). Each action is
    /// captured with its node outlined, and a failure with the app's tree.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Run one shard, as cargo-nextest: slice:M/N or hash:M/N.
    #[arg(long, value_name = "KIND:M/N")]
    pub partition: Option<automation_runner::partition::Partition>,
    /// Flows at once, each on its own headless target.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
    /// Each flow's time limit in seconds [default: 600]; a flow still running then is
    /// stopped and fails with RUN_TIMEOUT.
    #[arg(long, value_name = "SECONDS", value_parser = parse_run_timeout)]
    pub timeout: Option<std::time::Duration>,
    /// `assert_screenshot` makes a differing capture the new baseline in the flow's
    /// `<file>-snapshots/` directory (also AUTOMATION_UPDATE_SNAPSHOTS=1).
    #[arg(long)]
    pub update_snapshots: bool,
    /// The flows' inputs: a JSON object, or @FILE holding one. Steps flows get them over
    /// their declared defaults; scripts read them from $AUTOMATION_INPUTS.
    #[arg(long, value_name = "JSON|@FILE", value_parser = automation_runner::flow::parse_inputs_arg)]
    pub inputs: Option<serde_json::Map<String, serde_json::Value>>,
    /// Flow files or directories of them.
    #[arg(value_name = "FLOW", required = true)]
    pub flows: Vec<PathBuf>,
}

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Verb {
    /// Run one op and print the reply envelope as JSON (exit 0 ok, 1 error).
    ///
    /// The op is a name (`snapshot_tree`), a name and its arguments
    /// (`find_node '{"role": "Button", "label": "Save"}'`), the op as JSON
    /// (`{"find_node": {…}}`), or a whole request `{"op": …, "settle"?: …}`.
    Op {
        /// Which app (the same modes as the server, before or after `op`; default headless).
        #[command(flatten)]
        target: TargetArgs,
        /// The op's name, or the op or request as JSON.
        #[arg(value_name = "OP")]
        op: String,
        /// The op's arguments as a JSON object (with a bare op name).
        #[arg(value_name = "ARGS_JSON")]
        args: Option<String>,
        /// `screenshot` only: write the PNG to this new file; the reply gives `path` and
        /// `bytes` instead of the base64 pixels.
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
        /// With --out: replace an existing regular file.
        #[arg(long, requires = "out")]
        overwrite: bool,
    },
    /// Audit the app's accessibility: what a screen-reader or keyboard user cannot do there.
    ///
    /// Reads the whole tree, runs the rules (docs/audit.md) and walks the app with real Tab
    /// presses. Exit 0 when no finding is left outside the baseline, 1 when one is, 2 on
    /// usage. Needs-review items never fail the audit.
    Audit {
        /// Which app (the same modes as the server, before or after `audit`).
        #[command(flatten)]
        target: TargetArgs,
        /// text (for a terminal), json (the whole report), sarif (SARIF 2.1.0) or junit (a case
        /// per rule).
        #[arg(long, value_enum, default_value_t = AuditFormat::Text)]
        format: AuditFormat,
        /// Write the report to this file instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
        /// Run only these rules (ids, comma-separated).
        #[arg(long, value_name = "IDS", value_delimiter = ',')]
        rules: Option<Vec<String>>,
        /// Accepted findings (a file `--write-baseline` wrote): matched by rule and selector.
        #[arg(long, value_name = "FILE")]
        baseline: Option<std::path::PathBuf>,
        /// Write every finding of this run to FILE as a baseline that accepts them.
        #[arg(long, value_name = "FILE")]
        write_baseline: Option<std::path::PathBuf>,
        /// Skip the Tab walk and the keyboard rules (it presses keys in the app).
        #[arg(long)]
        no_keyboard: bool,
    },
    /// Print the op catalog as JSON: every op, whatever its cap, with the input schema the
    /// MCP server sends.
    Tools {
        /// Add each op's own argument schema with every subschema spelled out (`args_schema`).
        #[arg(long)]
        full: bool,
    },
    /// Evaluate a condition expression: prints `true`/`false`, or the parse error as JSON (exit 1).
    Eval {
        /// The expression, e.g. `runtime.attempts < 3 && contains(env.locale, 'en')`.
        #[arg(value_name = "EXPR")]
        expr: String,
        /// Variables as a JSON object.
        #[arg(long, value_name = "JSON")]
        vars: Option<String>,
        /// A variable path absent from --vars is an error (JSON on stdout, exit 1), not a
        /// warning on stderr.
        #[arg(long)]
        strict: bool,
    },
    /// Write a run's records (`run --records`, `execute_sequence`) as a test: steps become a
    /// TypeScript script, a script's calls become steps; nodes by durable selectors.
    Export {
        /// The records of one run: its directory, or the records root `automation run`
        /// prints when it holds that one run.
        #[arg(long, value_name = "DIR")]
        records: PathBuf,
        /// ts (a TypeScript script through the JS client), yaml or json (steps).
        #[arg(long, value_name = "FORMAT", default_value = "ts", value_parser = ["ts", "yaml", "json"])]
        format: String,
        /// The test's name (its header).
        #[arg(long, default_value = "exported run")]
        name: String,
        /// Write the test to this new file instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
        /// With --out: replace an existing regular file.
        #[arg(long, requires = "out")]
        overwrite: bool,
    },
    /// Transpile a TypeScript script to JavaScript (or, with --detect, say which it is).
    Transpile {
        /// The script.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Only print `typescript` or `javascript`.
        #[arg(long)]
        detect: bool,
    },
    /// Run flows (TypeScript/JavaScript scripts, JSON/YAML steps) against the app with live
    /// progress; write JUnit and per-step records; exit 0 when every flow passed, else 1.
    Run(RunArgs),
    /// Open a live inspector of the app in the browser: its tree, its screenshot with the
    /// selected node outlined, the node's record and durable selector, a test's call for it.
    /// Loopback only; prints the URL (with its token) and serves until stopped.
    Inspect {
        /// Which app (the same modes as the server, before or after `inspect`; default
        /// headless).
        #[command(flatten)]
        target: TargetArgs,
        /// The port on 127.0.0.1 [default: a free one].
        #[arg(long, value_name = "PORT", default_value_t = 0)]
        port: u16,
    },
    /// Serve W3C WebDriver (with Appium's conventions) for Selenium and Appium clients,
    /// WebdriverIO and Selenium Grid: each session launches or attaches its own app
    /// (`appium:app` is a command line). Prints the URL; serves until stopped.
    Webdriver {
        /// The port (4723 is Appium's).
        #[arg(long, value_name = "PORT", default_value_t = 4723)]
        port: u16,
        /// Where and how many.
        #[command(flatten)]
        reach: ReachArgs,
    },
    /// Serve MCP: over stdio (as with no verb), or with --http over streamable HTTP, where
    /// each MCP session gets its own app (a `--launch` app per session).
    Serve {
        /// Which app each session drives (the same modes as the server).
        #[command(flatten)]
        target: TargetArgs,
        /// Serve MCP over streamable HTTP at ADDR (`127.0.0.1:8931`; port 0 picks a free
        /// one) on the path /mcp, instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// MCP tool sets to list besides `core` (as `automation --caps LIST serve`).
        #[arg(long, value_name = "LIST", value_parser = crate::mcp::list::Caps::parse)]
        caps: Option<crate::mcp::list::Caps>,
        /// Where and how many (with --http).
        #[command(flatten)]
        reach: ReachArgs,
    },
    /// Serve a report written by `run --report DIR` on loopback and print its URL (the report
    /// also opens from file:// without it).
    ShowReport {
        /// The report's directory.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// The port on 127.0.0.1 [default: a free one].
        #[arg(long, value_name = "PORT", default_value_t = 0)]
        port: u16,
    },
    /// Run a test command with the event pipe in its environment; show its events live,
    /// write JUnit, exit with its code.
    Exec {
        /// Write JUnit XML here (one testcase per step id; the directory is made if
        /// missing).
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// The command and its arguments (after `--`).
        #[arg(value_name = "CMD", required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
}

/// `--timeout SECONDS`: a number above 0, at most a day.
fn parse_run_timeout(v: &str) -> Result<std::time::Duration, String> {
    automation_runner::budget::parse_timeout("--timeout", v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The ids of every flag [`TargetArgs`] declares (the modes and what goes with them).
    fn target_flag_ids() -> Vec<String> {
        TargetArgs::augment_args(clap::Command::new("t"))
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .collect()
    }

    /// Each mode flag with a value, as a user would type it.
    fn mode_lines() -> Vec<Vec<&'static str>> {
        let mut lines = vec![
            vec!["--headless"],
            vec!["--attach"],
            vec!["--attach", "--wait", "3"],
            vec!["--attach-pid", "7"],
            vec!["--connect", "/tmp/x.sock"],
            vec!["--connect", "/tmp/x.sock", "--token", "t", "--wait", "0.5"],
            vec!["--list"],
        ];
        if cfg!(feature = "atspi") {
            lines.push(vec!["--launch", "zenity --info"]);
            lines.push(vec!["--launch", "zenity --info", "--virtual-display"]);
            lines.push(vec!["--atspi", "gnome-calculator"]);
        }
        lines
    }

    /// What the line resolves to, or the sentence printed (clap's, or the mode's).
    fn resolved(args: &[&str]) -> Result<(Option<Mode>, Option<std::time::Duration>), String> {
        let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
        let resolved = match &cli.verb {
            Some(Verb::Op { target, .. }) => resolve_target(&cli.target, Some(("op", target))),
            Some(Verb::Audit { target, .. }) => {
                resolve_target(&cli.target, Some(("audit", target)))
            }
            Some(Verb::Run(run)) => resolve_target(&cli.target, Some(("run", &run.target))),
            Some(Verb::Inspect { target, .. }) => {
                resolve_target(&cli.target, Some(("inspect", target)))
            }
            Some(Verb::Serve { target, .. }) => {
                resolve_target(&cli.target, Some(("serve", target)))
            }
            _ => return Err("not a verb that drives an app".into()),
        };
        resolved.map_err(|e| e.to_string())
    }

    #[test]
    fn every_verb_that_drives_an_app_takes_every_mode_flag() {
        let ids = target_flag_ids();
        for id in [
            "headless",
            "attach",
            "attach_pid",
            "connect",
            "list",
            "token",
            "wait",
        ] {
            assert!(ids.iter().any(|i| i == id), "{id} in {ids:?}");
        }
        if cfg!(feature = "atspi") {
            for id in ["launch", "atspi", "virtual_display"] {
                assert!(ids.iter().any(|i| i == id), "{id} in {ids:?}");
            }
        }
        let cmd = Cli::command();
        let has = |c: &clap::Command, id: &str| c.get_arguments().any(|a| a.get_id() == id);
        for id in &ids {
            assert!(has(&cmd, id), "before the verb: --{id}");
        }
        let mut driving = Vec::new();
        for sub in cmd.get_subcommands() {
            // A verb that takes any of them takes all of them.
            if ids.iter().any(|id| has(sub, id)) {
                for id in &ids {
                    assert!(has(sub, id), "`{}` takes --{id}", sub.get_name());
                }
                driving.push(sub.get_name().to_string());
            }
        }
        assert_eq!(driving, ["op", "audit", "run", "inspect", "serve"]);
    }

    #[cfg(feature = "atspi")]
    #[test]
    fn virtual_display_takes_a_kind_after_an_equals_sign() {
        let launch = |display| {
            Ok((
                Some(Mode::Launch {
                    command: "zenity".into(),
                    virtual_display: true,
                    display,
                }),
                None,
            ))
        };
        for (flag, kind) in [
            ("--virtual-display=wayland", DisplayKind::Wayland),
            ("--virtual-display=sway", DisplayKind::Sway),
            ("--virtual-display=gnome-shell", DisplayKind::GnomeShell),
            ("--virtual-display=x11", DisplayKind::X11),
            ("--virtual-display", DisplayKind::FromEnvironment),
        ] {
            let line = [
                "automation",
                "--launch",
                "zenity",
                flag,
                "op",
                "snapshot_tree",
            ];
            assert_eq!(resolved(&line), launch(kind), "{line:?}");
            // After the verb, the verb's flag wins.
            let line = [
                "automation",
                "--virtual-display=x11",
                "op",
                "--launch",
                "zenity",
                flag,
                "snapshot_tree",
            ];
            assert_eq!(resolved(&line), launch(kind), "{line:?}");
        }
        // An unknown kind names the known ones; without `=`, the word is no kind (it is read
        // as the verb).
        let bad = resolved(&[
            "automation",
            "--launch",
            "zenity",
            "--virtual-display=wl",
            "op",
        ]);
        assert!(
            bad.as_ref()
                .is_err_and(|e| e.contains("x11") && e.contains("wayland")),
            "{bad:?}"
        );
        let spaced = resolved(&[
            "automation",
            "--launch",
            "zenity",
            "--virtual-display",
            "wayland",
            "op",
        ]);
        assert!(spaced.is_err(), "{spaced:?}");
        // Without --launch, still refused.
        let alone = resolved(&[
            "automation",
            "--virtual-display=wayland",
            "op",
            "snapshot_tree",
        ]);
        assert_eq!(alone, Err("--virtual-display goes with --launch".into()));
    }

    #[test]
    fn run_virtual_display_parses_on_either_side_of_the_verb() {
        // The new user's line, and every mode line, before and after each verb: the same app.
        for (verb, rest) in [
            ("op", vec!["snapshot_tree"]),
            ("run", vec!["flows/"]),
            ("inspect", vec![]),
            ("serve", vec!["--http", "127.0.0.1:0"]),
        ] {
            for line in mode_lines() {
                let mut before = vec!["automation"];
                before.extend(&line);
                before.push(verb);
                before.extend(&rest);
                let mut after = vec!["automation", verb];
                after.extend(&line);
                after.extend(&rest);
                let (b, a) = (resolved(&before), resolved(&after));
                assert!(b.is_ok(), "{before:?}: {b:?}");
                assert_eq!(b, a, "{before:?} vs {after:?}");
            }
        }
        // The flags that go with a mode may also sit on the other side of it.
        if cfg!(feature = "atspi") {
            let split = resolved(&[
                "automation",
                "--virtual-display",
                "run",
                "--launch",
                "zenity",
                "flows/",
            ]);
            assert_eq!(
                split,
                Ok((
                    Some(Mode::Launch {
                        command: "zenity".into(),
                        virtual_display: true,
                        display: DisplayKind::FromEnvironment,
                    }),
                    None
                ))
            );
        }
        let token = resolved(&[
            "automation",
            "--token",
            "t",
            "op",
            "--connect",
            "e",
            "snapshot_tree",
        ]);
        assert_eq!(
            token,
            Ok((
                Some(Mode::Connect {
                    endpoint: "e".into(),
                    token: Some("t".into())
                }),
                None
            ))
        );
    }

    #[test]
    fn a_mode_twice_or_a_companion_without_its_mode_is_refused() {
        let twice = resolved(&["automation", "--attach", "run", "--headless", "f"]);
        assert!(twice.is_err_and(|e| e.contains("mode once")));
        let token = resolved(&["automation", "run", "--token", "t", "f"]);
        assert!(token.is_err_and(|e| e.contains("--connect")));
        if cfg!(feature = "atspi") {
            let display = resolved(&["automation", "run", "--virtual-display", "f"]);
            assert!(display.is_err_and(|e| e.contains("--launch")));
        }
    }
}
