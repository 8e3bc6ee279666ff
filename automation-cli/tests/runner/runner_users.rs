//! Another local user, created for the test (`useradd`, removed after), against a run of
//! ours: they can read neither our records (a typed password, a screenshot) nor a script's
//! work directory, cannot redirect what we write (a records root or a JUnit path of theirs),
//! and directories they made first in a shared temp dir block nobody. Needs root (to create
//! the user and act as them with `setpriv`).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::hostile;
use automation_testkit::heavy::Heavy;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use hostile::{entries, node_present, root_present};

fn serial() -> Heavy {
    automation_testkit::heavy::heavy()
}

/// A throwaway local user, removed when dropped.
struct OtherUser {
    name: String,
    uid: u32,
    gid: u32,
}

impl OtherUser {
    fn create(tag: &str) -> Self {
        let name = format!("akt{tag}{}", std::process::id() % 100_000);
        let ok = Command::new("useradd")
            .args([
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                "--user-group",
            ])
            .arg(&name)
            .status()
            .unwrap();
        assert!(ok.success(), "useradd {name}");
        let id = |flag: &str| -> u32 {
            let out = Command::new("id").arg(flag).arg(&name).output().unwrap();
            String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
        };
        let (uid, gid) = (id("-u"), id("-g"));
        Self { name, uid, gid }
    }

    /// Runs `cmd ARGS…` as this user (no supplementary groups).
    fn run(&self, cmd: &str, args: &[&str]) -> Output {
        Command::new("setpriv")
            .arg(format!("--reuid={}", self.uid))
            .arg(format!("--regid={}", self.gid))
            .arg("--clear-groups")
            .arg("--")
            .arg(cmd)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// Whether this user can read the file or list the directory at `path`.
    fn can_read(&self, path: &Path) -> bool {
        let p = path.to_str().unwrap();
        let out = if path.is_dir() {
            self.run("ls", &[p])
        } else {
            self.run("cat", &[p])
        };
        out.status.success()
    }

    fn chown(&self, path: &Path) {
        std::os::unix::fs::chown(path, Some(self.uid), Some(self.gid)).unwrap();
    }
}

impl Drop for OtherUser {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(&self.name).status();
    }
}

/// A base directory others can traverse (the tempdir itself is 0700, which would hide
/// everything whatever we did), with a shared `tmp` (1777, like `/tmp`).
fn shared_base() -> (tempfile::TempDir, PathBuf) {
    let base = tempfile::tempdir().unwrap();
    std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let tmp = base.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777)).unwrap();
    (base, tmp)
}

/// A test's start: the serial guard, another user, and a base directory with a shared
/// `tmp`; `None` when this does not run as root (or node is missing and `node` is needed)
/// and the run opted out of it.
fn other_user_test(
    tag: &str,
    node: bool,
) -> Option<(Heavy, OtherUser, tempfile::TempDir, PathBuf)> {
    let guard = serial();
    if !root_present("it creates a local user and acts as them") || (node && !node_present()) {
        return None;
    }
    let other = OtherUser::create(tag);
    let (base, tmp) = shared_base();
    Some((guard, other, base, tmp))
}

/// `automation ARGS…` as us, with `TMPDIR=tmp` and no `XDG_RUNTIME_DIR` (unless `xdg`).
fn automation(args: &[&str], dir: &Path, tmp: &Path, xdg: Option<&Path>) -> Command {
    let mut cmd = crate::support::automation();
    cmd.args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .env_remove("XDG_RUNTIME_DIR")
        .stdin(Stdio::null());
    if let Some(x) = xdg {
        cmd.env("XDG_RUNTIME_DIR", x);
    }
    cmd
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

/// Every file and directory under `dir` with its mode.
fn modes(dir: &Path, out: &mut Vec<(PathBuf, u32)>) {
    out.push((dir.to_path_buf(), mode(dir)));
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            modes(&p, out);
        } else {
            out.push((p.clone(), mode(&p)));
        }
    }
}

#[test]
fn another_user_reads_neither_our_records_nor_a_scripts_work_directory() {
    let Some((_s, other, base, tmp)) = other_user_test("r", true) else {
        return;
    };
    let dir = base.path();
    // The reader is not blind: what is open to all, they read.
    std::fs::write(dir.join("public.txt"), "open").unwrap();
    std::fs::set_permissions(
        dir.join("public.txt"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    assert!(other.can_read(&dir.join("public.txt")));
    assert!(other.can_read(dir));
    std::fs::write(
        dir.join("secret.json"),
        r#"[{"id": "type", "tool": "type_text", "args": {"node": {"role": "TextInput", "label": "Name"}, "text": "hunter2-password"}},
            {"id": "shot", "tool": "screenshot"}]"#,
    )
    .unwrap();
    let out = automation(
        &["run", "secret.json", "--records", "records"],
        dir,
        &tmp,
        None,
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = dir.join("records");
    let exec = records.join(&entries(&records)[0]);
    let typed = exec.join("001-type-type_text.json");
    assert!(
        std::fs::read_to_string(&typed)
            .unwrap()
            .contains("hunter2-password")
    );
    let mut all = Vec::new();
    modes(&records, &mut all);
    for (p, m) in &all {
        let want = if p.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(*m, want, "{} is {m:o}", p.display());
    }
    for p in [
        &records,
        &exec,
        &typed,
        &exec.join("002-shot-screenshot.png"),
    ] {
        assert!(!other.can_read(p), "{} read {}", other.name, p.display());
    }
    // A script's work directory, while it runs: the script waits for `go`.
    std::fs::write(
        dir.join("wait.ts"),
        format!(
            "import fs from 'node:fs';\n\
             const go: string = {:?};\n\
             while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 20));\n",
            dir.join("go").display().to_string()
        ),
    )
    .unwrap();
    let mut child = automation(&["run", "wait.ts", "--records", "records"], dir, &tmp, None)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // SAFETY: geteuid has no preconditions.
    let runtime = tmp.join(format!("automation-{}", unsafe { libc::geteuid() }));
    let until = Instant::now() + Duration::from_secs(20);
    let work = loop {
        let found = entries(&runtime)
            .into_iter()
            .find(|n| n.starts_with("automation-run-"))
            .map(|n| runtime.join(n).join("work"));
        if let Some(w) = found.filter(|w| w.join("script.mjs").exists()) {
            break w;
        }
        assert!(
            Instant::now() < until,
            "no run directory in {}",
            runtime.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(mode(&runtime), 0o700);
    assert_eq!(mode(work.parent().unwrap()), 0o700);
    for p in [
        &runtime,
        work.parent().unwrap(),
        &work,
        &work.join("script.mjs"),
    ] {
        assert!(!other.can_read(p), "{} read {}", other.name, p.display());
    }
    std::fs::write(dir.join("go"), "").unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn another_user_cannot_redirect_our_writes() {
    let Some((_s, other, base, tmp)) = other_user_test("w", false) else {
        return;
    };
    let dir = base.path();
    std::fs::write(dir.join("ok.json"), r#"[{"tool": "list_windows"}]"#).unwrap();
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    // A records root of theirs, open to all, with a `run.json` link planted where ours would go.
    let theirs = tmp.join("records");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o777)).unwrap();
    other.chown(&theirs);
    let out = automation(
        &["run", "ok.json", "--records", theirs.to_str().unwrap()],
        dir,
        &tmp,
        None,
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("owned by uid {}", other.uid)),
        "{stderr}"
    );
    assert!(
        entries(&theirs).is_empty(),
        "nothing written into their directory"
    );
    // A JUnit path of theirs in the shared dir: their link to our file.
    let link = tmp.join("junit.xml");
    let made = other.run(
        "ln",
        &["-s", victim.to_str().unwrap(), link.to_str().unwrap()],
    );
    assert!(made.status.success());
    let out = automation(
        &[
            "run",
            "ok.json",
            "--records",
            "records",
            "--junit",
            link.to_str().unwrap(),
        ],
        dir,
        &tmp,
        None,
    )
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    // An XDG_RUNTIME_DIR of theirs: not used; nothing of ours lands there.
    let their_runtime = tmp.join("their-runtime");
    std::fs::create_dir(&their_runtime).unwrap();
    std::fs::set_permissions(&their_runtime, std::fs::Permissions::from_mode(0o777)).unwrap();
    other.chown(&their_runtime);
    std::fs::write(dir.join("s.mjs"), "console.log('ran');\n").unwrap();
    if node_present() {
        let out = automation(
            &["run", "s.mjs", "--records", "records"],
            dir,
            &tmp,
            Some(&their_runtime),
        )
        .output()
        .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(entries(&their_runtime).is_empty());
    }
}

#[test]
fn directories_another_user_made_first_block_nobody() {
    let Some((_s, other, base, tmp)) = other_user_test("b", true) else {
        return;
    };
    let dir = base.path();
    // What a shared-/tmp design would have used, and our own per-user name: made first by them.
    // SAFETY: geteuid has no preconditions.
    let ours = tmp.join(format!("automation-{}", unsafe { libc::geteuid() }));
    for (d, m) in [(tmp.join("automation"), 0o700), (ours.clone(), 0o777)] {
        std::fs::create_dir(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(m)).unwrap();
        other.chown(&d);
    }
    std::fs::write(dir.join("s.mjs"), "console.log('ran');\n").unwrap();
    let out = automation(&["run", "s.mjs", "--records", "records"], dir, &tmp, None)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("ran"), "{stderr}");
    assert!(
        entries(&ours).is_empty(),
        "nothing of ours in their directory"
    );
    let out = automation(&["exec", "--", "true"], dir, &tmp, None)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The fresh directory used instead is gone once the process has ended.
    let left = hostile::until_empty(hostile::BOUND, || {
        entries(&tmp)
            .into_iter()
            .filter(|n| n.starts_with(&format!("automation-{}-", unsafe { libc::geteuid() })))
            .collect()
    });
    assert!(left.is_empty(), "{left:?}");
}
