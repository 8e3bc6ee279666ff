//! The MCP server: tools generated from the catalog, each call handed to the target thread as
//! plain data, op errors returned as `isError` results the model can read.

pub mod compact;
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
use tools::{CallError, Caps, ShotOptions};

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
    tools: Arc<Vec<Tool>>,
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
            tools: Arc::new(with_runner(tools::tools(caps))),
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

/// One tool call on the calling (non-async) thread: the router that workflow steps share with
/// direct MCP calls (the same parsing, target thread and result shaping).
pub fn call_blocking(
    target: &TargetHandle,
    name: &str,
    arguments: Option<rmcp::model::JsonObject>,
) -> Result<CallToolResult, McpError> {
    call_with(name, arguments, |request| target.call_blocking(request))
}

/// One tool call answered by `serve`: the same parsing and result shaping as a direct
/// `tools/call`.
pub fn call_with(
    name: &str,
    arguments: Option<rmcp::model::JsonObject>,
    serve: impl FnOnce(automation_core::Request) -> Reply,
) -> Result<CallToolResult, McpError> {
    call_shaped(name, arguments, serve).map(Shaped::into_result)
}

/// [`call_with`], its result left shaped (workflow steps on the target thread read the data,
/// not the JSON text a client gets).
pub fn call_shaped(
    name: &str,
    arguments: Option<rmcp::model::JsonObject>,
    serve: impl FnOnce(automation_core::Request) -> Reply,
) -> Result<Shaped, McpError> {
    let call = match tools::parse_call(name, arguments) {
        Ok(c) => c,
        Err(CallError::UnknownTool(n)) => return Err(unknown_tool(&n)),
        Err(CallError::Op(e)) => return Ok(Shaped::error(&e)),
    };
    let reply = serve(call.request);
    Ok(shape(reply, call.shot.as_ref()))
}

/// The catalog's tools plus the runner's `execute_sequence`.
fn with_runner(mut tools: Vec<Tool>) -> Vec<Tool> {
    tools.push(crate::runner::sinks::mcp::tool());
    tools
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
        if request.name == crate::runner::sinks::mcp::TOOL {
            return crate::runner::sinks::mcp::call(
                self.target.clone(),
                request.arguments,
                context,
            )
            .await;
        }
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
    Shaped::error(e).into_result()
}

/// A reply as a tool result.
pub fn to_result(reply: Reply, shot: Option<&ShotOptions>) -> CallToolResult {
    shape(reply, shot).into_result()
}

/// A reply shaped for a tool call, before it is a [`CallToolResult`]: what a direct call
/// answers and what a workflow step reads.
#[derive(Debug)]
pub enum Shaped {
    /// Structured data; as a result it is also sent as its JSON text.
    Data {
        /// The op's data, or the error `{code, message, hint?, …}`.
        value: Value,
        /// An `isError` result.
        is_error: bool,
    },
    /// Text only (`snapshot_tree`'s outline).
    Text(String),
    /// A finished result (a screenshot: its image and metadata).
    Result(CallToolResult),
}

impl Shaped {
    /// An op error as `isError` data.
    pub fn error(e: &OpError) -> Self {
        Self::Data {
            value: serde_json::to_value(e)
                .unwrap_or_else(|_| json!({"code": e.code, "message": e.message})),
            is_error: true,
        }
    }

    /// The tool result a client gets.
    pub fn into_result(self) -> CallToolResult {
        match self {
            Self::Data {
                value,
                is_error: false,
            } => CallToolResult::structured(value),
            Self::Data {
                value,
                is_error: true,
            } => CallToolResult::structured_error(value),
            Self::Text(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Self::Result(result) => result,
        }
    }
}

/// Shapes a reply: errors and data as structured data, a snapshot outline as text, a
/// screenshot as an image within `shot`'s budget.
pub fn shape(reply: Reply, shot: Option<&ShotOptions>) -> Shaped {
    match (reply, shot) {
        (Reply::Err(e), _) => Shaped::error(&e),
        (Reply::Ok(data), Some(shot)) => match screenshot_result(data, shot) {
            Ok(r) => Shaped::Result(r),
            Err(e) => Shaped::error(&e),
        },
        (Reply::Ok(Value::Object(m)), None) => match outline_text(&m) {
            Some(text) => Shaped::Text(text),
            None => Shaped::Data {
                value: Value::Object(m),
                is_error: false,
            },
        },
        (Reply::Ok(other), None) => Shaped::Data {
            value: json!({ "result": other }),
            is_error: false,
        },
    }
}

/// `snapshot_tree`'s text outline as one plain text block — not JSON-escaped, and not sent a
/// second time as structured content: the outline is what keeps a snapshot near 10 tokens a
/// node. The first line carries the tree version (and the truncation note, when cut).
fn outline_text(reply: &serde_json::Map<String, Value>) -> Option<String> {
    let tree = reply.get("tree")?.as_str()?;
    let version = reply.get("version").and_then(Value::as_u64).unwrap_or(0);
    let mut text = format!("version {version}");
    if let Some(note) = reply.get("note").and_then(Value::as_str) {
        text.push_str("; truncated: ");
        text.push_str(note);
    }
    text.push('\n');
    text.push_str(tree);
    Some(text)
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
        let written = save_png(path, &png, shot.overwrite)?;
        meta.insert("path".into(), json!(written.display().to_string()));
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

fn save_error(path: &std::path::Path, why: impl std::fmt::Display, fix: &str) -> OpError {
    OpError::new(
        ErrorCode::BadArgument,
        format!("save_to: cannot write {}: {why}", path.display()),
    )
    .with_hint(fix)
}

/// What kind of file `meta` describes, for a refusal.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_symlink() {
        return "a symbolic link";
    }
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Writes a screenshot to `path` (relative paths land in the server's current directory) and
/// returns the absolute path written. A new file is created; an existing one is replaced only
/// when `overwrite` and it is a regular file. Symlinks are never followed (`O_NOFOLLOW`) and
/// opening never blocks (`O_NONBLOCK`), so a FIFO planted at the path cannot hang the call.
pub fn save_png(path: &str, png: &[u8], overwrite: bool) -> Result<std::path::PathBuf, OpError> {
    use std::io::Write as _;
    let given = std::path::Path::new(path);
    let path = if given.is_absolute() {
        given.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| {
                save_error(
                    given,
                    format!("the server has no current directory ({e})"),
                    "pass an absolute path in save_to",
                )
            })?
            .join(given)
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
        options.mode(0o644);
    }
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_file() => {
            if !overwrite {
                return Err(save_error(
                    &path,
                    "the file already exists",
                    "pass a new path in save_to, or overwrite: true to replace this file",
                ));
            }
        }
        Ok(meta) => {
            let kind = file_kind(&meta);
            return Err(save_error(
                &path,
                format!(
                    "it is {kind}, and save_to only writes regular files (symlinks are never followed)"
                ),
                "pass the path of a new file in save_to",
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            options.create_new(true);
        }
        Err(e) => {
            return Err(save_error(
                &path,
                e,
                "pass a path in a directory the server can write",
            ));
        }
    }
    let mut file = options.open(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => save_error(
            &path,
            "a file appeared there while saving",
            "pass a new path in save_to",
        ),
        std::io::ErrorKind::NotFound => save_error(
            &path,
            "its directory does not exist",
            "create the directory first, or pass a path in an existing one",
        ),
        _ => save_error(
            &path,
            e,
            "pass a path in a directory the server can write, not a symlink",
        ),
    })?;
    // Whatever was opened must be a regular file (the path may have changed since the check).
    let meta = file
        .metadata()
        .map_err(|e| save_error(&path, e, "pass the path of a new file in save_to"))?;
    if !meta.file_type().is_file() {
        return Err(save_error(
            &path,
            format!(
                "it is {}, and save_to only writes regular files",
                file_kind(&meta)
            ),
            "pass the path of a new file in save_to",
        ));
    }
    file.set_len(0)
        .and_then(|()| file.write_all(png))
        .and_then(|()| file.flush())
        .map_err(|e| save_error(&path, e, "check free space and permissions"))?;
    Ok(path)
}

/// Serves MCP on stdin/stdout until stdin closes, behind the [`lines`] layer: every line
/// that rmcp would drop without a reply (not JSON, over-long, invalid params) is answered.
pub async fn serve_stdio(target: TargetHandle, caps: &Caps) -> Result<(), String> {
    let (stdin, stdout) = rmcp::transport::io::stdio_pipes();
    serve_lines(AutomationServer::with_caps(target, caps), stdin, stdout).await
}

/// [`serve_stdio`] over any byte streams (tests drive it in memory).
pub async fn serve_lines<R, W>(server: AutomationServer, input: R, output: W) -> Result<(), String>
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_png_creates_refuses_and_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.png");
        let ps = p.to_str().unwrap();
        assert_eq!(save_png(ps, b"one", false).unwrap(), p);
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        let e = save_png(ps, b"two", false).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadArgument);
        assert!(e.message.contains("already exists"), "{}", e.message);
        assert!(e.hint.as_deref().unwrap_or_default().contains("overwrite"));
        save_png(ps, b"2", true).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"2");
    }

    #[cfg(unix)]
    #[test]
    fn save_png_never_follows_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let link = dir.path().join("link.png");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        for overwrite in [false, true] {
            let e = save_png(link.to_str().unwrap(), b"x", overwrite).unwrap_err();
            assert!(e.message.contains("symbolic link"), "{}", e.message);
        }
        // A dangling link is not followed to create its target either.
        let dangling = dir.path().join("dangling.png");
        std::os::unix::fs::symlink(dir.path().join("created"), &dangling).unwrap();
        assert!(save_png(dangling.to_str().unwrap(), b"x", false).is_err());
        assert!(!dir.path().join("created").exists());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    }

    #[cfg(unix)]
    #[test]
    fn save_png_refuses_fifos_devices_and_directories_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.png");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let start = std::time::Instant::now();
        for overwrite in [false, true] {
            let e = save_png(fifo.to_str().unwrap(), b"x", overwrite).unwrap_err();
            assert!(e.message.contains("FIFO"), "{}", e.message);
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        let e = save_png("/dev/null", b"x", true).unwrap_err();
        assert!(e.message.contains("device"), "{}", e.message);
        let e = save_png(dir.path().to_str().unwrap(), b"x", true).unwrap_err();
        assert!(e.message.contains("directory"), "{}", e.message);
        let e = save_png(
            dir.path().join("no/such/dir.png").to_str().unwrap(),
            b"x",
            false,
        )
        .unwrap_err();
        assert!(e.message.contains("does not exist"), "{}", e.message);
    }
}
