//! The transaction system: transaction ids, commit sequence numbers, which
//! transactions are active, and what read views exist — with no global mutex on any
//! path a reader takes (design: `docs/transactions.md`).
//!
//! - Transaction ids are handed out only to transactions that write (`begin_rw`), from
//!   an atomic counter, and registered in one of `SHARDS` active sets (a mutex each,
//!   taken by writers only). The counter's high-water mark is persisted by the caller
//!   every `ID_BATCH` ids, before any id of the next batch is used.
//! - A commit takes a commit sequence number (CSN) from another atomic counter and
//!   records it in the commit map (trx id → CSN, sharded), marked `COMMITTING` first so
//!   that no reader can take the transaction for active once its CSN exists.
//! - `low`: every transaction id below it is finished (committed or rolled back).
//!   Raised after each finish: min(registered ids, next id read before the scan).
//! - A read view is (low, snapshot CSN, next id) read in that order: three atomic loads
//!   and one store into the reader's own slot — O(1), writing no shared cache line.
//! - After a restart, ids below the restart's first id are committed, except those of
//!   transactions the crash left active (`register_recovered`), which are invisible
//!   until their rollback ends (and, as rolled back, a while after).
//! - `floor`: ids below it are committed and visible to every view — or rolled back
//!   before every view began, so that no reader can hold a version they wrote — and
//!   the commit map may forget them. Raised by `advance_horizons` (purge) from the
//!   oldest snapshot. Rolled-back transactions that wrote are in the map until then.
//!
//! Reader slots: each reader (a session, a purge thread) owns a cache-padded slot
//! holding the snapshot CSN of its current view (`NO_VIEW` without one). Publication is
//! validated (store, then re-read the CSN counter; retry if it moved), and a scan for
//! the oldest snapshot reads the CSN counter before the slots, so a view the scan did
//! not see has a snapshot at least as new as the scan's bound.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use parking_lot::{Mutex, RwLock};

/// Shards of the active sets and of the commit map.
pub const SHARDS: usize = 64;
/// Transaction ids handed out per persisted high-water mark.
pub const ID_BATCH: u64 = 1024;
/// Commit-map value while a commit is taking its CSN.
const COMMITTING: u64 = u64::MAX;
/// Commit-map values with this bit: rolled back, when the CSN counter was at the rest.
/// Kept until every view is newer, because a reader may hold a version of the rolled-
/// back transaction it read before the rollback restored the entry.
const ROLLED_BACK: u64 = 1 << 62;
/// Slot value: no read view.
const NO_VIEW: u64 = u64::MAX;
/// Reader slots (sessions + background threads); `reader` fails beyond this.
pub const READERS_MAX: usize = 65_536;

#[repr(align(128))]
struct Padded<T>(T);

/// Trx id → CSN (or `COMMITTING`) for one shard of the commit map.
type CommitShard = Padded<RwLock<HashMap<u64, u64>>>;

/// A transaction's place in the system while it may write.
#[derive(Debug)]
pub struct RwTrx {
    pub id: u64,
    shard: usize,
}

/// A consistent snapshot: which transactions' changes a reader sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadView {
    /// Ids below are finished and committed before the snapshot (or rolled back).
    pub low: u64,
    /// Commits with a CSN ≤ this are visible.
    pub snapshot: u64,
    /// Ids from here on started after the snapshot: invisible.
    pub next: u64,
    /// The reader's own transaction, if it writes: its changes are visible to it.
    pub own: Option<u64>,
}

/// Errors of the transaction system.
#[derive(Debug, PartialEq, Eq)]
pub enum TrxSysError {
    /// Every reader slot is taken.
    TooManyReaders,
}

pub struct TrxSys {
    next_id: AtomicU64,
    /// `next_id` at startup: ids below it finished before the restart — committed —
    /// except the ones in `recovering` (active at the crash, being rolled back).
    restart_next: u64,
    recovering: RwLock<std::collections::HashSet<u64>>,
    /// Ids below this have a persisted high-water mark covering them.
    id_bound: AtomicU64,
    id_bound_lock: Mutex<()>,
    csn: AtomicU64,
    low: AtomicU64,
    floor: AtomicU64,
    active: Box<[Padded<Mutex<BTreeSet<u64>>>]>,
    commits: Box<[CommitShard]>,
    readers: Box<[Padded<AtomicU64>]>,
    free_readers: Mutex<Vec<usize>>,
    /// One past the highest reader slot ever handed out: `oldest_snapshot` scans only
    /// below it (slots are handed out lowest first, so it stays near the number of
    /// sessions ever open at once, not READERS_MAX).
    readers_high: AtomicUsize,
    next_shard: AtomicUsize,
    /// `next_id` when an index was last bulk-built in this process (0: none since
    /// startup). Bulk-built secondary entries carry trx id 0; only a view taken after
    /// every transaction below this mark finished may trust them without the row.
    bulk_mark: AtomicU64,
}

fn shard_of(id: u64) -> usize {
    (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % SHARDS
}

impl TrxSys {
    /// A transaction system whose next id is `next_id` (the persisted high-water mark
    /// after a restart; every id below it is finished unless registered with
    /// `register_recovered`).
    pub fn new(next_id: u64) -> TrxSys {
        TrxSys {
            next_id: AtomicU64::new(next_id),
            restart_next: next_id,
            recovering: RwLock::new(std::collections::HashSet::new()),
            id_bound: AtomicU64::new(next_id),
            id_bound_lock: Mutex::new(()),
            csn: AtomicU64::new(1),
            low: AtomicU64::new(next_id),
            floor: AtomicU64::new(next_id),
            active: (0..SHARDS)
                .map(|_| Padded(Mutex::new(BTreeSet::new())))
                .collect(),
            commits: (0..SHARDS)
                .map(|_| Padded(RwLock::new(HashMap::new())))
                .collect(),
            readers: (0..READERS_MAX)
                .map(|_| Padded(AtomicU64::new(NO_VIEW)))
                .collect(),
            free_readers: Mutex::new((0..READERS_MAX).rev().collect()),
            readers_high: AtomicUsize::new(0),
            bulk_mark: AtomicU64::new(0),
            next_shard: AtomicUsize::new(0),
        }
    }

    /// A transaction found active in the undo logs at startup (to be rolled back): it
    /// counts as active until `finish`.
    pub fn register_recovered(&self, id: u64) -> RwTrx {
        assert!(id < self.next_id.load(Ordering::Acquire));
        let shard = shard_of(id);
        self.recovering.write().insert(id);
        self.active[shard].0.lock().insert(id);
        self.low.fetch_min(id, Ordering::AcqRel);
        self.floor.fetch_min(id, Ordering::AcqRel);
        RwTrx { id, shard }
    }

    /// Gives a transaction its id when it first writes. `persist(bound)` must durably
    /// record that ids below `bound` may have been used; it runs (at most once per
    /// `ID_BATCH` ids, under a mutex) before any id at or above the old bound is
    /// returned.
    pub fn begin_rw<E>(&self, persist: impl FnOnce(u64) -> Result<(), E>) -> Result<RwTrx, E> {
        let shard = self.next_shard.fetch_add(1, Ordering::Relaxed) % SHARDS;
        let mut set = self.active[shard].0.lock();
        // Allocating under the shard's mutex: a `low` scan that reads this shard before
        // the insert read `next_id` before the allocation (see `raise_low`).
        let id = self.next_id.fetch_add(1, Ordering::AcqRel);
        if id >= self.id_bound.load(Ordering::Acquire) {
            let _one = self.id_bound_lock.lock();
            if id >= self.id_bound.load(Ordering::Acquire) {
                let bound = (id / ID_BATCH + 1) * ID_BATCH;
                // On failure the id is burnt (never used); the next caller tries again.
                persist(bound)?;
                self.id_bound.store(bound, Ordering::Release);
            }
        }
        set.insert(id);
        Ok(RwTrx { id, shard })
    }

    /// Notes that a secondary index was just bulk-built (its entries have trx id 0):
    /// views older than this moment must not trust those entries (`bulk_trusted`).
    pub fn note_bulk_build(&self) {
        self.bulk_mark
            .fetch_max(self.next_id.load(Ordering::Acquire), Ordering::AcqRel);
    }

    /// Whether bulk-built secondary entries (trx id 0) are as `view` would see the
    /// rows: every transaction that existed while any index was last built had
    /// finished before the view was taken.
    pub fn bulk_trusted(&self, view: &ReadView) -> bool {
        view.low >= self.bulk_mark.load(Ordering::Acquire)
    }

    /// The next id that would be handed out (for persisting at shutdown).
    pub fn next_id(&self) -> u64 {
        self.next_id.load(Ordering::Acquire)
    }

    /// Commits `trx`: its changes become visible to views taken from now on. Returns
    /// its CSN. The caller has made the commit durable or requested it (redo), and
    /// still holds its row locks.
    pub fn commit(&self, trx: RwTrx) -> u64 {
        let map = &self.commits[shard_of(trx.id)].0;
        map.write().insert(trx.id, COMMITTING);
        let csn = self.csn.fetch_add(1, Ordering::AcqRel) + 1;
        map.write().insert(trx.id, csn);
        self.finish(trx);
        csn
    }

    /// Ends a rolled-back transaction (no record carries its id any more). `wrote`:
    /// it changed rows (readers may still hold versions it wrote).
    pub fn rolled_back(&self, trx: RwTrx, wrote: bool) {
        if wrote {
            let at = self.csn.load(Ordering::SeqCst);
            self.commits[shard_of(trx.id)]
                .0
                .write()
                .insert(trx.id, ROLLED_BACK | at);
        }
        // After the marker: `visible` looks at `recovering` first, then the map.
        if trx.id < self.restart_next {
            self.recovering.write().remove(&trx.id);
        }
        self.finish(trx);
    }

    fn finish(&self, trx: RwTrx) {
        let removed = self.active[trx.shard].0.lock().remove(&trx.id);
        assert!(removed, "transaction {} was not active", trx.id);
        self.raise_low();
    }

    /// `low` := min(ids registered, `next_id` read before the scan). An id allocated
    /// after the `next_id` read is larger than it; one allocated before is inserted
    /// under its shard's mutex before the scan reads that shard, so the scan sees it.
    fn raise_low(&self) {
        let mut low = self.next_id.load(Ordering::Acquire);
        for s in self.active.iter() {
            if let Some(&first) = s.0.lock().first() {
                low = low.min(first);
            }
        }
        self.low.fetch_max(low, Ordering::AcqRel);
    }

    /// Every id below this is finished.
    pub fn low(&self) -> u64 {
        self.low.load(Ordering::Acquire)
    }

    /// Whether transaction `id` has not finished (its implicit locks — the entries it
    /// inserted — still hold). Decided from `low`, the commit map and the recovering
    /// set: a commit or a rollback of a writer enters the map before it finishes.
    pub fn is_active(&self, id: u64) -> bool {
        if id < self.low.load(Ordering::Acquire) {
            return false;
        }
        if id < self.restart_next {
            return self.recovering.read().contains(&id);
        }
        matches!(
            self.commits[shard_of(id)].0.read().get(&id),
            None | Some(&COMMITTING)
        )
    }

    /// Number of transactions with an id that have not finished.
    pub fn active_count(&self) -> usize {
        self.active.iter().map(|s| s.0.lock().len()).sum()
    }

    /// A reader slot (one per session or background reader).
    pub fn reader(self: &Arc<Self>) -> Result<Reader, TrxSysError> {
        let slot = self
            .free_readers
            .lock()
            .pop()
            .ok_or(TrxSysError::TooManyReaders)?;
        // Before the slot publishes any view: a scan that misses this raise read the
        // counter before this reader's first snapshot, which cannot then be older.
        self.readers_high.fetch_max(slot + 1, Ordering::SeqCst);
        Ok(Reader {
            sys: self.clone(),
            slot,
        })
    }

    /// Whether a change by transaction `id` is visible in `view`.
    pub fn visible(&self, view: &ReadView, id: u64) -> bool {
        if view.own == Some(id) {
            return true;
        }
        if id >= view.next {
            return false;
        }
        if id < view.low || id < self.floor.load(Ordering::Acquire) {
            return true;
        }
        let map = &self.commits[shard_of(id)].0;
        if id < self.restart_next {
            // Finished before the restart (committed: commits are not in the map after
            // a restart), unless the crash left it active — being rolled back, or
            // rolled back since (the marker outlives its place in `recovering`).
            if self.recovering.read().contains(&id) {
                return false;
            }
            return map.read().get(&id).is_none_or(|v| v & ROLLED_BACK == 0);
        }
        loop {
            match map.read().get(&id).copied() {
                // Active or rolled back (its CSN, if any, will be newer than the
                // snapshot) — or forgotten just now by `advance_horizons`, which raises
                // the floor before it removes entries: look at the floor again.
                None => return id < self.floor.load(Ordering::Acquire),
                Some(COMMITTING) => std::thread::yield_now(),
                Some(v) if v & ROLLED_BACK != 0 => return false,
                Some(csn) => return csn <= view.snapshot,
            }
        }
    }

    /// The CSN of a committed transaction still in the commit map.
    pub fn csn_of(&self, id: u64) -> Option<u64> {
        match self.commits[shard_of(id)].0.read().get(&id).copied() {
            Some(c) if c & ROLLED_BACK == 0 => Some(c),
            _ => None,
        }
    }

    /// The oldest snapshot any view may still use: every commit with a CSN at or below
    /// it is visible to every present and future view (purge may remove what only
    /// older views could need).
    pub fn oldest_snapshot(&self) -> u64 {
        // The counter first, then the slots (see the module comment).
        let mut oldest = self.csn.load(Ordering::SeqCst);
        let high = self.readers_high.load(Ordering::SeqCst);
        for r in self.readers[..high].iter() {
            oldest = oldest.min(r.0.load(Ordering::SeqCst));
        }
        oldest
    }

    /// Raises `floor` and forgets commit-map entries below it: ids below `low` whose
    /// commits every view sees. Returns the oldest snapshot used.
    pub fn advance_horizons(&self) -> u64 {
        let low = self.low();
        let oldest = self.oldest_snapshot();
        // The new floor: `low`, unless a finished id below it committed after
        // `oldest` (some view may not see it yet), or was rolled back when a view
        // still open now may have been reading.
        let mut floor = low;
        for s in self.commits.iter() {
            for (&id, &v) in s.0.read().iter() {
                let pending = if v == COMMITTING {
                    true
                } else if v & ROLLED_BACK != 0 {
                    v & !ROLLED_BACK >= oldest
                } else {
                    v > oldest
                };
                if id < floor && pending {
                    floor = id;
                }
            }
        }
        let floor = self.floor.fetch_max(floor, Ordering::AcqRel).max(floor);
        for s in self.commits.iter() {
            s.0.write().retain(|&id, _| id >= floor);
        }
        oldest
    }

    /// Entries in the commit map (for tests and status).
    pub fn commit_map_len(&self) -> usize {
        self.commits.iter().map(|s| s.0.read().len()).sum()
    }
}

/// A reader's slot: publishes the snapshot of its current view.
pub struct Reader {
    sys: Arc<TrxSys>,
    slot: usize,
}

impl Reader {
    /// A new read view (and the end of this reader's previous one). `own`: the
    /// reader's transaction id, if it has one.
    pub fn view(&self, own: Option<u64>) -> ReadView {
        let sys = &self.sys;
        let cell = &sys.readers[self.slot].0;
        // `low` before the snapshot: an id below it finished before the snapshot.
        let low = sys.low.load(Ordering::SeqCst);
        let mut snapshot = sys.csn.load(Ordering::SeqCst);
        loop {
            cell.store(snapshot, Ordering::SeqCst);
            let again = sys.csn.load(Ordering::SeqCst);
            if again == snapshot {
                break;
            }
            snapshot = again;
        }
        // The snapshot before `next`: an id at or above it started after the snapshot.
        let next = sys.next_id.load(Ordering::SeqCst);
        ReadView {
            low,
            snapshot,
            next,
            own,
        }
    }

    /// Ends the current view: purge no longer keeps versions for it.
    pub fn close_view(&self) {
        self.sys.readers[self.slot]
            .0
            .store(NO_VIEW, Ordering::Release);
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.close_view();
        self.sys.free_readers.lock().push(self.slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    fn begin(sys: &TrxSys) -> RwTrx {
        sys.begin_rw(|_| Ok::<(), Infallible>(())).unwrap()
    }

    #[test]
    fn visibility_follows_commit_order_not_id_order() {
        let sys = Arc::new(TrxSys::new(100));
        let r = sys.reader().unwrap();
        let a = begin(&sys);
        let b = begin(&sys);
        let (a_id, b_id) = (a.id, b.id);
        assert_eq!((a_id, b_id), (100, 101));
        let v0 = r.view(None);
        assert!(!sys.visible(&v0, a_id) && !sys.visible(&v0, b_id));
        sys.commit(b);
        let v1 = r.view(None);
        assert!(sys.visible(&v1, b_id), "b committed before v1");
        assert!(!sys.visible(&v1, a_id), "a still active");
        assert!(!sys.visible(&v0, b_id), "v0 predates b's commit");
        sys.commit(a);
        assert!(!sys.visible(&v1, a_id), "a committed after v1");
        let v2 = r.view(None);
        assert!(sys.visible(&v2, a_id) && sys.visible(&v2, b_id));
        assert_eq!(sys.low(), 102);
        let own = begin(&sys);
        let v3 = r.view(Some(own.id));
        assert!(sys.visible(&v3, own.id));
        assert!(!sys.visible(&v2, own.id), "started after v2");
        sys.rolled_back(own, false);
        assert_eq!(sys.active_count(), 0);
    }

    #[test]
    fn ids_are_persisted_a_batch_ahead() {
        let sys = TrxSys::new(ID_BATCH - 2);
        let mut bounds = Vec::new();
        for _ in 0..(ID_BATCH + 4) {
            let t = sys
                .begin_rw(|b| {
                    bounds.push(b);
                    Ok::<(), Infallible>(())
                })
                .unwrap();
            sys.rolled_back(t, false);
        }
        assert_eq!(bounds, vec![ID_BATCH, 2 * ID_BATCH, 3 * ID_BATCH]);
        // A failed persist burns the id and fails the begin; the next one retries.
        let sys = TrxSys::new(0);
        assert!(sys.begin_rw(|_| Err("disk full")).is_err());
        let t = sys.begin_rw(|_| Ok::<(), &str>(())).unwrap();
        assert_eq!(t.id, 1);
    }

    #[test]
    fn horizons_keep_what_old_views_need() {
        let sys = Arc::new(TrxSys::new(10));
        let r = sys.reader().unwrap();
        let old = r.view(None);
        let r2 = sys.reader().unwrap();
        let a = begin(&sys);
        let a_id = a.id;
        sys.commit(a);
        // `old` does not see a: a's entry must stay, and the floor stay at or below a.
        let oldest = sys.advance_horizons();
        assert_eq!(oldest, old.snapshot);
        assert!(!sys.visible(&old, a_id));
        assert_eq!(sys.commit_map_len(), 1);
        // Once the old view is gone, a is below the floor and forgotten.
        r.close_view();
        let v = r2.view(None);
        sys.advance_horizons();
        assert_eq!(sys.commit_map_len(), 0);
        assert!(sys.visible(&v, a_id));
        drop(r);
        drop(r2);
        assert_eq!(sys.oldest_snapshot(), sys.csn.load(Ordering::SeqCst));
    }

    #[test]
    fn after_a_restart_only_recovered_transactions_are_invisible() {
        let sys = Arc::new(TrxSys::new(100));
        let rec = sys.register_recovered(40);
        let r = sys.reader().unwrap();
        let v = r.view(None);
        assert!(!sys.visible(&v, 40), "active at the crash");
        assert!(
            sys.visible(&v, 41),
            "committed before the crash, above a recovered id"
        );
        assert!(sys.visible(&v, 39));
        sys.rolled_back(rec, true);
        assert!(!sys.visible(&v, 40), "rolled back after the view began");
        let c = begin(&sys);
        sys.commit(c);
        r.close_view();
        let v2 = r.view(None);
        assert!(sys.visible(&v2, 41));
    }

    #[test]
    fn rolled_back_writers_stay_invisible_to_views_that_predate_the_rollback() {
        let sys = Arc::new(TrxSys::new(10));
        let r = sys.reader().unwrap();
        let t = begin(&sys);
        let id = t.id;
        let v = r.view(None);
        // A reader of `v` may hold a version `t` wrote, read before the rollback.
        sys.rolled_back(t, true);
        let c = begin(&sys);
        sys.commit(c);
        sys.advance_horizons();
        assert!(
            !sys.visible(&v, id),
            "the floor must not pass a rollback `v` may see"
        );
        // Once every view is newer than the rollback, it is forgotten.
        r.close_view();
        let c = begin(&sys);
        sys.commit(c);
        sys.advance_horizons();
        assert_eq!(sys.commit_map_len(), 0);
    }

    /// Writers commit transactions that each move one unit between two counters kept
    /// as (id → value) "versions"; readers take views and check that the visible
    /// total never changes. Models the visibility rule, not the storage.
    #[test]
    fn concurrent_views_see_consistent_commits() {
        let sys = Arc::new(TrxSys::new(1));
        // Per account, the versions (writer id, value), newest last.
        type Versions = Mutex<Vec<(u64, i64)>>;
        let accounts: Arc<Vec<Versions>> =
            Arc::new((0..8).map(|_| Mutex::new(vec![(0, 100)])).collect());
        let writers: Vec<_> = (0..2u64)
            .map(|w| {
                let (sys, acc) = (sys.clone(), accounts.clone());
                std::thread::spawn(move || {
                    let mut rng = crate::rng::Rng(w + 7);
                    for _ in 0..3000 {
                        let from = rng.below(8) as usize;
                        let to = (from + 1 + rng.below(7) as usize) % 8;
                        let (lo, hi) = (from.min(to), from.max(to));
                        // Lock both accounts in order (row locks stand-in).
                        let mut a = acc[lo].lock();
                        let mut b = acc[hi].lock();
                        let t = begin(&sys);
                        let (va, vb) = (a.last().unwrap().1, b.last().unwrap().1);
                        let amount = if lo == from { 1 } else { -1 };
                        a.push((t.id, va - amount));
                        b.push((t.id, vb + amount));
                        if rng.below(5) == 0 {
                            a.pop();
                            b.pop();
                            sys.rolled_back(t, true);
                        } else {
                            sys.commit(t);
                        }
                        if rng.below(50) == 0 {
                            sys.advance_horizons();
                        }
                    }
                })
            })
            .collect();
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (sys, acc) = (sys.clone(), accounts.clone());
                std::thread::spawn(move || {
                    let r = sys.reader().unwrap();
                    for _ in 0..2000 {
                        let v = r.view(None);
                        let total: i64 = acc
                            .iter()
                            .map(|a| {
                                let versions = a.lock();
                                versions
                                    .iter()
                                    .rev()
                                    .find(|(id, _)| *id == 0 || sys.visible(&v, *id))
                                    .unwrap()
                                    .1
                            })
                            .sum();
                        assert_eq!(total, 800, "a view saw a partial transfer");
                    }
                })
            })
            .collect();
        for h in writers.into_iter().chain(readers) {
            h.join().unwrap();
        }
        assert_eq!(sys.active_count(), 0);
    }
}
