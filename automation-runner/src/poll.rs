//! A script's polls filed as one item each: the same op with the same arguments, tried again
//! and again with `settle` calls between the tries (the JS client's `expect(…)` polls
//! `read_node` for up to 5 s, its waits `find_node` or `wait_for_condition`), becomes one
//! [`Poll`] with its first and last try and the count, instead of a record (and a JUnit line)
//! per try.
//!
//! The calls arrive in order ([`Coalesce::push`]); a run of identical calls, with nothing but
//! argument-less `settle`s between them, is held until a different call, a step boundary
//! ([`Coalesce::flush`]) or the script's end ends it. A call that is not repeated is passed on
//! as it came; `settle`s that did not pace a poll are passed on too (repeated ones as a poll
//! of `settle`).

use std::time::Instant;

use serde_json::Value;

use super::events::{CallRecord, Poll, RunEvent, Sink};

/// A call with the instant it started.
struct Timed {
    call: CallRecord,
    at: Instant,
}

/// The poll being held.
struct Held {
    /// The tries of the call.
    tries: Run,
    /// `settle`s that paced them.
    settles: u32,
    /// `settle`s after the last try: they pace the poll if the same call comes again. Only
    /// the first, the last and the count are kept, so a script that settles forever holds
    /// two records, not one a call.
    pending: Option<Run>,
}

/// A run of the same call: its first and last (when more than one) and how many.
struct Run {
    first: Timed,
    last: Option<Timed>,
    count: u32,
}

impl Run {
    fn new(first: Timed) -> Self {
        Run {
            first,
            last: None,
            count: 1,
        }
    }

    fn add(&mut self, next: Timed) {
        self.count = self.count.saturating_add(1);
        self.last = Some(next);
    }

    /// One item: the call itself when it was made once, else a poll of its first and last
    /// try (`tries` counts them all).
    fn emit(self, settles: u32, sink: &mut dyn Sink) {
        match self.last {
            Some(last) if self.count > 1 => sink.event(&RunEvent::Poll(Poll {
                span_ms: span_ms(&self.first, &last),
                first: self.first.call,
                last: last.call,
                tries: self.count,
                settles,
            })),
            _ => sink.event(&RunEvent::Call(self.first.call)),
        }
    }
}

/// Folds a stream of calls into polls; see the module docs.
#[derive(Default)]
pub struct Coalesce {
    held: Option<Held>,
}

/// A `settle` with no arguments: the JS client's pace between two tries.
fn is_pace(call: &CallRecord) -> bool {
    call.tool == "settle" && call.args.as_object().is_none_or(|m| m.is_empty())
}

fn same(a: &CallRecord, b: &CallRecord) -> bool {
    a.tool == b.tool && a.args == b.args && a.step_id == b.step_id
}

fn span_ms(first: &Timed, last: &Timed) -> f64 {
    last.at.saturating_duration_since(first.at).as_secs_f64() * 1000.0 + last.call.duration_ms
}

impl Coalesce {
    /// One call, in order (`at`: when it started).
    pub fn push(&mut self, call: CallRecord, at: Instant, sink: &mut dyn Sink) {
        let timed = Timed { call, at };
        let Some(held) = &mut self.held else {
            self.held = Some(Held::new(timed));
            return;
        };
        let first = &held.tries.first.call;
        if same(first, &timed.call) {
            let paced = held.pending.take().map_or(0, |p| p.count);
            held.settles = held.settles.saturating_add(paced);
            held.tries.add(timed);
        } else if is_pace(&timed.call) && timed.call.step_id == first.step_id {
            match &mut held.pending {
                Some(run) => run.add(timed),
                None => held.pending = Some(Run::new(timed)),
            }
        } else {
            self.flush(sink);
            self.held = Some(Held::new(timed));
        }
    }

    /// Passes on what is held (a step boundary, the script's end).
    pub fn flush(&mut self, sink: &mut dyn Sink) {
        let Some(held) = self.held.take() else { return };
        held.tries.emit(held.settles, sink);
        // The `settle`s after the last try paced nothing: one item for them too.
        if let Some(run) = held.pending {
            run.emit(0, sink);
        }
    }
}

impl Held {
    fn new(first: Timed) -> Self {
        Held {
            tries: Run::new(first),
            settles: 0,
            pending: None,
        }
    }
}

/// What a poll's record adds to its last try's (whose `response` is the record's own): tries,
/// pacing, span, and the first try's result.
pub fn summary(poll: &Poll) -> Value {
    serde_json::json!({
        "tries": poll.tries,
        "settles": poll.settles,
        "span_ms": poll.span_ms,
        "first": {
            "response": poll.first.result,
            "status": if poll.first.is_error { "error" } else { "success" },
            "duration_ms": poll.first.duration_ms,
        },
        "last": {
            "status": if poll.last.is_error { "error" } else { "success" },
            "duration_ms": poll.last.duration_ms,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Collect;
    use serde_json::json;

    fn call(tool: &str, args: Value, n: u32) -> CallRecord {
        CallRecord {
            step_id: "s".into(),
            tool: tool.into(),
            args,
            result: json!({ "n": n }),
            is_error: false,
            duration_ms: 1.0,
            image: None,
            evidence: None,
        }
    }

    fn kinds(sink: &Collect) -> Vec<String> {
        sink.items
            .iter()
            .map(|e| match e {
                RunEvent::Call(c) => c.tool.clone(),
                RunEvent::Poll(p) => format!("{}x{}/{}", p.last.tool, p.tries, p.settles),
                _ => "other".into(),
            })
            .collect()
    }

    #[test]
    fn settles_after_the_last_try_are_one_item_however_many() {
        let mut c = Coalesce::default();
        let mut sink = Collect::default();
        let now = Instant::now();
        c.push(call("read_node", json!({"node": "e1"}), 0), now, &mut sink);
        for i in 0..10_000 {
            c.push(call("settle", json!({}), i), now, &mut sink);
        }
        c.flush(&mut sink);
        assert_eq!(kinds(&sink), ["read_node", "settlex10000/0"]);
    }

    #[test]
    fn a_poll_is_one_item_with_its_first_and_last_try() {
        let mut c = Coalesce::default();
        let mut sink = Collect::default();
        let now = Instant::now();
        let read = json!({"node": {"label": "Name"}});
        c.push(call("type_text", json!({"text": "Ada"}), 0), now, &mut sink);
        for i in 0..100 {
            c.push(call("read_node", read.clone(), i), now, &mut sink);
            if i < 99 {
                c.push(call("settle", json!({}), i), now, &mut sink);
            }
        }
        c.push(call("settle", json!({}), 0), now, &mut sink);
        c.push(
            call("invoke_action", json!({"action": "click"}), 0),
            now,
            &mut sink,
        );
        c.flush(&mut sink);
        assert_eq!(
            kinds(&sink),
            ["type_text", "read_nodex100/99", "settle", "invoke_action"]
        );
        let poll = sink
            .items
            .iter()
            .find_map(|e| match e {
                RunEvent::Poll(p) => Some(p),
                _ => None,
            })
            .unwrap();
        assert_eq!(poll.first.result, json!({"n": 0}));
        assert_eq!(poll.last.result, json!({"n": 99}));
    }

    #[test]
    fn different_calls_and_steps_are_not_folded() {
        let mut c = Coalesce::default();
        let mut sink = Collect::default();
        let now = Instant::now();
        c.push(call("read_node", json!({"node": "e1"}), 0), now, &mut sink);
        c.push(call("read_node", json!({"node": "e2"}), 0), now, &mut sink);
        let mut other_step = call("read_node", json!({"node": "e2"}), 0);
        other_step.step_id = "t".into();
        c.push(other_step, now, &mut sink);
        c.push(call("settle", json!({"quiet_ms": 5}), 0), now, &mut sink);
        c.push(call("settle", json!({}), 0), now, &mut sink);
        c.push(call("settle", json!({}), 0), now, &mut sink);
        c.flush(&mut sink);
        assert_eq!(
            kinds(&sink),
            [
                "read_node",
                "read_node",
                "read_node",
                "settle",
                "settlex2/0"
            ]
        );
    }
}
