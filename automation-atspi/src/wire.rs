//! Decoding AT-SPI replies without trusting the toolkit.
//!
//! atspi's own types reject a whole reply over one role, state or interface they do not
//! know (a newer toolkit), and its object-reference decoder asserts (panics) on a nameless
//! non-null reference. Replies are read here as plain D-Bus values and mapped leniently: an
//! unknown role is `Unknown`, unknown states and interfaces are dropped.

use std::sync::OnceLock;

use atspi::{Interface, InterfaceSet, Role, StateSet};
use zbus::zvariant::OwnedObjectPath;

/// An object reference as sent: `(bus name, object path)`.
pub type WireRef = (String, OwnedObjectPath);

const NULL_PATH: &str = "/org/a11y/atspi/null";

/// The path of `r` when it is an object of the app `dest` (not null, not another app's).
pub fn same_app(dest: &str, r: &WireRef) -> Option<String> {
    let path = r.1.as_str();
    if path == NULL_PATH || (!r.0.is_empty() && r.0 != dest) {
        return None;
    }
    Some(path.to_string())
}

/// A role number; `Unknown` when atspi does not know it.
pub fn role(n: u32) -> Role {
    Role::try_from(n).unwrap_or(Role::Unknown)
}

/// A state set sent as two 32-bit words; bits atspi does not know are dropped.
pub fn states(words: &[u32]) -> StateSet {
    static KNOWN: OnceLock<u64> = OnceLock::new();
    let known = *KNOWN.get_or_init(|| {
        (0..64)
            .map(|i| 1u64 << i)
            .filter(|b| StateSet::from_bits(*b).is_ok())
            .fold(0, |a, b| a | b)
    });
    let low = u64::from(words.first().copied().unwrap_or(0));
    let high = u64::from(words.get(1).copied().unwrap_or(0));
    StateSet::from_bits((low | high << 32) & known).unwrap_or_default()
}

/// Interface names; names atspi does not know are dropped.
pub fn ifaces(names: &[String]) -> InterfaceSet {
    use serde::Deserialize as _;
    names
        .iter()
        .filter_map(|n| {
            let de = serde::de::value::StrDeserializer::<serde::de::value::Error>::new(n);
            Interface::deserialize(de).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use atspi::State;

    #[test]
    fn unknown_roles_states_and_interfaces_are_tolerated() {
        assert_eq!(role(43), Role::Button);
        assert_eq!(role(9999), Role::Unknown);
        let s = states(&[1 << 8, 0x8000_0000]);
        assert!(s.contains(State::Enabled));
        let i = ifaces(&[
            "org.a11y.atspi.Action".into(),
            "org.example.Future".into(),
            "org.a11y.atspi.Text".into(),
        ]);
        assert!(i.contains(Interface::Action) && i.contains(Interface::Text));
    }

    #[test]
    fn null_and_foreign_references_are_not_children() {
        let r = |n: &str, p: &str| (n.to_string(), OwnedObjectPath::try_from(p).unwrap());
        assert_eq!(same_app(":1.2", &r(":1.2", "/a")), Some("/a".into()));
        assert_eq!(same_app(":1.2", &r("", "/a")), Some("/a".into()));
        assert_eq!(same_app(":1.2", &r("", NULL_PATH)), None);
        assert_eq!(same_app(":1.2", &r(":1.3", "/a")), None);
    }
}
