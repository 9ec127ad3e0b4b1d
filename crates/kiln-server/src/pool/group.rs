//! One thread group: its epoll set, its queues of ready work, its workers, and the
//! rules that keep about one worker active per group (see `super` for the design).
//!
//! Counting (all under `state`): every worker thread is in exactly one of
//! - *active*: running work or looking for it (a newly created thread starts here);
//! - *waiting*: inside a blocking wait it announced (`kiln_common::wait`);
//! - *idle*: parked on `idle_cv` (woken with a `pending_wakes` token);
//! - *listening*: the one worker blocked in epoll_wait (`listener`), not active.
//!
//! Lock order: `state` before `conns`; a connection's `open` slot is locked alone.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use kiln_common::epoll::{EDGE, Epoll, EventFd, READABLE};
use kiln_common::wait::{WaitKind, WaitObserver};
use parking_lot::{Condvar, Mutex, MutexGuard};

use super::PoolShared;
use crate::conn::io::Socket;
use crate::conn::{self, Open, Peer, command};
use crate::errlog;
use crate::server::ConnShared;

/// The epoll token of the group's eventfd (connection ids start at 1).
const WAKE_TOKEN: u64 = u64::MAX;
/// Events taken per epoll_wait.
const EVENTS_PER_POLL: usize = 128;
/// A listener re-checks for shutdown at least this often.
const LISTENER_WAIT_MS: i32 = 1000;
/// Stack size of pool workers (as for connection threads).
const WORKER_STACK_BYTES: usize = kiln_common::limits::SQL_THREAD_STACK_BYTES;

/// `PoolConn::state` bits. OWNED: a worker or a queue holds the connection (it is not
/// waiting in epoll). EVENT: epoll reported input while it was owned.
const OWNED: u8 = 1;
const EVENT: u8 = 2;

/// A connection owned by the pool, between commands or queued.
pub struct PoolConn {
    pub id: u64,
    fd: std::os::fd::RawFd,
    shared: Arc<ConnShared>,
    /// Who has the connection (`OWNED`, `EVENT`); see `Group::park` and `take_ready`.
    /// The socket is registered edge-triggered once, for its whole life: no epoll_ctl
    /// per command.
    state: AtomicU8,
    /// The connection; taken by the worker that runs it (one at a time: only the
    /// thread that set `OWNED` queues it).
    /// Boxed: moving it in and out per command copies a pointer, not the whole
    /// connection (a cold copy with thousands of connections).
    open: Mutex<Option<Box<Open>>>,
    /// Pool clock (ms) when it went idle in epoll; 0 while queued or running.
    idle_since_ms: AtomicU64,
    /// The session's wait_timeout, in ms, as of its last command.
    wait_timeout_ms: AtomicU64,
    /// Closed by the timer for wait_timeout.
    timed_out: AtomicBool,
    /// Queue its requests at high priority (thread_pool_priority, or inside a
    /// transaction with `auto`).
    high_priority: AtomicBool,
}

pub enum Work {
    /// A client that just connected: run the handshake.
    New(Socket, Peer),
    /// A connection with a command to read.
    Ready(Arc<PoolConn>),
}

struct Queued {
    work: Work,
    since: Instant,
}

#[derive(Default)]
struct GroupState {
    high: VecDeque<Queued>,
    low: VecDeque<Queued>,
    threads: usize,
    active: usize,
    waiting: usize,
    idle: usize,
    pending_wakes: usize,
    listener: bool,
    stalled: bool,
    /// Work items taken from the queues (the timer's progress check).
    dequeues: u64,
    dequeues_at_last_tick: u64,
    /// Work was queued at the previous tick: a stall needs a full tick of no progress.
    queued_at_last_tick: bool,
    /// Pool clock (ms) of the last worker creation, for `creation_pause_ms`.
    last_creation_ms: u64,
    shutdown: bool,
}

impl GroupState {
    fn has_work(&self) -> bool {
        !self.high.is_empty() || !self.low.is_empty()
    }

    fn pop(&mut self) -> Option<Work> {
        let q = self.high.pop_front().or_else(|| self.low.pop_front())?;
        self.dequeues += 1;
        self.stalled = false;
        Some(q.work)
    }

    fn queue_length(&self) -> usize {
        self.high.len() + self.low.len()
    }
}

/// Counters of information_schema.THREAD_POOL_STATS, in its column order.
#[derive(Default)]
pub struct GroupStats {
    pub thread_creations: AtomicU64,
    pub thread_creations_due_to_stall: AtomicU64,
    pub wakes: AtomicU64,
    pub wakes_due_to_stall: AtomicU64,
    pub throttles: AtomicU64,
    pub stalls: AtomicU64,
    pub polls_by_listener: AtomicU64,
    pub polls_by_worker: AtomicU64,
    pub dequeues_by_listener: AtomicU64,
    pub dequeues_by_worker: AtomicU64,
}

impl GroupStats {
    pub fn values(&self) -> Vec<u64> {
        [
            &self.thread_creations,
            &self.thread_creations_due_to_stall,
            &self.wakes,
            &self.wakes_due_to_stall,
            &self.throttles,
            &self.stalls,
            &self.polls_by_listener,
            &self.polls_by_worker,
            &self.dequeues_by_listener,
            &self.dequeues_by_worker,
        ]
        .iter()
        .map(|c| c.load(Ordering::Relaxed))
        .collect()
    }
}

/// A group's state as THREAD_POOL_GROUPS shows it.
pub struct GroupSnapshot {
    pub connections: usize,
    pub threads: usize,
    pub active: usize,
    pub standby: usize,
    pub queue_length: usize,
    pub has_listener: bool,
    pub is_stalled: bool,
}

pub struct Group {
    pub id: usize,
    pool: Arc<PoolShared>,
    epoll: Epoll,
    wake: EventFd,
    state: Mutex<GroupState>,
    idle_cv: Condvar,
    conns: Mutex<HashMap<u64, Arc<PoolConn>>>,
    /// Connections idle in epoll inside a transaction (queued at high priority when
    /// readable). While there are any, a worker about to take low-priority work with
    /// nobody listening polls epoll first, so their next statements go ahead of new
    /// transactions (`poll_before_low`).
    parked_high: AtomicU64,
    pub stats: GroupStats,
}

/// How long after its last worker creation a group with `threads` workers waits
/// before creating another (0 for a group with fewer than 4).
fn creation_pause_ms(threads: usize) -> u64 {
    match threads {
        0..=3 => 0,
        4..=7 => 50,
        8..=15 => 100,
        _ => 200,
    }
}

/// A worker's `kiln_common::wait` observer: its group.
struct Observer(Arc<Group>);

impl WaitObserver for Observer {
    fn wait_begin(&self, kind: WaitKind) {
        self.0.pool.waits[kind as usize].fetch_add(1, Ordering::Relaxed);
        self.0.wait_begin();
    }

    fn wait_end(&self) {
        self.0.wait_end();
    }
}

impl Group {
    pub fn new(id: usize, pool: Arc<PoolShared>) -> std::io::Result<Arc<Group>> {
        let epoll = Epoll::new()?;
        let wake = EventFd::new()?;
        epoll.add(wake.fd(), READABLE, WAKE_TOKEN)?;
        Ok(Arc::new(Group {
            id,
            pool,
            epoll,
            wake,
            state: Mutex::new(GroupState::default()),
            idle_cv: Condvar::new(),
            conns: Mutex::new(HashMap::new()),
            parked_high: AtomicU64::new(0),
            stats: GroupStats::default(),
        }))
    }

    pub fn start_first_worker(self: &Arc<Self>) -> std::io::Result<()> {
        let mut st = self.state.lock();
        self.spawn_worker(&mut st)
    }

    pub fn is_shut_down(&self) -> bool {
        self.state.lock().shutdown
    }

    pub fn shut_down(&self) {
        let mut st = self.state.lock();
        st.shutdown = true;
        self.idle_cv.notify_all();
        self.wake.signal();
    }

    pub fn snapshot(&self) -> GroupSnapshot {
        let connections = self.conns.lock().len();
        let st = self.state.lock();
        GroupSnapshot {
            connections,
            threads: st.threads,
            active: st.active,
            standby: st.idle,
            queue_length: st.queue_length(),
            has_listener: st.listener,
            is_stalled: st.stalled,
        }
    }

    /// (high priority, connection id or None for a handshake, queued since).
    pub fn queue_entries(&self) -> Vec<(bool, Option<u64>, Instant)> {
        let st = self.state.lock();
        let id = |w: &Work| match w {
            Work::New(..) => None,
            Work::Ready(c) => Some(c.id),
        };
        st.high
            .iter()
            .map(|q| (true, id(&q.work), q.since))
            .chain(st.low.iter().map(|q| (false, id(&q.work), q.since)))
            .collect()
    }

    /// Queues a new client's handshake.
    pub fn add_new(self: &Arc<Self>, socket: Socket, peer: Peer) {
        let mut st = self.state.lock();
        st.low.push_back(Queued {
            work: Work::New(socket, peer),
            since: Instant::now(),
        });
        self.notify_work(&mut st);
    }

    /// Queues work pushed from outside the listener, making sure some thread will
    /// take it: nobody active means an idle worker is woken, the listener is
    /// interrupted, or a worker is created.
    fn notify_work(self: &Arc<Self>, st: &mut MutexGuard<'_, GroupState>) {
        if st.active == 0 {
            self.wake_or_create(st, false);
        }
    }

    /// Gets another thread going: wakes an idle worker, else interrupts the listener
    /// (when work is queued, it takes it), else creates a worker (bounded by
    /// thread_pool_max_threads).
    fn wake_or_create(self: &Arc<Self>, st: &mut MutexGuard<'_, GroupState>, stall: bool) {
        if st.idle > st.pending_wakes {
            st.pending_wakes += 1;
            self.idle_cv.notify_one();
            self.stats.wakes.fetch_add(1, Ordering::Relaxed);
            if stall {
                self.stats
                    .wakes_due_to_stall
                    .fetch_add(1, Ordering::Relaxed);
            }
            return;
        }
        if st.listener && st.has_work() {
            // The listener takes queued work as soon as epoll_wait returns.
            self.wake.signal();
            return;
        }
        let max = self.pool.knobs.max_threads.load(Ordering::Relaxed);
        if self.pool.threads.load(Ordering::Relaxed) >= max {
            return;
        }
        // Never more workers than the group has connections (and queued
        // handshakes): more could find nothing to do.
        if st.threads > self.conns.lock().len() + st.queue_length() {
            return;
        }
        // Throttle, as MariaDB does: with a worker still active (a stall, not a
        // group whose workers all wait), a group of a few threads gets another only
        // after a pause that grows with its size. A group whose workers all wait
        // gets one at once: its queued work may be what they wait for (a lock
        // holder's COMMIT).
        let now_ms = self.pool.now_ms();
        if st.active > 0 && now_ms < st.last_creation_ms + creation_pause_ms(st.threads) {
            self.stats.throttles.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if self.spawn_worker(st).is_ok() && stall {
            self.stats
                .thread_creations_due_to_stall
                .fetch_add(1, Ordering::Relaxed);
        }
    }

    fn spawn_worker(self: &Arc<Self>, st: &mut MutexGuard<'_, GroupState>) -> std::io::Result<()> {
        let g = self.clone();
        std::thread::Builder::new()
            .name(format!("kiln-pool-{}", self.id))
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || g.worker_main())
            .inspect_err(|e| errlog::error(&format!("thread pool: cannot create a thread: {e}")))?;
        st.threads += 1;
        st.active += 1;
        st.last_creation_ms = self.pool.now_ms();
        self.pool.threads.fetch_add(1, Ordering::Relaxed);
        self.stats.thread_creations.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn wait_begin(self: &Arc<Self>) {
        let mut st = self.state.lock();
        st.active -= 1;
        st.waiting += 1;
        // Work is queued, or nobody listens for new work: another thread takes over
        // while this one waits.
        if st.active == 0 && (st.has_work() || !st.listener) && !st.shutdown {
            self.wake_or_create(&mut st, false);
        }
    }

    fn wait_end(&self) {
        let mut st = self.state.lock();
        st.waiting -= 1;
        st.active += 1;
    }

    fn worker_main(self: Arc<Self>) {
        kiln_common::wait::set_thread_observer(Some(Arc::new(Observer(self.clone()))));
        let mut events: Vec<libc::epoll_event> = Vec::with_capacity(EVENTS_PER_POLL);
        let mut st = self.state.lock();
        while let Some(work) = self.next_work(&mut st, &mut events) {
            MutexGuard::unlocked(&mut st, || self.run(work));
        }
        drop(st);
        kiln_common::wait::set_thread_observer(None);
    }

    /// The next work item for this (active) worker: from the queues, else by
    /// listening, else after parking. None: the thread exits (shutdown, or idle past
    /// thread_pool_idle_timeout); the counts are already updated.
    fn next_work(
        self: &Arc<Self>,
        st: &mut MutexGuard<'_, GroupState>,
        events: &mut Vec<libc::epoll_event>,
    ) -> Option<Work> {
        loop {
            if st.shutdown {
                return self.exit(st);
            }
            let limit = 1 + self.pool.knobs.oversubscribe.load(Ordering::Relaxed);
            let throttled = st.active > limit && !st.stalled;
            if throttled {
                self.stats.throttles.fetch_add(1, Ordering::Relaxed);
            } else {
                self.poll_before_low(st, events);
                if let Some(w) = st.pop() {
                    self.stats
                        .dequeues_by_worker
                        .fetch_add(1, Ordering::Relaxed);
                    return Some(w);
                }
                if !st.listener {
                    st.listener = true;
                    st.active -= 1;
                    let ready = MutexGuard::unlocked(st, || self.listen(events));
                    st.listener = false;
                    st.active += 1;
                    self.stats.polls_by_listener.fetch_add(1, Ordering::Relaxed);
                    // The listener takes the first event itself (the highest-priority
                    // one) when the queues were empty: no hand-off, no wake-up.
                    let take_one = !st.has_work();
                    self.enqueue(st, ready);
                    if take_one && let Some(w) = st.pop() {
                        self.stats
                            .dequeues_by_listener
                            .fetch_add(1, Ordering::Relaxed);
                        return Some(w);
                    }
                    continue;
                }
            }
            // Park until woken (or idle long enough to exit).
            st.active -= 1;
            st.idle += 1;
            let idle_ms = self.pool.knobs.idle_timeout_ms.load(Ordering::Relaxed);
            let deadline = Instant::now() + Duration::from_millis(idle_ms);
            let mut timed_out = false;
            while st.pending_wakes == 0 && !st.shutdown {
                if self.idle_cv.wait_until(st, deadline).timed_out() {
                    timed_out = true;
                    break;
                }
            }
            st.idle -= 1;
            st.active += 1;
            if st.pending_wakes > 0 {
                st.pending_wakes -= 1;
                continue;
            }
            if timed_out && !st.shutdown {
                // An idle worker always has a listening sibling: the group keeps one.
                return self.exit(st);
            }
        }
    }

    fn exit(&self, st: &mut MutexGuard<'_, GroupState>) -> Option<Work> {
        st.threads -= 1;
        st.active -= 1;
        self.pool.threads.fetch_sub(1, Ordering::Relaxed);
        None
    }

    /// Queues ready connections by their priority.
    fn enqueue(&self, st: &mut GroupState, ready: Vec<Arc<PoolConn>>) {
        let now = Instant::now();
        for c in ready {
            let high = c.high_priority.load(Ordering::Relaxed);
            let q = Queued {
                work: Work::Ready(c),
                since: now,
            };
            if high {
                st.high.push_back(q);
            } else {
                st.low.push_back(q);
            }
        }
    }

    /// Before a worker takes low-priority work (a new transaction, a handshake) while
    /// nobody listens: if connections inside a transaction are idle in epoll, poll it
    /// (without blocking) so those whose next statement has arrived are queued at high
    /// priority and run first. Without this, nobody polled until the queues were empty:
    /// 4,000 clients starting `oltp_read_write` at once all got their BEGIN run before
    /// any second statement, so 4,000 transactions were open together and each took
    /// 4,000 turns per statement (10-16 s per transaction, 0 TPS in a 10 s run).
    fn poll_before_low(
        self: &Arc<Self>,
        st: &mut MutexGuard<'_, GroupState>,
        events: &mut Vec<libc::epoll_event>,
    ) {
        if st.listener
            || !st.high.is_empty()
            || st.low.is_empty()
            || self.parked_high.load(Ordering::Relaxed) == 0
        {
            return;
        }
        let ready = MutexGuard::unlocked(st, || match self.epoll.wait(events, 0) {
            Ok(n) => self.take_ready(&events[..n]),
            Err(_) => Vec::new(),
        });
        if !ready.is_empty() {
            self.stats.polls_by_worker.fetch_add(1, Ordering::Relaxed);
            self.enqueue(st, ready);
        }
    }

    /// Blocks in epoll_wait; returns the connections that turned readable.
    fn listen(&self, events: &mut Vec<libc::epoll_event>) -> Vec<Arc<PoolConn>> {
        let n = match self.epoll.wait(events, LISTENER_WAIT_MS) {
            Ok(n) => n,
            Err(e) => {
                errlog::error(&format!("thread pool: epoll_wait failed: {e}"));
                std::thread::sleep(Duration::from_millis(10));
                0
            }
        };
        self.take_ready(&events[..n])
    }

    fn take_ready(&self, events: &[libc::epoll_event]) -> Vec<Arc<PoolConn>> {
        let mut out = Vec::with_capacity(events.len());
        let conns = self.conns.lock();
        for ev in events {
            let token = ev.u64;
            if token == WAKE_TOKEN {
                self.wake.drain();
            } else if let Some(c) = conns.get(&token) {
                // Parked: it is ours to queue. Owned (queued or running): leave a
                // note, and the worker that parks it queues it again.
                if c.state.fetch_or(OWNED | EVENT, Ordering::AcqRel) & OWNED != 0 {
                    continue;
                }
                c.idle_since_ms.store(0, Ordering::Relaxed);
                if c.high_priority.load(Ordering::Relaxed) {
                    self.parked_high.fetch_sub(1, Ordering::Relaxed);
                }
                out.push(c.clone());
            }
        }
        out
    }

    /// The timer's look at the group: polls epoll when nobody listens, declares a
    /// stall when work was queued at the last tick and none was taken since, and moves
    /// low-priority work older than `kickup_ms` to the high-priority queue.
    pub fn tick(self: &Arc<Self>, kickup_ms: u64) {
        let mut events = Vec::with_capacity(EVENTS_PER_POLL);
        let mut st = self.state.lock();
        if st.shutdown {
            return;
        }
        if !st.listener {
            // Every worker is busy or waiting: events would go unseen until one is
            // free. Queue them now so the stall check below sees them.
            let ready = match self.epoll.wait(&mut events, 0) {
                Ok(n) => self.take_ready(&events[..n]),
                Err(_) => Vec::new(),
            };
            if !ready.is_empty() {
                self.stats.polls_by_worker.fetch_add(1, Ordering::Relaxed);
            }
            self.enqueue(&mut st, ready);
        }
        if st.has_work() {
            if st.queued_at_last_tick && st.dequeues == st.dequeues_at_last_tick {
                st.stalled = true;
                self.stats.stalls.fetch_add(1, Ordering::Relaxed);
                self.wake_or_create(&mut st, true);
            } else if st.active == 0 {
                self.wake_or_create(&mut st, false);
            }
        }
        st.dequeues_at_last_tick = st.dequeues;
        st.queued_at_last_tick = st.has_work();
        if kickup_ms > 0 {
            let limit = Duration::from_millis(kickup_ms);
            while st.low.front().is_some_and(|q| q.since.elapsed() >= limit) {
                if let Some(q) = st.low.pop_front() {
                    st.high.push_back(q);
                }
            }
        }
    }

    /// Work is queued but every worker waits (and creating one was throttled):
    /// try again.
    pub fn unstarve(self: &Arc<Self>) {
        let mut st = self.state.lock();
        if !st.shutdown && st.active == 0 && st.has_work() {
            self.wake_or_create(&mut st, false);
        }
    }

    /// Closes connections idle in epoll longer than their wait_timeout: the socket
    /// is shut down, epoll reports it, and a worker ends the connection.
    pub fn expire_idle(&self, now_ms: u64) {
        let conns = self.conns.lock();
        for c in conns.values() {
            let since = c.idle_since_ms.load(Ordering::Relaxed);
            if since == 0 || c.timed_out.load(Ordering::Relaxed) {
                continue;
            }
            if now_ms.saturating_sub(since) >= c.wait_timeout_ms.load(Ordering::Relaxed) {
                c.timed_out.store(true, Ordering::Relaxed);
                c.shared.closer.close();
            }
        }
    }

    /// Runs one work item (outside the group lock). A panic ends that connection only.
    fn run(self: &Arc<Self>, work: Work) {
        let server = self.pool.server;
        match work {
            Work::New(socket, peer) => {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    conn::open(server, socket, peer, false, true)
                }));
                match r {
                    Ok(Some(open)) => self.adopt(Box::new(open)),
                    Ok(None) => {}
                    Err(_) => {
                        server.stats.aborted_clients.inc();
                        errlog::error(
                            "a thread pool worker panicked in a handshake; the connection was closed (this is a bug)",
                        );
                    }
                }
            }
            Work::Ready(c) => {
                let Some(mut open) = c.open.lock().take() else {
                    return;
                };
                if c.timed_out.load(Ordering::Relaxed) {
                    server.stats.aborted_clients.inc();
                    command::note(&open.conn, "Got timeout reading communication packets");
                    self.finish(&c, open);
                    return;
                }
                // When the command starts with a socket read, that read takes what
                // is pending and input arriving later raises a new edge: the note can
                // go. Not when a command is already buffered: this step may not read
                // the socket at all, and input behind the note would then sit there
                // unseen once the connection is parked (sysbench's COM_STMT_CLOSEs,
                // which get no answer, then COM_QUIT: a session that never ended).
                if !open.io.has_buffered_input() {
                    c.state.store(OWNED, Ordering::Release);
                }
                open.io.try_read = true;
                open.io.borrow_thread_buffers();
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    command::step(server, &mut open.io, &mut open.conn)
                }));
                open.io.return_thread_buffers();
                match r {
                    Ok(command::Flow::Continue | command::Flow::Idle) => self.park(c, open),
                    Ok(command::Flow::Close) => self.finish(&c, open),
                    Err(_) => {
                        server.stats.aborted_clients.inc();
                        errlog::error(
                            "a thread pool worker panicked running a command; the connection was closed (this is a bug)",
                        );
                        self.finish(&c, open);
                    }
                }
            }
        }
    }

    /// Takes a freshly authenticated connection into the group.
    fn adopt(self: &Arc<Self>, mut open: Box<Open>) {
        let server = self.pool.server;
        // Between commands a pooled connection holds no buffers (the handshake's go).
        open.io.return_thread_buffers();
        // Idle time is the timer's business; a socket read only times out when a
        // client stops in the middle of a packet.
        let net_read = server.globals.u64("net_read_timeout").unwrap_or(30).max(1);
        let _ = open
            .io
            .socket()
            .set_read_timeout(Some(Duration::from_secs(net_read)));
        let c = Arc::new(PoolConn {
            id: open.shared.id,
            fd: open.io.socket().raw_fd(),
            shared: open.shared.clone(),
            state: AtomicU8::new(OWNED),
            open: Mutex::new(None),
            idle_since_ms: AtomicU64::new(0),
            wait_timeout_ms: AtomicU64::new(u64::MAX),
            timed_out: AtomicBool::new(false),
            high_priority: AtomicBool::new(false),
        });
        self.conns.lock().insert(c.id, c.clone());
        // Registered once, edge-triggered, while this worker owns it (`OWNED`): input
        // that is already pending or arrives before `park` only sets `EVENT`, and
        // `park` queues it. (With the earlier one-shot scheme a connection was re-armed
        // by an epoll_ctl per command, and a stale second event once sent a worker to
        // block in read() for net_read_timeout; now a stale event costs one
        // non-blocking recv: `PacketIo::try_read`.)
        if let Err(e) = self.epoll.add(c.fd, READABLE | EDGE, c.id) {
            errlog::warning(&format!(
                "thread pool: cannot watch connection {}: {e}",
                c.id
            ));
            self.finish(&c, open);
            return;
        }
        self.park(c, open);
    }

    /// Queues a connection this thread owns.
    fn requeue(self: &Arc<Self>, c: Arc<PoolConn>, high: bool) {
        let mut st = self.state.lock();
        let q = Queued {
            work: Work::Ready(c),
            since: Instant::now(),
        };
        if high {
            st.high.push_back(q);
        } else {
            st.low.push_back(q);
        }
        self.notify_work(&mut st);
    }

    /// Puts a connection back after a command: straight back in the queue when a
    /// command is already buffered (a pipelining client) or input arrived while it
    /// ran, else idle in epoll until new input arrives. No system call in the common
    /// case: the socket stays registered, and giving up ownership is one atomic.
    fn park(self: &Arc<Self>, c: Arc<PoolConn>, mut open: Box<Open>) {
        let in_transaction = open.conn.session.in_transaction;
        let vars = open.conn.session.cached_vars();
        c.wait_timeout_ms.store(
            vars.wait_timeout_secs.saturating_mul(1000),
            Ordering::Relaxed,
        );
        let high = vars.pool_priority_high.unwrap_or(in_transaction);
        c.high_priority.store(high, Ordering::Relaxed);
        // Input the last read left in the socket raised its edge before that read:
        // no new event will come for it, so look (rare: a read that filled its room,
        // or TLS).
        let pending = open.io.has_buffered_input()
            || (open.io.may_have_unread_input() && open.io.socket().readable_now());
        *c.open.lock() = Some(open);
        if pending {
            self.requeue(c, high);
            return;
        }
        c.idle_since_ms
            .store(self.pool.now_ms().max(1), Ordering::Relaxed);
        if high {
            // Counted before giving it up: `take_ready` subtracts when it takes it.
            self.parked_high.fetch_add(1, Ordering::Relaxed);
        }
        if c.state
            .compare_exchange(OWNED, 0, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // EVENT: input arrived while it ran (the next command of a client that
            // got its answer early). Still ours: run it again.
            if high {
                self.parked_high.fetch_sub(1, Ordering::Relaxed);
            }
            c.idle_since_ms.store(0, Ordering::Relaxed);
            self.requeue(c, high);
        }
    }

    /// Ends a connection: out of epoll (before its descriptor closes: KILL holds a
    /// duplicate, which would keep it registered), out of the group, closed.
    fn finish(&self, c: &Arc<PoolConn>, open: Box<Open>) {
        let _ = self.epoll.delete(c.fd);
        self.conns.lock().remove(&c.id);
        conn::close(self.pool.server, *open);
    }
}
