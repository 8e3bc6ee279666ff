//! Turning a [`Mode`] into a backend: the headless demo, or a connected bridge client.
//!
//! Connecting happens here, before anything is served, so a mode that parses and then fails
//! (no bridge behind that pid, no token anywhere) is reported at once and exits 1.

use std::time::Duration;

use automation_wire::core_bridge::CoreBridgeClient;
use automation_wire::descriptor::DescriptorDir;
use automation_wire::probe::{self, PROBE_TIMEOUT, ProbeState};
use serde_json::{Value, json};

pub use crate::backend::Resolved;
use crate::backend::{BridgeBackend, headless_factory};
pub use crate::display::DisplayKind;
pub use crate::error::SessionError;

/// Env var holding the bridge token for `--connect` (the form the app's banner prints).
pub const TOKEN_ENV: &str = "AUTOMATION_TOKEN";

/// The resolved mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The built-in demo, in process.
    Headless,
    /// The newest live app.
    Attach,
    /// One live app by pid.
    AttachPid(u32),
    /// An explicit endpoint, with the token if one was given.
    Connect {
        /// The endpoint (socket path or pipe name).
        endpoint: String,
        /// The token, when given on the command line.
        token: Option<String>,
    },
    /// List live apps.
    List,
    /// Start an app and drive it over AT-SPI.
    Launch {
        /// The command line.
        command: String,
        /// On a private display.
        virtual_display: bool,
        /// Which kind of private display, when `virtual_display`.
        display: DisplayKind,
    },
    /// A running app over AT-SPI, by name or pid.
    Atspi(String),
}

/// Resolves a driving mode (not `List`) to a backend factory, connecting where needed; a
/// busy app fails at once.
pub fn resolve(mode: &Mode) -> Result<Resolved, SessionError> {
    resolve_with_wait(mode, None)
}

/// The directory of the live apps' descriptors.
fn descriptors() -> Result<DescriptorDir, SessionError> {
    DescriptorDir::open_default()
        .map_err(|e| SessionError::Bridge(format!("cannot read the descriptor directory: {e}")))
}

/// What to say when the app is still busy with another client.
fn busy_message(what: &str, wait: Option<Duration>) -> String {
    match wait {
        None => format!(
            "another client is attached to {what}; wait for it to detach, or pass --wait SECS"
        ),
        Some(w) => format!(
            "another client is still attached to {what} after waiting {:.1} s; wait for it to detach, or pass a longer --wait",
            w.as_secs_f64()
        ),
    }
}

/// [`resolve`], waiting up to `wait` (when given) while another client is attached.
pub fn resolve_with_wait(mode: &Mode, wait: Option<Duration>) -> Result<Resolved, SessionError> {
    match mode {
        Mode::Headless => Ok(Resolved {
            factory: headless_factory(),
            describe: "the built-in headless demo".into(),
        }),
        Mode::Attach | Mode::AttachPid(_) => {
            let pid = match mode {
                Mode::AttachPid(p) => Some(*p),
                _ => None,
            };
            let dir = descriptors()?;
            let (descriptor, _state) = probe::attach(&dir, pid, PROBE_TIMEOUT)
                .map_err(|e| SessionError::Bridge(e.to_string()))?;
            let client = CoreBridgeClient::from_descriptor_with_wait(
                &descriptor,
                wait.unwrap_or(Duration::ZERO),
            )
            .map_err(|e| {
                let what = format!("{} (pid {})", descriptor.app, descriptor.pid);
                SessionError::Bridge(if e.is_busy() {
                    busy_message(&what, wait)
                } else {
                    format!("cannot attach to {what}: {e}")
                })
            })?;
            Ok(Resolved {
                factory: BridgeBackend::factory(client),
                describe: format!(
                    "{} (pid {}) over {}",
                    descriptor.app, descriptor.pid, descriptor.address
                ),
            })
        }
        Mode::Connect { endpoint, token } => {
            let token = match token
                .clone()
                .or_else(|| std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()))
            {
                Some(t) => t,
                None => {
                    return Err(SessionError::Usage(format!(
                        "--connect needs a token: pass --token T or set ${TOKEN_ENV} (the app prints it at startup)"
                    )));
                }
            };
            let client = CoreBridgeClient::connect_with_wait(
                endpoint,
                &token,
                wait.unwrap_or(Duration::ZERO),
            )
            .map_err(|e| {
                SessionError::Bridge(if e.is_busy() {
                    busy_message(&format!("the app behind {endpoint}"), wait)
                } else {
                    format!("cannot connect to {endpoint}: {e}")
                })
            })?;
            Ok(Resolved {
                factory: BridgeBackend::factory(client),
                describe: format!("the app behind {endpoint}"),
            })
        }
        #[cfg(feature = "atspi")]
        Mode::Launch {
            command,
            virtual_display,
            display,
        } => crate::atspi_mode::launch(command, virtual_display.then_some(*display)),
        #[cfg(feature = "atspi")]
        Mode::Atspi(which) => crate::atspi_mode::attach(which),
        #[cfg(not(feature = "atspi"))]
        Mode::Launch { .. } | Mode::Atspi(_) => Err(SessionError::NotBuilt(
            "this build has no AT-SPI support (build automation-cli with the `atspi` feature)"
                .into(),
        )),
        Mode::List => Err(SessionError::Usage("--list does not drive an app".into())),
    }
}

/// `--list`: the live apps as JSON, newest first (dead descriptors are pruned, busy ones kept).
pub fn list() -> Result<Value, SessionError> {
    let dir = descriptors()?;
    let live =
        probe::list_live(&dir, PROBE_TIMEOUT).map_err(|e| SessionError::Bridge(e.to_string()))?;
    let apps: Vec<Value> = live
        .into_iter()
        .map(|(entry, state)| {
            let d = entry.descriptor;
            json!({
                "pid": d.pid,
                "app": d.app,
                "state": match state { ProbeState::Live => "live", ProbeState::Busy => "busy", ProbeState::Dead => "dead" },
                "transport": d.transport,
                "address": d.address,
                "started_unix_ms": d.started_unix_ms,
                "descriptor": entry.path.display().to_string(),
                "attach": format!("automation --attach-pid {}", d.pid),
            })
        })
        .collect();
    Ok(Value::Array(apps))
}
