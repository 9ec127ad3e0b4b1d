//! Session TEMPORARY tables: the per-session catalog that shadows the shared one
//! (CREATE / DROP TEMPORARY TABLE, name resolution, ALTER and TRUNCATE of a temporary
//! table, the drop at session end and at startup) and MySQL's "Can't reopen table"
//! rule.
//!
//! A temporary table is an ordinary engine table that the data dictionary never
//! records: a tablespace `#innodb_temp/<connection id>_<n>.ibd` with one B+tree per
//! index, rows written through the session's transactions (so undo, MVCC, statement
//! rollback and ROLLBACK work as for any table), and a definition that lives only in
//! the session's `TempTables`. Creating one costs the tablespace and its empty trees —
//! no dictionary transaction, no new catalog for every session to pick up — and no
//! other session can name it. Dropping one releases its tablespace like DROP TABLE
//! does (`TableHandle::release_space`). `Dictionary::open` drops every tablespace
//! under `#innodb_temp/` and deletes the files left there: no session survives a
//! restart, so nothing of a temporary table does.
//!
//! Rules, as in MySQL 8.0:
//! - in its session a temporary table shadows a base table of the same name: every
//!   statement resolving a table name (`exec::select::resolve_table`) looks here
//!   first; SHOW TABLES, information_schema and RENAME TABLE see base tables only
//!   (MySQL: use ALTER TABLE ... RENAME for a temporary table);
//! - CREATE TEMPORARY TABLE and DROP TEMPORARY TABLE commit nothing
//!   (`session::is_implicit_commit`), and are not undone by ROLLBACK; ALTER and
//!   TRUNCATE of a temporary table commit, as in MySQL;
//! - CREATE TEMPORARY TABLE needs CREATE TEMPORARY TABLES on the database (1044); the
//!   session's statements on the table are not checked after that (privcheck.rs);
//! - one statement may name a temporary table once: a second reference is 1137
//!   (`check_reopen`), MySQL 8.0's limitation (MariaDB lifted it in 10.2);
//! - dropped when the session ends (however it ends), and by COM_RESET_CONNECTION and
//!   COM_CHANGE_USER; DROP DATABASE leaves the session's temporary tables in it;
//! - at most `TEMP_TABLES_PER_SESSION_MAX` per session (1041).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_storage::trx::{Trx, TrxOptions};

use crate::ast::*;
use crate::dict::{Dictionary, TableDef, TableHandle};
use crate::exec::access::trx_error;
use crate::session::Session;

/// Temporary tables one session may hold at once (each is a tablespace file).
pub const TEMP_TABLES_PER_SESSION_MAX: usize = 1024;
/// The datadir directory of temporary tables' tablespaces (MySQL keeps its session
/// temporary tablespaces in a directory of this name).
pub const TEMP_SPACE_DIR: &str = "#innodb_temp";
/// `TEMP_SPACE_DIR` as the start of a tablespace path.
pub const TEMP_SPACE_PREFIX: &str = "#innodb_temp/";
/// Ids of temporary tables start here, far above the dictionary's (counted from 1,
/// never reaching 2^62); they are never stored.
const TEMP_TABLE_ID_BASE: u64 = 1 << 62;
static NEXT_TEMP_TABLE_ID: AtomicU64 = AtomicU64::new(TEMP_TABLE_ID_BASE);

/// (schema, name)
type Key = (String, String);

/// A session's temporary tables.
#[derive(Default)]
pub struct TempTables {
    tables: HashMap<Key, Arc<TableHandle>>,
}

impl TempTables {
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    pub fn len(&self) -> usize {
        self.tables.len()
    }

    pub fn get(&self, schema: &str, name: &str) -> Option<&Arc<TableHandle>> {
        if self.tables.is_empty() {
            return None;
        }
        self.tables.get(&(schema.to_string(), name.to_string()))
    }
}

/// Deletes the files of `#innodb_temp/` (startup, after their tablespaces were
/// dropped: what is left is a creation a crash cut short).
pub(crate) fn remove_leftover_files(datadir: &Path) {
    let Ok(entries) = std::fs::read_dir(datadir.join(TEMP_SPACE_DIR)) else {
        return;
    };
    for e in entries.flatten() {
        if e.path().extension().is_some_and(|x| x == "ibd") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Opens `def`'s trees as a temporary table.
fn open_temp(dict: &Dictionary, def: TableDef, auto_inc: u64) -> Result<TableHandle> {
    let mut h = TableHandle::open(&dict.engine, &dict.te, def, auto_inc)?;
    h.temporary = true;
    h.set_rows_estimate(0);
    Ok(h)
}

/// A new tablespace with empty trees for `def` (which gets its id, space and index
/// ids), opened as a temporary table of connection `conn`.
fn new_storage(dict: &Dictionary, conn: u64, def: &mut TableDef) -> Result<TableHandle> {
    let id = NEXT_TEMP_TABLE_ID.fetch_add(1, Ordering::Relaxed);
    def.id = id;
    let path = format!("{TEMP_SPACE_PREFIX}{conn}_{}.ibd", id - TEMP_TABLE_ID_BASE);
    dict.create_storage(def, &path)?;
    match open_temp(dict, def.clone(), 0) {
        Ok(h) => Ok(h),
        Err(e) => {
            let _ = dict.engine.drop_space(def.space_id);
            Err(e)
        }
    }
}

impl Session {
    /// The session's temporary table `name` names (unqualified: in the current
    /// database), if any.
    pub(crate) fn temp_table_of(&self, name: &TableName) -> Option<Arc<TableHandle>> {
        if self.temp.is_empty() {
            return None;
        }
        let schema = name.schema.as_ref().or(self.database.as_ref())?;
        self.temp.get(schema, &name.name).cloned()
    }

    /// CREATE TEMPORARY TABLE of a checked definition (the caller has made sure no
    /// temporary table of that name exists).
    pub(crate) fn create_temp_table(&mut self, mut def: TableDef) -> Result<()> {
        if self.temp.len() >= TEMP_TABLES_PER_SESSION_MAX {
            return Err(ErrorKind::ER_OUT_OF_RESOURCES.into());
        }
        let dict = self.dict()?;
        let h = new_storage(&dict, self.connection_id, &mut def)?;
        self.temp
            .tables
            .insert((def.schema.clone(), def.name.clone()), Arc::new(h));
        Ok(())
    }

    /// Drops temporary table `schema.name`; false if the session has none so named.
    pub(crate) fn drop_temp_table(&mut self, schema: &str, name: &str) -> bool {
        match self
            .temp
            .tables
            .remove(&(schema.to_string(), name.to_string()))
        {
            Some(h) => {
                self.release_temp(&h);
                true
            }
            None => false,
        }
    }

    /// Drops every temporary table of the session (its end, COM_RESET_CONNECTION,
    /// COM_CHANGE_USER). Call after the transaction has ended: its undo may name them.
    pub(crate) fn drop_temp_tables(&mut self) {
        for (_, h) in std::mem::take(&mut self.temp.tables) {
            self.release_temp(&h);
        }
    }

    /// The tablespace goes when the last statement using the handle lets go of it.
    fn release_temp(&self, h: &TableHandle) {
        if let Some(d) = &self.dict {
            h.release_space(&d.te);
        }
    }

    /// Replaces a table's definition and storage (TRUNCATE, ALTER TABLE): the session's
    /// temporary table of that name if there is one, else the base table through
    /// `Dictionary::replace_table`, whose contract this follows (`make` returns the new
    /// definition; on a rebuild `fill` copies the rows into new trees, in a transaction
    /// of its own committed before the switch).
    pub(crate) fn replace_table(
        &mut self,
        schema: &str,
        name: &str,
        rebuild: bool,
        make: impl FnOnce(&TableHandle) -> Result<TableDef>,
        fill: impl FnOnce(&mut Trx, &TableHandle, &TableHandle) -> Result<()>,
    ) -> Result<()> {
        let dict = self.dict()?;
        let Some(old) = self.temp.get(schema, name).cloned() else {
            return dict.replace_table(schema, name, rebuild, make, fill);
        };
        let mut def = make(&old)?;
        let key = (def.schema.clone(), def.name.clone());
        if key.0 != schema || key.1 != name {
            if self.catalog()?.database(&key.0).is_none() {
                return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&key.0]));
            }
            if self.temp.get(&key.0, &key.1).is_some() {
                return Err(KilnError::new(ErrorKind::ER_TABLE_EXISTS_ERROR, &[&key.1]));
            }
        }
        let new = if rebuild {
            let h = new_storage(&dict, self.connection_id, &mut def)?;
            let mut trx = self.storage_session()?.begin(TrxOptions::default());
            let filled = match fill(&mut trx, &old, &h) {
                Ok(()) => trx.commit().map_err(trx_error),
                Err(e) => {
                    let _ = trx.rollback();
                    Err(e)
                }
            };
            if let Err(e) = filled {
                h.release_space(&dict.te);
                return Err(e);
            }
            h
        } else {
            let h = open_temp(&dict, def, old.auto_inc_peek())?;
            h.keep_rows_estimate_of(&old);
            h
        };
        self.temp
            .tables
            .remove(&(schema.to_string(), name.to_string()));
        self.temp.tables.insert(key, Arc::new(new));
        if rebuild {
            old.release_space(&dict.te);
        }
        Ok(())
    }

    /// Whether a TEMPORARY table of the session hides the base table `schema.name`.
    pub(crate) fn temp_shadows(&self, schema: &str, name: &str) -> bool {
        !self.temp.is_empty() && self.temp.get(schema, name).is_some()
    }

    /// Whether `stmt` changes none but the session's temporary tables, which FLUSH
    /// TABLES WITH READ LOCK does not hold back (MySQL, MariaDB): an INSERT, LOAD DATA
    /// or single-table UPDATE / DELETE of one (whatever it reads), a multi-table
    /// UPDATE / DELETE whose every table is one, TRUNCATE / ALTER / CREATE INDEX /
    /// DROP INDEX of one, DROP TABLE of such tables only.
    pub(crate) fn changes_only_temp(&self, stmt: &Stmt) -> bool {
        if self.temp.is_empty() {
            return false;
        }
        let temp = |t: &TableName| self.temp_table_of(t).is_some();
        fn all_temp(f: &FromItem, temp: &dyn Fn(&TableName) -> bool) -> bool {
            match f {
                FromItem::Table { name, .. } => temp(name),
                FromItem::Derived { .. } => false,
                FromItem::Join { left, right, .. } => all_temp(left, temp) && all_temp(right, temp),
            }
        }
        match stmt {
            Stmt::Insert(i) => temp(&i.table),
            Stmt::LoadData(ld) => temp(&ld.table),
            Stmt::Update(u) => u.tables.iter().all(|f| all_temp(f, &temp)),
            Stmt::Delete(d) => d.from.iter().all(|f| all_temp(f, &temp)),
            Stmt::TruncateTable(t)
            | Stmt::AlterTable { table: t, .. }
            | Stmt::CreateIndex { table: t, .. }
            | Stmt::DropIndex { table: t, .. } => temp(t),
            Stmt::DropTable { names, .. } => names.iter().all(temp),
            _ => false,
        }
    }

    /// 1137 when `stmt` names one of the session's temporary tables twice (FROM items,
    /// joins, subqueries, derived tables, UNION parts, INSERT's target and source), as
    /// MySQL 8.0 refuses it; the message names the first reference's alias.
    pub(crate) fn check_reopen(&self, stmt: &Stmt) -> Result<()> {
        if self.temp.is_empty() {
            return Ok(());
        }
        let mut refs = Vec::new();
        match stmt {
            Stmt::Select(s) => select_refs(s, &mut refs),
            Stmt::Insert(i) => {
                refs.push((i.table.clone(), i.table.name.clone()));
                match &i.source {
                    InsertSource::Select(s) => select_refs(s, &mut refs),
                    InsertSource::Values(rows) => rows
                        .iter()
                        .flatten()
                        .flatten()
                        .for_each(|e| expr_refs(e, &mut refs)),
                    InsertSource::Set(sets) => sets
                        .iter()
                        .filter_map(|(_, e)| e.as_ref())
                        .for_each(|e| expr_refs(e, &mut refs)),
                }
                i.on_duplicate
                    .iter()
                    .for_each(|(_, e)| expr_refs(e, &mut refs));
            }
            Stmt::Update(u) => {
                u.tables.iter().for_each(|f| from_refs(f, &mut refs));
                u.sets
                    .iter()
                    .filter_map(|(_, _, e)| e.as_ref())
                    .chain(&u.filter)
                    .for_each(|e| expr_refs(e, &mut refs));
            }
            Stmt::Delete(d) => {
                d.from.iter().for_each(|f| from_refs(f, &mut refs));
                d.filter.iter().for_each(|e| expr_refs(e, &mut refs));
            }
            Stmt::CreateTable(ct) => {
                if let Some(l) = &ct.like {
                    refs.push((l.clone(), l.name.clone()));
                }
                if let Some(s) = &ct.as_select {
                    select_refs(s, &mut refs);
                }
            }
            _ => return Ok(()),
        }
        let mut opened: Vec<(Key, String)> = Vec::new();
        for (name, alias) in refs {
            let Some(schema) = name.schema.as_ref().or(self.database.as_ref()) else {
                continue;
            };
            if self.temp.get(schema, &name.name).is_none() {
                continue;
            }
            let key = (schema.clone(), name.name);
            if let Some((_, first)) = opened.iter().find(|(k, _)| *k == key) {
                return Err(KilnError::new(ErrorKind::ER_CANT_REOPEN_TABLE, &[first]));
            }
            opened.push((key, alias));
        }
        Ok(())
    }
}

/// (table, alias) of every base-table reference of a SELECT, in the order MySQL opens
/// them (select list, FROM, WHERE, GROUP BY, HAVING, ORDER BY, then UNION parts).
fn select_refs(s: &Select, out: &mut Vec<(TableName, String)>) {
    s.items.iter().for_each(|i| expr_refs(&i.expr, out));
    s.from.iter().for_each(|f| from_refs(f, out));
    s.filter
        .iter()
        .chain(&s.group_by)
        .chain(&s.having)
        .for_each(|e| expr_refs(e, out));
    s.order_by
        .iter()
        .chain(&s.union_order)
        .for_each(|o| expr_refs(&o.expr, out));
    if let Some((_, u)) = &s.union {
        select_refs(u, out);
    }
}

fn from_refs(f: &FromItem, out: &mut Vec<(TableName, String)>) {
    match f {
        FromItem::Table { name, alias } => out.push((
            name.clone(),
            alias.clone().unwrap_or_else(|| name.name.clone()),
        )),
        FromItem::Derived { select, .. } => select_refs(select, out),
        FromItem::Join {
            left, right, on, ..
        } => {
            from_refs(left, out);
            from_refs(right, out);
            on.iter().for_each(|e| expr_refs(e, out));
        }
    }
}

/// The references inside an expression's subqueries.
fn expr_refs(e: &Expr, out: &mut Vec<(TableName, String)>) {
    crate::exec::bind::visit(e, &mut |x| match x {
        Expr::Subquery(s) | Expr::Exists(s) | Expr::InSubquery { select: s, .. } => {
            select_refs(s, out)
        }
        Expr::Quantified(q) => select_refs(&q.select, out),
        _ => {}
    });
}
