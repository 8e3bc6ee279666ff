//! The oracle-judged conformance matrix (issue 22): the real `automation` binary, as an MCP
//! server attached over AT-SPI (`--atspi PID`), drives real apps — gtk3-widget-factory (its
//! three pages), gtk4-widget-factory, the Qt 5 calculator and widget gallery, zenity dialogs,
//! the stock eframe app (release), LibreOffice Calc and Writer, KDE's kcalc, mousepad, GNOME
//! Text Editor, a Swing form and a web page in
//! Firefox and in Chromium (`tests/fixtures/web/form.html`) — widget by widget and op by op; an
//! independent reader on the same bus (pyatspi, `tests/python/atspi_oracle.py`; for zenity the
//! dialog's exit status and output) reads each widget before and after. A reply that says ok
//! while nothing happened, or an error while the effect happened, is a lie; so is acting on a
//! widget a person cannot use; and a refusal of what a person does (a cell that expects the
//! effect) is a failure of its own.
//! Each test fails listing every one.
//!
//! The session is the test's own: `dbus-run-session`, Xvfb, the accessibility bus
//! (`tests/python/atspi_matrix.py`). Each app's cells go to
//! `<target dir>/atspi-matrix/APP.json`, and its table in `docs/atspi.md` is generated from
//! them: `UPDATE_DOCS=1 cargo test -p automation-cli --test atspi atspi_matrix:: -- --test-threads 1`
//! rewrites it; without it, a table that differs from the run fails the test.
//!
//! The Wayland columns (`*_on_wayland`, `*_on_sway`): GTK 3, GTK 4 and Qt 5 again, as Wayland
//! clients of a headless GNOME compositor (mutter, with PipeWire) and of a headless sway
//! (wlroots) in place of Xvfb; their tables are in `docs/wayland.md`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use automation_testkit::heavy::Heavy;
use automation_testkit::require::{on_path, require};

use crate::support::atspi_session;
use atspi_session::session_ready;
use serde_json::Value;

/// `<target dir>`: this test runs as `<target>/debug/deps/atspi_matrix-…`.
fn target_dir() -> PathBuf {
    std::env::current_exe()
        .expect("current exe")
        .ancestors()
        .nth(3)
        .expect("a test binary under <target>/<profile>/deps")
        .to_path_buf()
}

/// The ops, in the docs table's column order.
const OPS: &[&str] = &[
    "click",
    "pointer",
    "toggle",
    "select",
    "set_value",
    "increment",
    "decrement",
    "type_text",
    "focus",
    "expand",
    "collapse",
    "scroll",
    "scroll_into_view",
    "screenshot",
    "find",
    "snapshot",
];

/// One cell as the table shows it: ✓ (effect), the refusal's code, or ✗ and the lie.
fn mark(cell: &Value) -> String {
    let code = cell["reply"]["code"].as_str().unwrap_or("ok");
    match cell["verdict"].as_str().unwrap_or("?") {
        "effect" => "✓".into(),
        "refused" => format!("`{code}`"),
        "unjudged" => "? unjudged".into(),
        lie => format!("✗ {lie} `{code}`"),
    }
}

fn is_lie(cell: &Value) -> bool {
    !matches!(cell["verdict"].as_str(), Some("effect" | "refused"))
}

/// A refusal whose hint names the tool that was just refused (a hint that loops: "try
/// inject_pointer" after inject_pointer failed), described; `None` when the hint leads on.
fn hint_names_its_op(cell: &Value) -> Option<String> {
    let reply = &cell["reply"];
    if reply["ok"] == true {
        return None;
    }
    let tool = cell["call"]["tool"].as_str()?;
    let data: Value = serde_json::from_str(reply["data"].as_str()?).ok()?;
    let hint = data["hint"].as_str()?;
    let names_it = hint
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| word == tool);
    names_it.then(|| format!("{} — hint: {hint}", describe(cell)))
}

/// The docs table of one app's run: a row per widget kind and variant, a column per op.
fn table(app: &str, cells: &[Value]) -> String {
    let mut rows: Vec<(String, Vec<Vec<String>>)> = Vec::new();
    let mut used = vec![false; OPS.len()];
    for c in cells {
        let variant = c["variant"].as_str().unwrap_or("");
        let widget = c["widget"].as_str().unwrap_or("?");
        let row = if variant.is_empty() {
            widget.to_string()
        } else {
            format!("{widget} ({variant})")
        };
        let op = c["op"].as_str().unwrap_or("?");
        let Some(col) = OPS.iter().position(|o| *o == op) else {
            panic!("{app}: a cell with an op the table has no column for: {op}");
        };
        used[col] = true;
        let at = match rows.iter().position(|(r, _)| *r == row) {
            Some(i) => i,
            None => {
                rows.push((row, vec![Vec::new(); OPS.len()]));
                rows.len() - 1
            }
        };
        let m = mark(c);
        if !rows[at].1[col].contains(&m) {
            rows[at].1[col].push(m);
        }
    }
    let count = |v: &str| cells.iter().filter(|c| c["verdict"] == v).count();
    let could = count("PERSON_COULD");
    let lies = cells.iter().filter(|c| is_lie(c)).count() - could;
    let mut out = format!(
        "{} cells: {} effects seen, {} truthful refusals, {lies} lies, {could} a person could and the kit refused.\n\n",
        cells.len(),
        count("effect"),
        count("refused"),
    );
    let cols: Vec<usize> = (0..OPS.len()).filter(|i| used[*i]).collect();
    out.push_str("| widget |");
    for i in &cols {
        let _ = write!(out, " {} |", OPS[*i]);
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(cols.len()));
    out.push('\n');
    for (row, marks) in &rows {
        let _ = write!(out, "| {row} |");
        for i in &cols {
            let _ = write!(out, " {} |", marks[*i].join(" / "));
        }
        out.push('\n');
    }
    out
}

/// One line per lie: the cell, the reply, and what the oracle saw before and after.
fn describe(cell: &Value) -> String {
    format!(
        "{} {} {} [{}]: {} — reply {} {}; oracle before {} after {}{}",
        cell["verdict"].as_str().unwrap_or("?"),
        cell["key"].as_str().unwrap_or("?"),
        cell["op"].as_str().unwrap_or("?"),
        cell["variant"].as_str().unwrap_or(""),
        cell["call"],
        cell["reply"]["code"].as_str().unwrap_or("ok"),
        cell["reply"]["data"].as_str().unwrap_or(""),
        cell["before"],
        cell["after"],
        cell["note"]
            .as_str()
            .map(|n| format!("; {n}"))
            .unwrap_or_default(),
    )
}

/// One app at a time, whatever `--test-threads` says: the cells' timing (a refusal is watched
/// for a second) and the docs tables assume the machine is not shared with another app's run.
fn one_at_a_time() -> Heavy {
    automation_testkit::heavy::heavy()
}

/// The session an app's cells run in.
#[derive(Clone, Copy, PartialEq)]
enum On {
    /// Xvfb: the app is an X11 client, input through XTEST.
    Xvfb,
    /// A headless GNOME compositor (mutter 43) with PipeWire: the app is a Wayland client,
    /// input and pixels through Mutter's remote-desktop and screen-cast APIs.
    Mutter,
    /// A headless sway (wlroots): the app is a Wayland client, input through wlroots' virtual
    /// keyboard and pointer, pixels through screencopy, windows from sway's IPC.
    Sway,
}

/// Runs one app's cells on Xvfb; `needs` are the programs it starts, each with its Debian
/// package.
fn run(app: &str, needs: &[(&str, &str)], extra: Option<PathBuf>) {
    run_on(On::Xvfb, app, needs, extra);
}

/// Runs one app's cells in session `on`: Xvfb's tables are in `docs/atspi.md`, the Wayland
/// column's in `docs/wayland.md`.
fn run_on(on: On, app: &str, needs: &[(&str, &str)], extra: Option<PathBuf>) {
    let _serial = one_at_a_time();
    let Some(python) = session_ready() else {
        return;
    };
    let tools = match on {
        On::Xvfb => None,
        On::Mutter => Some((
            "wayland",
            automation_atspi::display_wayland::missing_tools(),
        )),
        On::Sway => Some(("sway", automation_atspi::display_sway::missing_tools())),
    };
    if let Some((component, missing)) = tools
        && !automation_testkit::require::require_tools(component, &missing)
    {
        return;
    }
    let (name, page, session) = match on {
        On::Xvfb => (app.to_string(), "atspi.md", "x11"),
        On::Mutter => (format!("{app}-wayland"), "wayland.md", "wayland"),
        On::Sway => (format!("{app}-sway"), "wayland.md", "sway"),
    };
    for (program, package) in needs {
        if !require(
            "atspi-apps",
            on_path(program),
            &format!("{program} is not installed (Debian: {package}; scripts/test installs it)"),
        ) {
            return;
        }
    }
    let out_dir = target_dir().join("atspi-matrix");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = out_dir.join(format!("{name}.json"));
    let _ = std::fs::remove_file(&out);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/atspi_matrix.py");
    let started = std::time::Instant::now();
    let attempt = || {
        let mut command = Command::new("dbus-run-session");
        command
            .args(["--", &python, script, app, crate::support::AUTOMATION])
            .arg(&out)
            .stdin(Stdio::null());
        command.env("AUTOMATION_MATRIX_SESSION", session);
        if let Some(extra) = &extra {
            command.arg(extra);
        }
        command
            .output()
            .unwrap_or_else(|e| panic!("cannot run dbus-run-session: {e}"))
    };
    let mut run = attempt();
    // An app that never shows up on the accessibility bus for pyatspi either — before the kit
    // is involved, after the harness already started it twice (the Qt 5 calculator after
    // LibreOffice, now and then) — gets a whole new session: display, buses, registry.
    // What is judged is the kit, not the app's start; the note stays in the log.
    let off_the_bus = |o: &std::process::Output| {
        [&o.stdout, &o.stderr]
            .iter()
            .any(|b| String::from_utf8_lossy(b).contains("the app is not on the accessibility bus"))
    };
    // Twice more at most: in one CI run the Qt 5 calculator missed the bus in four launches
    // over two sessions, with the other matrix apps starting beside it.
    for _ in 0..2 {
        if run.status.success() || !off_the_bus(&run) {
            break;
        }
        eprintln!(
            "note: {name} never reached the accessibility bus; running it once more in a new session"
        );
        std::thread::sleep(std::time::Duration::from_secs(2));
        run = attempt();
    }
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // The harness's log: a line per cell, as it ran.
    eprintln!("{stderr}");
    assert!(
        run.status.success(),
        "the matrix run for {name} failed ({:?}):\n{stdout}\n{stderr}",
        run.status
    );
    let result: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let cells = result["cells"].as_array().cloned().unwrap_or_default();
    assert!(
        result["completed"] == Value::Bool(true),
        "the matrix run for {name} did not complete: {}",
        result["notes"]
    );
    // Tokens: the app's first snapshot as an agent gets it, hidden subtrees folded.
    let folded = result["snapshot_bytes"]["folded"].as_u64();
    let with_hidden = result["snapshot_bytes"]["with_hidden"].as_u64();
    eprintln!(
        "{name}: first snapshot {} bytes folded, {} with hidden nodes",
        folded.map_or("?".into(), |b| b.to_string()),
        with_hidden.map_or("?".into(), |b| b.to_string())
    );
    let budget = snapshot_budget(app);
    let measured = !result["snapshot_bytes"].is_null();
    let over_budget = match (folded, with_hidden) {
        _ if !measured => None,
        (Some(f), Some(h)) if f <= budget && f <= h => None,
        (Some(f), Some(h)) => Some(format!(
            "{name}: the first snapshot is {f} bytes folded ({h} with hidden nodes); its budget is {budget}"
        )),
        _ => Some(format!(
            "{name}: the first snapshot did not answer: {}",
            result["snapshot_bytes"]
        )),
    };
    let body = table(app, &cells);
    eprintln!(
        "{name}: {} cells in {:.1} s\n{body}",
        cells.len(),
        started.elapsed().as_secs_f64()
    );
    let lies: Vec<String> = cells.iter().filter(|c| is_lie(c)).map(describe).collect();
    let looping: Vec<String> = cells.iter().filter_map(hint_names_its_op).collect();
    // The docs table and the lies are both reported, whichever fails.
    let section = format!("atspi-matrix-{name}");
    let docs = std::panic::catch_unwind(|| {
        automation_testkit::docs::check_page(
            &Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs")).join(page),
            &[(section.as_str(), body.clone())],
            "cargo test -p automation-cli --test atspi atspi_matrix:: -- --test-threads 1",
        );
    })
    .err()
    .map(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "the docs table is out of date".into())
    });
    let mut failures = Vec::new();
    if !lies.is_empty() {
        failures.push(format!(
            "{name}: {} of {} cells are lies (ok without the effect, an error with it, no answer, or a widget a person cannot use that changed):\n{}",
            lies.len(),
            cells.len(),
            lies.join("\n")
        ));
    }
    if !looping.is_empty() {
        failures.push(format!(
            "{name}: {} refusals send the agent back to the op that just failed:\n{}",
            looping.len(),
            looping.join("\n")
        ));
    }
    failures.extend(over_budget);
    failures.extend(docs);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The most bytes an app's first snapshot (the whole tree, hidden subtrees folded) may take:
/// what it measured on 2026-12-04, with a quarter more for a font or a locale; kcalc's is the
/// issue's 3 kB. (zenity runs a dialog a process and is not measured.)
fn snapshot_budget(app: &str) -> u64 {
    match app {
        "calc" => 60_000,
        "chromium" => 10_600,
        "eframe" => 1_600,
        "firefox" => 7_900,
        "gtk3" => 5_400,
        "gtk4" => 30_800,
        "kcalc" => 3_072,
        "mousepad" => 15_300,
        "qt5-calculator" => 1_000,
        "qt5-gallery" => 2_700,
        "swing" => 2_900,
        "text-editor" => 4_100,
        "writer" => 11_400,
        _ => 0,
    }
}

#[test]
fn gtk3_widget_factory_all_pages() {
    run("gtk3", &[("gtk3-widget-factory", "gtk-3-examples")], None);
}

#[test]
fn gtk4_widget_factory() {
    run("gtk4", &[("gtk4-widget-factory", "gtk-4-examples")], None);
}

/// The Wayland column: GTK 3, GTK 4 and Qt 5 as Wayland clients of headless Mutter.
#[test]
fn gtk3_widget_factory_on_wayland() {
    run_on(
        On::Mutter,
        "gtk3",
        &[("gtk3-widget-factory", "gtk-3-examples")],
        None,
    );
}

#[test]
fn gtk4_widget_factory_on_wayland() {
    run_on(
        On::Mutter,
        "gtk4",
        &[("gtk4-widget-factory", "gtk-4-examples")],
        None,
    );
}

#[test]
fn qt5_widget_gallery_on_wayland() {
    run_on(
        On::Mutter,
        "qt5-gallery",
        &[(
            &format!("{QT_EXAMPLES}/gallery/gallery"),
            "qtbase5-examples",
        )],
        None,
    );
}

/// The Wayland column on sway: the same three apps as Wayland clients of headless sway.
#[test]
fn gtk3_widget_factory_on_sway() {
    run_on(
        On::Sway,
        "gtk3",
        &[("gtk3-widget-factory", "gtk-3-examples")],
        None,
    );
}

#[test]
fn gtk4_widget_factory_on_sway() {
    run_on(
        On::Sway,
        "gtk4",
        &[("gtk4-widget-factory", "gtk-4-examples")],
        None,
    );
}

#[test]
fn qt5_widget_gallery_on_sway() {
    run_on(
        On::Sway,
        "qt5-gallery",
        &[(
            &format!("{QT_EXAMPLES}/gallery/gallery"),
            "qtbase5-examples",
        )],
        None,
    );
}

const QT_EXAMPLES: &str = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets";

#[test]
fn qt5_calculator() {
    let calculator = format!("{QT_EXAMPLES}/widgets/calculator/calculator");
    run("qt5-calculator", &[(&calculator, "qtbase5-examples")], None);
}

#[test]
fn qt5_widget_gallery() {
    let gallery = format!("{QT_EXAMPLES}/gallery/gallery");
    run("qt5-gallery", &[(&gallery, "qtbase5-examples")], None);
}

#[test]
fn zenity_dialogs() {
    run("zenity", &[("zenity", "zenity")], None);
}

#[test]
fn stock_eframe_app_release() {
    if session_ready().is_none() {
        return;
    }
    let app = automation_testkit::stock_app::build_stock_eframe_app();
    run("eframe", &[], Some(app));
}

#[test]
fn kcalc_kde() {
    run("kcalc", &[("kcalc", "kcalc"), ("xdotool", "xdotool")], None);
}

#[test]
fn mousepad_gtk3_editor() {
    run("mousepad", &[("mousepad", "mousepad")], None);
}

#[test]
fn gnome_text_editor_gtk4() {
    run(
        "text-editor",
        &[("gnome-text-editor", "gnome-text-editor")],
        None,
    );
}

#[test]
fn swing_form_java() {
    run(
        "swing",
        &[
            ("javac", "openjdk-17-jdk-headless"),
            (
                "/usr/share/java/java-atk-wrapper.jar",
                "libatk-wrapper-java",
            ),
        ],
        None,
    );
}

#[test]
fn firefox_web_page() {
    run("firefox", &[("firefox-esr", "firefox-esr")], None);
}

#[test]
fn chromium_web_page() {
    run("chromium", &[("chromium", "chromium")], None);
}

#[test]
fn libreoffice_calc() {
    run(
        "calc",
        &[
            ("localc", "libreoffice-calc"),
            // Without its GTK3 plug-in LibreOffice draws with plain X11 and exposes no tree.
            (
                "/usr/lib/libreoffice/program/libvclplug_gtk3lo.so",
                "libreoffice-gtk3",
            ),
        ],
        None,
    );
}

#[test]
fn libreoffice_writer() {
    run(
        "writer",
        &[
            ("lowriter", "libreoffice-writer"),
            (
                "/usr/lib/libreoffice/program/libvclplug_gtk3lo.so",
                "libreoffice-gtk3",
            ),
        ],
        None,
    );
}
