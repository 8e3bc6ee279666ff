//! The token bill of the tool list, counted in o200k_base tokens (the GPT-4o encoding, via
//! `tiktoken-rs`, which ships it) on exactly the `tools/list` line the real binary sends.
//! The default list must stay within [`DEFAULT_BUDGET`]; every op stays reachable through
//! `--caps`. A tool added later (an op, or a server-only tool) is counted here as it is.
//!
//! `cargo test -p automation-cli --test cli tools_budget:: -- --nocapture` prints the figures.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support::mcp as common;

use automation_core::{CATALOG, Cap};
use automation_session::tools::NOT_OPS;
use common::Server;
use serde_json::{Value, json};

/// Default `tools/list`, in o200k_base tokens (issue 10: ≤ 6 000; it was ≈ 15 300).
const DEFAULT_BUDGET: usize = 6_000;

/// Everything listed (`--caps all`): well under the old default's bill.
const ALL_BUDGET: usize = 8_000;

/// `automation tools` (pretty-printed JSON of every op, for people and scripts).
const TOOLS_VERB_BUDGET: usize = 12_000;

fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(text)
        .len()
}

/// Starts the real binary with `args`, shakes hands, and returns the raw `tools/list` line.
fn tools_list_line(args: &[&str]) -> String {
    Server::start_with(args).request_line(2, "tools/list", json!({}))
}

fn names(line: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(line).unwrap();
    v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn default_tools_list_fits_the_budget() {
    let line = tools_list_line(&["--headless"]);
    let n = tokens(&line);
    let listed = names(&line);
    eprintln!(
        "tools/list (default, {} tools): {} bytes, {n} o200k tokens (budget {DEFAULT_BUDGET})",
        listed.len(),
        line.len()
    );
    assert!(
        n <= DEFAULT_BUDGET,
        "the default tools/list is {n} tokens, over the {DEFAULT_BUDGET} budget: shorten \
         descriptions, or move a tool out of `Cap::Core` in automation-core/src/catalog.rs"
    );
    // What is listed is exactly the catalog's core set.
    let core: Vec<&str> = CATALOG
        .iter()
        .filter(|s| s.cap == Cap::Core)
        .map(|s| s.name)
        .collect();
    for name in &core {
        assert!(listed.iter().any(|l| l == name), "{name} missing");
    }
}

#[test]
fn every_op_is_reachable_through_caps() {
    let line = tools_list_line(&["--headless", "--caps", "all"]);
    let n = tokens(&line);
    let listed = names(&line);
    eprintln!(
        "tools/list (--caps all, {} tools): {} bytes, {n} o200k tokens (budget {ALL_BUDGET})",
        listed.len(),
        line.len()
    );
    assert!(n <= ALL_BUDGET, "{n} tokens with --caps all");
    // Every op of the catalog and the tools that are no op.
    assert_eq!(listed.len(), CATALOG.len() + NOT_OPS.len());
    // `--caps` after `serve` means what it means before it (issue 39: it was refused).
    assert_eq!(
        names(&tools_list_line(&["serve", "--headless", "--caps", "all"])),
        listed
    );
    assert!(listed.iter().any(|n| n == "assert_screenshot"));
    assert!(listed.iter().any(|n| n == "execute_sequence"));
    assert!(listed.iter().any(|n| n == "export_test"));
    // Each cap alone adds exactly its ops to the core set.
    for cap in Cap::ALL.iter().filter(|c| **c != Cap::Core) {
        let listed = names(&tools_list_line(&["--headless", "--caps", cap.name()]));
        let want = CATALOG
            .iter()
            .filter(|s| s.cap == Cap::Core || s.cap == *cap)
            .count()
            + NOT_OPS.len();
        assert_eq!(listed.len(), want, "--caps {}", cap.name());
    }
}

#[test]
fn the_tools_verb_is_measured_too() {
    let out = crate::support::automation().arg("tools").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let n = tokens(&text);
    eprintln!(
        "`automation tools`: {} bytes, {n} o200k tokens ({} ops)",
        text.len(),
        CATALOG.len()
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(CATALOG.len()));
    assert!(
        n <= TOOLS_VERB_BUDGET,
        "`automation tools` is {n} tokens (budget {TOOLS_VERB_BUDGET})"
    );
}
