//! What of a run's stream becomes an MCP notification, and when: the policy of
//! `execute_sequence`'s progress and log notifications, kept apart from sending them.
//!
//! A [`Gate`] is shared by the thread the run is on and the request's async task. The run's
//! thread pushes each item through a [`GateSink`]; only what goes out *now* (a progress the
//! rate limit lets through, a log line at or above the request's level) crosses to the async
//! task as a [`Note`], so a run that nobody needs to hear about wakes nobody. The async task
//! sends the notes, keeps the heartbeat and sends the held progress at the end.
//!
//! Progress goes only on the request's own progress token, strictly increasing (a value not
//! above the last becomes the last plus a thousandth), at most one per [`MIN_INTERVAL`]
//! counted from the request, and never after the response; a run done within the first
//! interval sends none (its response follows at once). Without a log level, step and log
//! events ride in the progress `message` (the capability downgrade).

// MCP logging is deprecated (SEP-2577) but still the opt-in channel for step events.
#![allow(deprecated)]

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use automation_wire::events::{EventKind, LogLevel};
use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::{Peer, RoleServer};
use serde_json::json;
use tokio::sync::mpsc;

use automation_runner::events::{RunEvent, Sink};

/// Fewest milliseconds between two progress notifications.
pub const MIN_INTERVAL: Duration = Duration::from_millis(50);
/// A notification at least this often while a run goes on (the client may reset its timeout).
pub const HEARTBEAT: Duration = Duration::from_secs(5);

/// One notification to send.
#[derive(Debug, Clone)]
pub enum Note {
    /// `notifications/progress`.
    Progress(ProgressNotificationParam),
    /// `notifications/message`.
    Log(LoggingMessageNotificationParam),
}

/// The notification policy of one request.
#[derive(Debug)]
pub struct Gate {
    token: Option<ProgressToken>,
    log_level: Option<LoggingLevel>,
    last: f64,
    total: Option<f64>,
    /// When progress last went out (the request's start before the first).
    sent_at: Instant,
    /// Whether any progress went out.
    sent_any: bool,
    /// A progress held back by the rate limit: (value, message).
    pending: Option<(f64, Option<String>)>,
}

impl Gate {
    /// The policy for a request with this progress token and log level.
    pub fn new(token: Option<ProgressToken>, log_level: Option<LoggingLevel>) -> Self {
        Self {
            token,
            log_level,
            last: 0.0,
            total: None,
            // The request's start counts as the last send: a run done within one interval
            // sends one progress (its last) rather than two.
            sent_at: Instant::now(),
            sent_any: false,
            pending: None,
        }
    }

    /// The warning that `n` notes were dropped (a full queue), when the request takes
    /// warnings; `None` otherwise (then only progress was dropped, superseded anyway).
    pub fn dropped_note(&self, n: usize) -> Option<Note> {
        let min = self.log_level?;
        (rank(LoggingLevel::Warning) >= rank(min)).then(|| {
            let data = json!({
                "type": "notes_dropped",
                "message": format!("{n} notifications were dropped: the client read them slower than the run made them"),
                "dropped": n,
            });
            Note::Log(
                LoggingMessageNotificationParam::new(LoggingLevel::Warning, data)
                    .with_logger("automation"),
            )
        })
    }

    /// Whether anything can go out at all (a progress token or a log level).
    pub fn listening(&self) -> bool {
        self.token.is_some() || self.log_level.is_some()
    }

    /// One item of the stream: what must go out now, if anything.
    pub fn on(&mut self, event: &RunEvent) -> Option<Note> {
        if let RunEvent::Event(EventKind::Progress {
            current,
            total,
            message,
        }) = event
        {
            if let Some(t) = total {
                self.total = Some(*t);
            }
            return self.queue(*current, message.clone());
        }
        if !self.listening() {
            return None; // neither progress nor log notifications: nothing to format
        }
        let (level, text) = as_log(event)?;
        match self.log_level {
            Some(min) => (rank(level) >= rank(min)).then(|| {
                let data = json!({"type": wire_type(event), "message": text});
                Note::Log(
                    LoggingMessageNotificationParam::new(level, data).with_logger("automation"),
                )
            }),
            // The capability downgrade: the text rides in the progress message.
            None => {
                if !matches!(event, RunEvent::Event(_)) {
                    return None;
                }
                let v = self.last;
                self.queue(v, Some(text))
            }
        }
    }

    /// Holds a progress value (and message); the note when the rate limit lets it out now.
    fn queue(&mut self, value: f64, message: Option<String>) -> Option<Note> {
        self.token.as_ref()?;
        let base = self.pending.as_ref().map_or(self.last, |p| p.0);
        let v = if value > base { value } else { base + 0.001 };
        let message = message.or_else(|| self.pending.take().and_then(|p| p.1));
        self.pending = Some((v, message));
        if self.sent_at.elapsed() >= MIN_INTERVAL {
            self.flush()
        } else {
            None
        }
    }

    /// How long until [`Gate::due`] has something: the held progress's window, or the
    /// heartbeat.
    pub fn next_deadline(&self) -> Duration {
        let since = self.sent_at.elapsed();
        if self.pending.is_some() {
            MIN_INTERVAL.saturating_sub(since)
        } else {
            HEARTBEAT.saturating_sub(since)
        }
    }

    /// A timer fired: the held progress, or a heartbeat.
    pub fn due(&mut self) -> Option<Note> {
        if self.pending.is_none() && self.token.is_some() {
            self.pending = Some((self.last + 0.001, Some("still running".into())));
        }
        self.flush()
    }

    /// The held progress, now.
    pub fn flush(&mut self) -> Option<Note> {
        let token = self.token.clone()?;
        let (value, message) = self.pending.take()?;
        if value <= self.last {
            return None;
        }
        let mut p = ProgressNotificationParam::new(token, value);
        if let Some(t) = self.total {
            p = p.with_total(t.max(value));
        }
        if let Some(m) = message {
            p = p.with_message(m);
        }
        self.last = value;
        self.sent_at = Instant::now();
        self.sent_any = true;
        Some(Note::Progress(p))
    }

    /// The run has ended: the held progress, unless the whole run fit in the first interval
    /// (then the response, a moment later, says all a progress would, and costs the client
    /// one notification less).
    pub fn last(&mut self) -> Option<Note> {
        if !self.sent_any && self.sent_at.elapsed() < MIN_INTERVAL {
            self.pending = None;
            return None;
        }
        self.flush()
    }
}

/// A [`Gate`] shared by the run's thread and the request's task.
#[derive(Debug, Clone)]
pub struct SharedGate(Arc<Mutex<Gate>>);

impl SharedGate {
    /// Shares `gate`.
    pub fn new(gate: Gate) -> Self {
        Self(Arc::new(Mutex::new(gate)))
    }

    /// The gate (a panic elsewhere while it was held leaves it usable: its state is plain).
    pub fn lock(&self) -> MutexGuard<'_, Gate> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The run's side: every item through the gate, what must go out now to the request's task.
pub struct GateSink {
    gate: SharedGate,
    notes: mpsc::Sender<Note>,
    /// Notes dropped because the queue was full, not yet reported.
    dropped: usize,
}

/// Notes waiting for the request's task, at most. A script that floods its log pipe while the
/// client reads slowly would otherwise queue without limit; past this the notes are dropped
/// and counted, and a warning says how many once there is room (progress is rate-limited and
/// superseded by the next value, so only log notes can fill it).
pub const NOTE_QUEUE: usize = 1024;

impl GateSink {
    /// Notes the gate lets out go to `notes` (a channel of [`NOTE_QUEUE`]).
    pub fn new(gate: SharedGate, notes: mpsc::Sender<Note>) -> Self {
        Self {
            gate,
            notes,
            dropped: 0,
        }
    }

    /// Queues `note`, first the count of those dropped since the queue last had room.
    fn send(&mut self, note: Note) {
        use mpsc::error::TrySendError;
        if self.dropped > 0 {
            let lost = self.gate.lock().dropped_note(self.dropped);
            if let Some(lost) = lost {
                match self.notes.try_send(lost) {
                    Ok(()) => {}
                    Err(TrySendError::Full(_)) => {
                        self.dropped += 1;
                        return;
                    }
                    Err(TrySendError::Closed(_)) => return,
                }
            }
            self.dropped = 0;
        }
        match self.notes.try_send(note) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => self.dropped += 1,
            // The request's task is gone (the client went away): nothing to tell.
            Err(TrySendError::Closed(_)) => {}
        }
    }
}

impl Sink for GateSink {
    fn wants_calls(&self) -> bool {
        false // calls are never notified
    }

    fn event(&mut self, event: &RunEvent) {
        if matches!(event, RunEvent::Call(_) | RunEvent::Poll(_)) {
            return; // calls are never notified
        }
        let note = self.gate.lock().on(event);
        if let Some(note) = note {
            self.send(note);
        }
    }
}

/// The request's side: sends notes in order. A progress note not above the last one sent is
/// dropped: a heartbeat sent from the timer overtook it (progress never goes back).
pub struct Sender {
    peer: Peer<RoleServer>,
    sent: f64,
}

impl Sender {
    /// Sends to `peer`.
    pub fn new(peer: Peer<RoleServer>) -> Self {
        Self { peer, sent: 0.0 }
    }

    /// Sends one note (a failed send is the client's loss: the run goes on).
    pub async fn send(&mut self, note: Note) {
        match note {
            Note::Progress(p) => {
                if p.progress <= self.sent {
                    return;
                }
                self.sent = p.progress;
                let _ = self.peer.notify_progress(p).await;
            }
            Note::Log(l) => {
                let _ = self.peer.notify_logging_message(l).await;
            }
        }
    }
}

fn level_of(l: LogLevel) -> LoggingLevel {
    match l {
        LogLevel::Trace | LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Warn => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
    }
}

fn rank(l: LoggingLevel) -> u8 {
    match l {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// The text and level of an event as a log line, when it is one.
fn as_log(event: &RunEvent) -> Option<(LoggingLevel, String)> {
    match event {
        RunEvent::Event(kind) => {
            let (level, text) = match kind {
                EventKind::StepStarted {
                    step_name, step_id, ..
                } => (LoggingLevel::Info, format!("▶ {step_name} ({step_id})")),
                EventKind::StepCompleted {
                    step_name,
                    duration,
                    ..
                } => (
                    LoggingLevel::Info,
                    format!(
                        "✓ {step_name}{}",
                        duration
                            .map(|d| format!(" ({d:.0} ms)"))
                            .unwrap_or_default()
                    ),
                ),
                EventKind::StepFailed {
                    step_name, error, ..
                } => (
                    LoggingLevel::Error,
                    format!("✗ {step_name}: {}", error.as_deref().unwrap_or("failed")),
                ),
                EventKind::Log { level, message, .. } => (level_of(*level), message.clone()),
                EventKind::Status { message, .. } => (LoggingLevel::Info, message.clone()),
                EventKind::Screenshot { annotation, .. } => (
                    LoggingLevel::Info,
                    format!(
                        "screenshot{}",
                        annotation
                            .as_deref()
                            .map(|a| format!(": {a}"))
                            .unwrap_or_default()
                    ),
                ),
                EventKind::Progress { .. } | EventKind::Data { .. } => return None,
            };
            Some((level, text))
        }
        RunEvent::Log(r) => Some((level_of(r.level), r.message.clone())),
        RunEvent::Call(_) | RunEvent::Image(_) | RunEvent::Poll(_) | RunEvent::Failure(_) => None,
    }
}

/// The `type` a log note's data carries: the event's wire type, or `output` for plain output.
fn wire_type(event: &RunEvent) -> &'static str {
    match event {
        RunEvent::Event(kind) => kind.wire_type(),
        _ => "output",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn progress(current: f64, message: &str) -> RunEvent {
        RunEvent::Event(EventKind::Progress {
            current,
            total: Some(3.0),
            message: Some(message.into()),
        })
    }

    fn value(note: Option<Note>) -> Option<f64> {
        match note {
            Some(Note::Progress(p)) => Some(p.progress),
            _ => None,
        }
    }

    fn token() -> Option<ProgressToken> {
        Some(ProgressToken(NumberOrString::Number(7)))
    }

    #[test]
    fn progress_is_held_for_the_interval_and_only_grows() {
        let mut gate = Gate::new(token(), None);
        // Within the first interval nothing goes out; the latest is held.
        assert!(gate.on(&progress(1.0, "a")).is_none());
        assert!(gate.on(&progress(1.0, "b")).is_none());
        assert!(gate.next_deadline() <= MIN_INTERVAL);
        // A run that ends within the first interval sends nothing: the response says it.
        let mut quick = Gate::new(token(), None);
        assert!(quick.on(&progress(1.0, "a")).is_none());
        assert!(quick.last().is_none());
        // Past it, the end sends what is held, above the last value even when the run
        // repeated it.
        std::thread::sleep(MIN_INTERVAL);
        assert_eq!(value(gate.last()), Some(1.001));
        assert!(gate.flush().is_none(), "nothing held, nothing sent");
        std::thread::sleep(MIN_INTERVAL);
        // A value below the last one becomes the last plus a thousandth.
        let next = value(gate.on(&progress(0.5, "c"))).unwrap();
        assert!((next - 1.002).abs() < 1e-9, "{next}");
    }

    #[test]
    fn the_timer_sends_a_heartbeat_above_the_last_value() {
        let mut gate = Gate::new(token(), None);
        assert_eq!(value(gate.due()), Some(0.001));
        assert!(gate.next_deadline() > MIN_INTERVAL, "next is the heartbeat");
    }

    #[test]
    fn without_a_token_or_a_level_nothing_goes_out() {
        let mut gate = Gate::new(None, None);
        assert!(!gate.listening());
        assert!(gate.on(&progress(1.0, "a")).is_none());
        assert!(gate.due().is_none());
        assert!(gate.flush().is_none());
    }

    #[test]
    fn a_log_level_turns_step_events_into_log_notes_at_or_above_it() {
        let started = RunEvent::Event(EventKind::StepStarted {
            step_id: "s".into(),
            step_name: "save".into(),
            step_index: Some(0),
            total_steps: Some(1),
        });
        let warn = RunEvent::Event(EventKind::Log {
            level: LogLevel::Warn,
            message: "retrying".into(),
            data: None,
        });
        let mut info = Gate::new(None, Some(LoggingLevel::Info));
        assert!(matches!(info.on(&started), Some(Note::Log(_))));
        let mut warning = Gate::new(None, Some(LoggingLevel::Warning));
        assert!(warning.on(&started).is_none(), "info is below warning");
        assert!(matches!(warning.on(&warn), Some(Note::Log(_))));
    }

    #[test]
    fn without_a_level_step_text_rides_in_the_progress_message() {
        let mut gate = Gate::new(token(), None);
        let failed = RunEvent::Event(EventKind::StepFailed {
            step_id: "s".into(),
            step_name: "save".into(),
            error: Some("NOT_FOUND: no node".into()),
            duration: None,
        });
        assert!(gate.on(&failed).is_none(), "held by the interval");
        let Some(Note::Progress(p)) = gate.flush() else {
            panic!("a held progress expected")
        };
        assert_eq!(p.message.as_deref(), Some("✗ save: NOT_FOUND: no node"));
    }

    #[test]
    fn a_full_note_queue_drops_and_then_says_how_many() {
        let warn = RunEvent::Event(EventKind::Log {
            level: LogLevel::Warn,
            message: "flood".into(),
            data: None,
        });
        let (tx, mut rx) = mpsc::channel(2);
        let mut sink = GateSink::new(
            SharedGate::new(Gate::new(None, Some(LoggingLevel::Info))),
            tx,
        );
        for _ in 0..5 {
            sink.event(&warn);
        }
        // Two queued, three dropped; the client reads, the next note comes after the count.
        assert!(rx.try_recv().is_ok() && rx.try_recv().is_ok());
        assert!(rx.try_recv().is_err());
        sink.event(&warn);
        let Ok(Note::Log(lost)) = rx.try_recv() else {
            panic!("the dropped count comes first")
        };
        assert_eq!(lost.data["dropped"], 3);
        assert_eq!(lost.level, LoggingLevel::Warning);
        assert!(
            matches!(rx.try_recv(), Ok(Note::Log(_))),
            "then the note itself"
        );
        assert!(rx.try_recv().is_err());
    }
}
