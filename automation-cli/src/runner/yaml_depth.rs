//! How deep a YAML flow file nests, measured on the text before the YAML parser sees it: the
//! parser's cost grows with the square of the depth (100 000 levels in 200 KB took 25 s), so
//! a file deeper than [`MAX_YAML_DEPTH`](super::budget::MAX_YAML_DEPTH) is refused first.
//!
//! The measure never under-counts what the parser would nest (the `flow_files` fuzz target
//! checks it against the parsed value): each line of block content is nested in every
//! less-indented line still open above it, and counts the levels those lines opened — one
//! for the collection at its indentation, one per compact `- ` / `? ` that opens another on
//! the same line, and one more for a `key:` after them — plus the flow collections (`[`,
//! `{`) open outside quoted scalars and comments. Block scalars (`|`, `>`) are skipped. A
//! line nested in one that opened several levels may be counted a level deeper than the
//! parser goes; only a document already near the cap can notice.

/// Where the depth first went over the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    /// The 1-based line.
    pub line: usize,
    /// The depth reached there (more than the cap).
    pub depth: usize,
}

/// Whether a quote at byte `i` of `line` starts a quoted scalar: it is the first thing of the
/// line's content, or follows (spaces aside) an indicator that begins a node.
fn quote_starts_scalar(line: &[u8], i: usize) -> bool {
    let before = line
        .get(..i)
        .unwrap_or_default()
        .iter()
        .rev()
        .find(|b| **b != b' ' && **b != b'\t');
    matches!(
        before,
        None | Some(b'[' | b'{' | b',' | b':' | b'-' | b'?' | b'!' | b'&')
    )
}

/// Whether the content of a line (comment removed, trimmed) opens a block scalar.
fn opens_block_scalar(content: &str) -> bool {
    let last = content.rsplit([' ', '\t']).next().unwrap_or(content);
    let mut chars = last.chars();
    matches!(chars.next(), Some('|' | '>'))
        && chars.all(|c| c.is_ascii_digit() || c == '-' || c == '+')
        && (content.len() == last.len()
            || content[..content.len() - last.len()]
                .trim_end()
                .ends_with([':', '-', '?']))
}

/// What one line's content holds, scanned outside quoted scalars and comments.
struct Scan {
    /// The deepest flow nesting reached on the line (absolute).
    max_flow: usize,
    /// A `key:` at the line's block level (not inside a flow collection).
    key: bool,
    /// Where a comment starts (the content ends there).
    content_end: usize,
}

/// Scans `line` from byte `from`, updating the flow state carried across lines. A quote
/// hides what it encloses only when it closes on the same line: one left open is taken for
/// text (a quoted scalar that spans lines has its later lines counted as if unquoted, which
/// can only count more), so a quote the parser does not see as one can never hide nesting.
fn scan(line: &[u8], from: usize, flow: &mut usize) -> Scan {
    let block = *flow == 0;
    let flow_at_start = *flow;
    let mut out = Scan {
        max_flow: *flow,
        key: false,
        content_end: line.len(),
    };
    // Quotes found unclosed, taken for text on the next pass.
    let mut not_quotes: Vec<usize> = Vec::new();
    'pass: loop {
        *flow = flow_at_start;
        out.max_flow = flow_at_start;
        out.key = false;
        out.content_end = line.len();
        let mut quoted: Option<(u8, usize)> = None;
        let mut j = from;
        while let Some(&b) = line.get(j) {
            match quoted {
                Some((b'"', _)) if b == b'\\' => j += 1,
                Some((q, _)) if b == q => {
                    // '' inside a single-quoted scalar is an escaped quote.
                    if q == b'\'' && line.get(j + 1) == Some(&b'\'') {
                        j += 1;
                    } else {
                        quoted = None;
                    }
                }
                Some(_) => {}
                None => match b {
                    b'#' if j == 0 || matches!(line.get(j - 1), Some(b' ' | b'\t')) => {
                        out.content_end = j;
                        break;
                    }
                    b'\'' | b'"' if quote_starts_scalar(line, j) && !not_quotes.contains(&j) => {
                        quoted = Some((b, j));
                    }
                    b'[' | b'{' => {
                        *flow += 1;
                        out.max_flow = out.max_flow.max(*flow);
                    }
                    b']' | b'}' => *flow = flow.saturating_sub(1),
                    b':' if block
                        && *flow == 0
                        && matches!(line.get(j + 1), None | Some(b' ' | b'\t')) =>
                    {
                        out.key = true;
                    }
                    _ => {}
                },
            }
            j += 1;
        }
        match quoted {
            Some((_, at)) => {
                not_quotes.push(at);
                continue 'pass;
            }
            None => return out,
        }
    }
}

/// Checks that `text` nests at most `max` levels (see the module doc).
pub fn check(text: &str, max: usize) -> Result<(), TooDeep> {
    // Open block lines: (indentation, levels the line opened), and their levels' sum.
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut open_sum = 0usize;
    let mut flow = 0usize;
    // The block depth a flow collection spanning lines started at.
    let mut flow_base = 0usize;
    // Inside a block scalar: the column its content must go past (the column where the node
    // holding it starts).
    let mut block_scalar: Option<usize> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.as_bytes();
        let indent = line.iter().take_while(|b| **b == b' ').count();
        let blank = line.iter().all(|b| b.is_ascii_whitespace());
        if let Some(opened_at) = block_scalar {
            if blank || indent > opened_at {
                continue;
            }
            block_scalar = None;
        }
        let depth = if flow == 0 {
            let rest = line.get(indent..).unwrap_or_default();
            if blank || rest.first() == Some(&b'#') {
                continue;
            }
            while open.last().is_some_and(|(i, _)| *i >= indent) {
                if let Some((_, levels)) = open.pop() {
                    open_sum -= levels;
                }
            }
            // Compact nodes opened on this line: `- - - x`, `? - x`.
            let mut i = indent;
            let mut compact = 0usize;
            while let Some(b'-' | b'?') = line.get(i) {
                if !matches!(line.get(i + 1), None | Some(b' ')) {
                    break;
                }
                compact += 1;
                i += 2;
                while line.get(i) == Some(&b' ') {
                    i += 1;
                }
            }
            let s = scan(line, i, &mut flow);
            let levels = 1 + compact + usize::from(compact > 0 && s.key);
            let block_depth = open_sum + levels;
            open.push((indent, levels));
            open_sum += levels;
            flow_base = block_depth;
            let content = String::from_utf8_lossy(line.get(..s.content_end).unwrap_or_default());
            if flow == 0 && opens_block_scalar(content.trim()) {
                // `- key: |`: the content goes past the key's column, not the dash's. The
                // later of the two, so a line is never skipped that the parser reads as nodes.
                block_scalar = Some(i);
            }
            block_depth + s.max_flow
        } else {
            let s = scan(line, 0, &mut flow);
            flow_base + s.max_flow
        };
        if depth > max {
            return Err(TooDeep { line: n + 1, depth });
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
    fn flow_block_and_compact_nesting_all_count() {
        // Five levels, counted as seven: a `- key:` line opens two.
        assert!(depth_ok("steps:\n  - tool: a\n    args: {x: [1, 2]}\n", 7));
        assert!(!depth_ok("steps:\n  - tool: a\n    args: {x: [1, 2]}\n", 6));
        assert_eq!(check(&"[".repeat(100_000), 64).unwrap_err().line, 1);
        let block: String = (0..100).map(|i| format!("{}a:\n", " ".repeat(i))).collect();
        assert_eq!(check(&block, 64).unwrap_err().line, 65);
        assert!(check(&format!("{}x\n", "- ".repeat(70)), 64).is_err());
    }

    #[test]
    fn a_sequence_of_mappings_counts_both_levels() {
        // {a: [{b: [{c: [d]}]}]}: six levels, two opened by each `- key:` line.
        let yaml = "a:\n- b:\n  - c:\n    - d\n";
        assert!(check(yaml, 5).is_err());
        assert!(check(yaml, 8).is_ok(), "{:?}", check(yaml, 8));
    }

    #[test]
    fn fuzz_found_a_block_scalar_of_a_compact_key_ends_at_the_keys_column() {
        // `- name: |` with content at the key's column: the scalar is empty and what follows
        // are keys of the same mapping (the parser nests them; they were skipped).
        let deep = format!("{}1{}", "{root: ".repeat(20), "}".repeat(20));
        let yaml = format!("- name: |\n  retry:\n   root:\n    {deep}\n  tool: x\n");
        assert!(check(&yaml, 8).is_err(), "{yaml}");
    }

    #[test]
    fn a_quote_left_open_hides_nothing() {
        // A plain scalar's continuation line that starts with a quote.
        let deep = format!("{}1{}", "[".repeat(20), "]".repeat(20));
        let yaml = format!("a: text\n  'continued\nb:\n  c: {deep}\n");
        assert!(check(&yaml, 8).is_err(), "{yaml}");
        assert!(check(&format!("a: 'open {deep}\n"), 8).is_err());
    }

    #[test]
    fn quotes_comments_and_block_scalars_do_not_count() {
        assert!(depth_ok("a: '[[[[[[[[[['\nb: \"{{{{{{ \\\" [[[[\"\n", 2));
        assert!(depth_ok("a: 1 # [[[[[[[[[[\n", 2));
        assert!(depth_ok("a: it's [b]\n", 3));
        let script = "a: |\n  [[[[[[[[\n      deep\n          deeper\nb: 1\n";
        assert!(depth_ok(script, 2), "{:?}", check(script, 2));
        // A plain apostrophe does not open a quote that would hide brackets.
        assert!(check(&format!("a: it's {}\n", "[".repeat(80)), 64).is_err());
    }

    #[test]
    fn the_examples_are_shallow() {
        let yaml = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../examples/flows/save-name.yaml"),
        )
        .unwrap();
        assert!(check(&yaml, 10).is_ok(), "{:?}", check(&yaml, 10));
    }
}
