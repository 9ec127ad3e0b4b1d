//! Hash join of two read relations on the equalities between them (MySQL 8.0's
//! "Using join buffer (hash join)").
//!
//! Keys: each equality `f(first) = g(second)` of the condition's conjuncts gives one
//! key part, evaluated per row of its side. A key hashes consistently with how the
//! executor compares the two values (eval `compare_in`), so equal values always meet:
//! all numbers → their value as a double (every numeric comparison that is not
//! integer-exact goes through doubles, and integer-equal values are double-equal);
//! all character strings → the comparison collation's hash of the text (consistent
//! with its equality, PAD SPACE included). Anything else in a key column (binary
//! strings, strings mixed with numbers, texts of temporals, which compare as
//! datetimes across shapes) and the join runs as the nested loop. A NULL key part
//! matches nothing (`=`).
//!
//! The hash table is built on the smaller side of an inner join, on the inner side of
//! an outer join (the preserved side probes, so its unmatched rows are known), and
//! holds at most `join_buffer_size` bytes (`ENTRY_BYTES` a row): a larger build side
//! is built and probed in chunks. Each candidate pair re-checks the whole condition
//! (hash collisions, the other conjuncts). The matches are then put in the nested
//! loop's order.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::Range;

use kiln_common::Result;

use super::RowEnv;
use super::join::{
    Ctx, deterministic, equality, push_row, shift_slots, slots_within, too_many_rows,
};
use super::select::Relation;
use crate::ast::{Expr, VarScope};
use crate::collate::Coll;
use crate::eval::{Env, eval};
use crate::session::Session;
use crate::value::Value;

/// Bytes a build row takes in the hash table (key, row number, bucket), for the
/// join_buffer_size bound.
pub const ENTRY_BYTES: u64 = 48;

/// How a key part's values hash.
#[derive(Clone, Copy)]
enum Class {
    Number,
    Text(Coll),
}

/// The key parts of `ctx`'s condition: (first-side expr, second-side expr, collation),
/// each expression moved to its side's own slots.
pub(crate) fn key_parts(
    cond: Option<&Expr>,
    fr: Range<usize>,
    sr: Range<usize>,
) -> Result<Vec<(Expr, Expr, Option<Coll>)>> {
    let Some(cond) = cond else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for c in super::bind::conjuncts(cond) {
        let Some((l, r, coll)) = equality(c) else {
            continue;
        };
        if !deterministic(l) || !deterministic(r) {
            continue;
        }
        let side = |e: &Expr| {
            let f = slots_within(e, &fr);
            let s = slots_within(e, &sr);
            match (f, s) {
                ((true, true), _) => Some(true),
                (_, (true, true)) => Some(false),
                _ => None,
            }
        };
        match (side(l), side(r)) {
            (Some(true), Some(false)) => {
                out.push((shift_slots(l, fr.start)?, shift_slots(r, sr.start)?, coll))
            }
            (Some(false), Some(true)) => {
                out.push((shift_slots(r, fr.start)?, shift_slots(l, sr.start)?, coll))
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The key values of each row of one side (None: a key part failed to evaluate).
fn side_keys(
    sess: &mut Session,
    rel: &Relation,
    exprs: &[&Expr],
) -> Result<Option<Vec<Vec<Value>>>> {
    let mut out = Vec::with_capacity(rel.rows.len());
    for row in &rel.rows {
        let mut re = RowEnv {
            inner: sess,
            row,
            scope: Some(&rel.scope),
        };
        let mut k = Vec::with_capacity(exprs.len());
        for e in exprs {
            match eval(e, &mut re) {
                Ok(v) => k.push(v),
                Err(_) => return Ok(None),
            }
        }
        out.push(k);
    }
    Ok(Some(out))
}

/// The class of key part `j` over both sides' values, None if they cannot hash.
fn class_of(j: usize, a: &[Vec<Value>], b: &[Vec<Value>], coll: Coll) -> Option<Class> {
    let (mut numbers, mut texts) = (false, false);
    for v in a.iter().chain(b.iter()).map(|k| &k[j]) {
        match v {
            Value::Null => {}
            Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_) => numbers = true,
            Value::Str(s) if !crate::functions::time::canonical_temporal(s) => texts = true,
            _ => return None,
        }
    }
    match (numbers, texts) {
        (true, true) => None,
        (false, true) => Some(Class::Text(coll)),
        _ => Some(Class::Number),
    }
}

/// A row's key hash (None: a NULL part, which matches nothing).
fn hash_key(k: &[Value], classes: &[Class]) -> Option<u64> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for (v, c) in k.iter().zip(classes) {
        match (v, c) {
            (Value::Null, _) => return None,
            (Value::Str(s), Class::Text(coll)) => coll.hash(s.as_bytes(), &mut h),
            (v, _) => {
                let d = v.to_f64()?;
                // -0.0 = 0.0.
                let d = if d == 0.0 { 0.0 } else { d };
                d.to_bits().hash(&mut h);
            }
        }
        0xffu8.hash(&mut h);
    }
    Some(h.finish())
}

/// The session's join_buffer_size in bytes.
pub(crate) fn join_buffer_size(sess: &Session) -> u64 {
    match sess.vars.get(VarScope::Session, "join_buffer_size") {
        Ok(Value::UInt(u)) => u,
        Ok(Value::Int(i)) => i.max(0) as u64,
        _ => 262_144,
    }
}

/// Joins `first` and `second` by hashing, or None when the condition has no
/// equality between them that hashes (the caller runs the nested loop).
pub(crate) fn run(
    sess: &mut Session,
    ctx: &mut Ctx,
    first: &Relation,
    second: &Relation,
) -> Result<Option<Vec<Vec<Value>>>> {
    let parts = key_parts(ctx.cond.as_ref(), ctx.first_range(), ctx.second_range())?;
    if parts.is_empty() {
        return Ok(None);
    }
    let fe: Vec<&Expr> = parts.iter().map(|p| &p.0).collect();
    let se: Vec<&Expr> = parts.iter().map(|p| &p.1).collect();
    let Some(fk) = side_keys(sess, first, &fe)? else {
        return Ok(None);
    };
    let Some(sk) = side_keys(sess, second, &se)? else {
        return Ok(None);
    };
    let conn = sess.collation_connection();
    let mut classes = Vec::with_capacity(parts.len());
    for (j, p) in parts.iter().enumerate() {
        match class_of(j, &fk, &sk, p.2.unwrap_or(conn)) {
            Some(c) => classes.push(c),
            None => return Ok(None),
        }
    }
    let fh: Vec<Option<u64>> = fk.iter().map(|k| hash_key(k, &classes)).collect();
    let sh: Vec<Option<u64>> = sk.iter().map(|k| hash_key(k, &classes)).collect();
    // Build on the second side unless an inner join's first side is smaller.
    let build_first = !ctx.outer && first.rows.len() < second.rows.len();
    let (build, probe) = if build_first { (&fh, &sh) } else { (&sh, &fh) };
    let per_chunk = (join_buffer_size(sess) / ENTRY_BYTES).max(1) as usize;
    let built: Vec<u32> = (0..build.len() as u32)
        .filter(|&i| build[i as usize].is_some())
        .collect();
    let mut matches: Vec<(u32, u32, Vec<Value>)> = Vec::new();
    let mut builds = 0u64;
    for chunk in built.chunks(per_chunk) {
        builds += 1;
        let mut table: HashMap<u64, Vec<u32>> = HashMap::with_capacity(chunk.len());
        for &i in chunk {
            if let Some(h) = build[i as usize] {
                table.entry(h).or_default().push(i);
            }
        }
        for (p, ph) in probe.iter().enumerate() {
            let Some(bucket) = ph.and_then(|h| table.get(&h)) else {
                continue;
            };
            for &b in bucket {
                let (i, j) = if build_first {
                    (b, p as u32)
                } else {
                    (p as u32, b)
                };
                let row = ctx.pair_row(&first.rows[i as usize], &second.rows[j as usize]);
                if ctx.check(sess, &row)? {
                    matches.push((i, j, row));
                    if matches.len() > super::select::ROWS_IN_MEMORY_MAX {
                        return Err(too_many_rows());
                    }
                }
            }
        }
    }
    crate::status::add("Kiln_join_hash_builds", builds);
    matches.sort_unstable_by_key(|m| (m.0, m.1));
    let mut rows = Vec::with_capacity(matches.len());
    let mut next = matches.into_iter().peekable();
    for (i, l) in first.rows.iter().enumerate() {
        let mut matched = false;
        while let Some(m) = next.next_if(|m| m.0 as usize == i) {
            matched = true;
            push_row(&mut rows, m.2)?;
        }
        if ctx.outer && !matched {
            push_row(&mut rows, ctx.null_extended(l))?;
        }
    }
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(v: Value, c: Class) -> Option<u64> {
        hash_key(&[v], &[c])
    }

    #[test]
    fn equal_numbers_hash_alike() {
        let n = Class::Number;
        let one = key(Value::Int(1), n);
        assert!(one.is_some());
        assert_eq!(one, key(Value::UInt(1), n));
        assert_eq!(one, key(Value::Double(1.0), n));
        assert_eq!(one, key(Value::Decimal("1.00".into()), n));
        assert_eq!(key(Value::Double(-0.0), n), key(Value::Int(0), n));
        assert_ne!(one, key(Value::Int(2), n));
        assert_eq!(key(Value::Null, n), None);
    }

    #[test]
    fn equal_texts_hash_alike_under_the_collation() {
        let ci = Class::Text(Coll::of("utf8mb4_general_ci"));
        let bin = Class::Text(Coll::of("utf8mb4_bin"));
        let s = |t: &str| Value::Str(t.into());
        assert_eq!(key(s("ab"), ci), key(s("AB "), ci));
        assert_ne!(key(s("ab"), bin), key(s("AB"), bin));
        assert_eq!(key(s("ab"), bin), key(s("ab "), bin));
    }

    #[test]
    fn mixed_key_columns_do_not_hash() {
        let c = Coll::of("utf8mb4_general_ci");
        let nums = vec![vec![Value::Int(1)]];
        let texts = vec![vec![Value::Str("1".into())]];
        let dates = vec![vec![Value::Str("2020-01-01".into())]];
        let bytes = vec![vec![Value::Bytes(b"1".to_vec())]];
        assert!(matches!(class_of(0, &nums, &nums, c), Some(Class::Number)));
        assert!(matches!(
            class_of(0, &texts, &texts, c),
            Some(Class::Text(_))
        ));
        assert!(class_of(0, &nums, &texts, c).is_none());
        assert!(class_of(0, &dates, &texts, c).is_none());
        assert!(class_of(0, &bytes, &bytes, c).is_none());
    }
}
