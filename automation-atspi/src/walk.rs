//! Reading a whole tree, or a subtree: a bounded walk, seeded by the app's cache.
//!
//! - **Order**: objects under showing parents first, breadth first; objects under hidden
//!   parents (closed menus, other pages) after them. [`CONCURRENCY`] objects in flight.
//! - **Big apps**: once the walk knows of more than [`BIG_APP`] objects, an object that is not
//!   showing is read lite ([`RawNode::lite`]): role, states, names, no details, and — unless
//!   the cache already listed them — no children. An event about it (it shows) reads it whole,
//!   and what it gained with it. LibreOffice Calc holds ~1 850 objects of which ~220 show
//!   (the rest are items of closed menus); read whole, they kept its one thread busy 2.5 s.
//! - **Budget**: a call that timed out ends the walk (an app that stopped answering is not
//!   asked 2 000 more times), and so does [`WALK_BUDGET`]: a timeout rather than a hang.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use atspi::State;
use futures_util::stream::{FuturesUnordered, StreamExt};

use crate::cache::{self, Cached, Item, LegacyItem};
use crate::fetch::{Bulk, CACHE_NO, CACHE_YES, CONCURRENCY, Reader, is_timeout, timed_out};
use crate::node::RawNode;

/// A node deeper than this is not walked (a cycle in a broken toolkit tree ends here).
pub const MAX_DEPTH: usize = 64;

/// Most objects read in one walk.
pub const MAX_NODES: usize = 20_000;

/// Objects known to a walk past which the app counts as big (see the module doc).
pub const BIG_APP: usize = 500;

/// Longest a walk may take before it answers a timeout.
pub const WALK_BUDGET: Duration = Duration::from_secs(8);

impl Reader {
    /// The whole tree under the application object `root`: a walk seeded by
    /// `Cache.GetItems` when the app serves it (asked once; an app that does not is walked
    /// without from then on).
    pub async fn all(&self, root: &str) -> zbus::Result<(HashMap<String, RawNode>, Bulk)> {
        let mut seeds = HashMap::new();
        if self.cache.load(Ordering::Relaxed) != CACHE_NO {
            match self.cached().await {
                Some(s) => {
                    self.cache.store(CACHE_YES, Ordering::Relaxed);
                    seeds = s;
                }
                None => self.cache.store(CACHE_NO, Ordering::Relaxed),
            }
        }
        let bulk = if seeds.is_empty() {
            Bulk::Walk
        } else {
            Bulk::Cache(seeds.len())
        };
        self.walk(root, &seeds).await.map(|t| (t, bulk))
    }

    /// The app's cached objects ([`cache`] decodes them), children ordered by index in
    /// parent; `None` when the app serves no cache, or an empty one.
    async fn cached(&self) -> Option<HashMap<String, Cached>> {
        // Both signatures answer the same method; which one came back decides the decoding.
        let nodes = match self
            .call::<_, Vec<Item>>(cache::PATH, cache::IFACE, "GetItems", &())
            .await
        {
            Ok(items) => cache::from_items(&self.dest, items),
            Err(zbus::Error::Variant(_)) => {
                let legacy: Vec<LegacyItem> = self
                    .call(cache::PATH, cache::IFACE, "GetItems", &())
                    .await
                    .ok()?;
                cache::from_legacy(&self.dest, legacy)
            }
            Err(_) => return None,
        };
        (!nodes.is_empty()).then_some(nodes)
    }

    /// Walks the subtree under `root` (no seeds).
    pub async fn subtree(&self, root: &str) -> zbus::Result<HashMap<String, RawNode>> {
        self.walk(root, &HashMap::new()).await
    }

    /// The app's cache as seeds for walks of its subtrees: empty when the app serves none
    /// (as the first full read found).
    pub async fn seeds(&self) -> HashMap<String, Cached> {
        if self.cache.load(Ordering::Relaxed) != CACHE_YES {
            return HashMap::new();
        }
        self.cached().await.unwrap_or_default()
    }

    /// Walks the subtree under `root`, taking what `seeds` holds ([`Reader::seeds`]).
    pub async fn subtree_seeded(
        &self,
        root: &str,
        seeds: &HashMap<String, Cached>,
    ) -> zbus::Result<HashMap<String, RawNode>> {
        self.walk(root, seeds).await
    }

    /// One object: from its cache seed when there is one (asking for its children only
    /// when the seed's list is partial, or the object manages them), else both rounds;
    /// `lite`: an object that is not showing without its details, and without its children
    /// unless the seed lists them.
    async fn seeded(&self, path: &str, seed: Option<&Cached>, lite: bool) -> zbus::Result<RawNode> {
        let mut raw = match seed {
            Some(c) => {
                let mut n = c.node.clone();
                let manages = n.states.contains(State::ManagesDescendants);
                let hidden = lite && !crate::node::shows(&n.states);
                if manages || (!c.complete && !hidden) {
                    self.children_of(&mut n, Some(c.count)).await?;
                }
                n
            }
            None => self.base(path, lite).await?,
        };
        if lite && !crate::node::shows(&raw.states) {
            raw.lite = true;
            // LibreOffice never shows the combo box that names its drop-down (its label is
            // on this one alone): it is read whole, for the face that draws it (`face`).
            if raw.role == Some(atspi::Role::ComboBox) {
                self.details(&mut raw).await;
            }
        } else {
            self.details(&mut raw).await;
        }
        Ok(raw)
    }

    /// Walks the subtree under `root` (see the module doc), taking what `seeds` holds. An
    /// object that fails to read (it vanished mid-walk) is left out with its subtree; the
    /// root failing, a call timing out, or the walk outlasting [`WALK_BUDGET`] fails it.
    async fn walk(
        &self,
        root: &str,
        seeds: &HashMap<String, Cached>,
    ) -> zbus::Result<HashMap<String, RawNode>> {
        let deadline = Instant::now() + WALK_BUDGET;
        let first = self.seeded(root, seeds.get(root), false).await?;
        let mut out: HashMap<String, RawNode> = HashMap::new();
        // Under showing parents, and under hidden ones: (path, depth).
        let mut shown: VecDeque<(String, usize)> =
            first.children.iter().map(|c| (c.clone(), 1)).collect();
        let mut hidden: VecDeque<(String, usize)> = VecDeque::new();
        let mut queued: HashSet<String> = shown.iter().map(|(p, _)| p.clone()).collect();
        out.insert(root.to_string(), first);
        let mut running = FuturesUnordered::new();
        loop {
            while running.len() < CONCURRENCY {
                let Some((path, depth)) = shown.pop_front().or_else(|| hidden.pop_front()) else {
                    break;
                };
                if out.contains_key(&path) || depth > MAX_DEPTH || out.len() >= MAX_NODES {
                    continue;
                }
                let known = seeds
                    .len()
                    .max(out.len() + running.len() + shown.len() + hidden.len());
                let lite = known > BIG_APP;
                running.push(async move {
                    let r = self.seeded(&path, seeds.get(&path), lite).await;
                    (path, depth, r)
                });
            }
            let Some((path, depth, r)) = running.next().await else {
                break;
            };
            if Instant::now() > deadline {
                return Err(timed_out(format!(
                    "reading the tree took over {} s ({} objects read)",
                    WALK_BUDGET.as_secs(),
                    out.len()
                )));
            }
            let n = match r {
                Ok(n) => n,
                Err(e) if is_timeout(&e) => return Err(e),
                Err(_) => continue,
            };
            let queue = if crate::node::shows(&n.states) {
                &mut shown
            } else {
                &mut hidden
            };
            for c in &n.children {
                if queued.insert(c.clone()) {
                    queue.push_back((c.clone(), depth + 1));
                }
            }
            out.insert(path, n);
        }
        prune(&mut out);
        Ok(out)
    }
}

/// Drops children that were not read from their parents' lists, so the tree stays whole.
pub(crate) fn prune(nodes: &mut HashMap<String, RawNode>) {
    let present: HashSet<String> = nodes.keys().cloned().collect();
    for n in nodes.values_mut() {
        n.children.retain(|c| present.contains(c));
    }
}
