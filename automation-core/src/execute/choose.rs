//! `set_value` as a person sets a value, by what the node is:
//!
//! - **a toggle** (a check box, a switch, a toggle button, a radio button): `true`/`false`
//!   (or `1`/`0`, `"on"`/`"off"`) — clicked when it is not so already, judged by its state.
//!   A toolkit's `Value` on a toggle button is no way to press it (LibreOffice's Bold takes
//!   `0` and unchecks itself without making the text plain);
//! - **a list of options** (a combo box, a list box, a tab list): the option named, picked as
//!   the `options` module says;
//! - **a number** (a slider, a spin button): set through the toolkit's value, and when the app
//!   ignores that (Swing's `JSlider`), moved with the arrow keys as a person would;
//! - **text**: set through the toolkit, judged by what the field holds.

use accesskit::{NodeId, Role, Toggled};
use accesskit_consumer::NodeRef;
use serde_json::{Value, json};

use super::actionable::{self, Reach};
use super::means::{self, KeysPressed, press, target_of};
use super::options::{describe, select_option};
use super::{Session, value};
use crate::error::{ErrorCode, OpError, OpResult};
use crate::input::{Key, KeyEvent, Modifiers, NamedKey};
use crate::intent::Intent;
use crate::ops::{FieldValue, SetValue};
use crate::settle::SettleSpec;
use crate::target::Target;

/// Arrow-key presses a number may take to reach its value.
const MAX_STEPS: usize = 300;

/// The kind of node `set_value` meets.
enum Kind {
    Toggle(bool),
    Options,
    Other,
}

/// `set_value`, by what the node is (see the module's notes).
pub(super) fn set_value<T: Target + ?Sized>(
    s: &mut Session<T>,
    a: &SetValue,
    settle: &SettleSpec,
) -> OpResult {
    let resolved = s.resolve(&a.node)?;
    actionable::check_now(s, resolved.id, Reach::Action)?;
    let kind = {
        let node = s
            .mirror
            .node(resolved.id)
            .ok_or_else(|| OpError::new(ErrorCode::Stale, "the node vanished"))?;
        kind_of(&node, &a.value, &s.mirror.refs)?
    };
    match kind {
        Kind::Toggle(want) => set_toggle(s, resolved.id, want, settle),
        Kind::Options => match &a.value {
            FieldValue::Text(name) => select_option(s, resolved.id, name, settle),
            other => Err(OpError::bad_argument(format!(
                "a list of options takes an option's name, not {other:?}"
            ))
            .with_hint("pass the option's name as shown, as a string")),
        },
        Kind::Other => set_directly(s, resolved.id, &a.value, settle),
    }
}

fn kind_of(node: &NodeRef, value: &FieldValue, refs: &crate::refs::Refs) -> Result<Kind, OpError> {
    let toggle_role = matches!(
        node.role(),
        Role::CheckBox
            | Role::Switch
            | Role::RadioButton
            | Role::MenuItemCheckBox
            | Role::MenuItemRadio
            | Role::Button
    );
    if toggle_role && node.toggled().is_some() {
        return toggle_wanted(node, value, refs).map(Kind::Toggle);
    }
    let editable = node.data().supports_action(accesskit::Action::SetValue);
    match node.role() {
        // An editable combo (a browser's address bar) takes text; the others, an option.
        Role::ComboBox | Role::EditableComboBox if !editable => Ok(Kind::Options),
        Role::ListBox | Role::TabList | Role::List | Role::Tree | Role::RadioGroup => {
            Ok(Kind::Options)
        }
        _ => Ok(Kind::Other),
    }
}

/// The state a toggle is to take, from `true`/`false`, `1`/`0` or their words.
fn toggle_wanted(
    node: &NodeRef,
    value: &FieldValue,
    refs: &crate::refs::Refs,
) -> Result<bool, OpError> {
    let what = value::describe(node, refs);
    let bad = || {
        OpError::bad_argument(format!("{what} is on or off; {value:?} is neither"))
            .with_hint("pass true or false (or 1 / 0, \"on\" / \"off\")")
    };
    match value {
        FieldValue::Bool(b) => Ok(*b),
        FieldValue::Number(n) if *n == 0.0 => Ok(false),
        FieldValue::Number(n) if *n == 1.0 => Ok(true),
        FieldValue::Number(_) => Err(bad()),
        FieldValue::Text(t) => match t.trim().to_ascii_lowercase().as_str() {
            "true" | "on" | "1" | "yes" | "checked" | "pressed" => Ok(true),
            "false" | "off" | "0" | "no" | "unchecked" => Ok(false),
            _ => Err(bad()),
        },
    }
}

fn set_toggle<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
    want: bool,
    settle: &SettleSpec,
) -> OpResult {
    let (now, role) = {
        let node = s
            .mirror
            .node(id)
            .ok_or_else(|| OpError::new(ErrorCode::Stale, "the node vanished"))?;
        (node.toggled(), node.role())
    };
    if now == Some(if want { Toggled::True } else { Toggled::False }) {
        return Ok(json!({
            "node": s.reference(id),
            "value": want,
            "unchanged": format!("it was already {}", if want { "on" } else { "off" }),
        }));
    }
    if !want && matches!(role, Role::RadioButton | Role::MenuItemRadio) {
        return Err(OpError::bad_argument(
            "a radio button is turned off by choosing another of its group",
        )
        .with_hint("choose the radio button that should be on instead (true on it)"));
    }
    let mut reply = means::carry_out(s, &target_of(id), Intent::Activate, Reach::Action, settle)?;
    reply["value"] = json!(want);
    Ok(reply)
}

/// A number or text, through the toolkit's value (the means it has); a number the app does
/// not take that way is then moved with the arrow keys, as a person moves a slider.
fn set_directly<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
    value: &FieldValue,
    settle: &SettleSpec,
) -> OpResult {
    let wanted = {
        let node = s
            .mirror
            .node(id)
            .ok_or_else(|| OpError::new(ErrorCode::Stale, "the node vanished"))?;
        value::Wanted::for_node(&node, value, &s.mirror.refs)?
    };
    if let value::Wanted::Text(_) = wanted
        && s.mirror
            .node(id)
            .is_some_and(|n| value::text_is_read_only(&n))
    {
        // The toolkit may write it all the same (Java's EditableText does): a person cannot.
        return Err(OpError::new(
            ErrorCode::UnhandledAction,
            format!(
                "{} is read-only: a person cannot change its text; nothing was sent",
                describe(s, id)
            ),
        )
        .with_hint(
            "read_node it to read its value; change what it shows through the widget that sets it",
        ));
    }
    let resolved = s.resolve(&target_of(id))?;
    let held_before = s.mirror.node(id).and_then(|n| n.value());
    let tried = super::act::send_value(s, &resolved, &wanted, settle);
    let refused = match tried {
        Ok(reply) => return Ok(reply),
        Err(e) if matches!(e.code, ErrorCode::NoEffect | ErrorCode::UnhandledAction) => e,
        Err(e) => return Err(e),
    };
    let n = match &wanted {
        value::Wanted::Number(n) => *n,
        // Typed over only when the toolkit's way wrote nothing: a field that took the text
        // and rewrote it (a one-line field turns a line break into a space) has answered.
        value::Wanted::Text(_) if s.mirror.node(id).and_then(|n| n.value()) != held_before => {
            return Err(refused);
        }
        value::Wanted::Text(text) => return type_over(s, id, text, refused, settle),
    };
    // A number field a person types into (a web page's): the number typed over it.
    if s.mirror
        .node(id)
        .is_some_and(|n| n.role() == Role::SpinButton && super::value::types_into(&n))
    {
        let typed = crate::ops::number_as_typed(n);
        match type_over(s, id, &typed, refused.clone(), settle) {
            Err(e) if e.code == ErrorCode::NoEffect => {}
            done => return done,
        }
    }
    let role = s.mirror.node(id).map(|n| n.role());
    if !matches!(
        role,
        Some(Role::Slider | Role::SpinButton | Role::ScrollBar)
    ) {
        return Err(refused);
    }
    step_with_keys(s, id, n, settle).map_err(|e| {
        if e.code == ErrorCode::NoEffect {
            e.with_tried(json!([
                {"means": "action", "no_effect": refused.actual.as_deref().cloned().unwrap_or(Value::Null)},
                {"means": "keyboard", "no_effect": Value::Null},
            ]))
        } else {
            e
        }
    })
}

/// A field's text replaced as a person replaces it, when the toolkit's own way did nothing
/// (a web page's field: Firefox's `EditableText` writes nothing, Chromium has none): the focus
/// on it, everything in it selected (Ctrl+A), the text typed over the selection (or Delete
/// for none). Judged by the field's value, as `set_value` is.
fn type_over<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
    text: &str,
    refused: OpError,
    settle: &SettleSpec,
) -> OpResult {
    let editable = s
        .mirror
        .node(id)
        .is_some_and(|n| super::value::types_into(&n) && !value::text_is_read_only(&n));
    if !editable {
        return Err(refused);
    }
    let first = json!({"means": "action", "no_effect": refused.actual.as_deref().cloned().unwrap_or(Value::Null)});
    if let Err(e) = means::carry_out(s, &target_of(id), Intent::Focus, Reach::Keys, settle) {
        return Err(refused.with_tried(json!([first, {"means": "keyboard", "skipped": e.message}])));
    }
    let before = s.mirror.version();
    let ctrl = Modifiers {
        ctrl: true,
        ..Modifiers::default()
    };
    for pressed in [true, false] {
        s.target.key(&KeyEvent {
            key: Key::Character('A'),
            pressed,
            text: None,
            modifiers: ctrl,
        })?;
    }
    if text.is_empty() {
        press(s, NamedKey::Delete, settle)?;
    } else {
        super::act::send_text(s, text)?;
    }
    s.target.reread(id);
    let want = text.to_string();
    let number = want.trim().parse::<f64>().ok();
    let holds = |s: &Session<T>| {
        s.mirror.node(id).is_some_and(|n| {
            n.value().as_deref() == Some(want.as_str())
                || (number.is_some() && n.numeric_value() == number)
        })
    };
    let actual = |s: &Session<T>| json!(s.mirror.node(id).and_then(|n| n.value()));
    super::effect::judge_by(
        s,
        before,
        settle,
        json!({"node": s.reference(id), "via": "keyboard", "value": text}),
        &holds,
        &json!(text),
        &actual,
    )
    .map_err(|e| {
        let held = e.actual.as_deref().cloned().unwrap_or(Value::Null);
        e.with_tried(json!([first, {"means": "keyboard", "no_effect": held}]))
    })
}

/// Moves a slider or spin button to `want` with the arrow keys (Home/End for its ends), one
/// press at a time, reading it after each: stops at the value, or where the next press would
/// pass it, or when a press changes nothing.
fn step_with_keys<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
    want: f64,
    settle: &SettleSpec,
) -> OpResult {
    means::carry_out(s, &target_of(id), Intent::Focus, Reach::Keys, settle).map_err(|e| {
        OpError::new(
            ErrorCode::NoEffect,
            format!(
                "the app did not take the value, and the focus could not be put on {} to move it with the keys ({})",
                describe(s, id),
                e.message
            ),
        )
    })?;
    let read = |s: &Session<T>| s.mirror.node(id).and_then(|n| n.numeric_value());
    let (min, max, step) = s.mirror.node(id).map_or((None, None, 0.0), |n| {
        let d = n.data();
        (
            d.min_numeric_value(),
            d.max_numeric_value(),
            d.numeric_value_step().unwrap_or(0.0).abs(),
        )
    });
    let close = |v: f64| (v - want).abs() <= step / 2.0 + 1e-9 * want.abs().max(1.0);
    let spin = s
        .mirror
        .node(id)
        .is_some_and(|n| n.role() == Role::SpinButton);
    let (up, down) = if spin {
        (NamedKey::ArrowUp, NamedKey::ArrowDown)
    } else {
        (NamedKey::ArrowRight, NamedKey::ArrowLeft)
    };
    let mut keys = KeysPressed::default();
    let mut still = 0usize;
    if min.is_some_and(|m| close(m) || want <= m) {
        keys.press(s, NamedKey::Home, settle)?;
    } else if max.is_some_and(|m| close(m) || want >= m) {
        keys.press(s, NamedKey::End, settle)?;
    }
    while keys.count() < MAX_STEPS {
        let Some(now) = read(s) else { break };
        if close(now) {
            break;
        }
        let key = if now < want { up } else { down };
        keys.press(s, key, settle)?;
        match read(s) {
            Some(after) if close(after) => break,
            // Past it: the nearest the app's steps allow is one of the two.
            Some(after) if (after - want).signum() != (now - want).signum() => {
                if (after - want).abs() > (now - want).abs() {
                    keys.press(s, if key == up { down } else { up }, settle)?;
                }
                break;
            }
            Some(after) if after == now => {
                still += 1;
                if still >= 2 {
                    break;
                }
            }
            _ => still = 0,
        }
    }
    let after = read(s);
    if !after.is_some_and(close) {
        return Err(OpError::new(
            ErrorCode::NoEffect,
            format!(
                "{} holds {}, not {want}: the app took neither the value nor {} key presses toward it",
                describe(s, id),
                keys.count(),
                after.map_or("no number".to_string(), |v| v.to_string())
            ),
        )
        .with_hint("read_node it: the app may step or clamp the value")
        .with_actual_expected(json!(after), json!(want)));
    }
    Ok(json!({
        "node": s.reference(id),
        "value": after,
        "via": "keyboard",
        "keys": keys.names(),
    }))
}
