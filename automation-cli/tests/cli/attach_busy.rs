//! A second client at an attached app is told the truth at once ("another client is
//! attached"), and with `--wait` it waits for the first to detach.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(unix)]

use std::process::Stdio;
use std::time::{Duration, Instant};

use automation_wire::core_bridge::CoreBridgeClient;

use crate::support::live_app::LiveApp;

struct App(LiveApp);

impl std::ops::Deref for App {
    type Target = LiveApp;
    fn deref(&self) -> &LiveApp {
        &self.0
    }
}

impl App {
    fn start() -> App {
        App(LiveApp::start("busy-test", |_| None))
    }

    fn cli(&self, args: &[&str]) -> std::process::Child {
        self.automation(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

const FIND_SAVE: &str = r#"{"find_node": {"role": "Button", "label": "Save"}}"#;

fn finish(child: std::process::Child) -> (i32, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_busy_app_is_reported_at_once_in_every_attach_mode() {
    let app = App::start();
    let holder = CoreBridgeClient::connect(&app.address, &app.token).unwrap();
    let pid = std::process::id().to_string();
    let modes: Vec<Vec<&str>> = vec![
        vec!["--attach-pid", &pid],
        vec!["--attach"],
        vec!["--connect", &app.address, "--token", &app.token],
    ];
    for mode in modes {
        let mut args = vec!["op"];
        args.extend(mode.iter().copied());
        args.push(FIND_SAVE);
        let start = Instant::now();
        let (code, _, err) = finish(app.cli(&args));
        let took = start.elapsed();
        eprintln!("{mode:?}: busy reported in {took:?}");
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("another client is attached to"), "{err}");
        assert!(err.contains("--wait SECS"), "{err}");
        assert!(!err.contains("token"), "no talk of a wrong token: {err}");
        if mode[0] != "--connect" {
            assert!(err.contains(&format!("(pid {pid})")), "{err}");
        }
        assert!(took < Duration::from_secs(3), "{took:?}");
    }
    drop(holder);
}

#[test]
fn wait_waits_for_the_other_client_to_detach() {
    let app = App::start();
    let holder = CoreBridgeClient::connect(&app.address, &app.token).unwrap();
    let pid = std::process::id().to_string();
    let start = Instant::now();
    let child = app.cli(&["op", "--attach-pid", &pid, "--wait", "10", FIND_SAVE]);
    std::thread::sleep(Duration::from_millis(800));
    drop(holder);
    let (code, out, err) = finish(child);
    let took = start.elapsed();
    eprintln!("--wait 10: attached {took:?} after start (the holder left at 800 ms)");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"node\""), "{out}");
    assert!(took < Duration::from_secs(8), "{took:?}");

    // A wait that runs out says so.
    let _holder = CoreBridgeClient::connect(&app.address, &app.token).unwrap();
    let start = Instant::now();
    let (code, _, err) = finish(app.cli(&["op", "--attach-pid", &pid, "--wait", "0.5", FIND_SAVE]));
    let took = start.elapsed();
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("still attached") && err.contains("0.5 s"),
        "{err}"
    );
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(4),
        "{took:?}"
    );
}

#[test]
fn wait_must_be_a_number_of_seconds() {
    let out = crate::support::automation()
        .args(["--attach", "--wait", "soon"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("number of seconds"));
}
