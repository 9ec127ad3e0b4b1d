//! Index nested-loop join (MySQL's `eq_ref` / `ref` join types): the inner side is a
//! base table, and per outer row its rows come from a key read instead of from reading
//! the whole table.
//!
//! `choose` looks at the bound ON conjuncts for equalities `inner.col = expr` with
//! `expr` over the outer side only, keeps those whose comparison the column's key
//! orders the same way (same rule as access.rs applies to literals):
//! - an integer or DECIMAL column against a non-character expression (a number
//!   compared with a character column compares as doubles: no key use);
//! - a CHAR / VARCHAR / TEXT column when the comparison runs under the column's own
//!   collation (a string key equated across different collations cannot use it);
//! - a DATE / DATETIME / TIMESTAMP / TIME column against an outer column of the same
//!   type;
//!
//! and picks the visible index with the most such leading parts (a unique index with
//! every part equated first: `eq_ref`), the primary key first among equals. `run` then,
//! per outer row, evaluates the outer expressions, makes the equalities
//! `col = value` (plus the ON conjuncts on the inner table alone) the inner table's
//! condition, and lets access.rs plan the key read on that index and read it (a
//! consistent or a locking read, as the statement's reads are: FOR UPDATE / LOCK IN
//! SHARE MODE lock the inner rows read). A NULL value matches nothing; a value the
//! key cannot hold losslessly makes that row read the whole table (read once, kept).
//! The whole ON condition is re-checked on every pair.

use std::ops::Range;

use kiln_common::Result;

use super::RowEnv;
use super::access::{self, Access, Lock};
use super::bind::{Scope, conjuncts};
use super::join::{Ctx, deterministic, equality, push_row, shift_slots, slots_within};
use super::select::{Relation, read_planned, read_table};
use crate::ast::{BinaryOp, Expr};
use crate::collate::Coll;
use crate::dict::{IndexKindDef, TableHandle};
use crate::eval::eval;
use crate::session::Session;
use crate::types::SqlType;
use crate::value::Value;

/// One equated key part: the inner column, the outer expression (joined-row slots)
/// and the collation of the comparison.
#[derive(Debug, Clone)]
pub(crate) struct KeyPart {
    pub column: usize,
    pub outer: Expr,
    pub coll: Option<Coll>,
}

/// How the inner table is read per outer row.
#[derive(Debug, Clone)]
pub(crate) struct IndexJoin {
    /// Position in `def.indexes`.
    pub index: usize,
    /// The leading key parts equated, in index order.
    pub parts: Vec<KeyPart>,
    /// A unique index with every part equated: at most one row per outer row.
    pub unique: bool,
    /// ON conjuncts on the inner table alone, bound to its own slots.
    pub pushed: Vec<Expr>,
}

/// Whether comparing column `col` of `h` with `outer` under `coll` orders as the
/// column's key does.
fn key_compatible(
    h: &TableHandle,
    col: usize,
    outer: &Expr,
    coll: Option<Coll>,
    scope: &Scope,
    outer_type: &dyn Fn(usize) -> Option<SqlType>,
) -> bool {
    let ty = &h.def.columns[col].ty;
    match ty {
        SqlType::Int { .. } | SqlType::Decimal { .. } => {
            crate::coercion::derive(outer, scope).is_none()
        }
        SqlType::Char { .. } | SqlType::VarChar { .. } | SqlType::Text { .. } => {
            coll.is_some_and(|c| c == h.shape.colls[col])
        }
        SqlType::Date | SqlType::DateTime(_) | SqlType::Timestamp(_) | SqlType::Time(_) => {
            matches!(outer, Expr::Slot(i) if outer_type(*i).as_ref() == Some(ty))
        }
        _ => false,
    }
}

/// The index nested-loop plan for joining base table `h` (slots `inner` of the
/// joined row `scope`) on `cond`, if some index serves it. `outer_type` gives the SQL
/// type of an outer slot that is a base-table column.
pub(crate) fn choose(
    h: &TableHandle,
    scope: &Scope,
    inner: Range<usize>,
    cond: Option<&Expr>,
    outer_type: &dyn Fn(usize) -> Option<SqlType>,
) -> Option<IndexJoin> {
    let cond = cond?;
    let mut cands: Vec<KeyPart> = Vec::new();
    let mut pushed = Vec::new();
    for c in conjuncts(cond) {
        if !deterministic(c) {
            continue;
        }
        let (within, _) = slots_within(c, &inner);
        if within {
            pushed.push(shift_slots(c, inner.start).ok()?);
            continue;
        }
        let Some((l, r, coll)) = equality(c) else {
            continue;
        };
        let outer_only = |e: &Expr| {
            let mut ok = true;
            super::bind::visit(e, &mut |x| {
                if let Expr::Slot(i) = x {
                    ok &= !inner.contains(i);
                }
            });
            ok
        };
        let (col, outer) = match (l, r) {
            (Expr::Slot(i), o) if inner.contains(i) && outer_only(o) => (i - inner.start, o),
            (o, Expr::Slot(i)) if inner.contains(i) && outer_only(o) => (i - inner.start, o),
            _ => continue,
        };
        if key_compatible(h, col, outer, coll, scope, outer_type) {
            cands.push(KeyPart {
                column: col,
                outer: outer.clone(),
                coll,
            });
        }
    }
    // (unique with every part equated, parts equated, index)
    let mut best: Option<(bool, usize, usize)> = None;
    for (i, ix) in h.def.indexes.iter().enumerate() {
        if ix.invisible || matches!(ix.kind, IndexKindDef::Fulltext | IndexKindDef::RowId) {
            continue;
        }
        let n = ix
            .parts
            .iter()
            .take_while(|p| cands.iter().any(|c| c.column == p.column))
            .count();
        if n == 0 {
            continue;
        }
        let unique = ix.is_unique()
            && n == ix.parts.len()
            && ix.parts.iter().all(|p| p.prefix_chars.is_none());
        if best.is_none_or(|(u, bn, _)| (unique, n) > (u, bn)) {
            best = Some((unique, n, i));
        }
    }
    let (unique, n, index) = best?;
    let parts = h.def.indexes[index].parts[..n]
        .iter()
        .filter_map(|p| cands.iter().find(|c| c.column == p.column).cloned())
        .collect();
    Some(IndexJoin {
        index,
        parts,
        unique,
        pushed,
    })
}

/// The inner table's condition for one outer row's key values.
fn inner_condition(plan: &IndexJoin, values: Vec<Value>) -> Vec<Expr> {
    let mut conj: Vec<Expr> = plan
        .parts
        .iter()
        .zip(values)
        .map(|(p, v)| {
            let eq = Expr::Binary {
                op: BinaryOp::Eq,
                left: Box::new(Expr::Slot(p.column)),
                right: Box::new(Expr::Literal(v)),
            };
            match p.coll {
                Some(coll) => Expr::InColl {
                    expr: Box::new(eq),
                    coll,
                },
                None => eq,
            }
        })
        .collect();
    conj.extend(plan.pushed.iter().cloned());
    conj
}

/// Runs the index nested loop: `first` rows are the outer side, `inner` the base
/// table (its relation without rows).
pub(crate) fn run(
    sess: &mut Session,
    ctx: &mut Ctx,
    first: &[Vec<Value>],
    inner: &Relation,
    lock: Lock,
    filter: Option<&Expr>,
    plan: &IndexJoin,
) -> Result<Vec<Vec<Value>>> {
    let h = inner.tables[0].handle.clone();
    let mut whole: Option<Vec<Vec<Value>>> = None;
    let mut rows = Vec::new();
    let mut lookups = 0u64;
    let result = (|| -> Result<()> {
        for l in first {
            let probe = ctx.null_extended(l);
            let mut values = Vec::with_capacity(plan.parts.len());
            {
                let mut re = RowEnv {
                    inner: sess,
                    row: &probe,
                    scope: Some(&ctx.scope),
                };
                for p in &plan.parts {
                    values.push(eval(&p.outer, &mut re)?);
                }
            }
            let found: std::borrow::Cow<[Vec<Value>]> = if values.iter().any(Value::is_null) {
                std::borrow::Cow::Borrowed(&[])
            } else {
                let mut conj = inner_condition(plan, values);
                conj.extend(
                    filter
                        .map(conjuncts)
                        .unwrap_or_default()
                        .into_iter()
                        .cloned(),
                );
                let refs: Vec<&Expr> = conj.iter().collect();
                let p = access::plan_among(&h, &refs, sess, Some(plan.index))?;
                if matches!(p.access, Access::Full) {
                    if whole.is_none() {
                        let (_, r) = read_table(
                            sess,
                            &h,
                            Some(&inner.scope),
                            filter,
                            lock,
                            false,
                            None,
                            None,
                        )?;
                        whole = Some(r);
                    }
                    std::borrow::Cow::Borrowed(whole.as_deref().unwrap_or_default())
                } else {
                    lookups += 1;
                    let filter = conj
                        .into_iter()
                        .reduce(|a, b| Expr::Binary {
                            op: BinaryOp::And,
                            left: Box::new(a),
                            right: Box::new(b),
                        })
                        .unwrap_or(Expr::Literal(Value::Int(1)));
                    read_planned(
                        sess,
                        &h,
                        Some(&inner.scope),
                        Some(&filter),
                        lock,
                        p,
                        false,
                        None,
                        None,
                    )?
                    .1
                    .into()
                }
            };
            let mut matched = false;
            for r in found.iter() {
                let row = ctx.pair_row(l, r);
                if ctx.check(sess, &row)? {
                    matched = true;
                    push_row(&mut rows, row)?;
                }
            }
            if ctx.outer && !matched {
                push_row(&mut rows, probe)?;
            }
        }
        Ok(())
    })();
    crate::status::add("Kiln_join_index_lookups", lookups);
    result.map(|()| rows)
}
