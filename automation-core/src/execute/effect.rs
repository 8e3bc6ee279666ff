//! Judging an op by its effect on the node it resolved — that node, by id, never by running
//! the selector again (the effect itself may have changed what the selector matches).
//!
//! Before sending, [`Watch::of`] notes what a person would see change (a check box flips, a
//! row expands, a tab becomes selected, focus lands); after the settle, [`judge`] answers `ok`
//! only when it did, `NO_EFFECT` when it did not. An op with no state to watch (a plain
//! button) answers `ok`, with `"effect": "not_observed"` when the tree did not change at all:
//! the app's action interface took it, and nothing on screen says more.

use std::time::{Duration, Instant};

use accesskit::{Action, NodeId, Role, Toggled};
use accesskit_consumer::NodeRef;
use serde_json::{Value, json};

use super::Session;
use super::time::{self, Expect};
use crate::error::{ErrorCode, OpError, OpResult};
use crate::settle::SettleSpec;
use crate::target::{ClockKind, Target};

/// How long past the settle a real-clock app gets to show the expected state (state events
/// trail the tree change that ends the settle).
const LATE_STATE_MS: u64 = 1_500;

/// The change an op must cause on its node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Expected {
    /// The check state differs from this one (two- or three-state boxes).
    ToggledFrom(Toggled),
    /// Expanded (`true`) or collapsed (`false`).
    Expanded(bool),
    /// Selected (a tab, a row, an item that was not).
    Selected,
    /// The focus is on it.
    Focused,
    /// An option of this combo box was picked: the combo shows the option's name, and its
    /// popup is closed (an option only highlighted leaves the popup open and the combo as it
    /// was: Qt 5).
    ComboShows(NodeId),
    /// Its number moved up (`true`) or down from this one (a slider, a spin button stepped):
    /// the focus that the keys needed first is not the step.
    NumberMoved(f64, bool),
    /// Nothing to watch on the node itself.
    Any,
}

/// What to watch after sending an op to one node.
#[derive(Debug, Clone, Copy)]
pub(super) struct Watch {
    pub id: NodeId,
    pub expected: Expected,
    version: u64,
    /// The node had the focus before the op (a cell's click that lands makes it the cursor).
    focused_before: bool,
    /// The node was hidden before the op (a menu's item whose menu was closed).
    hidden_before: bool,
    /// The app's windows that showed before the op: a row's own action may open one
    /// (gtk3-demo's list runs the demo in a window of its own) without selecting the row.
    windows_before: usize,
}

/// How many windows and dialogs of the app show (the root's children).
fn windows_shown(node: &NodeRef<'_>) -> usize {
    let Some(root) = std::iter::successors(Some(*node), |p| p.parent()).last() else {
        return 0;
    };
    root.children()
        .filter(|w| {
            matches!(w.role(), Role::Window | Role::Dialog | Role::AlertDialog) && !w.is_hidden()
        })
        .count()
}

/// Roles whose click selects them when they are selectable.
fn selects_on_click(role: Role) -> bool {
    matches!(
        role,
        Role::Tab
            // A combo's popup item (selectable): picked, it is the one selected.
            | Role::MenuItem
            | Role::ListItem
            | Role::ListBoxOption
            | Role::TreeItem
            | Role::Row
            | Role::Cell
            | Role::GridCell
    )
}

/// A tree's row: a tree item, or an item (the Java wrapper's label) inside a tree.
fn in_tree(node: &NodeRef<'_>) -> bool {
    node.role() == Role::TreeItem
        || (matches!(node.role(), Role::Label | Role::ListItem)
            && std::iter::successors(node.parent(), |p| p.parent())
                .any(|a| matches!(a.role(), Role::Tree | Role::TreeGrid)))
}

impl Watch {
    /// What `action` on `node` must change, read before it is sent.
    pub fn of(node: &NodeRef<'_>, action: Action, version: u64) -> Self {
        let combo = std::iter::successors(node.parent(), |p| p.parent())
            .find(|a| matches!(a.role(), Role::ComboBox | Role::EditableComboBox))
            .filter(|_| selects_on_click(node.role()) || node.role() == Role::Label);
        let expected = match action {
            Action::Click if combo.is_some() => {
                Expected::ComboShows(combo.map_or(node.locate().0, |c| c.locate().0))
            }
            // A tree's row clicked is selected, not opened (its expander arrow opens it).
            Action::Click if in_tree(node) && node.is_selected() == Some(false) => {
                Expected::Selected
            }
            Action::Click if in_tree(node) => Expected::Any,
            // A disclosure (a summary, an expander) opens or closes: that is what a person
            // watches, whatever else it reports (Chromium's summary is a toggle button).
            Action::Click if let Some(open) = node.data().is_expanded() => {
                Expected::Expanded(!open)
            }
            Action::Click => match node.toggled() {
                // A radio that is on stays on; a check box (two or three states) flips.
                Some(Toggled::True)
                    if matches!(node.role(), Role::RadioButton | Role::MenuItemRadio) =>
                {
                    Expected::Any
                }
                Some(t) => Expected::ToggledFrom(t),
                // A menu's command item is not picked like a list's (a combo's items were
                // matched above): what it does shows anywhere (its menu closes, a dialog opens).
                None if node.role() == Role::MenuItem => Expected::Any,
                None if selects_on_click(node.role()) && node.is_selected() == Some(false) => {
                    Expected::Selected
                }
                None => Expected::Any,
            },
            // A node that reports no expanded state at all (a GTK 3 combo: its popup is a
            // window of its own) has nothing of its own to watch.
            Action::Expand | Action::Collapse if node.data().is_expanded().is_none() => {
                Expected::Any
            }
            Action::Expand => Expected::Expanded(true),
            Action::Collapse => Expected::Expanded(false),
            Action::Focus => Expected::Focused,
            Action::Increment | Action::Decrement => match node.numeric_value() {
                Some(n) => Expected::NumberMoved(n, action == Action::Increment),
                None => Expected::Any,
            },
            _ => Expected::Any,
        };
        Self {
            id: node.locate().0,
            expected,
            version,
            focused_before: node.is_focused(),
            hidden_before: node.is_hidden(),
            windows_before: windows_shown(node),
        }
    }

    /// The tree's version before the op was sent.
    pub fn version_before(&self) -> u64 {
        self.version
    }

    /// Whether the node already is as the op would make it (expand an expanded row, focus the
    /// focused field): then nothing is sent — a toggling action would undo it.
    pub fn already(&self, node: &NodeRef<'_>) -> Option<&'static str> {
        match self.expected {
            Expected::Expanded(true) if node.data().is_expanded() == Some(true) => {
                Some("it was already expanded")
            }
            Expected::Expanded(false) if node.data().is_expanded() == Some(false) => {
                Some("it was already collapsed")
            }
            Expected::Focused if node.is_focused() => Some("it already had the focus"),
            _ => None,
        }
    }

    fn holds<T: Target + ?Sized>(&self, s: &Session<T>) -> bool {
        let Some(node) = s.mirror.node(self.id) else {
            // Gone: the op's effect removed it (a dialog closed, a menu item ran).
            return true;
        };
        match self.expected {
            Expected::ToggledFrom(t) => {
                node.toggled().is_some_and(|now| now != t)
                    // A check or radio item taken closes its menu, and LibreOffice keeps a
                    // closed menu's items as they were until the menu opens again.
                    || (matches!(node.role(), Role::MenuItemCheckBox | Role::MenuItemRadio)
                        && node.is_hidden()
                        && !self.hidden_before)
            }
            Expected::Expanded(want) => node.data().is_expanded() == Some(want),
            Expected::Selected => {
                node.is_selected() == Some(true)
                    // A menu's item that was taken closes its menu (a combo's popup): it is
                    // marked selected when the menu opens again.
                    || (matches!(node.role(), Role::MenuItem) && node.is_hidden())
                    // A spreadsheet's cell clicked becomes the cursor, focused, without the
                    // selected state (LibreOffice Calc).
                    || (matches!(node.role(), Role::Cell | Role::GridCell)
                        && node.is_focused()
                        && !self.focused_before)
                    // Its activation opened a window (a list of demos, of files).
                    || windows_shown(&node) > self.windows_before
            }
            Expected::ComboShows(combo_id) => {
                let Some(combo) = s.mirror.node(combo_id) else {
                    return false;
                };
                let want = crate::snapshot::accessible_name(&node);
                let shows = super::options::shown_choice(s, combo_id);
                want.is_some()
                    && shows.as_deref().map(str::trim) == want.as_deref().map(str::trim)
                    && combo.data().is_expanded() != Some(true)
            }
            Expected::NumberMoved(from, up) => node
                .numeric_value()
                .is_some_and(|now| if up { now > from } else { now < from }),
            Expected::Focused => focus_is_on(s, self.id),
            Expected::Any => true,
        }
    }

    fn wanted(&self) -> Value {
        match self.expected {
            Expected::ToggledFrom(t) => json!({ "toggled_other_than": toggled_name(t) }),
            Expected::Expanded(want) => json!({ "expanded": want }),
            Expected::Selected => json!({
                "selected": true,
                "or_focused_if_a_cell": true,
                "or_a_window_opened": true,
            }),
            Expected::Focused => json!({ "focused": true }),
            Expected::NumberMoved(from, up) => {
                json!({ "value": if up { "above" } else { "below" }, "from": from })
            }
            Expected::ComboShows(_) => {
                json!({ "combo_shows_this_option": true, "combo_expanded": false })
            }
            Expected::Any => Value::Null,
        }
    }

    fn actual<T: Target + ?Sized>(&self, s: &Session<T>) -> Value {
        let Some(node) = s.mirror.node(self.id) else {
            return Value::Null;
        };
        match self.expected {
            Expected::ToggledFrom(_) => json!({ "toggled": node.toggled().map(toggled_name) }),
            Expected::Expanded(_) => json!({ "expanded": node.data().is_expanded() }),
            Expected::Selected => json!({
                "selected": node.is_selected(),
                "focused": node.is_focused(),
                "windows": windows_shown(&node),
            }),
            Expected::Focused => json!({ "focused": node.is_focused() }),
            Expected::NumberMoved(..) => json!({ "value": node.numeric_value() }),
            Expected::ComboShows(c) => {
                let combo = s.mirror.node(c);
                json!({
                    "combo_shows": super::options::shown_choice(s, c),
                    "combo_expanded": combo.and_then(|c| c.data().is_expanded()),
                })
            }
            Expected::Any => Value::Null,
        }
    }
}

fn toggled_name(t: Toggled) -> &'static str {
    match t {
        Toggled::True => "true",
        Toggled::False => "false",
        Toggled::Mixed => "mixed",
    }
}

/// Settles after the op was sent and judges it on the watched node: `ok` (with the settle
/// report) when the expected change is there, `NO_EFFECT` naming what the node holds when it
/// is not.
pub(super) fn judge<T: Target + ?Sized>(
    s: &mut Session<T>,
    watch: Watch,
    settle: &SettleSpec,
    mut data: Value,
) -> OpResult {
    let report = time::settle(s, settle, Expect::EffectAfter(watch.version))?;
    if !watch.holds(s) && s.target.clock() == ClockKind::Real {
        late_state(s, &watch, settle)?;
    }
    if !watch.holds(s) {
        let name = s
            .reference(watch.id)
            .map_or_else(|| format!("node {}", watch.id.0), |r| r.to_string());
        return Err(OpError::new(
            ErrorCode::NoEffect,
            format!("the app took the op, but {name} did not change as it should"),
        )
        .with_hint("read_node it to see its state; it may need something done first")
        .with_actual_expected(watch.actual(s), watch.wanted()));
    }
    let extra = report.to_json(s);
    if let (Value::Object(map), Value::Object(more)) = (&mut data, extra) {
        map.extend(more);
    }
    if watch.expected == Expected::Any && s.mirror.version() == watch.version {
        data["effect"] = json!("not_observed");
    }
    Ok(data)
}

/// Settles after the op was sent and judges it by `holds` (something a person checks beyond
/// the node itself): `ok` once it holds, `NO_EFFECT` with what was found when it does not.
pub(super) fn judge_by<T: Target + ?Sized>(
    s: &mut Session<T>,
    version: u64,
    settle: &SettleSpec,
    mut data: Value,
    holds: &dyn Fn(&Session<T>) -> bool,
    wanted: &Value,
    actual: &dyn Fn(&Session<T>) -> Value,
) -> OpResult {
    let report = time::settle(s, settle, Expect::EffectAfter(version))?;
    if !holds(s) && s.target.clock() == ClockKind::Real {
        wait_until(s, settle, holds)?;
    }
    if !holds(s) {
        return Err(OpError::new(
            ErrorCode::NoEffect,
            "the app took the op, but what it should change did not change",
        )
        .with_actual_expected(actual(s), wanted.clone()));
    }
    if let (Value::Object(map), Value::Object(more)) = (&mut data, report.to_json(s)) {
        map.extend(more);
    }
    Ok(data)
}

/// Waits (bounded by the settle budget and [`LATE_STATE_MS`]) for the watched state.
fn late_state<T: Target + ?Sized>(
    s: &mut Session<T>,
    watch: &Watch,
    settle: &SettleSpec,
) -> Result<(), OpError> {
    wait_until(s, settle, |s| watch.holds(s))
}

/// Waits (bounded by the settle budget and [`LATE_STATE_MS`]) until `holds`: an app on the
/// real clock may show an effect after the first change settling saw (Calc moves its cell
/// cursor on Enter before the cell's new text reads back).
pub(super) fn wait_until<T: Target + ?Sized>(
    s: &mut Session<T>,
    settle: &SettleSpec,
    holds: impl Fn(&Session<T>) -> bool,
) -> Result<(), OpError> {
    let budget = settle.settle_timeout_ms.min(LATE_STATE_MS);
    let deadline = Instant::now() + Duration::from_millis(budget);
    while !holds(s) {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        s.cancel
            .check(|| "the op was performed; its effect was still awaited".to_string())?;
        s.target
            .wait_for_activity((deadline - now).min(Duration::from_millis(50)))?;
        s.sync()?;
    }
    Ok(())
}

/// Whether the keyboard focus is on node `id`: it reports it, the tree's focus is it, or — a
/// list, tree or table that moves the focus to its current item as it takes it (a web page's
/// list box) — on an item it holds.
pub(super) fn focus_is_on<T: Target + ?Sized>(s: &Session<T>, id: NodeId) -> bool {
    let Some(node) = s.mirror.node(id) else {
        return false;
    };
    let focus = s.mirror.state().and_then(|t| t.focus());
    node.is_focused()
        || focus.as_ref().is_some_and(|f| f.locate().0 == id)
        || (matches!(
            node.role(),
            Role::ListBox | Role::List | Role::Tree | Role::TreeGrid | Role::Grid | Role::Table
        ) && focus.is_some_and(|f| is_inside(&f, id)))
}

/// Whether `node` lies inside node `id` (a descendant, not `id` itself).
pub(super) fn is_inside(node: &NodeRef, id: NodeId) -> bool {
    std::iter::successors(node.parent(), |p| p.parent()).any(|p| p.locate().0 == id)
}
