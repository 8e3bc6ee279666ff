//! "Click Save, settle, snapshot" on the built-in egui demo, side by side with egui_kittest 0.37
//! doing the same work on the same app, and one bare egui frame as the floor.
//!
//! Animations are handled the same way in both: egui_kittest sets `animation_time = 0` and no
//! scroll animation, and our target is built `with_instant_animations()`, which sets the same.
//!
//! - `egui_demo/automation/pointer_click_settle_snapshot`: `inject_pointer {node: Save}` (a
//!   real mouse click: move, press frame, release frame, settle) then `snapshot_tree` through
//!   `execute` — the reply JSON included.
//! - `egui_demo/automation/action_click_settle_snapshot`: the same with `invoke_action click`
//!   (an AccessKit action, one frame).
//! - `egui_demo/kittest/click_run`: `harness.get_by_label("Save").click(); harness.run();`
//!   (kittest's tree is updated every step; it has no JSON snapshot to build).
//! - `egui_demo/egui/bare_frame`: one `Context::run_ui` of the demo, output dropped.
//!
//! Run: `cargo bench -p automation-benches --bench egui_demo -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use automation_core::{Op, RecordingWindowOps, Request, Session, execute_request};
use automation_egui::{Demo, EguiApp, demo_target};
use criterion::{Criterion, criterion_group, criterion_main};
use egui_kittest::kittest::Queryable;

fn request(json: &str) -> Request {
    match Request::from_json(json) {
        Ok(r) => r,
        Err(e) => panic!("{json}: {e:?}"),
    }
}

fn automation(c: &mut Criterion) {
    let snapshot = request(r#"{"op": "snapshot_tree"}"#);
    for (name, click) in [
        (
            "egui_demo/automation/pointer_click_settle_snapshot",
            r#"{"op": {"inject_pointer": {"node": {"role": "Button", "label": "Save"}}}}"#,
        ),
        (
            "egui_demo/automation/action_click_settle_snapshot",
            r#"{"op": {"invoke_action": {"node": {"role": "Button", "label": "Save"}, "action": "click"}}}"#,
        ),
    ] {
        let click = request(click);
        let mut session = Session::new(demo_target().with_instant_animations());
        c.bench_function(name, |b| {
            b.iter(|| {
                let a = execute_request(&mut session, &click);
                assert!(a.is_ok(), "{a:?}");
                black_box(execute_request(&mut session, &snapshot))
            })
        });
        assert!(matches!(snapshot.op, Op::SnapshotTree(_)));
    }
}

fn kittest(c: &mut Criterion) {
    let mut demo = Demo::default();
    let mut host = RecordingWindowOps::new();
    let mut harness = egui_kittest::Harness::builder()
        .with_size(egui::vec2(640.0, 480.0))
        .build_ui(move |ui| demo.ui(ui, &mut host));
    c.bench_function("egui_demo/kittest/click_run", |b| {
        b.iter(|| {
            harness.get_by_label("Save").click();
            black_box(harness.run())
        })
    });
}

fn bare_frame(c: &mut Criterion) {
    let ctx = egui::Context::default();
    ctx.enable_accesskit();
    let mut demo = Demo::default();
    let mut host = RecordingWindowOps::new();
    let mut time = 0.0;
    c.bench_function("egui_demo/egui/bare_frame", |b| {
        b.iter(|| {
            time += 1.0 / 60.0;
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(640.0, 480.0),
                )),
                time: Some(time),
                ..Default::default()
            };
            let mut out = ctx.run_ui(input, |ui| demo.ui(ui, &mut host));
            out.textures_delta.clear();
            black_box(out.platform_output.accesskit_update.take())
        })
    });
}

criterion_group!(benches, automation, kittest, bare_frame);
criterion_main!(benches);
