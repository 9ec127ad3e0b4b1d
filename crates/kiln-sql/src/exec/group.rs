//! Grouping: distinct value tuples by a collation-aware hash (DISTINCT, UNION,
//! COUNT(DISTINCT), GROUP BY), the grouping of rows with their aggregates, and the
//! ONLY_FULL_GROUP_BY check.

use std::collections::HashMap;

use kiln_common::{ErrorKind, KilnError, Result};

use super::RowEnv;
use super::agg::Accumulator;
use super::bind::{self, Scope};
use super::select::SourceTable;
use crate::ast::*;
use crate::coercion;
use crate::collate::Coll;
use crate::eval::{compare_in, eval};
use crate::session::Session;
use crate::value::Value;

/// ONLY_FULL_GROUP_BY: every column a grouped select list uses outside aggregates must
/// be grouped, or be functionally dependent on the grouped columns (here: its table's
/// primary key is grouped). 1055 with GROUP BY, 1140 without.
pub(crate) fn check_full_group_by(
    items: &[(Expr, String)],
    group_by: &[Expr],
    scope: &Scope,
    tables: &[SourceTable],
    width: usize,
) -> Result<()> {
    let grouped: Vec<usize> = group_by
        .iter()
        .filter_map(|g| match g {
            Expr::Slot(i) => Some(*i),
            _ => None,
        })
        .collect();
    let dependent = |slot: usize| -> bool {
        tables.iter().any(|t| {
            let n = t.handle.def.columns.len();
            slot >= t.offset
                && slot < t.offset + n
                && t.handle.def.has_primary_key()
                && t.handle.def.indexes[0]
                    .parts
                    .iter()
                    .all(|p| grouped.contains(&(t.offset + p.column)))
        })
    };
    for (n, (e, _)) in items.iter().enumerate() {
        if group_by.contains(e) {
            continue;
        }
        let mut bad = None;
        bind::visit(e, &mut |x| {
            if let Expr::Slot(i) = x
                && *i < width
                && !grouped.contains(i)
                && !dependent(*i)
                && bad.is_none()
            {
                bad = Some(*i);
            }
        });
        if let Some(i) = bad {
            let c = &scope.columns[i];
            let schema = tables
                .iter()
                .find(|t| t.alias == c.table)
                .map(|t| t.handle.def.schema.clone());
            let full = match schema {
                Some(s) => format!("{s}.{}.{}", c.table, c.name),
                None => format!("{}.{}", c.table, c.name),
            };
            let pos = (n + 1) as u64;
            return Err(if group_by.is_empty() {
                KilnError::new(ErrorKind::ER_MIX_OF_GROUP_FUNC_AND_FIELDS, &[&pos, &full])
            } else {
                KilnError::new(
                    ErrorKind::ER_WRONG_FIELD_WITH_GROUP,
                    &[&pos, &"SELECT list", &full],
                )
            });
        }
    }
    Ok(())
}

/// Hash of values consistent with grouping equality (`values_eq`): numbers by value,
/// strings by their collation's own hash (`colls[i]`, utf8mb4_0900_ai_ci past its
/// end), NULLs alike.
pub fn hash_values(vals: &[Value], colls: &[Coll]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = FastHasher::default();
    for (i, v) in vals.iter().enumerate() {
        match v {
            Value::Null => 0u8.hash(&mut h),
            Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_) => {
                1u8.hash(&mut h);
                match v {
                    Value::Int(i) => (*i as i128).hash(&mut h),
                    Value::UInt(u) => (*u as i128).hash(&mut h),
                    _ => {
                        let d = v.to_f64().unwrap_or(0.0);
                        if d.fract() == 0.0 && d.abs() < 1e38 {
                            (d as i128).hash(&mut h)
                        } else {
                            d.to_bits().hash(&mut h)
                        }
                    }
                }
            }
            Value::Str(s) => {
                2u8.hash(&mut h);
                colls
                    .get(i)
                    .copied()
                    .unwrap_or(Coll::DEFAULT)
                    .hash(s.as_bytes(), &mut h);
            }
            Value::Bytes(b) => {
                3u8.hash(&mut h);
                b.hash(&mut h);
            }
        }
    }
    h.finish()
}

/// A multiply-rotate hasher (word at a time): grouping hashes values the server
/// reads itself, many per row, where SipHash's cost showed in profiles. Equal keys are
/// still compared in full (`values_eq`), so collisions cost time, never correctness.
#[derive(Default)]
struct FastHasher {
    h: u64,
}

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.h = (self.h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.h = (self.h.rotate_left(5) ^ u64::from_le_bytes(b) ^ (rest.len() as u64) << 56)
                .wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.h
    }
}

/// Grouping equality: NULL equals NULL, otherwise MySQL's comparison, strings under
/// `colls[i]` (utf8mb4_0900_ai_ci past its end).
pub fn values_eq(a: &[Value], b: &[Value], colls: &[Coll]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .enumerate()
            .all(|(i, (x, y))| match (x.is_null(), y.is_null()) {
                (true, true) => true,
                (false, false) => {
                    let c = colls.get(i).copied().unwrap_or(Coll::DEFAULT);
                    compare_in(x, y, c) == Some(std::cmp::Ordering::Equal)
                }
                _ => false,
            })
}

/// Distinct value tuples (DISTINCT, UNION, COUNT(DISTINCT ...), GROUP BY): the tuples
/// are hashed by `hash_values` and compared on collision, so no key is materialized.
/// Strings compare under the collation of their position (`with_colls`).
#[derive(Default)]
pub struct Distinct {
    buckets: HashMap<u64, Vec<usize>>,
    keys: Vec<Vec<Value>>,
    colls: Vec<Coll>,
}

impl Distinct {
    /// Distinct tuples whose i-th strings compare under `colls[i]`.
    pub fn with_colls(colls: Vec<Coll>) -> Distinct {
        Distinct {
            colls,
            ..Distinct::default()
        }
    }

    /// The index of `vals` among the distinct tuples, and whether it is new.
    pub fn find_or_insert(&mut self, vals: &[Value]) -> (usize, bool) {
        let h = hash_values(vals, &self.colls);
        let bucket = self.buckets.entry(h).or_default();
        let colls = &self.colls;
        if let Some(&i) = bucket
            .iter()
            .find(|&&i| values_eq(&self.keys[i], vals, colls))
        {
            return (i, false);
        }
        self.keys.push(vals.to_vec());
        let i = self.keys.len() - 1;
        bucket.push(i);
        (i, true)
    }

    /// Whether `vals` was not seen before (and remembers it).
    pub fn insert(&mut self, vals: &[Value]) -> bool {
        self.find_or_insert(vals).1
    }
}

pub(crate) fn distinct(rows: &mut Vec<Vec<Value>>, colls: Vec<Coll>) {
    let mut seen = Distinct::with_colls(colls);
    rows.retain(|r| seen.insert(r));
}

/// Groups `rows` by `group_by` and computes `aggs` per group: each output row is the
/// group's first row followed by the aggregate results (slots `width..`).
pub(crate) fn group(
    sess: &mut Session,
    scope: &Scope,
    rows: Vec<Vec<Value>>,
    group_by: &[Expr],
    aggs: &[Expr],
    width: usize,
) -> Result<Vec<Vec<Value>>> {
    let conn = crate::eval::Env::collation_connection(sess);
    let mut index = Distinct::with_colls(
        group_by
            .iter()
            .map(|g| coercion::coll_of(g, scope, conn))
            .collect(),
    );
    let mut groups: Vec<(Vec<Value>, Vec<Accumulator>)> = Vec::new();
    // Per aggregate: its arguments' collations, and those of GROUP_CONCAT's ORDER BY.
    let colls_of = |xs: &[Expr]| -> Vec<Coll> {
        xs.iter()
            .map(|x| coercion::coll_of(x, scope, conn))
            .collect()
    };
    let arg_colls: Vec<(Vec<Coll>, Vec<Coll>)> = aggs
        .iter()
        .map(|a| match a {
            Expr::Func { args, .. } => {
                let order = match args.last() {
                    Some(Expr::Func { name, args: o }) if name == GROUP_CONCAT_ORDER => {
                        colls_of(&o.iter().step_by(2).cloned().collect::<Vec<_>>())
                    }
                    _ => Vec::new(),
                };
                (colls_of(args), order)
            }
            _ => (Vec::new(), Vec::new()),
        })
        .collect();
    let new_accs = || -> Result<Vec<Accumulator>> {
        aggs.iter()
            .zip(&arg_colls)
            .map(|(a, (c, o))| Ok(Accumulator::new(a, c)?.with_order_colls(o)))
            .collect()
    };
    for r in rows {
        let mut re = RowEnv {
            inner: sess,
            row: &r,
            scope: Some(scope),
        };
        let mut key_vals = Vec::with_capacity(group_by.len());
        for g in group_by {
            key_vals.push(eval(g, &mut re)?);
        }
        let (gi, new) = index.find_or_insert(&key_vals);
        if new {
            debug_assert_eq!(gi, groups.len());
            groups.push((r.clone(), new_accs()?));
        }
        let accs = &mut groups[gi].1;
        for (agg, acc) in aggs.iter().zip(accs.iter_mut()) {
            acc.add(agg, &mut re)?;
        }
    }
    // No GROUP BY and no rows: one row of empty aggregates (COUNT(*) = 0).
    if groups.is_empty() && group_by.is_empty() {
        groups.push((vec![Value::Null; width], new_accs()?));
    }
    let dpi = crate::eval::Env::div_precision_increment(sess);
    Ok(groups
        .into_iter()
        .map(|(mut first, accs)| {
            first.resize(width, Value::Null);
            first.extend(accs.into_iter().map(|a| a.finish(dpi)));
            first
        })
        .collect())
}
