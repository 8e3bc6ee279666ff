//! The smallest app that installs the bridge. The canary test builds it in debug (the banner
//! string must be in the binary) and in release (it must not be).
//!
//! `CANARY_SERVE_MS=5000 cargo run -p automation-wire --example bridge_canary` keeps it serving
//! (echoing each request back as `{"status":"ok","data":<request>}`) for that long.

use std::time::{Duration, Instant};

use automation_wire::install::install_bridge_in_debug;
use automation_wire::server::{JsonProtocol, ServerOptions};

fn main() {
    let bridge = match install_bridge_in_debug::<JsonProtocol>(ServerOptions::new("bridge-canary"))
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("bridge_canary: could not start the bridge: {e}");
            std::process::exit(1);
        }
    };
    let Some(bridge) = bridge else {
        println!("bridge_canary: release build, no bridge");
        return;
    };
    let serve_ms: u64 = std::env::var("CANARY_SERVE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let until = Instant::now() + Duration::from_millis(serve_ms);
    // The "UI thread": drain the queue each frame.
    while Instant::now() < until {
        if let Some(pending) = bridge.recv_timeout(Duration::from_millis(16)) {
            let echo = serde_json::json!({"status": "ok", "data": pending.request().clone()});
            pending.respond(echo);
        }
    }
}
