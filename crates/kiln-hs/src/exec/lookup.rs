//! The fast path of the hot request: `<id> = 1 <key>` (exactly four tokens) on an
//! open primary key of one column — what every HandlerSocket key-value client sends.
//!
//! It answers exactly as the general path (`request::parse`, `dispatch`, `find`)
//! would: the same binding (resolved at the current dictionary version, else the
//! general path resolves it), the same key conversion (`rowapi::convert_for_compare`,
//! then `encode_key_part`), the same consistent point read, the same answer writer,
//! the same counters. What it skips is the general machinery: no token array, no
//! `Find` with its vectors of values, no filters, no list of matched rows.
//!
//! The key of each such line is converted and encoded once per batch: the batch's
//! leaf prefetch (prefetch.rs) records, for every line it prefetched, the line's
//! address and length, the binding it resolved and where its encoded key lies in
//! `prefetch_keys`; `execute` takes the record when the line it runs is the next one
//! recorded (the batch runs its lines in the order the prefetch saw them) and the
//! connection's binding is still the one recorded. Records live for one batch only
//! (cleared when it ends: the next batch's lines may reuse the same addresses).
//!
//! Anything else — another form, a NULL or escaped key, more tokens, an unauthorized
//! connection, a binding not resolved at the current version, a key that converts to
//! NULL — returns `None` and the general path handles the line, errors included.

use std::ops::Range;
use std::sync::Arc;

use kiln_common::key::KeyWriter;
use kiln_sql::exec::access::trx_error;
use kiln_sql::rowapi;
use kiln_sql::value::Value;
use kiln_storage::btree::BTree;
use kiln_storage::trx::ReadMode;

use super::output::write_stored_rows;
use super::{ConnState, Executor, Res, Resolved};
use crate::codec::{Reply, parse_u64};

/// A line the batch's prefetch converted the key of.
pub(super) struct Lookup {
    /// Address and length of the line in its connection's input buffer.
    line: (usize, usize),
    /// Its index id.
    id: u64,
    /// The line is exactly `<id> = 1 <key>` (else it was only prefetched).
    exact: bool,
    /// The binding the key was converted for (held, so its address is not reused).
    resolved: Arc<Resolved>,
    /// The encoded key in `Executor::prefetch_keys`.
    key: Range<usize>,
}

impl Lookup {
    pub(super) fn new(
        line: &[u8],
        id: u64,
        exact: bool,
        resolved: Arc<Resolved>,
        key: Range<usize>,
    ) -> Lookup {
        Lookup {
            line: (line.as_ptr() as usize, line.len()),
            id,
            exact,
            resolved,
            key,
        }
    }

    pub(super) fn tree(&self) -> &BTree {
        &self.resolved.table.storage.clustered
    }

    pub(super) fn key_range(&self) -> Range<usize> {
        self.key.clone()
    }
}

/// The index id and key of a line `<id> TAB = TAB 1 TAB <key>`, whether more tokens
/// follow, or None for any other line (or a key that is NULL or holds an escape: the
/// general path unescapes).
pub(super) fn split_lookup(line: &[u8]) -> Option<(u64, &[u8], bool)> {
    let mut t = line.splitn(5, |&b| b == b'\t');
    let id = parse_u64(t.next()?)?;
    if t.next()? != b"=" || t.next()? != b"1" {
        return None;
    }
    let key = t.next()?;
    if key.iter().any(|&b| b < 0x10) {
        return None;
    }
    Some((id, key, t.next().is_some()))
}

/// The resolved binding `id` of `conn` if it is current (`version`) and on a primary
/// key of one column that a full-key `=` reads with one point read.
pub(super) fn point_binding(conn: &ConnState, id: u64, version: u64) -> Option<&Arc<Resolved>> {
    let r = conn
        .bindings
        .get(usize::try_from(id).ok()?)?
        .as_ref()?
        .resolved
        .as_ref()?;
    if r.version != version || r.index != 0 {
        return None;
    }
    let ix = &r.table.def.indexes[0];
    (ix.parts.len() == 1 && ix.is_unique() && ix.parts[0].prefix_chars.is_none()).then_some(r)
}

/// `<key>` converted for the binding's key column; None if it converts to NULL.
pub(super) fn convert_key(r: &Resolved, key: &[u8]) -> Option<Value> {
    let col = r.table.def.indexes[0].parts[0].column;
    let v = rowapi::convert_for_compare(&r.table, col, Some(key));
    (!v.is_null()).then_some(v)
}

impl Executor {
    /// Answers `line` if it is the hot lookup form (see the module comment); None
    /// leaves it to the general path, with nothing done.
    pub(super) fn fast_lookup(
        &mut self,
        conn: &ConnState,
        line: &[u8],
        reply: &mut Reply<'_>,
    ) -> Option<Res<()>> {
        if !conn.authorized {
            return None;
        }
        let here = (line.as_ptr() as usize, line.len());
        let recorded = self
            .lookups
            .get(self.lookup_next)
            .filter(|l| l.line == here)
            .map(|l| (l.id, l.exact, l.resolved.clone(), l.key.clone()));
        let (r, key) = match recorded {
            Some((id, exact, rec, key)) => {
                self.lookup_next += 1;
                // The line is one the prefetch parsed; its binding must be unchanged.
                if !exact {
                    return None;
                }
                let cur = point_binding(conn, id, self.version)?;
                if !Arc::ptr_eq(cur, &rec) {
                    return None;
                }
                (rec, Some(key))
            }
            None => {
                let (id, _, more) = split_lookup(line)?;
                if more {
                    return None;
                }
                (point_binding(conn, id, self.version)?.clone(), None)
            }
        };
        // The key: recorded by the prefetch, or converted and encoded here.
        let mut buf = std::mem::take(&mut self.key_buf);
        if key.is_none() {
            let converted = split_lookup(line).and_then(|(_, token, _)| convert_key(&r, token));
            let Some(v) = converted else {
                self.key_buf = buf;
                return None;
            };
            buf.clear();
            let mut kw = KeyWriter::append_to(buf);
            rowapi::encode_key_part(&r.table, 0, 0, &v, &mut kw);
            buf = kw.finish();
        }
        self.note_lock(&r.table);
        let key: &[u8] = match key {
            Some(k) => &self.prefetch_keys[k],
            None => &buf,
        };
        let res = Self::point_read(&mut self.trx, &mut self.sess, self.config.write, &r, key);
        self.key_buf = buf;
        Some(res.and_then(|row| {
            self.batch_rows_read += u64::from(row.is_some());
            write_stored_rows(reply, &r.table, &r.cols, row.iter(), &mut self.cells)
        }))
    }

    /// A consistent point read of the clustered index in the batch's transaction.
    fn point_read(
        trx: &mut Option<kiln_storage::trx::Trx>,
        sess: &mut kiln_sql::session::Session,
        write: bool,
        r: &Resolved,
        key: &[u8],
    ) -> Res<Option<Vec<u8>>> {
        if trx.is_none() {
            *trx = Some(rowapi::begin(sess, write)?);
        }
        let trx = trx.as_mut().expect("begun above");
        Ok(trx
            .read(&r.table.storage.clustered, key, ReadMode::Consistent)
            .map_err(trx_error)?)
    }
}
