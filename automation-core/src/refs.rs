//! References a reply hands out (`"e12"`), each bound to what it named.
//!
//! Toolkits reuse raw ids: egui's are positional, so after Row 3 is deleted, Row 4 inherits its
//! id. A reference that followed the raw id would silently retarget. So every node a reply
//! names gets a short reference bound to the node's id, role and label at that moment; a
//! request through a reference whose node now has another role or label fails as `STALE`
//! (with the likely successor as a candidate) instead of acting on the wrong thing.
//!
//! The binding is role + label (the label property, through `labelled_by`), not the
//! value-derived name: a status label whose text changes from "Ready" to "Saved" is the same
//! label, and a reference to it stays good.
//!
//! ```
//! use automation_core::refs::RefKey;
//! let key: RefKey = "e12".parse().unwrap();
//! assert_eq!(key.to_string(), "e12");
//! assert!("12".parse::<RefKey>().is_err());
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use accesskit::{NodeId, Role};
use accesskit_consumer::NodeRef;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Bindings kept per session before the oldest half is forgotten (a forgotten reference
/// answers `NOT_FOUND` with "take a fresh snapshot", never a wrong node).
pub const MAX_BINDINGS: usize = 1_000_000;

/// A short node reference as replies hand it out: `e` and a number, e.g. `"e12"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RefKey(pub u32);

impl fmt::Display for RefKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

impl FromStr for RefKey {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        let digits = s.trim().strip_prefix('e').ok_or(())?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(());
        }
        digits.parse().map(RefKey).map_err(|_| ())
    }
}

impl Serialize for RefKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RefKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(|()| {
            serde::de::Error::custom(format!(
                "{s:?} is not a node reference; references look like \"e12\""
            ))
        })
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for RefKey {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RefKey".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "pattern": "^e[0-9]+$"})
    }
}

/// What a reference named when it was handed out.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// The toolkit's id at that moment.
    pub id: NodeId,
    /// Its role.
    pub role: Role,
    /// Its label (through `labelled_by`).
    pub label: Option<String>,
}

impl Binding {
    /// Whether `node` is still the thing this binding named.
    pub fn holds_for(&self, node: &NodeRef) -> bool {
        // A combo box is named by the option it shows (Java, Qt, GTK): a new choice is not a
        // new widget.
        let named_by_choice = matches!(
            self.role,
            accesskit::Role::ComboBox | accesskit::Role::EditableComboBox
        );
        node.role() == self.role && (named_by_choice || node.label() == self.label)
    }
}

#[derive(Debug, Default)]
struct Table {
    /// Index `n - first` holds reference `e{n}`.
    bindings: Vec<Binding>,
    /// The number of the first binding still kept.
    first: u32,
    /// The newest reference for each id.
    by_id: HashMap<NodeId, u32>,
}

impl Table {
    fn get(&self, n: u32) -> Option<&Binding> {
        let i = n.checked_sub(self.first.saturating_add(1))?;
        self.bindings.get(i as usize)
    }
}

/// The session's reference table. Interior mutability: read-only ops hand out references too.
#[derive(Debug, Default)]
pub struct Refs {
    table: RefCell<Table>,
}

impl Refs {
    /// The reference for `node` as it is now: the one already handed out when it still names
    /// the same thing, else a new one.
    pub fn mint(&self, node: &NodeRef) -> RefKey {
        self.mint_parts(node.locate().0, node.role(), node.label())
    }

    /// [`Refs::mint`] from parts (for nodes already gone, such as an announcement's).
    pub fn mint_parts(&self, id: NodeId, role: Role, label: Option<String>) -> RefKey {
        self.mint_labelled(id, role, label)
    }

    /// [`Refs::mint_parts`] with the label borrowed: nothing is allocated when the reference
    /// already handed out still holds (the common case, every snapshot line).
    pub fn mint_labelled<L: AsRef<str> + Into<String>>(
        &self,
        id: NodeId,
        role: Role,
        label: Option<L>,
    ) -> RefKey {
        let mut t = self.table.borrow_mut();
        if let Some(&n) = t.by_id.get(&id)
            && let Some(b) = t.get(n)
            && b.role == role
            && b.label.as_deref() == label.as_ref().map(AsRef::as_ref)
        {
            return RefKey(n);
        }
        let label = label.map(Into::into);
        if t.bindings.len() >= MAX_BINDINGS {
            let drop = t.bindings.len() / 2;
            t.bindings.drain(..drop);
            t.first = t.first.saturating_add(drop as u32);
            let first = t.first;
            t.by_id.retain(|_, n| *n >= first);
        }
        let n = t.first.saturating_add(t.bindings.len() as u32) + 1;
        t.bindings.push(Binding { id, role, label });
        t.by_id.insert(id, n);
        RefKey(n)
    }

    /// What `key` named, when it was handed out in this session and is still kept.
    pub fn binding(&self, key: RefKey) -> Option<Binding> {
        self.table.borrow().get(key.0).cloned()
    }

    /// The newest reference bound to `id`, if any (without minting).
    pub fn current(&self, id: NodeId) -> Option<RefKey> {
        self.table.borrow().by_id.get(&id).copied().map(RefKey)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_thing_same_reference_changed_thing_new_reference() {
        let refs = Refs::default();
        let a = refs.mint_parts(NodeId(7), Role::Button, Some("Row 3".into()));
        assert_eq!(a, RefKey(1));
        assert_eq!(
            refs.mint_parts(NodeId(7), Role::Button, Some("Row 3".into())),
            a
        );
        let b = refs.mint_parts(NodeId(7), Role::Button, Some("Row 4".into()));
        assert_eq!(b, RefKey(2));
        assert_eq!(refs.binding(a).unwrap().label.as_deref(), Some("Row 3"));
        assert_eq!(refs.current(NodeId(7)), Some(b));
        assert!(refs.binding(RefKey(3)).is_none());
        assert!(refs.binding(RefKey(0)).is_none());
    }

    #[test]
    fn parse() {
        assert_eq!("e0".parse::<RefKey>(), Ok(RefKey(0)));
        for bad in ["", "e", "e-1", "E1", "e1x", "e99999999999"] {
            assert!(bad.parse::<RefKey>().is_err(), "{bad}");
        }
    }
}
