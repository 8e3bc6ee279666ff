//! Attach modes against a real bridge: this test process publishes a descriptor and serves
//! the demo through automation-wire's bridge server; the real binary attaches to it with
//! `--attach-pid`, `--attach`, `--connect` and `--list`, and speaks MCP over it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(unix)]

use std::process::Stdio;

use automation_core::{CATALOG, Op, Reply};
use automation_session::tools::image::{Rgba, encode_png};
use base64::Engine as _;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

/// A 3000 × 1000 screenshot at scale 2, as a live host would send it.
fn big_screenshot() -> Value {
    let (w, h) = (3000u32, 1000u32);
    let mut pixels = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            pixels.extend([(x / 12) as u8, (y / 4) as u8, 128, 255]);
        }
    }
    let png = encode_png(&Rgba {
        width: w,
        height: h,
        pixels,
    })
    .unwrap();
    json!({
        "image": {"mime": "image/png", "base64": base64::engine::general_purpose::STANDARD.encode(png)},
        "width": w, "height": h, "scale": 2.0
    })
}

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
        let shot = big_screenshot();
        App(LiveApp::start("cli-attach-test", move |request| {
            matches!(request.op, Op::Screenshot(_)).then(|| Reply::Ok(shot.clone()))
        }))
    }

    fn cli(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.automation(args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

const FIND_SAVE: &str = r#"{"find_node": {"role": "Button", "label": "Save"}}"#;

#[test]
fn one_shot_ops_reach_the_attached_app_in_every_mode() {
    let app = App::start();
    let pid = std::process::id().to_string();

    let (code, out, err) = app.cli(&["--list"]);
    assert_eq!(code, 0, "{err}");
    let listed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        listed[0]["pid"].as_u64(),
        Some(u64::from(std::process::id())),
        "{out}"
    );
    assert_eq!(listed[0]["app"], "cli-attach-test");

    for args in [
        vec!["op", "--attach-pid", pid.as_str(), FIND_SAVE],
        vec!["--attach-pid", pid.as_str(), "op", FIND_SAVE],
        vec!["op", "--attach", FIND_SAVE],
        vec![
            "op",
            "--connect",
            app.address.as_str(),
            "--token",
            app.token.as_str(),
            FIND_SAVE,
        ],
    ] {
        let (code, out, err) = app.cli(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["status"], "ok", "{args:?}: {out}");
        assert!(v["data"]["node"].is_string());
    }

    // The token from the environment.
    let out = crate::support::automation()
        .args(["op", "--connect", app.address.as_str(), FIND_SAVE])
        .env("AUTOMATION_TOKEN", app.token.as_str())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A wrong token is a failed mode: exit 1, message on stderr.
    let (code, out, err) = app.cli(&[
        "op",
        "--connect",
        app.address.as_str(),
        "--token",
        "wrong",
        FIND_SAVE,
    ]);
    assert_eq!(code, 1, "{out} {err}");
    assert!(out.is_empty() && !err.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_over_attach_with_screenshot_budgets() {
    let app = App::start();
    let pid = std::process::id().to_string();
    let base = app.base.path().to_path_buf();
    let cmd = crate::support::automation_async().configure(|c| {
        c.args(["--attach-pid", &pid]).env("XDG_RUNTIME_DIR", &base);
    });
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    // The catalog's core ops (the default caps) and the tools that are no op.
    let core = CATALOG
        .iter()
        .filter(|s| s.cap == automation_core::Cap::Core)
        .count();
    assert_eq!(
        client.list_all_tools().await.unwrap().len(),
        core + automation_session::tools::NOT_OPS.len()
    );

    let found = client
        .call_tool(
            CallToolRequestParams::new("find_node")
                .with_arguments(json!({"label": "Save"}).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(found.is_error, Some(false));

    // Default budget: the 3000 px wide capture comes back at most 2000 px wide, scale reported.
    let shot = client
        .call_tool(CallToolRequestParams::new("screenshot"))
        .await
        .unwrap();
    assert_eq!(shot.is_error, Some(false), "{shot:?}");
    let meta = shot.structured_content.clone().unwrap();
    assert_eq!(meta["width"], 2000);
    assert!(
        (meta["scale"].as_f64().unwrap() - 2.0 * 2000.0 / 3000.0).abs() < 1e-9,
        "{meta}"
    );
    assert_eq!(meta["original"]["width"], 3000);
    let image = shot
        .content
        .iter()
        .find_map(|c| c.as_image())
        .expect("an image block");
    assert!(image.data.len() <= 1_000_000);
    let png = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .unwrap();
    assert!(png.starts_with(b"\x89PNG"));

    // save_to returns a path instead of pixels.
    let path = app.base.path().join("shot.png");
    let saved = client
        .call_tool(
            CallToolRequestParams::new("screenshot")
                .with_arguments(json!({"save_to": path}).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(saved.is_error, Some(false), "{saved:?}");
    assert!(saved.content.iter().all(|c| c.as_image().is_none()));
    assert_eq!(saved.structured_content.unwrap()["path"], json!(path));
    assert!(std::fs::read(&path).unwrap().starts_with(b"\x89PNG"));

    client.cancel().await.unwrap();
}
