//! Transaction benchmarks (report: docs/storage-benchmarks.md, "Transactions").
//!
//! cargo run --release -p kiln-storage --bin kiln-trx-bench -- [DIR] [ROWS]
//!
//! 1. Read-only autocommit point lookups of cached 100-byte rows through
//!    `Session`/`Trx` (begin, consistent read, commit), 1 and 2 threads, against the
//!    raw B+tree `get` of the same rows: the cost of MVCC on the read path.
//! 2. Update-heavy: threads updating random rows with durable commits
//!    (flush_log_at_trx_commit=1), 1 to 32 threads: transactions/s.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kiln_storage::btree::BTree;
use kiln_storage::buf::PoolConfig;
use kiln_storage::engine::{Engine, EngineConfig};
use kiln_storage::io::os::OsVfs;
use kiln_storage::rng::Rng;
use kiln_storage::trx::{ReadMode, TrxConfig, TrxEngine, TrxOptions};

#[path = "support/bench.rs"]
mod bench;
use bench::{report, threads};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let base = args.get(1).map(PathBuf::from).unwrap_or_else(|| {
        std::env::temp_dir().join(format!("kiln-trx-bench-{}", std::process::id()))
    });
    let rows: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let dir = base.join("trx");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&base).unwrap();
    println!(
        "kiln-trx-bench: dir {} ({} cores), {rows} rows",
        base.display(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let e = Engine::open(
        Arc::new(OsVfs { direct: true }),
        &dir,
        EngineConfig {
            pool: PoolConfig {
                size_bytes: 1 << 30,
                instances: 8,
                ..PoolConfig::default()
            },
            log_capacity: 512 << 20,
            page_cleaner: true,
            flush_log_at_trx_commit: 1,
            ..EngineConfig::default()
        },
    )
    .unwrap();
    let space = e.create_space("sbtest1.ibd").unwrap();
    let t: Arc<BTree> = Arc::new(e.create_tree(&space, 1).unwrap());
    let te = TrxEngine::open(e.clone(), TrxConfig::default()).unwrap();
    te.register_tree(t.clone());

    // Load in transactions of 1000 rows (not durable each: mode 2 while loading).
    e.set_flush_log_at_trx_commit(2);
    let t0 = Instant::now();
    {
        let mut s = te.session().unwrap();
        for chunk in 0..rows.div_ceil(1000) {
            let mut tx = s.begin(TrxOptions::default());
            for i in chunk * 1000..((chunk + 1) * 1000).min(rows) {
                tx.insert(&t, &i.to_be_bytes(), &[7u8; 100]).unwrap();
            }
            tx.commit().unwrap();
        }
    }
    report(
        "transactional insert (1000 rows/trx, 100 B rows)",
        rows,
        t0.elapsed().as_secs_f64(),
    );
    // Let purge empty the history so reads see settled rows, as in a steady state.
    while te.history_len() > 0 {
        te.purge().unwrap();
    }

    let n = 2_000_000u64;
    for nt in [1usize, 2] {
        let per = n / nt as u64;
        let tr = t.clone();
        let raw = threads(nt, move |i| {
            let mut r = Rng(i as u64 + 11);
            for _ in 0..per {
                let k = r.next_u64() % rows;
                assert!(tr.get(&k.to_be_bytes()).unwrap().is_some());
            }
        });
        let (te2, tt) = (te.clone(), t.clone());
        let mvcc = threads(nt, move |i| {
            let mut s = te2.session().unwrap();
            let mut r = Rng(i as u64 + 11);
            let opts = TrxOptions {
                autocommit: true,
                ..TrxOptions::default()
            };
            for _ in 0..per {
                let k = r.next_u64() % rows;
                let mut tx = s.begin(opts);
                let v = tx
                    .read(&tt, &k.to_be_bytes(), ReadMode::Consistent)
                    .unwrap();
                assert!(v.is_some());
                tx.commit().unwrap();
            }
        });
        report(&format!("raw B+tree get, {nt} thread(s) (total)"), n, raw);
        report(
            &format!("autocommit consistent read, {nt} thread(s) (total)"),
            n,
            mvcc,
        );
        println!(
            "{:<58} {:>12.1} %",
            "  MVCC overhead over the raw lookup",
            (mvcc / raw - 1.0) * 100.0
        );
    }

    e.set_flush_log_at_trx_commit(1);
    for nt in [1usize, 2, 4, 8, 16, 32] {
        let secs = 3.0;
        let counts = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let (te2, tt, c2) = (te.clone(), t.clone(), counts.clone());
        let elapsed = threads(nt, move |i| {
            let mut s = te2.session().unwrap();
            let mut r = Rng(i as u64 * 31 + 5);
            let stop = Instant::now() + Duration::from_secs_f64(secs);
            while Instant::now() < stop {
                let k = r.next_u64() % rows;
                let mut tx = s.begin(TrxOptions::default());
                match tx.update(&tt, &k.to_be_bytes(), &[(k % 251) as u8; 100]) {
                    Ok(_) => {
                        tx.commit().unwrap();
                        c2.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    Err(e) if e.mysql_errno() == 1213 => {}
                    Err(e) => panic!("{e}"),
                }
            }
        });
        report(
            &format!("durable update of a random row, {nt} threads (trx)"),
            counts.load(std::sync::atomic::Ordering::Relaxed),
            elapsed,
        );
    }
    println!("history list length at the end: {}", te.history_len());
    te.shutdown();
    e.shutdown().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
