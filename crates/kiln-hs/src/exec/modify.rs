//! `find_modify`: U, D, + and - (and their `?` forms returning the rows before the
//! change) on the rows `find` matched, each re-read under an X lock at its latest
//! version and filtered again, in the batch's transaction, undone alone on error.

use kiln_sql::dict::TableHandle;
use kiln_sql::exec::access::trx_error;
use kiln_sql::rowapi;
use kiln_sql::value::Value;
use kiln_storage::trx::{ReadMode, Trx};

use super::find::{FilterResult, PreparedFilter, check_filters, decode};
use super::output::write_rows;
use super::{Executor, Res, Resolved};
use crate::codec::Reply;
use crate::request::{ModOp, Modify, err};

impl Executor {
    pub(super) fn modify(
        &mut self,
        b: &Resolved,
        filters: &[PreparedFilter],
        m: &Modify<'_>,
        matched: Vec<(Vec<u8>, Vec<u8>)>,
        reply: &mut Reply<'_>,
    ) -> Res<()> {
        let h = b.table.clone();
        if m.values.len() > b.cols.len() {
            return Err(err(2, "modop").into());
        }
        let strict = rowapi::strict(&mut self.sess);
        // New values for U, converted once (strict conversion errors fail the request).
        let mut updates: Vec<(usize, Value)> = Vec::new();
        if m.op == ModOp::Update {
            for (&c, v) in b.cols.iter().zip(&m.values) {
                updates.push((
                    c,
                    rowapi::convert(&mut self.sess, &h, c, v.as_deref(), strict)?,
                ));
            }
        }
        let deltas: Vec<(usize, Option<i64>)> = b
            .cols
            .iter()
            .zip(&m.values)
            .map(|(&c, v)| (c, v.as_deref().map(parse_i64_prefix)))
            .collect();
        self.trx()?;
        let mut trx = self.trx.take().expect("begun above");
        let sp = trx.savepoint();
        let r = self.modify_rows(&mut trx, &h, filters, m, &updates, &deltas, matched, strict);
        if r.is_err() && !trx.is_done() {
            trx.rollback_to(sp).map_err(trx_error)?;
        }
        self.trx = Some(trx);
        let (count, before) = r?;
        if m.returning {
            write_rows(reply, &h, &b.cols, before.iter());
        } else {
            reply.ok_count(count);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn modify_rows(
        &mut self,
        trx: &mut Trx,
        h: &TableHandle,
        filters: &[PreparedFilter],
        m: &Modify<'_>,
        updates: &[(usize, Value)],
        deltas: &[(usize, Option<i64>)],
        matched: Vec<(Vec<u8>, Vec<u8>)>,
        strict: bool,
    ) -> Res<(u64, Vec<Vec<Value>>)> {
        let mut count = 0u64;
        let mut before = Vec::new();
        for (pk, _) in matched {
            // Lock the row and judge it as it is now.
            let Some(bytes) = trx
                .read(&h.storage.clustered, &pk, ReadMode::Update(trx.wait()))
                .map_err(trx_error)?
            else {
                continue;
            };
            let row = decode(h, &bytes, None)?;
            if !matches!(check_filters(h, filters, &row), FilterResult::Pass) {
                continue;
            }
            match m.op {
                ModOp::Delete => {
                    if rowapi::delete_row(trx, h, &pk)? {
                        count += 1;
                        self.stats.rows_deleted.add(1);
                    }
                }
                ModOp::Update => {
                    let mut new = row.clone();
                    for (c, v) in updates {
                        new[*c] = v.clone();
                    }
                    rowapi::update_row(trx, h, &pk, &new)?;
                    count += 1;
                    self.stats.rows_updated.add(1);
                }
                ModOp::Increment | ModOp::Decrement => {
                    let mut new = row.clone();
                    let mut crossed = false;
                    for &(c, delta) in deltas {
                        let Some(d) = delta else { continue };
                        if row[c].is_null() {
                            continue;
                        }
                        let cur = row[c].to_i64().unwrap_or(0);
                        let next = if m.op == ModOp::Increment {
                            cur.saturating_add(d)
                        } else {
                            let n = cur.saturating_sub(d);
                            if (cur > 0 && n < 0) || (cur < 0 && n > 0) {
                                crossed = true;
                                break;
                            }
                            n
                        };
                        let text = next.to_string();
                        new[c] =
                            rowapi::convert(&mut self.sess, h, c, Some(text.as_bytes()), strict)?;
                    }
                    if crossed {
                        // The original's rule: a `-` that would change a column's sign
                        // leaves the whole row alone (and uncounted).
                        if m.returning {
                            before.push(row);
                        }
                        continue;
                    }
                    rowapi::update_row(trx, h, &pk, &new)?;
                    count += 1;
                    self.stats.rows_updated.add(1);
                }
            }
            if m.returning {
                before.push(row);
            }
        }
        Ok((count, before))
    }
}

/// The leading integer of a token (as atoll: optional sign, digits; else 0).
fn parse_i64_prefix(b: &[u8]) -> i64 {
    let s = b.iter().skip_while(|c| c.is_ascii_whitespace());
    let mut neg = false;
    let mut n: i64 = 0;
    for (i, &c) in s.enumerate() {
        if i == 0 && (c == b'-' || c == b'+') {
            neg = c == b'-';
            continue;
        }
        if !c.is_ascii_digit() {
            break;
        }
        n = n.saturating_mul(10).saturating_add(i64::from(c - b'0'));
    }
    if neg { -n } else { n }
}
