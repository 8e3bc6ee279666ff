//! What a node can take (a number, text, nothing) and whether it took it: the checks behind
//! `set_value` and `type_text`, so neither answers `ok` when nothing changed.

use accesskit::{ActionData, NodeId, Role};
use accesskit_consumer::NodeRef;
use serde_json::{Value, json};

use super::Session;
use crate::error::{ErrorCode, OpError};
use crate::node_ref::NodeTarget;
use crate::ops::FieldValue;
use crate::refs::Refs;
use crate::snapshot::{SNAPSHOT_TEXT_BYTES, accessible_name, role_name};
use crate::target::Target;

/// Whether a node takes typed text: every AccessKit `…Input` role, plus the editable combo
/// box and the terminal.
pub(super) fn takes_text(role: Role) -> bool {
    matches!(role, Role::EditableComboBox | Role::Terminal) || role_name(role).ends_with("Input")
}

/// Whether typed keys may edit `node`: a text role, a cell that is not read-only (a
/// spreadsheet's cell takes keys while it has the focus), or a spin button that takes a
/// value. Where the keys change nothing, `type_text` answers `NO_EFFECT`.
pub(super) fn types_into(node: &NodeRef) -> bool {
    takes_text(node.role())
        || (matches!(node.role(), Role::Cell | Role::GridCell) && !node.data().is_read_only())
        || (node.role() == Role::SpinButton
            && !node.is_read_only()
            && node.data().supports_action(accesskit::Action::SetValue))
        // Any other node whose text can be edited (a word processor's paragraph, a page's
        // editable region, a browser's address bar): it takes a value, and not a number.
        || (!is_numeric(node)
            && !node.data().is_read_only()
            && node.data().supports_action(accesskit::Action::SetValue))
}

/// Whether a node's text is read-only to a person: marked so, or of a role AccessKit deems
/// read-only (a paragraph) with no way to set its text (a word processor's paragraph has one).
pub(super) fn text_is_read_only(node: &NodeRef) -> bool {
    node.data().is_read_only()
        || (node.is_read_only() && !node.data().supports_action(accesskit::Action::SetValue))
}

/// Whether a node holds a number: it reports a numeric value or range, or is a slider-like role.
fn is_numeric(node: &NodeRef) -> bool {
    let data = node.data();
    node.numeric_value().is_some()
        || data.min_numeric_value().is_some()
        || data.max_numeric_value().is_some()
        || matches!(
            node.role(),
            Role::Slider | Role::SpinButton | Role::ScrollBar | Role::Meter
        )
}

/// `e5 (Slider "Volume")`.
pub(super) fn describe(node: &NodeRef, refs: &Refs) -> String {
    match accessible_name(node) {
        Some(name) => format!("{} ({} {name:?})", refs.mint(node), role_name(node.role())),
        None => format!("{} ({})", refs.mint(node), role_name(node.role())),
    }
}

/// The value `set_value` sends, checked against what the node takes.
pub(super) enum Wanted {
    /// A number for a numeric node.
    Number(f64),
    /// Text for a text node.
    Text(String),
}

impl Wanted {
    /// Checks `value` against the node: a numeric node takes a number (or a string that
    /// parses as one) within its range; a text node takes a string; a node that is neither and
    /// does not advertise `set_value` takes nothing.
    pub(super) fn for_node(
        node: &NodeRef,
        value: &FieldValue,
        refs: &Refs,
    ) -> Result<Self, OpError> {
        let what = describe(node, refs);
        if is_numeric(node) {
            let n = match value {
                FieldValue::Number(n) => *n,
                FieldValue::Text(t) => t.trim().parse::<f64>().map_err(|_| {
                    OpError::bad_argument(format!("{what} takes a number; {t:?} is not one"))
                        .with_hint("pass a JSON number, e.g. \"value\": 75")
                })?,
                FieldValue::Bool(b) => {
                    return Err(
                        OpError::bad_argument(format!("{what} takes a number, not {b}"))
                            .with_hint("pass a JSON number, e.g. \"value\": 75"),
                    );
                }
            };
            if !n.is_finite() {
                return Err(OpError::bad_argument(format!(
                    "value {n} is not a finite number"
                )));
            }
            let data = node.data();
            let (min, max) = (data.min_numeric_value(), data.max_numeric_value());
            if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
                return Err(OpError::bad_argument(format!(
                    "{what} takes {}..={}; {n} is outside",
                    min.map_or("-inf".into(), |m| m.to_string()),
                    max.map_or("inf".into(), |m| m.to_string())
                ))
                .with_hint("pass a value within the node's range"));
            }
            return Ok(Self::Number(n));
        }
        let accepts =
            takes_text(node.role()) || node.data().supports_action(accesskit::Action::SetValue);
        match value {
            FieldValue::Text(t) if accepts => Ok(Self::Text(t.clone())),
            FieldValue::Number(n) if takes_text(node.role()) => Err(OpError::bad_argument(
                format!("{what} takes text, not the number {n}"),
            )
            .with_hint(format!("pass the text as a string: \"value\": \"{n}\""))),
            _ => Err(OpError::bad_argument(format!("{what} takes no value"))
                .with_hint("a value goes to a text field, a number, a toggle or a list of options; this one is pressed (invoke_action) or typed at")),
        }
    }

    pub(super) fn action_data(&self) -> ActionData {
        match self {
            Self::Number(n) => ActionData::NumericValue(*n),
            Self::Text(t) => ActionData::Value(t.clone().into()),
        }
    }

    /// `NO_EFFECT` unless the node now holds the value (a number within half its step).
    pub(super) fn verify(&self, node: &NodeRef, refs: &Refs) -> Result<(), OpError> {
        let (held, expected, ok) = match self {
            Self::Number(n) => {
                let actual = node.numeric_value();
                let step = node.data().numeric_value_step().unwrap_or(0.0).abs();
                let tolerance = step / 2.0 + 1e-9 * n.abs().max(1.0);
                let ok = actual.is_some_and(|a| (a - n).abs() <= tolerance);
                (json!(actual), json!(n), ok)
            }
            // A password field shows a mask: what it can tell is how many characters it holds.
            Self::Text(t) if node.role() == Role::PasswordInput => {
                let held = node.value().map_or(0, |v| v.chars().count());
                let want = t.chars().count();
                (
                    json!({ "characters": held }),
                    json!({ "characters": want }),
                    held == want,
                )
            }
            Self::Text(t) => {
                let actual = node.value();
                let ok = actual.as_deref() == Some(t.as_str());
                (shown_text(actual.as_deref()), json!(t), ok)
            }
        };
        if ok {
            return Ok(());
        }
        Err(OpError::new(
            ErrorCode::NoEffect,
            format!(
                "set_value reached {}, but it holds {held}, not {expected}",
                describe(node, refs)
            ),
        )
        .with_hint(match self {
            Self::Number(_) => "the app refused, stepped or clamped it; read_node it",
            Self::Text(_) => "the app refused or rewrote it (read-only, filtered); read_node it, or type the text with type_text",
        })
        .with_actual_expected(held, expected))
    }

    /// The node's value as the reply shows it.
    pub(super) fn shown(&self, node: &NodeRef) -> Value {
        match self {
            Self::Number(_) => json!(node.numeric_value()),
            Self::Text(_) if node.role() == Role::PasswordInput => {
                json!({ "characters": node.value().map_or(0, |v| v.chars().count()) })
            }
            Self::Text(_) => shown_text(node.value().as_deref()),
        }
    }
}

/// A text value for a reply: cut like a snapshot's strings.
pub(super) fn shown_text(text: Option<&str>) -> Value {
    match text {
        Some(t) if t.len() > SNAPSHOT_TEXT_BYTES => {
            let mut end = SNAPSHOT_TEXT_BYTES;
            while !t.is_char_boundary(end) {
                end -= 1;
            }
            json!(format!("{}…", &t[..end]))
        }
        other => json!(other),
    }
}

/// The node `type_text` types into: `node` when given, else the focused node; either must take
/// text, else `BAD_ARGUMENT` naming it — unless the node named has the focus, or is a window
/// that holds it: the keys then go to the focused window.
pub(super) fn text_receiver<T: Target + ?Sized>(
    s: &Session<T>,
    node: Option<&NodeTarget>,
) -> Result<Receiver, OpError> {
    let refs = &s.mirror.refs;
    if let Some(target) = node {
        let id = s.resolve(target)?.id;
        let n = s
            .mirror
            .node(id)
            .ok_or_else(|| OpError::new(ErrorCode::NotFound, "node vanished"))?;
        if !types_into(&n) {
            // A node that has the focus, or a window that holds it, takes keys as a person's
            // keyboard sends them (kcalc's display): judged like the focused window's.
            let focus = s
                .mirror
                .state()
                .and_then(|t| t.focus().map(|f| f.locate().0));
            let holds_focus = focus.is_some_and(|f| {
                f == id
                    || (matches!(n.role(), Role::Window | Role::Dialog | Role::AlertDialog)
                        && s.mirror
                            .node(f)
                            .is_some_and(|f| super::effect::is_inside(&f, id)))
            });
            if holds_focus {
                return Ok(Receiver::Window(focus));
            }
            return Err(OpError::bad_argument(format!(
                "{} takes no text",
                describe(&n, refs)
            ))
            .with_hint("name a text field (role TextInput, MultilineTextInput, …), or leave out `node` to send the keys to the focused window; a button is pressed with invoke_action"));
        }
        return Ok(Receiver::Field(id));
    }
    let state = s.mirror.require_state()?;
    Ok(match state.focus() {
        Some(f) if types_into(&f) => Receiver::Field(f.locate().0),
        // As a person's keyboard: the keys go to whatever has the focus in the app's window
        // (a calculator's keypad, a canvas, a list that types ahead).
        Some(f) => Receiver::Window(Some(f.locate().0)),
        None => Receiver::Window(None),
    })
}

/// Where `type_text` sends its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Receiver {
    /// A node that takes text: judged by its value.
    Field(NodeId),
    /// The focused window (the focus on a node that takes no text, or on none): judged by
    /// whether anything in the app changed.
    Window(Option<NodeId>),
}
