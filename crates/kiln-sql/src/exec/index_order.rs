//! ORDER BY from index order: a single-table SELECT whose ORDER BY lists columns in
//! the order of an index's key (after the leading parts its WHERE binds to one value
//! each), all in one direction, reads the index in that order (backwards for DESC)
//! and stops after LIMIT + OFFSET matching rows instead of reading and sorting all.
//! select.rs (`from_clause`) and EXPLAIN (which then drops "Using filesort") both
//! decide through `plan_ordered`.
//!
//! Index order is ORDER BY order only where the key encodes the value so that bytes
//! compare as ORDER BY compares: integers, YEAR, DECIMAL, FLOAT / DOUBLE, and
//! character columns ordered under their own collation (the key holds that
//! collation's weights; ties compare equal either way). Prefix parts, and temporal,
//! binary, ENUM / SET and JSON columns, keep the sort. A secondary entry ends with
//! the primary key, so `ORDER BY k, id` follows index (k).
//!
//! Which index: the access path's own when it fits; with no key range, an index read
//! whole in order — a covering one first, then the primary key, then (only under a
//! LIMIT, as MySQL) any other secondary index.

use kiln_common::Result;

use super::access::{self, Access, Plan};
use super::bind::{Scope, bind, contains_aggregate};
use super::covering;
use crate::ast::{Expr, Select};
use crate::dict::{IndexKindDef, IndexPart, TableHandle};
use crate::eval::Env;
use crate::session::Session;
use crate::types::SqlType;
use crate::value::Value;

/// What a query asks of the read: ORDER BY as (column, descending), and the rows it
/// can need at most (LIMIT + OFFSET).
#[derive(Debug, Clone)]
pub struct OrderReq {
    pub keys: Vec<(usize, bool)>,
    pub limit: Option<u64>,
}

/// The ORDER BY of single-table SELECT `s` over `h` when index order could serve it:
/// plain columns (by name or select-list position), no grouping, aggregates,
/// DISTINCT, HAVING, window functions, UNION or locking.
pub fn request(sess: &mut Session, s: &Select, h: &TableHandle, scope: &Scope) -> Option<OrderReq> {
    if s.order_by.is_empty()
        || !s.group_by.is_empty()
        || s.distinct
        || s.having.is_some()
        || s.lock.is_some()
        || s.union.is_some()
        || super::select::uses_windows(s)
        || s.items.iter().any(|i| contains_aggregate(&i.expr))
    {
        return None;
    }
    let mut keys = Vec::with_capacity(s.order_by.len());
    for o in &s.order_by {
        if contains_aggregate(&o.expr) {
            return None;
        }
        let e = match &o.expr {
            Expr::Literal(Value::Int(n)) => {
                let i = usize::try_from(*n).ok()?.checked_sub(1)?;
                &s.items.get(i)?.expr
            }
            e => e,
        };
        if matches!(e, Expr::Column { name, .. } if name == "*") {
            return None;
        }
        let Ok(Expr::Slot(col)) = bind(e, scope, "order clause") else {
            return None;
        };
        if !orders_as_key(h, col) {
            return None;
        }
        keys.push((col, o.desc));
    }
    let limit = request_limit(sess, s)?;
    Some(OrderReq { keys, limit })
}

/// The rows `s` can need at most (LIMIT + OFFSET; Some(None): no LIMIT), None if
/// either is not a count.
pub(crate) fn request_limit(sess: &mut Session, s: &Select) -> Option<Option<u64>> {
    Some(match &s.limit {
        None => None,
        Some(l) => {
            let l = super::select::limit_value(sess, l).ok()?;
            let off = match &s.offset {
                Some(o) => super::select::limit_value(sess, o).ok()?,
                None => 0,
            };
            Some(l.saturating_add(off))
        }
    })
}

/// Whether column `col`'s key bytes order as ORDER BY on the column orders it.
fn orders_as_key(h: &TableHandle, col: usize) -> bool {
    matches!(
        h.def.columns[col].ty,
        SqlType::Int { .. }
            | SqlType::Year
            | SqlType::Decimal { .. }
            | SqlType::Float { .. }
            | SqlType::Double { .. }
            | SqlType::Char { .. }
            | SqlType::VarChar { .. }
            | SqlType::Text { .. }
    )
}

/// The parts index `index`'s entries sort by (a secondary index's, then the primary
/// key's).
fn sort_parts(t: &TableHandle, index: usize) -> Vec<&IndexPart> {
    let mut parts: Vec<&IndexPart> = t.def.indexes[index].parts.iter().collect();
    if index != 0 && t.def.indexes[0].kind != IndexKindDef::RowId {
        parts.extend(t.def.indexes[0].parts.iter());
    }
    parts
}

/// Whether reading index `index` (its first `eq_parts` parts bound by equality, to
/// one value each if `eq_single`) yields `req`'s order: Some(descending scan).
fn follows(
    t: &TableHandle,
    index: usize,
    eq_parts: usize,
    eq_single: bool,
    req: &OrderReq,
) -> Option<bool> {
    let ix = &t.def.indexes[index];
    if ix.kind == IndexKindDef::RowId || ix.kind == IndexKindDef::Fulltext {
        return None;
    }
    let parts = sort_parts(t, index);
    let fixed = if eq_single {
        eq_parts.min(parts.len())
    } else {
        0
    };
    let mut p = 0;
    let mut dir = None;
    for &(col, desc) in &req.keys {
        while p < fixed && parts[p].column != col {
            p += 1;
        }
        if let Some(part) = parts.get(p)
            && part.column == col
            && part.prefix_chars.is_none()
        {
            let d = desc ^ part.desc;
            if dir.is_some_and(|x| x != d) {
                return None;
            }
            dir = Some(d);
            p += 1;
            continue;
        }
        // A column bound to one value orders nothing.
        if parts[..fixed].iter().any(|q| q.column == col) {
            continue;
        }
        return None;
    }
    Some(dir.unwrap_or(false))
}

/// `covering::plan_read`, then the index order for `req` if one serves it:
/// (plan, Some(descending)) — the plan's access then reads in ORDER BY order.
pub fn plan_ordered(
    t: &TableHandle,
    conj: &[&Expr],
    env: &mut dyn Env,
    needed: Option<&[bool]>,
    req: Option<&OrderReq>,
) -> Result<(Plan, Option<bool>)> {
    plan_ordered_traced(t, conj, env, needed, req, &mut access::Trace::off())
}

/// `plan_ordered`, recording what the choice depended on (access_shape.rs).
pub(crate) fn plan_ordered_traced(
    t: &TableHandle,
    conj: &[&Expr],
    env: &mut dyn Env,
    needed: Option<&[bool]>,
    req: Option<&OrderReq>,
    tr: &mut access::Trace,
) -> Result<(Plan, Option<bool>)> {
    let mut plan = covering::plan_read_traced(t, conj, env, needed, tr)?;
    let Some(req) = req else {
        return Ok((plan, None));
    };
    match &plan.access {
        Access::Empty => Ok((plan, None)),
        Access::Index { index, .. } if !plan.full_index => {
            let chosen = *index;
            if let Some(d) = follows(t, chosen, plan.eq_parts, plan.eq_single, req) {
                return Ok((plan, Some(d)));
            }
            // Another candidate with as many equal parts that reads in order (MySQL's
            // cost model prefers it: no sort).
            for i in plan.candidates.clone() {
                if i == chosen {
                    continue;
                }
                let mut alt = access::plan_among_traced(t, conj, env, Some(i), tr)?;
                let reads_i = matches!(&alt.access, Access::Index { index, .. } if *index == i);
                if !reads_i || alt.eq_parts < plan.eq_parts || (plan.range_part && !alt.range_part)
                {
                    continue;
                }
                if let Some(d) = follows(t, i, alt.eq_parts, alt.eq_single, req) {
                    alt.candidates = plan.candidates;
                    alt.covering = needed.is_some_and(|n| covering::covers(t, i, n));
                    return Ok((alt, Some(d)));
                }
            }
            Ok((plan, None))
        }
        _ => {
            let covers = |i: usize| needed.is_some_and(|n| covering::covers(t, i, n));
            // The covering index already chosen, other covering ones, the primary
            // key, then (under a LIMIT) any secondary index.
            let mut order: Vec<usize> = Vec::new();
            if let Access::Index { index, .. } = &plan.access {
                order.push(*index);
            }
            order.extend((1..t.def.indexes.len()).filter(|i| covers(*i)));
            order.push(0);
            if req.limit.is_some() {
                order.extend(1..t.def.indexes.len());
            }
            for i in order {
                let ix = &t.def.indexes[i];
                if ix.invisible || (i != 0 && t.sec_pos[i].is_none()) {
                    continue;
                }
                if let Some(d) = follows(t, i, 0, true, req) {
                    // A conjunct only this index's order makes worth using (`c IS NOT
                    // NULL`: MIN / MAX skip the NULL keys instead of reading them).
                    let mut alt = access::plan_among_traced(t, conj, env, Some(i), tr)?;
                    if matches!(&alt.access, Access::Index { index, .. } if *index == i)
                        && follows(t, i, alt.eq_parts, alt.eq_single, req) == Some(d)
                    {
                        alt.candidates = plan.candidates;
                        alt.covering = covers(i);
                        // Still the whole index as far as the WHERE goes (no conjunct
                        // chose it): EXPLAIN's type `index`, and MIN / MAX under a
                        // WHERE keep their one-scan rule.
                        alt.full_index = true;
                        return Ok((alt, Some(d)));
                    }
                    plan.set_access(Access::Index {
                        index: i,
                        ranges: vec![(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)],
                        point: false,
                    });
                    plan.full_index = true;
                    plan.covering = covers(i);
                    return Ok((plan, Some(d)));
                }
            }
            Ok((plan, None))
        }
    }
}
