//! The data dictionary: databases and tables, stored transactionally in the engine
//! itself (MySQL 8.0's design — no .frm files, DDL is crash-safe), and the in-memory
//! catalog that statements resolve names against.
//!
//! Storage: one tree in the system tablespace (index id `DICT_INDEX`), under
//! transactions like any table, keyed
//!
//! ```text
//! 'D' 0x00 name                      → DatabaseDef   (codec.rs)
//! 'T' 0x00 schema 0x00 name          → TableDef
//! 'V' 0x00 schema 0x00 name          → ViewDef       (view.rs)
//! 'G' 0x00 schema 0x00 name          → TriggerDef    (trigger.rs)
//! 'R' 0x00 schema 0x00 P|F 0x00 name → RoutineDef    (routine.rs)
//! 'N'                                → next table id (u64 big-endian)
//! ```
//!
//! and a plain tree `AUTO_INC_INDEX` (no transactions): table id (8 bytes big-endian)
//! → the next auto-increment value (u64 big-endian).
//!
//! Each table has its own tablespace `tables/<id>.ibd`: the clustered index is tree 1,
//! secondary indexes get ids from the table's `next_index_id`.
//!
//! DDL protocol (crash safety): tablespaces and trees are created first (durable), then
//! the dictionary records are written and committed in one transaction; the commit is
//! the point at which the DDL happened. A crash before it leaves a tablespace no record
//! names: `open` drops such orphans. DROP commits the record's deletion first and
//! drops the tablespace after (again an orphan if the crash comes between).
//! Tablespaces under `#innodb_temp/` belong to session TEMPORARY tables
//! (temp_tables.rs), which no record names and no restart keeps: `open` drops them.
//!
//! Readers never lock: the catalog is an immutable `Arc<Catalog>` replaced whole by
//! each DDL; a session keeps its copy and refreshes it when the global version (one
//! atomic load per statement) has moved. DDL statements are serialized by one mutex.
//! A dropped table's tablespace is removed when the last statement using its handle
//! lets go of it.

pub mod codec;
pub mod routine;
mod table;
pub mod trigger;
pub mod view;

pub use routine::{ParsedRoutine, Routine, RoutineDef};
pub use table::TableHandle;
pub use trigger::{TableTriggers, Trigger, TriggerDef};
pub use view::{CheckOption, ViewDef};

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_storage::btree::BTree;
use kiln_storage::engine::Engine;
use kiln_storage::trx::{ReadMode, TrxEngine, TrxOptions};
use parking_lot::{Mutex, RwLock};

use crate::types::SqlType;
use crate::value::Value;

/// Index id of the dictionary tree in the system tablespace.
pub const DICT_INDEX: u64 = u64::MAX - 3;
/// Index id of the auto-increment counters (a plain tree, outside transactions: a
/// counter never goes back on rollback, as in MySQL).
pub const AUTO_INC_INDEX: u64 = u64::MAX - 4;
/// Index id of every table's clustered index (in the table's own tablespace).
pub const CLUSTERED_INDEX_ID: u64 = 1;
/// Databases that always exist and cannot be dropped or written to.
pub const VIRTUAL_DATABASES: [&str; 2] = ["information_schema", "performance_schema"];
/// Databases created at the first start.
pub const SYSTEM_DATABASES: [&str; 2] = ["mysql", "sys"];
/// Tables per server (bounds the catalog).
pub const TABLES_MAX: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseDef {
    pub name: String,
    pub charset: String,
    pub collation: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ColumnDefault {
    /// A constant, already converted to the column's type.
    Value(Value),
    CurrentTimestamp,
    /// A default expression `(expr)`, as SQL text.
    Expr(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub ty: SqlType,
    pub nullable: bool,
    pub default: Option<ColumnDefault>,
    pub auto_increment: bool,
    pub on_update_now: bool,
    pub comment: Option<String>,
    pub invisible: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKindDef {
    Primary,
    Unique,
    Key,
    Fulltext,
    /// The hidden clustered index of a table without a primary key (6-byte row ids).
    RowId,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexPart {
    pub column: usize,
    pub prefix_chars: Option<u32>,
    pub desc: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IndexDef {
    pub name: String,
    /// Tree id in the table's tablespace.
    pub id: u64,
    pub kind: IndexKindDef,
    pub parts: Vec<IndexPart>,
    pub invisible: bool,
    pub comment: Option<String>,
}

impl IndexDef {
    pub fn is_unique(&self) -> bool {
        matches!(self.kind, IndexKindDef::Primary | IndexKindDef::Unique)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ForeignKeyDef {
    pub name: String,
    pub columns: Vec<String>,
    pub ref_schema: String,
    pub ref_table: String,
    pub ref_columns: Vec<String>,
    pub actions: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableDef {
    pub id: u64,
    pub schema: String,
    pub name: String,
    pub space_id: u32,
    pub columns: Vec<ColumnDef>,
    /// indexes[0] is the clustered index (PRIMARY, or the hidden row-id index).
    pub indexes: Vec<IndexDef>,
    pub foreign_keys: Vec<ForeignKeyDef>,
    pub engine: String,
    pub charset: String,
    pub collation: String,
    pub comment: String,
    pub row_format: Option<String>,
    pub next_index_id: u64,
    pub created_unix_secs: u64,
    /// `AUTO_INCREMENT=n` given at CREATE (the first value handed out).
    pub auto_increment_start: u64,
}

impl TableDef {
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    pub fn has_primary_key(&self) -> bool {
        self.indexes[0].kind == IndexKindDef::Primary
    }

    pub fn auto_increment_column(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }
}

/// Everything statements resolve names against, as of one DDL.
#[derive(Default)]
pub struct Catalog {
    pub version: u64,
    pub databases: BTreeMap<String, Arc<DatabaseDef>>,
    pub tables: HashMap<(String, String), Arc<TableHandle>>,
    /// Views (view.rs): same namespace as the tables, never both for one name.
    pub views: HashMap<(String, String), Arc<ViewDef>>,
    /// Triggers (trigger.rs): schema → table → the table's triggers.
    pub triggers: trigger::TriggerMap,
    /// Stored procedures and functions (routine.rs).
    pub routines: routine::RoutineMap,
}

impl Catalog {
    pub fn table(&self, schema: &str, name: &str) -> Option<&Arc<TableHandle>> {
        self.tables.get(&(schema.to_string(), name.to_string()))
    }

    pub fn database(&self, name: &str) -> Option<&Arc<DatabaseDef>> {
        self.databases.get(name)
    }

    /// Tables of a database, sorted by name.
    pub fn tables_of(&self, schema: &str) -> Vec<&Arc<TableHandle>> {
        let mut v: Vec<_> = self
            .tables
            .iter()
            .filter(|((s, _), _)| s == schema)
            .map(|(_, t)| t)
            .collect();
        v.sort_by(|a, b| a.def.name.cmp(&b.def.name));
        v
    }
}

fn db_key(name: &str) -> Vec<u8> {
    let mut k = b"D\0".to_vec();
    k.extend_from_slice(name.as_bytes());
    k
}

fn table_key(schema: &str, name: &str) -> Vec<u8> {
    let mut k = b"T\0".to_vec();
    k.extend_from_slice(schema.as_bytes());
    k.push(0);
    k.extend_from_slice(name.as_bytes());
    k
}

const NEXT_TABLE_ID_KEY: &[u8] = b"N";

fn auto_inc_key(table_id: u64) -> [u8; 8] {
    table_id.to_be_bytes()
}

pub fn storage_error(e: impl std::fmt::Display) -> KilnError {
    KilnError::with_message(
        ErrorKind::ER_UNKNOWN_ERROR,
        format!("Got error from storage engine: {e}"),
    )
}

/// The dictionary: persistent records plus the published catalog.
pub struct Dictionary {
    pub engine: Arc<Engine>,
    pub te: Arc<TrxEngine>,
    tree: Arc<BTree>,
    auto_inc: Arc<BTree>,
    catalog: RwLock<Arc<Catalog>>,
    version: AtomicU64,
    /// Serializes DDL (and owns the transaction session DDL runs in).
    ddl: Mutex<kiln_storage::trx::Session>,
}

impl Dictionary {
    /// Opens the dictionary (creating it and the system databases at the first start),
    /// loads every table, and drops tablespaces left by DDL that never committed.
    pub fn open(engine: Arc<Engine>, te: Arc<TrxEngine>) -> Result<Arc<Dictionary>> {
        let sys = engine.system_space().clone();
        let tree = match engine.open_tree(&sys, DICT_INDEX).map_err(storage_error)? {
            Some(t) => t,
            None => engine
                .create_tree(&sys, DICT_INDEX)
                .map_err(storage_error)?,
        };
        let tree = Arc::new(tree);
        te.register_tree(tree.clone());
        let auto_inc = match engine
            .open_tree(&sys, AUTO_INC_INDEX)
            .map_err(storage_error)?
        {
            Some(t) => t,
            None => engine
                .create_tree(&sys, AUTO_INC_INDEX)
                .map_err(storage_error)?,
        };
        // Recovered DDL transactions must be rolled back before the records are read.
        te.wait_recovered();
        let session = te.session().map_err(storage_error)?;
        let d = Arc::new(Dictionary {
            engine,
            te,
            tree,
            auto_inc: Arc::new(auto_inc),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            version: AtomicU64::new(1),
            ddl: Mutex::new(session),
        });
        d.load()?;
        Ok(d)
    }

    fn load(&self) -> Result<()> {
        let mut cat = Catalog {
            version: 1,
            ..Default::default()
        };
        let mut guard = self.ddl.lock();
        let mut trx = guard.begin(TrxOptions::default());
        let rows: Vec<(Vec<u8>, Vec<u8>)> = trx
            .scan(
                &self.tree,
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                false,
            )
            .collect::<std::result::Result<_, _>>()
            .map_err(storage_error)?;
        let mut used_spaces = std::collections::HashSet::new();
        for (k, v) in &rows {
            if k.starts_with(b"D\0") {
                let d = codec::decode_database(v).map_err(corrupt)?;
                cat.databases.insert(d.name.clone(), Arc::new(d));
            } else if k.starts_with(b"V\0") {
                let v = view::decode_view(v).map_err(corrupt)?;
                cat.views
                    .insert((v.schema.clone(), v.name.clone()), Arc::new(v));
            } else if k.starts_with(b"R\0") {
                let r = routine::decode_routine(v).map_err(corrupt)?;
                cat.load_routine(r);
            } else if k.starts_with(b"G\0") {
                let t = trigger::decode_trigger(v).map_err(corrupt)?;
                cat.load_trigger(t);
            } else if k.starts_with(b"T\0") {
                let def = codec::decode_table(v).map_err(corrupt)?;
                used_spaces.insert(def.space_id);
                let auto = self.persisted_auto_inc(def.id)?;
                let h = TableHandle::open(&self.engine, &self.te, def, auto)?;
                cat.tables
                    .insert((h.def.schema.clone(), h.def.name.clone()), Arc::new(h));
            }
        }
        let fresh = cat.databases.is_empty();
        trx.commit().map_err(storage_error)?;
        drop(guard);
        // Orphaned table spaces (a CREATE that never committed, a DROP cut short), and
        // every TEMPORARY table's: no session survives a restart.
        for (id, path) in self.engine.spaces().map_err(storage_error)? {
            let orphan = path.starts_with("tables/") && !used_spaces.contains(&id);
            if orphan || path.starts_with(crate::temp_tables::TEMP_SPACE_PREFIX) {
                // Purge may already be at work in it (history from before the restart).
                self.te.drop_space(id).map_err(storage_error)?;
            }
        }
        crate::temp_tables::remove_leftover_files(self.engine.dir());
        *self.catalog.write() = Arc::new(cat);
        if fresh {
            for name in SYSTEM_DATABASES {
                self.create_database(
                    DatabaseDef {
                        name: name.into(),
                        charset: "utf8mb4".into(),
                        collation: "utf8mb4_0900_ai_ci".into(),
                    },
                    true,
                )?;
            }
        }
        Ok(())
    }

    fn persisted_auto_inc(&self, id: u64) -> Result<u64> {
        Ok(self
            .auto_inc
            .get(&auto_inc_key(id))
            .map_err(storage_error)?
            .and_then(|v| v.try_into().ok())
            .map(u64::from_be_bytes)
            .unwrap_or(0))
    }

    /// The current catalog version (one atomic load: sessions compare it with the
    /// version of the catalog they hold).
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog.read().clone()
    }

    /// Runs `f` with the DDL lock and a transaction; on success commits and publishes
    /// the catalog `f` built from the current one.
    fn ddl<T>(
        &self,
        f: impl FnOnce(&mut kiln_storage::trx::Trx, &mut Catalog) -> Result<T>,
    ) -> Result<T> {
        let mut session = self.ddl.lock();
        let current = self.catalog();
        let mut next = Catalog {
            version: current.version + 1,
            databases: current.databases.clone(),
            tables: current.tables.clone(),
            views: current.views.clone(),
            triggers: current.triggers.clone(),
            routines: current.routines.clone(),
        };
        let mut trx = session.begin(TrxOptions::default());
        let out = match f(&mut trx, &mut next) {
            Ok(v) => v,
            Err(e) => {
                let _ = trx.rollback();
                return Err(e);
            }
        };
        trx.commit().map_err(storage_error)?;
        // DDL is durable when it returns, as in MySQL.
        self.engine
            .sync_to(self.engine.log().current_lsn())
            .map_err(storage_error)?;
        let version = next.version;
        *self.catalog.write() = Arc::new(next);
        self.version.store(version, Ordering::Release);
        Ok(out)
    }

    pub fn create_database(&self, def: DatabaseDef, if_not_exists: bool) -> Result<bool> {
        self.ddl(|trx, cat| {
            if cat.databases.contains_key(&def.name)
                || VIRTUAL_DATABASES.contains(&def.name.to_ascii_lowercase().as_str())
            {
                if if_not_exists {
                    return Ok(false);
                }
                return Err(KilnError::new(ErrorKind::ER_DB_CREATE_EXISTS, &[&def.name]));
            }
            trx.insert(
                &self.tree,
                &db_key(&def.name),
                &codec::encode_database(&def),
            )
            .map_err(storage_error)?;
            cat.databases.insert(def.name.clone(), Arc::new(def));
            Ok(true)
        })
    }

    /// Drops a database and its tables; returns how many tables went.
    pub fn drop_database(&self, name: &str, if_exists: bool) -> Result<Option<usize>> {
        let dropped = self.ddl(|trx, cat| {
            if !cat.databases.contains_key(name) {
                if if_exists {
                    return Ok(None);
                }
                return Err(KilnError::new(ErrorKind::ER_DB_DROP_EXISTS, &[&name]));
            }
            let tables: Vec<Arc<TableHandle>> = cat.tables_of(name).into_iter().cloned().collect();
            for t in &tables {
                self.drop_table_triggers(trx, cat, name, &t.def.name)?;
                trx.delete(&self.tree, &table_key(name, &t.def.name))
                    .map_err(storage_error)?;
                cat.tables.remove(&(name.to_string(), t.def.name.clone()));
            }
            for v in cat.views_of(name).into_iter().cloned().collect::<Vec<_>>() {
                trx.delete(&self.tree, &view::view_key(name, &v.name))
                    .map_err(storage_error)?;
                cat.views.remove(&(name.to_string(), v.name.clone()));
            }
            self.drop_schema_routines(trx, cat, name)?;
            trx.delete(&self.tree, &db_key(name))
                .map_err(storage_error)?;
            cat.databases.remove(name);
            Ok(Some(tables))
        })?;
        Ok(dropped.map(|tables| {
            let n = tables.len();
            for t in tables {
                t.release_space(&self.te);
            }
            n
        }))
    }

    /// Allocates a table id and creates its tablespace with empty trees for `def`'s
    /// indexes (fills in `id`, `space_id` and index ids).
    fn allocate(&self, trx: &mut kiln_storage::trx::Trx, def: &mut TableDef) -> Result<()> {
        let next = trx
            .read(&self.tree, NEXT_TABLE_ID_KEY, ReadMode::Update(trx.wait()))
            .map_err(storage_error)?;
        let id = next
            .as_deref()
            .and_then(|v| v.try_into().ok())
            .map(u64::from_be_bytes)
            .unwrap_or(1);
        let bytes = (id + 1).to_be_bytes();
        if next.is_some() {
            trx.update(&self.tree, NEXT_TABLE_ID_KEY, &bytes)
                .map_err(storage_error)?;
        } else {
            trx.insert(&self.tree, NEXT_TABLE_ID_KEY, &bytes)
                .map_err(storage_error)?;
        }
        def.id = id;
        self.create_storage(def, &format!("tables/{id:010}.ibd"))
    }

    /// Creates tablespace `rel_path` with an empty tree for each of `def`'s indexes
    /// (fills in `space_id` and the index ids). Tables of the dictionary and session
    /// TEMPORARY tables (temp_tables.rs) alike.
    pub(crate) fn create_storage(&self, def: &mut TableDef, rel_path: &str) -> Result<()> {
        let space = self.engine.create_space(rel_path).map_err(storage_error)?;
        def.space_id = space.id;
        for (i, ix) in def.indexes.iter_mut().enumerate() {
            ix.id = if i == 0 {
                CLUSTERED_INDEX_ID
            } else {
                CLUSTERED_INDEX_ID + i as u64
            };
        }
        def.next_index_id = CLUSTERED_INDEX_ID + def.indexes.len() as u64;
        for ix in &def.indexes {
            if ix.kind != IndexKindDef::Fulltext {
                self.engine
                    .create_tree(&space, ix.id)
                    .map_err(storage_error)?;
            }
        }
        Ok(())
    }

    /// CREATE TABLE: returns false if it exists and `if_not_exists`.
    pub fn create_table(&self, mut def: TableDef, if_not_exists: bool) -> Result<bool> {
        self.ddl(|trx, cat| {
            if !cat.databases.contains_key(&def.schema) {
                return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&def.schema]));
            }
            if cat.table(&def.schema, &def.name).is_some()
                || cat.view(&def.schema, &def.name).is_some()
            {
                if if_not_exists {
                    return Ok(false);
                }
                return Err(KilnError::new(
                    ErrorKind::ER_TABLE_EXISTS_ERROR,
                    &[&def.name],
                ));
            }
            if cat.tables.len() >= TABLES_MAX {
                return Err(KilnError::new(ErrorKind::ER_RECORD_FILE_FULL, &[&def.name]));
            }
            self.allocate(trx, &mut def)?;
            trx.insert(
                &self.tree,
                &table_key(&def.schema, &def.name),
                &codec::encode_table(&def),
            )
            .map_err(storage_error)?;
            let h = TableHandle::open(&self.engine, &self.te, def, 0)?;
            // New and empty: counted exactly from here on, never sampled.
            h.set_rows_estimate(0);
            cat.tables
                .insert((h.def.schema.clone(), h.def.name.clone()), Arc::new(h));
            Ok(true)
        })
    }

    /// DROP TABLE of several tables (all must exist unless `if_exists`); returns the
    /// names that did not exist.
    pub fn drop_tables(&self, names: &[(String, String)], if_exists: bool) -> Result<Vec<String>> {
        let (missing, dropped) = self.ddl(|trx, cat| {
            let missing: Vec<String> = names
                .iter()
                .filter(|(s, n)| cat.table(s, n).is_none())
                .map(|(s, n)| format!("{s}.{n}"))
                .collect();
            if !missing.is_empty() && !if_exists {
                return Err(KilnError::new(
                    ErrorKind::ER_BAD_TABLE_ERROR,
                    &[&missing.join(",")],
                ));
            }
            let mut dropped = Vec::new();
            for (s, n) in names {
                if let Some(t) = cat.tables.remove(&(s.clone(), n.clone())) {
                    self.drop_table_triggers(trx, cat, s, n)?;
                    trx.delete(&self.tree, &table_key(s, n))
                        .map_err(storage_error)?;
                    dropped.push(t);
                }
            }
            Ok((missing, dropped))
        })?;
        for t in dropped {
            let _ = self.auto_inc.delete(&auto_inc_key(t.def.id));
            t.release_space(&self.te);
        }
        Ok(missing)
    }

    /// Replaces a table's definition and storage: TRUNCATE (new empty trees), ALTER
    /// TABLE (rebuilt trees, `fill` copies the rows), RENAME (same storage, new name).
    /// `make` gets the old handle and returns the new definition; `fill` loads rows
    /// into the new handle before the switch commits.
    pub fn replace_table(
        &self,
        schema: &str,
        name: &str,
        rebuild: bool,
        make: impl FnOnce(&TableHandle) -> Result<TableDef>,
        fill: impl FnOnce(&mut kiln_storage::trx::Trx, &TableHandle, &TableHandle) -> Result<()>,
    ) -> Result<()> {
        let old_to_release = self.ddl(|trx, cat| {
            let old = cat
                .table(schema, name)
                .cloned()
                .ok_or_else(|| KilnError::new(ErrorKind::ER_NO_SUCH_TABLE, &[&schema, &name]))?;
            let mut def = make(&old)?;
            if def.schema != schema || def.name != name {
                if !cat.databases.contains_key(&def.schema) {
                    return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&def.schema]));
                }
                if cat.table(&def.schema, &def.name).is_some()
                    || cat.view(&def.schema, &def.name).is_some()
                {
                    return Err(KilnError::new(
                        ErrorKind::ER_TABLE_EXISTS_ERROR,
                        &[&def.name],
                    ));
                }
            }
            if def.schema != schema || def.name != name {
                self.rename_table_triggers(trx, cat, (schema, name), (&def.schema, &def.name))?;
            }
            let auto = old.auto_inc_peek();
            let mut new = if rebuild {
                self.allocate(trx, &mut def)?;
                let h = TableHandle::open(&self.engine, &self.te, def.clone(), 0)?;
                h.set_rows_estimate(0);
                if let Err(e) = fill(trx, &old, &h) {
                    h.release_space(&self.te);
                    return Err(e);
                }
                h
            } else {
                let h = TableHandle::open(&self.engine, &self.te, def.clone(), auto)?;
                // Same rows: the running count is closer than a new sample.
                h.keep_rows_estimate_of(&old);
                h
            };
            trx.delete(&self.tree, &table_key(schema, name))
                .map_err(storage_error)?;
            trx.insert(
                &self.tree,
                &table_key(&def.schema, &def.name),
                &codec::encode_table(&def),
            )
            .map_err(storage_error)?;
            if rebuild {
                // The dictionary write above gave the transaction its id if the copy
                // (of no rows) did not.
                new.rebuilt_by = trx.id().unwrap_or(0);
            }
            cat.tables.remove(&(schema.to_string(), name.to_string()));
            let new = Arc::new(new);
            cat.tables
                .insert((def.schema.clone(), def.name.clone()), new);
            Ok(if rebuild { Some(old) } else { None })
        })?;
        if let Some(old) = old_to_release {
            old.release_space(&self.te);
        }
        Ok(())
    }

    /// Persists an auto-increment counter (the next value to hand out), MySQL 8 style:
    /// in the redo log with the change, so a restart continues from it.
    pub fn persist_auto_inc(&self, table_id: u64, next: u64) -> Result<()> {
        self.auto_inc
            .upsert(&auto_inc_key(table_id), &next.to_be_bytes())
            .map_err(storage_error)?;
        Ok(())
    }
}

fn corrupt(e: String) -> KilnError {
    KilnError::with_message(
        ErrorKind::ER_UNKNOWN_ERROR,
        format!("data dictionary record is damaged: {e}"),
    )
}
