//! The MCP round trip of `find_node`, against calling `execute` in-process (the floor).
//!
//! - `cli_mcp/execute_find_node`: `execute` on the headless demo (the egui demo, through the
//!   host wrapper the target thread uses), called directly: no I/O, no threads (the floor).
//! - `cli_mcp/mcp_duplex_find_node`: rmcp client → in-memory pipe → the server → target thread
//!   → back (everything but the process boundary).
//! - `cli_mcp/mcp_stdio_find_node`: rmcp client → the real `automation --headless` process over
//!   stdio → back. Needs the release binary: `cargo build --release -p automation-cli` (or set
//!   `AUTOMATION_BIN`); skipped with a note otherwise.
//!
//! - `cli_mcp/serve_screenshot` and `cli_mcp/mcp_duplex_screenshot`: the demo's 640×480
//!   screenshot served in-process (render and PNG, as the host answers it), and the same as an
//!   MCP call over the in-memory pipe (through the tool layer's budget check to the client's
//!   image block): the cost of carrying the PNG from the host to the client.
//!
//! After criterion, each `find_node` variant is also timed call by call and its median and p99
//! printed (goal over stdio: median ≤ 0.5 ms, p99 ≤ 2 ms).
//!
//! Run: `cargo build --release -p automation-cli && cargo bench -p automation-benches --bench cli_mcp -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use automation_cli::mcp::AutomationServer;
use automation_core::Request;
use automation_session::backend::{TargetHandle, headless_backend, headless_factory};
use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};

type Client = RunningService<RoleClient, ()>;

fn find_args() -> JsonObject {
    serde_json::json!({"role": "Button", "label": "Save"})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn duplex_client(rt: &tokio::runtime::Runtime) -> Client {
    rt.block_on(async {
        let (a, b) = tokio::io::duplex(1 << 20);
        let target = TargetHandle::spawn(headless_factory()).unwrap();
        tokio::spawn(async move {
            if let Ok(running) = AutomationServer::new(target).serve(b).await {
                let _ = running.waiting().await;
            }
        });
        ().serve(a).await.unwrap()
    })
}

fn stdio_client(rt: &tokio::runtime::Runtime, bin: &PathBuf) -> Client {
    rt.block_on(async {
        let cmd = tokio::process::Command::new(bin).configure(|c| {
            c.arg("--headless");
        });
        ().serve(TokioChildProcess::new(cmd).unwrap())
            .await
            .unwrap()
    })
}

fn call(rt: &tokio::runtime::Runtime, client: &Client) {
    let r = rt.block_on(
        client.call_tool(CallToolRequestParams::new("find_node").with_arguments(find_args())),
    );
    assert!(r.is_ok_and(|r| r.is_error == Some(false)));
}

fn call_screenshot(rt: &tokio::runtime::Runtime, client: &Client) {
    let r = rt.block_on(client.call_tool(CallToolRequestParams::new("screenshot")));
    assert!(r.is_ok_and(
        |r| r.is_error == Some(false) && r.content.iter().any(|c| c.as_image().is_some())
    ));
}

fn percentiles(name: &str, n: usize, mut f: impl FnMut()) {
    for _ in 0..200 {
        f();
    }
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "{name}: median {:.3} ms, p99 {:.3} ms, max {:.3} ms over {n} calls",
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3
    );
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("cli_mcp");
    let request =
        Request::from_json(r#"{"op": {"find_node": {"role": "Button", "label": "Save"}}}"#)
            .unwrap();
    // The floor: the same backend the target thread runs (`execute` on the headless demo, plus
    // the host wrapper), called directly.
    let mut backend = headless_backend();
    g.bench_function("execute_find_node", |b| {
        b.iter(|| black_box(backend.serve(&request)));
    });

    let rt = runtime();
    let duplex = duplex_client(&rt);
    g.bench_function("mcp_duplex_find_node", |b| b.iter(|| call(&rt, &duplex)));

    let shot = Request::from_json(r#"{"op": "screenshot"}"#).unwrap();
    assert!(backend.serve(&shot).is_ok());
    g.bench_function("serve_screenshot", |b| {
        b.iter(|| black_box(backend.serve(&shot)));
    });
    g.bench_function("mcp_duplex_screenshot", |b| {
        b.iter(|| call_screenshot(&rt, &duplex))
    });

    let stdio = automation_benches::automation_bin().map(|bin| stdio_client(&rt, &bin));
    match &stdio {
        Some(client) => {
            g.bench_function("mcp_stdio_find_node", |b| b.iter(|| call(&rt, client)));
        }
        None => println!(
            "note: mcp_stdio_find_node skipped: build the binary first (cargo build --release -p automation-cli) or set AUTOMATION_BIN"
        ),
    }
    g.finish();

    percentiles("execute_find_node", 5000, || {
        black_box(backend.serve(&request));
    });
    percentiles("mcp_duplex_find_node", 3000, || call(&rt, &duplex));
    if let Some(client) = &stdio {
        percentiles("mcp_stdio_find_node", 3000, || call(&rt, client));
    }
    rt.block_on(async {
        let _ = duplex.cancel().await;
        if let Some(c) = stdio {
            let _ = c.cancel().await;
        }
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
