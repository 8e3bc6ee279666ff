//! The session log: every tool call of an MCP session with what it came to, kept in memory
//! within a bound (calls and bytes); what fell off the front is counted, never silently lost.

use std::collections::VecDeque;

use automation_core::replies::{FoundNode, Selected};
use automation_core::snapshot::ToggledState;
use automation_core::{Op, RefKey, Selector, SemanticNode};
use serde::Deserialize;
use serde_json::{Map, Value};

use automation_session::tools::Outcome;

/// At most this many calls are kept.
pub const MAX_CALLS: usize = 5_000;
/// At most this many bytes of recorded arguments and reads are kept.
pub const MAX_BYTES: usize = 8 * 1024 * 1024;

/// One recorded call.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its place in the session, from 1.
    pub index: usize,
    /// The op it called (the tool of that name), as parsed.
    pub op: Op,
    /// Its arguments as the caller sent them (the reply-shaping `with_selector` aside).
    pub args: Map<String, Value>,
    /// What it came to.
    pub result: Recorded,
}

/// What one call came to, as much as an export needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Recorded {
    /// It worked.
    Ok {
        /// The durable selector of the node it named, taken before it acted.
        selector: Option<Selector>,
        /// Why there is none (when the call named a node).
        selector_note: Option<String>,
        /// What a read saw: `find_node`'s match or `read_node`'s node.
        read: Option<Read>,
    },
    /// It failed with this code.
    Failed {
        /// The error code.
        code: String,
        /// The error's message.
        message: String,
    },
}

/// The bounded log.
#[derive(Debug, Clone, Default)]
pub struct SessionLog {
    entries: VecDeque<Entry>,
    bytes: usize,
    next: usize,
    dropped: usize,
}

/// The parts of a read a later check needs: which node it was, its value, its toggled state.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The node read.
    pub id: RefKey,
    /// Its value.
    pub value: Option<String>,
    /// Its toggled state.
    pub toggled: Option<ToggledState>,
}

fn size_of(entry: &Entry) -> usize {
    let read = match &entry.result {
        Recorded::Ok { read: Some(r), .. } => r.value.as_ref().map_or(0, String::len) + 32,
        _ => 0,
    };
    Value::Object(entry.args.clone()).to_string().len() + read + 64
}

impl SessionLog {
    /// Records a call and its outcome (the outcome as the target answered it, before any
    /// reply shaping removed its selector).
    pub fn record(&mut self, op: &Op, args: Map<String, Value>, outcome: &Outcome) {
        self.next += 1;
        let result = match outcome {
            Outcome::Failed(e) => Recorded::Failed {
                code: e.code.as_str().to_string(),
                message: e.message.clone(),
            },
            Outcome::Data(data @ Value::Object(_)) => {
                let Selected {
                    selector,
                    selector_note,
                } = Selected::deserialize(data).unwrap_or_default();
                Recorded::Ok {
                    selector,
                    selector_note,
                    read: read_of(op, data),
                }
            }
            _ => Recorded::Ok {
                selector: None,
                selector_note: None,
                read: None,
            },
        };
        let entry = Entry {
            index: self.next,
            op: op.clone(),
            args,
            result,
        };
        self.bytes += size_of(&entry);
        self.entries.push_back(entry);
        while self.entries.len() > MAX_CALLS || (self.bytes > MAX_BYTES && self.entries.len() > 1) {
            if let Some(old) = self.entries.pop_front() {
                self.bytes = self.bytes.saturating_sub(size_of(&old));
                self.dropped += 1;
            }
        }
    }

    /// The calls kept, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }

    /// How many calls fell off the front to keep within the bound.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// How many calls were made in all.
    pub fn total(&self) -> usize {
        self.next
    }
}

/// What a read saw: `read_node`'s node, `find_node`'s record.
fn read_of(op: &Op, data: &Value) -> Option<Read> {
    let record = match op {
        Op::ReadNode(_) => SemanticNode::deserialize(data).ok()?,
        Op::FindNode(_) => FoundNode::deserialize(data).ok()?.record?,
        _ => return None,
    };
    Some(Read {
        id: record.id,
        value: record.value,
        toggled: record.toggled,
    })
}
