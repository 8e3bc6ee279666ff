//! The one event stream of a run, and the [`Sink`] every consumer implements.
//!
//! The steps engine and a script child both produce [`RunEvent`]s: the wire crate's typed
//! events (from the child's event pipe, or made by the engine), plain log records, and one
//! [`CallRecord`] per op a step ran. A [`Fanout`] pushes each to every sink in turn; no sink
//! knows the others (the shape of `grep-searcher`'s `Sink`, where each printer is one
//! implementation).

use std::sync::Arc;

use automation_wire::events::{EventKind, LogRecord};
use serde_json::Value;

use super::error::RunnerError;
use super::evidence::Evidence;
use super::report::RunReport;

/// One item on the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    /// A typed event (progress, step lifecycle, screenshot, data, status, log).
    Event(EventKind),
    /// Plain output or a log-channel entry from a script child.
    Log(LogRecord),
    /// One tool or op call finished (what the per-step records replay).
    Call(CallRecord),
    /// A PNG a step's call returned (a screenshot), sent whether or not calls are recorded.
    Image(Arc<Vec<u8>>),
    /// One poll: the same call tried again and again (an `expect`, a wait), as one item.
    Poll(Poll),
    /// The app as it was when the flow failed (a report asked for it).
    Failure(Arc<Evidence>),
}

/// A script's poll: the same op with the same arguments tried until it passed or its time ran
/// out, with `settle` calls pacing the tries (what the JS client's `expect(…)` and waits do).
/// Filed as one item, with its first and last try, not one record per try.
#[derive(Debug, Clone, PartialEq)]
pub struct Poll {
    /// The first try.
    pub first: CallRecord,
    /// The last try: its result is the poll's.
    pub last: CallRecord,
    /// Tries made (at least 2).
    pub tries: u32,
    /// `settle` calls between the tries.
    pub settles: u32,
    /// Milliseconds from the first try's start to the last one's end.
    pub span_ms: f64,
}

/// One call a step made through the tool router (steps) or the bridge (scripts).
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    /// The step the call belongs to (the step id, or the script's current step).
    pub step_id: String,
    /// The tool (op) name.
    pub tool: String,
    /// Its arguments, after `{{expr}}` substitution.
    pub args: Value,
    /// The result as the caller saw it (structured content, or the op reply).
    pub result: Value,
    /// Whether the call failed.
    pub is_error: bool,
    /// How long it took, milliseconds.
    pub duration_ms: f64,
    /// A PNG the call returned (screenshots): bytes, shared with the [`RunEvent::Image`]
    /// the call raised.
    pub image: Option<Arc<Vec<u8>>>,
    /// The app right after the call acted on a node (a report asked for it).
    pub evidence: Option<Arc<Evidence>>,
}

/// A consumer of the run's stream.
pub trait Sink: Send {
    /// One item, in order.
    fn event(&mut self, event: &RunEvent);

    /// Whether this sink reads [`RunEvent::Call`] (and [`RunEvent::Poll`]) items (their
    /// records copy a call's arguments and result, so they are made only when some sink does).
    fn wants_calls(&self) -> bool {
        true
    }

    /// Whether this sink shows what the app looked like (a screenshot after each action, and
    /// at a failure): the runner takes them only when some sink does.
    fn wants_evidence(&self) -> bool {
        false
    }

    /// The run ended with this report; write files, flush. The error names what failed.
    fn finish(&mut self, report: &RunReport) -> Result<(), RunnerError> {
        let _ = report;
        Ok(())
    }
}

/// Every sink, fed in order.
#[derive(Default)]
pub struct Fanout {
    sinks: Vec<Box<dyn Sink>>,
}

impl Fanout {
    /// No sinks yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a sink.
    pub fn push(&mut self, sink: Box<dyn Sink>) {
        self.sinks.push(sink);
    }

    /// With one more sink.
    pub fn with(mut self, sink: Box<dyn Sink>) -> Self {
        self.push(sink);
        self
    }
}

impl Sink for Fanout {
    fn event(&mut self, event: &RunEvent) {
        for s in &mut self.sinks {
            s.event(event);
        }
    }

    fn wants_calls(&self) -> bool {
        self.sinks.iter().any(|s| s.wants_calls())
    }

    fn wants_evidence(&self) -> bool {
        self.sinks.iter().any(|s| s.wants_evidence())
    }

    /// Finishes every sink (each one, even after another failed); the errors joined.
    fn finish(&mut self, report: &RunReport) -> Result<(), RunnerError> {
        let errors: Vec<RunnerError> = self
            .sinks
            .iter_mut()
            .filter_map(|s| s.finish(report).err())
            .collect();
        RunnerError::all(errors).map_or(Ok(()), Err)
    }
}

/// Where the records last wrote a call's image, shared with the live display (which shows
/// a screenshot event without a path as the file it became). Set for every call with an
/// image: `None` when that one was not written.
#[derive(Debug, Default, Clone)]
pub struct LastImage(Arc<std::sync::Mutex<Option<String>>>);

impl LastImage {
    /// Notes where the last image went (`None`: nowhere).
    pub fn set(&self, path: Option<String>) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = path;
        }
    }

    /// Where the last image went, once.
    pub fn take(&self) -> Option<String> {
        self.0.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// Keeps every item (tests, and the steps report's logs).
#[derive(Debug, Default, Clone)]
pub struct Collect {
    /// What arrived, in order.
    pub items: Vec<RunEvent>,
}

impl Sink for Collect {
    fn event(&mut self, event: &RunEvent) {
        self.items.push(event.clone());
    }
}
