//! User-level locks, the server-wide table behind GET_LOCK, RELEASE_LOCK,
//! RELEASE_ALL_LOCKS, IS_FREE_LOCK and IS_USED_LOCK (MySQL 8.0 semantics):
//!
//! - a lock is a name, exclusive, owned by a connection — not by a transaction:
//!   COMMIT and ROLLBACK leave it alone, the end of the session releases it;
//! - a connection may hold many, and the same one several times (it is then released
//!   as many times);
//! - names compare case-insensitively and are 1..=64 characters (error 3057
//!   otherwise, as MySQL);
//! - a wait that would close a cycle of connections waiting for each other's locks
//!   fails at once with 3058 (MySQL 8.0 implements these locks as metadata locks,
//!   which have deadlock detection); the connection keeps the locks it holds;
//! - waits end by timeout (0: try once; negative: no limit), by grant, or when the
//!   session is killed (`interrupted`, polled every 10 ms), and tell the thread pool
//!   they wait.
//!
//! One mutex guards the table: these locks are taken by statements, not per row, so a
//! sharded table would buy nothing.

use std::collections::HashMap;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use kiln_common::{ErrorKind, KilnError, Result};
use parking_lot::{Condvar, Mutex};

/// Longest lock name, in characters (MySQL's limit).
pub const NAME_CHARS_MAX: usize = 64;
/// Locks (names) one connection may hold at once. MySQL's only limit is memory; this
/// one keeps a runaway loop from growing the table without bound.
pub const HELD_PER_CONNECTION_MAX: usize = 100_000;
/// How often a waiter looks at its session's kill flag.
const INTERRUPT_POLL: Duration = Duration::from_millis(10);

struct Held {
    owner: u64,
    /// Times the owner took it (released when it drops to 0).
    count: u64,
}

#[derive(Default)]
struct Table {
    /// Lower-cased name → its holder.
    held: HashMap<String, Held>,
    /// Connection → the (lower-cased) name it waits for.
    waiting: HashMap<u64, String>,
    /// Connection → how many names it holds.
    names_held: HashMap<u64, usize>,
}

impl Table {
    /// Whether `conn` waiting for `name` would close a cycle: the holder of `name`
    /// waits for a name whose holder waits ... for a name `conn` holds.
    fn would_deadlock(&self, conn: u64, name: &str) -> bool {
        let mut at = name;
        // Each step moves to another connection; more steps than connections waiting
        // means a cycle not through `conn` (impossible: each waits for one name).
        for _ in 0..=self.waiting.len() {
            let Some(h) = self.held.get(at) else {
                return false;
            };
            if h.owner == conn {
                return true;
            }
            match self.waiting.get(&h.owner) {
                Some(next) => at = next,
                None => return false,
            }
        }
        false
    }

    fn take(&mut self, conn: u64, name: String) -> Result<()> {
        match self.held.get_mut(&name) {
            Some(h) => {
                debug_assert_eq!(h.owner, conn);
                h.count += 1;
            }
            None => {
                let n = self.names_held.entry(conn).or_insert(0);
                if *n >= HELD_PER_CONNECTION_MAX {
                    return Err(ErrorKind::ER_OUT_OF_RESOURCES.into());
                }
                *n += 1;
                self.held.insert(
                    name,
                    Held {
                        owner: conn,
                        count: 1,
                    },
                );
            }
        }
        Ok(())
    }

    fn forget_name(&mut self, conn: u64) {
        if let Some(n) = self.names_held.get_mut(&conn) {
            *n -= 1;
            if *n == 0 {
                self.names_held.remove(&conn);
            }
        }
    }
}

/// What GET_LOCK ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquire {
    /// GET_LOCK returns 1.
    Granted,
    /// GET_LOCK returns 0.
    TimedOut,
    /// The session was killed while waiting: GET_LOCK returns NULL.
    Interrupted,
}

pub struct UserLocks {
    table: Mutex<Table>,
    released: Condvar,
}

static LOCKS: LazyLock<UserLocks> = LazyLock::new(|| UserLocks {
    table: Mutex::new(Table::default()),
    released: Condvar::new(),
});

/// The server's table of user-level locks.
pub fn locks() -> &'static UserLocks {
    &LOCKS
}

/// The table key of a lock name, or 3057 for a name MySQL refuses (empty, or longer
/// than 64 characters).
pub fn key(name: &str) -> Result<String> {
    if name.is_empty() || name.chars().count() > NAME_CHARS_MAX {
        return Err(KilnError::new(ErrorKind::ER_USER_LOCK_WRONG_NAME, &[&name]));
    }
    Ok(name.to_lowercase())
}

impl UserLocks {
    /// GET_LOCK(name, timeout) for connection `conn`. `timeout` None: wait without
    /// limit.
    pub fn acquire(
        &self,
        conn: u64,
        name: &str,
        timeout: Option<Duration>,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<Acquire> {
        let name = key(name)?;
        let deadline = timeout.map(|t| Instant::now() + t.min(Duration::from_secs(1 << 32)));
        let mut t = self.table.lock();
        let mut wait = None;
        loop {
            if t.held.get(&name).is_none_or(|h| h.owner == conn) {
                t.waiting.remove(&conn);
                t.take(conn, name)?;
                return Ok(Acquire::Granted);
            }
            if interrupted() {
                t.waiting.remove(&conn);
                return Ok(Acquire::Interrupted);
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                t.waiting.remove(&conn);
                return Ok(Acquire::TimedOut);
            }
            if !t.waiting.contains_key(&conn) {
                if t.would_deadlock(conn, &name) {
                    return Err(ErrorKind::ER_USER_LOCK_DEADLOCK.into());
                }
                t.waiting.insert(conn, name.clone());
            }
            if wait.is_none() {
                wait = Some(kiln_common::wait::begin(kiln_common::wait::WaitKind::Other));
            }
            let slice = deadline.map_or(INTERRUPT_POLL, |d| (d - now).min(INTERRUPT_POLL));
            self.released.wait_for(&mut t, slice);
        }
    }

    /// RELEASE_LOCK(name): Some(true) released (once), Some(false) held by another
    /// connection, None no such lock.
    pub fn release(&self, conn: u64, name: &str) -> Result<Option<bool>> {
        let name = key(name)?;
        let mut t = self.table.lock();
        let Some(h) = t.held.get_mut(&name) else {
            return Ok(None);
        };
        if h.owner != conn {
            return Ok(Some(false));
        }
        h.count -= 1;
        if h.count == 0 {
            t.held.remove(&name);
            t.forget_name(conn);
            self.released.notify_all();
        }
        Ok(Some(true))
    }

    /// RELEASE_ALL_LOCKS(), and the end of a session: releases every lock `conn`
    /// holds; the number of times they had been taken.
    pub fn release_all(&self, conn: u64) -> u64 {
        let mut t = self.table.lock();
        if !t.names_held.contains_key(&conn) {
            return 0;
        }
        let mut n = 0;
        t.held.retain(|_, h| {
            if h.owner == conn {
                n += h.count;
                false
            } else {
                true
            }
        });
        t.names_held.remove(&conn);
        self.released.notify_all();
        n
    }

    /// IS_USED_LOCK(name): the connection holding it.
    pub fn holder(&self, name: &str) -> Result<Option<u64>> {
        let name = key(name)?;
        Ok(self.table.lock().held.get(&name).map(|h| h.owner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    // Connection ids unique to each test: the table is process-wide.
    const NO: &dyn Fn() -> bool = &|| false;

    #[test]
    fn exclusive_recursive_and_case_insensitive() {
        let l = locks();
        assert_eq!(
            l.acquire(101, "Migrate", Some(Duration::ZERO), NO).unwrap(),
            Acquire::Granted
        );
        assert_eq!(
            l.acquire(101, "MIGRATE", Some(Duration::ZERO), NO).unwrap(),
            Acquire::Granted
        );
        assert_eq!(
            l.acquire(102, "migrate", Some(Duration::ZERO), NO).unwrap(),
            Acquire::TimedOut
        );
        assert_eq!(l.holder("migrate").unwrap(), Some(101));
        assert_eq!(l.release(102, "migrate").unwrap(), Some(false));
        assert_eq!(l.release(101, "migrate").unwrap(), Some(true));
        assert_eq!(
            l.holder("migrate").unwrap(),
            Some(101),
            "taken twice, released once"
        );
        assert_eq!(l.release(101, "migrate").unwrap(), Some(true));
        assert_eq!(l.holder("migrate").unwrap(), None);
        assert_eq!(l.release(101, "migrate").unwrap(), None);
    }

    #[test]
    fn names_are_checked() {
        let l = locks();
        let long = "x".repeat(65);
        for bad in ["", long.as_str()] {
            let e = l.acquire(111, bad, Some(Duration::ZERO), NO).unwrap_err();
            assert_eq!(e.code, 3057);
        }
        let ok = "é".repeat(64);
        assert_eq!(
            l.acquire(111, &ok, Some(Duration::ZERO), NO).unwrap(),
            Acquire::Granted
        );
        assert_eq!(l.release_all(111), 1);
    }

    #[test]
    fn a_waiter_gets_the_lock_when_it_is_released() {
        let l = locks();
        assert_eq!(l.acquire(121, "w", None, NO).unwrap(), Acquire::Granted);
        let h = std::thread::spawn(|| locks().acquire(122, "w", Some(Duration::from_secs(20)), NO));
        while !l.table.lock().waiting.contains_key(&122) {
            std::thread::yield_now();
        }
        assert_eq!(l.release_all(121), 1);
        assert_eq!(h.join().unwrap().unwrap(), Acquire::Granted);
        assert_eq!(l.holder("w").unwrap(), Some(122));
        l.release_all(122);
    }

    #[test]
    fn a_cycle_fails_with_3058_and_a_kill_ends_a_wait() {
        let l = locks();
        l.acquire(131, "a", None, NO).unwrap();
        l.acquire(132, "b", None, NO).unwrap();
        let killed = Arc::new(AtomicBool::new(false));
        let k = killed.clone();
        let h = std::thread::spawn(move || {
            locks().acquire(131, "b", None, &|| k.load(Ordering::SeqCst))
        });
        while !l.table.lock().waiting.contains_key(&131) {
            std::thread::yield_now();
        }
        // 132 waiting for "a" would wait for 131, which waits for 132.
        let e = l.acquire(132, "a", None, NO).unwrap_err();
        assert_eq!(e.code, 3058);
        assert_eq!(
            l.holder("b").unwrap(),
            Some(132),
            "the refused one keeps its locks"
        );
        killed.store(true, Ordering::SeqCst);
        assert_eq!(h.join().unwrap().unwrap(), Acquire::Interrupted);
        assert!(!l.table.lock().waiting.contains_key(&131));
        assert_eq!(l.release_all(131), 1);
        assert_eq!(l.release_all(132), 1);
    }
}
