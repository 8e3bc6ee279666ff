//! The token handshake: the client's first line is the token.
//!
//! The token line is read **one byte at a time**, straight off the stream, so the first frame
//! that follows it stays intact in the stream (a buffered reader would swallow it). One deadline
//! covers the whole handshake and is re-checked before every byte, with the per-read timeout set
//! to what is left of it: a peer dripping one byte just under a per-read timeout is cut at the
//! deadline instead of holding the single connection slot for `512 × timeout`. The comparison is
//! constant-time over a fixed 512-byte window plus the length, so it leaks neither the length nor
//! a matching prefix. After acceptance the server answers with one [`Hello`] frame.

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use subtle::ConstantTimeEq;

use crate::frame::{FrameError, MAX_REPLY_FRAME, is_timeout_kind, read_frame, write_frame};

/// Longest token line accepted (excluding the newline).
pub const TOKEN_LINE_CAP: usize = 512;
/// One deadline for the whole handshake.
pub const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(10);
/// Wire protocol version announced in the [`Hello`] frame.
pub const PROTOCOL_VERSION: u32 = 1;

/// Why a handshake failed.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    /// The token line exceeded [`TOKEN_LINE_CAP`] bytes.
    #[error(
        "token line longer than {cap} bytes; send the token from the descriptor followed by a newline"
    )]
    TokenTooLong {
        /// The cap in force.
        cap: usize,
    },
    /// The token to send contains a byte that cannot be part of a token line.
    #[error(
        "the token contains a newline, carriage return or NUL byte; pass it exactly as the endpoint descriptor (or $AUTOMATION_TOKEN) gives it"
    )]
    InvalidToken,
    /// The whole handshake took longer than the deadline.
    #[error(
        "handshake not completed within {0:?}; send the token line immediately after connecting"
    )]
    DeadlineExceeded(Duration),
    /// The peer closed before finishing the token line.
    #[error("peer closed the connection before sending a complete token line")]
    Closed,
    /// Wrong token (or wrong length).
    #[error("token rejected; read it from the endpoint descriptor or $AUTOMATION_TOKEN")]
    BadToken,
    /// The server did not greet us (wrong token, or not an automation bridge).
    #[error(
        "no hello from the server ({0}); the token may be wrong or the endpoint is not an automation bridge"
    )]
    NoHello(String),
    /// The bridge is serving another client and said so (a [`BusyNotice`] instead of the
    /// hello). Nothing is wrong with the token: retry once the other client has detached.
    #[error("{BUSY_MESSAGE} (the bridge of pid {pid} serves one client at a time)")]
    Busy {
        /// The serving process, as the notice names it.
        pid: u32,
    },
    /// Transport error.
    #[error("handshake I/O: {0}")]
    Io(#[from] io::Error),
}

/// What a busy bridge tells a second client.
pub const BUSY_MESSAGE: &str =
    "another client is attached to this app; wait for it to detach or retry later";

/// A fresh random token: 32 lowercase hex digits (128 bits from the OS RNG).
pub fn generate_token() -> Result<String, io::Error> {
    random_hex(16)
}

/// `n` random bytes from the OS, hex encoded.
pub(crate) fn random_hex(n: usize) -> Result<String, io::Error> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes)
        .map_err(|e| io::Error::other(format!("OS RNG unavailable: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Constant-time token comparison: no early exit on length or on the first differing byte.
pub fn tokens_match(got: &[u8], expected: &[u8]) -> bool {
    let mut a = [0u8; TOKEN_LINE_CAP];
    let mut b = [0u8; TOKEN_LINE_CAP];
    let la = got.len().min(TOKEN_LINE_CAP);
    let lb = expected.len().min(TOKEN_LINE_CAP);
    if let (Some(da), Some(sa)) = (a.get_mut(..la), got.get(..la)) {
        da.copy_from_slice(sa);
    }
    if let (Some(db), Some(sb)) = (b.get_mut(..lb), expected.get(..lb)) {
        db.copy_from_slice(sb);
    }
    let same_bytes = a.ct_eq(&b);
    let same_len = (got.len() as u64).ct_eq(&(expected.len() as u64));
    bool::from(same_bytes & same_len)
}

/// Read the token line byte by byte under one overall `deadline`. `set_timeout` is called
/// before each byte with what is left of the deadline (use it to set the transport's per-read
/// timeout; pass a no-op for in-memory streams). Returns the line without `\n` (and `\r`).
pub fn read_token_line<R: Read + ?Sized>(
    r: &mut R,
    deadline: Instant,
    mut set_timeout: impl FnMut(Duration) -> io::Result<()>,
) -> Result<Vec<u8>, HandshakeError> {
    let total = deadline.saturating_duration_since(Instant::now());
    let mut line = Vec::with_capacity(64);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(HandshakeError::DeadlineExceeded(total));
        }
        set_timeout(left)?;
        let mut byte = [0u8; 1];
        match r.read(&mut byte) {
            Ok(0) => return Err(HandshakeError::Closed),
            Ok(_) => {
                if byte[0] == b'\n' {
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    return Ok(line);
                }
                if line.len() >= TOKEN_LINE_CAP {
                    return Err(HandshakeError::TokenTooLong {
                        cap: TOKEN_LINE_CAP,
                    });
                }
                line.push(byte[0]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if is_timeout_kind(e.kind()) => {
                return Err(HandshakeError::DeadlineExceeded(total));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Server side: read the token line and compare it with `expected` in constant time.
pub fn accept_token<R: Read + ?Sized>(
    r: &mut R,
    expected: &str,
    deadline: Instant,
    set_timeout: impl FnMut(Duration) -> io::Result<()>,
) -> Result<(), HandshakeError> {
    let line = read_token_line(r, deadline, set_timeout)?;
    if tokens_match(&line, expected.as_bytes()) {
        Ok(())
    } else {
        Err(HandshakeError::BadToken)
    }
}

/// Client side: send the token line. A token over [`TOKEN_LINE_CAP`] bytes, or containing
/// `\n`, `\r` or NUL (which the server would cut, strip or never match), is refused before
/// anything is written.
pub fn send_token<W: Write + ?Sized>(w: &mut W, token: &str) -> Result<(), HandshakeError> {
    if token.len() > TOKEN_LINE_CAP {
        return Err(HandshakeError::TokenTooLong {
            cap: TOKEN_LINE_CAP,
        });
    }
    if token.bytes().any(|b| matches!(b, b'\n' | b'\r' | 0)) {
        return Err(HandshakeError::InvalidToken);
    }
    let mut line = Vec::with_capacity(token.len() + 1);
    line.extend_from_slice(token.as_bytes());
    line.push(b'\n');
    w.write_all(&line)?;
    w.flush()?;
    Ok(())
}

/// The server's greeting after a good token: the first frame it sends.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hello {
    /// Always `"automation-wire"`.
    pub bridge: String,
    /// [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// The serving process.
    pub pid: u32,
}

impl Hello {
    /// The hello for this process.
    pub fn current() -> Self {
        Hello {
            bridge: "automation-wire".into(),
            protocol: PROTOCOL_VERSION,
            pid: std::process::id(),
        }
    }
}

/// The frame a bridge sends instead of the [`Hello`] when its single slot is taken:
/// `{"bridge":"automation-wire","busy":true,"pid":…,"message":"…"}`. It has no `protocol`, so
/// a client that predates it fails to read it as a hello instead of mistaking it for one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BusyNotice {
    /// Always `"automation-wire"`.
    pub bridge: String,
    /// Always `true`.
    pub busy: bool,
    /// The serving process.
    pub pid: u32,
    /// [`BUSY_MESSAGE`].
    pub message: String,
}

impl BusyNotice {
    /// The notice for this process.
    pub fn current() -> Self {
        BusyNotice {
            bridge: "automation-wire".into(),
            busy: true,
            pid: std::process::id(),
            message: BUSY_MESSAGE.into(),
        }
    }
}

/// Server side: write the busy notice (instead of the hello).
pub fn write_busy<W: Write + ?Sized>(w: &mut W) -> Result<(), FrameError> {
    let json = serde_json::to_vec(&BusyNotice::current())
        .map_err(|e| FrameError::Io(io::Error::other(e)))?;
    write_frame(w, &json, MAX_REPLY_FRAME)
}

/// Largest greeting frame a client reads (a hello or a busy notice is under 200 bytes).
pub const MAX_GREETING_FRAME: usize = 64 * 1024;

/// Server side: write the hello frame.
pub fn write_hello<W: Write + ?Sized>(w: &mut W) -> Result<(), FrameError> {
    let json =
        serde_json::to_vec(&Hello::current()).map_err(|e| FrameError::Io(io::Error::other(e)))?;
    write_frame(w, &json, MAX_REPLY_FRAME)
}

/// Client side: read and check the hello frame. A [`BusyNotice`] is
/// [`HandshakeError::Busy`]. Bound the wait by the reader (a per-read timeout, or
/// [`DeadlineReader`](crate::transport::DeadlineReader) for one overall deadline).
pub fn read_hello<R: Read + ?Sized>(r: &mut R) -> Result<Hello, HandshakeError> {
    let frame = match read_frame(r, MAX_GREETING_FRAME) {
        Ok(Some(f)) => f,
        Ok(None) => {
            return Err(HandshakeError::NoHello(
                "connection closed (token rejected?)".into(),
            ));
        }
        Err(e) if e.is_timeout() => {
            return Err(HandshakeError::NoHello(
                "no greeting before the deadline (the app may be frozen)".into(),
            ));
        }
        Err(e) => return Err(HandshakeError::NoHello(e.to_string())),
    };
    #[derive(serde::Deserialize)]
    struct MaybeBusy {
        busy: Option<serde_json::Value>,
        pid: Option<u32>,
    }
    if let Ok(MaybeBusy {
        busy: Some(serde_json::Value::Bool(true)),
        pid,
    }) = serde_json::from_str::<MaybeBusy>(&frame)
    {
        return Err(HandshakeError::Busy {
            pid: pid.unwrap_or(0),
        });
    }
    let hello: Hello = serde_json::from_str(&frame)
        .map_err(|e| HandshakeError::NoHello(format!("unexpected greeting: {e}")))?;
    if hello.protocol > PROTOCOL_VERSION {
        return Err(HandshakeError::NoHello(format!(
            "server speaks protocol {}, this client {}; upgrade the client",
            hello.protocol, PROTOCOL_VERSION
        )));
    }
    Ok(hello)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{MAX_REQUEST_FRAME, read_frame, write_frame};
    use std::io::Cursor;

    fn later() -> Instant {
        Instant::now() + HANDSHAKE_DEADLINE
    }
    fn no_timeout(_: Duration) -> io::Result<()> {
        Ok(())
    }

    #[test]
    fn handshake_leaves_first_frame_intact() {
        let mut buf = Vec::new();
        send_token(&mut buf, "secret").unwrap();
        write_frame(&mut buf, b"{\"op\":1}", MAX_REQUEST_FRAME).unwrap();
        let mut r = Cursor::new(buf);
        accept_token(&mut r, "secret", later(), no_timeout).unwrap();
        assert_eq!(
            read_frame(&mut r, MAX_REQUEST_FRAME).unwrap().as_deref(),
            Some("{\"op\":1}")
        );
    }

    #[test]
    fn wrong_and_short_tokens_refused() {
        for sent in ["secreT", "secre", "", "secret2", "xsecret"] {
            let mut buf = Vec::new();
            send_token(&mut buf, sent).unwrap();
            let err =
                accept_token(&mut Cursor::new(buf), "secret", later(), no_timeout).unwrap_err();
            assert!(matches!(err, HandshakeError::BadToken), "{sent}: {err}");
        }
    }

    #[test]
    fn crlf_accepted() {
        let mut r = Cursor::new(b"secret\r\n".to_vec());
        accept_token(&mut r, "secret", later(), no_timeout).unwrap();
    }

    #[test]
    fn token_line_bounded() {
        let mut long = vec![b'a'; TOKEN_LINE_CAP + 1];
        long.push(b'\n');
        let err = read_token_line(&mut Cursor::new(long), later(), no_timeout).unwrap_err();
        assert!(matches!(
            err,
            HandshakeError::TokenTooLong {
                cap: TOKEN_LINE_CAP
            }
        ));
        // Exactly the cap is fine.
        let mut ok = vec![b'a'; TOKEN_LINE_CAP];
        ok.push(b'\n');
        assert_eq!(
            read_token_line(&mut Cursor::new(ok), later(), no_timeout)
                .unwrap()
                .len(),
            TOKEN_LINE_CAP
        );
        // A client refuses to send an oversize token.
        assert!(send_token(&mut Vec::new(), &"a".repeat(TOKEN_LINE_CAP + 1)).is_err());
    }

    #[test]
    fn eof_before_newline_is_closed() {
        let err =
            read_token_line(&mut Cursor::new(b"secr".to_vec()), later(), no_timeout).unwrap_err();
        assert!(matches!(err, HandshakeError::Closed));
    }

    #[test]
    fn past_deadline_is_refused() {
        let past = Instant::now();
        std::thread::sleep(Duration::from_millis(2));
        let err =
            read_token_line(&mut Cursor::new(b"secret\n".to_vec()), past, no_timeout).unwrap_err();
        assert!(matches!(err, HandshakeError::DeadlineExceeded(_)));
    }

    /// A reader that takes `delay` per byte: the overall deadline cuts it even though every
    /// single read is fast enough for a per-read timeout.
    struct Drip {
        data: Vec<u8>,
        pos: usize,
        delay: Duration,
    }
    impl Read for Drip {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            std::thread::sleep(self.delay);
            match (self.data.get(self.pos), buf.first_mut()) {
                (Some(b), Some(slot)) => {
                    *slot = *b;
                    self.pos += 1;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn drip_feed_cut_at_overall_deadline() {
        let mut r = Drip {
            data: vec![b'a'; 400],
            pos: 0,
            delay: Duration::from_millis(5),
        };
        let start = Instant::now();
        let err =
            read_token_line(&mut r, start + Duration::from_millis(100), no_timeout).unwrap_err();
        assert!(matches!(err, HandshakeError::DeadlineExceeded(_)));
        assert!(start.elapsed() < Duration::from_millis(500));
    }

    #[test]
    fn constant_time_compare_semantics() {
        assert!(tokens_match(b"abc", b"abc"));
        assert!(!tokens_match(b"abc", b"abd"));
        assert!(!tokens_match(b"ab", b"abc"));
        assert!(!tokens_match(b"abc\0", b"abc"));
        assert!(!tokens_match(b"", b"abc"));
        let t = generate_token().unwrap();
        assert_eq!(t.len(), 32);
        assert_ne!(t, generate_token().unwrap());
    }

    #[test]
    fn busy_notice_is_typed_and_not_a_hello() {
        let mut buf = Vec::new();
        write_busy(&mut buf).unwrap();
        let err = read_hello(&mut Cursor::new(buf.clone())).unwrap_err();
        assert!(
            matches!(err, HandshakeError::Busy { pid } if pid == std::process::id()),
            "{err}"
        );
        assert!(err.to_string().contains(BUSY_MESSAGE));
        // A client that predates the notice cannot mistake it for a hello.
        let body = read_frame(&mut Cursor::new(buf), MAX_GREETING_FRAME)
            .unwrap()
            .unwrap();
        assert!(serde_json::from_str::<Hello>(&body).is_err());
    }

    #[test]
    fn hello_round_trip() {
        let mut buf = Vec::new();
        write_hello(&mut buf).unwrap();
        let hello = read_hello(&mut Cursor::new(buf)).unwrap();
        assert_eq!(hello, Hello::current());
        assert!(matches!(
            read_hello(&mut Cursor::new(Vec::new())),
            Err(HandshakeError::NoHello(_))
        ));
    }
}
