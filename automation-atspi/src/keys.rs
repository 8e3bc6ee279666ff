//! Cell keys: how a table's cell is named for a session (`"{table}#{row},{col}"`), and which
//! object answers for each key now. `#` cannot occur in a D-Bus object path, so a key never
//! collides with a real object. (Which children are read, and why cells get keys:
//! `children.rs`.)

use std::collections::HashMap;

/// The key of a table's cell.
pub fn cell_key(table: &str, row: i32, col: i32) -> String {
    format!("{table}#{row},{col}")
}

/// A cell key's table, row and column.
pub fn parse_key(key: &str) -> Option<(&str, i32, i32)> {
    let (table, cell) = key.split_once('#')?;
    let (row, col) = cell.split_once(',')?;
    Some((table, row.parse().ok()?, col.parse().ok()?))
}

/// Whether `path` is a cell key rather than an object path.
pub fn is_key(path: &str) -> bool {
    path.contains('#')
}

/// Cell keys and the objects that answer for them now, both ways.
#[derive(Debug, Default)]
pub struct Aliases {
    pub(crate) by_key: HashMap<String, String>,
    pub(crate) by_object: HashMap<String, String>,
}

impl Aliases {
    pub(crate) fn set(&mut self, key: String, object: String) {
        if let Some(old) = self.by_key.insert(key.clone(), object.clone()) {
            self.by_object.remove(&old);
        }
        self.by_object.insert(object, key);
    }
}
