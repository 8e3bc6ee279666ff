//! A list's options (a combo box, a list box, a tab list): what it shows as chosen, and
//! picking one by its name as a person does — the list opened when its options are not shown
//! (a submenu too, where the option is filed under one), the option carried out by the means
//! its target lists, judged by what the list shows afterwards and by its popup being closed,
//! never by an option's highlight.

use accesskit::{NodeId, Role};
use accesskit_consumer::NodeRef;
use serde_json::{Value, json};

use super::actionable::{self, Reach};
use super::means::{self, KeysPressed, Verdict, press, target_of};
use super::{Session, value};
use crate::error::{ErrorCode, OpError, OpResult};
use crate::input::NamedKey;
use crate::intent::Intent;
use crate::settle::SettleSpec;
use crate::snapshot::accessible_name;
use crate::target::{ClockKind, Target};

/// Whether `node` is an option of a list: an item, or a label in a list (the Java wrapper's
/// combo items are labels in a list).
fn is_option_node(node: &NodeRef) -> bool {
    is_option(node.role())
        || (node.role() == Role::Label
            && node
                .parent()
                .is_some_and(|p| matches!(p.role(), Role::List | Role::ListBox | Role::Menu)))
}

/// Roles an option of a list can have.
fn is_option(role: Role) -> bool {
    matches!(
        role,
        Role::ListItem
            | Role::ListBoxOption
            | Role::MenuListOption
            | Role::MenuItem
            | Role::MenuItemRadio
            | Role::MenuItemCheckBox
            | Role::Tab
            | Role::TreeItem
            | Role::RadioButton
    )
}

/// What a list shows as chosen: a combo's value, or its name when that is one of its options
/// (Qt's, GTK's), else its selected option's name (a combo named by its label: a web page's
/// `<select>`); a list's selected option's name.
pub(super) fn shown_choice<T: Target + ?Sized>(s: &Session<T>, list: NodeId) -> Option<String> {
    let node = s.mirror.node(list)?;
    let selected = || {
        descendants(node)
            .find(|n| is_option_node(n) && n.is_selected() == Some(true))
            .and_then(|n| accessible_name(&n))
    };
    if !matches!(node.role(), Role::ComboBox | Role::EditableComboBox) {
        return selected();
    }
    if let Some(value) = node.value().filter(|v| !v.is_empty()) {
        return Some(value);
    }
    let name = accessible_name(&node);
    let names_an_option = name.as_deref().is_some_and(|name| {
        descendants(node).any(|n| {
            is_option_node(&n) && accessible_name(&n).as_deref().map(str::trim) == Some(name.trim())
        })
    });
    if names_an_option {
        return name;
    }
    selected().or(name)
}

pub(super) fn descendants(node: NodeRef<'_>) -> impl Iterator<Item = NodeRef<'_>> {
    let mut stack: Vec<NodeRef<'_>> = node.children().collect();
    std::iter::from_fn(move || {
        let n = stack.pop()?;
        stack.extend(n.children());
        Some(n)
    })
}

/// The options named `name` that a person could pick now: under the list, else (a popup the
/// toolkit moved to a window of its own) anywhere shown; exact names first.
fn options_named<T: Target + ?Sized>(s: &Session<T>, list: NodeId, name: &str) -> Vec<NodeId> {
    let Some(list_node) = s.mirror.node(list) else {
        return Vec::new();
    };
    let named = |n: &NodeRef| accessible_name(n).is_some_and(|a| a.trim() == name.trim());
    let mut found: Vec<NodeId> = descendants(list_node)
        .filter(|n| is_option_node(n) && named(n))
        .map(|n| n.locate().0)
        .collect();
    if found.is_empty()
        && let Some(tree) = s.mirror.state()
    {
        found = descendants(tree.root())
            .filter(|n| is_option_node(n) && named(n) && !n.is_hidden())
            .map(|n| n.locate().0)
            .collect();
    }
    // Shown ones first: a closed combo's copy of the option stays hidden.
    found.sort_by_key(|id| s.mirror.node(*id).is_some_and(|n| n.is_hidden()));
    found
}

/// Whether the option named `name` of `list` is there for a person to pick now (shown,
/// enabled).
fn option_pickable<T: Target + ?Sized>(s: &Session<T>, list: NodeId, name: &str) -> bool {
    options_named(s, list, name)
        .first()
        .is_some_and(|o| actionable::check(s, *o, Reach::Action).is_ok())
}

/// Picks the option named `name` in `list`: opened first when its options are not shown,
/// the option carried out (its action, a click, the keys), judged by what the list shows
/// and by its popup being closed again.
pub(super) fn select_option<T: Target + ?Sized>(
    s: &mut Session<T>,
    list: NodeId,
    name: &str,
    settle: &SettleSpec,
) -> OpResult {
    if shown_choice(s, list).as_deref().map(str::trim) == Some(name.trim()) {
        return Ok(json!({
            "node": s.reference(list),
            "value": name,
            "unchanged": "it already showed that option",
        }));
    }
    let is_combo = s
        .mirror
        .node(list)
        .is_some_and(|n| matches!(n.role(), Role::ComboBox | Role::EditableComboBox));
    let option_shown = |s: &Session<T>| option_pickable(s, list, name);
    let want = name.trim().to_string();
    let holds = |s: &Session<T>| {
        let shows = shown_choice(s, list).as_deref().map(str::trim) == Some(want.as_str());
        // A combo's popup closes once the option is taken; one still open only highlighted it.
        let closed = !is_combo
            || s.mirror
                .node(list)
                .is_none_or(|n| n.data().is_expanded() != Some(true));
        shows && closed
    };
    let actual = |s: &Session<T>| {
        json!({
            "shows": shown_choice(s, list),
            "expanded": s.mirror.node(list).and_then(|n| n.data().is_expanded()),
        })
    };
    let verdict = Verdict::Custom {
        holds: &holds,
        wanted: json!({ "shows": want, "expanded": if is_combo { json!(false) } else { Value::Null } }),
        actual: &actual,
    };
    let mut tried: Vec<Value> = Vec::new();
    // The toolkit's own way to pick by name, where it has one (a combo's selection).
    if is_combo {
        let resolved = s.resolve(&target_of(list))?;
        let before = s.mirror.version();
        let request = accesskit::ActionRequest {
            action: accesskit::Action::SetValue,
            target_tree: accesskit::TreeId::ROOT,
            target_node: list,
            data: Some(accesskit::ActionData::Value(want.clone().into())),
        };
        if s.target.action(request)? == crate::target::ActionOutcome::Handled {
            s.target.reread(list);
            let data = json!({"node": s.reference(resolved.id), "via": "action"});
            match super::effect::judge_by(
                s,
                before,
                settle,
                data,
                &holds,
                &json!({"shows": want}),
                &actual,
            ) {
                Ok(mut reply) => {
                    reply["value"] = json!(shown_choice(s, list));
                    return Ok(reply);
                }
                Err(e) if e.code == ErrorCode::NoEffect => {
                    tried.push(json!({"means": "action", "no_effect": e.actual.as_deref().cloned().unwrap_or(Value::Null)}));
                }
                Err(e) => return Err(e),
            }
        }
    }
    // A combo that lists its options while closed, none of them named so: nothing to open.
    if is_combo && option_index(s, list, name).is_none() && has_options(s, list) {
        return Err(no_such_option(s, list, name));
    }
    // A combo whose options are not shown is opened first, as a person opens it.
    let mut opened_here = false;
    if is_combo && !option_shown(s) {
        match means::carry_out(s, &target_of(list), Intent::Expand, Reach::Action, settle) {
            Ok(_) => {
                opened_here = true;
                tried.push(json!({"opened": true}));
            }
            Err(e) if matches!(e.code, ErrorCode::UnhandledAction | ErrorCode::NoEffect) => {
                tried.push(json!({"opened": false, "why": e.message}));
            }
            Err(e) => return Err(e),
        }
    }
    if is_combo && !option_shown(s) {
        open_submenu_holding(s, list, name, settle, &mut tried)?;
    }
    if let Some(option) = options_named(s, list, name).first().copied()
        && actionable::check(s, option, Reach::Action).is_ok()
    {
        match means::carry_out_judged(
            s,
            &target_of(option),
            Intent::Activate,
            Reach::Action,
            settle,
            &verdict,
        ) {
            Ok(mut reply) => {
                reply["node"] = json!(s.reference(list));
                reply["option"] = json!(s.reference(option));
                reply["value"] = json!(shown_choice(s, list));
                return Ok(reply);
            }
            Err(e) if matches!(e.code, ErrorCode::NoEffect | ErrorCode::UnhandledAction) => {
                tried.push(json!({"picked": false, "why": e.message, "tried": e.tried}));
            }
            Err(e) => return Err(e),
        }
    }
    // The keyboard on the list itself: Home, then Down to the option (a closed combo changes
    // its choice as it goes; an open one takes it with Enter).
    let Some(index) = option_index(s, list, name) else {
        let mut error = no_such_option(s, list, name);
        if !tried.is_empty() {
            error = error.with_tried(Value::Array(tried));
        }
        // Left as it was found: a popup opened to look for the option is closed again.
        if opened_here {
            let closed =
                means::carry_out(s, &target_of(list), Intent::Collapse, Reach::Action, settle);
            if closed.is_err() {
                press(s, NamedKey::Escape, settle)?;
            }
        }
        return Err(error);
    };
    let before = s.mirror.version();
    let focused = means::carry_out(s, &target_of(list), Intent::Focus, Reach::Keys, settle);
    if let Err(e) = focused {
        tried.push(json!({"means": "keyboard", "skipped": e.message}));
        return Err(OpError::new(
            ErrorCode::NoEffect,
            format!(
                "{} did not come to show {name:?} by any means",
                describe(s, list)
            ),
        )
        .with_hint("read_node it, and snapshot_tree its options")
        .with_actual_expected(actual(s), json!({"shows": want}))
        .with_tried(Value::Array(tried)));
    }
    // An open popup has only a highlight to move: closed, the combo's own choice moves.
    let open = |s: &Session<T>| {
        s.mirror
            .node(list)
            .is_some_and(|n| n.data().is_expanded() == Some(true))
    };
    let mut keys = KeysPressed::default();
    if is_combo && open(s) {
        keys.press(s, NamedKey::Escape, settle)?;
    }
    keys.press(s, NamedKey::Home, settle)?;
    for _ in 0..index {
        keys.press(s, NamedKey::ArrowDown, settle)?;
    }
    if is_combo && open(s) {
        keys.press(s, NamedKey::Enter, settle)?;
    }
    let judged = super::effect::judge_by(
        s,
        before,
        settle,
        json!({"node": s.reference(list), "via": "keyboard", "keys": keys.names()}),
        &holds,
        &json!({"shows": want}),
        &actual,
    );
    match judged {
        Ok(mut reply) => {
            reply["value"] = json!(shown_choice(s, list));
            if !tried.is_empty() {
                reply["tried"] = Value::Array(tried);
            }
            Ok(reply)
        }
        Err(e) => {
            tried.push(json!({"means": "keyboard", "no_effect": e.actual.as_deref().cloned().unwrap_or(Value::Null)}));
            Err(OpError::new(
                ErrorCode::NoEffect,
                format!("{} did not come to show {name:?} by any means", describe(s, list)),
            )
            .with_hint("read_node it, and snapshot_tree its options: the app may take a choice only from a person's own hand")
            .with_actual_expected(actual(s), json!({"shows": want}))
            .with_tried(Value::Array(tried)))
        }
    }
}

/// Most submenus of an open combo tried in turn for an option none of them is known to hold.
const MAX_SUBMENUS: usize = 30;

/// A combo whose options are filed under submenus (GTK 3's tree-model combo: "C - D" ▸
/// "Denver"): the submenu that holds the option named `name` is opened, as a person opens it
/// to reach the option — the one known to hold it, else each shown one in turn (its items
/// are read only once it opens), closed again when it does not.
fn open_submenu_holding<T: Target + ?Sized>(
    s: &mut Session<T>,
    list: NodeId,
    name: &str,
    settle: &SettleSpec,
    tried: &mut Vec<Value>,
) -> Result<(), OpError> {
    let named = |n: &NodeRef| accessible_name(n).is_some_and(|a| a.trim() == name.trim());
    // Under the combo, else (GTK 3 moves the open popup to a window of its own) anywhere shown.
    let submenus_under = |node: NodeRef<'_>| -> Vec<(NodeId, bool)> {
        descendants_in_order(node)
            .filter(|n| n.role() == Role::Menu && !n.is_hidden())
            .filter(|n| n.parent().is_some_and(|p| p.role() == Role::Menu))
            .map(|n| {
                (
                    n.locate().0,
                    descendants(n).any(|o| is_option_node(&o) && named(&o)),
                )
            })
            .take(MAX_SUBMENUS)
            .collect()
    };
    let mut submenus = s.mirror.node(list).map(submenus_under).unwrap_or_default();
    if submenus.is_empty()
        && let Some(tree) = s.mirror.state()
    {
        submenus = submenus_under(tree.root());
    }
    let known: Vec<NodeId> = submenus
        .iter()
        .filter(|(_, h)| *h)
        .map(|(id, _)| *id)
        .collect();
    let order = if known.is_empty() {
        submenus.iter().map(|(id, _)| *id).collect()
    } else {
        known
    };
    for submenu in order {
        let opened = means::carry_out(
            s,
            &target_of(submenu),
            Intent::Activate,
            Reach::Action,
            settle,
        );
        let label = s.reference(submenu);
        match opened {
            Ok(_) => {
                // Its items show a moment after it opens (a popup of its own).
                let holds_it = |s: &Session<T>| option_pickable(s, list, name);
                if !holds_it(s) && s.target.clock() == ClockKind::Real {
                    super::effect::wait_until(s, settle, holds_it)?;
                }
                let shown = holds_it(s);
                tried.push(json!({"submenu": label, "opened": true, "holds_it": shown}));
                if shown {
                    return Ok(());
                }
                press(s, NamedKey::ArrowLeft, settle)?;
            }
            Err(e) if matches!(e.code, ErrorCode::UnhandledAction | ErrorCode::NoEffect) => {
                tried.push(json!({"submenu": label, "opened": false, "why": e.message}));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Where the option named `name` stands among `list`'s options (document order).
fn option_index<T: Target + ?Sized>(s: &Session<T>, list: NodeId, name: &str) -> Option<usize> {
    let node = s.mirror.node(list)?;
    let mut options: Vec<(NodeId, String)> = descendants_in_order(node)
        .filter(|n| is_option_node(n))
        .filter_map(|n| accessible_name(&n).map(|a| (n.locate().0, a)))
        .collect();
    options.dedup_by(|a, b| a.1 == b.1);
    options.iter().position(|(_, a)| a.trim() == name.trim())
}

/// Whether `list` holds any option (as last read).
fn has_options<T: Target + ?Sized>(s: &Session<T>, list: NodeId) -> bool {
    s.mirror
        .node(list)
        .is_some_and(|n| descendants(n).any(|o| is_option_node(&o)))
}

fn descendants_in_order(node: NodeRef<'_>) -> impl Iterator<Item = NodeRef<'_>> {
    let mut stack: Vec<NodeRef<'_>> = node.children().collect();
    stack.reverse();
    std::iter::from_fn(move || {
        let n = stack.pop()?;
        let mut kids: Vec<NodeRef<'_>> = n.children().collect();
        kids.reverse();
        stack.extend(kids);
        Some(n)
    })
}

fn no_such_option<T: Target + ?Sized>(s: &Session<T>, list: NodeId, name: &str) -> OpError {
    let offered: Vec<String> = s
        .mirror
        .node(list)
        .map(|n| {
            descendants_in_order(n)
                .filter(|o| is_option_node(o))
                .filter_map(|o| accessible_name(&o))
                .take(20)
                .collect()
        })
        .unwrap_or_default();
    OpError::new(
        ErrorCode::NotFound,
        format!("no option named {name:?} in {}", describe(s, list)),
    )
    .with_hint(if offered.is_empty() {
        "snapshot_tree it with include_hidden to see its options; where it shows none even open, its toolkit exposes none to accessibility (GTK 4.8's GtkComboBox) and none can be picked by name".to_string()
    } else {
        format!("its options: {}", offered.join(", "))
    })
}

pub(super) fn describe<T: Target + ?Sized>(s: &Session<T>, id: NodeId) -> String {
    s.mirror.node(id).map_or_else(
        || format!("node {}", id.0),
        |n| value::describe(&n, &s.mirror.refs),
    )
}
