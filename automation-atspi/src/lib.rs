#![doc = include_str!("../README.md")]

// The modules, one line each (plain comments: an outer doc on `mod` would make rustdoc resolve
// the module's own doc links here). Four layers: plain data, decoding and the exit record;
// D-Bus; the target; processes. A module uses modules of its own layer or the ones above,
// never below, and no module reaches itself through others.

// Decoding `Cache.GetItems` replies into walk seeds.
pub mod cache;
// `ExitWatch`: a launched app's exit status (learnt without reaping it) and its output's ends.
pub mod exit;
// The mapping tables: AT-SPI roles, states and action names to AccessKit's.
pub mod map;
// `RawNode`: one accessible object as the app reports it.
pub mod node;
// Widgets a person sees as one, drawn by other objects (LibreOffice's drop-down).
pub mod face;
// Lenient decoding of AT-SPI replies (roles, states, interfaces, object references).
pub mod wire;

// The accessibility bus: connecting, switching assistive technology on, finding apps.
pub mod bus;
// Which children of an object are read (bounded windows of huge ones).
pub mod children;
// Cell keys: a table cell's name for the session, and the object answering for it now.
pub mod keys;
// D-Bus plumbing: the call deadline, connections, uncached proxies, one-off lookups.
pub mod dbus;
// The app's events, drained by one thread into a bounded set of changed objects.
pub mod events;
// Reading an app's objects: over its own socket or the bus, calls bounded and in parallel.
pub mod fetch;
// Reading a whole tree or subtree: seeded by the app's cache, showing objects first, bounded.
pub mod walk;

// `AtspiHost`: the app's windows and screenshots, from the session's desk.
pub mod host;
// How input reaches a node: X input focus, focus that lands, pointer clicks on buttons.
pub mod reach;
// What an op sets on a node: a value, an option picked by name.
pub mod values;
// Where a person's pointer reaches a node: a point of it proven to hit it.
pub mod aim;
// Whose object a point is: the toolkit's hit test, and objects that are the node anew.
pub mod hit;
// `AtspiTarget`: one app on the accessibility bus, as core's `Target`; `attach`.
pub mod target;
// What moves without an event: a browser's pages, and what an op went to.
pub mod moved;
// Keeping the tree in step with the app: full reads, and re-reading what events name.
pub mod sync;
// `AppTree`: the app's objects as last read, and their AccessKit form.
pub mod tree;
// Keys, pointer and pixels through the X server (XTEST, `GetImage`).
pub mod x11;
// Keys and pointer through GNOME's compositor (Mutter's remote-desktop and screen-cast APIs).
pub mod mutter;
// Keys, pointer and pixels through wlroots' protocols (virtual keyboard and pointer, screencopy).
pub mod wlr;
// `Sway`: a wlroots compositor's session, with its IPC for where windows are.
pub mod sway;
// One frame of a compositor's screen-cast stream, read over PipeWire (Wayland's pixels).
#[cfg(feature = "pipewire")]
pub mod cast;
// `Desk`: the session's keys, pointer, windows and pixels — X11, or Mutter or sway on Wayland.
pub mod desk;
// Where an app's window is on Wayland: placed on the monitor it is maximized on.
pub mod wayland;
// GNOME Shell's own panels, as it reports them: where a window maximized under its top bar is.
pub mod shell;

// Teardown of launched apps and virtual displays that survives SIGTERM, SIGINT, SIGHUP.
pub mod cleanup;
// `VirtualDisplay`: a private Xvfb, session bus and accessibility bus.
pub mod display;
// `VirtualDisplay::start_wayland`: a private headless Mutter, PipeWire and the buses.
pub mod display_wayland;
// `VirtualDisplay::start_sway`: a private headless sway and the buses.
pub mod display_sway;
// `launch()`: starting an app and attaching to it; `Launched` ends it when dropped.
pub mod launch;
// Process groups: members, signals, ending one.
pub mod process;

pub use bus::{App, AppSelector, Bus};
pub use display::VirtualDisplay;
pub use host::AtspiHost;
pub use launch::{Launched, Output, launch, launch_within};
pub use target::{AtspiTarget, attach};

/// Serves one request against an AT-SPI app: core's `serve` with the X11 host.
pub fn serve(
    session: &mut automation_core::Session<AtspiTarget>,
    request: &automation_core::Request,
) -> automation_core::Reply {
    automation_core::serve(session, &mut AtspiHost, request)
}
