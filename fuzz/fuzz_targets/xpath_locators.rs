//! WebDriver XPath locators: any text, evaluated over a small page the way a find does
//! (`reach::webdriver::xpath::select`: shape checks, xpath-eval over the metered page model).
//! Oracles: no panic, no stack overflow; an answer within twice the evaluation deadline; what
//! it selects are refs of the page.
#![no_main]

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use automation_http::reach::webdriver::source::Page;
use automation_http::reach::webdriver::xpath::{DEADLINE, select};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

fn page() -> Page {
    let mut nodes = vec![json!({"id": "e1", "role": "Window", "label": "Demo", "children": ["e2", "e3", "e4", "e5"]})];
    nodes.push(json!({"id": "e2", "role": "Button", "label": "Save", "children": []}));
    nodes.push(json!({"id": "e3", "role": "CheckBox", "label": "Remember", "toggled": false, "children": []}));
    nodes.push(json!({"id": "e4", "role": "TextInput", "label": "Name", "value": "Zoë\u{2028}x", "children": ["e6"]}));
    nodes.push(json!({"id": "e5", "role": "Slider", "numeric_value": 30.0, "children": []}));
    nodes.push(json!({"id": "e6", "role": "Label", "value": "a \"quoted\" <tag> & 'x'", "children": []}));
    let records: Vec<automation_core::SemanticNode> =
        serde_json::from_value(serde_json::Value::Array(nodes)).expect("records");
    Page::new(&records, "demo")
}

fuzz_target!(|data: &[u8]| {
    let Ok(expr) = std::str::from_utf8(data) else { return };
    let page = page();
    let t = Instant::now();
    let context = if expr.len() % 2 == 0 { None } else { Some("e4") };
    if let Ok(refs) = select(&page, expr, context, Arc::new(AtomicBool::new(false))) {
        for r in refs {
            assert!(["e1", "e2", "e3", "e4", "e5", "e6"].contains(&r.as_str()), "{r}");
        }
    }
    assert!(t.elapsed() < DEADLINE * 2 + Duration::from_millis(200), "{:?} for {expr:?}", t.elapsed());
});
