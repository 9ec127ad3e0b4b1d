//! LOCK TABLES' prelocking of the tables triggers use (MySQL's and MariaDB's
//! "Triggers and implicit locks").
//!
//! - A table LOCK TABLES locks for WRITE may have its triggers fired while the locks
//!   are held, so the tables their bodies use are locked with it, in the same
//!   statement and the same name order: a table a body writes (INSERT, UPDATE,
//!   DELETE, REPLACE) gets a WRITE lock — even if LOCK TABLES named it READ — and a
//!   table it only reads (subqueries, SELECT ... INTO) a READ lock. A view a body names
//!   is locked as LOCK TABLES locks a view (its name and its base tables).
//! - Recursively: a table locked for WRITE this way has its own triggers' tables
//!   locked too, breadth first, each table's triggers looked at once (cycles end). A
//!   table whose triggers would run nested 16 deep or more fails LOCK TABLES with 1235
//!   (trigger firing stops at that depth anyway, exec/trigger.rs).
//! - A table locked for READ gets nothing more (its triggers cannot fire), as in
//!   MySQL and MariaDB. A table a body names that does not exist is left out (the
//!   firing statement then fails with 1100 for it, as MariaDB).
//! - The session may use the tables locked this way directly too, under their own
//!   names (not under an alias), as MariaDB allows. Other sessions wait for them as
//!   for tables named by LOCK TABLES (MDL SHARED_NO_READ_WRITE / SHARED_READ_ONLY).
//!   MariaDB's InnoDB lets other sessions use them in autocommit mode; its MyISAM
//!   tables and its manual agree with blocking.
//! - `blocking_trigger_table`: a write under LOCK TABLES on a table locked only for
//!   READ whose triggers for the statement's events use an unlocked table reports 1100
//!   for that table, before 1099 for the written one (MariaDB's order: it opens the
//!   trigger tables before it checks lock modes).

use std::collections::HashSet;

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::{Stmt, TriggerEvent};
use crate::routine::RStmt;
use crate::session::Session;
use crate::session_lock::Locked;

/// A table a trigger body uses: database, name, and whether the body writes it.
pub(crate) struct TriggerUse {
    pub db: String,
    pub name: String,
    pub write: bool,
}

/// The statements of a trigger body that name tables, as statements `table_uses`
/// walks: data statements, SELECT ... INTO, and every expression (its subqueries).
fn table_statements(stmt: &RStmt, out: &mut Vec<Stmt>) {
    stmt.walk(&mut |s| {
        match s {
            RStmt::Sql(stmt) => out.push((**stmt).clone()),
            RStmt::SelectInto { select, .. } => out.push(Stmt::Select(select.clone())),
            _ => {}
        }
        let exprs = s.exprs();
        if !exprs.is_empty() {
            out.push(Stmt::Do(exprs.into_iter().cloned().collect()));
        }
    });
}

/// The trigger events a data-changing statement fires on the table it writes.
pub(crate) fn statement_events(stmt: &Stmt) -> Vec<TriggerEvent> {
    let mut v = Vec::new();
    match stmt {
        Stmt::Insert(i) => {
            v.push(TriggerEvent::Insert);
            if !i.on_duplicate.is_empty() {
                v.push(TriggerEvent::Update);
            }
            if i.replace {
                v.push(TriggerEvent::Delete);
            }
        }
        Stmt::LoadData(ld) => {
            v.push(TriggerEvent::Insert);
            if ld.replace {
                v.push(TriggerEvent::Delete);
            }
        }
        Stmt::Update(_) => v.push(TriggerEvent::Update),
        Stmt::Delete(_) => v.push(TriggerEvent::Delete),
        _ => {}
    }
    v
}

impl Session {
    /// The tables the triggers of `db.name` use (only the triggers of `events`, when
    /// given); None when the table has no such trigger.
    pub(crate) fn trigger_uses(
        &mut self,
        db: &str,
        name: &str,
        events: Option<&[TriggerEvent]>,
    ) -> Result<Option<Vec<TriggerUse>>> {
        let cat = self.catalog()?;
        let Some(tt) = cat.table_triggers(db, name).cloned() else {
            return Ok(None);
        };
        let mut bodies = Vec::new();
        for t in &tt.list {
            if events.is_some_and(|e| !e.contains(&t.def.event)) {
                continue;
            }
            let mut stmts = Vec::new();
            table_statements(&t.body()?.stmt, &mut stmts);
            bodies.push((t.def.schema.clone(), stmts));
        }
        if bodies.is_empty() {
            return Ok(None);
        }
        // Unqualified names in a body are in the trigger's database.
        let saved = self.database.clone();
        let mut out = Vec::new();
        let mut r = Ok(());
        'bodies: for (schema, stmts) in bodies {
            self.database = Some(schema);
            for s in &stmts {
                match crate::privcheck::table_uses(self, s) {
                    Ok(uses) => out.extend(uses.into_iter().map(|u| TriggerUse {
                        db: u.db,
                        name: u.table,
                        write: u.write,
                    })),
                    Err(e) => {
                        r = Err(e);
                        break 'bodies;
                    }
                }
            }
        }
        self.database = saved;
        r.map(|()| Some(out))
    }

    /// Adds to `list` (LOCK TABLES' items) the tables the triggers of its WRITE-locked
    /// tables use, recursively (see the module's comment).
    pub(crate) fn prelock_trigger_tables(&mut self, list: &mut Vec<Locked>) -> Result<()> {
        if !self.catalog()?.has_triggers() {
            return Ok(());
        }
        let mut seen: HashSet<(String, String)> = HashSet::new();
        let mut level: Vec<(String, String)> = list
            .iter()
            .filter(|l| l.write)
            .map(|l| (l.db.clone(), l.name.clone()))
            .collect();
        let mut depth = 0;
        while !level.is_empty() {
            let mut next = Vec::new();
            for key in level {
                if !seen.insert(key.clone()) {
                    continue;
                }
                let Some(uses) = self.trigger_uses(&key.0, &key.1, None)? else {
                    continue;
                };
                if depth >= crate::exec::trigger::NESTING_MAX {
                    return Err(KilnError::new(
                        ErrorKind::ER_NOT_SUPPORTED_YET,
                        &[&"triggers nested more than 16 deep"],
                    ));
                }
                for u in uses {
                    let cat = self.catalog()?;
                    if cat.table(&u.db, &u.name).is_none() && cat.view(&u.db, &u.name).is_none() {
                        continue;
                    }
                    let from = list.len();
                    self.lock_target(&u.db, &u.name, None, u.write, 0, list)?;
                    next.extend(
                        list[from..]
                            .iter()
                            .filter(|l| l.write)
                            .map(|l| (l.db.clone(), l.name.clone())),
                    );
                }
            }
            level = next;
            depth += 1;
        }
        Ok(())
    }

    /// The first table the triggers `stmt` fires on `db.name` use that LOCK TABLES
    /// did not lock (see the module's comment): its 1100.
    pub(crate) fn blocking_trigger_table(
        &mut self,
        stmt: &Stmt,
        db: &str,
        name: &str,
    ) -> Result<Option<KilnError>> {
        let events = statement_events(stmt);
        if events.is_empty() {
            return Ok(None);
        }
        let Some(uses) = self.trigger_uses(db, name, Some(&events))? else {
            return Ok(None);
        };
        for u in uses {
            if let Err(e) = self.check_locked_name(&u.db, &u.name, false) {
                return Ok(Some(e));
            }
        }
        Ok(None)
    }
}
