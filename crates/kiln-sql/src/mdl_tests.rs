//! Unit tests of the metadata-lock table (mdl.rs). Each test uses its own names: the
//! table is server-wide.

use super::*;
use std::sync::atomic::AtomicU8;
use std::thread;

static NO_KILL: AtomicU8 = AtomicU8::new(0);

fn limits(ms: u64) -> WaitLimits<'static> {
    WaitLimits {
        timeout: Duration::from_millis(ms),
        interrupt: &NO_KILL,
    }
}

fn code(r: Result<()>) -> u16 {
    r.err().map_or(0, |e| e.code)
}

#[test]
fn shared_locks_share_and_exclusive_waits_for_them() {
    let mut a = MdlContext::new(1001);
    let mut b = MdlContext::new(1002);
    a.acquire("db", "t1", Mode::Shared, &limits(10)).unwrap();
    b.acquire("db", "t1", Mode::Shared, &limits(10)).unwrap();
    let mut x = MdlContext::new(1003);
    assert_eq!(
        code(x.acquire("db", "t1", Mode::Exclusive, &limits(50))),
        1205
    );
    a.release_all();
    assert_eq!(
        code(x.acquire("db", "t1", Mode::Exclusive, &limits(50))),
        1205
    );
    let t = thread::spawn(move || {
        thread::sleep(Duration::from_millis(50));
        b.release_all();
    });
    x.acquire("db", "t1", Mode::Exclusive, &limits(5_000))
        .unwrap();
    t.join().unwrap();
    // Granted exclusive: shared requests wait; after release they pass.
    assert_eq!(code(a.acquire("db", "t1", Mode::Shared, &limits(30))), 1205);
    x.release_all();
    a.acquire("db", "t1", Mode::Shared, &limits(10)).unwrap();
    // A failed exclusive wait left nothing behind: the fast path works again.
    assert!(lock_of("db", "t1").state.load(Ordering::Relaxed) & X_FLAG == 0);
}

#[test]
fn waiting_exclusive_holds_back_later_shared_but_not_high_priority() {
    let mut a = MdlContext::new(2001);
    a.acquire("db", "t2", Mode::Shared, &limits(10)).unwrap();
    let t = thread::spawn(|| {
        let mut x = MdlContext::new(2002);
        x.acquire("db", "t2", Mode::Exclusive, &limits(5_000))
            .map(|_| x)
    });
    while wait_state(2002).is_none() {
        thread::sleep(Duration::from_millis(2));
    }
    let mut c = MdlContext::new(2003);
    assert_eq!(code(c.acquire("db", "t2", Mode::Shared, &limits(50))), 1205);
    c.acquire("db", "t2", Mode::SharedHighPrio, &limits(50))
        .unwrap();
    // A session already holding the name is not queued.
    a.acquire("db", "t2", Mode::Shared, &limits(10)).unwrap();
    a.release_all();
    c.release_all();
    let x = t.join().unwrap().unwrap();
    assert!(!x.is_empty());
    assert_eq!(wait_state(2002), None);
}

#[test]
fn kill_interrupts_a_wait() {
    let mut a = MdlContext::new(3001);
    a.acquire("db", "t3", Mode::Shared, &limits(10)).unwrap();
    static KILL: AtomicU8 = AtomicU8::new(0);
    let t = thread::spawn(|| {
        let mut x = MdlContext::new(3002);
        x.acquire(
            "db",
            "t3",
            Mode::Exclusive,
            &WaitLimits {
                timeout: Duration::from_secs(60),
                interrupt: &KILL,
            },
        )
    });
    thread::sleep(Duration::from_millis(30));
    KILL.store(crate::session::INTERRUPT_QUERY, Ordering::Relaxed);
    assert_eq!(code(t.join().unwrap()), 1317);
    // The aborted exclusive request no longer holds back shared ones.
    let mut c = MdlContext::new(3003);
    c.acquire("db", "t3", Mode::Shared, &limits(10)).unwrap();
}

#[test]
fn own_shared_lock_does_not_block_own_exclusive() {
    let mut a = MdlContext::new(4001);
    a.acquire("db", "t4", Mode::Shared, &limits(10)).unwrap();
    a.acquire("db", "t4", Mode::Exclusive, &limits(10)).unwrap();
    let mut b = MdlContext::new(4002);
    assert_eq!(code(b.acquire("db", "t4", Mode::Shared, &limits(20))), 1205);
    a.release_all();
    b.acquire("db", "t4", Mode::Shared, &limits(10)).unwrap();
}

#[test]
fn a_cycle_of_waits_is_a_deadlock() {
    // a holds S(t5b); x holds X(t5a) and waits for X(t5b); a then asks S(t5a).
    let mut a = MdlContext::new(5001);
    a.acquire("db", "t5b", Mode::Shared, &limits(10)).unwrap();
    let t = thread::spawn(|| {
        let mut x = MdlContext::new(5002);
        x.acquire("db", "t5a", Mode::Exclusive, &limits(10))?;
        x.acquire("db", "t5b", Mode::Exclusive, &limits(5_000))?;
        Ok::<_, KilnError>(x)
    });
    while wait_state(5002).is_none() {
        thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(
        code(a.acquire("db", "t5a", Mode::Shared, &limits(5_000))),
        1213
    );
    a.release_all();
    let x = t.join().unwrap().unwrap();
    assert_eq!(x.held.len(), 2);
}

#[test]
fn unused_locks_are_swept() {
    for i in 0..(SHARDS * SHARD_SWEEP_AT * 2) {
        let mut a = MdlContext::new(6001);
        a.acquire("sweep", &format!("t{i}"), Mode::Shared, &limits(10))
            .unwrap();
    }
    let total: usize = SHARD_MAPS.iter().map(|s| s.read().len()).sum();
    assert!(total <= SHARDS * (SHARD_SWEEP_AT + 1), "{total}");
}

#[test]
fn read_only_lock_lets_reads_in_and_keeps_writes_out() {
    let mut a = MdlContext::new(7001);
    let mut b = MdlContext::new(7002);
    a.acquire("db", "t7", Mode::SharedReadOnly, &limits(10))
        .unwrap();
    b.acquire("db", "t7", Mode::Shared, &limits(10)).unwrap();
    assert_eq!(
        code(b.acquire("db", "t7", Mode::SharedWrite, &limits(30))),
        1205
    );
    // A second READ lock shares; a WRITE lock waits for both kinds.
    let mut c = MdlContext::new(7003);
    c.acquire("db", "t7", Mode::SharedReadOnly, &limits(10))
        .unwrap();
    assert_eq!(
        code(c.acquire("db", "t7", Mode::SharedNoReadWrite, &limits(30))),
        1205
    );
    a.release_all();
    c.release_all();
    b.acquire("db", "t7", Mode::SharedWrite, &limits(10))
        .unwrap();
    // A held write keeps a READ lock out.
    assert_eq!(
        code(a.acquire("db", "t7", Mode::SharedReadOnly, &limits(30))),
        1205
    );
}

#[test]
fn no_read_write_lock_keeps_everyone_out_but_its_holder() {
    let mut a = MdlContext::new(7101);
    let mut b = MdlContext::new(7102);
    a.acquire("db", "t8", Mode::SharedNoReadWrite, &limits(10))
        .unwrap();
    // Its holder's own statements and DDL go through.
    a.acquire("db", "t8", Mode::SharedWrite, &limits(10))
        .unwrap();
    a.acquire("db", "t8", Mode::Exclusive, &limits(10)).unwrap();
    assert_eq!(code(b.acquire("db", "t8", Mode::Shared, &limits(30))), 1205);
    assert_eq!(
        code(b.acquire("db", "t8", Mode::SharedWrite, &limits(30))),
        1205
    );
    // LOCK TABLES' locks outlive a transaction's end; release_everything ends them.
    a.keep_held();
    a.acquire("db", "t8b", Mode::Shared, &limits(10)).unwrap();
    a.release_all();
    assert_eq!(a.held.len(), 2); // SNRW and X (SNRW covers the SW request)
    assert!(a.is_empty());
    assert_eq!(code(b.acquire("db", "t8", Mode::Shared, &limits(30))), 1205);
    a.release_everything();
    assert!(a.held.is_empty());
    b.acquire("db", "t8", Mode::Shared, &limits(10)).unwrap();
}

#[test]
fn a_waiting_write_lock_queues_later_reads() {
    let mut a = MdlContext::new(7201);
    a.acquire("db", "t9", Mode::Shared, &limits(10)).unwrap();
    let t = thread::spawn(|| {
        let mut w = MdlContext::new(7202);
        w.acquire("db", "t9", Mode::SharedNoReadWrite, &limits(5_000))?;
        Ok::<_, KilnError>(w)
    });
    while wait_state(7202).is_none() {
        thread::sleep(Duration::from_millis(2));
    }
    let mut b = MdlContext::new(7203);
    assert_eq!(code(b.acquire("db", "t9", Mode::Shared, &limits(30))), 1205);
    // A high-priority lock (SHOW) does not queue.
    b.acquire("db", "t9", Mode::SharedHighPrio, &limits(30))
        .unwrap();
    b.release_all();
    a.release_all();
    let mut w = t.join().unwrap().unwrap();
    w.release_all();
    assert_eq!(w.held.len(), 0);
}
