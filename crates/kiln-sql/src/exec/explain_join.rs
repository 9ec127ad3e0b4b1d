//! EXPLAIN for joins (explain.rs `join_rows`): the tables of a FROM clause in the
//! order the executor's loops run, and for each table joined to the ones before it
//! what join.rs does: `eq_ref` / `ref` with key, key_len and ref for an index nested
//! loop (join_index.rs `choose`, the executor's own choice), "Using join buffer (hash
//! join)" where the condition has an equality a hash join keys on (join_hash.rs
//! `key_parts`; the executor still runs the nested loop when the values turn out not
//! to hash, e.g. binary strings), else "Using join buffer (Block Nested Loop)".
//! rows of an `eq_ref` table is 1; of a `ref` table a tenth of the table's estimate
//! (kiln keeps no per-key statistics).

use std::ops::Range;

use kiln_common::Result;

use super::bind::{Scope, bind, conjuncts, is_constant};
use super::explain::Row;
use super::join_index::{self, IndexJoin};
use super::key_len::key_part_len;
use super::select::{is_info_schema, resolve_table};
use crate::ast::*;
use crate::dict::TableHandle;
use crate::session::Session;

/// How the table of a leaf is joined to the leaves before it.
pub(super) struct InnerOf {
    /// The first leaf of the join's preserved side.
    pub outer_start: usize,
    pub on: Option<Expr>,
    pub using: Vec<String>,
    pub natural: bool,
    /// The preserved side has no USING / NATURAL join (its scope is its leaves').
    pub plain: bool,
}

/// A table of a join, in the order the nested loops run.
pub(super) struct Leaf {
    pub alias: String,
    pub source: LeafSource,
    /// An ON / USING condition is evaluated as this table's rows are joined.
    pub condition: bool,
    /// The leaf is the whole inner side of a join.
    pub inner_of: Option<InnerOf>,
    /// Its rows are never NULL-extended: WHERE conjuncts on it alone apply as it is
    /// read (join_push.rs).
    pub eligible: bool,
}

pub(super) enum LeafSource {
    Base(std::sync::Arc<TableHandle>),
    /// A derived table's column names.
    Derived(Vec<String>),
    InfoSchema(String),
}

/// The tables of a FROM item in select.rs's loop order: a join's preserved side (the
/// left one, the right one of a RIGHT JOIN) is the outer loop.
pub(super) fn join_leaves(
    sess: &mut Session,
    item: &FromItem,
    out: &mut Vec<Leaf>,
    eligible: bool,
) -> Result<()> {
    match item {
        FromItem::Table { name, alias } if is_info_schema(sess, name) => out.push(Leaf {
            alias: alias.clone().unwrap_or_else(|| name.name.clone()),
            source: LeafSource::InfoSchema(name.name.clone()),
            condition: false,
            inner_of: None,
            eligible,
        }),
        FromItem::Table { name, alias } => {
            let h = resolve_table(sess, name)?;
            out.push(Leaf {
                alias: alias.clone().unwrap_or_else(|| h.def.name.clone()),
                source: LeafSource::Base(h),
                condition: false,
                inner_of: None,
                eligible,
            });
        }
        FromItem::Derived { select, alias, .. } => {
            let columns = if select.from.is_empty() {
                select.items.iter().map(|i| i.name.clone()).collect()
            } else {
                super::columns::describe(sess, select)?
                    .into_iter()
                    .map(|c| c.name)
                    .collect()
            };
            out.push(Leaf {
                alias: alias.clone(),
                source: LeafSource::Derived(columns),
                condition: false,
                inner_of: None,
                eligible,
            });
        }
        FromItem::Join {
            left,
            right,
            kind,
            on,
            using,
            natural,
        } => {
            let (first, second) = if *kind == JoinKind::Right {
                (right, left)
            } else {
                (left, right)
            };
            let (first_ok, second_ok) = match kind {
                JoinKind::Left | JoinKind::Right => (eligible, false),
                _ => (eligible, eligible),
            };
            let outer_start = out.len();
            join_leaves(sess, first, out, first_ok)?;
            let plain = !has_using(first);
            let inner_start = out.len();
            join_leaves(sess, second, out, second_ok)?;
            if out.len() == inner_start + 1
                && let Some(l) = out.last_mut()
            {
                l.inner_of = Some(InnerOf {
                    outer_start,
                    on: on.clone(),
                    using: using.clone(),
                    natural: *natural,
                    plain,
                });
            }
            let cond =
                on.as_ref().is_some_and(|e| !is_constant(e)) || !using.is_empty() || *natural;
            if cond && let Some(l) = out.last_mut() {
                l.condition = true;
            }
        }
    }
    Ok(())
}

/// Whether a FROM item has a USING / NATURAL join (which merges columns).
fn has_using(item: &FromItem) -> bool {
    match item {
        FromItem::Join {
            left,
            right,
            using,
            natural,
            ..
        } => !using.is_empty() || *natural || has_using(left) || has_using(right),
        _ => false,
    }
}

/// What the executor does with an inner leaf: its bound join condition, the index
/// nested loop if it takes one (`lazy`: the table is read as the join needs it, as a
/// SELECT's is), and whether a hash join keys on the condition. `scope` holds the
/// leaves before it, the preserved side from slot `outer_from`; `tables` their base
/// tables with their first slots.
pub(super) fn inner_plan(
    sess: &mut Session,
    leaf_scope: &Scope,
    info: &InnerOf,
    scope: &Scope,
    outer_from: usize,
    tables: &[(&TableHandle, usize)],
    base: Option<&TableHandle>,
) -> Result<(Option<Expr>, Option<IndexJoin>, bool)> {
    if !info.plain {
        return Ok((None, None, false));
    }
    let outer = Scope {
        columns: scope.columns[outer_from..].to_vec(),
    };
    let fw = outer.columns.len();
    let mut joined = outer.clone();
    joined.columns.extend(leaf_scope.columns.iter().cloned());
    let cond = if info.using.is_empty() && !info.natural {
        match &info.on {
            Some(e) => {
                let (e, _) = super::explain::stand_in_subqueries(sess, e)?;
                bind(&e, &joined, "on clause").ok()
            }
            None => None,
        }
    } else {
        super::join_using::shared_columns(&outer, leaf_scope, &info.using, info.natural)
            .ok()
            .and_then(|pairs| super::join_using::condition(&pairs, fw))
            .and_then(|c| crate::coercion::annotate(&c, &joined).ok())
    };
    let inner: Range<usize> = fw..joined.columns.len();
    let outer_type = |slot: usize| {
        let g = slot + outer_from;
        tables.iter().find_map(|(h, off)| {
            let i = g.checked_sub(*off)?;
            h.def.columns.get(i).map(|c| c.ty.clone())
        })
    };
    let ij = base
        .and_then(|h| join_index::choose(h, &joined, inner.clone(), cond.as_ref(), &outer_type));
    let hash = !super::join_hash::key_parts(cond.as_ref(), 0..fw, inner)?.is_empty();
    Ok((cond, ij, hash))
}

/// Fills an index nested loop's row: type, key, key_len, ref, rows, "Using where"
/// when more than the key equalities is checked (`filtered`: WHERE conjuncts apply
/// to the table too).
#[allow(clippy::too_many_arguments)]
pub(super) fn index_row(
    row: &mut Row,
    h: &TableHandle,
    ij: &IndexJoin,
    cond: Option<&Expr>,
    scope: &Scope,
    outer_from: usize,
    tables: &[(&TableHandle, usize)],
    filtered: bool,
) {
    let ix = &h.def.indexes[ij.index];
    row.access = Some(if ij.unique { "eq_ref" } else { "ref" });
    row.possible_keys = Some(ix.name.clone());
    row.key = Some(ix.name.clone());
    let key_len: u32 = ix.parts[..ij.parts.len()]
        .iter()
        .map(|p| key_part_len(&h.def.columns[p.column], p))
        .sum();
    row.key_len = Some(key_len.to_string());
    let label = |e: &Expr| match e {
        Expr::Slot(s) => {
            let g = s + outer_from;
            tables
                .iter()
                .find(|(t, off)| g >= *off && g < off + t.def.columns.len())
                .and_then(|(t, _)| {
                    let c = scope.columns.get(g)?;
                    Some(format!("{}.{}.{}", t.def.schema, c.table, c.name))
                })
                .unwrap_or_else(|| "func".into())
        }
        e if is_constant(e) => "const".into(),
        _ => "func".into(),
    };
    let refs: Vec<String> = ij.parts.iter().map(|p| label(&p.outer)).collect();
    row.reference = Some(refs.join(","));
    let estimate = h.rows_estimate().max(1);
    row.rows = Some(if ij.unique { 1 } else { estimate.div_ceil(10) });
    let checked = cond.map_or(0, |c| conjuncts(c).len());
    if filtered || checked > ij.parts.len() {
        row.extra.push("Using where".into());
    }
}

/// The leaves of a SELECT's FROM clause: a comma-list item after the first joins the
/// ones before on the WHERE conjuncts between them (select.rs `from_clause`).
pub(super) fn comma_leaves(
    sess: &mut Session,
    from: &[FromItem],
    push: &super::join_push::Pushdown,
) -> Result<Vec<Leaf>> {
    let mut leaves = Vec::new();
    let mut done: Vec<String> = Vec::new();
    for (k, f) in from.iter().enumerate() {
        let start = leaves.len();
        join_leaves(sess, f, &mut leaves, true)?;
        let aliases = super::join_push::aliases_of(sess, f)?;
        if k > 0
            && leaves.len() == start + 1
            && let Some(l) = leaves.last_mut()
        {
            let on = push.join_condition(&done, &aliases);
            l.condition = on.is_some();
            l.inner_of = Some(InnerOf {
                outer_start: 0,
                on,
                using: Vec::new(),
                natural: false,
                plain: !from[..k].iter().any(has_using),
            });
        }
        done.extend(aliases);
    }
    Ok(leaves)
}

/// The leaves of inner joins reordered by join_order.rs, in the order they are read.
pub(super) fn order_leaves(order: &super::join_order::Order) -> Vec<Leaf> {
    order
        .tables
        .iter()
        .zip(&order.on)
        .enumerate()
        .map(|(k, ((h, alias), on))| Leaf {
            alias: alias.clone(),
            source: LeafSource::Base(h.clone()),
            condition: on.is_some(),
            inner_of: (k > 0).then(|| InnerOf {
                outer_start: 0,
                on: on.clone(),
                using: Vec::new(),
                natural: false,
                plain: true,
            }),
            eligible: true,
        })
        .collect()
}
