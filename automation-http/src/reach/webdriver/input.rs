//! Keys and pointer input as WebDriver sends them, turned into the catalog's input ops:
//! `send keys` text with W3C's special-key code points (U+E000…U+E05D), and the actions API's
//! input sources, tick by tick.
//!
//! Each piece becomes one of the catalog's ops, typed (`type_text`, `focus_node`,
//! `inject_key`, `inject_pointer`), so the kit's judging of each effect is the same as over MCP.

use automation_core::ops::{self, KeyPhase, NodeArgs};
use automation_core::{NodeTarget, PointerButton};
use serde::Deserialize;
use serde_json::Value;

use super::error::WdError;

/// What one character of a `send keys` text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Typed as text.
    Char(char),
    /// A named key (`enter`, `arrowleft`, `f5`), as `inject_key` names it.
    Named(&'static str),
    /// A modifier, held until the text ends or a NULL key.
    Modifier(Modifier),
    /// U+E000: releases every held modifier.
    Null,
}

/// A held modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    /// Shift.
    Shift,
    /// Control.
    Ctrl,
    /// Alt.
    Alt,
    /// Meta (the Windows or Command key).
    Meta,
}

impl Modifier {
    /// Holds this modifier for a key press.
    fn hold(self, press: &mut ops::InjectKey) {
        match self {
            Self::Shift => press.shift = true,
            Self::Ctrl => press.ctrl = true,
            Self::Alt => press.alt = true,
            Self::Meta => press.meta = true,
        }
    }

    fn key(self) -> &'static str {
        match self {
            Self::Shift => "shift",
            Self::Ctrl => "control",
            Self::Alt => "alt",
            Self::Meta => "meta",
        }
    }
}

/// W3C's code point for a key, as this kit names it.
pub fn classify(c: char) -> Key {
    let named = |n| Key::Named(n);
    match c as u32 {
        0xE000 => Key::Null,
        0xE003 => named("backspace"),
        0xE004 => named("tab"),
        0xE006 | 0xE007 => named("enter"),
        0xE008 | 0xE050 => Key::Modifier(Modifier::Shift),
        0xE009 | 0xE051 => Key::Modifier(Modifier::Ctrl),
        0xE00A | 0xE052 => Key::Modifier(Modifier::Alt),
        0xE03D | 0xE053 => Key::Modifier(Modifier::Meta),
        0xE00C => named("escape"),
        0xE00D => Key::Char(' '),
        0xE00E | 0xE054 => named("pageup"),
        0xE00F | 0xE055 => named("pagedown"),
        0xE010 | 0xE056 => named("end"),
        0xE011 | 0xE057 => named("home"),
        0xE012 | 0xE058 => named("arrowleft"),
        0xE013 | 0xE059 => named("arrowup"),
        0xE014 | 0xE05A => named("arrowright"),
        0xE015 | 0xE05B => named("arrowdown"),
        0xE016 | 0xE05C => named("insert"),
        0xE017 | 0xE05D => named("delete"),
        0xE018 => Key::Char(';'),
        0xE019 => Key::Char('='),
        n @ 0xE01A..=0xE023 => Key::Char(char::from_digit(n - 0xE01A, 10).unwrap_or('0')),
        0xE024 => Key::Char('*'),
        0xE025 => Key::Char('+'),
        0xE026 => Key::Char(','),
        0xE027 => Key::Char('-'),
        0xE028 => Key::Char('.'),
        0xE029 => Key::Char('/'),
        n @ 0xE031..=0xE03C => named(F_KEYS[(n - 0xE031) as usize]),
        _ => Key::Char(c),
    }
}

const F_KEYS: [&str; 12] = [
    "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
];

/// One op of a key sequence.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyOp {
    /// A run of plain text, typed into the node.
    Type(ops::TypeText),
    /// The node takes the keyboard focus (before the first key pressed on it).
    Focus(NodeArgs),
    /// One key pressed, with the modifiers held.
    Press(ops::InjectKey),
}

/// The ops that type `text` into `node`: runs of plain text as `type_text`, named keys and
/// anything typed while a modifier is held as `inject_key` presses (after focusing `node`).
pub fn send_keys(node: &NodeTarget, text: &str) -> Vec<KeyOp> {
    let mut calls = Vec::new();
    let mut run = String::new();
    let mut held: Vec<Modifier> = Vec::new();
    let mut focused = false;
    let type_run = |text: String| {
        KeyOp::Type(ops::TypeText {
            node: Some(node.clone()),
            text,
        })
    };
    let press = |key: String, held: &[Modifier]| {
        let mut press = ops::InjectKey {
            key,
            ..Default::default()
        };
        for m in held {
            m.hold(&mut press);
        }
        KeyOp::Press(press)
    };
    for c in text.chars() {
        let key = classify(c);
        if let Key::Char(ch) = key
            && held.is_empty()
        {
            run.push(ch);
            continue;
        }
        if !run.is_empty() {
            calls.push(type_run(std::mem::take(&mut run)));
            focused = true;
        }
        if !focused {
            calls.push(KeyOp::Focus(NodeArgs { node: node.clone() }));
            focused = true;
        }
        match key {
            Key::Char(ch) => calls.push(press(ch.to_string(), &held)),
            Key::Named(n) => calls.push(press(n.to_string(), &held)),
            Key::Modifier(m) => {
                if !held.contains(&m) {
                    held.push(m);
                }
            }
            Key::Null => held.clear(),
        }
    }
    if !run.is_empty() {
        calls.push(type_run(run));
    }
    calls
}

/// Where a pointer is.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Point {
    /// x.
    pub x: f64,
    /// y.
    pub y: f64,
}

/// One step of the actions API, ready to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Wait.
    Pause(u64),
    /// Move the pointer: to a point, or (`element`) to an element's centre plus an offset.
    Move {
        /// An element origin (its `ref`), resolved to its centre when the step runs.
        element: Option<String>,
        /// Relative to the current position (`origin: "pointer"`).
        relative: bool,
        /// x (or the offset).
        x: f64,
        /// y (or the offset).
        y: f64,
    },
    /// A button down or up at the current position.
    Button {
        /// Down (else up).
        down: bool,
        /// Which button.
        button: PointerButton,
    },
    /// A key down or up.
    Key {
        /// Down (else up).
        down: bool,
        /// The key.
        key: Key,
    },
}

/// Most actions one `POST /actions` may hold.
pub const MAX_STEPS: usize = 10_000;
/// Most pause time one `POST /actions` may hold, summed over its sources.
pub const MAX_PAUSE_MS: u64 = 60_000;

/// The element reference key of W3C.
pub const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A `POST /actions` body: its input sources, each read alone so an error names its place.
#[derive(Debug, Deserialize)]
struct ActionsBody {
    actions: Vec<InputSource>,
}

/// One input source (`pointer`, `key`, `none`, `wheel`) and its actions.
#[derive(Debug, Deserialize)]
struct InputSource {
    #[serde(rename = "type", default)]
    kind: String,
    actions: Vec<Value>,
}

// One action of an input source, as W3C spells it, by its `type`; fields this kit does not use
// (`width`, `pressure`, a move's `duration`) are ignored. Each is read after its `type`, so an
// error names the field.

/// `type` alone.
#[derive(Debug, Deserialize)]
struct ActionType {
    #[serde(rename = "type")]
    ty: String,
}

/// `pause`.
#[derive(Debug, Deserialize)]
struct Pause {
    #[serde(default)]
    duration: Option<f64>,
}

/// `pointerMove`.
#[derive(Debug, Deserialize)]
struct PointerMove {
    #[serde(default)]
    origin: Origin,
    #[serde(default)]
    x: f64,
    #[serde(default)]
    y: f64,
}

/// `pointerDown`, `pointerUp`.
#[derive(Debug, Deserialize)]
struct PointerButtonAction {
    #[serde(default)]
    button: u64,
}

/// `keyDown`, `keyUp`.
#[derive(Debug, Deserialize)]
struct KeyAction {
    value: String,
}

/// Where a pointer move is measured from.
#[derive(Debug, Default, Deserialize)]
#[serde(try_from = "Value")]
enum Origin {
    /// The window's top left (`viewport`, or no origin).
    #[default]
    Viewport,
    /// The pointer's current position (`pointer`).
    Pointer,
    /// An element's centre (its reference).
    Element(String),
}

impl TryFrom<Value> for Origin {
    type Error = String;

    fn try_from(v: Value) -> Result<Self, String> {
        match v {
            Value::Null => Ok(Self::Viewport),
            Value::String(s) if s == "viewport" => Ok(Self::Viewport),
            Value::String(s) if s == "pointer" => Ok(Self::Pointer),
            Value::Object(o) => match o.get(ELEMENT_KEY) {
                Some(Value::String(r)) => Ok(Self::Element(r.clone())),
                _ => Err("origin is an object but not an element reference".into()),
            },
            other => Err(format!(
                "origin {other} is not viewport, pointer or an element"
            )),
        }
    }
}

/// The steps of a `POST /actions` body, in tick order (each tick's steps in source order).
pub fn steps(body: Value) -> Result<Vec<Step>, WdError> {
    let body: ActionsBody = super::bodies::typed(body).map_err(|e| {
        WdError::argument(format!(
            "{e}; the actions body needs `actions`: an array of input sources"
        ))
    })?;
    let mut per_source: Vec<Vec<Step>> = Vec::new();
    for (i, source) in body.actions.into_iter().enumerate() {
        let mut list = Vec::new();
        for (j, a) in source.actions.into_iter().enumerate() {
            list.push(
                step(&source.kind, a)
                    .map_err(|m| WdError::argument(format!("actions[{i}].actions[{j}]: {m}")))?,
            );
        }
        per_source.push(list);
    }
    let total: usize = per_source.iter().map(Vec::len).sum();
    if total > MAX_STEPS {
        return Err(WdError::argument(format!(
            "the actions body holds {total} actions; at most {MAX_STEPS} a request: send them in several"
        )));
    }
    let paused: u64 = per_source
        .iter()
        .flatten()
        .map(|s| if let Step::Pause(ms) = s { *ms } else { 0 })
        .sum();
    if paused > MAX_PAUSE_MS {
        return Err(WdError::argument(format!(
            "the actions pause {paused} ms in all; at most {MAX_PAUSE_MS} ms a request (a session's commands wait behind it)"
        )));
    }
    let ticks = per_source.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for t in 0..ticks {
        for list in &per_source {
            if let Some(s) = list.get(t) {
                out.push(s.clone());
            }
        }
    }
    Ok(out)
}

fn step(kind: &str, a: Value) -> Result<Step, String> {
    let ty = super::bodies::typed::<ActionType>(a.clone())?.ty;
    let button = |a: Value| match super::bodies::typed::<PointerButtonAction>(a)?.button {
        0 => Ok(PointerButton::Primary),
        1 => Ok(PointerButton::Middle),
        2 => Ok(PointerButton::Secondary),
        b => Err(format!(
            "button {b} is not 0 (left), 1 (middle) or 2 (right)"
        )),
    };
    let key = |a: Value| {
        let value = super::bodies::typed::<KeyAction>(a)?.value;
        let mut chars = value.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(classify(c)),
            _ => Err(format!(
                "a key action's value must be one character, got {value:?}"
            )),
        }
    };
    match (kind, ty.as_str()) {
        (_, "pause") => Ok(Step::Pause(
            super::bodies::typed::<Pause>(a)?
                .duration
                .unwrap_or(0.0)
                .clamp(0.0, 60_000.0) as u64,
        )),
        ("pointer", "pointerMove") => {
            let PointerMove { origin, x, y } = super::bodies::typed(a)?;
            let (element, relative) = match origin {
                Origin::Viewport => (None, false),
                Origin::Pointer => (None, true),
                Origin::Element(r) => (Some(r), false),
            };
            Ok(Step::Move {
                element,
                relative,
                x,
                y,
            })
        }
        ("pointer", "pointerDown" | "pointerUp") => Ok(Step::Button {
            down: ty == "pointerDown",
            button: button(a)?,
        }),
        ("key", "keyDown" | "keyUp") => Ok(Step::Key {
            down: ty == "keyDown",
            key: key(a)?,
        }),
        (k, t) => Err(format!("{t:?} is not an action of a {k:?} input source")),
    }
}

/// The `inject_key` of a key step (`None`: a NULL key, nothing to send).
pub fn key_call(down: bool, key: Key) -> Option<ops::InjectKey> {
    let name = match key {
        Key::Char(c) => c.to_string(),
        Key::Named(n) => n.to_string(),
        Key::Modifier(m) => m.key().to_string(),
        Key::Null => return None,
    };
    Some(ops::InjectKey {
        key: name,
        phase: if down { KeyPhase::Down } else { KeyPhase::Up },
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn send_keys_types_text_runs_and_presses_named_keys() {
        let e3: NodeTarget = "e3".parse().unwrap();
        let typed = |text: &str| {
            KeyOp::Type(ops::TypeText {
                node: Some(e3.clone()),
                text: text.into(),
            })
        };
        let key = |key: &str, ctrl: bool| {
            KeyOp::Press(ops::InjectKey {
                key: key.into(),
                ctrl,
                ..Default::default()
            })
        };
        assert_eq!(
            send_keys(&e3, "Zoë\u{E007}"),
            [typed("Zoë"), key("enter", false)]
        );
        assert_eq!(
            send_keys(&e3, "\u{E009}a\u{E000}b"),
            [
                KeyOp::Focus(NodeArgs { node: e3.clone() }),
                key("a", true),
                typed("b")
            ]
        );
    }

    #[test]
    fn actions_run_tick_by_tick() {
        let body = json!({"actions": [
            {"type": "pointer", "id": "mouse", "actions": [
                {"type": "pointerMove", "x": 5, "y": 6, "origin": {ELEMENT_KEY: "e4"}},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0}]},
            {"type": "key", "id": "kb", "actions": [{"type": "keyDown", "value": "\u{E009}"}]}
        ]});
        let s = steps(body).unwrap();
        assert_eq!(
            s[0],
            Step::Move {
                element: Some("e4".into()),
                relative: false,
                x: 5.0,
                y: 6.0
            }
        );
        assert_eq!(
            s[1],
            Step::Key {
                down: true,
                key: Key::Modifier(Modifier::Ctrl)
            }
        );
        assert_eq!(
            s[2],
            Step::Button {
                down: true,
                button: PointerButton::Primary
            }
        );
        assert!(steps(json!({"actions": [{"type": "pointer", "actions": [{"type": "pointerDown", "button": 7}]}]})).is_err());
        assert!(steps(json!({})).is_err());
        let pauses: Vec<Value> = (0..3)
            .map(|_| json!({"type": "pause", "duration": 30_000}))
            .collect();
        let long = steps(json!({"actions": [{"type": "none", "actions": pauses}]})).unwrap_err();
        assert!(long.message.contains("60000 ms"), "{}", long.message);
        // A field of the wrong type is named by its place, never read as 0.
        let x = steps(json!({"actions": [{"type": "pointer", "actions": [
            {"type": "pointerMove", "x": "ten", "y": 0}]}]}))
        .unwrap_err();
        assert!(
            x.message
                .starts_with("actions[0].actions[0]: `x`: invalid type: string \"ten\""),
            "{}",
            x.message
        );
        let origin = steps(json!({"actions": [{"type": "pointer", "actions": [
            {"type": "pointerMove", "x": 1, "y": 1, "origin": {"id": "e4"}}]}]}))
        .unwrap_err();
        assert!(
            origin
                .message
                .contains("origin is an object but not an element reference"),
            "{}",
            origin.message
        );
        let misplaced = steps(json!({"actions": [{"type": "key", "actions": [
            {"type": "pointerDown", "button": 0}]}]}))
        .unwrap_err();
        assert!(
            misplaced
                .message
                .ends_with("\"pointerDown\" is not an action of a \"key\" input source"),
            "{}",
            misplaced.message
        );
        let top = steps(json!({"actions": [{"type": "key", "actions": 3}]})).unwrap_err();
        assert!(
            top.message
                .starts_with("`actions[0].actions`: invalid type: integer `3`"),
            "{}",
            top.message
        );
    }
}
