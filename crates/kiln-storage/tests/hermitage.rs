//! The Hermitage isolation tests (github.com/ept/hermitage), at the engine level, with
//! the outcomes MySQL/InnoDB gives at READ COMMITTED and REPEATABLE READ. Each
//! transaction runs on its own thread and receives its statements in the script's
//! order; a statement marked `blocks` must not finish until a later step (a commit
//! releasing a lock) unblocks it.
//!
//! Table `test`: key u32 → value i64, initially {1: 10, 2: 20}. Predicate reads
//! (`where value % 3 = 0`, ...) are consistent scans filtered in the test, as the SQL
//! layer will do. SERIALIZABLE needs gap locks (not yet) and is not tested here.

mod common;

use std::ops::Bound;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

use common::*;
use kiln_storage::btree::BTree;
use kiln_storage::trx::{Isolation, ReadMode, TrxConfig, TrxEngine, TrxOptions};

#[derive(Debug, Clone)]
enum Op {
    Get(u32),
    /// Consistent scan, keeping rows whose value satisfies the predicate.
    Scan(fn(i64) -> bool),
    Update(u32, i64),
    Insert(u32, i64),
    Delete(u32),
    Commit,
    Rollback,
}

type Rows = Vec<(u32, i64)>;

#[derive(Debug, PartialEq, Eq)]
enum Out {
    Done,
    Rows(Rows),
    Err(u16),
}

fn enc(v: i64) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}
fn dec(v: &[u8]) -> i64 {
    i64::from_be_bytes(v.try_into().unwrap())
}

struct Setup {
    te: Arc<TrxEngine>,
    t: Arc<BTree>,
}

fn setup() -> Setup {
    let vfs = kiln_storage::io::mem::MemVfs::new();
    let engine = open(&vfs, &config(512, 8 << 20, false));
    let s = engine.create_space("test/test.ibd").unwrap();
    let t = Arc::new(engine.create_tree(&s, 1).unwrap());
    let te = TrxEngine::open(
        engine,
        TrxConfig {
            rollback_segments: 4,
            lock_wait_timeout: Duration::from_secs(5),
            purge_threads: 1,
            ..TrxConfig::default()
        },
    )
    .unwrap();
    te.register_tree(t.clone());
    let mut s = te.session().unwrap();
    let mut tx = s.begin(TrxOptions::default());
    tx.insert(&t, &1u32.to_be_bytes(), &enc(10)).unwrap();
    tx.insert(&t, &2u32.to_be_bytes(), &enc(20)).unwrap();
    tx.commit().unwrap();
    Setup { te, t }
}

/// A transaction on its own thread: runs ops as they arrive, replies with results.
fn spawn_trx(
    te: Arc<TrxEngine>,
    t: Arc<BTree>,
    isolation: Isolation,
) -> (Sender<Op>, Receiver<Out>, std::thread::JoinHandle<()>) {
    let (tx_op, rx_op) = channel::<Op>();
    let (tx_out, rx_out) = channel::<Out>();
    let h = std::thread::spawn(move || {
        let mut s = te.session().unwrap();
        let mut trx = Some(s.begin(TrxOptions {
            isolation,
            ..TrxOptions::default()
        }));
        for op in rx_op {
            let tr = trx.as_mut().expect("statement after the end");
            // Each statement is a statement (READ COMMITTED: a new view).
            tr.statement_start();
            let out = match op {
                Op::Get(k) => match tr.read(&t, &k.to_be_bytes(), ReadMode::Consistent) {
                    Ok(v) => Out::Rows(v.map(|v| (k, dec(&v))).into_iter().collect()),
                    Err(e) => Out::Err(e.mysql_errno()),
                },
                Op::Scan(pred) => {
                    let rows: Result<Rows, _> = tr
                        .scan(&t, Bound::Unbounded, Bound::Unbounded, false)
                        .map(|r| {
                            r.map(|(k, v)| (u32::from_be_bytes(k.try_into().unwrap()), dec(&v)))
                        })
                        .collect();
                    match rows {
                        Ok(r) => Out::Rows(r.into_iter().filter(|(_, v)| pred(*v)).collect()),
                        Err(e) => Out::Err(e.mysql_errno()),
                    }
                }
                Op::Update(k, v) => match tr.update(&t, &k.to_be_bytes(), &enc(v)) {
                    Ok(_) => Out::Done,
                    Err(e) => Out::Err(e.mysql_errno()),
                },
                Op::Insert(k, v) => match tr.insert(&t, &k.to_be_bytes(), &enc(v)) {
                    Ok(_) => Out::Done,
                    Err(e) => Out::Err(e.mysql_errno()),
                },
                Op::Delete(k) => match tr.delete(&t, &k.to_be_bytes()) {
                    Ok(_) => Out::Done,
                    Err(e) => Out::Err(e.mysql_errno()),
                },
                Op::Commit => match trx.take().unwrap().commit() {
                    Ok(()) => Out::Done,
                    Err(e) => Out::Err(e.mysql_errno()),
                },
                Op::Rollback => match trx.take().unwrap().rollback() {
                    Ok(()) => Out::Done,
                    Err(e) => Out::Err(e.mysql_errno()),
                },
            };
            if tx_out.send(out).is_err() {
                return;
            }
        }
    });
    (tx_op, rx_out, h)
}

/// One step of a script: transaction index, statement, expected outcome (None: a
/// statement that blocks; its outcome is checked by a later `Unblocked` step).
struct Step {
    trx: usize,
    op: Op,
    expect: Option<Out>,
}

fn step(trx: usize, op: Op, expect: Out) -> Step {
    Step {
        trx,
        op,
        expect: Some(expect),
    }
}
fn blocks(trx: usize, op: Op) -> Step {
    Step {
        trx,
        op,
        expect: None,
    }
}
fn rows(r: &[(u32, i64)]) -> Out {
    Out::Rows(r.to_vec())
}

/// Runs a script; `unblocked` lists, for the step that releases a blocked statement,
/// (blocked transaction, its expected outcome).
fn run(
    name: &str,
    isolation: Isolation,
    n: usize,
    script: Vec<(Step, Option<(usize, Out)>)>,
) -> Rows {
    let s = setup();
    let trxs: Vec<_> = (0..n)
        .map(|_| spawn_trx(s.te.clone(), s.t.clone(), isolation))
        .collect();
    for (i, (st, unblocks)) in script.into_iter().enumerate() {
        trxs[st.trx].0.send(st.op.clone()).unwrap();
        match st.expect {
            Some(want) => {
                let got = trxs[st.trx]
                    .1
                    .recv_timeout(Duration::from_secs(5))
                    .unwrap_or_else(|_| panic!("{name} {isolation:?} step {i}: {:?} hung", st.op));
                assert_eq!(got, want, "{name} {isolation:?} step {i}: {:?}", st.op);
            }
            None => assert!(
                trxs[st.trx]
                    .1
                    .recv_timeout(Duration::from_millis(100))
                    .is_err(),
                "{name} {isolation:?} step {i}: {:?} should block",
                st.op
            ),
        }
        if let Some((b, want)) = unblocks {
            let got = trxs[b]
                .1
                .recv_timeout(Duration::from_secs(5))
                .unwrap_or_else(|_| {
                    panic!("{name} {isolation:?} step {i}: T{} still blocked", b + 1)
                });
            assert_eq!(got, want, "{name} {isolation:?}: unblocked T{}", b + 1);
        }
    }
    for (tx, _, h) in trxs {
        drop(tx);
        h.join().unwrap();
    }
    // The final committed state.
    let mut sess = s.te.session().unwrap();
    let mut r = sess.begin(TrxOptions::default());
    let out = r
        .scan(&s.t, Bound::Unbounded, Bound::Unbounded, false)
        .map(|x| {
            let (k, v) = x.unwrap();
            (u32::from_be_bytes(k.try_into().unwrap()), dec(&v))
        })
        .collect();
    r.commit().unwrap();
    out
}

const RC: Isolation = Isolation::ReadCommitted;
const RR: Isolation = Isolation::RepeatableRead;
use Op::*;

#[test]
fn g0_write_cycles_prevented() {
    for iso in [RC, RR] {
        let end = run(
            "G0",
            iso,
            2,
            vec![
                (step(0, Update(1, 11), Out::Done), None),
                (blocks(1, Update(1, 12)), None),
                (step(0, Update(2, 21), Out::Done), None),
                (step(0, Commit, Out::Done), Some((1, Out::Done))),
                (step(1, Update(2, 22), Out::Done), None),
                (step(1, Commit, Out::Done), None),
            ],
        );
        assert_eq!(end, vec![(1, 12), (2, 22)], "G0 {iso:?}");
    }
}

#[test]
fn g1a_aborted_reads_prevented() {
    for iso in [RC, RR] {
        run(
            "G1a",
            iso,
            2,
            vec![
                (step(0, Update(1, 101), Out::Done), None),
                (step(1, Scan(|_| true), rows(&[(1, 10), (2, 20)])), None),
                (step(0, Rollback, Out::Done), None),
                (step(1, Scan(|_| true), rows(&[(1, 10), (2, 20)])), None),
                (step(1, Commit, Out::Done), None),
            ],
        );
    }
}

#[test]
fn g1b_intermediate_reads_prevented() {
    for (iso, final_read) in [(RC, 11), (RR, 10)] {
        run(
            "G1b",
            iso,
            2,
            vec![
                (step(0, Update(1, 101), Out::Done), None),
                (step(1, Get(1), rows(&[(1, 10)])), None),
                (step(0, Update(1, 11), Out::Done), None),
                (step(0, Commit, Out::Done), None),
                (step(1, Get(1), rows(&[(1, final_read)])), None),
                (step(1, Commit, Out::Done), None),
            ],
        );
    }
}

#[test]
fn g1c_circular_information_flow_prevented() {
    for iso in [RC, RR] {
        run(
            "G1c",
            iso,
            2,
            vec![
                (step(0, Update(1, 11), Out::Done), None),
                (step(1, Update(2, 22), Out::Done), None),
                (step(0, Get(2), rows(&[(2, 20)])), None),
                (step(1, Get(1), rows(&[(1, 10)])), None),
                (step(0, Commit, Out::Done), None),
                (step(1, Commit, Out::Done), None),
            ],
        );
    }
}

#[test]
fn otv_observed_transaction_vanishes_prevented() {
    for (iso, late2, late1) in [(RC, 18, 12), (RR, 19, 11)] {
        run(
            "OTV",
            iso,
            3,
            vec![
                (step(0, Update(1, 11), Out::Done), None),
                (step(0, Update(2, 19), Out::Done), None),
                (blocks(1, Update(1, 12)), None),
                (step(0, Commit, Out::Done), Some((1, Out::Done))),
                (step(2, Get(1), rows(&[(1, 11)])), None),
                (step(1, Update(2, 18), Out::Done), None),
                (step(2, Get(2), rows(&[(2, 19)])), None),
                (step(1, Commit, Out::Done), None),
                (step(2, Get(2), rows(&[(2, late2)])), None),
                (step(2, Get(1), rows(&[(1, late1)])), None),
                (step(2, Commit, Out::Done), None),
            ],
        );
    }
}

#[test]
fn pmp_predicate_many_preceders() {
    // READ COMMITTED shows the phantom; REPEATABLE READ's snapshot does not.
    for (iso, second) in [(RC, vec![(3, 30)]), (RR, vec![])] {
        run(
            "PMP",
            iso,
            2,
            vec![
                (step(0, Scan(|v| v == 30), rows(&[])), None),
                (step(1, Insert(3, 30), Out::Done), None),
                (step(1, Commit, Out::Done), None),
                (step(0, Scan(|v| v % 3 == 0), Out::Rows(second)), None),
                (step(0, Commit, Out::Done), None),
            ],
        );
    }
}

#[test]
fn p4_lost_update_not_prevented() {
    // MySQL's UPDATE writes over the newer commit at both levels (Hermitage: "—").
    for iso in [RC, RR] {
        let end = run(
            "P4",
            iso,
            2,
            vec![
                (step(0, Get(1), rows(&[(1, 10)])), None),
                (step(1, Get(1), rows(&[(1, 10)])), None),
                (step(0, Update(1, 11), Out::Done), None),
                (blocks(1, Update(1, 11)), None),
                (step(0, Commit, Out::Done), Some((1, Out::Done))),
                (step(1, Commit, Out::Done), None),
            ],
        );
        assert_eq!(end, vec![(1, 11), (2, 20)]);
    }
}

#[test]
fn g_single_read_skew() {
    // Prevented for reads at REPEATABLE READ, not at READ COMMITTED.
    for (iso, seen) in [(RC, 18), (RR, 20)] {
        run(
            "G-single",
            iso,
            2,
            vec![
                (step(0, Get(1), rows(&[(1, 10)])), None),
                (step(1, Get(1), rows(&[(1, 10)])), None),
                (step(1, Get(2), rows(&[(2, 20)])), None),
                (step(1, Update(1, 12), Out::Done), None),
                (step(1, Update(2, 18), Out::Done), None),
                (step(1, Commit, Out::Done), None),
                (step(0, Get(2), rows(&[(2, seen)])), None),
                (step(0, Commit, Out::Done), None),
            ],
        );
    }
}

#[test]
fn g2_item_write_skew_not_prevented() {
    for iso in [RC, RR] {
        let end = run(
            "G2-item",
            iso,
            2,
            vec![
                (step(0, Scan(|_| true), rows(&[(1, 10), (2, 20)])), None),
                (step(1, Scan(|_| true), rows(&[(1, 10), (2, 20)])), None),
                (step(0, Update(1, 11), Out::Done), None),
                (step(1, Update(2, 21), Out::Done), None),
                (step(0, Commit, Out::Done), None),
                (step(1, Commit, Out::Done), None),
            ],
        );
        assert_eq!(end, vec![(1, 11), (2, 21)]);
    }
}

#[test]
fn g2_anti_dependency_cycles_not_prevented() {
    for iso in [RC, RR] {
        let end = run(
            "G2",
            iso,
            2,
            vec![
                (step(0, Scan(|v| v % 3 == 0), rows(&[])), None),
                (step(1, Scan(|v| v % 3 == 0), rows(&[])), None),
                (step(0, Insert(3, 30), Out::Done), None),
                (step(1, Insert(4, 42), Out::Done), None),
                (step(0, Commit, Out::Done), None),
                (step(1, Commit, Out::Done), None),
            ],
        );
        assert_eq!(end, vec![(1, 10), (2, 20), (3, 30), (4, 42)]);
    }
}

#[test]
fn deletes_follow_the_snapshot() {
    // Not a Hermitage case: a committed delete vanishes for READ COMMITTED's next
    // statement, but not from a REPEATABLE READ snapshot taken before it.
    for (iso, after) in [(RC, vec![(1, 10)]), (RR, vec![(1, 10), (2, 20)])] {
        let end = run(
            "delete",
            iso,
            2,
            vec![
                (step(1, Scan(|_| true), rows(&[(1, 10), (2, 20)])), None),
                (step(0, Delete(2), Out::Done), None),
                (step(1, Scan(|_| true), rows(&[(1, 10), (2, 20)])), None),
                (step(0, Commit, Out::Done), None),
                (step(1, Scan(|_| true), Out::Rows(after)), None),
                (step(1, Commit, Out::Done), None),
            ],
        );
        assert_eq!(end, vec![(1, 10)]);
    }
}
