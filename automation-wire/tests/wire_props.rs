//! Property tests with structured hostile input for frames and the token handshake: length
//! prefixes at and around the caps, frames cut anywhere, reads split at every size with
//! interruptions and timeouts, token lines with embedded NUL / CR, and lines far over the cap.
//! Each case checks there is no panic **and** the exact typed outcome.
// Tests fail loudly by design: helpers outside `#[test]` may unwrap, expect and panic too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::VecDeque;
use std::io::{self, Cursor, Read};
use std::time::{Duration, Instant};

use automation_wire::frame::{
    FrameError, MAX_REPLY_FRAME, MAX_REQUEST_FRAME, read_frame, read_frame_bytes, write_frame,
};
use automation_wire::handshake::{
    HandshakeError, TOKEN_LINE_CAP, accept_token, read_hello, read_token_line, send_token,
    write_busy, write_hello,
};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256)
}

/// What one `read` call does.
#[derive(Debug, Clone)]
enum Step {
    /// Hand out at most this many bytes (≥ 1).
    Bytes(usize),
    /// `Interrupted` (must be retried transparently).
    Interrupted,
}

/// A reader that follows a script of steps, then hands out the rest one chunk at a time.
struct Scripted {
    data: Cursor<Vec<u8>>,
    steps: VecDeque<Step>,
}

/// A reader that never hands out bytes past `at` in one read, reports one timeout when it
/// reaches `at`, then goes on (at most `split` bytes per read).
struct TimeoutAt {
    data: Cursor<Vec<u8>>,
    at: Option<u64>,
    split: usize,
}

impl Read for TimeoutAt {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let pos = self.data.position();
        let mut n = buf.len().min(self.split);
        if let Some(at) = self.at {
            if pos == at {
                self.at = None;
                return Err(io::Error::new(io::ErrorKind::WouldBlock, "timeout"));
            }
            n = n.min((at - pos) as usize);
        }
        self.data.read(&mut buf[..n])
    }
}

impl Read for Scripted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.steps.pop_front() {
            Some(Step::Interrupted) => Err(io::Error::new(io::ErrorKind::Interrupted, "signal")),
            Some(Step::Bytes(n)) => {
                let n = n.max(1).min(buf.len());
                self.data.read(&mut buf[..n])
            }
            None => self.data.read(buf),
        }
    }
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (1usize..64).prop_map(Step::Bytes),
        1 => Just(Step::Interrupted),
    ]
}

/// Announced lengths that matter: around 0, around the cap, and far beyond it.
fn announced(cap: usize) -> impl Strategy<Value = u32> {
    let c = cap as u32;
    prop_oneof![
        Just(0u32),
        Just(1),
        Just(c.saturating_sub(1)),
        Just(c),
        Just(c.saturating_add(1)),
        Just(c.saturating_add(4096)),
        Just(u32::MAX),
        Just(u32::MAX - 1),
        Just(1 << 31),
        0u32..=c.saturating_add(16),
    ]
}

fn header(len: u32) -> Vec<u8> {
    len.to_le_bytes().to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// A header around a small cap, then a body cut anywhere: the outcome is exactly
    /// TooLarge (from the header alone), Truncated { expected, got }, or the frame.
    #[test]
    fn length_prefix_near_the_cap_and_cut_bodies(
        cap in 0usize..512,
        pick in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
        fill in any::<u8>(),
        steps in prop::collection::vec(step(), 0..16),
    ) {
        let c = cap as u32;
        let lens = [0, 1, c.saturating_sub(1), c, c + 1, c + 7, u32::MAX];
        let len = lens[pick.index(lens.len())];
        // Never more body than the announced length (and a bounded amount for huge ones).
        let full = (len as usize).min(cap + 64);
        let body_len = cut.index(full + 1);
        let body = vec![fill & 0x7f; body_len]; // ASCII, so UTF-8
        let mut wire = header(len);
        wire.extend_from_slice(&body);
        let mut r = Scripted { data: Cursor::new(wire), steps: steps.into() };
        let got = read_frame_bytes(&mut r, cap);
        if len as usize > cap {
            let too_large = matches!(
                got,
                Err(FrameError::TooLarge { len: l, cap: k, action: "read" }) if l == len as u64 && k == cap
            );
            prop_assert!(too_large, "{:?}", got);
        } else if body_len < len as usize {
            let truncated = matches!(
                got,
                Err(FrameError::Truncated { expected, got: g }) if expected == len as u64 && g == body_len as u64
            );
            prop_assert!(truncated, "{:?}", got);
        } else {
            prop_assert_eq!(got.unwrap(), Some(body));
        }
    }

    /// The real caps, with headers only (no multi-MiB bodies): over the cap is refused from
    /// the header before allocating; at or under it a missing body is Truncated.
    #[test]
    fn real_caps_refuse_from_the_header(
        which in any::<bool>(),
        len in announced(MAX_REQUEST_FRAME),
        extra in prop::collection::vec(any::<u8>(), 0..32),
    ) {
        let cap = if which { MAX_REQUEST_FRAME } else { MAX_REPLY_FRAME };
        let mut wire = header(len);
        wire.extend_from_slice(&extra);
        let got = read_frame_bytes(&mut Cursor::new(wire), cap);
        if len as usize > cap {
            let too_large = matches!(got, Err(FrameError::TooLarge { len: l, .. }) if l == len as u64);
            prop_assert!(too_large, "{:?}", got);
        } else if (len as usize) > extra.len() {
            let truncated = matches!(
                got,
                Err(FrameError::Truncated { expected, got: g }) if expected == len as u64 && g == extra.len() as u64
            );
            prop_assert!(truncated, "{:?}", got);
        } else {
            prop_assert_eq!(got.unwrap().unwrap(), extra[..len as usize].to_vec());
        }
    }

    /// A partial header (1–3 bytes) is Truncated { expected: 4 }; nothing is a clean EOF.
    #[test]
    fn partial_header_is_truncated(bytes in prop::collection::vec(any::<u8>(), 1..4)) {
        let n = bytes.len() as u64;
        let got = read_frame(&mut Cursor::new(bytes), MAX_REQUEST_FRAME);
        let truncated = matches!(got, Err(FrameError::Truncated { expected: 4, got: g }) if g == n);
        prop_assert!(truncated, "{:?}", got);
        prop_assert!(read_frame(&mut Cursor::new(Vec::new()), 8).unwrap().is_none());
    }

    /// Several frames read back whole and in order through any read split (with interruptions);
    /// a read timeout *between* frames is a timeout and the stream stays usable; one *inside* a
    /// frame is a hard error, never mistaken for "try again".
    #[test]
    fn frames_survive_any_split_and_timeouts_are_classified(
        payloads in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..80), 1..6),
        split in 1usize..9,
        timeout_at in any::<prop::sample::Index>(),
    ) {
        let mut wire = Vec::new();
        for p in &payloads {
            write_frame(&mut wire, p, 128).unwrap();
        }
        let total = wire.len();
        let mut r = Scripted { data: Cursor::new(wire), steps: VecDeque::new() };
        for p in &payloads {
            r.steps = std::iter::repeat_n(Step::Bytes(split), 4).chain([Step::Interrupted]).collect();
            prop_assert_eq!(read_frame_bytes(&mut r, 128).unwrap(), Some(p.clone()));
        }
        prop_assert!(read_frame_bytes(&mut r, 128).unwrap().is_none());

        // Now a timeout at a chosen byte offset (0 = before the first frame).
        let mut wire = Vec::new();
        for p in &payloads {
            write_frame(&mut wire, p, 128).unwrap();
        }
        let at = timeout_at.index(total);
        let mut boundaries = vec![0usize];
        for p in &payloads {
            boundaries.push(boundaries.last().unwrap() + 4 + p.len());
        }
        let mut r = TimeoutAt { data: Cursor::new(wire), at: Some(at as u64), split };
        // Frames that end at or before `at` read fine; the read that meets the timeout is a
        // clean timeout at a frame boundary, and a hard mid-frame error anywhere else.
        let mut frame = 0;
        while boundaries[frame + 1] <= at {
            prop_assert_eq!(read_frame_bytes(&mut r, 128).unwrap(), Some(payloads[frame].clone()));
            frame += 1;
        }
        let err = read_frame_bytes(&mut r, 128).unwrap_err();
        if boundaries[frame] == at {
            prop_assert!(err.is_timeout(), "{:?}", err);
            // Still in sync: the rest reads whole.
            for p in &payloads[frame..] {
                prop_assert_eq!(read_frame_bytes(&mut r, 128).unwrap(), Some(p.clone()));
            }
            prop_assert!(read_frame_bytes(&mut r, 128).unwrap().is_none());
        } else {
            prop_assert!(!err.is_timeout(), "a mid-frame stall must not look retryable: {:?}", err);
        }
    }

    /// Token lines with embedded NUL, CR anywhere, CRLF, and lengths around the cap: accepted
    /// exactly when the line (minus one trailing CR) equals the token; over the cap is
    /// TokenTooLong after at most cap + 1 bytes; no newline is Closed; the frame after a good
    /// token line is left intact.
    #[test]
    fn hostile_token_lines(
        token in "[0-9a-f]{1,64}",
        junk in prop::collection::vec(prop_oneof![Just(0u8), Just(b'\r'), Just(b'a'), any::<u8>()], 0..8),
        junk_at in any::<prop::sample::Index>(),
        shape in 0u8..6,
        split in 1usize..7,
    ) {
        let expected = token.clone();
        let mut line: Vec<u8> = token.into_bytes();
        match shape {
            // Embedded junk (NUL, CR, anything but \n) somewhere in the token.
            0 => {
                let at = junk_at.index(line.len() + 1);
                let junk: Vec<u8> = junk.into_iter().filter(|&b| b != b'\n').collect();
                line.splice(at..at, junk);
            }
            // Exactly the cap.
            1 => line.resize(TOKEN_LINE_CAP, b'a'),
            // One over the cap.
            2 => line.resize(TOKEN_LINE_CAP + 1, b'a'),
            // Far over the cap.
            3 => line.resize(TOKEN_LINE_CAP * 20, b'b'),
            // CRLF.
            4 => line.push(b'\r'),
            // Unchanged.
            _ => {}
        }
        let terminated = shape != 3 || junk_at.index(2) == 0;
        let mut wire = line.clone();
        if terminated {
            wire.push(b'\n');
        }
        let frame = br#"{"op":"after"}"#;
        write_frame(&mut wire, frame, 64).unwrap();
        let mut r = Scripted {
            data: Cursor::new(wire),
            steps: std::iter::repeat_n(Step::Bytes(split), 8).collect(),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        let got = accept_token(&mut r, &expected, deadline, |_| Ok(()));
        let content = line.strip_suffix(b"\r").unwrap_or(&line);
        if line.len() > TOKEN_LINE_CAP && content.len() > TOKEN_LINE_CAP {
            prop_assert!(matches!(got, Err(HandshakeError::TokenTooLong { cap: TOKEN_LINE_CAP })), "{:?}", got);
            // Read no more than the cap plus the byte that broke it.
            prop_assert!(r.data.position() as usize <= TOKEN_LINE_CAP + 1);
        } else if content == expected.as_bytes() {
            prop_assert!(got.is_ok(), "{:?}", got);
            prop_assert_eq!(read_frame(&mut r, 64).unwrap(), Some(r#"{"op":"after"}"#.to_string()));
        } else {
            prop_assert!(matches!(got, Err(HandshakeError::BadToken)), "{:?}", got);
        }
    }

    /// An unterminated token line of any length up to the cap is Closed, never a match.
    #[test]
    fn unterminated_token_line_is_closed(line in prop::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 0..=TOKEN_LINE_CAP)) {
        let got = read_token_line(&mut Cursor::new(line), Instant::now() + Duration::from_secs(10), |_| Ok(()));
        prop_assert!(matches!(got, Err(HandshakeError::Closed)), "{:?}", got);
    }

    /// Whatever token `send_token` agrees to send, the server accepts as that token; anything
    /// it refuses (over the cap, or with \n, \r or NUL) writes nothing.
    #[test]
    fn send_token_round_trips_or_writes_nothing(token in prop_oneof![
        "[0-9a-f]{0,40}",
        "[\\x00\\r\\na-z]{0,12}",
        ".{0,40}",
        Just("a".repeat(TOKEN_LINE_CAP)),
        Just("a".repeat(TOKEN_LINE_CAP + 1)),
    ]) {
        let mut wire = Vec::new();
        match send_token(&mut wire, &token) {
            Ok(()) => {
                let got = accept_token(&mut Cursor::new(wire), &token, Instant::now() + Duration::from_secs(10), |_| Ok(()));
                prop_assert!(got.is_ok(), "{:?}: {:?}", token, got);
            }
            Err(e) => {
                prop_assert!(wire.is_empty());
                let bad_byte = token.bytes().any(|b| matches!(b, b'\n' | b'\r' | 0));
                if token.len() > TOKEN_LINE_CAP {
                    prop_assert!(matches!(e, HandshakeError::TokenTooLong { .. }), "{e}");
                } else {
                    prop_assert!(bad_byte && matches!(e, HandshakeError::InvalidToken), "{e}");
                }
            }
        }
    }

    /// Greeting frames: a hello is a hello, a busy notice is Busy, anything else (any bytes,
    /// JSON of the wrong shape, cut frames) is NoHello. Never a panic.
    #[test]
    fn greetings_are_typed(
        kind in 0u8..4,
        bytes in prop::collection::vec(any::<u8>(), 0..64),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut wire = Vec::new();
        match kind {
            0 => write_hello(&mut wire).unwrap(),
            1 => write_busy(&mut wire).unwrap(),
            2 => write_frame(&mut wire, &bytes, 1024).unwrap(),
            _ => wire = bytes,
        }
        let full = wire.clone();
        let got = read_hello(&mut Cursor::new(full));
        match kind {
            0 => prop_assert!(got.is_ok(), "{:?}", got),
            1 => prop_assert!(matches!(got, Err(HandshakeError::Busy { .. })), "{:?}", got),
            _ => prop_assert!(got.is_err()),
        }
        // Any strict prefix of a greeting is NoHello.
        let at = cut.index(wire.len().max(1));
        if at < wire.len() {
            let got = read_hello(&mut Cursor::new(wire[..at].to_vec()));
            prop_assert!(matches!(got, Err(HandshakeError::NoHello(_))), "{:?}", got);
        }
    }
}
