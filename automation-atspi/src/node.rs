//! [`RawNode`]: one accessible object as the app reports it, before it becomes an AccessKit
//! node. Plain data, shared by the readers (`fetch`, `cache`), the tree and the target.

use atspi::{Interface, InterfaceSet, Role, StateSet};

/// Extents `(x, y, width, height)`.
pub type Extents = (i32, i32, i32, i32);

/// One object as the app reports it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawNode {
    /// Object path (the app's bus name is the target's).
    pub path: String,
    /// Role.
    pub role: Option<Role>,
    /// States.
    pub states: StateSet,
    /// Accessible name.
    pub name: String,
    /// Accessible description.
    pub description: String,
    /// Interfaces it implements.
    pub ifaces: InterfaceSet,
    /// Child object paths, in order (children on another bus name are left out).
    pub children: Vec<String>,
    /// Extents in screen coordinates `(x, y, w, h)` (see `tree` for why screen).
    pub extents: Option<Extents>,
    /// Toolkit action names, by index.
    pub actions: Vec<String>,
    /// `Value`: current, minimum, maximum, minimum increment.
    pub value: Option<[f64; 4]>,
    /// `Text` contents, when read.
    pub text: Option<String>,
    /// Objects that label this one (read for nameless objects only).
    pub labelled_by: Vec<String>,
    /// A table's full size (rows, columns), when only a window of its cells is read.
    pub table: Option<(i32, i32)>,
    /// The children it has, when only the first of them are read (a list of thousands).
    pub children_total: Option<i32>,
    /// Read without its details (extents, actions, value, text, relations): an object of a
    /// big app that was not showing (`fetch::BIG_APP`).
    pub lite: bool,
}

impl RawNode {
    /// Whether it implements `iface`.
    pub fn has(&self, iface: Interface) -> bool {
        self.ifaces.contains(iface)
    }
}

/// Whether an object's states say it may be on screen: `Showing`, or `Visible` — GTK4 sets
/// no `Showing` on any widget inside a window, so `Showing` alone would count a whole GTK4
/// app as hidden (read lite, with no bounds).
pub fn shows(states: &StateSet) -> bool {
    states.contains(atspi::State::Showing) || states.contains(atspi::State::Visible)
}
