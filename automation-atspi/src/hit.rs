//! Whose object a point is: the toolkit's hit test walked down from a window or popup, and
//! the ways an object it answers is the node all the same (a Calc cell answered anew, a Java
//! list item made afresh, a Chromium text box inside a button), or a control the node holds.

use accesskit::Action;
use atspi::{CoordType, Interface, Role, State};
use automation_core::TargetError;
use futures_lite::future::block_on;

use crate::map;
use crate::target::AtspiTarget;

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const COMPONENT: &str = "org.a11y.atspi.Component";
const TABLE: &str = "org.a11y.atspi.Table";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// How deep the toolkit's hit test is walked from a window.
pub(crate) const HIT_DEPTH: usize = 64;

/// Whether a node of `role` is a control of its own: a click on text or an image inside a
/// node reaches the node (Gecko's text leaves even offer "click ancestor").
fn is_control(role: Option<Role>) -> bool {
    matches!(
        role,
        Some(
            Role::Button
                | Role::ToggleButton
                | Role::CheckBox
                | Role::RadioButton
                | Role::Link
                | Role::ComboBox
                | Role::SpinButton
                | Role::Slider
                | Role::MenuItem
                | Role::CheckMenuItem
                | Role::RadioMenuItem
                | Role::PageTab
                | Role::Entry
                | Role::PasswordText
        )
    )
}

impl AtspiTarget {
    /// A control that `path` holds at screen point (`x`, `y`) — something with its own click
    /// action or editable text, found by the toolkit's hit test walked down from `path`.
    pub(crate) fn control_at(
        &self,
        path: &str,
        x: i32,
        y: i32,
    ) -> Result<Option<String>, TargetError> {
        let holds_any = self
            .tree()
            .nodes
            .get(path)
            .is_some_and(|n| !n.children.is_empty());
        let mut at = path.to_string();
        for _ in 0..HIT_DEPTH {
            if !holds_any {
                break;
            }
            let found: Result<crate::wire::WireRef, _> = block_on(self.reader().call(
                &at,
                COMPONENT,
                "GetAccessibleAtPoint",
                &(x, y, CoordType::Screen as u32),
            ));
            let Some(next) = found
                .ok()
                .and_then(|r| self.reader().same_app(&r))
                .filter(|n| *n != at)
            else {
                break;
            };
            if let Some(raw) = self.tree().nodes.get(&next)
                && ((raw.has(Interface::EditableText) && raw.states.contains(State::Editable))
                    || (is_control(raw.role)
                        && map::find_action_on(&raw.actions, Action::Click, raw.role).is_some()))
            {
                return Ok(Some(format!("{:?} {:?}", raw.role, raw.name)));
            }
            at = next;
        }
        Ok(None)
    }

    /// Whether object `hit`, one the tree does not hold, is the node `path` (at `extents` now)
    /// under a new object: the Java wrapper makes a new object for a list's or tree's item
    /// each time it is asked. The same role, name and place (or parent, for an object that
    /// reports no place) is the same item.
    pub(crate) fn same_object_again(
        &self,
        hit: &str,
        path: &str,
        extents: (i32, i32, i32, i32),
    ) -> bool {
        let Some(node) = self.tree().nodes.get(path) else {
            return false;
        };
        if self.tree().nodes.contains_key(hit) {
            return false;
        }
        let reader = self.reader();
        let (name_key, parent_key) = ((ACCESSIBLE, "Name"), (ACCESSIBLE, "Parent"));
        let property =
            |key| reader.call::<_, zbus::zvariant::OwnedValue>(hit, PROPERTIES, "Get", key);
        let (role, (name, (parent, at))) = block_on(futures_lite::future::zip(
            reader.call::<_, u32>(hit, ACCESSIBLE, "GetRole", &()),
            futures_lite::future::zip(
                property(&name_key),
                futures_lite::future::zip(
                    property(&parent_key),
                    reader.call::<_, (i32, i32, i32, i32)>(
                        hit,
                        COMPONENT,
                        "GetExtents",
                        &(CoordType::Screen as u32),
                    ),
                ),
            ),
        ));
        let role = role.ok().and_then(|r| Role::try_from(r).ok());
        let name = name.ok().and_then(|v| String::try_from(v).ok());
        let parent = parent
            .ok()
            .and_then(|v| crate::wire::WireRef::try_from(v).ok())
            .and_then(|r| reader.same_app(&r));
        // Its place, when it says one; else (a fresh object reports none) its parent, when it
        // says one (the Java wrapper's fresh objects say neither: the hit test put it here).
        let same_place = match (at.ok(), parent) {
            (Some(at @ (_, _, w, h)), _) if w > 0 && h > 0 => at == extents,
            (_, Some(p)) => self.tree().ancestors(path).first() == Some(&p),
            (_, None) => true,
        };
        role.is_some()
            && role == node.role
            && name.as_deref() == Some(node.name.as_str())
            && same_place
    }

    /// Whether object `hit`, one the tree does not hold (Chromium's hit test answers a text
    /// box inside a button), has `path` among its parents, asked of the app.
    pub(crate) fn parent_chain_reaches(&self, hit: &str, path: &str) -> bool {
        if self.tree().nodes.contains_key(hit) {
            return false;
        }
        let reader = self.reader();
        let mut at = hit.to_string();
        for _ in 0..HIT_DEPTH {
            let parent = block_on(reader.call::<_, zbus::zvariant::OwnedValue>(
                &at,
                PROPERTIES,
                "Get",
                &(ACCESSIBLE, "Parent"),
            ))
            .ok()
            .and_then(|v| crate::wire::WireRef::try_from(v).ok())
            .and_then(|r| reader.same_app(&r));
            match parent {
                Some(p) if p == path => return true,
                // Known to the tree: its place there says the rest.
                Some(p) if self.tree().nodes.contains_key(&p) => {
                    return self.tree().is_under(&p, path);
                }
                Some(p) => at = p,
                None => return false,
            }
        }
        false
    }

    /// Whether object `hit` is the cell `key` names (`table#row,col`): a table may answer
    /// with a new object for the same cell each time it is asked (LibreOffice Calc).
    pub(crate) fn same_cell(&self, hit: &str, key: &str) -> bool {
        let Some((table, row, col)) = crate::keys::parse_key(key) else {
            return false;
        };
        let reader = self.reader();
        block_on(async {
            let index: i32 = reader
                .raw_call(hit, ACCESSIBLE, "GetIndexInParent", &())
                .await
                .ok()?;
            let r: i32 = reader
                .raw_call(table, TABLE, "GetRowAtIndex", &(index,))
                .await
                .ok()?;
            let c: i32 = reader
                .raw_call(table, TABLE, "GetColumnAtIndex", &(index,))
                .await
                .ok()?;
            Some(r == row && c == col)
        })
        .unwrap_or(false)
    }

    /// Where a hit test for `path` starts when it is shown in a popup that hangs from a
    /// combo box, a menu or a menu item inside the window (not a window of its own): the
    /// popup's own object below that one (Qt's combo list), else that one (GTK's menu, whose
    /// object is its title in the menu bar and whose items lie below it).
    pub(crate) fn popup_of(&self, path: &str) -> Option<String> {
        let mut below = path.to_string();
        for up in self.tree().ancestors(path) {
            if self.tree().nodes.get(&up).is_some_and(|n| {
                matches!(n.role, Some(Role::ComboBox | Role::MenuItem | Role::Menu))
            }) {
                return Some(if below == path { up } else { below });
            }
            below = up;
        }
        None
    }

    /// What the toolkit's own hit test finds at screen point (`x`, `y`) (the toolkit's
    /// screen coordinates), walked down from `path`'s window: `path` itself when the walk
    /// passes through it (a point on its label hits it too), else the deepest object found.
    /// `None` when the toolkit cannot tell (no hit test, or the walk found nothing): the other
    /// checks stand alone then.
    pub(crate) fn hit_at(&self, path: &str, x: i32, y: i32) -> Result<Option<String>, TargetError> {
        let Some(window) = self.tree().window_of(path) else {
            return Ok(None);
        };
        // A popup that hangs from a combo box or a menu item (Qt's combo list) is drawn above
        // the window: the walk starts at the popup, or the window's answer is what lies under.
        let mut at = self.popup_of(path).unwrap_or(window);
        let mut last = None;
        for _ in 0..HIT_DEPTH {
            if at == path {
                return Ok(Some(path.to_string()));
            }
            let found: Result<crate::wire::WireRef, _> = block_on(self.reader().call(
                &at,
                COMPONENT,
                "GetAccessibleAtPoint",
                &(x, y, CoordType::Screen as u32),
            ));
            let next = match found {
                Ok(r) => self.reader().same_app(&r).filter(|n| *n != at),
                // No hit test here (or it failed): the other checks stand alone.
                Err(_) => {
                    self.alive()?;
                    return Ok(None);
                }
            };
            // A container that answers itself (the Java wrapper's root pane, for any point):
            // the child of it that contains the point, by its own word.
            let next = match next {
                Some(n) => Some(n),
                None => self.child_containing(&at, x, y)?,
            };
            match next {
                Some(n) => {
                    last = Some(n.clone());
                    at = n;
                }
                None => break,
            }
        }
        // Stopped above the node, with nothing deeper said: not proof either way.
        if last
            .as_deref()
            .is_some_and(|l| self.tree().is_under(path, l))
        {
            return Ok(None);
        }
        Ok(last)
    }

    /// The child of `at` (as last read) that says it contains screen point (`x`, `y`).
    pub(crate) fn child_containing(
        &self,
        at: &str,
        x: i32,
        y: i32,
    ) -> Result<Option<String>, TargetError> {
        let children: Vec<String> = self
            .tree()
            .nodes
            .get(at)
            .map(|n| n.children.iter().take(64).cloned().collect())
            .unwrap_or_default();
        for c in children {
            let has_component = self
                .tree()
                .nodes
                .get(&c)
                .is_some_and(|n| n.has(Interface::Component));
            if !has_component {
                continue;
            }
            let inside: Result<bool, _> = block_on(self.reader().call(
                &c,
                COMPONENT,
                "Contains",
                &(x, y, CoordType::Screen as u32),
            ));
            match inside {
                Ok(true) => return Ok(Some(c)),
                Ok(false) => {}
                Err(_) => self.alive()?,
            }
        }
        Ok(None)
    }
}
