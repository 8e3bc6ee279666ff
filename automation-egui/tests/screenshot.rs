//! Screenshots (CPU rasterized): PNG shape, cropping, determinism and the golden image.
//!
//! Refresh the golden with `UPDATE_GOLDENS=1 cargo test -p automation-egui --features screenshot`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(feature = "screenshot")]

use std::path::PathBuf;

use automation_core::{Image, Reply, Request, Session};
use automation_egui::screenshot::{Screenshot, capture};
use automation_egui::{EguiTarget, demo_target, serve};
use serde_json::{Value, json};

/// Largest per-channel difference accepted against the golden.
const TOLERANCE: u8 = 2;

fn session() -> Session<EguiTarget<'static>> {
    Session::new(demo_target())
}

fn run(s: &mut Session<EguiTarget<'static>>, request: Value) -> Value {
    let r = Request::from_value(request.clone()).unwrap();
    match serve(s, &r) {
        Reply::Ok(v) => v,
        other => panic!("{request}: {other:?}"),
    }
}

/// A screenshot request's image (its PNG as bytes, as `serve` answers it).
fn shot(s: &mut Session<EguiTarget<'static>>, request: Value) -> Image {
    let r = Request::from_value(request.clone()).unwrap();
    match serve(s, &r) {
        Reply::Image(i) => i,
        other => panic!("{request}: {other:?}"),
    }
}

/// The scripted demo state the golden shows.
fn scripted() -> Screenshot {
    let mut s = session();
    run(
        &mut s,
        json!({"op": {"type_text": {"node": {"role": "TextInput"}, "text": "Ada"}}}),
    );
    run(
        &mut s,
        json!({"op": {"invoke_action": {"node": {"label": "Save"}, "action": "click"}}}),
    );
    run(
        &mut s,
        json!({"op": {"expand": {"node": {"label": "Advanced"}}}}),
    );
    run(
        &mut s,
        json!({"op": {"invoke_action": {"node": {"label": "Remember me"}, "action": "click"}}}),
    );
    run(&mut s, json!({"op": "settle"}));
    capture(&mut s.target, None).unwrap()
}

fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn screenshot_is_a_png_of_the_window() {
    let mut s = session();
    let image = shot(&mut s, json!({"op": "screenshot"}));
    assert_eq!((image.width, image.height, image.scale), (640, 480, 1.0));
    let bytes = &image.png;
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let (width, height, rgba) = decode(bytes);
    assert_eq!((width, height), (640, 480));
    let first = &rgba[..4];
    assert!(rgba.chunks(4).any(|p| p != first), "not a blank image");
}

#[test]
fn screenshot_crops_to_a_node_and_scales() {
    let mut s = session();
    let v = shot(
        &mut s,
        json!({"op": {"screenshot": {"node": {"label": "Save"}}}}),
    );
    let b = run(
        &mut s,
        json!({"op": {"read_node": {"node": {"label": "Save"}}}}),
    )["bounds"]
        .clone();
    assert_eq!(f64::from(v.width), b["width"].as_f64().unwrap().ceil());
    assert_eq!(f64::from(v.height), b["height"].as_f64().unwrap().ceil());
    assert_eq!((decode(&v.png).0, decode(&v.png).1), (v.width, v.height));

    let mut hi = Session::new(demo_target().with_pixels_per_point(2.0));
    let v = shot(&mut hi, json!({"op": "screenshot"}));
    assert_eq!((v.width, v.height, v.scale), (1280, 960, 2.0));
}

#[test]
fn two_renders_are_byte_identical() {
    let a = scripted();
    let b = scripted();
    assert_eq!(a.png, b.png);
    // And a second capture of the same target re-renders identically.
    let mut s = session();
    let one = capture(&mut s.target, None).unwrap();
    let two = capture(&mut s.target, None).unwrap();
    assert_eq!(one.png, two.png);
}

#[test]
fn golden_demo() {
    let shot = scripted();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/demo.png");
    if std::env::var_os("UPDATE_GOLDENS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &shot.png).unwrap();
        eprintln!("golden refreshed: {}", path.display());
        return;
    }
    let golden = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; create it with UPDATE_GOLDENS=1", path.display()));
    let (gw, gh, expected) = decode(&golden);
    assert_eq!((gw, gh), (shot.width, shot.height), "golden size");
    let mut worst = 0u8;
    let mut differing = 0usize;
    for (a, b) in shot.rgba.iter().zip(&expected) {
        let d = a.abs_diff(*b);
        worst = worst.max(d);
        if d > TOLERANCE {
            differing += 1;
        }
    }
    if differing > 0 {
        let out = std::env::temp_dir().join("automation-egui-demo.actual.png");
        let _ = std::fs::write(&out, &shot.png);
        panic!(
            "{differing} channels differ by more than {TOLERANCE} (worst {worst}); actual written to {}; refresh with UPDATE_GOLDENS=1 if intended",
            out.display()
        );
    }
}

#[test]
fn a_screenshot_over_the_size_limit_is_refused_before_anything_is_allocated() {
    let mut huge = Session::new(demo_target().with_size(20_000.0, 300.0));
    let r = Request::from_value(json!({"op": "screenshot"})).unwrap();
    match serve(&mut huge, &r) {
        Reply::Err(e) => {
            assert_eq!(e.code, automation_core::ErrorCode::Unsupported, "{e:?}");
            assert!(e.message.contains("20000x300"), "{}", e.message);
        }
        other => panic!("a 20000x300 screenshot was made: {other:?}"),
    }
}
