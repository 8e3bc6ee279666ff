//! The text form of `snapshot_tree`: one indented line a node, the way Playwright's aria
//! snapshot reads, at about a tenth of the JSON's tokens.
//!
//! ```text
//! - Window "Automation demo" [e1]
//!   - Button "Save" [e3]
//!   - TextInput "Name" [e5]: "Grace" [focused]
//!   - CheckBox "Remember me" [e6] [checked]
//!   - Slider "Volume" [e9]: 50
//!   - Label "Saved" [e7] [live]
//! ```
//!
//! A check box that is not checked shows no state (as in Playwright's aria snapshot); empty
//! values are left out. Unnamed generic containers are folded (their children move up a level); text runs are
//! left out (`read_node` gives a node's text). Long names and values are cut at
//! [`OUTLINE_TEXT_CHARS`]; `read_node` gives them whole. Hidden nodes — a closed page, a
//! mode's buttons, a menu not open — are what a person does not see: each run of hidden
//! siblings, with all they hold, is one line that counts them (`- (57 hidden nodes)`), unless
//! the caller asks for them (`include_hidden`).

use std::fmt::Write as _;

use accesskit::{Role, Toggled};
use accesskit_consumer::NodeRef;

use crate::refs::Refs;
use crate::snapshot::{accessible_name, bounds_of, role_name};

/// Characters of a name or value a line shows before cutting it.
pub const OUTLINE_TEXT_CHARS: usize = 120;

/// What the outline walk produced.
pub(super) struct Outline {
    /// The lines, joined by `\n`.
    pub text: String,
    /// Nodes shown.
    pub shown: usize,
    /// Nodes left out by the node or byte budget.
    pub omitted: usize,
    /// References of shown nodes whose children the depth limit cut.
    pub frontier: Vec<String>,
    /// Hidden nodes counted on a folded line instead of shown.
    pub hidden: usize,
}

/// The nodes under `node`, itself included (text runs left out).
fn count_subtree(node: NodeRef) -> usize {
    let mut count = 0;
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.role() == Role::TextRun {
            continue;
        }
        count += 1;
        stack.extend(n.children());
    }
    count
}

fn hidden_line(out: &mut String, indent: usize, count: usize) {
    for _ in 0..indent {
        out.push_str("  ");
    }
    let _ = writeln!(
        out,
        "- ({count} hidden node{})",
        if count == 1 { "" } else { "s" }
    );
}

/// Whether a node adds nothing a reader needs: a generic container with no name or value.
fn folded(node: &NodeRef) -> bool {
    matches!(node.role(), Role::GenericContainer | Role::Unknown)
        && accessible_name(node).is_none()
        && node.value().is_none()
        && !node.is_focused()
}

/// [`accessible_name`] from a label already computed (`node.label()`).
fn name_from_label(node: &NodeRef, label: Option<&str>) -> Option<String> {
    let name = match label {
        Some(l) => Some(l.to_string()),
        None if node.label_comes_from_value() => node.value(),
        None => None,
    };
    name.filter(|n| !n.trim().is_empty())
}

/// `"text"` JSON-quoted, cut to [`OUTLINE_TEXT_CHARS`].
fn quoted(text: &str) -> String {
    // Byte length bounds char count: most names need no cut (and no copy).
    if text.len() <= OUTLINE_TEXT_CHARS {
        return serde_json::to_string(text).unwrap_or_default();
    }
    let cut: String = text.chars().take(OUTLINE_TEXT_CHARS).collect();
    let shown = if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    };
    serde_json::to_string(&shown).unwrap_or_default()
}

fn line(out: &mut String, node: &NodeRef, indent: usize, refs: &Refs, bounds: bool) {
    for _ in 0..indent {
        out.push_str("  ");
    }
    // The label is computed once: the name and the reference both derive from it.
    let label = node.label();
    let name = name_from_label(node, label.as_deref());
    let _ = write!(out, "- {}", role_name(node.role()));
    if let Some(n) = &name {
        let _ = write!(out, " {}", quoted(n));
    }
    let _ = write!(
        out,
        " [{}]",
        refs.mint_labelled(node.locate().0, node.role(), label)
    );
    let value = node
        .value()
        .or_else(|| node.numeric_value().map(|v| v.to_string()));
    if let Some(v) = value.filter(|v| !v.is_empty() && name.as_deref() != Some(v.as_str())) {
        // Numbers as they are; text quoted (so spaces and colons cannot mislead).
        if v.parse::<f64>().is_ok_and(f64::is_finite) {
            let _ = write!(out, ": {v}");
        } else {
            let _ = write!(out, ": {}", quoted(&v));
        }
    }
    let mut states: Vec<&str> = Vec::with_capacity(4);
    match node.toggled() {
        Some(Toggled::True) => states.push("checked"),
        // Unchecked is the absence of `checked` (as in Playwright's aria snapshot).
        Some(Toggled::False) => {}
        Some(Toggled::Mixed) => states.push("mixed"),
        None => {}
    }
    match node.data().is_expanded() {
        Some(true) => states.push("expanded"),
        Some(false) => states.push("collapsed"),
        None => {}
    }
    if node.is_selected() == Some(true) {
        states.push("selected");
    }
    if node.is_focused() {
        states.push("focused");
    }
    if node.is_disabled() {
        states.push("disabled");
    }
    // Its own flag: the consumer's `is_hidden` is inherited, and would mark a whole subtree.
    if node.data().is_hidden() {
        states.push("hidden");
    }
    if node
        .data()
        .live()
        .is_some_and(|l| l != accesskit::Live::Off)
    {
        states.push("live");
    }
    if !states.is_empty() {
        let _ = write!(out, " [{}]", states.join(", "));
    }
    if bounds && let Some(b) = bounds_of(node) {
        let _ = write!(out, " @{},{} {}x{}", b.x, b.y, b.width, b.height);
    }
    out.push('\n');
}

/// What the outline walk shows.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shape {
    /// Levels below the start to show.
    pub max_depth: Option<u32>,
    /// Lines at most.
    pub budget: usize,
    /// Bytes at most.
    pub max_bytes: usize,
    /// Each line's bounds.
    pub bounds: bool,
    /// Hidden nodes as lines of their own, not counted on one.
    pub include_hidden: bool,
}

/// Walks depth first from `start` (document order), within `shape`'s budgets.
pub(super) fn outline(start: NodeRef, refs: &Refs, shape: Shape) -> Outline {
    let Shape {
        max_depth,
        budget,
        max_bytes,
        bounds,
        include_hidden,
    } = shape;
    let mut o = Outline {
        text: String::new(),
        shown: 0,
        omitted: 0,
        frontier: Vec::new(),
        hidden: 0,
    };
    // (node, shown levels below start, indent)
    let mut stack = vec![(start, 0u32, 0usize)];
    // Hidden siblings waiting to be counted on one line: (indent, count).
    let mut run: Option<(usize, usize)> = None;
    while let Some((node, depth, indent)) = stack.pop() {
        if node.role() == Role::TextRun {
            continue;
        }
        if !include_hidden && depth > 0 && node.data().is_hidden() {
            let n = count_subtree(node);
            o.hidden += n;
            if o.shown >= budget || o.text.len() >= max_bytes {
                // Past the budget: nothing more is written, hidden or not.
                o.omitted += n;
                continue;
            }
            run = match run {
                Some((i, c)) if i == indent => Some((i, c + n)),
                Some((i, c)) => {
                    hidden_line(&mut o.text, i, c);
                    Some((indent, n))
                }
                None => Some((indent, n)),
            };
            continue;
        }
        if let Some((i, c)) = run.take() {
            hidden_line(&mut o.text, i, c);
        }
        let fold = depth > 0 && folded(&node);
        let full = o.shown >= budget || o.text.len() >= max_bytes;
        if !fold {
            if full {
                o.omitted += 1;
            } else {
                line(&mut o.text, &node, indent, refs, bounds);
                o.shown += 1;
            }
        }
        // Depth counts shown levels only: a folded container's children stand in its place,
        // so a cut happens at a shown node, and is announced.
        if !fold && max_depth.is_some_and(|d| depth >= d) {
            let has_children = || node.children().any(|c| c.role() != Role::TextRun);
            if !full && has_children() {
                o.frontier.push(refs.mint(&node).to_string());
            }
            continue;
        }
        let (child_depth, child_indent) = if fold {
            (depth, indent)
        } else {
            (depth + 1, indent + 1)
        };
        let mark = stack.len();
        stack.extend(node.children().map(|c| (c, child_depth, child_indent)));
        stack[mark..].reverse();
    }
    if let Some((i, c)) = run.take() {
        hidden_line(&mut o.text, i, c);
    }
    if o.text.ends_with('\n') {
        o.text.pop();
    }
    o
}
