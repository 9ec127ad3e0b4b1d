//! Window functions (MySQL 8.0): named-window resolution, the frame checks with
//! MySQL's errors, and the evaluation stage select.rs runs after WHERE / GROUP BY /
//! HAVING and before DISTINCT / ORDER BY / LIMIT.
//!
//! How a query's windows run (`compute`):
//!   * every distinct window call in the select list and ORDER BY is lifted out of
//!     its expression into a slot past the row (`lift`), so projection and ORDER BY
//!     read it like a column;
//!   * calls are grouped by their (PARTITION BY, ORDER BY): per group the rows'
//!     keys are evaluated once and the row indexes sorted once (stable, O(n log n)),
//!     partition keys ascending then the window's ORDER BY, strings under each key's
//!     collation as GROUP BY / ORDER BY compare them (`coercion::coll_of`);
//!   * per partition, ranking functions walk the peer groups (rows equal in the
//!     window's ORDER BY) once; LAG / LEAD / FIRST_VALUE / LAST_VALUE / NTH_VALUE
//!     index into the partition; aggregates reuse exec/agg.rs's `Accumulator`:
//!     a frame that starts at the partition's first row grows (one accumulator per
//!     partition, read after each row: the default frame is O(n)), one that ends at
//!     the last row grows backwards the same way, any other frame is summed per row
//!     (O(n · frame)).
//!
//! Rules (MySQL 8.0): without a frame, a window with ORDER BY is `RANGE BETWEEN
//! UNBOUNDED PRECEDING AND CURRENT ROW` (peers of the current row included), one
//! without ORDER BY is the whole partition. Ranking functions and LAG / LEAD ignore
//! the frame. RANGE with `n PRECEDING / FOLLOWING` needs one numeric ORDER BY key
//! (INTERVAL offsets: one temporal key); a NULL key's frame is its NULL peers.
//! Memory: the rows are already materialized by select.rs (ROWS_IN_MEMORY_MAX);
//! this stage adds one value per row per call plus each window's sort keys.

use kiln_common::{ErrorKind, KilnError, Result};

use super::RowEnv;
use super::agg::Accumulator;
use super::bind::{self, Scope, window_in};
use super::group::values_eq;
use super::select::cmp_keys;
use crate::ast::*;
use crate::coercion;
use crate::collate::Coll;
use crate::eval::{Env, compare_in, eval};
use crate::result::ColumnKind;
use crate::session::Session;
use crate::value::Value;

const UNNAMED: &str = "<unnamed window>";

fn display(spec: &WindowSpec) -> &str {
    spec.name.as_deref().unwrap_or(UNNAMED)
}

/// Checks a SELECT's WINDOW clause as MySQL does, used or not: names defined twice
/// (3591), unknown (3579) and circular (3580) references, and the refinement rules.
pub(super) fn check_definitions(defs: &[WindowSpec]) -> Result<()> {
    for (i, d) in defs.iter().enumerate() {
        let name = d.name.as_deref().unwrap_or_default();
        if defs[..i].iter().any(|e| {
            e.name
                .as_deref()
                .unwrap_or_default()
                .eq_ignore_ascii_case(name)
        }) {
            return Err(KilnError::new(
                ErrorKind::ER_WINDOW_DUPLICATE_NAME,
                &[&name],
            ));
        }
    }
    for d in defs {
        let r = resolve_spec(d, defs, 0)?;
        check_spec_exprs(&r)?;
    }
    Ok(())
}

/// The window's PARTITION BY / ORDER BY may hold no window function (3595). (A
/// position number there, 3592, is the parser's check: only it knows what was
/// written, not an outer column a correlated subquery's run put in.)
fn check_spec_exprs(spec: &WindowSpec) -> Result<()> {
    let exprs = spec
        .partition_by
        .iter()
        .chain(spec.order_by.iter().map(|o| &o.expr));
    for e in exprs {
        if window_in(e).is_some() {
            return Err(KilnError::new(
                ErrorKind::ER_WINDOW_NESTED_WINDOW_FUNC_USE_IN_WINDOW_SPEC,
                &[&display(spec)],
            ));
        }
    }
    Ok(())
}

/// `spec` with its named window merged in: `OVER w` is w itself; `(w ORDER BY x)`
/// takes w's PARTITION BY (it may not add its own: 3581), its ORDER BY unless both
/// have one (3583), and never a w with a frame (3582).
fn resolve_spec(spec: &WindowSpec, defs: &[WindowSpec], depth: usize) -> Result<WindowSpec> {
    let Some(base) = &spec.base else {
        return Ok(spec.clone());
    };
    if depth > defs.len() {
        return Err(ErrorKind::ER_WINDOW_CIRCULARITY_IN_WINDOW_GRAPH.into());
    }
    let def = defs
        .iter()
        .find(|d| {
            d.name
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(base))
        })
        .ok_or_else(|| KilnError::new(ErrorKind::ER_WINDOW_NO_SUCH_WINDOW, &[base]))?;
    let b = resolve_spec(def, defs, depth + 1)?;
    if spec.bare {
        return Ok(b);
    }
    if !spec.partition_by.is_empty() {
        return Err(ErrorKind::ER_WINDOW_NO_CHILD_PARTITIONING.into());
    }
    if b.frame.is_some() {
        return Err(KilnError::new(
            ErrorKind::ER_WINDOW_NO_INHERIT_FRAME,
            &[base],
        ));
    }
    if !b.order_by.is_empty() && !spec.order_by.is_empty() {
        return Err(KilnError::new(
            ErrorKind::ER_WINDOW_NO_REDEFINE_ORDER_BY,
            &[&display(spec), base],
        ));
    }
    Ok(WindowSpec {
        name: spec.name.clone(),
        base: None,
        bare: false,
        partition_by: b.partition_by,
        order_by: if spec.order_by.is_empty() {
            b.order_by
        } else {
            spec.order_by.clone()
        },
        frame: spec.frame.clone(),
    })
}

/// `e` (a select-list or ORDER BY expression, unbound) with every window call's
/// named window resolved; a window function inside another's arguments is 3593.
pub(super) fn resolve(e: &Expr, defs: &[WindowSpec]) -> Result<Expr> {
    bind::rewrite(e, &mut |x| match x {
        Expr::Window(w) => {
            for a in &w.args {
                if let Some(n) = window_in(a) {
                    return Err(KilnError::new(
                        ErrorKind::ER_WINDOW_INVALID_WINDOW_FUNC_USE,
                        &[&n],
                    ));
                }
            }
            let over = resolve_spec(&w.over, defs, 0)?;
            check_spec_exprs(&over)?;
            Ok(Some(Expr::Window(Box::new(WindowFunc {
                name: w.name.clone(),
                args: w.args.clone(),
                over,
            }))))
        }
        // An aggregate over a window function (SUM(ROW_NUMBER() OVER ())).
        Expr::Func { name, args } if bind::is_aggregate(name) => {
            match args.iter().find_map(window_in) {
                Some(n) => Err(KilnError::new(
                    ErrorKind::ER_WINDOW_INVALID_WINDOW_FUNC_USE,
                    &[&n],
                )),
                None => Ok(None),
            }
        }
        _ => Ok(None),
    })
}

/// Replaces the window calls of a bound expression by slots `base + k`, `k` the
/// call's index in `calls` (equal calls share one).
pub(super) fn lift(e: &Expr, calls: &mut Vec<WindowFunc>, base: usize) -> Result<Expr> {
    bind::rewrite(e, &mut |x| match x {
        Expr::Window(w) => {
            let k = calls.iter().position(|c| c == &**w).unwrap_or_else(|| {
                calls.push((**w).clone());
                calls.len() - 1
            });
            Ok(Some(Expr::Slot(base + k)))
        }
        _ => Ok(None),
    })
}

/// What one call computes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Func {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile(u64),
    /// LAG (back) or LEAD by `offset` rows.
    Shift {
        offset: u64,
        lead: bool,
    },
    FirstValue,
    LastValue,
    NthValue(u64),
    Aggregate,
}

/// A frame bound made concrete.
#[derive(Debug, Clone, PartialEq)]
enum Bound {
    UnboundedPreceding,
    Preceding(Offset),
    CurrentRow,
    Following(Offset),
    UnboundedFollowing,
}

#[derive(Debug, Clone, PartialEq)]
enum Offset {
    Rows(u64),
    /// RANGE over a numeric key.
    Number(f64),
    /// RANGE over a temporal key: INTERVAL n unit.
    Interval(Value, String),
}

#[derive(Debug, Clone, PartialEq)]
struct Frame {
    rows: bool,
    start: Bound,
    end: Bound,
}

/// One call, checked and ready to run.
struct Plan {
    func: Func,
    frame: Frame,
    /// The synthetic aggregate call reading the precomputed arguments (slots 0..).
    agg_call: Option<Expr>,
    agg_colls: Vec<Coll>,
}

/// A constant integer argument of NTILE / LAG / LEAD / NTH_VALUE (1210 otherwise).
fn const_arg(sess: &mut Session, e: &Expr, name: &str, min: i64) -> Result<u64> {
    let bad = || KilnError::new(ErrorKind::ER_WRONG_ARGUMENTS, &[&name]);
    if !bind::is_constant(e) {
        return Err(bad());
    }
    match eval(e, sess)? {
        Value::Int(i) if i >= min => Ok(i as u64),
        Value::UInt(u) if u as i128 >= min as i128 => Ok(u),
        _ => Err(bad()),
    }
}

fn wrong_count(name: &str) -> KilnError {
    KilnError::new(ErrorKind::ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, &[&name])
}

/// The kind of the window's single ORDER BY key, for RANGE offsets: numeric,
/// temporal, or neither (3587).
#[derive(Debug, Clone, Copy, PartialEq)]
enum KeyKind {
    Numeric,
    Temporal,
    Other,
}

fn key_kind(kind: Option<ColumnKind>, sample: &[Value]) -> KeyKind {
    use ColumnKind as K;
    match kind {
        Some(
            K::Tiny
            | K::Short
            | K::Int24
            | K::Long
            | K::LongLong
            | K::Float
            | K::Double
            | K::NewDecimal
            | K::Bit
            | K::Year,
        ) => KeyKind::Numeric,
        Some(K::Date | K::DateTime | K::Timestamp | K::Time) => KeyKind::Temporal,
        Some(K::String | K::VarString | K::Blob | K::Json) => KeyKind::Other,
        _ => {
            // Unknown statically (a derived table's column): judge by the values.
            let mut kind = KeyKind::Numeric;
            for v in sample.iter().filter(|v| !v.is_null()) {
                match v {
                    Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_) => {}
                    Value::Str(s) if crate::functions::time::canonical_temporal(s) => {
                        kind = KeyKind::Temporal
                    }
                    _ => return KeyKind::Other,
                }
            }
            kind
        }
    }
}

/// Checks a window's frame (3584 … 3596) and makes its offsets concrete. `key`:
/// the kind of the single ORDER BY key (None: not exactly one).
fn plan_frame(sess: &mut Session, spec: &WindowSpec, key: Option<KeyKind>) -> Result<Frame> {
    let name = display(spec);
    let Some(f) = &spec.frame else {
        return Ok(Frame {
            rows: false,
            start: Bound::UnboundedPreceding,
            end: if spec.order_by.is_empty() {
                Bound::UnboundedFollowing
            } else {
                Bound::CurrentRow
            },
        });
    };
    if f.start == FrameBound::UnboundedFollowing {
        return Err(KilnError::new(
            ErrorKind::ER_WINDOW_FRAME_START_ILLEGAL,
            &[&name],
        ));
    }
    if f.end == FrameBound::UnboundedPreceding {
        return Err(KilnError::new(
            ErrorKind::ER_WINDOW_FRAME_END_ILLEGAL,
            &[&name],
        ));
    }
    let mut offset = |e: &Expr, unit: &Option<String>| -> Result<Offset> {
        let illegal = || KilnError::new(ErrorKind::ER_WINDOW_FRAME_ILLEGAL, &[&name]);
        if f.rows && unit.is_some() {
            return Err(KilnError::new(
                ErrorKind::ER_WINDOW_ROWS_INTERVAL_USE,
                &[&name],
            ));
        }
        if !f.rows {
            match key {
                None | Some(KeyKind::Other) => {
                    return Err(KilnError::new(
                        ErrorKind::ER_WINDOW_RANGE_FRAME_ORDER_TYPE,
                        &[&name],
                    ));
                }
                Some(KeyKind::Numeric) if unit.is_some() => {
                    return Err(KilnError::new(
                        ErrorKind::ER_WINDOW_RANGE_FRAME_NUMERIC_TYPE,
                        &[&name],
                    ));
                }
                Some(KeyKind::Temporal) if unit.is_none() => {
                    return Err(KilnError::new(
                        ErrorKind::ER_WINDOW_RANGE_FRAME_TEMPORAL_TYPE,
                        &[&name],
                    ));
                }
                _ => {}
            }
        }
        if !bind::is_constant(e) {
            return Err(KilnError::new(
                ErrorKind::ER_WINDOW_RANGE_BOUND_NOT_CONSTANT,
                &[&name],
            ));
        }
        let v = eval(e, sess)?;
        let negative = v.to_f64().is_some_and(|d| d < 0.0);
        if v.is_null() || negative {
            return Err(illegal());
        }
        if f.rows {
            return match v {
                Value::Int(i) => Ok(Offset::Rows(i as u64)),
                Value::UInt(u) => Ok(Offset::Rows(u)),
                _ => Err(illegal()),
            };
        }
        match unit {
            Some(u) => Ok(Offset::Interval(v, u.clone())),
            None => Ok(Offset::Number(v.to_f64().unwrap_or(0.0))),
        }
    };
    let mut bound = |b: &FrameBound| -> Result<Bound> {
        Ok(match b {
            FrameBound::UnboundedPreceding => Bound::UnboundedPreceding,
            FrameBound::CurrentRow => Bound::CurrentRow,
            FrameBound::UnboundedFollowing => Bound::UnboundedFollowing,
            FrameBound::Preceding(e, u) => Bound::Preceding(offset(e, u)?),
            FrameBound::Following(e, u) => Bound::Following(offset(e, u)?),
        })
    };
    let start = bound(&f.start)?;
    let end = bound(&f.end)?;
    Ok(Frame {
        rows: f.rows,
        start,
        end,
    })
}

/// Checks one call and plans it.
fn plan_call(
    sess: &mut Session,
    scope: &Scope,
    call: &WindowFunc,
    key: Option<KeyKind>,
) -> Result<Plan> {
    let name = call.name.as_str();
    let n = call.args.len();
    let func = match name {
        "row_number" | "rank" | "dense_rank" | "percent_rank" | "cume_dist" => {
            if n != 0 {
                return Err(wrong_count(name));
            }
            match name {
                "row_number" => Func::RowNumber,
                "rank" => Func::Rank,
                "dense_rank" => Func::DenseRank,
                "percent_rank" => Func::PercentRank,
                _ => Func::CumeDist,
            }
        }
        "ntile" => {
            if n != 1 {
                return Err(wrong_count(name));
            }
            Func::Ntile(const_arg(sess, &call.args[0], name, 1)?)
        }
        "lag" | "lead" => {
            if !(1..=3).contains(&n) {
                return Err(wrong_count(name));
            }
            let offset = match call.args.get(1) {
                Some(e) => const_arg(sess, e, name, 0)?,
                None => 1,
            };
            Func::Shift {
                offset,
                lead: name == "lead",
            }
        }
        "first_value" | "last_value" => {
            if n != 1 {
                return Err(wrong_count(name));
            }
            if name == "first_value" {
                Func::FirstValue
            } else {
                Func::LastValue
            }
        }
        "nth_value" => {
            if n != 2 {
                return Err(wrong_count(name));
            }
            Func::NthValue(const_arg(sess, &call.args[1], name, 1)?)
        }
        _ => Func::Aggregate,
    };
    let frame = plan_frame(sess, &call.over, key)?;
    let (agg_call, agg_colls) = if func == Func::Aggregate {
        let synthetic = Expr::Func {
            name: call.name.clone(),
            args: (0..n).map(Expr::Slot).collect(),
        };
        let conn = crate::eval::Env::collation_connection(sess);
        let colls: Vec<Coll> = call
            .args
            .iter()
            .map(|a| coercion::coll_of(a, scope, conn))
            .collect();
        // Arity and support errors now, not per partition.
        Accumulator::new(&synthetic, &colls)?;
        (Some(synthetic), colls)
    } else {
        (None, Vec::new())
    };
    Ok(Plan {
        func,
        frame,
        agg_call,
        agg_colls,
    })
}

/// Evaluates `calls` over `rows` and appends each call's value to every row (in
/// `calls` order). `slot_kind`: the static kind of a bound slot, where known.
pub(super) fn compute(
    sess: &mut Session,
    scope: &Scope,
    rows: &mut [Vec<Value>],
    calls: &[WindowFunc],
    slot_kind: &dyn Fn(usize) -> Option<ColumnKind>,
) -> Result<()> {
    let conn = crate::eval::Env::collation_connection(sess);
    let mut results: Vec<Vec<Value>> = vec![Vec::new(); calls.len()];
    let mut done = vec![false; calls.len()];
    for first in 0..calls.len() {
        if done[first] {
            continue;
        }
        let spec = &calls[first].over;
        // The calls sharing this window's partitioning and ordering: one sort.
        let group: Vec<usize> = (first..calls.len())
            .filter(|&c| {
                !done[c]
                    && calls[c].over.partition_by == spec.partition_by
                    && calls[c].over.order_by == spec.order_by
            })
            .collect();
        for &c in &group {
            done[c] = true;
        }
        let np = spec.partition_by.len();
        let no = spec.order_by.len();
        let mut colls: Vec<Coll> = Vec::with_capacity(np + no);
        let mut desc: Vec<bool> = Vec::with_capacity(np + no);
        for e in &spec.partition_by {
            colls.push(coercion::coll_of(e, scope, conn));
            desc.push(false);
        }
        for o in &spec.order_by {
            colls.push(coercion::coll_of(&o.expr, scope, conn));
            desc.push(o.desc);
        }
        // Each row's keys: partition values, then order values.
        let mut keys: Vec<Vec<Value>> = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            if i % 4096 == 4095 && sess.is_interrupted() {
                return Err(ErrorKind::ER_QUERY_INTERRUPTED.into());
            }
            let mut re = RowEnv {
                inner: &mut *sess,
                row: r,
                scope: Some(scope),
            };
            let mut k = Vec::with_capacity(np + no);
            for e in &spec.partition_by {
                k.push(eval(e, &mut re)?);
            }
            for o in &spec.order_by {
                k.push(eval(&o.expr, &mut re)?);
            }
            keys.push(k);
        }
        let key = (no == 1).then(|| {
            let sample: Vec<Value> = keys.iter().take(64).map(|k| k[np].clone()).collect();
            key_kind(
                crate::infer::kind_of_expr(&spec.order_by[0].expr, slot_kind),
                &sample,
            )
        });
        let plans: Vec<Plan> = group
            .iter()
            .map(|&c| plan_call(sess, scope, &calls[c], key))
            .collect::<Result<_>>()?;
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by(|&a, &b| cmp_keys(&keys[a], &keys[b], &desc, &colls));
        for &c in &group {
            results[c] = vec![Value::Null; rows.len()];
        }
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len()
                && values_eq(
                    &keys[order[start]][..np],
                    &keys[order[end]][..np],
                    &colls[..np],
                )
            {
                end += 1;
            }
            let part = Partition {
                rows: &order[start..end],
                keys: &keys,
                np,
                colls: &colls[np..],
                desc: spec.order_by.first().is_some_and(|o| o.desc),
            };
            for (&c, plan) in group.iter().zip(&plans) {
                let out = &mut results[c];
                run_call(sess, scope, rows, &calls[c], plan, &part, out)?;
            }
            start = end;
        }
    }
    for (i, r) in rows.iter_mut().enumerate() {
        for res in results.iter_mut() {
            r.push(std::mem::replace(&mut res[i], Value::Null));
        }
    }
    Ok(())
}

/// One partition: row indexes in window order, with every row's keys.
struct Partition<'a> {
    rows: &'a [usize],
    keys: &'a [Vec<Value>],
    /// Number of partition keys (the order keys follow them in `keys`).
    np: usize,
    /// The order keys' collations.
    colls: &'a [Coll],
    /// The first ORDER BY key is descending (RANGE offsets).
    desc: bool,
}

impl Partition<'_> {
    fn order_key(&self, j: usize) -> &[Value] {
        &self.keys[self.rows[j]][self.np..]
    }

    /// For each position, the first and one-past-last position of its peer group.
    fn peers(&self) -> (Vec<usize>, Vec<usize>) {
        let m = self.rows.len();
        let mut first = vec![0; m];
        let mut last = vec![m; m];
        let mut g = 0;
        for j in 1..=m {
            if j == m || !values_eq(self.order_key(g), self.order_key(j), self.colls) {
                first[g..j].fill(g);
                last[g..j].fill(j);
                g = j;
            }
        }
        (first, last)
    }
}

/// Evaluates `e` on row `r` of `rows`.
fn eval_on(sess: &mut Session, scope: &Scope, row: &[Value], e: &Expr) -> Result<Value> {
    let mut re = RowEnv {
        inner: sess,
        row,
        scope: Some(scope),
    };
    eval(e, &mut re)
}

fn run_call(
    sess: &mut Session,
    scope: &Scope,
    rows: &[Vec<Value>],
    call: &WindowFunc,
    plan: &Plan,
    part: &Partition<'_>,
    out: &mut [Value],
) -> Result<()> {
    let m = part.rows.len();
    let at = |j: usize| part.rows[j];
    match plan.func {
        Func::RowNumber => {
            for j in 0..m {
                out[at(j)] = Value::Int(j as i64 + 1);
            }
        }
        Func::Rank | Func::DenseRank | Func::PercentRank | Func::CumeDist => {
            let (first, last) = part.peers();
            let mut dense = 0i64;
            for j in 0..m {
                if first[j] == j {
                    dense += 1;
                }
                out[at(j)] = match plan.func {
                    Func::Rank => Value::Int(first[j] as i64 + 1),
                    Func::DenseRank => Value::Int(dense),
                    Func::PercentRank => Value::Double(if m > 1 {
                        first[j] as f64 / (m - 1) as f64
                    } else {
                        0.0
                    }),
                    _ => Value::Double(last[j] as f64 / m as f64),
                };
            }
        }
        Func::Ntile(k) => {
            let m64 = m as u64;
            let q = m64 / k;
            let r = m64 % k;
            for j in 0..m {
                let j64 = j as u64;
                let bucket = if j64 < r * (q + 1) {
                    j64 / (q + 1) + 1
                } else {
                    r + (j64 - r * (q + 1)) / q.max(1) + 1
                };
                out[at(j)] = Value::Int(bucket as i64);
            }
        }
        Func::Shift { offset, lead } => {
            for j in 0..m {
                let target = if lead {
                    (j as u64).checked_add(offset).filter(|t| *t < m as u64)
                } else {
                    (j as u64).checked_sub(offset)
                };
                out[at(j)] = match target {
                    Some(t) => eval_on(sess, scope, &rows[at(t as usize)], &call.args[0])?,
                    None => match call.args.get(2) {
                        Some(d) => eval_on(sess, scope, &rows[at(j)], d)?,
                        None => Value::Null,
                    },
                };
            }
        }
        Func::FirstValue | Func::LastValue | Func::NthValue(_) => {
            let vals: Vec<Value> = (0..m)
                .map(|j| eval_on(sess, scope, &rows[at(j)], &call.args[0]))
                .collect::<Result<_>>()?;
            let frames = frames(sess, &plan.frame, part)?;
            for (j, (lo, hi)) in frames.into_iter().enumerate() {
                let pick = match plan.func {
                    Func::FirstValue => (lo < hi).then_some(lo),
                    Func::LastValue => (lo < hi).then(|| hi - 1),
                    Func::NthValue(n) => {
                        let p = (lo as u64).saturating_add(n - 1);
                        (p < hi as u64).then_some(p as usize)
                    }
                    _ => None,
                };
                out[at(j)] = pick.map_or(Value::Null, |p| vals[p].clone());
            }
        }
        Func::Aggregate => {
            let agg = plan.agg_call.as_ref().expect("planned");
            let args: Vec<Vec<Value>> = (0..m)
                .map(|j| {
                    call.args
                        .iter()
                        .map(|a| eval_on(sess, scope, &rows[at(j)], a))
                        .collect::<Result<Vec<Value>>>()
                })
                .collect::<Result<_>>()?;
            let frames = frames(sess, &plan.frame, part)?;
            let dpi = crate::eval::Env::div_precision_increment(sess);
            let new_acc = || Accumulator::new(agg, &plan.agg_colls);
            let add = |acc: &mut Accumulator, p: usize, sess: &mut Session| -> Result<()> {
                let mut re = RowEnv {
                    inner: sess,
                    row: &args[p],
                    scope: None,
                };
                acc.add(agg, &mut re)
            };
            let growing = frames
                .windows(2)
                .all(|w| w[0].1 <= w[1].1 && w[1].0 == w[0].0)
                && frames.first().is_some_and(|f| f.0 == 0);
            let shrinking = frames
                .windows(2)
                .all(|w| w[0].0 <= w[1].0 && w[1].1 == w[0].1)
                && frames.first().is_some_and(|f| f.1 == m);
            if growing {
                let mut acc = new_acc()?;
                let mut next = 0;
                for (j, &(_, hi)) in frames.iter().enumerate() {
                    while next < hi {
                        add(&mut acc, next, sess)?;
                        next += 1;
                    }
                    out[at(j)] = acc.value(dpi);
                }
            } else if shrinking {
                let mut acc = new_acc()?;
                let mut next = m;
                for (j, &(lo, _)) in frames.iter().enumerate().rev() {
                    while next > lo {
                        next -= 1;
                        add(&mut acc, next, sess)?;
                    }
                    out[at(j)] = acc.value(dpi);
                }
            } else {
                for (j, &(lo, hi)) in frames.iter().enumerate() {
                    if j % 1024 == 1023 && sess.is_interrupted() {
                        return Err(ErrorKind::ER_QUERY_INTERRUPTED.into());
                    }
                    let mut acc = new_acc()?;
                    for p in lo..hi {
                        add(&mut acc, p, sess)?;
                    }
                    out[at(j)] = acc.value(dpi);
                }
            }
        }
    }
    Ok(())
}

/// Each position's frame as positions `[lo, hi)` of the partition (empty: lo == hi).
fn frames(sess: &mut Session, frame: &Frame, part: &Partition<'_>) -> Result<Vec<(usize, usize)>> {
    let m = part.rows.len();
    let (first, last) = if frame.rows {
        (Vec::new(), Vec::new())
    } else {
        part.peers()
    };
    // RANGE offsets: the first order key of each position, and where the NULLs are
    // (first when ascending, last when descending).
    let ranged = !frame.rows
        && [&frame.start, &frame.end]
            .iter()
            .any(|b| matches!(b, Bound::Preceding(_) | Bound::Following(_)));
    let key = |j: usize| &part.order_key(j)[0];
    let nulls = if ranged {
        (0..m).filter(|&j| key(j).is_null()).count()
    } else {
        0
    };
    let (lo_nn, hi_nn) = if part.desc {
        (0, m - nulls)
    } else {
        (nulls, m)
    };
    let mut out = Vec::with_capacity(m);
    for j in 0..m {
        let pos = |b: &Bound, start: bool, sess: &mut Session| -> Result<usize> {
            Ok(match b {
                Bound::UnboundedPreceding => 0,
                Bound::UnboundedFollowing => m,
                Bound::CurrentRow if frame.rows => {
                    if start {
                        j
                    } else {
                        j + 1
                    }
                }
                Bound::CurrentRow => {
                    if start {
                        first[j]
                    } else {
                        last[j]
                    }
                }
                Bound::Preceding(Offset::Rows(k)) => {
                    let k = (*k).min(m as u64) as usize;
                    if start {
                        j.saturating_sub(k)
                    } else {
                        (j + 1).saturating_sub(k)
                    }
                }
                Bound::Following(Offset::Rows(k)) => {
                    let k = (*k).min(m as u64) as usize;
                    if start {
                        (j + k).min(m)
                    } else {
                        (j + k + 1).min(m)
                    }
                }
                Bound::Preceding(off) | Bound::Following(off) => {
                    if key(j).is_null() {
                        // A NULL key's n PRECEDING / FOLLOWING is its NULL peers.
                        return Ok(if start { first[j] } else { last[j] });
                    }
                    let preceding = matches!(b, Bound::Preceding(_));
                    // The key value the bound stands at: back in window order is
                    // smaller keys ascending, larger ones descending.
                    let subtract = preceding != part.desc;
                    let target = shifted(sess, key(j), off, subtract)?;
                    let region = (lo_nn, hi_nn);
                    // Ascending: the frame starts at the first key >= target and ends
                    // after the last key <= target; descending mirrors it.
                    let before = |p: usize| -> bool {
                        let o = cmp_key(key(p), &target);
                        match (part.desc, start) {
                            (false, true) => o == std::cmp::Ordering::Less,
                            (false, false) => o != std::cmp::Ordering::Greater,
                            (true, true) => o == std::cmp::Ordering::Greater,
                            (true, false) => o != std::cmp::Ordering::Less,
                        }
                    };
                    partition_point(region, before)
                }
            })
        };
        let lo = pos(&frame.start, true, sess)?;
        let hi = pos(&frame.end, false, sess)?;
        out.push((lo, hi.max(lo)));
    }
    Ok(out)
}

/// A RANGE bound's key value: `v ± offset`.
fn shifted(sess: &mut Session, v: &Value, off: &Offset, subtract: bool) -> Result<Value> {
    match off {
        Offset::Number(d) => {
            let x = v.to_f64().unwrap_or(0.0);
            Ok(Value::Double(if subtract { x - d } else { x + d }))
        }
        Offset::Interval(n, unit) => {
            let f = Expr::Func {
                name: if subtract {
                    "date_sub_interval"
                } else {
                    "date_add_interval"
                }
                .into(),
                args: vec![
                    Expr::Literal(v.clone()),
                    Expr::Literal(n.clone()),
                    Expr::Literal(Value::Str(unit.clone())),
                ],
            };
            eval(&f, sess)
        }
        Offset::Rows(_) => Ok(v.clone()),
    }
}

/// The first position of `[lo, hi)` where `before` turns false (it is true on a
/// prefix of the range).
fn partition_point(range: (usize, usize), before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = range;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn cmp_key(a: &Value, b: &Value) -> std::cmp::Ordering {
    compare_in(a, b, Coll::DEFAULT).unwrap_or(std::cmp::Ordering::Equal)
}
