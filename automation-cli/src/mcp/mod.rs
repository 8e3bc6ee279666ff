//! The MCP server: tools generated from the catalog, each call handed to the target thread as
//! plain data, op errors returned as `isError` results the model can read.

pub mod http;
pub mod lines;
pub mod list;
pub mod progress;
pub mod sequence;

use std::sync::{Arc, Mutex};

use crate::error::CliError;
use automation_core::{Cancel, ErrorCode, OpError, Reply};
use automation_runner::authoring::{self, SessionLog};
use automation_session::backend::{TargetHandle, serve_caught};
use automation_session::tools::shape::{error_value, shape};
use automation_session::tools::{self, Call, Outcome, ParseError, Snapshots, Tool, UnknownTool};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use list::Caps;

/// What the server tells the model about using it (the `instructions` field).
pub const INSTRUCTIONS: &str = "Drives a desktop app through its accessibility tree.\n\
Pattern: snapshot -> find -> act -> assert.\n\
1. snapshot_tree (bounded; follow its truncation note) or find_node {role, label} to get node ids (strings).\n\
2. Act with invoke_action {node, action: \"click\"}, set_value, type_text, inject_key, scroll, drag_node; these settle the app before replying.\n\
3. Check with assert_node, read_node, or pull_announcements for what a screen reader would hear.\n\
A `node` argument is an id from snapshot_tree/find_node or a selector object with find_node's fields.\n\
Errors come back as results with isError and {code, message, hint, candidates}: follow the hint; on AMBIGUOUS or NOT_FOUND pick a node from candidates. After a structural change re-run find_node rather than reuse old ids.\n\
screenshot returns a downscaled PNG (max_dimension, max_bytes) or, with save_to, a file path.\n\
tools/list holds the core tools; the server flag --caps (touch, toolkit, input, clock, or all) lists the rest.";

/// The MCP server for one target.
#[derive(Clone)]
pub struct AutomationServer {
    target: TargetHandle,
    tools: Arc<Vec<rmcp::model::Tool>>,
    /// Every op call of the session, for `export_test`.
    log: Arc<Mutex<SessionLog>>,
    /// Where `assert_screenshot` keeps baselines (and inline `execute_sequence` flows too).
    snapshots: Arc<Snapshots>,
    /// Over HTTP: the session this server's target belongs to, ended when the last clone of
    /// the server is dropped (the MCP session closed).
    owner: Option<Arc<dyn Lease>>,
}

/// What holds the target of an MCP session over HTTP: kept while any clone of the server
/// lives (dropping the last one ends the session), touched on every call (the idle timeout
/// counts from the last one).
pub trait Lease: Send + Sync {
    /// Marks the session used now.
    fn touch(&self);
}

/// An op call on its way to the target: the parsed call (asking core for the node's durable
/// selector whenever it names a node, for the log), the arguments as sent, and whether the
/// caller asked for the selector itself.
struct Recording {
    call: Call,
    args: rmcp::model::JsonObject,
    asked: bool,
}

impl AutomationServer {
    /// A server over a running target thread, listing the `core` tools.
    pub fn new(target: TargetHandle) -> Self {
        Self::with_caps(target, &Caps::default())
    }

    /// A server listing the tools of `caps` (every op stays callable).
    pub fn with_caps(target: TargetHandle, caps: &Caps) -> Self {
        Self {
            target,
            tools: Arc::new(list::tools(caps)),
            log: Arc::new(Mutex::new(SessionLog::default())),
            snapshots: Arc::new(Snapshots::new(
                automation_session::tools::DEFAULT_SNAPSHOTS_DIR,
                false,
            )),
            owner: None,
        }
    }

    /// The server of one MCP-over-HTTP session, which `owner` ends with it.
    pub fn owned_by(mut self, owner: impl Lease + 'static) -> Self {
        self.owner = Some(Arc::new(owner));
        self
    }

    /// Marks the owning session used (the idle timeout counts from the last call).
    fn touch(&self) {
        if let Some(owner) = &self.owner {
            owner.touch();
        }
    }

    /// The server with its baselines in `snapshots`.
    pub fn with_snapshots(mut self, snapshots: Snapshots) -> Self {
        self.snapshots = Arc::new(snapshots);
        self
    }

    /// The snapshots directory of this server.
    pub fn snapshots(&self) -> &Snapshots {
        &self.snapshots
    }

    /// `assert_screenshot`, composed on the target thread (its captures and reads are served
    /// there one after another, cancelled with the call).
    async fn golden(&self, args: rmcp::model::JsonObject, cancel: Cancel) -> Outcome {
        let snapshots = Arc::clone(&self.snapshots);
        let done = self.target.run_task(move |backend| {
            tools::golden::assert_screenshot(args, &snapshots, &mut |r| {
                serve_caught(backend, r, &cancel)
            })
        });
        match done.await {
            Ok(Ok(data)) => Outcome::Data(data),
            Ok(Err(e)) => Outcome::Failed(e),
            Err(_) => Outcome::Failed(OpError::new(
                ErrorCode::TargetFailed,
                "the target thread stopped during assert_screenshot",
            )),
        }
    }

    /// `audit_app`: the accessibility audit, its ops served on the target thread.
    async fn audit(&self, args: rmcp::model::JsonObject, cancel: Cancel) -> Outcome {
        let done = self.target.run_task(move |backend| {
            tools::audit::audit_app(args, &mut |r| serve_caught(backend, r, &cancel))
        });
        match done.await {
            Ok(Ok(data)) => Outcome::Data(data),
            Ok(Err(e)) => Outcome::Failed(e),
            Err(_) => Outcome::Failed(OpError::new(
                ErrorCode::TargetFailed,
                "the target thread stopped during audit_app",
            )),
        }
    }

    /// Parses an op call for the target and the log.
    fn prepare(&self, name: &str, args: rmcp::model::JsonObject) -> Result<Recording, ParseError> {
        let mut sent = args.clone();
        sent.remove("with_selector");
        let mut call = tools::parse(name, args)?;
        let asked = call.request.with_selector;
        if tools::names_a_node(&call.request.op) {
            call.request.with_selector = true;
        }
        Ok(Recording {
            call,
            args: sent,
            asked,
        })
    }

    /// Logs the call and shapes its reply for the caller (the selector only if asked).
    fn finish(&self, rec: Recording, reply: Reply) -> Outcome {
        let mut outcome = shape(reply, &rec.call.delivery);
        if let Ok(mut log) = self.log.lock() {
            log.record(&rec.call.request.op, rec.args, &outcome);
        }
        if !rec.asked
            && let Outcome::Data(data) = &mut outcome
        {
            tools::strip_selector(data);
        }
        outcome
    }

    /// `export_test`: the session so far as a test.
    fn export(&self, args: rmcp::model::JsonObject) -> Outcome {
        let log = match self.log.lock() {
            Ok(log) => log,
            Err(poisoned) => poisoned.into_inner(),
        };
        match authoring::export(&log, args) {
            Ok(data) => Outcome::Data(data),
            Err(e) => Outcome::Failed(e),
        }
    }

    /// Runs one tool call to completion (no cancellation); used by tests and the bench.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<rmcp::model::JsonObject>,
    ) -> Result<CallToolResult, McpError> {
        let arguments = arguments.unwrap_or_default();
        match tools::lookup(name) {
            Some(Tool::Export) => return Ok(result(self.export(arguments))),
            Some(Tool::Golden) => return Ok(result(self.golden(arguments, Cancel::new()).await)),
            Some(Tool::Audit) => return Ok(result(self.audit(arguments, Cancel::new()).await)),
            _ => {}
        }
        let rec = match self.prepare(name, arguments) {
            Ok(c) => c,
            Err(ParseError::Unknown(u)) => return Err(unknown_tool(&u)),
            Err(ParseError::Bad(e)) => return Ok(result(Outcome::Failed(e))),
        };
        let reply = self.target.call(rec.call.request.clone()).await;
        Ok(result(self.finish(rec, reply)))
    }
}

fn unknown_tool(u: &UnknownTool) -> McpError {
    McpError::invalid_params(u.to_string(), None)
}

impl ServerHandler for AutomationServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("automation", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    /// Over HTTP, only the revisions with sessions: from 2026-07-28 requests are stateless,
    /// and each would start an app of its own.
    fn supported_protocol_versions(
        &self,
    ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        use rmcp::model::ProtocolVersion;
        if self.owner.is_some() {
            std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
        } else {
            std::borrow::Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.touch();
        let arguments = request.arguments.unwrap_or_default();
        match tools::lookup(&request.name) {
            Some(Tool::Sequence) => {
                return sequence::call(self.target.clone(), arguments, &self.snapshots, context)
                    .await;
            }
            Some(Tool::Export) => return Ok(result(self.export(arguments)).into()),
            Some(Tool::Audit) => {
                let cancel = Cancel::new();
                let flag = cancel.clone();
                return tokio::select! {
                    outcome = self.audit(arguments, cancel) => Ok(result(outcome).into()),
                    () = context.ct.cancelled() => {
                        flag.cancel();
                        Err(McpError::internal_error("request cancelled", None))
                    }
                };
            }
            Some(Tool::Golden) => {
                let cancel = Cancel::new();
                let flag = cancel.clone();
                return tokio::select! {
                    outcome = self.golden(arguments, cancel) => Ok(result(outcome).into()),
                    () = context.ct.cancelled() => {
                        flag.cancel();
                        Err(McpError::internal_error("request cancelled", None))
                    }
                };
            }
            _ => {}
        }
        let rec = match self.prepare(&request.name, arguments) {
            Ok(c) => c,
            Err(ParseError::Unknown(u)) => return Err(unknown_tool(&u)),
            Err(ParseError::Bad(e)) => return Ok(result(Outcome::Failed(e)).into()),
        };
        let op = rec.call.request.op.name();
        tracing::debug!(op, "tools/call");
        let pending = self.target.submit(rec.call.request.clone());
        let cancel = pending.cancel_flag();
        tokio::select! {
            reply = pending.reply => {
                let reply = reply.unwrap_or_else(|_| Reply::Err(OpError::new(ErrorCode::TargetFailed, "the target thread dropped the request")));
                Ok(result(self.finish(rec, reply)).into())
            }
            () = context.ct.cancelled() => {
                cancel.cancel();
                tracing::debug!(op, "cancelled by the client");
                Err(McpError::internal_error("request cancelled", None))
            }
        }
    }
}

/// An outcome as the tool result a client gets: data as structured content (and its JSON
/// text), a snapshot as one plain text block (not JSON-escaped, not sent twice), an image as
/// an image block (base64 here, at the wire) with its metadata, an error as an `isError`
/// result `{code, message, hint?, candidates?}`.
pub fn result(outcome: Outcome) -> CallToolResult {
    match outcome {
        Outcome::Data(value) => CallToolResult::structured(value),
        Outcome::Failed(e) => CallToolResult::structured_error(error_value(&e)),
        snapshot @ Outcome::Snapshot(_) => CallToolResult::success(vec![ContentBlock::text(
            snapshot.text().unwrap_or_default(),
        )]),
        Outcome::Image(image) => {
            let meta = Value::Object(image.meta);
            let mut result = CallToolResult::success(vec![
                ContentBlock::image(B64.encode(&image.png), "image/png"),
                ContentBlock::text(meta.to_string()),
            ]);
            result.structured_content = Some(meta);
            result
        }
    }
}

/// Serves MCP on stdin/stdout until stdin closes, behind the [`lines`] layer: every line
/// that rmcp would drop without a reply (not JSON, over-long, invalid params) is answered.
pub async fn serve_stdio(
    target: TargetHandle,
    caps: &Caps,
    snapshots: Snapshots,
) -> Result<(), CliError> {
    let (stdin, stdout) = rmcp::transport::io::stdio_pipes();
    let server = AutomationServer::with_caps(target, caps).with_snapshots(snapshots);
    serve_lines(server, stdin, stdout).await
}

/// [`serve_stdio`] over any byte streams (tests drive it in memory).
pub async fn serve_lines<R, W>(
    server: AutomationServer,
    input: R,
    output: W,
) -> Result<(), CliError>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (to_rmcp, rmcp_in) = tokio::io::duplex(256 * 1024);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(256 * 1024);
    let (lines_tx, lines_rx) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(lines::write_lines(output, lines_rx));
    let forwarder = tokio::spawn(lines::forward_lines(from_rmcp, lines_tx.clone()));
    let filter = tokio::spawn(async move {
        if let Err(e) = lines::filter_lines(input, to_rmcp, lines_tx, lines::MAX_LINE_BYTES).await {
            tracing::warn!("reading stdin: {e}");
        }
    });
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(rmcp_in, rmcp_out)
        // The layer already capped lines; never let rmcp drop one silently.
        .with_max_line_length(lines::MAX_LINE_BYTES + 16);
    let result = match server.serve(transport).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|_| ())
            .map_err(CliError::McpStopped),
        // stdin closed before a client said hello (Ctrl-D, a probe): a clean exit.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("stdin closed before the MCP handshake");
            Ok(())
        }
        Err(e) => Err(CliError::McpHandshake(Box::new(e))),
    };
    filter.abort();
    // rmcp's output is closed once the service stops: flush what is left, then stop.
    let _ = forwarder.await;
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
    result
}
