//! Every shell, Python, TypeScript, JavaScript and YAML block of `README.md` and `docs/` runs
//! here, against what it names, with the real binary on `PATH` — or is marked an illustration,
//! with the reason, and listed. A block's marker is the HTML comment on the line before it (see
//! [`Marker`]); a block without one fails this test. Where a block shows what a command prints
//! (`$ cmd` then its output, `cmd` then `# output` lines, or the ```` ```text ```` block after it
//! with `output=next`), the real output must match it, `…` standing for any text. A command
//! that starts `cargo run --release -p automation-cli --` runs the binary this test built.
//! `DOCS_BLOCK=README` (any part of `page:line`) runs only the blocks it names.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LANGS: &[&str] = &["sh", "python", "ts", "js", "yaml"];
const TIMEOUT: Duration = Duration::from_secs(120);

/// What the comment before a block says: `<!-- example: MODE key=value … -->`, optionally
/// followed, inside the comment, by `setup: COMMAND` lines run (in the block's directory)
/// before it (`&` at the end: in the background), and a `ready: COMMAND` retried until it
/// succeeds (an app started in the background is up).
///
/// Modes: `run` (each command must exit 0, or `exit=N` for the last one), `server` (each
/// command must print the line shown under it, then is stopped), `illustration REASON` (not
/// run; the reason is listed); a server command with no line under it must still be up after
/// 3 s. Keys: `with=` how a non-shell block runs (`run`: `automation
/// run FILE`; `exec`: under `automation exec`; `webdriver`: beside a live `automation
/// webdriver`, its address put in place of `127.0.0.1:4723`), `files=` what is copied into the
/// block's directory, comma-separated (`NAME`: `tests/fixtures/docs/NAME`'s files;
/// `PATH:TO`: the repository's `PATH`, as `TO`), `output=next` (the next ```` ```text ```` block is the output of the
/// last command), `cwd=repo` (run in the repository, for blocks naming its paths), `needs=` the
/// components the block needs (as `AUTOMATION_ALLOW_MISSING` names them), `prelude=FILE` (a
/// fragment of a script runs in `tests/fixtures/docs/preludes/FILE`, in place of its
/// `/* the block */`: the file gives it `app` and the names it uses, and closes the app).
#[derive(Debug, Default, Clone)]
struct Marker {
    mode: String,
    reason: String,
    with: String,
    files: Vec<String>,
    setup: Vec<String>,
    ready: Option<String>,
    exit: i32,
    output_next: bool,
    in_repo: bool,
    needs: Vec<String>,
    prelude: Option<String>,
}

#[derive(Debug)]
struct Block {
    at: String,
    lang: String,
    text: String,
    marker: Option<Marker>,
    next_text: Option<String>,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// README.md, docs/, and each crate's README (its documentation) and the JS client's.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(repo())
        .unwrap()
        .map(|e| e.unwrap().path().join("README.md"))
        .filter(|p| p.is_file())
        .collect();
    crates.push(repo().join("clients/js/README.md"));
    crates.sort();
    pages.extend(crates);
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn parse_marker(comment: &str) -> Option<Marker> {
    let mut lines = comment.lines();
    let head = lines.next()?.trim().strip_prefix("example:")?.trim();
    let mut m = Marker::default();
    let (mode, rest) = head.split_once(' ').unwrap_or((head, ""));
    m.mode = mode.to_string();
    if mode == "illustration" {
        m.reason = rest
            .trim()
            .trim_start_matches(['—', '-', ':'])
            .trim()
            .to_string();
    } else {
        for kv in rest.split_whitespace() {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            match k {
                "with" => m.with = v.to_string(),
                "files" => m.files = v.split(',').map(str::to_string).collect(),
                "exit" => m.exit = v.parse().unwrap(),
                "output" if v == "next" => m.output_next = true,
                "cwd" if v == "repo" => m.in_repo = true,
                "needs" => m.needs = v.split(',').map(str::to_string).collect(),
                "prelude" => m.prelude = Some(v.to_string()),
                other => panic!("unknown marker key {other:?} in {comment:?}"),
            }
        }
    }
    m.setup = lines
        .filter_map(|l| l.trim().strip_prefix("setup:"))
        .map(|s| s.trim().to_string())
        .collect();
    m.ready = comment
        .lines()
        .find_map(|l| l.trim().strip_prefix("ready:"))
        .map(|s| s.trim().to_string());
    Some(m)
}

/// The fenced blocks of a page, each with the marker comment that ends right before it.
fn blocks(page: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(page).unwrap();
    let name = page
        .strip_prefix(repo())
        .unwrap_or(page)
        .display()
        .to_string();
    let name = name.trim_start_matches("../").to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Block> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let lang = info.split([' ', ',']).next().unwrap_or("").to_string();
        let start = i;
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && !lines[i].starts_with("```") {
            body.push(lines[i]);
            i += 1;
        }
        i += 1;
        // The marker: an HTML comment whose last line is the line before the fence.
        let marker = (start > 0 && lines[start - 1].trim_end().ends_with("-->"))
            .then(|| {
                let mut j = start - 1;
                while j > 0 && !lines[j].contains("<!--") {
                    j -= 1;
                }
                let comment = lines[j..start].join("\n");
                let inner = comment
                    .split("<!--")
                    .nth(1)?
                    .split("-->")
                    .next()?
                    .to_string();
                parse_marker(&inner)
            })
            .flatten();
        let text = body.join("\n");
        if lang == "text"
            && let Some(prev) = out.last_mut()
            && prev.next_text.is_none()
        {
            prev.next_text = Some(text.clone());
        }
        out.push(Block {
            at: format!("{name}:{}", start + 1),
            lang,
            text,
            marker,
            next_text: None,
        });
    }
    out
}

/// A shell block's commands, each with the output shown for it (if any).
fn commands(text: &str) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let prompted = text.lines().any(|l| l.starts_with("$ "));
    let mut pending = String::new();
    let mut after_command = false;
    for line in text.lines() {
        if prompted {
            if let Some(cmd) = line.strip_prefix("$ ") {
                out.push((cmd.to_string(), None));
            } else if let Some((_, shown)) = out.last_mut() {
                let s = shown.get_or_insert_with(String::new);
                if !s.is_empty() {
                    s.push('\n');
                }
                s.push_str(line);
            }
            continue;
        }
        if !pending.is_empty() {
            pending.push('\n');
            pending.push_str(line);
            if !line.ends_with('\\') {
                out.push((std::mem::take(&mut pending), None));
                after_command = true;
            }
            continue;
        }
        if line.trim().is_empty() {
            after_command = false;
        } else if let Some(shown) = line.strip_prefix("# ").or(line.strip_prefix("#")) {
            // A comment right under a command is what it prints; elsewhere it is prose.
            if after_command && let Some((_, s)) = out.last_mut() {
                let s = s.get_or_insert_with(String::new);
                if !s.is_empty() {
                    s.push('\n');
                }
                s.push_str(shown);
            }
        } else if line.ends_with('\\') {
            pending = line.to_string();
        } else {
            out.push((line.to_string(), None));
            after_command = true;
        }
    }
    out
}

/// Whether `actual` is what `shown` shows: `…` stands for any text (lines included), runs of
/// spaces are one, and trailing spaces do not count.
fn shows(shown: &str, actual: &str) -> bool {
    let norm = |s: &str| {
        s.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string()
    };
    let pattern = norm(shown)
        .split('…')
        .map(regex_lite::escape)
        .collect::<Vec<_>>()
        .join("[\\s\\S]*?");
    regex_lite::Regex::new(&format!("^{pattern}$"))
        .unwrap()
        .is_match(&norm(actual))
}

struct Sandbox {
    dir: tempfile::TempDir,
    bin: PathBuf,
    children: Vec<Child>,
    /// A block that drives desktop apps gets an X server and a session bus of its own, so
    /// the accessibility bus it starts (whose socket is named by the display number) is its
    /// own, and no other test's can replace or remove it.
    desktop: Option<(automation_testkit::xvfb::Killed, String, Bus)>,
}

/// A private session bus: its address, and the daemon ended on drop.
struct Bus {
    address: String,
    pid: i32,
}

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-s", "TERM", "--", &self.pid.to_string()])
            .status();
    }
}

/// The daemon gets the sandbox's display and runtime directory: a service it activates (the
/// accessibility bus launcher) names its socket after `DISPLAY` under `XDG_RUNTIME_DIR`, and
/// with the suite's own it would replace the suite's accessibility bus, and remove it on exit.
fn session_bus(display: &str, runtime: &Path) -> Bus {
    let out = Command::new("dbus-daemon")
        .args(["--session", "--fork", "--print-address=1", "--print-pid=1"])
        .env("DISPLAY", display)
        .env("XDG_RUNTIME_DIR", runtime)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let address = lines.next().unwrap_or_default().trim().to_string();
    let pid = lines.next().unwrap_or_default().trim().parse().unwrap();
    assert!(
        !address.is_empty(),
        "dbus-daemon printed no address: {text}"
    );
    Bus { address, pid }
}

impl Sandbox {
    fn new(marker: &Marker) -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join(".bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(crate::support::AUTOMATION, bin.join("automation")).unwrap();
        for files in &marker.files {
            // `NAME`: tests/fixtures/docs/NAME's files; `PATH:TO`: the repo's PATH as TO.
            let (from, to) = match files.split_once(':') {
                Some((path, to)) => (repo().join(path), dir.path().join(to)),
                None => (
                    repo()
                        .join("automation-cli/tests/fixtures/docs")
                        .join(files),
                    dir.path().to_path_buf(),
                ),
            };
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
            let status = Command::new("cp")
                .args(["-r", "-T"])
                .arg(&from)
                .arg(&to)
                .status()
                .unwrap();
            assert!(status.success(), "copy {from:?}");
        }
        let desktop = marker
            .needs
            .iter()
            .any(|n| n == "atspi-apps")
            .then(|| {
                let (xvfb, display) = automation_testkit::xvfb::start_xvfb()?;
                let runtime = dir.path().join(".run");
                std::fs::create_dir(&runtime).unwrap();
                std::fs::set_permissions(
                    &runtime,
                    std::os::unix::fs::PermissionsExt::from_mode(0o700),
                )
                .unwrap();
                let bus = session_bus(&display, &runtime);
                Some((xvfb, display, bus))
            })
            .flatten();
        Sandbox {
            dir,
            bin,
            children: Vec::new(),
            desktop,
        }
    }

    fn cwd(&self, marker: &Marker) -> PathBuf {
        if marker.in_repo {
            repo()
        } else {
            self.dir.path().to_path_buf()
        }
    }

    /// A shell command in the block's directory, its stdout and stderr into `tag`'s files.
    fn spawn(&mut self, marker: &Marker, tag: &str, command: &str) -> (usize, PathBuf, PathBuf) {
        use std::os::unix::process::CommandExt;
        let out = self.dir.path().join(format!(".{tag}.out"));
        let err = self.dir.path().join(format!(".{tag}.err"));
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = Command::new("bash");
        if let Some((_, display, bus)) = &self.desktop {
            let runtime = self.dir.path().join(".run");
            cmd.env("DISPLAY", display)
                .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
                .env("XDG_RUNTIME_DIR", runtime);
        }
        let child = cmd
            .args(["-c", command])
            .current_dir(self.cwd(marker))
            .env("PATH", path)
            .env("XDG_DATA_HOME", self.dir.path().join(".data"))
            .env("XDG_CONFIG_HOME", self.dir.path().join(".config"))
            // What a person's first try sees: no CI golden rules, no opt-outs of the suite.
            .env_remove("CI")
            .env_remove("AUTOMATION_RECORDS")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .process_group(0)
            .spawn()
            .unwrap();
        self.children.push(child);
        (self.children.len() - 1, out, err)
    }

    fn wait(&mut self, index: usize, within: Duration) -> Option<i32> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.children[index].try_wait().unwrap() {
                return Some(status.code().unwrap_or(-1));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = Command::new("kill")
                .args(["-s", "TERM", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
        }
        for child in &mut self.children {
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline && child.try_wait().ok().flatten().is_none() {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = child.wait();
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Runs one command to its end; the failure, if any, as a sentence.
fn run_command(
    sb: &mut Sandbox,
    marker: &Marker,
    tag: &str,
    command: &str,
    shown: Option<&str>,
    exit: i32,
) -> Result<(), String> {
    // The README's first command builds the binary; here it is the one this test built.
    let command = command.replace("cargo run --release -p automation-cli -- ", "automation ");
    let command = command.as_str();
    let (i, out, err) = sb.spawn(marker, tag, command);
    let code = sb.wait(i, TIMEOUT);
    let (stdout, stderr) = (read(&out), read(&err));
    let both = format!("{stdout}{stderr}");
    match code {
        None => {
            return Err(format!(
                "`{command}` did not end within {TIMEOUT:?}:\n{both}"
            ));
        }
        Some(c) if c != exit => {
            return Err(format!(
                "`{command}` exited {c}, not {exit}:\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
            ));
        }
        _ => {}
    }
    match shown {
        Some(shown) if !shows(shown, &both) => Err(format!(
            "`{command}` printed what the page does not show.\n--- the page\n{shown}\n--- the binary\n{both}"
        )),
        _ => Ok(()),
    }
}

/// Starts a server command and waits for the line the page shows under it.
fn run_server(
    sb: &mut Sandbox,
    marker: &Marker,
    tag: &str,
    command: &str,
    shown: Option<&str>,
) -> Result<String, String> {
    let (i, out, err) = sb.spawn(marker, tag, command);
    let Some(shown) = shown else {
        // Nothing shown under it: it must be up (not ended) after a few seconds.
        return match sb.wait(i, Duration::from_secs(3)) {
            None => Ok(String::new()),
            Some(code) => Err(format!(
                "`{command}` ended ({code}) instead of serving:\n{}{}",
                read(&out),
                read(&err)
            )),
        };
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let both = format!("{}{}", read(&out), read(&err));
        if let Some(line) = both.lines().find(|l| shows(shown, l)) {
            return Ok(line.to_string());
        }
        if let Some(code) = sb.children[i].try_wait().unwrap() {
            return Err(format!(
                "`{command}` ended ({code}) without printing `{shown}`:\n{both}"
            ));
        }
        if Instant::now() > deadline {
            return Err(format!(
                "`{command}` did not print `{shown}` in 60 s:\n{both}"
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// How a block's `ready:` command that never succeeded is told.
const NOT_READY: &str = "did not succeed within 60 s";

fn run_block(block: &Block, marker: &Marker) -> Result<(), String> {
    let mut sb = Sandbox::new(marker);
    for (n, setup) in marker.setup.iter().enumerate() {
        if let Some(background) = setup.strip_suffix('&') {
            sb.spawn(marker, &format!("setup{n}"), background.trim());
        } else {
            run_command(&mut sb, marker, &format!("setup{n}"), setup, None, 0)?;
        }
    }
    // What a person does next waits for the app to be up: the `ready:` command, retried.
    if let Some(ready) = &marker.ready {
        let deadline = Instant::now() + Duration::from_secs(60);
        while run_command(&mut sb, marker, "ready", ready, None, 0).is_err() {
            if Instant::now() > deadline {
                return Err(format!("`{ready}` {NOT_READY}"));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
    let file = |name: &str| {
        let path = sb.dir.path().join(name);
        std::fs::write(&path, &block.text).unwrap();
        path
    };
    match (block.lang.as_str(), marker.mode.as_str()) {
        ("python" | "js" | "sh", "run") if marker.with == "exec" => {
            let (name, runner) = match block.lang.as_str() {
                "python" => ("example.py", python()),
                "js" => ("example.js", "node".to_string()),
                _ => ("example.sh", "bash".to_string()),
            };
            let path = file(name);
            let cmd = format!(
                "automation exec --junit {}/junit.xml -- {runner} {}",
                sb.dir.path().display(),
                path.display()
            );
            run_command(&mut sb, marker, "exec", &cmd, None, marker.exit)
        }
        ("sh", "run") => {
            let cmds = commands(&block.text);
            let last = cmds.len().saturating_sub(1);
            for (n, (cmd, shown)) in cmds.iter().enumerate() {
                let shown = match (shown, n == last && marker.output_next) {
                    (_, true) => block.next_text.as_deref(),
                    (s, false) => s.as_deref(),
                };
                let exit = if n == last { marker.exit } else { 0 };
                run_command(&mut sb, marker, &format!("c{n}"), cmd, shown, exit)?;
            }
            Ok(())
        }
        ("sh", "server") => {
            for (n, (cmd, shown)) in commands(&block.text).iter().enumerate() {
                run_server(&mut sb, marker, &format!("s{n}"), cmd, shown.as_deref())?;
            }
            Ok(())
        }
        ("ts" | "js" | "yaml", "run") if marker.with == "run" => {
            let path = file(&format!("example.{}", block.lang));
            if let Some(prelude) = &marker.prelude {
                // A fragment of the API runs after the lines that give it its names.
                let before = std::fs::read_to_string(
                    repo()
                        .join("automation-cli/tests/fixtures/docs/preludes")
                        .join(prelude),
                )
                .unwrap();
                assert!(
                    before.contains("/* the block */"),
                    "{prelude}: no /* the block */"
                );
                std::fs::write(&path, before.replace("/* the block */", &block.text)).unwrap();
            }
            let cmd = format!("automation run {}", path.display());
            run_command(&mut sb, marker, "flow", &cmd, None, marker.exit)
        }
        ("python", "run") if marker.with == "webdriver" => {
            let line = run_server(
                &mut sb,
                marker,
                "webdriver",
                "automation webdriver --port 0",
                Some("automation webdriver: listening on http://…"),
            )?;
            let address = line.rsplit("http://").next().unwrap_or_default().trim();
            let text = block.text.replace("127.0.0.1:4723", address);
            let path = sb.dir.path().join("example.py");
            std::fs::write(&path, text).unwrap();
            let cmd = format!("{} {}", python(), path.display());
            run_command(&mut sb, marker, "python", &cmd, None, marker.exit)
        }
        (lang, mode) => Err(format!(
            "a {lang} block cannot be run as `{mode}` with `with={}`",
            marker.with
        )),
    }
}

fn python() -> String {
    std::env::var("AUTOMATION_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Whether each component a block needs is here (else, with the suite's opt-out, it is
/// skipped and listed, or the test fails naming it).
fn present(block: &Block, marker: &Marker) -> bool {
    marker.needs.iter().all(|need| {
        let (here, why) = match need.as_str() {
            "atspi-apps" => (
                ["zenity", "gtk3-widget-factory", "gnome-calculator"]
                    .iter()
                    .all(|a| automation_testkit::require::on_path(a)),
                "zenity, gtk3-widget-factory or gnome-calculator is not installed (scripts/test installs them)",
            ),
            "python-selenium" => (
                Command::new(python())
                    .args(["-c", "import selenium"])
                    .status()
                    .is_ok_and(|s| s.success()),
                "AUTOMATION_PYTHON has no selenium (scripts/test sets up the venv)",
            ),
            "node" => (
                automation_testkit::require::on_path("node"),
                "node is not on PATH",
            ),
            other => panic!("{}: unknown need {other:?}", block.at),
        };
        automation_testkit::require::require(need, here, &format!("{}: {why}", block.at))
    })
}

#[test]
fn every_example_block_runs_or_says_why_not() {
    // Blocks launch apps, displays and browsers.
    let _heavy = automation_testkit::heavy::heavy_shared();
    let all: Vec<Block> = pages().iter().flat_map(|p| blocks(p)).collect();
    let ours: Vec<&Block> = all
        .iter()
        .filter(|b| LANGS.contains(&b.lang.as_str()))
        .collect();
    let only = std::env::var("DOCS_BLOCK").ok();
    let unmarked: Vec<&str> = ours
        .iter()
        .filter(|b| b.marker.is_none())
        .filter(|b| only.as_ref().is_none_or(|o| b.at.contains(o.as_str())))
        .map(|b| b.at.as_str())
        .collect();
    assert!(
        unmarked.is_empty(),
        "blocks with no `<!-- example: run | server | illustration REASON -->` marker on the line before: {unmarked:?}"
    );
    let (mut ran, mut illustrations, mut failures) = (0, Vec::new(), Vec::new());
    for block in &ours {
        if only
            .as_ref()
            .is_some_and(|o| !block.at.contains(o.as_str()))
        {
            continue;
        }
        let marker = block.marker.as_ref().unwrap();
        if marker.mode == "illustration" {
            assert!(
                !marker.reason.is_empty(),
                "{}: an illustration says why",
                block.at
            );
            illustrations.push(format!("{}: {}", block.at, marker.reason));
            continue;
        }
        if !present(block, marker) {
            continue;
        }
        let t = Instant::now();
        // An app a block starts in the background that never comes up (a desktop app that
        // now and then never reaches its new accessibility bus) gets the whole block once
        // more in a new sandbox, as the matrix does: what is judged is the page, not the
        // app's start.
        let outcome = match run_block(block, marker) {
            Err(e) if e.contains(NOT_READY) => {
                eprintln!("note: {}: {e}; once more in a new sandbox", block.at);
                run_block(block, marker)
            }
            other => other,
        };
        match outcome {
            Ok(()) => {
                ran += 1;
                eprintln!("ran {} ({} ms)", block.at, t.elapsed().as_millis());
            }
            Err(e) => failures.push(format!("{}: {e}", block.at)),
        }
    }
    eprintln!(
        "{ran} blocks ran; {} are illustrations:\n  {}",
        illustrations.len(),
        illustrations.join("\n  ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn commands_and_shown_output_are_told_apart() {
    let cmds = commands("# prose\n\nautomation a \\\n  --b\n# shown\nautomation c   # why\n");
    assert_eq!(
        cmds,
        vec![
            (
                "automation a \\\n  --b".to_string(),
                Some("shown".to_string())
            ),
            ("automation c   # why".to_string(), None),
        ]
    );
    let cmds = commands("$ automation x\n{\n  \"a\": 1\n}");
    assert_eq!(cmds[0].1.as_deref(), Some("{\n  \"a\": 1\n}"));
    assert!(shows("took (… ms)\nok", "took (12 ms)\nok"));
    assert!(!shows("took (… ms)\nok", "took (12 ms)\nfailed"));
}
