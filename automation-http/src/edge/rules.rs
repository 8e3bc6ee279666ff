//! A request's verdict, from its headers and who sent it: the rules every door applies before
//! a handler runs. Pure data in, a verdict out — no I/O — so the same function is what the
//! server runs and what the edge's property test holds to its model.
//!
//! In order, the first that fails decides:
//! 1. **Host** (loopback servers): a loopback name, so a page that rebinds its DNS name to
//!    127.0.0.1 is refused;
//! 2. **the peer's user** (a loopback connection): the server's own uid only — the bridge's
//!    `SO_PEERCRED` rule carried to TCP;
//! 3. **Origin**, and `Sec-Fetch-Site` where a browser sends no `Origin`: a request a web page
//!    made is refused unless its origin is allowed (the door's own pages, `--allow-origin`);
//! 4. **the token**, where the door has one (bearer, basic auth's password, or the `token`
//!    query parameter on a door whose printed URL carries it);
//! 5. **the content type** of a POST, on doors that take JSON: `application/json`, which a
//!    page cannot send across origins without a preflight.

use automation_core::ErrorCode;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use base64::Engine as _;

/// Who is at the other end of the connection, as the kernel says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// Not a loopback address: the network rules (token, allow-list) apply instead.
    Remote,
    /// A loopback connection owned by this user id.
    Uid(u32),
    /// A loopback connection whose owner could not be found.
    Unknown,
}

/// Where a token may be read besides `Authorization`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenIn {
    /// `Authorization` only.
    Header,
    /// Also `?token=` (the inspector: its printed URL carries the token, and a browser's
    /// `EventSource` and `<img>` cannot set headers).
    HeaderOrQuery,
}

/// What a door lets through.
#[derive(Debug, Clone)]
pub struct Rules {
    /// `Host` values accepted (a loopback server's names with and without its port); empty:
    /// any, for a server bound beyond loopback.
    pub hosts: Vec<String>,
    /// The one user a loopback peer may be (the server's own uid).
    pub uid: u32,
    /// Origins whose requests are served (lower case, `scheme://host[:port]`).
    pub origins: Vec<String>,
    /// The token every request must carry, if any, and where it may be.
    pub token: Option<(String, TokenIn)>,
    /// POST bodies must be `application/json`.
    pub json_posts: bool,
}

/// The facts about one request the rules read.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// Its method.
    pub method: &'a Method,
    /// Its headers.
    pub headers: &'a HeaderMap,
    /// Its query string, if any.
    pub query: Option<&'a str>,
    /// Who sent it.
    pub peer: Peer,
}

/// Why a request was refused: each has an HTTP status, a stable code, one sentence and a fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The `Host` is not this loopback server's.
    Host(String),
    /// The loopback peer is another user (or none could be found).
    Peer(Option<u32>),
    /// A web page's request, from an origin not allowed.
    Origin(String),
    /// A browser's cross-site request that sent no `Origin` (`Sec-Fetch-Site`).
    CrossSite(String),
    /// No token, or a wrong one.
    Token,
    /// A POST body that is not `application/json`.
    ContentType(String),
}

impl Refusal {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::Token => StatusCode::UNAUTHORIZED,
            Self::ContentType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            _ => StatusCode::FORBIDDEN,
        }
    }

    /// The stable code a client matches on (core's table holds it, with its docs row).
    pub fn error_code(&self) -> ErrorCode {
        match self {
            Self::Host(_) => ErrorCode::HostRefused,
            Self::Peer(_) => ErrorCode::PeerRefused,
            Self::Origin(_) => ErrorCode::OriginRefused,
            Self::CrossSite(_) => ErrorCode::CrossSiteRefused,
            Self::Token => ErrorCode::TokenRequired,
            Self::ContentType(_) => ErrorCode::ContentTypeRefused,
        }
    }

    /// [`Self::error_code`] as it is spelled on the wire.
    pub fn code(&self) -> &'static str {
        self.error_code().as_str()
    }

    /// One sentence: what was refused.
    pub fn message(&self, door: &str) -> String {
        match self {
            Self::Host(h) => format!(
                "the {door} refused a request whose Host header {h:?} is not its loopback address"
            ),
            Self::Peer(Some(uid)) => format!(
                "the {door} serves only the user who started it, and this connection belongs to uid {uid}"
            ),
            Self::Peer(None) => format!(
                "the {door} serves only the user who started it, and the owner of this connection could not be found"
            ),
            Self::Origin(o) => {
                format!("the {door} refused a request a web page at {o:?} sent")
            }
            Self::CrossSite(s) => format!(
                "the {door} refused a browser's {s} request (Sec-Fetch-Site: {s}) that named no origin"
            ),
            Self::Token => {
                format!("the {door} needs its token, and the request had none or another")
            }
            Self::ContentType(t) => {
                format!("the {door} takes POST bodies as application/json, and this one was {t:?}")
            }
        }
    }

    /// What to do instead.
    pub fn hint(&self) -> String {
        match self {
            Self::Host(_) => "call it at the address it printed (127.0.0.1 or localhost)".into(),
            Self::Peer(_) => {
                "start your own server as your own user; servers are not shared between users"
                    .into()
            }
            Self::Origin(o) => format!(
                "if you trust that page to drive your apps, restart the server with --allow-origin {o}"
            ),
            Self::CrossSite(_) => {
                "open the URL the server printed directly, or call it from a program, not from a web page"
                    .into()
            }
            Self::Token => "send `Authorization: Bearer T`, put T in the URL as http://user:T@host:port, or open the URL the server printed".into(),
            Self::ContentType(_) => {
                "send the body with `Content-Type: application/json` (curl: -H 'Content-Type: application/json')".into()
            }
        }
    }

    /// The W3C WebDriver error name a WebDriver client reads.
    pub fn w3c(&self) -> &'static str {
        match self {
            Self::ContentType(_) => "invalid argument",
            _ => "unknown error",
        }
    }
}

/// A request let through, and the origin to name in CORS headers if a page we allow sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pass {
    /// The allowed cross-origin caller (its responses carry `Access-Control-Allow-Origin`).
    pub cors: Option<String>,
}

impl Rules {
    /// The verdict on one request.
    pub fn check(&self, facts: &Facts<'_>) -> Result<Pass, Refusal> {
        let headers = facts.headers;
        if !self.hosts.is_empty() {
            let host = text(headers, header::HOST);
            if !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(&host)) {
                return Err(Refusal::Host(host));
            }
        }
        match facts.peer {
            Peer::Remote => {}
            Peer::Uid(uid) if uid == self.uid => {}
            Peer::Uid(uid) => return Err(Refusal::Peer(Some(uid))),
            Peer::Unknown => return Err(Refusal::Peer(None)),
        }
        let cors = self.origin(headers)?;
        // A browser sends no credentials on a preflight: an allowed origin's is answered
        // before the token is asked for (the request it announces will carry it).
        if facts.method == Method::OPTIONS && cors.is_some() {
            return Ok(Pass { cors });
        }
        if let Some((token, from)) = &self.token
            && !carries(headers, facts.query, token, *from)
        {
            return Err(Refusal::Token);
        }
        if self.json_posts && facts.method == Method::POST {
            // A POST with no Content-Type is let through here; its body must then be empty
            // (`check_body`), as a command without arguments is.
            if let Some(t) = headers.get(header::CONTENT_TYPE) {
                let t = String::from_utf8_lossy(t.as_bytes()).into_owned();
                if !is_json(&t) {
                    return Err(Refusal::ContentType(t));
                }
            }
        }
        Ok(Pass { cors })
    }

    /// A body read whole: on a JSON door, a POST that named no content type must have none.
    pub fn check_body(&self, facts: &Facts<'_>, body_len: usize) -> Result<(), Refusal> {
        if self.json_posts
            && facts.method == Method::POST
            && body_len > 0
            && facts.headers.get(header::CONTENT_TYPE).is_none()
        {
            return Err(Refusal::ContentType("(none)".into()));
        }
        Ok(())
    }

    /// The allowed origin a request names, `None` when it names none, or the refusal.
    fn origin(&self, headers: &HeaderMap) -> Result<Option<String>, Refusal> {
        if let Some(origin) = headers.get(header::ORIGIN) {
            let o = String::from_utf8_lossy(origin.as_bytes()).to_ascii_lowercase();
            // Several Origin headers are no browser's: the first must not hide a second.
            let many = headers.get_all(header::ORIGIN).iter().count() > 1;
            if !many && self.origins.contains(&o) {
                return Ok(Some(o));
            }
            return Err(Refusal::Origin(o));
        }
        // A browser names no origin on a plain GET (an image, a link), but says where the
        // request came from; only the page's own and typed-in requests pass.
        if let Some(site) = headers.get("sec-fetch-site") {
            let s = String::from_utf8_lossy(site.as_bytes()).to_ascii_lowercase();
            if s != "same-origin" && s != "none" {
                return Err(Refusal::CrossSite(s));
            }
        }
        Ok(None)
    }

    /// The CORS headers an allowed origin's responses carry.
    pub fn cors_headers(origin: &str, headers: &mut HeaderMap) {
        if let Ok(v) = HeaderValue::from_str(origin) {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        }
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("mcp-session-id"),
        );
    }

    /// A preflight's answer headers, for an allowed origin.
    pub fn preflight_headers(origin: &str, headers: &mut HeaderMap) {
        Self::cors_headers(origin, headers);
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(
                "content-type, authorization, mcp-session-id, mcp-protocol-version, last-event-id",
            ),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
    }
}

fn text(headers: &HeaderMap, name: header::HeaderName) -> String {
    headers
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default()
}

/// Whether a media type is JSON: `application/json`, any parameters, any case.
pub fn is_json(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// Whether the request carries `token`: bearer, basic auth's password, or (where allowed) the
/// `token` query parameter. Compared in constant time.
fn carries(headers: &HeaderMap, query: Option<&str>, token: &str, from: TokenIn) -> bool {
    let mut given: Vec<String> = Vec::new();
    if let Some(auth) = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
    {
        if let Some(t) = auth.strip_prefix("Bearer ") {
            given.push(t.trim().to_string());
        } else if let Some(b) = auth.strip_prefix("Basic ") {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .unwrap_or_default();
            let text = String::from_utf8_lossy(&decoded).into_owned();
            if let Some((_, p)) = text.split_once(':') {
                given.push(p.to_string());
            }
        }
    }
    if from == TokenIn::HeaderOrQuery
        && let Some(q) = query
    {
        given.extend(
            q.split('&')
                .filter_map(|pair| pair.strip_prefix("token="))
                .map(str::to_string),
        );
    }
    given.iter().any(|g| {
        use subtle::ConstantTimeEq as _;
        g.len() == token.len() && bool::from(g.as_bytes().ct_eq(token.as_bytes()))
    })
}

/// An origin as `--allow-origin` takes it: `scheme://host[:port]`, no path; lower-cased as a
/// browser serializes it.
pub fn parse_origin(origin: &str) -> Result<String, String> {
    let o = origin.trim().to_ascii_lowercase();
    let bad = |why: &str| {
        Err(format!(
            "--allow-origin {origin:?} is not an origin: {why}; give it as a browser sends it, e.g. http://localhost:3000"
        ))
    };
    if o == "*" || o == "null" {
        return bad("name each origin you trust (a wildcard, or `null`, would let any page in)");
    }
    let Some((scheme, rest)) = o.split_once("://") else {
        return bad("it has no scheme");
    };
    if scheme != "http" && scheme != "https" {
        return bad("the scheme must be http or https");
    }
    if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
        return bad("it must be scheme://host[:port], with no path, query or user");
    }
    Ok(o)
}

/// The `Host` values of a server bound on loopback port `port`.
pub fn loopback_hosts(port: u16) -> Vec<String> {
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .flat_map(|h| [format!("{h}:{port}"), (*h).to_string()])
        .collect()
}

/// The origins of a loopback server's own pages (`http://127.0.0.1:PORT` and the like).
pub fn own_origins(port: u16) -> Vec<String> {
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .map(|h| format!("http://{h}:{port}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        Rules {
            hosts: loopback_hosts(4723),
            uid: 1000,
            origins: vec!["http://localhost:3000".into()],
            token: None,
            json_posts: true,
        }
    }

    fn verdict(
        rules: &Rules,
        method: Method,
        pairs: &[(&str, &str)],
        peer: Peer,
    ) -> Result<Pass, Refusal> {
        let mut headers = HeaderMap::new();
        for (k, v) in pairs {
            headers.append(
                header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        rules.check(&Facts {
            method: &method,
            headers: &headers,
            query: None,
            peer,
        })
    }

    #[test]
    fn a_page_from_another_origin_is_refused_whatever_it_sends() {
        let r = rules();
        let host = ("host", "127.0.0.1:4723");
        for ct in [
            "text/plain;charset=UTF-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/json",
        ] {
            let v = verdict(
                &r,
                Method::POST,
                &[
                    host,
                    ("origin", "https://evil.example"),
                    ("content-type", ct),
                ],
                Peer::Uid(1000),
            );
            assert_eq!(
                v,
                Err(Refusal::Origin("https://evil.example".into())),
                "{ct}"
            );
        }
        // No Origin: a program. Its JSON passes, a form does not.
        assert!(
            verdict(
                &r,
                Method::POST,
                &[host, ("content-type", "application/json; charset=utf-8")],
                Peer::Uid(1000)
            )
            .is_ok()
        );
        assert_eq!(
            verdict(
                &r,
                Method::POST,
                &[host, ("content-type", "text/plain")],
                Peer::Uid(1000)
            )
            .unwrap_err()
            .status(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE
        );
        // An allowed origin passes, and is named for CORS.
        assert_eq!(
            verdict(
                &r,
                Method::POST,
                &[
                    host,
                    ("origin", "http://LOCALHOST:3000"),
                    ("content-type", "application/json")
                ],
                Peer::Uid(1000)
            ),
            Ok(Pass {
                cors: Some("http://localhost:3000".into())
            })
        );
        // Two Origin headers are refused even if one is allowed.
        assert!(
            verdict(
                &r,
                Method::POST,
                &[
                    host,
                    ("origin", "http://localhost:3000"),
                    ("origin", "https://evil.example")
                ],
                Peer::Uid(1000)
            )
            .is_err()
        );
        // A cross-site image or link names no origin but says where it came from.
        assert_eq!(
            verdict(
                &r,
                Method::GET,
                &[host, ("sec-fetch-site", "cross-site")],
                Peer::Uid(1000)
            )
            .unwrap_err()
            .code(),
            "CROSS_SITE_REFUSED"
        );
        assert!(
            verdict(
                &r,
                Method::GET,
                &[host, ("sec-fetch-site", "none")],
                Peer::Uid(1000)
            )
            .is_ok()
        );
    }

    #[test]
    fn other_users_and_foreign_hosts_are_refused() {
        let r = rules();
        let host = ("host", "localhost:4723");
        assert!(verdict(&r, Method::GET, &[host], Peer::Uid(1000)).is_ok());
        assert_eq!(
            verdict(&r, Method::GET, &[host], Peer::Uid(0)),
            Err(Refusal::Peer(Some(0)))
        );
        assert_eq!(
            verdict(&r, Method::GET, &[host], Peer::Unknown),
            Err(Refusal::Peer(None))
        );
        assert_eq!(
            verdict(
                &r,
                Method::GET,
                &[("host", "attacker.example:4723")],
                Peer::Uid(1000)
            )
            .unwrap_err()
            .code(),
            "HOST_REFUSED"
        );
    }

    #[test]
    fn the_token_is_read_from_bearer_basic_or_the_query_where_allowed() {
        let mut r = rules();
        r.token = Some(("s3cret".into(), TokenIn::Header));
        let host = ("host", "127.0.0.1:4723");
        assert_eq!(
            verdict(&r, Method::GET, &[host], Peer::Uid(1000)),
            Err(Refusal::Token)
        );
        assert!(
            verdict(
                &r,
                Method::GET,
                &[host, ("authorization", "Bearer s3cret")],
                Peer::Uid(1000)
            )
            .is_ok()
        );
        assert!(
            verdict(
                &r,
                Method::GET,
                &[host, ("authorization", "Bearer s3cres")],
                Peer::Uid(1000)
            )
            .is_err()
        );
        let basic = base64::engine::general_purpose::STANDARD.encode("me:s3cret");
        assert!(
            verdict(
                &r,
                Method::GET,
                &[host, ("authorization", &format!("Basic {basic}"))],
                Peer::Uid(1000)
            )
            .is_ok()
        );
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:4723"));
        let facts = |query| Facts {
            method: &Method::GET,
            headers: &headers,
            query,
            peer: Peer::Uid(1000),
        };
        assert!(r.check(&facts(Some("token=s3cret"))).is_err());
        r.token = Some(("s3cret".into(), TokenIn::HeaderOrQuery));
        assert!(r.check(&facts(Some("a=1&token=s3cret"))).is_ok());
    }

    #[test]
    fn origins_are_named_exactly() {
        assert_eq!(
            parse_origin("http://LocalHost:3000").unwrap(),
            "http://localhost:3000"
        );
        for bad in [
            "*",
            "null",
            "localhost:3000",
            "ftp://x",
            "http://x/path",
            "http://",
        ] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
        assert!(is_json("Application/JSON; charset=utf-8"));
        assert!(!is_json("application/json-patch+json"));
        assert!(!is_json("text/plain"));
    }
}
