//! WebDriver sessions that attach to a running app rather than start one; ending such a
//! session leaves the app running (the server did not start it).
//! - `automation:connect`: an app built with the kit (automation-egui's `bridge_smoke`, the
//!   demo in a real eframe window on a private Xvfb), by the bridge endpoint and token its
//!   descriptor names. A wrong token is `session not created`; with the right one WebDriver
//!   types a name and clicks Save, and a second client on the freed bridge reads what the app
//!   holds: the name, and the status "Saved".
//! - `automation:atspi`: a GTK app on an accessibility bus, by pid. One server launches the
//!   two-window app (`tests/python/two_windows.py`) on a private display; a second server,
//!   started on that display's buses (the app's own environment), attaches to it; keys typed
//!   through the attached session land in the app (its own record says so).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::webdriver as wd;

use std::path::Path;
use std::time::{Duration, Instant};

use automation_core::{Reply, Request};
use automation_testkit::xvfb::live_demo;
use automation_wire::core_bridge::CoreBridgeClient;
use automation_wire::descriptor::DescriptorDir;
use serde_json::{Value, json};
use wd::{Server, Session, TwoWindows, http};

#[test]
fn a_session_attaches_to_a_running_app_by_its_bridge_and_leaves_it_running() {
    // An eframe window on a private Xvfb.
    let _heavy = automation_testkit::heavy::heavy_shared();
    let Some(mut demo) = live_demo() else {
        return;
    };
    let descriptor = DescriptorDir::open_in(demo.runtime.path())
        .unwrap()
        .find(demo.pid())
        .unwrap()
        .unwrap();

    let server = Server::start(&[]);
    let addr = server.addr();
    let caps = |token: &str| {
        json!({
            "platformName": "linux",
            "appium:automationName": "automation",
            "automation:connect": descriptor.address,
            "automation:token": token,
        })
    };
    // A wrong token: refused, with the reason.
    let wrong = json!({"capabilities": {"alwaysMatch": caps("not-the-token")}}).to_string();
    let (status, body) = http(&addr, "POST", "/session", wrong.as_bytes(), &[]);
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (500, Some("session not created")),
        "{body}"
    );

    let session = Session::new(&addr, caps(&descriptor.token));
    let call = |method: &str, path: &str, v: Value| session.call(method, path, v);
    let find = |name: &str| -> String {
        Session::element(&call(
            "POST",
            "/element",
            json!({"using": "name", "value": name}),
        ))
    };
    // By name, the demo's Label "Name" comes first; its field is the TextInput of that name.
    let field = Session::element(&call(
        "POST",
        "/element",
        json!({"using": "xpath", "value": "//TextInput[@name='Name']"}),
    ));
    call("POST", &format!("/element/{field}/clear"), json!({}));
    call(
        "POST",
        &format!("/element/{field}/value"),
        json!({"text": "Zoë"}),
    );
    let save = find("Save");
    call("POST", &format!("/element/{save}/click"), json!({}));
    call("DELETE", "", Value::Null);
    assert!(
        demo.app.0.try_wait().unwrap().is_none(),
        "ending the session left the app it attached to running"
    );

    // A second client on the bridge, now free: what the app holds.
    let mut client =
        CoreBridgeClient::from_descriptor_with_wait(&descriptor, Duration::from_secs(10)).unwrap();
    let request = Request::from_value(
        json!({"op": {"snapshot_tree": {"max_nodes": 2000, "format": "json"}}}),
    )
    .unwrap();
    let Reply::Ok(tree) = client.request(&request) else {
        panic!("snapshot_tree over the bridge failed");
    };
    let nodes = tree["nodes"].as_array().unwrap();
    assert!(
        nodes
            .iter()
            .any(|n| n["role"] == "TextInput" && n["label"] == "Name" && n["value"] == "Zoë"),
        "{tree}"
    );
    assert!(nodes.iter().any(|n| n["value"] == "Saved"), "{tree}");
}

#[test]
fn a_session_attaches_to_a_running_app_on_its_accessibility_bus_by_pid() {
    // A GTK app on a private display.
    let _heavy = automation_testkit::heavy::heavy_shared();
    let Some(two) = TwoWindows::new() else {
        return;
    };
    let launcher = Server::start(&[]);
    let owner = Session::new(&launcher.addr(), json!({"appium:app": two.app}));
    let pid = owner.caps["automation:pid"].as_u64().unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while owner
        .call("GET", "/window/handles", Value::Null)
        .as_array()
        .unwrap()
        .len()
        < 2
    {
        assert!(Instant::now() < until, "the app's two windows never showed");
        std::thread::sleep(Duration::from_millis(200));
    }

    // A second server on the app's own display and buses, as its environment names them.
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    let mut env: Vec<(String, String)> = environ
        .split(|b| *b == 0)
        .filter_map(|kv| std::str::from_utf8(kv).ok()?.split_once('='))
        .filter(|(k, _)| ["DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"].contains(k))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(env.len(), 3, "{env:?}");
    env.push(("AT_SPI_BUS_ADDRESS".into(), String::new()));
    let attacher = Server::spawn_env(&["webdriver", "--port", "0"], &env);
    let attached = Session::new(&attacher.addr(), json!({"automation:atspi": pid}));
    let note = Session::element(&attached.call(
        "POST",
        "/element",
        json!({"using": "xpath", "value": "//*[@name=\"First\"]//TextInput"}),
    ));
    attached.call(
        "POST",
        &format!("/element/{note}/value"),
        json!({"text": "attached"}),
    );
    let text = two.record_with("First: attached");
    assert!(
        text.lines().any(|l| l == "First: attached"),
        "the app's record: {text:?}"
    );

    attached.call("DELETE", "", Value::Null);
    assert!(
        Path::new(&format!("/proc/{pid}")).exists(),
        "ending the attached session left the app running"
    );
    assert_eq!(
        owner
            .call("GET", "/window/handles", Value::Null)
            .as_array()
            .unwrap()
            .len(),
        2,
        "the launching session still drives it"
    );
    owner.call("DELETE", "", Value::Null);
}
