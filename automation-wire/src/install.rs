//! The debug-only installer an app calls to start the bridge.
//!
//! In a debug build (`cfg(debug_assertions)`) it starts a [`BridgeServer`], publishes the
//! descriptor, prints the startup banner on stderr and (Unix) arranges that SIGTERM or SIGINT
//! removes the socket, its directory and the descriptor before the process dies
//! ([`crate::signal_cleanup`]). In a release build it is a no-op that
//! returns `Ok(None)`, and the banner, the token generation path and the bridge thread are not
//! in the binary at all: the canary test (`tests/canary.rs`) builds
//! `examples/bridge_canary.rs` both ways and greps the binaries for the banner string.

use crate::server::{BridgeError, BridgeProtocol, BridgeServer, ServerOptions};

/// Start the bridge in a debug build; a no-op (`Ok(None)`) in a release build.
#[cfg(debug_assertions)]
pub fn install_bridge_in_debug<P: BridgeProtocol>(
    opts: ServerOptions,
) -> Result<Option<BridgeServer<P>>, BridgeError> {
    let server = BridgeServer::<P>::start(opts)?;
    #[cfg(unix)]
    crate::signal_cleanup::remove_on_signal(
        server.address().into(),
        server.descriptor_path().map(Into::into),
    );
    let pid = std::process::id();
    let descriptor = server
        .descriptor_path()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "(not published)".into());
    eprintln!(
        "automation: bridge endpoint = {addr}\nautomation: descriptor = {descriptor}\nexport AUTOMATION_TOKEN={token}\nautomation: attach with `automation --attach-pid {pid}` (or --connect {addr} --token {token})",
        addr = server.address(),
        token = server.token(),
    );
    Ok(Some(server))
}

/// Start the bridge in a debug build; a no-op (`Ok(None)`) in a release build.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub fn install_bridge_in_debug<P: BridgeProtocol>(
    opts: ServerOptions,
) -> Result<Option<BridgeServer<P>>, BridgeError> {
    let _ = opts;
    Ok(None)
}
