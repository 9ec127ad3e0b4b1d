//! Row locks: a lock table sharded by the locked key (no global latch on the path
//! that takes or releases a lock), FIFO queues per key, waits with a timeout, and
//! deadlock detection that rolls back the cheaper transaction of a cycle.
//!
//! A lock is held by a transaction id on a `LockKey` (tablespace, index, entry key),
//! in mode S or X. A request conflicts with any lock of another transaction on the
//! same key that is incompatible with it — granted or still waiting, so a stream of S
//! requests cannot starve a waiting X (InnoDB's rule). A transaction that holds S and
//! asks for X waits for the other S holders.
//!
//! Waits: the requester records what it waits for in `waiting` (trx → key, mode,
//! weight), then runs deadlock detection (one detector at a time, `detect`): a depth-
//! first walk of the waits-for graph, computed from the queues. If the walk finds a
//! cycle back to the requester, the transaction of the cycle with the smallest weight
//! (undo records + locks, as InnoDB) is the victim: if that is the requester, its
//! request fails with `Deadlock`; otherwise the victim's wait is ended with
//! `Deadlock` and the requester keeps waiting. A walk longer than `DETECT_STEPS_MAX`
//! counts as a deadlock (InnoDB does the same with its search limits).
//!
//! Lock order: a shard mutex is never held while taking another shard's mutex, the
//! `waiting` map or a waiter's mutex, except that `waiting` and then shard mutexes
//! are taken one at a time by the detector under `detect`.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

/// Shards of the lock table.
const SHARDS: usize = 256;
/// Deadlock detection gives up (and calls it a deadlock) after this many steps.
const DETECT_STEPS_MAX: usize = 100_000;

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

/// What is locked: an entry of an index, by its key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LockKey {
    pub space: u32,
    pub index: u64,
    pub key: Vec<u8>,
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
    granted: bool,
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

pub struct LockSys {
    shards: Box<[Shard]>,
    waiting: Mutex<HashMap<u64, WaitInfo>>,
    detect: Mutex<()>,
    /// innodb_deadlock_detect: off, waits end only by timeout.
    pub detect_deadlocks: std::sync::atomic::AtomicBool,
    pub stats: LockStats,
}

impl Default for LockSys {
    fn default() -> Self {
        Self::new()
    }
}

fn conflicts(queue: &[Req], trx: u64, mode: Mode, upto: usize) -> Vec<u64> {
    let mut out: Vec<u64> = queue[..upto]
        .iter()
        .filter(|r| r.trx != trx && !r.mode.compatible(mode))
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
            waiting: Mutex::new(HashMap::new()),
            detect: Mutex::new(()),
            detect_deadlocks: std::sync::atomic::AtomicBool::new(true),
            stats: LockStats::default(),
        }
    }

    fn shard(&self, key: &LockKey) -> &Mutex<HashMap<LockKey, Vec<Req>>> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut h);
        &self.shards[(h.finish() as usize) % SHARDS].0
    }

    /// Locks `key` for `trx` in `mode`. `weight` ranks `trx` as a deadlock victim (its
    /// undo records + locks held: the smaller rolls back).
    pub fn lock(
        &self,
        trx: u64,
        key: &LockKey,
        mode: Mode,
        wait: Wait,
        weight: u64,
    ) -> Result<Acquired, LockError> {
        let waiter = {
            let mut shard = self.shard(key).lock();
            let queue = shard.entry(key.clone()).or_default();
            if queue
                .iter()
                .any(|r| r.trx == trx && r.granted && r.mode.covers(mode))
            {
                return Ok(Acquired::Granted);
            }
            if conflicts(queue, trx, mode, queue.len()).is_empty() {
                queue.push(Req {
                    trx,
                    mode,
                    granted: true,
                });
                return Ok(Acquired::Granted);
            }
            let timeout = match wait {
                Wait::NoWait => return Err(LockError::NoWait),
                Wait::Skip => return Ok(Acquired::Skipped),
                Wait::Block(t) => t,
            };
            queue.push(Req {
                trx,
                mode,
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
            WaitState::Granted => Ok(Acquired::Granted),
            WaitState::Deadlock => {
                if self.cancel(trx, key) {
                    // Granted in the meantime: no longer waiting, so no longer in a
                    // cycle.
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
                    return Ok(Acquired::Granted);
                }
                self.stats
                    .timeouts
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Err(LockError::Timeout)
            }
        }
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
            self.grant_waiters(queue);
            if queue.is_empty() {
                shard.remove(key);
            }
            return false;
        }
        queue.iter().any(|r| r.trx == trx && r.granted)
    }

    /// Grants, in queue order, every waiting request that no earlier request blocks.
    fn grant_waiters(&self, queue: &mut [Req]) {
        for i in 0..queue.len() {
            if queue[i].granted {
                continue;
            }
            let (trx, mode) = (queue[i].trx, queue[i].mode);
            if conflicts(queue, trx, mode, i).is_empty() {
                queue[i].granted = true;
                if let Some(w) = self.waiting.lock().get(&trx) {
                    *w.waiter.state.lock() = WaitState::Granted;
                    w.waiter.cv.notify_all();
                }
            }
        }
    }

    /// Releases every lock of `trx` on `keys` (what it locked), waking waiters.
    pub fn release_all(&self, trx: u64, keys: &[LockKey]) {
        for key in keys {
            let mut shard = self.shard(key).lock();
            let Some(queue) = shard.get_mut(key) else {
                continue;
            };
            queue.retain(|r| r.trx != trx);
            self.grant_waiters(queue);
            if queue.is_empty() {
                shard.remove(key);
            }
        }
    }

    /// The transactions `trx`'s waiting request is blocked by (empty if not waiting).
    fn blockers(&self, trx: u64) -> Vec<u64> {
        let key = match self.waiting.lock().get(&trx) {
            Some(w) => w.key.clone(),
            None => return Vec::new(),
        };
        let shard = self.shard(&key).lock();
        let Some(queue) = shard.get(&key) else {
            return Vec::new();
        };
        match queue.iter().position(|r| r.trx == trx && !r.granted) {
            Some(i) => conflicts(queue, trx, queue[i].mode, i),
            None => Vec::new(),
        }
    }

    /// Deadlock detection from a new waiter (see the module comment). After choosing
    /// a victim other than `start`, it searches again without the victim (which
    /// releases everything as it rolls back): the walk finds one cycle at a time, and
    /// `start` may be on several (as in InnoDB's checker).
    fn detect(&self, start: u64) {
        let _one = self.detect.lock();
        let mut doomed = std::collections::HashSet::new();
        loop {
            let Some(cycle) = self.find_cycle(start, &doomed) else {
                return;
            };
            let waiting = self.waiting.lock();
            let victim = cycle
                .iter()
                .filter_map(|t| waiting.get(t).map(|w| (w.weight, *t != start, *t)))
                .min()
                .map(|(_, _, t)| t)
                .unwrap_or(start);
            if let Some(w) = waiting.get(&victim) {
                let mut st = w.waiter.state.lock();
                if *st == WaitState::Waiting {
                    *st = WaitState::Deadlock;
                    w.waiter.cv.notify_all();
                }
            }
            if victim == start {
                return;
            }
            doomed.insert(victim);
        }
    }

    /// A cycle of waits through `start` (the chain from `start`), ignoring `doomed`
    /// transactions. A walk longer than `DETECT_STEPS_MAX` counts as a cycle.
    fn find_cycle(&self, start: u64, doomed: &std::collections::HashSet<u64>) -> Option<Vec<u64>> {
        let live = |mut b: Vec<u64>| {
            b.retain(|t| !doomed.contains(t));
            b
        };
        // Depth-first; `path` is the current chain from `start`.
        let mut path: Vec<(u64, Vec<u64>)> = vec![(start, live(self.blockers(start)))];
        let mut seen = std::collections::HashSet::new();
        let mut steps = 0;
        loop {
            let (_, next) = path.last_mut()?;
            let Some(t) = next.pop() else {
                path.pop();
                continue;
            };
            steps += 1;
            if t == start || steps > DETECT_STEPS_MAX {
                return Some(path.iter().map(|(t, _)| *t).collect());
            }
            if seen.insert(t) {
                let b = live(self.blockers(t));
                path.push((t, b));
            }
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
        LockKey {
            space: 1,
            index: 1,
            key: vec![n],
        }
    }
    const LONG: Wait = Wait::Block(Duration::from_secs(20));

    #[test]
    fn shared_and_exclusive_compatibility() {
        let l = LockSys::new();
        assert_eq!(l.lock(1, &k(1), Mode::S, LONG, 0), Ok(Acquired::Granted));
        assert_eq!(l.lock(2, &k(1), Mode::S, LONG, 0), Ok(Acquired::Granted));
        assert_eq!(
            l.lock(3, &k(1), Mode::X, Wait::NoWait, 0),
            Err(LockError::NoWait)
        );
        assert_eq!(
            l.lock(3, &k(1), Mode::X, Wait::Skip, 0),
            Ok(Acquired::Skipped)
        );
        assert_eq!(
            l.lock(3, &k(2), Mode::X, Wait::NoWait, 0),
            Ok(Acquired::Granted)
        );
        assert_eq!(
            l.lock(3, &k(2), Mode::S, Wait::NoWait, 0),
            Ok(Acquired::Granted),
            "X covers S"
        );
        // Upgrading S to X waits for the other S holder.
        assert_eq!(
            l.lock(1, &k(1), Mode::X, Wait::NoWait, 0),
            Err(LockError::NoWait)
        );
        l.release_all(2, &[k(1)]);
        assert_eq!(
            l.lock(1, &k(1), Mode::X, Wait::NoWait, 0),
            Ok(Acquired::Granted)
        );
        l.release_all(1, &[k(1)]);
        l.release_all(3, &[k(2)]);
        assert!(l.snapshot().is_empty());
    }

    #[test]
    fn waiters_are_granted_in_order_and_timeouts_fire() {
        let l = Arc::new(LockSys::new());
        l.lock(1, &k(1), Mode::X, LONG, 0).unwrap();
        let got = Arc::new(AtomicUsize::new(0));
        let h = {
            let (l, got) = (l.clone(), got.clone());
            std::thread::spawn(move || {
                l.lock(2, &k(1), Mode::X, LONG, 0).unwrap();
                got.store(2, Ordering::SeqCst);
                l.release_all(2, &[k(1)]);
            })
        };
        while l.waits_for(2).is_none() {
            std::thread::yield_now();
        }
        assert_eq!(
            l.lock(3, &k(1), Mode::S, Wait::Block(Duration::from_millis(50)), 0),
            Err(LockError::Timeout),
            "an S request behind a waiting X waits too (no starvation)"
        );
        l.release_all(1, &[k(1)]);
        h.join().unwrap();
        assert_eq!(got.load(Ordering::SeqCst), 2);
        assert_eq!(l.stats.timeouts.load(Ordering::SeqCst), 1);
        assert!(l.snapshot().is_empty());
    }

    #[test]
    fn a_deadlock_rolls_back_the_lighter_transaction() {
        for (w1, w2, victim) in [(10, 1, 2u64), (1, 10, 1)] {
            let l = Arc::new(LockSys::new());
            l.lock(1, &k(1), Mode::X, LONG, w1).unwrap();
            l.lock(2, &k(2), Mode::X, LONG, w2).unwrap();
            let h = {
                let l = l.clone();
                std::thread::spawn(move || {
                    let r = l.lock(1, &k(2), Mode::X, LONG, w1);
                    if r.is_err() {
                        l.release_all(1, &[k(1)]);
                    }
                    r
                })
            };
            while l.waits_for(1).is_none() {
                std::thread::yield_now();
            }
            let r2 = l.lock(2, &k(1), Mode::X, LONG, w2);
            if r2.is_err() {
                l.release_all(2, &[k(2)]);
            }
            let r1 = h.join().unwrap();
            if victim == 2 {
                assert_eq!((r1, r2), (Ok(Acquired::Granted), Err(LockError::Deadlock)));
            } else {
                assert_eq!((r1, r2), (Err(LockError::Deadlock), Ok(Acquired::Granted)));
            }
            assert_eq!(l.stats.deadlocks.load(Ordering::SeqCst), 1);
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
                            .map(|_| LockKey {
                                space: 1,
                                index: 1,
                                key: vec![rng.below(5) as u8],
                            })
                            .collect();
                        let mut held = Vec::new();
                        let mut ok = true;
                        for k in &keys {
                            match l.lock(
                                trx,
                                k,
                                Mode::X,
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
                        l.release_all(trx, &held);
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
