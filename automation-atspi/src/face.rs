//! Widgets a person sees as one, drawn by objects other than the one that names them.
//!
//! LibreOffice's GTK 3 drop-down (the Character dialog's "Size:") is a showing filler that
//! holds the entry a person reads and types in, a `GtkComboBox` that is never shown (it keeps
//! the label relation and answers its `press` action by doing nothing), and the arrow button
//! that opens the list. A person sees one combo box: where the filler is, with the entry's
//! text, opened by its arrow. So the kit shows the combo box there (dressed from its face),
//! and a click meant for it goes to its arrow.

use std::collections::HashMap;

use atspi::{Role, State};

use crate::node::RawNode;

/// The objects that draw a combo box a person sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Face {
    /// The showing container it sits in: its place on screen.
    pub place: String,
    /// The button that opens its list: where a click for it goes.
    pub opener: String,
    /// The entry that shows its text, if it has one.
    pub entry: Option<String>,
}

/// The face of `combo` (a child of `parent`) when it is drawn by its siblings: a combo box
/// that is not showing, in a showing filler that holds a showing toggle button.
pub fn of(nodes: &HashMap<String, RawNode>, parent: &str, combo: &RawNode) -> Option<Face> {
    if combo.role != Some(Role::ComboBox) || combo.states.contains(State::Showing) {
        return None;
    }
    let place = nodes.get(parent)?;
    if place.role != Some(Role::Filler) || !place.states.contains(State::Showing) {
        return None;
    }
    let showing = |role: Role| {
        place.children.iter().find(|c| {
            nodes
                .get(c.as_str())
                .is_some_and(|n| n.role == Some(role) && n.states.contains(State::Showing))
        })
    };
    Some(Face {
        place: parent.to_string(),
        opener: showing(Role::ToggleButton)?.clone(),
        entry: showing(Role::Text).cloned(),
    })
}

/// Every face in a laid-out tree (`children`: each object's children as laid out).
pub fn all(
    nodes: &HashMap<String, RawNode>,
    children: &HashMap<String, Vec<String>>,
) -> HashMap<String, Face> {
    let mut out = HashMap::new();
    for (parent, kids) in children {
        for k in kids {
            if let Some(combo) = nodes.get(k)
                && let Some(face) = of(nodes, parent, combo)
            {
                out.insert(k.clone(), face);
            }
        }
    }
    out
}

/// `combo` as a person sees it: showing where its face is, holding the entry's text.
pub fn dress(nodes: &HashMap<String, RawNode>, combo: &RawNode, face: &Face) -> RawNode {
    let mut out = combo.clone();
    out.states.insert(State::Showing);
    out.states.insert(State::Visible);
    if let Some(place) = nodes.get(&face.place) {
        out.extents = place.extents;
    }
    if out.text.as_deref().is_none_or(str::is_empty)
        && let Some(entry) = face.entry.as_ref().and_then(|e| nodes.get(e))
    {
        out.text.clone_from(&entry.text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use atspi::StateSet;

    fn raw(path: &str, role: Role, showing: bool, children: &[&str]) -> RawNode {
        let mut states = StateSet::new(State::Visible);
        if showing {
            states.insert(State::Showing);
        }
        RawNode {
            path: path.into(),
            role: Some(role),
            states,
            children: children.iter().map(|c| (*c).to_string()).collect(),
            extents: Some((10, 20, 300, 34)),
            text: (role == Role::Text).then(|| "14 pt".to_string()),
            ..RawNode::default()
        }
    }

    fn nodes(list: Vec<RawNode>) -> HashMap<String, RawNode> {
        list.into_iter().map(|n| (n.path.clone(), n)).collect()
    }

    #[test]
    fn a_hidden_combo_in_a_showing_filler_with_its_arrow_is_drawn_by_them() {
        let n = nodes(vec![
            raw("f", Role::Filler, true, &["e", "c", "b"]),
            raw("e", Role::Text, true, &[]),
            raw("c", Role::ComboBox, false, &[]),
            raw("b", Role::ToggleButton, true, &[]),
        ]);
        let face = of(&n, "f", &n["c"]).expect("a face");
        assert_eq!(face.opener, "b");
        assert_eq!(face.entry.as_deref(), Some("e"));
        let dressed = dress(&n, &n["c"], &face);
        assert!(dressed.states.contains(State::Showing));
        assert_eq!(dressed.extents, Some((10, 20, 300, 34)));
        assert_eq!(dressed.text.as_deref(), Some("14 pt"));
    }

    #[test]
    fn a_combo_that_shows_itself_or_whose_arrow_is_hidden_has_no_face() {
        let shown = nodes(vec![
            raw("f", Role::Filler, true, &["c", "b"]),
            raw("c", Role::ComboBox, true, &[]),
            raw("b", Role::ToggleButton, true, &[]),
        ]);
        assert_eq!(of(&shown, "f", &shown["c"]), None);
        let hidden_arrow = nodes(vec![
            raw("f", Role::Filler, true, &["c", "b"]),
            raw("c", Role::ComboBox, false, &[]),
            raw("b", Role::ToggleButton, false, &[]),
        ]);
        assert_eq!(of(&hidden_arrow, "f", &hidden_arrow["c"]), None);
        let hidden_place = nodes(vec![
            raw("f", Role::Filler, false, &["c", "b"]),
            raw("c", Role::ComboBox, false, &[]),
            raw("b", Role::ToggleButton, true, &[]),
        ]);
        assert_eq!(of(&hidden_place, "f", &hidden_place["c"]), None);
    }
}
