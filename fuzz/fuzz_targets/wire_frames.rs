//! Frames and the token handshake over in-memory streams.
//! Input: [cap byte][mode byte][rest]. Oracles: no panic; no frame longer than the cap;
//! write_frame -> read_frame gives the payload back; read_token_line never returns more than
//! TOKEN_LINE_CAP bytes or a newline; send_token -> accept_token accepts its own token;
//! accept_token only accepts the exact token.
#![no_main]

use automation_wire::frame::{read_frame, read_frame_bytes, write_frame};
use automation_wire::handshake::{
    TOKEN_LINE_CAP, accept_token, read_hello, read_token_line, send_token, tokens_match,
};
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use std::time::{Duration, Instant};

fn far() -> Instant {
    Instant::now() + Duration::from_secs(3600)
}

fuzz_target!(|data: &[u8]| {
    let [cap_byte, mode, rest @ ..] = data else { return };
    let cap = (*cap_byte as usize) * 17;
    match mode % 4 {
        0 => {
            // A stream of frames.
            let mut r = Cursor::new(rest);
            for _ in 0..64 {
                match read_frame(&mut r, cap) {
                    Ok(Some(s)) => assert!(s.len() <= cap),
                    Ok(None) => break,
                    Err(e) => {
                        let _ = e.to_string();
                        let _ = e.is_timeout();
                        break;
                    }
                }
            }
            let mut r = Cursor::new(rest);
            if let Ok(Some(b)) = read_frame_bytes(&mut r, cap) {
                assert!(b.len() <= cap);
            }
        }
        1 => {
            // Round trip of the payload.
            let mut buf = Vec::new();
            match write_frame(&mut buf, rest, cap) {
                Ok(()) => {
                    assert_eq!(buf.len(), rest.len() + 4);
                    let back = read_frame_bytes(&mut Cursor::new(&buf), cap)
                        .expect("reads back")
                        .expect("one frame");
                    assert_eq!(back, rest);
                }
                Err(_) => {
                    assert!(rest.len() > cap);
                    assert!(buf.is_empty(), "bytes written before a refusal");
                }
            }
        }
        2 => {
            // The token line; the expected token is the first cap_byte % 70 bytes as UTF-8.
            let split = (*cap_byte as usize % 70).min(rest.len());
            let (tok, line) = rest.split_at(split);
            let Ok(expected) = std::str::from_utf8(tok) else { return };
            if let Ok(got) = read_token_line(&mut Cursor::new(line), far(), |_| Ok(())) {
                assert!(got.len() <= TOKEN_LINE_CAP);
                assert!(!got.contains(&b'\n'));
            }
            if accept_token(&mut Cursor::new(line), expected, far(), |_| Ok(())).is_ok() {
                let got = read_token_line(&mut Cursor::new(line), far(), |_| Ok(())).expect("line");
                assert_eq!(got, expected.as_bytes(), "accepted a different token");
                assert!(tokens_match(&got, expected.as_bytes()));
            }
            let mut sent = Vec::new();
            if send_token(&mut sent, expected).is_ok() {
                accept_token(&mut Cursor::new(&sent), expected, far(), |_| Ok(()))
                    .expect("a sent token is accepted");
            }
        }
        _ => {
            let _ = read_hello(&mut Cursor::new(rest));
        }
    }
});
