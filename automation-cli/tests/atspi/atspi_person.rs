//! Issue 35's named cases: what a person does on apps outside the first matrix — a KDE
//! calculator's menu bar and keys, a Qt combo picked by name, GTK 4's Save dialog, a modal
//! dialog GTK runs inside the action call, a list too long to read whole, a Swing form's tab,
//! slider and menu, a web page in Firefox (a check box by the name a person reads, actions
//! read one index at a time, reads fresh after a scroll, typing into every field that shows),
//! LibreOffice Writer's Bold judged by the document's text — through the real `automation` binary as an MCP server attached over
//! AT-SPI, each judged by a reader that is not the kit (pyatspi on the same bus, the file the
//! app wrote, the app's own output).
//!
//! `tests/python/atspi_person.py GROUP` starts one app in its own session (`dbus-run-session`,
//! Xvfb, the accessibility bus) and runs the group's cases in order, printing `ok CASE` or
//! `FAIL CASE: why` for each. Each group runs once per test binary; each case here is one
//! test that passes only on its `ok` line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

use automation_testkit::require::{on_path, require};

use crate::support::atspi_session;
use atspi_session::session_ready;

/// Each group's run: its output, or `None` when a missing component was opted out.
static RUNS: OnceLock<Mutex<HashMap<&'static str, Option<String>>>> = OnceLock::new();

/// The output of `group`'s run, run once (one group at a time: each starts its own display
/// and buses, and the apps are heavy).
fn group_output(group: &'static str, program: &str, package: &str) -> Option<String> {
    let runs = RUNS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut runs = runs
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(done) = runs.get(group) {
        return done.clone();
    }
    let output = session_ready()
        .filter(|_| {
            require(
                "atspi-apps",
                on_path(program) || std::path::Path::new(program).exists(),
                &format!(
                    "{program} is not installed (Debian: {package}; scripts/test installs it)"
                ),
            )
        })
        .map(|python| {
            // The apps need the machine to themselves, as the matrix's do.
            let _heavy = automation_testkit::heavy::heavy();
            let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/atspi_person.py");
            let attempt = || {
                Command::new("dbus-run-session")
                    .args(["--", &python, script, group, crate::support::AUTOMATION])
                    .stdin(Stdio::null())
                    .output()
                    .unwrap_or_else(|e| panic!("cannot run dbus-run-session: {e}"))
            };
            // An app that never shows up on the accessibility bus (a Qt 5 example, now and
            // then, even when started twice) gets a whole new session, as in the matrix: what
            // is judged is the kit, not the app's start.
            let mut run = attempt();
            for _ in 0..2 {
                let off_the_bus = String::from_utf8_lossy(&run.stderr)
                    .contains("the app is not on the accessibility bus");
                if !off_the_bus {
                    break;
                }
                eprintln!("note: {group}'s app never reached the accessibility bus; once more in a new session");
                run = attempt();
            }
            let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
            eprintln!(
                "{group}:\n{stdout}\n{}",
                String::from_utf8_lossy(&run.stderr)
            );
            assert!(
                !stdout.contains("MISSING"),
                "{group} could not run: {stdout}"
            );
            stdout
        });
    runs.insert(group, output.clone());
    output
}

/// `case` of `group` passed: its line says `ok`.
fn case(group: &'static str, program: &str, package: &str, case: &str) {
    let Some(out) = group_output(group, program, package) else {
        return;
    };
    let ok = format!("ok {case} ");
    let failed = format!("FAIL {case}:");
    if out.lines().any(|l| l.starts_with(&ok)) {
        return;
    }
    let why = out
        .find(&failed)
        .map(|at| out[at..].to_string())
        .unwrap_or_else(|| format!("{case} never ran; the group printed:\n{out}"));
    panic!("{why}");
}

const QT_GALLERY: &str = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/gallery/gallery";

#[test]
fn kcalc_keys_typed_into_its_window_compute_7_times_6() {
    case("kcalc", "kcalc", "kcalc", "kcalc_types_7_times_6");
}

#[test]
fn kcalc_snapshot_folds_its_hidden_subtrees_under_3_kb() {
    case("kcalc", "kcalc", "kcalc", "kcalc_snapshot_at_most_3_kb");
}

#[test]
fn kcalc_menu_bar_item_without_a_click_action_opens_its_menu() {
    case("kcalc", "kcalc", "kcalc", "kcalc_menu_opens");
}

#[test]
fn kcalc_open_menu_items_are_shown_and_a_click_takes_one() {
    case(
        "kcalc",
        "kcalc",
        "kcalc",
        "kcalc_open_menu_items_are_shown_and_clickable",
    );
}

#[test]
fn qt_combo_option_picked_by_name_shows_and_its_popup_closes() {
    case(
        "qt5-gallery",
        QT_GALLERY,
        "qtbase5-examples",
        "qt_combo_shows_windows",
    );
}

#[test]
fn gtk4_save_dialog_name_set_and_saved_writes_that_file() {
    case(
        "text-editor",
        "gnome-text-editor",
        "gnome-text-editor",
        "gtk4_save_dialog_saves",
    );
}

#[test]
fn gtk4_closed_windows_leave_list_windows() {
    case(
        "text-editor",
        "gnome-text-editor",
        "gnome-text-editor",
        "gtk4_list_windows_drops_closed_windows",
    );
}

#[test]
fn gtk3_action_that_opens_a_modal_dialog_answers_and_the_dialog_is_driven() {
    case(
        "mousepad",
        "mousepad",
        "mousepad",
        "modal_dialog_returns_and_is_driven",
    );
}

#[test]
fn gtk3_row_whose_action_opens_a_window_answers_ok() {
    case(
        "gtk3-demo",
        "gtk3-demo",
        "gtk-3-examples",
        "row_action_that_opens_a_window_is_ok",
    );
}

#[test]
fn gtk3_combo_option_filed_in_a_submenu_is_picked_by_name() {
    case(
        "gtk3-demo",
        "gtk3-demo",
        "gtk-3-examples",
        "combo_option_in_a_submenu_is_picked_by_name",
    );
}

#[test]
fn gtk3_row_scrolled_out_of_its_list_is_found_and_taken() {
    case(
        "gtk3-demo",
        "gtk3-demo",
        "gtk-3-examples",
        "row_scrolled_out_of_its_list_is_found_and_taken",
    );
}

#[test]
fn a_find_past_a_list_read_in_part_finds_it_or_says_the_list_was_cut() {
    case(
        "long-list",
        "/usr/bin/python3",
        "python3-gi",
        "find_beyond_a_capped_list",
    );
}

#[test]
fn swing_tab_without_a_click_action_switches_and_its_slider_reaches_77() {
    case(
        "swing",
        "javac",
        "openjdk-17-jdk-headless",
        "swing_tab_switches_and_slider_reaches_77",
    );
}

#[test]
fn swing_pointer_clicks_land_on_their_own_widgets() {
    case(
        "swing",
        "javac",
        "openjdk-17-jdk-headless",
        "swing_pointer_click_lands_on_its_own_widget",
    );
}

const FIREFOX: (&str, &str) = ("firefox-esr", "firefox-esr");
const WRITER: (&str, &str) = ("lowriter", "libreoffice-writer");

#[test]
fn firefox_check_box_is_found_by_the_name_a_person_reads() {
    case(
        "firefox",
        FIREFOX.0,
        FIREFOX.1,
        "firefox_gift_wrap_is_found_by_the_name_a_person_reads",
    );
}

#[test]
fn firefox_check_box_checks_and_its_button_submits() {
    case(
        "firefox",
        FIREFOX.0,
        FIREFOX.1,
        "firefox_check_box_checks_and_its_button_submits",
    );
}

#[test]
fn firefox_actions_are_read_per_index() {
    case(
        "firefox",
        FIREFOX.0,
        FIREFOX.1,
        "firefox_actions_are_read_per_index",
    );
}

#[test]
fn firefox_no_read_is_stale_after_a_scroll() {
    case(
        "firefox",
        FIREFOX.0,
        FIREFOX.1,
        "firefox_no_read_is_stale_after_a_scroll",
    );
}

#[test]
fn firefox_type_text_works_into_every_editable_field() {
    case(
        "firefox",
        FIREFOX.0,
        FIREFOX.1,
        "type_text_works_into_every_editable_field",
    );
}

#[test]
fn writer_actions_are_read_per_index() {
    case(
        "writer",
        WRITER.0,
        WRITER.1,
        "writer_actions_are_read_per_index",
    );
}

#[test]
fn writer_bold_is_judged_by_the_document_text() {
    case(
        "writer",
        WRITER.0,
        WRITER.1,
        "writer_bold_is_judged_by_the_document_text",
    );
}

#[test]
fn qt_type_text_works_into_every_editable_field() {
    case(
        "qt5-gallery",
        QT_GALLERY,
        "qtbase5-examples",
        "type_text_works_into_every_editable_field",
    );
}

#[test]
fn writer_snapshot_shows_the_document() {
    case(
        "writer",
        WRITER.0,
        WRITER.1,
        "writer_snapshot_shows_the_document",
    );
}

#[test]
fn writer_type_text_works_into_every_editable_field() {
    case(
        "writer",
        WRITER.0,
        WRITER.1,
        "type_text_works_into_every_editable_field",
    );
}

#[test]
fn writer_check_item_taken_in_its_menu_counts_though_the_item_reads_unchecked() {
    case(
        "writer",
        WRITER.0,
        WRITER.1,
        "writer_check_item_taken_in_its_menu_counts_though_the_item_reads_unchecked",
    );
}
