//! Covering-index reads: which columns an index can hand over without the row, the
//! planner's choice to read only the index (select.rs and EXPLAIN both go through
//! `plan_read`), and decoding values back out of a secondary entry key.
//!
//! A secondary entry key is the index's key parts followed by the primary key's
//! (storage: index key ‖ primary key). Integer and YEAR parts hold their values
//! exactly; every other part is skipped over: text keys hold collation weights (not
//! the value), prefix parts a prefix, and temporal / DECIMAL / floating parts are not
//! decoded here. A secondary index covers a query when every column the query uses is
//! an integer or YEAR part of it or of the primary key. The clustered index covers
//! when every used column is a (whole) primary-key part: its rows hold every value.
//!
//! Visibility is the engine's (`Trx::scan_secondary_each`): an entry is handed over
//! without the row only when its own trx id settles what the view sees; otherwise the
//! row is read and checked exactly as a non-covering read does.

use kiln_common::Result;
use kiln_common::key::KeyReader;

use super::access::{self, Access, Plan};
use crate::ast::Expr;
use crate::dict::{IndexKindDef, IndexPart, TableHandle, storage_error};
use crate::eval::Env;
use crate::types::SqlType;
use crate::value::Value;

/// How a key part is laid out (kiln-common key.rs, rowfmt::key_part).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    /// An integer of `width` bytes: the value itself.
    Int { width: usize, signed: bool },
    /// A fixed-length part not decoded here.
    Fixed(usize),
    /// A terminated weight string (text, binary strings, anything else).
    Weights,
    /// A part this module cannot even step over.
    Unknown,
}

fn shape(t: &TableHandle, p: &IndexPart) -> Shape {
    let c = &t.def.columns[p.column];
    match &c.ty {
        SqlType::Int { kind, unsigned, .. } if p.prefix_chars.is_none() => Shape::Int {
            width: if kind.bytes() == 3 { 4 } else { kind.bytes() },
            signed: !unsigned,
        },
        SqlType::Year if p.prefix_chars.is_none() => Shape::Int {
            width: 2,
            signed: false,
        },
        SqlType::Int { .. } | SqlType::Year => Shape::Unknown,
        SqlType::Float { .. } | SqlType::Double { .. } => Shape::Fixed(8),
        SqlType::Decimal {
            precision, scale, ..
        } => kiln_common::key::decimal_bin("0", *precision, *scale)
            .map_or(Shape::Unknown, |b| Shape::Fixed(b.len())),
        SqlType::Date => Shape::Fixed(3),
        SqlType::DateTime(_) | SqlType::Timestamp(_) | SqlType::Time(_) => Shape::Fixed(8),
        SqlType::Enum { .. } => Shape::Fixed(2),
        SqlType::Set { .. } => Shape::Fixed(8),
        _ => Shape::Weights,
    }
}

/// The parts of index `index`'s entry keys, in order (for a secondary index, its own
/// then the primary key's; a hidden row id ends the list).
fn entry_parts(t: &TableHandle, index: usize) -> Vec<&IndexPart> {
    let mut parts: Vec<&IndexPart> = t.def.indexes[index].parts.iter().collect();
    if index != 0 && t.def.indexes[0].kind != IndexKindDef::RowId {
        parts.extend(t.def.indexes[0].parts.iter());
    }
    parts
}

/// The columns whose values index `index` holds (see the module comment).
pub fn value_columns(t: &TableHandle, index: usize) -> Vec<bool> {
    let mut out = vec![false; t.def.columns.len()];
    let ix = &t.def.indexes[index];
    if index == 0 {
        if ix.kind != IndexKindDef::RowId {
            for p in ix.parts.iter().filter(|p| p.prefix_chars.is_none()) {
                out[p.column] = true;
            }
        }
        return out;
    }
    for p in entry_parts(t, index) {
        match shape(t, p) {
            Shape::Int { .. } => out[p.column] = true,
            Shape::Unknown => break,
            _ => {}
        }
    }
    out
}

/// Whether index `index` holds every column `needed` marks.
pub fn covers(t: &TableHandle, index: usize, needed: &[bool]) -> bool {
    let ix = &t.def.indexes[index];
    if ix.kind == IndexKindDef::Fulltext || (index != 0 && t.sec_pos[index].is_none()) {
        return false;
    }
    if index == 0 {
        // (no allocation: this runs for every primary-key read)
        return needed.iter().enumerate().all(|(c, n)| {
            !n || (ix.kind != IndexKindDef::RowId
                && ix
                    .parts
                    .iter()
                    .any(|p| p.column == c && p.prefix_chars.is_none()))
        });
    }
    let have = value_columns(t, index);
    needed.iter().zip(&have).all(|(n, h)| !n || *h)
}

/// Decodes the `needed` columns of a secondary entry key of index `index` into `out`
/// (one value per table column; the others NULL).
pub fn decode_entry(
    t: &TableHandle,
    index: usize,
    entry: &[u8],
    needed: &[bool],
    out: &mut Vec<Value>,
) -> Result<()> {
    out.clear();
    out.resize(t.def.columns.len(), Value::Null);
    let mut left = needed.iter().filter(|n| **n).count();
    let mut done = vec![false; t.def.columns.len()];
    let mut r = KeyReader::new(entry);
    let bad = |_| storage_error("damaged secondary index entry");
    for p in entry_parts(t, index) {
        if left == 0 {
            break;
        }
        let col = p.column;
        if t.def.columns[col].nullable && r.is_null(p.desc).map_err(bad)? {
            if needed[col] && !done[col] {
                done[col] = true;
                left -= 1;
            }
            continue;
        }
        let v = match shape(t, p) {
            Shape::Int {
                width,
                signed: true,
            } => Value::Int(r.int(width, p.desc).map_err(bad)?),
            Shape::Int {
                width,
                signed: false,
            } => Value::UInt(r.uint(width, p.desc).map_err(bad)?),
            Shape::Fixed(n) => {
                for _ in 0..n {
                    r.uint(1, p.desc).map_err(bad)?;
                }
                continue;
            }
            Shape::Weights => {
                r.weights(p.desc).map_err(bad)?;
                continue;
            }
            Shape::Unknown => break,
        };
        if needed[col] && !done[col] {
            out[col] = v;
            done[col] = true;
            left -= 1;
        }
    }
    if left != 0 {
        return Err(storage_error(
            "secondary index entry lacks a covered column",
        ));
    }
    Ok(())
}

/// `access::plan_detail`, then the covering choice for a query that uses only the
/// `needed` columns (None: unknown, all): the chosen index covers them (`covering`),
/// or, with no usable key range, a covering secondary index is read whole instead of
/// the clustered index (MySQL's type `index`): the narrowest one (fewest parts), else
/// the primary key itself when it holds every needed column.
pub fn plan_read(
    t: &TableHandle,
    conj: &[&Expr],
    env: &mut dyn Env,
    needed: Option<&[bool]>,
) -> Result<Plan> {
    plan_read_traced(t, conj, env, needed, &mut access::Trace::off())
}

/// `plan_read`, recording what the choice depended on (access_shape.rs).
pub(crate) fn plan_read_traced(
    t: &TableHandle,
    conj: &[&Expr],
    env: &mut dyn Env,
    needed: Option<&[bool]>,
    tr: &mut access::Trace,
) -> Result<Plan> {
    let mut plan = access::plan_among_traced(t, conj, env, None, tr)?;
    let Some(needed) = needed else {
        return Ok(plan);
    };
    match &plan.access {
        Access::Empty => {}
        Access::Index { index, .. } => plan.covering = covers(t, *index, needed),
        Access::Full => {
            let best = (1..t.def.indexes.len())
                .filter(|i| !t.def.indexes[*i].invisible && covers(t, *i, needed))
                .min_by_key(|i| t.def.indexes[*i].parts.len());
            let index = match best {
                Some(i) => Some(i),
                None if covers(t, 0, needed) && t.def.indexes[0].kind != IndexKindDef::RowId => {
                    Some(0)
                }
                None => None,
            };
            if let Some(index) = index {
                plan.set_access(Access::Index {
                    index,
                    ranges: vec![(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)],
                    point: false,
                });
                plan.covering = true;
                plan.full_index = true;
            }
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use kiln_common::key::KeyWriter;

    #[test]
    fn integer_parts_round_trip_through_the_reader() {
        let mut w = KeyWriter::new();
        w.int(-5, 4, true, false);
        w.weights(b"abc\0d", false, true);
        w.uint(7, 8, false, false);
        w.null(false);
        let k = w.finish();
        let mut r = kiln_common::key::KeyReader::new(&k);
        assert!(!r.is_null(false).unwrap());
        assert_eq!(r.int(4, false).unwrap(), -5);
        assert_eq!(r.weights(true).unwrap(), b"abc\0d");
        assert_eq!(r.uint(8, false).unwrap(), 7);
        assert!(r.is_null(false).unwrap());
        assert!(r.is_empty());
    }
}
