//! Views (MySQL 8.0 semantics): CREATE [OR REPLACE] / ALTER / DROP VIEW, SHOW CREATE
//! VIEW, a view's columns (DESCRIBE, information_schema), and using a view in a
//! statement.
//!
//! How a view is used: before a statement runs (after its privilege check, which
//! checks the view's own name as MySQL does), `expand` rewrites every FROM-clause
//! reference to a view into a derived table — `FROM v AS x` becomes `FROM (<v's
//! SELECT>) AS x` — parsing the stored text again each time (so a view always sees
//! its tables' current columns). Inside a view's SELECT, unqualified table names are
//! qualified with the database the view was defined in; every table and view it
//! names is checked for SELECT against the view's definer (SQL SECURITY DEFINER) or
//! the invoker, and a missing table or a missing privilege is 1356 naming the view.
//! A view that reaches itself through other views is 1462. A column list
//! `v (x, y)` renames the SELECT's columns.
//!
//! INSERT, UPDATE and DELETE naming a view as their single target (`dml_target`)
//! are rewritten onto the view's base table when the view is updatable — one base
//! table (or an updatable view of one), no aggregates, DISTINCT, GROUP BY, HAVING,
//! UNION, LIMIT or subqueries in the select list: the statement's references to the
//! view's columns become the view's expressions, the view's WHERE is ANDed into the
//! statement's, and assigned or inserted columns must be plain columns of the base
//! table. Otherwise 1288 (UPDATE / DELETE) or 1471 (INSERT). WITH CHECK OPTION is
//! checked before the change: every inserted row (VALUES / SET) and every updated
//! row's new values must satisfy the view's WHERE (CASCADED: and the WHEREs of the
//! views under it; LOCAL: those of the views under it that have a CHECK OPTION),
//! else 1369 and nothing changes.
//!
//! A column the view reads that its table lost is 1356 too: the derived table
//! carries the view's name, and select.rs turns an unknown column inside it into the
//! view's error (the outermost view's, as MySQL names it).
//!
//! Deviations: SHOW CREATE VIEW prints the SELECT as the client wrote it (MySQL
//! prints its normalized form with every name backquoted and qualified); INSERT ...
//! SELECT through a view with CHECK OPTION is not checked; UPDATE of a join view
//! (`join_view_update`, a multi-table UPDATE) works over base tables without CHECK
//! OPTION only, and INSERT into a join view not at all; views are always materialized (ALGORITHM is stored and shown only).

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
use crate::dict::{Catalog, CheckOption, ViewDef};
use crate::exec::bind;
use crate::privilege::{self, Privileges};
use crate::result::{ColumnInfo, Outcome};
use crate::session::Session;
use crate::value::Value;

/// Views reached through views, at most (deeper is 1462, as a cycle would be).
pub(super) const NESTING_MAX: usize = 32;

// ---------------------------------------------------------------------------------
// DDL

/// CREATE [OR REPLACE] VIEW and ALTER VIEW.
pub fn create_view(sess: &mut Session, cv: &CreateView) -> Result<Outcome> {
    let schema = super::ddl::schema_of(sess, &cv.name)?;
    if cv.name.name.is_empty() || cv.name.name.len() > 64 || cv.name.name.ends_with(' ') {
        return Err(KilnError::new(
            ErrorKind::ER_WRONG_TABLE_NAME,
            &[&cv.name.name],
        ));
    }
    let cat = sess.catalog()?;
    if cat.database(&schema).is_none() {
        return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&schema]));
    }
    // The definition's unqualified names resolve in the current database.
    let body_db = sess.database.clone().unwrap_or_else(|| schema.clone());
    // A temporary table may not be part of a view (1352), nor a user variable (1351).
    check_no_temporary(sess, &cv.select, &body_db)?;
    let mut user_var = false;
    select_exprs(&cv.select, &mut |e| {
        user_var |= matches!(e, Expr::UserVar(_) | Expr::Assign { .. } | Expr::Param(_))
    });
    if user_var {
        return Err(ErrorKind::ER_VIEW_SELECT_VARIABLE.into());
    }
    let def_user = match &cv.definer {
        None => (sess.account.0.clone(), sess.account.1.clone()),
        Some(u) if u.host == "%current%" => (sess.account.0.clone(), sess.account.1.clone()),
        Some(u) => {
            let me = u.user == sess.account.0 && u.host == sess.account.1;
            if !me && !sess.privileges().global_has(privilege::SUPER) {
                return Err(KilnError::new(
                    ErrorKind::ER_SPECIFIC_ACCESS_DENIED_ERROR,
                    &[&"SUPER or SET_USER_ID"],
                ));
            }
            (u.user.clone(), u.host.clone())
        }
    };
    let (mut previous_alg, mut previous) = (None, None);
    if cv.alter {
        match cat.view(&schema, &cv.name.name) {
            Some(v) => {
                previous_alg = Some(v.algorithm.clone());
                previous = Some(v.clone());
            }
            None if cat.table(&schema, &cv.name.name).is_some() => {
                return Err(KilnError::new(
                    ErrorKind::ER_WRONG_OBJECT,
                    &[&schema, &cv.name.name, &"VIEW"],
                ));
            }
            None => {
                return Err(KilnError::new(
                    ErrorKind::ER_NO_SUCH_TABLE,
                    &[&schema, &cv.name.name],
                ));
            }
        }
    }
    // Resolve it as a use would (nested views, privileges of the creator), then run
    // it over no rows: unknown tables and columns are errors now, as in MySQL.
    let mut body = (*cv.select).clone();
    {
        let mut x = Expander::new(sess, cat.clone());
        x.default_db = Some(body_db.clone());
        x.qualify = true;
        x.select(&mut body)?;
    }
    let columns = result_columns(sess, &body)?;
    let names: Vec<String> = if cv.columns.is_empty() {
        columns.iter().map(|c| c.name.clone()).collect()
    } else {
        if cv.columns.len() != columns.len() {
            return Err(ErrorKind::ER_VIEW_WRONG_LIST.into());
        }
        cv.columns.clone()
    };
    for (i, n) in names.iter().enumerate() {
        if names[..i].iter().any(|m| m.eq_ignore_ascii_case(n)) {
            return Err(KilnError::new(ErrorKind::ER_DUP_FIELDNAME, &[n]));
        }
    }
    let updatable = updatable(&cat, &cv.select, &body_db);
    if cv.check_local.is_some() && !updatable {
        return Err(KilnError::new(
            ErrorKind::ER_VIEW_NONUPD_CHECK,
            &[&schema, &cv.name.name],
        ));
    }
    // The text is kept in the default reading (SHOW CREATE VIEW and mysqldump show it
    // to sessions of any sql_mode); what cannot be written away stays in lex_mode.
    let mode = sess.lex_mode();
    let select_text = crate::lexer::canonical_text(&cv.select_text, mode)
        .unwrap_or_else(|| cv.select_text.clone());
    let def = ViewDef {
        schema: schema.clone(),
        name: cv.name.name.clone(),
        columns: cv.columns.clone(),
        select_text,
        body_db,
        algorithm: cv
            .algorithm
            .clone()
            .or(previous_alg)
            .unwrap_or_else(|| "UNDEFINED".into()),
        definer_user: def_user.0,
        definer_host: def_user.1,
        invoker: cv
            .invoker
            .or(previous
                .as_ref()
                .filter(|_| cv.invoker.is_none())
                .map(|p| p.invoker))
            .unwrap_or(false),
        check: match cv.check_local {
            None => CheckOption::None,
            Some(true) => CheckOption::Local,
            Some(false) => CheckOption::Cascaded,
        },
        updatable,
        lex_mode: crate::lexer::LexMode {
            no_backslash_escapes: false,
            ansi_quotes: false,
            ..mode
        },
        charset_client: sess
            .vars
            .display("character_set_client")
            .unwrap_or_else(|| "utf8mb4".into()),
        collation_connection: sess
            .vars
            .display("collation_connection")
            .unwrap_or_else(|| "utf8mb4_0900_ai_ci".into()),
    };
    sess.dict()?
        .create_view(def, cv.or_replace || cv.alter, cv.alter)?;
    Ok(Outcome::ok())
}

/// DROP VIEW [IF EXISTS] v, ...: 1051 for missing views (notes with IF EXISTS), 1347
/// for a base table; every name is checked before anything is dropped.
pub fn drop_views(sess: &mut Session, names: &[TableName], if_exists: bool) -> Result<Outcome> {
    let mut keys = Vec::with_capacity(names.len());
    for n in names {
        keys.push((super::ddl::schema_of(sess, n)?, n.name.clone()));
    }
    let missing = sess.dict()?.drop_views(&keys, if_exists)?;
    for m in missing {
        let e = KilnError::new(ErrorKind::ER_BAD_TABLE_ERROR, &[&m]);
        sess.note(e.code, e.message);
    }
    Ok(Outcome::ok())
}

/// A temporary table named in a view definition: 1352.
fn check_no_temporary(sess: &Session, s: &Select, default_db: &str) -> Result<()> {
    let mut names = Vec::new();
    select_tables(s, &mut names);
    for n in names {
        let db = n.schema.as_deref().unwrap_or(default_db);
        if sess.temp.get(db, &n.name).is_some() {
            return Err(KilnError::new(
                ErrorKind::ER_VIEW_SELECT_TMPTABLE,
                &[&n.name],
            ));
        }
    }
    Ok(())
}

/// Every table name a SELECT mentions (FROM, joins, derived tables, subqueries).
fn select_tables(s: &Select, out: &mut Vec<TableName>) {
    walk(s, &mut |_| {}, &mut |t| out.push(t.clone()));
}

/// Calls `f` on every expression node of a SELECT, subqueries and derived tables
/// included.
fn select_exprs(s: &Select, f: &mut dyn FnMut(&Expr)) {
    walk(s, f, &mut |_| {});
}

/// Visits a SELECT whole: `on_expr` gets every expression node, `on_table` every
/// table name (FROM, joins, derived tables, subqueries, UNION parts).
fn walk(s: &Select, on_expr: &mut dyn FnMut(&Expr), on_table: &mut dyn FnMut(&TableName)) {
    type OnExpr<'a> = &'a mut dyn FnMut(&Expr);
    type OnTable<'a> = &'a mut dyn FnMut(&TableName);
    fn expr(e: &Expr, on_expr: OnExpr, on_table: OnTable) {
        bind::visit(e, &mut |x| {
            on_expr(x);
            match x {
                Expr::Subquery(s) | Expr::Exists(s) | Expr::InSubquery { select: s, .. } => {
                    walk(s, on_expr, on_table)
                }
                Expr::Quantified(q) => walk(&q.select, on_expr, on_table),
                _ => {}
            }
        });
    }
    fn from(item: &FromItem, on_expr: OnExpr, on_table: OnTable) {
        match item {
            FromItem::Table { name, .. } => on_table(name),
            FromItem::Derived { select, .. } => walk(select, on_expr, on_table),
            FromItem::Join {
                left, right, on, ..
            } => {
                from(left, on_expr, on_table);
                from(right, on_expr, on_table);
                if let Some(e) = on {
                    expr(e, on_expr, on_table);
                }
            }
        }
    }
    for item in &s.from {
        from(item, on_expr, on_table);
    }
    let exprs = s.items.iter().map(|i| &i.expr);
    let exprs = exprs.chain(s.filter.iter().chain(&s.having).chain(&s.group_by));
    let exprs = exprs.chain(s.order_by.iter().chain(&s.union_order).map(|o| &o.expr));
    for e in exprs.chain(s.limit.iter().chain(&s.offset)) {
        expr(e, on_expr, on_table);
    }
    if let Some((_, u)) = &s.union {
        walk(u, on_expr, on_table);
    }
}

/// MySQL's "updatable" (information_schema.VIEWS.IS_UPDATABLE): MERGE-able — tables
/// and joins of tables only, no aggregates, DISTINCT, GROUP BY, HAVING, UNION, LIMIT
/// or subqueries in the select list. kiln writes through single-table ones only.
pub(super) fn updatable_shape(s: &Select) -> bool {
    fn tables_only(f: &FromItem) -> bool {
        match f {
            FromItem::Table { .. } => true,
            FromItem::Derived { .. } => false,
            FromItem::Join { left, right, .. } => tables_only(left) && tables_only(right),
        }
    }
    s.union.is_none()
        && !s.distinct
        && s.group_by.is_empty()
        && s.having.is_none()
        && s.limit.is_none()
        && !s.from.is_empty()
        && s.from.iter().all(tables_only)
        && !s
            .items
            .iter()
            .any(|i| bind::contains_aggregate(&i.expr) || super::select::has_subquery(&i.expr))
}

/// `updatable_shape`, and every view it reads is updatable too.
fn updatable(cat: &Catalog, s: &Select, default_db: &str) -> bool {
    fn views_ok(cat: &Catalog, f: &FromItem, db: &str) -> bool {
        match f {
            FromItem::Table { name, .. } => {
                let schema = name.schema.as_deref().unwrap_or(db);
                cat.view(schema, &name.name).is_none_or(|v| v.updatable)
            }
            FromItem::Derived { .. } => false,
            FromItem::Join { left, right, .. } => {
                views_ok(cat, left, db) && views_ok(cat, right, db)
            }
        }
    }
    updatable_shape(s) && s.from.iter().all(|f| views_ok(cat, f, default_db))
}

/// The result columns of an (expanded) SELECT, found by running it over no rows.
fn result_columns(sess: &mut Session, body: &Select) -> Result<Vec<ColumnInfo>> {
    let mut probe = body.clone();
    let mut part = Some(&mut probe);
    while let Some(p) = part {
        let never = Expr::Literal(Value::Int(0));
        p.filter = Some(match p.filter.take() {
            Some(f) => Expr::Binary {
                op: BinaryOp::And,
                left: Box::new(never),
                right: Box::new(f),
            },
            None => never,
        });
        part = p.union.as_mut().map(|(_, u)| &mut **u);
    }
    Ok(std::sync::Arc::unwrap_or_clone(
        super::select::run(sess, &probe)?.columns,
    ))
}

// ---------------------------------------------------------------------------------
// SHOW

/// SHOW CREATE VIEW v (and SHOW CREATE TABLE v): MySQL's four columns.
pub fn show_create(v: &ViewDef) -> (Vec<ColumnInfo>, Vec<Vec<Value>>) {
    let q = |s: &str| format!("`{}`", s.replace('`', "``"));
    let mut text = format!(
        "CREATE ALGORITHM={} DEFINER={}@{} SQL SECURITY {} VIEW {}",
        v.algorithm,
        q(&v.definer_user),
        q(&v.definer_host),
        if v.invoker { "INVOKER" } else { "DEFINER" },
        q(&v.name)
    );
    if !v.columns.is_empty() {
        let cols: Vec<String> = v.columns.iter().map(|c| q(c)).collect();
        text.push_str(&format!(" ({})", cols.join(",")));
    }
    text.push_str(" AS ");
    text.push_str(&v.select_text);
    if v.check != CheckOption::None {
        text.push_str(&format!(" WITH {} CHECK OPTION", v.check.name()));
    }
    (
        vec![
            ColumnInfo::text("View", 64),
            ColumnInfo::text("Create View", 1024),
            ColumnInfo::text("character_set_client", 32),
            ColumnInfo::text("collation_connection", 32),
        ],
        vec![vec![
            Value::Str(v.name.clone()),
            Value::Str(text),
            Value::Str(v.charset_client.clone()),
            Value::Str(v.collation_connection.clone()),
        ]],
    )
}

/// The view `name` names (None: none; a base table of that name is not a view).
pub fn lookup(sess: &mut Session, name: &TableName) -> Result<Option<Arc<ViewDef>>> {
    let schema = super::ddl::schema_of(sess, name)?;
    if sess.temp.get(&schema, &name.name).is_some() || sess.dict.is_none() {
        return Ok(None);
    }
    Ok(sess.catalog()?.view(&schema, &name.name).cloned())
}

/// One column of a view as DESCRIBE / information_schema.COLUMNS show it.
pub struct ViewColumn {
    pub name: String,
    pub ty: crate::types::SqlType,
    pub nullable: bool,
    pub default: Option<crate::dict::ColumnDefault>,
}

/// A view's columns: a column that is a base table's column keeps its type,
/// nullability and default (as MySQL shows them); expressions get the type of
/// their result.
pub fn columns_of(sess: &mut Session, v: &Arc<ViewDef>) -> Result<Vec<ViewColumn>> {
    let cat = sess.catalog()?;
    let body = {
        let mut x = Expander::new(sess, cat.clone());
        x.view_body(v)?
    };
    // The derived wrapper gives the view's names; the inner columns their origins.
    let cols = result_columns(sess, &body)?;
    let origins = super::columns::describe(sess, &body).unwrap_or_default();
    let mut out = Vec::with_capacity(cols.len());
    for (i, c) in cols.iter().enumerate() {
        let origin = origins.get(i).and_then(|o| {
            let t = cat.table(&o.schema, &o.table)?;
            let k = t.def.column_index(&o.org_name)?;
            Some(t.def.columns[k].clone())
        });
        out.push(match origin {
            Some(d) => ViewColumn {
                name: c.name.clone(),
                ty: d.ty,
                nullable: d.nullable,
                default: d.default,
            },
            None => ViewColumn {
                name: c.name.clone(),
                ty: super::ddl::type_from_result(c, "utf8mb4_0900_ai_ci"),
                nullable: !c.not_null,
                default: None,
            },
        });
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------
// Using views

/// Rewrites `stmt` so that no FROM clause names a view (None: it names none).
pub(crate) fn expand(sess: &mut Session, stmt: &Stmt) -> Result<Option<Stmt>> {
    // The common case — no view anywhere — without touching the catalog's reference
    // count (a shared write every statement would pay).
    let Some(dict) = &sess.dict else {
        return Ok(None);
    };
    if let Some(c) = &sess.catalog_cache
        && c.version == dict.version()
        && c.views.is_empty()
    {
        return Ok(None);
    }
    let cat = sess.catalog()?;
    if cat.views.is_empty() {
        return Ok(None);
    }
    let mut s = stmt.clone();
    expand_stmt(sess, &cat, &mut s)?;
    Ok(Some(s))
}

fn expand_stmt(sess: &mut Session, cat: &Arc<Catalog>, s: &mut Stmt) -> Result<()> {
    match s {
        Stmt::Select(sel) => Expander::new(sess, cat.clone()).select(sel),
        Stmt::Insert(i) => {
            super::view_dml::dml_target_insert(sess, cat, i)?;
            let mut x = Expander::new(sess, cat.clone());
            match &mut i.source {
                InsertSource::Select(sel) => x.select(sel)?,
                InsertSource::Values(rows) => {
                    for e in rows.iter_mut().flatten().flatten() {
                        x.expr(e)?;
                    }
                }
                InsertSource::Set(sets) => {
                    for e in sets.iter_mut().filter_map(|(_, e)| e.as_mut()) {
                        x.expr(e)?;
                    }
                }
            }
            for (_, e) in &mut i.on_duplicate {
                x.expr(e)?;
            }
            Ok(())
        }
        Stmt::Update(u) => {
            super::view_dml::dml_target_update(sess, cat, u)?;
            let mut x = Expander::new(sess, cat.clone());
            for f in &mut u.tables {
                x.from(f)?;
            }
            for e in u.sets.iter_mut().filter_map(|(_, _, e)| e.as_mut()) {
                x.expr(e)?;
            }
            if let Some(e) = &mut u.filter {
                x.expr(e)?;
            }
            Ok(())
        }
        Stmt::Delete(d) => {
            super::view_dml::dml_target_delete(sess, cat, d)?;
            let mut x = Expander::new(sess, cat.clone());
            for f in &mut d.from {
                x.from(f)?;
            }
            if let Some(e) = &mut d.filter {
                x.expr(e)?;
            }
            Ok(())
        }
        Stmt::CreateTable(ct) => match &mut ct.as_select {
            Some(sel) => Expander::new(sess, cat.clone()).select(sel),
            None => Ok(()),
        },
        Stmt::Explain { stmt, .. } => expand_stmt(sess, cat, stmt),
        Stmt::Do(exprs) => {
            let mut x = Expander::new(sess, cat.clone());
            exprs.iter_mut().try_for_each(|e| x.expr(e))
        }
        Stmt::Set(assignments) => {
            let mut x = Expander::new(sess, cat.clone());
            for (_, v) in assignments {
                if let SetValue::Expr(e) = v {
                    x.expr(e)?;
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A view being expanded: whose privileges check its tables.
struct Frame {
    schema: String,
    name: String,
    privs: Option<Arc<Privileges>>,
}

struct Expander<'s> {
    sess: &'s mut Session,
    cat: Arc<Catalog>,
    /// The database unqualified names resolve in (the session's, or a view's).
    default_db: Option<String>,
    stack: Vec<Frame>,
    /// Qualify unqualified names with `default_db` (inside view definitions).
    qualify: bool,
}

impl<'s> Expander<'s> {
    fn new(sess: &'s mut Session, cat: Arc<Catalog>) -> Expander<'s> {
        let default_db = sess.database.clone();
        Expander {
            sess,
            cat,
            default_db,
            stack: Vec::new(),
            qualify: false,
        }
    }

    fn select(&mut self, s: &mut Select) -> Result<()> {
        for f in &mut s.from {
            self.from(f)?;
        }
        for i in &mut s.items {
            self.expr(&mut i.expr)?;
        }
        for e in s.filter.iter_mut().chain(s.having.iter_mut()) {
            self.expr(e)?;
        }
        for e in s.group_by.iter_mut() {
            self.expr(e)?;
        }
        for o in s.order_by.iter_mut().chain(s.union_order.iter_mut()) {
            self.expr(&mut o.expr)?;
        }
        if let Some((_, u)) = &mut s.union {
            self.select(u)?;
        }
        Ok(())
    }

    fn from(&mut self, f: &mut FromItem) -> Result<()> {
        match f {
            FromItem::Table { name, alias } => {
                let Some(schema) = name.schema.clone().or_else(|| self.default_db.clone()) else {
                    return Ok(());
                };
                if self.qualify && name.schema.is_none() {
                    name.schema = Some(schema.clone());
                }
                if schema.eq_ignore_ascii_case(super::infoschema::SCHEMA) {
                    return Ok(());
                }
                if self.stack.is_empty() && self.sess.temp.get(&schema, &name.name).is_some() {
                    return Ok(());
                }
                self.check_select(&schema, &name.name)?;
                if let Some(v) = self.cat.view(&schema, &name.name).cloned() {
                    // The view's name is locked like a table's (DROP / ALTER VIEW wait
                    // for the transactions that read through it).
                    self.sess
                        .lock_name(&schema, &name.name, crate::mdl::Mode::Shared)?;
                    let body = self.view_body(&v)?;
                    let alias = alias.clone().unwrap_or_else(|| name.name.clone());
                    *f = FromItem::Derived {
                        select: Box::new(body),
                        alias,
                        view: Some(Box::new(TableName {
                            schema: Some(v.schema.clone()),
                            name: v.name.clone(),
                        })),
                    };
                } else if let Some(top) = self.stack.first()
                    && self.cat.table(&schema, &name.name).is_none()
                {
                    return Err(KilnError::new(
                        ErrorKind::ER_VIEW_INVALID,
                        &[&top.schema, &top.name],
                    ));
                }
                Ok(())
            }
            FromItem::Derived { select, .. } => self.select(select),
            FromItem::Join {
                left, right, on, ..
            } => {
                self.from(left)?;
                self.from(right)?;
                if let Some(e) = on {
                    self.expr(e)?;
                }
                Ok(())
            }
        }
    }

    /// Inside a view: SELECT on `schema.name` for the view's definer or invoker.
    fn check_select(&mut self, schema: &str, name: &str) -> Result<()> {
        let Some(top) = self.stack.last() else {
            return Ok(());
        };
        let Some(p) = &top.privs else {
            return Ok(());
        };
        if p.table_has(schema, name, privilege::SELECT) {
            return Ok(());
        }
        // MySQL names the outermost view the statement used.
        let outer = &self.stack[0];
        Err(KilnError::new(
            ErrorKind::ER_VIEW_INVALID,
            &[&outer.schema, &outer.name],
        ))
    }

    /// The subqueries of an expression.
    fn expr(&mut self, e: &mut Expr) -> Result<()> {
        if !super::select::has_subquery(e) {
            return Ok(());
        }
        *e = bind::rewrite(e, &mut |x| self.subquery(x))?;
        Ok(())
    }

    fn subquery(&mut self, x: &Expr) -> Result<Option<Expr>> {
        Ok(Some(match x {
            Expr::Subquery(s) => Expr::Subquery(Box::new(self.expanded(s)?)),
            Expr::Exists(s) => Expr::Exists(Box::new(self.expanded(s)?)),
            Expr::InSubquery {
                expr,
                select,
                negated,
            } => {
                let mut e = (**expr).clone();
                self.expr(&mut e)?;
                Expr::InSubquery {
                    expr: Box::new(e),
                    select: Box::new(self.expanded(select)?),
                    negated: *negated,
                }
            }
            Expr::Quantified(q) => {
                let mut q = (**q).clone();
                self.expr(&mut q.expr)?;
                q.select = self.expanded(&q.select)?;
                Expr::Quantified(Box::new(q))
            }
            _ => return Ok(None),
        }))
    }

    fn expanded(&mut self, s: &Select) -> Result<Select> {
        let mut s = s.clone();
        self.select(&mut s)?;
        Ok(s)
    }

    /// The SELECT of view `v`, qualified, checked and with its own views expanded.
    fn view_body(&mut self, v: &Arc<ViewDef>) -> Result<Select> {
        if self.stack.len() >= NESTING_MAX
            || self
                .stack
                .iter()
                .any(|f| f.schema == v.schema && f.name == v.name)
        {
            return Err(KilnError::new(
                ErrorKind::ER_VIEW_RECURSIVE,
                &[&v.schema, &v.name],
            ));
        }
        let invalid = || KilnError::new(ErrorKind::ER_VIEW_INVALID, &[&v.schema, &v.name]);
        let mut body = match crate::parse::parse_one(&v.select_text, v.lex_mode) {
            Ok(p) => match p.stmt {
                Stmt::Select(s) => *s,
                _ => return Err(invalid()),
            },
            Err(_) => return Err(invalid()),
        };
        if crate::routine::names::any() {
            body = qualify_functions(self.sess, &body, &v.body_db)?;
        }
        let privs = if v.invoker {
            self.sess.privileges()
        } else {
            match self
                .sess
                .server
                .account_privileges(&v.definer_user, &v.definer_host)
            {
                Some(p) => p,
                None => {
                    return Err(KilnError::new(
                        ErrorKind::ER_NO_SUCH_USER,
                        &[&v.definer_user, &v.definer_host],
                    ));
                }
            }
        };
        let privs = (!privs.global_has(privilege::SELECT)).then_some(privs);
        let saved = (
            self.default_db.replace(v.body_db.clone()),
            std::mem::replace(&mut self.qualify, true),
        );
        self.stack.push(Frame {
            schema: v.schema.clone(),
            name: v.name.clone(),
            privs,
        });
        let r = self.select(&mut body);
        self.stack.pop();
        self.default_db = saved.0;
        self.qualify = saved.1;
        r?;
        if !v.columns.is_empty() {
            body = rename_columns(self.sess, body, &v.columns).map_err(|_| invalid())?;
        }
        Ok(body)
    }
}

/// A view's SELECT with its unqualified stored function calls qualified with the
/// view's database, where they resolve in MySQL (not the querying session's).
fn qualify_functions(sess: &mut Session, body: &Select, db: &str) -> Result<Select> {
    struct InDb {
        cat: Arc<Catalog>,
        db: String,
    }
    impl crate::routine::subst::Names for InDb {
        fn value(&self, _: Option<&str>, _: &str) -> Result<Option<Value>> {
            Ok(None)
        }
        fn function(&self, name: &str) -> Option<String> {
            (!name.contains('.')
                && self
                    .cat
                    .routine(&self.db, crate::routine::RoutineKind::Function, name)
                    .is_some())
            .then(|| format!("{}.{name}", self.db))
        }
    }
    let names = InDb {
        cat: sess.catalog()?,
        db: db.to_string(),
    };
    crate::routine::subst::select(body, &names)
}

/// `body` with its result columns named `names` (a view's column list).
fn rename_columns(sess: &mut Session, mut body: Select, names: &[String]) -> Result<Select> {
    let star = body
        .items
        .iter()
        .any(|i| matches!(&i.expr, Expr::Column { name, .. } if name == "*"));
    if !star && body.items.len() == names.len() {
        for (i, n) in body.items.iter_mut().zip(names) {
            i.name = n.clone();
        }
        return Ok(body);
    }
    // `*` in the list: select the columns of the SELECT as a derived table by name.
    let inner = result_columns(sess, &body)?;
    if inner.len() != names.len() {
        return Err(ErrorKind::ER_VIEW_WRONG_LIST.into());
    }
    let alias = "view columns".to_string();
    let mut outer = Select::empty();
    outer.items = inner
        .iter()
        .zip(names)
        .map(|(c, n)| SelectItem {
            expr: Expr::Column {
                qualifier: Some(alias.clone()),
                name: c.name.clone(),
            },
            name: n.clone(),
        })
        .collect();
    outer.from = vec![FromItem::Derived {
        select: Box::new(body),
        alias,
        view: None,
    }];
    Ok(outer)
}
