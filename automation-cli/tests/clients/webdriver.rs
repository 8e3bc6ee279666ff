//! `automation webdriver` against real clients and real apps: the official Selenium Python
//! client, the Appium Python client and WebdriverIO drive gtk3-widget-factory and the Qt 5
//! calculator, with pyatspi on the same bus as the judge (`tests/python/webdriver_*.py`,
//! `tests/js/webdriver_wdio.mjs`); hostile input over raw HTTP; Selenium Grid 4 with two relay
//! nodes (`webdriver_grid.rs`).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::webdriver as wd;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wd::{Server, Session, http};

#[test]
fn hostile_input_gets_w3c_errors_and_the_server_keeps_serving() {
    let server = Server::start(&["--max-sessions", "2"]);
    let addr = server.addr();
    let new_headless =
        json!({"capabilities": {"alwaysMatch": {"automation:headless": true}}}).to_string();

    // Malformed JSON.
    let (status, body) = http(&addr, "POST", "/session", b"{\"capabilities\": ", &[]);
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["value"]["error"], "invalid argument", "{body}");

    // A 10 MB body: refused before it is all read, the connection answered.
    let big = vec![b'x'; 10 * 1024 * 1024];
    let (status, body) = http(&addr, "POST", "/session", &big, &[]);
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["value"]["error"], "invalid argument");

    // Unknown session ids, and an unknown command.
    let (status, body) = http(&addr, "GET", "/session/nope/source", b"", &[]);
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (404, Some("invalid session id")),
        "{body}"
    );
    let (status, body) = http(&addr, "POST", "/session/nope/element/e1/click", b"{}", &[]);
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (404, Some("invalid session id"))
    );
    let (status, body) = http(&addr, "GET", "/no/such/command", b"", &[]);
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (404, Some("unknown command"))
    );

    // Capabilities that match nothing, and a bad locator.
    let (status, body) = http(
        &addr,
        "POST",
        "/session",
        br#"{"capabilities": {"alwaysMatch": {"appium:automationName": "mac2"}}}"#,
        &[],
    );
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (500, Some("session not created")),
        "{body}"
    );

    // More sessions than allowed: the third is refused, /status says full.
    let a = http(&addr, "POST", "/session", new_headless.as_bytes(), &[]).1;
    let a = a["value"]["sessionId"].as_str().unwrap().to_string();
    let b = http(&addr, "POST", "/session", new_headless.as_bytes(), &[]).1;
    let b = b["value"]["sessionId"].as_str().unwrap().to_string();
    let (status, body) = http(&addr, "POST", "/session", new_headless.as_bytes(), &[]);
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (500, Some("session not created"))
    );
    assert!(
        body["value"]["message"]
            .as_str()
            .unwrap()
            .contains("--max-sessions"),
        "{body}"
    );
    assert_eq!(
        http(&addr, "GET", "/status", b"", &[]).1["value"]["ready"],
        false
    );

    let find = |sid: &str, using: &str, value: &str| {
        http(
            &addr,
            "POST",
            &format!("/session/{sid}/element"),
            json!({"using": using, "value": value})
                .to_string()
                .as_bytes(),
            &[],
        )
    };
    let (status, body) = find(&a, "xpath", "//Button[");
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (400, Some("invalid selector")),
        "{body}"
    );
    let (status, body) = find(&a, "link text", "Save");
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (400, Some("invalid selector"))
    );
    let (status, body) = find(&a, "name", "No such thing");
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (404, Some("no such element"))
    );

    // An element the session never handed out (or one whose node is gone) is stale.
    let (status, body) = http(
        &addr,
        "POST",
        &format!("/session/{a}/element/e999999/click"),
        b"{}",
        &[],
    );
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (404, Some("stale element reference")),
        "{body}"
    );
    assert_eq!(body["value"]["data"]["code"], "NOT_FOUND", "{body}");

    // A slow client: its headers never finish; the server drops it on time and answers
    // everyone else meanwhile.
    let mut slow = TcpStream::connect(&addr).unwrap();
    slow.write_all(b"POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
        .unwrap();
    let mut slow_body = TcpStream::connect(&addr).unwrap();
    slow_body
        .write_all(format!("POST /session/{a}/element HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 100\r\n\r\n{{\"using\"").as_bytes())
        .unwrap();
    let sent = Instant::now();
    let started = Instant::now();
    let (status, _) = find(&a, "name", "Save");
    assert_eq!(status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // Typing into one session's field leaves the other's empty.
    let name_a = find(&a, "xpath", "//TextInput[@name='Name']").1["value"][wd::ELEMENT]
        .as_str()
        .unwrap()
        .to_string();
    let (status, _) = http(
        &addr,
        "POST",
        &format!("/session/{a}/element/{name_a}/value"),
        br#"{"text": "Zo\u00eb"}"#,
        &[],
    );
    assert_eq!(status, 200);
    let name_b = find(&b, "xpath", "//TextInput[@name='Name']").1["value"][wd::ELEMENT]
        .as_str()
        .unwrap()
        .to_string();
    let text = |sid: &str, eid: &str| {
        http(
            &addr,
            "GET",
            &format!("/session/{sid}/element/{eid}/text"),
            b"",
            &[],
        )
        .1["value"]
            .clone()
    };
    assert_eq!(text(&a, &name_a), "Zoë");
    assert_eq!(text(&b, &name_b), "");
    slow.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    slow_body
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    // The 408's status line (the connection itself then waits for the rest of the body).
    let mut answer = String::new();
    let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(&slow_body), &mut answer);
    let body_cut = sent.elapsed();
    // The half-sent headers: the server closes the connection (end of file, not our timeout).
    let mut sink = Vec::new();
    let closed = slow.read_to_end(&mut sink).is_ok();
    let header_cut = sent.elapsed();
    eprintln!(
        "slow body answered after {body_cut:?}: {}; slow headers cut after {header_cut:?}",
        answer.lines().next().unwrap_or_default()
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(body_cut < Duration::from_secs(15), "{body_cut:?}");
    assert!(
        closed && header_cut < Duration::from_secs(40),
        "closed {closed} after {header_cut:?}"
    );

    // Deleting ends the session; its id is then unknown; a slot is free again.
    assert_eq!(
        http(&addr, "DELETE", &format!("/session/{a}"), b"", &[]).0,
        200
    );
    assert_eq!(
        http(&addr, "DELETE", &format!("/session/{a}"), b"", &[]).0,
        404
    );
    assert_eq!(
        http(&addr, "GET", "/status", b"", &[]).1["value"]["ready"],
        true
    );
    assert_eq!(text(&b, &name_b), "");

    // A foreign Host (a DNS-rebinding page) is refused on loopback.
    let (status, _) = http(&addr, "GET", "/status", b"", &[("Host", "evil.example:80")]);
    assert_eq!(status, 403);
}

#[test]
fn beyond_loopback_the_server_needs_a_token_and_an_allow_list() {
    let out = crate::support::automation()
        .args(["webdriver", "--host", "0.0.0.0", "--port", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        err.contains("--auth-token") && err.contains("--allow-app"),
        "{err}"
    );
    let out = crate::support::automation()
        .args([
            "webdriver",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--auth-token",
            "s3cret",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));

    let server = Server::start(&[
        "--host",
        "0.0.0.0",
        "--auth-token",
        "s3cret",
        "--allow-app",
        "true*",
    ]);
    let addr = server.addr();
    let (status, _) = http(&addr, "GET", "/status", b"", &[]);
    assert_eq!(status, 401);
    let (status, _) = http(
        &addr,
        "GET",
        "/status",
        b"",
        &[("Authorization", "Bearer wrong")],
    );
    assert_eq!(status, 401);
    let auth = [("Authorization", "Bearer s3cret")];
    let (status, body) = http(&addr, "GET", "/status", b"", &auth);
    assert_eq!(
        (status, body["value"]["ready"].as_bool()),
        (200, Some(true))
    );
    let caps = json!({"capabilities": {"alwaysMatch": {"appium:app": "xterm -e sh"}}}).to_string();
    let (status, body) = http(&addr, "POST", "/session", caps.as_bytes(), &auth);
    assert_eq!(
        (status, body["value"]["error"].as_str()),
        (500, Some("session not created"))
    );
    assert!(
        body["value"]["message"]
            .as_str()
            .unwrap()
            .contains("allow-list"),
        "{body}"
    );
}

/// A value longer than a snapshot keeps (1 KiB) is whole in the page source, and an XPath on
/// it finds its element; `GET /text` reads the same whole value.
#[test]
fn a_long_value_is_whole_in_the_source_and_for_xpath() {
    let server = Server::start(&[]);
    let session = Session::new(&server.addr(), json!({"automation:headless": true}));
    let long: String = (0..300).map(|i| format!("Zoë {i} ")).collect();
    assert!(long.len() > 2048, "{}", long.len());
    let name = Session::element(&session.call(
        "POST",
        "/element",
        json!({"using": "xpath", "value": "//TextInput[@name='Name']"}),
    ));
    session.call(
        "POST",
        "/execute/sync",
        json!({"script": "automation: set_value", "args": [{"node": name, "value": long}]}),
    );
    let source = session.call("GET", "/source", Value::Null);
    let source = source.as_str().unwrap();
    assert!(source.contains(&format!("value=\"{long}\"")), "{source}");
    assert!(!source.contains('…'), "nothing is cut: {source}");
    let found = session.call(
        "POST",
        "/element",
        json!({"using": "xpath", "value": format!("//TextInput[@value=\"{long}\"]")}),
    );
    assert_eq!(Session::element(&found), name);
    assert_eq!(
        session.call("GET", &format!("/element/{name}/text"), Value::Null),
        json!(long)
    );
}

/// docs/webdriver.md: a one-element find by `name` is the first node in document order — the
/// same as `find_elements`' first and the XPath's first (issue 39: it was the field, while
/// both lists began with its label).
#[test]
fn a_find_by_name_is_the_first_of_find_elements_and_of_the_xpath() {
    let server = Server::start(&[]);
    let session = Session::new(&server.addr(), json!({"automation:headless": true}));
    let one = Session::element(&session.call(
        "POST",
        "/element",
        json!({"using": "name", "value": "Name"}),
    ));
    let many = session.call(
        "POST",
        "/elements",
        json!({"using": "name", "value": "Name"}),
    );
    let by_xpath = session.call(
        "POST",
        "/elements",
        json!({"using": "xpath", "value": "//*[@name='Name']"}),
    );
    let firsts = |v: &Value| Session::element(&v.as_array().unwrap()[0]);
    assert!(many.as_array().unwrap().len() >= 2, "{many}");
    assert_eq!(one, firsts(&many), "{many}");
    assert_eq!(one, firsts(&by_xpath), "{by_xpath}");
    let name = session.call("GET", &format!("/element/{one}/name"), Value::Null);
    assert_eq!(
        name,
        json!("Label"),
        "the demo's label comes before its field"
    );
}
