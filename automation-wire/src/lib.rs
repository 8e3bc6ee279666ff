#![doc = include_str!("../README.md")]
// The workspace's lints (Cargo.toml `[workspace.lints]`) apply; a crate that parses bytes from
// other processes also refuses indexing that could panic.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

// --- the live bridge's wire (no async runtime, no AccessKit) ---
// The bridge client.
pub mod client;
// The endpoint descriptor (`<pid>.json`).
pub mod descriptor;
// Length-prefixed JSON frames with caps.
pub mod frame;
// Owner-only directories not taken on trust.
pub mod fsguard;
// The token line and the hello frame.
pub mod handshake;
// The debug-only installer and its banner.
pub mod install;
// `Live` / `Busy` / `Dead`, and pruning only the dead.
pub mod probe;
// The host-agnostic bridge server.
pub mod server;
// SIGTERM/SIGINT remove what a live app published (socket, its directory, descriptor).
#[cfg(unix)]
pub mod signal_cleanup;
// The private local endpoint (Unix socket / Windows named pipe).
pub mod transport;
#[cfg(windows)]
pub(crate) mod winsec;

// --- automation-core's protocol (feature `bridge`) ---
// The bridge speaking `automation_core::{Request, Reply}`.
#[cfg(feature = "bridge")]
pub mod core_bridge;

// --- the event pipe (usable without the bridge) ---
pub mod events;
