//! `docs/core.md`'s tables are generated from the catalog and the error codes
//! (`automation_core::docs`); this test fails when the page drifted.
//! `UPDATE_DOCS=1 cargo test -p automation-core --test catalog_docs` rewrites them in place.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashSet;
use std::path::PathBuf;

use automation_core::{Access, CATALOG, ErrorCode, Op};
use serde_json::{Value, json};

fn docs_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/core.md")
}

fn between<'a>(doc: &'a str, begin: &str, end: &str) -> Option<&'a str> {
    let start = doc.find(begin)? + begin.len();
    let stop = start + doc[start..].find(end)?;
    Some(&doc[start..stop])
}

#[test]
fn docs_core_md_matches_catalog_and_codes() {
    automation_testkit::docs::check_page(
        &docs_path(),
        &[
            ("ops", automation_core::docs::op_table()),
            ("errors", automation_core::docs::error_code_table()),
        ],
        "cargo test -p automation-core --test catalog_docs",
    );
}

#[test]
fn catalog_names_are_distinct_and_total_34() {
    let mut seen = HashSet::new();
    for spec in CATALOG {
        assert!(
            seen.insert(spec.name),
            "op name {:?} appears twice in CATALOG",
            spec.name
        );
        assert!(
            !spec.description.trim().is_empty(),
            "{} has no description",
            spec.name
        );
        assert!(
            !spec.description.contains('\n'),
            "{}: the description must be one line",
            spec.name
        );
    }
    assert_eq!(CATALOG.len(), 34, "the generic op set has 34 ops");
    let mutating_without_settle: Vec<_> = CATALOG
        .iter()
        .filter(|s| s.access == Access::Mutating && !s.accepts_settle)
        .map(|s| s.name)
        .collect();
    assert_eq!(
        mutating_without_settle,
        ["advance_clock"],
        "only advance_clock mutates without settling"
    );
}

/// The smallest argument object each op accepts (`{}` when every field is optional).
fn minimal_args(name: &str) -> Value {
    match name {
        "read_node" | "inspect_node" | "focus_node" | "expand" | "collapse" | "right_click"
        | "scroll" | "drag_node" | "fling" | "long_press" => json!({"node": "1"}),
        "assert_node" => json!({"node": "1", "kind": "exists"}),
        "invoke_action" => json!({"node": "1", "action": "click"}),
        "set_value" => json!({"node": "1", "value": "x"}),
        "inject_key" => json!({"key": "a"}),
        "type_text" => json!({"text": "a"}),
        "inject_touch_sequence" => json!({"steps": []}),
        "pinch" => json!({"node": "1", "scale": 2.0}),
        "cancel_pointer" => json!({"pointer_id": 1}),
        "set_density" => json!({"density": "touch"}),
        "wait_for_condition" => json!({"condition": {"kind": "at_version_at_least", "version": 1}}),
        "advance_clock" => json!({"millis": 1}),
        _ => json!({}),
    }
}

#[test]
fn every_catalog_entry_has_an_op() {
    for spec in CATALOG {
        let op = Op::from_parts(spec.name, minimal_args(spec.name)).unwrap_or_else(|e| {
            panic!(
                "catalog entry {:?} has no op that parses its minimal args: {e}",
                spec.name
            )
        });
        assert_eq!(op.name(), spec.name);
        assert_eq!(
            op.spec(),
            spec,
            "{}: Op::spec disagrees with CATALOG",
            spec.name
        );
        // The wire form round-trips: bare name for field-less ops, {name: args} otherwise.
        let wire = serde_json::to_value(&op).unwrap();
        assert_eq!(
            Op::from_json(wire.clone()).unwrap(),
            op,
            "{} does not round-trip via {wire}",
            spec.name
        );
    }
    let e = Op::from_parts("no_such_op", json!({})).unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
}

#[test]
fn error_codes_are_distinct_and_documented() {
    let mut seen = HashSet::new();
    for code in ErrorCode::ALL {
        assert!(seen.insert(code.as_str()), "{} twice", code.as_str());
        assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
        assert!(!code.meaning().is_empty());
    }
}

/// The trait section of the page names every method of `Target` (read from the source, so a
/// new method without docs fails here).
#[test]
fn docs_name_every_target_method() {
    let src =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/target.rs"))
            .unwrap();
    let body = between(&src, "pub trait Target {", "\n}\n").expect("trait Target in target.rs");
    let doc = std::fs::read_to_string(docs_path()).unwrap();
    let mut methods = Vec::new();
    for line in body.lines() {
        if let Some(rest) = line.trim().strip_prefix("fn ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            methods.push(name);
        }
    }
    assert!(
        methods.len() >= 10,
        "parsed too few Target methods: {methods:?}"
    );
    let missing: Vec<_> = methods
        .iter()
        .filter(|m| !doc.contains(&format!("fn {m}(")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/core.md does not show Target methods {missing:?}"
    );
}

/// The live settle limits are written once, in `SettleSpec`; every page that states them
/// states those numbers.
#[test]
fn docs_state_the_live_settle_limits_from_the_code() {
    use automation_core::SettleSpec;
    let (frames, ms) = (SettleSpec::LIVE_MAX_FRAMES, SettleSpec::LIVE_MAX_TIMEOUT_MS);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs");
    for (page, phrase) in [
        (
            "core.md",
            format!("frames ≤ {frames} and the timeout ≤ {ms} ms"),
        ),
        ("mcp.md", format!("{frames} frames / {ms} ms")),
        ("security.md", format!("{frames} frames / {ms} ms")),
    ] {
        let text = std::fs::read_to_string(root.join(page)).unwrap();
        assert!(
            text.contains(&phrase),
            "docs/{page} must state the live settle limits as {phrase:?} (SettleSpec::LIVE_MAX_*)"
        );
    }
}
