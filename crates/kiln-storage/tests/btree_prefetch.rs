//! The leaf prefetch of batched point reads (btree/tree/prefetch.rs) and the
//! interpolating search it relies on: prefetching is a hint, so what is tested is that
//! it runs its stages on a real multi-level tree, terminates, never panics on pages a
//! writer is changing, and leaves every lookup's answer as it was.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::*;
use kiln_storage::io::mem::MemVfs;

fn int_key(i: u32) -> Vec<u8> {
    // As kiln-sql encodes a signed INT key: sign bit flipped, big-endian.
    (i ^ 0x8000_0000).to_be_bytes().to_vec()
}

#[test]
fn prefetch_runs_its_stages_and_lookups_answer_as_before() {
    let vfs = MemVfs::new();
    let e = open(&vfs, &config(512, 8 << 20, false));
    let s = e.create_space("p.ibd").unwrap();
    e.create_tree(&s, 3).unwrap();
    let t = e.open_tree(&s, 3).unwrap().unwrap();
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
