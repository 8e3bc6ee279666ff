//! The stock eframe app (`automation-atspi/stock-eframe-app`: eframe's defaults, no automation
//! code), built in release for the tests that drive it over AT-SPI.

use std::path::PathBuf;
use std::process::Command;

/// Builds the app with `cargo build --release --locked` (its own workspace) into
/// `<target dir>/stock-eframe-app`, where `<target dir>` is the one the calling test binary
/// runs from (`<target>/<profile>/deps/…`); the first build takes minutes, later ones are
/// no-ops. Returns the executable's path; a failed build fails the test with cargo's stderr.
#[allow(clippy::expect_used, clippy::panic)] // test support: a failure is the test's failure
pub fn build_stock_eframe_app() -> PathBuf {
    let manifest = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../automation-atspi/stock-eframe-app/Cargo.toml"
    );
    let exe = std::env::current_exe().expect("current exe");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("a test binary under <target>/<profile>/deps")
        .join("stock-eframe-app");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let t = std::time::Instant::now();
    let out = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--locked",
            "--quiet",
            "--manifest-path",
            manifest,
        ])
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo");
    assert!(
        out.status.success(),
        "building the stock eframe app failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("stock-eframe-app release build: {:?}", t.elapsed());
    target.join("release/stock-eframe-app")
}
