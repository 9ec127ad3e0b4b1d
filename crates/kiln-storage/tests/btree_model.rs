//! Model-based property test: random sequences of insert / upsert / delete / get (and
//! the insert probe) /
//! forward and backward range scans, with key and value sizes from tiny to overflow,
//! against a `BTreeMap`, with clean restarts and simulated crashes (unsynced writes
//! dropped or torn) in the middle.

mod common;

use std::ops::Bound;

use common::*;
use kiln_storage::btree::{Probe, TreeError};
use kiln_storage::io::mem::{CrashMode, MemVfs};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Insert(u16, usize),
    Upsert(u16, usize),
    Delete(u16),
    DeleteRange(u16, u16),
    Get(u16),
    Range(u16, u16, bool),
    Sync,
    Restart,
    Crash { torn: bool, seed: u64 },
}

fn key(k: u16) -> Vec<u8> {
    // Lengths 3..~300, many shared prefixes.
    let mut v = format!("{:04}", k % 2000).into_bytes();
    v.extend(std::iter::repeat_n(b'~', (k as usize * 7) % 300));
    v
}

fn val(len: usize, tag: u16) -> Vec<u8> {
    (0..len).map(|i| (i as u16 ^ tag) as u8).collect()
}

fn vlen() -> impl Strategy<Value = usize> {
    prop_oneof![8 => 0usize..120, 3 => 120usize..4000, 1 => 4000usize..40_000]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (any::<u16>(), vlen()).prop_map(|(k, l)| Op::Insert(k, l)),
        10 => (any::<u16>(), vlen()).prop_map(|(k, l)| Op::Upsert(k, l)),
        8 => any::<u16>().prop_map(Op::Delete),
        2 => (any::<u16>(), any::<u16>()).prop_map(|(a, b)| Op::DeleteRange(a, b)),
        4 => any::<u16>().prop_map(Op::Get),
        3 => (any::<u16>(), any::<u16>(), any::<bool>()).prop_map(|(a, b, d)| Op::Range(a, b, d)),
        2 => Just(Op::Sync),
        1 => Just(Op::Restart),
        1 => (any::<bool>(), any::<u64>()).prop_map(|(torn, seed)| Op::Crash { torn, seed }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn btree_matches_model(ops in proptest::collection::vec(op(), 1..300)) {
        let vfs = MemVfs::new();
        let cfg = config(64, 2 << 20, false);
        let mut e = open(&vfs, &cfg);
        let s = e.create_space("p.ibd").unwrap();
        e.create_tree(&s, 3).unwrap();
        drop(s);
        let mut model = Model::new();
        // Synced state and the changes since: after a crash, the tree must be the
        // synced state plus a prefix of those changes.
        let mut synced = Model::new();
        let mut since: Changes = Vec::new();
        let mut t = e.open_tree(&e.space(1).unwrap(), 3).unwrap().unwrap();
        for (n, op) in ops.into_iter().enumerate() {
            match op {
                Op::Insert(k, l) => {
                    let (k, v) = (key(k), val(l, n as u16));
                    match t.insert(&k, &v) {
                        Ok(_) => {
                            prop_assert!(!model.contains_key(&k));
                            model.insert(k.clone(), v.clone());
                            since.push((k, Some(v)));
                        }
                        Err(TreeError::DuplicateKey) => prop_assert!(model.contains_key(&k)),
                        Err(e) => return Err(TestCaseError::fail(e.to_string())),
                    }
                }
                Op::Upsert(k, l) => {
                    let (k, v) = (key(k), val(l, n as u16));
                    t.upsert(&k, &v).unwrap();
                    model.insert(k.clone(), v.clone());
                    since.push((k, Some(v)));
                }
                Op::Delete(k) => {
                    let k = key(k);
                    let had = t.delete(&k).unwrap().is_some();
                    prop_assert_eq!(had, model.remove(&k).is_some());
                    since.push((k, None));
                }
                Op::DeleteRange(a, b) => {
                    let (a, b) = (key(a), key(b));
                    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                    let n = t.delete_range(&lo, &hi).unwrap();
                    // Ascending, as the tree deletes them (a crash keeps a prefix).
                    let gone: Vec<Vec<u8>> = model.range(lo..hi).map(|(k, _)| k.clone()).collect();
                    prop_assert_eq!(n, gone.len());
                    for k in gone {
                        model.remove(&k);
                        since.push((k, None));
                    }
                }
                Op::Get(k) => {
                    let k = key(k);
                    prop_assert_eq!(t.get(&k).unwrap(), model.get(&k).cloned());
                    // probe: the entry's presence, else the next key (across leaves)
                    let want = if model.contains_key(&k) {
                        Probe::Exists
                    } else {
                        Probe::Next(model.range::<Vec<u8>, _>((Bound::Excluded(&k), Bound::Unbounded)).next().map(|(k, _)| k.clone()))
                    };
                    prop_assert_eq!(t.probe(&k).unwrap(), want);
                }
                Op::Range(a, b, desc) => {
                    let (a, b) = (key(a), key(b));
                    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                    let got: Vec<_> = t.range(Bound::Included(&lo), Bound::Excluded(&hi), desc).map(|r| r.unwrap()).collect();
                    let mut want: Vec<_> = model.range(lo..hi).map(|(k, v)| (k.clone(), v.clone())).collect();
                    if desc {
                        want.reverse();
                    }
                    prop_assert_eq!(got, want);
                }
                Op::Sync => {
                    e.sync_to(e.log().current_lsn()).unwrap();
                    synced = model.clone();
                    since.clear();
                }
                Op::Restart => {
                    e.shutdown().unwrap();
                    drop(t);
                    e = open(&vfs, &cfg);
                    t = e.open_tree(&e.space(1).unwrap(), 3).unwrap().unwrap();
                    synced = model.clone();
                    since.clear();
                }
                Op::Crash { torn, seed } => {
                    drop(t);
                    e = crash_and_reopen(&vfs, &cfg, e, if torn { CrashMode::Torn { seed } } else { CrashMode::DropUnsynced });
                    t = e.open_tree(&e.space(1).unwrap(), 3).unwrap().unwrap();
                    let got = dump(&t);
                    let ok = is_synced_plus_prefix(&got, &synced, &since);
                    since.clear();
                    prop_assert!(ok, "recovered state is not synced + a prefix of later changes");
                    model = got;
                    synced = model.clone();
                }
            }
        }
        t.check().unwrap();
        prop_assert_eq!(dump(&t), model);
    }
}

/// `estimate_len` samples the tree: exact for one page, within a third of the truth for
/// trees of several levels with uneven fill (random deletes), and 0 once emptied.
/// `estimate_size`'s pages (SHOW TABLE STATUS's Data_length) the same, against the
/// nodes `check` counts.
#[test]
fn estimate_len_tracks_the_count() {
    let vfs = MemVfs::new();
    let cfg = config(256, 8 << 20, false);
    let e = open(&vfs, &cfg);
    let s = e.create_space("est.ibd").unwrap();
    e.create_tree(&s, 3).unwrap();
    let t = e.open_tree(&s, 3).unwrap().unwrap();
    assert_eq!(t.estimate_len().unwrap(), 0);
    for i in 0..20u32 {
        t.insert(&i.to_be_bytes(), b"v").unwrap();
    }
    assert_eq!(t.estimate_len().unwrap(), 20);
    assert_eq!(t.estimate_size().unwrap().pages, 1);
    let mut n = 20u64;
    for i in 20..60_000u32 {
        let v = vec![b'x'; (i as usize * 7) % 120];
        t.insert(&i.to_be_bytes(), &v).unwrap();
        n += 1;
    }
    let close = |est: u64, n: u64| (est as f64 - n as f64).abs() <= n as f64 / 3.0;
    let est = t.estimate_len().unwrap();
    assert!(close(est, n), "estimate {est} for {n}");
    let st = t.check().unwrap();
    let pages = (st.leaves + st.internal) as u64;
    assert!(st.height >= 2, "{st:?}");
    let size = t.estimate_size().unwrap();
    assert!(close(size.pages, pages), "{size:?} for {st:?}");
    assert_eq!(size.entries, est);
    // Thin out the left half: leaves there hold fewer entries.
    for i in (0..30_000u32).filter(|i| i % 3 != 0) {
        t.delete(&i.to_be_bytes()).unwrap();
        n -= 1;
    }
    let est = t.estimate_len().unwrap();
    assert!(close(est, n), "estimate {est} for {n}");
    t.delete_range(&0u32.to_be_bytes(), &u32::MAX.to_be_bytes())
        .unwrap();
    assert!(t.estimate_len().unwrap() < 100);
}

/// Operations of `append_hint_matches_model`, on tree `t` (0 or 1) of one space.
#[derive(Debug, Clone)]
enum AppendOp {
    /// `n` keys past the tree's largest, values of `len` bytes.
    Append {
        t: usize,
        n: usize,
        len: usize,
    },
    /// Deletes the `n` largest keys (empties and merges away rightmost leaves).
    DeleteTail {
        t: usize,
        n: usize,
    },
    /// A key anywhere (below the largest, mostly: not an append).
    Insert {
        t: usize,
        k: u32,
        len: usize,
    },
    /// probe and get of a key anywhere, and probe past the largest.
    Probe {
        t: usize,
        k: u32,
    },
    Restart,
}

fn append_op() -> impl Strategy<Value = AppendOp> {
    prop_oneof![
        8 => (0..2usize, 1..400usize, vlen()).prop_map(|(t, n, len)| AppendOp::Append { t, n, len }),
        4 => (0..2usize, 1..600usize).prop_map(|(t, n)| AppendOp::DeleteTail { t, n }),
        3 => (0..2usize, any::<u32>(), vlen()).prop_map(|(t, k, len)| AppendOp::Insert { t, k, len }),
        3 => (0..2usize, any::<u32>()).prop_map(|(t, k)| AppendOp::Probe { t, k }),
        1 => Just(AppendOp::Restart),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, max_shrink_iters: 200, ..ProptestConfig::default() })]

    /// The append hint (`BTree::append_leaf`): writes at the right end go to the
    /// remembered rightmost leaf without a descent. Two trees share a space, so the
    /// pages one frees when its rightmost leaves merge away are reused by the other
    /// (a stale hint then names a leaf of another index, a freed page, or a leaf that
    /// has a right sibling again); every answer must still be the model's.
    #[test]
    fn append_hint_matches_model(ops in proptest::collection::vec(append_op(), 1..120)) {
        let vfs = MemVfs::new();
        let cfg = config(128, 4 << 20, false);
        let mut e = open(&vfs, &cfg);
        let s = e.create_space("a.ibd").unwrap();
        e.create_tree(&s, 3).unwrap();
        e.create_tree(&s, 4).unwrap();
        drop(s);
        let reopen = |e: &kiln_storage::engine::Engine| {
            let s = e.space(1).unwrap();
            [e.open_tree(&s, 3).unwrap().unwrap(), e.open_tree(&s, 4).unwrap().unwrap()]
        };
        let mut trees = reopen(&e);
        let mut models = [Model::new(), Model::new()];
        let k8 = |k: u32| (k as u64 * 4).to_be_bytes().to_vec();
        for (n, op) in ops.into_iter().enumerate() {
            match op {
                AppendOp::Append { t, n: count, len } => {
                    let next = models[t].keys().next_back().map_or(0, |k| {
                        u64::from_be_bytes(k[..8].try_into().unwrap()) + 4
                    });
                    for i in 0..count as u64 {
                        let k = (next + i * 4).to_be_bytes().to_vec();
                        let v = val(len, n as u16);
                        trees[t].insert(&k, &v).unwrap();
                        models[t].insert(k, v);
                    }
                }
                AppendOp::DeleteTail { t, n: count } => {
                    let tail: Vec<Vec<u8>> = models[t].keys().rev().take(count).cloned().collect();
                    for k in tail {
                        prop_assert!(trees[t].delete(&k).unwrap().is_some());
                        models[t].remove(&k);
                    }
                }
                AppendOp::Insert { t, k, len } => {
                    let k = k8(k % 4000);
                    let v = val(len, n as u16);
                    trees[t].upsert(&k, &v).unwrap();
                    models[t].insert(k, v);
                }
                AppendOp::Probe { t, k } => {
                    let k = k8(k % 4000);
                    let want = if models[t].contains_key(&k) {
                        Probe::Exists
                    } else {
                        Probe::Next(models[t].range::<Vec<u8>, _>((Bound::Excluded(&k), Bound::Unbounded)).next().map(|(k, _)| k.clone()))
                    };
                    prop_assert_eq!(trees[t].probe(&k).unwrap(), want);
                    prop_assert_eq!(trees[t].get(&k).unwrap(), models[t].get(&k).cloned());
                    let past = u64::MAX.to_be_bytes().to_vec();
                    prop_assert_eq!(trees[t].probe(&past).unwrap(), Probe::Next(None));
                }
                AppendOp::Restart => {
                    e.shutdown().unwrap();
                    drop(trees);
                    e = open(&vfs, &cfg);
                    trees = reopen(&e);
                }
            }
        }
        for t in 0..2 {
            trees[t].check().unwrap();
            prop_assert_eq!(dump(&trees[t]), models[t].clone());
        }
    }
}
