//! LOCK TABLES, UNLOCK TABLES and FLUSH TABLES WITH READ LOCK, as MySQL 8.0 runs them.
//!
//! - LOCK TABLES commits the open transaction (dispatch's implicit commit), lets go
//!   of the session's previous table locks, and takes a metadata lock on each table
//!   named, in name order: SHARED_READ_ONLY for READ (others read, their writes and
//!   DDL wait), SHARED_NO_READ_WRITE for WRITE (others' reads and writes wait). A view
//!   locks its own name and its base tables (in the view's mode; the session may then
//!   use them directly too, as MariaDB does). A table locked for WRITE brings the
//!   tables its triggers use (WRITE for those they write, READ for those they read,
//!   recursively: session_prelock.rs), so its triggers fire under the locks. The
//!   locks stay past
//!   transactions' ends (`MdlContext::keep_held`) until UNLOCK TABLES, START
//!   TRANSACTION / BEGIN, another LOCK TABLES, or the session's end.
//! - While they are held, every statement is checked before it runs (`check_locked`,
//!   one branch on the hot path when no LOCK TABLES is active): a table it names must
//!   have been locked under the same alias (1100 otherwise: a table locked as `a` is
//!   used as `a`, a table locked without alias is used without one), and a table it
//!   writes under a WRITE lock (1099 otherwise). information_schema, SHOW TABLES /
//!   TABLE STATUS and the session's TEMPORARY tables need no lock. `resolve_table`
//!   checks again by name (what the statement's walk does not see: view bodies,
//!   triggers, and SHOW CREATE TABLE / COLUMNS / INDEX, which open the table: 1100
//!   for a table not locked, as MySQL and MariaDB).
//! - FLUSH TABLES WITH READ LOCK takes the global read lock (grl.rs); UNLOCK TABLES
//!   lets it go. Statements pass its write gate (`gated`) unless they change only
//!   the session's TEMPORARY tables (and the COMMIT of a transaction that changed
//!   nothing else), as in MySQL. FLUSH TABLES t, ... WITH READ LOCK is LOCK TABLES t READ, ....
//! - Not under LOCK TABLES (1192, as MySQL for some of them): CREATE / DROP DATABASE,
//!   CREATE / DROP VIEW and TRIGGER, FLUSH TABLES WITH READ LOCK. A table named twice
//!   in one statement needs no second lock here (MySQL wants one per alias).

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::{LockItem, Stmt, TableName};
use crate::mdl::Mode;
use crate::result::Outcome;
use crate::session::Session;

/// View nesting LOCK TABLES follows to a view's base tables.
const VIEW_DEPTH_MAX: usize = 16;

/// The tables a session holds with LOCK TABLES.
pub(crate) struct LockedTables {
    items: Vec<Locked>,
}

pub(crate) struct Locked {
    pub(crate) db: String,
    pub(crate) name: String,
    /// The alias it was locked under (None: the table's own name).
    pub(crate) alias: Option<String>,
    pub(crate) write: bool,
}

/// An alias equal to the table's name is no alias.
fn norm_alias<'a>(alias: Option<&'a str>, name: &str) -> Option<&'a str> {
    alias.filter(|a| !a.eq_ignore_ascii_case(name))
}

impl LockedTables {
    /// Whether any item covers `db.name` for a read (or a write).
    fn covers(&self, db: &str, name: &str, write: bool) -> Result<()> {
        let mut found = false;
        for i in self.items.iter().filter(|i| i.db == db && i.name == name) {
            if i.write || !write {
                return Ok(());
            }
            found = true;
        }
        Err(if found {
            KilnError::new(ErrorKind::ER_TABLE_NOT_LOCKED_FOR_WRITE, &[&name])
        } else {
            KilnError::new(ErrorKind::ER_TABLE_NOT_LOCKED, &[&name])
        })
    }
}

impl Session {
    /// `resolve_table`'s check under LOCK TABLES: `db.name` is locked (for a write,
    /// WRITE-locked).
    pub(crate) fn check_locked_name(&self, db: &str, name: &str, write: bool) -> Result<()> {
        match &self.locked {
            Some(l) => l.covers(db, name, write),
            None => Ok(()),
        }
    }

    /// The checks of a statement run under LOCK TABLES.
    pub(crate) fn check_locked(&mut self, stmt: &Stmt) -> Result<()> {
        match stmt {
            Stmt::Show { .. } | Stmt::LockTables(_) | Stmt::UnlockTables => return Ok(()),
            Stmt::CreateDatabase { .. }
            | Stmt::DropDatabase { .. }
            | Stmt::CreateView(_)
            | Stmt::DropView { .. }
            | Stmt::CreateTrigger(_)
            | Stmt::DropTrigger { .. }
            | Stmt::FlushTablesWithReadLock(_) => {
                return Err(ErrorKind::ER_LOCK_OR_ACTIVE_TRANSACTION.into());
            }
            _ => {}
        }
        let uses = crate::privcheck::table_uses(self, stmt)?;
        let created = match stmt {
            Stmt::CreateTable(ct) => Some(crate::exec::ddl::schema_of(self, &ct.name)?),
            _ => None,
        };
        let Some(locked) = &self.locked else {
            return Ok(());
        };
        let mut failed = None;
        for u in &uses {
            if let (Some(db), Stmt::CreateTable(ct)) = (&created, stmt)
                && *db == u.db
                && ct.name.name == u.table
            {
                // The table CREATE TABLE makes needs no lock.
                continue;
            }
            let alias = norm_alias(u.alias.as_deref(), &u.table);
            let mut found = false;
            let mut ok = false;
            for i in &locked.items {
                if i.db != u.db
                    || i.name != u.table
                    || !match (i.alias.as_deref(), alias) {
                        (None, None) => true,
                        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                        _ => false,
                    }
                {
                    continue;
                }
                found = true;
                if i.write || !u.write {
                    ok = true;
                    break;
                }
            }
            if !ok {
                failed = Some((u, alias.unwrap_or(&u.table), found));
                break;
            }
        }
        let Some((u, shown, found)) = failed else {
            return Ok(());
        };
        if !found {
            return Err(KilnError::new(ErrorKind::ER_TABLE_NOT_LOCKED, &[&shown]));
        }
        // Locked for READ only: a table its triggers would use and that is not
        // locked comes first (session_prelock.rs).
        let e = KilnError::new(ErrorKind::ER_TABLE_NOT_LOCKED_FOR_WRITE, &[&shown]);
        let (db, table) = (u.db.clone(), u.table.clone());
        match self.blocking_trigger_table(stmt, &db, &table)? {
            Some(first) => Err(first),
            None => Err(e),
        }
    }

    /// LOCK TABLES (after dispatch's implicit commit).
    pub(crate) fn lock_tables(&mut self, items: &[LockItem]) -> Result<Outcome> {
        let any_write = items.iter().any(|i| i.write);
        if any_write && self.grl.is_some() {
            return Err(ErrorKind::ER_CANT_UPDATE_WITH_READLOCK.into());
        }
        self.release_locked_tables();
        let mut list = Vec::with_capacity(items.len());
        for i in items {
            let db = crate::exec::ddl::schema_of(self, &i.table)?;
            if self.temp.get(&db, &i.table.name).is_some() {
                // The session's own table: nobody else sees it.
                continue;
            }
            let alias = norm_alias(i.alias.as_deref(), &i.table.name).map(str::to_string);
            self.lock_target(&db, &i.table.name, alias, i.write, 0, &mut list)?;
        }
        self.prelock_trigger_tables(&mut list)?;
        let mut names: Vec<(String, String, bool)> = list
            .iter()
            .map(|l| (l.db.clone(), l.name.clone(), l.write))
            .collect();
        // Name order (no two LOCK TABLES take names in opposite orders); WRITE
        // before READ of the same name, so the stronger mode is the one kept.
        names.sort_by(|a, b| (&a.0, &a.1, !a.2).cmp(&(&b.0, &b.1, !b.2)));
        names.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        for (db, name, write) in names {
            let mode = if write {
                Mode::SharedNoReadWrite
            } else {
                Mode::SharedReadOnly
            };
            if let Err(e) = self.lock_name(&db, &name, mode) {
                self.mdl.release_all();
                return Err(e);
            }
        }
        self.mdl.keep_held();
        if any_write {
            // Dispatch passed the write gate for this statement: keep it up.
            self.gate.pin();
        }
        self.locked = Some(Box::new(LockedTables { items: list }));
        Ok(Outcome::ok())
    }

    /// One name of LOCK TABLES: a table, or a view and (recursively) its base tables
    /// (usable directly too, as MariaDB).
    pub(crate) fn lock_target(
        &mut self,
        db: &str,
        name: &str,
        alias: Option<String>,
        write: bool,
        depth: usize,
        out: &mut Vec<Locked>,
    ) -> Result<()> {
        let cat = self.catalog()?;
        let is_view = cat.view(db, name).is_some();
        if !is_view && cat.table(db, name).is_none() {
            return Err(KilnError::new(ErrorKind::ER_NO_SUCH_TABLE, &[&db, &name]));
        }
        out.push(Locked {
            db: db.to_string(),
            name: name.to_string(),
            alias,
            write,
        });
        if is_view && depth < VIEW_DEPTH_MAX {
            for (bdb, bname) in self.view_base_tables(db, name)? {
                self.lock_target(&bdb, &bname, None, write, depth + 1, out)?;
            }
        }
        Ok(())
    }

    /// The tables and views a view's SELECT names (one level).
    fn view_base_tables(&mut self, db: &str, name: &str) -> Result<Vec<(String, String)>> {
        let Some(v) = self.catalog()?.view(db, name).cloned() else {
            return Ok(Vec::new());
        };
        let body = crate::parse::parse_one(&v.select_text, v.lex_mode)?;
        // Unqualified names in the body are in the view's database.
        let saved = self.database.replace(v.body_db.clone());
        let uses = crate::privcheck::table_uses(self, &body.stmt);
        self.database = saved;
        Ok(uses?.into_iter().map(|u| (u.db, u.table)).collect())
    }

    /// Lets go of LOCK TABLES' locks (no commit).
    pub(crate) fn release_locked_tables(&mut self) {
        if self.locked.take().is_some() {
            self.mdl.release_everything();
            self.gate.unpin();
        }
    }

    /// UNLOCK TABLES: commits when LOCK TABLES was active (as MySQL), releases the
    /// table locks and the global read lock.
    pub(crate) fn unlock_tables(&mut self) -> Result<Outcome> {
        if self.locked.is_some() {
            let r = self.commit_current();
            self.release_locked_tables();
            r?;
        }
        self.grl = None;
        Ok(Outcome::ok())
    }

    /// FLUSH TABLES [t, ...] WITH READ LOCK.
    pub(crate) fn flush_with_read_lock(&mut self, tables: &[TableName]) -> Result<Outcome> {
        if !tables.is_empty() {
            self.commit_current()?;
            let items: Vec<LockItem> = tables
                .iter()
                .map(|t| LockItem {
                    table: t.clone(),
                    alias: None,
                    write: false,
                })
                .collect();
            return self.lock_tables(&items);
        }
        if self.grl.is_none() {
            let timeout = self.mdl_timeout();
            let g = crate::grl::acquire(
                self.connection_id,
                &crate::mdl::WaitLimits {
                    timeout,
                    interrupt: &self.interrupt,
                },
            )?;
            self.grl = Some(g);
        }
        Ok(Outcome::ok())
    }

    /// Whether `stmt` passes the write gate (waits for another session's global read
    /// lock; fails with 1223 under this session's own).
    pub(crate) fn gated(&self, stmt: &Stmt) -> bool {
        match stmt {
            Stmt::Select(_) => false,
            // Writes of the session's temporary tables pass (MySQL).
            Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_) | Stmt::LoadData(_) => {
                !self.changes_only_temp(stmt)
            }
            Stmt::LockTables(items) => items.iter().any(|i| i.write),
            // The COMMIT of a transaction that changed base tables' rows (MySQL's
            // COMMIT lock), and BEGIN's implicit commit of one.
            Stmt::Commit | Stmt::Begin { .. } => self.commit_gated(),
            Stmt::CreateTable(ct) => !ct.temporary,
            Stmt::DropTable {
                temporary: true, ..
            } => false,
            // DDL on temporary tables: only its implicit commit may need the gate.
            s if self.changes_only_temp(s) => self.commit_gated(),
            s => crate::session::is_implicit_commit(s),
        }
    }

    /// Whether committing the open transaction passes the write gate: it ran a
    /// statement that passed it (one that changed only temporary tables did not).
    fn commit_gated(&self) -> bool {
        self.trx_gated && self.trx.as_ref().is_some_and(|t| t.savepoint() > 0)
    }

    /// Enters the write gate for `stmt` (see `gated`); false: not entered (this
    /// session's own COMMIT / BEGIN under its global read lock).
    pub(crate) fn enter_gate(&mut self, stmt: &Stmt) -> Result<bool> {
        if self.grl.is_some() {
            if matches!(stmt, Stmt::Commit | Stmt::Begin { .. }) {
                return Ok(false);
            }
            return Err(ErrorKind::ER_CANT_UPDATE_WITH_READLOCK.into());
        }
        let timeout = self.mdl_timeout();
        self.gate.enter(&crate::mdl::WaitLimits {
            timeout,
            interrupt: &self.interrupt,
        })?;
        Ok(true)
    }
}
