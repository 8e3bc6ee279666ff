//! Real apps over AT-SPI, side by side with the Python stack (pyatspi / dogtail) in one run,
//! each app on its own private Xvfb with its own buses.
//!
//! - `atspi/snapshot/automation`: a full read of gtk3-widget-factory's tree (every object:
//!   role, states, name, description, interfaces, children, extents, actions, value, text,
//!   relations of nameless objects) into an AccessKit update — `AtspiTarget::fetch_all`
//!   (seeded by `Cache.GetItems`, over the app's peer-to-peer socket; see `fetch.rs`).
//! - `atspi/snapshot/pyatspi`: pyatspi walking the same tree reading the same things
//!   (`benches/python/atspi_peer.py walk`, libatspi's cache cleared before each walk, timed
//!   inside Python).
//! - `atspi/snapshot/pyatspi_minimal`: pyatspi reading role, name and children only.
//! - `atspi/click_to_effect/automation/{gnome-calculator,kcalc}`: `invoke_action click` on the
//!   app's "1" with settle `{quiet_ms: 0}`: the op returns at the click's first effect on the
//!   tree (GTK 4's and Qt's own click action, or a pointer click at the button's centre).
//! - `atspi/click_to_effect/dogtail/{gnome-calculator,kcalc}`: dogtail's `click()` on the same
//!   button, which sleeps its default action delay (`config.actionDelay`, 1 s) after the
//!   click.
//! - `atspi/audit/automation_tree`: `automation audit`'s rules that read the tree (names,
//!   labels, duplicates, target size, a disabled focus) and the pixels (contrast) over
//!   gtk3-widget-factory (`automation_audit::audit`, no walk); the session keeps its mirror
//!   current by events, so no audit after the first reads the tree afresh.
//! - `atspi/audit/automation_with_walk`: the whole audit, its Tab walk included (about 30
//!   presses, each waiting for the focus to move).
//! - `atspi/audit/pyatspi_names`: the anchor — pyatspi walking the same tree checking only the
//!   two name rules (`benches/python/atspi_peer.py names`), what a script does today.
//!
//! - `atspi/session_click/{pointer,click}/{x11,mutter,sway}`: a pointer click (`inject_pointer
//!   click`) and the kit's click (`invoke_action click`: GTK 4's own action here), settle
//!   `{quiet_ms: 0}`, on GNOME Calculator's "1", to its first effect on the tree: on Xvfb
//!   (XTEST) and on a private headless Mutter (Wayland: its remote-desktop API), side by side
//!   and on a private headless sway (wlroots' virtual pointer), side by side in one run. A
//!   pointer press on Mutter waits for Mutter to pick the surface under it: until 35 ms (two
//!   frames) have passed since the pointer last moved or released a button. These clicks hit
//!   the same point each time, so the wait has passed by the next press.
//! - `atspi/session_click/pointer_moving/{x11,mutter,sway}`: pointer clicks on "1" and "2" in
//!   turn, so the pointer moves before every press (and waits for Mutter's pick each time).
//! - `atspi/session_screenshot/{x11,mutter,sway}`: a screenshot of the same window: X11's
//!   `GetImage`, one frame of Mutter's screen-cast stream over PipeWire, and sway's
//!   screencopy.
//!
//! Run: `cargo bench -p automation-benches --bench atspi_apps -- --warm-up-time 1 --measurement-time 5`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;
use std::time::Duration;

use automation_atspi::{AtspiTarget, Launched, Output, VirtualDisplay, launch};
use automation_core::{Reply, Request, Session};
use criterion::{Criterion, criterion_group, criterion_main};

const PEER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/atspi_peer.py");

fn start(command: &str) -> (AtspiTarget, Launched) {
    let display = VirtualDisplay::start_in(90..=93).expect("a virtual display");
    launch(command, Some(display), Output::Null).expect("launch")
}

/// Runs the Python peer under the app's display and buses; returns the seconds it reported.
fn peer(launched: &Launched, args: &[&str]) -> Duration {
    let d = launched.display.as_ref().expect("a virtual display");
    let mut cmd = Command::new("/usr/bin/python3");
    cmd.arg(PEER).args(args);
    d.env_into(&mut cmd);
    // dogtail refuses to run unless GSettings says assistive technology is on; the memory
    // backend the apps get has no such key set, the default backend does.
    cmd.env_remove("GSETTINGS_BACKEND");
    let out = cmd.output().expect("python3");
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let secs: f64 = text
        .lines()
        .last()
        .and_then(|l| l.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no time in {text:?}"));
    Duration::from_secs_f64(secs)
}

fn snapshot(c: &mut Criterion) {
    let (mut target, launched) = start("gtk3-widget-factory");
    let n = target.fetch_all().unwrap().nodes.len();
    let (direct, bulk) = target.read_path();
    eprintln!("gtk3-widget-factory: {n} objects (peer-to-peer: {direct}, read: {bulk:?})");
    let mut g = c.benchmark_group("atspi/snapshot");
    g.sample_size(10);
    g.bench_function("automation", |b| b.iter(|| target.fetch_all().unwrap()));
    g.bench_function("pyatspi", |b| {
        b.iter_custom(|iters| {
            peer(
                &launched,
                &["walk", "gtk3-widget-factory", &iters.to_string()],
            )
        })
    });
    g.bench_function("pyatspi_minimal", |b| {
        b.iter_custom(|iters| {
            peer(
                &launched,
                &["walk-minimal", "gtk3-widget-factory", &iters.to_string()],
            )
        })
    });
    g.finish();
}

/// The node id of `app`'s button whose label starts with `label`, from a snapshot.
fn button(session: &mut Session<AtspiTarget>, label: &str) -> String {
    let snap = automation_atspi::serve(
        session,
        &Request::from_json(r#"{"op": {"snapshot_tree": {"format": "json"}}}"#).unwrap(),
    );
    let Reply::Ok(v) = snap else {
        panic!("{snap:?}")
    };
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| {
            n["role"] == "Button"
                && n["label"]
                    .as_str()
                    .is_some_and(|l| l.split(' ').next() == Some(label))
        })
        .unwrap_or_else(|| panic!("no button {label:?}"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn click_to_effect(c: &mut Criterion) {
    let mut g = c.benchmark_group("atspi/click_to_effect");
    g.sample_size(10);
    // (bench id and command, its name on the bus, the button's label's first word, its
    // accessible name for dogtail)
    for (id, bus_name, label, dogtail_name) in [
        ("gnome-calculator", "gnome-calculator", "1", "1 1"),
        ("kcalc", "kcalc", "1", "1"),
    ] {
        let (target, launched) = start(id);
        let mut session = Session::new(target);
        let one = button(&mut session, label);
        let click = Request::from_value(serde_json::json!({
            "op": {"invoke_action": {"node": one, "action": "click"}},
            "settle": {"quiet_ms": 0, "settle_timeout_ms": 2000},
        }))
        .unwrap();
        g.bench_function(format!("automation/{id}"), |b| {
            b.iter(|| {
                let r = automation_atspi::serve(&mut session, &click);
                let Reply::Ok(v) = &r else { panic!("{r:?}") };
                assert!(v["settled"]["first_effect_ms"].is_u64(), "no effect: {v}");
            })
        });
        g.bench_function(format!("dogtail/{id}"), |b| {
            b.iter_custom(|iters| {
                peer(
                    &launched,
                    &["click", bus_name, dogtail_name, &iters.to_string()],
                )
            })
        });
        drop(session);
        drop(launched);
    }
    g.finish();
}

fn audit(c: &mut Criterion) {
    let (target, launched) = start("gtk3-widget-factory");
    let mut session = Session::new(target);
    let mut g = c.benchmark_group("atspi/audit");
    g.sample_size(10);
    let tree_only = automation_audit::Options {
        keyboard: false,
        ..automation_audit::Options::default()
    };
    g.bench_function("automation_tree", |b| {
        b.iter(|| {
            let mut driver = |r: Request| automation_atspi::serve(&mut session, &r);
            automation_audit::audit(&mut driver, &tree_only).unwrap()
        })
    });
    g.bench_function("automation_with_walk", |b| {
        b.iter(|| {
            let mut driver = |r: Request| automation_atspi::serve(&mut session, &r);
            let report =
                automation_audit::audit(&mut driver, &automation_audit::Options::default())
                    .unwrap();
            assert!(report.keyboard.is_some_and(|w| w.cycled), "a whole round");
        })
    });
    g.bench_function("pyatspi_names", |b| {
        b.iter_custom(|iters| {
            peer(
                &launched,
                &["names", "gtk3-widget-factory", &iters.to_string()],
            )
        })
    });
    g.finish();
}

/// The same pointer click and screenshot on X11 (Xvfb) and on Wayland (headless Mutter, and
/// headless sway).
fn session_click(c: &mut Criterion) {
    let mut clicks = c.benchmark_group("atspi/session_click");
    clicks.sample_size(20);
    let mut sessions = Vec::new();
    for kind in ["x11", "mutter", "sway"] {
        let display = match kind {
            "mutter" => VirtualDisplay::start_wayland().expect("a headless mutter session"),
            "sway" => VirtualDisplay::start_sway().expect("a headless sway session"),
            _ => VirtualDisplay::start_in(90..=93).expect("a virtual display"),
        };
        let (target, launched) =
            launch("gnome-calculator", Some(display), Output::Null).expect("launch");
        let mut session = Session::new(target);
        let one = button(&mut session, "1");
        for (means, op) in [
            (
                "pointer",
                serde_json::json!({"inject_pointer": {"node": one, "action": "click"}}),
            ),
            (
                "click",
                serde_json::json!({"invoke_action": {"node": one, "action": "click"}}),
            ),
        ] {
            let click = Request::from_value(serde_json::json!({
                "op": op,
                "settle": {"quiet_ms": 0, "settle_timeout_ms": 2000},
            }))
            .unwrap();
            // The first pointer click on Mutter maximizes the window: not part of a click.
            let r = automation_atspi::serve(&mut session, &click);
            assert!(matches!(r, Reply::Ok(_)), "{kind}: {r:?}");
            clicks.bench_function(format!("{means}/{kind}"), |b| {
                b.iter(|| {
                    let r = automation_atspi::serve(&mut session, &click);
                    let Reply::Ok(v) = &r else {
                        panic!("{kind}: {r:?}")
                    };
                    assert!(v["settled"]["first_effect_ms"].is_u64(), "no effect: {v}");
                })
            });
        }
        // The pointer moving on every click: "1" and "2" in turn (a press on Mutter waits
        // for its pick after each motion).
        let two = button(&mut session, "2");
        let pair = [&one, &two].map(|node| {
            Request::from_value(serde_json::json!({
                "op": {"inject_pointer": {"node": node, "action": "click"}},
                "settle": {"quiet_ms": 0, "settle_timeout_ms": 2000},
            }))
            .unwrap()
        });
        let mut turn = 0usize;
        clicks.bench_function(format!("pointer_moving/{kind}"), |b| {
            b.iter(|| {
                turn += 1;
                let r = automation_atspi::serve(&mut session, &pair[turn % 2]);
                let Reply::Ok(v) = &r else {
                    panic!("{kind}: {r:?}")
                };
                assert!(v["settled"]["first_effect_ms"].is_u64(), "no effect: {v}");
            })
        });
        sessions.push((kind, session, launched));
    }
    clicks.finish();
    let mut shots = c.benchmark_group("atspi/session_screenshot");
    shots.sample_size(20);
    let shot = Request::from_json(r#"{"op": {"screenshot": {}}}"#).unwrap();
    for (kind, session, _) in &mut sessions {
        shots.bench_function(*kind, |b| {
            b.iter(|| {
                let r = automation_atspi::serve(session, &shot);
                assert!(r.image().is_some(), "{kind}: {r:?}");
            })
        });
    }
    shots.finish();
}

criterion_group!(benches, snapshot, click_to_effect, audit, session_click);
criterion_main!(benches);
