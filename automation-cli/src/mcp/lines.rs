//! A thin line layer in front of rmcp's stdio transport, so that every request gets an answer.
//!
//! rmcp drops a line it cannot parse without a reply (the client then waits forever for its
//! id), drops an over-long line the same way, and answers a `tools/call` whose `arguments` is
//! not an object with "method not found". This layer reads stdin itself, one line at a time
//! with a byte cap ([`MAX_LINE_BYTES`]), and checks each line before rmcp sees it:
//!
//! - not JSON (invalid UTF-8, a lone surrogate, nesting past serde_json's limit, truncated):
//!   `-32700 Parse error`, with the id when a lenient scan can recover one, else `null`;
//! - longer than the cap: the line is skipped up to its newline and answered `-32700`, naming
//!   the cap;
//! - JSON with an id that is not a valid MCP message (a `tools/call` whose `arguments` is not
//!   an object, params of the wrong shape): `-32602 Invalid params` naming the field;
//! - anything else is forwarded to rmcp unchanged.
//!
//! rmcp writes into an in-memory pipe; one writer task copies its output to stdout line by
//! line and also writes this layer's error replies, so the two never interleave partial lines.

use automation_core::node_ref::json_kind;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// The longest request line accepted (16 MiB, rmcp's own default); longer lines are answered
/// with a parse error and skipped.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC "Parse error".
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC "Invalid Request".
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC "Invalid params".
pub const INVALID_PARAMS: i64 = -32602;

/// How many leading bytes of an over-long line are kept to recover its id.
const ID_SCAN_BYTES: usize = 4096;

/// What to do with one line.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Hand it to rmcp.
    Forward,
    /// Blank: skip it.
    Skip,
    /// Answer it with this JSON-RPC error reply (one line, no newline).
    Reply(String),
}

/// A JSON-RPC error reply as one line.
pub fn error_reply(id: &Value, code: i64, message: &str, data: Value) -> String {
    let id = match id {
        Value::Number(_) | Value::String(_) => id.clone(),
        _ => Value::Null,
    };
    let mut error = json!({"code": code, "message": message});
    if !data.is_null()
        && let Value::Object(m) = &mut error
    {
        m.insert("data".into(), data);
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string()
}

fn strip(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(line)
}

/// Checks one complete line (with or without its newline).
pub fn check_line(raw: &[u8]) -> Verdict {
    let line = strip(raw);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            let id = scan_id(line);
            return Verdict::Reply(error_reply(
                &id,
                PARSE_ERROR,
                &format!("Parse error: the line is not valid JSON ({e})"),
                json!({"hint": "send one JSON-RPC message per line, UTF-8, without lone surrogates, nested at most 127 levels"}),
            ));
        }
    };
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let has_id = value.get("id").is_some_and(|i| !i.is_null());
    let method = value.get("method").and_then(Value::as_str);
    if has_id
        && method == Some("tools/call")
        && let Some(reply) = check_tools_call(&id, value.get("params"))
    {
        return Verdict::Reply(reply);
    }
    match serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(line) {
        Ok(_) => Verdict::Forward,
        Err(e) => match e.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                Verdict::Reply(error_reply(
                    &id,
                    PARSE_ERROR,
                    &format!("Parse error: {e}"),
                    json!({"hint": "nest params at most 127 levels deep"}),
                ))
            }
            _ if has_id && method.is_some() => Verdict::Reply(error_reply(
                &id,
                INVALID_PARAMS,
                &format!("Invalid params for {}: {e}", method.unwrap_or_default()),
                json!({"hint": "see the method's params in the MCP specification"}),
            )),
            _ if has_id => Verdict::Reply(error_reply(
                &id,
                INVALID_REQUEST,
                &format!("Invalid Request: {e}"),
                json!({"hint": "a request needs \"jsonrpc\": \"2.0\", an id and a method"}),
            )),
            // A notification or a reply rmcp may ignore: let it decide.
            _ => Verdict::Forward,
        },
    }
}

fn check_tools_call(id: &Value, params: Option<&Value>) -> Option<String> {
    let bad = |what: String| {
        Some(error_reply(
            id,
            INVALID_PARAMS,
            &format!("Invalid params for tools/call: {what}"),
            json!({"hint": "send params {\"name\": \"<tool>\", \"arguments\": {…}} with arguments an object (or omitted)"}),
        ))
    };
    let Some(Value::Object(params)) = params else {
        return bad(format!(
            "`params` must be an object, got {}",
            json_kind(params.unwrap_or(&Value::Null))
        ));
    };
    match params.get("name") {
        Some(Value::String(_)) => {}
        other => {
            return bad(format!(
                "`name` must be a string naming a tool, got {}",
                other.map_or("nothing", json_kind)
            ));
        }
    }
    match params.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(other) => bad(format!(
            "`arguments` must be an object of the tool's arguments, got {}",
            json_kind(other)
        )),
    }
}

/// Leniently recovers a request id from bytes that are not valid JSON: the first `"id"`
/// followed by `:` and a number or a string. `null` when there is none.
pub fn scan_id(bytes: &[u8]) -> Value {
    let key = b"\"id\"";
    let mut from = 0;
    while let Some(pos) = find(&bytes[from..], key) {
        let mut i = from + pos + key.len();
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if bytes.get(i) == Some(&b':') {
            i += 1;
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            if let Some(v) = scan_value(&bytes[i..]) {
                return v;
            }
        }
        from = from + pos + key.len();
    }
    Value::Null
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn scan_value(b: &[u8]) -> Option<Value> {
    match b.first()? {
        b'"' => {
            let end = b[1..].iter().position(|c| *c == b'"' || *c == b'\\')?;
            if b[1 + end] != b'"' {
                return None;
            }
            let s = std::str::from_utf8(&b[1..1 + end]).ok()?;
            Some(Value::String(s.to_string()))
        }
        b'-' | b'0'..=b'9' => {
            let end = b
                .iter()
                .position(|c| !(c.is_ascii_digit() || *c == b'-'))
                .unwrap_or(b.len());
            let s = std::str::from_utf8(&b[..end]).ok()?;
            s.parse::<i64>().ok().map(Value::from)
        }
        _ => None,
    }
}

/// One line read with the cap.
enum Line {
    /// A whole line (or the last bytes before EOF).
    Whole,
    /// Longer than the cap: skipped up to its newline; the first bytes are kept for the id.
    TooLong,
    /// End of input.
    Eof,
}

async fn read_capped<R: AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    loop {
        let available = r.fill_buf().await?;
        if available.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if buf.is_empty() {
                Line::Eof
            } else {
                Line::Whole
            });
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        if too_long {
            // Keep only the head (for the id); drop the rest.
        } else if buf.len() + take > cap {
            too_long = true;
            let keep = ID_SCAN_BYTES.saturating_sub(buf.len()).min(take);
            buf.extend_from_slice(&available[..keep]);
            buf.truncate(ID_SCAN_BYTES);
        } else {
            buf.extend_from_slice(&available[..take]);
        }
        r.consume(take);
        if newline.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Whole });
        }
    }
}

/// Reads `input` line by line, forwards good lines to `to_rmcp`, answers bad ones on
/// `replies`. Returns at EOF (dropping `to_rmcp`, so rmcp sees EOF too).
pub async fn filter_lines<R, W>(
    input: R,
    mut to_rmcp: W,
    replies: mpsc::Sender<Vec<u8>>,
    cap: usize,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = tokio::io::BufReader::with_capacity(64 * 1024, input);
    let mut buf = Vec::new();
    loop {
        let verdict = match read_capped(&mut input, &mut buf, cap).await? {
            Line::Eof => break,
            Line::TooLong => {
                let id = scan_id(&buf);
                tracing::warn!(cap, "a request line exceeded the cap; answered and skipped");
                Verdict::Reply(error_reply(
                    &id,
                    PARSE_ERROR,
                    &format!(
                        "Parse error: the line is longer than the {cap}-byte limit and was skipped"
                    ),
                    json!({"limit_bytes": cap, "hint": "send smaller messages (a screenshot is returned, not sent; large text belongs in a file)"}),
                ))
            }
            Line::Whole => check_line(&buf),
        };
        match verdict {
            Verdict::Skip => {}
            Verdict::Forward => {
                to_rmcp.write_all(&buf).await?;
                if buf.last() != Some(&b'\n') {
                    to_rmcp.write_all(b"\n").await?;
                }
                to_rmcp.flush().await?;
            }
            Verdict::Reply(mut line) => {
                tracing::debug!(reply = %line, "answering a bad line");
                line.push('\n');
                if replies.send(line.into_bytes()).await.is_err() {
                    break;
                }
            }
        }
    }
    to_rmcp.shutdown().await?;
    Ok(())
}

/// Copies whole lines from `from_rmcp` into `replies`.
pub async fn forward_lines<R: AsyncRead + Unpin>(from_rmcp: R, replies: mpsc::Sender<Vec<u8>>) {
    let mut r = tokio::io::BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match r.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if replies.send(line).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// The one writer: every line on `lines` to `out`, whole, in arrival order.
pub async fn write_lines<W: AsyncWrite + Unpin>(
    mut out: W,
    mut lines: mpsc::Receiver<Vec<u8>>,
) -> std::io::Result<()> {
    while let Some(line) = lines.recv().await {
        out.write_all(&line).await?;
        out.flush().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(v: Verdict) -> Value {
        match v {
            Verdict::Reply(s) => serde_json::from_str(&s).unwrap(),
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    #[test]
    fn good_lines_pass() {
        let l = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert_eq!(check_line(l), Verdict::Forward);
        assert_eq!(check_line(b"  \r\n"), Verdict::Skip);
    }

    #[test]
    fn bad_lines_get_the_id_back() {
        let r = reply(check_line(
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\ud800"}}"#,
        ));
        assert_eq!(r["id"], json!(7));
        assert_eq!(r["error"]["code"], json!(PARSE_ERROR));
        let r = reply(check_line(b"{\"id\": \"a\", \"x\": \"\xff\"}"));
        assert_eq!(r["id"], json!("a"));
        let r = reply(check_line(b"nope"));
        assert_eq!(r["id"], Value::Null);
    }

    #[test]
    fn arguments_must_be_an_object() {
        let r = reply(check_line(
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find_node","arguments":[1]}}"#,
        ));
        assert_eq!(r["error"]["code"], json!(INVALID_PARAMS));
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`arguments`")
        );
    }

    #[test]
    fn scan_finds_numbers_and_strings() {
        assert_eq!(scan_id(br#"{"a":1, "id" : -12 ,"#), json!(-12));
        assert_eq!(scan_id(br#"{"id":"x-1"}"#), json!("x-1"));
        assert_eq!(scan_id(br#"{"id":{}}"#), Value::Null);
    }
}
