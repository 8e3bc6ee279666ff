//! `automation serve --http ADDR`: the MCP server over streamable HTTP (rmcp's transport), one
//! target per MCP session on the session manager — two agents on one server each drive their
//! own app and never see each other's.
//!
//! The MCP session starts its target when the client initializes (a `--launch` app starts
//! then, on a display of its own with `--virtual-display`), and ends it when the session
//! closes: the client's DELETE, rmcp's keep-alive, or our idle timeout.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use automation_http::error::HttpError;
use automation_http::reach::http::{self, Access, Policy};
use automation_http::reach::sessions::{Session, Sessions};
use automation_session::mode::Mode;
use automation_session::tools::Snapshots;
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mcp::AutomationServer;
use crate::mcp::list::Caps;

/// The path MCP is served on.
pub const PATH: &str = "/mcp";

/// How the server is set up.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen.
    pub addr: SocketAddr,
    /// What each MCP session drives.
    pub mode: Mode,
    /// MCP sessions at once.
    pub max_sessions: usize,
    /// An MCP session unused this long is ended.
    pub idle_timeout: Duration,
    /// The token, the apps a session may launch, the web origins a user trusts.
    pub access: Access,
    /// The listed tool sets.
    pub caps: Caps,
    /// Where `assert_screenshot` keeps baselines.
    pub snapshots: Snapshots,
}

/// Ends its session when the last clone of the MCP server holding it is dropped.
pub struct Owner {
    sessions: Arc<Sessions<()>>,
    session: Arc<Session<()>>,
}

impl crate::mcp::Lease for Owner {
    fn touch(&self) {
        self.session.touch();
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        let sessions = Arc::clone(&self.sessions);
        let id = self.session.id.clone();
        tracing::info!(session = %id, "MCP session closed");
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                sessions.end(&id).await;
            });
        }
    }
}

/// Binds and serves until the process ends; `announce` gets the MCP URL once it listens.
pub async fn serve(config: Config, announce: impl FnOnce(&str)) -> Result<(), HttpError> {
    // Refused before anything binds.
    let policy = Policy::new(config.addr, &config.access)?;
    if let Mode::Launch { command, .. } = &config.mode {
        policy.may_launch(command)?;
    }
    http::door("MCP server", config.addr, &config.access)?;
    let (listener, addr) = automation_http::edge::bind(config.addr).await?;
    // On the bound port (0 picks one): the loopback Host check names it.
    let door = http::door("MCP server", addr, &config.access)?;
    let sessions: Arc<Sessions<()>> = Sessions::new(
        config.max_sessions,
        config.idle_timeout,
        config.snapshots.clone(),
    );
    sessions.reap_idle();
    let rt = tokio::runtime::Handle::current();
    let factory = {
        let sessions = Arc::clone(&sessions);
        let mode = config.mode.clone();
        let caps = config.caps.clone();
        let snapshots = config.snapshots.clone();
        move || -> Result<AutomationServer, std::io::Error> {
            // rmcp asks for the server synchronously, inside its request handler: start the
            // target without stalling the other connections on this worker.
            let created =
                tokio::task::block_in_place(|| rt.block_on(sessions.create(mode.clone())))
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            tracing::info!(session = %created.id, "MCP session: {}", created.describe);
            let server = AutomationServer::with_caps(created.target().clone(), &caps)
                .with_snapshots(snapshots.clone())
                .owned_by(Owner {
                    sessions: Arc::clone(&sessions),
                    session: created,
                });
            Ok(server)
        }
    };
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(config.idle_timeout);
    let mut mcp = StreamableHttpServerConfig::default();
    mcp.max_request_body_bytes = http::MAX_BODY;
    if !addr.ip().is_loopback() {
        // Our edge checks the token; rmcp's Host list is for loopback servers.
        mcp = mcp.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(factory, Arc::new(manager), mcp);
    // `GET /status`: whether a new session would be taken (`--max-sessions`), as the
    // WebDriver server answers it, for a load balancer or a script waiting for room.
    let status = {
        let sessions = Arc::clone(&sessions);
        axum::routing::get(move || async move { axum::Json(sessions.status()) })
    };
    let app = Router::new()
        .route("/status", status)
        .nest_service(PATH, service);
    announce(&format!("http://{addr}{PATH}"));
    let served = automation_http::edge::serve(listener, app, door).await;
    sessions.end_all().await;
    served
}
