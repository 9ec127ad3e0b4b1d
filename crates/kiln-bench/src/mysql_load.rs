//! The `mysql` mode's load: `threads` event-loop threads, each owning every
//! `threads`-th connection. A thread opens its connections (blocking set-up), then
//! multiplexes them with one epoll set: each connection runs its transactions in a
//! closed loop (send a statement, read its response when the socket is readable, send
//! the next), so thousands of connections cost the client a few threads, not
//! thousands. The phases, progress line and measured time come from `runner::Clock`.
//!
//! Counting: a statement counts in the phase in which its answer arrives, a transaction
//! in the phase in which it completes (as sysbench counts). Counting by the phase a
//! transaction started in (what this did before) loses the transactions in flight at
//! either end of the measured phase, about latency/duration of them: in a closed loop
//! latency is connections/throughput, so with 4,000 connections and 5-16 s
//! transactions it reported a fraction of the rate, down to 0 TPS. Latency is per
//! transaction: from sending BEGIN (read_write) or the query (point_select) to the last
//! response. An ERR inside a read_write transaction sends
//! ROLLBACK and starts a new transaction, as sysbench does; deadlocks (1213), lock wait
//! timeouts (1205) and 1020 are counted as `retried`, any other ERR as an `error`.

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::epoll::{self, Epoll, Event};
use crate::error::{ConnError, FatalError};
use crate::histogram::Histogram;
use crate::mysql_conn::{MyConn, Target};
use crate::mysql_wire::{Outcome, ServerError};
use crate::mysql_workload::{self as workload, Kind, Shape, Step, Workload};
use crate::rng::Rng;
use crate::runner::{Clock, RUN, STOP, WARMUP};

/// What to run.
#[derive(Clone, Debug)]
pub struct MySpec {
    pub workload: Workload,
    pub shape: Shape,
    pub connections: usize,
    pub threads: usize,
    pub warmup_secs: u64,
    pub duration_secs: u64,
    pub seed: u64,
}

/// The measured phase over all connections.
#[derive(Clone, Debug, Default)]
pub struct MyResult {
    pub transactions: u64,
    pub queries: u64,
    pub errors: u64,
    pub retried: u64,
    pub rows: u64,
    /// Point selects that found no row.
    pub misses: u64,
    pub elapsed: Duration,
    /// Nanoseconds per transaction.
    pub latency: Histogram,
    /// Client CPU (user + system, whole process) during the measured phase.
    pub client_cpu: Duration,
    /// Wall time to open and prepare every connection.
    pub setup: Duration,
    /// The server's version string (from the first connection's greeting).
    pub server_version: String,
}

/// ERR codes after which sysbench rolls back and retries the transaction.
const RETRIED: [u16; 3] = [1213, 1205, 1020];
/// ERR responses echoed to stderr, at most.
const ERROR_SAMPLES: usize = 5;

#[repr(align(64))]
#[derive(Default)]
struct Progress {
    queries: AtomicU64,
    errors: AtomicU64,
    misses: AtomicU64,
}

struct Shared {
    phase: AtomicU8,
    failed: AtomicBool,
    progress: Box<[Progress]>,
    samples: AtomicUsize,
}

/// One connection's place in its transaction.
struct Session {
    conn: MyConn,
    no: usize,
    rng: Rng,
    plan: Vec<Step>,
    next: usize,
    rolling_back: bool,
    started: Instant,
    sent: Instant,
    waiting_out: bool,
}

/// One thread's counts in the measured phase and over all phases (for progress).
struct Tally {
    r: MyResult,
    all_queries: u64,
    all_errors: u64,
    all_misses: u64,
}

/// Runs the load: opens every connection, then measures.
pub fn run(target: &Target, spec: &MySpec, timeout: Duration) -> Result<MyResult, ConnError> {
    let threads = spec.threads.clamp(1, spec.connections.max(1));
    let shared = Shared {
        phase: AtomicU8::new(if spec.warmup_secs > 0 { WARMUP } else { RUN }),
        failed: AtomicBool::new(false),
        progress: (0..threads).map(|_| Progress::default()).collect(),
        samples: AtomicUsize::new(0),
    };
    let ready = Barrier::new(threads + 1);
    let version = std::sync::OnceLock::new();
    let t0 = Instant::now();
    thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (shared, ready, version) = (&shared, &ready, &version);
                s.spawn(move || {
                    let mine: Vec<usize> = (t..spec.connections).step_by(threads).collect();
                    let opened = open_all(target, spec, &mine, &shared.failed);
                    if let Ok(Some(s)) = opened.as_ref().map(|v| v.first()) {
                        version.get_or_init(|| s.conn.server_version.clone());
                    }
                    if opened.is_err() {
                        shared.failed.store(true, Ordering::Release);
                    }
                    ready.wait();
                    let r = opened.and_then(|sessions| {
                        if shared.failed.load(Ordering::Acquire) {
                            return Ok(None);
                        }
                        event_loop(t, sessions, shared, spec, timeout).map(Some)
                    });
                    if r.is_err() {
                        shared.failed.store(true, Ordering::Release);
                        shared.phase.store(STOP, Ordering::Release);
                    }
                    r
                })
            })
            .collect();
        ready.wait();
        let setup = t0.elapsed();
        let mut result = MyResult {
            setup,
            server_version: version.get().cloned().unwrap_or_default(),
            ..MyResult::default()
        };
        if !shared.failed.load(Ordering::Acquire) {
            eprintln!(
                "kiln-bench: {} connections to {} ({}) ready in {:.1} s ({} threads); warmup \
                 {} s, measuring {} s",
                spec.connections,
                target.addr(),
                result.server_version,
                setup.as_secs_f64(),
                threads,
                spec.warmup_secs,
                spec.duration_secs
            );
            let clock = Clock {
                phase: &shared.phase,
                failed: &shared.failed,
                warmup_secs: spec.warmup_secs,
                duration_secs: spec.duration_secs,
            };
            let totals = || {
                shared.progress.iter().fold((0, 0, 0), |(q, e, m), p| {
                    (
                        q + p.queries.load(Ordering::Relaxed),
                        e + p.errors.load(Ordering::Relaxed),
                        m + p.misses.load(Ordering::Relaxed),
                    )
                })
            };
            let mut cpu0 = Duration::ZERO;
            result.elapsed = clock.drive(&totals, &mut || cpu0 = epoll::process_cpu());
            result.client_cpu = epoll::process_cpu().saturating_sub(cpu0);
        }
        shared.phase.store(STOP, Ordering::Release);
        let mut failure = None;
        for w in workers {
            match w.join().expect("a load thread panicked") {
                Ok(Some(t)) => merge(&mut result, &t.r),
                Ok(None) => {}
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(result),
        }
    })
}

fn merge(into: &mut MyResult, r: &MyResult) {
    into.transactions += r.transactions;
    into.queries += r.queries;
    into.errors += r.errors;
    into.retried += r.retried;
    into.rows += r.rows;
    into.misses += r.misses;
    into.latency.merge(&r.latency);
}

/// Opens this thread's connections in order; stops at the first failure (or when
/// another thread failed).
fn open_all(
    target: &Target,
    spec: &MySpec,
    mine: &[usize],
    failed: &AtomicBool,
) -> Result<Vec<Session>, ConnError> {
    let mut out = Vec::with_capacity(mine.len());
    for &no in mine {
        if failed.load(Ordering::Acquire) {
            break;
        }
        let conn = MyConn::open(target, spec.workload, spec.shape.tables)
            .map_err(|error| ConnError { conn: no, error })?;
        let now = Instant::now();
        out.push(Session {
            conn,
            no,
            rng: Rng::new(spec.seed, no as u64),
            plan: Vec::with_capacity(24),
            next: 0,
            rolling_back: false,
            started: now,
            sent: now,
            waiting_out: false,
        });
    }
    Ok(out)
}

/// Scratch of one thread for encoding requests.
struct Scratch {
    c: Vec<u8>,
    pad: Vec<u8>,
}

fn event_loop(
    t: usize,
    mut sessions: Vec<Session>,
    shared: &Shared,
    spec: &MySpec,
    timeout: Duration,
) -> Result<Tally, ConnError> {
    let io = |no: usize| {
        move |e: std::io::Error| ConnError {
            conn: no,
            error: FatalError::Io(e),
        }
    };
    let ep = Epoll::new().map_err(io(t))?;
    let mut tally = Tally {
        r: MyResult::default(),
        all_queries: 0,
        all_errors: 0,
        all_misses: 0,
    };
    let mut scratch = Scratch {
        c: Vec::with_capacity(128),
        pad: Vec::with_capacity(64),
    };
    for (i, s) in sessions.iter_mut().enumerate() {
        ep.add(s.conn.fd(), i as u64, epoll::IN | epoll::HUP)
            .map_err(io(s.no))?;
        begin_txn(s, spec, &mut scratch, &ep, i)?;
    }
    let mut buf = Vec::with_capacity(1024);
    let mut events: Vec<Event> = Vec::with_capacity(1024);
    let mut last_check = Instant::now();
    loop {
        let phase = shared.phase.load(Ordering::Acquire);
        if phase == STOP {
            return Ok(tally);
        }
        ep.wait(&mut buf, Duration::from_millis(100), &mut events);
        for ev in &events {
            let i = ev.token as usize;
            let s = &mut sessions[i];
            let fail = |error| ConnError { conn: s.no, error };
            if ev.events & epoll::OUT != 0 && s.waiting_out && s.conn.flush().map_err(fail)? {
                s.waiting_out = false;
                ep.modify(s.conn.fd(), i as u64, epoll::IN | epoll::HUP)
                    .map_err(io(s.no))?;
            }
            if ev.events & (epoll::IN | epoll::HUP | epoll::ERR) == 0 {
                continue;
            }
            let fail = |error| ConnError { conn: s.no, error };
            let Some(outcome) = s.conn.on_readable().map_err(fail)? else {
                continue;
            };
            on_response(
                s,
                outcome,
                spec,
                phase,
                &mut tally,
                shared,
                &mut scratch,
                &ep,
                i,
            )?;
        }
        let p = &shared.progress[t];
        p.queries.store(tally.all_queries, Ordering::Relaxed);
        p.errors.store(tally.all_errors, Ordering::Relaxed);
        p.misses.store(tally.all_misses, Ordering::Relaxed);
        if last_check.elapsed() >= Duration::from_secs(1) {
            last_check = Instant::now();
            if let Some(s) = sessions.iter().find(|s| s.sent.elapsed() > timeout) {
                return Err(ConnError {
                    conn: s.no,
                    error: FatalError::Timeout(timeout),
                });
            }
        }
    }
}

/// Plans a new transaction and sends its first statement.
fn begin_txn(
    s: &mut Session,
    spec: &MySpec,
    scratch: &mut Scratch,
    ep: &Epoll,
    token: usize,
) -> Result<(), ConnError> {
    workload::plan(spec.workload, &spec.shape, &mut s.rng, &mut s.plan);
    s.next = 0;
    s.rolling_back = false;
    s.started = Instant::now();
    send_step(s, spec, scratch, ep, token)
}

/// Sends `plan[next]` (or ROLLBACK while rolling back).
fn send_step(
    s: &mut Session,
    spec: &MySpec,
    scratch: &mut Scratch,
    ep: &Epoll,
    token: usize,
) -> Result<(), ConnError> {
    let step = if s.rolling_back {
        Step {
            kind: Kind::Rollback,
            table: 0,
            id: 0,
            k: 0,
        }
    } else {
        s.plan[s.next]
    };
    let id = s.conn.stmts.id(spec.workload, step.kind, step.table);
    let params = workload::params(
        &step,
        &mut s.rng,
        &spec.shape,
        &mut scratch.c,
        &mut scratch.pad,
    );
    s.sent = Instant::now();
    let done = s
        .conn
        .execute(id, params.as_slice())
        .map_err(|error| ConnError { conn: s.no, error })?;
    if !done {
        s.waiting_out = true;
        ep.modify(
            s.conn.fd(),
            token as u64,
            epoll::IN | epoll::OUT | epoll::HUP,
        )
        .map_err(|e| ConnError {
            conn: s.no,
            error: FatalError::Io(e),
        })?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn on_response(
    s: &mut Session,
    outcome: Outcome,
    spec: &MySpec,
    phase: u8,
    tally: &mut Tally,
    shared: &Shared,
    scratch: &mut Scratch,
    ep: &Epoll,
    token: usize,
) -> Result<(), ConnError> {
    let counted = phase == RUN;
    tally.all_queries += 1;
    if counted {
        tally.r.queries += 1;
    }
    if s.rolling_back {
        return begin_txn(s, spec, scratch, ep, token);
    }
    match outcome {
        Outcome::Err(e) => {
            let retry = RETRIED.contains(&e.code);
            if !retry {
                tally.all_errors += 1;
                sample_error(shared, s.no, &e);
            }
            if counted {
                if retry {
                    tally.r.retried += 1;
                } else {
                    tally.r.errors += 1;
                }
            }
            if spec.workload == Workload::ReadWrite {
                s.rolling_back = true;
                return send_step(s, spec, scratch, ep, token);
            }
            return begin_txn(s, spec, scratch, ep, token);
        }
        Outcome::Rows(n) => {
            if counted {
                tally.r.rows += n;
            }
            if n == 0 && s.plan[s.next].kind == Kind::Point {
                tally.all_misses += 1;
                if counted {
                    tally.r.misses += 1;
                }
            }
        }
        Outcome::Ok(_) => {}
    }
    s.next += 1;
    if s.next < s.plan.len() {
        return send_step(s, spec, scratch, ep, token);
    }
    if counted {
        tally.r.transactions += 1;
        let ns = u64::try_from(s.started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        tally.r.latency.record(ns);
    }
    begin_txn(s, spec, scratch, ep, token)
}

fn sample_error(shared: &Shared, conn: usize, e: &ServerError) {
    if shared.samples.load(Ordering::Relaxed) < ERROR_SAMPLES
        && shared.samples.fetch_add(1, Ordering::Relaxed) < ERROR_SAMPLES
    {
        eprintln!("connection {conn}: {e}");
    }
}
