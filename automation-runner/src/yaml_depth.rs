//! How deep a YAML flow file nests, measured before it is parsed into a value: the parser's
//! cost grows with the square of the depth (100 000 levels in 200 KB took 25 s), so a file
//! deeper than [`MAX_YAML_DEPTH`](super::budget::MAX_YAML_DEPTH) is refused first.
//!
//! The measure is the parser's own: the events of the very parser serde_norway uses
//! (`unsafe-libyaml-norway`), read one at a time and dropped, stopping at the first
//! collection that goes past the cap — so no more than the cap's worth of nesting is ever
//! parsed, and the depth is exactly what the value would have (an alias counts as deep as the
//! node it names, at the depth where it is used). A text the parser cannot read passes: the
//! parse that follows reports the error, at the same place, having nested no deeper.
//! (A scanner over the text was tried first; the `flow_files` fuzz target found it
//! under-counting twice, in block scalars and in quoted scalars spanning lines.)

use std::collections::HashMap;
use std::mem::MaybeUninit;

use unsafe_libyaml_norway as unsafe_libyaml;

/// Where the depth first went over the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    /// The 1-based line of the node that went over.
    pub line: usize,
    /// The depth reached there (more than the cap).
    pub depth: usize,
}

/// A libyaml parser over a borrowed text, deleted when dropped.
struct Parser<'t> {
    sys: Box<MaybeUninit<unsafe_libyaml::yaml_parser_t>>,
    _text: std::marker::PhantomData<&'t str>,
}

impl<'t> Parser<'t> {
    fn new(text: &'t str) -> Option<Self> {
        let mut sys = Box::new(MaybeUninit::<unsafe_libyaml::yaml_parser_t>::uninit());
        let p = MaybeUninit::as_mut_ptr(&mut *sys);
        // SAFETY: `p` points to boxed storage that lives (and does not move) as long as the
        // parser; initialize fills it before anything else reads it.
        if unsafe { unsafe_libyaml::yaml_parser_initialize(p) }.fail {
            return None;
        }
        // SAFETY: an initialized parser; the input outlives it (`'t`).
        unsafe {
            unsafe_libyaml::yaml_parser_set_encoding(p, unsafe_libyaml::YAML_UTF8_ENCODING);
            unsafe_libyaml::yaml_parser_set_input_string(p, text.as_ptr(), text.len() as u64);
        }
        Some(Self {
            sys,
            _text: std::marker::PhantomData,
        })
    }

    /// The next event, as far as depth goes; `None` at an error.
    fn next(&mut self) -> Option<(Event, usize)> {
        let p = MaybeUninit::as_mut_ptr(&mut *self.sys);
        let mut event = MaybeUninit::<unsafe_libyaml::yaml_event_t>::uninit();
        let e = event.as_mut_ptr();
        // SAFETY: an initialized parser (`new`); `e` is storage for one event, which parse
        // fills on success and which is deleted once read.
        unsafe {
            // After a failure the loop stops: parse is never called on a parser in error.
            if unsafe_libyaml::yaml_parser_parse(p, e).fail {
                return None;
            }
            let line = usize::try_from((*e).start_mark.line).unwrap_or(usize::MAX);
            let ev = read(&*e);
            unsafe_libyaml::yaml_event_delete(e);
            Some((ev, line.saturating_add(1)))
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: initialized in `new` (a parser that failed to initialize is never built).
        unsafe { unsafe_libyaml::yaml_parser_delete(MaybeUninit::as_mut_ptr(&mut *self.sys)) }
    }
}

/// What depth needs of an event.
enum Event {
    Start(Option<Vec<u8>>),
    End,
    Scalar(Option<Vec<u8>>),
    Alias(Vec<u8>),
    StreamEnd,
    Other,
}

/// A C string owned by the event, copied (`None` for a null pointer).
///
/// SAFETY (caller): `ptr` is null or a NUL-terminated string alive for the call.
unsafe fn bytes(ptr: *const u8) -> Option<Vec<u8>> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: per the caller, a NUL-terminated string.
    let c = unsafe { std::ffi::CStr::from_ptr(ptr.cast()) };
    Some(c.to_bytes().to_vec())
}

/// SAFETY (caller): `e` is an event `yaml_parser_parse` filled and that is not deleted yet.
unsafe fn read(e: &unsafe_libyaml::yaml_event_t) -> Event {
    // SAFETY: the union member read is the one the event's type says is set.
    unsafe {
        match e.type_ {
            unsafe_libyaml::YAML_SEQUENCE_START_EVENT => {
                Event::Start(bytes(e.data.sequence_start.anchor))
            }
            unsafe_libyaml::YAML_MAPPING_START_EVENT => {
                Event::Start(bytes(e.data.mapping_start.anchor))
            }
            unsafe_libyaml::YAML_SEQUENCE_END_EVENT | unsafe_libyaml::YAML_MAPPING_END_EVENT => {
                Event::End
            }
            unsafe_libyaml::YAML_SCALAR_EVENT => Event::Scalar(bytes(e.data.scalar.anchor)),
            unsafe_libyaml::YAML_ALIAS_EVENT => {
                Event::Alias(bytes(e.data.alias.anchor).unwrap_or_default())
            }
            unsafe_libyaml::YAML_STREAM_END_EVENT => Event::StreamEnd,
            _ => Event::Other,
        }
    }
}

/// Checks that `text` nests at most `max` levels (see the module doc).
pub fn check(text: &str, max: usize) -> Result<(), TooDeep> {
    let Some(mut parser) = Parser::new(text) else {
        return Ok(());
    };
    // Open collections: the height of what they hold so far, and their anchor.
    let mut open: Vec<(usize, Option<Vec<u8>>)> = Vec::new();
    // The height of each anchored node (0 for a scalar).
    let mut anchors: HashMap<Vec<u8>, usize> = HashMap::new();
    let hold = |open: &mut Vec<(usize, Option<Vec<u8>>)>, height: usize| {
        if let Some(parent) = open.last_mut() {
            parent.0 = parent.0.max(height);
        }
    };
    while let Some((event, line)) = parser.next() {
        match event {
            Event::Start(anchor) => {
                open.push((0, anchor));
                if open.len() > max {
                    return Err(TooDeep {
                        line,
                        depth: open.len(),
                    });
                }
            }
            Event::End => {
                if let Some((held, anchor)) = open.pop() {
                    if let Some(a) = anchor {
                        anchors.insert(a, held + 1);
                    }
                    hold(&mut open, held + 1);
                }
            }
            Event::Scalar(anchor) => {
                if let Some(a) = anchor {
                    anchors.insert(a, 0);
                }
            }
            Event::Alias(name) => {
                let height = anchors.get(&name).copied().unwrap_or(0);
                let depth = open.len() + height;
                if depth > max {
                    return Err(TooDeep { line, depth });
                }
                hold(&mut open, height);
            }
            Event::StreamEnd => return Ok(()),
            Event::Other => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_ok(text: &str, max: usize) -> bool {
        check(text, max).is_ok()
    }

    #[test]
    fn flow_block_and_compact_nesting_count_as_the_value_nests() {
        // {steps: [{tool, args: {x: [1, 2]}}]}: five levels.
        assert!(depth_ok("steps:\n  - tool: a\n    args: {x: [1, 2]}\n", 5));
        assert!(!depth_ok("steps:\n  - tool: a\n    args: {x: [1, 2]}\n", 4));
        let started = std::time::Instant::now();
        assert_eq!(check(&"[".repeat(100_000), 64).unwrap_err().depth, 65);
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        let block: String = (0..100).map(|i| format!("{}a:\n", " ".repeat(i))).collect();
        assert_eq!(check(&block, 64).unwrap_err().line, 65);
        assert!(check(&format!("{}x\n", "- ".repeat(70)), 64).is_err());
        // {a: [{b: [{c: [d]}]}]}: six levels.
        let yaml = "a:\n- b:\n  - c:\n    - d\n";
        assert!(check(yaml, 5).is_err() && check(yaml, 6).is_ok());
    }

    #[test]
    fn quotes_comments_and_block_scalars_are_text() {
        assert!(depth_ok("a: '[[[[[[[[[['\nb: \"{{{{{{ \\\" [[[[\"\n", 1));
        assert!(depth_ok("a: 1 # [[[[[[[[[[\n", 1));
        assert!(depth_ok(&format!("a: it's {}\n", "[".repeat(80)), 1));
        assert!(depth_ok(
            "a: |\n  [[[[[[[[\n      deep\n          deeper\nb: 1\n",
            1
        ));
    }

    #[test]
    fn fuzz_found_what_a_scanner_of_the_text_missed() {
        let deep = format!("{}1{}", "{root: ".repeat(20), "}".repeat(20));
        // `- name: |` with content at the key's column: an empty scalar, then sibling keys.
        let yaml = format!("- name: |\n  retry:\n   root:\n    {deep}\n  tool: x\n");
        assert!(check(&yaml, 8).is_err(), "{yaml}");
        // A quoted scalar that spans lines, inside a flow collection that stays open.
        let yaml = format!("steps: [{{id: a, tool: '\n  ]}}]\n  x', args: {deep}}}]\n");
        assert!(check(&yaml, 8).is_err(), "{yaml}");
        // A plain scalar's continuation line that starts with a quote.
        let yaml = format!("a: text\n  'continued\nb:\n  c: {deep}\n");
        assert!(check(&yaml, 8).is_err(), "{yaml}");
    }

    #[test]
    fn an_alias_counts_as_deep_as_its_node_where_it_is_used() {
        let ten = format!("{}1{}", "[".repeat(10), "]".repeat(10));
        let yaml = format!("a: &x {ten}\nb: [[[[[[[[[[*x]]]]]]]]]]\n");
        // b holds ten levels around an alias of ten: 1 + 10 + 10.
        assert_eq!(check(&yaml, 20).unwrap_err().depth, 21);
        assert!(check(&yaml, 21).is_ok());
    }

    #[test]
    fn what_the_parser_cannot_read_is_left_to_the_parse() {
        assert!(check("a: 'open\n", 1).is_ok());
        assert!(serde_norway::from_str::<serde_json::Value>("a: 'open\n").is_err());
    }

    #[test]
    fn the_examples_are_shallow() {
        let yaml = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../examples/flows/save-name.yaml"),
        )
        .unwrap();
        assert!(check(&yaml, 6).is_ok(), "{:?}", check(&yaml, 6));
    }
}
