//! The leaf prefetch of batched point reads (btree/tree/prefetch.rs) and the
//! interpolating search it relies on: prefetching is a hint, so what is tested is that
//! it runs its stages on a real multi-level tree, terminates, never panics on pages a
//! writer is changing, and leaves every lookup's answer as it was.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::*;
use kiln_storage::btree::BTree;
use kiln_storage::io::mem::MemVfs;

/// An engine over `frames` pool frames with one empty tree.
fn engine_with_tree(frames: usize) -> (Arc<kiln_storage::engine::Engine>, BTree) {
    let vfs = MemVfs::new();
    let mut cfg = config(frames, 8 << 20, false);
    // No linear read-ahead: its background reads would blur the read counts.
    cfg.pool.read_ahead = false;
    let e = open(&vfs, &cfg);
    let s = e.create_space("p.ibd").unwrap();
    e.create_tree(&s, 3).unwrap();
    let t = e.open_tree(&s, 3).unwrap().unwrap();
    (e, t)
}

fn int_key(i: u32) -> Vec<u8> {
    // As kiln-sql encodes a signed INT key: sign bit flipped, big-endian.
    (i ^ 0x8000_0000).to_be_bytes().to_vec()
}

#[test]
fn prefetch_runs_its_stages_and_lookups_answer_as_before() {
    let (_e, t) = engine_with_tree(512);
    // Dense integer keys (interpolation lands at once) and sparse ones (it does not).
    let keys: Vec<Vec<u8>> = (1..=20_000u32)
        .map(int_key)
        .chain((0..3_000u32).map(|i| format!("user:{:09}", i * i).into_bytes()))
        .collect();
    for (n, k) in keys.iter().enumerate() {
        t.insert(k, format!("row {n} {}", "x".repeat(n % 150)).as_bytes())
            .unwrap();
    }
    let mut started = 0;
    for (n, k) in keys.iter().enumerate() {
        let mut p = t.prefetch_start(k);
        started += usize::from(p.pending());
        let mut steps = 0;
        while p.pending() {
            t.prefetch_step(&mut p, k);
            steps += 1;
            assert!(steps <= 5, "a prefetch has at most five stages");
        }
        let want = format!("row {n} {}", "x".repeat(n % 150));
        assert_eq!(t.get(k).unwrap().as_deref(), Some(want.as_bytes()));
    }
    assert!(
        started > keys.len() / 2,
        "a multi-level tree's cached leaves are prefetched ({started} of {})",
        keys.len()
    );
    // Keys that are not there: below, between and above the stored ones.
    for k in [
        vec![],
        int_key(0),
        int_key(20_001),
        b"user:".to_vec(),
        vec![0xff; 20],
    ] {
        let mut p = t.prefetch_start(&k);
        for _ in 0..5 {
            t.prefetch_step(&mut p, &k);
        }
        assert!(!p.pending());
        assert_eq!(t.get(&k).unwrap(), None);
    }
}

#[test]
fn prefetch_over_pages_a_writer_changes_is_harmless() {
    let vfs = MemVfs::new();
    let e = open(&vfs, &config(512, 16 << 20, false));
    let s = e.create_space("p.ibd").unwrap();
    e.create_tree(&s, 3).unwrap();
    let t = Arc::new(e.open_tree(&s, 3).unwrap().unwrap());
    for i in 1..=5_000u32 {
        t.insert(&int_key(i), &[1u8; 64]).unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (t, stop) = (t.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut i = 0u32;
            while !stop.load(Ordering::Relaxed) {
                i = i.wrapping_add(7919);
                let k = 5_001 + i % 20_000;
                // Inserts split leaves, deletes empty them: pages change under readers.
                if i.is_multiple_of(3) {
                    let _ = t.delete(&int_key(k));
                } else {
                    let _ = t.upsert(&int_key(k), &vec![2u8; (i % 200) as usize]);
                }
            }
        })
    };
    for round in 0..20u32 {
        for i in (1..=5_000u32).step_by(1 + round as usize) {
            let k = int_key(i);
            let mut p = t.prefetch_start(&k);
            while p.pending() {
                t.prefetch_step(&mut p, &k);
            }
            assert_eq!(t.get(&k).unwrap().as_deref(), Some(&[1u8; 64][..]));
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
}

/// The disk read-ahead of a batch (`BTree::prefetch_leaves`, what a large DELETE and
/// purge use): in a pool much smaller than the tree, the leaves it reads are exactly
/// the ones the lookups then need (they read nothing more), and a key in a one-page
/// tree has no leaf to prefetch.
#[test]
fn prefetch_leaves_reads_the_leaves_the_lookups_use() {
    // 512 frames (4 instances of 128): the tree below has about 1,000 leaves, and each
    // instance has room for its share of the batch without evicting any of it.
    let (e, t) = engine_with_tree(512);
    assert_eq!(t.leaf_page_no(&int_key(1)).unwrap(), None);
    let n = 300_000u32;
    for i in 0..n {
        t.insert(&int_key(i), &[b'v'; 60]).unwrap();
    }
    let st = t.check().unwrap();
    assert!(st.leaves > 2 * 512, "{st:?}");
    // Spread keys: each on another leaf, most of them not cached.
    let keys: Vec<Vec<u8>> = (0..24u32).map(|j| int_key(j * (n / 24) + 7)).collect();
    let reads = || e.pool().stats.reads.get();
    // The internal levels cached first: only leaves are counted below.
    for k in &keys {
        t.leaf_page_no(k).unwrap();
    }
    let before = reads();
    let read = t.prefetch_leaves(&keys);
    assert!(read >= 12, "read {read} of 24 leaves");
    assert_eq!(reads() - before, read as u64);
    let after_prefetch = reads();
    for k in &keys {
        assert_eq!(t.get(k).unwrap(), Some(vec![b'v'; 60]));
    }
    assert_eq!(
        reads(),
        after_prefetch,
        "every lookup found its leaf cached"
    );
}
