//! A report as a person, a script or a code-scanning service reads it: text for a terminal,
//! JSON (the report as it is), and SARIF 2.1.0.

use serde_json::{Value, json};

use crate::report::{Item, Report};
use crate::rules::{RULES, Rule, rule};

/// The rules as a Markdown table (`docs/audit.md` holds it, generated from [`RULES`]).
#[must_use]
pub fn rules_table() -> String {
    let mut out = String::from(
        "| rule | checks | impact | WCAG 2.2 (EN 301 549: 11.…) | needs |\n|---|---|---|---|---|\n",
    );
    for r in RULES {
        out.push_str(&format!(
            "| [`{}`](#{}) | {} | {} | {} | {} |\n",
            r.id,
            r.id,
            r.title,
            serde_json::to_value(r.impact)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            r.wcag.join(", "),
            match r.needs {
                crate::rules::Needs::Tree => "the tree",
                crate::rules::Needs::Pixels => "the tree and a screenshot",
                crate::rules::Needs::Keyboard => "the Tab walk",
            }
        ));
    }
    out
}

/// The report for a terminal: findings first, then what needs review, then the counts.
#[must_use]
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    let line = |out: &mut String, tag: &str, item: &Item| {
        let name = item
            .name
            .as_deref()
            .map_or_else(String::new, |n| format!(" {n:?}"));
        let at = item
            .selector
            .as_deref()
            .map_or_else(|| format!("e{}", item.node.0), str::to_string);
        out.push_str(&format!(
            "{tag} {} {}{name} at {at}\n    {}\n",
            item.rule, item.role, item.message
        ));
        if let Some(rule) = item.rule() {
            out.push_str(&format!("    fix: {}\n", rule.fix));
        }
    };
    for f in &report.findings {
        line(&mut out, "FAIL", f);
    }
    for r in &report.needs_review {
        line(&mut out, "REVIEW", r);
    }
    if let Some(walk) = &report.keyboard {
        let order: Vec<String> = walk
            .order
            .iter()
            .map(|s| match &s.name {
                Some(n) if !n.is_empty() => format!("{} {n:?}", s.role),
                _ => s.role.clone(),
            })
            .collect();
        out.push_str(&format!(
            "focus order ({} stops{}): {}\n",
            walk.order.len(),
            if walk.cycled {
                ", a whole round"
            } else {
                ", not a whole round"
            },
            order.join(" → ")
        ));
    }
    for run in &report.rules {
        out.push_str(&format!(
            "  {:<18} {:>4} checked  {:>3} failing  {:>3} to review\n",
            run.rule, run.checked, run.findings, run.needs_review
        ));
    }
    out.push_str(&format!(
        "{}: {} finding(s), {} to review, {} accepted by the baseline ({} nodes, {} ms)\n",
        if report.passes() { "passed" } else { "FAILED" },
        report.findings.len(),
        report.needs_review.len(),
        report.baselined.len(),
        report.nodes,
        report.ms
    ));
    out
}

fn sarif_rule(rule: &Rule) -> Value {
    let mut tags: Vec<String> = vec!["accessibility".into()];
    tags.extend(rule.wcag.iter().map(|c| format!("WCAG {c}")));
    tags.extend(rule.wcag.iter().map(|c| format!("EN 301 549 11.{c}")));
    json!({
        "id": rule.id,
        "name": rule.id,
        "shortDescription": { "text": rule.title },
        "fullDescription": { "text": format!("{} When it fails, {}.", rule.title, rule.meets) },
        "help": {
            "text": format!("{} ({}).", rule.fix, rule.help()),
            "markdown": format!("{}. See [{}]({}).", rule.fix, rule.id, rule.help()),
        },
        "defaultConfiguration": { "level": level(rule) },
        "properties": { "tags": tags, "impact": rule.impact },
    })
}

fn level(rule: &Rule) -> &'static str {
    match rule.impact {
        crate::rules::Impact::Critical | crate::rules::Impact::Serious => "error",
        _ => "warning",
    }
}

fn sarif_result(item: &Item, review: bool) -> Value {
    let index = RULES.iter().position(|r| r.id == item.rule);
    let rule = rule(&item.rule);
    let name = item.name.clone().unwrap_or_default();
    let fqn = item
        .selector
        .clone()
        .unwrap_or_else(|| format!("e{}", item.node.0));
    let mut text = item.message.clone();
    if let Some(rule) = rule {
        text = format!("{text}. {}", rule.fix);
    }
    json!({
        "ruleId": item.rule,
        "ruleIndex": index,
        "kind": if review { "review" } else { "fail" },
        "level": if review { "note" } else { rule.map_or("warning", level) },
        "message": { "text": text },
        "locations": [{
            "logicalLocations": [{
                "name": if name.is_empty() { item.role.clone() } else { name },
                "fullyQualifiedName": fqn,
                "kind": "element",
            }],
        }],
        "properties": { "role": item.role, "node": format!("e{}", item.node.0), "bounds": item.bounds },
    })
}

/// The report as SARIF 2.1.0: one run, every rule described, a finding as a `fail` result
/// and a needs-review item as a `review` note, located by the node's selector.
#[must_use]
pub fn sarif(report: &Report) -> Value {
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| sarif_result(f, false))
        .chain(report.needs_review.iter().map(|r| sarif_result(r, true)))
        .collect();
    json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "automation audit",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": RULES.iter().map(sarif_rule).collect::<Vec<_>>(),
            }},
            "results": results,
            "properties": { "app": report.app, "nodes": report.nodes, "ms": report.ms },
        }],
    })
}
