//! `ExpectScreenshot` on the demo: the first check writes the baseline, the same frame
//! matches it with 0 differing pixels, a click that changes a label fails with the counts and
//! a diff image whose red pixels are exactly the pixels that changed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_core::ErrorCode;
use automation_core::harness::{Harness, by_role};
use automation_egui::golden::ExpectScreenshot;
use automation_golden::{Limits, Verdict, decode_png};

#[test]
fn the_demo_matches_its_baseline_until_a_label_changes() {
    let dir = tempfile::tempdir().unwrap();
    let strict = Limits {
        threshold: 0.0,
        ..Limits::default()
    };
    let mut h = Harness::new(automation_egui::demo_target()).unwrap();
    assert_eq!(
        h.expect_screenshot_in(dir.path(), "demo", &strict).unwrap(),
        Verdict::Created
    );
    let again = h.expect_screenshot_in(dir.path(), "demo", &strict).unwrap();
    assert!(
        matches!(again, Verdict::Matched(ref c) if c.diff_pixels == 0),
        "{again:?}"
    );

    h.click(by_role("Button").label("Save")).unwrap();
    let e = h
        .expect_screenshot_in(dir.path(), "demo", &strict)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::AssertionFailed, "{e:?}");
    assert!(e.message.contains("differs"), "{}", e.message);
    let read = |n: &str| decode_png(&std::fs::read(dir.path().join(n)).unwrap()).unwrap();
    let (base, actual, diff) = (
        read("demo.png"),
        read("demo.actual.png"),
        read("demo.diff.png"),
    );
    let changed: Vec<usize> = (0..base.pixels.len() / 4)
        .filter(|i| base.pixels[i * 4..i * 4 + 4] != actual.pixels[i * 4..i * 4 + 4])
        .collect();
    let red: Vec<usize> = (0..diff.pixels.len() / 4)
        .filter(|i| diff.pixels[i * 4..i * 4 + 4] == [255, 0, 0, 255])
        .collect();
    assert!(!changed.is_empty());
    assert_eq!(red, changed, "the diff marks what changed and nothing else");
    assert!(h.expect_screenshot_in(dir.path(), "../x", &strict).is_err());
}
