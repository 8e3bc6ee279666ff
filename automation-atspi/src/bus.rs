//! The accessibility bus: connecting, switching assistive technology on, finding apps.

use std::time::{Duration, Instant};

use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::bus::{BusProxy, StatusProxy};
use atspi::{Role, State};
use automation_core::TargetError;
use futures_lite::future::block_on;
use zbus::Connection;

use crate::dbus::{self, proxy};

/// The registry's root object: its children are the apps.
pub const REGISTRY: &str = "org.a11y.atspi.Registry";
/// The object path of every app's (and the registry's) root accessible.
pub const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";

/// An app on the accessibility bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct App {
    /// Its unique name on the accessibility bus (`:1.42`).
    pub bus_name: String,
    /// Its accessible name (usually the program name: `zenity`, `gnome-calculator`).
    pub name: String,
    /// Its process id, as the bus daemon knows it.
    pub pid: Option<u32>,
    /// Its root object's path.
    pub root: String,
}

/// Which app to drive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppSelector {
    /// The app whose accessible name is this (exactly, else case-insensitively contained).
    Name(String),
    /// The app with this process id.
    Pid(u32),
}

impl AppSelector {
    /// `1234` is a pid, anything else a name.
    pub fn parse(s: &str) -> Self {
        match s.trim().parse::<u32>() {
            Ok(pid) => Self::Pid(pid),
            Err(_) => Self::Name(s.trim().to_string()),
        }
    }

    fn matches(&self, app: &App, exact: bool) -> bool {
        match self {
            Self::Pid(p) => app.pid == Some(*p),
            Self::Name(n) if exact => app.name == *n,
            Self::Name(n) => app.name.to_lowercase().contains(&n.to_lowercase()),
        }
    }
}

impl std::fmt::Display for AppSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Pid(p) => write!(f, "pid {p}"),
            Self::Name(n) => write!(f, "{n:?}"),
        }
    }
}

/// A session bus and the accessibility bus it points to.
pub struct Bus {
    /// The accessibility bus (queries).
    pub conn: Connection,
    session: Connection,
    /// The session bus's address, when known (given, or `$DBUS_SESSION_BUS_ADDRESS`).
    session_address: Option<String>,
    a11y_address: String,
}

impl std::fmt::Debug for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bus")
            .field("a11y_address", &self.a11y_address)
            .finish()
    }
}

fn env_err(what: &str) -> impl Fn(zbus::Error) -> TargetError + '_ {
    move |e| TargetError::Ipc(format!("{what}: {e}"))
}

impl Bus {
    /// Connects to the session bus at `session_address` (`None`: `$DBUS_SESSION_BUS_ADDRESS`),
    /// switches assistive technology on there (`org.a11y.Status.IsEnabled` and
    /// `ScreenReaderEnabled`: AccessKit apps such as eframe's stay silent until one is set),
    /// and connects to the accessibility bus it names (or `$AT_SPI_BUS_ADDRESS`, as libatspi
    /// does).
    pub fn connect(session_address: Option<&str>) -> Result<Self, TargetError> {
        block_on(async {
            let session = match session_address {
                Some(a) => dbus::connect(a).await,
                None => {
                    dbus::session_builder()
                        .map_err(env_err("the session bus"))?
                        .build()
                        .await
                }
            }
            .map_err(|e| {
                TargetError::Ipc(format!(
                    "cannot connect to the session bus ({e}); is DBUS_SESSION_BUS_ADDRESS set? \
                     (or use --virtual-display)"
                ))
            })?;
            let status: StatusProxy<'_> = StatusProxy::new(&session)
                .await
                .map_err(env_err("org.a11y.Status"))?;
            // Best effort: an older bus launcher may lack one of them.
            let _ = status.set_is_enabled(true).await;
            let _ = status.set_screen_reader_enabled(true).await;
            let a11y_address = match std::env::var("AT_SPI_BUS_ADDRESS")
                .ok()
                .filter(|a| !a.is_empty() && session_address.is_none())
            {
                Some(a) => a,
                None => BusProxy::new(&session)
                    .await
                    .map_err(env_err("org.a11y.Bus"))?
                    .get_address()
                    .await
                    .map_err(|e| {
                        TargetError::Ipc(format!(
                            "the session bus has no accessibility bus ({e}); install at-spi2-core \
                             and start at-spi-bus-launcher (or use --virtual-display)"
                        ))
                    })?,
            };
            let conn = dbus::connect(&a11y_address)
                .await
                .map_err(env_err("the accessibility bus"))?;
            Ok(Self {
                conn,
                session,
                session_address: session_address
                    .map(str::to_string)
                    .or_else(|| std::env::var("DBUS_SESSION_BUS_ADDRESS").ok()),
                a11y_address,
            })
        })
    }

    /// The session bus connection.
    pub fn session(&self) -> &Connection {
        &self.session
    }

    /// The session bus's address, when known.
    pub fn session_address(&self) -> Option<&str> {
        self.session_address.as_deref()
    }

    /// A second connection to the accessibility bus (for events).
    pub async fn a11y_connection(&self) -> zbus::Result<Connection> {
        dbus::connect(&self.a11y_address).await
    }

    /// The apps registered on the accessibility bus.
    pub fn apps(&self) -> Result<Vec<App>, TargetError> {
        block_on(async {
            let root: AccessibleProxy<'_> = proxy(&self.conn, REGISTRY, ROOT_PATH)
                .await
                .map_err(env_err("the registry"))?;
            let children = root
                .get_children()
                .await
                .map_err(env_err("listing the apps"))?;
            let daemon = zbus::fdo::DBusProxy::new(&self.conn)
                .await
                .map_err(env_err("the bus daemon"))?;
            let mut out = Vec::new();
            for c in children {
                let Some(bus_name) = c.name_as_str().map(str::to_string) else {
                    continue;
                };
                let path = c.path_as_str().to_string();
                // An app that exits while we list it is skipped.
                let Ok(name) = dbus::name_of(&self.conn, &bus_name, &path).await else {
                    continue;
                };
                let pid = match zbus::names::BusName::try_from(bus_name.as_str()) {
                    Ok(n) => daemon.get_connection_unix_process_id(n).await.ok(),
                    Err(_) => None,
                };
                out.push(App {
                    bus_name,
                    name,
                    pid,
                    root: path,
                });
            }
            Ok(out)
        })
    }

    /// The app `sel` names, if it is on the bus: an exact name (or pid) first, else a name
    /// that contains it. An app looked up by pid that the registry does not list (its
    /// `Socket.Embed` has not reached the registry yet, or failed: Qt tries once) is looked
    /// for among the bus's connections, by pid, with an application object at the root path.
    pub fn find(&self, sel: &AppSelector) -> Result<Option<App>, TargetError> {
        let apps = self.apps()?;
        let listed = apps
            .iter()
            .find(|a| sel.matches(a, true))
            .or_else(|| apps.iter().find(|a| sel.matches(a, false)))
            .cloned();
        match (listed, sel) {
            (Some(app), _) => Ok(Some(app)),
            (None, AppSelector::Pid(pid)) => Ok(self.unlisted(&[*pid]).into_iter().next()),
            (None, AppSelector::Name(_)) => Ok(None),
        }
    }

    /// The first app with a window whose process is one of `pids` (in that order of
    /// preference), listed by the registry or not ([`Bus::find`]).
    pub fn find_among(&self, pids: &[u32]) -> Result<Option<App>, TargetError> {
        let apps = self.apps()?;
        for pid in pids {
            for app in apps.iter().filter(|a| a.pid == Some(*pid)) {
                if self.has_window(app) {
                    return Ok(Some(app.clone()));
                }
            }
        }
        let mut unlisted = self.unlisted(pids);
        unlisted.sort_by_key(|a| pids.iter().position(|p| a.pid == Some(*p)));
        Ok(unlisted.into_iter().find(|a| self.has_window(a)))
    }

    /// The connections of processes `pids` on the accessibility bus that serve an
    /// application object at [`ROOT_PATH`], registered or not.
    fn unlisted(&self, pids: &[u32]) -> Vec<App> {
        block_on(async {
            let mut out = Vec::new();
            let Ok(daemon) = zbus::fdo::DBusProxy::new(&self.conn).await else {
                return out;
            };
            for name in daemon.list_names().await.unwrap_or_default() {
                if !name.starts_with(':') {
                    continue;
                }
                let Ok(bus_name) = zbus::names::BusName::try_from(name.as_str()) else {
                    continue;
                };
                let Ok(pid) = daemon.get_connection_unix_process_id(bus_name).await else {
                    continue;
                };
                if !pids.contains(&pid) {
                    continue;
                }
                let Ok(root) =
                    proxy::<AccessibleProxy<'_>>(&self.conn, name.as_str(), ROOT_PATH).await
                else {
                    continue;
                };
                if root.get_role().await.ok() != Some(Role::Application) {
                    continue;
                }
                let app_name = root.name().await.unwrap_or_default();
                out.push(App {
                    bus_name: name.to_string(),
                    name: app_name,
                    pid: Some(pid),
                    root: ROOT_PATH.to_string(),
                });
            }
            out
        })
    }

    /// Whether `app` shows a window: a top-level child that is showing (a frame, window or
    /// dialog; Qt reports a plain widget window as a filler).
    pub fn has_window(&self, app: &App) -> bool {
        block_on(async {
            let Ok(root) = proxy::<AccessibleProxy<'_>>(&self.conn, &app.bus_name, &app.root).await
            else {
                return false;
            };
            let Ok(children) = root.get_children().await else {
                return false;
            };
            for c in children {
                let Ok(w) =
                    proxy::<AccessibleProxy<'_>>(&self.conn, &app.bus_name, c.path_as_str()).await
                else {
                    continue;
                };
                let role = w.get_role().await.ok();
                let showing = w
                    .get_state()
                    .await
                    .is_ok_and(|s| s.contains(State::Showing) || s.contains(State::Visible));
                if showing && !matches!(role, Some(Role::ToolTip | Role::PopupMenu) | None) {
                    return true;
                }
            }
            false
        })
    }

    /// Waits up to `timeout` for the app `sel` names to be on the bus with a window.
    /// `alive` is asked between polls (a launched process that exited ends the wait).
    pub fn wait_for(
        &self,
        sel: &AppSelector,
        timeout: Duration,
        alive: impl FnMut() -> Result<(), String>,
    ) -> Result<App, TargetError> {
        self.wait_with(&sel.to_string(), timeout, alive, |bus| {
            Ok(bus.find(sel)?.filter(|app| bus.has_window(app)))
        })
    }

    /// Waits up to `timeout` until `find` answers an app (with a window); `what` names it
    /// in the timeout's message. `alive` is asked between polls.
    pub fn wait_with(
        &self,
        what: &str,
        timeout: Duration,
        mut alive: impl FnMut() -> Result<(), String>,
        mut find: impl FnMut(&Self) -> Result<Option<App>, TargetError>,
    ) -> Result<App, TargetError> {
        let deadline = Instant::now() + timeout;
        loop {
            alive().map_err(TargetError::AppGone)?;
            if let Some(app) = find(self)? {
                return Ok(app);
            }
            if Instant::now() >= deadline {
                let names: Vec<String> = self
                    .apps()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|a| {
                        format!(
                            "{} (pid {})",
                            a.name,
                            a.pid.map_or("?".into(), |p| p.to_string())
                        )
                    })
                    .collect();
                return Err(TargetError::Timeout {
                    waited_ms: timeout.as_millis() as u64,
                    detail: format!(
                        "no app {what} with a window on the accessibility bus; apps there: [{}]. \
                         GTK4 needs GTK_A11Y=atspi, Qt QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1",
                        names.join(", ")
                    ),
                });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_pids_and_the_rest_names() {
        assert_eq!(AppSelector::parse("1234"), AppSelector::Pid(1234));
        assert_eq!(
            AppSelector::parse(" zenity "),
            AppSelector::Name("zenity".into())
        );
    }
}
