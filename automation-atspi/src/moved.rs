//! What moves without an event: a browser's pages (a scroll, a focus that scrolls, a row that
//! opens and pushes the rest down), seen by reading nodes on screen at each poll; the objects
//! an op went to, read again for a while; and what a GTK 4 app just changed or showed, read
//! again once it has finished sliding in.

use std::time::Duration;

use futures_lite::future::block_on;

use crate::map;
use crate::target::{AtspiTarget, WATCH_FOR};

/// How many nodes of a browser's page are read on screen to see whether it moved.
const PAGE_PROBES: usize = 16;

/// How soon after a browser's page was read again whole (it moved) it may be again.
const PAGE_REREAD_EVERY: Duration = Duration::from_millis(100);

/// How long after a subtree was shown it is read again: a toolkit animates what it shows (a
/// GTK 4 popover's page slides in for 200 ms) and sends no event as it moves.
const SETTLED_AFTER: Duration = Duration::from_millis(350);

/// Subtrees larger than this are not read again when they settle (a whole window shown: a
/// second read would double its cost).
const SETTLE_AT_MOST: usize = 400;

impl AtspiTarget {
    /// What scrolls when `path` is scrolled into view: its nearest ancestor that scrolls (a
    /// scroll pane, a viewport, a page), else its window.
    pub(crate) fn scroll_region(&self, path: &str) -> String {
        use atspi::Role as R;
        self.tree
            .ancestors(path)
            .into_iter()
            .find(|p| {
                self.tree.nodes.get(p).is_some_and(|n| {
                    matches!(
                        n.role,
                        Some(R::ScrollPane | R::Viewport | R::DocumentWeb | R::DocumentFrame)
                    )
                })
            })
            .or_else(|| self.tree.window_of(path))
            .unwrap_or_else(|| path.to_string())
    }

    /// Reads `path` again, whole, on the next poll, and alone on each poll for [`WATCH_FOR`].
    pub(crate) fn watch(&mut self, path: String) {
        let until = std::time::Instant::now() + WATCH_FOR;
        self.watched.retain(|(p, _, _)| *p != path);
        self.watched.push((path, until, false));
    }

    /// Browsers send no event when a page scrolls, and a click, a focus or a key may scroll
    /// it (smoothly, after the op): the nodes an op went to, and nodes spread through each
    /// page, are read on screen at each poll, and when one has moved since the tree read it,
    /// every position in the pages is read again (at most every [`PAGE_REREAD_EVERY`]).
    pub(crate) fn follow_page_scroll(&mut self, now: std::time::Instant) {
        if !matches!(
            self.toolkit_kind(),
            map::Toolkit::Gecko | map::Toolkit::Chromium
        ) || self
            .page_moved_at
            .is_some_and(|at| now.duration_since(at) < PAGE_REREAD_EVERY)
        {
            return;
        }
        // The watched nodes, and up to PAGE_PROBES nodes spread through each page in tree
        // order: a scroll the kit did not send (a script, a person) moves them all; content
        // that grew or shrank (a tree row expanded, with no event for what it pushed down)
        // moves those after it.
        let mut probes: Vec<String> = self.watched.iter().map(|(p, _, _)| p.clone()).collect();
        for doc in self.documents() {
            let mut order = Vec::new();
            let mut stack = vec![doc];
            while let Some(p) = stack.pop() {
                let Some(n) = self.tree.nodes.get(&p) else {
                    continue;
                };
                if n.extents.is_some_and(|(_, _, w, h)| w > 0 && h > 0) {
                    order.push(p.clone());
                }
                stack.extend(n.children.iter().rev().cloned());
            }
            let step = order.len().div_ceil(PAGE_PROBES).max(1);
            probes.extend(order.into_iter().step_by(step));
        }
        let stored: Vec<Option<crate::node::Extents>> = probes
            .iter()
            .map(|p| self.tree.nodes.get(p).and_then(|n| n.extents))
            .collect();
        let reader = &self.reader;
        let fresh = block_on(futures_util::future::join_all(probes.iter().map(|path| {
            reader.call::<_, (i32, i32, i32, i32)>(
                path,
                "org.a11y.atspi.Component",
                "GetExtents",
                &(atspi::CoordType::Screen as u32),
            )
        })));
        let moved = fresh.iter().zip(&stored).any(|(fresh, stored)| {
            matches!((fresh, stored), (Ok(f), Some(s)) if (f.0, f.1) != (s.0, s.1))
        });
        if moved {
            self.page_moved_at = Some(now);
            for doc in self.documents() {
                self.events.touch_subtree(&doc);
            }
        }
    }

    /// Notes what `pending` reads again (an object changed, its children, a subtree shown or
    /// sent an op), to be read again once [`SETTLED_AFTER`] has passed: a toolkit that
    /// animates sends events while the animation starts, and none when it ends. Those read now
    /// because they settled are not noted again.
    pub(crate) fn settle_later(
        &mut self,
        pending: &crate::events::Pending,
        settled: &[String],
        now: std::time::Instant,
    ) {
        use crate::events::Change;
        // GTK 4 animates what it shows and says nothing as it moves; GTK 3's page switch, read
        // again, showed an inspector's page its change 0.65 s later than without.
        if self.toolkit() != crate::map::GTK4 {
            return;
        }
        for (path, change) in &pending.changed {
            if settled.contains(path)
                || self.settling.iter().any(|(p, _, _)| p == path)
                || !self.tree.nodes.contains_key(path)
            {
                continue;
            }
            let again = match change {
                Change::Node => Change::Node,
                Change::Children | Change::Subtree => {
                    if self.tree.subtree_len_within(path, SETTLE_AT_MOST).is_none() {
                        continue;
                    }
                    Change::Subtree
                }
            };
            self.settling
                .push((path.clone(), again, now + SETTLED_AFTER));
        }
    }

    /// Marks for a re-read the noted objects whose time has come, and names them.
    pub(crate) fn reread_settled(&mut self, now: std::time::Instant) -> Vec<String> {
        let (due, waiting) = std::mem::take(&mut self.settling)
            .into_iter()
            .partition(|(_, _, at)| *at <= now);
        self.settling = waiting;
        due.into_iter()
            .map(|(path, change, _)| {
                self.events.touch_as(&path, change);
                path
            })
            .collect()
    }

    /// The pages a browser shows (`document web` objects).
    pub(crate) fn documents(&self) -> Vec<String> {
        self.tree
            .nodes
            .values()
            .filter(|n| n.role == Some(atspi::Role::DocumentWeb))
            .map(|n| n.path.clone())
            .collect()
    }
}
