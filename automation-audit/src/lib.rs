#![doc = include_str!("../README.md")]

pub mod checks;
pub mod contrast;
pub mod driver;
pub mod error;
pub mod format;
pub mod keyboard;
pub mod report;
pub mod rules;
pub mod tree;

use std::time::Instant;

use automation_core::SemanticNode;

pub use driver::Driver;
pub use error::AuditError;
pub use report::{Baseline, Item, Report, RuleRun};
pub use rules::{RULES, Rule};

use crate::checks::Tally;
use crate::rules::rule;
use crate::tree::Tree;

/// What to audit and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The rules to run, by id (all when `None`).
    pub rules: Option<Vec<String>>,
    /// Walk the app with the real Tab key (the keyboard rules).
    pub keyboard: bool,
    /// The node budget of the tree read.
    pub max_nodes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            rules: None,
            keyboard: true,
            max_nodes: 20_000,
        }
    }
}

impl Options {
    /// Whether `rule` runs.
    fn wants(&self, rule: &Rule) -> bool {
        (self.keyboard || !rule.keyboard())
            && self
                .rules
                .as_ref()
                .is_none_or(|ids| ids.iter().any(|id| id == rule.id))
    }
}

/// Audits the app `driver` reaches: reads its tree, runs the rules, walks it with Tab.
///
/// # Errors
/// An unknown rule id, or an op the audit needs that the app refused.
pub fn audit(driver: &mut dyn Driver, options: &Options) -> Result<Report, AuditError> {
    let start = Instant::now();
    for id in options.rules.iter().flatten() {
        if rule(id).is_none() {
            let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
            return Err(AuditError::UnknownRule(id.clone(), ids.join(", ")));
        }
    }
    let tree = Tree::new(driver::snapshot(driver, options.max_nodes)?);
    let mut tally = Tally::default();
    checks::run(&tree, |r| options.wants(r), &mut tally);
    // Pixels before the walk: a focus ring would change them.
    if options.wants(&rules::CONTRAST) {
        contrast::run(driver, &tree, &mut tally)?;
    }
    let walk = if RULES.iter().any(|r| r.keyboard() && options.wants(r)) {
        Some(keyboard::walk(
            driver,
            &tree,
            |r| options.wants(r),
            &mut tally,
        )?)
    } else {
        None
    };
    let mut item = |(rule, node, message): (&Rule, SemanticNode, String)| Item {
        rule: rule.id.to_string(),
        selector: driver::selector(driver, node.id).ok(),
        node: node.id,
        // A label's words are its value: they name it in a report.
        name: node.label.clone().or_else(|| {
            matches!(node.role.as_str(), "Label" | "Paragraph" | "Heading")
                .then(|| node.value.clone())
                .flatten()
        }),
        role: node.role,
        bounds: node.bounds,
        message,
    };
    let findings: Vec<Item> = tally.findings.into_iter().map(&mut item).collect();
    let needs_review: Vec<Item> = tally.review.into_iter().map(&mut item).collect();
    let rules = RULES
        .iter()
        .filter_map(|r| {
            let checked = tally
                .checked
                .iter()
                .filter(|(c, _)| c.id == r.id)
                .map(|(_, n)| n)
                .sum();
            tally
                .checked
                .iter()
                .any(|(c, _)| c.id == r.id)
                .then(|| RuleRun {
                    rule: r.id.to_string(),
                    checked,
                    findings: findings.iter().filter(|f| f.rule == r.id).count(),
                    needs_review: needs_review.iter().filter(|f| f.rule == r.id).count(),
                })
        })
        .collect();
    let app = tree
        .nodes
        .iter()
        .find(|n| n.role == "Window" && tree::named(n.label.as_deref()))
        .and_then(|n| n.label.clone())
        .unwrap_or_default();
    Ok(Report {
        app,
        findings,
        needs_review,
        baselined: Vec::new(),
        rules,
        keyboard: walk,
        nodes: tree.nodes.len(),
        ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}
