//! The stages of a SELECT after its FROM clause: binding the select list, HAVING,
//! ORDER BY and GROUP BY to the FROM clause's scope (`bind_clauses`, which depends on
//! the statement, the scope, sql_mode and the connection collation, never on a row or
//! a parameter's value), and running them over the rows read (`finish`: grouping and
//! aggregates, HAVING, window functions, DISTINCT, ORDER BY, LIMIT / OFFSET, the
//! result metadata). select.rs runs both for every SELECT; a prepared statement's plan
//! (prepared_plan.rs) keeps the `Clauses` of its first execution and runs `finish`.

use std::borrow::Cow;

use kiln_common::{ErrorKind, KilnError, Result};

use super::RowEnv;
use super::bind::{self, Scope, bind, contains_aggregate, is_aggregate};
use super::coltype::{column_info, numeric_temporals};
use super::group::{Distinct, check_full_group_by, group};
use super::select::{SourceTable, limit_value, run_subqueries};
use super::window;
use crate::ast::*;
use crate::coercion;
use crate::collate::Coll;
use crate::eval::eval;
use crate::result::Rows;
use crate::session::Session;
use crate::value::Value;

/// An ORDER BY key: a select-list position, or an expression over the scope.
#[derive(Clone)]
pub(crate) enum OrderKey {
    Item(usize),
    Expr(Expr),
}

/// A SELECT's clauses bound to its FROM clause's scope.
#[derive(Clone)]
pub(crate) struct Clauses {
    /// The select list, `*` expanded, aggregates lifted to slots past the row.
    items: Vec<(Expr, String)>,
    order: Vec<(OrderKey, bool)>,
    /// Collations of the items (DISTINCT) and of the ORDER BY keys.
    item_colls: Vec<Coll>,
    order_colls: Vec<Coll>,
    grouped: bool,
    group_by: Vec<Expr>,
    /// The aggregate calls (grouped queries), in slot order past `width`.
    aggs: Vec<Expr>,
    having: Option<Expr>,
    /// Slots of the FROM clause's row.
    width: usize,
}

/// Binds `s`'s select list, HAVING, ORDER BY and GROUP BY to `scope` (the FROM
/// clause's columns; `tables` its base tables). Errors are the statement's: unknown
/// columns, misplaced aggregates, ONLY_FULL_GROUP_BY.
/// A select-list or ORDER BY expression bound over `scope`: named windows
/// (`OVER w`) resolved against the WINDOW clause first, then uncorrelated subqueries
/// run, then columns bound; `clause` names the clause in an unknown-column error.
fn bind_clause_expr(
    sess: &mut Session,
    s: &Select,
    scope: &Scope,
    has_windows: bool,
    e: &Expr,
    clause: &str,
) -> Result<Expr> {
    let resolved;
    let e = if has_windows {
        resolved = window::resolve(e, &s.windows)?;
        &resolved
    } else {
        e
    };
    let e = run_subqueries(sess, e)?;
    bind(&e, scope, clause)
}

pub(crate) fn bind_clauses(
    sess: &mut Session,
    s: &Select,
    scope: &Scope,
    tables: &[SourceTable],
    has_windows: bool,
) -> Result<Clauses> {
    // The select list, with * expanded.
    let mut items: Vec<(Expr, String)> = Vec::new();
    for item in &s.items {
        match &item.expr {
            Expr::Column { qualifier, name } if name == "*" => {
                let before = items.len();
                for (i, c) in scope.columns.iter().enumerate() {
                    if !c.in_star(qualifier.as_deref()) {
                        continue;
                    }
                    items.push((Expr::Slot(i), c.name.clone()));
                }
                if items.len() == before
                    && let Some(q) = qualifier
                {
                    return Err(KilnError::new(ErrorKind::ER_BAD_TABLE_ERROR, &[&q]));
                }
            }
            e => {
                let b = bind_clause_expr(sess, s, scope, has_windows, e, "field list")?;
                items.push((numeric_temporals(&b, tables), item.name.clone()));
            }
        }
    }
    let having = match &s.having {
        Some(h) => Some(run_subqueries(sess, h)?),
        None => None,
    };
    // ORDER BY: a position, a select-list alias, or an expression over the scope.
    let mut order: Vec<(OrderKey, bool)> = Vec::new();
    for o in &s.order_by {
        let key = match &o.expr {
            Expr::Literal(Value::Int(n)) => {
                let n = *n;
                if n < 1 || n as usize > items.len() {
                    return Err(KilnError::new(
                        ErrorKind::ER_BAD_FIELD_ERROR,
                        &[&n, &"order clause"],
                    ));
                }
                OrderKey::Item(n as usize - 1)
            }
            Expr::Column {
                qualifier: None,
                name,
            } if scope.resolve(None, name, "order clause").is_err()
                && items.iter().any(|(_, n)| n.eq_ignore_ascii_case(name)) =>
            {
                OrderKey::Item(
                    items
                        .iter()
                        .position(|(_, n)| n.eq_ignore_ascii_case(name))
                        .expect("checked"),
                )
            }
            // (An alias inside an expression is not allowed: binding fails as MySQL's.)
            e => OrderKey::Expr(bind_clause_expr(
                sess,
                s,
                scope,
                has_windows,
                e,
                "order clause",
            )?),
        };
        // ENUM/SET sort by member number / mask.
        let key = match key {
            OrderKey::Item(i) if matches!(items[i].0, Expr::Slot(_)) => {
                match crate::coercion::numeric_use(items[i].0.clone(), scope) {
                    e @ Expr::EnumIndex { .. } => OrderKey::Expr(e),
                    _ => OrderKey::Item(i),
                }
            }
            OrderKey::Expr(e) => OrderKey::Expr(crate::coercion::numeric_use(e, scope)),
            k => k,
        };
        order.push((key, o.desc));
    }
    let conn = crate::eval::Env::collation_connection(sess);
    // (before aggregates become slots, so that MIN(s) keeps the collation of s)
    let item_colls: Vec<Coll> = if s.distinct {
        items
            .iter()
            .map(|(e, _)| coercion::coll_of(e, scope, conn))
            .collect()
    } else {
        Vec::new()
    };
    let order_colls: Vec<Coll> = order
        .iter()
        .map(|(k, _)| match k {
            OrderKey::Item(i) => coercion::coll_of(&items[*i].0, scope, conn),
            OrderKey::Expr(e) => coercion::coll_of(e, scope, conn),
        })
        .collect();

    let grouped = !s.group_by.is_empty()
        || items.iter().any(|(e, _)| contains_aggregate(e))
        || having.as_ref().is_some_and(contains_aggregate)
        || order
            .iter()
            .any(|(k, _)| matches!(k, OrderKey::Expr(e) if contains_aggregate(e)));
    let width = scope.columns.len();
    let mut having_b = None;
    let mut group_by: Vec<Expr> = Vec::new();
    let mut agg_calls: Vec<Expr> = Vec::new();
    if grouped {
        group_by = s
            .group_by
            .iter()
            .map(|g| match g {
                Expr::Literal(Value::Int(n)) if *n >= 1 && (*n as usize) <= items.len() => {
                    Ok(items[*n as usize - 1].0.clone())
                }
                Expr::Column {
                    qualifier: None,
                    name,
                } if scope.resolve(None, name, "group statement").is_err() => items
                    .iter()
                    .find(|(_, n)| n.eq_ignore_ascii_case(name))
                    .map(|(e, _)| e.clone())
                    .ok_or_else(|| {
                        KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&name, &"group statement"])
                    }),
                g => bind(g, scope, "group statement"),
            })
            .collect::<Result<_>>()?;
        // Pull the aggregate calls out of every post-grouping expression.
        let mut aggs: Vec<Expr> = Vec::new();
        let mut lift = |e: &Expr| -> Result<Expr> {
            bind::rewrite(e, &mut |x| match x {
                Expr::Func { name, args } if is_aggregate(name) => {
                    if args.iter().any(contains_aggregate) {
                        return Err(ErrorKind::ER_INVALID_GROUP_FUNC_USE.into());
                    }
                    let pos = aggs.iter().position(|a| a == x).unwrap_or_else(|| {
                        aggs.push(x.clone());
                        aggs.len() - 1
                    });
                    Ok(Some(Expr::Slot(width + pos)))
                }
                _ => Ok(None),
            })
        };
        for (e, _) in &mut items {
            *e = lift(e)?;
        }
        for (k, _) in &mut order {
            if let OrderKey::Expr(e) = k {
                *e = lift(e)?;
            }
        }
        if let Some(h) = &having {
            // HAVING may name select-list aliases.
            let h = having_aliases(h, scope, &items)?;
            having_b = Some(lift(&bind(&h, scope, "having clause")?)?);
        }
        if sess.sql_mode_has("ONLY_FULL_GROUP_BY") {
            check_full_group_by(&items, &group_by, scope, tables, width)?;
        }
        agg_calls = aggs;
    } else if let Some(h) = &having {
        let h = having_aliases(h, scope, &items)?;
        having_b = Some(bind(&h, scope, "having clause")?);
    }
    Ok(Clauses {
        items,
        order,
        item_colls,
        order_colls,
        grouped,
        group_by,
        aggs: agg_calls,
        having: having_b,
        width,
    })
}

/// Runs the bound clauses `c` of `s` over `rows` (already filtered by WHERE;
/// `ordered`: already in ORDER BY order and cut at LIMIT + OFFSET).
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish(
    sess: &mut Session,
    s: &Select,
    c: &Clauses,
    scope: &Scope,
    tables: &[SourceTable],
    mut rows: Vec<Vec<Value>>,
    ordered: bool,
    has_windows: bool,
) -> Result<Rows> {
    let width = c.width;
    let grouped = c.grouped;
    let item_colls = &c.item_colls;
    let order_colls = &c.order_colls;
    if grouped {
        rows = group(sess, scope, rows, &c.group_by, &c.aggs, width)?;
    }
    let agg_calls: &[Expr] = if grouped { &c.aggs } else { &[] };
    let mut items = Cow::Borrowed(c.items.as_slice());
    let mut order = Cow::Borrowed(c.order.as_slice());
    if let Some(h) = &c.having {
        let mut kept = Vec::with_capacity(rows.len());
        for r in rows {
            let mut re = RowEnv {
                inner: sess,
                row: &r,
                scope: Some(scope),
            };
            if eval(h, &mut re)?.to_bool() == Some(true) {
                kept.push(r);
            }
        }
        rows = kept;
    }
    // Window functions: evaluated over the rows as grouped and filtered, into slots
    // past them (exec/window.rs).
    let mut win_calls: Vec<WindowFunc> = Vec::new();
    if has_windows {
        let base = if grouped {
            width + agg_calls.len()
        } else {
            width
        };
        for (e, _) in items.to_mut().iter_mut() {
            *e = window::lift(e, &mut win_calls, base)?;
        }
        for (k, _) in order.to_mut().iter_mut() {
            if let OrderKey::Expr(e) = k {
                *e = window::lift(e, &mut win_calls, base)?;
            }
        }
        if !win_calls.is_empty() {
            let aggs = agg_calls;
            let slot_kind = |slot: usize| {
                if slot >= width {
                    let call = aggs.get(slot - width)?;
                    return crate::infer::kind_of_expr(call, &|s| {
                        super::coltype::table_slot_kind(tables, s)
                    });
                }
                super::coltype::table_slot_kind(tables, slot)
            };
            window::compute(sess, scope, &mut rows, &win_calls, &slot_kind)?;
        }
    }
    // DISTINCT by the sort when ORDER BY lists every select item under the item's own
    // collation (sysbench's `SELECT DISTINCT c … ORDER BY c`): equal rows then sort
    // next to each other, and the stable sort keeps the first one met, as the hash
    // would. Saves hashing every string's weights.
    // (`ORDER BY c` binds to the column's slot, the item `c` too: the same value)
    let item_of = |k: &OrderKey| match k {
        OrderKey::Item(i) => Some(*i),
        OrderKey::Expr(e @ Expr::Slot(_)) => items.iter().position(|(x, _)| x == e),
        OrderKey::Expr(_) => None,
    };
    let distinct_by_sort = s.distinct
        && !items.is_empty()
        && order.iter().enumerate().all(|(pos, (k, _))| {
            item_of(k).is_some_and(|i| {
                item_colls.get(i).map(Coll::name) == order_colls.get(pos).map(Coll::name)
            })
        })
        && (0..items.len()).all(|i| order.iter().any(|(k, _)| item_of(k) == Some(i)));
    let offset = match &s.offset {
        Some(e) => limit_value(sess, e)?,
        None => 0,
    };
    let limit = match &s.limit {
        Some(e) => limit_value(sess, e)?,
        None => u64::MAX,
    };
    // Project, keeping the ORDER BY keys beside each output row, into the sort
    // (filesort.rs) unless the rows were read in index order (index_order.rs).
    let mut seen =
        (s.distinct && !distinct_by_sort).then(|| Distinct::with_colls(item_colls.to_vec()));
    let mut sink = if !order.is_empty() && !ordered {
        let spec = super::filesort::SortSpec {
            desc: order.iter().map(|(_, d)| *d).collect(),
            colls: order_colls.to_vec(),
        };
        // Top-N keeps LIMIT + OFFSET rows; not when the sort also deduplicates.
        let top = (!distinct_by_sort && limit != u64::MAX).then(|| limit.saturating_add(offset));
        let n = rows.len();
        super::filesort::RowSink::Sort(super::filesort::sorter_for(sess, spec, top, n)?)
    } else {
        super::filesort::RowSink::Keep(Vec::with_capacity(rows.len()))
    };
    for r in rows {
        let mut re = RowEnv {
            inner: sess,
            row: &r,
            scope: Some(scope),
        };
        let mut vals = Vec::with_capacity(items.len());
        for (e, _) in items.iter() {
            vals.push(eval(e, &mut re)?);
        }
        let mut keys = Vec::with_capacity(order.len());
        for (k, _) in order.iter() {
            keys.push(match k {
                OrderKey::Item(i) => vals[*i].clone(),
                OrderKey::Expr(e) => eval(e, &mut re)?,
            });
        }
        if let Some(seen) = &mut seen
            && !seen.insert(&vals)
        {
            continue;
        }
        sink.push((vals, keys))?;
    }
    let sorted = sink.finish(sess)?;
    let dedup = distinct_by_sort.then_some(item_colls.as_slice());
    let rows = super::filesort::cut(sorted, dedup, offset, limit)?;
    // Window results are typed as the slots past the aggregates.
    let post_calls: Vec<Expr> = agg_calls
        .iter()
        .cloned()
        .chain(win_calls.into_iter().map(|w| Expr::Window(Box::new(w))))
        .collect();
    let typed_grouped = grouped || !post_calls.is_empty();
    let columns = items
        .iter()
        .enumerate()
        .map(|(i, (e, name))| {
            column_info(e, name, tables, scope, typed_grouped, &post_calls, &rows, i)
        })
        .collect::<Vec<_>>();
    Ok(Rows {
        columns: columns.into(),
        rows,
    })
}

/// HAVING may name select-list aliases: those become the items' expressions (already
/// bound to slots).
fn having_aliases(h: &Expr, scope: &Scope, items: &[(Expr, String)]) -> Result<Expr> {
    bind::rewrite(h, &mut |x| match x {
        Expr::Column {
            qualifier: None,
            name,
        } if scope.resolve(None, name, "having clause").is_err() => Ok(items
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|(e, _)| e.clone())),
        _ => Ok(None),
    })
}
