//! One script of ops, through the real `automation` binary's MCP server (rmcp client), against
//! the egui demo two ways: headless (`automation --headless`, simulated clock, in process) and
//! the same demo running as a real eframe window (`examples/bridge_smoke`, wgpu, debug build)
//! driven over AT-SPI (`automation --launch … --virtual-display`): its AccessKit adapter is on
//! the accessibility bus like any eframe app's. Each step's results are compared field by field,
//! and each step's expected facts are checked on both, so two equally wrong answers fail too.
//!
//! What is not compared, and why, is [`TOLERATED`] (docs/atspi.md lists the same).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use automation_testkit::require::require_tools;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

/// The differences this test tolerates: the field, and why it differs.
const TOLERATED: &[(&str, &str)] = &[
    (
        "node ids (`e1`, `e2`…)",
        "each session mints its own references; the script addresses nodes by selector",
    ),
    (
        "`bounds`",
        "headless bounds are egui's logical points (fractions); AT-SPI extents are whole pixels",
    ),
    (
        "`settled`, `version`",
        "headless settles on the simulated clock (frames, advanced_ms); AT-SPI on the real clock (first_effect_ms, waited_ms); version counts tree changes, which differ",
    ),
    (
        "`actions` beyond click and set_value",
        "AT-SPI offers focus and scroll_into_view on every Component; headless offers replace_selected_text on text inputs, which EditableText does not carry",
    ),
    (
        "`text` (text runs), `live`",
        "text runs and live-region politeness are not carried by accesskit_unix's AT-SPI objects",
    ),
    (
        "`pull_announcements`",
        "headless records live-region announcements; over AT-SPI the kit does not receive them (checked: headless hears \"Saved\", AT-SPI answers without error)",
    ),
    (
        "tree shape",
        "AT-SPI adds the Application root and drops the unnamed layout containers accesskit_unix filters out; single nodes are compared, not snapshots",
    ),
    (
        "collapsing headers",
        "headless: DisclosureTriangle with expanded; accesskit_unix exports it as a toggle button without the Expandable/Expanded states, so over AT-SPI it is a Button and its expansion is unknown",
    ),
];

/// One op of the script.
struct Step {
    tool: &'static str,
    args: Value,
    /// JSON pointers into the reply compared between the two runs.
    compare: &'static [&'static str],
    /// Facts both runs must show (JSON pointer, value).
    expect: Vec<(&'static str, Value)>,
    /// The op is meant to fail (both runs then compare the error).
    fails: bool,
}

fn step(tool: &'static str, args: Value, compare: &'static [&'static str]) -> Step {
    Step {
        tool,
        args,
        compare,
        expect: Vec::new(),
        fails: false,
    }
}

impl Step {
    fn expect(mut self, pointer: &'static str, value: Value) -> Step {
        self.expect.push((pointer, value));
        self
    }

    fn fails(mut self) -> Step {
        self.fails = true;
        self
    }
}

fn script() -> Vec<Step> {
    let name = json!({"role": "TextInput", "label": "Name"});
    let remember = json!({"role": "CheckBox", "label": "Remember me"});
    let row3 = json!({"role": "Button", "label": "Row 3"});
    let save = json!({"role": "Button", "label": "Save"});
    let typed = "Zoë Ångström";
    vec![
        step(
            "find_node",
            name.clone(),
            &[
                "/count",
                "/record/role",
                "/record/label",
                "/record/value",
                "/record/disabled",
            ],
        )
        .expect("/count", json!(1))
        .expect("/record/value", json!("")),
        step(
            "set_value",
            json!({"node": name, "value": typed}),
            &["/action"],
        )
        .expect("/action", json!("set_value")),
        step(
            "read_node",
            json!({"node": name}),
            &["/role", "/label", "/value"],
        )
        .expect("/value", json!(typed)),
        step(
            "assert_node",
            json!({"node": name, "kind": "value_equals", "value": typed}),
            &["/passed"],
        ),
        step(
            "invoke_action",
            json!({"node": save, "action": "click"}),
            &["/action"],
        )
        .expect("/action", json!("click")),
        step(
            "find_node",
            json!({"role": "Label", "value": "Saved"}),
            &["/count", "/record/role", "/record/value", "/record/label"],
        )
        .expect("/count", json!(1))
        .expect("/record/value", json!("Saved")),
        step(
            "read_node",
            json!({"node": {"role": "Label", "label": "Saved"}}),
            &["/role", "/value"],
        )
        .expect("/value", json!("Saved")),
        step("pull_announcements", json!({}), &[]),
        step(
            "read_node",
            json!({"node": remember}),
            &["/role", "/label", "/toggled", "/disabled"],
        )
        .expect("/toggled", json!(false)),
        step(
            "invoke_action",
            json!({"node": remember, "action": "click"}),
            &["/action"],
        ),
        step("read_node", json!({"node": remember}), &["/toggled"]).expect("/toggled", json!(true)),
        step(
            "assert_node",
            json!({"node": remember, "kind": "toggled", "flag": true}),
            &["/passed"],
        ),
        step(
            "invoke_action",
            json!({"node": row3, "action": "click"}),
            &["/action"],
        ),
        step(
            "read_node",
            json!({"node": row3}),
            &["/role", "/label", "/toggled"],
        )
        .expect("/toggled", json!(true)),
        step(
            "read_node",
            json!({"node": {"role": "ProgressIndicator", "label": "Details"}}),
            &["/role", "/label", "/numeric_value"],
        )
        .expect("/numeric_value", json!(0.0)),
        step(
            "read_node",
            json!({"node": {"role": "Button", "label": "Help"}}),
            &["/role", "/label", "/description"],
        )
        .expect("/description", json!("Saves your work")),
        // A miss lists candidates (compared by role and name below).
        step(
            "find_node",
            json!({"role": "Button", "label": "Sve"}),
            &["/count", "/node", "/hint"],
        )
        .expect("/count", json!(0)),
        // Errors: the same code and data.
        step("set_value", json!({"node": save, "value": "x"}), &["/code"]).fails(),
        step(
            "read_node",
            json!({"node": {"role": "Button", "label": "No such button"}}),
            &["/code"],
        )
        .fails(),
        step(
            "assert_node",
            json!({"node": remember, "kind": "toggled", "flag": false}),
            &["/code", "/actual", "/expected"],
        )
        .fails(),
    ]
}

/// A step's answer: an error flag and the structured content.
#[derive(Debug)]
struct Answer {
    error: bool,
    content: Value,
}

async fn start(args: Vec<String>) -> Client {
    let cmd = crate::support::automation_async().configure(|c| {
        c.args(&args)
            .env("AUTOMATION_VIRTUAL_DISPLAYS", "90-93")
            .stderr(std::process::Stdio::inherit());
    });
    let transport = TokioChildProcess::new(cmd).expect("spawn automation");
    ().serve(transport).await.expect("MCP initialize")
}

async fn run(client: &Client) -> Vec<Answer> {
    let mut out = Vec::new();
    for step in script() {
        let params = CallToolRequestParams::new(step.tool).with_arguments(
            step.args
                .as_object()
                .cloned()
                .unwrap_or_else(JsonObject::new),
        );
        let r: Result<CallToolResult, ServiceError> = client.call_tool(params).await;
        let r = r.unwrap_or_else(|e| panic!("{} {}: {e}", step.tool, step.args));
        out.push(Answer {
            error: r.is_error == Some(true),
            content: r.structured_content.unwrap_or(Value::Null),
        });
    }
    out
}

/// The candidates of a miss, by role and name (their ids differ).
fn candidates(v: &Value) -> Vec<(Value, Value)> {
    v["candidates"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| (c["role"].clone(), c["label"].clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn bridge_smoke() -> PathBuf {
    std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("examples/bridge_smoke")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_script_runs_headless_and_over_atspi_with_the_same_results() {
    // Fixed display numbers (90-93): no other app test beside it.
    let _heavy = automation_testkit::heavy::heavy();
    if !require_tools("dbus", &automation_atspi::display::missing_tools()) {
        return;
    }
    let app = bridge_smoke();
    assert!(
        app.exists(),
        "{} is missing: build it with `cargo build -p automation-egui --features live --example bridge_smoke` (`cargo test --workspace --all-features` does)",
        app.display()
    );

    let headless = start(vec!["--headless".into()]).await;
    let h = run(&headless).await;
    headless.cancel().await.ok();

    let launch = format!("{} --exit-after-ms 120000", app.display());
    let atspi = start(vec!["--launch".into(), launch, "--virtual-display".into()]).await;
    let a = run(&atspi).await;
    atspi.cancel().await.ok();

    let mut diffs = Vec::new();
    for (i, (step, (h, a))) in script().iter().zip(h.iter().zip(&a)).enumerate() {
        let what = format!("step {i} {} {}", step.tool, step.args);
        for (side, ans) in [("headless", h), ("atspi", a)] {
            assert_eq!(
                ans.error, step.fails,
                "{what}: {side} error = {} (want {}): {}",
                ans.error, step.fails, ans.content
            );
            for (ptr, want) in &step.expect {
                assert_eq!(
                    ans.content.pointer(ptr),
                    Some(want),
                    "{what}: {side} {ptr}: {}",
                    ans.content
                );
            }
        }
        for ptr in step.compare {
            let (hv, av) = (h.content.pointer(ptr), a.content.pointer(ptr));
            if hv != av {
                diffs.push(format!("{what} {ptr}: headless {hv:?}, atspi {av:?}"));
            }
        }
        // A miss (find_node's empty answer, or NOT_FOUND) lists candidates.
        if h.content["count"] == json!(0) || h.content["code"] == json!("NOT_FOUND") {
            let (hc, ac) = (candidates(&h.content), candidates(&a.content));
            assert!(!hc.is_empty(), "{what}: no candidates headless");
            if hc != ac {
                diffs.push(format!("{what} candidates: headless {hc:?}, atspi {ac:?}"));
            }
        }
        if step.tool == "pull_announcements" {
            // Headless hears the status label's polite "Saved"; AT-SPI carries no
            // announcements to the kit (TOLERATED), but answers.
            assert!(
                h.content.to_string().contains("Saved"),
                "headless announcements: {}",
                h.content
            );
        }
    }
    assert!(
        diffs.is_empty(),
        "the two runs differ beyond what is tolerated:\n{}\ntolerated:\n{}",
        diffs.join("\n"),
        TOLERATED
            .iter()
            .map(|(field, why)| format!("- {field}: {why}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
