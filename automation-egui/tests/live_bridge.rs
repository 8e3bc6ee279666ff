//! Live attach end to end: `examples/bridge_smoke` under Xvfb, found through its descriptor,
//! driven over the bridge (snapshot, click Save, snapshot, screenshot), with the descriptor
//! and socket owner-only. Needs `Xvfb` (`scripts/test` installs `xvfb`); without it the test
//! fails, unless `AUTOMATION_ALLOW_MISSING` lists `xvfb` (then it is skipped and logged).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(all(feature = "live", unix, debug_assertions))]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use automation_core::{Reply, Request};
use automation_testkit::xvfb::live_demo;
use automation_wire::core_bridge::CoreBridgeClient;
use automation_wire::descriptor::DescriptorDir;
use serde_json::{Value, json};

fn ok(client: &mut CoreBridgeClient, request: Value) -> Value {
    let r = Request::from_value(request.clone()).unwrap();
    match client.request(&r) {
        Reply::Ok(v) => v,
        other => panic!("{request}: {other:?}"),
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn attach_snapshot_click_snapshot_screenshot() {
    let Some(demo) = live_demo() else {
        return;
    };
    let pid = demo.pid();
    let dir = DescriptorDir::open_in(demo.runtime.path()).unwrap();
    let descriptor = dir.find(pid).unwrap().unwrap();
    assert_eq!(mode(&dir.path_for(pid)), 0o600, "descriptor is owner-only");
    let socket = Path::new(&descriptor.address);
    assert_eq!(mode(socket), 0o600, "socket is owner-only");
    assert_eq!(
        mode(socket.parent().unwrap()),
        0o700,
        "socket directory is owner-only"
    );

    let mut client = CoreBridgeClient::from_descriptor(&descriptor).unwrap();
    let before = ok(
        &mut client,
        json!({"op": {"snapshot_tree": {"max_nodes": 2000, "format": "json"}}}),
    );
    let nodes = before["nodes"].as_array().unwrap();
    assert!(
        nodes
            .iter()
            .any(|n| n["role"] == "Button" && n["label"] == "Save"),
        "{before}"
    );
    assert!(nodes.iter().any(|n| n["value"] == "Ready"));

    ok(
        &mut client,
        json!({"op": {"invoke_action": {"node": {"role": "Button", "label": "Save"}, "action": "click"}}}),
    );
    let after = ok(
        &mut client,
        json!({"op": {"snapshot_tree": {"max_nodes": 2000, "format": "json"}}}),
    );
    assert!(
        after["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["value"] == "Saved"),
        "{after}"
    );
    let said = ok(&mut client, json!({"op": "pull_announcements"}));
    assert!(said.to_string().contains("Saved"), "{said}");

    // A real pointer click through the live window's input path, too.
    ok(
        &mut client,
        json!({"op": {"inject_pointer": {"node": {"label": "Remember me"}}}}),
    );
    ok(
        &mut client,
        json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "toggled", "flag": true}}}),
    );

    // On the wire a screenshot is JSON, its PNG base64 (what the JS client reads) …
    let request = Request::from_value(json!({"op": "screenshot"})).unwrap();
    let wire: Value = client
        .inner_mut()
        .request::<Request, Value>(&request)
        .unwrap();
    assert_eq!(wire["status"], "ok", "{wire}");
    assert_eq!(wire["data"]["image"]["mime"], "image/png");
    assert!(
        wire["data"]["image"]["base64"].is_string(),
        "{}",
        wire["data"]["width"]
    );
    // … which the typed client reads back into the bytes.
    let shot = match client.request(&request) {
        Reply::Image(i) => i,
        other => panic!("screenshot: {other:?}"),
    };
    assert!(
        shot.width > 100 && shot.height > 100,
        "{}x{}",
        shot.width,
        shot.height
    );
    let png_bytes = shot.png;
    let _ = std::fs::write(
        std::env::temp_dir().join("automation-egui-live.png"),
        &png_bytes,
    );
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .unwrap();
    let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut rgba).unwrap();
    let first = rgba[..4].to_vec();
    let distinct = rgba.chunks(4).filter(|p| *p != first.as_slice()).count();
    assert!(
        distinct > 1000,
        "the live screenshot shows the app ({distinct} pixels differ from the corner)"
    );
    let windows = ok(&mut client, json!({"op": "list_windows"}));
    assert_eq!(windows["windows"][0]["title"], "main");
}
