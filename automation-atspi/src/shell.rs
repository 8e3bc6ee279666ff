//! GNOME Shell's own panels, as the shell reports them on the accessibility bus.
//!
//! Under GNOME Shell a maximized window is as wide as the monitor and shorter by the top bar,
//! and where it sits is not told to clients (AT-SPI extents on Wayland are relative to the
//! window). The shell is the compositor and also an app on the same accessibility bus, and it
//! reports its own actors in screen coordinates. An actor spanning the monitor's top edge,
//! exactly as tall as the monitor's height less the window's, puts the window's top just under
//! it; one along the bottom edge leaves it at the monitor's top. When the shell shows neither
//! (or both), the window is not placed.

use atspi::CoordType;
use atspi::proxy::accessible::AccessibleProxy;
use zbus::Connection;

use crate::bus::{REGISTRY, ROOT_PATH};
use crate::dbus::{self, proxy};

/// GNOME Shell's bus name on the session bus (and its interface).
pub const SHELL: &str = "org.gnome.Shell";

/// GNOME Shell's accessible name on the bus.
pub const NAME: &str = "gnome-shell";

/// How many of the shell's objects are read at most, and how deep: its top bar is a few
/// levels under its stage (stage, layout, panel box, panel).
const MOST_OBJECTS: usize = 400;
const DEEPEST: usize = 4;

/// Where a window as wide as `monitor` and `height` tall sits on it, by a panel GNOME Shell
/// shows: the window top's offset from the monitor's, or `None` (no shell, or no such panel).
pub(crate) async fn window_top(
    conn: &Connection,
    monitor: (i32, i32, u32, u32),
    height: i64,
) -> Option<i32> {
    let (mx, my, mw, mh) = monitor;
    let band = i32::try_from(i64::from(mh) - height)
        .ok()
        .filter(|b| *b > 0)?;
    let height = i32::try_from(height).ok()?;
    let mw = i32::try_from(mw).ok()?;
    let (bus_name, root) = shell_app(conn).await?;
    let mut queue = std::collections::VecDeque::from([(root, 0usize)]);
    let (mut top, mut bottom, mut read) = (false, false, 0usize);
    while let Some((path, depth)) = queue.pop_front() {
        read += 1;
        if read > MOST_OBJECTS {
            break;
        }
        if let Some((x, y, w, h)) = extents(conn, &bus_name, &path).await
            && (x, w, h) == (mx, mw, band)
        {
            top |= y == my;
            bottom |= y == my + height;
        }
        if depth < DEEPEST
            && let Ok(a) = proxy::<AccessibleProxy<'_>>(conn, &bus_name, &path).await
            && let Ok(children) = a.get_children().await
        {
            queue.extend(
                children
                    .iter()
                    .map(|c| (c.path_as_str().to_string(), depth + 1)),
            );
        }
    }
    match (top, bottom) {
        (true, false) => Some(band),
        (false, true) => Some(0),
        _ => None,
    }
}

/// The shell's bus name and root object, when it is on the accessibility bus.
async fn shell_app(conn: &Connection) -> Option<(String, String)> {
    let registry: AccessibleProxy<'_> = proxy(conn, REGISTRY, ROOT_PATH).await.ok()?;
    for app in registry.get_children().await.ok()? {
        let Some(bus_name) = app.name_as_str() else {
            continue;
        };
        let path = app.path_as_str();
        if dbus::name_of(conn, bus_name, path).await.ok().as_deref() == Some(NAME) {
            return Some((bus_name.to_string(), path.to_string()));
        }
    }
    None
}

/// An object's extents in screen coordinates (the shell's are the compositor's own).
async fn extents(conn: &Connection, bus_name: &str, path: &str) -> Option<(i32, i32, i32, i32)> {
    conn.call_method(
        Some(bus_name),
        path,
        Some("org.a11y.atspi.Component"),
        "GetExtents",
        &(CoordType::Screen as u32),
    )
    .await
    .ok()?
    .body()
    .deserialize()
    .ok()
}

/// Whether GNOME Shell's overview is open on the session bus `conn` (false where there is no
/// shell). The overview covers every window: a person cannot click one under it.
pub(crate) async fn overview_open(conn: &Connection) -> bool {
    let Ok(reply) = conn
        .call_method(
            Some(SHELL),
            "/org/gnome/Shell",
            Some("org.freedesktop.DBus.Properties"),
            "Get",
            &(SHELL, "OverviewActive"),
        )
        .await
    else {
        return false;
    };
    reply
        .body()
        .deserialize::<zbus::zvariant::OwnedValue>()
        .ok()
        .and_then(|v| bool::try_from(&*v).ok())
        .unwrap_or(false)
}
