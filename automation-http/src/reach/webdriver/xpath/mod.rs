//! XPath 1.0 over the page source, bounded: a locator is untrusted input, and an XPath's cost
//! is not its length — `//*[//*[//*[//*[//*]]]]` is 23 bytes and visits every node to the
//! fifth power.
//!
//! - Before it is parsed, an expression's size, nesting and operator count are checked
//!   ([`MAX_BYTES`], [`MAX_NESTING`], [`MAX_OPERATORS`]): they bound the parser's and the
//!   evaluator's recursion, which runs on a blocking thread with a large stack besides.
//! - xpath-eval evaluates it over our own page model ([`model`]), which charges every step to
//!   a meter: a budget of steps in proportion to the page ([`budget`]), a deadline
//!   ([`DEADLINE`]), and a flag set when the client goes. A hostile expression ends with
//!   `invalid selector` within the deadline; other sessions and `/status` never wait on it.
//!
//! The elements are the page's ([`Page`]): the very ones `GET /source` writes, so what lxml or
//! Appium Inspector select on the source is what a find selects.

pub mod model;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use xpath_eval::{EvaluationContext, Value};

use super::error::{W3c, WdError};
use super::source::Page;
use model::{Arena, Meter, Stop};

/// The longest expression read.
pub const MAX_BYTES: usize = 16 * 1024;
/// The deepest nesting of brackets and parentheses read.
pub const MAX_NESTING: usize = 32;
/// The most operators (`or and = != < > + - * div mod |`) an expression may hold: a chain of
/// them nests as deep as it is long.
pub const MAX_OPERATORS: usize = 256;
/// How long an evaluation may run.
pub const DEADLINE: Duration = Duration::from_millis(500);
/// The stack an evaluation needs at most: the shape checks bound the parser's and the
/// evaluator's recursion to a few hundred frames. The server's runtime gives its blocking
/// threads this much (the CLI's `app::web_runtime`).
pub const STACK: usize = 16 * 1024 * 1024;

/// The steps an evaluation over `nodes` page nodes may take: enough to walk the page a few
/// hundred times (a find reads each node's few attributes once or twice), never enough to
/// compare every node with every other on a large page.
pub fn budget(nodes: usize) -> u64 {
    2_000_000 + 256 * nodes as u64
}

/// The `ref`s of the elements `expr` selects in `page`, in document order; evaluated from the
/// element `context` (a `ref`) when given, else from the document. Runs on the calling
/// thread: use [`select_off_runtime`] from async code.
pub fn select(
    page: &Page,
    expr: &str,
    context: Option<&str>,
    cancel: Arc<AtomicBool>,
) -> Result<Vec<String>, WdError> {
    check_shape(expr)?;
    let parsed = xpath_eval::parse(expr)
        .map_err(|e| invalid(expr, &format!("{} (at byte {})", e.message, e.position)))?;
    let meter = Meter::new(
        budget(page.elements.len()),
        Instant::now() + DEADLINE,
        cancel,
    );
    let arena = Arena::new(page, meter);
    let start = match context {
        None => arena.node(0),
        Some(r) => page
            .elements
            .iter()
            .position(|e| e.attributes.iter().any(|(k, v)| *k == "ref" && v == r))
            .and_then(|i| arena.elements.get(i).copied())
            .map(|id| arena.node(id))
            .ok_or_else(|| {
                WdError::new(
                    W3c::StaleElementReference,
                    format!("element {r} is not in the app's tree any more; find it again"),
                )
            })?,
    };
    let value = xpath_eval::evaluate(&parsed, &EvaluationContext::new(start));
    if let Some(stop) = arena.meter.stopped() {
        return Err(stopped(expr, stop));
    }
    let value = value.map_err(|e| invalid(expr, &e.to_string()))?;
    let Value::NodeSet(selected) = value else {
        return Err(invalid(
            expr,
            "it gives a value, not elements (a count, a string, a boolean)",
        ));
    };
    let mut refs = Vec::new();
    for node in selected {
        if !node.is_element() {
            return Err(invalid(
                expr,
                "it selects attributes or text, not elements; select the element (drop the trailing /@name or /text())",
            ));
        }
        match arena.reference(node) {
            Some(r) => refs.push(r.to_string()),
            None if arena.is_app(node) => {}
            None => return Err(invalid(expr, "it selects an element without a ref")),
        }
    }
    Ok(refs)
}

/// [`select`] on the runtime's blocking pool (off its async workers, on a stack of
/// [`STACK`]); cancelled when the future is dropped (the client went away), and answered
/// within the deadline.
pub async fn select_off_runtime(
    page: Page,
    expr: String,
    context: Option<String>,
) -> Result<Vec<String>, WdError> {
    struct CancelOnDrop(Arc<AtomicBool>);
    impl Drop for CancelOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(Arc::clone(&cancel));
    let work =
        tokio::task::spawn_blocking(move || select(&page, &expr, context.as_deref(), cancel));
    match tokio::time::timeout(DEADLINE * 4, work).await {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => Err(WdError::new(
            W3c::UnknownError,
            "the XPath evaluation ended without an answer",
        )),
        Err(_) => Err(WdError::new(
            W3c::Timeout,
            format!(
                "the XPath took longer than {} ms to evaluate; narrow it",
                (DEADLINE * 4).as_millis()
            ),
        )),
    }
}

fn stopped(expr: &str, stop: Stop) -> WdError {
    let why = match stop {
        Stop::Budget(steps) => format!(
            "evaluating it takes more than the {steps} steps a find may on this page (it compares too many nodes with too many others)"
        ),
        Stop::Time => format!(
            "evaluating it takes longer than the {} ms a find may",
            DEADLINE.as_millis()
        ),
        Stop::Cancelled => "the client went away".into(),
    };
    invalid(
        expr,
        &format!("{why}; narrow it, e.g. start from a role (//Button[…]) rather than //*[//*…]"),
    )
}

/// Refuses an expression too long, too deeply nested or with too many operators before any
/// parser sees it.
fn check_shape(expr: &str) -> Result<(), WdError> {
    let short = || {
        let head: String = expr.chars().take(40).collect();
        if head.len() < expr.len() {
            format!("{head}…")
        } else {
            head
        }
    };
    if expr.len() > MAX_BYTES {
        return Err(invalid(
            &short(),
            &format!(
                "it is {} bytes, over the {MAX_BYTES} a locator may be",
                expr.len()
            ),
        ));
    }
    let (mut depth, mut deepest, mut operators, mut quote) = (0usize, 0usize, 0usize, None::<char>);
    let mut word = String::new();
    for c in expr.chars().chain(std::iter::once(' ')) {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '.' || (c == '-' && !word.is_empty()) {
            word.push(c);
            continue;
        }
        if matches!(word.as_str(), "or" | "and" | "div" | "mod") {
            operators += 1;
        }
        word.clear();
        match c {
            '"' | '\'' => quote = Some(c),
            '[' | '(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ']' | ')' => depth = depth.saturating_sub(1),
            '=' | '<' | '>' | '+' | '-' | '*' | '|' => operators += 1,
            _ => {}
        }
    }
    if deepest > MAX_NESTING {
        return Err(invalid(
            &short(),
            &format!("it nests brackets {deepest} deep, over the {MAX_NESTING} a locator may"),
        ));
    }
    if operators > MAX_OPERATORS {
        return Err(invalid(
            &short(),
            &format!("it holds {operators} operators, over the {MAX_OPERATORS} a locator may"),
        ));
    }
    Ok(())
}

fn invalid(expr: &str, why: &str) -> WdError {
    WdError::new(
        W3c::InvalidSelector,
        format!(
            "the XPath {expr:?} cannot be used: {why}; XPath 1.0 over GET /source, e.g. //Button[@name='OK']"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reach::webdriver::source::literal;
    use automation_core::SemanticNode;
    use serde_json::{Value, json};
    use std::time::Instant;

    fn no_cancel() -> Arc<AtomicBool> {
        Arc::new(AtomicBool::new(false))
    }

    /// Records as a snapshot's JSON writes them.
    fn records(nodes: Value) -> Vec<SemanticNode> {
        serde_json::from_value(nodes).unwrap()
    }

    fn snapshot() -> Vec<SemanticNode> {
        records(json!([
            {"id": "e1", "role": "Window", "label": "Demo", "children": ["e2", "e3", "e4"], "disabled": false, "focused": false},
            {"id": "e2", "role": "Button", "label": "Say \"hi\" & <go>", "children": [], "disabled": false, "focused": true,
             "bounds": {"x": 8.0, "y": 32.4, "width": 42.6, "height": 20.0}},
            {"id": "e3", "role": "CheckBox", "label": "Remember", "toggled": false, "children": [], "disabled": true, "focused": false},
            {"id": "e4", "role": "Slider", "numeric_value": 30.0, "author_id": "zoom", "children": [], "disabled": false, "focused": false}
        ]))
    }

    #[test]
    fn the_source_is_xml_that_xpath_reads() {
        let page = Page::new(&snapshot(), "demo");
        let xml = page.xml();
        assert!(xml.contains(r#"<Button ref="e2" name="Say &quot;hi&quot; &amp; &lt;go&gt;" enabled="true" visible="true" focused="true" x="8" y="32" width="43" height="20"/>"#), "{xml}");
        let select = |e: &str, from: Option<&str>| select(&page, e, from, no_cancel());
        assert_eq!(select("//CheckBox", None).unwrap(), ["e3"]);
        assert_eq!(select("//*[@enabled='false']", None).unwrap(), ["e3"]);
        assert_eq!(
            select("//*[@accessibility-id='zoom']", None).unwrap(),
            ["e4"]
        );
        assert_eq!(select("//Slider[@value='30']", None).unwrap(), ["e4"]);
        assert_eq!(select("//Window/*", None).unwrap(), ["e2", "e3", "e4"]);
        assert_eq!(select("./*", Some("e1")).unwrap(), ["e2", "e3", "e4"]);
        assert_eq!(select("(//Window/*)[2]", None).unwrap(), ["e3"]);
        assert_eq!(select("//App", None).unwrap(), Vec::<String>::new());
        let name = literal("Say \"hi\" & <go>");
        assert_eq!(select(&format!("//*[@name={name}]"), None).unwrap(), ["e2"]);
        assert_eq!(literal(r#"a"b'c"#), r#"concat("a", '"', "b'c")"#);
        assert_eq!(select("//Nothing", None).unwrap(), Vec::<String>::new());
        // What lxml-minded clients write: case-folded role, contains, ancestors.
        assert_eq!(
            select("//*[translate(name(), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')='checkbox']", None).unwrap(),
            ["e3"]
        );
        assert_eq!(select("//*[contains(@name, 'Rem')]", None).unwrap(), ["e3"]);
        assert_eq!(select("//Slider/ancestor::Window", None).unwrap(), ["e1"]);
    }

    #[test]
    fn an_xpath_that_selects_no_elements_is_an_invalid_selector() {
        let page = Page::new(&snapshot(), "demo");
        for bad in ["//Button[", "count(//Button)", "//Button/@name", ""] {
            let e = select(&page, bad, None, no_cancel()).unwrap_err();
            assert_eq!(e.kind, W3c::InvalidSelector, "{bad}: {}", e.message);
        }
        assert_eq!(
            select(&page, "./*", Some("e99"), no_cancel())
                .unwrap_err()
                .kind,
            W3c::StaleElementReference
        );
    }

    /// A page of `n` nodes: a window holding rows of buttons.
    fn wide(n: usize) -> Page {
        let mut nodes = vec![
            json!({"id": "e1", "role": "Window", "children": (0..n).map(|i| format!("e{}", i + 2)).collect::<Vec<_>>()}),
        ];
        for i in 0..n {
            nodes.push(json!({"id": format!("e{}", i + 2), "role": "Button", "label": format!("button {i}"), "children": []}));
        }
        Page::new(&records(Value::Array(nodes)), "wide")
    }

    #[test]
    fn hostile_expressions_end_quickly_with_an_invalid_selector() {
        let page = wide(2_000);
        let deep = format!("//*{}{}", "[*".repeat(1000), "]".repeat(1000));
        // Nested paths that match nothing: no short cut, every level walks the page again.
        let nested = "//*[//*[//*[//*[@nope]]]]";
        let counted = "//*[count(//*) = count(//*[count(//*[@nope]) > 0])]";
        let long = format!("//*[{}]", vec!["@a"; 300].join(" or "));
        let minus = format!("//*[{}1 = 1]", "-".repeat(5_000));
        for hostile in [
            deep.as_str(),
            nested,
            counted,
            &"(".repeat(10_000),
            &long,
            &minus,
        ] {
            let t = Instant::now();
            let Err(e) = select(&page, hostile, None, no_cancel()) else {
                panic!("{} was answered", &hostile[..40.min(hostile.len())]);
            };
            assert_eq!(e.kind, W3c::InvalidSelector, "{}", e.message);
            eprintln!(
                "{}: {:?}: {}",
                &hostile[..30.min(hostile.len())],
                t.elapsed(),
                e.message
            );
            // Ended by the step meter, or by the deadline just after it passes (on a loaded
            // machine the nested one meets the deadline first).
            assert!(
                t.elapsed() < DEADLINE + Duration::from_millis(250),
                "{:?} for {}",
                t.elapsed(),
                &hostile[..20.min(hostile.len())]
            );
        }
        // An ordinary find over a big page stays far inside the budget.
        let page = wide(20_000);
        for (expr, want) in [
            ("//Button[@name='button 19999']", "e20001"),
            ("//Window/Button[last()]", "e20001"),
            ("//*[contains(@name, '19998')]", "e20000"),
            ("//Button[@name='button 7']/following-sibling::*[1]", "e10"),
        ] {
            let t = Instant::now();
            assert_eq!(
                select(&page, expr, None, no_cancel()).unwrap(),
                [want],
                "{expr}"
            );
            eprintln!("{expr}: {:?}", t.elapsed());
        }
    }
}
