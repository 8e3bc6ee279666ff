//! What a person could not do, refused before anything is sent: a disabled widget, a widget
//! that is not shown (hidden itself or inside something hidden, no on-screen bounds, outside
//! its own window — a closed page, popup or menu).
//!
//! An app's accessibility interface acts on such widgets anyway (AT-SPI moves a disabled
//! slider, "clicks" a check box on another notebook page and nothing happens), so an `ok`
//! there is a lie one way or the other; Playwright's actionability checks refuse the same.

use accesskit::{NodeId, Rect, Role};
use accesskit_consumer::NodeRef;

use super::Session;
use crate::error::{ErrorCode, OpError};
use crate::settle::SettleSpec;
use crate::target::{ClockKind, Target};

/// How the op reaches the widget, which decides what must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// An accessibility action or a value (click, toggle, focus, expand, set_value).
    Action,
    /// Keys typed into it.
    Keys,
    /// A pointer aimed at it (a click, a drag).
    Pointer,
    /// A wheel or a drop aimed at it: it must be shown; a disabled list still scrolls.
    Wheel,
}

/// `DISABLED` or `NOT_VISIBLE` when a person could not reach node `id` this way.
/// [`check`] on the node as it is now: read again first (a menu item Java never said was
/// hidden when its menu closed), and a refusal given a short while to clear (a Save button
/// GTK enabled a moment ago, with its event still on the way, is not a reason a person could
/// give).
pub(super) fn check_now<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
    reach: Reach,
) -> Result<(), OpError> {
    if s.target.clock() == ClockKind::Real {
        s.target.refresh(id);
        s.sync()?;
    }
    let Err(first) = check(s, id, reach) else {
        return Ok(());
    };
    if s.target.clock() != ClockKind::Real
        || !matches!(first.code, ErrorCode::Disabled | ErrorCode::NotVisible)
    {
        return Err(first);
    }
    // Not hidden, only scrolled away in its list or view: a person scrolls to it first.
    // A toolkit that cannot scroll it (GTK 4 answers NotSupported) leaves the refusal as it is.
    if first.code == ErrorCode::NotVisible && scrolled_away(s, id) {
        let _ = super::visibility::scroll_into_view(s, id);
    }
    s.target.reread(id);
    let settle = SettleSpec {
        settle_timeout_ms: RECHECK_MS,
        ..SettleSpec::default()
    };
    super::effect::wait_until(s, &settle, |s| check(s, id, reach).is_ok())?;
    check(s, id, reach)
}

/// Whether node `id` is off screen only because its list or view is scrolled elsewhere: it
/// and what holds it are not hidden, and a scroll view, a document or a clipping container
/// holds it.
fn scrolled_away<T: Target + ?Sized>(s: &Session<T>, id: NodeId) -> bool {
    let Some(node) = s.mirror.node(id) else {
        return false;
    };
    std::iter::once(node)
        .chain(ancestors(node))
        .all(|n| !n.data().is_hidden())
        && ancestors(node)
            .any(|a| matches!(a.role(), Role::ScrollView | Role::Document) || a.clips_children())
}

/// How long a refusal waits for a fresh read to clear it.
const RECHECK_MS: u64 = 300;

pub(super) fn check<T: Target + ?Sized>(
    s: &Session<T>,
    id: NodeId,
    reach: Reach,
) -> Result<(), OpError> {
    let Some(node) = s.mirror.node(id) else {
        return Ok(());
    };
    if reach != Reach::Wheel
        && let Some(by) = std::iter::once(node)
            .chain(ancestors(node))
            .find(|n| n.data().is_disabled())
    {
        let whose = if by.locate() == node.locate() {
            String::new()
        } else {
            format!(" (its ancestor {} is)", describe(s, by))
        };
        return Err(OpError::new(
            ErrorCode::Disabled,
            format!("{} is disabled{whose}; nothing was sent", describe(s, node)),
        )
        .with_hint(
            "a person cannot use it now: do what enables it first, or wait_for_condition until it is enabled",
        )
        .with_candidates(s.candidates_of(&[id])));
    }
    if let Some(why) = not_shown(s, node) {
        return Err(OpError::new(
            ErrorCode::NotVisible,
            format!("{} is not shown ({why}); nothing was sent", describe(s, node)),
        )
        .with_hint(
            "open what holds it first (click its page's tab, expand its combo box or menu), or scroll_into_view it; then retry",
        )
        .with_candidates(s.candidates_of(&[id])));
    }
    Ok(())
}

/// Why `node` is not on screen, if it is not.
fn not_shown<T: Target + ?Sized>(s: &Session<T>, node: NodeRef<'_>) -> Option<String> {
    if let Some(hidden) = std::iter::once(node)
        .chain(ancestors(node))
        .find(|n| n.data().is_hidden())
    {
        return Some(if hidden.locate() == node.locate() {
            "it is hidden".to_string()
        } else {
            format!("it is inside {}, which is hidden", describe(s, hidden))
        });
    }
    let Some(bounds) = node.bounding_box().filter(|r| r.area() > 0.0) else {
        return Some("it has no on-screen bounds".to_string());
    };
    // Inside a scroll view (a document scrolls too: a web page) it may be scrolled out;
    // pointer paths scroll it in first.
    if ancestors(node)
        .any(|a| matches!(a.role(), Role::ScrollView | Role::Document) || a.clips_children())
    {
        return None;
    }
    // A submenu draws its popup outside its menu's window (GTK 3's combo: "C - D" ▸ "Denver"
    // opens beside the list): a pointer path proves the point there.
    if ancestors(node)
        .take_while(|a| !matches!(a.role(), Role::Window | Role::Dialog | Role::AlertDialog))
        .filter(|a| a.role() == Role::Menu)
        .nth(1)
        .is_some()
    {
        return None;
    }
    let window = ancestors(node)
        .filter(|a| matches!(a.role(), Role::Window | Role::Dialog | Role::AlertDialog))
        .find_map(|w| w.bounding_box())?;
    (!overlaps(bounds, window)).then(|| {
        format!(
            "it lies at ({}, {})–({}, {}), outside its window ({}, {})–({}, {})",
            bounds.x0, bounds.y0, bounds.x1, bounds.y1, window.x0, window.y0, window.x1, window.y1
        )
    })
}

fn overlaps(a: Rect, b: Rect) -> bool {
    a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

fn ancestors(node: NodeRef<'_>) -> impl Iterator<Item = NodeRef<'_>> {
    std::iter::successors(node.parent(), |n| n.parent())
}

fn describe<T: Target + ?Sized>(s: &Session<T>, node: NodeRef<'_>) -> String {
    let id = node.locate().0;
    let name = s
        .reference(id)
        .map_or_else(|| format!("node {}", id.0), |r| r.to_string());
    match node.label() {
        Some(label) if !label.is_empty() => format!("{name} ({:?} {label:?})", node.role()),
        _ => format!("{name} ({:?})", node.role()),
    }
}
