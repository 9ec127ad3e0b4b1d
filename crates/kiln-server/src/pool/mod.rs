//! The thread pool (`thread_handling=pool-of-threads`): client connections share a
//! few threads instead of owning one each, so throughput holds from one connection
//! to thousands. Design note: docs/thread-pool.md.
//!
//! - `thread_pool_size` groups (default: one per CPU); a connection belongs to group
//!   `connection number % size` for its life.
//! - Each group has an epoll set over its connections (edge-triggered, registered
//!   once; a per-connection atomic says whether it is parked or owned), a queue of
//!   ready work (high and low priority), and worker threads. One worker at a time
//!   is the group's *listener*, blocked in epoll_wait; the others run work or sleep.
//! - A worker runs one command of one connection to completion (`conn::command::step`)
//!   with its worker's buffers, then parks it (no system call); a connection never
//!   holds a thread or a buffer while it is idle.
//! - The target is one active worker per group. A worker that blocks (row lock,
//!   fsync, disk read, SLEEP, slow client: `kiln_common::wait`) stops counting as
//!   active, and the group wakes or creates another worker if work is waiting.
//!   When waits end, a group may have up to `1 + thread_pool_oversubscribe` active
//!   workers; beyond that, workers park instead of taking more work.
//! - A timer (`timer`) runs every `thread_pool_stall_limit` ms: a group whose queue
//!   made no progress since the last tick is *stalled* (a long statement) and gets
//!   another worker; it also closes connections idle past `wait_timeout`, and moves
//!   low-priority work older than `thread_pool_prio_kickup_timer` to the front.
//!
//! Handshakes run on workers too (their socket reads are announced as waits, so a
//! slow client does not hold up its group). Connections on `extra_port` bypass the
//! pool and always get their own thread.

mod group;
mod timer;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use kiln_common::wait::{WAIT_KINDS, WaitKind};
use kiln_sql::value::Value;
use parking_lot::{Condvar, Mutex};

use crate::conn::Peer;
use crate::conn::io::Socket;
use crate::server::Server;
pub use group::Group;

/// Settings the pool reads on hot paths, refreshed from the system variables by the
/// timer (all of them are dynamic, except `thread_pool_size`).
pub struct Knobs {
    pub oversubscribe: AtomicUsize,
    pub max_threads: AtomicUsize,
    pub idle_timeout_ms: AtomicU64,
    pub stall_limit_ms: AtomicU64,
    pub prio_kickup_ms: AtomicU64,
}

impl Knobs {
    fn load(server: &Server) -> Knobs {
        let k = Knobs {
            oversubscribe: AtomicUsize::new(3),
            max_threads: AtomicUsize::new(65536),
            idle_timeout_ms: AtomicU64::new(60_000),
            stall_limit_ms: AtomicU64::new(500),
            prio_kickup_ms: AtomicU64::new(1000),
        };
        k.refresh(server);
        k
    }

    fn refresh(&self, server: &Server) {
        let g = |n: &str, d: u64| server.globals.u64(n).unwrap_or(d);
        self.oversubscribe.store(
            g("thread_pool_oversubscribe", 3) as usize,
            Ordering::Relaxed,
        );
        self.max_threads.store(
            g("thread_pool_max_threads", 65536) as usize,
            Ordering::Relaxed,
        );
        self.idle_timeout_ms.store(
            g("thread_pool_idle_timeout", 60).saturating_mul(1000),
            Ordering::Relaxed,
        );
        self.stall_limit_ms
            .store(g("thread_pool_stall_limit", 500).max(1), Ordering::Relaxed);
        self.prio_kickup_ms
            .store(g("thread_pool_prio_kickup_timer", 1000), Ordering::Relaxed);
    }
}

/// What every group shares.
pub struct PoolShared {
    pub server: &'static Server,
    pub knobs: Knobs,
    /// Worker threads of all groups (bounded by `thread_pool_max_threads`).
    pub threads: AtomicUsize,
    /// Blocking waits announced by pool workers, per `WaitKind`.
    pub waits: [AtomicU64; WAIT_KINDS],
    /// Time origin of the pool's millisecond clocks.
    pub epoch: Instant,
}

impl PoolShared {
    pub fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }
}

pub struct ThreadPool {
    pub shared: Arc<PoolShared>,
    pub groups: Vec<Arc<Group>>,
    next_group: AtomicUsize,
    timer: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Set by `stop`; the timer sleeps on it.
    stopping: (Mutex<bool>, Condvar),
}

/// Number of CPUs the process may run on (`kiln_common::cpu::count`).
pub use kiln_common::cpu::count as cpu_count;

impl ThreadPool {
    /// Creates `size` groups, each with one worker (which becomes its listener), and
    /// the timer.
    pub fn start(server: &'static Server, size: usize) -> Result<Arc<ThreadPool>, String> {
        let shared = Arc::new(PoolShared {
            server,
            knobs: Knobs::load(server),
            threads: AtomicUsize::new(0),
            waits: std::array::from_fn(|_| AtomicU64::new(0)),
            epoch: Instant::now(),
        });
        let mut groups = Vec::with_capacity(size);
        for id in 0..size.max(1) {
            let g = Group::new(id, shared.clone())
                .map_err(|e| format!("thread pool: cannot create group {id}: {e}"))?;
            groups.push(g);
        }
        for g in &groups {
            g.start_first_worker()
                .map_err(|e| format!("thread pool: cannot start a worker: {e}"))?;
        }
        let pool = Arc::new(ThreadPool {
            shared,
            groups,
            next_group: AtomicUsize::new(0),
            timer: Mutex::new(None),
            stopping: (Mutex::new(false), Condvar::new()),
        });
        let p = pool.clone();
        let t = std::thread::Builder::new()
            .name("kiln-pool-timer".into())
            .spawn(move || timer::run(&p))
            .map_err(|e| format!("thread pool: cannot start the timer: {e}"))?;
        *pool.timer.lock() = Some(t);
        Ok(pool)
    }

    /// Hands a new client connection to a group (round robin); a worker of that group
    /// runs its handshake.
    pub fn add(&self, socket: Socket, peer: Peer) {
        let n = self.next_group.fetch_add(1, Ordering::Relaxed);
        self.groups[n % self.groups.len()].add_new(socket, peer);
    }

    /// Stops the timer and every worker (after connections are drained).
    pub fn stop(&self) {
        for g in &self.groups {
            g.shut_down();
        }
        *self.stopping.0.lock() = true;
        self.stopping.1.notify_all();
        if let Some(t) = self.timer.lock().take() {
            let _ = t.join();
        }
    }

    pub fn is_stopping(&self) -> bool {
        *self.stopping.0.lock()
    }

    /// Sleeps up to `d`, or until `stop`.
    fn wait_stop(&self, d: std::time::Duration) {
        let mut stopped = self.stopping.0.lock();
        if !*stopped {
            self.stopping.1.wait_for(&mut stopped, d);
        }
    }

    /// Workers created since startup (Threads_created).
    pub fn threads_created(&self) -> u64 {
        self.groups
            .iter()
            .map(|g| g.stats.thread_creations.load(Ordering::Relaxed))
            .sum()
    }

    /// Threadpool_threads and Threadpool_idle_threads.
    pub fn status(&self) -> Vec<(String, String)> {
        let (mut threads, mut idle) = (0, 0);
        for g in &self.groups {
            let s = g.snapshot();
            threads += s.threads;
            idle += s.standby;
        }
        vec![
            ("Threadpool_idle_threads".into(), idle.to_string()),
            ("Threadpool_threads".into(), threads.to_string()),
        ]
    }

    /// Rows of information_schema.THREAD_POOL_GROUPS / _QUEUES / _STATS / _WAITS
    /// (column lists in kiln-sql's infoschema).
    pub fn table_rows(&self, table: &str) -> Vec<Vec<Value>> {
        let u = |n: u64| Value::UInt(n);
        match table {
            "THREAD_POOL_GROUPS" => self
                .groups
                .iter()
                .map(|g| {
                    let s = g.snapshot();
                    vec![
                        u(g.id as u64),
                        u(s.connections as u64),
                        u(s.threads as u64),
                        u(s.active as u64),
                        u(s.standby as u64),
                        u(s.queue_length as u64),
                        u(s.has_listener as u64),
                        u(s.is_stalled as u64),
                    ]
                })
                .collect(),
            "THREAD_POOL_QUEUES" => {
                let now = Instant::now();
                let mut rows = Vec::new();
                for g in &self.groups {
                    for (pos, (high, id, since)) in g.queue_entries().into_iter().enumerate() {
                        rows.push(vec![
                            u(g.id as u64),
                            u(pos as u64),
                            u(if high { 0 } else { 1 }),
                            id.map_or(Value::Null, u),
                            u(now.saturating_duration_since(since).as_micros() as u64),
                        ]);
                    }
                }
                rows
            }
            "THREAD_POOL_STATS" => self
                .groups
                .iter()
                .map(|g| {
                    let mut row = vec![u(g.id as u64)];
                    row.extend(g.stats.values().into_iter().map(u));
                    row
                })
                .collect(),
            "THREAD_POOL_WAITS" => WaitKind::ALL
                .iter()
                .map(|k| {
                    vec![
                        Value::Str(k.name().into()),
                        u(self.shared.waits[*k as usize].load(Ordering::Relaxed)),
                    ]
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}
