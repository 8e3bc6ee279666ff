//! A step through `execute_sequence` against the same op as a direct MCP call (goal ≤ 1.2×).
//!
//! Both over rmcp's in-memory duplex into the real server and target thread (everything but
//! the process boundary), on the headless demo, records off (`AUTOMATION_RECORDS=off`; the
//! records sink writes two files per step and is measured separately):
//!
//! - `runner_sequence/direct_find_node`: `tools/call find_node`.
//! - `runner_sequence/sequence_find_node`: `tools/call execute_sequence {steps: [find_node]}`.
//! - `runner_sequence/direct_find_node_x10` / `sequence_find_node_x10`: ten calls against one
//!   sequence of ten steps (the per-step cost, the sequence's fixed cost spread over ten).
//! - `runner_sequence/sequence_find_node_records`: the same with records on (in a temp dir).
//!
//! Run: `cargo bench -p automation-benches --bench runner_sequence -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use automation_cli::mcp::AutomationServer;
use automation_session::backend::{TargetHandle, headless_factory};
use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::{RoleClient, RunningService};

type Client = RunningService<RoleClient, ()>;

fn obj(v: serde_json::Value) -> JsonObject {
    v.as_object().cloned().unwrap_or_default()
}

fn client(rt: &tokio::runtime::Runtime) -> Client {
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

fn call(rt: &tokio::runtime::Runtime, c: &Client, name: &'static str, args: &JsonObject) {
    let r = rt.block_on(c.call_tool(CallToolRequestParams::new(name).with_arguments(args.clone())));
    assert!(r.is_ok_and(|r| r.is_error == Some(false)));
}

/// Steps in the per-step comparison.
const STEPS: usize = 10;

/// The medians of `a` and `b`, timed alternately (after a warm-up of each).
fn median_pair(n: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (Duration, Duration) {
    for _ in 0..50 {
        a();
        b();
    }
    let time = |f: &mut dyn FnMut()| {
        let s = Instant::now();
        f();
        s.elapsed()
    };
    let (mut ta, mut tb): (Vec<Duration>, Vec<Duration>) =
        (0..n).map(|_| (time(&mut a), time(&mut b))).unzip();
    ta.sort();
    tb.sort();
    (ta[n / 2], tb[n / 2])
}

fn bench(c: &mut Criterion) {
    // SAFETY: set before any thread of this bench reads the environment.
    unsafe { std::env::set_var("AUTOMATION_RECORDS", "off") };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = client(&rt);
    let find = obj(serde_json::json!({"role": "Button", "label": "Save"}));
    let seq = obj(serde_json::json!({"steps": [
        {"id": "find", "tool": "find_node", "args": {"role": "Button", "label": "Save"}}
    ]}));
    let step =
        serde_json::json!({"tool": "find_node", "args": {"role": "Button", "label": "Save"}});
    let seq_n = obj(serde_json::json!({"steps": vec![step; STEPS]}));
    let mut g = c.benchmark_group("runner_sequence");
    g.bench_function("direct_find_node", |b| {
        b.iter(|| call(&rt, &client, "find_node", &find))
    });
    g.bench_function("sequence_find_node", |b| {
        b.iter(|| call(&rt, &client, "execute_sequence", &seq))
    });
    // Per step: N steps in one sequence against N direct calls (the sequence's fixed cost —
    // one request, one report — spread over N).
    g.bench_function(format!("direct_find_node_x{STEPS}"), |b| {
        b.iter(|| {
            for _ in 0..STEPS {
                call(&rt, &client, "find_node", &find)
            }
        })
    });
    g.bench_function(format!("sequence_find_node_x{STEPS}"), |b| {
        b.iter(|| call(&rt, &client, "execute_sequence", &seq_n))
    });
    let records = tempfile::tempdir().unwrap();
    // SAFETY: as above; the runner reads these when each run starts.
    unsafe {
        std::env::set_var("AUTOMATION_RECORDS", "on");
        std::env::set_var("XDG_DATA_HOME", records.path());
    }
    g.bench_function("sequence_find_node_records", |b| {
        b.iter(|| call(&rt, &client, "execute_sequence", &seq))
    });
    // Where the time goes: the engine alone (no MCP), against the router alone.
    let target = TargetHandle::spawn(headless_factory()).unwrap();
    let flow = automation_runner::flow::from_arguments(&seq).unwrap();
    let snapshots = automation_session::tools::Snapshots::new("snapshots", false);
    g.bench_function("router_find_node", |b| {
        b.iter(|| {
            automation_session::tools::call(
                "find_node",
                find.clone(),
                &snapshots,
                |request: &automation_core::Request| target.call_blocking(request.clone()),
            )
            .unwrap()
        })
    });
    g.bench_function("engine_find_node", |b| {
        b.iter(|| {
            let mut sink = automation_runner::events::Collect::default();
            automation_runner::run_flow(&flow, "bench", &target, &mut sink, &|| false)
        })
    });
    g.finish();
    unsafe { std::env::set_var("AUTOMATION_RECORDS", "off") };
    // Both sides interleaved sample by sample, so a load change hits both alike.
    let (direct, sequence) = median_pair(
        2000,
        || call(&rt, &client, "find_node", &find),
        || call(&rt, &client, "execute_sequence", &seq),
    );
    println!(
        "median: direct find_node {:.1} us, execute_sequence [find_node] {:.1} us, ratio {:.2}x (goal <= 1.2x)",
        direct.as_secs_f64() * 1e6,
        sequence.as_secs_f64() * 1e6,
        sequence.as_secs_f64() / direct.as_secs_f64()
    );
    let (direct_n, sequence_n) = median_pair(
        300,
        || {
            for _ in 0..STEPS {
                call(&rt, &client, "find_node", &find)
            }
        },
        || call(&rt, &client, "execute_sequence", &seq_n),
    );
    println!(
        "median: {STEPS} direct find_node {:.1} us ({:.1} us each), execute_sequence of {STEPS} steps {:.1} us ({:.1} us a step), ratio {:.2}x",
        direct_n.as_secs_f64() * 1e6,
        direct_n.as_secs_f64() * 1e6 / STEPS as f64,
        sequence_n.as_secs_f64() * 1e6,
        sequence_n.as_secs_f64() * 1e6 / STEPS as f64,
        sequence_n.as_secs_f64() / direct_n.as_secs_f64()
    );
    rt.block_on(async {
        let _ = client.cancel().await;
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
