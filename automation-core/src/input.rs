//! The input a target receives: keys, pointers, scroll, IME — plain data, toolkit-free.

use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, OpError};

/// A point in window-logical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Point {
    /// Horizontal, from the window's left edge.
    pub x: f64,
    /// Vertical, from the window's top edge.
    pub y: f64,
}

impl Point {
    /// A point.
    pub fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }
}

/// The operating system whose conventions `command` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// Command (⌘) is the accelerator.
    MacOs,
    /// Control is the accelerator (Windows, Linux, everything else).
    Other,
}

impl Platform {
    /// The platform this binary was built for.
    pub fn current() -> Self {
        if cfg!(target_os = "macos") {
            Self::MacOs
        } else {
            Self::Other
        }
    }
}

/// Modifier keys as the target should see them. `command` has already been resolved into
/// `ctrl` (Windows/Linux) or `meta` (macOS) and is kept only as information.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Modifiers {
    /// Control.
    pub ctrl: bool,
    /// Shift.
    pub shift: bool,
    /// Alt / Option.
    pub alt: bool,
    /// Meta / Super / ⌘.
    pub meta: bool,
    /// The caller asked for "the accelerator" (already folded into `ctrl` or `meta`).
    pub command: bool,
}

impl Modifiers {
    /// Modifiers from the five request flags, with `command` resolved for `platform`.
    pub fn resolve(
        ctrl: bool,
        shift: bool,
        alt: bool,
        meta: bool,
        command: bool,
        platform: Platform,
    ) -> Self {
        let (ctrl, meta) = match platform {
            Platform::MacOs => (ctrl, meta || command),
            Platform::Other => (ctrl || command, meta),
        };
        Self {
            ctrl,
            shift,
            alt,
            meta,
            command,
        }
    }

    /// No modifier held.
    pub fn is_empty(self) -> bool {
        !(self.ctrl || self.shift || self.alt || self.meta)
    }
}

/// Keys with a name rather than a character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum NamedKey {
    Enter,
    Tab,
    Space,
    Backspace,
    Escape,
    Delete,
    Insert,
    Home,
    End,
    PageUp,
    PageDown,
    ArrowUp,
    ArrowDown,
    ArrowLeft,
    ArrowRight,
    ContextMenu,
    Shift,
    Control,
    Alt,
    Meta,
    /// F1..=F35.
    F(u8),
}

/// A key: named, or the key of one character (ASCII letters are upper-case, `A`..`Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Key {
    /// A named key.
    Named(NamedKey),
    /// The key that types this character on a US layout (letters upper-case).
    Character(char),
}

const KEY_NAMES: &[(&str, NamedKey)] = &[
    ("enter", NamedKey::Enter),
    ("return", NamedKey::Enter),
    ("tab", NamedKey::Tab),
    ("space", NamedKey::Space),
    ("spacebar", NamedKey::Space),
    ("backspace", NamedKey::Backspace),
    ("escape", NamedKey::Escape),
    ("esc", NamedKey::Escape),
    ("delete", NamedKey::Delete),
    ("del", NamedKey::Delete),
    ("insert", NamedKey::Insert),
    ("ins", NamedKey::Insert),
    ("home", NamedKey::Home),
    ("end", NamedKey::End),
    ("pageup", NamedKey::PageUp),
    ("pgup", NamedKey::PageUp),
    ("pagedown", NamedKey::PageDown),
    ("pgdn", NamedKey::PageDown),
    ("arrowup", NamedKey::ArrowUp),
    ("up", NamedKey::ArrowUp),
    ("arrowdown", NamedKey::ArrowDown),
    ("down", NamedKey::ArrowDown),
    ("arrowleft", NamedKey::ArrowLeft),
    ("left", NamedKey::ArrowLeft),
    ("arrowright", NamedKey::ArrowRight),
    ("right", NamedKey::ArrowRight),
    ("contextmenu", NamedKey::ContextMenu),
    ("menu", NamedKey::ContextMenu),
    ("shift", NamedKey::Shift),
    ("control", NamedKey::Control),
    ("ctrl", NamedKey::Control),
    ("alt", NamedKey::Alt),
    ("option", NamedKey::Alt),
    ("meta", NamedKey::Meta),
    ("super", NamedKey::Meta),
    ("cmd", NamedKey::Meta),
];

impl Key {
    /// Parses a key name (`Enter`, `esc`, `page_up`, `F5`, `a`, `,`), case-insensitively.
    /// An unknown name is `UNKNOWN_NAME` with the closest known names as a hint.
    pub fn parse(name: &str) -> Result<Key, OpError> {
        let mut chars = name.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Ok(Key::for_char(c));
        }
        let norm: String = name
            .chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .flat_map(char::to_lowercase)
            .collect();
        if let Some((_, key)) = KEY_NAMES.iter().find(|(n, _)| *n == norm) {
            return Ok(Key::Named(*key));
        }
        if let Some(n) = norm.strip_prefix('f').and_then(|d| d.parse::<u8>().ok())
            && (1..=35).contains(&n)
        {
            return Ok(Key::Named(NamedKey::F(n)));
        }
        let close = crate::text_match::closest(&norm, KEY_NAMES.iter().map(|(n, _)| *n), 3);
        Err(
            OpError::new(ErrorCode::UnknownName, format!("unknown key name {name:?}")).with_hint(
                format!(
                    "use a single character, F1..F35, or a named key such as {}",
                    if close.is_empty() {
                        "enter, tab, escape, arrowup".to_string()
                    } else {
                        close.join(", ")
                    }
                ),
            ),
        )
    }

    /// The key a character is typed with (letters map to their upper-case key).
    pub fn for_char(c: char) -> Key {
        match c {
            ' ' => Key::Named(NamedKey::Space),
            '\n' | '\r' => Key::Named(NamedKey::Enter),
            '\t' => Key::Named(NamedKey::Tab),
            c if c.is_ascii_alphabetic() => Key::Character(c.to_ascii_uppercase()),
            c => Key::Character(c),
        }
    }

    /// What a press of this key types when the caller gives no text: the control character
    /// for Enter, Tab, Space, Backspace and Escape, nothing for any other key.
    pub fn default_text(self) -> Option<&'static str> {
        match self {
            Key::Named(NamedKey::Enter) => Some("\r"),
            Key::Named(NamedKey::Tab) => Some("\t"),
            Key::Named(NamedKey::Space) => Some(" "),
            Key::Named(NamedKey::Backspace) => Some("\u{8}"),
            Key::Named(NamedKey::Escape) => Some("\u{1b}"),
            _ => None,
        }
    }
}

/// One key transition sent to the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyEvent {
    /// Which key.
    pub key: Key,
    /// `true` for a press, `false` for a release.
    pub pressed: bool,
    /// What the press types (never set on a release).
    pub text: Option<String>,
    /// Modifiers held.
    pub modifiers: Modifiers,
}

/// The keystrokes `type_text` sends for `text`: one press and release per character;
/// a capital holds Shift; `\r\n` is one Enter.
pub fn keystrokes_for_text(text: &str) -> Vec<KeyEvent> {
    let mut out = Vec::with_capacity(text.len() * 2);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            chars.next();
        }
        let key = Key::for_char(c);
        let modifiers = Modifiers {
            shift: c.is_ascii_uppercase(),
            ..Modifiers::default()
        };
        let text = match key {
            Key::Named(NamedKey::Enter) => "\r".to_string(),
            _ => c.to_string(),
        };
        out.push(KeyEvent {
            key,
            pressed: true,
            text: Some(text),
            modifiers,
        });
        out.push(KeyEvent {
            key,
            pressed: false,
            text: None,
            modifiers,
        });
    }
    out
}

/// Which kind of device a pointer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum PointerKind {
    /// A mouse (the default).
    #[default]
    Mouse,
    /// A finger.
    Touch,
    /// A stylus.
    Pen,
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum PointerButton {
    /// Left button (the default).
    #[default]
    Primary,
    /// Right button.
    Secondary,
    /// Wheel button.
    Middle,
    /// Back side button.
    Back,
    /// Forward side button.
    Forward,
}

/// The phase of one pointer sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum PointerPhase {
    /// Contact starts / button goes down.
    Down,
    /// The pointer moves.
    Move,
    /// Contact ends / button goes up.
    Up,
    /// The system takes the pointer away (not an up).
    Cancel,
}

/// One pointer sample sent to the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointerEvent {
    /// Stable id of this pointer (the mouse is always 0).
    pub pointer_id: u64,
    /// Device kind.
    pub kind: PointerKind,
    /// What happens.
    pub phase: PointerPhase,
    /// Where, in window-logical px.
    pub position: Point,
    /// The button of a mouse down/up.
    pub button: Option<PointerButton>,
    /// Mouse buttons held after this sample.
    pub buttons_held: Vec<PointerButton>,
    /// Primary pointer of its kind (W3C `isPrimary`).
    pub primary: bool,
    /// Pen pressure 0..=1.
    pub pressure: Option<f32>,
    /// Pen tilt in degrees.
    pub tilt: Option<[f32; 2]>,
    /// Modifiers held.
    pub modifiers: Modifiers,
}

/// Unit of a scroll delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScrollUnit {
    /// Logical pixels; the app scrolled programmatically.
    Pixels,
    /// Wheel notches / text lines, as a real wheel sends.
    Lines,
}

/// One scroll sent to the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScrollEvent {
    /// Where the wheel turns (the pointer is moved there first).
    pub position: Point,
    /// Delta x.
    pub dx: f64,
    /// Delta y.
    pub dy: f64,
    /// Unit of the delta.
    pub unit: ScrollUnit,
    /// Modifiers held.
    pub modifiers: Modifiers,
}

/// An input-method event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ImeEvent {
    /// Composition in progress (may be empty to clear it).
    Preedit(String),
    /// Final text committed.
    Commit(String),
}
