//! The descriptor and its staging file are 0600 *from the moment they exist*, even under a
//! permissive umask: an after-the-fact check would also pass a create-then-chmod, so the test
//! looks at the staging file right after it is created, before anything is written to it.
//! (Own test binary: it changes the process umask.)
// Tests fail loudly by design: helpers outside `#[test]` may unwrap, expect and panic too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(unix)]

use std::os::unix::fs::MetadataExt;

use automation_wire::descriptor::{Descriptor, DescriptorDir, TransportKind};

#[test]
fn staging_and_final_descriptor_are_0600_from_creation() {
    // SAFETY: umask is process-wide; this binary has only this test.
    let old = unsafe { libc::umask(0) };
    let base = tempfile::tempdir().unwrap();
    let dir = DescriptorDir::open_in(base.path()).unwrap();
    assert_eq!(std::fs::metadata(dir.path()).unwrap().mode() & 0o777, 0o700);
    let d = Descriptor {
        version: 1,
        pid: 4242,
        transport: TransportKind::Unix,
        address: "/x/s".into(),
        token: "secret-token".into(),
        app: "perm".into(),
        started_unix_ms: 1,
    };
    let mut seen = None;
    let final_path = dir
        .publish_observed(&d, |staging| {
            let m = std::fs::symlink_metadata(staging).unwrap();
            seen = Some((m.mode() & 0o777, m.len(), m.file_type().is_file()));
        })
        .unwrap();
    unsafe { libc::umask(old) };
    assert_eq!(
        seen,
        Some((0o600, 0, true)),
        "staging file must be 0600 and still empty when it appears"
    );
    assert_eq!(
        std::fs::metadata(&final_path).unwrap().mode() & 0o777,
        0o600
    );
    assert_eq!(DescriptorDir::read(&final_path).unwrap(), d);
    // No staging leftovers.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [std::ffi::OsString::from("4242.json")]);
    // A planted symlink at a staging-like path is never followed: create_new refuses it.
    let target = base.path().join("stolen");
    std::os::unix::fs::symlink(&target, dir.path().join(".planted.tmp")).unwrap();
    let r = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.path().join(".planted.tmp"));
    assert!(r.is_err() && !target.exists());
}
