//! Model-based property test of transactions: random interleavings of up to three
//! REPEATABLE READ transactions (begin, point read, full scan, insert / update /
//! delete, commit, rollback), purge passes, and crashes with recovery, checked at
//! every step against a model: the committed state, each transaction's snapshot
//! (taken at its first read) and its own writes.
//!
//! Writes first try the row's lock with NOWAIT; a row another active transaction has
//! locked is skipped (the model's rule, so no step ever waits). Updates and deletes
//! touch only rows that exist, so no gap lock is taken and no insert ever waits.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use kiln_storage::btree::BTree;
use kiln_storage::engine::Engine;
use kiln_storage::io::mem::{CrashMode, MemVfs};
use kiln_storage::trx::{Mode, ReadMode, Trx, TrxConfig, TrxEngine, TrxOptions, Wait};
use proptest::prelude::*;

type State = BTreeMap<u8, u8>;

#[derive(Debug, Clone)]
enum Op {
    Read(usize, u8),
    Scan(usize),
    Write(usize, u8, Option<u8>),
    Commit(usize),
    Rollback(usize),
    Purge,
    Crash,
}

fn op() -> impl Strategy<Value = Op> {
    let t = 0..3usize;
    let k = 0..16u8;
    prop_oneof![
        4 => (t.clone(), k.clone()).prop_map(|(t, k)| Op::Read(t, k)),
        1 => t.clone().prop_map(Op::Scan),
        6 => (t.clone(), k, prop::option::weighted(0.8, any::<u8>()))
            .prop_map(|(t, k, v)| Op::Write(t, k, v)),
        2 => t.clone().prop_map(Op::Commit),
        1 => t.prop_map(Op::Rollback),
        1 => Just(Op::Purge),
        1 => Just(Op::Crash),
    ]
}

/// A transaction of the model: its snapshot (once it read) and its own writes.
#[derive(Default, Clone)]
struct ModelTrx {
    snapshot: Option<State>,
    writes: BTreeMap<u8, Option<u8>>,
    /// Keys it holds an X lock on (written or not).
    locked: std::collections::BTreeSet<u8>,
}

impl ModelTrx {
    fn sees(&mut self, committed: &State, k: u8) -> Option<u8> {
        // The first consistent read takes the snapshot, whatever row it reads.
        let snapshot = self.snapshot.get_or_insert_with(|| committed.clone());
        match self.writes.get(&k) {
            Some(w) => *w,
            None => snapshot.get(&k).copied(),
        }
    }
    fn view(&mut self, committed: &State) -> State {
        let mut v = self
            .snapshot
            .get_or_insert_with(|| committed.clone())
            .clone();
        for (k, w) in &self.writes {
            match w {
                Some(x) => v.insert(*k, *x),
                None => v.remove(k),
            };
        }
        v
    }
}

struct Db {
    engine: Arc<Engine>,
    te: Arc<TrxEngine>,
    t: Arc<BTree>,
}

fn cfg() -> TrxConfig {
    TrxConfig {
        rollback_segments: 4,
        lock_wait_timeout: Duration::from_secs(5),
        purge_threads: 0,
        background_rollback: false,
        ..TrxConfig::default()
    }
}

fn start(vfs: &MemVfs, fresh: bool) -> Db {
    let engine = open(vfs, &config(256, 4 << 20, true));
    let t = if fresh {
        let s = engine.create_space("m.ibd").unwrap();
        engine.create_tree(&s, 1).unwrap()
    } else {
        engine
            .open_tree(&engine.space(1).unwrap(), 1)
            .unwrap()
            .unwrap()
    };
    let t = Arc::new(t);
    let te = TrxEngine::open(engine.clone(), cfg()).unwrap();
    te.register_tree(t.clone());
    Db { engine, te, t }
}

fn run(ops: Vec<Op>) {
    let vfs = MemVfs::new();
    let mut db = start(&vfs, true);
    let mut committed = State::new();
    let opts = TrxOptions::default();
    let key = |k: u8| [b'k', k];
    let mut sessions: Vec<_> = (0..3).map(|_| db.te.session().unwrap()).collect();
    let mut open: [Option<Trx>; 3] = [None, None, None];
    let mut model: Vec<Option<ModelTrx>> = vec![None, None, None];
    for op in ops {
        if let Op::Read(i, _) | Op::Write(i, _, _) = op
            && open[i].is_none()
        {
            open[i] = Some(sessions[i].begin(opts));
            model[i] = Some(ModelTrx::default());
        }
        match op {
            Op::Read(i, k) => {
                let want = model[i].as_mut().unwrap().sees(&committed, k);
                let got = open[i]
                    .as_mut()
                    .unwrap()
                    .read(&db.t, &key(k), ReadMode::Consistent)
                    .unwrap()
                    .map(|v| v[0]);
                assert_eq!(got, want, "read of {k} by T{i}");
            }
            Op::Scan(i) => {
                let Some(tx) = open[i].as_mut() else {
                    continue;
                };
                let want = model[i].as_mut().unwrap().view(&committed);
                let got: State = tx
                    .scan(&db.t, Bound::Unbounded, Bound::Unbounded, false)
                    .map(|r| {
                        let (k, v) = r.unwrap();
                        (k[1], v[0])
                    })
                    .collect();
                assert_eq!(got, want, "scan by T{i}");
            }
            Op::Write(i, k, v) => {
                // Another active transaction locked it: its X lock stands; skip.
                let others_wrote = (0..3)
                    .any(|j| j != i && model[j].as_ref().is_some_and(|m| m.locked.contains(&k)));
                let tx = open[i].as_mut().unwrap();
                let locked = tx.lock(&db.t, &key(k), Mode::X, Wait::NoWait);
                if others_wrote {
                    assert!(locked.is_err(), "T{i} locked {k} that another holds");
                    continue;
                }
                assert!(locked.unwrap(), "T{i} could not lock {k}");
                let m = model[i].as_mut().unwrap();
                m.locked.insert(k);
                // The latest version: own write, else the committed one.
                let exists = match m.writes.get(&k) {
                    Some(w) => w.is_some(),
                    None => committed.contains_key(&k),
                };
                match (exists, v) {
                    (true, Some(x)) => assert!(tx.update(&db.t, &key(k), &[x]).unwrap()),
                    (true, None) => assert!(tx.delete(&db.t, &key(k)).unwrap()),
                    (false, Some(x)) => tx.insert(&db.t, &key(k), &[x]).unwrap(),
                    // A DELETE of a missing row would lock its gap (REPEATABLE READ)
                    // and make other transactions' inserts there wait: not modelled.
                    (false, None) => {}
                }
                if exists || v.is_some() {
                    m.writes.insert(k, v);
                }
            }
            Op::Commit(i) => {
                if let Some(tx) = open[i].take() {
                    tx.commit().unwrap();
                    for (k, w) in model[i].take().unwrap().writes {
                        match w {
                            Some(x) => committed.insert(k, x),
                            None => committed.remove(&k),
                        };
                    }
                }
            }
            Op::Rollback(i) => {
                if let Some(tx) = open[i].take() {
                    tx.rollback().unwrap();
                    model[i] = None;
                }
            }
            Op::Purge => {
                db.te.purge().unwrap();
            }
            Op::Crash => {
                // Active transactions die with the process; their redo is durable,
                // so recovery must undo them.
                for tx in open.iter_mut().filter_map(Option::take) {
                    tx.abandon();
                }
                model = vec![None, None, None];
                db.engine.sync_to(db.engine.log().current_lsn()).unwrap();
                db.te.shutdown();
                db.engine.stop_background();
                drop(db);
                sessions.clear();
                vfs.crash(CrashMode::DropUnsynced);
                db = start(&vfs, false);
                sessions = (0..3).map(|_| db.te.session().unwrap()).collect();
                let mut s = db.te.session().unwrap();
                let mut r = s.begin(opts);
                let got: State = r
                    .scan(&db.t, Bound::Unbounded, Bound::Unbounded, false)
                    .map(|x| {
                        let (k, v) = x.unwrap();
                        (k[1], v[0])
                    })
                    .collect();
                assert_eq!(got, committed, "after the crash: committed state only");
                r.commit().unwrap();
            }
        }
    }
    for tx in open.iter_mut().filter_map(Option::take) {
        tx.rollback().unwrap();
    }
    drop(sessions);
    db.te.purge().unwrap();
    assert_eq!(db.te.history_len(), 0);
    assert!(db.te.locks.snapshot().is_empty());
    db.te.shutdown();
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(32),
        ..ProptestConfig::default()
    })]
    #[test]
    fn transactions_match_the_model(ops in prop::collection::vec(op(), 1..120)) {
        run(ops);
    }
}
