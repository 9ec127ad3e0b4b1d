//! Transactions: reads through read views (MVCC), writes with undo and row locks,
//! commit, rollback (whole, or to a savepoint), on the clustered index of a table.
//!
//! A write, in order: (1) X-lock the row (waiting, with deadlock detection); (2) read
//! its current version — committed, since a writer's lock is held to its end — and
//! decide (duplicate? absent?) before anything is written; (3) append the undo record
//! (its own mini-transaction); (4) change the clustered entry so that it carries this
//! transaction's id and a roll pointer to that undo record. A crash between (3) and (4)
//! leaves an undo record whose change never happened: undoing checks that the entry
//! still carries (trx id, roll pointer) of the record before touching it, which also
//! makes rollback idempotent across crashes.
//!
//! A consistent read walks from the clustered entry back through the roll pointers
//! until it finds a version the view sees (`visible_version`); an invisible insert
//! means the row did not exist for the view. Purge never frees undo a view may need:
//! it purges a transaction only once every view's snapshot is at or past its commit.

use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::lock::{Acquired, Kind as LockKind, LockError, LockKey, Mode, Wait};
use super::manager::TrxEngine;
use super::sys::{ReadView, Reader, RwTrx};
use super::undo::{self, COMMIT_NO, Kind, UndoRec};
use super::{TrxError, TrxResult};
use crate::btree::{BTree, Cursor};
use crate::row::{self, ClusteredEntry};

/// Most versions a read walks back through before calling the chain corrupt.
const VERSIONS_MAX: usize = 1 << 24;
/// Most times a read starts over because a rollback removed the undo it followed.
const RETRIES_MAX: usize = 10_000;

/// What a walk back through a row's versions found.
pub(crate) enum Version {
    /// The row as the view sees it (None: it does not exist for the view).
    Found(Option<Vec<u8>>),
    /// An undo record the walk needed is gone: its transaction was rolled back
    /// meanwhile, which restores the entry before removing the undo. Read the entry
    /// again. (Purge never removes undo a view needs, so it is never the cause.)
    Vanished,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    ReadUncommitted,
    ReadCommitted,
    #[default]
    RepeatableRead,
    Serializable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrxOptions {
    pub isolation: Isolation,
    /// START TRANSACTION READ ONLY: writes fail with `ReadOnly` (1792).
    pub read_only: bool,
    /// An autocommit statement (SERIALIZABLE reads stay consistent reads then, as in
    /// InnoDB).
    pub autocommit: bool,
    /// START TRANSACTION WITH CONSISTENT SNAPSHOT: the view is taken at begin.
    pub consistent_snapshot: bool,
    /// The session's innodb_lock_wait_timeout (None: the engine's).
    pub lock_wait_timeout: Option<std::time::Duration>,
}

/// How a read treats locks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadMode {
    /// A consistent (non-locking) read from the transaction's view.
    Consistent,
    /// SELECT ... FOR SHARE / LOCK IN SHARE MODE: S-lock, read the latest version.
    Share(Wait),
    /// SELECT ... FOR UPDATE: X-lock, read the latest version.
    Update(Wait),
}

/// A connection's handle on the transaction system: owns a reader slot, so that
/// taking a read view writes only to this session's own cache line. One transaction
/// at a time per session (they share the slot): `begin` panics otherwise.
pub struct Session {
    te: Arc<TrxEngine>,
    slot: Arc<SessionSlot>,
}

/// A session's reader slot, and whether a transaction of the session is running.
struct SessionSlot {
    reader: Reader,
    busy: std::sync::atomic::AtomicBool,
}

impl Session {
    pub(crate) fn new(te: Arc<TrxEngine>, reader: Reader) -> Session {
        Session {
            te,
            slot: Arc::new(SessionSlot {
                reader,
                busy: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    pub fn engine(&self) -> &Arc<TrxEngine> {
        &self.te
    }

    /// Starts a transaction (no id, no view yet: both come when first needed). The
    /// transaction owns what it needs (it can be kept beside the session, as a
    /// connection does between statements).
    pub fn begin(&mut self, opts: TrxOptions) -> Trx {
        let was_busy = self.slot.busy.swap(true, Ordering::AcqRel);
        assert!(
            !was_busy,
            "a session runs one transaction at a time: end the previous one first"
        );
        let mut t = Trx {
            te: self.te.clone(),
            slot: self.slot.clone(),
            opts,
            rw: None,
            view: None,
            undo_no: 0,
            wrote: false,
            last_lsn: 0,
            done: false,
        };
        if opts.consistent_snapshot {
            t.view();
        }
        t
    }
}

/// A transaction. Dropping it without `commit` rolls it back.
pub struct Trx {
    te: Arc<TrxEngine>,
    slot: Arc<SessionSlot>,
    pub(super) opts: TrxOptions,
    rw: Option<RwTrx>,
    view: Option<ReadView>,
    /// Next undo number (= undo records written and not rolled back).
    undo_no: u64,
    /// Whether it ever changed a row (even if rolled back to a savepoint since).
    wrote: bool,
    /// Newest redo LSN of this transaction's changes.
    last_lsn: u64,
    done: bool,
}

/// Undoes one change of transaction `trx` (rollback, recovery). Idempotent: the entry
/// is touched only if it still carries this change.
pub(crate) fn undo_one(te: &TrxEngine, trx: u64, no: u64, rec: &UndoRec) -> TrxResult<()> {
    let _gate = te.undo_work();
    let Some(tree) = te.tree_if_exists(rec.space, rec.index)? else {
        return Ok(()); // the table has been dropped since
    };
    let carries = |v: &[u8], insert: bool| {
        row::decode_clustered(v)
            .is_some_and(|e| e.trx_id == trx && undo::parse_roll_ptr(e.roll_ptr) == (no, insert))
    };
    match rec.kind {
        Kind::Insert => {
            tree.delete_if(&rec.key, |v| carries(v, true))?;
        }
        Kind::Update | Kind::DeleteMark => {
            // The row is X-locked by `trx` (or `trx` is being recovered), and purge
            // leaves uncommitted changes alone: nothing changes it between the check
            // and the write.
            if tree.get(&rec.key)?.is_some_and(|v| carries(&v, false)) {
                tree.upsert(&rec.key, &rec.before)?;
            }
        }
        Kind::SecInsert => {
            tree.delete_if(&rec.key, |v| super::table::sec_trx(v) == Some(trx))?;
        }
        Kind::SecUpdate => {
            // Secondary entries are changed only under the row's X lock (and unique
            // values' locks), so nothing changes it between the check and the write.
            if tree
                .get(&rec.key)?
                .is_some_and(|v| super::table::sec_trx(&v) == Some(trx))
            {
                tree.upsert(&rec.key, &rec.before)?;
            }
        }
    }
    Ok(())
}

impl Trx {
    pub fn options(&self) -> TrxOptions {
        self.opts
    }

    /// The transaction id, if it has one (it wrote or locked something).
    pub fn id(&self) -> Option<u64> {
        self.rw.as_ref().map(|r| r.id)
    }

    /// The read view (taken now if there is none: at the first consistent read in
    /// REPEATABLE READ, per statement in READ COMMITTED).
    pub fn view(&mut self) -> ReadView {
        if let Some(v) = self.view {
            return v;
        }
        let v = self.slot.reader.view(self.id());
        self.view = Some(v);
        v
    }

    /// Whether the read view this transaction holds, if any, sees the changes of
    /// transaction `id`. With no view yet the answer is yes: one taken now sees every
    /// committed change. No view is taken here (REPEATABLE READ takes it at the first
    /// consistent read, not earlier).
    pub fn view_sees(&self, id: u64) -> bool {
        match &self.view {
            None => true,
            Some(_) if self.opts.isolation == Isolation::ReadUncommitted => true,
            Some(v) => self.te.sys.visible(v, id),
        }
    }

    /// Takes the view now if this transaction reads through one (not in READ
    /// UNCOMMITTED).
    pub(super) fn prepare_view(&mut self) {
        if self.opts.isolation != Isolation::ReadUncommitted {
            self.view();
        }
    }

    /// Marks a statement boundary: READ COMMITTED takes a fresh view per statement.
    pub fn statement_start(&mut self) {
        if matches!(
            self.opts.isolation,
            Isolation::ReadCommitted | Isolation::ReadUncommitted
        ) {
            self.view = None;
        }
    }

    /// The id of this transaction, given to it now if it has none yet. Writes need
    /// it; so do locks (a locking read in a read-only transaction gets one too).
    pub(super) fn ensure_id(&mut self) -> TrxResult<u64> {
        if let Some(rw) = &self.rw {
            return Ok(rw.id);
        }
        let te = &self.te;
        let rw = te.sys.begin_rw(|bound| te.persist_next_id(bound))?;
        let id = rw.id;
        self.rw = Some(rw);
        if let Some(v) = &mut self.view {
            v.own = Some(id);
        }
        Ok(id)
    }

    pub(super) fn writable(&mut self) -> TrxResult<u64> {
        if self.opts.read_only {
            return Err(TrxError::ReadOnly);
        }
        if self.rw.is_none() {
            // Purge far behind (innodb_max_purge_lag): new writers wait a little.
            let delay = self.te.purge_lag_delay();
            if !delay.is_zero() {
                let _wait = kiln_common::wait::begin(kiln_common::wait::WaitKind::Sleep);
                std::thread::sleep(delay);
            }
        }
        self.ensure_id()
    }

    /// Locks an entry (record only) for this transaction.
    pub fn lock(&mut self, tree: &BTree, key: &[u8], mode: Mode, wait: Wait) -> TrxResult<bool> {
        self.lock_entry(tree, key, mode, LockKind::Record, wait)
    }

    /// Locks an entry, first making explicit the implicit lock of the transaction
    /// that inserted it, if that one has not finished (inserts take no lock of their
    /// own: the entry's trx_id is the lock, as in InnoDB).
    pub(super) fn lock_entry(
        &mut self,
        tree: &BTree,
        key: &[u8],
        mode: Mode,
        kind: LockKind,
        wait: Wait,
    ) -> TrxResult<bool> {
        if let Some(v) = tree.get(key)? {
            // A clustered entry's trx id, or a secondary entry's (its value is 9
            // bytes, a clustered one at least 14).
            let owner = row::decode_clustered(&v)
                .map(|e| e.trx_id)
                .or_else(|| super::table::sec_trx(&v))
                .unwrap_or(0);
            if owner != 0 && Some(owner) != self.id() && self.te.sys.is_active(owner) {
                let lk = LockKey::entry(tree.space_id(), tree.index_id(), key);
                let sys = &self.te.sys;
                self.te
                    .locks
                    .convert_implicit(owner, &lk, || sys.is_active(owner));
            }
        }
        let lk = LockKey::entry(tree.space_id(), tree.index_id(), key);
        self.lock_kind(&lk, mode, kind, wait)
    }

    /// Locks `lk` in `mode` and `kind`; false: SKIP LOCKED skipped it. A deadlock
    /// rolls the whole transaction back (as InnoDB does) before the error is
    /// returned.
    pub fn lock_kind(
        &mut self,
        lk: &LockKey,
        mode: Mode,
        kind: LockKind,
        wait: Wait,
    ) -> TrxResult<bool> {
        let id = self.ensure_id()?;
        let res = self
            .te
            .locks
            .lock(id, lk, mode, kind, wait, self.weight(id));
        self.lock_outcome(res.map(|a| a == Acquired::Granted))
    }

    pub(super) fn weight(&self, id: u64) -> u64 {
        self.undo_no + self.te.locks.held_by(id) as u64
    }

    /// A lock request's result, with a deadlock turned into a full rollback.
    pub(super) fn lock_outcome<T>(&mut self, res: Result<T, LockError>) -> TrxResult<T> {
        match res {
            Ok(v) => Ok(v),
            Err(LockError::Deadlock) => {
                self.rollback_all()?;
                Err(TrxError::Lock(LockError::Deadlock))
            }
            Err(LockError::Timeout) if self.te.config.rollback_on_timeout => {
                self.rollback_all()?;
                Err(TrxError::Lock(LockError::Timeout))
            }
            Err(e) => Err(TrxError::Lock(e)),
        }
    }

    /// Whether locking reads and writes lock gaps too (REPEATABLE READ and
    /// SERIALIZABLE, as InnoDB; READ COMMITTED and below lock records only).
    fn gap_locking(&self) -> bool {
        matches!(
            self.opts.isolation,
            Isolation::RepeatableRead | Isolation::Serializable
        )
    }

    /// The lock key of the first entry after `key` (or of the supremum).
    fn next_lock_key(tree: &BTree, key: &[u8]) -> TrxResult<LockKey> {
        Ok(
            match tree
                .range(Bound::Excluded(key), Bound::Unbounded, false)
                .next()
                .transpose()?
            {
                Some((k, _)) => LockKey::entry(tree.space_id(), tree.index_id(), &k),
                None => LockKey::supremum(tree.space_id(), tree.index_id()),
            },
        )
    }

    /// Locks the entry under `key` in `mode` — or, if there is none, the gap where it
    /// would be (REPEATABLE READ) — and returns its latest value (delete-marked ones
    /// included), as the locking reads and writes of InnoDB on a unique key do.
    /// None with `skip`: the row is locked by another transaction (SKIP LOCKED).
    fn lock_current(
        &mut self,
        tree: &BTree,
        key: &[u8],
        mode: Mode,
        wait: Wait,
    ) -> TrxResult<Option<Option<Vec<u8>>>> {
        for _ in 0..RETRIES_MAX {
            match tree.get(key)? {
                Some(_) => {
                    if !self.lock(tree, key, mode, wait)? {
                        return Ok(None);
                    }
                    // Locked: nobody else can change it now; read what it became.
                    match tree.get(key)? {
                        Some(v) => return Ok(Some(Some(v))),
                        None => continue, // purged meanwhile
                    }
                }
                None if self.gap_locking() => {
                    let next = Self::next_lock_key(tree, key)?;
                    if !self.lock_kind(&next, mode, LockKind::Gap, wait)? {
                        return Ok(None);
                    }
                    // Still absent with the gap locked: no insert can come now.
                    if tree.get(key)?.is_none() {
                        return Ok(Some(None));
                    }
                }
                None => return Ok(Some(None)),
            }
        }
        Err(TrxError::Corrupt(
            "entry keeps changing under a locking read".into(),
        ))
    }

    /// How this transaction waits for a lock (its lock wait timeout).
    pub fn wait(&self) -> Wait {
        Wait::Block(
            self.opts
                .lock_wait_timeout
                .unwrap_or(self.te.config.lock_wait_timeout),
        )
    }

    /// The row stored under `key`, as this transaction may see it.
    pub fn read(&mut self, tree: &BTree, key: &[u8], mode: ReadMode) -> TrxResult<Option<Vec<u8>>> {
        let mode = match mode {
            ReadMode::Consistent
                if self.opts.isolation == Isolation::Serializable && !self.opts.autocommit =>
            {
                ReadMode::Share(self.wait())
            }
            m => m,
        };
        match mode {
            ReadMode::Consistent => {
                // The view before the data: what is read must be at least as new as
                // the snapshot, or a commit between the two would be half missed.
                self.prepare_view();
                let Some(v) = tree.get(key)? else {
                    return Ok(None);
                };
                self.visible_owned(tree, key, v)
            }
            ReadMode::Share(w) | ReadMode::Update(w) => {
                let m = if matches!(mode, ReadMode::Share(_)) {
                    Mode::S
                } else {
                    Mode::X
                };
                let Some(current) = self.lock_current(tree, key, m, w)? else {
                    return Ok(None); // SKIP LOCKED
                };
                match current {
                    None => Ok(None),
                    Some(v) => {
                        let e = decode(&v)?;
                        Ok((!e.delete_marked).then(|| e.row.to_vec()))
                    }
                }
            }
        }
    }

    /// `visible` of a value the caller owns: when the newest version is the one seen
    /// (the common case of a point read) its row is returned in the same buffer, the
    /// system columns cut off its front, instead of being copied into a new one.
    fn visible_owned(
        &mut self,
        tree: &BTree,
        key: &[u8],
        mut value: Vec<u8>,
    ) -> TrxResult<Option<Vec<u8>>> {
        let e = decode(&value)?;
        let (trx_id, delete_marked, sys_len) =
            (e.trx_id, e.delete_marked, value.len() - e.row.len());
        let seen = self.opts.isolation == Isolation::ReadUncommitted || {
            let view = self.view();
            self.te.sys.visible(&view, trx_id)
        };
        if !seen {
            return self.visible(tree, key, &value);
        }
        if delete_marked {
            return Ok(None);
        }
        value.drain(..sys_len);
        Ok(Some(value))
    }

    /// The version of a clustered value this transaction sees: the row, or None if
    /// the row does not exist (or is deleted) for it.
    pub(super) fn visible(
        &mut self,
        tree: &BTree,
        key: &[u8],
        value: &[u8],
    ) -> TrxResult<Option<Vec<u8>>> {
        if self.opts.isolation == Isolation::ReadUncommitted {
            let e = decode(value)?;
            return Ok((!e.delete_marked).then(|| e.row.to_vec()));
        }
        let view = self.view();
        let mut value = std::borrow::Cow::Borrowed(value);
        for _ in 0..RETRIES_MAX {
            match visible_version(&self.te, &view, &value)? {
                Version::Found(row) => return Ok(row),
                // Rolled back under us: the entry has been restored; read it again.
                Version::Vanished => match tree.get(key)? {
                    Some(v) => value = std::borrow::Cow::Owned(v),
                    None => return Ok(None),
                },
            }
        }
        Err(TrxError::Corrupt(format!(
            "undo records keep vanishing under a read of index {}",
            tree.index_id()
        )))
    }

    /// A consistent scan of `tree` over a key range, in key order (descending if
    /// asked), yielding (key, row) for the rows this transaction sees.
    pub fn scan<'t>(
        &'t mut self,
        tree: &'t BTree,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
        descending: bool,
    ) -> Scan<'t> {
        if self.opts.isolation == Isolation::Serializable && !self.opts.autocommit {
            // SERIALIZABLE: plain SELECTs lock what they read, gaps included.
            let wait = self.wait();
            let rows = match self.scan_locking(tree, from, to, descending, Mode::S, wait) {
                Ok(rows) => rows.into_iter().map(Ok).collect(),
                Err(e) => vec![Err(e)],
            };
            return Scan {
                source: Source::Rows(rows.into_iter()),
                tree,
                trx: self,
            };
        }
        self.prepare_view();
        Scan {
            source: Source::Cursor(tree.range(from, to, descending)),
            tree,
            trx: self,
        }
    }

    /// A locking read of a key range (SELECT ... FOR SHARE / FOR UPDATE, and the
    /// rows an UPDATE or DELETE by range visits): the latest versions of the rows in
    /// the range, each entry locked — next-key in REPEATABLE READ and SERIALIZABLE,
    /// and the gap after the range too, so that no insert can put a phantom into it;
    /// record-only below. Delete-marked entries are locked but not returned.
    pub fn scan_locking(
        &mut self,
        tree: &BTree,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
        descending: bool,
        mode: Mode,
        wait: Wait,
    ) -> TrxResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::new();
        for (k, v) in self.lock_range(tree, from, to, descending, mode, wait)? {
            let e = decode(&v)?;
            if !e.delete_marked {
                out.push((k, e.row.to_vec()));
            }
        }
        Ok(out)
    }

    /// The locking part of `scan_locking`, for any index: locks the range and
    /// returns the latest value of every entry in it, delete-marked ones included.
    pub(super) fn lock_range(
        &mut self,
        tree: &BTree,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
        descending: bool,
        mode: Mode,
        wait: Wait,
    ) -> TrxResult<Vec<(Vec<u8>, Vec<u8>)>> {
        let (sp, ix) = (tree.space_id(), tree.index_id());
        let gap = self.gap_locking();
        let kind = if gap {
            LockKind::NextKey
        } else {
            LockKind::Record
        };
        if gap {
            // The gap after the range: up to the first entry beyond it.
            let beyond = match to {
                Bound::Unbounded => None,
                Bound::Included(k) => first_in(tree, Bound::Excluded(k), Bound::Unbounded, false)?,
                Bound::Excluded(k) => first_in(tree, Bound::Included(k), Bound::Unbounded, false)?,
            };
            let lk = match beyond {
                Some(k) => LockKey::entry(sp, ix, &k),
                None => LockKey::supremum(sp, ix),
            };
            self.lock_kind(&lk, mode, LockKind::Gap, wait)?;
        }
        let mut out = Vec::new();
        let mut last: Option<Vec<u8>> = None;
        loop {
            let after = |last: &Option<Vec<u8>>| -> TrxResult<Option<Vec<u8>>> {
                match (descending, last) {
                    (false, Some(a)) => first_in(tree, Bound::Excluded(a), to, false),
                    (true, Some(a)) => first_in(tree, from, Bound::Excluded(a), true),
                    (_, None) => first_in(tree, from, to, descending),
                }
            };
            let Some(k) = after(&last)? else { break };
            if !self.lock_entry(tree, &k, mode, kind, wait)? {
                last = Some(k); // SKIP LOCKED
                continue;
            }
            // Ascending, an entry may have arrived between the last one and this one
            // before the lock closed the gap: take it first. (Descending, the lock on
            // the entry above already keeps that gap closed.)
            if !descending && after(&last)?.as_deref() != Some(&k[..]) {
                continue;
            }
            if let Some(v) = tree.get(&k)? {
                out.push((k.clone(), v));
            }
            last = Some(k);
        }
        Ok(out)
    }

    /// The transaction manager (for the table module).
    pub(super) fn te(&self) -> &TrxEngine {
        &self.te
    }

    /// This transaction's weight as a deadlock victim.
    pub(super) fn undo_weight(&self) -> u64 {
        self.id().map_or(0, |id| self.weight(id))
    }

    /// Records an LSN of this transaction's changes (commit makes it durable).
    pub(super) fn note_lsn(&mut self, lsn: u64) {
        self.last_lsn = self.last_lsn.max(lsn);
    }

    pub(super) fn write_undo(&mut self, id: u64, rec: &UndoRec) -> TrxResult<u64> {
        let no = self.undo_no;
        if no > undo::UNDO_NO_MAX {
            return Err(TrxError::Corrupt(
                "too many changes in one transaction".into(),
            ));
        }
        let lsn = self
            .te
            .rseg(id)
            .insert(&undo::undo_key(id, no), &rec.encode())?;
        self.undo_no += 1;
        self.wrote = true;
        self.last_lsn = self.last_lsn.max(lsn);
        Ok(no)
    }

    pub(super) fn undo_rec(tree: &BTree, kind: Kind, key: &[u8], before: Vec<u8>) -> UndoRec {
        UndoRec {
            kind,
            space: tree.space_id(),
            index: tree.index_id(),
            key: key.to_vec(),
            before,
        }
    }

    /// Inserts a row; `DuplicateKey` if a row with this key exists (a delete-marked
    /// entry left for purge is reused, as InnoDB does).
    pub fn insert(&mut self, tree: &BTree, key: &[u8], row: &[u8]) -> TrxResult<()> {
        let id = self.writable()?;
        let mut insert_undo = None;
        for _ in 0..RETRIES_MAX {
            if let crate::btree::Probe::Next(next_key) = tree.probe(key)? {
                // A new entry: no lock of its own (its trx_id is an implicit lock),
                // but it splits a gap, so it waits until no other transaction's gap
                // lock covers it (insert intention), and goes in under the lock
                // table's watch.
                let no = match insert_undo {
                    Some(no) => no,
                    None => {
                        let rec = Self::undo_rec(tree, Kind::Insert, key, Vec::new());
                        let no = self.write_undo(id, &rec)?;
                        insert_undo = Some(no);
                        no
                    }
                };
                let entry = ClusteredEntry {
                    trx_id: id,
                    roll_ptr: undo::roll_ptr(no, true),
                    delete_marked: false,
                    row,
                }
                .encode();
                let next = match &next_key {
                    Some(k) => LockKey::entry(tree.space_id(), tree.index_id(), k),
                    None => LockKey::supremum(tree.space_id(), tree.index_id()),
                };
                let new = LockKey::entry(tree.space_id(), tree.index_id(), key);
                let (wait, weight) = (self.wait(), self.weight(id));
                let res = self
                    .te
                    .locks
                    .insert_with(id, &next, &new, wait, weight, || tree.insert(key, &entry));
                match self.lock_outcome(res)? {
                    Ok(lsn) => {
                        self.note_lsn(lsn);
                        return Ok(());
                    }
                    // Inserted by someone else meanwhile: wait for it like for any
                    // existing entry (below). The undo record written stays unused:
                    // the entry does not carry it, so undo skips it.
                    Err(crate::btree::TreeError::DuplicateKey) => continue,
                    Err(e) => return Err(e.into()),
                }
            }
            // An entry exists: lock it (waiting for its inserter, if it has not
            // finished), then decide on what it is now.
            self.lock(tree, key, Mode::X, self.wait())?;
            let Some(current) = tree.get(key)? else {
                continue; // its insert was rolled back, or it was purged
            };
            if !decode(&current)?.delete_marked {
                return Err(TrxError::DuplicateKey);
            }
            // Delete-marked (left for purge): reuse it, keeping its versions.
            let no = self.write_undo(id, &Self::undo_rec(tree, Kind::Update, key, current))?;
            let entry = ClusteredEntry {
                trx_id: id,
                roll_ptr: undo::roll_ptr(no, false),
                delete_marked: false,
                row,
            }
            .encode();
            let lsn = tree.upsert(key, &entry)?;
            self.note_lsn(lsn);
            return Ok(());
        }
        Err(TrxError::Corrupt(
            "entry keeps changing under an insert".into(),
        ))
    }

    /// Replaces the row under `key`; false if there is none.
    pub fn update(&mut self, tree: &BTree, key: &[u8], row: &[u8]) -> TrxResult<bool> {
        Ok(self.change(tree, key, Some(row))?.is_some())
    }

    /// Deletes the row under `key` (delete-marks it; purge removes it); false if
    /// there is none.
    pub fn delete(&mut self, tree: &BTree, key: &[u8]) -> TrxResult<bool> {
        Ok(self.change(tree, key, None)?.is_some())
    }

    /// Updates (`row`) or delete-marks (None) the row under `key`; returns the row it
    /// replaced, or None if there was none.
    pub(super) fn change(
        &mut self,
        tree: &BTree,
        key: &[u8],
        row: Option<&[u8]>,
    ) -> TrxResult<Option<Vec<u8>>> {
        let id = self.writable()?;
        let wait = self.wait();
        let Some(Some(current)) = self.lock_current(tree, key, Mode::X, wait)? else {
            return Ok(None);
        };
        let e = decode(&current)?;
        if e.delete_marked {
            return Ok(None);
        }
        let old_row = e.row.to_vec();
        let kind = if row.is_some() {
            Kind::Update
        } else {
            Kind::DeleteMark
        };
        let new_row = row.unwrap_or(e.row).to_vec();
        let no = self.write_undo(id, &Self::undo_rec(tree, kind, key, current.clone()))?;
        let entry = ClusteredEntry {
            trx_id: id,
            roll_ptr: undo::roll_ptr(no, false),
            delete_marked: row.is_none(),
            row: &new_row,
        }
        .encode();
        let lsn = tree.upsert(key, &entry)?;
        self.last_lsn = self.last_lsn.max(lsn);
        Ok(Some(old_row))
    }

    /// Runs one statement atomically: a new statement for READ COMMITTED's view, and
    /// on an error everything the statement changed is undone (a multi-row INSERT
    /// that fails half-way leaves no rows) while the transaction goes on — unless the
    /// error was a deadlock, which has rolled the whole transaction back already.
    pub fn statement<T>(&mut self, f: impl FnOnce(&mut Self) -> TrxResult<T>) -> TrxResult<T> {
        self.statement_start();
        let sp = self.savepoint();
        match f(self) {
            Ok(v) => Ok(v),
            Err(e) => {
                if !self.done {
                    self.rollback_to(sp)?;
                }
                Err(e)
            }
        }
    }

    /// Whether the transaction has ended (committed, or rolled back — by a deadlock,
    /// or a lock wait timeout with innodb_rollback_on_timeout).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// A savepoint: `rollback_to` it undoes what came after (statement rollback,
    /// SAVEPOINT). Locks stay.
    pub fn savepoint(&self) -> u64 {
        self.undo_no
    }

    /// Undoes every change made after `savepoint`.
    pub fn rollback_to(&mut self, savepoint: u64) -> TrxResult<()> {
        let Some(id) = self.id() else {
            return Ok(());
        };
        let rseg = self.te.rseg(id);
        while self.undo_no > savepoint {
            let no = self.undo_no - 1;
            if let Some(v) = rseg.get(&undo::undo_key(id, no))? {
                let rec = UndoRec::decode(&v)
                    .ok_or_else(|| TrxError::Corrupt(format!("undo record {no} of {id}")))?;
                undo_one(&self.te, id, no, &rec)?;
                rseg.delete(&undo::undo_key(id, no))?;
            }
            self.undo_no = no;
        }
        Ok(())
    }

    fn rollback_all(&mut self) -> TrxResult<()> {
        if self.done {
            return Ok(());
        }
        self.done = true;
        let res = self.rollback_to(0);
        // If undo failed half-way (an I/O error), the transaction stays registered as
        // active and its rows locked: a restart rolls it back from its undo.
        if res.is_ok()
            && let Some(rw) = self.rw.take()
        {
            let id = rw.id;
            self.te.sys.rolled_back(rw, self.wrote);
            self.te.locks.release_all(id);
            self.te.stats.rollbacks.fetch_add(1, Ordering::Relaxed);
        }
        self.slot.reader.close_view();
        res
    }

    /// Lets go of the handle without ending the transaction: it stays active, its
    /// rows locked and its undo in place, as if the process had died — what crash
    /// tests simulate, and what recovery then rolls back. Nothing is written.
    pub fn abandon(mut self) {
        self.done = true;
    }

    /// Rolls the whole transaction back.
    pub fn rollback(mut self) -> TrxResult<()> {
        self.rollback_all()
    }

    /// Commits: the changes become visible to views taken from now on, the locks are
    /// released, and the call returns once the commit is as durable as
    /// innodb_flush_log_at_trx_commit asks.
    pub fn commit(mut self) -> TrxResult<()> {
        self.done = true;
        self.slot.reader.close_view();
        let Some(rw) = self.rw.take() else {
            return Ok(()); // read-only: nothing to do
        };
        let id = rw.id;
        if self.undo_no == 0 {
            // Only locked rows: nothing to make durable or to purge.
            self.te.sys.rolled_back(rw, self.wrote);
            self.te.locks.release_all(id);
            return Ok(());
        }
        let lsn = self
            .te
            .rseg(id)
            .insert(&undo::undo_key(id, COMMIT_NO), &[])?;
        let csn = self.te.sys.commit(rw);
        self.te.add_history(csn, id);
        self.te.locks.release_all(id);
        self.te.stats.commits.fetch_add(1, Ordering::Relaxed);
        self.te.engine.commit(lsn.max(self.last_lsn))?;
        Ok(())
    }
}

impl Drop for Trx {
    fn drop(&mut self) {
        if !self.done
            && let Err(e) = self.rollback_all()
        {
            tracing::error!("rolling back a dropped transaction: {e}");
        }
        self.slot.busy.store(false, Ordering::Release);
    }
}

fn decode(v: &[u8]) -> TrxResult<ClusteredEntry<'_>> {
    row::decode_clustered(v).ok_or_else(|| TrxError::Corrupt("clustered value too short".into()))
}

/// The row of the newest version of `value` visible in `view` (None: the row does
/// not exist for the view).
pub(crate) fn visible_version(te: &TrxEngine, view: &ReadView, value: &[u8]) -> TrxResult<Version> {
    let mut owned: Vec<u8>;
    let mut cur: &[u8] = value;
    for _ in 0..VERSIONS_MAX {
        let e = decode(cur)?;
        if te.sys.visible(view, e.trx_id) {
            return Ok(Version::Found((!e.delete_marked).then(|| e.row.to_vec())));
        }
        let (no, insert) = undo::parse_roll_ptr(e.roll_ptr);
        if insert {
            // Inserted by a transaction the view does not see.
            return Ok(Version::Found(None));
        }
        let trx = e.trx_id;
        let Some(v) = te.rseg(trx).get(&undo::undo_key(trx, no))? else {
            return Ok(Version::Vanished);
        };
        let rec = UndoRec::decode(&v).ok_or_else(|| {
            TrxError::Corrupt(format!("undo record {no} of transaction {trx} is corrupt"))
        })?;
        owned = rec.before;
        cur = &owned;
    }
    Err(TrxError::Corrupt("version chain too long".into()))
}

/// The first key of `tree` in a range, in the scan's direction.
fn first_in(
    tree: &BTree,
    from: Bound<&[u8]>,
    to: Bound<&[u8]>,
    descending: bool,
) -> TrxResult<Option<Vec<u8>>> {
    Ok(tree
        .range(from, to, descending)
        .next()
        .transpose()?
        .map(|(k, _)| k))
}

/// Where a scan's rows come from.
enum Source<'t> {
    /// A consistent scan: tree entries, filtered through the view.
    Cursor(Cursor<'t>),
    /// Rows already read under locks (SERIALIZABLE).
    Rows(std::vec::IntoIter<TrxResult<(Vec<u8>, Vec<u8>)>>),
}

/// A scan (`Trx::scan`).
pub struct Scan<'t> {
    source: Source<'t>,
    tree: &'t BTree,
    trx: &'t mut Trx,
}

impl Iterator for Scan<'_> {
    type Item = TrxResult<(Vec<u8>, Vec<u8>)>;
    fn next(&mut self) -> Option<Self::Item> {
        let cursor = match &mut self.source {
            Source::Rows(rows) => return rows.next(),
            Source::Cursor(c) => c,
        };
        loop {
            let (k, v) = match cursor.next()? {
                Ok(kv) => kv,
                Err(e) => return Some(Err(e.into())),
            };
            match self.trx.visible(self.tree, &k, &v) {
                Ok(Some(row)) => return Some(Ok((k, row))),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}
