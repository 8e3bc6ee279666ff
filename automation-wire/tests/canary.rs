//! The release canary: the bridge banner string is in a debug build of an app that installs the
//! bridge, and absent from its release build. Both directions matter: a grep for a string that
//! no longer exists anywhere would pass for the wrong reason.
//!
//! Builds `examples/bridge_canary.rs` with cargo, into `$CARGO_TARGET_DIR/canary` (a separate
//! target dir, so the nested cargo never waits on the lock of the `cargo test` running this).
// Tests fail loudly by design: helpers outside `#[test]` may unwrap, expect and panic too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

const BANNER: &str = "automation: bridge endpoint";

fn build(release: bool) -> Vec<u8> {
    std::fs::read(build_exe(release)).unwrap()
}

fn build_exe(release: bool) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("..").join("target"))
        .join("canary");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(manifest.join(".."))
        .args([
            "build",
            "--quiet",
            "-p",
            "automation-wire",
            "--example",
            "bridge_canary",
        ])
        .env("CARGO_TARGET_DIR", &target);
    if release {
        cmd.arg("--release");
    }
    let status = cmd.status().unwrap();
    assert!(
        status.success(),
        "cargo build of the canary failed: {status}"
    );
    let exe = target
        .join(if release { "release" } else { "debug" })
        .join("examples")
        .join(format!("bridge_canary{}", std::env::consts::EXE_SUFFIX));
    assert!(exe.exists(), "{} not built", exe.display());
    exe
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn banner_in_debug_build_and_absent_from_release_build() {
    let debug = build(false);
    assert!(
        contains(&debug, BANNER),
        "the canary string is absent from the DEBUG build: the canary is retired"
    );
    let release = build(true);
    assert!(!contains(&release, BANNER), "BRIDGE LEAKED INTO RELEASE");
}

#[test]
#[cfg(unix)]
fn debug_app_prints_the_banner_and_publishes_a_descriptor() {
    let exe = build_exe(false);
    let runtime = tempfile::tempdir().unwrap();
    let out = Command::new(&exe)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let dir = runtime.path().join("automation");
    assert!(
        err.contains(&format!("{BANNER} = {}", dir.display())),
        "{err}"
    );
    assert!(err.contains("automation: descriptor = "), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("export AUTOMATION_TOKEN=") && l.len() > 30),
        "{err}"
    );
    assert!(
        err.contains("automation: attach with `automation --attach-pid "),
        "{err}"
    );
    // The app exited: socket dir and descriptor are gone with it.
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn default_features_pull_no_accesskit_and_no_async_runtime() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(cargo)
        .current_dir(manifest.join(".."))
        .args([
            "tree",
            "-p",
            "automation-wire",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    for banned in ["accesskit", "tokio", "async-std", "automation-core"] {
        assert!(
            !tree.lines().any(|l| l.starts_with(banned)),
            "{banned} in the default dependency tree:\n{tree}"
        );
    }
}
