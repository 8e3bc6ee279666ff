//! A live app for the attach tests: this test process publishes a descriptor and serves the
//! headless demo through automation-wire's bridge server, as an app with the bridge does.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use automation_core::{Reply, Request};
use automation_session::backend::{Backend, EguiDemo};
use automation_wire::core_bridge::CoreBridgeServer;
use automation_wire::server::ServerOptions;

/// The app: its endpoint, token and descriptor directory (`XDG_RUNTIME_DIR` for the CLI).
pub struct LiveApp {
    pub address: String,
    pub token: String,
    pub base: tempfile::TempDir,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LiveApp {
    /// Serves the demo; `answer` may answer a request itself (`None`: the demo answers).
    pub fn start(
        name: &str,
        mut answer: impl FnMut(&Request) -> Option<Reply> + Send + 'static,
    ) -> LiveApp {
        let base = tempfile::Builder::new()
            .prefix("acli")
            .tempdir_in("/tmp")
            .unwrap();
        let mut opts = ServerOptions::new(name);
        opts.base_dir = Some(base.path().to_path_buf());
        let s = CoreBridgeServer::start(opts).unwrap();
        let (address, token) = (s.address().to_string(), s.token().to_string());
        let stop = Arc::new(AtomicBool::new(false));
        let st = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut demo = EguiDemo::new();
            while !st.load(Ordering::SeqCst) {
                if let Some(p) = s.recv_timeout(Duration::from_millis(50)) {
                    let reply = answer(p.request()).unwrap_or_else(|| demo.serve(p.request()));
                    p.respond(reply);
                }
            }
        });
        LiveApp {
            address,
            token,
            base,
            stop,
            thread: Some(thread),
        }
    }

    /// The real `automation` binary, pointed at this app's descriptor directory.
    pub fn automation(&self, args: &[&str]) -> Command {
        let mut cmd = crate::support::automation();
        cmd.args(args)
            .env("XDG_RUNTIME_DIR", self.base.path())
            .env_remove("AUTOMATION_TOKEN")
            .stdin(Stdio::null());
        cmd
    }
}

impl Drop for LiveApp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
