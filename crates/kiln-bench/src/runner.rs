//! The load loop: connections spread over a few threads (`LoadSpec::threads`), each
//! thread driving its connections through one epoll instance; every connection issues
//! batches of `pipeline` requests (write them all, then read every response; a batch
//! of 1 is a closed loop). A warmup phase whose requests are not counted, a measured
//! phase, and a progress line on stderr every second. Each connection keeps its own
//! counts and latency histogram and publishes running totals through its own cache
//! line; the main thread only reads them for the progress line and merges the
//! histograms when the threads end.
//!
//! Why not a thread per connection: the client shares the machine with the server,
//! and a thread blocked on every response costs a sleep and a wake-up (and on the
//! server, the wake-up of the reader) per round trip — more CPU than the request. A
//! thread that serves several connections finds most responses already there.
//!
//! A batch counts in the phase in which it started; batches in flight when the run
//! stops are finished and counted. Latency is measured from sending a batch to
//! reading its last response: per request in a closed loop, per round trip of the
//! whole batch when pipelining.

use std::os::fd::RawFd;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use kiln_common::epoll::{Epoll, READABLE};

use crate::client::{Client, Op, Reply};
use crate::error::{ConnError, FatalError};
use crate::histogram::Histogram;
use crate::keys::{Distribution, KeyGen};
use crate::lineio::printable;
use crate::rng::Rng;

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadSpec {
    pub warmup_secs: u64,
    pub duration_secs: u64,
    /// Requests in flight per connection (≥ 1).
    pub pipeline: usize,
    /// Probability that a request is a write.
    pub write_ratio: f64,
    /// Keys are drawn from `1..=keys`.
    pub keys: u64,
    pub dist: Distribution,
    pub seed: u64,
    /// Threads driving the connections (≥ 1; at most one per connection).
    pub threads: usize,
    /// How long a connection may wait for a response before the run fails.
    pub timeout: Duration,
    /// Run the load threads under SCHED_BATCH (see `batch_sched`).
    pub batch_sched: bool,
}

/// What the measured phase did, over all connections.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    pub ops: u64,
    pub reads: u64,
    pub writes: u64,
    pub errors: u64,
    pub misses: u64,
    /// Wall time of the measured phase.
    pub elapsed: Duration,
    /// Nanoseconds per request (pipeline 1) or per batch round trip (pipeline > 1).
    pub latency: Histogram,
}

pub(crate) const WARMUP: u8 = 0;
pub(crate) const RUN: u8 = 1;
pub(crate) const STOP: u8 = 2;

/// Error responses echoed to stderr, at most.
const ERROR_SAMPLES: usize = 5;
/// How often a waiting thread looks at the phase.
const WAIT_MS: i32 = 50;

/// One connection's running totals over all phases, for the progress line.
#[repr(align(64))]
#[derive(Default)]
struct Progress {
    ops: AtomicU64,
    errors: AtomicU64,
    misses: AtomicU64,
}

struct Shared {
    phase: AtomicU8,
    failed: AtomicBool,
    progress: Box<[Progress]>,
    samples: AtomicUsize,
}

impl Shared {
    fn totals(&self) -> (u64, u64, u64) {
        self.progress.iter().fold((0, 0, 0), |(o, e, m), p| {
            (
                o + p.ops.load(Ordering::Relaxed),
                e + p.errors.load(Ordering::Relaxed),
                m + p.misses.load(Ordering::Relaxed),
            )
        })
    }
}

/// Runs `spec` over `clients` (already connected and set up): connection `i` goes to
/// thread `i % threads`.
pub fn run<C: Client>(clients: Vec<C>, spec: &LoadSpec) -> Result<RunResult, ConnError> {
    let n = clients.len();
    let threads = spec.threads.clamp(1, n.max(1));
    let shared = Shared {
        phase: AtomicU8::new(if spec.warmup_secs > 0 { WARMUP } else { RUN }),
        failed: AtomicBool::new(false),
        progress: (0..n).map(|_| Progress::default()).collect(),
        samples: AtomicUsize::new(0),
    };
    let mut groups: Vec<Vec<Conn<C>>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, client) in clients.into_iter().enumerate() {
        groups[i % threads].push(Conn::new(i, client, spec));
    }
    let start_line = Barrier::new(threads + 1);
    thread::scope(|s| {
        let workers: Vec<_> = groups
            .into_iter()
            .map(|group| {
                let (shared, start_line) = (&shared, &start_line);
                s.spawn(move || {
                    if spec.batch_sched {
                        batch_sched();
                    }
                    start_line.wait();
                    let r = drive_conns(group, shared, spec);
                    if r.is_err() {
                        shared.failed.store(true, Ordering::Release);
                        shared.phase.store(STOP, Ordering::Release);
                    }
                    r
                })
            })
            .collect();
        start_line.wait();
        let clock = Clock {
            phase: &shared.phase,
            failed: &shared.failed,
            warmup_secs: spec.warmup_secs,
            duration_secs: spec.duration_secs,
        };
        let elapsed = clock.drive(&|| shared.totals(), &mut || {});
        let mut result = RunResult {
            elapsed,
            ..RunResult::default()
        };
        let mut failure = None;
        for w in workers {
            match w.join().expect("a load thread panicked") {
                Ok(tallies) => {
                    for t in tallies {
                        result.ops += t.reads + t.writes;
                        result.reads += t.reads;
                        result.writes += t.writes;
                        result.errors += t.errors;
                        result.misses += t.misses;
                        result.latency.merge(&t.latency);
                    }
                }
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

/// Puts the calling thread under SCHED_BATCH: a load thread woken by a response then
/// does not preempt the server thread that sent it (which would pay a context switch
/// in the middle of its send loop, per response); it runs when the server thread
/// sleeps or its time slice ends. CPU shares are as under SCHED_OTHER. Best effort:
/// a failure leaves the thread as it was.
fn batch_sched() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid sched_param for the duration of the call; pid 0 is
    // the calling thread.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
}

/// One connection's counts in the measured phase.
struct Tally {
    reads: u64,
    writes: u64,
    errors: u64,
    misses: u64,
    latency: Histogram,
}

/// A connection and where its current batch stands.
struct Conn<C> {
    id: usize,
    client: C,
    keys: KeyGen,
    tally: Tally,
    /// The batch in flight: its ops, how many responses were read, when it was sent,
    /// the phase it started in, and its error and miss counts so far.
    batch: Vec<Op>,
    answered: usize,
    sent_at: Instant,
    phase: u8,
    errors: u64,
    misses: u64,
    /// Totals over all phases (the progress line).
    all_ops: u64,
    all_errors: u64,
    all_misses: u64,
    /// No batch in flight (the run is stopping).
    idle: bool,
}

impl<C: Client> Conn<C> {
    fn new(id: usize, client: C, spec: &LoadSpec) -> Conn<C> {
        Conn {
            id,
            client,
            keys: KeyGen::new(spec.keys, spec.dist.clone(), Rng::new(spec.seed, id as u64)),
            tally: Tally {
                reads: 0,
                writes: 0,
                errors: 0,
                misses: 0,
                latency: Histogram::new(),
            },
            batch: Vec::with_capacity(spec.pipeline),
            answered: 0,
            sent_at: Instant::now(),
            phase: WARMUP,
            errors: 0,
            misses: 0,
            all_ops: 0,
            all_errors: 0,
            all_misses: 0,
            idle: true,
        }
    }

    /// Sends the next batch, unless the run is stopping.
    fn send(&mut self, shared: &Shared, spec: &LoadSpec) -> Result<(), FatalError> {
        let phase = shared.phase.load(Ordering::Acquire);
        if phase == STOP {
            self.idle = true;
            return Ok(());
        }
        self.batch.clear();
        for _ in 0..spec.pipeline {
            let key = self.keys.next_key();
            let write = spec.write_ratio > 0.0 && self.keys.rng().next_f64() < spec.write_ratio;
            let op = if write { Op::Write(key) } else { Op::Read(key) };
            self.client.push(op);
            self.batch.push(op);
        }
        self.answered = 0;
        self.errors = 0;
        self.misses = 0;
        self.phase = phase;
        self.idle = false;
        self.sent_at = Instant::now();
        self.client.flush()
    }

    /// Reads the responses that have arrived; sends the next batch when this one is
    /// complete. Returns whether any response was read.
    fn on_readable(&mut self, shared: &Shared, spec: &LoadSpec) -> Result<bool, FatalError> {
        let mut progressed = false;
        while !self.idle && self.answered < self.batch.len() {
            let op = self.batch[self.answered];
            match self.client.read_reply(op) {
                Ok(r) => {
                    progressed = true;
                    self.answered += 1;
                    match r {
                        Reply::Hit => {}
                        Reply::Miss => self.misses += 1,
                        Reply::Error => {
                            self.errors += 1;
                            sample_error(shared, self.id, self.client.error_line());
                        }
                    }
                }
                Err(FatalError::Pending) => {
                    self.client.rewind();
                    return Ok(progressed);
                }
                Err(e) => return Err(e),
            }
        }
        if !self.idle {
            self.finish(shared);
            self.send(shared, spec)?;
        }
        Ok(progressed)
    }

    /// Counts the completed batch.
    fn finish(&mut self, shared: &Shared) {
        let ns = u64::try_from(self.sent_at.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let t = &mut self.tally;
        if self.phase == RUN {
            t.latency.record(ns);
            for op in &self.batch {
                match op {
                    Op::Read(_) => t.reads += 1,
                    Op::Write(_) => t.writes += 1,
                }
            }
            t.errors += self.errors;
            t.misses += self.misses;
        }
        self.all_ops += self.batch.len() as u64;
        self.all_errors += self.errors;
        self.all_misses += self.misses;
        let p = &shared.progress[self.id];
        p.ops.store(self.all_ops, Ordering::Relaxed);
        p.errors.store(self.all_errors, Ordering::Relaxed);
        p.misses.store(self.all_misses, Ordering::Relaxed);
    }
}

/// One load thread: sends every connection's first batch, then serves the
/// connections whose responses arrive until the run stops and their batches in
/// flight are done. Connections without a descriptor (in-process) are always ready.
fn drive_conns<C: Client>(
    mut conns: Vec<Conn<C>>,
    shared: &Shared,
    spec: &LoadSpec,
) -> Result<Vec<Tally>, ConnError> {
    let fail = |c: &Conn<C>, error| ConnError { conn: c.id, error };
    let epoll = Epoll::new().map_err(|e| ConnError {
        conn: conns.first().map_or(0, |c| c.id),
        error: FatalError::Io(e),
    })?;
    let mut polled = true;
    for (i, c) in conns.iter_mut().enumerate() {
        let fd: Option<RawFd> = c.client.nonblocking().map_err(|e| fail(c, e))?;
        match fd {
            Some(fd) => epoll
                .add(fd, READABLE, i as u64)
                .map_err(|e| fail(c, FatalError::Io(e)))?,
            None => polled = false,
        }
    }
    for c in conns.iter_mut() {
        c.send(shared, spec).map_err(|e| fail(c, e))?;
    }
    let mut events = Vec::with_capacity(conns.len().max(1));
    let mut last_progress = Instant::now();
    while conns.iter().any(|c| !c.idle) {
        if shared.failed.load(Ordering::Acquire) {
            break; // another thread failed: the run's result is that failure
        }
        let mut progressed = false;
        if polled {
            epoll
                .wait(&mut events, WAIT_MS)
                .map_err(|e| fail(&conns[0], FatalError::Io(e)))?;
            for ev in &events {
                let Some(c) = conns.get_mut(ev.u64 as usize) else {
                    continue;
                };
                progressed |= c.on_readable(shared, spec).map_err(|e| fail(c, e))?;
            }
        } else {
            for c in conns.iter_mut() {
                progressed |= c.on_readable(shared, spec).map_err(|e| fail(c, e))?;
            }
        }
        if progressed {
            last_progress = Instant::now();
        } else if last_progress.elapsed() > spec.timeout {
            let c = conns.iter().find(|c| !c.idle).unwrap_or(&conns[0]);
            return Err(fail(c, FatalError::Timeout(spec.timeout)));
        }
    }
    Ok(conns.into_iter().map(|c| c.tally).collect())
}

/// Echoes the first few error responses of the run to stderr.
fn sample_error(shared: &Shared, conn: usize, line: &[u8]) {
    if shared.samples.load(Ordering::Relaxed) < ERROR_SAMPLES
        && shared.samples.fetch_add(1, Ordering::Relaxed) < ERROR_SAMPLES
    {
        eprintln!("connection {conn}: error response: {}", printable(line));
    }
}

/// The main thread's clock over a run's shared phase: switches the phases, prints
/// progress every second, and returns the measured phase's wall time (cut short if a
/// connection failed).
pub(crate) struct Clock<'a> {
    pub phase: &'a AtomicU8,
    pub failed: &'a AtomicBool,
    pub warmup_secs: u64,
    pub duration_secs: u64,
}

impl Clock<'_> {
    /// `totals` gives (ops, errors, misses) over all connections so far; `on_run` is
    /// called as the measured phase starts.
    pub(crate) fn drive(
        &self,
        totals: &dyn Fn() -> (u64, u64, u64),
        on_run: &mut dyn FnMut(),
    ) -> Duration {
        let start = Instant::now();
        let (warmup, total) = (self.warmup_secs, self.warmup_secs + self.duration_secs);
        let mut run_start = start;
        if warmup == 0 {
            on_run();
        }
        let (mut last_t, mut last_ops) = (start, totals().0);
        for tick in 1..=total {
            if !sleep_until(start + Duration::from_secs(tick), self.failed) {
                self.phase.store(STOP, Ordering::Release);
                return Instant::now().saturating_duration_since(run_start);
            }
            let now = Instant::now();
            if tick == warmup {
                self.phase.store(RUN, Ordering::Release);
                run_start = now;
                on_run();
            }
            if tick == total {
                self.phase.store(STOP, Ordering::Release);
            }
            let (ops, errors, misses) = totals();
            let rate = (ops - last_ops) as f64 / now.duration_since(last_t).as_secs_f64();
            let (label, at, of) = if tick <= warmup {
                ("warmup", tick, warmup)
            } else {
                ("run", tick - warmup, self.duration_secs)
            };
            eprintln!(
                "{label:<6} {at:>4}/{of} s  {rate:>12.0} ops/s  errors {errors}  misses {misses}"
            );
            (last_t, last_ops) = (now, ops);
            if tick == total {
                return now.duration_since(run_start);
            }
        }
        Instant::now().duration_since(run_start)
    }
}

/// Sleeps until `deadline`; false as soon as `failed` is set.
fn sleep_until(deadline: Instant, failed: &AtomicBool) -> bool {
    loop {
        if failed.load(Ordering::Acquire) {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            return true;
        }
        thread::sleep((deadline - now).min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// An in-process client: misses keys divisible by 3, errors on writes, and fails
    /// fatally after `fail_after` replies when set.
    struct Scripted {
        queued: VecDeque<Op>,
        replies: u64,
        fail_after: Option<u64>,
        /// Every other read finds its response incomplete (Pending) first.
        stutter: bool,
        pending_now: bool,
        /// A Pending was returned and not yet rewound.
        owes_rewind: bool,
    }

    impl Client for Scripted {
        fn push(&mut self, op: Op) {
            self.queued.push_back(op);
        }
        fn flush(&mut self) -> Result<(), FatalError> {
            Ok(())
        }
        fn read_reply(&mut self, op: Op) -> Result<Reply, FatalError> {
            assert!(!self.owes_rewind, "read again without a rewind");
            if self.stutter {
                self.pending_now = !self.pending_now;
                if self.pending_now {
                    self.owes_rewind = true;
                    return Err(FatalError::Pending);
                }
            }
            assert_eq!(
                self.queued.pop_front(),
                Some(op),
                "replies read out of order"
            );
            self.replies += 1;
            if self.fail_after.is_some_and(|n| self.replies > n) {
                return Err(FatalError::Closed("scripted".into()));
            }
            Ok(match op {
                Op::Write(_) => Reply::Error,
                Op::Read(k) if k % 3 == 0 => Reply::Miss,
                Op::Read(_) => Reply::Hit,
            })
        }
        fn error_line(&self) -> &[u8] {
            b"2\t1\tscripted"
        }
        fn nonblocking(&mut self) -> Result<Option<RawFd>, FatalError> {
            Ok(None)
        }
        fn rewind(&mut self) {
            self.owes_rewind = false;
        }
    }

    fn spec(pipeline: usize, write_ratio: f64) -> LoadSpec {
        LoadSpec {
            warmup_secs: 0,
            duration_secs: 1,
            pipeline,
            write_ratio,
            keys: 30,
            dist: Distribution::Uniform,
            seed: 1,
            threads: 2,
            timeout: Duration::from_secs(5),
            batch_sched: true,
        }
    }

    fn scripted(n: usize, fail_after: Option<u64>) -> Vec<Scripted> {
        (0..n)
            .map(|_| Scripted {
                queued: VecDeque::new(),
                replies: 0,
                fail_after,
                stutter: false,
                pending_now: false,
                owes_rewind: false,
            })
            .collect()
    }

    #[test]
    fn counts_hits_misses_errors_and_batches() {
        let r = run(scripted(2, None), &spec(4, 0.25)).unwrap();
        assert!(r.ops > 0);
        assert_eq!(r.ops, r.reads + r.writes);
        assert_eq!(r.errors, r.writes);
        assert!(r.writes > 0 && r.reads > 0 && r.misses > 0 && r.misses < r.reads);
        // One latency sample per batch of 4.
        assert_eq!(r.latency.count() * 4, r.ops);
        assert!(r.elapsed >= Duration::from_millis(900));
    }

    #[test]
    fn connections_share_threads_and_incomplete_responses_are_retried() {
        // 5 connections on 2 threads; every response is first found incomplete.
        let mut clients = scripted(5, None);
        for c in &mut clients {
            c.stutter = true;
        }
        let mut s = spec(3, 0.0);
        s.threads = 2;
        let r = run(clients, &s).unwrap();
        assert!(r.ops > 0);
        assert_eq!(r.ops, r.reads);
        assert_eq!(r.errors, 0);
        // Every batch of 3 completed, in order (Scripted asserts the order).
        assert_eq!(r.latency.count() * 3, r.ops);
        assert!(r.misses > 0 && r.misses < r.reads);
    }

    #[test]
    fn read_only_closed_loop() {
        let r = run(scripted(1, None), &spec(1, 0.0)).unwrap();
        assert_eq!(r.writes, 0);
        assert_eq!(r.errors, 0);
        assert_eq!(r.latency.count(), r.ops);
    }

    #[test]
    fn a_fatal_error_ends_the_run() {
        let mut clients = scripted(2, None);
        clients[1].fail_after = Some(10);
        let e = run(clients, &spec(1, 0.0)).unwrap_err();
        assert_eq!(e.conn, 1);
        assert!(e.to_string().contains("closed the connection"), "{e}");
    }
}
