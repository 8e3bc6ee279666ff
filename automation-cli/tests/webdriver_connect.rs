//! `automation:connect` over WebDriver: a session attached to a running app built with the
//! kit (automation-egui's `bridge_smoke`: the demo in a real eframe window on a private Xvfb)
//! through the bridge endpoint and token its descriptor names. A wrong token is `session not
//! created`; with the right one WebDriver types a name and clicks Save. Ending the session
//! leaves the app running (the server did not start it), and a second client on the freed
//! bridge reads what the app now holds: the name, and the status "Saved".
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/webdriver.rs"]
mod wd;

use std::time::Duration;

use automation_core::{Reply, Request};
use automation_testkit::xvfb::live_demo;
use automation_wire::core_bridge::CoreBridgeClient;
use automation_wire::descriptor::DescriptorDir;
use serde_json::{Value, json};
use wd::{Server, Session, http};

#[test]
fn a_session_attaches_to_a_running_app_by_its_bridge_and_leaves_it_running() {
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
    let field = find("Name");
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
