//! Row locks: a lock table sharded by the locked key (no global latch on the path
//! that takes or releases a lock), FIFO queues per key, waits with a timeout, and
//! deadlock detection that rolls back the cheaper transaction of a cycle.
//!
//! A lock is held by a transaction id on a `LockKey` (tablespace, index, entry key —
//! or the index's supremum, the gap after its last entry), in mode S or X, of a kind:
//! the entry only (`Record`), the gap before it (`Gap`), both (`NextKey`), or an
//! insert's intention to put a new entry in the gap before it (`InsertIntention`).
//! Whether a request must wait for another transaction's lock (`has_to_wait`, InnoDB's
//! rules): modes must be incompatible (S–S is compatible), and then
//! - a gap request (a `Gap`, or anything on the supremum) never waits, unless it is
//!   an insert intention: gap locks only keep inserts out;
//! - nothing but an insert intention waits for a `Gap` lock;
//! - a `Record` request does not wait for the gap part of a `NextKey` lock either;
//! - nothing waits for an insert intention.
//!
//! A request waits for such locks granted or still waiting ahead of it, so a stream of
//! S requests cannot starve a waiting X. A transaction that holds S and asks for X
//! waits for the other S holders.
//!
//! Waits: the requester records what it waits for in `waiting` (trx → key, mode,
//! weight), then runs deadlock detection (one detector at a time, `detect`): a breadth-
//! first walk of the waits-for graph, computed from the queues (the shortest cycle). If it finds a
//! cycle back to the requester, the transaction of the cycle with the smallest weight
//! (undo records + locks, as InnoDB) is the victim: if that is the requester, its
//! request fails with `Deadlock`; otherwise the victim's wait is ended with
//! `Deadlock` and the requester keeps waiting. A walk longer than `DETECT_STEPS_MAX`
//! counts as a deadlock (InnoDB does the same with its search limits).
//!
//! Lock order: a shard mutex, then `waiting`, then a waiter's state mutex. Two shard
//! mutexes are held together only by `lock_pair`, in shard order. The detector
//! (under `detect`) takes `waiting` and shard mutexes one at a time, never `waiting`
//! while holding a shard or the other way round, except `waiting` → a waiter's
//! state to end the victim's wait.
//!
//! Every deadlock found is described (`DeadlockReport`: the cycle, what each
//! transaction waits for and holds, the victim) for SHOW ENGINE INNODB STATUS.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

mod deadlock;
pub use deadlock::{DeadlockReport, DeadlockTrx};

/// Shards of the lock table.
const SHARDS: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    S,
    X,
}

impl Mode {
    fn compatible(self, other: Mode) -> bool {
        self == Mode::S && other == Mode::S
    }
    fn covers(self, want: Mode) -> bool {
        self == Mode::X || want == Mode::S
    }
}

/// What is locked: an entry of an index, by its key, or the index's supremum.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LockKey {
    pub space: u32,
    pub index: u64,
    pub key: Vec<u8>,
    /// The supremum: the gap after the last entry (`key` is empty).
    pub sup: bool,
}

impl LockKey {
    pub fn entry(space: u32, index: u64, key: &[u8]) -> LockKey {
        LockKey {
            space,
            index,
            key: key.to_vec(),
            sup: false,
        }
    }
    pub fn supremum(space: u32, index: u64) -> LockKey {
        LockKey {
            space,
            index,
            key: Vec::new(),
            sup: true,
        }
    }
}

/// What part of an entry (or of the gap before it) a lock covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The entry only (InnoDB's LOCK_REC_NOT_GAP).
    Record,
    /// The gap before the entry only (LOCK_GAP).
    Gap,
    /// The entry and the gap before it (LOCK_ORDINARY).
    NextKey,
    /// An insert about to put an entry into the gap before this one.
    InsertIntention,
}

impl Kind {
    fn covers(self, want: Kind) -> bool {
        match self {
            Kind::NextKey => want != Kind::InsertIntention,
            Kind::Record => want == Kind::Record,
            Kind::Gap => want == Kind::Gap,
            Kind::InsertIntention => false,
        }
    }
}

/// How to behave when the lock is taken by another transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Wait up to this long (innodb_lock_wait_timeout).
    Block(Duration),
    /// Fail at once (NOWAIT).
    NoWait,
    /// Report that the row is locked (SKIP LOCKED).
    Skip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockError {
    /// Chosen as a deadlock victim: the transaction must roll back (1213).
    Deadlock,
    /// Waited longer than the timeout (1205).
    Timeout,
    /// The row is locked and the request said NOWAIT (3572).
    NoWait,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquired {
    Granted,
    /// `Wait::Skip` and the row is locked by another transaction.
    Skipped,
}

#[derive(Debug, Clone, Copy)]
struct Req {
    trx: u64,
    mode: Mode,
    kind: Kind,
    granted: bool,
}

/// Whether a request (mode, kind) on a key (`sup`: the supremum) must wait for
/// another transaction's lock `other` on the same key (InnoDB's
/// `lock_rec_has_to_wait`; module comment).
fn has_to_wait(mode: Mode, kind: Kind, sup: bool, other: &Req) -> bool {
    let ii = kind == Kind::InsertIntention;
    if mode.compatible(other.mode) {
        return false;
    }
    // Gap requests never wait (gap locks only keep inserts out) — except inserts.
    if (kind == Kind::Gap || sup) && !ii {
        return false;
    }
    // Only inserts wait for gap-only locks.
    if !ii && other.kind == Kind::Gap {
        return false;
    }
    // An insert waits for gaps, not for record-only locks; nothing waits for an
    // insert intention.
    if ii && other.kind == Kind::Record {
        return false;
    }
    other.kind != Kind::InsertIntention
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum WaitState {
    Waiting,
    Granted,
    Deadlock,
}

struct Waiter {
    state: Mutex<WaitState>,
    cv: Condvar,
}

#[repr(align(128))]
struct Shard(Mutex<HashMap<LockKey, Vec<Req>>>);

type ShardGuard<'a> = parking_lot::MutexGuard<'a, HashMap<LockKey, Vec<Req>>>;

/// What a waiting transaction waits for.
struct WaitInfo {
    key: LockKey,
    weight: u64,
    waiter: Arc<Waiter>,
}

/// One row of a lock listing (performance_schema.data_locks-like).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockRow {
    pub trx: u64,
    pub key: LockKey,
    pub mode: Mode,
    pub kind: Kind,
    pub granted: bool,
}

/// Counters: Innodb_row_lock_waits, _time, _deadlocks.
#[derive(Default)]
pub struct LockStats {
    pub waits: std::sync::atomic::AtomicU64,
    pub wait_us: std::sync::atomic::AtomicU64,
    pub deadlocks: std::sync::atomic::AtomicU64,
    pub timeouts: std::sync::atomic::AtomicU64,
}

/// Per transaction: the keys it holds locks on (sharded by transaction id), so that
/// locks it did not ask for — gap locks inherited when an entry is inserted into or
/// purged from a locked gap — are released with the rest.
#[repr(align(128))]
struct Owned(Mutex<HashMap<u64, std::collections::HashSet<LockKey>>>);

pub struct LockSys {
    shards: Box<[Shard]>,
    owned: Box<[Owned]>,
    waiting: Mutex<HashMap<u64, WaitInfo>>,
    detect: Mutex<()>,
    latest_deadlock: Mutex<Option<DeadlockReport>>,
    /// innodb_deadlock_detect: off, waits end only by timeout.
    pub detect_deadlocks: std::sync::atomic::AtomicBool,
    pub stats: LockStats,
}

impl Default for LockSys {
    fn default() -> Self {
        Self::new()
    }
}

/// The transactions whose requests among the first `upto` of `queue` block a
/// request (trx, mode, kind) on a key (`sup`: the supremum).
fn conflicts(queue: &[Req], trx: u64, mode: Mode, kind: Kind, sup: bool, upto: usize) -> Vec<u64> {
    let mut out: Vec<u64> = queue[..upto]
        .iter()
        .filter(|r| r.trx != trx && has_to_wait(mode, kind, sup, r))
        .map(|r| r.trx)
        .collect();
    out.dedup();
    out
}

impl LockSys {
    pub fn new() -> LockSys {
        LockSys {
            shards: (0..SHARDS)
                .map(|_| Shard(Mutex::new(HashMap::new())))
                .collect(),
            owned: (0..64).map(|_| Owned(Mutex::new(HashMap::new()))).collect(),
            waiting: Mutex::new(HashMap::new()),
            detect: Mutex::new(()),
            latest_deadlock: Mutex::new(None),
            detect_deadlocks: std::sync::atomic::AtomicBool::new(true),
            stats: LockStats::default(),
        }
    }

    fn shard_no(key: &LockKey) -> usize {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut h);
        (h.finish() as usize) % SHARDS
    }

    fn shard(&self, key: &LockKey) -> &Mutex<HashMap<LockKey, Vec<Req>>> {
        &self.shards[Self::shard_no(key)].0
    }

    /// Records that `trx` holds a lock on `key` (taken after any shard mutex).
    fn note_owned(&self, trx: u64, key: &LockKey) {
        self.owned[(trx % 64) as usize]
            .0
            .lock()
            .entry(trx)
            .or_default()
            .insert(key.clone());
    }

    /// Number of keys `trx` holds locks on.
    pub fn held_by(&self, trx: u64) -> usize {
        self.owned[(trx % 64) as usize]
            .0
            .lock()
            .get(&trx)
            .map_or(0, |s| s.len())
    }

    /// The mutexes of two keys' shards, taken in shard order (one if they share it),
    /// returned as (a's, b's — None if the same).
    fn lock_pair<'a>(
        &'a self,
        a: &LockKey,
        b: &LockKey,
    ) -> (ShardGuard<'a>, Option<ShardGuard<'a>>) {
        let (i, j) = (Self::shard_no(a), Self::shard_no(b));
        if i == j {
            return (self.shards[i].0.lock(), None);
        }
        if i < j {
            let ga = self.shards[i].0.lock();
            (ga, Some(self.shards[j].0.lock()))
        } else {
            let gb = self.shards[j].0.lock();
            (self.shards[i].0.lock(), Some(gb))
        }
    }

    /// Locks `key` for `trx` in `mode` and `kind`. `weight` ranks `trx` as a
    /// deadlock victim (its undo records + locks held: the smaller rolls back).
    pub fn lock(
        &self,
        trx: u64,
        key: &LockKey,
        mode: Mode,
        kind: Kind,
        wait: Wait,
        weight: u64,
    ) -> Result<Acquired, LockError> {
        let waiter = {
            let mut shard = self.shard(key).lock();
            if let Some(a) = Self::try_grant(&mut shard, trx, key, mode, kind) {
                drop(shard);
                self.note_owned(trx, key);
                return Ok(a);
            }
            let queue = shard.get_mut(key).expect("try_grant made the queue");
            let timeout = match wait {
                Wait::NoWait => return Err(LockError::NoWait),
                Wait::Skip => return Ok(Acquired::Skipped),
                Wait::Block(t) => t,
            };
            queue.push(Req {
                trx,
                mode,
                kind,
                granted: false,
            });
            let waiter = Arc::new(Waiter {
                state: Mutex::new(WaitState::Waiting),
                cv: Condvar::new(),
            });
            self.waiting.lock().insert(
                trx,
                WaitInfo {
                    key: key.clone(),
                    weight,
                    waiter: waiter.clone(),
                },
            );
            (waiter, timeout)
        };
        let (waiter, timeout) = waiter;
        self.stats
            .waits
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let started = Instant::now();
        if self
            .detect_deadlocks
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            self.detect(trx);
        }
        let deadline = started + timeout;
        let outcome = {
            let _wait = kiln_common::wait::begin(kiln_common::wait::WaitKind::RowLock);
            let mut st = waiter.state.lock();
            while *st == WaitState::Waiting {
                if waiter.cv.wait_until(&mut st, deadline).timed_out() {
                    break;
                }
            }
            *st
        };
        self.stats.wait_us.fetch_add(
            started.elapsed().as_micros() as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        self.waiting.lock().remove(&trx);
        match outcome {
            WaitState::Granted => {
                self.note_owned(trx, key);
                Ok(Acquired::Granted)
            }
            WaitState::Deadlock => {
                if self.cancel(trx, key) {
                    // Granted in the meantime: no longer waiting, so no longer in a
                    // cycle.
                    self.note_owned(trx, key);
                    return Ok(Acquired::Granted);
                }
                self.stats
                    .deadlocks
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Err(LockError::Deadlock)
            }
            WaitState::Waiting => {
                // Timed out — unless the grant raced in after the wait ended.
                if self.cancel(trx, key) {
                    self.note_owned(trx, key);
                    return Ok(Acquired::Granted);
                }
                self.stats
                    .timeouts
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Err(LockError::Timeout)
            }
        }
    }

    /// Grants at once if nothing blocks the request (or `trx` already holds a lock that
    /// covers it); None: it would have to wait.
    fn try_grant(
        shard: &mut HashMap<LockKey, Vec<Req>>,
        trx: u64,
        key: &LockKey,
        mode: Mode,
        kind: Kind,
    ) -> Option<Acquired> {
        let queue = shard.entry(key.clone()).or_default();
        if queue
            .iter()
            .any(|r| r.trx == trx && r.granted && r.mode.covers(mode) && r.kind.covers(kind))
        {
            return Some(Acquired::Granted);
        }
        if conflicts(queue, trx, mode, kind, key.sup, queue.len()).is_empty() {
            queue.push(Req {
                trx,
                mode,
                kind,
                granted: true,
            });
            return Some(Acquired::Granted);
        }
        None
    }

    /// Withdraws `trx`'s waiting request on `key`; true if it had been granted after
    /// all (then it stays).
    fn cancel(&self, trx: u64, key: &LockKey) -> bool {
        let mut shard = self.shard(key).lock();
        let Some(queue) = shard.get_mut(key) else {
            return false;
        };
        if let Some(i) = queue.iter().position(|r| r.trx == trx && !r.granted) {
            queue.remove(i);
            self.grant_waiters(queue, key.sup);
            if queue.is_empty() {
                shard.remove(key);
            }
            return false;
        }
        queue.iter().any(|r| r.trx == trx && r.granted)
    }

    /// Grants, in queue order, every waiting request that no earlier request blocks.
    fn grant_waiters(&self, queue: &mut [Req], sup: bool) {
        for i in 0..queue.len() {
            if queue[i].granted {
                continue;
            }
            let (trx, mode, kind) = (queue[i].trx, queue[i].mode, queue[i].kind);
            if conflicts(queue, trx, mode, kind, sup, i).is_empty() {
                queue[i].granted = true;
                if let Some(w) = self.waiting.lock().get(&trx) {
                    *w.waiter.state.lock() = WaitState::Granted;
                    w.waiter.cv.notify_all();
                }
            }
        }
    }

    /// Releases every lock `trx` holds, waking waiters.
    pub fn release_all(&self, trx: u64) {
        let keys = self.owned[(trx % 64) as usize]
            .0
            .lock()
            .remove(&trx)
            .unwrap_or_default();
        for key in &keys {
            let mut shard = self.shard(key).lock();
            let Some(queue) = shard.get_mut(key) else {
                continue;
            };
            queue.retain(|r| r.trx != trx);
            self.grant_waiters(queue, key.sup);
            if queue.is_empty() {
                shard.remove(key);
            }
        }
    }

    /// Makes `owner`'s implicit X lock on `key` — it inserted the entry and has not
    /// finished — an explicit one, so that others can queue behind it. `active` is
    /// asked under `owner`'s lock list: its `release_all`, which follows its end,
    /// either sees the new lock or happens after `active` turned false.
    pub fn convert_implicit(&self, owner: u64, key: &LockKey, active: impl Fn() -> bool) {
        let mut shard = self.shard(key).lock();
        let mut owned = self.owned[(owner % 64) as usize].0.lock();
        if !active() {
            return;
        }
        let q = shard.entry(key.clone()).or_default();
        let held = q.iter().any(|r| {
            r.trx == owner && r.granted && r.mode == Mode::X && r.kind.covers(Kind::Record)
        });
        if !held {
            // At the front: it was held before anyone queued.
            q.insert(
                0,
                Req {
                    trx: owner,
                    mode: Mode::X,
                    kind: Kind::Record,
                    granted: true,
                },
            );
            owned.entry(owner).or_default().insert(key.clone());
        }
    }

    /// Runs `insert` (putting `new` into the gap before `next`) once no other
    /// transaction's gap lock on `next` keeps inserts out, waiting like `lock` for an
    /// insert intention until then. The check and `insert` happen under the mutexes of
    /// both keys' shards, so no gap lock can be granted on `next` in between; and the
    /// gap locks `trx` itself holds on `next` then cover the gap before `new` too (the
    /// gap was split in two). Nothing else may be locked inside `insert`.
    pub fn insert_with<R>(
        &self,
        trx: u64,
        next: &LockKey,
        new: &LockKey,
        wait: Wait,
        weight: u64,
        insert: impl FnOnce() -> R,
    ) -> Result<R, LockError> {
        let mut insert = Some(insert);
        loop {
            if let Some(r) = self.try_insert(trx, next, new, &mut insert) {
                return Ok(r);
            }
            // Blocked: wait for an insert intention like any lock, then check again.
            if self.lock(trx, next, Mode::X, Kind::InsertIntention, wait, weight)?
                == Acquired::Skipped
            {
                return Err(LockError::NoWait);
            }
        }
    }

    /// `insert_with`'s check-and-insert; None (and `insert` not run) if blocked.
    fn try_insert<R, F: FnOnce() -> R>(
        &self,
        trx: u64,
        next: &LockKey,
        new: &LockKey,
        insert: &mut Option<F>,
    ) -> Option<R> {
        let (mut g1, mut g2) = self.lock_pair(next, new);
        let next_map: &mut HashMap<LockKey, Vec<Req>> = &mut g1;
        let mut gaps = Vec::new();
        if let Some(q) = next_map.get_mut(next) {
            if !conflicts(q, trx, Mode::X, Kind::InsertIntention, next.sup, q.len()).is_empty() {
                return None;
            }
            gaps = q
                .iter()
                .filter(|r| {
                    r.trx == trx && r.granted && matches!(r.kind, Kind::Gap | Kind::NextKey)
                })
                .map(|r| r.mode)
                .collect();
            // Our own insert intention, if we waited for one, is done with.
            q.retain(|r| !(r.trx == trx && r.kind == Kind::InsertIntention));
            if q.is_empty() {
                next_map.remove(next);
            }
        }
        let r = (insert.take().expect("inserted once"))();
        if !gaps.is_empty() {
            let new_map: &mut HashMap<LockKey, Vec<Req>> = match &mut g2 {
                Some(g) => g,
                None => &mut g1,
            };
            let q = new_map.entry(new.clone()).or_default();
            for mode in gaps {
                q.push(Req {
                    trx,
                    mode,
                    kind: Kind::Gap,
                    granted: true,
                });
            }
            drop((g1, g2));
            self.note_owned(trx, new);
        }
        Some(r)
    }

    /// Before `from` leaves the index (purge), the gap locks on it (gap or next-key,
    /// granted) are copied onto `to`, the entry after it (or the supremum), as gap
    /// locks: the gap before `to` now includes the one before `from`.
    pub fn inherit_gap(&self, from: &LockKey, to: &LockKey) {
        let mut noted = Vec::new();
        {
            let (mut g1, mut g2) = self.lock_pair(from, to);
            let from_map: &mut HashMap<LockKey, Vec<Req>> = &mut g1;
            let gaps: Vec<(u64, Mode)> = from_map
                .get(from)
                .map(|q| {
                    q.iter()
                        .filter(|r| r.granted && matches!(r.kind, Kind::Gap | Kind::NextKey))
                        .map(|r| (r.trx, r.mode))
                        .collect()
                })
                .unwrap_or_default();
            if gaps.is_empty() {
                return;
            }
            let to_map: &mut HashMap<LockKey, Vec<Req>> = match &mut g2 {
                Some(g) => g,
                None => &mut g1,
            };
            let q = to_map.entry(to.clone()).or_default();
            for (trx, mode) in gaps {
                let held = q.iter().any(|r| {
                    r.trx == trx && r.granted && r.mode.covers(mode) && r.kind.covers(Kind::Gap)
                });
                if !held {
                    q.push(Req {
                        trx,
                        mode,
                        kind: Kind::Gap,
                        granted: true,
                    });
                    noted.push(trx);
                }
            }
        }
        for trx in noted {
            self.note_owned(trx, to);
        }
    }

    /// Every lock and request, for introspection (data_locks, INNODB_TRX).
    pub fn snapshot(&self) -> Vec<LockRow> {
        let mut out = Vec::new();
        for s in self.shards.iter() {
            for (key, queue) in s.0.lock().iter() {
                out.extend(queue.iter().map(|r| LockRow {
                    trx: r.trx,
                    key: key.clone(),
                    mode: r.mode,
                    kind: r.kind,
                    granted: r.granted,
                }));
            }
        }
        out
    }

    /// The transaction `trx` waits for a lock on this key, if it does.
    pub fn waits_for(&self, trx: u64) -> Option<LockKey> {
        self.waiting.lock().get(&trx).map(|w| w.key.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn k(n: u8) -> LockKey {
        LockKey::entry(1, 1, &[n])
    }
    const LONG: Wait = Wait::Block(Duration::from_secs(20));

    #[test]
    fn shared_and_exclusive_compatibility() {
        let l = LockSys::new();
        assert_eq!(
            l.lock(1, &k(1), Mode::S, Kind::Record, LONG, 0),
            Ok(Acquired::Granted)
        );
        assert_eq!(
            l.lock(2, &k(1), Mode::S, Kind::Record, LONG, 0),
            Ok(Acquired::Granted)
        );
        assert_eq!(
            l.lock(3, &k(1), Mode::X, Kind::Record, Wait::NoWait, 0),
            Err(LockError::NoWait)
        );
        assert_eq!(
            l.lock(3, &k(1), Mode::X, Kind::Record, Wait::Skip, 0),
            Ok(Acquired::Skipped)
        );
        assert_eq!(
            l.lock(3, &k(2), Mode::X, Kind::Record, Wait::NoWait, 0),
            Ok(Acquired::Granted)
        );
        assert_eq!(
            l.lock(3, &k(2), Mode::S, Kind::Record, Wait::NoWait, 0),
            Ok(Acquired::Granted),
            "X covers S"
        );
        // Upgrading S to X waits for the other S holder.
        assert_eq!(
            l.lock(1, &k(1), Mode::X, Kind::Record, Wait::NoWait, 0),
            Err(LockError::NoWait)
        );
        l.release_all(2);
        assert_eq!(
            l.lock(1, &k(1), Mode::X, Kind::Record, Wait::NoWait, 0),
            Ok(Acquired::Granted)
        );
        l.release_all(1);
        l.release_all(3);
        assert!(l.snapshot().is_empty());
    }

    #[test]
    fn gap_locks_only_keep_inserts_out() {
        let l = LockSys::new();
        let nw = Wait::NoWait;
        // Gap locks of any mode coexist; record requests ignore them.
        assert!(l.lock(1, &k(5), Mode::X, Kind::Gap, nw, 0).is_ok());
        assert!(l.lock(2, &k(5), Mode::S, Kind::Gap, nw, 0).is_ok());
        assert!(l.lock(3, &k(5), Mode::X, Kind::Record, nw, 0).is_ok());
        // An insert into the gap waits for the others' gap locks…
        assert_eq!(
            l.lock(4, &k(5), Mode::X, Kind::InsertIntention, nw, 0),
            Err(LockError::NoWait)
        );
        // …but not for a record-only lock, nor for its own gap lock.
        l.release_all(2);
        assert_eq!(
            l.lock(1, &k(5), Mode::X, Kind::InsertIntention, nw, 0),
            Ok(Acquired::Granted)
        );
        // A next-key request waits for another's record lock (the record part)…
        assert_eq!(
            l.lock(4, &k(5), Mode::S, Kind::NextKey, nw, 0),
            Err(LockError::NoWait)
        );
        // …and nothing waits for an insert intention.
        assert_eq!(
            l.lock(4, &k(5), Mode::S, Kind::Gap, nw, 0),
            Ok(Acquired::Granted)
        );
        // The supremum only has a gap: next-key on it behaves as a gap lock.
        let sup = LockKey::supremum(1, 1);
        assert!(l.lock(5, &sup, Mode::X, Kind::NextKey, nw, 0).is_ok());
        assert!(l.lock(6, &sup, Mode::X, Kind::NextKey, nw, 0).is_ok());
        assert_eq!(
            l.lock(7, &sup, Mode::X, Kind::InsertIntention, nw, 0),
            Err(LockError::NoWait)
        );
        for t in 1..=7 {
            l.release_all(t);
        }
        assert!(l.snapshot().is_empty());
    }

    #[test]
    fn inserts_wait_for_gap_holders_and_split_their_own_gaps() {
        let l = Arc::new(LockSys::new());
        l.lock(1, &k(9), Mode::S, Kind::NextKey, LONG, 0).unwrap();
        // Transaction 2 inserts 5 into the gap before 9: waits for transaction 1.
        let inserted = Arc::new(AtomicUsize::new(0));
        let h = {
            let (l, inserted) = (l.clone(), inserted.clone());
            std::thread::spawn(move || {
                l.insert_with(2, &k(9), &k(5), LONG, 0, || {
                    inserted.store(1, Ordering::SeqCst)
                })
                .unwrap();
            })
        };
        while l.waits_for(2).is_none() {
            std::thread::yield_now();
        }
        assert_eq!(inserted.load(Ordering::SeqCst), 0);
        l.release_all(1);
        h.join().unwrap();
        assert_eq!(inserted.load(Ordering::SeqCst), 1);
        assert!(
            l.snapshot().iter().all(|r| r.kind != Kind::InsertIntention),
            "the insert intention is gone once the insert is done"
        );
        // Inserting into one's own locked gap: the new entry's gap stays locked too.
        l.lock(3, &k(9), Mode::X, Kind::Gap, LONG, 0).unwrap();
        l.insert_with(3, &k(9), &k(7), LONG, 0, || ()).unwrap();
        assert_eq!(
            l.lock(4, &k(7), Mode::X, Kind::InsertIntention, Wait::NoWait, 0),
            Err(LockError::NoWait),
            "the gap below the new entry 7 is transaction 3's"
        );
        // Purge removing 7 hands its gap locks to 9.
        l.release_all(3);
        l.lock(5, &k(7), Mode::S, Kind::NextKey, LONG, 0).unwrap();
        l.inherit_gap(&k(7), &k(9));
        assert_eq!(
            l.lock(6, &k(9), Mode::X, Kind::InsertIntention, Wait::NoWait, 0),
            Err(LockError::NoWait)
        );
        l.release_all(5);
        assert_eq!(
            l.lock(6, &k(9), Mode::X, Kind::InsertIntention, Wait::NoWait, 0),
            Ok(Acquired::Granted),
            "inherited locks are released with the rest"
        );
    }

    #[test]
    fn waiters_are_granted_in_order_and_timeouts_fire() {
        let l = Arc::new(LockSys::new());
        l.lock(1, &k(1), Mode::X, Kind::Record, LONG, 0).unwrap();
        let got = Arc::new(AtomicUsize::new(0));
        let h = {
            let (l, got) = (l.clone(), got.clone());
            std::thread::spawn(move || {
                l.lock(2, &k(1), Mode::X, Kind::Record, LONG, 0).unwrap();
                got.store(2, Ordering::SeqCst);
                l.release_all(2);
            })
        };
        while l.waits_for(2).is_none() {
            std::thread::yield_now();
        }
        assert_eq!(
            l.lock(
                3,
                &k(1),
                Mode::S,
                Kind::Record,
                Wait::Block(Duration::from_millis(50)),
                0
            ),
            Err(LockError::Timeout),
            "an S request behind a waiting X waits too (no starvation)"
        );
        l.release_all(1);
        h.join().unwrap();
        assert_eq!(got.load(Ordering::SeqCst), 2);
        assert_eq!(l.stats.timeouts.load(Ordering::SeqCst), 1);
        assert!(l.snapshot().is_empty());
    }

    #[test]
    fn waiters_queued_ahead_are_not_taken_for_the_cycle() {
        // 5 holds k1 and 1 holds k2; 2 and 3 (new, weight 0) queue for k1, then 1
        // does (behind them); then 5 asks for k2: the cycle is 5 <-> 1. The waiters
        // between them in k1's queue must not be chosen as victims.
        let l = Arc::new(LockSys::new());
        l.lock(5, &k(1), Mode::X, Kind::Record, LONG, 7).unwrap();
        l.lock(1, &k(2), Mode::X, Kind::Record, LONG, 5).unwrap();
        let spawn = |trx: u64, key: u8, weight: u64| {
            let lt = l.clone();
            let h = std::thread::spawn(move || {
                let r = lt.lock(trx, &k(key), Mode::X, Kind::Record, LONG, weight);
                if r.is_err() {
                    lt.release_all(trx);
                }
                r
            });
            while l.waits_for(trx).is_none() {
                std::thread::yield_now();
            }
            h
        };
        let h2 = spawn(2, 1, 0);
        let h3 = spawn(3, 1, 0);
        let h1 = spawn(1, 1, 5);
        let r5 = l.lock(5, &k(2), Mode::X, Kind::Record, LONG, 7);
        assert_eq!(
            h1.join().unwrap(),
            Err(LockError::Deadlock),
            "1 is the lighter"
        );
        assert_eq!(r5, Ok(Acquired::Granted));
        assert_eq!(l.stats.deadlocks.load(Ordering::SeqCst), 1);
        l.release_all(5);
        assert_eq!(h2.join().unwrap(), Ok(Acquired::Granted));
        l.release_all(2);
        assert_eq!(h3.join().unwrap(), Ok(Acquired::Granted));
        let d = l.latest_deadlock().unwrap();
        let mut cycle: Vec<u64> = d.cycle.iter().map(|t| t.trx).collect();
        cycle.sort();
        assert_eq!(cycle, vec![1, 5]);
    }

    #[test]
    fn a_deadlock_rolls_back_the_lighter_transaction() {
        for (w1, w2, victim) in [(10, 1, 2u64), (1, 10, 1)] {
            let l = Arc::new(LockSys::new());
            l.lock(1, &k(1), Mode::X, Kind::Record, LONG, w1).unwrap();
            l.lock(2, &k(2), Mode::X, Kind::Record, LONG, w2).unwrap();
            let h = {
                let l = l.clone();
                std::thread::spawn(move || {
                    let r = l.lock(1, &k(2), Mode::X, Kind::Record, LONG, w1);
                    if r.is_err() {
                        l.release_all(1);
                    }
                    r
                })
            };
            while l.waits_for(1).is_none() {
                std::thread::yield_now();
            }
            let r2 = l.lock(2, &k(1), Mode::X, Kind::Record, LONG, w2);
            if r2.is_err() {
                l.release_all(2);
            }
            let r1 = h.join().unwrap();
            if victim == 2 {
                assert_eq!((r1, r2), (Ok(Acquired::Granted), Err(LockError::Deadlock)));
            } else {
                assert_eq!((r1, r2), (Err(LockError::Deadlock), Ok(Acquired::Granted)));
            }
            assert_eq!(l.stats.deadlocks.load(Ordering::SeqCst), 1);
            // The report: 2 waits for k1, which 1 holds; 1 waits for k2, which 2
            // holds. (The cycle starts at the transaction that found it: either.)
            let mut d = l.latest_deadlock().expect("a deadlock report");
            if d.cycle[0].trx == 1 {
                d.cycle.rotate_left(1);
            }
            assert_eq!(d.victim, victim);
            assert!(!d.too_deep);
            let row = |trx, n, granted| LockRow {
                trx,
                key: k(n),
                mode: Mode::X,
                kind: Kind::Record,
                granted,
            };
            assert_eq!(
                d.cycle,
                vec![
                    DeadlockTrx {
                        trx: 2,
                        weight: w2,
                        waits: Some(row(2, 1, false)),
                        holds: vec![row(2, 2, true)],
                    },
                    DeadlockTrx {
                        trx: 1,
                        weight: w1,
                        waits: Some(row(1, 2, false)),
                        holds: vec![row(1, 1, true)],
                    },
                ]
            );
        }
    }
}

#[cfg(test)]
mod stress {
    use super::*;

    /// Threads lock random pairs of keys in random order: every wait ends by a grant
    /// or a deadlock, never by a timeout.
    #[test]
    fn random_pairs_never_time_out() {
        let l = Arc::new(LockSys::new());
        let hs: Vec<_> = (0..4u64)
            .map(|t| {
                let l = l.clone();
                std::thread::spawn(move || {
                    let mut rng = crate::rng::Rng(t + 3);
                    let mut deadlocks = 0;
                    for i in 0..2000u64 {
                        let trx = t * 1_000_000 + i + 1;
                        let keys: Vec<LockKey> = (0..2)
                            .map(|_| LockKey::entry(1, 1, &[rng.below(5) as u8]))
                            .collect();
                        let mut held = Vec::new();
                        let mut ok = true;
                        for k in &keys {
                            match l.lock(
                                trx,
                                k,
                                Mode::X,
                                Kind::Record,
                                Wait::Block(Duration::from_secs(5)),
                                held.len() as u64,
                            ) {
                                Ok(_) => held.push(k.clone()),
                                Err(LockError::Deadlock) => {
                                    deadlocks += 1;
                                    ok = false;
                                    break;
                                }
                                Err(e) => panic!("{e:?} for trx {trx}: {:?}", l.snapshot()),
                            }
                        }
                        let _ = ok;
                        l.release_all(trx);
                    }
                    deadlocks
                })
            })
            .collect();
        let deadlocks: usize = hs.into_iter().map(|h| h.join().unwrap()).sum();
        assert!(l.snapshot().is_empty());
        eprintln!("{deadlocks} deadlocks");
    }
}
