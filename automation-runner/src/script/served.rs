//! The script's ops, served on the caller's target thread: each op's reply, its record for
//! the run's thread, and a marker on the event channel that files the record under the step
//! the script was in.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::Instant;

use automation_core::{Cancel, Reply, Request};
use automation_session::backend::{Backend, serve_caught};
use automation_session::tools::Snapshots;
use automation_wire::server::{JsonProtocol, PendingRequest};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::events::CallRecord;

/// The data key of the runner's own call markers (never passed on to the sinks).
pub(super) const CALL_MARKER: &str = "__automation_call__";

/// What the target thread tells the run's thread about the ops it served for the script.
pub(super) enum Served {
    /// An op's record, its marker's number and when it started: filed when the marker is
    /// read from the event channel.
    Call(u64, CallRecord, Instant),
    /// Marker `n` could not be written: file the calls up to it now.
    Unmarked(u64),
}

/// What the target thread needs to serve the script's ops, shared by their tasks (which run
/// one at a time, in order, on that thread).
pub(super) struct ScriptOps {
    /// The runner's own end of the event channel, for the call markers.
    pub(super) marker_out: Mutex<Option<std::fs::File>>,
    /// Calls served so far (the markers' numbers).
    pub(super) calls: AtomicU64,
    pub(super) served: mpsc::Sender<Served>,
    /// Where `assert_screenshot` keeps the flow's baselines.
    pub(super) snapshots: Snapshots,
    /// Capture the app after each call that acts on a node (a report asked for it).
    pub(super) evidence: bool,
    /// Some sink reads the calls' records (which name each node by its durable selector).
    pub(super) records: bool,
}

impl ScriptOps {
    /// Serves one op on the target thread: the reply, then its record to the run's thread,
    /// then a marker on the event channel, then the answer. The marker lands after every
    /// event the script wrote before this request and before any it writes after the reply,
    /// so the call is filed under the right step when the marker is read; the record was
    /// sent before the marker, so it is there to file when the marker is read.
    pub(super) fn serve(
        &self,
        backend: &mut Box<dyn Backend>,
        pending: PendingRequest<JsonProtocol>,
    ) {
        let (request, responder) = pending.into_parts();
        let started = Instant::now();
        let wants = Wants {
            evidence: self.evidence,
            selector: self.records,
        };
        let (reply, call) = serve(backend, request, &self.snapshots, wants);
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = self.served.send(Served::Call(n, call, started));
        let marked = self
            .marker_out
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
            .is_some_and(|f| write_marker(f, n));
        if !marked {
            let _ = self.served.send(Served::Unmarked(n));
        }
        let sent = responder.respond(reply);
        tracing::debug!(sent, "script reply");
    }

    pub(super) fn close_markers(&self) {
        *self
            .marker_out
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
    }
}

fn write_marker(f: &mut std::fs::File, n: u64) -> bool {
    use std::io::Write as _;
    let line = format!(
        "{{\"__mcp_event__\":true,\"type\":\"data\",\"timestamp\":\"{}\",\"key\":\"{CALL_MARKER}\",\"value\":{n}}}\n",
        automation_wire::events::iso8601_now()
    );
    f.write_all(line.as_bytes()).is_ok()
}

/// What a served call's record needs beyond the reply.
#[derive(Clone, Copy)]
struct Wants {
    /// The app captured after an action (a report).
    evidence: bool,
    /// The node's durable selector (records replay by it).
    selector: bool,
}

/// A script's request as the bridge brings it: the op, a bare name or `{name: args}` (the
/// rest, `settle` and the like, is read again by the request's own parser).
#[derive(serde::Deserialize)]
struct ScriptRequest {
    op: Value,
}

/// Answers one bridge request on the caller's target thread: the reply, and its record.
fn serve(
    backend: &mut Box<dyn Backend>,
    request: Value,
    snapshots: &Snapshots,
    wants: Wants,
) -> (Value, CallRecord) {
    let (tool, args) = match ScriptRequest::deserialize(&request).map(|r| r.op) {
        Ok(Value::String(name)) => (name, json!({})),
        Ok(Value::Object(m)) if m.len() == 1 => m.into_iter().next().unwrap_or_default(),
        _ => ("?".to_string(), Value::Null),
    };
    let t = Instant::now();
    tracing::debug!(op = %tool, "script request");
    let mut asked = true;
    let mut shown = None;
    let reply = if tool == automation_session::tools::ASSERT_SCREENSHOT {
        // Not an op: its ops are served here, with the flow's baselines.
        let args = args.as_object().cloned().unwrap_or_default();
        let cancel = Cancel::new();
        automation_session::tools::golden::assert_screenshot(args, snapshots, &mut |r| {
            serve_caught(backend, r, &cancel)
        })
        .map_or_else(Reply::Err, Reply::Ok)
    } else if tool == automation_session::tools::audit::AUDIT_APP {
        // Not an op either: the audit sends its own (`toPassAudit`).
        let args = args.as_object().cloned().unwrap_or_default();
        let cancel = Cancel::new();
        let reply = automation_session::tools::audit::audit_app(args, &mut |r| {
            serve_caught(backend, r, &cancel)
        })
        .map_or_else(Reply::Err, Reply::Ok);
        // Its findings are outlined on the window in a report.
        if wants.evidence {
            shown = crate::evidence::window(backend, &cancel).map(Arc::new);
        }
        reply
    } else {
        match Request::from_value(request) {
            Ok(mut req) => {
                // A record keeps the durable selector of the node the call names (its replay
                // snippet uses it), when some sink reads records; the script gets it only if
                // it asked.
                asked = req.with_selector;
                req.with_selector |=
                    wants.selector && automation_session::tools::names_a_node(&req.op);
                let cancel = Cancel::new();
                let reply = serve_caught(backend, &req, &cancel);
                if wants.evidence {
                    shown =
                        crate::evidence::after_action(backend, &req, &reply, &cancel).map(Arc::new);
                }
                reply
            }
            Err(e) => Reply::Err(e),
        }
    };
    // The script's wire is JSON: a screenshot's PNG becomes base64 here, for the script only;
    // the record keeps the bytes (its `.png`) and the image's size as the result.
    let mut reply_json = serde_json::to_value(&reply).unwrap_or(Value::Null);
    if !asked && let Some(data) = reply_json.get_mut("data") {
        automation_session::tools::strip_selector(data);
    }
    let (is_error, result, image) = match reply {
        Reply::Ok(data) => (false, data, None),
        Reply::Image(image) => (
            false,
            Value::Object(image.meta()),
            Some(Arc::new(image.png)),
        ),
        Reply::Err(_) => (true, reply_json.clone(), None),
    };
    let call = CallRecord {
        step_id: String::new(),
        tool,
        args,
        result,
        is_error,
        duration_ms: t.elapsed().as_secs_f64() * 1000.0,
        image,
        evidence: shown,
    };
    (reply_json, call)
}
