//! End to end: spawn the real `automation` binary and speak MCP to it with the rmcp client.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_core::{CATALOG, Cap};
use base64::Engine as _;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

async fn start() -> Client {
    let cmd = crate::support::automation_async().configure(|c| {
        c.arg("--headless");
    });
    let transport = TokioChildProcess::new(cmd).expect("spawn automation");
    ().serve(transport).await.expect("MCP initialize")
}

/// Sends a tool call the test may cancel later.
async fn send_cancellable(
    client: &Client,
    params: CallToolRequestParams,
) -> rmcp::service::RequestHandle<RoleClient> {
    use rmcp::model::{CallToolRequest, ClientRequest};
    client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .expect("send")
}

fn args(v: Value) -> JsonObject {
    v.as_object().cloned().unwrap_or_default()
}

async fn call(
    client: &Client,
    name: &'static str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(args(arguments)))
        .await
}

fn structured(r: &CallToolResult) -> &Value {
    r.structured_content.as_ref().expect("structured content")
}

fn is_error(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_is_driven_over_mcp() {
    let client = start().await;

    // The server says how to use it.
    let info = client.peer_info().expect("server info");
    assert!(
        info.instructions
            .as_deref()
            .unwrap_or_default()
            .contains("snapshot")
    );

    // One tool per core op of the catalog (the default caps) and the tools that are no op
    // (execute_sequence, export_test, assert_screenshot), strict, annotated.
    let tools = client.list_all_tools().await.expect("tools/list");
    let core = CATALOG.iter().filter(|s| s.cap == Cap::Core).count();
    assert_eq!(tools.len(), core + automation_session::tools::NOT_OPS.len());
    for t in &tools {
        assert_eq!(
            t.input_schema.get("additionalProperties"),
            Some(&json!(false)),
            "{}",
            t.name
        );
        assert_eq!(
            t.annotations.as_ref().and_then(|a| a.open_world_hint),
            Some(false),
            "{}",
            t.name
        );
    }

    // snapshot -> find
    let snap = call(&client, "snapshot_tree", json!({})).await.unwrap();
    assert!(!is_error(&snap), "{snap:?}");
    assert!(
        format!("{:?}", snap.content).contains("Button \\\"Save\\\" [e"),
        "the snapshot shows the Save button"
    );
    let found = call(
        &client,
        "find_node",
        json!({"role": "Button", "label": "Save"}),
    )
    .await
    .unwrap();
    assert!(!is_error(&found), "{found:?}");
    let save = structured(&found)["node"]
        .as_str()
        .expect("a node id string")
        .to_string();

    // act
    let click = call(
        &client,
        "invoke_action",
        json!({"node": save, "action": "click", "settle": {"clock_millis": 16}}),
    )
    .await
    .unwrap();
    assert!(!is_error(&click), "{click:?}");

    // assert: the polite status announced "Saved"
    let pulled = call(&client, "pull_announcements", json!({}))
        .await
        .unwrap();
    assert!(!is_error(&pulled), "{pulled:?}");
    let texts: Vec<&str> = structured(&pulled)["announcements"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["text"].as_str()).collect())
        .unwrap_or_default();
    assert!(texts.contains(&"Saved"), "announcements: {texts:?}");
    // …and the node that says so exists (as its value or as its label, depending on the target).
    let by_value = call(
        &client,
        "assert_node",
        json!({"node": {"value": "Saved"}, "kind": "exists"}),
    )
    .await
    .unwrap();
    let by_label = call(
        &client,
        "assert_node",
        json!({"node": {"label": "Saved"}, "kind": "exists"}),
    )
    .await
    .unwrap();
    assert!(
        !is_error(&by_value) || !is_error(&by_label),
        "{by_value:?} {by_label:?}"
    );

    // An unknown argument is an isError result that names the field (not a protocol error).
    let bad = call(&client, "find_node", json!({"lable": "Save"}))
        .await
        .expect("a result, not a JSON-RPC error");
    assert!(is_error(&bad));
    assert_eq!(structured(&bad)["code"], "BAD_REQUEST");
    assert!(
        structured(&bad)["message"]
            .as_str()
            .unwrap_or_default()
            .contains("lable")
    );
    let text = bad
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    assert_eq!(
        serde_json::from_str::<Value>(&text).ok().as_ref(),
        Some(structured(&bad)),
        "the text is the same JSON"
    );

    // settle where it is not accepted is refused too.
    let bad = call(&client, "find_node", json!({"label": "Save", "settle": {}}))
        .await
        .unwrap();
    assert!(
        is_error(&bad)
            && structured(&bad)["message"]
                .as_str()
                .unwrap_or_default()
                .contains("settle")
    );

    // An ambiguous reference lists candidates.
    let amb = call(
        &client,
        "invoke_action",
        json!({"node": {"role": "Button"}, "action": "click"}),
    )
    .await
    .unwrap();
    assert!(is_error(&amb));
    assert_eq!(structured(&amb)["code"], "AMBIGUOUS");
    assert!(
        structured(&amb)["candidates"]
            .as_array()
            .is_some_and(|c| c.len() > 1)
    );

    // A reference to a node that is not there is NOT_FOUND; a near-miss selector lists candidates.
    let stale = call(&client, "read_node", json!({"node": "12345"}))
        .await
        .unwrap();
    assert!(is_error(&stale));
    assert_eq!(structured(&stale)["code"], "NOT_FOUND");
    let near = call(&client, "read_node", json!({"node": {"label": "Sav"}}))
        .await
        .unwrap();
    assert!(is_error(&near));
    assert!(
        structured(&near)["candidates"]
            .as_array()
            .is_some_and(|c| !c.is_empty())
    );

    // An unknown tool is a JSON-RPC error.
    let unknown = call(&client, "no_such_tool", json!({})).await;
    assert!(unknown.is_err(), "{unknown:?}");

    // Screenshots: a PNG image block with the scale reported, when the target can render.
    let shot = call(&client, "screenshot", json!({"max_dimension": 640}))
        .await
        .unwrap();
    // The default build rasterizes screenshots on the CPU: no GPU, nothing to skip. Only a
    // build without the feature refuses, with UNSUPPORTED.
    if !cfg!(feature = "screenshot") {
        assert!(is_error(&shot), "{:?}", shot.structured_content);
        assert_eq!(structured(&shot)["code"], "UNSUPPORTED");
    } else {
        assert!(!is_error(&shot), "{:?}", shot.structured_content);
        let image = shot
            .content
            .iter()
            .find_map(|c| c.as_image())
            .expect("an image block");
        assert_eq!(image.mime_type, "image/png");
        let png = base64::engine::general_purpose::STANDARD
            .decode(&image.data)
            .expect("base64");
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        let meta = structured(&shot);
        assert!(meta["scale"].as_f64().is_some());
        assert!(meta["width"].as_u64().is_some_and(|w| w <= 640));
    }

    client.cancel().await.expect("shut down");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_queued_behind_a_slow_one_never_runs() {
    let client = start().await;
    // A slow op occupies the target thread (a wait that can never succeed, on a big budget)…
    let peer = client.peer().clone();
    let slow = tokio::spawn(async move {
        let params = CallToolRequestParams::new("wait_for_condition").with_arguments(args(json!({
            "condition": {"kind": "node_exists", "label": "never there"},
            "settle": {"settle_timeout_ms": 30000}
        })));
        peer.call_tool(params).await
    });
    // Let the server start it (it then runs for seconds: 1875 simulated frames).
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // …so a click queued behind it can be cancelled before it starts.
    let click = CallToolRequestParams::new("invoke_action").with_arguments(args(
        json!({"node": {"role": "Button", "label": "Save"}, "action": "click"}),
    ));
    let handle = send_cancellable(&client, click).await;
    // (rmcp's client writes the request and the cancel from separate tasks: let the request
    // reach the server first, as it would from any real client changing its mind.)
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    handle
        .cancel(Some("changed my mind".into()))
        .await
        .expect("cancel");

    let waited = slow.await.expect("join").expect("the wait replies");
    assert!(is_error(&waited));
    assert_eq!(structured(&waited)["code"], "WAIT_TIMEOUT");

    // The cancelled click never ran.
    assert_nothing_saved(&client).await;
    // And the server still works.
    let found = call(&client, "find_node", json!({"label": "Save"}))
        .await
        .unwrap();
    assert!(!is_error(&found));
    client.cancel().await.expect("shut down");
}

/// `execute_sequence` runs its steps on the target thread as one job; cancelling the request
/// stops the step that is running (a wait on the longest budget) at its next poll, and no
/// later step runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_sequence_stops_its_running_step_and_runs_no_more() {
    use std::time::{Duration, Instant};

    let client = start().await;
    let sequence = CallToolRequestParams::new("execute_sequence").with_arguments(args(json!({
        "steps": [
            {"id": "wait", "tool": "wait_for_condition", "args": {
                "condition": {"kind": "node_exists", "label": "never there"},
                "settle": {"settle_timeout_ms": 120000}
            }},
            {"id": "save", "tool": "invoke_action",
             "args": {"node": {"role": "Button", "label": "Save"}, "action": "click"}}
        ]
    })));
    let handle = send_cancellable(&client, sequence).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    // A direct call now waits behind the run: the wait is really running (7 500 simulated
    // frames uncancelled, many seconds).
    let peer = client.peer().clone();
    let next = tokio::spawn(async move {
        let found = peer
            .call_tool(
                CallToolRequestParams::new("find_node")
                    .with_arguments(args(json!({"label": "Save"}))),
            )
            .await;
        (found, Instant::now())
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !next.is_finished(),
        "the direct call did not wait: the wait step did not run"
    );
    let cancelled_at = Instant::now();
    handle
        .cancel(Some("changed my mind".into()))
        .await
        .expect("cancel");
    let (found, answered_at) = next.await.expect("join");
    let took = answered_at - cancelled_at;
    assert!(!is_error(&found.expect("find_node replies")));
    assert!(
        took < Duration::from_secs(3),
        "the cancelled wait went on for {took:?}"
    );
    // The step after the cancelled one never ran.
    assert_nothing_saved(&client).await;
    client.cancel().await.expect("shut down");
}

/// Nothing announced "Saved": the Save click (cancelled before it ran) never happened.
async fn assert_nothing_saved(client: &Client) {
    let pulled = call(client, "pull_announcements", json!({})).await.unwrap();
    assert!(
        !structured(&pulled).to_string().contains("\"Saved\""),
        "{pulled:?}"
    );
}
