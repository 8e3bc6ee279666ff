//! What an audit answers: findings (a rule is sure it fails), items that need a person's
//! review (a rule could not be sure), and for each rule run how many nodes it checked.

use automation_core::Bounds;
use automation_core::refs::RefKey;
use serde::{Deserialize, Serialize};

use crate::rules::{Rule, rule};

/// One node a rule judged: failing (a finding) or unsure (needs review).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// The rule's id.
    pub rule: String,
    /// The node's reference in this session.
    pub node: RefKey,
    /// Its role.
    pub role: String,
    /// Its name (absent when it has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A selector that picks it in the next run of the app (the baseline matches on it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// Where it is, relative to the app's main window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    /// What a person meets there, and what was measured.
    pub message: String,
}

impl Item {
    /// The rule this item is of.
    #[must_use]
    pub fn rule(&self) -> Option<&'static Rule> {
        rule(&self.rule)
    }
}

/// How one rule went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleRun {
    /// The rule's id.
    pub rule: String,
    /// How many nodes it applied to.
    pub checked: usize,
    /// How many of them fail.
    pub findings: usize,
    /// How many it could not judge.
    pub needs_review: usize,
}

/// One stop of the Tab walk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stop {
    /// The focused node.
    pub node: RefKey,
    /// Its role.
    pub role: String,
    /// Its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The key that brought the focus here (`tab`, `ctrl+tab`, `shift+tab`; `start` where
    /// the focus was before the walk).
    pub key: String,
}

/// The Tab walk: the focus order a keyboard user meets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Walk {
    /// The stops in order, the first once (the walk ends when it comes back to it).
    pub order: Vec<Stop>,
    /// Whether the focus came back to where it started (a whole cycle).
    pub cycled: bool,
    /// Key presses sent.
    pub presses: usize,
    /// Controls that should be stops and never were (each is also a finding).
    pub not_reached: Vec<RefKey>,
}

/// The whole audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// What was audited (the app's main window's name).
    pub app: String,
    /// Failures a rule is sure of.
    pub findings: Vec<Item>,
    /// What a rule could not judge: a person should look.
    pub needs_review: Vec<Item>,
    /// Findings the baseline accepts (kept apart, not counted as failures).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub baselined: Vec<Item>,
    /// Each rule run, in the rules' order.
    pub rules: Vec<RuleRun>,
    /// The Tab walk, when the keyboard rules ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyboard: Option<Walk>,
    /// How many nodes the tree had.
    pub nodes: usize,
    /// How long the audit took.
    pub ms: u64,
}

impl Report {
    /// Whether it passes: no finding outside the baseline.
    #[must_use]
    pub fn passes(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Accepted findings, as a file holds them: each by its rule and the node's selector.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// The accepted findings.
    pub accepted: Vec<Accepted>,
}

/// One accepted finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accepted {
    /// The rule's id.
    pub rule: String,
    /// The node's selector, as a report gave it.
    pub selector: String,
}

impl Baseline {
    /// The baseline that accepts every finding of `report` that has a selector.
    #[must_use]
    pub fn of(report: &Report) -> Self {
        Self {
            accepted: report
                .findings
                .iter()
                .chain(&report.baselined)
                .filter_map(|f| {
                    Some(Accepted {
                        rule: f.rule.clone(),
                        selector: f.selector.clone()?,
                    })
                })
                .collect(),
        }
    }

    /// Whether it accepts this finding.
    #[must_use]
    pub fn accepts(&self, item: &Item) -> bool {
        item.selector.as_ref().is_some_and(|s| {
            self.accepted
                .iter()
                .any(|a| a.rule == item.rule && &a.selector == s)
        })
    }

    /// Moves the findings it accepts from `findings` to `baselined`.
    pub fn apply(&self, report: &mut Report) {
        let (kept, accepted): (Vec<Item>, Vec<Item>) = std::mem::take(&mut report.findings)
            .into_iter()
            .partition(|f| !self.accepts(f));
        report.findings = kept;
        report.baselined.extend(accepted);
        for run in &mut report.rules {
            run.findings = report
                .findings
                .iter()
                .filter(|f| f.rule == run.rule)
                .count();
        }
    }
}
