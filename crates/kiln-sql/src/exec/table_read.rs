//! Reading one base table for a query: choosing its access path from the WHERE
//! conjuncts bound to it (access.rs, covering.rs, index_order.rs) and reading its rows
//! through that path, WHERE applied as they are read. select.rs (single-table FROM,
//! joins' sides), DML and prepared plans (prepared_plan.rs, which choose the path from
//! a replayed shape) read through here.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use super::RowEnv;
use super::access::{self, Lock, Trace};
use super::bind::{Scope, conjuncts};
use super::int_filter::IntFilter;
use super::select::{KeyedRows, ROWS_IN_MEMORY_MAX, has_subquery};
use crate::ast::Expr;
use crate::dict::TableHandle;
use crate::eval::eval;
use crate::session::Session;

/// Reads one base table, using the conjuncts of `filter` that concern it alone to pick
/// an access path. `filter` is bound to the table's own slots.
#[allow(clippy::too_many_arguments)]
pub fn read_table(
    sess: &mut Session,
    h: &Arc<TableHandle>,
    scope: Option<&Scope>,
    filter: Option<&Expr>,
    lock: Lock,
    descending: bool,
    limit: Option<usize>,
    needed: Option<&[bool]>,
) -> Result<KeyedRows> {
    let conj: Vec<&Expr> = filter.map(conjuncts).unwrap_or_default();
    let plan = access::plan_detail(h, &conj, sess)?;
    read_planned(
        sess, h, scope, filter, lock, plan, descending, limit, needed,
    )
}

/// `read_table` for a SELECT: a covering read where the query's `needed` columns
/// allow (covering.rs), in ORDER BY order where an index gives it (index_order.rs).
/// Returns the rows and whether they already are in `order`'s order.
pub fn read_table_ordered(
    sess: &mut Session,
    h: &Arc<TableHandle>,
    scope: Option<&Scope>,
    filter: Option<&Expr>,
    lock: Lock,
    needed: Option<&[bool]>,
    order: Option<&super::index_order::OrderReq>,
) -> Result<(KeyedRows, bool)> {
    let conj: Vec<&Expr> = filter.map(conjuncts).unwrap_or_default();
    let (plan, ordered) = choose_read(h, &conj, sess, lock, needed, order, &mut Trace::off())?;
    let limit = order.and_then(|o| o.limit);
    let scan = TableScan {
        h,
        scope,
        filter,
        lock,
        needed,
    };
    read_chosen(sess, scan, plan, ordered, limit)
}

/// The access path of `read_table_ordered` (and whether it reads in `order`'s order,
/// backwards if Some(true)), recording in `tr` what the choice depended on.
pub(crate) fn choose_read(
    h: &TableHandle,
    conj: &[&Expr],
    env: &mut dyn crate::eval::Env,
    lock: Lock,
    needed: Option<&[bool]>,
    order: Option<&super::index_order::OrderReq>,
    tr: &mut Trace,
) -> Result<(access::Plan, Option<bool>)> {
    if lock != Lock::None {
        return Ok((access::plan_among_traced(h, conj, env, None, tr)?, None));
    }
    super::index_order::plan_ordered_traced(h, conj, env, needed, order, tr)
}

/// A single-table read: the table, the scope and bound filter its rows are checked
/// with, the lock, the columns to decode.
pub(crate) struct TableScan<'a> {
    pub h: &'a Arc<TableHandle>,
    pub scope: Option<&'a Scope>,
    pub filter: Option<&'a Expr>,
    pub lock: Lock,
    pub needed: Option<&'a [bool]>,
}

/// Reads through the access path `choose_read` chose; `limit`: the ORDER BY's LIMIT +
/// OFFSET (where an index read in that order stops).
pub(crate) fn read_chosen(
    sess: &mut Session,
    t: TableScan<'_>,
    plan: access::Plan,
    ordered: Option<bool>,
    limit: Option<u64>,
) -> Result<(KeyedRows, bool)> {
    let (descending, limit) = match ordered {
        Some(d) if t.lock == Lock::None => (d, limit.map(|l| l.min(usize::MAX as u64) as usize)),
        _ => (false, None),
    };
    let rows = read_planned(
        sess, t.h, t.scope, t.filter, t.lock, plan, descending, limit, t.needed,
    )?;
    Ok((rows, ordered.is_some() && t.lock == Lock::None))
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn read_planned(
    sess: &mut Session,
    h: &Arc<TableHandle>,
    scope: Option<&Scope>,
    filter: Option<&Expr>,
    lock: Lock,
    plan: access::Plan,
    descending: bool,
    limit: Option<usize>,
    needed: Option<&[bool]>,
) -> Result<KeyedRows> {
    let (acc, covering) = (plan.access, plan.covering);
    let (inline, after) = match filter {
        Some(f) if has_subquery(f) => (None, Some(f)),
        f => (f, None),
    };
    let limit = if after.is_some() { None } else { limit };
    let filter = inline;
    // A WHERE of integer comparisons with constants (`id BETWEEN ? AND ?`) is checked
    // without the evaluator (int_filter.rs); rows it cannot decide still go to `eval`.
    let fast = filter.and_then(|f| IntFilter::of(f, sess));
    sess.note_access(&acc);
    let mut keys = Vec::new();
    let mut rows = Vec::new();
    let interrupt = sess.interrupt.clone();
    let mut examined = 0u64;
    sess.with_trx(|env, trx| {
        access::fetch(
            trx,
            h,
            &acc,
            lock,
            descending,
            needed,
            covering,
            &mut |pk, row| {
                examined += 1;
                if examined.is_multiple_of(4096)
                    && interrupt.load(std::sync::atomic::Ordering::Relaxed) != 0
                {
                    return Err(ErrorKind::ER_QUERY_INTERRUPTED.into());
                }
                if let Some(f) = filter {
                    let pass = match fast.as_ref().and_then(|x| x.check(&row)) {
                        Some(pass) => pass,
                        None => {
                            let mut re = RowEnv {
                                inner: &mut *env,
                                row: &row,
                                scope,
                            };
                            eval(f, &mut re)?.to_bool() == Some(true)
                        }
                    };
                    if !pass {
                        return Ok(true);
                    }
                }
                if lock != Lock::None {
                    // Locking reads feed UPDATE/DELETE, which need each row's key.
                    keys.push(pk.to_vec());
                }
                rows.push(row);
                if rows.len() > ROWS_IN_MEMORY_MAX {
                    return Err(KilnError::with_message(
                        ErrorKind::ER_OUT_OF_RESOURCES,
                        "Out of memory: the result has too many rows",
                    ));
                }
                Ok(limit.is_none_or(|l| rows.len() < l))
            },
        )
    })?;
    // MySQL counts the rows the engine hands over, before the WHERE (no ICP here).
    sess.rows_read(h, examined);
    if let Some(f) = after {
        let (mut k2, mut r2) = (Vec::new(), Vec::new());
        let mut keys = keys.into_iter();
        for r in rows {
            let k = keys.next();
            let mut re = RowEnv {
                inner: sess,
                row: &r,
                scope,
            };
            if eval(f, &mut re)?.to_bool() == Some(true) {
                k2.extend(k);
                r2.push(r);
            }
        }
        return Ok((k2, r2));
    }
    Ok((keys, rows))
}
