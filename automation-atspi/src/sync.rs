//! Keeping an [`AppTree`] in step with the app: a full read, and re-reading what the events
//! say changed.
//!
//! - An object that changed is read again whole; children it gained are read with their
//!   subtrees; children it lost are forgotten unless another parent still lists them.
//! - A table's window of cells ([`crate::children`]) is read again with the table: the table
//!   re-resolves its cells, and a cell's content can change with no event naming its key.
//! - Events name objects; a cell's events name its current object, mapped back to its key.

use std::collections::{HashMap, HashSet};

use automation_core::TargetError;
use futures_lite::future::block_on;

use crate::cache::Cached;
use crate::events::Change;
use crate::fetch::{Bulk, Reader};
use crate::keys::is_key;
use crate::node::RawNode;
use crate::tree::AppTree;

/// Changed objects past which reading the whole tree again is cheaper than reading each
/// (a full read of LibreOffice Calc is ~2 000 calls; one object is up to eight).
pub const READ_ALL_ABOVE: usize = 256;

/// Subtrees read again in one poll; past them, the objects themselves only (the next poll's
/// events bring the rest).
pub const SUBTREES_PER_POLL: usize = 16;

/// Objects to walk past which the app's cache (one call for all its objects) seeds the walks:
/// a page switch re-reads two pages, ~400 objects of four calls each without it.
const SEEDED_WALK_FROM: usize = 64;

/// What a gained subtree counts for, unread (a new page, dialog or menu holds dozens).
const SEEDS_PER_GAINED: usize = 32;

/// Subtrees walked at once (each walk keeps [`crate::fetch::CONCURRENCY`] objects in flight).
const WALKS_AT_ONCE: usize = 4;

/// Turns a failed call into the target's error (`AppGone` when the app left the bus).
pub type Classify<'a> = &'a dyn Fn(zbus::Error, &str) -> TargetError;

/// Reads the whole tree again, replacing what was read.
pub fn read_all(
    reader: &Reader,
    tree: &mut AppTree,
    classify: Classify<'_>,
) -> Result<Bulk, TargetError> {
    let root = tree.root.clone();
    let (fresh, bulk) = block_on(reader.all(&root)).map_err(|e| classify(e, "reading the tree"))?;
    tree.nodes.clear();
    tree.replace_subtree(fresh);
    Ok(bulk)
}

/// Re-reads the objects in `changed` (object paths as the events named them) and what they
/// gained; `true` when the tree changed.
pub fn read_changes(
    reader: &Reader,
    tree: &mut AppTree,
    changed: HashMap<String, Change>,
    classify: Classify<'_>,
) -> Result<bool, TargetError> {
    let mut subtrees: Vec<String> = changed
        .iter()
        .filter(|(_, c)| **c == Change::Subtree)
        .map(|(p, _)| reader.key_of(p).unwrap_or_else(|| p.clone()))
        .filter(|p| tree.nodes.contains_key(p))
        .collect();
    subtrees.sort();
    subtrees.dedup();
    let mut paths: Vec<String> = changed
        .into_keys()
        .map(|p| reader.key_of(&p).unwrap_or(p))
        .filter(|p| tree.nodes.contains_key(p))
        .collect();
    paths.sort();
    paths.dedup();
    // What opened or closed is read again whole, with everything under it (an outer one
    // covers the rest), so the objects under it are not also read one by one. Its root still
    // is, in one batch with the other changed objects, so its focus is decided with theirs
    // (without it, a Qt text field the kit focused stayed unfocused in the mirror).
    let outer = outermost(tree, &subtrees);
    let inside = descendants(tree, &outer);
    paths.retain(|p| outer.contains(p) || !inside.contains(p));
    let mut changed_any = false;
    let mut added: Vec<String> = Vec::new();
    let mut round = 0;
    while !paths.is_empty() && round < 2 {
        round += 1;
        let fresh = read(reader, &paths, classify)?;
        // Cells of the tables just read: their objects were resolved afresh.
        let mut cells: Vec<String> = Vec::new();
        // Taken as one batch: the focus among them is decided together.
        let mut batch = Vec::new();
        for (path, node) in fresh {
            cells.extend(node.children.iter().filter(|c| is_key(c)).cloned());
            let Some(old) = tree.nodes.get(&path) else {
                continue;
            };
            if *old == node {
                continue;
            }
            added.extend(
                node.children
                    .iter()
                    .filter(|c| !tree.nodes.contains_key(*c))
                    .cloned(),
            );
            batch.push((path, node));
            changed_any = true;
        }
        tree.take(batch);
        cells.retain(|c| tree.nodes.contains_key(c) && !paths.contains(c));
        paths = cells;
    }
    added.sort();
    added.dedup();
    // The subtrees that opened or closed and those just gained are walked at once: a page
    // switch hides one page and shows another, and each walk waits on the app's answers.
    let outer: Vec<String> = outer
        .into_iter()
        .filter(|p| tree.nodes.contains_key(p))
        .collect();
    let seeds = if inside.len() + added.len() * SEEDS_PER_GAINED >= SEEDED_WALK_FROM {
        block_on(reader.seeds())
    } else {
        HashMap::new()
    };
    let (again, gained) = block_on(futures_lite::future::zip(
        walk_each(reader, &outer, &seeds),
        walk_each(reader, &added, &seeds),
    ));
    for (_, walked) in again {
        match walked {
            Ok(sub) => {
                let changed: Vec<(String, RawNode)> = sub
                    .into_iter()
                    .filter(|(p, n)| tree.nodes.get(p) != Some(n))
                    .collect();
                if std::env::var_os("AUTOMATION_DEBUG_SYNC").is_some() {
                    for (p, n) in &changed {
                        eprintln!("subtree change {p}: {:?} -> {:?}", tree.nodes.get(p), n);
                    }
                }
                if !changed.is_empty() {
                    changed_any = true;
                    tree.take(changed);
                }
            }
            Err(e) => fatal(classify(e, "re-reading what opened"))?,
        }
    }
    for (child, walked) in gained {
        if tree.nodes.contains_key(&child) {
            continue;
        }
        match walked {
            Ok(sub) => {
                tree.take(sub);
                changed_any = true;
            }
            Err(e) => fatal(classify(e, "reading a new subtree"))?,
        }
    }
    if changed_any {
        tree.forget_unreachable();
    }
    Ok(changed_any)
}

/// The outermost of `subtrees` (none under another), at most [`SUBTREES_PER_POLL`].
fn outermost(tree: &AppTree, subtrees: &[String]) -> Vec<String> {
    let parent = tree.parents();
    let roots: HashSet<&str> = subtrees.iter().map(String::as_str).collect();
    let under_another = |p: &str| {
        let mut cur = p;
        for _ in 0..=crate::walk::MAX_DEPTH {
            match parent.get(cur) {
                Some(up) if roots.contains(up) => return true,
                Some(up) => cur = up,
                None => return false,
            }
        }
        false
    };
    subtrees
        .iter()
        .filter(|p| tree.nodes.contains_key(*p))
        .take(SUBTREES_PER_POLL * 4)
        .filter(|p| !under_another(p))
        .take(SUBTREES_PER_POLL)
        .cloned()
        .collect()
}

/// `roots` and every object under them, as the tree holds them now.
fn descendants(tree: &AppTree, roots: &[String]) -> HashSet<String> {
    let mut out: HashSet<String> = HashSet::new();
    let mut queue: Vec<&str> = roots.iter().map(String::as_str).collect();
    while let Some(p) = queue.pop() {
        if !out.insert(p.to_string()) {
            continue;
        }
        if let Some(n) = tree.nodes.get(p) {
            queue.extend(n.children.iter().map(String::as_str));
        }
    }
    out
}

/// Each of `roots` walked, [`WALKS_AT_ONCE`] at a time, with what came of it.
async fn walk_each(
    reader: &Reader,
    roots: &[String],
    seeds: &HashMap<String, Cached>,
) -> Vec<(String, zbus::Result<HashMap<String, RawNode>>)> {
    use futures_util::stream::{self, StreamExt};
    stream::iter(roots)
        .map(|root| async move { (root.clone(), reader.subtree_seeded(root, seeds).await) })
        .buffer_unordered(WALKS_AT_ONCE)
        .collect()
        .await
}

/// `paths` read again; objects that are gone are left out (their parent's children change
/// says so).
fn read(
    reader: &Reader,
    paths: &[String],
    classify: Classify<'_>,
) -> Result<HashMap<String, RawNode>, TargetError> {
    let mut out = HashMap::with_capacity(paths.len());
    for (path, r) in block_on(reader.nodes(paths)) {
        match r {
            Ok(n) => {
                out.insert(path, n);
            }
            Err(e) => fatal(classify(e, "re-reading a changed object"))?,
        }
    }
    Ok(out)
}

/// An error that ends the poll (the app is gone); anything else leaves the object as it was.
fn fatal(e: TargetError) -> Result<(), TargetError> {
    match e {
        TargetError::AppGone(_) => Err(e),
        _ => Ok(()),
    }
}

/// The object paths whose events concern the tree: its objects, and the objects that answer
/// for its cell keys now.
pub fn known(reader: &Reader, tree: &AppTree) -> HashSet<String> {
    let mut out: HashSet<String> = tree.nodes.keys().cloned().collect();
    out.extend(reader.aliased_objects());
    out
}
