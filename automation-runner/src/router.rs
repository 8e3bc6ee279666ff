//! Where a step's tool call goes: the tool layer ([`automation_session::tools::call`]: the same parsing
//! and reply shaping as a direct MCP call), answered in place by [`OnTarget`] on the target
//! thread, where the steps run.

use automation_core::{Cancel, ErrorCode, OpError};
use automation_session::backend::{Backend, serve_caught};
use automation_session::tools::{self, Outcome, Snapshots};
use serde_json::{Map, Value};

use super::evidence::{self, Evidence};
use std::sync::Arc;

/// Anything that answers tool calls ([`OnTarget`], or a test double in unit tests).
pub trait Router {
    /// Runs one tool call to completion.
    fn call(&mut self, tool: &str, args: Map<String, Value>) -> Outcome;

    /// What the app looked like right after the last call, when it acted on a node and
    /// evidence is on (taken once).
    fn take_evidence(&mut self) -> Option<Arc<Evidence>> {
        None
    }
}

/// The router of steps that run on the target thread: each call served in place, stoppable
/// through `cancel` like a direct call (a key of `type_text`, a settle frame, a wait poll).
pub struct OnTarget<'a> {
    backend: &'a mut Box<dyn Backend>,
    cancel: Cancel,
    snapshots: &'a Snapshots,
    /// Capture the app after each call that acts on a node (a report asked for it).
    pub evidence: bool,
    last: Option<Arc<Evidence>>,
}

impl<'a> OnTarget<'a> {
    /// Calls served by `backend`, stopped by `cancel`; `assert_screenshot` keeps its
    /// baselines in `snapshots`.
    pub fn new(
        backend: &'a mut Box<dyn Backend>,
        cancel: Cancel,
        snapshots: &'a Snapshots,
    ) -> Self {
        Self {
            backend,
            cancel,
            snapshots,
            evidence: false,
            last: None,
        }
    }
}

impl Router for OnTarget<'_> {
    fn take_evidence(&mut self) -> Option<Arc<Evidence>> {
        self.last.take()
    }

    fn call(&mut self, tool: &str, args: Map<String, Value>) -> Outcome {
        let (backend, cancel, wanted) = (&mut *self.backend, &self.cancel, self.evidence);
        // The last request and reply, kept only when evidence is on (a reply can be large).
        let mut acted = None;
        let outcome = tools::call(tool, args, self.snapshots, |request| {
            let reply = serve_caught(backend, request, cancel);
            if wanted {
                acted = Some((request.clone(), reply.clone()));
            }
            reply
        });
        self.last = if wanted && tool == tools::audit::AUDIT_APP {
            evidence::window(backend, cancel).map(Arc::new)
        } else {
            acted.and_then(|(request, reply)| {
                evidence::after_action(backend, &request, &reply, cancel).map(Arc::new)
            })
        };
        outcome.unwrap_or_else(|unknown| {
            Outcome::Failed(
                OpError::new(
                    ErrorCode::BadRequest,
                    format!("unknown tool {:?}", unknown.0),
                )
                .with_hint("list the tools with tools/list"),
            )
        })
    }
}
