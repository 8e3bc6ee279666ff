//! The Tab walk: real Tab presses through the running app, the focus read after each, as a
//! keyboard user meets it. It finds the controls Tab never reaches (2.1.1), a place the focus
//! cannot leave (2.1.2), and focus that lands on what does not show (2.4.3).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use automation_core::SemanticNode;
use automation_core::refs::RefKey;

use crate::checks::Tally;
use crate::driver::{Driver, focus_now, press, read};
use crate::error::AuditError;
use crate::report::{Stop, Walk};
use crate::rules::{self, Rule};
use crate::tree::{CONTROLS, FIELDS, Tree};

/// How long the focus gets to move after a press before it counts as staying.
const MOVES_WITHIN: Duration = Duration::from_millis(400);
/// How long the focus gets when it starts from no named object (it may move between
/// objects the tree does not name, and no read can tell).
const NOWHERE_WAIT: Duration = Duration::from_millis(150);
/// What is pressed on a named object until the focus leaves it: Tab, Ctrl+Tab, then Tab
/// again as long as a control with parts may keep it.
const STUCK_KEYS: [&str; 8] = ["tab", "ctrl+tab", "tab", "tab", "tab", "tab", "tab", "tab"];
/// Presses in a row that may leave the focus on no named object before the walk ends.
const NOWHERE_MOST: usize = 8;
/// The buttons of a title bar (GTK's client-side decorations), which toolkits keep out of
/// the Tab chain.
const WINDOW_BUTTONS: &[&str] = &["Minimize", "Maximize", "Restore", "Close"];
/// Most presses one walk sends.
const MOST_PRESSES: usize = 400;

/// A node that should be a Tab stop: an operable control or field, not a menu's item (menus
/// are reached with F10 and their mnemonics).
fn should_stop(tree: &Tree, node: &SemanticNode) -> bool {
    let role = node.role.as_str();
    (CONTROLS.contains(&role) || (FIELDS.contains(&role) && !node.read_only))
        && !role.starts_with("MenuItem")
        && tree.operable(node)
        // A control inside another control (a combo's button, a spin button's arrows) is
        // reached through it.
        && !tree.ancestors(&node.id).any(|a| {
            CONTROLS.contains(&a.role.as_str()) || FIELDS.contains(&a.role.as_str())
        })
}

/// Whether the focus read is no object's own: the kit names the app or a window when no
/// object says it is focused.
fn unnamed_focus(tree: &Tree, id: RefKey) -> bool {
    tree.get(&id).is_some_and(|n| {
        n.role == "Application" || (matches!(n.role.as_str(), "Window" | "Dialog") && !n.focused)
    })
}

/// Whether Tab in this role may type (a text field takes Tab as text): no Tab is pressed there
/// beyond the first.
fn types_tab(node: Option<&SemanticNode>) -> bool {
    node.is_some_and(|n| n.role.contains("TextInput") || n.role == "Document")
}

/// How a walk ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The focus came back to a stop already met: a whole round.
    Round,
    /// Nothing moved the focus from this node: Tab, Ctrl+Tab, Shift+Tab.
    Trapped(RefKey),
    /// Tab left no trace from this node, but Shift+Tab moved: the walk goes on backwards.
    Silent(RefKey),
    /// Out of presses, or too long where no object says it has the focus.
    Spent,
}

/// One walk's state: what it met, in order, and where the focus is now.
struct Walker<'t> {
    tree: &'t Tree,
    at: Option<RefKey>,
    order: Vec<Stop>,
    seen: HashSet<RefKey>,
    presses: usize,
    limit: usize,
    /// The stops after which the focus went where no object says it has it.
    unnamed_after: Vec<String>,
    unnamed: usize,
}

impl Walker<'_> {
    fn named(&self, id: Option<RefKey>) -> Option<RefKey> {
        id.filter(|id| !unnamed_focus(self.tree, *id))
    }

    /// Presses `key`; the focus after it, once moved, within `within`.
    fn press(
        &mut self,
        driver: &mut dyn Driver,
        key: &str,
        within: Duration,
    ) -> Result<Option<RefKey>, AuditError> {
        press(driver, key)?;
        self.presses += 1;
        let moved = focus_moves(driver, self.at, within)?;
        if moved.is_some() {
            self.at = moved;
        }
        Ok(moved)
    }

    /// Notes where the focus landed: `true` when it is a stop met before (a round).
    fn land(
        &mut self,
        driver: &mut dyn Driver,
        now: RefKey,
        key: &str,
        judge: &mut dyn FnMut(Option<&SemanticNode>),
    ) -> Result<bool, AuditError> {
        if self.named(Some(now)).is_none() {
            self.unnamed += 1;
            if let Some(from) = self.order.last() {
                self.unnamed_after.push(format!(
                    "{} {:?}",
                    from.role,
                    from.name.clone().unwrap_or_default()
                ));
            }
            return Ok(false);
        }
        if !self.seen.insert(now) {
            return Ok(true);
        }
        let node = stop_record(driver, self.tree, now)?;
        self.order.push(Stop {
            node: now,
            role: node.as_ref().map_or_else(String::new, |n| n.role.clone()),
            name: node.as_ref().and_then(|n| n.label.clone()),
            key: key.to_string(),
        });
        judge(node.as_ref());
        Ok(false)
    }

    /// Tab until a round, a trap, a silent stop or the end of the presses.
    fn forward(
        &mut self,
        driver: &mut dyn Driver,
        judge: &mut dyn FnMut(Option<&SemanticNode>),
    ) -> Result<End, AuditError> {
        let mut nowhere = 0;
        while self.presses < self.limit && nowhere <= NOWHERE_MOST {
            let Some(here) = self.named(self.at) else {
                // From nowhere, Tab alone: nothing can say whether it moved.
                match self.press(driver, "tab", NOWHERE_WAIT)? {
                    Some(now) => {
                        if self.land(driver, now, "tab", judge)? {
                            return Ok(End::Round);
                        }
                        nowhere = if self.named(Some(now)).is_some() {
                            0
                        } else {
                            nowhere + 1
                        };
                    }
                    None => nowhere += 1,
                }
                continue;
            };
            // Tab, then Ctrl+Tab (a text view takes Tab as text), then Tab again as long as a
            // control with parts may keep it (Qt's date edit steps through its sections).
            // A text view takes Tab as text: Ctrl+Tab first, so the walk types as little as it
            // can into the app's document.
            let node = self.tree.get(&here);
            let keys: &[&str] = if node.is_some_and(crate::tree::multiline) {
                &["ctrl+tab", "tab"]
            } else if types_tab(node) {
                &STUCK_KEYS[..2]
            } else {
                &STUCK_KEYS
            };
            let mut moved = None;
            for (i, key) in keys.iter().enumerate() {
                let within = if i < 2 { MOVES_WITHIN } else { NOWHERE_WAIT };
                if let Some(now) = self.press(driver, key, within)? {
                    moved = Some((now, *key));
                    break;
                }
            }
            let Some((now, key)) = moved else {
                // A trap holds Shift+Tab too.
                return Ok(match self.press(driver, "shift+tab", MOVES_WITHIN)? {
                    Some(_) => End::Silent(here),
                    None => End::Trapped(here),
                });
            };
            if self.land(driver, now, key, judge)? {
                return Ok(End::Round);
            }
            nowhere = if self.named(Some(now)).is_some() {
                0
            } else {
                nowhere + 1
            };
        }
        Ok(End::Spent)
    }

    /// Shift+Tab from where the focus is, until it comes round to `silent` (then the two
    /// walks together met every stop) or to a stop it met going back.
    fn backward(
        &mut self,
        driver: &mut dyn Driver,
        silent: RefKey,
        judge: &mut dyn FnMut(Option<&SemanticNode>),
    ) -> Result<End, AuditError> {
        let mut back: HashSet<RefKey> = HashSet::new();
        let mut nowhere = 0;
        while self.presses < self.limit && nowhere <= NOWHERE_MOST {
            let named = self.named(self.at).is_some();
            // A control with parts keeps a few Shift+Tabs too.
            let tries = if named && !types_tab(self.at.and_then(|a| self.tree.get(&a))) {
                STUCK_KEYS.len() - 1
            } else {
                1
            };
            let mut moved = None;
            for i in 0..tries {
                let within = if named && i == 0 {
                    MOVES_WITHIN
                } else {
                    NOWHERE_WAIT
                };
                moved = self.press(driver, "shift+tab", within)?;
                if moved.is_some() {
                    break;
                }
            }
            let Some(now) = moved else {
                if named {
                    return Ok(End::Spent);
                }
                nowhere += 1;
                continue;
            };
            if self.named(Some(now)).is_none() {
                nowhere += 1;
                self.land(driver, now, "shift+tab", judge)?;
                continue;
            }
            nowhere = 0;
            if now == silent {
                return Ok(End::Round);
            }
            if !back.insert(now) {
                return Ok(End::Spent);
            }
            if !self.seen.contains(&now) {
                self.land(driver, now, "shift+tab", judge)?;
            }
        }
        Ok(End::Spent)
    }
}

/// Walks the app with Tab (and, past a control that keeps Tab, back with Shift+Tab) and
/// judges what it met.
pub fn walk(
    driver: &mut dyn Driver,
    tree: &Tree,
    wanted: impl Fn(&Rule) -> bool,
    tally: &mut Tally,
) -> Result<Walk, AuditError> {
    let stops_wanted: Vec<&SemanticNode> =
        tree.nodes.iter().filter(|n| should_stop(tree, n)).collect();
    let mut walker = Walker {
        tree,
        at: focus_now(driver)?,
        order: Vec::new(),
        seen: HashSet::new(),
        presses: 0,
        limit: (stops_wanted.len() * 3 + 20).min(MOST_PRESSES),
        unnamed_after: Vec::new(),
        unnamed: 0,
    };
    let judging = wanted(&rules::FOCUS_HIDDEN);
    let mut hidden = Tally::default();
    let mut judge = |node: Option<&SemanticNode>| {
        if judging {
            judge_stop(tree, node, &mut hidden);
        }
    };
    // Where the focus starts is reached too (an app that opens on its entry).
    if let Some(start) = walker.named(walker.at) {
        walker.land(driver, start, "start", &mut judge)?;
    }
    let forward = walker.forward(driver, &mut judge)?;
    let end = match forward {
        End::Silent(silent) => {
            let back = walker.backward(driver, silent, &mut judge)?;
            if wanted(&rules::KEYBOARD_TRAP)
                && let Some(node) = tree.get(&silent)
            {
                tally.review.push((
                    &rules::KEYBOARD_TRAP,
                    node.clone(),
                    "Tab and Ctrl+Tab did not move the focus on from here (it may take Tab as text, or the next control may not say it has the focus), but Shift+Tab did: no trap, and the walk went on backwards".into(),
                ));
            }
            back
        }
        other => other,
    };
    tally.findings.append(&mut hidden.findings);
    tally.checked.append(&mut hidden.checked);
    let whole = end == End::Round;
    let not_reached = if wanted(&rules::KEYBOARD_REACH) {
        walker.judge_reach(&stops_wanted, whole, tally)
    } else {
        Vec::new()
    };
    let Walker {
        order,
        presses,
        unnamed,
        mut unnamed_after,
        ..
    } = walker;
    if unnamed > 0
        && wanted(&rules::FOCUS_HIDDEN)
        && let Some(app) = tree.nodes.first()
    {
        unnamed_after.dedup();
        tally.review.push((
            &rules::FOCUS_HIDDEN,
            app.clone(),
            format!(
                "{unnamed} press(es) put the focus where no object says it has it, so a screen reader says nothing (after {})",
                unnamed_after.join(", ")
            ),
        ));
    }
    if wanted(&rules::KEYBOARD_TRAP) {
        tally.checked.push((&rules::KEYBOARD_TRAP, order.len()));
        if let End::Trapped(stuck) = end
            && stops_wanted.len() > 1
            && let Some(node) = stop_record(driver, tree, stuck)?
        {
            tally.findings.push((
                &rules::KEYBOARD_TRAP,
                node,
                "Tab, Ctrl+Tab and Shift+Tab all leave the focus here, and other controls are waiting".into(),
            ));
        }
    }
    Ok(Walk {
        order,
        cycled: whole,
        presses,
        not_reached,
    })
}

impl Walker<'_> {
    /// The controls the walk never reached: findings after a whole round, else to review.
    fn judge_reach(
        &self,
        stops_wanted: &[&SemanticNode],
        whole: bool,
        tally: &mut Tally,
    ) -> Vec<RefKey> {
        let (tree, seen, unnamed, presses, stops) = (
            self.tree,
            &self.seen,
            self.unnamed,
            self.presses,
            self.order.len(),
        );
        let rule = &rules::KEYBOARD_REACH;
        tally.checked.push((rule, stops_wanted.len()));
        let mut not_reached = Vec::new();
        for node in stops_wanted {
            if reached(tree, node, seen) {
                continue;
            }
            not_reached.push(node.id);
            let doubt = if !whole {
                Some(format!(
                    "the walk ended before a whole round ({presses} presses)"
                ))
            } else if unnamed > 0 && (node.role == "ComboBox" || tree.arrow_group(node).is_some()) {
                // GTK 3's combo box focuses a button it does not expose, and its notebook
                // focuses itself without saying so: the unnamed stops may have been here.
                Some(format!(
                    "Tab met {unnamed} stop(s) where no object said it had the focus, and a {} may take the focus that way",
                    node.role
                ))
            } else if node.role == "Button"
                && WINDOW_BUTTONS.contains(&node.label.as_deref().unwrap_or_default())
            {
                Some("a title bar's window button; the window manager's keys (Alt+F4, Alt+F10, …) may stand in for it".into())
            } else {
                None
            };
            match doubt {
                None => tally.findings.push((
                    rule,
                    (*node).clone(),
                    format!(
                        "Tab went round the app ({stops} stops) and never reached this {}",
                        node.role
                    ),
                )),
                Some(why) => tally.review.push((
                    rule,
                    (*node).clone(),
                    format!("Tab never reached this {}, but {why}", node.role),
                )),
            }
        }
        not_reached
    }
}

/// The focus after a press, once it left `from`; `None` when it stayed there.
fn focus_moves(
    driver: &mut dyn Driver,
    from: Option<RefKey>,
    within: Duration,
) -> Result<Option<RefKey>, AuditError> {
    let start = Instant::now();
    loop {
        let now = focus_now(driver)?;
        if now.is_some() && now != from {
            return Ok(now);
        }
        if start.elapsed() >= within {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The focused node's record: as the walk found it (a control scrolled into view by the
/// focus shows now, though the tree read before said otherwise).
fn stop_record(
    driver: &mut dyn Driver,
    tree: &Tree,
    id: RefKey,
) -> Result<Option<SemanticNode>, AuditError> {
    match tree.get(&id) {
        Some(n) if tree.shows(n) => Ok(Some(n.clone())),
        _ => read(driver, id),
    }
}

fn judge_stop(tree: &Tree, node: Option<&SemanticNode>, tally: &mut Tally) {
    let rule = &rules::FOCUS_HIDDEN;
    let Some(node) = node else { return };
    match tally.checked.iter_mut().find(|(r, _)| r.id == rule.id) {
        Some((_, n)) => *n += 1,
        None => tally.checked.push((rule, 1)),
    }
    let why = if node.hidden || tree.ancestors(&node.id).any(|a| a.hidden) {
        Some("which the app says is hidden")
    } else if node
        .bounds
        .is_some_and(|b| b.width <= 0.0 || b.height <= 0.0)
    {
        Some("which has no area")
    } else if !tree.within_window(node) {
        Some("which lies outside its window")
    } else {
        None
    };
    if let Some(why) = why {
        tally.findings.push((
            rule,
            node.clone(),
            format!(
                "Tab put the focus on this {}, {why}: a person sees nothing focused",
                node.role
            ),
        ));
    }
}

/// Whether the walk reached `node`: the focus was on it, inside it, or on another item of
/// the group the arrows move in (one stop for a whole radio group, tab list or toolbar).
fn reached(tree: &Tree, node: &SemanticNode, seen: &HashSet<RefKey>) -> bool {
    if seen.contains(&node.id)
        || tree
            .descendants(&node.id)
            .iter()
            .any(|d| seen.contains(&d.id))
    {
        return true;
    }
    let group = tree.arrow_group(node).map(|g| g.id).or_else(|| {
        // Radio buttons under one parent are one group though no node says so.
        (node.role == "RadioButton")
            .then(|| tree.parent(&node.id).map(|p| p.id))
            .flatten()
    });
    group.is_some_and(|g| {
        seen.contains(&g) || tree.descendants(&g).iter().any(|d| seen.contains(&d.id))
    })
}
