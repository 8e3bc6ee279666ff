//! A screenshot of the built-in demo: our CPU rasterizer against egui_kittest 0.37's `render()`
//! (egui-wgpu, the renderer eframe draws with, on whatever adapter wgpu finds — Mesa's llvmpipe
//! through GL on a machine without a GPU), the same 640×480 frame.
//!
//! - `egui_screenshot/automation/capture_png`: `screenshot::capture` — tessellate, rasterize,
//!   encode the PNG (what the `screenshot` op returns, before base64).
//! - `egui_screenshot/automation/png_only`: the PNG encoding alone, so the render is the
//!   difference.
//! - `egui_screenshot/kittest/step_render`: one `Harness::step()` then `Harness::render()` —
//!   tessellate, render on the GPU device, read the pixels back (no PNG). kittest caches the
//!   image of a frame it rendered, so each render needs a new frame;
//!   `egui_screenshot/kittest/step_only` is that frame alone (render = the difference).
//!
//! Run: `cargo bench -p automation-benches --bench egui_screenshot -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use automation_core::{RecordingWindowOps, Request, Session, execute_request};
use automation_egui::screenshot::{capture, encode_png};
use automation_egui::{Demo, EguiApp, demo_target};
use criterion::{Criterion, criterion_group, criterion_main};

fn ours(c: &mut Criterion) {
    let mut session = Session::new(demo_target().with_instant_animations());
    let settle = Request::from_json(r#"{"op": "settle"}"#).unwrap();
    assert!(execute_request(&mut session, &settle).is_ok());
    let first = capture(&mut session.target, None).unwrap();
    assert_eq!((first.width, first.height), (640, 480));
    let corner = &first.rgba[..4];
    let drawn = first.rgba.chunks(4).filter(|p| *p != corner).count();
    eprintln!("our render: {drawn} pixels differ from the corner");
    c.bench_function("egui_screenshot/automation/capture_png", |b| {
        b.iter(|| black_box(capture(&mut session.target, None).unwrap()))
    });
    c.bench_function("egui_screenshot/automation/png_only", |b| {
        b.iter(|| black_box(encode_png(&first.rgba, first.width, first.height).unwrap()))
    });
}

fn kittest(c: &mut Criterion) {
    let mut demo = Demo::default();
    let mut host = RecordingWindowOps::new();
    let mut harness = egui_kittest::Harness::builder()
        .with_size(egui::vec2(640.0, 480.0))
        .wgpu()
        .build_ui(move |ui| demo.ui(ui, &mut host));
    harness.run();
    let image = harness.render().unwrap();
    assert_eq!(image.dimensions(), (640, 480));
    let corner = *image.get_pixel(0, 0);
    let drawn = image.pixels().filter(|p| **p != corner).count();
    assert!(
        drawn > 5000,
        "kittest's render looks blank: {drawn} pixels drawn"
    );
    eprintln!("kittest render: {drawn} pixels differ from the corner");
    // `render()` returns its cached image for a frame it already rendered: each iteration runs
    // one frame first, and `step_only` times that frame alone.
    c.bench_function("egui_screenshot/kittest/step_render", |b| {
        b.iter(|| {
            harness.step();
            black_box(harness.render().unwrap())
        })
    });
    c.bench_function("egui_screenshot/kittest/step_only", |b| {
        b.iter(|| harness.step())
    });
}

criterion_group!(benches, ours, kittest);
criterion_main!(benches);
