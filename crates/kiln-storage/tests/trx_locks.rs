//! Row locks end to end: phantoms kept out by gap and next-key locks in REPEATABLE
//! READ (not in READ COMMITTED), locking reads of missing rows, SERIALIZABLE write
//! skew, implicit locks of inserts, lock wait timeouts with innodb_rollback_on_timeout,
//! the purge-lag delay and the lock listing.
mod common;
#[path = "support/trxdb.rs"]
mod trxdb;

use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use kiln_storage::io::mem::MemVfs;
use kiln_storage::trx::{Isolation, Mode, ReadMode, TrxConfig, TrxEngine, TrxOptions, Wait};
use trxdb::*;

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
