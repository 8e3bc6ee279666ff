//! A small op's bridge round trip over the Unix socket (client → accept thread → host queue →
//! reply), against the floor: a raw Unix-socket echo of the same framed bytes. Goal ≤ 2×.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use automation_wire::client::BridgeClient;
use automation_wire::core_bridge::CoreBridgeServer;
use automation_wire::core_bridge::core::Reply;
use automation_wire::frame::{MAX_REPLY_FRAME, MAX_REQUEST_FRAME, read_frame_bytes, write_frame};
use automation_wire::server::ServerOptions;
use criterion::{Criterion, criterion_group, criterion_main};

const REQUEST: &[u8] = br#"{"op":{"find_node":{"role":"Button","label":"Save"}}}"#;

fn bench(c: &mut Criterion) {
    let base = tempfile::Builder::new()
        .prefix("awb")
        .tempdir_in("/tmp")
        .expect("tempdir");

    // --- the bridge: a host thread drains the queue like a UI loop would ---
    let mut opts = ServerOptions::new("bench");
    opts.base_dir = Some(base.path().to_path_buf());
    opts.publish_descriptor = false;
    let server = CoreBridgeServer::start(opts).expect("bridge");
    let (addr, token) = (server.address().to_string(), server.token().to_string());
    let stop = Arc::new(AtomicBool::new(false));
    let host = {
        let stop = stop.clone();
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if let Some(p) = server.recv_timeout(Duration::from_millis(50)) {
                    p.respond(Reply::Ok(serde_json::json!({"node": null})));
                }
            }
        })
    };
    let mut client = BridgeClient::connect(&addr, &token).expect("connect");

    // --- the floor: raw echo of the same framed bytes ---
    let echo_path = base.path().join("echo");
    let listener = UnixListener::bind(&echo_path).expect("bind");
    let echo = thread::spawn(move || {
        let (mut s, _) = listener.accept().expect("accept");
        while let Ok(Some(body)) = read_frame_bytes(&mut s, MAX_REQUEST_FRAME) {
            if write_frame(&mut s, &body, MAX_REPLY_FRAME).is_err() {
                break;
            }
        }
    });
    let mut raw = UnixStream::connect(&echo_path).expect("connect echo");

    let mut g = c.benchmark_group("wire_bridge_round_trip");
    g.bench_function("bridge_find_node", |b| {
        b.iter(|| client.request_raw(REQUEST).expect("reply"));
    });
    g.bench_function("raw_unix_echo_floor", |b| {
        b.iter(|| {
            write_frame(&mut raw, REQUEST, MAX_REQUEST_FRAME).expect("write");
            read_frame_bytes(&mut raw, MAX_REPLY_FRAME).expect("read")
        });
    });
    g.finish();

    drop(client);
    stop.store(true, Ordering::Relaxed);
    let _ = host.join();
    let _ = raw.flush();
    drop(raw);
    let _ = echo.join();
}

criterion_group!(benches, bench);
criterion_main!(benches);
