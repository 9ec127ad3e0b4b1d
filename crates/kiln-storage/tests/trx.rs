//! Transactions end to end on an in-memory file system: visibility at each isolation
//! level, rollback and savepoints, row locks (waits, NOWAIT, SKIP LOCKED, deadlocks,
//! timeouts), purge, and the rollback of transactions a crash left active.

mod common;

use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use kiln_storage::btree::BTree;
use kiln_storage::engine::Engine;
use kiln_storage::io::mem::{CrashMode, MemVfs};
use kiln_storage::trx::{
    Isolation, LockError, Mode, ReadMode, TrxConfig, TrxEngine, TrxError, TrxOptions, Wait,
};

fn trx_config() -> TrxConfig {
    TrxConfig {
        rollback_segments: 8,
        undo_tablespaces: 2,
        lock_wait_timeout: Duration::from_secs(3),
        purge_threads: 0,
        background_rollback: false,
        ..TrxConfig::default()
    }
}

struct Db {
    vfs: MemVfs,
    engine: Arc<Engine>,
    te: Arc<TrxEngine>,
    t: Arc<BTree>,
}

fn db() -> Db {
    let vfs = MemVfs::new();
    let engine = open(&vfs, &config(2048, 16 << 20, true));
    let s = engine.create_space("test/t.ibd").unwrap();
    let t = Arc::new(engine.create_tree(&s, 1).unwrap());
    let te = TrxEngine::open(engine.clone(), trx_config()).unwrap();
    te.register_tree(t.clone());
    Db { vfs, engine, te, t }
}

fn reopen(vfs: &MemVfs, config: TrxConfig) -> Db {
    let engine = open(vfs, &common::config(2048, 16 << 20, true));
    let sid = engine
        .spaces()
        .unwrap()
        .into_iter()
        .find(|(_, p)| p == "test/t.ibd")
        .unwrap()
        .0;
    let t = Arc::new(
        engine
            .open_tree(&engine.space(sid).unwrap(), 1)
            .unwrap()
            .unwrap(),
    );
    let te = TrxEngine::open(engine.clone(), config).unwrap();
    te.register_tree(t.clone());
    Db {
        vfs: vfs.clone(),
        engine,
        te,
        t,
    }
}

/// Crashes with the redo of everything so far durable (so recovery must undo what
/// was not committed rather than simply lose it), and returns the files.
fn crash(d: Db) -> MemVfs {
    d.engine.sync_to(d.engine.log().current_lsn()).unwrap();
    d.te.shutdown();
    d.engine.stop_background();
    let vfs = d.vfs.clone();
    drop(d);
    vfs.crash(CrashMode::DropUnsynced);
    vfs
}

/// Commits if `res` is a success: 0, or the MySQL error number of what failed.
fn finish<T>(tx: kiln_storage::trx::Trx, res: Result<T, TrxError>) -> u16 {
    match res {
        Ok(_) => tx.commit().map_or_else(|e| e.mysql_errno(), |_| 0),
        Err(e) => e.mysql_errno(),
    }
}

/// Two racing transactions: one commits, the other is the deadlock victim.
fn assert_one_deadlock(hs: Vec<std::thread::JoinHandle<u16>>) {
    let mut codes: Vec<u16> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    codes.sort();
    assert_eq!(codes, vec![0, 1213]);
}

fn opts(isolation: Isolation) -> TrxOptions {
    TrxOptions {
        isolation,
        ..TrxOptions::default()
    }
}

const RR: Isolation = Isolation::RepeatableRead;
const RC: Isolation = Isolation::ReadCommitted;

fn get(tx: &mut kiln_storage::trx::Trx, t: &BTree, k: &str) -> Option<String> {
    tx.read(t, k.as_bytes(), ReadMode::Consistent)
        .unwrap()
        .map(|v| String::from_utf8(v).unwrap())
}

#[test]
fn snapshots_see_commits_by_isolation_level() {
    let d = db();
    let (mut s1, mut s2) = (d.te.session().unwrap(), d.te.session().unwrap());
    let mut w = s1.begin(opts(RR));
    w.insert(&d.t, b"a", b"1").unwrap();
    w.insert(&d.t, b"b", b"1").unwrap();
    assert_eq!(
        get(&mut w, &d.t, "a").as_deref(),
        Some("1"),
        "own insert visible"
    );
    {
        let mut r = s2.begin(opts(RR));
        assert_eq!(get(&mut r, &d.t, "a"), None, "uncommitted insert invisible");
        r.commit().unwrap();
    }
    w.commit().unwrap();

    let mut rr = s2.begin(opts(RR));
    assert_eq!(get(&mut rr, &d.t, "a").as_deref(), Some("1"));
    let mut w = s1.begin(opts(RR));
    assert!(w.update(&d.t, b"a", b"2").unwrap());
    assert!(w.delete(&d.t, b"b").unwrap());
    w.insert(&d.t, b"c", b"1").unwrap();
    w.commit().unwrap();
    // REPEATABLE READ keeps its snapshot; the versions come from undo.
    assert_eq!(get(&mut rr, &d.t, "a").as_deref(), Some("1"));
    assert_eq!(get(&mut rr, &d.t, "b").as_deref(), Some("1"));
    assert_eq!(get(&mut rr, &d.t, "c"), None);
    let rows: Vec<_> = rr
        .scan(&d.t, Bound::Unbounded, Bound::Unbounded, false)
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(
        rows,
        vec![
            (b"a".to_vec(), b"1".to_vec()),
            (b"b".to_vec(), b"1".to_vec())
        ]
    );
    // A locking read sees the latest committed version even in REPEATABLE READ.
    assert_eq!(
        rr.read(&d.t, b"a", ReadMode::Share(Wait::NoWait)).unwrap(),
        Some(b"2".to_vec())
    );
    rr.commit().unwrap();
    drop(s2);

    // READ COMMITTED: a new snapshot per statement.
    let mut s2 = d.te.session().unwrap();
    let mut rc = s2.begin(opts(RC));
    assert_eq!(get(&mut rc, &d.t, "a").as_deref(), Some("2"));
    let mut w = s1.begin(opts(RR));
    w.update(&d.t, b"a", b"3").unwrap();
    rc.statement_start();
    assert_eq!(
        get(&mut rc, &d.t, "a").as_deref(),
        Some("2"),
        "not committed yet"
    );
    w.commit().unwrap();
    assert_eq!(
        get(&mut rc, &d.t, "a").as_deref(),
        Some("2"),
        "same statement"
    );
    rc.statement_start();
    assert_eq!(
        get(&mut rc, &d.t, "a").as_deref(),
        Some("3"),
        "next statement"
    );
    rc.commit().unwrap();

    // READ UNCOMMITTED sees uncommitted changes.
    let mut w = s1.begin(opts(RR));
    w.update(&d.t, b"a", b"dirty").unwrap();
    let mut ru = s2.begin(opts(Isolation::ReadUncommitted));
    assert_eq!(get(&mut ru, &d.t, "a").as_deref(), Some("dirty"));
    ru.commit().unwrap();
    w.rollback().unwrap();
    let mut r = s2.begin(opts(RR));
    assert_eq!(get(&mut r, &d.t, "a").as_deref(), Some("3"), "rolled back");
}

#[test]
fn consistent_snapshot_is_taken_at_begin() {
    let d = db();
    let (mut s1, mut s2) = (d.te.session().unwrap(), d.te.session().unwrap());
    let mut snap = s2.begin(TrxOptions {
        consistent_snapshot: true,
        ..opts(RR)
    });
    let mut w = s1.begin(opts(RR));
    w.insert(&d.t, b"x", b"1").unwrap();
    w.commit().unwrap();
    assert_eq!(get(&mut snap, &d.t, "x"), None);
}

#[test]
fn rollback_savepoints_and_read_only() {
    let d = db();
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    tx.insert(&d.t, b"k1", b"v1").unwrap();
    tx.commit().unwrap();

    let mut tx = s.begin(opts(RR));
    tx.insert(&d.t, b"k2", b"v2").unwrap();
    let sp = tx.savepoint();
    tx.update(&d.t, b"k1", b"changed").unwrap();
    tx.insert(&d.t, b"k3", b"v3").unwrap();
    tx.delete(&d.t, b"k2").unwrap();
    // A statement that fails half-way leaves nothing behind.
    assert!(matches!(
        tx.insert(&d.t, b"k1", b"dup"),
        Err(TrxError::DuplicateKey)
    ));
    tx.rollback_to(sp).unwrap();
    assert_eq!(get(&mut tx, &d.t, "k1").as_deref(), Some("v1"));
    assert_eq!(get(&mut tx, &d.t, "k2").as_deref(), Some("v2"));
    assert_eq!(get(&mut tx, &d.t, "k3"), None);
    tx.commit().unwrap();
    assert_eq!(
        dump(&d.t).len(),
        2,
        "no entry left by the rolled-back statement"
    );

    let mut tx = s.begin(opts(RR));
    tx.update(&d.t, b"k1", b"gone").unwrap();
    tx.delete(&d.t, b"k2").unwrap();
    tx.insert(&d.t, b"k9", b"v9").unwrap();
    tx.rollback().unwrap();
    let mut tx = s.begin(opts(RR));
    assert_eq!(get(&mut tx, &d.t, "k1").as_deref(), Some("v1"));
    assert_eq!(get(&mut tx, &d.t, "k2").as_deref(), Some("v2"));
    assert_eq!(get(&mut tx, &d.t, "k9"), None);
    drop(tx); // dropped without commit: rolled back

    let mut ro = s.begin(TrxOptions {
        read_only: true,
        ..opts(RR)
    });
    let e = ro.insert(&d.t, b"z", b"z").unwrap_err();
    assert!(matches!(e, TrxError::ReadOnly));
    assert_eq!(e.mysql_errno(), 1792);
    assert_eq!(get(&mut ro, &d.t, "k1").as_deref(), Some("v1"));
    assert_eq!(ro.id(), None, "a read-only transaction never gets an id");
}

#[test]
fn writers_wait_for_row_locks_and_deadlocks_roll_back_one() {
    let d = Arc::new(db());
    {
        let mut s = d.te.session().unwrap();
        let mut tx = s.begin(opts(RR));
        tx.insert(&d.t, b"a", b"0").unwrap();
        tx.insert(&d.t, b"b", b"0").unwrap();
        tx.commit().unwrap();
    }
    // NOWAIT and SKIP LOCKED against a held X lock.
    let mut s1 = d.te.session().unwrap();
    let mut s2 = d.te.session().unwrap();
    let mut t1 = s1.begin(opts(RR));
    t1.update(&d.t, b"a", b"1").unwrap();
    let mut t2 = s2.begin(opts(RR));
    let e = t2
        .read(&d.t, b"a", ReadMode::Update(Wait::NoWait))
        .unwrap_err();
    assert_eq!(e.mysql_errno(), 3572);
    assert_eq!(
        t2.read(&d.t, b"a", ReadMode::Update(Wait::Skip)).unwrap(),
        None
    );
    assert_eq!(
        t2.read(&d.t, b"b", ReadMode::Update(Wait::Skip)).unwrap(),
        Some(b"0".to_vec())
    );
    // A timeout fails the statement only.
    let e = t2
        .read(
            &d.t,
            b"a",
            ReadMode::Update(Wait::Block(Duration::from_millis(30))),
        )
        .unwrap_err();
    assert_eq!(e.mysql_errno(), 1205);
    t2.rollback().unwrap();
    drop(s2);

    // A waiting writer proceeds when the holder commits, and sees its commit.
    let h = {
        let d = d.clone();
        std::thread::spawn(move || {
            let mut s = d.te.session().unwrap();
            let mut tx = s.begin(opts(RR));
            let v = tx.read(
                &d.t,
                b"a",
                ReadMode::Update(Wait::Block(Duration::from_secs(10))),
            );
            tx.update(&d.t, b"a", b"2").unwrap();
            tx.commit().unwrap();
            v.unwrap()
        })
    };
    while d
        .te
        .locks
        .stats
        .waits
        .load(std::sync::atomic::Ordering::SeqCst)
        < 2
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    t1.commit().unwrap();
    assert_eq!(h.join().unwrap(), Some(b"1".to_vec()));

    // A deadlock: one of the two is rolled back with 1213, the other commits.
    let barrier = Arc::new(std::sync::Barrier::new(2));
    let hs: Vec<_> = [(b"a", b"b"), (b"b", b"a")]
        .into_iter()
        .map(|(first, second)| {
            let (d, barrier) = (d.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut s = d.te.session().unwrap();
                let mut tx = s.begin(opts(RR));
                tx.update(&d.t, first, b"x").unwrap();
                barrier.wait();
                let res = tx.update(&d.t, second, b"y");
                finish(tx, res)
            })
        })
        .collect();
    assert_one_deadlock(hs);
    assert!(d.te.locks.snapshot().is_empty(), "every lock released");
    assert_eq!(d.te.sys.active_count(), 0);
}

#[test]
fn purge_keeps_what_open_views_need_then_drains_history() {
    let d = db();
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    for i in 0..200u32 {
        tx.insert(&d.t, &i.to_be_bytes(), b"v0").unwrap();
    }
    tx.commit().unwrap();
    let mut old_session = d.te.session().unwrap();
    let mut old = old_session.begin(opts(RR));
    assert_eq!(
        old.read(&d.t, &7u32.to_be_bytes(), ReadMode::Consistent)
            .unwrap(),
        Some(b"v0".to_vec())
    );
    for round in 1..=3u32 {
        let mut tx = s.begin(opts(RR));
        for i in 0..200u32 {
            if i % 2 == 0 {
                tx.update(&d.t, &i.to_be_bytes(), format!("v{round}").as_bytes())
                    .unwrap();
            } else if round == 1 {
                tx.delete(&d.t, &i.to_be_bytes()).unwrap();
            }
        }
        tx.commit().unwrap();
        d.te.purge().unwrap();
    }
    // The old view still reads its versions: nothing it needs was purged.
    assert!(d.te.history_len() >= 3);
    let rows: Vec<_> = old
        .scan(&d.t, Bound::Unbounded, Bound::Unbounded, false)
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(rows.len(), 200);
    assert!(rows.iter().all(|(_, v)| v == b"v0"));
    old.commit().unwrap();
    drop(old_session);
    d.te.purge().unwrap();
    assert_eq!(d.te.history_len(), 0, "history drained");
    // Delete-marked entries are gone, and the undo trees are empty again.
    assert_eq!(dump(&d.t).len(), 100);
    assert_eq!(d.te.sys.commit_map_len(), 0);
    let mut r = s.begin(opts(RR));
    assert_eq!(
        r.scan(&d.t, Bound::Unbounded, Bound::Unbounded, false)
            .count(),
        100
    );
    r.commit().unwrap();
}

#[test]
fn a_crash_rolls_back_what_was_not_committed() {
    let d = db();
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    for i in 0..50u32 {
        tx.insert(&d.t, &i.to_be_bytes(), b"committed").unwrap();
    }
    tx.commit().unwrap();
    // Active at the crash: updates, deletes, inserts.
    let mut tx = s.begin(opts(RR));
    for i in 0..50u32 {
        match i % 3 {
            0 => assert!(tx.update(&d.t, &i.to_be_bytes(), b"uncommitted").unwrap()),
            1 => assert!(tx.delete(&d.t, &i.to_be_bytes()).unwrap()),
            _ => tx.insert(&d.t, &(1000 + i).to_be_bytes(), b"new").unwrap(),
        }
    }
    std::mem::forget(tx);
    std::mem::forget(s);
    let vfs = crash(d);

    let d = reopen(&vfs, trx_config());
    assert_eq!(d.te.recovering(), 0, "rolled back during open");
    let mut s = d.te.session().unwrap();
    let mut r = s.begin(opts(RR));
    let rows: Vec<_> = r
        .scan(&d.t, Bound::Unbounded, Bound::Unbounded, false)
        .map(|x| x.unwrap())
        .collect();
    assert_eq!(rows.len(), 50);
    assert!(rows.iter().all(|(_, v)| v == b"committed"), "{rows:?}");
    r.commit().unwrap();
    // New transactions get fresh ids and work normally.
    let mut tx = s.begin(opts(RR));
    tx.update(&d.t, &1u32.to_be_bytes(), b"after").unwrap();
    tx.commit().unwrap();
    d.te.purge().unwrap();
    assert_eq!(d.te.history_len(), 0);
}

#[test]
fn background_rollback_keeps_rows_locked_until_done() {
    let d = db();
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    tx.insert(&d.t, b"row", b"v1").unwrap();
    tx.commit().unwrap();
    let mut tx = s.begin(opts(RR));
    tx.update(&d.t, b"row", b"v2").unwrap();
    std::mem::forget(tx);
    std::mem::forget(s);
    let vfs = crash(d);
    let d = reopen(
        &vfs,
        TrxConfig {
            background_rollback: true,
            ..trx_config()
        },
    );
    // Whether or not the rollback is done yet, readers see the committed version,
    // and a writer gets the row only after the rollback.
    let mut s = d.te.session().unwrap();
    let mut r = s.begin(opts(RR));
    assert_eq!(get(&mut r, &d.t, "row").as_deref(), Some("v1"));
    r.commit().unwrap();
    let mut w = s.begin(opts(RR));
    assert_eq!(
        w.read(
            &d.t,
            b"row",
            ReadMode::Update(Wait::Block(Duration::from_secs(10)))
        )
        .unwrap(),
        Some(b"v1".to_vec())
    );
    w.commit().unwrap();
    d.te.wait_recovered();
    assert_eq!(d.te.recovering(), 0);
}

#[test]
fn lock_modes_share_and_exclude() {
    let d = db();
    let mut s1 = d.te.session().unwrap();
    let mut s2 = d.te.session().unwrap();
    let mut a = s1.begin(opts(RR));
    a.insert(&d.t, b"r", b"1").unwrap();
    a.commit().unwrap();
    let mut a = s1.begin(opts(RR));
    let mut b = s2.begin(opts(RR));
    assert!(a.lock(&d.t, b"r", Mode::S, Wait::NoWait).unwrap());
    assert!(b.lock(&d.t, b"r", Mode::S, Wait::NoWait).unwrap());
    // X waits for both S holders; S holders do not block each other.
    assert!(matches!(
        b.lock(&d.t, b"r", Mode::X, Wait::NoWait),
        Err(TrxError::Lock(LockError::NoWait))
    ));
    a.commit().unwrap();
    assert!(
        b.lock(&d.t, b"r", Mode::X, Wait::NoWait).unwrap(),
        "upgrade once alone"
    );
    assert!(b.update(&d.t, b"r", b"2").unwrap());
    b.commit().unwrap();
}

fn balance(v: &[u8]) -> i64 {
    i64::from_be_bytes(v.try_into().unwrap())
}

/// Many threads move amounts between accounts in random order (so they deadlock),
/// some abort on purpose; readers check that every snapshot's total is constant.
/// Afterwards the total is intact, every lock is gone, and purge drains the history.
#[test]
fn transfers_keep_the_total_under_concurrency() {
    const ACCOUNTS: u32 = 20;
    let d = Arc::new(db());
    {
        let mut s = d.te.session().unwrap();
        let mut tx = s.begin(opts(RR));
        for a in 0..ACCOUNTS {
            tx.insert(&d.t, &a.to_be_bytes(), &1000i64.to_be_bytes())
                .unwrap();
        }
        tx.commit().unwrap();
    }
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = (0..4u64)
        .map(|w| {
            let d = d.clone();
            std::thread::spawn(move || {
                let mut rng = Rng(w * 7 + 1);
                let mut s = d.te.session().unwrap();
                let (mut commits, mut deadlocks) = (0, 0);
                for _ in 0..400 {
                    let from = rng.below(ACCOUNTS as u64) as u32;
                    let to = (from + 1 + rng.below(ACCOUNTS as u64 - 1) as u32) % ACCOUNTS;
                    let amount = rng.below(50) as i64;
                    let iso = if rng.below(2) == 0 { RR } else { RC };
                    let mut tx = s.begin(opts(iso));
                    let res = (|| -> Result<(), TrxError> {
                        for (acct, delta) in [(from, -amount), (to, amount)] {
                            let k = acct.to_be_bytes();
                            let wait = Wait::Block(Duration::from_secs(10));
                            let v = tx.read(&d.t, &k, ReadMode::Update(wait))?.unwrap();
                            tx.update(&d.t, &k, &(balance(&v) + delta).to_be_bytes())?;
                        }
                        Ok(())
                    })();
                    match res {
                        Ok(()) if rng.below(10) == 0 => tx.rollback().unwrap(),
                        Ok(()) => {
                            tx.commit().unwrap();
                            commits += 1;
                        }
                        Err(e) => {
                            assert_eq!(e.mysql_errno(), 1213, "{e}: {:?}", d.te.locks.snapshot());
                            deadlocks += 1;
                            // Already rolled back by the deadlock: dropping is a no-op.
                        }
                    }
                }
                (commits, deadlocks)
            })
        })
        .collect();
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (d, stop) = (d.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut s = d.te.session().unwrap();
                let mut checks = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) || checks == 0 {
                    let mut tx = s.begin(opts(RR));
                    let total: i64 = tx
                        .scan(&d.t, Bound::Unbounded, Bound::Unbounded, false)
                        .map(|r| balance(&r.unwrap().1))
                        .sum();
                    assert_eq!(
                        total,
                        1000 * ACCOUNTS as i64,
                        "a snapshot saw a partial transfer"
                    );
                    tx.commit().unwrap();
                    checks += 1;
                }
                checks
            })
        })
        .collect();
    let purger = {
        let (d, stop) = (d.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                d.te.purge().unwrap();
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let (mut commits, mut deadlocks) = (0, 0);
    for w in writers {
        let (c, dl) = w.join().unwrap();
        commits += c;
        deadlocks += dl;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let checks: usize = readers.into_iter().map(|r| r.join().unwrap()).sum();
    purger.join().unwrap();
    assert!(commits > 500, "commits {commits}");
    assert!(checks > 0);
    eprintln!("transfers: {commits} commits, {deadlocks} deadlocks, {checks} snapshot checks");
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    let total: i64 = tx
        .scan(&d.t, Bound::Unbounded, Bound::Unbounded, false)
        .map(|r| balance(&r.unwrap().1))
        .sum();
    assert_eq!(total, 1000 * ACCOUNTS as i64);
    tx.commit().unwrap();
    drop(s);
    assert!(d.te.locks.snapshot().is_empty());
    assert_eq!(d.te.sys.active_count(), 0);
    d.te.purge().unwrap();
    assert_eq!(d.te.history_len(), 0);
}

/// Inserts `key` in a new transaction on another thread; returns a handle yielding
/// the insert's result once it ran (after waiting for locks, if it had to).
fn insert_elsewhere(
    d: &Arc<Db>,
    key: impl AsRef<[u8]>,
) -> std::thread::JoinHandle<Result<(), u16>> {
    let (d, key) = (d.clone(), key.as_ref().to_vec());
    std::thread::spawn(move || {
        let mut s = d.te.session().unwrap();
        let mut tx = s.begin(opts(RR));
        tx.insert(&d.t, &key, b"new").map_err(|e| e.mysql_errno())?;
        tx.commit().map_err(|e| e.mysql_errno())
    })
}

fn waits(d: &Db, h: &std::thread::JoinHandle<Result<(), u16>>) -> bool {
    for _ in 0..50 {
        if h.is_finished() {
            return false;
        }
        if d.te.locks.snapshot().iter().any(|l| !l.granted) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    !h.is_finished()
}

#[test]
fn locking_range_reads_keep_phantoms_out_in_repeatable_read() {
    let d = Arc::new(db());
    {
        let mut s = d.te.session().unwrap();
        let mut tx = s.begin(opts(RR));
        for k in [10u32, 20, 30] {
            tx.insert(&d.t, &k.to_be_bytes(), b"v").unwrap();
        }
        tx.commit().unwrap();
    }
    let (lo, hi) = (10u32.to_be_bytes(), 20u32.to_be_bytes());
    for (iso, blocks) in [(RR, true), (RC, false)] {
        let mut s = d.te.session().unwrap();
        let mut t1 = s.begin(opts(iso));
        let rows = t1
            .scan_locking(
                &d.t,
                Bound::Included(&lo[..]),
                Bound::Excluded(&hi[..]),
                false,
                Mode::X,
                Wait::NoWait,
            )
            .unwrap();
        assert_eq!(rows.len(), 1);
        // Into the scanned range: a phantom unless the gaps are locked.
        let h = insert_elsewhere(&d, 15u32.to_be_bytes());
        assert_eq!(waits(&d, &h), blocks, "{iso:?}: insert of 15 into [10, 20)");
        // Outside it (past the next entry): never blocked.
        let outside = insert_elsewhere(&d, (25 + blocks as u32).to_be_bytes());
        assert_eq!(outside.join().unwrap(), Ok(()));
        t1.commit().unwrap();
        assert_eq!(h.join().unwrap(), Ok(()));
        // Clean up for the next round.
        let mut tx = s.begin(opts(RR));
        tx.delete(&d.t, &15u32.to_be_bytes()).unwrap();
        tx.commit().unwrap();
        d.te.purge().unwrap();
    }
}

#[test]
fn a_locking_read_of_a_missing_row_locks_its_gap() {
    let d = Arc::new(db());
    {
        let mut s = d.te.session().unwrap();
        let mut tx = s.begin(opts(RR));
        for k in [10u32, 20] {
            tx.insert(&d.t, &k.to_be_bytes(), b"v").unwrap();
        }
        tx.commit().unwrap();
    }
    let mut s = d.te.session().unwrap();
    let mut t1 = s.begin(opts(RR));
    let got = t1
        .read(&d.t, &15u32.to_be_bytes(), ReadMode::Update(Wait::NoWait))
        .unwrap();
    assert_eq!(got, None);
    let h = insert_elsewhere(&d, 15u32.to_be_bytes());
    assert!(waits(&d, &h), "the gap (10, 20) is locked");
    // A DELETE of a missing row locks its gap too.
    assert!(!t1.delete(&d.t, &17u32.to_be_bytes()).unwrap());
    t1.commit().unwrap();
    assert_eq!(h.join().unwrap(), Ok(()));
}

#[test]
fn serializable_write_skew_on_a_predicate_deadlocks_one_side() {
    // Hermitage G2 at SERIALIZABLE: both read the (empty) predicate, both insert into
    // it; InnoDB makes one of them wait and the other a deadlock victim.
    let d = Arc::new(db());
    let ser = TrxOptions {
        isolation: Isolation::Serializable,
        ..TrxOptions::default()
    };
    let barrier = Arc::new(std::sync::Barrier::new(2));
    let hs: Vec<_> = [3u32, 4]
        .into_iter()
        .map(|key| {
            let (d, barrier) = (d.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut s = d.te.session().unwrap();
                let mut tx = s.begin(ser);
                let n = tx
                    .scan(&d.t, Bound::Unbounded, Bound::Unbounded, false)
                    .count();
                assert_eq!(n, 0);
                barrier.wait();
                let res = tx.insert(&d.t, &key.to_be_bytes(), b"x");
                finish(tx, res)
            })
        })
        .collect();
    assert_one_deadlock(hs);
}

/// A table (id → (k, pad)) with a secondary index on k, as sysbench's sbtest, and an
/// optional unique index on pad.
fn sbtest(d: &Db) -> kiln_storage::trx::Table {
    use kiln_storage::trx::{SecKey, Secondary, Table};
    let space = d.engine.create_space("test/sbtest.ibd").unwrap();
    let clustered = Arc::new(d.engine.create_tree(&space, 1).unwrap());
    let k_idx = Arc::new(d.engine.create_tree(&space, 2).unwrap());
    let pad_idx = Arc::new(d.engine.create_tree(&space, 3).unwrap());
    for t in [&clustered, &k_idx, &pad_idx] {
        d.te.register_tree(t.clone());
    }
    // Row: k u32 BE | pad bytes ("" = NULL).
    Table {
        clustered,
        secondaries: vec![
            Secondary {
                tree: k_idx,
                unique: false,
                key_of: Arc::new(|row: &[u8]| SecKey {
                    bytes: row[..4].to_vec(),
                    has_null: false,
                }),
            },
            Secondary {
                tree: pad_idx,
                unique: true,
                key_of: Arc::new(|row: &[u8]| {
                    let mut bytes = row[4..].to_vec();
                    bytes.push(0); // prefix-free
                    SecKey {
                        bytes,
                        has_null: row.len() == 4,
                    }
                }),
            },
        ],
    }
}

fn sbrow(k: u32, pad: &str) -> Vec<u8> {
    let mut r = k.to_be_bytes().to_vec();
    r.extend_from_slice(pad.as_bytes());
    r
}

#[test]
fn secondary_indexes_follow_snapshots_and_purge() {
    let d = db();
    let t = sbtest(&d);
    let mut s = d.te.session().unwrap();
    let mut old_s = d.te.session().unwrap();
    let pk = |i: u32| i.to_be_bytes();
    let k = |v: u32| v.to_be_bytes();
    let mut tx = s.begin(opts(RR));
    for i in 0..20u32 {
        tx.table_insert(&t, &pk(i), &sbrow(i % 4, &format!("pad{i}")))
            .unwrap();
    }
    tx.commit().unwrap();
    let mut old = old_s.begin(opts(RR));
    assert_eq!(old.table_lookup(&t, 0, &k(1)).unwrap().len(), 5);
    // Move rows 1 and 5 from k=1 to k=3; delete row 9 (k=1).
    let mut tx = s.begin(opts(RR));
    assert!(tx.table_update(&t, &pk(1), &sbrow(3, "pad1")).unwrap());
    assert!(tx.table_update(&t, &pk(5), &sbrow(3, "pad5")).unwrap());
    assert!(tx.table_delete(&t, &pk(9)).unwrap());
    assert_eq!(
        tx.table_lookup(&t, 0, &k(1)).unwrap().len(),
        2,
        "own changes"
    );
    tx.commit().unwrap();
    let pks = |rows: Vec<(Vec<u8>, Vec<u8>)>| -> Vec<u32> {
        rows.into_iter()
            .map(|(p, _)| u32::from_be_bytes(p.try_into().unwrap()))
            .collect()
    };
    // The old snapshot still finds them by their old key, through delete-marked entries.
    assert_eq!(
        pks(old.table_lookup(&t, 0, &k(1)).unwrap()),
        vec![1, 5, 9, 13, 17]
    );
    assert_eq!(
        pks(old.table_lookup(&t, 0, &k(3)).unwrap()),
        vec![3, 7, 11, 15, 19]
    );
    let mut new = s.begin(opts(RR));
    assert_eq!(pks(new.table_lookup(&t, 0, &k(1)).unwrap()), vec![13, 17]);
    assert_eq!(
        pks(new.table_lookup(&t, 0, &k(3)).unwrap()),
        vec![1, 3, 5, 7, 11, 15, 19]
    );
    new.commit().unwrap();
    // Purge waits for the old view, then removes the marked entries.
    d.te.purge().unwrap();
    assert_eq!(
        dump(&t.secondaries[0].tree).len(),
        22,
        "20 + 2 new; 3 marked ones kept"
    );
    old.commit().unwrap();
    d.te.purge().unwrap();
    assert_eq!(dump(&t.secondaries[0].tree).len(), 19);
    assert_eq!(dump(&t.secondaries[1].tree).len(), 19);
    assert_eq!(dump(&t.clustered).len(), 19);
    // Rolled-back changes leave the indexes as they were.
    let before = (dump(&t.secondaries[0].tree), dump(&t.secondaries[1].tree));
    let mut tx = s.begin(opts(RR));
    tx.table_update(&t, &pk(2), &sbrow(0, "changed")).unwrap();
    tx.table_delete(&t, &pk(3)).unwrap();
    tx.table_insert(&t, &pk(100), &sbrow(7, "hundred")).unwrap();
    tx.rollback().unwrap();
    d.te.purge().unwrap();
    assert_eq!(
        (dump(&t.secondaries[0].tree), dump(&t.secondaries[1].tree)),
        before
    );
}

#[test]
fn unique_secondary_values_are_checked_under_locks() {
    let d = Arc::new(db());
    let t = Arc::new(sbtest(&d));
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    tx.table_insert(&t, b"p1", &sbrow(1, "same")).unwrap();
    tx.table_insert(&t, b"n1", &sbrow(1, "")).unwrap();
    tx.table_insert(&t, b"n2", &sbrow(1, "")).unwrap(); // NULLs never conflict
    tx.commit().unwrap();
    let mut tx = s.begin(opts(RR));
    let sp = tx.savepoint();
    let e = tx.table_insert(&t, b"p2", &sbrow(2, "same")).unwrap_err();
    assert_eq!(e.mysql_errno(), 1062);
    tx.rollback_to(sp).unwrap();
    // An update onto the value is a duplicate too.
    let e = tx.table_update(&t, b"n1", &sbrow(1, "same")).unwrap_err();
    assert_eq!(e.mysql_errno(), 1062);
    tx.rollback().unwrap();

    // A delete not yet committed keeps the value: an insert of it waits for the
    // outcome, then fails (rollback) or succeeds (commit).
    for (commit, want) in [(false, Err(1062)), (true, Ok(()))] {
        let mut del = s.begin(opts(RR));
        assert!(del.table_delete(&t, b"p1").unwrap());
        let h = {
            let (d, t) = (d.clone(), t.clone());
            std::thread::spawn(move || {
                let mut s = d.te.session().unwrap();
                let mut tx = s.begin(opts(RR));
                let r = tx.table_insert(&t, b"p3", &sbrow(3, "same"));
                match r {
                    Ok(()) => tx.commit().map_err(|e| e.mysql_errno()),
                    Err(e) => Err(e.mysql_errno()),
                }
            })
        };
        assert!(waits(&d, &h), "the inserter waits for the deleter");
        if commit {
            del.commit().unwrap();
        } else {
            del.rollback().unwrap();
        }
        assert_eq!(h.join().unwrap(), want, "deleter committed: {commit}");
    }
}

#[test]
fn a_crash_rolls_back_secondary_index_changes() {
    let d = db();
    let t = sbtest(&d);
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    for i in 0..30u32 {
        tx.table_insert(&t, &i.to_be_bytes(), &sbrow(i % 5, &format!("p{i}")))
            .unwrap();
    }
    tx.commit().unwrap();
    let before: Vec<Model> = [&t.clustered, &t.secondaries[0].tree, &t.secondaries[1].tree]
        .iter()
        .map(|x| dump(x))
        .collect();
    let mut tx = s.begin(opts(RR));
    for i in 0..30u32 {
        match i % 3 {
            0 => assert!(
                tx.table_update(&t, &i.to_be_bytes(), &sbrow(9, &format!("q{i}")))
                    .unwrap()
            ),
            1 => assert!(tx.table_delete(&t, &i.to_be_bytes()).unwrap()),
            _ => tx
                .table_insert(&t, &(100 + i).to_be_bytes(), &sbrow(8, &format!("r{i}")))
                .unwrap(),
        }
    }
    std::mem::forget(tx);
    std::mem::forget(s);
    drop(t);
    let vfs = crash(d);
    let d = reopen(&vfs, trx_config());
    let sid = d
        .engine
        .spaces()
        .unwrap()
        .into_iter()
        .find(|(_, p)| p == "test/sbtest.ibd")
        .unwrap()
        .0;
    let sp = d.engine.space(sid).unwrap();
    let after: Vec<Model> = (1..=3)
        .map(|ix| dump(&d.engine.open_tree(&sp, ix).unwrap().unwrap()))
        .collect();
    assert_eq!(
        after, before,
        "clustered and both secondary indexes as before"
    );
}

#[test]
fn timeout_rollback_purge_lag_and_lock_listing() {
    // innodb_rollback_on_timeout: the whole transaction goes, not only the statement.
    let vfs = MemVfs::new();
    let engine = open(&vfs, &config(1024, 16 << 20, false));
    let space = engine.create_space("test/t.ibd").unwrap();
    let t = Arc::new(engine.create_tree(&space, 1).unwrap());
    let te = TrxEngine::open(
        engine.clone(),
        TrxConfig {
            lock_wait_timeout: Duration::from_millis(50),
            rollback_on_timeout: true,
            max_purge_lag: 2,
            max_purge_lag_delay_us: 1000,
            ..trx_config()
        },
    )
    .unwrap();
    te.register_tree(t.clone());
    let (mut s1, mut s2) = (te.session().unwrap(), te.session().unwrap());
    let mut a = s1.begin(opts(RR));
    a.insert(&t, b"held", b"1").unwrap();
    let mut b = s2.begin(opts(RR));
    b.insert(&t, b"mine", b"1").unwrap();
    let h = std::thread::scope(|sc| {
        let h = sc.spawn(|| {
            b.read(
                &t,
                b"held",
                ReadMode::Update(Wait::Block(Duration::from_millis(300))),
            )
        });
        // While it waits, the listing shows who waits for what.
        let mut seen = false;
        for _ in 0..1000 {
            let rows = te.transactions();
            if rows
                .iter()
                .any(|r| r.waiting_for.as_ref().is_some_and(|k| k.key == b"held"))
            {
                seen = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        (seen, h.join().unwrap())
    });
    assert!(h.0, "the waiting transaction is listed as waiting");
    assert_eq!(h.1.unwrap_err().mysql_errno(), 1205);
    assert_eq!(b.id(), None, "rolled back entirely");
    drop(b);
    a.commit().unwrap();
    let mut r = s2.begin(opts(RR));
    assert_eq!(get(&mut r, &t, "mine"), None, "its earlier insert is gone");
    r.commit().unwrap();
    // innodb_max_purge_lag: with purge not running, history piles up and writers wait.
    assert_eq!(te.purge_lag_delay(), Duration::ZERO);
    for i in 0..5u32 {
        let mut tx = s1.begin(opts(RR));
        tx.insert(&t, &i.to_be_bytes(), b"x").unwrap();
        tx.commit().unwrap();
    }
    assert!(te.history_len() >= 5);
    assert_eq!(
        te.purge_lag_delay(),
        Duration::from_micros(1000),
        "capped by the max delay"
    );
    te.purge().unwrap();
    assert_eq!(te.purge_lag_delay(), Duration::ZERO);
}

#[test]
fn purged_undo_space_is_reused() {
    let d = db();
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    for i in 0..2000u32 {
        tx.insert(&d.t, &i.to_be_bytes(), &[1u8; 200]).unwrap();
    }
    tx.commit().unwrap();
    // Pages in use (page count − free) of the undo tablespaces and the table.
    let used = |d: &Db| -> u32 {
        d.engine
            .spaces()
            .unwrap()
            .into_iter()
            .filter(|(_, p)| p.starts_with("undo_") || p == "test/t.ibd")
            .map(|(id, _)| {
                let (pages, free) = d.engine.space(id).unwrap().usage().unwrap();
                pages - free
            })
            .sum()
    };
    let mut sizes = Vec::new();
    for round in 0..4u32 {
        // Every row updated twice and some deleted and re-inserted: megabytes of undo.
        for pass in 0..2u8 {
            let mut tx = s.begin(opts(RR));
            for i in 0..2000u32 {
                tx.update(&d.t, &i.to_be_bytes(), &[round as u8 * 2 + pass; 200])
                    .unwrap();
            }
            tx.commit().unwrap();
        }
        let mut tx = s.begin(opts(RR));
        for i in (0..2000u32).step_by(7) {
            tx.delete(&d.t, &i.to_be_bytes()).unwrap();
        }
        tx.commit().unwrap();
        let mut tx = s.begin(opts(RR));
        for i in (0..2000u32).step_by(7) {
            tx.insert(&d.t, &i.to_be_bytes(), &[9u8; 200]).unwrap();
        }
        tx.commit().unwrap();
        assert!(d.te.history_len() >= 4);
        d.te.purge().unwrap();
        assert_eq!(d.te.history_len(), 0, "round {round}: history drained");
        sizes.push(used(&d));
    }
    // The same work again and again needs no more pages: purged undo pages are reused
    // (without purge, each round adds some 80 pages of undo).
    assert!(
        sizes[3] <= sizes[0] + sizes[0] / 20,
        "pages in use grew from {} to {}: {sizes:?}",
        sizes[0],
        sizes[3]
    );
}

#[test]
fn inserts_lock_implicitly_until_someone_asks() {
    let d = Arc::new(db());
    let mut s = d.te.session().unwrap();
    let mut t1 = s.begin(opts(RR));
    t1.insert(&d.t, b"k", b"v").unwrap();
    assert!(
        d.te.locks.snapshot().is_empty(),
        "an insert into an unlocked gap takes no lock: its trx id is the lock"
    );
    // A locking read converts it into an explicit lock and waits behind it.
    let h = {
        let d = d.clone();
        std::thread::spawn(move || {
            let mut s = d.te.session().unwrap();
            let mut tx = s.begin(opts(RR));
            let wait = Wait::Block(Duration::from_secs(10));
            let r = tx.read(&d.t, b"k", ReadMode::Share(wait)).unwrap();
            tx.commit().unwrap();
            r
        })
    };
    let converted = (0..1000).any(|_| {
        std::thread::sleep(Duration::from_millis(2));
        let l = d.te.locks.snapshot();
        l.iter().any(|r| r.granted && Some(r.trx) == t1.id()) && l.iter().any(|r| !r.granted)
    });
    assert!(
        converted,
        "the inserter's lock became explicit, the reader waits"
    );
    t1.commit().unwrap();
    assert_eq!(h.join().unwrap(), Some(b"v".to_vec()));

    // Two inserts of one new key: the second waits for the first's outcome.
    for (commit, want) in [(true, Err(1062)), (false, Ok(()))] {
        let mut first = s.begin(opts(RR));
        first.insert(&d.t, b"dup", b"1").unwrap();
        let h = insert_elsewhere(&d, b"dup");
        assert!(waits(&d, &h), "the second insert waits");
        if commit {
            first.commit().unwrap();
        } else {
            first.rollback().unwrap();
        }
        assert_eq!(h.join().unwrap(), want, "first committed: {commit}");
        let mut tx = s.begin(opts(RR));
        tx.delete(&d.t, b"dup").unwrap();
        tx.commit().unwrap();
        d.te.purge().unwrap();
    }
}

#[test]
fn locking_reads_through_a_secondary_index_keep_phantoms_out() {
    let d = Arc::new(db());
    let t = Arc::new(sbtest(&d));
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    for i in 0..10u32 {
        tx.table_insert(&t, &i.to_be_bytes(), &sbrow(i, &format!("p{i}")))
            .unwrap();
    }
    tx.commit().unwrap();
    let k = |v: u32| v.to_be_bytes();
    for (iso, blocks) in [(RR, true), (RC, false)] {
        let mut t1 = s.begin(opts(iso));
        let (lo, hi) = (k(2), k(4));
        let rows = t1
            .table_lookup_locking(
                &t,
                0,
                Bound::Included(&lo[..]),
                Bound::Included(&hi[..]),
                Mode::X,
                Wait::NoWait,
            )
            .unwrap();
        assert_eq!(rows.len(), 3, "{iso:?}: k in [2, 4]");
        // A new row with k = 3, and an existing row moving to k = 3: phantoms.
        let (d2, t2) = (d.clone(), t.clone());
        let h = std::thread::spawn(move || {
            let mut s = d2.te.session().unwrap();
            let mut tx = s.begin(opts(RR));
            tx.table_insert(&t2, &100u32.to_be_bytes(), &sbrow(3, "new"))
                .map_err(|e| e.mysql_errno())?;
            tx.table_update(&t2, &9u32.to_be_bytes(), &sbrow(3, "p9"))
                .map_err(|e| e.mysql_errno())?;
            tx.rollback().map_err(|e| e.mysql_errno())
        });
        assert_eq!(waits(&d, &h), blocks, "{iso:?}: a phantom in k in [2, 4]");
        t1.commit().unwrap();
        assert_eq!(h.join().unwrap(), Ok(()));
    }
}

#[test]
fn a_failed_statement_leaves_no_partial_rows() {
    let d = db();
    let t = sbtest(&d);
    let mut s = d.te.session().unwrap();
    let mut tx = s.begin(opts(RR));
    tx.table_insert(&t, b"b", &sbrow(1, "taken")).unwrap();
    // INSERT INTO t VALUES (a), (c), (d: duplicate pad) — fails on the third row.
    let res = tx.statement(|tx| {
        tx.table_insert(&t, b"a", &sbrow(1, "x"))?;
        tx.table_insert(&t, b"c", &sbrow(2, "y"))?;
        tx.table_insert(&t, b"d", &sbrow(3, "taken"))
    });
    assert_eq!(res.unwrap_err().mysql_errno(), 1062);
    // The transaction goes on, with the statement's rows gone from every index.
    tx.table_insert(&t, b"e", &sbrow(5, "z")).unwrap();
    tx.commit().unwrap();
    let keys: Vec<Vec<u8>> = dump(&t.clustered).into_keys().collect();
    assert_eq!(keys, vec![b"b".to_vec(), b"e".to_vec()]);
    assert_eq!(dump(&t.secondaries[0].tree).len(), 2);
    assert_eq!(dump(&t.secondaries[1].tree).len(), 2);
}
