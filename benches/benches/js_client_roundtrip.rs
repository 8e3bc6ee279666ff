//! The JS client's op round trip against the Rust bridge client's, on the same live app in the
//! same run (goal ≤ 2×): the egui demo served through automation-wire's bridge server by a host
//! thread, one `find_node {role: Button, label: Save}` per iteration: the Rust client raw
//! (pre-serialised bytes out, the reply text back) and typed (`CoreBridgeClient::request`: a
//! `Request` serialised, the `Reply` parsed, as `app.op()` does in JS). The JS side is
//! `clients/js/bench/roundtrip.mjs`, spawned per sample with the iteration count; it times its
//! own loop (connect and a 3000-op warm-up excluded; `_cold`: 300) and reports nanoseconds.
//! `node_floor_find_node` is `clients/js/bench/floor.mjs`, the fewest lines node needs for the
//! same round trip: node's own floor, so the ratio the client could reach on this machine.
//! Needs `node`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use automation_core::{Reply, Request};
use automation_session::backend::{Backend, EguiDemo};
use automation_wire::client::BridgeClient;
use automation_wire::core_bridge::{CoreBridgeClient, CoreBridgeServer};
use automation_wire::server::ServerOptions;
use criterion::{Criterion, criterion_group, criterion_main};

const REQUEST: &[u8] = br#"{"op":{"find_node":{"role":"Button","label":"Save"}}}"#;

/// Ops node runs before it starts timing: enough for V8 to optimise the client and node's
/// socket code, as the Rust client is warm after criterion's own warm-up. The `_cold` variant
/// keeps the script's default (300): what a short script meets.
const WARM: &str = "3000";

fn js_round_trips(addr: &str, token: &str, iters: u64, mode: &str, warm: Option<&str>) -> Duration {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../clients/js");
    // `floor` is bench/floor.mjs, the fewest lines node needs for the round trip.
    let args = match mode {
        "floor" => vec!["bench/floor.mjs".to_string(), iters.to_string()],
        _ => vec![
            "bench/roundtrip.mjs".to_string(),
            iters.to_string(),
            mode.to_string(),
        ],
    };
    let out = Command::new("node")
        .args(&args)
        .current_dir(&dir)
        .env("AUTOMATION_ENDPOINT", addr)
        .env("AUTOMATION_TOKEN", token)
        .envs(warm.map(|w| ("AUTOMATION_BENCH_WARM", w)))
        .output()
        .expect("node (the JS client bench needs node on PATH)");
    assert!(
        out.status.success(),
        "node bench failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ns: u64 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("nanoseconds");
    Duration::from_nanos(ns)
}

fn bench(c: &mut Criterion) {
    let base = tempfile::Builder::new()
        .prefix("ajs")
        .tempdir_in("/tmp")
        .expect("tempdir");
    let mut opts = ServerOptions::new("bench");
    opts.base_dir = Some(base.path().to_path_buf());
    opts.publish_descriptor = false;
    let server = CoreBridgeServer::start(opts).expect("bridge");
    let (addr, token) = (server.address().to_string(), server.token().to_string());
    let stop = Arc::new(AtomicBool::new(false));
    let host = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut demo = EguiDemo::new();
            while !stop.load(Ordering::Relaxed) {
                if let Some(p) = server.recv_timeout(Duration::from_millis(50)) {
                    let reply = demo.serve(p.request());
                    p.respond(reply);
                }
            }
        })
    };

    let mut g = c.benchmark_group("js_client_round_trip");
    {
        let mut client = BridgeClient::connect(&addr, &token).expect("connect");
        let first = client.request_raw(REQUEST).expect("reply");
        assert!(first.contains("\"status\":\"ok\""), "{first}");
        g.bench_function("rust_bridge_client_find_node", |b| {
            b.iter(|| client.request_raw(REQUEST).expect("reply"));
        });
    } // detached: the bridge serves one client at a time
    {
        // What a Rust program calls for an op: a typed request out, a typed reply parsed
        // back, as `app.op()` builds its request from the op and parses the reply.
        let mut client = CoreBridgeClient::connect(&addr, &token).expect("connect");
        let request = Request::from_json(std::str::from_utf8(REQUEST).unwrap()).unwrap();
        assert!(matches!(client.request(&request), Reply::Ok(_)));
        g.bench_function("rust_core_client_op_find_node", |b| {
            b.iter(|| client.request(&request));
        });
    }
    g.sample_size(20);
    g.bench_function("js_client_op_find_node", |b| {
        b.iter_custom(|iters| js_round_trips(&addr, &token, iters, "op", Some(WARM)));
    });
    g.bench_function("js_client_raw_request_find_node", |b| {
        b.iter_custom(|iters| js_round_trips(&addr, &token, iters, "raw", Some(WARM)));
    });
    g.bench_function("node_floor_find_node", |b| {
        b.iter_custom(|iters| js_round_trips(&addr, &token, iters, "floor", Some(WARM)));
    });
    g.bench_function("js_client_op_find_node_cold", |b| {
        b.iter_custom(|iters| js_round_trips(&addr, &token, iters, "op", None));
    });
    g.finish();

    stop.store(true, Ordering::Relaxed);
    let _ = host.join();
}

criterion_group!(benches, bench);
criterion_main!(benches);
