//! `find` (the `=`, `>`, `>=`, `<`, `<=` requests, with IN, limit/offset and the F/W
//! filters): converts the key, reads matching rows (a point read for a full unique
//! primary key with `=`, a consistent scan otherwise) and answers them, or hands them
//! to `modify`. Also the filters and the range scan.

use std::ops::Bound;

use kiln_common::key::KeyWriter;
use kiln_sql::dict::TableHandle;
use kiln_sql::exec::access::{prefix_successor, trx_error};
use kiln_sql::rowapi;
use kiln_sql::types::SqlType;
use kiln_sql::value::Value;
use kiln_storage::trx::{ReadMode, Trx};

use super::output::write_stored_rows;
use super::{Executor, Fail, ROWS_PER_REQUEST_MAX, Res, Resolved};
use crate::codec::Reply;
use crate::request::{Filter, FilterOp, Find, Op, err};

impl Executor {
    pub(super) fn find(&mut self, b: &Resolved, f: &Find<'_>, reply: &mut Reply<'_>) -> Res<()> {
        let h = b.table.clone();
        let ix = &h.def.indexes[b.index];
        if f.keys.len() > ix.parts.len() {
            return Err(err(2, "kpnum").into());
        }
        let part_col = |i: usize| ix.parts[i].column;
        let keys: Vec<Value> = f
            .keys
            .iter()
            .enumerate()
            .map(|(i, v)| rowapi::convert_for_compare(&h, part_col(i), v.as_deref()))
            .collect();
        let mut in_sets: Vec<Vec<Value>> = Vec::new();
        if let Some(inl) = &f.in_list {
            if inl.part >= f.keys.len() {
                return Err(err(2, "kpnum").into());
            }
            for v in &inl.values {
                let mut k = keys.clone();
                k[inl.part] = rowapi::convert_for_compare(&h, part_col(inl.part), v.as_deref());
                in_sets.push(k);
            }
        }
        let key_sets: &[Vec<Value>] = if f.in_list.is_some() {
            &in_sets
        } else {
            std::slice::from_ref(&keys)
        };
        let modifying = f.modify.is_some();
        let filters = self.prepare_filters(b, &f.filters)?;
        let limit = f.limit.min(ROWS_PER_REQUEST_MAX);
        let wanted = limit.saturating_add(f.offset.min(ROWS_PER_REQUEST_MAX));
        // Collect (pk, stored row) of the matched rows, in order (the pk only when
        // modifying: the answer of a read is written straight from the row bytes).
        let mut matched = std::mem::take(&mut self.matched);
        matched.clear();
        let mut fvalues: Vec<Value> = Vec::new();
        let mut bad_row = false;
        let mut skip = f.offset;
        'keys: for key in key_sets {
            // NULL on a NOT NULL key part: nothing equals it and it sorts below every
            // value, so the key is cut there and the op adjusted (`=` finds nothing).
            let mut key: &[Value] = key;
            let mut op = f.op;
            if let Some(j) = key
                .iter()
                .enumerate()
                .position(|(i, v)| v.is_null() && !h.def.columns[part_col(i)].nullable)
            {
                op = match f.op {
                    Op::Eq => continue 'keys,
                    Op::Ge | Op::Gt => Op::Ge,
                    Op::Le | Op::Lt => Op::Lt,
                };
                key = &key[..j];
            }
            // Into the executor's key buffer (given back below): no allocation per key.
            let mut buf = std::mem::take(&mut self.key_buf);
            buf.clear();
            let mut kw = KeyWriter::append_to(buf);
            for (i, v) in key.iter().enumerate() {
                rowapi::encode_key_part(&h, b.index, i, v, &mut kw);
            }
            let prefix = kw.finish();
            let full_unique = key.len() == ix.parts.len()
                && ix.is_unique()
                && ix.parts.iter().all(|p| p.prefix_chars.is_none())
                && !key.iter().any(Value::is_null);
            let mut stop = false;
            let mut sink = |pk: Vec<u8>, row: Vec<u8>| -> bool {
                if !filters.is_empty()
                    && h.shape
                        .decode_masked(&row, Some(&b.fmask), &mut fvalues)
                        .is_err()
                {
                    bad_row = true;
                    return false;
                }
                match check_filters(&h, &filters, &fvalues) {
                    FilterResult::Stop => {
                        stop = true;
                        return false;
                    }
                    FilterResult::Skip => return true,
                    FilterResult::Pass => {}
                }
                if skip > 0 {
                    skip -= 1;
                    return true;
                }
                matched.push((if modifying { pk } else { Vec::new() }, row));
                (matched.len() as u64) < limit
            };
            let trx = self.trx()?;
            if b.index == 0 && full_unique && op == Op::Eq {
                if let Some(row) = trx
                    .read(&h.storage.clustered, &prefix, ReadMode::Consistent)
                    .map_err(trx_error)?
                {
                    let pk = if modifying {
                        prefix.clone()
                    } else {
                        Vec::new()
                    };
                    sink(pk, row);
                }
            } else {
                scan(trx, &h, b.index, op, &prefix, wanted, &mut sink)?;
            }
            self.key_buf = prefix;
            if bad_row {
                return Err(Fail::Sql(kiln_sql::dict::storage_error("damaged row")));
            }
            if stop || matched.len() as u64 >= limit {
                break 'keys;
            }
        }
        self.batch_rows_read += matched.len() as u64;
        match &f.modify {
            None => {
                let r = write_stored_rows(
                    reply,
                    &h,
                    &b.cols,
                    matched.iter().map(|(_, r)| r),
                    &mut self.cells,
                );
                matched.clear();
                self.matched = matched;
                r
            }
            Some(m) => self.modify(b, &filters, m, matched, reply),
        }
    }

    fn prepare_filters(&self, b: &Resolved, filters: &[Filter<'_>]) -> Res<Vec<PreparedFilter>> {
        let h = &b.table;
        filters
            .iter()
            .map(|f| {
                let col = *b.fcols.get(f.column).ok_or(err(2, "filterfld"))?;
                if is_blob(&h.def.columns[col].ty) && f.value.is_some() {
                    return Err(err(2, "filterblob").into());
                }
                Ok(PreparedFilter {
                    stop: f.stop,
                    op: f.op,
                    col,
                    value: rowapi::convert_for_compare(h, col, f.value.as_deref()),
                })
            })
            .collect()
    }
}

pub(super) struct PreparedFilter {
    stop: bool,
    op: FilterOp,
    col: usize,
    value: Value,
}

pub(super) enum FilterResult {
    Pass,
    Skip,
    Stop,
}

pub(super) fn check_filters(
    h: &TableHandle,
    filters: &[PreparedFilter],
    row: &[Value],
) -> FilterResult {
    use std::cmp::Ordering as O;
    for f in filters {
        let c = rowapi::compare_column(h, f.col, &row[f.col], &f.value);
        let ok = match f.op {
            FilterOp::Eq => c == O::Equal,
            FilterOp::Ne => c != O::Equal,
            FilterOp::Lt => c == O::Less,
            FilterOp::Le => c != O::Greater,
            FilterOp::Gt => c == O::Greater,
            FilterOp::Ge => c != O::Less,
        };
        if !ok {
            return if f.stop {
                FilterResult::Stop
            } else {
                FilterResult::Skip
            };
        }
    }
    FilterResult::Pass
}

fn is_blob(ty: &SqlType) -> bool {
    matches!(ty, SqlType::Text { .. } | SqlType::Blob(_) | SqlType::Json)
}

/// Decodes a stored row; with `needed`, only the columns it marks (the rest NULL).
pub(super) fn decode(h: &TableHandle, row: &[u8], needed: Option<&[bool]>) -> Res<Vec<Value>> {
    let mut v = Vec::with_capacity(h.def.columns.len());
    h.shape.decode_masked(row, needed, &mut v)?;
    Ok(v)
}

/// Reads rows of index `index` from the key `prefix` in the direction `op` gives,
/// handing (primary key, row) to `sink` until it returns false. `wanted` is how many
/// rows the caller may need before filters (a secondary scan reads in growing chunks).
#[allow(clippy::too_many_arguments)]
fn scan(
    trx: &mut Trx,
    h: &TableHandle,
    index: usize,
    op: Op,
    prefix: &[u8],
    wanted: u64,
    sink: &mut dyn FnMut(Vec<u8>, Vec<u8>) -> bool,
) -> Res<()> {
    let succ = prefix_successor(prefix);
    let excl_succ = || match &succ {
        Some(s) => Bound::Excluded(s.clone()),
        None => Bound::Unbounded,
    };
    let (lo, hi, descending): (Bound<Vec<u8>>, Bound<Vec<u8>>, bool) = match op {
        Op::Eq => (Bound::Included(prefix.to_vec()), excl_succ(), false),
        Op::Ge => (Bound::Included(prefix.to_vec()), Bound::Unbounded, false),
        Op::Gt => match &succ {
            Some(s) => (Bound::Included(s.clone()), Bound::Unbounded, false),
            None => return Ok(()),
        },
        Op::Le => (Bound::Unbounded, excl_succ(), true),
        Op::Lt => (Bound::Unbounded, Bound::Excluded(prefix.to_vec()), true),
    };
    if index == 0 {
        let it = trx.scan(&h.storage.clustered, as_ref(&lo), as_ref(&hi), descending);
        for r in it {
            let (k, row) = r.map_err(trx_error)?;
            if !sink(k, row) {
                break;
            }
        }
        return Ok(());
    }
    let pos = h.sec_pos[index].ok_or(err(2, "idxnum"))?;
    // Secondary reads return vectors: read a chunk, and a larger one from the start if
    // the filters dropped too many.
    let mut chunk = wanted.clamp(1, ROWS_PER_REQUEST_MAX) as usize;
    let mut delivered = 0usize;
    loop {
        let rows = trx
            .table_scan_secondary(&h.storage, pos, as_ref(&lo), as_ref(&hi), descending, chunk)
            .map_err(trx_error)?;
        let n = rows.len();
        for (pk, row) in rows.into_iter().skip(delivered) {
            delivered += 1;
            if !sink(pk, row) {
                return Ok(());
            }
        }
        if n < chunk || chunk >= ROWS_PER_REQUEST_MAX as usize * 4 {
            return Ok(());
        }
        chunk = chunk.saturating_mul(4);
    }
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}
