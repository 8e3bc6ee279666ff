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
    // What opened or closed: everything under it, read again (an outer one covers the rest).
    subtrees.retain(|p| tree.nodes.contains_key(p));
    let outer: Vec<String> = subtrees
        .iter()
        .take(SUBTREES_PER_POLL * 4)
        .filter(|p| {
            let above = tree.ancestors(p);
            !subtrees.iter().any(|q| q != *p && above.contains(q))
        })
        .take(SUBTREES_PER_POLL)
        .cloned()
        .collect();
    for root in outer {
        match block_on(reader.subtree(&root)) {
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
    added.sort();
    added.dedup();
    for child in added {
        if tree.nodes.contains_key(&child) {
            continue;
        }
        match block_on(reader.subtree(&child)) {
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
