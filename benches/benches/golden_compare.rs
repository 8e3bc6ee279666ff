//! Golden screenshots: comparing two 640×480 captures (the budget: ≤ 5 ms), the YIQ
//! compare alone (identical, a changed label, every pixel changed), and the whole check from
//! PNG bytes (decode both, compare, encode the diff image).
//!
//! Run: `cargo bench -p automation-benches --bench golden_compare -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use automation_golden::{Limits, Region, Rgba, Update, check, compare, encode_png};
use criterion::{Criterion, criterion_group, criterion_main};

/// A 640×480 "window": a gradient background with rows of dark "text" blocks.
fn window() -> Rgba {
    let (w, h) = (640u32, 480u32);
    let mut img = Rgba::filled(w, h, [0, 0, 0, 255]);
    for y in 0..h {
        for x in 0..w {
            let bg = 230 - (y * 20 / h) as u8;
            let text = (y % 24) < 12 && (x % 9) < 6 && (x / 90 + y / 24) % 3 != 0;
            let c = if text { 40 } else { bg };
            img.set_pixel(x, y, [c, c, c.saturating_add(10), 255]);
        }
    }
    img
}

/// The same window with one label's text changed (a 60×14 block).
fn changed(base: &Rgba) -> Rgba {
    let mut img = base.clone();
    for y in 100..114 {
        for x in 200..260 {
            if (x + y) % 3 == 0 {
                img.set_pixel(x, y, [200, 30, 30, 255]);
            }
        }
    }
    img
}

fn benches(c: &mut Criterion) {
    let base = window();
    let label = changed(&base);
    let mut inverted = base.clone();
    for p in inverted.pixels.chunks_exact_mut(4) {
        p[0] = 255 - p[0];
        p[1] = 255 - p[1];
        p[2] = 255 - p[2];
    }
    let limits = Limits::default();
    let mask = [Region {
        x: 190,
        y: 90,
        width: 80,
        height: 30,
    }];
    let mut g = c.benchmark_group("golden");
    g.bench_function("compare_640x480_identical", |b| {
        b.iter(|| black_box(compare(&base, &base, &limits, &[]).unwrap().diff_pixels))
    });
    g.bench_function("compare_640x480_label_changed", |b| {
        b.iter(|| black_box(compare(&base, &label, &limits, &[]).unwrap().diff_pixels))
    });
    g.bench_function("compare_640x480_label_masked", |b| {
        b.iter(|| black_box(compare(&base, &label, &limits, &mask).unwrap().diff_pixels))
    });
    g.bench_function("compare_640x480_all_changed", |b| {
        b.iter(|| black_box(compare(&base, &inverted, &limits, &[]).unwrap().diff_pixels))
    });
    // What assert_screenshot does after capturing: decode the baseline, compare, and on a
    // mismatch encode the diff image.
    let (base_png, label_png) = (encode_png(&base).unwrap(), encode_png(&label).unwrap());
    g.bench_function("check_from_png_640x480_matched", |b| {
        b.iter(|| {
            black_box(
                check(
                    Some(&base_png),
                    &base,
                    &base_png,
                    &limits,
                    &[],
                    Update::Missing,
                )
                .unwrap(),
            )
        })
    });
    g.bench_function("check_from_png_640x480_differs", |b| {
        b.iter(|| {
            black_box(
                check(
                    Some(&base_png),
                    &label,
                    &label_png,
                    &limits,
                    &[],
                    Update::Missing,
                )
                .unwrap(),
            )
        })
    });
    g.finish();
}

criterion_group!(golden, benches);
criterion_main!(golden);
