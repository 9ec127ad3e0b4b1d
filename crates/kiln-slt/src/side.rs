//! The side channel between the file runner and the `DB`. The sqllogictest `DB` trait
//! passes only SQL in and typed rows out; what else must cross that boundary lives here:
//! the type letters the current record expects (used by `--loose-types`) and the shape
//! of the last result (wire types, row count), so a type mismatch can be reported with
//! the server's actual column types.

use std::sync::{Arc, Mutex, MutexGuard};

use mysql::consts::ColumnType as My;
use sqllogictest::DefaultColumnType;

/// Values of the last result kept for the report.
const SHAPE_VALUES: usize = 12;

#[derive(Debug, Default)]
pub struct Side {
    /// Format by the expected letters instead of the wire types (`--loose-types`).
    pub loose: bool,
    /// The type letters the current record expects (empty for statements).
    pub expected: Vec<DefaultColumnType>,
    /// The last result set, if the last record produced one.
    pub last: Option<Shape>,
}

/// What a result looked like on the wire.
#[derive(Debug, Clone)]
pub struct Shape {
    pub wire_types: Vec<My>,
    pub rows: usize,
    /// The first few formatted values, in row order.
    pub values: Vec<String>,
}

pub type SideChannel = Arc<Mutex<Side>>;

pub fn new_channel(loose: bool) -> SideChannel {
    Arc::new(Mutex::new(Side {
        loose,
        ..Side::default()
    }))
}

/// Locks the channel; a panic elsewhere never leaves it half-written in a way that
/// matters, so a poisoned lock is simply taken over.
pub fn lock(c: &SideChannel) -> MutexGuard<'_, Side> {
    c.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shape {
    pub fn new(wire_types: Vec<My>, rows: &[Vec<String>]) -> Shape {
        Shape {
            wire_types,
            rows: rows.len(),
            values: rows.iter().flatten().take(SHAPE_VALUES).cloned().collect(),
        }
    }

    /// `wire types LONGLONG,NULL; 2 rows: 1 NULL 2 NULL`
    pub fn describe(&self) -> String {
        let types: Vec<String> = self
            .wire_types
            .iter()
            .map(|t| {
                let name = format!("{t:?}");
                name.trim_start_matches("MYSQL_TYPE_").to_string()
            })
            .collect();
        let mut s = format!("wire types {}; {} rows", types.join(","), self.rows);
        if !self.values.is_empty() {
            s.push_str(": ");
            s.push_str(&self.values.join(" "));
            if self.rows * self.wire_types.len() > self.values.len() {
                s.push_str(" ...");
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_shape() {
        let rows = vec![vec!["1".to_string(), "NULL".to_string()]];
        let s = Shape::new(vec![My::MYSQL_TYPE_LONGLONG, My::MYSQL_TYPE_NULL], &rows);
        assert_eq!(s.describe(), "wire types LONGLONG,NULL; 1 rows: 1 NULL");
        let empty = Shape::new(vec![My::MYSQL_TYPE_DOUBLE], &[]);
        assert_eq!(empty.describe(), "wire types DOUBLE; 0 rows");
    }
}
