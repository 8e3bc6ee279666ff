//! The rules that read the tree alone. Each is sure before it reports a finding: where a
//! toolkit may hold what the rule looks for somewhere the tree does not say, the node goes to
//! needs-review instead.

use automation_core::{Bounds, SemanticNode};

use crate::rules::{self, Rule};
use crate::tree::{CONTROLS, FIELDS, Tree, class_name, named};

/// What the rules made of the nodes they checked.
#[derive(Debug, Default)]
pub struct Tally {
    /// (rule, node, message) of each finding.
    pub findings: Vec<(&'static Rule, SemanticNode, String)>,
    /// (rule, node, message) of each item to review.
    pub review: Vec<(&'static Rule, SemanticNode, String)>,
    /// (rule, nodes checked).
    pub checked: Vec<(&'static Rule, usize)>,
}

impl Tally {
    fn count(&mut self, rule: &'static Rule) {
        match self.checked.iter_mut().find(|(r, _)| r.id == rule.id) {
            Some((_, n)) => *n += 1,
            None => self.checked.push((rule, 1)),
        }
    }
    fn finding(&mut self, rule: &'static Rule, node: &SemanticNode, message: String) {
        self.findings.push((rule, node.clone(), message));
    }
    fn review(&mut self, rule: &'static Rule, node: &SemanticNode, message: String) {
        self.review.push((rule, node.clone(), message));
    }
}

/// A tree rule's check.
type Check = fn(&Tree, &mut Tally);

/// Runs the tree rules `wanted` allows over `tree`.
pub fn run(tree: &Tree, wanted: impl Fn(&Rule) -> bool, tally: &mut Tally) {
    let all: [(&'static Rule, Check); 5] = [
        (&rules::CONTROL_NAME, control_name),
        (&rules::FIELD_NAME, field_name),
        (&rules::DISABLED_FOCUSED, disabled_focused),
        (&rules::DUPLICATE_NAME, duplicate_name),
        (&rules::TARGET_SIZE, target_size),
    ];
    for (rule, check) in all {
        if wanted(rule) {
            tally.checked.push((rule, 0));
            check(tree, tally);
        }
    }
}

/// Whether a nameless node holds text a toolkit might have announced as its name.
fn holds_text(tree: &Tree, node: &SemanticNode) -> bool {
    tree.descendants(&node.id)
        .iter()
        .any(|d| named(d.label.as_deref()) || named(d.value.as_deref()))
}

/// Whether it is a part of a combo box, spin button or other field (the field is judged for
/// it: GTK 3's combo entry holds an entry and a button of its own).
fn part_of_field(tree: &Tree, node: &SemanticNode) -> bool {
    tree.ancestors(&node.id)
        .any(|a| FIELDS.contains(&a.role.as_str()) && a.role != "TextInput")
}

/// A node whose name is its toolkit's class name: a finding, or to review when a description
/// says what it is (a screen reader speaks both).
fn class_named(tally: &mut Tally, rule: &'static Rule, node: &SemanticNode, name: &str) {
    let said = format!(
        "this {} is named {name:?}, the toolkit's class name (what it falls back to when the app named nothing)",
        node.role
    );
    match node.description.as_deref().filter(|d| named(Some(d))) {
        Some(d) => tally.review(
            rule,
            node,
            format!("{said}; its description {d:?} may tell a person what it is"),
        ),
        None => tally.finding(
            rule,
            node,
            format!("{said}: a screen reader says \"{name}\""),
        ),
    }
}

/// Whether `node` is one of `roles` that a person can use, checked by `rule`, and has no name
/// a person would hear: counted as checked; a toolkit's class name in place of a name is
/// judged here (and answers `false`).
fn nameless(
    tree: &Tree,
    node: &SemanticNode,
    roles: &[&str],
    rule: &'static Rule,
    tally: &mut Tally,
) -> bool {
    if !roles.contains(&node.role.as_str()) || !tree.operable(node) || part_of_field(tree, node) {
        return false;
    }
    tally.count(rule);
    if let Some(name) = node.label.as_deref().filter(|n| class_name(n)) {
        class_named(tally, rule, node, name);
        return false;
    }
    !named(node.label.as_deref())
}

fn control_name(tree: &Tree, tally: &mut Tally) {
    let rule = &rules::CONTROL_NAME;
    for node in &tree.nodes {
        if !nameless(tree, node, CONTROLS, rule, tally) {
            continue;
        }
        if named(node.description.as_deref()) {
            tally.review(
                rule,
                node,
                format!(
                    "this {} has no name, only a description ({:?}): some screen readers speak it, others only the role",
                    node.role,
                    node.description.as_deref().unwrap_or_default()
                ),
            );
        } else if holds_text(tree, node) {
            tally.review(
                rule,
                node,
                format!(
                    "this {} has no name of its own, but text inside it that a screen reader may read in its place",
                    node.role
                ),
            );
        } else {
            tally.finding(
                rule,
                node,
                format!(
                    "this {} has no accessible name, no description and no text inside: a screen reader says only \"{}\"",
                    node.role,
                    node.role.to_lowercase()
                ),
            );
        }
    }
}

fn field_name(tree: &Tree, tally: &mut Tally) {
    let rule = &rules::FIELD_NAME;
    for node in &tree.nodes {
        if node.read_only || !nameless(tree, node, FIELDS, rule, tally) {
            continue;
        }
        if named(node.description.as_deref()) || crate::tree::multiline(node) {
            // A document view is often the window's whole point; a description may be read.
            tally.review(
                rule,
                node,
                format!(
                    "this {} has no name and no label tied to it{}",
                    node.role,
                    node.description
                        .as_deref()
                        .map(|d| format!(", only a description ({d:?})"))
                        .unwrap_or_default()
                ),
            );
        } else {
            tally.finding(
                rule,
                node,
                format!(
                    "this {} has no name and no label tied to it: a screen reader announces an empty {}",
                    node.role,
                    node.role.to_lowercase()
                ),
            );
        }
    }
}

fn disabled_focused(tree: &Tree, tally: &mut Tally) {
    let rule = &rules::DISABLED_FOCUSED;
    for node in &tree.nodes {
        if !node.focused {
            continue;
        }
        tally.count(rule);
        if node.disabled && tree.shows(node) {
            tally.finding(
                rule,
                node,
                format!(
                    "this {} is disabled and holds the keyboard focus",
                    node.role
                ),
            );
        }
    }
}

/// Roles whose siblings must be told apart by name.
const TOLD_APART: &[&str] = &[
    "Button",
    "CheckBox",
    "RadioButton",
    "Switch",
    "Link",
    "Tab",
    "MenuItem",
];

fn duplicate_name(tree: &Tree, tally: &mut Tally) {
    let rule = &rules::DUPLICATE_NAME;
    for parent in &tree.nodes {
        let kids: Vec<&SemanticNode> = parent
            .children
            .iter()
            .filter_map(|c| tree.get(c))
            .filter(|n| TOLD_APART.contains(&n.role.as_str()) && tree.operable(n))
            .collect();
        for (i, node) in kids.iter().enumerate() {
            tally.count(rule);
            let Some(name) = node.label.as_deref().filter(|l| named(Some(l))) else {
                continue;
            };
            let same = |o: &&&SemanticNode| {
                o.role == node.role
                    && o.label.as_deref() == Some(name)
                    && o.description == node.description
            };
            // Reported once, on the first of the group.
            if kids[..i].iter().any(|o| same(&o)) {
                continue;
            }
            let twins = kids[i + 1..].iter().filter(|o| same(o)).count();
            if twins > 0 {
                tally.finding(
                    rule,
                    node,
                    format!(
                        "{} sibling {}s are all named {name:?}, with nothing else to tell them apart",
                        twins + 1,
                        node.role
                    ),
                );
            }
        }
    }
}

/// WCAG 2.5.8's minimum, in pixels.
const TARGET_MIN: f64 = 24.0;

/// Roles a person clicks.
const POINTER_TARGETS: &[&str] = &[
    "Button",
    "CheckBox",
    "RadioButton",
    "Switch",
    "Link",
    "Tab",
    "ComboBox",
];

fn undersized(b: &Bounds) -> bool {
    b.width < TARGET_MIN || b.height < TARGET_MIN
}

/// The distance from a point to a rectangle (0 inside).
fn distance_to(x: f64, y: f64, b: &Bounds) -> f64 {
    let dx = (b.x - x).max(0.0).max(x - (b.x + b.width));
    let dy = (b.y - y).max(0.0).max(y - (b.y + b.height));
    dx.hypot(dy)
}

fn target_size(tree: &Tree, tally: &mut Tally) {
    let rule = &rules::TARGET_SIZE;
    let targets: Vec<(&SemanticNode, Bounds)> = tree
        .nodes
        .iter()
        .filter(|n| POINTER_TARGETS.contains(&n.role.as_str()) && tree.operable(n))
        .filter_map(|n| n.bounds.map(|b| (n, b)))
        .collect();
    for (node, b) in &targets {
        tally.count(rule);
        if !undersized(b) {
            continue;
        }
        let window = tree.window_of(node);
        let (cx, cy) = (b.x + b.width / 2.0, b.y + b.height / 2.0);
        // The spacing exception: a 24 px circle on its centre touches no other target, nor
        // the circle of another undersized one.
        let crowded = targets.iter().find(|(o, ob)| {
            o.id != node.id
                && tree.window_of(o) == window
                && !tree.ancestors(&node.id).any(|a| a.id == o.id)
                && !tree.ancestors(&o.id).any(|a| a.id == node.id)
                && if undersized(ob) {
                    let (ox, oy) = (ob.x + ob.width / 2.0, ob.y + ob.height / 2.0);
                    (ox - cx).hypot(oy - cy) < TARGET_MIN
                } else {
                    distance_to(cx, cy, ob) < TARGET_MIN / 2.0
                }
        });
        let Some((other, _)) = crowded else {
            continue;
        };
        let size = format!("{:.0}×{:.0} px", b.width, b.height);
        let near = format!(
            "{} {:?}",
            other.role,
            other.label.as_deref().unwrap_or_default()
        );
        // An equivalent control of full size elsewhere meets the criterion (its exception).
        let twin = targets.iter().any(|(o, ob)| {
            o.id != node.id
                && o.role == node.role
                && named(node.label.as_deref())
                && o.label == node.label
                && !undersized(ob)
        });
        if twin || node.role == "Link" {
            tally.review(
                rule,
                node,
                format!(
                    "{size}, within 12 px of {near}{}",
                    if twin {
                        "; a full-size control of the same name exists (the criterion's equivalent exception), check it does the same"
                    } else {
                        "; a link in a sentence is exempt"
                    }
                ),
            );
        } else {
            tally.finding(
                rule,
                node,
                format!(
                    "{size}, and a 24 px circle on its centre reaches {near}: a person aiming at one can hit the other"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use automation_core::replies::Snapshot;
    use serde_json::{Value, json};

    /// A window holding `kids` (records without their ids and children).
    fn tree(kids: &[Value]) -> Tree {
        let mut nodes = vec![json!({"id": "e1", "role": "Window", "label": "W",
            "disabled": false, "focused": false, "actions": [],
            "bounds": {"x": 0.0, "y": 0.0, "width": 400.0, "height": 300.0},
            "children": (0..kids.len()).map(|i| format!("e{}", i + 2)).collect::<Vec<_>>()})];
        for (i, k) in kids.iter().enumerate() {
            let mut n = json!({"id": format!("e{}", i + 2), "disabled": false, "focused": false,
                "actions": [], "children": []});
            for (key, v) in k.as_object().unwrap() {
                n[key] = v.clone();
            }
            nodes.push(n);
        }
        Tree::new(
            serde_json::from_value::<Snapshot>(json!({"version": 1, "nodes": nodes})).unwrap(),
        )
    }

    fn at(x: f64, y: f64, w: f64, h: f64) -> Value {
        json!({"x": x, "y": y, "width": w, "height": h})
    }

    fn run_one(t: &Tree, rule: &Rule) -> Tally {
        let mut tally = Tally::default();
        run(t, |r| r.id == rule.id, &mut tally);
        tally
    }

    #[test]
    fn a_nameless_button_is_a_finding_and_one_with_a_description_is_to_review() {
        let t = tree(&[
            json!({"role": "Button", "bounds": at(0.0, 0.0, 40.0, 40.0)}),
            json!({"role": "Button", "description": "Delete", "bounds": at(100.0, 0.0, 40.0, 40.0)}),
            json!({"role": "Button", "label": "Save", "bounds": at(200.0, 0.0, 40.0, 40.0)}),
            json!({"role": "Button", "hidden": true, "bounds": at(300.0, 0.0, 40.0, 40.0)}),
        ]);
        let tally = run_one(&t, &rules::CONTROL_NAME);
        assert_eq!(tally.findings.len(), 1);
        assert_eq!(tally.review.len(), 1);
        assert_eq!(
            tally.checked,
            vec![(&rules::CONTROL_NAME, 3)],
            "the hidden one is not checked"
        );
    }

    #[test]
    fn a_class_name_is_no_name() {
        assert!(crate::tree::class_name("GtkImage") && crate::tree::class_name("QTextEdit"));
        assert!(
            !crate::tree::class_name("Quit")
                && !crate::tree::class_name("QR")
                && !crate::tree::class_name("Gtk")
        );
        let t = tree(&[
            json!({"role": "Button", "label": "GtkButton", "bounds": at(0.0, 0.0, 40.0, 40.0)}),
        ]);
        assert_eq!(run_one(&t, &rules::CONTROL_NAME).findings.len(), 1);
    }

    #[test]
    fn a_disabled_control_with_the_focus_is_a_finding() {
        let t = tree(
            &[json!({"role": "Button", "label": "Busy", "disabled": true,
            "focused": true, "bounds": at(0.0, 0.0, 80.0, 30.0)})],
        );
        let tally = run_one(&t, &rules::DISABLED_FOCUSED);
        assert_eq!(tally.findings.len(), 1);
        let t = tree(
            &[json!({"role": "Button", "label": "Busy", "disabled": true,
            "bounds": at(0.0, 0.0, 80.0, 30.0)})],
        );
        assert!(run_one(&t, &rules::DISABLED_FOCUSED).findings.is_empty());
    }

    #[test]
    fn a_small_target_passes_when_spaced_and_fails_when_crowded() {
        // 16 px buttons 30 px apart (centre to centre): the spacing exception holds.
        let spaced = tree(&[
            json!({"role": "Button", "label": "+", "bounds": at(0.0, 0.0, 16.0, 16.0)}),
            json!({"role": "Button", "label": "-", "bounds": at(30.0, 0.0, 16.0, 16.0)}),
        ]);
        assert!(run_one(&spaced, &rules::TARGET_SIZE).findings.is_empty());
        // 16 px apart: the circles meet.
        let crowded = tree(&[
            json!({"role": "Button", "label": "+", "bounds": at(0.0, 0.0, 16.0, 16.0)}),
            json!({"role": "Button", "label": "-", "bounds": at(16.0, 0.0, 16.0, 16.0)}),
        ]);
        assert_eq!(run_one(&crowded, &rules::TARGET_SIZE).findings.len(), 2);
        // A small one 5 px beside a big one: within 12 px of it.
        let beside = tree(&[
            json!({"role": "Button", "label": "x", "bounds": at(0.0, 0.0, 16.0, 16.0)}),
            json!({"role": "Button", "label": "Save", "bounds": at(13.0, 0.0, 80.0, 30.0)}),
        ]);
        assert_eq!(run_one(&beside, &rules::TARGET_SIZE).findings.len(), 1);
    }

    #[test]
    fn same_named_siblings_are_one_finding_and_a_description_tells_them_apart() {
        let t = tree(&[
            json!({"role": "Button", "label": "Remove", "bounds": at(0.0, 0.0, 80.0, 30.0)}),
            json!({"role": "Button", "label": "Remove", "bounds": at(100.0, 0.0, 80.0, 30.0)}),
            json!({"role": "Button", "label": "Remove", "bounds": at(200.0, 0.0, 80.0, 30.0)}),
        ]);
        let tally = run_one(&t, &rules::DUPLICATE_NAME);
        assert_eq!(tally.findings.len(), 1);
        assert!(
            tally.findings[0].2.starts_with("3 sibling"),
            "{}",
            tally.findings[0].2
        );
        let t = tree(&[
            json!({"role": "Button", "label": "Remove", "description": "row 1", "bounds": at(0.0, 0.0, 80.0, 30.0)}),
            json!({"role": "Button", "label": "Remove", "description": "row 2", "bounds": at(100.0, 0.0, 80.0, 30.0)}),
        ]);
        assert!(run_one(&t, &rules::DUPLICATE_NAME).findings.is_empty());
    }

    #[test]
    fn a_control_outside_its_window_does_not_show() {
        let t = tree(&[json!({"role": "Button", "bounds": at(-300.0, 0.0, 80.0, 30.0)})]);
        assert!(run_one(&t, &rules::CONTROL_NAME).findings.is_empty());
    }
}
