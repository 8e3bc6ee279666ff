//! Load no request may turn into an outage: a hostile XPath stalls no other session, held
//! idle sockets stop no real client, a silent connection is closed.

use super::*;

#[test]
fn a_hostile_xpath_stalls_no_one() {
    let server = Server::start(&[]);
    let addr = server.addr();
    let headless = json!({"automation:headless": true});
    let a = Session::new(&addr, headless.clone());
    let b = Session::new(&addr, headless);
    let deep = format!("//*{}{}", "[*".repeat(1000), "]".repeat(1000));
    let hostile = [
        deep.as_str(),
        "//*[//*[//*[//*[//*]]]]",
        "//*[//*[//*[//*[//*[//*[@nope]]]]]]",
        "//*[count(//*[count(//*[count(//*[@nope]) = 0]) > 0]) > 0]",
    ];
    for expr in hostile {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watcher = {
            let (stop, addr, sid) = (Arc::clone(&stop), addr.clone(), b.id.clone());
            std::thread::spawn(move || {
                let mut slowest = Duration::ZERO;
                let find = json!({"using": "name", "value": "Save"}).to_string();
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let t = Instant::now();
                    let (status, _) = wd::http(&addr, "GET", "/status", b"", &[]);
                    assert_eq!(status, 200);
                    let (status, found) = wd::http(
                        &addr,
                        "POST",
                        &format!("/session/{sid}/element"),
                        find.as_bytes(),
                        &[],
                    );
                    assert_eq!(status, 200, "{found}");
                    assert!(found["value"][ELEMENT].is_string());
                    slowest = slowest.max(t.elapsed());
                    std::thread::sleep(Duration::from_millis(20));
                }
                slowest
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        let t = Instant::now();
        let (status, body) = wd::http(
            &addr,
            "POST",
            &format!("/session/{}/elements", a.id),
            json!({"using": "xpath", "value": expr})
                .to_string()
                .as_bytes(),
            &[],
        );
        let took = t.elapsed();
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let slowest = watcher.join().unwrap();
        let short = &expr[..expr.len().min(40)];
        assert!(
            took < Duration::from_secs(1),
            "{short}: answered in {took:?}"
        );
        // A typed answer: an invalid selector, or (where xpath's short cuts make it cheap) the
        // elements themselves.
        assert!(
            (status == 400 && body["value"]["error"] == "invalid selector")
                || (status == 200 && body["value"].is_array()),
            "{short}: {status} {body}"
        );
        assert!(
            slowest < Duration::from_millis(100),
            "{short}: another session's find and /status took {slowest:?}"
        );
        eprintln!("{short}: {status} in {took:?}; the other session's slowest round {slowest:?}");
    }
}

/// Opens and holds `n` connections to `addr` (sending nothing).
fn hold(addr: &str, n: usize) -> Vec<TcpStream> {
    (0..n)
        .filter_map(|_| TcpStream::connect(addr).ok())
        .collect()
}

#[test]
fn held_idle_sockets_stop_no_real_client_on_any_door() {
    // This process holds 1 100 sockets besides its own descriptors.
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit on a struct that lives for the calls.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit);
        if limit.rlim_cur < 4096 && limit.rlim_max >= 4096 {
            limit.rlim_cur = 4096;
            libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit);
        }
    }
    if !require(
        "prlimit",
        on_path("prlimit"),
        "prlimit is missing (Debian: util-linux)",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (inspected, _acts) = recorded_app("edge-sockets");
    std::fs::create_dir_all(dir.path().join("report")).unwrap();
    std::fs::write(dir.path().join("report/index.html"), "<html>report</html>").unwrap();
    // Each door with a 1 024-descriptor limit, as desktops commonly have.
    let limited = |args: &[&str], env: &[(String, String)]| {
        let mut cmd = Command::new("prlimit");
        cmd.args(["--nofile=1024:1024", "--", crate::support::AUTOMATION]);
        Server::spawn_cmd(cmd, args, env, None)
    };
    let report_dir = dir.path().join("report");
    let doors = [
        (
            "webdriver",
            limited(&["webdriver", "--port", "0"], &[]),
            "/status".to_string(),
            "",
        ),
        (
            "mcp",
            limited(&["serve", "--http", "127.0.0.1:0"], &[]),
            "/mcp".to_string(),
            MCP_INIT,
        ),
        (
            "inspector",
            limited(
                &["--attach", "inspect"],
                &[(
                    "XDG_RUNTIME_DIR".into(),
                    inspected.base.path().display().to_string(),
                )],
            ),
            String::new(),
            "",
        ),
        (
            "report",
            limited(&["show-report", report_dir.to_str().unwrap()], &[]),
            "/".to_string(),
            "",
        ),
    ];
    for (name, server, path, body) in &doors {
        let addr = server.addr();
        let path = if *name == "inspector" {
            format!(
                "/api/tree?token={}",
                server.url.split("token=").nth(1).unwrap()
            )
        } else {
            path.clone()
        };
        let held = hold(&addr, 1100);
        assert!(
            held.len() >= 1000,
            "{name}: only {} connections opened",
            held.len()
        );
        let t = Instant::now();
        let (method, headers): (&str, Vec<(&str, &str)>) = if body.is_empty() {
            ("GET", vec![])
        } else {
            (
                "POST",
                vec![
                    ("Content-Type", "application/json"),
                    ("Accept", "application/json, text/event-stream"),
                ],
            )
        };
        let (status, _, reply) = raw(&addr, method, &path, &headers, body.as_bytes());
        assert_eq!(
            status,
            200,
            "{name} with {} sockets held: {reply}",
            held.len()
        );
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{name}: {:?}",
            t.elapsed()
        );
        // The held sockets were the idlest: the server closed them to make room.
        let mut closed = 0;
        for mut s in held.into_iter().take(200) {
            s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
            let mut b = [0u8; 1];
            if matches!(s.read(&mut b), Ok(0) | Err(_)) {
                closed += 1;
            }
        }
        assert!(closed > 0, "{name}: no held socket was closed");
        eprintln!(
            "{name}: a real client served in {:?} with 1 100 sockets held",
            t.elapsed()
        );
    }
}

#[test]
fn a_silent_connection_is_closed() {
    let server = Server::start(&[]);
    let mut silent = TcpStream::connect(server.addr()).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(45)))
        .unwrap();
    let t = Instant::now();
    let mut b = [0u8; 64];
    let n = silent.read(&mut b);
    let took = t.elapsed();
    assert!(
        matches!(n, Ok(0) | Err(_)) || took < Duration::from_secs(45),
        "{n:?}"
    );
    assert!(
        took >= Duration::from_secs(25) && took < Duration::from_secs(40),
        "closed after {took:?}"
    );
}
