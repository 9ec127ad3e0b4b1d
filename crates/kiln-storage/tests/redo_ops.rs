//! The redo ops that shrink the log: same-length updates logged as `Overwrite` (only
//! the changed bytes) and range deletes logged as one `RemoveRange` per leaf — their
//! size at run time, and recovery replaying them after crashes.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use kiln_storage::engine::LOG_FILE;
use kiln_storage::io::Vfs;
use kiln_storage::io::mem::{CrashMode, MemVfs};
use kiln_storage::log::record::{self, Op, Record};
use kiln_storage::log::{GROUP_HEADER, Log, Scanner};

fn k(i: u32) -> Vec<u8> {
    format!("row{i:06}").into_bytes()
}

fn v(i: u32, tag: u8) -> Vec<u8> {
    let mut v = vec![b'.'; 150];
    v[..4].copy_from_slice(&i.to_be_bytes());
    v[40] = tag;
    v
}

/// (Overwrite records, RemoveRange records) in the log from its checkpoint on.
fn replayable_ops(vfs: &MemVfs) -> (usize, usize) {
    let f = vfs.open(&Path::new(DIR).join(LOG_FILE), false).unwrap();
    let (capacity, ckpt) = Log::open(f.clone()).unwrap();
    let mut s = Scanner::new(f, capacity, ckpt);
    let (mut over, mut range) = (0, 0);
    while let Some(g) = s.next_group().unwrap() {
        for r in record::decode(&g.payload).unwrap() {
            match r {
                Record::Page(_, Op::Overwrite { .. }) => over += 1,
                Record::Page(_, Op::RemoveRange { .. }) => range += 1,
                _ => {}
            }
        }
    }
    (over, range)
}

/// A same-length update logs one group with one `Overwrite` of the changed bytes; an
/// update to the same value logs nothing.
#[test]
fn same_length_update_logs_only_the_changed_bytes() {
    let vfs = MemVfs::new();
    let e = open(&vfs, &config(256, 2 << 20, false));
    let s = e.create_space("o.ibd").unwrap();
    let t = e.create_tree(&s, 1).unwrap();
    for i in 0..500 {
        t.insert(&k(i), &v(i, 0)).unwrap();
    }
    let before = e.log().current_lsn();
    t.upsert(&k(77), &v(77, 1)).unwrap();
    // group header + op u8 | space u32 | page u32 + pos u16 | off u16 | len u16 + 1 byte
    assert_eq!(
        e.log().current_lsn() - before,
        (GROUP_HEADER + 9 + 6 + 1) as u64
    );
    let mut w = v(77, 1);
    w[10] = b'x';
    w[100] = b'y';
    let before = e.log().current_lsn();
    t.upsert(&k(77), &w).unwrap();
    assert_eq!(
        e.log().current_lsn() - before,
        (GROUP_HEADER + 15 + 91) as u64,
        "one span from the first to the last changed byte"
    );
    let before = e.log().current_lsn();
    t.upsert(&k(77), &w).unwrap();
    assert_eq!(e.log().current_lsn(), before, "no change, no redo");
    // A different length is still a remove and an insert.
    let before = e.log().current_lsn();
    t.upsert(&k(78), b"short").unwrap();
    let rec = 7 + k(78).len() + 5;
    assert_eq!(
        e.log().current_lsn() - before,
        (GROUP_HEADER + 11 + 13 + rec) as u64
    );
    assert_eq!(t.get(&k(77)).unwrap(), Some(w));
    t.check().unwrap();
}

/// Random same-length updates, inserts, deletes and range deletes; a crash; recovery
/// must replay the `Overwrite`/`RemoveRange` records onto the pages and give every
/// synced change plus a prefix of the rest.
fn crash_round(seed: u64, mode: CrashMode) {
    let vfs = MemVfs::new();
    let cfg = config(64, 4 << 20, false);
    let e = open(&vfs, &cfg);
    let s = e.create_space("c.ibd").unwrap();
    let t = e.create_tree(&s, 1).unwrap();
    let mut model = Model::new();
    for i in 0..3000 {
        t.insert(&k(i), &v(i, 0)).unwrap();
        model.insert(k(i), v(i, 0));
    }
    e.sync_to(e.log().current_lsn()).unwrap();
    e.checkpoint().unwrap();
    let mut rng = Rng(seed);
    let mut acked = model.clone();
    let mut since: Changes = Vec::new();
    for step in 0..1500u32 {
        let i = rng.below(3000) as u32;
        let lsn = match rng.below(10) {
            0 => {
                let n = 1 + rng.below(40) as u32;
                let gone: Vec<Vec<u8>> = model
                    .range(k(i)..k(i + n))
                    .map(|(key, _)| key.clone())
                    .collect();
                t.delete_range(&k(i), &k(i + n)).unwrap();
                for key in gone {
                    model.remove(&key);
                    since.push((key, None));
                }
                e.log().current_lsn()
            }
            1 => {
                model.remove(&k(i));
                since.push((k(i), None));
                t.delete(&k(i)).unwrap().unwrap_or(e.log().current_lsn())
            }
            _ => {
                let mut val = v(i, (step % 251) as u8);
                let at = rng.below(150) as usize;
                val[at] = rng.below(256) as u8;
                model.insert(k(i), val.clone());
                since.push((k(i), Some(val.clone())));
                t.upsert(&k(i), &val).unwrap()
            }
        };
        if rng.below(16) == 0 {
            e.sync_to(lsn).unwrap();
            acked = model.clone();
            since.clear();
        }
    }
    e.stop_background();
    drop((t, s, e));
    vfs.crash(mode);
    let (over, range) = replayable_ops(&vfs);
    assert!(
        over > 100 && range > 10,
        "seed {seed}: the log to replay holds the new ops ({over} Overwrite, {range} RemoveRange)"
    );
    let e: Arc<_> = open(&vfs, &cfg);
    assert!(e.startup.redo_groups > 0, "{:?}", e.startup);
    let t = e.open_tree(&e.space(1).unwrap(), 1).unwrap().unwrap();
    t.check().unwrap();
    assert!(
        is_synced_plus_prefix(&dump(&t), &acked, &since),
        "seed {seed} {mode:?}: recovered state is not synced + a prefix"
    );
}

#[test]
fn crash_after_overwrites_and_range_deletes_recovers() {
    for seed in 1..=4 {
        crash_round(seed, CrashMode::DropUnsynced);
        crash_round(seed * 7919, CrashMode::Torn { seed });
    }
}
