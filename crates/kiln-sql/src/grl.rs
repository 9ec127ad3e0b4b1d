//! The global read lock: FLUSH TABLES WITH READ LOCK (FTWRL) and what it blocks.
//!
//! MySQL's GLOBAL and COMMIT metadata locks, kept off the hot path:
//! - `ACTIVE` counts the sessions holding (or taking) the global read lock.
//! - A session running a writing statement (DML, DDL, LOCK TABLES ... WRITE, or a
//!   COMMIT of a transaction that wrote) raises its own `writing` flag for the
//!   statement's length (`WriteGate::enter` / `exit`), then looks at `ACTIVE`; when
//!   it is non-zero the flag goes down again and the statement waits for `ACTIVE` to
//!   be zero ("Waiting for global read lock"), up to `lock_wait_timeout` (1205) or a
//!   KILL (1317).
//! - FTWRL raises `ACTIVE`, then waits until no other session's `writing` flag is up
//!   (the statements in flight finish; new ones wait). Both sides store, then load,
//!   with SeqCst (Dekker's pattern): either the writer sees `ACTIVE` or FTWRL sees
//!   the writer's flag.
//!
//! Cost for a session when no FTWRL is around: per writing statement one store to its
//! own flag, one load of `ACTIVE`, one store at the end; reads pay nothing. A session
//! registers its flag on its first writing statement (one mutex, once).
//!
//! Limits: FTWRL does not wait for open transactions (as MySQL); their COMMIT waits
//! instead. The waits poll every 10 ms (the kill flag needs polling anyway).
//!
//! HandlerSocket writes pass the gate too (`rowapi::enter_write_gate`, once per
//! batch, up to the batch's commit); writes of a session's TEMPORARY tables do not
//! (`Session::gated`), as in MySQL.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use kiln_common::{ErrorKind, KilnError, Result};
use parking_lot::{Condvar, Mutex};

use crate::mdl::WaitLimits;

/// Sessions holding or taking the global read lock.
static ACTIVE: AtomicU64 = AtomicU64::new(0);
/// The `writing` flags of the sessions that ever wrote, by connection.
static WRITERS: LazyLock<Mutex<HashMap<u64, Arc<AtomicBool>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));
/// Connections waiting in `WriteGate::enter` (SHOW PROCESSLIST) and the condvar
/// that wakes them when the lock goes.
static WAITING: LazyLock<Mutex<HashSet<u64>>> = LazyLock::new(|| Mutex::new(HashSet::new()));
static RELEASED: Condvar = Condvar::new();
const POLL: Duration = Duration::from_millis(10);

/// The PROCESSLIST state of connection `conn` if it waits for the global read lock.
pub fn wait_state(conn: u64) -> Option<&'static str> {
    WAITING
        .lock()
        .contains(&conn)
        .then_some("Waiting for global read lock")
}

fn deadline(limits: &WaitLimits<'_>) -> Instant {
    Instant::now() + limits.timeout.min(Duration::from_secs(1 << 32))
}

fn interrupted(flag: &AtomicU8) -> bool {
    flag.load(Ordering::Relaxed) != crate::session::INTERRUPT_NONE
}

/// A session's side of the gate writes pass.
pub struct WriteGate {
    conn: u64,
    flag: Option<Arc<AtomicBool>>,
    /// Writing statements entered and not exited (a statement may run another).
    depth: u32,
    /// The flag stays up between statements (LOCK TABLES ... WRITE holds it, as
    /// MySQL's LOCK TABLES holds the GLOBAL intention lock).
    pinned: bool,
}

impl WriteGate {
    pub fn new(conn: u64) -> WriteGate {
        WriteGate {
            conn,
            flag: None,
            depth: 0,
            pinned: false,
        }
    }

    /// A writing statement starts: waits while another session holds the global
    /// read lock.
    pub fn enter(&mut self, limits: &WaitLimits<'_>) -> Result<()> {
        if self.depth > 0 || self.pinned {
            self.depth += 1;
            return Ok(());
        }
        self.raise(limits)?;
        self.depth = 1;
        Ok(())
    }

    /// Keeps the flag up until `unpin` (the current statement entered the gate).
    pub fn pin(&mut self) {
        self.pinned = true;
    }

    pub fn unpin(&mut self) {
        self.pinned = false;
        if self.depth == 0
            && let Some(f) = &self.flag
        {
            f.store(false, Ordering::Release);
        }
    }

    fn raise(&mut self, limits: &WaitLimits<'_>) -> Result<()> {
        let conn = self.conn;
        let flag = self.flag.get_or_insert_with(|| {
            let f = Arc::new(AtomicBool::new(false));
            WRITERS.lock().insert(conn, f.clone());
            f
        });
        let end = deadline(limits);
        loop {
            flag.store(true, Ordering::SeqCst);
            if ACTIVE.load(Ordering::SeqCst) == 0 {
                return Ok(());
            }
            flag.store(false, Ordering::SeqCst);
            let _wait = kiln_common::wait::begin(kiln_common::wait::WaitKind::MetaDataLock);
            let mut w = WAITING.lock();
            w.insert(conn);
            let r = loop {
                // An interruption first: a server shutting down fails the waiters
                // even as the holders' sessions end.
                if interrupted(limits.interrupt) {
                    break Err(KilnError::from(ErrorKind::ER_QUERY_INTERRUPTED));
                }
                if ACTIVE.load(Ordering::SeqCst) == 0 {
                    break Ok(());
                }
                let now = Instant::now();
                if now >= end {
                    break Err(KilnError::from(ErrorKind::ER_LOCK_WAIT_TIMEOUT));
                }
                RELEASED.wait_for(&mut w, (end - now).min(POLL));
            };
            w.remove(&conn);
            r?;
        }
    }

    /// The writing statement ended.
    pub fn exit(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0
            && !self.pinned
            && let Some(f) = &self.flag
        {
            f.store(false, Ordering::Release);
        }
    }
}

impl Drop for WriteGate {
    fn drop(&mut self) {
        if self.flag.is_some() {
            WRITERS.lock().remove(&self.conn);
        }
    }
}

/// A held global read lock; dropping it releases the lock.
pub struct GlobalReadLock(());

impl Drop for GlobalReadLock {
    fn drop(&mut self) {
        ACTIVE.fetch_sub(1, Ordering::SeqCst);
        let _g = WAITING.lock();
        RELEASED.notify_all();
    }
}

/// Takes the global read lock for connection `conn`: waits for the writing
/// statements of other sessions in flight to end (new ones wait for the lock).
pub fn acquire(conn: u64, limits: &WaitLimits<'_>) -> Result<GlobalReadLock> {
    ACTIVE.fetch_add(1, Ordering::SeqCst);
    let guard = GlobalReadLock(());
    let end = deadline(limits);
    let flags: Vec<Arc<AtomicBool>> = WRITERS
        .lock()
        .iter()
        .filter(|(c, _)| **c != conn)
        .map(|(_, f)| f.clone())
        .collect();
    let _wait = kiln_common::wait::begin(kiln_common::wait::WaitKind::MetaDataLock);
    for f in flags {
        while f.load(Ordering::SeqCst) {
            if interrupted(limits.interrupt) {
                return Err(ErrorKind::ER_QUERY_INTERRUPTED.into());
            }
            if Instant::now() >= end {
                return Err(ErrorKind::ER_LOCK_WAIT_TIMEOUT.into());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    Ok(guard)
}
