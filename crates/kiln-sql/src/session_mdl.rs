//! The session's side of metadata locks (mdl.rs): the shared lock a statement takes
//! on each table it opens, the exclusive locks DDL takes on the names it changes, and
//! their release when the transaction ends.
//!
//! Duration: until the transaction ends. A lock taken while no transaction is open (an
//! autocommit statement, a DDL statement, a statement that read no rows) goes at the
//! statement's end (`release_mdl_if_idle`); inside BEGIN … COMMIT, or with autocommit
//! off, at COMMIT / ROLLBACK / an implicit commit (`end_transaction`). A deadlock
//! among metadata-lock waits rolls the victim's transaction back, as a row-lock
//! deadlock does.
//!
//! TEMPORARY tables are the session's own: no lock.

use kiln_common::{ErrorKind, Result};

use crate::ast::{AlterOp, Stmt, TableName};
use crate::mdl::{Mode, WaitLimits};
use crate::session::Session;

impl Session {
    /// `lock_wait_timeout`, in seconds.
    pub(crate) fn mdl_timeout(&mut self) -> std::time::Duration {
        std::time::Duration::from_secs(self.cached_vars().mdl_wait_timeout_secs)
    }

    /// Takes a metadata lock on `schema.name` for this session's transaction.
    pub(crate) fn lock_name(&mut self, schema: &str, name: &str, mode: Mode) -> Result<()> {
        let r = self.lock_name_keep(schema, name, mode);
        if let Err(e) = &r
            && e.code == ErrorKind::ER_LOCK_DEADLOCK.code()
        {
            // The victim's transaction goes, and with it the locks others wait for.
            self.end_transaction(false);
        }
        r
    }

    /// `lock_name` that leaves the session's other locks alone on a deadlock.
    fn lock_name_keep(&mut self, schema: &str, name: &str, mode: Mode) -> Result<()> {
        let timeout = self.mdl_timeout();
        self.mdl.acquire(
            schema,
            name,
            mode,
            &WaitLimits {
                timeout,
                interrupt: &self.interrupt,
            },
        )
    }

    /// Releases the metadata locks unless a transaction is open (statement end).
    pub(crate) fn release_mdl_if_idle(&mut self) {
        if !self.in_transaction && self.trx.is_none() && !self.mdl.is_empty() {
            self.mdl.release_all();
        }
    }

    /// Takes the exclusive locks a DDL statement needs (after its implicit commit
    /// released the session's own), in name order.
    pub(crate) fn lock_for_ddl(&mut self, stmt: &Stmt) -> Result<()> {
        let mut names = self.ddl_names(stmt)?;
        if names.is_empty() {
            return Ok(());
        }
        names.sort();
        names.dedup();
        for (s, n) in names {
            self.lock_name(&s, &n, Mode::Exclusive)?;
        }
        Ok(())
    }

    fn qualified(&self, t: &TableName) -> Result<(String, String)> {
        Ok((crate::exec::ddl::schema_of(self, t)?, t.name.clone()))
    }

    /// A base-table name (not the session's TEMPORARY table of that name).
    fn base_name(&self, t: &TableName, out: &mut Vec<(String, String)>) -> Result<()> {
        let q = self.qualified(t)?;
        if self.temp.get(&q.0, &q.1).is_none() {
            out.push(q);
        }
        Ok(())
    }

    /// The names a DDL statement changes (empty for other statements).
    fn ddl_names(&mut self, stmt: &Stmt) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        match stmt {
            Stmt::CreateTable(ct) if !ct.temporary => {
                // A name that exists: the statement only reports it (1050, or a note
                // with IF NOT EXISTS) and waits for nobody, as MySQL.
                let (s, n) = self.qualified(&ct.name)?;
                let cat = self.catalog()?;
                if cat.table(&s, &n).is_none() && cat.view(&s, &n).is_none() {
                    out.push((s, n));
                }
            }
            Stmt::DropTable {
                names,
                temporary: false,
                ..
            } => {
                for t in names {
                    self.base_name(t, &mut out)?;
                }
            }
            Stmt::TruncateTable(t)
            | Stmt::CreateIndex { table: t, .. }
            | Stmt::DropIndex { table: t, .. } => self.base_name(t, &mut out)?,
            Stmt::AlterTable { table, ops } => {
                let before = out.len();
                self.base_name(table, &mut out)?;
                if out.len() > before {
                    for op in ops {
                        if let AlterOp::RenameTable(to) = op {
                            out.push(self.qualified(to)?);
                        }
                    }
                }
            }
            Stmt::RenameTable(pairs) => {
                for (from, to) in pairs {
                    self.base_name(from, &mut out)?;
                    out.push(self.qualified(to)?);
                }
            }
            // The table whose triggers change (MySQL: an exclusive lock on it), so a
            // session's LOCK TABLES keeps the triggers it locked tables for.
            Stmt::CreateTrigger(ct) => {
                let schema = ct.table.schema.as_ref().or(ct.name.schema.as_ref());
                if let Some(s) = schema.or(self.database.as_ref()) {
                    out.push((s.clone(), ct.table.name.clone()));
                }
            }
            Stmt::DropTrigger { name, .. } => {
                let (s, n) = self.qualified(name)?;
                if let Some(t) = self.catalog()?.trigger(&s, &n) {
                    out.push((s, t.def.table.clone()));
                }
            }
            Stmt::CreateView(cv) => out.push(self.qualified(&cv.name)?),
            Stmt::DropView { names, .. } => {
                for t in names {
                    out.push(self.qualified(t)?);
                }
            }
            Stmt::DropDatabase { name, .. } => {
                // Its tables and views as of now (a table created in it meanwhile is
                // dropped unlocked: there is no schema-level lock yet).
                let cat = self.catalog()?;
                for t in cat.tables_of(name) {
                    out.push((name.clone(), t.def.name.clone()));
                }
                for v in cat.views_of(name) {
                    out.push((name.clone(), v.name.clone()));
                }
            }
            _ => {}
        }
        Ok(out)
    }
}
