//! Storage engine micro-benchmarks on real files (report: docs/storage-benchmarks.md).
//!
//! cargo run --release -p kiln-storage --bin kiln-storage-bench -- [DIR] [REDO_MB]
//!
//! Runs, each on a fresh data directory under DIR (default: a temp dir):
//! point lookups of cached 100-byte rows (1 and 2 threads), sequential and random
//! inserts without and with durable commits (8 committing threads: group commit),
//! a full scan, random lookups with a pool a quarter of the data (misses), and crash
//! recovery of REDO_MB (default 64) of redo written since the last checkpoint.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use kiln_storage::btree::BTree;
use kiln_storage::buf::PoolConfig;
use kiln_storage::engine::{Engine, EngineConfig};
use kiln_storage::io::os::OsVfs;
use kiln_storage::rng::Rng;

#[path = "support/bench.rs"]
mod bench;
use bench::report;

fn cfg(pool_mb: usize, log_mb: u64, cleaner: bool) -> EngineConfig {
    EngineConfig {
        pool: PoolConfig {
            size_bytes: pool_mb << 20,
            instances: 8,
            ..PoolConfig::default()
        },
        log_capacity: log_mb << 20,
        page_cleaner: cleaner,
        ..EngineConfig::default()
    }
}

fn fresh(base: &Path, name: &str, c: EngineConfig) -> (Arc<Engine>, Arc<BTree>, PathBuf) {
    let dir = base.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let e = Engine::open(Arc::new(OsVfs { direct: true }), &dir, c).expect("open");
    let s = e.create_space("t.ibd").expect("space");
    let t = Arc::new(e.create_tree(&s, 1).expect("tree"));
    (e, t, dir)
}

/// Rows in the whole tree and the seconds the scan took.
fn full_scan(t: &BTree) -> (u64, f64) {
    let t0 = Instant::now();
    let n = t
        .range(
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            false,
        )
        .count() as u64;
    (n, t0.elapsed().as_secs_f64())
}

fn load(t: &BTree, rows: u64) {
    for i in 0..rows {
        t.insert(&i.to_be_bytes(), &[7u8; 100]).unwrap();
    }
}

fn lookups(t: &Arc<BTree>, rows: u64, threads: usize, per_thread: u64) -> f64 {
    let t = t.clone();
    bench::threads(threads, move |th| {
        let mut r = Rng(th as u64 + 99);
        for _ in 0..per_thread {
            let k = r.next_u64() % rows;
            assert!(t.get(&k.to_be_bytes()).unwrap().is_some());
        }
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let base = args
        .get(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join(format!("kiln-bench-{}", std::process::id())));
    let redo_mb: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(64);
    std::fs::create_dir_all(&base).unwrap();
    println!(
        "kiln-storage-bench: dir {} ({} cores)",
        base.display(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    // A third argument `recovery` runs only the recovery benchmark (for profiling).
    let only_recovery = args.get(3).is_some_and(|a| a == "recovery");
    if args.get(3).is_some_and(|a| a == "lookup") {
        // Profiling aid: only the cached point lookups, for longer.
        let (e, t, _) = fresh(&base, "lookup", cfg(1024, 256, true));
        load(&t, 1_000_000);
        report(
            "point lookup, cached, 1 thread",
            5_000_000,
            lookups(&t, 1_000_000, 1, 5_000_000),
        );
        report(
            "point lookup, cached, 2 threads",
            10_000_000,
            lookups(&t, 1_000_000, 2, 5_000_000),
        );
        e.shutdown().unwrap();
        return;
    }
    if args.get(3).is_some_and(|a| a == "durable") {
        bench_durable(&base);
        return;
    }
    if !only_recovery {
        run_all_but_recovery(&base);
    }
    bench_recovery(&base, redo_mb);
    let _ = std::fs::remove_dir_all(&base);
}

/// Durable commits: 1 thread, then 8 threads sharing fsyncs.
fn bench_durable(base: &Path) {
    for (threads, per) in [(1usize, 3000u64), (8, 3000)] {
        let (e, t, _) = fresh(base, "durable", cfg(256, 256, true));
        let fsyncs0 = e.log().stats.fsyncs.load(Ordering::Relaxed);
        let t0 = Instant::now();
        let hs: Vec<_> = (0..threads)
            .map(|th| {
                let (e, t) = (e.clone(), t.clone());
                std::thread::spawn(move || {
                    let mut r = Rng(th as u64 + 1);
                    for _ in 0..per {
                        let lsn = t.upsert(&r.next_u64().to_be_bytes(), &[1u8; 100]).unwrap();
                        e.sync_to(lsn).unwrap();
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        let secs = t0.elapsed().as_secs_f64();
        let fsyncs = e.log().stats.fsyncs.load(Ordering::Relaxed) - fsyncs0;
        let total = threads as u64 * per;
        report(
            &format!("durable insert (flush_log_at_trx_commit=1), {threads} threads"),
            total,
            secs,
        );
        println!(
            "{:<58} {:>12.2} commits/fsync",
            "  group commit",
            total as f64 / fsyncs.max(1) as f64
        );
        e.shutdown().unwrap();
    }
}

fn run_all_but_recovery(base: &Path) {
    let base = base.to_path_buf();
    // Cached point lookups.
    let rows = 1_000_000u64;
    let (e, t, _) = fresh(&base, "lookup", cfg(1024, 256, true));
    let t0 = Instant::now();
    load(&t, rows);
    report(
        "sequential insert, 1M x 100 B, no commit wait",
        rows,
        t0.elapsed().as_secs_f64(),
    );
    let n = 2_000_000;
    report(
        "point lookup, cached, 8-byte key, 1 thread",
        n,
        lookups(&t, rows, 1, n),
    );
    report(
        "point lookup, cached, 8-byte key, 2 threads (total)",
        2 * n,
        lookups(&t, rows, 2, n),
    );
    let (scanned, secs) = full_scan(&t);
    assert_eq!(scanned, rows);
    report("full scan (rows)", scanned, secs);
    e.shutdown().unwrap();
    drop((t, e));

    // Random inserts, no commit wait.
    let (e, t, _) = fresh(&base, "rand", cfg(1024, 256, true));
    let mut r = Rng(5);
    let n = 500_000u64;
    let t0 = Instant::now();
    for _ in 0..n {
        t.upsert(&r.next_u64().to_be_bytes(), &[3u8; 100]).unwrap();
    }
    report(
        "random insert, 100 B, no commit wait",
        n,
        t0.elapsed().as_secs_f64(),
    );
    e.shutdown().unwrap();
    drop((t, e));

    bench_durable(&base);

    // Pool a quarter of the data: lookups miss.
    let rows = 400_000u64; // ~60 MB of leaves
    let (e, t, dir) = fresh(&base, "miss", cfg(1024, 256, true));
    load(&t, rows);
    e.shutdown().unwrap();
    drop((t, e));
    let data_mb = std::fs::metadata(dir.join("t.ibd")).unwrap().len() >> 20;
    let pool_mb = (data_mb as usize / 4).max(8);
    let e = Engine::open(
        Arc::new(OsVfs { direct: true }),
        &dir,
        cfg(pool_mb, 256, true),
    )
    .unwrap();
    let t = Arc::new(e.open_tree(&e.space(1).unwrap(), 1).unwrap().unwrap());
    let reads0 = e.pool().stats.reads.get();
    let n = 200_000;
    let secs = lookups(&t, rows, 2, n / 2);
    let reads = e.pool().stats.reads.get() - reads0;
    report(
        &format!("point lookup, pool {pool_mb} MB for {data_mb} MB, 2 threads"),
        n,
        secs,
    );
    println!(
        "{:<58} {:>12.0} page reads/s ({:.2} per lookup)",
        "  buffer pool misses",
        reads as f64 / secs,
        reads as f64 / n as f64
    );
    e.shutdown().unwrap();
    drop((t, e));
    // Cold full scan with the same small pool: linear read-ahead feeds it.
    let e = Engine::open(
        Arc::new(OsVfs { direct: true }),
        &dir,
        cfg(pool_mb, 256, true),
    )
    .unwrap();
    let t = e.open_tree(&e.space(1).unwrap(), 1).unwrap().unwrap();
    let (scanned, secs) = full_scan(&t);
    report(
        &format!("full scan, cold, pool {pool_mb} MB for {data_mb} MB (rows)"),
        scanned,
        secs,
    );
    let st = &e.pool().stats;
    println!(
        "{:<58} {:>12} of {} page reads by read-ahead",
        "  linear read-ahead",
        st.read_ahead.get(),
        st.reads.get()
    );
    e.shutdown().unwrap();
}

fn bench_recovery(base: &Path, redo_mb: u64) {
    // Recovery: write REDO_MB of redo with no page flushing, "crash", recover.
    let (e, t, dir) = fresh(base, "recovery", cfg(512, redo_mb * 2 + 64, false));
    let mut r = Rng(11);
    let start_lsn = e.log().current_lsn();
    while e.log().current_lsn() - start_lsn < redo_mb << 20 {
        t.upsert(&(r.next_u64() % 2_000_000).to_be_bytes(), &[9u8; 100])
            .unwrap();
    }
    e.sync_to(e.log().current_lsn()).unwrap();
    e.stop_background();
    drop((t, e)); // no flush, no checkpoint: like kill -9 after the commits
    let t0 = Instant::now();
    let e = Engine::open(
        Arc::new(OsVfs { direct: true }),
        &dir,
        cfg(512, redo_mb * 2 + 64, false),
    )
    .unwrap();
    let secs = t0.elapsed().as_secs_f64();
    let st = &e.startup;
    println!(
        "{:<58} {:>12.1} MB/s ({} MB redo, {} groups, {} pages, {:.2} s)",
        "crash recovery",
        st.redo_bytes as f64 / (1 << 20) as f64 / secs,
        st.redo_bytes >> 20,
        st.redo_groups,
        st.pages_recovered,
        secs
    );
    drop(e);
}
