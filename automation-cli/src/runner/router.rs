//! Where a step's tool call goes: the tool layer ([`crate::tools::call`]: the same parsing
//! and reply shaping as a direct MCP call), answered in place by [`OnTarget`] on the target
//! thread, where the steps run.

use automation_core::{Cancel, ErrorCode, OpError};
use serde_json::{Map, Value};

use crate::backend::{Backend, serve_caught};
use crate::tools::{self, Outcome, Snapshots};

/// Anything that answers tool calls ([`OnTarget`], or a test double in unit tests).
pub trait Router {
    /// Runs one tool call to completion.
    fn call(&mut self, tool: &str, args: Map<String, Value>) -> Outcome;
}

/// The router of steps that run on the target thread: each call served in place, stoppable
/// through `cancel` like a direct call (a key of `type_text`, a settle frame, a wait poll).
pub struct OnTarget<'a> {
    backend: &'a mut Box<dyn Backend>,
    cancel: Cancel,
    snapshots: &'a Snapshots,
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
        }
    }
}

impl Router for OnTarget<'_> {
    fn call(&mut self, tool: &str, args: Map<String, Value>) -> Outcome {
        let (backend, cancel) = (&mut *self.backend, &self.cancel);
        tools::call(tool, args, self.snapshots, |request| {
            serve_caught(backend, request, cancel)
        })
        .unwrap_or_else(|unknown| {
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
