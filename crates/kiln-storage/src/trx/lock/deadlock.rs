//! Deadlock detection over `LockSys`'s queues, and the report of the latest
//! deadlock (SHOW ENGINE INNODB STATUS's LATEST DETECTED DEADLOCK). The rules are in
//! the parent module's comment: a new waiter searches the waits-for graph for the
//! shortest cycle back to itself; the lightest transaction of the cycle is the
//! victim; the search repeats without it. Lock order: `detect`, then `waiting` and
//! shard mutexes one at a time (never one while holding the other), except `waiting`
//! → a waiter's state to end the victim's wait.

use std::collections::HashMap;

use super::{LockKey, LockRow, LockSys, WaitState, conflicts};

/// Deadlock detection gives up (and calls it a deadlock) after this many steps.
const DETECT_STEPS_MAX: usize = 100_000;

/// One transaction of a detected deadlock cycle (SHOW ENGINE INNODB STATUS's
/// LATEST DETECTED DEADLOCK).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadlockTrx {
    pub trx: u64,
    /// Its weight as a victim (undo records + locks).
    pub weight: u64,
    /// The request it waits for (granted = false).
    pub waits: Option<LockRow>,
    /// Its requests on the key the previous transaction of the cycle waits for: what
    /// blocks that one.
    pub holds: Vec<LockRow>,
}

/// The latest deadlock: the cycle in waits-for order (each transaction waits for
/// the next; the last for the first) and the transaction rolled back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadlockReport {
    pub at: std::time::SystemTime,
    pub cycle: Vec<DeadlockTrx>,
    pub victim: u64,
    /// The walk gave up after `DETECT_STEPS_MAX` steps (counted as a deadlock).
    pub too_deep: bool,
}

impl LockSys {
    /// The transactions `trx`'s waiting request is blocked by (empty if not waiting,
    /// or if its wait has already ended: granted, or chosen as a victim by another
    /// detector — it is about to release everything, so it closes no more cycles).
    fn blockers(&self, trx: u64) -> Vec<u64> {
        let key = match self.waiting.lock().get(&trx) {
            Some(w) if *w.waiter.state.lock() == WaitState::Waiting => w.key.clone(),
            _ => return Vec::new(),
        };
        let shard = self.shard(&key).lock();
        let Some(queue) = shard.get(&key) else {
            return Vec::new();
        };
        match queue.iter().position(|r| r.trx == trx && !r.granted) {
            Some(i) => conflicts(queue, trx, queue[i].mode, queue[i].kind, key.sup, i),
            None => Vec::new(),
        }
    }

    /// Deadlock detection from a new waiter (see the module comment). After choosing
    /// a victim other than `start`, it searches again without the victim (which
    /// releases everything as it rolls back): the walk finds one cycle at a time, and
    /// `start` may be on several (as in InnoDB's checker).
    pub(super) fn detect(&self, start: u64) {
        let _one = self.detect.lock();
        let mut doomed = std::collections::HashSet::new();
        loop {
            let Some((cycle, too_deep)) = self.find_cycle(start, &doomed) else {
                return;
            };
            // Before `waiting` is held: the report takes shard mutexes, and
            // `grant_waiters` takes `waiting` under one.
            let report = self.describe(&cycle, too_deep);
            let waiting = self.waiting.lock();
            let victim = cycle
                .iter()
                .filter_map(|t| waiting.get(t).map(|w| (w.weight, *t != start, *t)))
                .min()
                .map(|(_, _, t)| t)
                .unwrap_or(start);
            *self.latest_deadlock.lock() = Some(DeadlockReport { victim, ..report });
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

    /// The report of a deadlock found by `detect` (its victim still to be filled in).
    /// Takes `waiting` and shard mutexes one at a time, as `blockers` does.
    fn describe(&self, cycle: &[u64], too_deep: bool) -> DeadlockReport {
        let requests = |key: &LockKey, trx: u64| -> Vec<LockRow> {
            self.shard(key)
                .lock()
                .get(key)
                .map(|q| {
                    q.iter()
                        .filter(|r| r.trx == trx)
                        .map(|r| LockRow {
                            trx,
                            key: key.clone(),
                            mode: r.mode,
                            kind: r.kind,
                            granted: r.granted,
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let waits_of = |trx: u64| -> (u64, Option<LockRow>) {
            let Some((key, weight)) = self
                .waiting
                .lock()
                .get(&trx)
                .map(|w| (w.key.clone(), w.weight))
            else {
                return (0, None);
            };
            (weight, requests(&key, trx).into_iter().find(|r| !r.granted))
        };
        let mut out: Vec<DeadlockTrx> = cycle
            .iter()
            .map(|&t| {
                let (weight, waits) = waits_of(t);
                DeadlockTrx {
                    trx: t,
                    weight,
                    waits,
                    holds: Vec::new(),
                }
            })
            .collect();
        let n = out.len();
        for i in 0..n {
            let prev_key = out[(i + n - 1) % n].waits.as_ref().map(|r| r.key.clone());
            if let Some(k) = prev_key {
                out[i].holds = requests(&k, out[i].trx);
            }
        }
        DeadlockReport {
            at: std::time::SystemTime::now(),
            cycle: out,
            victim: 0,
            too_deep,
        }
    }

    /// The latest deadlock detected, if any since startup.
    pub fn latest_deadlock(&self) -> Option<DeadlockReport> {
        self.latest_deadlock.lock().clone()
    }

    /// The shortest cycle of waits through `start` (the chain from `start`),
    /// ignoring `doomed` transactions; a walk longer than `DETECT_STEPS_MAX` counts
    /// as a cycle (true: this happened).
    ///
    /// Breadth-first, so that the cycle is the shortest: a waiter also waits for the
    /// requests queued ahead of it on the same key, so a depth-first walk often
    /// reached the real cycle (the requester and the holder it waits for) through
    /// those waiters — and then chose one of them, a new transaction of weight 0
    /// that closes no cycle by itself, as the victim, then the next, and so on. With
    /// sysbench oltp_read_write at 40 threads on 200 rows, 71% of lock waits ended
    /// in 1213 (MariaDB: 48%).
    fn find_cycle(
        &self,
        start: u64,
        doomed: &std::collections::HashSet<u64>,
    ) -> Option<(Vec<u64>, bool)> {
        // parent[t]: the transaction through which t was first reached.
        let mut parent: HashMap<u64, u64> = HashMap::new();
        let mut frontier = std::collections::VecDeque::from([start]);
        let mut steps = 0;
        let chain = |parent: &HashMap<u64, u64>, mut t: u64| {
            let mut out = vec![t];
            while t != start {
                t = parent[&t];
                out.push(t);
            }
            out.reverse();
            out
        };
        while let Some(at) = frontier.pop_front() {
            for t in self.blockers(at) {
                if doomed.contains(&t) {
                    continue;
                }
                steps += 1;
                if t == start {
                    return Some((chain(&parent, at), false));
                }
                if steps > DETECT_STEPS_MAX {
                    return Some((chain(&parent, at), true));
                }
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(t) {
                    e.insert(at);
                    frontier.push_back(t);
                }
            }
        }
        None
    }
}
