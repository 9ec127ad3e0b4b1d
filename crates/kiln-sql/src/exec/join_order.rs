//! Join order for a FROM clause of inner joins of base tables (comma lists, JOIN /
//! INNER JOIN / CROSS JOIN with ON): a simple cost model picks the order the tables
//! are read in; the joined row keeps the written order (SELECT * lists the columns as
//! written).
//!
//! Each table's rows are estimated after the WHERE conjuncts on it alone
//! (join_push.rs): nothing for an impossible condition, the keys of a point read, the
//! entries another key read covers (an index dive counting up to `DIVE_MAX`, past
//! that a tenth of the table), else the table's row estimate (what SHOW TABLE STATUS
//! and EXPLAIN show). The smallest drives; then, greedily, the
//! next table is one an index nested loop can read per row of the tables before it
//! (join_index.rs `choose`), else one some condition joins to them (a hash join),
//! else the smallest; ties keep the written order. Every ON conjunct (its columns
//! qualified by the tables of its own join, where MySQL resolves them) and every
//! WHERE conjunct naming several tables joins the step where its last table comes in.
//!
//! Not reordered: LEFT / RIGHT joins, USING / NATURAL, derived and
//! information_schema tables, STRAIGHT_JOIN, conditions that are not deterministic
//! or name columns of no known table (correlated references), and orders that come
//! out as written (then select.rs joins as written).

use std::sync::Arc;

use kiln_common::Result;

use super::access::{self, Access, Lock};
use super::bind::{self, Scope, bind, conjuncts};
use super::join::{Side, deterministic, join_sides};
use super::join_push::Pushdown;
use super::select::{
    Relation, SourceTable, is_info_schema, read_table, resolve_table, table_scope,
};
use crate::ast::{BinaryOp, Expr, FromItem, JoinKind};
use crate::dict::TableHandle;
use crate::session::Session;

/// Tables at most reordered (the greedy choice is quadratic in them).
pub const ORDER_TABLES_MAX: usize = 32;

/// Index entries an estimate counts before it settles for a tenth of the table.
pub const DIVE_MAX: u64 = 1_000;

/// The order chosen for a FROM clause.
pub(crate) struct Order {
    /// Tables in the order they are read: (handle, alias).
    pub tables: Vec<(Arc<TableHandle>, String)>,
    /// Aliases in written order.
    pub written: Vec<String>,
    /// Per table, the condition joining it to the ones before (None for the first).
    pub on: Vec<Option<Expr>>,
}

/// A leaf of the flattened FROM clause.
struct Leaf {
    h: Arc<TableHandle>,
    alias: String,
}

/// Flattens inner joins of base tables; false if the clause has anything else.
fn flatten(
    sess: &mut Session,
    item: &FromItem,
    leaves: &mut Vec<Leaf>,
    conds: &mut Vec<(Vec<String>, Expr)>,
) -> Result<bool> {
    match item {
        FromItem::Table { name, .. } if is_info_schema(sess, name) => Ok(false),
        FromItem::Table { name, alias } => {
            let h = resolve_table(sess, name)?;
            let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
            leaves.push(Leaf { h, alias });
            Ok(true)
        }
        FromItem::Derived { .. } => Ok(false),
        FromItem::Join {
            left,
            right,
            kind: JoinKind::Inner | JoinKind::Cross,
            on,
            using,
            natural: false,
        } if using.is_empty() => {
            let start = leaves.len();
            if !flatten(sess, left, leaves, conds)? || !flatten(sess, right, leaves, conds)? {
                return Ok(false);
            }
            for c in on.iter().flat_map(conjuncts) {
                match qualify(c, &leaves[start..]) {
                    Some(q) if deterministic(c) => conds.push(q),
                    _ => return Ok(false),
                }
            }
            Ok(true)
        }
        FromItem::Join { .. } => Ok(false),
    }
}

/// `e` with every column qualified by its table among `tables` (where MySQL resolves
/// an ON condition's columns), and those tables; None if a column is not one of
/// theirs or is ambiguous.
fn qualify(e: &Expr, tables: &[Leaf]) -> Option<(Vec<String>, Expr)> {
    let mut ok = true;
    let mut names: Vec<String> = Vec::new();
    let q = bind::rewrite(e, &mut |x| {
        let Expr::Column { qualifier, name } = x else {
            return Ok(None);
        };
        let has = |t: &&Leaf| t.h.def.column_index(name).is_some();
        let t = match qualifier {
            Some(q) => {
                let q = q.rsplit('.').next().unwrap_or(q);
                tables.iter().filter(has).find(|t| t.alias == q)
            }
            None => {
                let mut it = tables.iter().filter(has);
                match (it.next(), it.next()) {
                    (Some(t), None) => Some(t),
                    _ => None,
                }
            }
        };
        let Some(t) = t else {
            ok = false;
            return Ok(None);
        };
        if !names.contains(&t.alias) {
            names.push(t.alias.clone());
        }
        Ok(Some(Expr::Column {
            qualifier: Some(t.alias.clone()),
            name: name.clone(),
        }))
    })
    .ok()?;
    ok.then_some((names, q))
}

/// The estimated rows of table `h` after its WHERE conjuncts (`filter`).
fn estimate(sess: &mut Session, h: &TableHandle, filter: Option<&Expr>) -> Result<u64> {
    let rows = h.rows_estimate();
    let conj: Vec<&Expr> = filter.map(conjuncts).unwrap_or_default();
    let acc = access::plan_detail(h, &conj, sess)?.access;
    Ok(match &acc {
        Access::Empty => 0,
        Access::Full => rows,
        Access::Index {
            point: true,
            ranges,
            ..
        } => ranges.len() as u64,
        Access::Index { .. } => {
            // An index dive: the entries the key read covers, up to DIVE_MAX.
            let n = access::count(sess, h, &acc, DIVE_MAX)?;
            if n >= DIVE_MAX { rows.max(n) / 10 } else { n }
        }
    })
}

fn and_all(es: impl Iterator<Item = Expr>) -> Option<Expr> {
    es.reduce(|a, b| Expr::Binary {
        op: BinaryOp::And,
        left: Box::new(a),
        right: Box::new(b),
    })
}

/// The order to read `from`'s tables in, if it is one to reorder and the cost model
/// reads them other than as written.
pub(crate) fn plan(
    sess: &mut Session,
    from: &[FromItem],
    straight: bool,
    push: &Pushdown,
) -> Result<Option<Order>> {
    if straight {
        return Ok(None);
    }
    let mut leaves = Vec::new();
    let mut conds = Vec::new();
    for f in from {
        if !flatten(sess, f, &mut leaves, &mut conds)? {
            return Ok(None);
        }
    }
    let n = leaves.len();
    if !(2..=ORDER_TABLES_MAX).contains(&n) {
        return Ok(None);
    }
    conds.extend(push.multi_table().map(|(a, e)| (a.to_vec(), e.clone())));
    let mut scopes = Vec::with_capacity(n);
    let mut est = Vec::with_capacity(n);
    for l in &leaves {
        let scope = Scope {
            columns: table_scope(&l.h, &l.alias),
        };
        let f = push.filter_for(&l.alias, &scope);
        est.push(estimate(sess, &l.h, f.as_ref())?);
        scopes.push(scope);
    }
    let first = (0..n).min_by_key(|&i| (est[i], i)).unwrap_or(0);
    let mut order = vec![first];
    while order.len() < n {
        let placed: Vec<&str> = order.iter().map(|&i| leaves[i].alias.as_str()).collect();
        let mut best: Option<((u8, u64, usize), usize)> = None;
        for r in (0..n).filter(|i| !order.contains(i)) {
            let alias = leaves[r].alias.as_str();
            let joining: Vec<&Expr> = conds
                .iter()
                .filter(|(a, _)| {
                    a.iter().any(|x| x == alias)
                        && a.iter().any(|x| placed.contains(&x.as_str()))
                        && a.iter().all(|x| x == alias || placed.contains(&x.as_str()))
                })
                .map(|(_, e)| e)
                .collect();
            let rank = if joining.is_empty() {
                2
            } else if indexed(&order, r, &leaves, &scopes, &joining) {
                0
            } else {
                1
            };
            let key = (rank, est[r], r);
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, r));
            }
        }
        let Some((_, r)) = best else { break };
        order.push(r);
    }
    if order.iter().copied().eq(0..n) {
        return Ok(None);
    }
    // Each condition joins the step where its last table comes in (step 1 at least).
    let mut on: Vec<Vec<Expr>> = vec![Vec::new(); n];
    for (a, e) in conds {
        let step = a
            .iter()
            .filter_map(|x| order.iter().position(|&i| leaves[i].alias == *x))
            .max()
            .unwrap_or(0)
            .max(1);
        on[step].push(e);
    }
    Ok(Some(Order {
        written: leaves.iter().map(|l| l.alias.clone()).collect(),
        tables: order
            .iter()
            .map(|&i| (leaves[i].h.clone(), leaves[i].alias.clone()))
            .collect(),
        on: on.into_iter().map(|c| and_all(c.into_iter())).collect(),
    }))
}

/// Whether table `r` can be read through an index per row of the `placed` tables on
/// the `joining` conditions.
fn indexed(
    placed: &[usize],
    r: usize,
    leaves: &[Leaf],
    scopes: &[Scope],
    joining: &[&Expr],
) -> bool {
    let mut scope = Scope::default();
    let mut types = Vec::new();
    for &i in placed {
        scope.columns.extend(scopes[i].columns.iter().cloned());
        types.extend(leaves[i].h.def.columns.iter().map(|c| c.ty.clone()));
    }
    let start = scope.columns.len();
    scope.columns.extend(scopes[r].columns.iter().cloned());
    let Some(cond) = and_all(joining.iter().map(|e| (*e).clone())) else {
        return false;
    };
    let Ok(bound) = bind(&cond, &scope, "on clause") else {
        return false;
    };
    let outer_type = |slot: usize| types.get(slot).cloned();
    super::join_index::choose(
        &leaves[r].h,
        &scope,
        start..scope.columns.len(),
        Some(&bound),
        &outer_type,
    )
    .is_some()
}

/// Reads and joins the tables in `order`, then puts the row's columns back in the
/// written order.
pub(crate) fn run(
    sess: &mut Session,
    order: &Order,
    lock: Lock,
    push: &Pushdown,
) -> Result<Relation> {
    let mut rel: Option<Relation> = None;
    for (k, (h, alias)) in order.tables.iter().enumerate() {
        let scope = Scope {
            columns: table_scope(h, alias),
        };
        let filter = push.filter_for(alias, &scope);
        rel = Some(match rel {
            None => {
                let (keys, rows) = read_table(
                    sess,
                    h,
                    Some(&scope),
                    filter.as_ref(),
                    lock,
                    false,
                    None,
                    None,
                )?;
                Relation {
                    scope,
                    tables: vec![SourceTable {
                        handle: h.clone(),
                        alias: alias.clone(),
                        offset: 0,
                    }],
                    rows,
                    keys,
                }
            }
            Some(left) => {
                let on = order.on[k].as_ref();
                let kind = if on.is_some() {
                    JoinKind::Inner
                } else {
                    JoinKind::Cross
                };
                let side = Side::table(h.clone(), alias.clone(), lock, filter);
                join_sides(sess, Side::Rows(left), side, kind, on, &[], false)?
            }
        });
    }
    let Some(mut rel) = rel else {
        return Err(kiln_common::KilnError::internal(
            "a join order has no tables",
        ));
    };
    // Written order: each table's columns where SELECT * lists them.
    let mut perm = Vec::with_capacity(rel.scope.columns.len());
    let mut tables = Vec::with_capacity(rel.tables.len());
    for a in &order.written {
        if let Some(t) = rel.tables.iter().find(|t| t.alias == *a) {
            let w = t.handle.def.columns.len();
            tables.push(SourceTable {
                offset: perm.len(),
                ..t.clone()
            });
            perm.extend(t.offset..t.offset + w);
        }
    }
    rel.scope.columns = perm.iter().map(|&i| rel.scope.columns[i].clone()).collect();
    for row in &mut rel.rows {
        let old = std::mem::take(row);
        *row = perm.iter().map(|&i| old[i].clone()).collect();
    }
    rel.tables = tables;
    Ok(rel)
}
