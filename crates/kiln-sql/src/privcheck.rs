//! Privilege checks on statements, before they run (MySQL checks before it opens
//! tables, so a denied statement on a missing table is 1142, not 1146).
//!
//! Each statement names what it needs: table privileges on every base table it
//! reads or writes (subqueries, derived tables and joins included), database
//! privileges for CREATE/DROP DATABASE, global ones for administrative statements.
//! The session's cached `Privileges` answer; an account holding the needed
//! privileges globally is settled by one AND per statement, with no walk of the tree
//! (the point-select path of a root session).
//!
//! Errors, as MySQL 8.0 words them:
//! - 1142 `<PRIVS> command denied to user 'u'@'client host' for table 't'` (the
//!   missing privileges in bit order, ", "-joined as MySQL's get_privilege_desc; the
//!   table name alone, as MySQL 8.0 prints it);
//! - 1143 `SELECT command denied ... for column 'c' in table 't'` when an UPDATE or
//!   DELETE reads a column of a table it has no SELECT on;
//! - 1044 `Access denied for user 'u'@'account host' to database 'db'`;
//! - 1227 `Access denied; you need (at least one of) the X privilege(s) ...`.
//!
//! Not checked here: LOCK TABLES, ANALYZE/OPTIMIZE/CHECK (their table lists are not
//! kept by the parser), information_schema (its rows are filtered instead), and the
//! HandlerSocket row API (not a user session; see docs/privileges.md).

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
use crate::exec::bind;
use crate::privilege::*;
use crate::session::Session;

/// What any DML statement can need: an account holding these globally passes every
/// DML check without a walk.
const DML: PrivSet = SELECT | INSERT | UPDATE | DELETE;

/// Checks that the session may run `stmt`.
pub(crate) fn check(sess: &mut Session, stmt: &Stmt) -> Result<()> {
    if sess.bootstrap {
        return Ok(());
    }
    // EXPLAIN needs what the explained statement needs.
    if let Stmt::Explain { stmt, .. } = stmt {
        return check(sess, stmt);
    }
    sess.refresh_privileges();
    // The hot path (root's point select): one bit test on the cached privileges.
    if matches!(
        stmt,
        Stmt::Select(_) | Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_)
    ) && sess.privs.as_ref().is_some_and(|p| p.global_has(DML))
    {
        return Ok(());
    }
    let p = sess.privileges();
    let mut c = Checker {
        sess,
        p: &p,
        needs: Vec::new(),
        collected: None,
    };
    c.statement(stmt)
}

/// A base table a statement uses: its database, name, alias (as written) and whether
/// the statement writes it (for LOCK TABLES' checks, session_lock.rs).
pub(crate) struct TableUse {
    pub db: String,
    pub table: String,
    pub alias: Option<String>,
    pub write: bool,
}

/// The base tables `stmt` names (temporary tables and information_schema left out),
/// by the walk the privilege check makes.
pub(crate) fn table_uses(sess: &mut Session, stmt: &Stmt) -> Result<Vec<TableUse>> {
    let p = Arc::new(Privileges::all());
    let mut c = Checker {
        sess,
        p: &p,
        needs: Vec::new(),
        collected: Some(Vec::new()),
    };
    c.statement(stmt)?;
    Ok(c.collected
        .unwrap_or_default()
        .into_iter()
        .map(|n| TableUse {
            write: n.privs & !SELECT & !SHOW_VIEW != 0,
            db: n.db,
            table: n.table,
            alias: n.alias,
        })
        .collect())
}

impl Checker<'_, '_> {
    fn statement(&mut self, stmt: &Stmt) -> Result<()> {
        let c = self;
        let p = c.p.clone();
        match stmt {
            Stmt::Select(s) => {
                c.select(s);
                c.finish()
            }
            Stmt::Do(exprs) => {
                exprs.iter().for_each(|e| c.expr(e));
                c.finish()
            }
            Stmt::Set(assignments) => {
                for (_, v) in assignments {
                    if let SetValue::Expr(e) = v {
                        c.expr(e);
                    }
                }
                c.finish()
            }
            Stmt::Insert(i) => {
                let mut need = INSERT;
                if i.replace {
                    need |= DELETE;
                }
                if !i.on_duplicate.is_empty() {
                    need |= UPDATE;
                }
                c.table(&i.table, need);
                match &i.source {
                    InsertSource::Values(rows) => {
                        rows.iter().flatten().flatten().for_each(|e| c.expr(e))
                    }
                    InsertSource::Select(s) => c.select(s),
                    InsertSource::Set(sets) => sets
                        .iter()
                        .filter_map(|(_, e)| e.as_ref())
                        .for_each(|e| c.expr(e)),
                }
                i.on_duplicate.iter().for_each(|(_, e)| c.expr(e));
                c.finish()
            }
            Stmt::LoadData(ld) => {
                // A server-side file needs FILE, which MySQL reports as 1045.
                if !ld.local && !p.global_has(FILE) {
                    return Err(KilnError::new(
                        ErrorKind::ER_ACCESS_DENIED_ERROR,
                        &[
                            &c.sess.account.0,
                            &c.sess.account.1,
                            &if p.has_password { "YES" } else { "NO" },
                        ],
                    ));
                }
                let mut need = INSERT;
                if ld.replace {
                    need |= DELETE;
                }
                c.table(&ld.table, need);
                ld.sets
                    .iter()
                    .filter_map(|(_, e)| e.as_ref())
                    .for_each(|e| c.expr(e));
                c.finish()
            }
            Stmt::Update(u) => c.update(u),
            Stmt::Delete(d) => c.delete(d),
            Stmt::CreateDatabase { name, .. } => c.db(name, CREATE),
            Stmt::DropDatabase { name, .. } => c.db(name, DROP),
            Stmt::CreateTable(ct) => {
                if ct.temporary {
                    // MySQL: CREATE TEMPORARY TABLES on the database, and nothing else on
                    // the new table (not even INSERT for ... SELECT).
                    let db = ct.name.schema.as_ref().or(c.sess.database.as_ref());
                    if let Some(db) = db
                        && p.on_db(db) & CREATE_TEMPORARY_TABLES == 0
                    {
                        return Err(db_denied(c.sess, db));
                    }
                } else {
                    let mut need = CREATE;
                    if ct.as_select.is_some() {
                        need |= INSERT;
                    }
                    c.needs.push(base_need(c.sess, &ct.name, need));
                }
                if let Some(l) = &ct.like {
                    c.table(l, SELECT);
                }
                if let Some(s) = &ct.as_select {
                    c.select(s);
                }
                c.finish()
            }
            // DROP TEMPORARY TABLE drops only the session's own tables: nothing to check.
            Stmt::DropTable {
                temporary: true, ..
            } => Ok(()),
            Stmt::DropTable { names, .. } => {
                names.iter().for_each(|n| c.table(n, DROP));
                c.finish()
            }
            Stmt::TruncateTable(t) => {
                c.table(t, DROP);
                c.finish()
            }
            // MySQL: SELECT and INSERT on each table (CHECK: SELECT).
            Stmt::TableMaintenance { op, tables } => {
                let need = match op {
                    MaintenanceOp::Check => SELECT,
                    _ => SELECT | INSERT,
                };
                tables.iter().for_each(|t| c.table(t, need));
                c.finish()
            }
            Stmt::CreateView(cv) => {
                // MySQL: CREATE VIEW on the view (OR REPLACE / ALTER: DROP too), SELECT on
                // what it reads.
                let mut need = CREATE_VIEW;
                if cv.or_replace || cv.alter {
                    need |= DROP;
                }
                c.needs.push(base_need(c.sess, &cv.name, need));
                c.select(&cv.select);
                c.finish()
            }
            Stmt::DropView { names, .. } => {
                for n in names {
                    c.needs.push(base_need(c.sess, n, DROP));
                }
                c.finish()
            }
            Stmt::RenameTable(pairs) => {
                // RENAME TABLE works on base tables only (MySQL), temporary ones or not.
                for (from, to) in pairs {
                    c.needs.push(base_need(c.sess, from, ALTER | DROP));
                    c.needs.push(base_need(c.sess, to, CREATE | INSERT));
                }
                c.finish()
            }
            Stmt::CreateIndex { table, .. } | Stmt::DropIndex { table, .. } => {
                c.table(table, INDEX);
                c.finish()
            }
            Stmt::AlterTable { table, .. } if c.sess.temp_table_of(table).is_some() => Ok(()),
            Stmt::AlterTable { table, ops } => {
                let mut need = ALTER;
                for op in ops {
                    if let AlterOp::RenameTable(to) = op {
                        need |= DROP;
                        c.table(to, CREATE | INSERT);
                    }
                }
                c.needs.insert(0, need_of(c.sess, table, need));
                c.finish()
            }
            Stmt::Show { kind, .. } => c.show(kind),
            Stmt::Shutdown => global(&p, SHUTDOWN, "SHUTDOWN"),
            Stmt::NoOp("flush") | Stmt::FlushTablesWithReadLock(_) => global(&p, RELOAD, "RELOAD"),
            Stmt::LockTables(items) => {
                // MySQL: LOCK TABLES on each table's database (1044), then SELECT on each
                // table (1142).
                for i in items {
                    if let Some(n) = need_of(c.sess, &i.table, SELECT)
                        && !p.global_has(LOCK_TABLES)
                        && p.on_db(&n.db) & LOCK_TABLES == 0
                    {
                        return Err(db_denied(c.sess, &n.db));
                    }
                }
                for i in items {
                    c.table(&i.table, SELECT);
                }
                c.finish()
            }
            Stmt::CreateUser { .. } | Stmt::DropUser { .. } | Stmt::RenameUser(_) => {
                global(&p, CREATE_USER, "CREATE USER")
            }
            _ => Ok(()),
        }
    }
}

/// 1227 unless `need` is held globally.
pub(crate) fn global(p: &Privileges, need: PrivSet, name: &str) -> Result<()> {
    if p.global_has(need) {
        Ok(())
    } else {
        Err(KilnError::new(
            ErrorKind::ER_SPECIFIC_ACCESS_DENIED_ERROR,
            &[&name],
        ))
    }
}

/// 1044 for the session on database `db`.
pub(crate) fn db_denied(sess: &Session, db: &str) -> KilnError {
    KilnError::new(
        ErrorKind::ER_DBACCESS_DENIED_ERROR,
        &[&sess.account.0, &sess.account.1, &db],
    )
}

/// 1142 for the session: the `missing` privileges on `table`.
pub(crate) fn table_denied(sess: &Session, missing: PrivSet, table: &str) -> KilnError {
    KilnError::new(
        ErrorKind::ER_TABLEACCESS_DENIED_ERROR,
        &[&command_text(missing), &sess.account.0, &sess.host, &table],
    )
}

/// MySQL's `get_privilege_desc`: the privileges' names in bit order joined by ", ",
/// GRANT OPTION as "GRANT", stopping before the text reaches 128 bytes.
fn command_text(set: PrivSet) -> String {
    let mut out = String::new();
    for (i, n) in NAMES.iter().enumerate() {
        if set & (1 << i) == 0 {
            continue;
        }
        let n = if 1 << i == GRANT_OPTION { "GRANT" } else { n };
        if out.len() + n.len() >= 127 {
            continue;
        }
        out.push_str(n);
        out.push_str(", ");
    }
    out.truncate(out.len().saturating_sub(2));
    out
}

/// One table privilege a statement needs.
struct Need {
    db: String,
    table: String,
    privs: PrivSet,
    /// For UPDATE/DELETE: a column the statement reads (needs SELECT on it).
    reads_column: Option<String>,
    /// The alias the statement gives the table.
    alias: Option<String>,
}

/// The table a name refers to, in the session's current database when unqualified;
/// None when there is none (the statement fails with 1046 later), for
/// information_schema (open to all; its rows are filtered), and for the session's
/// temporary tables (MySQL checks nothing on them once created).
fn need_of(sess: &Session, name: &TableName, privs: PrivSet) -> Option<Need> {
    if sess.temp_table_of(name).is_some() {
        return None;
    }
    base_need(sess, name, privs)
}

/// `need_of` for a name that denotes a base table even where a temporary table of the
/// session shadows it (CREATE TABLE's new table, RENAME TABLE).
fn base_need(sess: &Session, name: &TableName, privs: PrivSet) -> Option<Need> {
    let db = name.schema.as_ref().or(sess.database.as_ref())?;
    if db.eq_ignore_ascii_case(crate::exec::infoschema::SCHEMA) {
        return None;
    }
    Some(Need {
        db: db.clone(),
        table: name.name.clone(),
        privs,
        reads_column: None,
        alias: None,
    })
}

struct Checker<'s, 'p> {
    sess: &'s mut Session,
    p: &'p Arc<Privileges>,
    needs: Vec<Option<Need>>,
    /// `table_uses`: the needs are collected here instead of checked.
    collected: Option<Vec<Need>>,
}

impl Checker<'_, '_> {
    fn table(&mut self, name: &TableName, privs: PrivSet) {
        self.aliased(name, None, privs);
    }

    fn aliased(&mut self, name: &TableName, alias: Option<&str>, privs: PrivSet) {
        let mut n = need_of(self.sess, name, privs);
        if let Some(n) = &mut n {
            n.alias = alias.map(str::to_string);
        }
        self.needs.push(n);
    }

    /// Every base table a SELECT reads (FROM, joins, derived tables, subqueries).
    fn select(&mut self, s: &Select) {
        for f in &s.from {
            self.source(f, SELECT);
        }
        for i in &s.items {
            self.expr(&i.expr);
        }
        for e in s.filter.iter().chain(&s.having).chain(&s.group_by) {
            self.expr(e);
        }
        for o in s.order_by.iter().chain(&s.union_order) {
            self.expr(&o.expr);
        }
        if let Some((_, u)) = &s.union {
            self.select(u);
        }
    }

    fn source(&mut self, f: &FromItem, privs: PrivSet) {
        match f {
            FromItem::Table { name, alias } => self.aliased(name, alias.as_deref(), privs),
            FromItem::Derived { select, .. } => self.select(select),
            FromItem::Join {
                left, right, on, ..
            } => {
                self.source(left, privs);
                self.source(right, privs);
                if let Some(e) = on {
                    self.expr(e);
                }
            }
        }
    }

    /// The subqueries of an expression.
    fn expr(&mut self, e: &Expr) {
        // `visit` lends each node only for the call: the (rare) subqueries are copied.
        let mut subs: Vec<Select> = Vec::new();
        bind::visit(e, &mut |x| match x {
            Expr::Subquery(s) | Expr::Exists(s) | Expr::InSubquery { select: s, .. } => {
                subs.push((**s).clone())
            }
            Expr::Quantified(q) => subs.push(q.select.clone()),
            _ => {}
        });
        for s in &subs {
            self.select(s);
        }
    }

    fn update(&mut self, u: &Update) -> Result<()> {
        if let [FromItem::Table { name, alias }] = u.tables.as_slice() {
            let mut n = need_of(self.sess, name, UPDATE);
            if let Some(n) = &mut n {
                n.alias = alias.clone();
                let exprs = u
                    .filter
                    .iter()
                    .chain(u.sets.iter().filter_map(|(_, _, e)| e.as_ref()))
                    .chain(u.order_by.iter().map(|o| &o.expr));
                n.reads_column = first_column(exprs);
            }
            self.needs.push(n);
        } else {
            // Multi-table: UPDATE on the tables assigned to, SELECT on the others.
            let targets = self.update_targets(u);
            self.multi_table(&u.tables, UPDATE, |a| targets.iter().any(|t| t == a));
        }
        for e in u
            .filter
            .iter()
            .chain(u.sets.iter().filter_map(|(_, _, e)| e.as_ref()))
        {
            self.expr(e);
        }
        self.finish()
    }

    /// The aliases a multi-table UPDATE assigns to (unqualified columns: the table
    /// that has the column).
    fn update_targets(&mut self, u: &Update) -> Vec<String> {
        let mut bases = Vec::new();
        for f in &u.tables {
            collect_tables(f, &mut bases);
        }
        let cat = self.sess.catalog().ok();
        let mut out = Vec::new();
        for (q, c, _) in &u.sets {
            for (name, alias) in &bases {
                let alias = alias.unwrap_or(&name.name);
                let hit = match q {
                    Some(q) => q == alias,
                    None => {
                        let db = name.schema.as_ref().or(self.sess.database.as_ref());
                        match (&cat, db) {
                            (Some(cat), Some(db)) => cat
                                .table(db, &name.name)
                                .is_some_and(|h| h.def.column_index(c).is_some()),
                            _ => false,
                        }
                    }
                };
                if hit {
                    out.push(alias.to_string());
                }
            }
        }
        out
    }

    /// A multi-table UPDATE/DELETE: `target_privs` on the tables `is_target` names
    /// (by alias), SELECT on the other base tables, and the joins' subqueries.
    fn multi_table(
        &mut self,
        from: &[FromItem],
        target_privs: PrivSet,
        is_target: impl Fn(&str) -> bool,
    ) {
        let mut bases = Vec::new();
        for f in from {
            collect_tables(f, &mut bases);
        }
        for (name, alias) in bases {
            let alias = alias.unwrap_or(&name.name);
            let privs = if is_target(alias) {
                target_privs
            } else {
                SELECT
            };
            self.aliased(name, Some(alias), privs);
        }
        for f in from {
            self.source_exprs(f);
        }
    }

    fn source_exprs(&mut self, f: &FromItem) {
        match f {
            FromItem::Table { .. } => {}
            FromItem::Derived { select, .. } => self.select(select),
            FromItem::Join {
                left, right, on, ..
            } => {
                self.source_exprs(left);
                self.source_exprs(right);
                if let Some(e) = on {
                    self.expr(e);
                }
            }
        }
    }

    fn delete(&mut self, d: &Delete) -> Result<()> {
        if !d.multi {
            if let [FromItem::Table { name, alias }] = d.from.as_slice() {
                let mut n = need_of(self.sess, name, DELETE);
                if let Some(n) = &mut n {
                    n.alias = alias.clone();
                    let exprs = d.filter.iter().chain(d.order_by.iter().map(|o| &o.expr));
                    n.reads_column = first_column(exprs);
                }
                self.needs.push(n);
            }
        } else {
            self.multi_table(&d.from, DELETE, |a| d.targets.iter().any(|t| t.name == a));
        }
        if let Some(e) = &d.filter {
            self.expr(e);
        }
        self.finish()
    }

    fn db(&mut self, db: &str, need: PrivSet) -> Result<()> {
        if self.p.on_db(db) & need == need {
            Ok(())
        } else {
            Err(db_denied(self.sess, db))
        }
    }

    fn show(&mut self, kind: &ShowKind) -> Result<()> {
        match kind {
            ShowKind::Columns { table, .. }
            | ShowKind::Index(table)
            | ShowKind::CreateTable(table) => {
                if let ShowKind::CreateTable(t) = kind
                    && let Some(n) = need_of(self.sess, t, SHOW_VIEW | SELECT)
                    && self.p.sees_table(&n.db, &n.table)
                    && crate::exec::view::lookup(self.sess, t)
                        .ok()
                        .flatten()
                        .is_some()
                {
                    // SHOW CREATE TABLE of a view: what SHOW CREATE VIEW needs.
                    self.needs.push(Some(n));
                    return self.finish();
                }
                if let Some(n) = need_of(self.sess, table, SELECT)
                    && !self.p.sees_table(&n.db, &n.table)
                {
                    return Err(table_denied(self.sess, SELECT, &n.table));
                }
                Ok(())
            }
            ShowKind::CreateView(table) => {
                // MySQL: SHOW VIEW and SELECT on the view.
                self.needs
                    .push(need_of(self.sess, table, SHOW_VIEW | SELECT));
                self.finish()
            }
            ShowKind::CreateDatabase { name, .. } => self.visible_db(name),
            ShowKind::Tables { db: Some(db), .. } | ShowKind::TableStatus(Some(db)) => {
                self.visible_db(db)
            }
            ShowKind::EngineStatus => global(self.p, PROCESS, "PROCESS"),
            _ => Ok(()),
        }
    }

    fn visible_db(&self, db: &str) -> Result<()> {
        if self.p.sees_db(db) {
            Ok(())
        } else {
            Err(db_denied(self.sess, db))
        }
    }

    /// Verifies the collected needs in statement order.
    fn finish(&mut self) -> Result<()> {
        if let Some(out) = &mut self.collected {
            out.extend(self.needs.drain(..).flatten());
            return Ok(());
        }
        for n in self.needs.drain(..).flatten() {
            if self
                .p
                .global_has(n.privs | if n.reads_column.is_some() { SELECT } else { 0 })
            {
                continue;
            }
            let have = self.p.on_table(&n.db, &n.table);
            let missing = n.privs & !have;
            if missing != 0 {
                return Err(table_denied(self.sess, missing, &n.table));
            }
            if let Some(col) = &n.reads_column
                && have & SELECT == 0
            {
                return Err(KilnError::new(
                    ErrorKind::ER_COLUMNACCESS_DENIED_ERROR,
                    &[
                        &"SELECT",
                        &self.sess.account.0,
                        &self.sess.host,
                        col,
                        &n.table,
                    ],
                ));
            }
        }
        Ok(())
    }
}

/// The base tables of a FROM item with their aliases.
fn collect_tables<'a>(f: &'a FromItem, out: &mut Vec<(&'a TableName, Option<&'a str>)>) {
    match f {
        FromItem::Table { name, alias } => out.push((name, alias.as_deref())),
        FromItem::Derived { .. } => {}
        FromItem::Join { left, right, .. } => {
            collect_tables(left, out);
            collect_tables(right, out);
        }
    }
}

/// The first column an expression list reads (not inside subqueries).
fn first_column<'a>(exprs: impl Iterator<Item = &'a Expr>) -> Option<String> {
    let mut found = None;
    for e in exprs {
        bind::visit(e, &mut |x| {
            if found.is_none()
                && let Expr::Column { name, .. } = x
            {
                found = Some(name.clone());
            }
        });
        if found.is_some() {
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_text_lists_missing_privileges() {
        assert_eq!(command_text(SELECT), "SELECT");
        assert_eq!(command_text(ALTER | DROP), "DROP, ALTER");
        assert_eq!(command_text(GRANT_OPTION | SELECT), "SELECT, GRANT");
        assert!(command_text(GLOBAL_ALL).len() < 128);
    }
}
