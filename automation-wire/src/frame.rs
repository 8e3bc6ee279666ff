//! Length-prefixed frames: a 4-byte little-endian length, then that many bytes of UTF-8 JSON.
//!
//! The cap is checked against the announced length *before* any buffer is allocated on read,
//! and *before* any byte is written on write, so an oversize frame can neither exhaust memory
//! nor desynchronise the stream. An empty frame (length 0) is legal. A stream that ends inside
//! a frame is [`FrameError::Truncated`], never a short read.

use std::io::{self, Read, Write};

/// Largest request frame a server accepts: 16 MiB.
pub const MAX_REQUEST_FRAME: usize = 16 * 1024 * 1024;
/// Largest reply frame (a reply may carry a screenshot): 256 MiB.
pub const MAX_REPLY_FRAME: usize = 256 * 1024 * 1024;

/// What went wrong reading or writing a frame.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The peer announced (or the caller tried to send) more than the cap allows.
    #[error(
        "frame of {len} bytes exceeds the {cap}-byte cap; nothing was {action}: split the payload or raise the cap on both ends"
    )]
    TooLarge {
        /// Announced or attempted length.
        len: u64,
        /// The cap in force.
        cap: usize,
        /// "read" or "written".
        action: &'static str,
    },
    /// The stream ended inside a frame (in the header or the body).
    #[error(
        "truncated frame: expected {expected} bytes, got {got} before end of stream; the peer closed mid-frame, reconnect"
    )]
    Truncated {
        /// Bytes the header (or the body) promised.
        expected: u64,
        /// Bytes actually received.
        got: u64,
    },
    /// The body is not UTF-8 (a frame carries JSON text).
    #[error("frame body is not UTF-8 ({0}); frames carry UTF-8 JSON")]
    NotUtf8(#[from] std::str::Utf8Error),
    /// Any other transport error (including a read timeout, kind `TimedOut`).
    #[error("frame I/O: {0}")]
    Io(#[from] io::Error),
}

impl FrameError {
    /// True when this is a read timeout that fired before any byte of the frame arrived:
    /// the stream is still in sync and may be read again.
    pub fn is_timeout(&self) -> bool {
        matches!(self, FrameError::Io(e) if is_timeout_kind(e.kind()))
    }
}

/// A socket recv timeout surfaces as `WouldBlock` on Unix and `TimedOut` elsewhere.
pub(crate) fn is_timeout_kind(kind: io::ErrorKind) -> bool {
    matches!(kind, io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock)
}

/// Fill `buf` completely; count what arrived so a short stream reports how much it got.
/// `already` is how many bytes of this frame were read before (the header, when filling the
/// body): a timeout after any byte of the frame is a mid-frame stall, not a clean timeout.
fn read_full<R: Read + ?Sized>(
    r: &mut R,
    buf: &mut [u8],
    already: usize,
) -> Result<usize, io::Error> {
    let mut got = 0;
    while got < buf.len() {
        let Some(rest) = buf.get_mut(got..) else {
            break;
        };
        match r.read(rest) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if got + already > 0 && is_timeout_kind(e.kind()) => {
                // Mid-frame stall: the stream is out of sync; report it as a hard error.
                return Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    format!(
                        "peer stalled mid-frame after {} bytes ({e}); the stream is out of sync, reconnect",
                        got + already
                    ),
                ));
            }
            Err(e) => {
                return Err(if e.kind() == io::ErrorKind::WouldBlock {
                    io::Error::new(io::ErrorKind::TimedOut, e)
                } else {
                    e
                });
            }
        }
    }
    Ok(got)
}

/// Read one frame's raw bytes. `Ok(None)` is a clean end of stream *between* frames.
pub fn read_frame_bytes<R: Read + ?Sized>(
    r: &mut R,
    cap: usize,
) -> Result<Option<Vec<u8>>, FrameError> {
    let mut header = [0u8; 4];
    let got = read_full(r, &mut header, 0)?;
    if got == 0 {
        return Ok(None);
    }
    if got < 4 {
        return Err(FrameError::Truncated {
            expected: 4,
            got: got as u64,
        });
    }
    let len = u32::from_le_bytes(header) as u64;
    if len > cap as u64 {
        return Err(FrameError::TooLarge {
            len,
            cap,
            action: "read",
        });
    }
    // len <= cap <= usize::MAX here.
    let mut body = vec![0u8; len as usize];
    let got = read_full(r, &mut body, header.len())?;
    if (got as u64) < len {
        return Err(FrameError::Truncated {
            expected: len,
            got: got as u64,
        });
    }
    Ok(Some(body))
}

/// Read one frame as a UTF-8 string. `Ok(None)` is a clean end of stream between frames.
pub fn read_frame<R: Read + ?Sized>(r: &mut R, cap: usize) -> Result<Option<String>, FrameError> {
    match read_frame_bytes(r, cap)? {
        None => Ok(None),
        Some(bytes) => match String::from_utf8(bytes) {
            Ok(s) => Ok(Some(s)),
            Err(e) => Err(FrameError::NotUtf8(e.utf8_error())),
        },
    }
}

/// Write one frame (header and body in one `write_all`, then flush). An oversize payload is
/// refused before a single byte is written.
pub fn write_frame<W: Write + ?Sized>(
    w: &mut W,
    payload: &[u8],
    cap: usize,
) -> Result<(), FrameError> {
    let too_large = || FrameError::TooLarge {
        len: payload.len() as u64,
        cap,
        action: "written",
    };
    if payload.len() > cap {
        return Err(too_large());
    }
    let len = u32::try_from(payload.len()).map_err(|_| too_large())?;
    let mut buf = Vec::with_capacity(4 + payload.len());
    buf.extend_from_slice(&len.to_le_bytes());
    buf.extend_from_slice(payload);
    w.write_all(&buf)?;
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn round_trip_several_then_eof() {
        let mut buf = Vec::new();
        for p in ["{\"a\":1}", "", "[1,2,3]"] {
            write_frame(&mut buf, p.as_bytes(), MAX_REQUEST_FRAME).unwrap();
        }
        let mut r = Cursor::new(buf);
        assert_eq!(
            read_frame(&mut r, MAX_REQUEST_FRAME).unwrap().as_deref(),
            Some("{\"a\":1}")
        );
        assert_eq!(
            read_frame(&mut r, MAX_REQUEST_FRAME).unwrap().as_deref(),
            Some("")
        );
        assert_eq!(
            read_frame(&mut r, MAX_REQUEST_FRAME).unwrap().as_deref(),
            Some("[1,2,3]")
        );
        assert!(read_frame(&mut r, MAX_REQUEST_FRAME).unwrap().is_none());
    }

    #[test]
    fn empty_frame_is_legal_and_four_zero_bytes() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"", 10).unwrap();
        assert_eq!(buf, [0, 0, 0, 0]);
        assert_eq!(
            read_frame(&mut Cursor::new(buf), 10).unwrap().as_deref(),
            Some("")
        );
    }

    #[test]
    fn oversize_read_refused_before_allocation() {
        // Announce 4 GiB - 1 with no body: a naive reader would try to allocate it.
        let mut r = Cursor::new(vec![0xff, 0xff, 0xff, 0xff]);
        let err = read_frame(&mut r, MAX_REPLY_FRAME).unwrap_err();
        assert!(
            matches!(
                err,
                FrameError::TooLarge {
                    len: 0xffff_ffff,
                    action: "read",
                    ..
                }
            ),
            "{err}"
        );
        // One over the request cap is refused too.
        let mut r = Cursor::new(((MAX_REQUEST_FRAME as u32) + 1).to_le_bytes().to_vec());
        assert!(matches!(
            read_frame(&mut r, MAX_REQUEST_FRAME),
            Err(FrameError::TooLarge { .. })
        ));
    }

    #[test]
    fn oversize_write_writes_nothing() {
        let mut out = Vec::new();
        let err = write_frame(&mut out, &[b'x'; 11], 10).unwrap_err();
        assert!(matches!(
            err,
            FrameError::TooLarge {
                len: 11,
                cap: 10,
                action: "written"
            }
        ));
        assert!(out.is_empty(), "nothing may be written");
        assert!(err.to_string().contains("nothing was written"));
    }

    #[test]
    fn truncated_header_and_body_are_errors() {
        let mut r = Cursor::new(vec![5, 0]);
        assert!(matches!(
            read_frame(&mut r, 10),
            Err(FrameError::Truncated {
                expected: 4,
                got: 2
            })
        ));
        let mut r = Cursor::new(vec![5, 0, 0, 0, b'a', b'b']);
        assert!(matches!(
            read_frame(&mut r, 10),
            Err(FrameError::Truncated {
                expected: 5,
                got: 2
            })
        ));
    }

    /// Times out once after handing out `first` bytes.
    struct StallAfter {
        data: Cursor<Vec<u8>>,
        first: usize,
        stalled: bool,
    }
    impl Read for StallAfter {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let pos = self.data.position() as usize;
            if pos == self.first && !self.stalled {
                self.stalled = true;
                return Err(io::Error::new(io::ErrorKind::WouldBlock, "timeout"));
            }
            let n = if pos < self.first {
                buf.len().min(self.first - pos)
            } else {
                buf.len()
            };
            self.data.read(&mut buf[..n])
        }
    }

    #[test]
    fn timeout_right_after_the_header_is_a_mid_frame_stall() {
        // Found by tests/wire_props.rs: the header read completes, the body read times out
        // before its first byte. That used to look like a clean, retryable timeout although
        // the header was consumed (a retry would read the body as a header).
        let mut wire = Vec::new();
        write_frame(&mut wire, b"{}", 10).unwrap();
        let mut r = StallAfter {
            data: Cursor::new(wire.clone()),
            first: 4,
            stalled: false,
        };
        let err = read_frame(&mut r, 10).unwrap_err();
        assert!(!err.is_timeout(), "{err}");
        assert!(err.to_string().contains("out of sync"), "{err}");
        // Before the header it is a clean timeout and the frame reads next.
        let mut r = StallAfter {
            data: Cursor::new(wire),
            first: 0,
            stalled: false,
        };
        assert!(read_frame(&mut r, 10).unwrap_err().is_timeout());
        assert_eq!(read_frame(&mut r, 10).unwrap().as_deref(), Some("{}"));
    }

    #[test]
    fn non_utf8_body_is_typed() {
        let mut r = Cursor::new(vec![2, 0, 0, 0, 0xff, 0xfe]);
        assert!(matches!(
            read_frame(&mut r, 10),
            Err(FrameError::NotUtf8(_))
        ));
    }

    proptest::proptest! {
        #[test]
        fn any_payload_round_trips(payloads in proptest::collection::vec(".{0,64}", 0..8)) {
            let mut buf = Vec::new();
            for p in &payloads { write_frame(&mut buf, p.as_bytes(), MAX_REQUEST_FRAME).unwrap(); }
            let mut r = Cursor::new(buf);
            for p in &payloads {
                let got = read_frame(&mut r, MAX_REQUEST_FRAME).unwrap();
                proptest::prop_assert_eq!(got.as_deref(), Some(p.as_str()));
            }
            proptest::prop_assert!(read_frame(&mut r, MAX_REQUEST_FRAME).unwrap().is_none());
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64)) {
            let mut r = Cursor::new(bytes);
            for _ in 0..4 { let _ = read_frame(&mut r, 32); }
        }
    }
}
