//! Accessibility actions and keyboard input.

use accesskit::{Action, ActionData, ActionRequest, TreeId};
use serde_json::{Value, json};

use super::actionable::{self, Reach};
use super::effect::{self, Watch};
use super::{Resolved, Session, means, value};
use crate::error::{ErrorCode, OpError, OpResult};
use crate::input::{ImeEvent, Key, KeyEvent, keystrokes_for_text};
use crate::intent::Intent;
use crate::node_ref::NodeTarget;
use crate::ops::{InjectKey, InvokeAction, KeyPhase, TypeIme, TypeText};
use crate::settle::SettleSpec;
use crate::snapshot::{ACTIONS, action_name};
use crate::target::{ActionOutcome, ClockKind, Target};
use crate::text_match;

/// Aliases agents reach for, mapped to AccessKit actions.
const ACTION_ALIASES: &[(&str, Action)] = &[
    ("press", Action::Click),
    ("activate", Action::Click),
    ("default", Action::Click),
    ("tap", Action::Click),
    ("invoke", Action::Click),
    ("context_menu", Action::ShowContextMenu),
    ("menu", Action::ShowContextMenu),
];

/// Parses an action name (snake_case, case-insensitive, with aliases). Unknown →
/// `UNKNOWN_NAME`, before any node is looked up.
pub fn parse_action(name: &str) -> Result<Action, OpError> {
    let norm = name.trim().to_ascii_lowercase().replace(['-', ' '], "_");
    if let Some((a, _)) = ACTIONS.iter().find(|(_, n)| *n == norm) {
        return Ok(*a);
    }
    if let Some((_, a)) = ACTION_ALIASES.iter().find(|(n, _)| *n == norm) {
        return Ok(*a);
    }
    let names = ACTIONS
        .iter()
        .map(|(_, n)| *n)
        .chain(ACTION_ALIASES.iter().map(|(n, _)| *n));
    let close = text_match::closest(&norm, names, 3);
    Err(OpError::new(ErrorCode::UnknownName, format!("unknown action {name:?}")).with_hint(
        if close.is_empty() {
            "use one of: click, focus, expand, collapse, increment, decrement, set_value, show_context_menu, scroll_into_view".to_string()
        } else {
            format!("did you mean {}?", close.join(" or "))
        },
    ))
}

fn request(s_id: accesskit::NodeId, action: Action, data: Option<ActionData>) -> ActionRequest {
    ActionRequest {
        action,
        target_tree: TreeId::ROOT,
        target_node: s_id,
        data,
    }
}

/// Sends an action to the node resolved once; `Unhandled` becomes `UNHANDLED_ACTION` naming
/// what the node does support.
fn send<T: Target + ?Sized>(
    s: &mut Session<T>,
    resolved: &Resolved,
    action: Action,
    data: Option<ActionData>,
) -> Result<Value, OpError> {
    match s.target.action(request(resolved.id, action, data))? {
        ActionOutcome::Handled => {
            Ok(json!({ "node": s.reference(resolved.id), "action": action_name(action) }))
        }
        ActionOutcome::Unhandled => {
            let supported: Vec<&str> = resolved.actions.iter().map(|a| action_name(*a)).collect();
            Err(OpError::new(
                ErrorCode::UnhandledAction,
                format!(
                    "node {} ({:?}) did not handle {}; it advertises [{}]",
                    resolved.id.0,
                    resolved.role,
                    action_name(action),
                    supported.join(", ")
                ),
            )
            .with_hint("use one of the advertised actions, or pointer/keyboard input"))
        }
    }
}

/// One action on one node: resolved once, refused when a person could not do it, skipped when
/// the node already is as the action would make it, and — for an action that is an intent
/// (click, focus, expand, …) — carried out by whatever means works, judged by its effect on
/// that node ([`means`]).
fn act_on<T: Target + ?Sized>(
    s: &mut Session<T>,
    node: &NodeTarget,
    action: Action,
    reach: Reach,
    settle: &SettleSpec,
) -> OpResult {
    if let Some(intent) = Intent::of_action(action) {
        return means::carry_out(s, node, intent, reach, settle);
    }
    let resolved = s.resolve(node)?;
    actionable::check_now(s, resolved.id, reach)?;
    let version = s.mirror.version();
    let watch = {
        let n = s
            .mirror
            .node(resolved.id)
            .ok_or_else(|| OpError::new(ErrorCode::Stale, "node vanished"))?;
        Watch::of(&n, action, version)
    };
    let data = send(s, &resolved, action, None)?;
    effect::judge(s, watch, settle, data)
}

pub(super) fn invoke_action<T: Target + ?Sized>(
    s: &mut Session<T>,
    a: &InvokeAction,
    settle: &SettleSpec,
) -> OpResult {
    let action = parse_action(&a.action)?;
    act_on(s, &a.node, action, Reach::Action, settle)
}

pub(super) fn simple_action<T: Target + ?Sized>(
    s: &mut Session<T>,
    node: &NodeTarget,
    action: Action,
    settle: &SettleSpec,
) -> OpResult {
    act_on(s, node, action, Reach::Action, settle)
}

/// The value `wanted` sent to `resolved` through the toolkit, settled, and checked: the node —
/// the one resolved before sending, by id — must now hold it (`NO_EFFECT` otherwise); the reply
/// shows its new value. (`set_value` itself is [`super::choose`]: toggles, options, numbers the
/// app only takes from the keys.)
pub(super) fn send_value<T: Target + ?Sized>(
    s: &mut Session<T>,
    resolved: &Resolved,
    wanted: &value::Wanted,
    settle: &SettleSpec,
) -> OpResult {
    let before = s.mirror.version();
    let data = send(s, resolved, Action::SetValue, Some(wanted.action_data()))?;
    s.target.reread(resolved.id);
    let mut reply = super::settled(s, settle, before, data)?;
    // A value the toolkit takes without telling (GTK 3's spin button sends no event) is read
    // again until it shows, within the settle budget: a value unseen is not a value refused.
    let id = resolved.id;
    let shows = |s: &Session<T>| {
        s.mirror
            .node(id)
            .is_some_and(|n| wanted.verify(&n, &s.mirror.refs).is_ok())
    };
    if !shows(s) && s.target.clock() == ClockKind::Real {
        s.target.reread(id);
        effect::wait_until(s, settle, shows)?;
    }
    let node = s.mirror.node(resolved.id).ok_or_else(|| {
        OpError::new(
            ErrorCode::Stale,
            format!("node {} went away after set_value", resolved.id.0),
        )
        .with_hint("the app replaced it; find it again and read_node it")
    })?;
    wanted.verify(&node, &s.mirror.refs)?;
    reply["value"] = wanted.shown(&node);
    Ok(reply)
}

pub(super) fn inject_key<T: Target + ?Sized>(
    s: &mut Session<T>,
    a: &InjectKey,
) -> Result<Value, OpError> {
    let key = Key::parse(&a.key)?;
    if a.phase == KeyPhase::Up && a.text.is_some() {
        return Err(
            OpError::bad_argument("`text` on a key release: a release types nothing")
                .with_hint("drop `text`, or use phase press/down"),
        );
    }
    let mods = a.modifiers(s.target.platform());
    let text = a
        .text
        .clone()
        .or_else(|| key.default_text().map(str::to_string));
    let press = KeyEvent {
        key,
        pressed: true,
        text,
        modifiers: mods,
    };
    let release = KeyEvent {
        key,
        pressed: false,
        text: None,
        modifiers: mods,
    };
    match a.phase {
        KeyPhase::Press => {
            s.target.key(&press)?;
            s.target.key(&release)?;
        }
        KeyPhase::Down => {
            s.target.key(&press)?;
            if !s.held_keys.contains(&key) {
                s.held_keys.push(key);
            }
        }
        KeyPhase::Up => {
            s.target.key(&release)?;
            s.held_keys.retain(|k| *k != key);
        }
    }
    Ok(json!({ "key": a.key, "held_keys": s.held_keys.len() }))
}

/// Gives `node` the keyboard focus before keys are typed into it (refused when a person could
/// not type there), and makes sure the focus landed: keys sent elsewhere would go to another
/// widget.
fn focus_for_keys<T: Target + ?Sized>(
    s: &mut Session<T>,
    node: Option<&NodeTarget>,
    settle: &SettleSpec,
) -> Result<(), OpError> {
    let Some(node) = node else {
        return Ok(());
    };
    act_on(s, node, Action::Focus, Reach::Keys, settle).map_err(|e| {
        if e.code == ErrorCode::NoEffect {
            OpError::new(
                ErrorCode::NoEffect,
                format!("the focus did not land on {node}, so nothing was typed"),
            )
            .with_hint("click it first (inject_pointer), or focus_node it and read the focus with snapshot_tree")
            .with_actual_expected(
                e.actual.map(|v| *v).unwrap_or_default(),
                e.expected.map(|v| *v).unwrap_or_default(),
            )
        } else {
            e
        }
    })?;
    Ok(())
}

/// `type_text`: the text goes to `node` (focused first), or — as a person's keyboard — to
/// whatever has the focus. Into a node that takes text, it is judged by that node's value:
/// after settling it must show a change (`NO_EFFECT` otherwise), and the reply shows its new
/// value. Into a window (the focus on a keypad, a canvas, nothing), by whether anything in the
/// app changed.
pub(super) fn type_text<T: Target + ?Sized>(
    s: &mut Session<T>,
    a: &TypeText,
    settle: &SettleSpec,
) -> OpResult {
    let receiver = match value::text_receiver(s, a.node.as_ref())? {
        value::Receiver::Field(id) => id,
        value::Receiver::Window(focus) => return type_into_window(s, a, focus, settle),
    };
    focus_for_keys(s, a.node.as_ref(), settle)?;
    let value_before = s.mirror.node(receiver).and_then(|n| n.value());
    let before = s.mirror.version();
    let strokes = send_text(s, &a.text)?;
    let data = json!({ "keys": strokes, "node": s.reference(receiver) });
    let mut reply = super::settled(s, settle, before, data)?;
    let value_of = |s: &Session<T>| s.mirror.node(receiver).and_then(|n| n.value());
    if !a.text.is_empty() && value_of(s) == value_before && s.target.clock() == ClockKind::Real {
        effect::wait_until(s, settle, |s| value_of(s) != value_before)?;
    }
    // The first change is not the last: an app under load takes the keys one by one, and a
    // value read after the first of them would answer "b" for "bravo". On the real clock, wait
    // (within the late-state budget) for the text to show; a field that filters or formats
    // its input never shows it verbatim, and the reply then says so.
    let verbatim = !a.text.is_empty() && !a.text.chars().any(char::is_control);
    let shows_text = |s: &Session<T>| value_of(s).is_some_and(|v| v.contains(a.text.as_str()));
    if verbatim && s.target.clock() == ClockKind::Real && !shows_text(s) {
        effect::wait_until(s, settle, shows_text)?;
    }
    let after = value_of(s);
    // The field went away as it was typed into (its toolkit let its object go): where the
    // keys went is not known, so it is not ok.
    if s.mirror.node(receiver).is_none() {
        let name = s
            .reference(receiver)
            .map_or_else(|| format!("node {}", receiver.0), |r| r.to_string());
        return Err(OpError::new(
            ErrorCode::Stale,
            format!("typed {strokes} key(s) for {name}, which went away meanwhile: where they landed is not known"),
        )
        .with_hint("find the field again with find_node and read_node it, then type the rest"));
    }
    // A password field that shows no text at all, not even its mask (Qt 5's): what it holds
    // cannot be read back, and an unchanged read is no refusal.
    let unreadable = |v: &Option<String>| v.as_deref().is_none_or(str::is_empty);
    if s.mirror
        .node(receiver)
        .is_some_and(|n| n.role() == accesskit::Role::PasswordInput)
        && unreadable(&value_before)
        && unreadable(&after)
    {
        reply["effect"] = json!("not_observed");
        reply["note"] = json!(
            "the password field shows no text, not even a mask: the typed keys were sent, and what it holds cannot be read back"
        );
        return Ok(reply);
    }
    if !a.text.is_empty() && (after.is_some() || value_before.is_some()) && after == value_before {
        let name = s
            .reference(receiver)
            .map_or_else(String::new, |r| r.to_string());
        return Err(OpError::new(
            ErrorCode::NoEffect,
            format!("typed {strokes} key(s) into {name}, but its value did not change"),
        )
        .with_hint("the field may be read-only or filter its input; read_node it, or set_value")
        .with_actual_expected(json!(after), json!(a.text)));
    }
    reply["value"] = value::shown_text(after.as_deref());
    if verbatim
        && after
            .as_deref()
            .is_some_and(|v| !v.contains(a.text.as_str()))
    {
        reply["note"] = json!(
            "the field's value does not hold the typed text: it may filter or format its input, or not all keys landed; read_node it to check"
        );
    } else if let Some(extra) = extra_chars(value_before.as_deref(), after.as_deref(), &a.text) {
        // More landed than was typed: a key repeated (the app saw its release late), or the
        // app added text of its own (completion). Either way the field is not what was asked.
        reply["note"] = json!(format!(
            "the field holds {extra} character(s) more than it held plus the typed text: a key may have repeated, or the app formats or completes its text; read_node it to check"
        ));
    }
    Ok(reply)
}

/// How many characters `after` holds beyond `before` and `typed` together, when more.
fn extra_chars(before: Option<&str>, after: Option<&str>, typed: &str) -> Option<usize> {
    let count = |t: &str| t.chars().count();
    let want = count(before.unwrap_or_default()) + count(typed);
    let have = count(after?);
    (have > want).then(|| have - want)
}

/// Types `text` key by key (checking for cancellation every 64 keys); the keys sent.
pub(super) fn send_text<T: Target + ?Sized>(
    s: &mut Session<T>,
    text: &str,
) -> Result<usize, OpError> {
    send_text_paced(s, text, None)
}

/// How soon a key typed into a window may be pressed again: an app whose keys press its own
/// buttons (KDE's calculator animates each for 100 ms) drops a key that comes back sooner,
/// where a person's finger never is that fast.
const WINDOW_KEY_REPEAT: std::time::Duration = std::time::Duration::from_millis(350);

/// [`send_text`]; with `repeat_gap`, a key pressed again waits until that long after its
/// last press (on the real clock).
fn send_text_paced<T: Target + ?Sized>(
    s: &mut Session<T>,
    text: &str,
    repeat_gap: Option<std::time::Duration>,
) -> Result<usize, OpError> {
    let strokes = keystrokes_for_text(text);
    let paced = repeat_gap.filter(|_| s.target.clock() == ClockKind::Real);
    let mut last: Vec<(Key, std::time::Instant)> = Vec::new();
    for (i, stroke) in strokes.iter().enumerate() {
        if i % 64 == 0 {
            s.cancel
                .check(|| format!("{} of {} keys were typed", i / 2, strokes.len() / 2))?;
        }
        if let Some(gap) = paced
            && stroke.pressed
        {
            if let Some((_, at)) = last.iter().find(|(k, _)| *k == stroke.key) {
                let since = at.elapsed();
                if since < gap {
                    std::thread::sleep(gap - since);
                }
            }
            last.retain(|(k, _)| *k != stroke.key);
            last.push((stroke.key, std::time::Instant::now()));
        }
        s.target.key(stroke)?;
    }
    Ok(strokes.len() / 2)
}

/// `type_text` with no `node` and the focus on no field: the keys go to the focused window,
/// as a person's keyboard sends them; `ok` when the app changed, `NO_EFFECT` when nothing did.
fn type_into_window<T: Target + ?Sized>(
    s: &mut Session<T>,
    a: &TypeText,
    focus: Option<accesskit::NodeId>,
    settle: &SettleSpec,
) -> OpResult {
    let before = s.mirror.version();
    let strokes = send_text_paced(s, &a.text, Some(WINDOW_KEY_REPEAT))?;
    let data = json!({
        "keys": strokes,
        "into": "the focused window",
        "focus": focus.and_then(|f| s.reference(f)),
    });
    let reply = super::settled(s, settle, before, data)?;
    if !a.text.is_empty() && s.mirror.version() == before {
        if s.target.clock() == ClockKind::Real {
            effect::wait_until(s, settle, |s| s.mirror.version() != before)?;
        }
        if s.mirror.version() == before {
            let on = focus.and_then(|f| s.mirror.node(f)).map_or_else(
                || "nothing".to_string(),
                |n| value::describe(&n, &s.mirror.refs),
            );
            return Err(OpError::new(
                ErrorCode::NoEffect,
                format!(
                    "typed {strokes} key(s) to the focused window (the focus is on {on}), and nothing in the app changed"
                ),
            )
            .with_hint("pass `node` to type into a field; for a shortcut or a held key, inject_key"));
        }
    }
    Ok(reply)
}

pub(super) fn type_ime<T: Target + ?Sized>(
    s: &mut Session<T>,
    a: &TypeIme,
    settle: &SettleSpec,
) -> Result<Value, OpError> {
    if a.preedit.is_none() && a.commit.is_none() {
        return Err(OpError::bad_argument(
            "type_ime needs `preedit`, `commit`, or both",
        ));
    }
    focus_for_keys(s, a.node.as_ref(), settle)?;
    if let Some(p) = &a.preedit {
        s.target.ime(&ImeEvent::Preedit(p.clone()))?;
    }
    if let Some(c) = &a.commit {
        s.target.ime(&ImeEvent::Commit(c.clone()))?;
    }
    Ok(json!({}))
}

#[cfg(test)]
mod tests {
    use super::extra_chars;

    #[test]
    fn a_repeated_key_is_counted_and_a_clean_type_is_not() {
        assert_eq!(extra_chars(Some(""), Some("abcc"), "abc"), Some(1));
        assert_eq!(extra_chars(Some("x"), Some("xabc"), "abc"), None);
        assert_eq!(extra_chars(None, Some("Zoë"), "Zoë"), None);
        assert_eq!(extra_chars(Some("ab"), None, "c"), None);
    }
}
