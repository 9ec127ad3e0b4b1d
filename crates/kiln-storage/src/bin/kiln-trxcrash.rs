//! Crash-test driver for transactions on real files (used by `tests/kill9_trx.rs`).
//!
//! `kiln-trxcrash run DIR SEED`: opens (recovering) the engine and the transaction
//! system in DIR — transactions the last kill left active are rolled back in the
//! background meanwhile — then 4 threads transfer random amounts between 50 accounts
//! in random order (so they deadlock), some rolling back on purpose. Each transfer
//! also inserts a journal row; after a durable commit its thread prints
//! `ACK <journal key>`. Runs until killed.
//!
//! `kiln-trxcrash verify DIR ACKS`: opens the engine, waits for the rollback of what
//! was active at the crash, and checks that the accounts still add up to their
//! initial total (no transfer is half there) and that every journal key listed in
//! the file ACKS exists (no acknowledged commit is lost). Prints `OK <journal rows>`.

use std::ops::Bound;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use kiln_storage::btree::BTree;
use kiln_storage::buf::PoolConfig;
use kiln_storage::engine::{Engine, EngineConfig};
use kiln_storage::io::os::OsVfs;
use kiln_storage::page::PAGE_SIZE;
use kiln_storage::rng::Rng;
use kiln_storage::trx::{Isolation, ReadMode, TrxConfig, TrxEngine, TrxOptions, Wait};

const ACCOUNTS: u32 = 50;
const INITIAL: i64 = 1000;

fn account(a: u32) -> Vec<u8> {
    format!("a{a:04}").into_bytes()
}

fn open(dir: &Path, background_rollback: bool) -> (Arc<Engine>, Arc<TrxEngine>, Arc<BTree>) {
    let config = EngineConfig {
        pool: PoolConfig {
            size_bytes: 400 * PAGE_SIZE,
            instances: 2,
            ..PoolConfig::default()
        },
        log_capacity: 4 << 20,
        page_cleaner: true,
        flush_log_at_trx_commit: 1,
        ..EngineConfig::default()
    };
    let e = Engine::open(Arc::new(OsVfs { direct: true }), dir, config).expect("engine opens");
    // The table before the transaction system: its rollback needs the tree.
    let space = match e.space(1) {
        Some(s) => s,
        None => e.create_space("bank.ibd").expect("create space"),
    };
    let t = Arc::new(match e.open_tree(&space, 1).expect("open tree") {
        Some(t) => t,
        None => e.create_tree(&space, 1).expect("create tree"),
    });
    let te = TrxEngine::open(
        e.clone(),
        TrxConfig {
            rollback_segments: 16,
            lock_wait_timeout: Duration::from_secs(30),
            purge_threads: 1,
            background_rollback,
            ..TrxConfig::default()
        },
    )
    .expect("transaction system opens");
    te.register_tree(t.clone());
    (e, te, t)
}

fn total(te: &Arc<TrxEngine>, t: &BTree) -> (i64, usize) {
    let mut s = te.session().unwrap();
    let mut tx = s.begin(TrxOptions::default());
    let mut sum = 0;
    let mut n = 0;
    for r in tx.scan(t, Bound::Included(b"a"), Bound::Excluded(b"b"), false) {
        let (_, v) = r.expect("scan");
        sum += i64::from_be_bytes(v.try_into().expect("8 bytes"));
        n += 1;
    }
    tx.commit().unwrap();
    (sum, n)
}

fn run(dir: &Path, seed: u64) {
    let (_e, te, t) = open(dir, true);
    // First run: create the accounts (in one transaction: all or nothing).
    {
        let mut s = te.session().unwrap();
        let mut tx = s.begin(TrxOptions::default());
        if tx
            .read(&t, &account(0), ReadMode::Consistent)
            .unwrap()
            .is_none()
        {
            for a in 0..ACCOUNTS {
                tx.insert(&t, &account(a), &INITIAL.to_be_bytes()).unwrap();
            }
        }
        tx.commit().unwrap();
    }
    let threads: Vec<_> = (0..4u64)
        .map(|th| {
            let (te, t) = (te.clone(), t.clone());
            std::thread::spawn(move || {
                let mut rng = Rng(seed ^ (th + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let mut s = te.session().unwrap();
                for n in 0u64.. {
                    let from = rng.below(ACCOUNTS as u64) as u32;
                    let to = (from + 1 + rng.below(ACCOUNTS as u64 - 1) as u32) % ACCOUNTS;
                    let amount = rng.below(100) as i64;
                    let journal = format!("j{seed:x}-{th}-{n}");
                    let isolation = if rng.below(2) == 0 {
                        Isolation::RepeatableRead
                    } else {
                        Isolation::ReadCommitted
                    };
                    let mut tx = s.begin(TrxOptions {
                        isolation,
                        ..TrxOptions::default()
                    });
                    let res = (|| {
                        for (a, delta) in [(from, -amount), (to, amount)] {
                            let k = account(a);
                            let wait = Wait::Block(Duration::from_secs(30));
                            let v = tx.read(&t, &k, ReadMode::Update(wait))?.expect("account");
                            let bal = i64::from_be_bytes(v.try_into().expect("8 bytes"));
                            tx.update(&t, &k, &(bal + delta).to_be_bytes())?;
                        }
                        tx.insert(&t, journal.as_bytes(), &amount.to_be_bytes())
                    })();
                    match res {
                        Ok(()) if rng.below(8) == 0 => tx.rollback().expect("rollback"),
                        Ok(()) => {
                            tx.commit().expect("commit");
                            println!("ACK {journal}");
                        }
                        Err(e) if e.mysql_errno() == 1213 => {} // rolled back already
                        Err(e) => panic!("transfer failed: {e}"),
                    }
                }
            })
        })
        .collect();
    for h in threads {
        h.join().unwrap();
    }
}

fn verify(dir: &Path, acks: &Path) -> Result<usize, String> {
    let (e, te, t) = open(dir, false);
    te.wait_recovered();
    let (sum, n) = total(&te, &t);
    if n != 0 && (n as u32 != ACCOUNTS || sum != ACCOUNTS as i64 * INITIAL) {
        return Err(format!("{n} accounts hold {sum}: a transfer is half there"));
    }
    let acked = std::fs::read_to_string(acks).unwrap_or_default();
    let mut s = te.session().unwrap();
    let mut tx = s.begin(TrxOptions::default());
    for key in acked.lines().filter(|l| !l.is_empty()) {
        if tx
            .read(&t, key.as_bytes(), ReadMode::Consistent)
            .map_err(|e| e.to_string())?
            .is_none()
        {
            return Err(format!("acknowledged commit {key} is lost"));
        }
    }
    let journal = tx
        .scan(&t, Bound::Included(b"j"), Bound::Excluded(b"k"), false)
        .count();
    tx.commit().unwrap();
    drop(s);
    te.shutdown();
    e.shutdown().map_err(|e| e.to_string())?;
    Ok(journal)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match (args.get(1).map(String::as_str), args.get(2), args.get(3)) {
        (Some("run"), Some(dir), Some(seed)) => {
            run(Path::new(dir), seed.parse().expect("seed"));
            ExitCode::SUCCESS
        }
        (Some("verify"), Some(dir), Some(acks)) => match verify(Path::new(dir), Path::new(acks)) {
            Ok(n) => {
                println!("OK {n}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                println!("FAIL {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: kiln-trxcrash run DIR SEED | verify DIR ACKS");
            ExitCode::from(2)
        }
    }
}
