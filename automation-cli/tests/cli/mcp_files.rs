//! `screenshot save_to` through the real server: a new file, relative paths reported absolute,
//! no overwrite without `overwrite: true`, symlinks and FIFOs refused at once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::mcp as common;

use std::time::{Duration, Instant};

use common::Server;
use serde_json::{Value, json};

/// The screenshot tool's error code and message (None when it succeeded).
fn error_of(r: &Value) -> Option<(String, String)> {
    (r["result"]["isError"] == json!(true)).then(|| {
        let s = &r["result"]["structuredContent"];
        (
            s["code"].as_str().unwrap_or_default().to_string(),
            s["message"].as_str().unwrap_or_default().to_string(),
        )
    })
}

/// Whether this build can render (else the screenshot itself fails and the test is moot).
fn renders(s: &mut Server, dir: &std::path::Path) -> bool {
    let probe = dir.join("probe.png");
    let r = s.call(1, "screenshot", json!({"save_to": probe}));
    match error_of(&r) {
        None => true,
        Some((code, msg)) => {
            let must = std::env::var_os("CI").is_some() || cfg!(feature = "screenshot");
            assert!(!must, "screenshot must work here: {code} {msg}");
            eprintln!("note: skipped, no renderer: {msg}");
            false
        }
    }
}

#[test]
fn save_to_creates_new_files_and_refuses_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Server::start_in(dir.path());
    if !renders(&mut s, dir.path()) {
        return;
    }
    // Relative: lands in the server's current directory, reported absolute.
    let r = s.call(2, "screenshot", json!({"save_to": "rel.png"}));
    assert_eq!(error_of(&r), None, "{r}");
    let reported = r["result"]["structuredContent"]["path"].as_str().unwrap();
    assert!(std::path::Path::new(reported).is_absolute(), "{reported}");
    assert!(dir.path().join("rel.png").is_file());

    // Existing file: refused, then replaced with overwrite: true.
    let r = s.call(3, "screenshot", json!({"save_to": "rel.png"}));
    let (code, msg) = error_of(&r).expect("refused");
    assert_eq!(code, "BAD_ARGUMENT");
    assert!(msg.contains("already exists"), "{msg}");
    let r = s.call(
        4,
        "screenshot",
        json!({"save_to": "rel.png", "overwrite": true}),
    );
    assert_eq!(error_of(&r), None, "{r}");

    // A symlink to a file the server's user can write: refused, the target untouched.
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join("link.png")).unwrap();
    for (id, overwrite) in [(5, false), (6, true)] {
        let r = s.call(
            id,
            "screenshot",
            json!({"save_to": "link.png", "overwrite": overwrite}),
        );
        let (_, msg) = error_of(&r).expect("refused");
        assert!(msg.contains("symbolic link"), "{msg}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");

    // A FIFO: refused within a bound, and the server serves on.
    let fifo = dir.path().join("fifo.png");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let start = Instant::now();
    let r = s.call(7, "screenshot", json!({"save_to": fifo, "overwrite": true}));
    let took = start.elapsed();
    let (_, msg) = error_of(&r).expect("refused");
    assert!(msg.contains("FIFO"), "{msg}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    eprintln!("FIFO refused in {took:?}");
    s.assert_serving(8);
}
