//! D-Bus plumbing: the deadline every call carries, connections built with it, uncached
//! proxies, and the one-off lookups the bus and the target make.
//!
//! It uses no other module of this crate, so everything that talks D-Bus can use it without
//! the modules depending on each other in a circle.

use std::time::Duration;

use atspi::proxy::accessible::AccessibleProxy;
use zbus::Connection;
use zbus::connection::Builder as ConnectionBuilder;
use zbus::proxy::{Builder, CacheProperties, Defaults};

/// How long one D-Bus call may take before the target answers `TARGET_TIMEOUT`.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// A connection builder for the bus at `address`, every method call bounded by
/// [`CALL_TIMEOUT`].
pub fn builder(address: &str) -> zbus::Result<ConnectionBuilder<'static>> {
    Ok(ConnectionBuilder::address(address)?.method_timeout(CALL_TIMEOUT))
}

/// A connection builder for the session bus (`$DBUS_SESSION_BUS_ADDRESS`), every method call
/// bounded by [`CALL_TIMEOUT`]. Separate from building it, so "no session bus address" and
/// "cannot connect to it" stay two errors.
pub fn session_builder() -> zbus::Result<ConnectionBuilder<'static>> {
    Ok(ConnectionBuilder::session()?.method_timeout(CALL_TIMEOUT))
}

/// Connects to the bus at `address` ([`builder`]).
pub async fn connect(address: &str) -> zbus::Result<Connection> {
    builder(address)?.build().await
}

/// How long one call over an app's own socket may take before the reader turns to the bus:
/// such a call answers in milliseconds, or not at all (GTK 3 under a modal dialog).
pub const P2P_CALL_TIMEOUT: Duration = Duration::from_secs(2);

/// Connects peer to peer to an app's own socket at `address` (no bus daemon in between).
pub async fn connect_p2p(address: &str) -> zbus::Result<Connection> {
    ConnectionBuilder::address(address)?
        .method_timeout(P2P_CALL_TIMEOUT)
        .p2p()
        .build()
        .await
}

/// A proxy of type `P` for `path` on `dest`, without property caching.
pub async fn proxy<'a, P>(conn: &Connection, dest: &'a str, path: &'a str) -> zbus::Result<P>
where
    P: From<zbus::Proxy<'a>> + Defaults,
{
    Builder::<P>::new(conn)
        .destination(dest)?
        .path(path)?
        .cache_properties(CacheProperties::No)
        .build()
        .await
}

/// Reads the accessible name of an object (used while waiting for an app to show up).
pub(crate) async fn name_of(conn: &Connection, dest: &str, path: &str) -> zbus::Result<String> {
    let a: AccessibleProxy<'_> = proxy(conn, dest, path).await?;
    a.name().await
}

/// Whether `name` still has an owner on the bus.
pub async fn has_owner(conn: &Connection, name: &str) -> bool {
    let Ok(dbus) = zbus::fdo::DBusProxy::new(conn).await else {
        return false;
    };
    let Ok(n) = zbus::names::BusName::try_from(name) else {
        return false;
    };
    dbus.name_has_owner(n).await.unwrap_or(false)
}
