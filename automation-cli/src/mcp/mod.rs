//! The MCP server: tools generated from the catalog, each call handed to the target thread as
//! plain data, op errors returned as `isError` results the model can read.

pub mod image;
pub mod lines;
pub mod tools;

use std::sync::Arc;

use automation_core::{ErrorCode, OpError, Reply};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

use crate::backend::TargetHandle;
use tools::{CallError, ShotOptions};

/// What the server tells the model about using it (the `instructions` field).
pub const INSTRUCTIONS: &str = "Drives a desktop app through its accessibility tree.\n\
Pattern: snapshot -> find -> act -> assert.\n\
1. snapshot_tree (bounded; follow its truncation note) or find_node {role, label} to get node ids (strings).\n\
2. Act with invoke_action {node, action: \"click\"}, set_value, type_text, inject_key, scroll, drag_node; these settle the app before replying.\n\
3. Check with assert_node, read_node, or pull_announcements for what a screen reader would hear.\n\
Errors come back as results with isError and {code, message, hint, candidates}: follow the hint; on AMBIGUOUS or NOT_FOUND pick a node from candidates. After a structural change re-run find_node rather than reuse old ids.\n\
screenshot returns a downscaled PNG (max_dimension, max_bytes) or, with save_to, a file path.";

/// The MCP server for one target.
#[derive(Clone)]
pub struct AutomationServer {
    target: TargetHandle,
    tools: Arc<Vec<Tool>>,
}

impl AutomationServer {
    /// A server over a running target thread.
    pub fn new(target: TargetHandle) -> Self {
        Self {
            target,
            tools: Arc::new(tools::tools()),
        }
    }

    /// Runs one tool call to completion (no cancellation); used by tests and the bench.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<rmcp::model::JsonObject>,
    ) -> Result<CallToolResult, McpError> {
        let call = match tools::parse_call(name, arguments) {
            Ok(c) => c,
            Err(CallError::UnknownTool(n)) => return Err(unknown_tool(&n)),
            Err(CallError::Op(e)) => return Ok(error_result(&e)),
        };
        let reply = self.target.call(call.request).await;
        Ok(to_result(reply, call.shot.as_ref()))
    }
}

fn unknown_tool(name: &str) -> McpError {
    McpError::invalid_params(
        format!("unknown tool {name:?}; list the tools with tools/list"),
        None,
    )
}

impl ServerHandler for AutomationServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("automation", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
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
        let call = match tools::parse_call(&request.name, request.arguments) {
            Ok(c) => c,
            Err(CallError::UnknownTool(n)) => return Err(unknown_tool(&n)),
            Err(CallError::Op(e)) => return Ok(error_result(&e).into()),
        };
        let op = call.request.op.name();
        tracing::debug!(op, "tools/call");
        let pending = self.target.submit(call.request);
        let cancel = pending.cancel_flag();
        tokio::select! {
            reply = pending.reply => {
                let reply = reply.unwrap_or_else(|_| Reply::Err(OpError::new(ErrorCode::TargetFailed, "the target thread dropped the request")));
                Ok(to_result(reply, call.shot.as_ref()).into())
            }
            () = context.ct.cancelled() => {
                cancel.cancel();
                tracing::debug!(op, "cancelled by the client");
                Err(McpError::internal_error("request cancelled", None))
            }
        }
    }
}

/// An op error as an `isError` result: structured `{code, message, hint?, candidates?}` and the
/// same JSON as text.
pub fn error_result(e: &OpError) -> CallToolResult {
    CallToolResult::structured_error(
        serde_json::to_value(e).unwrap_or_else(|_| json!({"code": e.code, "message": e.message})),
    )
}

/// A reply as a tool result.
pub fn to_result(reply: Reply, shot: Option<&ShotOptions>) -> CallToolResult {
    match (reply, shot) {
        (Reply::Err(e), _) => error_result(&e),
        (Reply::Ok(data), Some(shot)) => match screenshot_result(data, shot) {
            Ok(r) => r,
            Err(e) => error_result(&e),
        },
        (Reply::Ok(Value::Object(m)), None) => CallToolResult::structured(Value::Object(m)),
        (Reply::Ok(other), None) => CallToolResult::structured(json!({ "result": other })),
    }
}

/// The host's screenshot reply `{image: {mime, base64}, width, height, scale, …}` as an image
/// block within budget (or a saved file), plus its metadata.
fn screenshot_result(data: Value, shot: &ShotOptions) -> Result<CallToolResult, OpError> {
    let Value::Object(mut meta) = data else {
        return Err(OpError::new(
            ErrorCode::TargetFailed,
            "screenshot reply is not an object",
        ));
    };
    let image = meta.remove("image").unwrap_or(Value::Null);
    let b64 = image
        .get("base64")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let png = B64.decode(b64).map_err(|e| {
        OpError::new(
            ErrorCode::TargetFailed,
            format!("screenshot reply carries no valid base64 PNG: {e}"),
        )
    })?;
    let scale = meta.get("scale").and_then(Value::as_f64).unwrap_or(1.0);
    if let Some(path) = &shot.save_to {
        std::fs::write(path, &png).map_err(|e| {
            OpError::new(ErrorCode::BadArgument, format!("cannot write {path}: {e}"))
                .with_hint("pass a writable path in save_to")
        })?;
        meta.insert("path".into(), json!(path));
        meta.insert("bytes".into(), json!(png.len()));
        return Ok(CallToolResult::structured(Value::Object(meta)));
    }
    let fitted = image::fit(&png, shot.max_dimension, shot.max_bytes)
        .map_err(|e| OpError::new(ErrorCode::TargetFailed, e))?;
    if fitted.factor < 1.0 {
        let mut original = Map::new();
        original.insert(
            "width".into(),
            meta.get("width").cloned().unwrap_or(Value::Null),
        );
        original.insert(
            "height".into(),
            meta.get("height").cloned().unwrap_or(Value::Null),
        );
        original.insert("scale".into(), json!(scale));
        meta.insert("original".into(), Value::Object(original));
        meta.insert("width".into(), json!(fitted.width));
        meta.insert("height".into(), json!(fitted.height));
        meta.insert("scale".into(), json!(scale * fitted.factor));
    }
    meta.insert("mime".into(), json!("image/png"));
    let meta = Value::Object(meta);
    let mut result = CallToolResult::success(vec![
        ContentBlock::image(fitted.base64, "image/png"),
        ContentBlock::text(meta.to_string()),
    ]);
    result.structured_content = Some(meta);
    Ok(result)
}

/// Serves MCP on stdin/stdout until stdin closes, behind the [`lines`] layer: every line
/// that rmcp would drop without a reply (not JSON, over-long, invalid params) is answered.
pub async fn serve_stdio(target: TargetHandle) -> Result<(), String> {
    let (stdin, stdout) = rmcp::transport::io::stdio_pipes();
    serve_lines(target, stdin, stdout).await
}

/// [`serve_stdio`] over any byte streams (tests drive it in memory).
pub async fn serve_lines<R, W>(target: TargetHandle, input: R, output: W) -> Result<(), String>
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
    let server = AutomationServer::new(target);
    let result = match server.serve(transport).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| format!("MCP server stopped: {e}")),
        // stdin closed before a client said hello (Ctrl-D, a probe): a clean exit.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("stdin closed before the MCP handshake");
            Ok(())
        }
        Err(e) => Err(format!("MCP handshake failed: {e}")),
    };
    filter.abort();
    // rmcp's output is closed once the service stops: flush what is left, then stop.
    let _ = forwarder.await;
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
    result
}
