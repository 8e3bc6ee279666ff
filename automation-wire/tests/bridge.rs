//! Transport and attack tests over real Unix sockets, and the bridge server end to end
//! (generic JSON protocol; the automation-core instantiation is in `core_bridge.rs`).
// Tests fail loudly by design: helpers outside `#[test]` may unwrap, expect and panic too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(unix)]

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use automation_wire::client::{BridgeClient, ClientError};
use automation_wire::descriptor::{Descriptor, DescriptorDir, TransportKind, now_unix_ms};
use automation_wire::frame::{MAX_REQUEST_FRAME, read_frame, write_frame};
use automation_wire::fsguard::{DirError, euid};
use automation_wire::probe::{PROBE_TIMEOUT, ProbeState, attach, list_live, probe};
use automation_wire::server::{BridgeServer, JsonProtocol, PendingRequest, ServerOptions};
use automation_wire::transport::{Endpoint, EndpointOptions, TransportError, connect};
use serde_json::{Value, json};

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

fn short_base() -> tempfile::TempDir {
    // Keep socket paths well under the 100-byte ceiling.
    tempfile::Builder::new()
        .prefix("aw")
        .tempdir_in("/tmp")
        .unwrap()
}

#[test]
fn socket_0600_in_0700_dir_round_trip_and_removed_on_drop() {
    let base = short_base();
    let ep = Endpoint::bind(&EndpointOptions::new(base.path())).unwrap();
    let addr = ep.address().to_string();
    let dir = ep.dir().unwrap().to_path_buf();
    assert!(
        std::fs::symlink_metadata(&addr)
            .unwrap()
            .file_type()
            .is_socket()
    );
    assert_eq!(mode(Path::new(&addr)), 0o600, "socket must be 0600");
    assert_eq!(mode(&dir), 0o700, "socket dir must be 0700");
    let a2 = addr.clone();
    let client = thread::spawn(move || {
        let mut c = connect(&a2).unwrap();
        write_frame(&mut c, b"ping", MAX_REQUEST_FRAME).unwrap();
        read_frame(&mut c, MAX_REQUEST_FRAME).unwrap()
    });
    let mut conn = ep.accept().unwrap();
    let got = read_frame(&mut conn, MAX_REQUEST_FRAME).unwrap().unwrap();
    write_frame(&mut conn, got.as_bytes(), MAX_REQUEST_FRAME).unwrap();
    assert_eq!(client.join().unwrap().as_deref(), Some("ping"));
    drop(ep);
    assert!(!Path::new(&addr).exists(), "socket removed on drop");
    assert!(!dir.exists(), "per-process dir removed on drop");
}

#[test]
fn read_timeout_reports_timeout_and_leaves_stream_usable() {
    let base = short_base();
    let ep = Endpoint::bind(&EndpointOptions::new(base.path())).unwrap();
    let addr = ep.address().to_string();
    let server = thread::spawn(move || {
        let mut conn = ep.accept().unwrap();
        thread::sleep(Duration::from_millis(300));
        write_frame(&mut conn, b"late", MAX_REQUEST_FRAME).unwrap();
        thread::sleep(Duration::from_millis(100));
    });
    let mut c = connect(&addr).unwrap();
    c.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let err = read_frame(&mut c, MAX_REQUEST_FRAME).unwrap_err();
    assert!(err.is_timeout(), "expected a timeout, got {err}");
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    assert_eq!(
        read_frame(&mut c, MAX_REQUEST_FRAME).unwrap().as_deref(),
        Some("late")
    );
    server.join().unwrap();
}

#[test]
fn long_path_falls_back_to_a_private_short_dir_and_refuses_a_shared_one() {
    let base = short_base();
    let long = base.path().join("x".repeat(90));
    std::fs::create_dir(&long).unwrap();
    let fallback = short_base();
    std::fs::set_permissions(fallback.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut opts = EndpointOptions::new(&long);
    opts.fallback_base = fallback.path().to_path_buf();
    let ep = Endpoint::bind(&opts).unwrap();
    assert!(
        ep.address().starts_with(fallback.path().to_str().unwrap()),
        "{}",
        ep.address()
    );
    assert!(ep.address().len() <= 100);
    assert_eq!(mode(ep.dir().unwrap()), 0o700);
    assert_eq!(mode(Path::new(ep.address())), 0o600);
    drop(ep);
    // A world-writable fallback parent (a stock /tmp) is refused, not settled into.
    let shared = short_base();
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    opts.fallback_base = shared.path().to_path_buf();
    let err = Endpoint::bind(&opts).unwrap_err();
    assert!(matches!(err, TransportError::PathTooLong { .. }), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn peer_with_another_uid_is_refused() {
    let base = short_base();
    let mut opts = EndpointOptions::new(base.path());
    opts.allowed_uid = Some(euid().wrapping_add(1));
    let ep = Endpoint::bind(&opts).unwrap();
    let addr = ep.address().to_string();
    let _c = connect(&addr).unwrap();
    match ep.accept() {
        Err(TransportError::PeerRejected { peer, .. }) => assert_eq!(peer, Some(euid())),
        other => panic!("expected PeerRejected, got {other:?}"),
    }
}

struct Bridge {
    server: BridgeServer<JsonProtocol>,
    _base: tempfile::TempDir,
}

fn start(tweak: impl FnOnce(&mut ServerOptions)) -> Bridge {
    let base = short_base();
    let mut opts = ServerOptions::new("test-app");
    opts.base_dir = Some(base.path().to_path_buf());
    tweak(&mut opts);
    Bridge {
        server: BridgeServer::start(opts).unwrap(),
        _base: base,
    }
}

fn serve_one(b: &Bridge) {
    let p = b
        .server
        .recv_timeout(Duration::from_secs(10))
        .expect("a request");
    let data = p.request().clone();
    assert!(p.respond(json!({"status": "ok", "data": data})));
}

fn client(b: &Bridge) -> BridgeClient {
    BridgeClient::connect(b.server.address(), b.server.token()).unwrap()
}

#[test]
fn request_round_trip_and_descriptor_published_0600() {
    let b = start(|_| {});
    let path = b.server.descriptor_path().unwrap().to_path_buf();
    assert_eq!(mode(&path), 0o600);
    let d = DescriptorDir::read(&path).unwrap();
    assert_eq!(d.pid, std::process::id());
    assert_eq!(d.address, b.server.address());
    assert_eq!(d.token, b.server.token());
    let addr = d.address.clone();
    let token = d.token.clone();
    let t = thread::spawn(move || {
        let mut c = BridgeClient::connect(&addr, &token).unwrap();
        assert_eq!(c.hello().pid, std::process::id());
        let r1: Value = c.request(&json!({"op": "snapshot_tree"})).unwrap();
        let r2: Value = c
            .request(&json!({"op": {"find_node": {"role": "Button"}}}))
            .unwrap();
        (r1, r2)
    });
    serve_one(&b);
    serve_one(&b);
    let (r1, r2) = t.join().unwrap();
    assert_eq!(r1, json!({"status": "ok", "data": {"op": "snapshot_tree"}}));
    assert_eq!(r2["data"]["op"]["find_node"]["role"], "Button");
    drop(b);
    assert!(!path.exists(), "descriptor removed when the server stops");
}

#[test]
fn unparsable_frame_gets_bad_request_and_connection_stays() {
    let b = start(|_| {});
    let (addr, token) = (b.server.address().to_string(), b.server.token().to_string());
    let t = thread::spawn(move || {
        let mut c = BridgeClient::connect(&addr, &token).unwrap();
        let bad: Value = serde_json::from_str(&c.request_raw(b"{not json").unwrap()).unwrap();
        let empty: Value = serde_json::from_str(&c.request_raw(b"").unwrap()).unwrap();
        let bad_utf8: Value = serde_json::from_str(&c.request_raw(&[0xff, 0xfe]).unwrap()).unwrap();
        let good: Value = c.request(&json!({"op": "list_windows"})).unwrap();
        (bad, empty, bad_utf8, good)
    });
    serve_one(&b);
    let (bad, empty, bad_utf8, good) = t.join().unwrap();
    for r in [&bad, &empty, &bad_utf8] {
        assert_eq!(r["status"], "err");
        assert_eq!(r["code"], "BAD_REQUEST", "{r}");
    }
    assert_eq!(good["status"], "ok");
}

#[test]
fn wrong_token_is_dropped_and_next_client_served() {
    let b = start(|_| {});
    let err = BridgeClient::connect(b.server.address(), "not-the-token").unwrap_err();
    assert!(matches!(err, ClientError::Handshake(_)), "{err}");
    assert_eq!(err.code(), "BRIDGE_IO");
    let (addr, token) = (b.server.address().to_string(), b.server.token().to_string());
    let t = thread::spawn(move || {
        let mut c = BridgeClient::connect(&addr, &token).unwrap();
        c.request::<_, Value>(&json!({"op": "list_windows"}))
            .unwrap()
    });
    serve_one(&b);
    assert_eq!(t.join().unwrap()["status"], "ok");
}

#[test]
fn drip_feeding_peer_is_cut_at_the_deadline_and_real_client_served_next() {
    let b = start(|o| o.handshake_deadline = Duration::from_millis(800));
    let addr = b.server.address().to_string();
    let dripper = thread::spawn({
        let addr = addr.clone();
        move || {
            let mut c = connect(&addr).unwrap();
            // One byte every 100 ms: each read is quick, the handshake as a whole is not.
            for _ in 0..60 {
                if c.write_all(b"a").is_err() {
                    return true; // cut
                }
                thread::sleep(Duration::from_millis(100));
            }
            false
        }
    });
    thread::sleep(Duration::from_millis(100));
    let start_t = Instant::now();
    let token = b.server.token().to_string();
    let real = thread::spawn(move || {
        // While the dripper holds the slot the bridge says it is busy; wait it out.
        let mut c = BridgeClient::connect_with_wait(&addr, &token, Duration::from_secs(3)).unwrap();
        c.request::<_, Value>(&json!({"op": "list_windows"}))
            .unwrap()
    });
    serve_one(&b);
    assert_eq!(real.join().unwrap()["status"], "ok");
    let waited = start_t.elapsed();
    assert!(
        waited < Duration::from_secs(3),
        "real client waited {waited:?}; the dripper held the slot"
    );
    assert!(
        dripper.join().unwrap(),
        "the dripping peer must have been disconnected"
    );
}

#[test]
fn second_client_with_a_wait_is_served_after_the_first_leaves() {
    let b = start(|_| {});
    let (addr, token) = (b.server.address().to_string(), b.server.token().to_string());
    let mut first = client(&b);
    let second = thread::spawn(move || {
        let mut c =
            BridgeClient::connect_with_wait(&addr, &token, Duration::from_secs(10)).unwrap();
        c.request::<_, Value>(&json!({"op": "second"})).unwrap()
    });
    let t = thread::spawn(move || {
        let r: Value = first.request(&json!({"op": "first"})).unwrap();
        thread::sleep(Duration::from_millis(200));
        drop(first);
        r
    });
    // The first client's request comes first; the second is told "busy" and retries.
    let p = b.server.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(p.request()["op"], "first");
    p.respond(json!({"status": "ok", "data": 1}));
    assert!(
        b.server.recv_timeout(Duration::from_millis(100)).is_none(),
        "one request in flight at a time"
    );
    let p = b.server.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(p.request()["op"], "second");
    p.respond(json!({"status": "ok", "data": 2}));
    assert_eq!(t.join().unwrap()["data"], 1);
    assert_eq!(second.join().unwrap()["data"], 2);
}

#[test]
fn silent_host_gets_bridge_timeout_and_the_bridge_keeps_serving() {
    let b = start(|o| o.reply_timeout = Duration::from_millis(300));
    let (addr, token) = (b.server.address().to_string(), b.server.token().to_string());
    let t = thread::spawn(move || {
        let mut c = BridgeClient::connect(&addr, &token).unwrap();
        let r1: Value = c.request(&json!({"op": "stuck"})).unwrap();
        let r2: Value = c.request(&json!({"op": "fine"})).unwrap();
        (r1, r2)
    });
    let stuck = b.server.recv_timeout(Duration::from_secs(5)).unwrap();
    thread::sleep(Duration::from_millis(500));
    assert!(
        !stuck.respond(json!({"status": "ok", "data": "too late"})),
        "a late answer is refused"
    );
    serve_one(&b);
    let (r1, r2) = t.join().unwrap();
    assert_eq!(r1["code"], "BRIDGE_TIMEOUT");
    assert_eq!(r2["status"], "ok");
}

#[test]
fn dropped_request_is_bridge_dropped() {
    let b = start(|_| {});
    let (addr, token) = (b.server.address().to_string(), b.server.token().to_string());
    let t = thread::spawn(move || {
        let mut c = BridgeClient::connect(&addr, &token).unwrap();
        c.request::<_, Value>(&json!({"op": "x"})).unwrap()
    });
    drop(b.server.recv_timeout(Duration::from_secs(5)).unwrap());
    assert_eq!(t.join().unwrap()["code"], "BRIDGE_DROPPED");
}

/// A server whose requests go to `handler` (on the bridge's connection thread).
fn start_handled(
    handler: impl FnMut(PendingRequest<JsonProtocol>) -> Result<(), PendingRequest<JsonProtocol>>
    + Send
    + 'static,
) -> Bridge {
    let base = short_base();
    let mut opts = ServerOptions::new("test-app");
    opts.base_dir = Some(base.path().to_path_buf());
    Bridge {
        server: BridgeServer::start_with_handler(opts, handler).unwrap(),
        _base: base,
    }
}

#[test]
fn a_handler_gets_each_request_and_answers_from_its_own_thread() {
    // The handler forwards to a host thread, as the CLI forwards a script's ops to its
    // target thread; the queue stays empty.
    let (host_tx, host_rx) = std::sync::mpsc::channel::<PendingRequest<JsonProtocol>>();
    let host = thread::spawn(move || {
        for (n, p) in host_rx.into_iter().enumerate() {
            let echo = p.request().clone();
            assert!(p.respond(json!({"status": "ok", "data": [n, echo]})));
        }
    });
    let b = start_handled(move |p| host_tx.send(p).map_err(|e| e.0));
    let mut c = client(&b);
    for n in 0..3 {
        let r: Value = c.request(&json!({"op": n})).unwrap();
        assert_eq!(r["data"], json!([n, {"op": n}]), "{r}");
    }
    assert!(b.server.poll().is_none(), "nothing waits in the queue");
    drop(c);
    drop(b); // drops the handler, which ends the host's loop
    host.join().unwrap();
}

#[test]
fn a_request_the_handler_gives_back_or_drops_is_bridge_dropped() {
    let mut calls = 0;
    let b = start_handled(move |p| {
        calls += 1;
        if calls == 1 {
            return Err(p); // given back
        }
        drop(p); // taken, never answered
        Ok(())
    });
    let mut c = client(&b);
    for _ in 0..2 {
        let r: Value = c.request(&json!({"op": "x"})).unwrap();
        assert_eq!(r["code"], "BRIDGE_DROPPED", "{r}");
    }
}

#[test]
fn too_large_reply_becomes_a_typed_error_and_stream_stays_in_sync() {
    let b = start(|o| o.max_reply_frame = 1024);
    let (addr, token) = (b.server.address().to_string(), b.server.token().to_string());
    let t = thread::spawn(move || {
        let mut c = BridgeClient::connect(&addr, &token).unwrap();
        let big: Value = c.request(&json!({"op": "big"})).unwrap();
        let small: Value = c.request(&json!({"op": "small"})).unwrap();
        (big, small)
    });
    let p = b.server.recv_timeout(Duration::from_secs(5)).unwrap();
    p.respond(json!({"status": "ok", "data": "x".repeat(4096)}));
    serve_one(&b);
    let (big, small) = t.join().unwrap();
    assert_eq!(big["status"], "err");
    assert_eq!(big["code"], "BRIDGE_IO");
    assert!(big["message"].as_str().unwrap().contains("reply cap"));
    assert_eq!(small["status"], "ok");
}

#[test]
fn oversize_request_is_refused_without_reading_it() {
    let b = start(|_| {});
    let mut c = connect(b.server.address()).unwrap();
    automation_wire::handshake::send_token(&mut c, b.server.token()).unwrap();
    automation_wire::handshake::read_hello(&mut c).unwrap();
    c.write_all(&((MAX_REQUEST_FRAME as u32) + 1).to_le_bytes())
        .unwrap();
    let reply: Value =
        serde_json::from_str(&read_frame(&mut c, 1 << 20).unwrap().unwrap()).unwrap();
    assert_eq!(reply["code"], "BAD_REQUEST");
}

#[test]
fn probe_live_busy_dead_and_only_dead_is_pruned() {
    let b = start(|_| {});
    let dir_base = b._base.path().to_path_buf();
    let dir = DescriptorDir::open_in(&dir_base).unwrap();
    let me = dir.find(std::process::id()).unwrap().unwrap();
    assert_eq!(probe(&me, PROBE_TIMEOUT), ProbeState::Live);

    // A stale socket corpse (bound, then the listener gone without unlinking): ECONNREFUSED.
    let corpse_dir = short_base();
    let corpse = corpse_dir.path().join("s");
    drop(std::os::unix::net::UnixListener::bind(&corpse).unwrap());
    let dead = Descriptor {
        version: 1,
        pid: 999_999_001,
        transport: TransportKind::Unix,
        address: corpse.to_string_lossy().into_owned(),
        token: "t".into(),
        app: "gone".into(),
        started_unix_ms: now_unix_ms() + 10_000, // newest, so attach must skip it
    };
    let missing = Descriptor {
        pid: 999_999_002,
        address: "/nonexistent/s".into(),
        ..dead.clone()
    };
    dir.publish(&dead).unwrap();
    dir.publish(&missing).unwrap();
    assert_eq!(probe(&dead, PROBE_TIMEOUT), ProbeState::Dead);

    // Occupy the single slot: the bridge answers a probe with its busy notice: Busy, not Dead.
    let holder = client(&b);
    let t0 = Instant::now();
    assert_eq!(probe(&me, Duration::from_secs(2)), ProbeState::Busy);
    assert!(
        t0.elapsed() < Duration::from_secs(1),
        "told at once, not timed out"
    );
    let listed = list_live(&dir, Duration::from_millis(300)).unwrap();
    assert_eq!(
        listed.len(),
        1,
        "dead ones pruned, busy one kept: {listed:?}"
    );
    assert_eq!(listed[0].1, ProbeState::Busy);
    assert!(
        dir.find(999_999_001).unwrap().is_none(),
        "dead descriptor pruned"
    );
    assert!(
        dir.find(999_999_002).unwrap().is_none(),
        "dead descriptor pruned"
    );
    assert!(
        dir.find(std::process::id()).unwrap().is_some(),
        "busy descriptor kept"
    );
    let (found, state) =
        attach(&dir, Some(std::process::id()), Duration::from_millis(300)).unwrap();
    assert_eq!((found.pid, state), (std::process::id(), ProbeState::Busy));
    drop(holder);
}

#[test]
fn attach_newest_skips_dead() {
    let b = start(|_| {});
    let dir = DescriptorDir::open_in(b._base.path()).unwrap();
    let stale = Descriptor {
        version: 1,
        pid: 999_999_003,
        transport: TransportKind::Unix,
        address: "/nonexistent/s".into(),
        token: "t".into(),
        app: "gone".into(),
        started_unix_ms: now_unix_ms() + 10_000,
    };
    dir.publish(&stale).unwrap();
    let (d, state) = attach(&dir, None, PROBE_TIMEOUT).unwrap();
    assert_eq!((d.pid, state), (std::process::id(), ProbeState::Live));
    assert!(dir.find(999_999_003).unwrap().is_none());
    assert!(attach(&dir, Some(999_999_004), PROBE_TIMEOUT).is_err());
}

#[test]
fn symlinked_descriptor_dir_refused() {
    let base = short_base();
    let real = base.path().join("elsewhere");
    std::fs::create_dir(&real).unwrap();
    std::os::unix::fs::symlink(&real, base.path().join("automation")).unwrap();
    let err = DescriptorDir::open_in(base.path()).unwrap_err();
    assert!(err.to_string().contains("symlink"), "{err}");
    let mut opts = ServerOptions::new("x");
    opts.base_dir = Some(base.path().to_path_buf());
    assert!(
        BridgeServer::<JsonProtocol>::start(opts).is_err(),
        "the server refuses it too"
    );
}

#[test]
fn foreign_owned_descriptor_dir_refused() {
    if euid() != 0 {
        eprintln!("skipped: needs root to chown a directory to another uid");
        return;
    }
    let base = short_base();
    let d = base.path().join("automation");
    std::fs::create_dir(&d).unwrap();
    std::os::unix::fs::chown(&d, Some(65534), Some(65534)).unwrap();
    let err = DescriptorDir::open_in(base.path()).unwrap_err();
    assert!(
        matches!(
            err,
            automation_wire::descriptor::DescriptorError::Dir(DirError::ForeignOwner {
                owner: 65534,
                ..
            })
        ),
        "{err}"
    );
}

#[test]
fn debug_installer_starts_the_bridge_only_in_debug() {
    let base = short_base();
    let mut opts = ServerOptions::new("installer");
    opts.base_dir = Some(base.path().to_path_buf());
    let s = automation_wire::install::install_bridge_in_debug::<JsonProtocol>(opts).unwrap();
    assert_eq!(s.is_some(), cfg!(debug_assertions));
}
