//! An open table: its definition, its trees in the engine (with the functions that
//! compute secondary keys from rows), the auto-increment counter, a row-count
//! estimate, and the release of its tablespace once dropped and no longer used.

use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use kiln_common::Result;
use kiln_storage::engine::Engine;
use kiln_storage::row::{RowIds, decode_clustered};
use kiln_storage::trx::{SecKey, Secondary, Table, TrxEngine};
use parking_lot::Mutex;

use super::{ColumnDefault, IndexDef, IndexKindDef, TableDef, storage_error};
use crate::collate::Coll;
use crate::rowfmt::{self, Stored};
use crate::value::Value;

/// What computing a key from a stored row needs.
pub struct RowShape {
    pub stored: Vec<Stored>,
    pub colls: Vec<Coll>,
    /// The character type of each column (None: not a character type), for binding.
    pub texts: Vec<Option<crate::coercion::ColumnText>>,
    /// Values of columns a row written before ADD COLUMN lacks.
    pub missing: Vec<Value>,
}

impl RowShape {
    pub fn decode(&self, row: &[u8]) -> Vec<Value> {
        rowfmt::decode_row(&self.stored, row, &|i| self.missing[i].clone())
            .unwrap_or_else(|_| vec![Value::Null; self.stored.len()])
    }

    pub fn decode_into(&self, row: &[u8], out: &mut Vec<Value>) -> Result<()> {
        self.decode_masked(row, None, out)
    }

    /// Decodes only the columns `needed` marks (the rest read as NULL).
    pub fn decode_masked(
        &self,
        row: &[u8],
        needed: Option<&[bool]>,
        out: &mut Vec<Value>,
    ) -> Result<()> {
        rowfmt::decode_row_masked(&self.stored, row, &|i| self.missing[i].clone(), needed, out)
            .map_err(|e| storage_error(format!("damaged row: {}", e.0)))
    }
}

/// `rows_base` before the first sample.
const ROWS_UNKNOWN: i64 = i64::MIN;

pub struct TableHandle {
    pub def: TableDef,
    pub storage: Table,
    pub shape: Arc<RowShape>,
    /// For def.indexes[i]: its position in storage.secondaries (None: the clustered
    /// index, or a FULLTEXT index, which has no tree).
    pub sec_pos: Vec<Option<usize>>,
    row_ids: Option<RowIds>,
    auto_col: Option<usize>,
    auto_next: AtomicU64,
    /// Rows, roughly: `rows_base` plus `rows_delta` (see `rows_estimate`).
    rows_base: AtomicI64,
    /// Inserts minus deletes since `rows_base` was taken.
    rows_delta: AtomicI64,
    /// Set by DROP: the tablespace goes when the last user lets go of the handle.
    release: Mutex<Option<Arc<TrxEngine>>>,
    /// A session's TEMPORARY table (temp_tables.rs): in no dictionary record, its
    /// auto-increment counter is not persisted, and privileges are not checked on it.
    pub temporary: bool,
    /// The transaction whose DDL built this table's rows (ALTER's copy, TRUNCATE); 0:
    /// none since start-up. A consistent read whose view predates it would find the
    /// copy empty, so it fails with 1412 instead (`exec::access::check_snapshot`).
    pub rebuilt_by: u64,
}

impl TableHandle {
    /// Opens the trees of `def`. `persisted_auto_inc` is the counter the dictionary
    /// kept (0: none); the next value is the largest of it, the column's largest value
    /// + 1, and the table's AUTO_INCREMENT option.
    pub fn open(
        engine: &Arc<Engine>,
        te: &Arc<TrxEngine>,
        def: TableDef,
        persisted_auto_inc: u64,
    ) -> Result<TableHandle> {
        let space = engine.space(def.space_id).ok_or_else(|| {
            storage_error(format!(
                "tablespace {} of table {}.{} is missing",
                def.space_id, def.schema, def.name
            ))
        })?;
        let open = |ix: &IndexDef| -> Result<Arc<kiln_storage::btree::BTree>> {
            let t = engine
                .open_tree(&space, ix.id)
                .map_err(storage_error)?
                .ok_or_else(|| {
                    storage_error(format!(
                        "index {} of {}.{} is missing",
                        ix.name, def.schema, def.name
                    ))
                })?;
            let t = Arc::new(t);
            te.register_tree(t.clone());
            Ok(t)
        };
        let colls: Vec<Coll> = def
            .columns
            .iter()
            .map(|c| c.ty.collation().map_or(Coll::BINARY, Coll::of))
            .collect();
        let missing: Vec<Value> = def
            .columns
            .iter()
            .map(|c| match &c.default {
                Some(ColumnDefault::Value(v)) => v.clone(),
                _ => Value::Null,
            })
            .collect();
        let shape = Arc::new(RowShape {
            stored: def.columns.iter().map(|c| rowfmt::stored(&c.ty)).collect(),
            colls,
            texts: def
                .columns
                .iter()
                .map(|c| crate::coercion::ColumnText::of(&c.ty))
                .collect(),
            missing,
        });
        let clustered = open(&def.indexes[0])?;
        let mut secondaries = Vec::new();
        let mut sec_pos = vec![None];
        for ix in &def.indexes[1..] {
            if ix.kind == IndexKindDef::Fulltext {
                sec_pos.push(None);
                continue;
            }
            sec_pos.push(Some(secondaries.len()));
            let tree = open(ix)?;
            let shape2 = shape.clone();
            let columns = def.columns.clone();
            let ixdef = ix.clone();
            secondaries.push(Secondary {
                tree,
                unique: ix.is_unique(),
                key_of: Arc::new(move |row: &[u8]| {
                    let values = shape2.decode(row);
                    let has_null = ixdef.parts.iter().any(|p| values[p.column].is_null());
                    SecKey {
                        bytes: rowfmt::index_key(&columns, &shape2.colls, &ixdef, &values),
                        has_null,
                    }
                }),
            });
        }
        let row_ids = if def.indexes[0].kind == IndexKindDef::RowId {
            Some(RowIds::open(&clustered).map_err(storage_error)?)
        } else {
            None
        };
        let auto_col = def.auto_increment_column();
        let h = TableHandle {
            storage: Table {
                clustered,
                secondaries,
            },
            shape,
            sec_pos,
            row_ids,
            auto_col,
            auto_next: AtomicU64::new(1),
            rows_base: AtomicI64::new(ROWS_UNKNOWN),
            rows_delta: AtomicI64::new(0),
            release: Mutex::new(None),
            temporary: false,
            rebuilt_by: 0,
            def,
        };
        if let Some(col) = auto_col {
            let max = h.max_value_of(col)?;
            let next = persisted_auto_inc
                .max(max.saturating_add(1))
                .max(h.def.auto_increment_start)
                .max(1);
            h.auto_next.store(next, Ordering::Relaxed);
        }
        Ok(h)
    }

    /// The largest value of integer column `col` in the tree (latest versions).
    fn max_value_of(&self, col: usize) -> Result<u64> {
        let first_pk = self.def.indexes[0].parts.first().map(|p| p.column);
        let as_u64 = |v: &Value| match v {
            Value::UInt(u) => *u,
            other => other.to_i64().unwrap_or(0).max(0) as u64,
        };
        let mut max = 0u64;
        let descending = first_pk == Some(col);
        for r in self
            .storage
            .clustered
            .range(Bound::Unbounded, Bound::Unbounded, descending)
        {
            let (_, v) = r.map_err(storage_error)?;
            let Some(e) = decode_clustered(&v) else {
                continue;
            };
            let values = self.shape.decode(e.row);
            max = max.max(as_u64(&values[col]));
            if descending {
                break;
            }
        }
        Ok(max)
    }

    pub fn auto_increment_column(&self) -> Option<usize> {
        self.auto_col
    }

    /// Hands out `n` consecutive auto-increment values; returns the first.
    pub fn auto_inc_take(&self, n: u64) -> u64 {
        self.auto_next.fetch_add(n, Ordering::Relaxed)
    }

    /// The next value that would be handed out.
    pub fn auto_inc_peek(&self) -> u64 {
        self.auto_next.load(Ordering::Relaxed)
    }

    /// An explicit value `v` was inserted: later automatic values go above it.
    pub fn auto_inc_at_least(&self, next: u64) {
        self.auto_next.fetch_max(next, Ordering::Relaxed);
    }

    /// The next hidden row id (tables without a primary key).
    pub fn next_row_id(&self) -> Option<[u8; kiln_storage::row::ROW_ID_LEN]> {
        self.row_ids.as_ref().map(|r| r.next_key())
    }

    /// SHOW TABLE STATUS's and information_schema.TABLES's size columns, as InnoDB
    /// reports them: (Data_length, Index_length) in bytes, the clustered index's
    /// pages and every secondary index's, each sampled (`BTree::estimate_size`; one
    /// page, 16,384 bytes, for an empty index). Overflow pages are not counted.
    pub fn size_bytes(&self) -> (u64, u64) {
        let page = kiln_storage::page::PAGE_SIZE as u64;
        let pages = |t: &kiln_storage::btree::BTree| t.estimate_size().map_or(1, |s| s.pages);
        let data = pages(&self.storage.clustered) * page;
        let index = self
            .storage
            .secondaries
            .iter()
            .map(|s| pages(&s.tree) * page)
            .sum();
        (data, index)
    }

    /// Rows, roughly, for EXPLAIN, the join order and TABLE_ROWS. Where counting would
    /// read every leaf, the clustered tree is sampled (`BTree::estimate_len`, a few
    /// root-to-leaf paths) — at the first use, not at open: a start-up that opens
    /// thousands of tables would otherwise read a few pages of each from disk before
    /// the server accepts connections. Inserts and deletes keep it current.
    pub fn rows_estimate(&self) -> u64 {
        let mut base = self.rows_base.load(Ordering::Relaxed);
        if base == ROWS_UNKNOWN {
            let sampled = self
                .storage
                .clustered
                .estimate_len()
                .unwrap_or(0)
                .min(i64::MAX as u64 / 2) as i64;
            // Changes counted before the sample are in it.
            self.rows_delta.store(0, Ordering::Relaxed);
            base = match self.rows_base.compare_exchange(
                ROWS_UNKNOWN,
                sampled,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => sampled,
                Err(other) => other,
            };
        }
        base.saturating_add(self.rows_delta.load(Ordering::Relaxed))
            .max(0) as u64
    }

    /// Rows inserted (positive) or deleted (negative).
    pub fn add_rows(&self, n: i64) {
        self.rows_delta.fetch_add(n, Ordering::Relaxed);
    }

    /// A fresh count or sample (ANALYZE, a rebuild's copy).
    pub fn set_rows_estimate(&self, rows: u64) {
        self.rows_delta.store(0, Ordering::Relaxed);
        self.rows_base
            .store(rows.min(i64::MAX as u64 / 2) as i64, Ordering::Relaxed);
    }

    /// Takes over `old`'s estimate (a new handle of the same rows), sampled or not.
    pub fn keep_rows_estimate_of(&self, old: &TableHandle) {
        self.rows_base
            .store(old.rows_base.load(Ordering::Relaxed), Ordering::Relaxed);
        self.rows_delta
            .store(old.rows_delta.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Marks the tablespace for removal once the last user drops the handle.
    pub fn release_space(&self, te: &Arc<TrxEngine>) {
        *self.release.lock() = Some(te.clone());
    }
}

impl Drop for TableHandle {
    fn drop(&mut self) {
        if let Some(te) = self.release.lock().take() {
            // Waits for purge and rollback to leave the tablespace. A failure leaves
            // an orphan the next start removes.
            let _ = te.drop_space(self.def.space_id);
        }
    }
}
