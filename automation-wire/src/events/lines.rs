//! The transport-independent half of the event-pipe reader, shared by the Unix FIFO reader
//! (`pipe.rs`) and the Windows named-pipe reader (`pipe_windows.rs`): split bytes into lines
//! under a length cap, classify each line as an event or plain log output, hand the items on in
//! order, and drain a stream to its end. The platform files only create and open the channel
//! and decide when to feed bytes in.
//!
//! Rules, the same on every platform:
//!
//! * a line ends at `\n`; one trailing `\r` is dropped (`\r\n` tolerated); empty lines are skipped;
//! * a line longer than the cap (counted before the newline) is never buffered past the cap: it
//!   is reported once as a [`LogRecord`] with [`LogRecord::rejected`] set and a short preview,
//!   and the rest of it is skipped up to the next newline, so the following line is intact;
//! * a line that is not valid UTF-8 is never an event: it becomes a log record (its text with
//!   U+FFFD replacements) whose `rejected` says where the first bad byte was;
//! * at the end of the stream a last line without a newline is still delivered.

use std::io::{self, Read};

use super::parse::{ParsedLine, parse_line, parse_log_line};
use super::{LINE_CAP, LogLevel, LogRecord, LogSource, PipeItem, PipeSummary};

/// How much of an overlong line is kept as the preview in its log record.
const PREVIEW_BYTES: usize = 256;
/// Read size when draining a stream.
pub(crate) const CHUNK: usize = 64 * 1024;

/// Splits a byte stream into classified lines. One per channel (or per connection).
#[derive(Debug)]
pub(crate) struct LineSplitter {
    is_log: bool,
    cap: usize,
    pending: Vec<u8>,
    /// An overlong line was reported; its remainder is dropped up to the next newline.
    skipping: bool,
    summary: PipeSummary,
}

impl LineSplitter {
    /// A splitter for the event channel (`is_log == false`) or the log channel, with the
    /// standard cap ([`LINE_CAP`]).
    pub(crate) fn new(is_log: bool) -> Self {
        Self::with_cap(is_log, LINE_CAP)
    }

    /// A splitter with an explicit line cap (tests use a small one).
    pub(crate) fn with_cap(is_log: bool, cap: usize) -> Self {
        LineSplitter {
            is_log,
            cap,
            pending: Vec::new(),
            skipping: false,
            summary: PipeSummary::default(),
        }
    }

    /// What has been delivered so far.
    pub(crate) fn summary(&self) -> PipeSummary {
        self.summary
    }

    fn source(&self) -> LogSource {
        if self.is_log {
            LogSource::LogChannel
        } else {
            LogSource::EventChannel
        }
    }

    /// Feed the next bytes of the stream; every line they complete is delivered to `out`.
    pub(crate) fn feed(&mut self, mut bytes: &[u8], out: &mut impl FnMut(PipeItem)) {
        while !bytes.is_empty() {
            let Some(nl) = bytes.iter().position(|&b| b == b'\n') else {
                // No newline: keep the bytes, unless that makes the line overlong.
                if self.skipping {
                    return;
                }
                if self.pending.len().saturating_add(bytes.len()) > self.cap {
                    let mut preview = std::mem::take(&mut self.pending);
                    if preview.len() < PREVIEW_BYTES {
                        let want = PREVIEW_BYTES - preview.len();
                        preview.extend_from_slice(
                            bytes.get(..want.min(bytes.len())).unwrap_or_default(),
                        );
                    }
                    self.overlong(&preview, out);
                    self.skipping = true;
                    preview.clear();
                    self.pending = preview; // keep the allocation
                } else {
                    self.pending.extend_from_slice(bytes);
                }
                return;
            };
            let line = bytes.get(..nl).unwrap_or_default();
            bytes = bytes.get(nl + 1..).unwrap_or_default();
            if self.skipping {
                // The end of an overlong line that was already reported.
                self.skipping = false;
                continue;
            }
            if self.pending.is_empty() {
                self.line(line, out);
            } else if self.pending.len().saturating_add(line.len()) > self.cap {
                let mut whole = std::mem::take(&mut self.pending);
                whole.extend_from_slice(
                    line.get(..PREVIEW_BYTES.min(line.len()))
                        .unwrap_or_default(),
                );
                self.overlong(&whole, out);
                whole.clear();
                self.pending = whole;
            } else {
                let mut whole = std::mem::take(&mut self.pending);
                whole.extend_from_slice(line);
                self.line(&whole, out);
                whole.clear();
                self.pending = whole;
            }
        }
    }

    /// The stream ended: deliver a last unterminated line, if any.
    pub(crate) fn finish(&mut self, out: &mut impl FnMut(PipeItem)) {
        let last = std::mem::take(&mut self.pending);
        if !self.skipping && !last.is_empty() {
            self.line(&last, out);
        }
        self.skipping = false;
    }

    /// One complete line (without its `\n`).
    fn line(&mut self, raw: &[u8], out: &mut impl FnMut(PipeItem)) {
        if raw.len() > self.cap {
            self.overlong(raw, out);
            return;
        }
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.is_empty() {
            return;
        }
        let item = match std::str::from_utf8(line) {
            Ok(text) if self.is_log => PipeItem::Log(parse_log_line(text)),
            Ok(text) => match parse_line(text) {
                ParsedLine::Event(e) => PipeItem::Event(e),
                ParsedLine::Log(l) => PipeItem::Log(l),
            },
            Err(e) => PipeItem::Log(LogRecord {
                level: LogLevel::Info,
                message: String::from_utf8_lossy(line).into_owned(),
                data: None,
                timestamp: None,
                source: self.source(),
                rejected: Some(format!(
                    "line is not valid UTF-8 (first bad byte at offset {}); kept as plain output with U+FFFD replacements; producers must write UTF-8",
                    e.valid_up_to()
                )),
            }),
        };
        self.deliver(item, out);
    }

    /// Report an overlong line: a warning with a short preview; the line itself is dropped.
    fn overlong(&mut self, start: &[u8], out: &mut impl FnMut(PipeItem)) {
        let preview = start
            .get(..PREVIEW_BYTES.min(start.len()))
            .unwrap_or_default();
        let rec = LogRecord {
            level: LogLevel::Warn,
            message: format!("{}…", String::from_utf8_lossy(preview)),
            data: None,
            timestamp: None,
            source: self.source(),
            rejected: Some(format!(
                "line longer than {} bytes; skipped up to its newline (the preview is its first {} bytes); split large payloads (a screenshot: send its path, not its base64)",
                self.cap,
                preview.len()
            )),
        };
        self.deliver(PipeItem::Log(rec), out);
    }

    fn deliver(&mut self, item: PipeItem, out: &mut impl FnMut(PipeItem)) {
        match item {
            PipeItem::Event(_) => self.summary.events += 1,
            PipeItem::Log(_) => self.summary.logs += 1,
        }
        out(item);
    }
}

/// Read `r` to its end, feeding the splitter, then deliver the last unterminated line. A read
/// error ends the stream: the lines completed before it are delivered, the partial one is not,
/// and the error is returned. (Used by the Windows reader per producer connection; the Unix
/// reader polls a non-blocking FIFO and feeds chunks itself.)
#[cfg_attr(not(windows), allow(dead_code))]
pub(crate) fn drain_to_eof<R: Read + ?Sized>(
    r: &mut R,
    splitter: &mut LineSplitter,
    out: &mut impl FnMut(PipeItem),
) -> io::Result<()> {
    let mut chunk = vec![0u8; CHUNK];
    loop {
        match r.read(&mut chunk) {
            Ok(0) => {
                splitter.finish(out);
                return Ok(());
            }
            Ok(n) => splitter.feed(chunk.get(..n).unwrap_or_default(), out),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                splitter.pending.clear();
                splitter.skipping = false;
                return Err(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::EventKind;
    use std::io::Cursor;

    const EV: &str = r#"{"__mcp_event__":true,"type":"status","timestamp":"t","message":"hi"}"#;

    fn run(input: &[u8], is_log: bool, cap: usize, chunk: usize) -> (Vec<PipeItem>, PipeSummary) {
        let mut items = Vec::new();
        let mut s = LineSplitter::with_cap(is_log, cap);
        let mut r = ChunkReader {
            data: Cursor::new(input.to_vec()),
            chunk,
        };
        drain_to_eof(&mut r, &mut s, &mut |i| items.push(i)).unwrap();
        (items, s.summary())
    }

    /// Hands out at most `chunk` bytes per read, to cross line boundaries everywhere.
    struct ChunkReader {
        data: Cursor<Vec<u8>>,
        chunk: usize,
    }
    impl Read for ChunkReader {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.chunk);
            self.data.read(&mut buf[..n])
        }
    }

    fn log(i: &PipeItem) -> &LogRecord {
        match i {
            PipeItem::Log(l) => l,
            PipeItem::Event(e) => panic!("expected a log record, got {e:?}"),
        }
    }

    #[test]
    fn events_and_plain_lines_in_order_with_crlf() {
        for chunk in [1, 3, 7, 64 * 1024] {
            let input = format!("{EV}\r\nplain\r\n\r\n\n{EV}\n");
            let (items, sum) = run(input.as_bytes(), false, 1024, chunk);
            assert_eq!(items.len(), 3, "chunk {chunk}: {items:?}");
            assert!(
                matches!(&items[0], PipeItem::Event(e) if matches!(&e.kind, EventKind::Status { message, .. } if message == "hi"))
            );
            assert_eq!(log(&items[1]).message, "plain", "the \\r is dropped");
            assert_eq!(log(&items[1]).source, LogSource::EventChannel);
            assert!(matches!(&items[2], PipeItem::Event(_)));
            assert_eq!((sum.events, sum.logs), (2, 1));
        }
    }

    #[test]
    fn cap_enforced_and_the_next_line_survives() {
        for chunk in [1, 5, 16, 64 * 1024] {
            // 40 bytes over a 16-byte cap, then a normal line, then one exactly at the cap.
            let input = format!("{}\nnext\n{}\n", "x".repeat(40), "y".repeat(16));
            let (items, sum) = run(input.as_bytes(), false, 16, chunk);
            assert_eq!(items.len(), 3, "chunk {chunk}: {items:?}");
            let over = log(&items[0]);
            assert_eq!(over.level, LogLevel::Warn);
            assert!(
                over.rejected
                    .as_deref()
                    .unwrap()
                    .contains("longer than 16 bytes"),
                "{over:?}"
            );
            assert!(over.message.starts_with('x') && over.message.len() <= PREVIEW_BYTES + 3);
            assert_eq!(
                log(&items[1]).message,
                "next",
                "chunk {chunk}: nothing lost"
            );
            assert_eq!(
                log(&items[2]).message,
                "y".repeat(16),
                "exactly the cap is fine"
            );
            assert_eq!(sum.logs, 3);
        }
    }

    #[test]
    fn overlong_line_is_never_buffered_past_the_cap() {
        let mut s = LineSplitter::with_cap(false, 1000);
        let mut items = Vec::new();
        for _ in 0..100 {
            s.feed(&[b'z'; 999], &mut |i| items.push(i));
            assert!(s.pending.len() <= 1000);
        }
        s.feed(b"\nafter\n", &mut |i| items.push(i));
        s.finish(&mut |i| items.push(i));
        assert_eq!(
            items.len(),
            2,
            "one report for the overlong line, then the next line"
        );
        assert!(log(&items[0]).rejected.is_some());
        assert_eq!(log(&items[1]).message, "after");
    }

    #[test]
    fn overlong_unterminated_last_line_reported_once() {
        let (items, _) = run(&[b'q'; 100], false, 10, 7);
        assert_eq!(items.len(), 1);
        assert!(
            log(&items[0])
                .rejected
                .as_deref()
                .unwrap()
                .contains("longer than 10")
        );
    }

    #[test]
    fn invalid_utf8_line_is_a_log_record_and_the_next_line_survives() {
        let mut input =
            b"ok\n{\"__mcp_event__\":true,\"type\":\"status\",\"timestamp\":\"t\",\"message\":\""
                .to_vec();
        input.extend_from_slice(&[0xff, 0xfe]);
        input.extend_from_slice(b"\"}\n");
        input.extend_from_slice(EV.as_bytes());
        input.push(b'\n');
        let (items, sum) = run(&input, false, 1024, 3);
        assert_eq!(items.len(), 3, "{items:?}");
        let bad = log(&items[1]);
        assert!(bad.message.contains('\u{fffd}'));
        assert!(bad.rejected.as_deref().unwrap().contains("not valid UTF-8"));
        assert!(matches!(&items[2], PipeItem::Event(_)));
        assert_eq!((sum.events, sum.logs), (1, 2));
    }

    #[test]
    fn eof_drains_the_last_unterminated_line() {
        let (items, _) = run(format!("a\n{EV}").as_bytes(), false, 1024, 4);
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[1], PipeItem::Event(_)));
        let (items, _) = run(b"tail without newline\r", false, 1024, 64);
        assert_eq!(log(&items[0]).message, "tail without newline");
        let (items, sum) = run(b"", false, 1024, 64);
        assert!(items.is_empty());
        assert_eq!(sum, PipeSummary::default());
    }

    #[test]
    fn log_channel_lines_are_log_records() {
        let (items, _) = run(
            b"{\"level\":\"error\",\"message\":\"m\"}\nplain\n",
            true,
            1024,
            5,
        );
        assert_eq!(items.len(), 2);
        assert_eq!(log(&items[0]).level, LogLevel::Error);
        assert_eq!(log(&items[0]).source, LogSource::LogChannel);
        assert_eq!(log(&items[1]).message, "plain");
    }

    #[test]
    fn read_error_keeps_completed_lines() {
        struct Broken(u8);
        impl Read for Broken {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.0 += 1;
                if self.0 == 1 {
                    buf[..8].copy_from_slice(b"one\npart");
                    Ok(8)
                } else {
                    Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
                }
            }
        }
        let mut s = LineSplitter::new(false);
        let mut items = Vec::new();
        let err = drain_to_eof(&mut Broken(0), &mut s, &mut |i| items.push(i)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(items.len(), 1);
        assert_eq!(log(&items[0]).message, "one");
    }
}
