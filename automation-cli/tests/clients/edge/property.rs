//! The edge, in process, against a model of its rules: any Host, Origin (one or two),
//! Sec-Fetch-Site, token, content type and body, sent in pieces. A request reaches the handler
//! exactly when the model lets it, and gets the model's status otherwise.

use automation_http::edge::{self, Door};

use super::*;
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

const TOKEN: &str = "s3cret-token";
const ALLOWED: &str = "http://allowed.example:3000";
const CAP: usize = 1024;

struct Edge {
    addr: String,
    port: u16,
    reached: Arc<AtomicUsize>,
    _rt: tokio::runtime::Runtime,
}

fn edge() -> &'static Edge {
    static EDGE: std::sync::OnceLock<Edge> = std::sync::OnceLock::new();
    EDGE.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let reached = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&reached);
        let (listener, addr) = rt
            .block_on(edge::bind("127.0.0.1:0".parse().unwrap()))
            .unwrap();
        let door = Door::api(
            "test door",
            addr,
            Some(TOKEN.into()),
            &[ALLOWED.into()],
            CAP,
        )
        .unwrap();
        let app = axum::Router::new().fallback(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            async { "passed" }
        });
        rt.spawn(edge::serve(listener, app, door));
        Edge {
            addr: addr.to_string(),
            port: addr.port(),
            reached,
            _rt: rt,
        }
    })
}

#[derive(Debug, Clone)]
struct Req {
    method: &'static str,
    host: String,
    origins: Vec<String>,
    fetch_site: Option<String>,
    auth: Option<String>,
    content_type: Option<String>,
    body: Vec<u8>,
    pieces: Vec<usize>,
}

/// What the rules say: the status, and whether the handler runs.
fn model(r: &Req, port: u16) -> (u16, bool) {
    let hosts: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .flat_map(|h| [format!("{h}:{port}"), (*h).to_string()])
        .collect();
    if !hosts.iter().any(|h| h.eq_ignore_ascii_case(&r.host)) {
        return (403, false);
    }
    let mut allowed_origin = false;
    if !r.origins.is_empty() {
        if r.origins.len() == 1 && r.origins[0].eq_ignore_ascii_case(ALLOWED) {
            allowed_origin = true;
        } else {
            return (403, false);
        }
    } else if let Some(s) = &r.fetch_site
        && !s.eq_ignore_ascii_case("same-origin")
        && !s.eq_ignore_ascii_case("none")
    {
        return (403, false);
    }
    if r.method == "OPTIONS" && allowed_origin {
        return (204, false);
    }
    let basic = format!("Basic {}", base64_of(&format!("me:{TOKEN}")));
    let authorized = r
        .auth
        .as_deref()
        .is_some_and(|a| a == format!("Bearer {TOKEN}") || a == basic);
    if !authorized {
        return (401, false);
    }
    let json = |t: &str| {
        t.split(';')
            .next()
            .unwrap()
            .trim()
            .eq_ignore_ascii_case("application/json")
    };
    if r.method == "POST" && r.content_type.as_deref().is_some_and(|t| !json(t)) {
        return (415, false);
    }
    if r.body.len() > CAP {
        return (413, false);
    }
    if r.method == "POST" && r.content_type.is_none() && !r.body.is_empty() {
        return (415, false);
    }
    (200, true)
}

fn base64_of(s: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn send(addr: &str, r: &Req) -> u16 {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut head = format!(
        "{} /any/path HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
        r.method,
        r.host,
        r.body.len()
    );
    for o in &r.origins {
        head.push_str(&format!("Origin: {o}\r\n"));
    }
    if let Some(v) = &r.fetch_site {
        head.push_str(&format!("Sec-Fetch-Site: {v}\r\n"));
    }
    if let Some(v) = &r.auth {
        head.push_str(&format!("Authorization: {v}\r\n"));
    }
    if let Some(v) = &r.content_type {
        head.push_str(&format!("Content-Type: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&r.body);
    // In pieces, as a slow or crafty client sends them.
    let mut at = 0;
    for p in &r.pieces {
        let end = (at + p).min(bytes.len());
        if s.write_all(&bytes[at..end]).is_err() {
            break;
        }
        s.flush().unwrap();
        at = end;
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = s.write_all(&bytes[at..]);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    parse_response(&out).0
}

fn text() -> impl Strategy<Value = String> {
    "[ -~]{0,30}"
}

fn request(port: u16) -> impl Strategy<Value = Req> {
    let host = prop_oneof![
        Just(format!("127.0.0.1:{port}")),
        Just(format!("LOCALHOST:{port}")),
        Just("localhost".to_string()),
        Just(format!("[::1]:{port}")),
        Just(format!("127.0.0.1:{}", port.wrapping_add(1))),
        Just(format!("attacker.example:{port}")),
        text(),
    ];
    let origin = prop_oneof![
        Just(ALLOWED.to_string()),
        Just(ALLOWED.to_uppercase()),
        Just(format!("{ALLOWED}/")),
        Just("null".to_string()),
        Just("https://evil.example".to_string()),
        text(),
    ];
    let origins = prop_oneof![3 => Just(Vec::new()), 3 => prop::collection::vec(origin, 1..=1), 1 => prop::collection::vec(Just(ALLOWED.to_string()).boxed().prop_union(Just("https://evil.example".to_string()).boxed()), 2..=2)];
    let site = prop::option::of(prop_oneof![
        Just("cross-site".to_string()),
        Just("same-site".to_string()),
        Just("same-origin".to_string()),
        Just("none".to_string()),
        text(),
    ]);
    let auth = prop::option::of(prop_oneof![
        3 => Just(format!("Bearer {TOKEN}")),
        1 => Just(format!("Basic {}", base64_of(&format!("me:{TOKEN}")))),
        1 => Just("Bearer wrong".to_string()),
        1 => Just(format!("Bearer {TOKEN}x")),
        1 => text(),
    ]);
    let content_type = prop::option::of(prop_oneof![
        3 => Just("application/json".to_string()),
        1 => Just("application/json; charset=utf-8".to_string()),
        1 => Just("APPLICATION/JSON".to_string()),
        1 => Just("text/plain;charset=UTF-8".to_string()),
        1 => Just("application/x-www-form-urlencoded".to_string()),
        1 => Just("multipart/form-data; boundary=x".to_string()),
        1 => Just("application/json-seq".to_string()),
        1 => text(),
    ]);
    let method = prop::sample::select(vec!["GET", "POST", "POST", "DELETE", "OPTIONS", "PUT"]);
    let body = prop_oneof![3 => Just(Vec::new()), 3 => prop::collection::vec(any::<u8>(), 1..64), 1 => prop::collection::vec(any::<u8>(), CAP - 2..CAP + 600)];
    let pieces = prop::collection::vec(1usize..200, 0..4);
    (
        method,
        host,
        origins,
        site,
        auth,
        content_type,
        body,
        pieces,
    )
        .prop_map(
            |(method, host, origins, fetch_site, auth, content_type, body, pieces)| Req {
                method,
                host: host.trim().to_string(),
                origins: origins.into_iter().map(|o| o.trim().to_string()).collect(),
                fetch_site: fetch_site.map(|s| s.trim().to_string()),
                auth: auth.map(|a| a.trim().to_string()),
                content_type: content_type.map(|c| c.trim().to_string()),
                body,
                pieces,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_edge_lets_through_exactly_what_its_rules_allow(r in request(edge().port)) {
        let e = edge();
        let before = e.reached.load(Ordering::SeqCst);
        let status = send(&e.addr, &r);
        let reached = e.reached.load(Ordering::SeqCst) > before;
        let (want, passes) = model(&r, e.port);
        prop_assert_eq!(reached, passes, "reached the handler: {:?} (status {})", r, status);
        prop_assert_eq!(status, want, "{:?}", r);
    }
}
