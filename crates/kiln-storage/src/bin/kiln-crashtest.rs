//! Crash-test driver for the storage engine on real files (used by `tests/kill9.rs`).
//!
//! `kiln-crashtest run DIR SEED`: opens (recovering) the engine in DIR and applies
//! the deterministic operation stream of SEED to tree 1 of `t.ibd`, making the log
//! durable every few operations and then printing `ACK n` (operations 0..n are
//! durable). Runs until killed.
//!
//! `kiln-crashtest verify DIR SEED ACKED`: opens the engine (recovering), and checks
//! that the tree equals `base` (the state verified last time, in DIR/base.model)
//! plus the first k operations of SEED's stream for some k ≥ ACKED: every
//! acknowledged operation is there, and nothing is half there. Saves the recovered
//! state as the new base. With `--clean` it shuts down cleanly afterwards; without,
//! it just exits, leaving recovery work to the next run (a crash during recovery).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use kiln_storage::btree::BTree;
use kiln_storage::buf::PoolConfig;
use kiln_storage::engine::{Engine, EngineConfig};
use kiln_storage::io::os::OsVfs;
use kiln_storage::page::PAGE_SIZE;
use kiln_storage::rng::Rng;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Operation `i` of a stream: (key, Some(value)) = upsert, None = delete.
fn op(rng: &mut Rng, i: u64) -> (Vec<u8>, Option<Vec<u8>>) {
    let r = rng.next_u64();
    let key = format!("k{:05}", r % 3000).into_bytes();
    if r >> 60 < 4 {
        return (key, None);
    }
    let len = match (r >> 40) % 100 {
        0..=89 => (r >> 20) as usize % 300,
        90..=98 => 300 + (r >> 20) as usize % 4000,
        _ => 20_000 + (r >> 20) as usize % 40_000,
    };
    (
        key,
        Some((0..len).map(|j| (i as usize + j) as u8).collect()),
    )
}

fn config() -> EngineConfig {
    EngineConfig {
        pool: PoolConfig {
            size_bytes: 200 * PAGE_SIZE,
            instances: 2,
            ..PoolConfig::default()
        },
        log_capacity: 2 << 20,
        doublewrite: true,
        max_dirty_pages_pct: 50.0,
        io_capacity: 400,
        page_cleaner: true,
        flush_log_at_trx_commit: 1,
        progress: None,
    }
}

fn open(dir: &Path) -> (Arc<Engine>, BTree) {
    let e = Engine::open(Arc::new(OsVfs { direct: true }), dir, config()).expect("engine opens");
    let space = match e.space(1) {
        Some(s) => s,
        None => e.create_space("t.ibd").expect("create space"),
    };
    let t = match e.open_tree(&space, 1).expect("open tree") {
        Some(t) => t,
        None => e.create_tree(&space, 1).expect("create tree"),
    };
    (e, t)
}

fn save(path: &Path, m: &Model) {
    let mut b = Vec::new();
    for (k, v) in m {
        b.extend_from_slice(&(k.len() as u32).to_le_bytes());
        b.extend_from_slice(k);
        b.extend_from_slice(&(v.len() as u32).to_le_bytes());
        b.extend_from_slice(v);
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, b).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

fn load(path: &Path) -> Model {
    let Ok(b) = std::fs::read(path) else {
        return Model::new();
    };
    let mut m = Model::new();
    let mut at = 0;
    while at < b.len() {
        let mut take = |n: usize| {
            let s = b[at..at + n].to_vec();
            at += n;
            s
        };
        let kl = u32::from_le_bytes(take(4).try_into().unwrap()) as usize;
        let k = take(kl);
        let vl = u32::from_le_bytes(take(4).try_into().unwrap()) as usize;
        m.insert(k, take(vl));
    }
    m
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: kiln-crashtest run DIR SEED | verify DIR SEED ACKED [--clean]");
        return ExitCode::from(2);
    }
    let dir = Path::new(&args[2]);
    let seed: u64 = args[3].parse().expect("seed");
    match args[1].as_str() {
        "run" => {
            let (e, t) = open(dir);
            let mut rng = Rng(seed | 1);
            let mut out = std::io::stdout().lock();
            writeln!(out, "READY").unwrap();
            out.flush().unwrap();
            for i in 0.. {
                let (k, v) = op(&mut rng, i);
                let lsn = match v {
                    Some(v) => Some(t.upsert(&k, &v).expect("upsert")),
                    None => t.delete(&k).expect("delete"),
                };
                if i % 3 == 2 {
                    e.sync_to(lsn.unwrap_or_else(|| e.log().current_lsn()))
                        .expect("sync");
                    writeln!(out, "ACK {}", i + 1).unwrap();
                    out.flush().unwrap();
                }
            }
            ExitCode::SUCCESS
        }
        "verify" => {
            let acked: u64 = args[4].parse().expect("acked");
            let clean = args.iter().any(|a| a == "--clean");
            let base_path = dir.join("base.model");
            let mut state = load(&base_path);
            let (e, t) = open(dir);
            if let Err(err) = t.check() {
                eprintln!("tree check failed: {err}");
                return ExitCode::FAILURE;
            }
            let got: Model = t
                .range(
                    std::ops::Bound::Unbounded,
                    std::ops::Bound::Unbounded,
                    false,
                )
                .map(|r| r.expect("scan"))
                .collect();
            let mut rng = Rng(seed | 1);
            let mut k = 0u64;
            let mut matched_at = None;
            // The stream cannot have run more than ~10^6 ops in one cycle.
            while k <= acked + 1_000_000 {
                if k >= acked && got == state {
                    matched_at = Some(k);
                    break;
                }
                let (key, v) = op(&mut rng, k);
                match v {
                    Some(v) => state.insert(key, v),
                    None => state.remove(&key),
                };
                k += 1;
            }
            let Some(k) = matched_at else {
                eprintln!(
                    "recovered tree ({} keys) is not base + a prefix of ≥ {acked} ops; startup {:?}",
                    got.len(),
                    e.startup
                );
                return ExitCode::FAILURE;
            };
            save(&base_path, &got);
            println!(
                "OK acked={acked} recovered={k} redo_bytes={} pages={} restored={}",
                e.startup.redo_bytes, e.startup.pages_recovered, e.startup.doublewrite_restored
            );
            if clean {
                e.shutdown().expect("shutdown");
            } else {
                e.stop_background();
            }
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("unknown mode {other}");
            ExitCode::from(2)
        }
    }
}
