//! Access paths: which index a single-table condition can use and which key ranges
//! to read, and reading the rows of a table through one (consistent or locking).
//!
//! Planning looks at the WHERE conjuncts bound to the table's slots. For each index it
//! finds an equality prefix (`c = const`, `c IN (consts)`) and then a range on the next
//! column (`<`, `<=`, `>`, `>=`, BETWEEN, or an OR of those on one column). Preference:
//! a unique index with every part equal (point reads; the primary key first), then the
//! most equal parts, then a range, the clustered index before a secondary one; else a
//! full scan. The conjuncts are always re-checked on the rows read, so a key range
//! only has to include every matching row, never to exclude all others. A constant
//! conjunct that is not true empties the path. `plan_detail` also reports what EXPLAIN
//! shows of the choice (explain.rs).
//!
//! Choosing and building are apart: the choice (which index, which parts by equality
//! and range, from which constants) is made from the conjuncts, then `build` makes the
//! key ranges from the key values. A traced planning (`plan_among_traced`) records
//! what the choice depended on, so that a prepared statement can replay it for other
//! parameter values and only build again (access_shape.rs).

use std::ops::Bound;

use kiln_common::Result;
use kiln_common::key::KeyWriter;
use kiln_storage::trx::{Mode, ReadMode, SecRead, Trx, Wait};

pub(crate) use super::access_shape::Trace;
use super::bind::is_constant;
use crate::ast::{BinaryOp, Expr};
use crate::dict::{IndexKindDef, TableHandle, storage_error};
use crate::eval::{Env, compare, eval};
use crate::types::{StoreMode, store};
use crate::value::Value;

/// Key ranges from one statement (IN lists × OR ranges), at most.
pub const RANGES_MAX: usize = 10_000;

/// A key range: bounds on encoded index keys (prefixes allowed).
pub type KeyRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);
/// A range of column values.
pub(crate) type ValueRange = (Bound<KeyVal>, Bound<KeyVal>);
/// Receives each row read: (primary key, row); returns false to stop.
pub type RowSink<'a> = dyn FnMut(&[u8], Vec<Value>) -> Result<bool> + 'a;
/// Decodes one stored row and hands it to a sink.
type Decoder<'a> = dyn FnMut(&[u8], &[u8], &mut RowSink<'_>) -> Result<bool> + 'a;
/// The chosen index: (score, index, equal values per part, range on the next part).
type Candidate = (u32, usize, Vec<Vec<KeyVal>>, Option<Vec<ValueRange>>);

/// A column's key value derived from a constant of the WHERE, and which probe of the
/// planning's trace made it (access_shape.rs; `NO_PROBE` when not traced).
#[derive(Debug, Clone)]
pub struct KeyVal {
    pub v: Value,
    pub probe: u32,
}

#[derive(Debug, Clone)]
pub enum Access {
    Full,
    Index {
        /// Position in `def.indexes` (0: clustered).
        index: usize,
        ranges: Vec<KeyRange>,
        /// Every range is one full key of a unique index.
        point: bool,
    },
    /// The condition cannot be true (`c IN ()` after NULLs dropped, etc.).
    Empty,
}

/// A column constraint found in the conjuncts.
enum Constraint {
    Eq(Vec<KeyVal>),
    Range(Vec<ValueRange>),
}

fn slot_of(e: &Expr) -> Option<usize> {
    match e {
        Expr::Slot(i) => Some(*i),
        _ => None,
    }
}

/// The column's value for `v`, if converting is lossless (the key then orders it as
/// the comparison would).
pub(crate) fn key_value(t: &TableHandle, col: usize, v: &Value) -> Option<Value> {
    if v.is_null() {
        return None;
    }
    let c = &t.def.columns[col];
    let mut warnings = Vec::new();
    let mode = StoreMode {
        strict: false,
        row: 1,
    };
    let converted = store(&c.ty, &c.name, v, mode, &mut warnings).ok()?;
    if !warnings.is_empty() {
        return None;
    }
    // Numbers against text columns compare numerically in MySQL: no key use.
    if c.ty.collation().is_some() && !matches!(v, Value::Str(_)) {
        return None;
    }
    if c.ty.is_integer() || matches!(c.ty, crate::types::SqlType::Decimal { .. }) {
        if compare(&converted, v) != Some(std::cmp::Ordering::Equal) {
            return None;
        }
        if matches!(v, Value::Str(_) | Value::Bytes(_)) {
            return None;
        }
    }
    Some(converted)
}

/// `not_null_range`: `col IS NOT NULL` counts as the range of non-NULL keys. Only
/// when the index is already chosen (index order, MIN / MAX): as a reason to choose
/// an index it would turn scans into key reads of most rows.
fn constraints_for(
    t: &TableHandle,
    col: usize,
    conj: &[&Expr],
    env: &mut dyn Env,
    not_null_range: bool,
    tr: &mut Trace,
) -> Result<Option<Constraint>> {
    let mut lo: Bound<KeyVal> = Bound::Unbounded;
    let mut hi: Bound<KeyVal> = Bound::Unbounded;
    let mut any_range = false;
    for e in conj {
        // A comparison under a collation (coercion.rs) can use the column's index only
        // when that is the column's own collation (its keys are built from it).
        let e = match e {
            Expr::InColl { expr, coll } if *coll == t.shape.colls[col] => &**expr,
            Expr::InColl { .. } => continue,
            e => *e,
        };
        match e {
            Expr::Binary {
                op: BinaryOp::Or, ..
            } => {
                if let Some(r) = or_ranges(t, col, e, env, tr)? {
                    return Ok(Some(Constraint::Range(r)));
                }
            }
            Expr::Binary { op, left, right } => {
                let (op, other) = if slot_of(left) == Some(col) && is_constant(right) {
                    (*op, right)
                } else if slot_of(right) == Some(col) && is_constant(left) {
                    let flipped = match op {
                        BinaryOp::Lt => BinaryOp::Gt,
                        BinaryOp::Le => BinaryOp::Ge,
                        BinaryOp::Gt => BinaryOp::Lt,
                        BinaryOp::Ge => BinaryOp::Le,
                        o => *o,
                    };
                    (flipped, left)
                } else {
                    continue;
                };
                let Some(k) = tr.probe(t, col, other, env)?.1 else {
                    continue;
                };
                match op {
                    BinaryOp::Eq | BinaryOp::NullSafeEq => {
                        return Ok(Some(Constraint::Eq(vec![k])));
                    }
                    BinaryOp::Gt => {
                        lo = Bound::Excluded(k);
                        any_range = true;
                    }
                    BinaryOp::Ge => {
                        lo = Bound::Included(k);
                        any_range = true;
                    }
                    BinaryOp::Lt => {
                        hi = Bound::Excluded(k);
                        any_range = true;
                    }
                    BinaryOp::Le => {
                        hi = Bound::Included(k);
                        any_range = true;
                    }
                    _ => {}
                }
            }
            Expr::InList {
                expr,
                list,
                negated: false,
            } if slot_of(expr) == Some(col) && list.iter().all(is_constant) => {
                let mut vals = Vec::with_capacity(list.len());
                for x in list {
                    match tr.probe(t, col, x, env)? {
                        (true, _) => continue,
                        (false, Some(k)) => vals.push(k),
                        (false, None) => {
                            vals.clear();
                            break;
                        }
                    }
                }
                if !vals.is_empty() && vals.len() <= RANGES_MAX {
                    return Ok(Some(Constraint::Eq(vals)));
                }
            }
            // The key range's lower end skips NULLs (see `plan_among`).
            Expr::IsNull {
                expr,
                negated: true,
            } if not_null_range && slot_of(expr) == Some(col) => any_range = true,
            Expr::Between {
                expr,
                low,
                high,
                negated: false,
            } if slot_of(expr) == Some(col) && is_constant(low) && is_constant(high) => {
                let a = tr.probe(t, col, low, env)?.1;
                let b = tr.probe(t, col, high, env)?.1;
                if let (Some(a), Some(b)) = (a, b) {
                    lo = Bound::Included(a);
                    hi = Bound::Included(b);
                    any_range = true;
                }
            }
            _ => {}
        }
    }
    Ok(any_range.then_some(Constraint::Range(vec![(lo, hi)])))
}

/// `c BETWEEN a AND b OR c BETWEEN x AND y OR c = z ...` on one column → ranges.
fn or_ranges(
    t: &TableHandle,
    col: usize,
    e: &Expr,
    env: &mut dyn Env,
    tr: &mut Trace,
) -> Result<Option<Vec<ValueRange>>> {
    let mut terms = Vec::new();
    fn walk<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
        match e {
            Expr::Binary {
                op: BinaryOp::Or,
                left,
                right,
            } => {
                walk(left, out);
                walk(right, out);
            }
            x => out.push(x),
        }
    }
    walk(e, &mut terms);
    if terms.len() > RANGES_MAX {
        return Ok(None);
    }
    let mut out = Vec::new();
    for term in terms {
        match constraints_for(t, col, &[term], env, false, tr)? {
            Some(Constraint::Eq(vals)) => out.extend(
                vals.into_iter()
                    .map(|v| (Bound::Included(v.clone()), Bound::Included(v))),
            ),
            Some(Constraint::Range(r)) => out.extend(r),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// The smallest key greater than every key that starts with `k` (None: no such key).
pub fn prefix_successor(k: &[u8]) -> Option<Vec<u8>> {
    let mut end = k.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xFF {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

fn encode_part(t: &TableHandle, index: usize, part: usize, v: &Value, kw: &mut KeyWriter) {
    crate::rowapi::encode_key_part(t, index, part, v, kw);
}

/// What the planner chose and what it saw on the way: `plan` keeps the access path,
/// EXPLAIN (explain.rs) reports the rest.
#[derive(Debug, Clone)]
pub struct Plan {
    pub access: Access,
    /// Indexes some conjunct constrains (EXPLAIN's possible_keys), in index order.
    pub candidates: Vec<usize>,
    /// Leading key parts of the chosen index read by equality (`c = const`,
    /// `c IN (...)`).
    pub eq_parts: usize,
    /// Every one of those parts has exactly one value (a single key prefix).
    pub eq_single: bool,
    /// The part after them is read by a range (`<`, BETWEEN, an OR of ranges).
    pub range_part: bool,
    /// The query needs only what the chosen index holds: rows come from the index
    /// alone (covering.rs).
    pub covering: bool,
    /// The whole covering index is read for want of a key range (MySQL's `index`).
    pub full_index: bool,
    /// Which of the trace's key builds made `access` (access_shape.rs); None when
    /// not traced, or when `access` was not built from key values.
    pub built: Option<usize>,
}

impl Plan {
    /// A full scan, before any choice.
    pub(crate) fn scan() -> Plan {
        Plan {
            access: Access::Full,
            candidates: Vec::new(),
            eq_parts: 0,
            eq_single: true,
            range_part: false,
            covering: false,
            full_index: false,
            built: None,
        }
    }

    /// `access` replaced by one not built from key values (a whole index, a scan).
    pub fn set_access(&mut self, access: Access) {
        self.access = access;
        self.built = None;
    }
}

/// Chooses the access path for `conj` (conjuncts bound to this table's slots, slot =
/// column number).
pub fn plan(t: &TableHandle, conj: &[&Expr], env: &mut dyn Env) -> Result<Access> {
    plan_detail(t, conj, env).map(|p| p.access)
}

/// Whether the conjunct `e` alone restricts column `col` to one key value (a
/// lossless `col = const`, `const = col`, `col <=> const` or `col IN (const)`): a key
/// read on that value then needs no re-check of `e`.
pub fn single_equality(t: &TableHandle, col: usize, e: &Expr, env: &mut dyn Env) -> Result<bool> {
    Ok(matches!(
        constraints_for(t, col, &[e], env, false, &mut Trace::off())?,
        Some(Constraint::Eq(v)) if v.len() == 1
    ))
}

/// A conjunct that is a constant and not true (`WHERE 0`, `1 = 2`, `NULL`, an
/// uncorrelated subquery's value): no row can match. Constants that fail to evaluate
/// are left to the per-row check, which reports the error as before.
fn constant_false(conj: &[&Expr], env: &mut dyn Env, tr: &mut Trace) -> bool {
    conj.iter().any(|e| {
        is_constant(e) && {
            // Its value decides the plan: a trace cannot stand for other values.
            tr.no_shape();
            eval(e, env).is_ok_and(|v| v.to_bool() != Some(true))
        }
    })
}

/// `plan`, with what EXPLAIN needs to describe the choice.
pub fn plan_detail(t: &TableHandle, conj: &[&Expr], env: &mut dyn Env) -> Result<Plan> {
    plan_among(t, conj, env, None)
}

/// `plan_detail` choosing among all indexes, or only index `only` (index_order.rs
/// asks whether another candidate would read in ORDER BY order as well).
pub fn plan_among(
    t: &TableHandle,
    conj: &[&Expr],
    env: &mut dyn Env,
    only: Option<usize>,
) -> Result<Plan> {
    plan_among_traced(t, conj, env, only, &mut Trace::off())
}

/// `plan_among`, recording in `tr` what the choice depended on (access_shape.rs).
pub(crate) fn plan_among_traced(
    t: &TableHandle,
    conj: &[&Expr],
    env: &mut dyn Env,
    only: Option<usize>,
    tr: &mut Trace,
) -> Result<Plan> {
    let mut out = Plan::scan();
    if constant_false(conj, env, tr) {
        out.access = Access::Empty;
        return Ok(out);
    }
    // (score, index, eq values per part, range)
    let mut best: Option<Candidate> = None;
    for (i, ix) in t.def.indexes.iter().enumerate() {
        if ix.invisible
            || ix.kind == IndexKindDef::Fulltext
            || ix.kind == IndexKindDef::RowId
            || only.is_some_and(|o| o != i)
        {
            continue;
        }
        let mut eqs: Vec<Vec<KeyVal>> = Vec::new();
        let mut range = None;
        for p in &ix.parts {
            match constraints_for(t, p.column, conj, env, only.is_some(), tr)? {
                Some(Constraint::Eq(v)) => eqs.push(v),
                Some(Constraint::Range(r)) if !p.desc => {
                    range = Some(r);
                    break;
                }
                _ => break,
            }
        }
        if eqs.is_empty() && range.is_none() {
            continue;
        }
        out.candidates.push(i);
        let full_eq = eqs.len() == ix.parts.len() && ix.is_unique();
        let score = if full_eq {
            1000 + u32::from(i == 0) * 10
        } else {
            eqs.len() as u32 * 20 + u32::from(range.is_some()) * 5 + u32::from(i == 0) * 3
        };
        if best.as_ref().is_none_or(|b| score > b.0) {
            best = Some((score, i, eqs, range));
        }
    }
    let Some((_, index, eqs, range)) = best else {
        return Ok(out);
    };
    build(t, index, &eqs, range.as_deref(), &mut out);
    out.built = tr.built(index, &eqs, range.as_deref(), &out.access);
    Ok(out)
}

/// The key ranges of index `index` read by equality on its leading parts (`eqs`, one
/// list of values per part) and then `range` on the next part, into `out`: its access
/// (`Access::Empty` if no range is left) and, unless empty, what it reads by equality
/// and range.
pub(crate) fn build(
    t: &TableHandle,
    index: usize,
    eqs: &[Vec<KeyVal>],
    mut range: Option<&[ValueRange]>,
    out: &mut Plan,
) {
    let ix = &t.def.indexes[index];
    let point = eqs.len() == ix.parts.len()
        && ix.is_unique()
        && ix.parts.iter().all(|p| p.prefix_chars.is_none());
    // Cartesian product of the equality lists (bounded).
    let mut prefixes: Vec<KeyWriter> = vec![KeyWriter::new()];
    let mut eq_used = 0;
    for (part, vals) in eqs.iter().enumerate() {
        if prefixes.len().saturating_mul(vals.len()) > RANGES_MAX {
            // The prefixes stop short of the range's part: the range cannot follow.
            range = None;
            break;
        }
        eq_used += 1;
        let mut next = Vec::with_capacity(prefixes.len() * vals.len());
        for p in &prefixes {
            for v in vals {
                let mut kw = p.clone();
                encode_part(t, index, part, &v.v, &mut kw);
                next.push(kw);
            }
        }
        prefixes = next;
    }
    let prefixes: Vec<Vec<u8>> = prefixes.into_iter().map(KeyWriter::finish).collect();
    let mut ranges: Vec<KeyRange> = Vec::new();
    let range_part = eq_used;
    for prefix in &prefixes {
        match &range {
            Some(rs) if range_part < ix.parts.len() => {
                for (lo, hi) in rs.iter() {
                    let enc = |v: &KeyVal| {
                        let mut kw = KeyWriter::new();
                        encode_part(t, index, range_part, &v.v, &mut kw);
                        let mut k = prefix.clone();
                        k.extend_from_slice(&kw.finish());
                        k
                    };
                    let lo_b = match lo {
                        Bound::Included(v) => Bound::Included(enc(v)),
                        Bound::Excluded(v) => match prefix_successor(&enc(v)) {
                            Some(s) => Bound::Included(s),
                            None => continue,
                        },
                        // Skip NULLs (they sort first and never satisfy a range).
                        Bound::Unbounded if t.def.columns[ix.parts[range_part].column].nullable => {
                            let mut k = prefix.clone();
                            k.push(0x01);
                            Bound::Included(k)
                        }
                        Bound::Unbounded => Bound::Included(prefix.clone()),
                    };
                    let hi_b = match hi {
                        Bound::Included(v) => match prefix_successor(&enc(v)) {
                            Some(s) => Bound::Excluded(s),
                            None => Bound::Unbounded,
                        },
                        Bound::Excluded(v) => Bound::Excluded(enc(v)),
                        Bound::Unbounded => match prefix_successor(prefix) {
                            Some(s) => Bound::Excluded(s),
                            None => Bound::Unbounded,
                        },
                    };
                    ranges.push((lo_b, hi_b));
                }
            }
            _ => {
                let hi = match prefix_successor(prefix) {
                    Some(s) => Bound::Excluded(s),
                    None => Bound::Unbounded,
                };
                ranges.push((Bound::Included(prefix.clone()), hi));
            }
        }
    }
    if ranges.is_empty() {
        out.access = Access::Empty;
        return;
    }
    let ranges = merge_ranges(ranges);
    out.eq_parts = eq_used;
    out.eq_single = eqs[..eq_used].iter().all(|v| v.len() == 1);
    out.range_part = range.is_some() && range_part < ix.parts.len();
    out.access = Access::Index {
        index,
        ranges,
        // A key cut short by the range limit is no point read.
        point: point && eq_used == eqs.len(),
    };
}

/// Sorts ranges and merges the ones that overlap, so no row is read twice
/// (`id IN (1, 1)`, `k BETWEEN 1 AND 10 OR k BETWEEN 5 AND 15`). Every range here is
/// [lo, hi): lo Included or Unbounded, hi Excluded or Unbounded.
fn merge_ranges(mut ranges: Vec<KeyRange>) -> Vec<KeyRange> {
    ranges.sort_by(|a, b| bound_cmp(&a.0, &b.0));
    let mut out: Vec<KeyRange> = Vec::with_capacity(ranges.len());
    for r in ranges {
        if let Some(last) = out.last_mut() {
            let overlaps = match (&last.1, &r.0) {
                (Bound::Unbounded, _) | (_, Bound::Unbounded) => true,
                // Strictly overlapping only: touching ranges read no row twice, and
                // point ranges must stay points.
                (Bound::Excluded(hi), Bound::Included(lo) | Bound::Excluded(lo)) => lo < hi,
                (Bound::Included(hi), Bound::Included(lo) | Bound::Excluded(lo)) => lo <= hi,
            };
            if overlaps {
                let extend = match (&last.1, &r.1) {
                    (Bound::Unbounded, _) => false,
                    (_, Bound::Unbounded) => true,
                    (
                        Bound::Excluded(a) | Bound::Included(a),
                        Bound::Excluded(b) | Bound::Included(b),
                    ) => b > a,
                };
                if extend {
                    last.1 = r.1;
                }
                continue;
            }
        }
        out.push(r);
    }
    out
}

fn bound_cmp(a: &Bound<Vec<u8>>, b: &Bound<Vec<u8>>) -> std::cmp::Ordering {
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => std::cmp::Ordering::Equal,
        (Bound::Unbounded, _) => std::cmp::Ordering::Less,
        (_, Bound::Unbounded) => std::cmp::Ordering::Greater,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            x.cmp(y)
        }
    }
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v),
        Bound::Excluded(v) => Bound::Excluded(v),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// How rows are read: a consistent read, or locked (S or X) as a locking read does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    None,
    Shared(LockWait),
    Exclusive(LockWait),
}

/// How a locking read waits: the transaction's lock wait timeout, NOWAIT, SKIP LOCKED.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockWait {
    Default,
    NoWait,
    Skip,
}

/// Counts the rows `access` selects in a consistent read, decoding nothing, up to
/// `limit` (where it stops). A KILL QUERY ends a long count (1317).
pub fn count(
    sess: &mut crate::session::Session,
    t: &TableHandle,
    access: &Access,
    limit: u64,
) -> Result<u64> {
    let mask = vec![false; t.def.columns.len()];
    let interrupt = sess.interrupt.clone();
    let mut n = 0u64;
    sess.with_trx(|_, trx| {
        fetch(
            trx,
            t,
            access,
            Lock::None,
            false,
            Some(&mask),
            false,
            &mut |_, _| {
                n += 1;
                if n.is_multiple_of(4096)
                    && interrupt.load(std::sync::atomic::Ordering::Relaxed) != 0
                {
                    return Err(kiln_common::ErrorKind::ER_QUERY_INTERRUPTED.into());
                }
                Ok(n < limit)
            },
        )
    })?;
    Ok(n)
}

/// Reads the rows `access` selects, in index order (descending if asked), calling
/// `f(primary key, row)` until it returns false. Only the `needed` columns are
/// decoded (the others read as NULL). `covering`: the chosen secondary index holds
/// every needed column (covering.rs), so a consistent read takes them from its
/// entries wherever the entry settles visibility by itself.
#[allow(clippy::too_many_arguments)]
pub fn fetch(
    trx: &mut Trx,
    t: &TableHandle,
    access: &Access,
    lock: Lock,
    descending: bool,
    needed: Option<&[bool]>,
    covering: bool,
    f: &mut RowSink<'_>,
) -> Result<()> {
    check_snapshot(trx, t)?;
    let mut decode = |pk: &[u8], row: &[u8], f: &mut RowSink<'_>| {
        let mut values = Vec::with_capacity(t.def.columns.len());
        t.shape.decode_masked(row, needed, &mut values)?;
        f(pk, values)
    };
    let wait = |w: LockWait| match w {
        LockWait::Default => trx.wait(),
        LockWait::NoWait => Wait::NoWait,
        LockWait::Skip => Wait::Skip,
    };
    let mode = match lock {
        Lock::None => None,
        Lock::Shared(w) => Some((Mode::S, wait(w))),
        Lock::Exclusive(w) => Some((Mode::X, wait(w))),
    };
    match access {
        Access::Empty => Ok(()),
        Access::Full => {
            let ranges = [(Bound::Unbounded, Bound::Unbounded)];
            read_clustered(trx, t, &ranges, false, mode, descending, &mut decode, f)
        }
        Access::Index {
            index: 0,
            ranges,
            point,
        } => read_clustered(trx, t, ranges, *point, mode, descending, &mut decode, f),
        Access::Index { index, ranges, .. } => {
            let pos = t.sec_pos[*index].expect("a secondary index with a tree");
            let mut ordered: Vec<&KeyRange> = ranges.iter().collect();
            if descending {
                ordered.reverse();
            }
            let entry_mask = needed.filter(|_| covering);
            for (lo, hi) in ordered {
                let Some((m, w)) = mode else {
                    // A consistent read streams (the sink may stop it early).
                    let mut failed = None;
                    let mut stopped = false;
                    trx.scan_secondary_each(
                        &t.storage,
                        pos,
                        as_ref(lo),
                        as_ref(hi),
                        descending,
                        entry_mask.is_some(),
                        &mut |pk, got| {
                            let more = match got {
                                SecRead::Row(row) => decode(pk, &row, f),
                                SecRead::Entry(entry) => {
                                    let mask = entry_mask.expect("covering read");
                                    let mut values = Vec::new();
                                    super::covering::decode_entry(
                                        t,
                                        *index,
                                        entry,
                                        mask,
                                        &mut values,
                                    )
                                    .and_then(|()| f(pk, values))
                                }
                            };
                            match more {
                                Ok(true) => Ok(true),
                                Ok(false) => {
                                    stopped = true;
                                    Ok(false)
                                }
                                Err(e) => {
                                    failed = Some(e);
                                    Ok(false)
                                }
                            }
                        },
                    )
                    .map_err(trx_error)?;
                    if let Some(e) = failed {
                        return Err(e);
                    }
                    if stopped {
                        return Ok(());
                    }
                    continue;
                };
                let mut rows = trx
                    .table_lookup_locking(&t.storage, pos, as_ref(lo), as_ref(hi), m, w)
                    .map_err(trx_error)?;
                if descending {
                    rows.reverse();
                }
                for (pk, row) in rows {
                    if !decode(&pk, &row, f)? {
                        return Ok(());
                    }
                }
            }
            Ok(())
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn read_clustered(
    trx: &mut Trx,
    t: &TableHandle,
    ranges: &[KeyRange],
    point: bool,
    mode: Option<(Mode, Wait)>,
    descending: bool,
    decode: &mut Decoder<'_>,
    f: &mut RowSink<'_>,
) -> Result<()> {
    let tree = &t.storage.clustered;
    let mut ordered: Vec<&KeyRange> = ranges.iter().collect();
    if descending {
        ordered.reverse();
    }
    for (lo, hi) in ordered {
        if point && let Bound::Included(k) = lo {
            let rm = match mode {
                None => ReadMode::Consistent,
                Some((Mode::S, w)) => ReadMode::Share(w),
                Some((_, w)) => ReadMode::Update(w),
            };
            if let Some(row) = trx.read(tree, k, rm).map_err(trx_error)?
                && !decode(k, &row, f)?
            {
                return Ok(());
            }
            continue;
        }
        match mode {
            None => {
                let mut it = trx.scan(tree, as_ref(lo), as_ref(hi), descending);
                for r in &mut it {
                    let (k, row) = r.map_err(trx_error)?;
                    if !decode(&k, &row, f)? {
                        return Ok(());
                    }
                }
            }
            Some((m, w)) => {
                let rows = trx
                    .scan_locking(tree, as_ref(lo), as_ref(hi), descending, m, w)
                    .map_err(trx_error)?;
                for (k, row) in rows {
                    if !decode(&k, &row, f)? {
                        return Ok(());
                    }
                }
            }
        }
    }
    Ok(())
}

/// A read of a table that a DDL rebuilt after this transaction's read view was
/// taken: the view would find the new copy empty (its rows carry the DDL's
/// transaction id), so it is 1412, as InnoDB does when an open view cannot see the
/// transaction that created the table's indexes — for consistent and locking reads,
/// and UPDATE / DELETE, alike.
pub fn check_snapshot(trx: &mut Trx, t: &TableHandle) -> Result<()> {
    if t.rebuilt_by != 0 && !trx.view_sees(t.rebuilt_by) {
        return Err(kiln_common::ErrorKind::ER_TABLE_DEF_CHANGED.into());
    }
    Ok(())
}

/// An engine error as the MySQL error a client sees.
pub fn trx_error(e: kiln_storage::trx::TrxError) -> kiln_common::KilnError {
    use kiln_common::{ErrorKind, KilnError};
    use kiln_storage::trx::{LockError, TrxError};
    match e {
        TrxError::Lock(LockError::Deadlock) => ErrorKind::ER_LOCK_DEADLOCK.into(),
        TrxError::Lock(LockError::Timeout) => ErrorKind::ER_LOCK_WAIT_TIMEOUT.into(),
        TrxError::Lock(LockError::NoWait) => ErrorKind::ER_LOCK_NOWAIT.into(),
        TrxError::ReadOnly => ErrorKind::ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION.into(),
        TrxError::TooManyReaders => ErrorKind::ER_CON_COUNT_ERROR.into(),
        TrxError::DuplicateKey => KilnError::new(ErrorKind::ER_DUP_ENTRY, &[&"?", &"?"]),
        other => storage_error(format!("{other:?}")),
    }
}
