//! The load loop: one thread per connection issuing batches of `pipeline` requests
//! (write them all, then read every response; a batch of 1 is a closed loop), a
//! warmup phase whose requests are not counted, a measured phase, and a progress line
//! on stderr every second. Each thread keeps its own counts and latency histogram and
//! publishes running totals through its own cache line; the main thread only reads
//! them for the progress line and merges the histograms when the threads end.
//!
//! A batch counts in the phase in which it started. Latency is measured from sending a
//! batch to reading its last response: per request in a closed loop, per round trip of
//! the whole batch when pipelining.

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

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

/// Runs `spec` over `clients` (already connected and set up), one thread each.
pub fn run<C: Client>(clients: Vec<C>, spec: &LoadSpec) -> Result<RunResult, ConnError> {
    let n = clients.len();
    let shared = Shared {
        phase: AtomicU8::new(if spec.warmup_secs > 0 { WARMUP } else { RUN }),
        failed: AtomicBool::new(false),
        progress: (0..n).map(|_| Progress::default()).collect(),
        samples: AtomicUsize::new(0),
    };
    let start_line = Barrier::new(n + 1);
    thread::scope(|s| {
        let workers: Vec<_> = clients
            .into_iter()
            .enumerate()
            .map(|(i, mut client)| {
                let (shared, start_line) = (&shared, &start_line);
                let keys = KeyGen::new(spec.keys, spec.dist.clone(), Rng::new(spec.seed, i as u64));
                s.spawn(move || {
                    start_line.wait();
                    let r = worker(i, &mut client, shared, spec, keys);
                    if r.is_err() {
                        shared.failed.store(true, Ordering::Release);
                        shared.phase.store(STOP, Ordering::Release);
                    }
                    r.map_err(|error| ConnError { conn: i, error })
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
                Ok(t) => {
                    result.ops += t.reads + t.writes;
                    result.reads += t.reads;
                    result.writes += t.writes;
                    result.errors += t.errors;
                    result.misses += t.misses;
                    result.latency.merge(&t.latency);
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

/// One connection's counts in the measured phase.
struct Tally {
    reads: u64,
    writes: u64,
    errors: u64,
    misses: u64,
    latency: Histogram,
}

fn worker<C: Client>(
    conn: usize,
    client: &mut C,
    shared: &Shared,
    spec: &LoadSpec,
    mut keys: KeyGen,
) -> Result<Tally, FatalError> {
    let mut tally = Tally {
        reads: 0,
        writes: 0,
        errors: 0,
        misses: 0,
        latency: Histogram::new(),
    };
    let (mut all_ops, mut all_errors, mut all_misses) = (0u64, 0u64, 0u64);
    let mut batch: Vec<Op> = Vec::with_capacity(spec.pipeline);
    let progress = &shared.progress[conn];
    loop {
        let phase = shared.phase.load(Ordering::Acquire);
        if phase == STOP {
            return Ok(tally);
        }
        batch.clear();
        for _ in 0..spec.pipeline {
            let key = keys.next_key();
            let write = spec.write_ratio > 0.0 && keys.rng().next_f64() < spec.write_ratio;
            let op = if write { Op::Write(key) } else { Op::Read(key) };
            client.push(op);
            batch.push(op);
        }
        let t0 = Instant::now();
        client.flush()?;
        let (mut errors, mut misses) = (0, 0);
        for &op in &batch {
            match client.read_reply(op)? {
                Reply::Hit => {}
                Reply::Miss => misses += 1,
                Reply::Error => {
                    errors += 1;
                    sample_error(shared, conn, client.error_line());
                }
            }
        }
        let ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
        if phase == RUN {
            tally.latency.record(ns);
            for op in &batch {
                match op {
                    Op::Read(_) => tally.reads += 1,
                    Op::Write(_) => tally.writes += 1,
                }
            }
            tally.errors += errors;
            tally.misses += misses;
        }
        all_ops += batch.len() as u64;
        all_errors += errors;
        all_misses += misses;
        progress.ops.store(all_ops, Ordering::Relaxed);
        progress.errors.store(all_errors, Ordering::Relaxed);
        progress.misses.store(all_misses, Ordering::Relaxed);
    }
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
    }

    impl Client for Scripted {
        fn push(&mut self, op: Op) {
            self.queued.push_back(op);
        }
        fn flush(&mut self) -> Result<(), FatalError> {
            Ok(())
        }
        fn read_reply(&mut self, op: Op) -> Result<Reply, FatalError> {
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
        }
    }

    fn scripted(n: usize, fail_after: Option<u64>) -> Vec<Scripted> {
        (0..n)
            .map(|_| Scripted {
                queued: VecDeque::new(),
                replies: 0,
                fail_after,
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
