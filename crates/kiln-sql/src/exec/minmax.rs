//! MIN / MAX from an index end: `SELECT MIN(c), MAX(d), ... FROM t [WHERE ...]`
//! reads, for each item, only the first row in the column's index order that passes
//! WHERE and has the column NOT NULL (index_order.rs with LIMIT 1, backwards for MAX),
//! instead of every row. MySQL's "Select tables optimized away".
//!
//! The aggregation itself still runs, over those rows (at most one per item): they are
//! rows of the table that pass WHERE, and they hold every item's extreme, so each
//! MIN / MAX over them is the one over the whole table — with the general path's value,
//! type and result metadata. No rows (an empty table, nothing passes) gives NULLs, as
//! the general path does.
//!
//! Applies when: one base table; no GROUP BY, HAVING, ORDER BY, LIMIT, window, UNION
//! or locking clause; every select item is MIN or MAX of one of the table's columns; a
//! WHERE without side effects; and each item's read is in index order over a bounded
//! range — with a WHERE, the index read must be constrained by it (a key prefix `k =
//! 5`, a range `id < 100`), so that a WHERE that no index serves never turns into one
//! scan per item. Index order exists for integer, YEAR, DECIMAL, FLOAT / DOUBLE and
//! character columns under their own collation (index_order.rs); MIN / MAX of other
//! types (temporal, binary, ENUM) read every row as before.

use std::sync::Arc;

use kiln_common::Result;

use super::access::{Lock, Plan};
use super::bind::{self, Scope, bind, conjuncts};
use super::index_order;
use super::select::{
    Relation, SourceTable, is_info_schema, needed_columns, read_planned, resolve_table,
    table_scope, uses_windows,
};
use crate::ast::{BinaryOp, Expr, FromItem, OrderItem, Select, SelectItem};
use crate::dict::TableHandle;
use crate::session::Session;
use crate::value::Value;

/// Items a query may have for this path (each is one index read).
const ITEMS_MAX: usize = 16;

/// Functions a WHERE must not call here: they act (or draw) once per row evaluated,
/// and this path evaluates WHERE on fewer rows than a scan would.
const ROW_EFFECT_FUNCTIONS: &[&str] = &[
    "sleep",
    "get_lock",
    "release_lock",
    "release_all_locks",
    "rand",
    "uuid",
    "uuid_short",
    "last_insert_id",
    "benchmark",
    "nextval",
];

/// One item's read: the plan that reads the column in order, in which direction, and
/// WHERE with `column IS NOT NULL`, bound to the table's scope.
struct ItemRead {
    plan: Plan,
    descending: bool,
    filter: Expr,
}

/// The reads that answer a MIN / MAX query, if it has the shape (module comment).
pub(crate) struct Extremes {
    handle: Arc<TableHandle>,
    alias: String,
    scope: Scope,
    needed: Option<Vec<bool>>,
    reads: Vec<ItemRead>,
}

/// Plans `s` (whose WHERE is `filter`, subqueries already replaced by their results)
/// as index-end reads. None: not this shape, or some item's read would not be in index
/// order over a bounded range; the general path runs.
pub(crate) fn plan(
    sess: &mut Session,
    s: &Select,
    filter: Option<&Expr>,
    lock: Lock,
) -> Result<Option<Extremes>> {
    let [FromItem::Table { name, alias }] = s.from.as_slice() else {
        return Ok(None);
    };
    if lock != Lock::None
        || s.lock.is_some()
        || !s.group_by.is_empty()
        || s.having.is_some()
        || !s.order_by.is_empty()
        || s.limit.is_some()
        || s.offset.is_some()
        || s.union.is_some()
        || s.items.is_empty()
        || s.items.len() > ITEMS_MAX
        || uses_windows(s)
        || filter.is_some_and(|f| !without_row_effects(f))
        || is_info_schema(sess, name)
    {
        return Ok(None);
    }
    let mut columns = Vec::with_capacity(s.items.len());
    for item in &s.items {
        match &item.expr {
            Expr::Func { name, args } if args.len() == 1 => {
                let descending = match name.strip_suffix(" distinct").unwrap_or(name) {
                    "min" => false,
                    "max" => true,
                    _ => return Ok(None),
                };
                match &args[0] {
                    c @ Expr::Column { name, .. } if name != "*" => {
                        columns.push((c.clone(), descending))
                    }
                    _ => return Ok(None),
                }
            }
            _ => return Ok(None),
        }
    }
    let h = resolve_table(sess, name)?;
    let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
    let scope = Scope {
        columns: table_scope(&h, &alias),
    };
    // A column that does not resolve is the general path's error to report (with its
    // wording: "field list").
    if columns
        .iter()
        .any(|(c, _)| bind(c, &scope, "field list").is_err())
    {
        return Ok(None);
    }
    let items: Vec<SelectItem> = columns
        .iter()
        .map(|(c, _)| SelectItem {
            expr: c.clone(),
            name: String::new(),
        })
        .collect();
    let mut needed = None;
    let mut reads = Vec::with_capacity(columns.len());
    for (column, descending) in &columns {
        let not_null = Expr::IsNull {
            expr: Box::new(column.clone()),
            negated: true,
        };
        let item_filter = match filter {
            Some(f) => Expr::Binary {
                op: BinaryOp::And,
                left: Box::new(f.clone()),
                right: Box::new(not_null),
            },
            None => not_null,
        };
        // The read as a query of its own: SELECT <columns> FROM t WHERE <filter> AND
        // c IS NOT NULL ORDER BY c [DESC] LIMIT 1.
        let first = Select {
            items: items.clone(),
            from: s.from.clone(),
            filter: Some(item_filter),
            order_by: vec![OrderItem {
                expr: column.clone(),
                desc: *descending,
            }],
            limit: Some(Expr::Literal(Value::Int(1))),
            ..Select::empty()
        };
        let Some(req) = index_order::request(sess, &first, &h, &scope) else {
            return Ok(None);
        };
        let bound = bind(first.filter.as_ref().expect("set"), &scope, "where clause")?;
        if bind::contains_aggregate(&bound) {
            return Ok(None); // the general path reports 1111
        }
        if needed.is_none() {
            needed = Some(needed_columns(Some(&first), &h));
        }
        let need = needed.as_ref().expect("set").as_deref();
        let conj = conjuncts(&bound);
        let (plan, ordered) = index_order::plan_ordered(&h, &conj, sess, need, Some(&req))?;
        let Some(descending) = ordered else {
            return Ok(None);
        };
        if filter.is_some() && plan.full_index {
            return Ok(None);
        }
        reads.push(ItemRead {
            plan,
            descending,
            filter: bound,
        });
    }
    Ok(Some(Extremes {
        handle: h,
        alias,
        scope,
        needed: needed.flatten(),
        reads,
    }))
}

/// Reads the rows the plan names: the FROM relation the aggregation then runs over.
pub(crate) fn read(sess: &mut Session, x: Extremes) -> Result<Relation> {
    let mut rows = Vec::with_capacity(x.reads.len());
    for r in x.reads {
        let (_, found) = read_planned(
            sess,
            &x.handle,
            Some(&x.scope),
            Some(&r.filter),
            Lock::None,
            r.plan,
            r.descending,
            Some(1),
            x.needed.as_deref(),
        )?;
        rows.extend(found);
    }
    Ok(Relation {
        scope: x.scope,
        tables: vec![SourceTable {
            handle: x.handle,
            alias: x.alias,
            offset: 0,
        }],
        rows,
        keys: Vec::new(),
    })
}

/// Whether evaluating `e` on fewer rows than a scan would is unobservable: no
/// assignment, no function that acts or draws per call.
fn without_row_effects(e: &Expr) -> bool {
    let mut ok = true;
    bind::visit(e, &mut |x| match x {
        Expr::Assign { .. } => ok = false,
        Expr::Func { name, .. } if ROW_EFFECT_FUNCTIONS.contains(&name.as_str()) => ok = false,
        _ => {}
    });
    ok
}
