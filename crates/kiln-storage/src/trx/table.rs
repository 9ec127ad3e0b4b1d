//! Tables with secondary indexes under transactions: a clustered tree plus secondary
//! trees whose keys the caller (the SQL layer, which knows the row format) computes
//! from rows. The engine stays ignorant of columns: a `Secondary` carries the
//! function from a row to its index key.
//!
//! Secondary entry: key = index key ‖ primary key (both memcomparable, so the entry
//! key is unique and sorts by index key first); value:
//!
//! ```text
//! offset size  field
//!      0    1  flags      bit 0: delete-marked
//!      1    6  trx_id     the transaction that last changed the entry (big-endian)
//!      7    2  pk_len     length of the primary key at the end of the entry key
//! ```
//!
//! Changes (all under the row's X lock on the clustered key):
//! - a new key: insert the entry (undo `SecInsert`), or clear the mark of a
//!   delete-marked one with the same key and primary key (undo `SecUpdate`);
//! - a key that goes away: delete-mark the entry (undo `SecUpdate`); purge removes it
//!   once every view sees the change — and only if this transaction's mark is still
//!   on it (a later transaction may have cleared it, or marked it again).
//!
//! Unique indexes: every change of an entry of a unique index first X-locks the
//! unique value itself (a lock key made of the index key alone, which no entry has:
//! entries end with a primary key). Under that lock, an entry with the same index key,
//! another primary key and no delete mark is a duplicate (1062). The value's lock is
//! held to the end of the transaction, so no one else can insert the value, or
//! un-delete the entry that holds it, until this transaction's outcome is known — as
//! InnoDB's duplicate check with its S locks achieves. Keys with a NULL part never
//! conflict (MySQL's rule); the caller says which keys have one.
//!
//! Reads by secondary key go through the clustered row: each entry (delete-marked or
//! not) names a primary key; the row's version the reader sees is returned if its
//! index key is still this entry's.

use std::ops::Bound;
use std::sync::Arc;

use super::lock::{Kind as LockKind, LockKey, Mode};
use super::txn::Trx;
use super::undo::Kind;
use super::{TrxError, TrxResult};
use crate::btree::BTree;

const SEC_VALUE_LEN: usize = 9;
const DELETE_MARK: u8 = 1;

/// A secondary index key computed from a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecKey {
    /// The index's key parts, memcomparable and prefix-free.
    pub bytes: Vec<u8>,
    /// A part is NULL: never a duplicate in a unique index.
    pub has_null: bool,
}

/// Computes a secondary index key from a row.
pub type KeyOf = Arc<dyn Fn(&[u8]) -> SecKey + Send + Sync>;

/// A secondary index of a table.
#[derive(Clone)]
pub struct Secondary {
    pub tree: Arc<BTree>,
    pub unique: bool,
    pub key_of: KeyOf,
}

/// What a secondary read hands over for one entry.
pub enum SecRead<'a> {
    /// The row's visible version (the entry was checked against it).
    Row(Vec<u8>),
    /// The entry key itself (index key ‖ primary key): a covering read whose entry
    /// settled its own visibility (`Trx::scan_secondary_each`).
    Entry(&'a [u8]),
}

/// A table: its clustered index (keyed by primary key) and secondary indexes.
#[derive(Clone)]
pub struct Table {
    pub clustered: Arc<BTree>,
    pub secondaries: Vec<Secondary>,
}

fn sec_value(delete_marked: bool, trx: u64, pk_len: usize) -> [u8; SEC_VALUE_LEN] {
    let mut v = [0u8; SEC_VALUE_LEN];
    v[0] = if delete_marked { DELETE_MARK } else { 0 };
    v[1..7].copy_from_slice(&trx.to_be_bytes()[2..]);
    v[7..9].copy_from_slice(&(pk_len as u16).to_be_bytes());
    v
}

/// A secondary entry for a bulk-built index (CREATE INDEX on existing rows): its key
/// (index key ‖ primary key) and value (not delete-marked, changed by no transaction
/// any reader must check: id 0).
pub fn bulk_secondary_entry(index_key: &[u8], pk: &[u8]) -> (Vec<u8>, Vec<u8>) {
    (
        entry_key(index_key, pk),
        sec_value(false, 0, pk.len()).to_vec(),
    )
}

/// The transaction that last changed a secondary entry (None: not a secondary value).
pub(crate) fn sec_trx(v: &[u8]) -> Option<u64> {
    if v.len() != SEC_VALUE_LEN {
        return None;
    }
    let mut t = [0u8; 8];
    t[2..].copy_from_slice(&v[1..7]);
    Some(u64::from_be_bytes(t))
}

fn sec_marked(v: &[u8]) -> bool {
    v.first().is_some_and(|f| f & DELETE_MARK != 0)
}

/// Whether a secondary entry is delete-marked by `trx` (what purge may remove).
pub(crate) fn sec_marked_by(v: &[u8], trx: u64) -> bool {
    sec_marked(v) && sec_trx(v) == Some(trx)
}

/// The unique-value lock for a secondary entry (key, value): what a transaction
/// recovered after a crash must hold on each secondary entry it changed, so that no
/// one takes the value before its rollback is done. (Taken for every index: the undo
/// record does not say which are unique, and for the others it blocks nothing.)
pub(crate) fn value_lock(space: u32, index: u64, key: &[u8], value: &[u8]) -> Option<LockKey> {
    let pk = sec_pk(key, value).ok()?;
    Some(LockKey::entry(space, index, &key[..key.len() - pk.len()]))
}

/// The primary key at the end of a secondary entry key.
fn sec_pk<'k>(key: &'k [u8], value: &[u8]) -> TrxResult<&'k [u8]> {
    let bad = || TrxError::Corrupt("bad secondary index entry".into());
    if value.len() != SEC_VALUE_LEN {
        return Err(bad());
    }
    let len = u16::from_be_bytes([value[7], value[8]]) as usize;
    key.len()
        .checked_sub(len)
        .map(|at| &key[at..])
        .ok_or_else(bad)
}

fn entry_key(index_key: &[u8], pk: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(index_key.len() + pk.len());
    k.extend_from_slice(index_key);
    k.extend_from_slice(pk);
    k
}

/// The range of entries whose index key is `index_key` (any primary key).
fn prefix_range(index_key: &[u8]) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let mut end = index_key.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xFF {
            end.push(last + 1);
            return (Bound::Included(index_key.to_vec()), Bound::Excluded(end));
        }
    }
    (Bound::Included(index_key.to_vec()), Bound::Unbounded)
}

/// Bounds on index keys → bounds on entry keys (index key ‖ primary key). None: the
/// range is empty.
#[allow(clippy::type_complexity)]
fn entry_bounds(from: Bound<&[u8]>, to: Bound<&[u8]>) -> Option<(Bound<Vec<u8>>, Bound<Vec<u8>>)> {
    let lo: Bound<Vec<u8>> = match from {
        Bound::Included(k) => Bound::Included(k.to_vec()),
        Bound::Excluded(k) => match prefix_range(k).1 {
            Bound::Excluded(end) => Bound::Included(end),
            // Nothing sorts after every key with this prefix.
            _ => return None,
        },
        Bound::Unbounded => Bound::Unbounded,
    };
    let hi: Bound<Vec<u8>> = match to {
        Bound::Included(k) => prefix_range(k).1,
        Bound::Excluded(k) => Bound::Excluded(k.to_vec()),
        Bound::Unbounded => Bound::Unbounded,
    };
    Some((lo, hi))
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v),
        Bound::Excluded(v) => Bound::Excluded(v),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Rows a statement changes between two `Table::prefetch_secondary_leaves` calls: its
/// secondary leaves (rows x indexes pages) are read in one batch.
pub const PREFETCH_ROWS: usize = 64;

impl Table {
    /// Reads ahead, in one batch per index, the secondary-index leaves that deleting
    /// or updating the rows with primary keys `pks` will change: in a pool smaller than
    /// the indexes every row's entries sit on random leaves, and one synchronous read
    /// per entry left the disk idle between them (a DELETE through 6 indexes waited
    /// ~100 µs per page). Rows are read through the clustered index as stored (no
    /// locks, no view: a prefetch only warms the cache). Best effort: errors are left
    /// to the change itself. Returns the pages read.
    pub fn prefetch_secondary_leaves<K: AsRef<[u8]>>(&self, pks: &[K]) -> usize {
        if self.secondaries.is_empty() {
            return 0;
        }
        let rows: Vec<(Vec<u8>, &[u8])> = pks
            .iter()
            .filter_map(|pk| {
                let v = self.clustered.get(pk.as_ref()).ok()??;
                let row = crate::row::decode_clustered(&v)?.row.to_vec();
                Some((row, pk.as_ref()))
            })
            .collect();
        let mut read = 0;
        for s in &self.secondaries {
            let keys: Vec<Vec<u8>> = rows
                .iter()
                .map(|(row, pk)| entry_key(&(s.key_of)(row).bytes, pk))
                .collect();
            read += s.tree.prefetch_leaves(&keys);
        }
        read
    }
}

impl Trx {
    /// Inserts a row into a table and its secondary indexes; `DuplicateKey` if the
    /// primary key or a unique index's value exists. On an error, roll back to a
    /// savepoint taken before (statement rollback) to undo the part that was done.
    pub fn table_insert(&mut self, t: &Table, pk: &[u8], row: &[u8]) -> TrxResult<()> {
        // Unique values first: a duplicate is found before anything is written.
        let keys: Vec<SecKey> = t.secondaries.iter().map(|s| (s.key_of)(row)).collect();
        for (s, k) in t.secondaries.iter().zip(&keys) {
            self.check_unique(s, k, pk)?;
        }
        self.insert(&t.clustered, pk, row)?;
        for (s, k) in t.secondaries.iter().zip(&keys) {
            self.sec_add(s, &k.bytes, pk)?;
        }
        Ok(())
    }

    /// Replaces the row under `pk`; false if there is none. Secondary entries whose
    /// key changes are delete-marked and the new ones added.
    pub fn table_update(&mut self, t: &Table, pk: &[u8], row: &[u8]) -> TrxResult<bool> {
        let new: Vec<SecKey> = t.secondaries.iter().map(|s| (s.key_of)(row)).collect();
        // Lock the row first: the old keys are known only then.
        let old_row = match self.change(&t.clustered, pk, Some(row))? {
            Some(r) => r,
            None => return Ok(false),
        };
        for (s, nk) in t.secondaries.iter().zip(&new) {
            let ok = (s.key_of)(&old_row);
            if ok.bytes == nk.bytes {
                continue;
            }
            self.check_unique(s, nk, pk)?;
            self.sec_mark(s, &ok, pk)?;
            self.sec_add(s, &nk.bytes, pk)?;
        }
        Ok(true)
    }

    /// Deletes the row under `pk` (delete-marks it and its secondary entries); false
    /// if there is none.
    pub fn table_delete(&mut self, t: &Table, pk: &[u8]) -> TrxResult<bool> {
        let Some(old_row) = self.change(&t.clustered, pk, None)? else {
            return Ok(false);
        };
        for s in &t.secondaries {
            let k = (s.key_of)(&old_row);
            self.sec_mark(s, &k, pk)?;
        }
        Ok(true)
    }

    /// The rows whose key in secondary index `index` is `index_key`, as this
    /// transaction's view sees them: (primary key, row), in primary key order.
    pub fn table_lookup(
        &mut self,
        t: &Table,
        index: usize,
        index_key: &[u8],
    ) -> TrxResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let s = t
            .secondaries
            .get(index)
            .ok_or_else(|| TrxError::Corrupt(format!("no secondary index {index}")))?;
        self.prepare_view();
        let (from, to) = prefix_range(index_key);
        let mut out = Vec::new();
        for r in s.tree.range(as_ref(&from), as_ref(&to), false) {
            let (k, v) = r?;
            let pk = sec_pk(&k, &v)?;
            if &k[..k.len() - pk.len()] != index_key {
                continue; // a longer index key that shares the prefix
            }
            let Some(cv) = t.clustered.get(pk)? else {
                continue;
            };
            if let Some(row) = self.visible(&t.clustered, pk, &cv)?
                && (s.key_of)(&row).bytes == index_key
            {
                out.push((pk.to_vec(), row));
            }
        }
        Ok(out)
    }

    /// A consistent read through secondary index `index` of the rows whose index key
    /// is in [from, to] (bounds on index keys, prefixes allowed), in index order
    /// (descending if asked): (primary key, row) as this transaction's view sees them.
    pub fn table_scan_secondary(
        &mut self,
        t: &Table,
        index: usize,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
        descending: bool,
        limit: usize,
    ) -> TrxResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::new();
        self.scan_secondary_each(t, index, from, to, descending, false, &mut |pk, got| {
            if let SecRead::Row(row) = got {
                out.push((pk.to_vec(), row));
            }
            Ok(out.len() < limit)
        })?;
        Ok(out)
    }

    /// `table_scan_secondary`, streaming: calls `f(primary key, what was read)` for
    /// each entry the view sees, in index order, until it returns false.
    ///
    /// `covering`: the caller needs only what the entry key holds, so an entry whose
    /// own trx id settles its visibility is handed over as `SecRead::Entry` without
    /// reading the row. The rule keeps exactly the rows the clustered check would:
    /// every change of a row's key marks or unmarks the entry under the row's X lock
    /// and stamps it with the changer's id, so an entry stamped by a transaction the
    /// view sees (its own, or committed before the view) is the last change of that
    /// entry the view can see — unmarked: the visible version has this key; marked:
    /// it does not. Any other entry (stamped by a transaction the view does not see,
    /// or bulk-built (id 0) while the view may predate the build, or any entry in
    /// READ UNCOMMITTED) goes through the clustered row as before. In SERIALIZABLE
    /// (not autocommit) a covering read is a locking read of S locks instead.
    #[allow(clippy::too_many_arguments)]
    pub fn scan_secondary_each(
        &mut self,
        t: &Table,
        index: usize,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
        descending: bool,
        covering: bool,
        f: &mut dyn FnMut(&[u8], SecRead<'_>) -> TrxResult<bool>,
    ) -> TrxResult<()> {
        let s = t
            .secondaries
            .get(index)
            .ok_or_else(|| TrxError::Corrupt(format!("no secondary index {index}")))?;
        let (lo, hi) = match entry_bounds(from, to) {
            Some(b) => b,
            None => return Ok(()),
        };
        if covering
            && self.opts.isolation == super::txn::Isolation::Serializable
            && !self.opts.autocommit
        {
            // SERIALIZABLE: a covering read (which may stand in for a clustered scan)
            // locks what it reads, as `Trx::scan` does.
            let wait = self.wait();
            let mut rows = self.table_lookup_locking(t, index, from, to, Mode::S, wait)?;
            if descending {
                rows.reverse();
            }
            for (pk, row) in rows {
                if !f(&pk, SecRead::Row(row))? {
                    break;
                }
            }
            return Ok(());
        }
        self.prepare_view();
        let view = (covering && self.opts.isolation != super::txn::Isolation::ReadUncommitted)
            .then(|| self.view());
        let bulk_ok = view.is_some_and(|v| self.te().sys.bulk_trusted(&v));
        for r in s.tree.range(as_ref(&lo), as_ref(&hi), descending) {
            let (k, v) = r?;
            let pk = sec_pk(&k, &v)?;
            let index_key = &k[..k.len() - pk.len()];
            if let Some(view) = &view {
                let id = sec_trx(&v).unwrap_or(0);
                let settled = if id == 0 {
                    bulk_ok && !sec_marked(&v)
                } else {
                    self.te().sys.visible(view, id)
                };
                if settled {
                    if sec_marked(&v) {
                        continue;
                    }
                    if !f(pk, SecRead::Entry(&k))? {
                        return Ok(());
                    }
                    continue;
                }
            }
            let Some(cv) = t.clustered.get(pk)? else {
                continue;
            };
            // The version this view sees must still carry this entry's key (a
            // delete-marked entry may belong to an older or newer version).
            if let Some(row) = self.visible(&t.clustered, pk, &cv)?
                && (s.key_of)(&row).bytes == index_key
                && !f(pk, SecRead::Row(row))?
            {
                return Ok(());
            }
        }
        Ok(())
    }

    /// A locking read through secondary index `index` (SELECT ... FOR SHARE / FOR
    /// UPDATE WHERE on the index, and the rows an UPDATE or DELETE by it visits): the
    /// rows whose index key is in [from, to] (bounds on index keys), locked in the
    /// index — next-key locks and the gap after the range in REPEATABLE READ, so that
    /// no row can enter the range — and in the clustered index (the row itself).
    pub fn table_lookup_locking(
        &mut self,
        t: &Table,
        index: usize,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
        mode: Mode,
        wait: super::lock::Wait,
    ) -> TrxResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let s = t
            .secondaries
            .get(index)
            .ok_or_else(|| TrxError::Corrupt(format!("no secondary index {index}")))?;
        let Some((lo, hi)) = entry_bounds(from, to) else {
            return Ok(Vec::new());
        };
        let entries = self.lock_range(&s.tree, as_ref(&lo), as_ref(&hi), false, mode, wait)?;
        let mut out = Vec::new();
        for (ek, v) in entries {
            if sec_marked(&v) {
                continue;
            }
            let pk = sec_pk(&ek, &v)?.to_vec();
            if !self.lock(&t.clustered, &pk, mode, wait)? {
                continue; // SKIP LOCKED
            }
            let Some(cv) = t.clustered.get(&pk)? else {
                continue;
            };
            let e = crate::row::decode_clustered(&cv)
                .ok_or_else(|| TrxError::Corrupt("clustered value too short".into()))?;
            if !e.delete_marked && (s.key_of)(e.row).bytes == ek[..ek.len() - pk.len()] {
                out.push((pk, e.row.to_vec()));
            }
        }
        Ok(out)
    }

    /// For a unique index: X-locks the value and fails with `DuplicateKey` if another
    /// row holds it (module comment).
    fn check_unique(&mut self, s: &Secondary, k: &SecKey, pk: &[u8]) -> TrxResult<()> {
        if !s.unique || k.has_null {
            return Ok(());
        }
        let value_lock = LockKey::entry(s.tree.space_id(), s.tree.index_id(), &k.bytes);
        let wait = self.wait();
        self.lock_kind(&value_lock, Mode::X, LockKind::Record, wait)?;
        let (from, to) = prefix_range(&k.bytes);
        for r in s.tree.range(as_ref(&from), as_ref(&to), false) {
            let (ek, v) = r?;
            let other = sec_pk(&ek, &v)?;
            if &ek[..ek.len() - other.len()] == k.bytes.as_slice() && other != pk && !sec_marked(&v)
            {
                return Err(TrxError::DuplicateKey);
            }
        }
        Ok(())
    }

    /// Adds the entry (index key, pk): a new entry, or the mark cleared on a
    /// delete-marked one.
    fn sec_add(&mut self, s: &Secondary, index_key: &[u8], pk: &[u8]) -> TrxResult<()> {
        let id = self.writable()?;
        let key = entry_key(index_key, pk);
        let value = sec_value(false, id, pk.len());
        // One latched descent answers both questions an insert asks: is the entry
        // there (a delete-marked one comes back), and if not, which entry follows it
        // (the insert intention's lock key). It was `get` plus a `range` cursor: two
        // descents and a copy of a leaf batch for one key.
        let probe = s.tree.probe(&key)?;
        if let crate::btree::Probe::Exists = probe {
            // A delete-marked entry comes back: a change of an existing entry, under
            // its X lock (a locking range read holding it keeps it marked).
            let wait = self.wait();
            self.lock_entry(&s.tree, &key, Mode::X, LockKind::Record, wait)?;
            // Purge takes no row locks (as in InnoDB): the entry, marked by a
            // committed transaction, may have been removed before the lock was
            // granted. Then it is added as a new entry, below.
            if let Some(old) = s.tree.get(&key)? {
                let rec = Self::undo_rec(&s.tree, Kind::SecUpdate, &key, old);
                self.write_undo(id, &rec)?;
                let lsn = s.tree.upsert(&key, &value)?;
                self.note_lsn(lsn);
                return Ok(());
            }
        }
        // A new entry: implicit lock, and an insert intention against gap locks of
        // locking range reads on this index.
        let rec = Self::undo_rec(&s.tree, Kind::SecInsert, &key, Vec::new());
        self.write_undo(id, &rec)?;
        let (sp, ix) = (s.tree.space_id(), s.tree.index_id());
        let next_key = match probe {
            crate::btree::Probe::Next(k) => k,
            // Purged while we waited for its lock: find its successor now.
            crate::btree::Probe::Exists => match s.tree.probe(&key)? {
                crate::btree::Probe::Next(k) => k,
                crate::btree::Probe::Exists => {
                    return Err(TrxError::Corrupt(
                        "a purged secondary entry is back without its lock".into(),
                    ));
                }
            },
        };
        let next = match &next_key {
            Some(k) => LockKey::entry(sp, ix, k),
            None => LockKey::supremum(sp, ix),
        };
        let new = LockKey::entry(sp, ix, &key);
        let (wait, weight) = (self.wait(), self.undo_weight());
        let res = self
            .te()
            .locks
            .insert_with(id, &next, &new, wait, weight, || {
                s.tree.insert(&key, &value)
            });
        let lsn = self.lock_outcome(res)??;
        self.note_lsn(lsn);
        Ok(())
    }

    /// Delete-marks the entry (index key, pk). A unique index's value is locked first,
    /// so that no one inserts it while this transaction may still roll back.
    fn sec_mark(&mut self, s: &Secondary, k: &SecKey, pk: &[u8]) -> TrxResult<()> {
        let id = self.writable()?;
        if s.unique && !k.has_null {
            let value_lock = LockKey::entry(s.tree.space_id(), s.tree.index_id(), &k.bytes);
            let wait = self.wait();
            self.lock_kind(&value_lock, Mode::X, LockKind::Record, wait)?;
        }
        let key = entry_key(&k.bytes, pk);
        let wait = self.wait();
        self.lock_entry(&s.tree, &key, Mode::X, LockKind::Record, wait)?;
        let Some(old) = s.tree.get(&key)? else {
            return Err(TrxError::Corrupt(
                "a row's secondary index entry is missing".into(),
            ));
        };
        let rec = Self::undo_rec(&s.tree, Kind::SecUpdate, &key, old);
        self.write_undo(id, &rec)?;
        let lsn = s.tree.upsert(&key, &sec_value(true, id, pk.len()))?;
        self.note_lsn(lsn);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_prefix_ranges() {
        let v = sec_value(true, 0x0102_0304_0506, 4);
        assert_eq!(sec_trx(&v), Some(0x0102_0304_0506));
        assert!(sec_marked_by(&v, 0x0102_0304_0506));
        assert!(!sec_marked_by(&sec_value(false, 7, 4), 7));
        assert_eq!(
            sec_pk(b"abcdpk01", &sec_value(false, 1, 4)).unwrap(),
            b"pk01"
        );
        assert!(sec_pk(b"ab", &sec_value(false, 1, 4)).is_err());
        assert_eq!(
            prefix_range(b"ab\xFF"),
            (
                Bound::Included(b"ab\xFF".to_vec()),
                Bound::Excluded(b"ac".to_vec())
            )
        );
        assert_eq!(
            prefix_range(b"\xFF"),
            (Bound::Included(b"\xFF".to_vec()), Bound::Unbounded)
        );
    }
}
