//! `TrxEngine`: transactions over an `Engine` — opening the rollback segments,
//! recovering transactions after a crash, purge, and the registry of trees that
//! undo records name. Transactions themselves are in `txn.rs`.
//!
//! Persistent state (all redo-logged B+trees):
//! - a metadata tree in the system tablespace (`TRX_META_INDEX`): `next_trx_id` (the
//!   persisted high-water mark of transaction ids), `undo_spaces` (ids of the undo
//!   tablespaces), `rsegs` (number of rollback segments, fixed at creation);
//! - the rollback segments: tree `i + 1` in undo tablespace `i % undo_spaces`; a
//!   transaction's undo records go to rollback segment `trx_id % rsegs`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::{Condvar, Mutex, RwLock};

use super::lock::{Kind as LockKind, LockKey, LockSys, Mode, Wait};
use super::sys::{RwTrx, TrxSys};
use super::txn::{Session, undo_one};
use super::undo::{self, COMMIT_NO, UndoRec};
use super::{TrxError, TrxResult};
use crate::btree::BTree;
use crate::engine::Engine;
use crate::row;

/// Index id of the transaction metadata tree in the system tablespace.
pub const TRX_META_INDEX: u64 = u64::MAX - 2;
const META_NEXT_ID: &[u8] = b"next_trx_id";
const META_UNDO_SPACES: &[u8] = b"undo_spaces";
const META_RSEGS: &[u8] = b"rsegs";

#[derive(Debug, Clone)]
pub struct TrxConfig {
    /// innodb_rollback_segments (used when the data directory is created).
    pub rollback_segments: usize,
    /// innodb_undo_tablespaces (used when the data directory is created).
    pub undo_tablespaces: usize,
    /// innodb_lock_wait_timeout.
    pub lock_wait_timeout: Duration,
    /// innodb_purge_threads (0: purge only when `purge` is called).
    pub purge_threads: usize,
    /// Roll back the transactions found active at startup in a background thread
    /// (false: before `open` returns).
    pub background_rollback: bool,
    /// innodb_deadlock_detect (off: lock waits end only by timeout).
    pub deadlock_detect: bool,
    /// innodb_rollback_on_timeout: a lock wait timeout rolls back the whole
    /// transaction, not only the statement.
    pub rollback_on_timeout: bool,
    /// innodb_max_purge_lag: above this history list length, writers are delayed
    /// (0: never).
    pub max_purge_lag: u64,
    /// innodb_max_purge_lag_delay: the longest such delay, microseconds (0: no cap).
    pub max_purge_lag_delay_us: u64,
}

impl Default for TrxConfig {
    fn default() -> Self {
        TrxConfig {
            rollback_segments: 128,
            undo_tablespaces: 2,
            lock_wait_timeout: Duration::from_secs(50),
            purge_threads: 4,
            background_rollback: true,
            deadlock_detect: true,
            rollback_on_timeout: false,
            max_purge_lag: 0,
            max_purge_lag_delay_us: 0,
        }
    }
}

/// Called with a transaction's id as purge starts on it (`TrxEngine::set_purge_hook`).
pub type PurgeHook = Arc<dyn Fn(u64) + Send + Sync>;

/// A transaction holding or waiting for row locks (`transactions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrxRow {
    pub id: u64,
    /// The key it waits to lock (trx_state LOCK WAIT), if it waits.
    pub waiting_for: Option<LockKey>,
    /// Lock requests granted to it (trx_rows_locked, roughly).
    pub locks: usize,
}

/// Counters for SHOW STATUS / SHOW ENGINE INNODB STATUS.
#[derive(Default)]
pub struct TrxStats {
    pub commits: AtomicU64,
    pub rollbacks: AtomicU64,
    pub purged_trx: AtomicU64,
    pub purged_records: AtomicU64,
}

/// Undo records purge reads before it works on them, their index leaves read ahead
/// in one batch per index (64 rows of a table with 6 secondary indexes).
const PURGE_PREFETCH_RECORDS: usize = 448;

pub struct TrxEngine {
    pub engine: Arc<Engine>,
    pub sys: Arc<TrxSys>,
    pub locks: LockSys,
    meta: BTree,
    rsegs: Vec<Arc<BTree>>,
    trees: RwLock<HashMap<(u32, u64), Arc<BTree>>>,
    /// Held shared by purge and rollback around each undo record they apply, and
    /// exclusively by `drop_space`: a tablespace is never dropped under a page they
    /// have pinned, and once it is gone they skip its records (`tree_if_exists`).
    drop_gate: RwLock<()>,
    /// Committed transactions whose undo awaits purge, oldest commit first:
    /// (CSN, trx id). The history list.
    history: Mutex<BinaryHeap<Reverse<(u64, u64)>>>,
    /// Transactions taken off `history` by a purge pass and not purged yet: still
    /// history (`history_len` counts them). Changed only under the `history` mutex,
    /// so the two together never read a transaction twice or not at all.
    purging: AtomicUsize,
    /// Called with each transaction's id as purge starts on it (`set_purge_hook`).
    purge_hook: Mutex<Option<PurgeHook>>,
    /// Transactions found active at startup, not yet rolled back, and how many of
    /// them are not finished (popped ones included).
    recovering: Mutex<Vec<RwTrx>>,
    recovering_left: Mutex<usize>,
    recovered_done: Condvar,
    stop: AtomicBool,
    purge_wake: (Mutex<bool>, Condvar),
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
    pub config: TrxConfig,
    pub stats: TrxStats,
}

fn meta_u64(v: Option<Vec<u8>>) -> Option<u64> {
    v.and_then(|v| v.try_into().ok()).map(u64::from_be_bytes)
}

impl TrxEngine {
    /// Opens (creating on first use) the transaction system of `engine`, and rolls
    /// back the transactions a crash left active (in the background by default).
    pub fn open(engine: Arc<Engine>, config: TrxConfig) -> TrxResult<Arc<TrxEngine>> {
        let sys_space = engine.system_space().clone();
        let meta = match engine.open_tree(&sys_space, TRX_META_INDEX)? {
            Some(t) => t,
            None => engine.create_tree(&sys_space, TRX_META_INDEX)?,
        };
        let undo_spaces: Vec<u32> = match meta.get(META_UNDO_SPACES)? {
            Some(v) => v
                .chunks_exact(4)
                .map(|c| u32::from_be_bytes(c.try_into().expect("4 bytes")))
                .collect(),
            None => {
                let mut ids = Vec::new();
                for i in 1..=config.undo_tablespaces.clamp(1, 127) {
                    ids.push(engine.create_space(&format!("undo_{i:03}"))?.id);
                }
                let v: Vec<u8> = ids.iter().flat_map(|i| i.to_be_bytes()).collect();
                let lsn = meta.upsert(META_UNDO_SPACES, &v)?;
                engine.sync_to(lsn)?;
                ids
            }
        };
        let n_rsegs = match meta_u64(meta.get(META_RSEGS)?) {
            Some(n) => n as usize,
            None => {
                let n = config.rollback_segments.clamp(1, 128);
                let lsn = meta.upsert(META_RSEGS, &(n as u64).to_be_bytes())?;
                engine.sync_to(lsn)?;
                n
            }
        };
        if undo_spaces.is_empty() || n_rsegs == 0 {
            return Err(TrxError::Corrupt("no rollback segments".into()));
        }
        let mut rsegs = Vec::with_capacity(n_rsegs);
        for i in 0..n_rsegs {
            let sid = undo_spaces[i % undo_spaces.len()];
            let space = engine
                .space(sid)
                .ok_or_else(|| TrxError::Corrupt(format!("undo tablespace {sid} is missing")))?;
            let t = match engine.open_tree(&space, i as u64 + 1)? {
                Some(t) => t,
                None => engine.create_tree(&space, i as u64 + 1)?,
            };
            rsegs.push(Arc::new(t));
        }
        // Transactions in the undo logs: committed ones await purge, the others were
        // active at the crash.
        let mut committed = Vec::new();
        let mut active = Vec::new();
        let mut max_id = 0;
        for rseg in &rsegs {
            let mut from = undo::undo_key(0, 0);
            while let Some(r) = rseg
                .range(Bound::Included(&from[..]), Bound::Unbounded, false)
                .next()
            {
                let (k, _) = r?;
                let (trx, _) = undo::parse_undo_key(&k)
                    .ok_or_else(|| TrxError::Corrupt("bad undo key".into()))?;
                max_id = max_id.max(trx);
                if rseg.get(&undo::undo_key(trx, COMMIT_NO))?.is_some() {
                    committed.push(trx);
                } else {
                    active.push(trx);
                }
                from = undo::undo_key(trx + 1, 0);
            }
        }
        let next_id = meta_u64(meta.get(META_NEXT_ID)?)
            .unwrap_or(1)
            .max(max_id + 1);
        let sys = Arc::new(TrxSys::new(next_id));
        let locks = LockSys::new();
        locks
            .detect_deadlocks
            .store(config.deadlock_detect, Ordering::Relaxed);
        let te = Arc::new(TrxEngine {
            engine,
            sys,
            locks,
            meta,
            rsegs,
            trees: RwLock::new(HashMap::new()),
            drop_gate: RwLock::new(()),
            // Committed before the restart: every view sees them (CSN 0).
            history: Mutex::new(committed.into_iter().map(|t| Reverse((0, t))).collect()),
            purging: AtomicUsize::new(0),
            purge_hook: Mutex::new(None),
            recovering: Mutex::new(Vec::new()),
            recovering_left: Mutex::new(0),
            recovered_done: Condvar::new(),
            stop: AtomicBool::new(false),
            purge_wake: (Mutex::new(false), Condvar::new()),
            threads: Mutex::new(Vec::new()),
            config,
            stats: TrxStats::default(),
        });
        // Active at the crash: registered (invisible, their rows locked) before anyone
        // can read or write, rolled back afterwards.
        for trx in active {
            let rw = te.sys.register_recovered(trx);
            for (_, rec) in te.undo_records(trx)? {
                let key = LockKey::entry(rec.space, rec.index, &rec.key);
                te.locks
                    .lock(trx, &key, Mode::X, LockKind::Record, Wait::NoWait, u64::MAX)
                    .map_err(|e| TrxError::Corrupt(format!("recovered lock: {e:?}")))?;
                if matches!(rec.kind, undo::Kind::SecInsert | undo::Kind::SecUpdate) {
                    // And the index value (unique indexes check under its lock). Two
                    // recovered transactions may share a value of a non-unique index:
                    // the second goes without (Skip), which blocks nothing there.
                    let value = match rec.kind {
                        undo::Kind::SecUpdate => Some(rec.before.clone()),
                        _ => match te.tree_if_exists(rec.space, rec.index)? {
                            Some(t) => t.get(&rec.key)?,
                            None => None,
                        },
                    };
                    if let Some(vk) = value
                        .and_then(|v| super::table::value_lock(rec.space, rec.index, &rec.key, &v))
                    {
                        let _ = te
                            .locks
                            .lock(trx, &vk, Mode::X, LockKind::Record, Wait::Skip, 0);
                    }
                }
            }
            te.recovering.lock().push(rw);
            *te.recovering_left.lock() += 1;
        }
        if !te.recovering.lock().is_empty() {
            tracing::info!(
                "rolling back {} transactions left active by the crash",
                te.recovering.lock().len()
            );
            if te.config.background_rollback {
                let t = te.clone();
                te.threads.lock().push(
                    std::thread::Builder::new()
                        .name("kiln-trx-rollback".into())
                        .spawn(move || {
                            if let Err(e) = t.rollback_recovered() {
                                tracing::error!("rolling back recovered transactions: {e}");
                            }
                        })
                        .map_err(|e| TrxError::Corrupt(format!("rollback thread: {e}")))?,
                );
            } else {
                te.rollback_recovered()?;
            }
        }
        for i in 0..te.config.purge_threads {
            let t = Arc::downgrade(&te);
            let h = std::thread::Builder::new()
                .name(format!("kiln-purge-{i}"))
                .spawn(move || purge_loop(t))
                .map_err(|e| TrxError::Corrupt(format!("purge thread: {e}")))?;
            te.threads.lock().push(h);
        }
        Ok(te)
    }

    /// A session: one reader slot, for one connection's transactions in turn.
    pub fn session(self: &Arc<Self>) -> TrxResult<Session> {
        Ok(Session::new(self.clone(), self.sys.reader()?))
    }

    pub(crate) fn rseg(&self, trx: u64) -> &BTree {
        &self.rsegs[(trx % self.rsegs.len() as u64) as usize]
    }

    /// Persists the transaction id high-water mark (`TrxSys::begin_rw`).
    pub(crate) fn persist_next_id(&self, bound: u64) -> TrxResult<()> {
        self.meta.upsert(META_NEXT_ID, &bound.to_be_bytes())?;
        Ok(())
    }

    /// Makes `tree` known by (space, index) to rollback and purge (done by whoever
    /// opens a table; trees not registered are opened from the engine on demand).
    pub fn register_tree(&self, tree: Arc<BTree>) {
        self.trees
            .write()
            .insert((tree.space_id(), tree.index_id()), tree);
    }

    /// Forgets the trees of a tablespace that is being dropped (DROP TABLE).
    pub fn forget_space(&self, space: u32) {
        self.trees.write().retain(|(sp, _), _| *sp != space);
    }

    /// Drops tablespace `space` (DROP TABLE, a temporary table's end) once no purge
    /// or rollback is applying an undo record in it; later ones skip its records.
    /// The caller guarantees that no statement uses its trees any more.
    pub fn drop_space(&self, space: u32) -> Result<(), crate::engine::StorageError> {
        let _no_undo_work = self.drop_gate.write();
        self.forget_space(space);
        self.engine.drop_space(space)
    }

    /// The shared side of `drop_gate`, for one undo record's work.
    pub(crate) fn undo_work(&self) -> parking_lot::RwLockReadGuard<'_, ()> {
        self.drop_gate.read()
    }

    /// The tree (space, index), or None if its tablespace has been dropped: undo of a
    /// dropped table has nothing left to purge or roll back.
    pub(crate) fn tree_if_exists(&self, space: u32, index: u64) -> TrxResult<Option<Arc<BTree>>> {
        if space != 0 && self.engine.space(space).is_none() {
            return Ok(None);
        }
        self.tree(space, index).map(Some)
    }

    pub(crate) fn tree(&self, space: u32, index: u64) -> TrxResult<Arc<BTree>> {
        if let Some(t) = self.trees.read().get(&(space, index)) {
            return Ok(t.clone());
        }
        let sp = self
            .engine
            .space(space)
            .ok_or_else(|| TrxError::Corrupt(format!("undo names missing tablespace {space}")))?;
        let t = self.engine.open_tree(&sp, index)?.ok_or_else(|| {
            TrxError::Corrupt(format!(
                "undo names missing index {index} of tablespace {space}"
            ))
        })?;
        let t = Arc::new(t);
        self.register_tree(t.clone());
        Ok(t)
    }

    /// A transaction's undo records, oldest first (without its commit record).
    pub(crate) fn undo_records(&self, trx: u64) -> TrxResult<Vec<(u64, UndoRec)>> {
        let rseg = self.rseg(trx);
        let (from, to) = (undo::undo_key(trx, 0), undo::undo_key(trx, COMMIT_NO));
        let mut out = Vec::new();
        for r in rseg.range(Bound::Included(&from[..]), Bound::Excluded(&to[..]), false) {
            let (k, v) = r?;
            let (_, no) = undo::parse_undo_key(&k).expect("key inside the range");
            let rec = UndoRec::decode(&v)
                .ok_or_else(|| TrxError::Corrupt(format!("undo record {no} of {trx}")))?;
            out.push((no, rec));
        }
        Ok(out)
    }

    /// Rolls back what the crash left active (`open` does it, in the background by
    /// default). Their rows stay locked until each is rolled back.
    pub fn rollback_recovered(&self) -> TrxResult<()> {
        loop {
            let Some(rw) = self.recovering.lock().pop() else {
                break;
            };
            let recs = self.undo_records(rw.id)?;
            for (no, rec) in recs.iter().rev() {
                undo_one(self, rw.id, *no, rec)?;
                self.rseg(rw.id).delete(&undo::undo_key(rw.id, *no))?;
            }
            let id = rw.id;
            self.sys.rolled_back(rw, true);
            self.locks.release_all(id);
            self.stats.rollbacks.fetch_add(1, Ordering::Relaxed);
            *self.recovering_left.lock() -= 1;
            self.recovered_done.notify_all();
        }
        Ok(())
    }

    /// Waits until the transactions found active at startup are rolled back.
    pub fn wait_recovered(&self) {
        let mut left = self.recovering_left.lock();
        while *left > 0 {
            self.recovered_done
                .wait_for(&mut left, Duration::from_millis(100));
        }
    }

    /// Transactions found active at startup and not rolled back yet.
    pub fn recovering(&self) -> usize {
        *self.recovering_left.lock()
    }

    pub(crate) fn add_history(&self, csn: u64, trx: u64) {
        self.history.lock().push(Reverse((csn, trx)));
        let (m, cv) = &self.purge_wake;
        let mut woken = m.lock();
        if !*woken {
            *woken = true;
            cv.notify_one();
        }
    }

    /// How long a transaction about to write waits because purge lags
    /// (innodb_max_purge_lag): nothing up to the limit, then, as the history grows to
    /// r times the limit, (r − 0.5) × 10 ms, capped by innodb_max_purge_lag_delay —
    /// InnoDB's formula.
    pub fn purge_lag_delay(&self) -> Duration {
        let lag = self.config.max_purge_lag;
        if lag == 0 {
            return Duration::ZERO;
        }
        let ratio = self.history_len() as f64 / lag as f64;
        if ratio <= 1.0 {
            return Duration::ZERO;
        }
        let mut us = ((ratio - 0.5) * 10_000.0) as u64;
        if self.config.max_purge_lag_delay_us > 0 {
            us = us.min(self.config.max_purge_lag_delay_us);
        }
        Duration::from_micros(us)
    }

    /// What every transaction is doing (information_schema.INNODB_TRX-like).
    pub fn transactions(&self) -> Vec<TrxRow> {
        let locks = self.locks.snapshot();
        let mut out: std::collections::BTreeMap<u64, TrxRow> = std::collections::BTreeMap::new();
        for l in &locks {
            let row = out.entry(l.trx).or_insert(TrxRow {
                id: l.trx,
                waiting_for: None,
                locks: 0,
            });
            if l.granted {
                row.locks += 1;
            } else {
                row.waiting_for = Some(l.key.clone());
            }
        }
        out.into_values().collect()
    }

    /// History list length: committed transactions whose undo is not purged yet,
    /// those a purge pass is working on included (InnoDB's count drops only as each
    /// one's undo is freed; `innodb_max_purge_lag` reads it).
    pub fn history_len(&self) -> usize {
        let h = self.history.lock();
        h.len() + self.purging.load(Ordering::Relaxed)
    }

    /// Installs (or removes) a function called with a transaction's id each time
    /// purge starts on it, on the purging thread. For tests that look at the engine
    /// while a purge is in progress.
    pub fn set_purge_hook(&self, hook: Option<PurgeHook>) {
        *self.purge_hook.lock() = hook;
    }

    /// One purge pass: every committed transaction that every read view sees is
    /// purged (delete-marked records it left are removed, its undo freed). Returns how
    /// many transactions were purged.
    pub fn purge(&self) -> TrxResult<usize> {
        let oldest = self.sys.advance_horizons();
        let mut n = 0;
        loop {
            let next = {
                let mut h = self.history.lock();
                match h.peek() {
                    Some(Reverse((csn, _))) if *csn <= oldest => {
                        self.purging.fetch_add(1, Ordering::Relaxed);
                        h.pop().map(|r| r.0.1)
                    }
                    _ => None,
                }
            };
            let Some(trx) = next else { break };
            let hook = self.purge_hook.lock().clone();
            if let Some(hook) = hook {
                hook(trx);
            }
            let purged = self.purge_trx(trx);
            let mut h = self.history.lock();
            self.purging.fetch_sub(1, Ordering::Relaxed);
            if let Err(e) = purged {
                // Back in the list, to try again later.
                h.push(Reverse((0, trx)));
                return Err(e);
            }
            drop(h);
            n += 1;
        }
        Ok(n)
    }

    fn purge_trx(&self, trx: u64) -> TrxResult<()> {
        let rseg = self.rseg(trx);
        let (from, commit) = (undo::undo_key(trx, 0), undo::undo_key(trx, COMMIT_NO));
        let mut records = rseg.range(
            Bound::Included(&from[..]),
            Bound::Excluded(&commit[..]),
            false,
        );
        loop {
            // A batch at a time, its index leaves read ahead in one go: the entries a
            // large DELETE marked sit on random leaves of every index.
            let mut batch = Vec::with_capacity(PURGE_PREFETCH_RECORDS);
            for r in records.by_ref().take(PURGE_PREFETCH_RECORDS) {
                batch.push(r?);
            }
            if batch.is_empty() {
                break;
            }
            self.prefetch_purge_leaves(&batch)?;
            for (k, v) in batch {
                self.purge_record(trx, &k, &v)?;
            }
        }
        // The log goes in one range delete, a leaf at a time (an insert-only
        // transaction's records have nothing else to purge: deleting them one by one
        // was most of purge's work), the commit record included: it has the largest
        // key of the transaction, so it goes last (with the records of the last leaf,
        // in the same mini-transaction, or after them), not in a mini-transaction
        // of its own. A crash before the commit record goes repeats the purge of this
        // transaction, which is idempotent: each step above checks that the entry is
        // still this transaction's version before removing it.
        let mut past_commit = commit.to_vec();
        past_commit.push(0); // undo keys have one length: the commit key's successor
        rseg.delete_range(&from, &past_commit)?;
        self.stats.purged_trx.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Purges one undo record of transaction `trx`: the clustered entry it
    /// delete-marked, or the secondary entry it marked, if still its version.
    fn purge_record(&self, trx: u64, k: &[u8], v: &[u8]) -> TrxResult<()> {
        self.stats.purged_records.fetch_add(1, Ordering::Relaxed);
        // Only delete-marks and secondary changes leave an entry to remove; the
        // rest (inserts above all) go with the range delete below, undecoded.
        let kind = v.first().copied().and_then(undo::Kind::from_u8);
        if !matches!(kind, Some(undo::Kind::DeleteMark | undo::Kind::SecUpdate)) {
            return Ok(());
        }
        let (_, no) = undo::parse_undo_key(k).expect("key inside the range");
        let rec = UndoRec::decode(v)
            .ok_or_else(|| TrxError::Corrupt(format!("undo record {no} of {trx}")))?;
        let _gate = self.undo_work();
        if rec.kind == undo::Kind::DeleteMark
            && let Some(tree) = self.tree_if_exists(rec.space, rec.index)?
        {
            // The entry's gap merges into the next one's: its gap locks go there
            // first, so no insert slips into the merged gap.
            self.inherit_gap_to_next(&tree, &rec.key)?;
            tree.delete_if(&rec.key, |v| {
                row::decode_clustered(v).is_some_and(|e| {
                    e.delete_marked
                        && e.trx_id == trx
                        && undo::parse_roll_ptr(e.roll_ptr) == (no, false)
                })
            })?;
        }
        if rec.kind == undo::Kind::SecUpdate
            && let Some(tree) = self.tree_if_exists(rec.space, rec.index)?
        {
            // A secondary entry this transaction delete-marked goes, unless a
            // later transaction changed it since; its gap locks go to the next.
            if tree
                .get(&rec.key)?
                .is_some_and(|v| super::table::sec_marked_by(&v, trx))
            {
                self.inherit_gap_to_next(&tree, &rec.key)?;
            }
            tree.delete_if(&rec.key, |v| super::table::sec_marked_by(v, trx))?;
        }
        Ok(())
    }

    /// Reads ahead the leaves a batch of undo records will purge, per index in one
    /// batch (best effort: a missing tree or a failed read is left to the purge).
    fn prefetch_purge_leaves(&self, batch: &[(Vec<u8>, Vec<u8>)]) -> TrxResult<()> {
        let mut keys: std::collections::BTreeMap<(u32, u64), Vec<Vec<u8>>> = Default::default();
        for (_, v) in batch {
            let kind = v.first().copied().and_then(undo::Kind::from_u8);
            if !matches!(kind, Some(undo::Kind::DeleteMark | undo::Kind::SecUpdate)) {
                continue;
            }
            if let Some(rec) = UndoRec::decode(v) {
                keys.entry((rec.space, rec.index))
                    .or_default()
                    .push(rec.key.to_vec());
            }
        }
        for ((space, index), keys) in keys {
            if let Some(tree) = self.tree_if_exists(space, index)? {
                tree.prefetch_leaves(&keys);
            }
        }
        Ok(())
    }

    /// Before purge removes the entry `key` of `tree`: its gap locks go to the next
    /// entry (or the supremum).
    fn inherit_gap_to_next(&self, tree: &BTree, key: &[u8]) -> TrxResult<()> {
        let (sp, ix) = (tree.space_id(), tree.index_id());
        let next = match tree
            .range(Bound::Excluded(key), Bound::Unbounded, false)
            .next()
            .transpose()?
        {
            Some((k, _)) => LockKey::entry(sp, ix, &k),
            None => LockKey::supremum(sp, ix),
        };
        self.locks.inherit_gap(&LockKey::entry(sp, ix, key), &next);
        Ok(())
    }

    /// Stops the purge and rollback threads (before the engine shuts down).
    pub fn shutdown(&self) {
        self.stop.store(true, Ordering::Release);
        {
            let (m, cv) = &self.purge_wake;
            *m.lock() = true;
            cv.notify_all();
        }
        let threads: Vec<_> = self.threads.lock().drain(..).collect();
        for t in threads {
            let _ = t.join();
        }
    }
}

/// A purge thread: purges whenever there is history, at most every 10 ms when idle.
fn purge_loop(te: std::sync::Weak<TrxEngine>) {
    loop {
        let Some(t) = te.upgrade() else { return };
        if t.stop.load(Ordering::Acquire) {
            return;
        }
        if let Err(e) = t.purge() {
            tracing::warn!("purge: {e}");
        }
        let (m, cv) = &t.purge_wake;
        let mut woken = m.lock();
        if !*woken {
            cv.wait_for(&mut woken, Duration::from_millis(10));
        }
        *woken = false;
    }
}
