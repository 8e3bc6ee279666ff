//! Live-region announcements, recorded the way platform adapters would hand them to a screen
//! reader: replayed through `accesskit_consumer`'s change handler.
//!
//! Recorded: a live node's name when it enters the filtered tree, and when its name changes
//! while it stays. Not recorded: hidden nodes (or inside a hidden subtree); nodes scrolled out
//! of view by a clipping ancestor (one scrolled back in counts as an arrival); a live node
//! whose text is only a value unless it is a `Label`; a blank name; a change of politeness
//! alone; a node of a subtree that comes back whole with the name it had when it left.

use std::collections::{HashMap, VecDeque};

use accesskit::{Live, NodeId};
use accesskit_consumer::{FilterResult, NodeRef, common_filter};
use serde::Serialize;

use crate::NodeKey;

/// How many announcements the ring keeps.
pub const RING_CAPACITY: usize = 1024;

/// One recorded announcement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Announcement {
    /// Monotonic sequence number (starts at 1).
    pub seq: u64,
    /// The live node.
    pub node: NodeKey,
    /// What a screen reader would say.
    pub text: String,
    /// `polite` or `assertive`.
    pub politeness: &'static str,
}

/// Ring of announcements plus the memory needed to apply the rules.
#[derive(Debug, Default)]
pub struct Announcements {
    ring: VecDeque<Announcement>,
    next_seq: u64,
    /// Name each live node had when it left the tree.
    departed: HashMap<NodeId, String>,
}

pub(crate) fn politeness(live: Live) -> Option<&'static str> {
    match live {
        Live::Off => None,
        Live::Polite => Some("polite"),
        Live::Assertive => Some("assertive"),
    }
}

/// The name adapters compute: the label, or for a `Label` its value.
pub(crate) fn spoken_name(node: &NodeRef) -> Option<String> {
    crate::snapshot::accessible_name(node)
}

/// Can a screen reader hear this node at all: not hidden, not clipped out of view.
pub(crate) fn audible(node: &NodeRef) -> bool {
    if common_filter(node) == FilterResult::ExcludeSubtree {
        return false;
    }
    let Some(bbox) = node.bounding_box() else {
        return true;
    };
    let mut ancestor = node.parent();
    while let Some(a) = ancestor {
        if a.clips_children()
            && let Some(clip) = a.bounding_box()
            && bbox.intersect(clip).is_empty()
        {
            return false;
        }
        ancestor = a.parent();
    }
    true
}

/// What a node would announce, if anything.
fn heard(node: &NodeRef) -> Option<(String, &'static str)> {
    let politeness = politeness(node.live())?;
    if !audible(node) {
        return None;
    }
    Some((spoken_name(node)?, politeness))
}

impl Announcements {
    fn push(&mut self, node: &NodeRef, text: String, politeness: &'static str) {
        self.next_seq += 1;
        if self.ring.len() == RING_CAPACITY {
            self.ring.pop_front();
        }
        self.ring.push_back(Announcement {
            seq: self.next_seq,
            node: node.locate().0.into(),
            text,
            politeness,
        });
    }

    pub(crate) fn added(&mut self, node: &NodeRef) {
        let id = node.locate().0;
        let returned = self.departed.remove(&id);
        if let Some((text, politeness)) = heard(node)
            && returned.as_deref() != Some(text.as_str())
        {
            self.push(node, text, politeness);
        }
    }

    pub(crate) fn updated(&mut self, old: &NodeRef, new: &NodeRef) {
        let Some((text, politeness)) = heard(new) else {
            return;
        };
        let before = heard(old).map(|(t, _)| t);
        if before.as_deref() != Some(text.as_str()) {
            self.push(new, text, politeness);
        }
    }

    pub(crate) fn removed(&mut self, node: &NodeRef) {
        if let Some((text, _)) = heard(node) {
            self.departed.insert(node.locate().0, text);
        }
    }

    /// Entries with `seq > since` (all when `None`).
    pub fn since(&self, since: Option<u64>) -> Vec<Announcement> {
        let since = since.unwrap_or(0);
        self.ring
            .iter()
            .filter(|a| a.seq > since)
            .cloned()
            .collect()
    }

    /// The sequence number of the newest entry (0 when none).
    pub fn last_seq(&self) -> u64 {
        self.next_seq
    }
}
