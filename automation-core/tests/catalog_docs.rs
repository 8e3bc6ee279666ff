//! `docs/core.md` is generated from the catalog and the error codes; this test fails when the
//! page drifted. `UPDATE_DOCS=1 cargo test -p automation-core --test catalog_docs` rewrites the
//! generated sections (between the marker comments) in place.

use std::collections::HashSet;
use std::path::PathBuf;

use automation_core::{Access, CATALOG, ErrorCode, Op};
use serde_json::{Value, json};

const OPS_BEGIN: &str = "<!-- ops:begin -->";
const OPS_END: &str = "<!-- ops:end -->";
const CODES_BEGIN: &str = "<!-- codes:begin -->";
const CODES_END: &str = "<!-- codes:end -->";

fn docs_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/core.md")
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The op table, one row per catalog entry, in catalog order.
fn ops_table() -> String {
    let mut out = String::from(
        "| op | access | settle | idempotent | description |\n|---|---|---|---|---|\n",
    );
    for spec in CATALOG {
        let access = match spec.access {
            Access::ReadOnly => "read-only",
            Access::Mutating => "mutating",
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            spec.name,
            access,
            yes_no(spec.accepts_settle),
            yes_no(spec.idempotent),
            cell(spec.description)
        ));
    }
    out
}

/// The error-code table, one row per code, in declaration order.
fn codes_table() -> String {
    let mut out = String::from("| code | meaning | caller should |\n|---|---|---|\n");
    for code in ErrorCode::ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            code.as_str(),
            cell(code.meaning()),
            if code.is_retryable() {
                "retry"
            } else {
                "fix the request"
            }
        ));
    }
    out
}

/// Replaces what lies between `begin` and `end` with `body`; `None` when a marker is missing.
fn splice(doc: &str, begin: &str, end: &str, body: &str) -> Option<String> {
    let start = doc.find(begin)? + begin.len();
    let stop = start + doc[start..].find(end)?;
    Some(format!("{}\n{}{}", &doc[..start], body, &doc[stop..]))
}

fn between<'a>(doc: &'a str, begin: &str, end: &str) -> Option<&'a str> {
    let start = doc.find(begin)? + begin.len();
    let stop = start + doc[start..].find(end)?;
    Some(&doc[start..stop])
}

#[test]
fn docs_core_md_matches_catalog_and_codes() {
    let path = docs_path();
    let doc = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let ops = ops_table();
    let codes = codes_table();
    let regenerated = splice(&doc, OPS_BEGIN, OPS_END, &ops)
        .and_then(|d| splice(&d, CODES_BEGIN, CODES_END, &codes))
        .unwrap_or_else(|| {
            panic!(
                "{} must contain the markers {OPS_BEGIN} … {OPS_END} and {CODES_BEGIN} … {CODES_END}",
                path.display()
            )
        });
    if regenerated == doc {
        return;
    }
    if std::env::var("UPDATE_DOCS").as_deref() == Ok("1") {
        std::fs::write(&path, &regenerated)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        eprintln!("rewrote the generated tables of {}", path.display());
        return;
    }
    let mut what = Vec::new();
    if between(&doc, OPS_BEGIN, OPS_END).map(str::trim) != Some(ops.trim()) {
        what.push("the op table (from CATALOG)");
    }
    if between(&doc, CODES_BEGIN, CODES_END).map(str::trim) != Some(codes.trim()) {
        what.push("the error-code table (from ErrorCode::ALL)");
    }
    panic!(
        "{} is out of date: {} differ(s) from the code.\n\
         Regenerate with: UPDATE_DOCS=1 cargo test -p automation-core --test catalog_docs\n\
         --- expected op table ---\n{ops}--- expected code table ---\n{codes}",
        path.display(),
        what.join(" and ")
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
