//! Metadata locks (MDL): MySQL 8.0's table-level locks that keep DDL from changing or
//! dropping a table while transactions use it.
//!
//! - Every statement that opens a table (`exec::select::resolve_table`) takes a shared
//!   lock on its name; the session keeps it until its transaction ends (COMMIT,
//!   ROLLBACK, an implicit commit; in autocommit mode, the statement's end).
//! - DDL takes an exclusive lock on each name it changes (sorted, so two DDL never
//!   take them in opposite orders) and waits until no session holds the name.
//! - A waiting exclusive request holds back every later shared request on that name
//!   (MySQL's priority of X over new S: the "Waiting for table metadata lock" queue),
//!   except high-priority shared requests (SHOW CREATE TABLE, DESCRIBE), which wait
//!   only for a granted exclusive lock.
//! - A session that already holds a name is never made to wait for it again.
//! - Waits end by grant, by `lock_wait_timeout` (1205), by KILL [QUERY] (1317, the
//!   kill flag is polled every 10 ms) or by a deadlock among metadata-lock waits
//!   (1213: the session whose wait would close the cycle is the victim). A waiter tells
//!   the thread pool it blocks (`WaitKind::MetaDataLock`).
//!
//! - Modes (MySQL's names): SHARED_HIGH_PRIO (`SharedHighPrio`), SHARED_READ
//!   (`Shared`, statements that read), SHARED_WRITE (`SharedWrite`, statements that
//!   write), SHARED_READ_ONLY (`SharedReadOnly`, LOCK TABLES ... READ: others may read,
//!   their writes wait), SHARED_NO_READ_WRITE (`SharedNoReadWrite`, LOCK TABLES ...
//!   WRITE: others' reads and writes wait), EXCLUSIVE (DDL). `conflicts` is the
//!   matrix; a session's own locks never conflict with its requests.
//!
//! Performance: the table of locks is 64 shards (hash of schema and name), each an
//! RwLock'd map only read on the hot path; the lock object found there carries one
//! atomic word: the counts of granted read (SH, SR) and write (SW) locks and a flag
//! "a heavy lock (SRO, SNRW, X) is granted or waiting". An uncontended read or write
//! acquire is one CAS on that word, its release one fetch_sub; the per-lock mutex and
//! condvar are touched only when a heavy lock is involved. A session keeps the lock objects it used last (`spare`), so its next
//! statements on the same tables skip the shard map and the reference count. Lock order: shard map → (released) → lock.slow → WAITERS (never the
//! other way round; no lock is held while a thread sleeps but lock.slow, inside its
//! condvar wait).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use kiln_common::{ErrorKind, KilnError, Result};
use parking_lot::{Condvar, Mutex, RwLock};

/// What a session asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Reads of a table (MySQL's SHARED_READ: queues behind a waiting exclusive or
    /// LOCK TABLES ... WRITE request).
    Shared,
    /// Writes of a table (SHARED_WRITE: compatible with reads and other writes; waits
    /// for LOCK TABLES ... READ too).
    SharedWrite,
    /// SHOW CREATE TABLE, DESCRIBE: jumps the queue of waiting exclusive requests.
    SharedHighPrio,
    /// LOCK TABLES ... READ (SHARED_READ_ONLY): others may read, not write.
    SharedReadOnly,
    /// LOCK TABLES ... WRITE (SHARED_NO_READ_WRITE): others may neither read nor write.
    SharedNoReadWrite,
    /// DDL.
    Exclusive,
}

impl Mode {
    /// Counted in the atomic word (granted without the lock's mutex when no heavy
    /// lock is around).
    fn is_light(self) -> bool {
        matches!(
            self,
            Mode::Shared | Mode::SharedWrite | Mode::SharedHighPrio
        )
    }

    /// The unit of the atomic word this mode counts in (light modes only).
    fn unit(self) -> u64 {
        if self == Mode::SharedWrite { W_UNIT } else { 1 }
    }
}

/// Whether a lock in mode `a` and one in mode `b`, held by two sessions, conflict.
pub fn conflicts(a: Mode, b: Mode) -> bool {
    use Mode::*;
    match (a, b) {
        (Exclusive, _) | (_, Exclusive) => true,
        (SharedHighPrio, _) | (_, SharedHighPrio) => false,
        (SharedNoReadWrite, _) | (_, SharedNoReadWrite) => true,
        (SharedReadOnly, SharedWrite) | (SharedWrite, SharedReadOnly) => true,
        _ => false,
    }
}

/// Whether holding `held` makes a request for `want` on the same name needless.
fn covers(held: Mode, want: Mode) -> bool {
    use Mode::*;
    held == want
        || match held {
            Exclusive => true,
            SharedNoReadWrite => want != Exclusive,
            SharedReadOnly | SharedWrite | Shared | SharedHighPrio => {
                matches!(want, Shared | SharedHighPrio)
            }
        }
}

/// Locks one session may hold at once (names in one transaction).
pub const HELD_MAX: usize = 100_000;
/// How often a waiter looks at its session's kill flag.
const INTERRUPT_POLL: Duration = Duration::from_millis(10);
const SHARDS: usize = 64;
/// A shard's map is swept of unused lock objects when it grows past this.
const SHARD_SWEEP_AT: usize = 1024;
/// Bit of `Lock::state`: a heavy lock (SRO, SNRW, X) is granted or waited for.
const X_FLAG: u64 = 1 << 62;
/// Granted read locks: the low 30 bits of `Lock::state`; granted write locks: the
/// next 30.
const COUNT_MASK: u64 = (1 << 30) - 1;
const W_UNIT: u64 = 1 << 30;

/// The lock of one name (schema, table or view).
pub struct Lock {
    schema: Box<str>,
    name: Box<str>,
    /// Granted read locks | granted write locks << 30 | X_FLAG.
    state: AtomicU64,
    slow: Mutex<Slow>,
    cv: Condvar,
}

#[derive(Default)]
struct Slow {
    /// Granted heavy locks (connection, mode).
    heavy: Vec<(u64, Mode)>,
    /// Heavy requests waiting (connection, mode): later light requests they conflict
    /// with queue behind them.
    waiting: Vec<(u64, Mode)>,
}

impl Slow {
    fn any_heavy(&self) -> bool {
        !self.heavy.is_empty() || !self.waiting.is_empty()
    }
}

impl Lock {
    /// Granted (read, write) light locks.
    fn light_counts(&self) -> (u64, u64) {
        let v = self.state.load(Ordering::Acquire);
        (v & COUNT_MASK, (v >> 30) & COUNT_MASK)
    }

    /// The uncontended light acquire: one CAS while no heavy lock is around.
    fn try_shared_fast(&self, unit: u64) -> bool {
        let mut v = self.state.load(Ordering::Relaxed);
        loop {
            if v & X_FLAG != 0 {
                return false;
            }
            match self.state.compare_exchange_weak(
                v,
                v + unit,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(now) => v = now,
            }
        }
    }

    /// Adds a light holder regardless of X_FLAG (under `slow`, when the heavy locks
    /// allow it).
    fn add_shared(&self, unit: u64) {
        self.state.fetch_add(unit, Ordering::Acquire);
    }

    fn release_shared(&self, unit: u64) {
        let before = self.state.fetch_sub(unit, Ordering::Release);
        if before & X_FLAG != 0 {
            // A heavy lock is around: wake its waiters (taking the mutex orders this
            // with their check-then-wait).
            let _g = self.slow.lock();
            self.cv.notify_all();
        }
    }

    fn release_heavy(&self, conn: u64, mode: Mode) {
        let mut s = self.slow.lock();
        if let Some(i) = s.heavy.iter().position(|&(c, m)| c == conn && m == mode) {
            s.heavy.swap_remove(i);
        }
        if !s.any_heavy() {
            self.state.fetch_and(!X_FLAG, Ordering::Release);
        }
        self.cv.notify_all();
    }
}

type Shard = RwLock<HashMap<u64, Vec<Arc<Lock>>>>;

static SHARD_MAPS: LazyLock<Vec<Shard>> =
    LazyLock::new(|| (0..SHARDS).map(|_| RwLock::new(HashMap::new())).collect());

fn key_hash(schema: &str, name: &str) -> u64 {
    let mut h = DefaultHasher::new();
    schema.hash(&mut h);
    name.hash(&mut h);
    h.finish()
}

/// The lock object of a name (made on first use).
fn lock_of(schema: &str, name: &str) -> Arc<Lock> {
    let hash = key_hash(schema, name);
    let shard = &SHARD_MAPS[(hash as usize) % SHARDS];
    let same = |l: &&Arc<Lock>| &*l.schema == schema && &*l.name == name;
    if let Some(l) = shard.read().get(&hash).and_then(|v| v.iter().find(same)) {
        return l.clone();
    }
    let mut map = shard.write();
    if let Some(l) = map.get(&hash).and_then(|v| v.iter().find(same)) {
        return l.clone();
    }
    if map.len() >= SHARD_SWEEP_AT {
        // Only the map refers to an unused lock: nobody holds or waits for it, and no
        // one can find it meanwhile (the write lock is held).
        map.retain(|_, v| {
            v.retain(|l| Arc::strong_count(l) > 1);
            !v.is_empty()
        });
    }
    let l = Arc::new(Lock {
        schema: schema.into(),
        name: name.into(),
        state: AtomicU64::new(0),
        slow: Mutex::new(Slow::default()),
        cv: Condvar::new(),
    });
    map.entry(hash).or_default().push(l.clone());
    l
}

/// A waiting session, for SHOW PROCESSLIST and deadlock detection.
struct Waiter {
    lock: Arc<Lock>,
    mode: Mode,
    /// What the waiter holds (it cannot change while it waits).
    held: Vec<(Arc<Lock>, Mode)>,
}

static WAITERS: LazyLock<Mutex<HashMap<u64, Waiter>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The PROCESSLIST state of connection `conn` if it waits for a metadata lock.
pub fn wait_state(conn: u64) -> Option<&'static str> {
    WAITERS
        .lock()
        .contains_key(&conn)
        .then_some("Waiting for table metadata lock")
        .or_else(|| crate::grl::wait_state(conn))
}

/// Whether waiter `from` waits for waiter `to`: `to` holds what `from` wants in a
/// conflicting mode, or `to` is a heavy request queued ahead of `from`'s conflicting
/// read or write request on the same name.
fn waits_for(from: &Waiter, to: &Waiter) -> bool {
    if to
        .held
        .iter()
        .any(|(l, m)| Arc::ptr_eq(l, &from.lock) && conflicts(from.mode, *m))
    {
        return true;
    }
    matches!(from.mode, Mode::Shared | Mode::SharedWrite)
        && !to.mode.is_light()
        && conflicts(from.mode, to.mode)
        && Arc::ptr_eq(&to.lock, &from.lock)
}

/// Whether `conn` (just registered) closes a cycle of waiting sessions.
fn closes_cycle(waiters: &HashMap<u64, Waiter>, conn: u64) -> bool {
    let mut stack = vec![conn];
    let mut seen = vec![conn];
    // Bounded: each waiter is visited once.
    while let Some(at) = stack.pop() {
        let Some(w) = waiters.get(&at) else { continue };
        for (&next, nw) in waiters.iter() {
            if next == at || !waits_for(w, nw) {
                continue;
            }
            if next == conn {
                return true;
            }
            if !seen.contains(&next) {
                seen.push(next);
                stack.push(next);
            }
        }
    }
    false
}

/// Removes the registration on drop.
struct Registered(u64);

impl Drop for Registered {
    fn drop(&mut self) {
        WAITERS.lock().remove(&self.0);
    }
}

/// The metadata locks one session holds.
pub struct MdlContext {
    conn: u64,
    held: Vec<(Arc<Lock>, Mode)>,
    /// `held[..base]` are LOCK TABLES' locks: a transaction's end keeps them.
    base: usize,
    /// Lock objects this session released lately, kept for its next statements: the
    /// hot path then finds its lock without the shard map and without touching the
    /// object's reference count. (Being referred to here keeps them in the map.)
    spare: Vec<Arc<Lock>>,
}

/// Lock objects a session keeps in `spare`.
const SPARE_MAX: usize = 8;

/// How a wait may end early.
pub struct WaitLimits<'a> {
    pub timeout: Duration,
    pub interrupt: &'a AtomicU8,
}

impl MdlContext {
    pub fn new(conn: u64) -> MdlContext {
        MdlContext {
            conn,
            held: Vec::new(),
            base: 0,
            spare: Vec::new(),
        }
    }

    /// Whether the session holds `schema.name` in a mode that covers `mode`.
    fn holds(&self, schema: &str, name: &str, mode: Mode) -> bool {
        self.held
            .iter()
            .any(|(l, m)| &*l.schema == schema && &*l.name == name && covers(*m, mode))
    }

    /// The light (read, write) locks this session holds on `lock`.
    fn own_light(&self, lock: &Arc<Lock>) -> (u64, u64) {
        let mut own = (0, 0);
        for (l, m) in &self.held {
            if Arc::ptr_eq(l, lock) && m.is_light() {
                if m.unit() == W_UNIT {
                    own.1 += 1;
                } else {
                    own.0 += 1;
                }
            }
        }
        own
    }

    /// Whether the session holds no lock beyond its LOCK TABLES ones.
    pub fn is_empty(&self) -> bool {
        self.held.len() <= self.base
    }

    /// Makes the locks held now LOCK TABLES' locks (kept past transactions' ends).
    pub fn keep_held(&mut self) {
        self.base = self.held.len();
    }

    /// Releases every lock, LOCK TABLES' too (UNLOCK TABLES, the session's end).
    pub fn release_everything(&mut self) {
        self.base = 0;
        self.release_to(0);
    }

    /// Takes a lock on `schema.name`, waiting as needed.
    pub fn acquire(
        &mut self,
        schema: &str,
        name: &str,
        mode: Mode,
        limits: &WaitLimits<'_>,
    ) -> Result<()> {
        if self.holds(schema, name, mode) {
            return Ok(());
        }
        if self.held.len() >= HELD_MAX {
            return Err(ErrorKind::ER_OUT_OF_RESOURCES.into());
        }
        let lock = match self
            .spare
            .iter()
            .position(|l| &*l.schema == schema && &*l.name == name)
        {
            Some(i) => self.spare.swap_remove(i),
            None => lock_of(schema, name),
        };
        if mode.is_light() && lock.try_shared_fast(mode.unit()) {
            self.held.push((lock, mode));
            return Ok(());
        }
        self.acquire_slow(lock, mode, limits)
    }

    fn acquire_slow(&mut self, lock: Arc<Lock>, mode: Mode, limits: &WaitLimits<'_>) -> Result<()> {
        let deadline = Instant::now() + limits.timeout.min(Duration::from_secs(1 << 32));
        let own = self.own_light(&lock);
        let conn = self.conn;
        let mut s = lock.slow.lock();
        let heavy = !mode.is_light();
        if heavy {
            s.waiting.push((conn, mode));
            lock.state.fetch_or(X_FLAG, Ordering::AcqRel);
        }
        let mut registered = None;
        let mut wait = None;
        let outcome = loop {
            let granted = {
                let (r, w) = lock.light_counts();
                let others =
                    |l: &[(u64, Mode)]| l.iter().any(|&(c, m)| c != conn && conflicts(mode, m));
                !(conflicts(mode, Mode::Shared) && r > own.0
                    || conflicts(mode, Mode::SharedWrite) && w > own.1
                    || others(&s.heavy)
                    // Light requests queue behind conflicting heavy ones (high
                    // priority ones do not).
                    || matches!(mode, Mode::Shared | Mode::SharedWrite) && others(&s.waiting))
            };
            if granted {
                if heavy {
                    if let Some(i) = s.waiting.iter().position(|&(c, m)| c == conn && m == mode) {
                        s.waiting.swap_remove(i);
                    }
                    s.heavy.push((conn, mode));
                    // Light requests queued behind this one may fit beside it.
                    lock.cv.notify_all();
                } else {
                    lock.add_shared(mode.unit());
                }
                break Ok(());
            }
            if limits.interrupt.load(Ordering::Relaxed) != crate::session::INTERRUPT_NONE {
                break Err(KilnError::from(ErrorKind::ER_QUERY_INTERRUPTED));
            }
            let now = Instant::now();
            if now >= deadline {
                break Err(KilnError::from(ErrorKind::ER_LOCK_WAIT_TIMEOUT));
            }
            if registered.is_none() {
                // Register without holding the lock's mutex (lock order).
                let deadlock = parking_lot::MutexGuard::unlocked(&mut s, || {
                    let mut w = WAITERS.lock();
                    w.insert(
                        self.conn,
                        Waiter {
                            lock: lock.clone(),
                            mode,
                            held: self.held.clone(),
                        },
                    );
                    closes_cycle(&w, self.conn)
                });
                registered = Some(Registered(self.conn));
                if deadlock {
                    break Err(KilnError::from(ErrorKind::ER_LOCK_DEADLOCK));
                }
                wait = Some(kiln_common::wait::begin(
                    kiln_common::wait::WaitKind::MetaDataLock,
                ));
                continue;
            }
            lock.cv
                .wait_for(&mut s, (deadline - now).min(INTERRUPT_POLL));
        };
        if outcome.is_err() && heavy {
            if let Some(i) = s.waiting.iter().position(|&(c, m)| c == conn && m == mode) {
                s.waiting.swap_remove(i);
            }
            if !s.any_heavy() {
                lock.state.fetch_and(!X_FLAG, Ordering::AcqRel);
            }
            // Shared requests queued behind this one may go now.
            lock.cv.notify_all();
        }
        drop(s);
        drop(wait);
        drop(registered);
        outcome?;
        self.held.push((lock, mode));
        Ok(())
    }

    /// A point to release back to (`release_to`).
    pub fn savepoint(&self) -> usize {
        self.held.len()
    }

    /// Releases the locks taken since `savepoint` (a statement whose locks last only
    /// as long as it does: SHOW).
    pub fn release_to(&mut self, savepoint: usize) {
        let from = savepoint.max(self.base).min(self.held.len());
        for (l, m) in self.held.drain(from..) {
            if m.is_light() {
                l.release_shared(m.unit());
            } else {
                l.release_heavy(self.conn, m);
            }
            if self.spare.len() < SPARE_MAX && !self.spare.iter().any(|x| Arc::ptr_eq(x, &l)) {
                self.spare.push(l);
            }
        }
    }

    /// Releases every lock but LOCK TABLES' (the transaction ended).
    pub fn release_all(&mut self) {
        self.release_to(self.base);
    }
}

impl Drop for MdlContext {
    fn drop(&mut self) {
        self.release_everything();
    }
}

#[cfg(test)]
#[path = "mdl_tests.rs"]
mod tests;
