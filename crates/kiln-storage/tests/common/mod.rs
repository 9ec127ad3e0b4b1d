//! Shared test scaffolding: an engine on an in-memory VFS, and a key/value model.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use kiln_storage::btree::BTree;
use kiln_storage::buf::PoolConfig;
use kiln_storage::engine::{Engine, EngineConfig};
use kiln_storage::io::mem::MemVfs;
use kiln_storage::page::PAGE_SIZE;

pub const DIR: &str = "/data";

pub fn config(pool_pages: usize, log_bytes: u64, cleaner: bool) -> EngineConfig {
    EngineConfig {
        pool: PoolConfig {
            size_bytes: pool_pages * PAGE_SIZE,
            instances: 4,
            old_blocks_pct: 37,
            old_blocks_time_ms: 0,
            ..PoolConfig::default()
        },
        log_capacity: log_bytes,
        doublewrite: true,
        max_dirty_pages_pct: 90.0,
        io_capacity: 200,
        page_cleaner: cleaner,
        flush_log_at_trx_commit: 1,
        progress: None,
    }
}

pub fn open(vfs: &MemVfs, cfg: &EngineConfig) -> Arc<Engine> {
    Engine::open(Arc::new(vfs.clone()), Path::new(DIR), cfg.clone()).expect("engine opens")
}

pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Every key/value of a tree, in order, through a cursor.
pub fn dump(t: &BTree) -> Model {
    t.range(
        std::ops::Bound::Unbounded,
        std::ops::Bound::Unbounded,
        false,
    )
    .map(|r| r.expect("scan"))
    .collect()
}

pub use kiln_storage::rng::Rng;

/// A value of a random size: mostly small, sometimes past a page (overflow chain).
pub fn value(rng: &mut Rng, tag: u64) -> Vec<u8> {
    let len = match rng.below(100) {
        0..=79 => rng.below(200) as usize,
        80..=96 => 200 + rng.below(3000) as usize,
        _ => 5000 + rng.below(60_000) as usize,
    };
    (0..len).map(|i| (tag as usize * 31 + i) as u8).collect()
}

pub fn key(rng: &mut Rng, space: u64) -> Vec<u8> {
    let k = rng.below(space);
    // Mixed lengths, shared prefixes: exercises separator truncation.
    let mut v = format!("user:{:08}", k).into_bytes();
    v.extend(std::iter::repeat_n(b'x', (k % 7) as usize * 9));
    v
}

/// Changes made after the last sync: key and new value (None: deleted).
pub type Changes = Vec<(Vec<u8>, Option<Vec<u8>>)>;

/// Whether `got` is `synced` plus some prefix of `since` — what recovery must give.
pub fn is_synced_plus_prefix(got: &Model, synced: &Model, since: &Changes) -> bool {
    let mut state = synced.clone();
    if *got == state {
        return true;
    }
    for (k, v) in since {
        match v {
            Some(v) => state.insert(k.clone(), v.clone()),
            None => state.remove(k),
        };
        if *got == state {
            return true;
        }
    }
    false
}

/// Crashes the engine (no flushing, background threads stopped) and reopens it.
pub fn crash_and_reopen(
    vfs: &MemVfs,
    cfg: &EngineConfig,
    e: Arc<Engine>,
    mode: kiln_storage::io::mem::CrashMode,
) -> Arc<Engine> {
    e.stop_background();
    drop(e);
    vfs.crash(mode);
    open(vfs, cfg)
}
