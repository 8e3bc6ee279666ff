//! Which children of an object are read, and under which keys.
//!
//! An object that manages its descendants, or lists more than [`MAX_CHILDREN`], is never
//! asked for all of them: `GetChildren` makes the app build every one. LibreOffice Calc's
//! sheet counts 2³¹−1 children; asked for them it grew past 2 GB and answered nothing more.
//! Such an object shows a bounded window instead:
//! - a table ([`Interface::Table`]): the headers of its first [`TABLE_COLS`] columns
//!   (`Table.GetColumnHeader`), then its first [`TABLE_ROWS`] × [`TABLE_COLS`] cells (all its
//!   rows when they hold at most [`SMALL_TABLE_CELLS`] cells), each
//!   from `Table.GetAccessibleAt`, under the key `"{table}#{row},{col}"`. Calc hands out a new
//!   object for a cell on every call, so the object path cannot name the cell for a session;
//!   the key does. A call on a key goes to the cell's current object, asked for again when
//!   that object is gone. The table keeps its full size ([`RawNode::table`]), so the cut shows.
//! - anything else: its first [`CHILD_WINDOW`] children, from `GetChildAtIndex`.
//!
//! `#` cannot occur in a D-Bus object path, so a key never collides with a real object.

use std::sync::MutexGuard;

use atspi::{Interface, State};
use futures_util::stream::{self, StreamExt};
use zbus::zvariant::OwnedValue;

use crate::fetch::{CONCURRENCY, Reader};
use crate::keys::{Aliases, cell_key, is_key, parse_key};
use crate::node::RawNode;
use crate::wire::WireRef;

/// Most children of one object listed with `GetChildren`; past it, a window.
pub const MAX_CHILDREN: i32 = 1000;
/// Children shown of a large object that is not a table.
pub const CHILD_WINDOW: i32 = 200;
/// Rows of a large table's window of cells.
pub const TABLE_ROWS: i32 = 10;
/// Columns of a large table's window of cells.
pub const TABLE_COLS: i32 = 6;
/// Cells of a table (within its first [`TABLE_COLS`] columns) up to which it is read whole: a
/// GTK 3 tree view manages its descendants however few rows it has (gtk3-demo's list of 24),
/// and a row past a ten-row window could not be found.
pub const SMALL_TABLE_CELLS: i32 = 600;

/// The rows and columns of a `rows` × `cols` table that are read.
pub fn table_window(rows: i32, cols: i32) -> (i32, i32) {
    let cols = cols.clamp(0, TABLE_COLS);
    let rows = rows.max(0);
    if rows.saturating_mul(cols) <= SMALL_TABLE_CELLS {
        (rows, cols)
    } else {
        (rows.min(TABLE_ROWS), cols)
    }
}

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const TABLE: &str = "org.a11y.atspi.Table";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

impl Reader {
    fn aliases(&self) -> MutexGuard<'_, Aliases> {
        // Plain maps of strings: a panic mid-insert leaves them usable.
        self.aliases.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The key an object answers for, when it is a cell of a window.
    pub fn key_of(&self, object: &str) -> Option<String> {
        self.aliases().by_object.get(object).cloned()
    }

    /// The objects that answer for cell keys now (their events concern the tree).
    pub fn aliased_objects(&self) -> Vec<String> {
        self.aliases().by_object.keys().cloned().collect()
    }

    /// The object that answers for `key` now: the one last seen, or (`fresh`, or none seen)
    /// the table's answer to `GetAccessibleAt`.
    pub(crate) async fn resolve(&self, key: &str, fresh: bool) -> zbus::Result<String> {
        if !fresh && let Some(object) = self.aliases().by_key.get(key) {
            return Ok(object.clone());
        }
        let (table, row, col) = parse_key(key)
            .ok_or_else(|| zbus::Error::Failure(format!("{key:?} is not a cell key")))?;
        let r: WireRef = self
            .raw_call(table, TABLE, "GetAccessibleAt", &(row, col))
            .await?;
        let object = self
            .same_app(&r)
            .ok_or_else(|| zbus::Error::Failure(format!("{table} has no cell at {row},{col}")))?;
        self.aliases().set(key.to_string(), object.clone());
        Ok(object)
    }

    /// Sets `raw.children` (and `raw.table` for a windowed table). `count` is the child count
    /// when known (a cache seed's `-1` is not).
    pub(crate) async fn children_of(
        &self,
        raw: &mut RawNode,
        count: Option<i32>,
    ) -> zbus::Result<()> {
        let path = raw.path.as_str();
        let count = match count.filter(|c| *c >= 0) {
            Some(c) => Some(c),
            None => self.child_count(path).await,
        };
        let manages = raw.states.contains(State::ManagesDescendants);
        // The count only tells "huge": GTK4 counts 0 children on an application that has a
        // window.
        raw.children = match count {
            Some(n) if manages || n > MAX_CHILDREN => {
                if raw.has(Interface::Table) && !is_key(path) {
                    let (cells, size) = self.cells(path).await?;
                    raw.table = Some(size);
                    cells
                } else {
                    raw.children_total = Some(n);
                    self.child_window(path, n).await
                }
            }
            // Unknown count: listing a manager's children is what must never happen.
            None if manages => Vec::new(),
            _ => {
                let children: Vec<WireRef> =
                    self.call(path, ACCESSIBLE, "GetChildren", &()).await?;
                children.iter().filter_map(|c| self.same_app(c)).collect()
            }
        };
        Ok(())
    }

    async fn child_count(&self, path: &str) -> Option<i32> {
        let v: OwnedValue = self
            .call(path, PROPERTIES, "Get", &(ACCESSIBLE, "ChildCount"))
            .await
            .ok()?;
        i32::try_from(&v).ok()
    }

    /// The first [`CHILD_WINDOW`] children, by index (a child that fails is left out).
    async fn child_window(&self, path: &str, count: i32) -> Vec<String> {
        let calls = (0..count.min(CHILD_WINDOW)).map(|i| async move {
            self.call::<_, WireRef>(path, ACCESSIBLE, "GetChildAtIndex", &(i,))
                .await
                .ok()
                .and_then(|r| self.same_app(&r))
        });
        let found: Vec<Option<String>> = stream::iter(calls).buffered(CONCURRENCY).collect().await;
        found.into_iter().flatten().collect()
    }

    /// The window of a table: its column headers (objects), then its cells as keys (row by
    /// row); and the table's full size.
    async fn cells(&self, table: &str) -> zbus::Result<(Vec<String>, (i32, i32))> {
        let (rows, cols) = futures_lite::future::zip(
            self.call::<_, OwnedValue>(table, PROPERTIES, "Get", &(TABLE, "NRows")),
            self.call::<_, OwnedValue>(table, PROPERTIES, "Get", &(TABLE, "NColumns")),
        )
        .await;
        let rows = i32::try_from(&rows?).unwrap_or(0);
        let cols = i32::try_from(&cols?).unwrap_or(0);
        let (read_rows, read_cols) = table_window(rows, cols);
        let headers = (0..read_cols).map(|c| async move {
            self.call::<_, WireRef>(table, TABLE, "GetColumnHeader", &(c,))
                .await
                .ok()
                .and_then(|r| self.same_app(&r))
        });
        let headers: Vec<Option<String>> =
            stream::iter(headers).buffered(CONCURRENCY).collect().await;
        let keys: Vec<String> = (0..read_rows)
            .flat_map(|r| (0..read_cols).map(move |c| cell_key(table, r, c)))
            .collect();
        // Asked afresh: the table was re-read because something in it changed.
        let calls = keys
            .iter()
            .map(|k| async move { self.resolve(k, true).await.ok().map(|_| k) });
        let found: Vec<Option<&String>> = stream::iter(calls).buffered(CONCURRENCY).collect().await;
        let window = headers
            .into_iter()
            .flatten()
            .chain(found.into_iter().flatten().cloned())
            .collect();
        Ok((window, (rows, cols)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_table_is_read_whole_and_a_large_one_in_a_window() {
        assert_eq!(table_window(24, 2), (24, 2));
        assert_eq!(table_window(100, 6), (100, 6));
        assert_eq!(table_window(101, 6), (TABLE_ROWS, 6));
        assert_eq!(table_window(1 << 20, 1024), (TABLE_ROWS, TABLE_COLS));
        assert_eq!(table_window(-1, 3), (0, 3));
    }

    #[test]
    fn cell_keys_round_trip_and_are_never_object_paths() {
        let k = cell_key("/org/a11y/atspi/accessible/1477", 1, 2);
        assert_eq!(
            parse_key(&k),
            Some(("/org/a11y/atspi/accessible/1477", 1, 2))
        );
        assert!(is_key(&k));
        assert!(zbus::zvariant::ObjectPath::try_from(k.as_str()).is_err());
        assert_eq!(parse_key("/a/b"), None);
        assert_eq!(parse_key("/a#x,1"), None);
    }

    #[test]
    fn an_object_answers_for_one_key_at_a_time() {
        let mut a = Aliases::default();
        a.set("/t#0,0".into(), "/o/1".into());
        a.set("/t#0,0".into(), "/o/2".into());
        assert_eq!(a.by_key["/t#0,0"], "/o/2");
        assert_eq!(a.by_object.get("/o/1"), None);
        assert_eq!(a.by_object["/o/2"], "/t#0,0");
    }
}
