//! `SemanticNode`: what a reply says about one node. It is `read_node`'s declared reply type
//! (and `find_node`'s record), so it reads back from its JSON as well as it writes it.

use std::borrow::Cow;

use accesskit::{Action, Role, Toggled};
use accesskit_consumer::NodeRef;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::announce::politeness;
use crate::refs::{RefKey, Refs};

/// A node's bounds in window-logical px, ancestor transforms composed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Bounds {
    /// The centre point.
    pub fn center(&self) -> crate::Point {
        crate::Point::new(self.x + self.width / 2.0, self.y + self.height / 2.0)
    }
}

/// Text a node carries as runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextInfo {
    /// Number of text runs (visual lines).
    pub run_count: usize,
    /// All runs' text.
    pub document_text: String,
    /// Every run has bounds.
    pub has_geometry: bool,
    /// Writing direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Cow<'static, str>>,
}

/// The JSON form of `toggled`: `true`, `false` or `"mixed"`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ToggledState {
    /// On or off.
    Bool(bool),
    /// Indeterminate (`"mixed"`).
    Mixed,
}

impl Serialize for ToggledState {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Bool(b) => s.serialize_bool(*b),
            Self::Mixed => s.serialize_str("mixed"),
        }
    }
}

impl<'de> Deserialize<'de> for ToggledState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Bool(b) => Ok(Self::Bool(b)),
            serde_json::Value::String(s) if s == "mixed" => Ok(Self::Mixed),
            other => Err(serde::de::Error::custom(format!(
                "toggled is true, false or \"mixed\", not {other}"
            ))),
        }
    }
}

/// One node as replies describe it. Optional fields are omitted when absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SemanticNode {
    /// Node reference (`"e12"`), bound to this node's role and label.
    pub id: RefKey,
    /// AccessKit role name.
    pub role: String,
    /// Name as an adapter would announce it (through `labelled_by`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The raw label property, only when it differs from `label`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_label: Option<String>,
    /// Value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Accessible description (tooltips live here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Toggle state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toggled: Option<ToggledState>,
    /// Expanded state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expanded: Option<bool>,
    /// Selected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    /// Tree-row depth (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<usize>,
    /// Disabled.
    #[serde(default)]
    pub disabled: bool,
    /// Not shown (the toolkit says it is hidden); acting on it is refused `NOT_VISIBLE`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    /// Has keyboard focus.
    #[serde(default)]
    pub focused: bool,
    /// Read-only: its text or value shows, and a person cannot change it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// Live politeness (own or inherited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<Cow<'static, str>>,
    /// Numeric value (sliders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numeric_value: Option<f64>,
    /// Bounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    /// Supported actions, snake_case.
    #[serde(default)]
    pub actions: Vec<Cow<'static, str>>,
    /// Child references (text runs excluded).
    #[serde(default)]
    pub children: Vec<RefKey>,
    /// Author-supplied stable id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_id: Option<String>,
    /// Text runs summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<TextInfo>,
    /// Fields a snapshot cut to [`SNAPSHOT_TEXT_BYTES`] (`read_node` gives them whole).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut: Vec<Cow<'static, str>>,
}

/// How many bytes of one string field a snapshot shows before cutting it.
pub const SNAPSHOT_TEXT_BYTES: usize = 1024;

/// `text` cut to at most `max` bytes on a char boundary, with an ellipsis; `None` when it fits.
fn cut_text(text: &str, max: usize) -> Option<String> {
    if text.len() <= max {
        return None;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!("{}…", &text[..end]))
}

impl SemanticNode {
    /// Cuts long strings to [`SNAPSHOT_TEXT_BYTES`], recording which fields were cut.
    pub fn cut_long_text(&mut self) {
        let max = SNAPSHOT_TEXT_BYTES;
        let mut cut = Vec::new();
        for (name, field) in [
            ("label", &mut self.label),
            ("raw_label", &mut self.raw_label),
            ("value", &mut self.value),
            ("description", &mut self.description),
        ] {
            if let Some(short) = field.as_deref().and_then(|t| cut_text(t, max)) {
                *field = Some(short);
                cut.push(Cow::Borrowed(name));
            }
        }
        if let Some(text) = &mut self.text
            && let Some(short) = cut_text(&text.document_text, max)
        {
            text.document_text = short;
            cut.push(Cow::Borrowed("text.document_text"));
        }
        self.cut = cut;
    }

    /// Roughly how many bytes this record serialises to (for reply budgets).
    pub fn approx_bytes(&self) -> usize {
        let strings = [&self.label, &self.raw_label, &self.value, &self.description]
            .iter()
            .map(|s| s.as_ref().map_or(0, String::len))
            .sum::<usize>();
        let text = self.text.as_ref().map_or(0, |t| t.document_text.len());
        160 + strings + text + self.children.len() * 24 + self.actions.len() * 16
    }
}

/// Every AccessKit action with its snake_case name.
pub const ACTIONS: &[(Action, &str)] = &[
    (Action::Click, "click"),
    (Action::Focus, "focus"),
    (Action::Blur, "blur"),
    (Action::Collapse, "collapse"),
    (Action::Expand, "expand"),
    (Action::CustomAction, "custom_action"),
    (Action::Decrement, "decrement"),
    (Action::Increment, "increment"),
    (Action::HideTooltip, "hide_tooltip"),
    (Action::ShowTooltip, "show_tooltip"),
    (Action::ReplaceSelectedText, "replace_selected_text"),
    (Action::ScrollDown, "scroll_down"),
    (Action::ScrollLeft, "scroll_left"),
    (Action::ScrollRight, "scroll_right"),
    (Action::ScrollUp, "scroll_up"),
    (Action::ScrollIntoView, "scroll_into_view"),
    (Action::ScrollToPoint, "scroll_to_point"),
    (Action::SetScrollOffset, "set_scroll_offset"),
    (Action::SetTextSelection, "set_text_selection"),
    (
        Action::SetSequentialFocusNavigationStartingPoint,
        "set_sequential_focus_navigation_starting_point",
    ),
    (Action::SetValue, "set_value"),
    (Action::ShowContextMenu, "show_context_menu"),
];

/// The snake_case name of an action.
pub fn action_name(action: Action) -> &'static str {
    ACTIONS
        .iter()
        .find(|(a, _)| *a == action)
        .map_or("unknown", |(_, n)| n)
}

/// The role's name as AccessKit spells it (`Button`, `CheckBox`, …).
pub fn role_name(role: Role) -> String {
    format!("{role:?}")
}

/// Whether a role name (case-insensitive) names `role`, without allocating.
pub fn role_matches(role: Role, wanted: &str) -> bool {
    struct Eq<'a> {
        rest: &'a [u8],
        ok: bool,
    }
    impl std::fmt::Write for Eq<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let b = s.as_bytes();
            if self.ok && self.rest.len() >= b.len() && self.rest[..b.len()].eq_ignore_ascii_case(b)
            {
                self.rest = &self.rest[b.len()..];
            } else {
                self.ok = false;
            }
            Ok(())
        }
    }
    let mut eq = Eq {
        rest: wanted.as_bytes(),
        ok: true,
    };
    let _ = std::fmt::write(&mut eq, format_args!("{role:?}"));
    eq.ok && eq.rest.is_empty()
}

/// Bounds of a node in window-logical px; none when they are not numbers (a NaN or infinite
/// transform): no point of such a node can be aimed at, and JSON has no NaN to carry them.
pub fn bounds_of(node: &NodeRef) -> Option<Bounds> {
    node.bounding_box()
        .map(|r| Bounds {
            x: r.x0,
            y: r.y0,
            width: r.width(),
            height: r.height(),
        })
        .filter(|b| [b.x, b.y, b.width, b.height].iter().all(|v| v.is_finite()))
}

/// Text-run summary, when the node supports text ranges.
pub fn text_info(node: &NodeRef) -> Option<TextInfo> {
    if !node.supports_text_ranges() {
        return None;
    }
    let runs: Vec<NodeRef> = node
        .children()
        .filter(|c| c.role() == Role::TextRun)
        .collect();
    Some(TextInfo {
        run_count: runs.len(),
        document_text: node.document_range().text(),
        has_geometry: !runs.is_empty() && runs.iter().all(|r| r.raw_bounds().is_some()),
        direction: node.data().text_direction().map(|d| {
            Cow::Borrowed(match d {
                accesskit::TextDirection::LeftToRight => "left_to_right",
                accesskit::TextDirection::RightToLeft => "right_to_left",
                accesskit::TextDirection::TopToBottom => "top_to_bottom",
                accesskit::TextDirection::BottomToTop => "bottom_to_top",
            })
        }),
    })
}

/// The name a screen reader announces: the label, or for a `Label` its text (value).
pub fn accessible_name(node: &NodeRef) -> Option<String> {
    let name = if node.label_comes_from_value() {
        node.label().or_else(|| node.value())
    } else {
        node.label()
    };
    name.filter(|n| !n.trim().is_empty())
}

/// The JSON record of a node; its reference and its children's come from `refs`.
pub fn semantic_node(node: &NodeRef, refs: &Refs) -> SemanticNode {
    let data = node.data();
    let label = node.label();
    let raw = data.label().map(str::to_string);
    SemanticNode {
        id: refs.mint(node),
        role: role_name(node.role()),
        raw_label: if raw != label { raw } else { None },
        label,
        value: node.value(),
        description: node.description(),
        toggled: node.toggled().map(|t| match t {
            Toggled::True => ToggledState::Bool(true),
            Toggled::False => ToggledState::Bool(false),
            Toggled::Mixed => ToggledState::Mixed,
        }),
        expanded: data.is_expanded(),
        selected: node.is_selected(),
        level: node.level(),
        disabled: node.is_disabled(),
        hidden: node.data().is_hidden(),
        focused: node.is_focused(),
        read_only: data.is_read_only(),
        live: politeness(node.live()).map(Cow::Borrowed),
        numeric_value: node.numeric_value(),
        bounds: bounds_of(node),
        actions: ACTIONS
            .iter()
            .filter(|(a, _)| data.supports_action(*a))
            .map(|(_, n)| Cow::Borrowed(*n))
            .collect(),
        children: node
            .children()
            .filter(|c| c.role() != Role::TextRun)
            .map(|c| refs.mint(&c))
            .collect(),
        author_id: node.author_id().map(str::to_string),
        text: text_info(node),
        cut: Vec::new(),
    }
}
