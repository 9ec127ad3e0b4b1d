//! SELECT over tables: FROM (tables, joins, derived tables) → WHERE → GROUP BY and
//! aggregates → HAVING → select list → DISTINCT → ORDER BY → LIMIT/OFFSET → UNION.
//!
//! Rows are materialized between stages (vectors of values); a single-table query with
//! no grouping, ordering or DISTINCT streams and stops at its LIMIT. Expressions are
//! bound to slots first (bind.rs); uncorrelated subqueries are run once and replaced
//! by their results.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use super::RowEnv;
use super::access::{self, Lock, Trace};
use super::bind::{self, Scope, ScopeColumn, bind, conjuncts, contains_aggregate};
use super::group::distinct;
use super::join::{Side, join_sides};
use super::prepared_plan::Recorder;
pub(crate) use super::table_read::{TableScan, choose_read, read_chosen, read_planned};
pub use super::table_read::{read_table, read_table_ordered};
use super::union_types;
use super::window;
use crate::ast::*;
use crate::coercion;
use crate::collate::Coll;
use crate::dict::TableHandle;
use crate::eval::{compare_in, eval};
use crate::result::Rows;
use crate::session::Session;
use crate::value::Value;

/// Rows a query may hold in memory between stages (until sorting spills to disk).
pub const ROWS_IN_MEMORY_MAX: usize = 50_000_000;

/// Rows read from a table with their primary keys.
pub type KeyedRows = (Vec<Vec<u8>>, Vec<Vec<Value>>);

/// Where a FROM-clause row came from (for result metadata and DML).
#[derive(Clone)]
pub struct SourceTable {
    pub handle: Arc<TableHandle>,
    pub alias: String,
    /// First slot of this table's columns in the joined row.
    pub offset: usize,
}

/// Rows of a FROM clause with the scope that names their columns.
pub struct Relation {
    pub scope: Scope,
    pub tables: Vec<SourceTable>,
    pub rows: Vec<Vec<Value>>,
    /// Primary keys of the rows (single-table relations; DML uses them).
    pub keys: Vec<Vec<u8>>,
}

fn lock_of(s: &Select) -> Lock {
    match s.lock {
        None => Lock::None,
        Some(l) => {
            let w = if l.nowait {
                access::LockWait::NoWait
            } else if l.skip_locked {
                access::LockWait::Skip
            } else {
                access::LockWait::Default
            };
            if l.exclusive {
                Lock::Exclusive(w)
            } else {
                Lock::Shared(w)
            }
        }
    }
}

/// Replaces uncorrelated subqueries in `e` by their results.
pub fn run_subqueries(sess: &mut Session, e: &Expr) -> Result<Expr> {
    bind::rewrite(e, &mut |x| match x {
        Expr::Subquery(sel) => {
            let Some(rows) = uncorrelated(run(sess, sel))? else {
                return Ok(None);
            };
            if rows.rows.len() > 1 {
                return Err(ErrorKind::ER_SUBQUERY_NO_1_ROW.into());
            }
            // A row subquery becomes a row constructor (an operand of a row
            // comparison; anywhere else it is 1241, as a row constructor is).
            let width = rows.columns.len();
            let mut row = rows
                .rows
                .into_iter()
                .next()
                .unwrap_or_else(|| vec![Value::Null; width]);
            Ok(Some(match width {
                1 => bind::literal(row.remove(0)),
                _ => Expr::Row(row.into_iter().map(bind::literal).collect()),
            }))
        }
        Expr::Exists(sel) => {
            let Some(rows) = uncorrelated(run(sess, sel))? else {
                return Ok(None);
            };
            Ok(Some(bind::literal(Value::Int(i64::from(
                !rows.rows.is_empty(),
            )))))
        }
        Expr::InSubquery {
            expr,
            select,
            negated,
        } => {
            let width = crate::eval::row_width(expr);
            let Some(rows) = operand_subquery(sess, select, width)? else {
                return Ok(None);
            };
            let expr = Box::new(run_subqueries(sess, expr)?);
            if rows.rows.is_empty() {
                // x IN (empty) is false (even for NULL x); NOT IN is true.
                return Ok(Some(bind::literal(Value::Int(i64::from(*negated)))));
            }
            let item = |mut r: Vec<Value>| match width {
                1 => bind::literal(r.remove(0)),
                _ => Expr::Row(r.into_iter().map(bind::literal).collect()),
            };
            Ok(Some(Expr::InList {
                expr,
                list: rows.rows.into_iter().map(item).collect(),
                negated: *negated,
            }))
        }
        Expr::Quantified(q) if q.rows.is_none() => {
            let width = crate::eval::row_width(&q.expr);
            let Some(rows) = operand_subquery(sess, &q.select, width)? else {
                return Ok(None);
            };
            Ok(Some(Expr::Quantified(Box::new(Quantified {
                expr: run_subqueries(sess, &q.expr)?,
                rows: Some(rows.rows),
                ..(**q).clone()
            }))))
        }
        _ => Ok(None),
    })
}

/// An uncorrelated IN / ANY / ALL subquery's rows (None: it is correlated), 1241 if
/// it has not `width` columns.
fn operand_subquery(sess: &mut Session, select: &Select, width: usize) -> Result<Option<Rows>> {
    let Some(rows) = uncorrelated(run(sess, select))? else {
        return Ok(None);
    };
    if rows.columns.len() != width {
        return Err(KilnError::new(ErrorKind::ER_OPERAND_COLUMNS, &[&width]));
    }
    Ok(Some(rows))
}

/// The result of running a subquery alone: None if it names columns it does not have
/// (a correlated subquery: it runs per outer row instead, and an unknown column is
/// reported then).
fn uncorrelated(r: Result<Rows>) -> Result<Option<Rows>> {
    match r {
        Ok(rows) => Ok(Some(rows)),
        Err(e) if e.code == ErrorKind::ER_BAD_FIELD_ERROR.code() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Resolves a table name: the session's temporary table of that name, else the
/// catalog's table (1046 / 1146).
pub fn resolve_table(sess: &mut Session, name: &TableName) -> Result<Arc<TableHandle>> {
    resolve_table_for(sess, name, false)
}

/// `resolve_table` for a table the statement writes (a SHARED_WRITE lock, which
/// waits for other sessions' LOCK TABLES ... READ).
pub fn resolve_table_for_write(sess: &mut Session, name: &TableName) -> Result<Arc<TableHandle>> {
    resolve_table_for(sess, name, true)
}

fn resolve_table_for(
    sess: &mut Session,
    name: &TableName,
    write: bool,
) -> Result<Arc<TableHandle>> {
    let schema = match (&name.schema, &sess.database) {
        (Some(s), _) => s.clone(),
        (None, Some(d)) => d.clone(),
        (None, None) => return Err(ErrorKind::ER_NO_DB_ERROR.into()),
    };
    if let Some(h) = sess.temp.get(&schema, &name.name) {
        return Ok(h.clone());
    }
    // The lock first, then the catalog: a DDL that held the name has published its
    // catalog before letting go, so what is resolved here stays as it is until the
    // transaction ends.
    let mode = lock_mode(sess, write);
    if sess.locked.is_some() {
        // LOCK TABLES holds what the session may use: no new lock.
        sess.check_locked_name(&schema, &name.name, write)?;
    }
    sess.lock_name(&schema, &name.name, mode)?;
    let cat = sess.catalog()?;
    cat.table(&schema, &name.name)
        .cloned()
        .ok_or_else(|| KilnError::new(ErrorKind::ER_NO_SUCH_TABLE, &[&schema, &name.name]))
}

/// The metadata lock a statement takes on a table it reads (or writes).
pub(crate) fn lock_mode(sess: &Session, write: bool) -> crate::mdl::Mode {
    if sess.mdl_high_prio {
        crate::mdl::Mode::SharedHighPrio
    } else if write {
        crate::mdl::Mode::SharedWrite
    } else {
        crate::mdl::Mode::Shared
    }
}

/// The scope columns of a table under `alias`.
pub fn table_scope(h: &TableHandle, alias: &str) -> Vec<ScopeColumn> {
    h.def
        .columns
        .iter()
        .zip(&h.shape.texts)
        .map(|(c, text)| ScopeColumn {
            table: alias.to_string(),
            name: c.name.clone(),
            hidden: c.invisible,
            text: text.clone(),
            merged: false,
        })
        .collect()
}

/// Two FROM items with the same name or alias: 1066.
pub(crate) fn check_unique_aliases(from: &[FromItem]) -> Result<()> {
    fn collect<'a>(item: &'a FromItem, out: &mut Vec<&'a str>) {
        match item {
            FromItem::Table { name, alias } => out.push(alias.as_deref().unwrap_or(&name.name)),
            FromItem::Derived { alias, .. } => out.push(alias),
            FromItem::Join { left, right, .. } => {
                collect(left, out);
                collect(right, out);
            }
        }
    }
    let mut names = Vec::new();
    for f in from {
        collect(f, &mut names);
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(KilnError::new(ErrorKind::ER_NONUNIQ_TABLE, &[n]));
        }
    }
    Ok(())
}

/// Whether `e` runs statements of its own (subqueries, stored function calls): it
/// cannot be evaluated inside a running scan, which holds the transaction.
pub(crate) fn has_subquery(e: &Expr) -> bool {
    let mut found = false;
    bind::visit(e, &mut |x| match x {
        Expr::Subquery(_) | Expr::Exists(_) | Expr::InSubquery { .. } | Expr::Quantified(_) => {
            found = true
        }
        Expr::Func { name, .. } if crate::routine::names::may_be_stored(name) => found = true,
        _ => {}
    });
    found
}

/// The columns of `h` a single-table SELECT uses (None: all — `*`, subqueries, or
/// no SELECT given). Unused columns are not decoded.
pub(crate) fn needed_columns(select: Option<&Select>, h: &TableHandle) -> Option<Vec<bool>> {
    let s = select?;
    let mut needed = vec![false; h.def.columns.len()];
    let mut all = false;
    let mut mark = |e: &Expr| {
        bind::visit(e, &mut |x| match x {
            Expr::Column { name, .. } if name == "*" => all = true,
            Expr::Column { name, .. } => match h.def.column_index(name) {
                Some(i) => needed[i] = true,
                None => all = true,
            },
            Expr::Subquery(_) | Expr::Exists(_) | Expr::InSubquery { .. } | Expr::Quantified(_) => {
                all = true
            }
            _ => {}
        })
    };
    for i in &s.items {
        mark(&i.expr);
    }
    for e in s
        .filter
        .iter()
        .chain(s.having.iter())
        .chain(s.group_by.iter())
    {
        mark(e);
    }
    for o in &s.order_by {
        mark(&o.expr);
    }
    for w in &s.windows {
        for e in w
            .partition_by
            .iter()
            .chain(w.order_by.iter().map(|o| &o.expr))
        {
            mark(e);
        }
    }
    if all || s.union.is_some() {
        return None;
    }
    Some(needed)
}

/// Builds the relation of a FROM clause, filtered by `filter` (unbound). Returns it,
/// whether `filter` was applied, and whether its rows already are in `select`'s ORDER
/// BY order (and cut at its LIMIT + OFFSET: index_order.rs). `rec`: a single base
/// table's bound read is kept there (prepared_plan.rs).
pub(crate) fn from_clause(
    sess: &mut Session,
    from: &[FromItem],
    filter: Option<&Expr>,
    lock: Lock,
    select: Option<&Select>,
    rec: Option<&mut Recorder>,
) -> Result<(Relation, bool, bool)> {
    // A single table: its own access path, the filter applied while reading.
    if let [FromItem::Table { name, alias }] = from
        && !is_info_schema(sess, name)
    {
        let h = resolve_table(sess, name)?;
        let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
        let scope = Scope {
            columns: table_scope(&h, &alias),
        };
        let bound = match filter {
            Some(f) => Some(bind(f, &scope, "where clause")?),
            None => None,
        };
        if let Some(b) = &bound
            && contains_aggregate(b)
        {
            return Err(ErrorKind::ER_INVALID_GROUP_FUNC_USE.into());
        }
        let needed = needed_columns(select, &h);
        let order = match select {
            Some(s) if lock == Lock::None => super::index_order::request(sess, s, &h, &scope),
            _ => None,
        };
        let conj: Vec<&Expr> = bound.as_ref().map(conjuncts).unwrap_or_default();
        let mut tr = match rec {
            Some(_) => Trace::on(),
            None => Trace::off(),
        };
        let (plan, ordered) = choose_read(
            &h,
            &conj,
            sess,
            lock,
            needed.as_deref(),
            order.as_ref(),
            &mut tr,
        )?;
        let retrace = tr.may_shape_later();
        let shape = tr.shape(&plan, ordered);
        let scan = TableScan {
            h: &h,
            scope: Some(&scope),
            filter: bound.as_ref(),
            lock,
            needed: needed.as_deref(),
        };
        let limit = order.as_ref().and_then(|o| o.limit);
        let ((keys, rows), ordered) = read_chosen(sess, scan, plan, ordered, limit)?;
        let tables = vec![SourceTable {
            handle: h,
            alias,
            offset: 0,
        }];
        if let Some(rec) = rec {
            rec.read = Some(super::prepared_plan::TableRead {
                scope: scope.clone(),
                tables: tables.clone(),
                filter: bound,
                needed,
                order_keys: order.map(|o| o.keys),
                lock,
                shape,
                retrace,
            });
        }
        return Ok((
            Relation {
                scope,
                tables,
                rows,
                keys,
            },
            true,
            ordered,
        ));
    }
    // WHERE conjuncts on one table alone are applied as it is read (join_push.rs);
    // WHERE is still evaluated whole on the joined rows.
    let push = match filter {
        Some(f) => Some(super::join_push::Pushdown::new(sess, from, f)?),
        None => None,
    };
    // Inner joins of base tables: in the order the cost model picks (join_order.rs).
    let straight = select.is_some_and(|s| s.straight_join);
    let no_push = super::join_push::Pushdown::default();
    let p = push.as_ref().unwrap_or(&no_push);
    if let Some(order) = super::join_order::plan(sess, from, straight, p)? {
        return Ok((super::join_order::run(sess, &order, lock, p)?, false, false));
    }
    // Comma-list items join on the WHERE conjuncts between them and the items before
    // (as an inner join's ON: join_push.rs `join_condition`).
    let mut rel: Option<Relation> = None;
    let mut done: Vec<String> = Vec::new();
    for item in from {
        let aliases = match &push {
            Some(_) => super::join_push::aliases_of(sess, item)?,
            None => Vec::new(),
        };
        rel = Some(match rel {
            None => relation_in(sess, item, lock, push.as_ref(), true)?,
            Some(left) => {
                let on = push
                    .as_ref()
                    .and_then(|p| p.join_condition(&done, &aliases));
                let kind = match on {
                    Some(_) => JoinKind::Inner,
                    None => JoinKind::Cross,
                };
                let next = side_of(sess, item, lock, push.as_ref(), true, true)?;
                join_sides(sess, Side::Rows(left), next, kind, on.as_ref(), &[], false)?
            }
        });
        done.extend(aliases);
    }
    Ok((rel.expect("a FROM clause has an item"), false, false))
}

/// Whether `name` is an information_schema table (named or by the current database).
pub fn is_info_schema(sess: &Session, name: &TableName) -> bool {
    name.schema
        .as_deref()
        .or(sess.database.as_deref())
        .is_some_and(|s| s.eq_ignore_ascii_case(super::infoschema::SCHEMA))
}

pub(crate) fn info_schema_relation(
    sess: &mut Session,
    name: &TableName,
    alias: &Option<String>,
) -> Result<Relation> {
    let v = super::infoschema::table(sess, &name.name)?.ok_or_else(|| {
        KilnError::new(
            ErrorKind::ER_UNKNOWN_TABLE,
            &[&name.name, &super::infoschema::SCHEMA],
        )
    })?;
    let alias = alias.clone().unwrap_or_else(|| name.name.clone());
    Ok(Relation {
        scope: Scope {
            columns: v
                .columns
                .iter()
                .map(|c| ScopeColumn {
                    table: alias.clone(),
                    name: c.to_string(),
                    hidden: false,
                    text: None,
                    merged: false,
                })
                .collect(),
        },
        tables: Vec::new(),
        rows: v.rows,
        keys: Vec::new(),
    })
}

pub(crate) fn relation_of(sess: &mut Session, item: &FromItem, lock: Lock) -> Result<Relation> {
    relation_in(sess, item, lock, None, false)
}

/// A FROM item as one side of a join: a base table on the `inner` side is read as
/// the join needs it (join_index.rs), anything else now.
fn side_of(
    sess: &mut Session,
    item: &FromItem,
    lock: Lock,
    push: Option<&super::join_push::Pushdown>,
    inner: bool,
    eligible: bool,
) -> Result<Side> {
    match item {
        FromItem::Table { name, alias } if inner && !is_info_schema(sess, name) => {
            let h = resolve_table(sess, name)?;
            let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
            let scope = Scope {
                columns: table_scope(&h, &alias),
            };
            let filter = push
                .filter(|_| eligible)
                .and_then(|p| p.filter_for(&alias, &scope));
            Ok(Side::table(h, alias, lock, filter))
        }
        _ => relation_in(sess, item, lock, push, eligible).map(Side::Rows),
    }
}

/// The rows of a FROM item; `push`: WHERE conjuncts its base tables may apply as
/// they are read, where `eligible` (not under the NULL-extended side of an outer
/// join).
fn relation_in(
    sess: &mut Session,
    item: &FromItem,
    lock: Lock,
    push: Option<&super::join_push::Pushdown>,
    eligible: bool,
) -> Result<Relation> {
    let pushed = |alias: &str, scope: &Scope| {
        push.filter(|_| eligible)
            .and_then(|p| p.filter_for(alias, scope))
    };
    match item {
        FromItem::Table { name, alias } if is_info_schema(sess, name) => {
            info_schema_relation(sess, name, alias)
        }
        FromItem::Table { name, alias } => {
            let h = resolve_table(sess, name)?;
            let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
            let scope = Scope {
                columns: table_scope(&h, &alias),
            };
            let filter = pushed(&alias, &scope);
            let (keys, rows) = read_table(
                sess,
                &h,
                Some(&scope),
                filter.as_ref(),
                lock,
                false,
                None,
                None,
            )?;
            Ok(Relation {
                scope,
                tables: vec![SourceTable {
                    handle: h,
                    alias,
                    offset: 0,
                }],
                rows,
                keys,
            })
        }
        FromItem::Derived {
            select,
            alias,
            view,
        } => {
            let rows = run(sess, select).map_err(|e| match view {
                // A column the view's tables no longer have: the view is invalid.
                Some(v)
                    if e.code == ErrorKind::ER_BAD_FIELD_ERROR.code()
                        || e.code == ErrorKind::ER_VIEW_INVALID.code() =>
                {
                    KilnError::new(
                        ErrorKind::ER_VIEW_INVALID,
                        &[&v.schema.as_deref().unwrap_or_default(), &v.name],
                    )
                }
                _ => e,
            })?;
            Ok(Relation {
                scope: Scope {
                    columns: rows
                        .columns
                        .iter()
                        .map(|c| ScopeColumn {
                            table: alias.clone(),
                            name: c.name.clone(),
                            hidden: false,
                            text: coercion::ColumnText::of_result(c),
                            merged: false,
                        })
                        .collect(),
                },
                tables: Vec::new(),
                rows: rows.rows,
                keys: Vec::new(),
            })
        }
        FromItem::Join {
            left,
            right,
            kind,
            on,
            using,
            natural,
        } => {
            // The inner side, if a base table, is read as the join needs it
            // (join_index.rs); the preserved side is read first.
            // The NULL-extended side of an outer join takes no WHERE conjuncts.
            let (l_ok, r_ok) = match kind {
                JoinKind::Left => (eligible, false),
                JoinKind::Right => (false, eligible),
                _ => (eligible, eligible),
            };
            let right_inner = *kind != JoinKind::Right;
            let l = side_of(sess, left, lock, push, !right_inner, l_ok)?;
            let r = side_of(sess, right, lock, push, right_inner, r_ok)?;
            join_sides(sess, l, r, *kind, on.as_ref(), using, *natural)
        }
    }
}

/// Runs a SELECT with tables and returns its rows.
pub fn run(sess: &mut Session, s: &Select) -> Result<Rows> {
    let mut out = run_one(sess, s)?;
    let mut next = s.union.as_ref();
    let mut dedupe = false;
    while let Some((all, sel)) = next {
        let more = run_one(sess, sel)?;
        if more.columns.len() != out.columns.len() {
            return Err(ErrorKind::ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT.into());
        }
        for (c, m) in std::sync::Arc::make_mut(&mut out.columns)
            .iter_mut()
            .zip(more.columns.iter())
        {
            union_types::merge(c, m);
        }
        out.rows.extend(more.rows);
        dedupe |= !all;
        next = sel.union.as_ref();
    }
    if s.union.is_some() {
        union_types::convert(&out.columns, &mut out.rows);
    }
    // A UNION's columns compare under the first SELECT's column collations.
    let conn = crate::eval::Env::collation_connection(sess);
    let colls: Vec<Coll> = out
        .columns
        .iter()
        .map(|c| coercion::ColumnText::of_result(c).map_or(conn, |t| t.coll))
        .collect();
    if dedupe {
        distinct(&mut out.rows, colls.clone());
    }
    if !s.union_order.is_empty() {
        let mut keys = Vec::with_capacity(s.union_order.len());
        for o in &s.union_order {
            let i = match &o.expr {
                Expr::Literal(Value::Int(n)) if *n >= 1 && (*n as usize) <= out.columns.len() => {
                    *n as usize - 1
                }
                Expr::Column { name, .. } => out
                    .columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(name))
                    .ok_or_else(|| {
                        KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&name, &"order clause"])
                    })?,
                _ => {
                    return Err(KilnError::new(
                        ErrorKind::ER_NOT_SUPPORTED_YET,
                        &[&"expressions in a UNION's ORDER BY"],
                    ));
                }
            };
            keys.push((i, o.desc));
        }
        out.rows.sort_by(|a, b| {
            for (i, desc) in &keys {
                let o = order_cmp(&a[*i], &b[*i], colls[*i]);
                let o = if *desc { o.reverse() } else { o };
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
    }
    if s.union_limit.is_some() || s.union_offset.is_some() {
        let offset = match &s.union_offset {
            Some(e) => limit_value(sess, e)?,
            None => 0,
        };
        let limit = match &s.union_limit {
            Some(e) => limit_value(sess, e)?,
            None => u64::MAX,
        };
        out.rows = std::mem::take(&mut out.rows)
            .into_iter()
            .skip(offset.min(usize::MAX as u64) as usize)
            .take(limit.min(usize::MAX as u64) as usize)
            .collect();
    }
    Ok(out)
}

/// Whether a table-less SELECT needs the grouping machinery (aggregates, GROUP BY,
/// HAVING): it then runs over one empty row, as MySQL's implicit DUAL.
pub fn needs_dual(s: &Select) -> bool {
    s.from.is_empty()
        && (!s.group_by.is_empty()
            || s.having.is_some()
            || !s.windows.is_empty()
            || s.items
                .iter()
                .any(|i| contains_aggregate(&i.expr) || bind::window_in(&i.expr).is_some()))
}

/// Whether a SELECT uses window functions or windows anywhere in its own clauses
/// (then `check_windows` has run and their places are legal).
pub(crate) fn uses_windows(s: &Select) -> bool {
    !s.windows.is_empty()
        || s.items.iter().any(|i| bind::window_in(&i.expr).is_some())
        || s.order_by
            .iter()
            .any(|o| bind::window_in(&o.expr).is_some())
        || s.filter
            .as_ref()
            .is_some_and(|f| bind::window_in(f).is_some())
        || s.having
            .as_ref()
            .is_some_and(|h| bind::window_in(h).is_some())
        || s.group_by.iter().any(|g| bind::window_in(g).is_some())
}

/// MySQL's checks of where window functions stand, before anything runs: WHERE,
/// GROUP BY and HAVING may hold none (3593), nor name a select-list alias of an item
/// holding one (GROUP BY: 1247, HAVING: 3594); the WINDOW clause must be sound.
fn check_windows(s: &Select) -> Result<()> {
    let misplaced = |e: &Expr| match bind::window_in(e) {
        Some(n) => Err(KilnError::new(
            ErrorKind::ER_WINDOW_INVALID_WINDOW_FUNC_USE,
            &[&n],
        )),
        None => Ok(()),
    };
    if let Some(f) = &s.filter {
        misplaced(f)?;
    }
    let windowed_alias = |name: &str| {
        s.items
            .iter()
            .any(|i| i.name.eq_ignore_ascii_case(name) && bind::window_in(&i.expr).is_some())
    };
    for g in &s.group_by {
        misplaced(g)?;
        if let Expr::Column {
            qualifier: None,
            name,
        } = g
            && windowed_alias(name)
        {
            return Err(KilnError::new(
                ErrorKind::ER_ILLEGAL_REFERENCE,
                &[&name, &"reference to window function"],
            ));
        }
    }
    if let Some(h) = &s.having {
        misplaced(h)?;
        let mut alias = None;
        bind::visit(h, &mut |x| {
            if let Expr::Column {
                qualifier: None,
                name,
            } = x
                && alias.is_none()
                && windowed_alias(name)
            {
                alias = Some(name.clone());
            }
        });
        if let Some(a) = alias {
            return Err(KilnError::new(
                ErrorKind::ER_WINDOW_INVALID_WINDOW_FUNC_ALIAS_USE,
                &[&a],
            ));
        }
    }
    window::check_definitions(&s.windows)
}

fn run_one(sess: &mut Session, s: &Select) -> Result<Rows> {
    run_one_recorded(sess, s, None)
}

/// `run_one`, keeping in `rec` what a prepared statement's plan reuses
/// (prepared_plan.rs): the single table's bound read and the bound clauses.
pub(crate) fn run_one_recorded(
    sess: &mut Session,
    s: &Select,
    mut rec: Option<&mut Recorder>,
) -> Result<Rows> {
    // Without FROM: constant rows, unless aggregates make it a one-group query over
    // one empty row (`SELECT COUNT(*)` is 1, `SELECT - SUM(5)` is -5).
    if s.from.is_empty() && !needs_dual(s) {
        return sess.select_without_tables(s);
    }
    check_unique_aliases(&s.from)?;
    let has_windows = uses_windows(s);
    if has_windows {
        check_windows(s)?;
    }
    let filter = match &s.filter {
        Some(f) => Some(run_subqueries(sess, f)?),
        None => None,
    };
    let lock = lock_of(s);
    let (rel, filtered, ordered) = if s.from.is_empty() {
        (
            Relation {
                scope: Scope::default(),
                tables: Vec::new(),
                rows: vec![Vec::new()],
                keys: Vec::new(),
            },
            false,
            false,
        )
    } else if let Some(x) = super::minmax::plan(sess, s, filter.as_ref(), lock)? {
        (super::minmax::read(sess, x)?, true, false)
    } else {
        from_clause(
            sess,
            &s.from,
            filter.as_ref(),
            lock,
            Some(s),
            rec.as_deref_mut(),
        )?
    };
    let mut rows = rel.rows;
    let scope = rel.scope;
    if !filtered && let Some(f) = &filter {
        let b = bind(f, &scope, "where clause")?;
        if contains_aggregate(&b) {
            return Err(ErrorKind::ER_INVALID_GROUP_FUNC_USE.into());
        }
        let mut kept = Vec::with_capacity(rows.len());
        for r in rows {
            let mut re = RowEnv {
                inner: sess,
                row: &r,
                scope: Some(&scope),
            };
            if eval(&b, &mut re)?.to_bool() == Some(true) {
                kept.push(r);
            }
        }
        rows = kept;
    }
    let clauses = super::select_stage::bind_clauses(sess, s, &scope, &rel.tables, has_windows)?;
    let r = super::select_stage::finish(
        sess,
        s,
        &clauses,
        &scope,
        &rel.tables,
        rows,
        ordered,
        has_windows,
    );
    if let Some(rec) = rec {
        rec.clauses = Some(clauses);
    }
    r
}

/// Compares two rows' ORDER BY keys: each key ascending or descending, NULLs first,
/// strings under the key's collation (`colls[i]`).
pub fn cmp_keys(a: &[Value], b: &[Value], desc: &[bool], colls: &[Coll]) -> std::cmp::Ordering {
    for (i, d) in desc.iter().enumerate() {
        let o = order_cmp(&a[i], &b[i], colls.get(i).copied().unwrap_or(Coll::DEFAULT));
        let o = if *d { o.reverse() } else { o };
        if o != std::cmp::Ordering::Equal {
            return o;
        }
    }
    std::cmp::Ordering::Equal
}

pub(crate) fn limit_value(sess: &mut Session, e: &Expr) -> Result<u64> {
    let v = eval(e, sess)?;
    match v {
        Value::Int(i) if i >= 0 => Ok(i as u64),
        Value::UInt(u) => Ok(u),
        _ => Err(KilnError::new(ErrorKind::ER_WRONG_ARGUMENTS, &[&"LIMIT"])),
    }
}

/// ORDER BY comparison: NULLs first, then MySQL's comparison (strings under `coll`).
fn order_cmp(a: &Value, b: &Value, coll: Coll) -> std::cmp::Ordering {
    // A key whose values are of different kinds (`CASE … THEN id ELSE CONCAT(…)`)
    // must still be a total order: mixed number / string / binary comparisons are
    // not transitive, and a sort given an inconsistent order may panic. Values of
    // different kinds order by kind (numbers, then strings, then binary strings);
    // MySQL would type such a key as a string and compare all values as text.
    fn kind(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_) => 1,
            Value::Str(_) => 2,
            Value::Bytes(_) => 3,
        }
    }
    match (kind(a), kind(b)) {
        (x, y) if x != y => x.cmp(&y),
        (0, _) => std::cmp::Ordering::Equal,
        _ => compare_in(a, b, coll).unwrap_or(std::cmp::Ordering::Equal),
    }
}
