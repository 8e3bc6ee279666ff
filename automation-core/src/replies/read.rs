//! What the ops that only read answer.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Candidate;
use crate::execute::PointerRecord;
use crate::refs::RefKey;
use crate::snapshot::SemanticNode;
use crate::target::WindowInfo;

/// What `snapshot_tree` answers. The `json` format gives the records (`nodes`), the root and
/// the focus; the `text` format the outline (`tree`) and how many hidden runs it folded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The mirror's version the snapshot was read at.
    pub version: u64,
    /// `json`: each node's record, breadth first from the root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<SemanticNode>,
    /// `text`: the outline, a line a node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
    /// `json`: where the snapshot starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<RefKey>,
    /// `json`: the node with the keyboard focus (`null`: none the tree knows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<Option<RefKey>>,
    /// The budget or the depth cut the tree (`json` says so either way, `text` only when it
    /// did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// `json`: the nodes whose children were cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frontier: Vec<RefKey>,
    /// What was cut, and how to see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// `json`: long strings were cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_note: Option<String>,
    /// `text`: runs of hidden nodes folded into a line each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<usize>,
}

impl Snapshot {
    /// The node with the keyboard focus, if the tree knows one.
    #[must_use]
    pub fn focused(&self) -> Option<RefKey> {
        self.focus.flatten()
    }

    /// Whether the budget or the depth cut the tree.
    #[must_use]
    pub fn cut(&self) -> bool {
        self.truncated == Some(true)
    }
}

/// What `list_windows` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Windows {
    /// Each window the host knows, as it lists them.
    pub windows: Vec<WindowInfo>,
}

/// What `find_node` answers: the first match with its record, or, when nothing matches, the
/// closest nodes and what to try.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FoundNode {
    /// The first match's reference (`null` when nothing matches).
    pub node: Option<RefKey>,
    /// How many nodes match.
    pub count: usize,
    /// The first match's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<SemanticNode>,
    /// Nothing matched: what to try.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Nothing matched: the closest nodes (absent when something matched).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Candidate>>,
    /// Nothing matched in a list read only in part: why "none" is not sure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<String>,
}

/// What `assert_node` answers when the fact holds (when it does not: `ASSERTION_FAILED`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Asserted {
    /// Always `true`.
    pub passed: bool,
    /// The node checked (`null` for an `exists: false` check of a node that is not there).
    pub node: Option<RefKey>,
}

/// What `query_pointers` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointerList {
    /// The mouse once it has moved, and each finger or stylus down.
    pub pointers: Vec<PointerRecord>,
}

/// What `list_live_regions` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveRegions {
    /// Each live region a screen reader would hear.
    pub regions: Vec<LiveRegion>,
}

/// One live region.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveRegion {
    /// Its reference.
    pub node: RefKey,
    /// Its role.
    pub role: String,
    /// `polite` or `assertive`.
    pub politeness: String,
    /// What a screen reader would say of it.
    pub text: Option<String>,
}

/// What `pull_announcements` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Announcements {
    /// Each announcement since the sequence number asked for.
    pub announcements: Vec<Announced>,
    /// The last sequence number given out: ask from it next time.
    pub last_seq: u64,
}

/// One announcement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Announced {
    /// Its sequence number.
    pub seq: u64,
    /// The live node that spoke (also once it is gone).
    pub node: Option<RefKey>,
    /// What a screen reader would say.
    pub text: String,
    /// `polite` or `assertive`.
    pub politeness: String,
}

/// What `get_overlays` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overlays {
    /// Each open window, popup, menu or tooltip, bottom first.
    pub overlays: Vec<Overlay>,
}

/// One overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overlay {
    /// `window`, `popup`, `tooltip` or `other`.
    pub kind: String,
    /// Where it is, in window-logical pixels.
    pub bounds: crate::snapshot::Bounds,
}

/// The toolkit's own record, as the target gives it (`layout_tree`, `inspect_node`,
/// `get_shortcuts`): its shape is the toolkit's, not the kit's. No target of this kit answers
/// these yet; one that does documents its shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ToolkitRecord(pub Value);

/// The slots of a touch sequence: each contact's pointer id, by the contact's number as JSON
/// writes an object's keys (a number key would not survive the reply's flattening).
pub type Slots = BTreeMap<String, u64>;
