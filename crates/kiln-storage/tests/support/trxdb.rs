//! What the transaction tests share: an engine with a table on an in-memory file
//! system, crash and reopen, an sbtest-like table with secondary indexes, and small
//! helpers for running statements on other threads.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use crate::common::*;
use kiln_storage::btree::BTree;
use kiln_storage::engine::Engine;
use kiln_storage::io::mem::{CrashMode, MemVfs};
use kiln_storage::trx::{Isolation, ReadMode, TrxConfig, TrxEngine, TrxError, TrxOptions};

pub fn trx_config() -> TrxConfig {
    TrxConfig {
        rollback_segments: 8,
        undo_tablespaces: 2,
        lock_wait_timeout: Duration::from_secs(3),
        purge_threads: 0,
        background_rollback: false,
        ..TrxConfig::default()
    }
}

pub struct Db {
    pub vfs: MemVfs,
    pub engine: Arc<Engine>,
    pub te: Arc<TrxEngine>,
    pub t: Arc<BTree>,
}

pub fn db() -> Db {
    let vfs = MemVfs::new();
    let engine = open(&vfs, &config(2048, 16 << 20, true));
    let s = engine.create_space("test/t.ibd").unwrap();
    let t = Arc::new(engine.create_tree(&s, 1).unwrap());
    let te = TrxEngine::open(engine.clone(), trx_config()).unwrap();
    te.register_tree(t.clone());
    Db { vfs, engine, te, t }
}

pub fn reopen(vfs: &MemVfs, config: TrxConfig) -> Db {
    let engine = open(vfs, &crate::common::config(2048, 16 << 20, true));
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
pub fn crash(d: Db) -> MemVfs {
    d.engine.sync_to(d.engine.log().current_lsn()).unwrap();
    d.te.shutdown();
    d.engine.stop_background();
    let vfs = d.vfs.clone();
    drop(d);
    vfs.crash(CrashMode::DropUnsynced);
    vfs
}

/// Commits if `res` is a success: 0, or the MySQL error number of what failed.
pub fn finish<T>(tx: kiln_storage::trx::Trx, res: Result<T, TrxError>) -> u16 {
    match res {
        Ok(_) => tx.commit().map_or_else(|e| e.mysql_errno(), |_| 0),
        Err(e) => e.mysql_errno(),
    }
}

/// Two racing transactions: one commits, the other is the deadlock victim.
pub fn assert_one_deadlock(hs: Vec<std::thread::JoinHandle<u16>>) {
    let mut codes: Vec<u16> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    codes.sort();
    assert_eq!(codes, vec![0, 1213]);
}

pub fn opts(isolation: Isolation) -> TrxOptions {
    TrxOptions {
        isolation,
        ..TrxOptions::default()
    }
}

pub const RR: Isolation = Isolation::RepeatableRead;

pub const RC: Isolation = Isolation::ReadCommitted;

pub fn get(tx: &mut kiln_storage::trx::Trx, t: &BTree, k: &str) -> Option<String> {
    tx.read(t, k.as_bytes(), ReadMode::Consistent)
        .unwrap()
        .map(|v| String::from_utf8(v).unwrap())
}

pub fn balance(v: &[u8]) -> i64 {
    i64::from_be_bytes(v.try_into().unwrap())
}

/// Inserts `key` in a new transaction on another thread; returns a handle yielding
/// the insert's result once it ran (after waiting for locks, if it had to).
pub fn insert_elsewhere(
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

pub fn waits(d: &Db, h: &std::thread::JoinHandle<Result<(), u16>>) -> bool {
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

/// A table (id → (k, pad)) with a secondary index on k, as sysbench's sbtest, and an
/// optional unique index on pad.
pub fn sbtest(d: &Db) -> kiln_storage::trx::Table {
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

pub fn sbrow(k: u32, pad: &str) -> Vec<u8> {
    let mut r = k.to_be_bytes().to_vec();
    r.extend_from_slice(pad.as_bytes());
    r
}
