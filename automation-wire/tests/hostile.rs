//! Hostile input against the wire crate, each measured: a FIFO or a 4 GiB file in the
//! descriptor directory, a server that drips its hello, and a second client at a busy bridge.
// Tests fail loudly by design: helpers outside `#[test]` may unwrap, expect and panic too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(unix)]

use std::ffi::CString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use automation_wire::client::{BridgeClient, ClientError};
use automation_wire::descriptor::{
    Descriptor, DescriptorDir, DescriptorError, MAX_DESCRIPTOR_BYTES, TransportKind, now_unix_ms,
};
use automation_wire::handshake::BUSY_MESSAGE;
use automation_wire::probe::{PROBE_TIMEOUT, ProbeState, list_live, probe};
use automation_wire::server::{BridgeServer, JsonProtocol, ServerOptions};
use serde_json::{Value, json};

fn short_base() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("aw")
        .tempdir_in("/tmp")
        .unwrap()
}

fn mkfifo(p: &Path) {
    let c = CString::new(p.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn sample(pid: u32, address: &str) -> Descriptor {
    Descriptor {
        version: 1,
        pid,
        transport: TransportKind::Unix,
        address: address.into(),
        token: "t".into(),
        app: "hostile".into(),
        started_unix_ms: now_unix_ms(),
    }
}

/// Run `f` on a thread and give up after `limit` (the old code blocked forever here).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("still blocked after {limit:?}"))
}

#[test]
fn fifo_named_json_is_skipped_at_once() {
    let base = short_base();
    let dir = DescriptorDir::open_in(base.path()).unwrap();
    dir.publish(&sample(4242, "/nonexistent/s")).unwrap();
    let fifo = dir.path().join("x.json");
    mkfifo(&fifo);

    let t0 = Instant::now();
    let listing = {
        let dir = dir.clone();
        within(Duration::from_secs(5), move || dir.list().unwrap())
    };
    let took = t0.elapsed();
    eprintln!("list with a FIFO named x.json: {took:?}");
    assert!(took < Duration::from_millis(100), "took {took:?}");
    assert_eq!(
        listing.entries.len(),
        1,
        "the real descriptor is still listed"
    );
    assert!(
        matches!(
            listing.skipped.as_slice(),
            [DescriptorError::NotARegularFile { kind: "fifo", .. }]
        ),
        "{:?}",
        listing.skipped
    );

    // Reading it directly (what `find` does for `--attach-pid`) does not block either.
    let t0 = Instant::now();
    let err = within(Duration::from_secs(5), move || {
        DescriptorDir::read(&fifo).unwrap_err()
    });
    assert!(t0.elapsed() < Duration::from_millis(100));
    assert!(
        matches!(err, DescriptorError::NotARegularFile { kind: "fifo", .. }),
        "{err}"
    );
    assert!(err.to_string().contains("remove it"));

    // And list_live (the CLI's --list) gets through it too.
    let t0 = Instant::now();
    let live = within(Duration::from_secs(5), move || {
        list_live(&dir, PROBE_TIMEOUT).unwrap().len()
    });
    assert_eq!(live, 0, "the dead one was pruned");
    assert!(t0.elapsed() < Duration::from_millis(500));
}

fn max_rss_kib() -> i64 {
    // SAFETY: getrusage fills the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) }, 0);
    ru.ru_maxrss
}

#[test]
fn sparse_4_gib_descriptor_is_refused_without_reading_it() {
    let base = short_base();
    let dir = DescriptorDir::open_in(base.path()).unwrap();
    let big = dir.path().join("7.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    let rss_before = max_rss_kib();
    let t0 = Instant::now();
    let err = DescriptorDir::read(&big).unwrap_err();
    let took = t0.elapsed();
    let listing = dir.list().unwrap();
    let grew_kib = max_rss_kib() - rss_before;
    eprintln!("4 GiB sparse descriptor: refused in {took:?}, peak RSS grew {grew_kib} KiB");
    assert!(
        matches!(err, DescriptorError::TooLarge { len, cap: MAX_DESCRIPTOR_BYTES, .. } if len == 4 << 30),
        "{err}"
    );
    assert!(took < Duration::from_millis(100), "took {took:?}");
    assert!(grew_kib < 64 * 1024, "peak RSS grew {grew_kib} KiB");
    assert!(matches!(
        listing.skipped.as_slice(),
        [DescriptorError::TooLarge { .. }]
    ));
    // Just over the cap is refused; a symlink is not followed.
    let over = dir.path().join("8.json");
    std::fs::write(&over, vec![b' '; MAX_DESCRIPTOR_BYTES as usize + 1]).unwrap();
    assert!(matches!(
        DescriptorDir::read(&over),
        Err(DescriptorError::TooLarge { .. })
    ));
    let real = dir.path().join("real");
    std::fs::write(&real, sample(9, "/x").to_json()).unwrap();
    let link = dir.path().join("9.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert!(matches!(
        DescriptorDir::read(&link),
        Err(DescriptorError::NotARegularFile {
            kind: "symlink",
            ..
        })
    ));
}

/// A fake bridge that accepts and then drips a valid hello one byte per 200 ms.
fn dripping_server(base: &Path) -> String {
    let sock = base.join("drip.sock");
    let l = UnixListener::bind(&sock).unwrap();
    thread::spawn(move || {
        for c in l.incoming() {
            let Ok(mut c) = c else { return };
            thread::spawn(move || {
                let hello = br#"{"bridge":"automation-wire","protocol":1,"pid":1}"#;
                let mut frame = (hello.len() as u32).to_le_bytes().to_vec();
                frame.extend_from_slice(hello);
                for b in frame {
                    if c.write_all(&[b]).is_err() {
                        return;
                    }
                    thread::sleep(Duration::from_millis(200));
                }
            });
        }
    });
    sock.to_string_lossy().into_owned()
}

#[test]
fn dripping_hello_costs_one_deadline_and_entries_are_probed_in_parallel() {
    let base = short_base();
    let addr = dripping_server(base.path());
    let dir = DescriptorDir::open_in(base.path()).unwrap();

    let t0 = Instant::now();
    assert_eq!(probe(&sample(1, &addr), PROBE_TIMEOUT), ProbeState::Busy);
    let one = t0.elapsed();
    eprintln!("one probe of a dripping hello: {one:?}");
    assert!(one < PROBE_TIMEOUT + Duration::from_millis(300), "{one:?}");

    // Eight bad entries (one batch) and a dead one: one deadline for the whole listing.
    for pid in 0..8 {
        dir.publish(&sample(900_000_000 + pid, &addr)).unwrap();
    }
    dir.publish(&sample(900_000_100, "/nonexistent/s")).unwrap();
    let t0 = Instant::now();
    let listed = list_live(&dir, PROBE_TIMEOUT).unwrap();
    let took = t0.elapsed();
    eprintln!("list_live with 8 dripping entries: {took:?}");
    assert_eq!(listed.len(), 8);
    assert!(
        took < PROBE_TIMEOUT + Duration::from_millis(500),
        "{took:?}"
    );

    // Ten (more than one batch of 8).
    for pid in 8..10 {
        dir.publish(&sample(900_000_000 + pid, &addr)).unwrap();
    }
    let t0 = Instant::now();
    let listed = list_live(&dir, PROBE_TIMEOUT).unwrap();
    let took = t0.elapsed();
    eprintln!("list_live with 10 dripping entries: {took:?}");
    assert_eq!(
        listed.len(),
        10,
        "dripping entries kept (Busy), the dead one pruned"
    );
    assert!(listed.iter().all(|(_, s)| *s == ProbeState::Busy));
    // 10 entries, 8 at a time: two deadlines at most, plus slack.
    assert!(
        took < PROBE_TIMEOUT * 2 + Duration::from_millis(500),
        "{took:?}"
    );
}

#[test]
fn listener_that_never_accepts_costs_one_deadline() {
    let base = short_base();
    let sock = base.path().join("mute.sock");
    // Bound and listening, never accepted: connect succeeds into the backlog, no greeting.
    let _l = UnixListener::bind(&sock).unwrap();
    let t0 = Instant::now();
    let state = probe(
        &sample(1, &sock.to_string_lossy()),
        Duration::from_millis(300),
    );
    assert_eq!(state, ProbeState::Busy);
    assert!(
        t0.elapsed() < Duration::from_millis(800),
        "{:?}",
        t0.elapsed()
    );
}

fn bridge(base: &Path) -> BridgeServer<JsonProtocol> {
    let mut opts = ServerOptions::new("busy-test");
    opts.base_dir = Some(base.to_path_buf());
    BridgeServer::start(opts).unwrap()
}

#[test]
fn second_client_is_told_busy_at_once() {
    let base = short_base();
    let server = bridge(base.path());
    let _first = BridgeClient::connect(server.address(), server.token()).unwrap();

    let t0 = Instant::now();
    let err = BridgeClient::connect(server.address(), server.token()).unwrap_err();
    let took = t0.elapsed();
    eprintln!("second client told busy in {took:?}: {err}");
    assert!(matches!(err, ClientError::Busy { .. }), "{err}");
    assert!(err.is_busy());
    assert!(took < Duration::from_millis(500), "{took:?}");
    assert!(err.to_string().contains(BUSY_MESSAGE));
    assert!(
        err.to_string().contains(
            "another client is attached to this app; wait for it to detach or retry later"
        )
    );
    assert!(!err.to_string().contains("token may be wrong"));

    // The probe says Busy for it, at once, and the listing keeps it.
    let dir = DescriptorDir::open_in(base.path()).unwrap();
    let d = dir.find(std::process::id()).unwrap().unwrap();
    let t0 = Instant::now();
    assert_eq!(probe(&d, PROBE_TIMEOUT), ProbeState::Busy);
    assert!(t0.elapsed() < Duration::from_millis(500));
    let listed = list_live(&dir, PROBE_TIMEOUT).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].1, ProbeState::Busy);

    // A bounded wait that runs out is still Busy, after about the bound.
    let t0 = Instant::now();
    let err = BridgeClient::connect_with_wait(
        server.address(),
        server.token(),
        Duration::from_millis(400),
    )
    .unwrap_err();
    assert!(err.is_busy(), "{err}");
    let waited = t0.elapsed();
    assert!(
        waited >= Duration::from_millis(400) && waited < Duration::from_millis(1200),
        "{waited:?}"
    );
}

#[test]
fn with_a_wait_the_second_client_gets_in_when_the_first_detaches() {
    let base = short_base();
    let server = bridge(base.path());
    let first = BridgeClient::connect(server.address(), server.token()).unwrap();
    let (addr, token) = (server.address().to_string(), server.token().to_string());
    let t0 = Instant::now();
    let second = thread::spawn(move || {
        let mut c = BridgeClient::connect_with_wait(&addr, &token, Duration::from_secs(5)).unwrap();
        let got_in = t0.elapsed();
        let r: Value = c.request(&json!({"op": "second"})).unwrap();
        (got_in, r)
    });
    thread::sleep(Duration::from_millis(400));
    drop(first);
    let p = server
        .recv_timeout(Duration::from_secs(5))
        .expect("the second client's request");
    assert_eq!(p.request()["op"], "second");
    p.respond(json!({"status": "ok", "data": 2}));
    let (got_in, r) = second.join().unwrap();
    eprintln!("second client got in {got_in:?} after start (first left at 400 ms)");
    assert_eq!(r["data"], 2);
    assert!(got_in >= Duration::from_millis(400), "{got_in:?}");
    assert!(got_in < Duration::from_millis(1500), "{got_in:?}");
}

#[test]
fn a_probe_right_before_attaching_does_not_make_the_attach_busy() {
    // `--attach` probes, then connects at once: the probe's connection may still be winding
    // down on the server when the real client arrives; the bridge's grace covers it.
    let base = short_base();
    let server = bridge(base.path());
    let dir = DescriptorDir::open_in(base.path()).unwrap();
    let d = dir.find(std::process::id()).unwrap().unwrap();
    for _ in 0..20 {
        assert_eq!(probe(&d, PROBE_TIMEOUT), ProbeState::Live);
        let c = BridgeClient::from_descriptor(&d);
        assert!(c.is_ok(), "{:?}", c.err());
    }
    drop(server);
}

/// Two hundred clients at a busy bridge at once are each told so, side by side: the old
/// accept loop greeted them one after another (~200 ms each), and 51 of 200 heard nothing in
/// 30 s.
#[test]
fn two_hundred_clients_at_a_busy_bridge_are_all_told_at_once() {
    let base = short_base();
    let server = bridge(base.path());
    let _first = BridgeClient::connect(server.address(), server.token()).unwrap();
    let t0 = Instant::now();
    let handles: Vec<_> = (0..200)
        .map(|_| {
            let (addr, token) = (server.address().to_string(), server.token().to_string());
            thread::spawn(move || {
                let started = Instant::now();
                let err = BridgeClient::connect(&addr, &token).err();
                (err.is_some_and(|e| e.is_busy()), started.elapsed())
            })
        })
        .collect();
    let results: Vec<(bool, Duration)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let took = t0.elapsed();
    let busy = results.iter().filter(|(b, _)| *b).count();
    let slowest = results.iter().map(|(_, d)| *d).max().unwrap();
    eprintln!("200 clients: {busy} told busy, slowest {slowest:?}, all in {took:?}");
    assert_eq!(busy, 200, "every client hears the busy notice");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

/// A connection that never sends its token holds nothing: a real client that comes after it
/// is served at once, not after the 10 s handshake deadline.
#[test]
fn a_silent_connection_does_not_hold_the_slot() {
    let base = short_base();
    let server = bridge(base.path());
    let silent: Vec<_> = (0..8)
        .map(|_| std::os::unix::net::UnixStream::connect(server.address()).unwrap())
        .collect();
    thread::sleep(Duration::from_millis(100));
    let (addr, token) = (server.address().to_string(), server.token().to_string());
    let t0 = Instant::now();
    let mut client = within(Duration::from_secs(5), move || {
        BridgeClient::connect(&addr, &token).unwrap()
    });
    let took = t0.elapsed();
    eprintln!("served past 8 silent connections in {took:?}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    let answer = thread::spawn(move || {
        let p = server
            .recv_timeout(Duration::from_secs(5))
            .expect("the request");
        p.respond(json!({"status": "ok", "data": 1}));
        server
    });
    let r: Value = client.request(&json!({"op": "x"})).unwrap();
    assert_eq!(r["data"], 1);
    drop(answer.join().unwrap());
    drop(silent);
}
