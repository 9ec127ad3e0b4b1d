//! Transactions end to end on an in-memory file system: visibility at each isolation
//! level, rollback and savepoints, row locks (waits, NOWAIT, SKIP LOCKED, deadlocks,
//! timeouts), purge, and the rollback of transactions a crash left active.
mod common;
#[path = "support/trxdb.rs"]
mod trxdb;

use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use kiln_storage::trx::{
    Isolation, LockError, Mode, ReadMode, TrxConfig, TrxError, TrxOptions, Wait,
};
use trxdb::*;

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

/// A transaction purge is working on is still history: `history_len` (which
/// `Innodb_history_list_length` and the `innodb_max_purge_lag` delay read) drops one
/// at a time as each transaction's undo goes, not all at once as the pass starts.
#[test]
fn history_len_counts_the_transactions_being_purged() {
    let d = db();
    let mut s = d.te.session().unwrap();
    for i in 0..3u32 {
        let mut tx = s.begin(opts(RR));
        tx.insert(&d.t, &i.to_be_bytes(), b"v").unwrap();
        tx.commit().unwrap();
        let mut tx = s.begin(opts(RR));
        assert!(tx.delete(&d.t, &i.to_be_bytes()).unwrap());
        tx.commit().unwrap();
    }
    assert_eq!(d.te.history_len(), 6);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (te, seen_by_hook) = (Arc::downgrade(&d.te), seen.clone());
    d.te.set_purge_hook(Some(Arc::new(move |_trx| {
        let te = te.upgrade().expect("the engine outlives its purge");
        seen_by_hook.lock().unwrap().push(te.history_len());
    })));
    assert_eq!(d.te.purge().unwrap(), 6);
    assert_eq!(*seen.lock().unwrap(), vec![6, 5, 4, 3, 2, 1]);
    assert_eq!(d.te.history_len(), 0);
    assert_eq!(dump(&d.t).len(), 0, "the delete-marked rows are gone");
    d.te.set_purge_hook(None);
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
    tx.abandon();
    drop(s);
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
    tx.abandon();
    drop(s);
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
