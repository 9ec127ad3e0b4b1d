//! A worker thread: owns many connections through one epoll instance and serves them
//! in batches.
//!
//! Connections come from the port's acceptor thread (`server`), which hands each new
//! connection to the worker with the fewest and wakes it through an eventfd; a
//! connection stays on its worker.
//!
//! One loop iteration:
//! 1. wait for readiness of the worker's connections (or new ones in its inbox),
//!    polling for up to 100 µs first while the worker has connections, the listener
//!    has fewer connections than CPUs and fewer than half the CPUs are spinning
//!    (`spin_wait`);
//! 2. read every ready connection until the socket is drained or its input reaches
//!    the high-water mark;
//! 3. run one batch: every complete line of every connection with input, in order,
//!    in one transaction (`Executor`), then one commit — one log flush for all the
//!    batch's writes;
//! 4. write the responses (after the commit: an acknowledged write is durable per
//!    innodb_flush_log_at_trx_commit).
//!
//! If the engine rolls the batch's transaction back (a deadlock with another
//! transaction), every effect of the batch is gone: the responses produced so far are
//! discarded and the batch runs again with one transaction per request.
//!
//! Limits: a request line longer than `max_line_bytes` gets `2 TAB 1 TAB
//! linetoolong` and the connection is closed; a connection whose unsent output exceeds
//! OUTPUT_HIGH_BYTES is not read from, and no more of its lines run, until the client
//! takes it (so its memory is bounded by that plus one request's answer); at most
//! LINES_PER_CONN_PER_BATCH lines of one connection go into one batch (the rest wait
//! for the next, so one busy client cannot make a batch unbounded); idle connections
//! close after `timeout_secs`.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::codec::{Reply, find_line, strip_eol};
use crate::exec::{ConnState, Executor};
use crate::stats::HsStats;
use kiln_common::epoll::{Epoll, EventFd, READABLE, WRITABLE};

const INBOX_TOKEN: u64 = u64::MAX;
const LINES_PER_CONN_PER_BATCH: usize = 1024;
const OUTPUT_HIGH_BYTES: usize = 8 << 20;
const READ_CHUNK_BYTES: usize = 64 << 10;
const EVENTS_MAX: usize = 256;
const TICK: Duration = Duration::from_millis(500);
/// How long a worker with connections polls its epoll set before it sleeps in
/// `epoll_wait` (`spin_wait`): a closed-loop client's next request comes within a
/// few microseconds, and waking an idle CPU costs more than a lookup.
const IDLE_SPIN: Duration = Duration::from_micros(100);

/// Workers spinning now, over every port: at most half the CPUs spin, so the
/// clients and the busy threads keep the rest.
static SPINNING: AtomicUsize = AtomicUsize::new(0);

/// What other threads see of a worker (SHOW PROCESSLIST, the acceptor).
pub struct WorkerShared {
    pub id: u64,
    /// The kill flag of the worker's kiln-sql session (ends its lock waits).
    pub interrupt: Arc<std::sync::atomic::AtomicU8>,
    pub write: bool,
    /// Connections assigned to the worker (raised by the acceptor, lowered at close).
    pub conns: AtomicUsize,
    pub active: AtomicUsize,
    pub inbox: Inbox,
}

/// New connections for a worker, and the eventfd that wakes it.
pub struct Inbox {
    streams: parking_lot::Mutex<Vec<TcpStream>>,
    efd: EventFd,
}

impl Inbox {
    pub fn new() -> io::Result<Inbox> {
        Ok(Inbox {
            streams: parking_lot::Mutex::new(Vec::new()),
            efd: EventFd::new()?,
        })
    }

    /// Hands a connection to the worker and wakes it.
    pub fn push(&self, s: TcpStream) {
        self.streams.lock().push(s);
        self.efd.signal();
    }

    fn take(&self) -> Vec<TcpStream> {
        self.efd.drain();
        std::mem::take(&mut *self.streams.lock())
    }
}

pub struct WorkerSettings {
    pub max_line_bytes: usize,
    pub timeout: Option<Duration>,
    pub auth_required: bool,
}

struct Conn {
    stream: TcpStream,
    input: Vec<u8>,
    /// Consumed bytes at the front of `input`.
    in_pos: usize,
    output: Vec<u8>,
    out_pos: usize,
    state: ConnState,
    last_active: Instant,
    /// Close once the output is sent (overlong line, peer shut down its side).
    closing: bool,
    /// Peer closed or errored: drop now.
    dead: bool,
    interest: u32,
}

impl Conn {
    fn pending_output(&self) -> usize {
        self.output.len() - self.out_pos
    }
}

pub struct Worker {
    epoll: Epoll,
    /// Where sockets are read into (READ_CHUNK_BYTES, zeroed once).
    scratch: Vec<u8>,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    exec: Executor,
    settings: WorkerSettings,
    stats: Arc<HsStats>,
    shared: Arc<WorkerShared>,
    shutdown: Arc<AtomicBool>,
    /// Per-batch lists, kept to reuse their memory: the connections in the batch, and
    /// where each one's input and output stood when it began.
    candidates: Vec<usize>,
    marks: Vec<(usize, usize, usize)>,
}

impl Worker {
    pub fn new(
        exec: Executor,
        settings: WorkerSettings,
        stats: Arc<HsStats>,
        shared: Arc<WorkerShared>,
        shutdown: Arc<AtomicBool>,
    ) -> io::Result<Worker> {
        let epoll = Epoll::new()?;
        epoll.add(shared.inbox.efd.fd(), READABLE, INBOX_TOKEN)?;
        Ok(Worker {
            epoll,
            scratch: vec![0; READ_CHUNK_BYTES],
            conns: Vec::new(),
            free: Vec::new(),
            exec,
            settings,
            stats,
            shared,
            shutdown,
            candidates: Vec::new(),
            marks: Vec::new(),
        })
    }

    pub fn run(mut self) {
        let mut events: Vec<libc::epoll_event> = Vec::with_capacity(EVENTS_MAX);
        let mut ready: Vec<usize> = Vec::new();
        let mut backlog = false; // connections with complete lines left from a batch
        let mut last_tick = Instant::now();
        while !self.shutdown.load(Ordering::Acquire) {
            let spun = !backlog && self.spin_wait(&mut events);
            let timeout = if backlog { 0 } else { TICK.as_millis() as i32 };
            if !spun && self.epoll.wait(&mut events, timeout).is_err() {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            // One clock read per iteration: a connection's activity and the tick.
            let now = Instant::now();
            ready.clear();
            for ev in &events {
                let tok = ev.u64;
                if tok == INBOX_TOKEN {
                    self.adopt();
                } else {
                    ready.push(tok as usize);
                }
            }
            for &i in &ready {
                self.on_event(i, now);
            }
            backlog = self.batch();
            self.flush_all();
            if now.duration_since(last_tick) >= TICK {
                last_tick = now;
                self.tick();
            }
        }
        for i in 0..self.conns.len() {
            self.close(i);
        }
        self.exec.close_all();
    }

    /// Before sleeping in `epoll_wait`, polls the epoll set (timeout 0) for up to
    /// `IDLE_SPIN` if the worker has connections, the listener has fewer connections
    /// than there are CPUs, and fewer than half the CPUs are spinning. True when
    /// events were found (they are in `events`). With as many connections as CPUs
    /// the workers have work to switch to, and a spinning worker only took a CPU
    /// from the others and the clients (8 closed-loop connections on 2 cores: 164k
    /// requests/s fell to 103k).
    fn spin_wait(&self, events: &mut Vec<libc::epoll_event>) -> bool {
        if self.shared.conns.load(Ordering::Relaxed) == 0
            || self.stats.connected.get() >= kiln_common::cpu::count() as u64
        {
            return false;
        }
        let spinners_max = kiln_common::cpu::count() / 2;
        if SPINNING.fetch_add(1, Ordering::AcqRel) >= spinners_max {
            SPINNING.fetch_sub(1, Ordering::AcqRel);
            return false;
        }
        let start = Instant::now();
        let found = loop {
            match self.epoll.wait(events, 0) {
                Ok(n) if n > 0 => break true,
                Ok(_) => {}
                Err(_) => break false,
            }
            if start.elapsed() >= IDLE_SPIN {
                break false;
            }
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        };
        SPINNING.fetch_sub(1, Ordering::AcqRel);
        found
    }

    /// Takes the connections the acceptor handed over.
    fn adopt(&mut self) {
        for stream in self.shared.inbox.take() {
            let registered = stream.set_nonblocking(true).is_ok() && {
                let _ = stream.set_nodelay(true);
                true
            };
            let slot = self.free.pop().unwrap_or_else(|| {
                self.conns.push(None);
                self.conns.len() - 1
            });
            if !registered
                || self
                    .epoll
                    .add(stream.as_raw_fd(), READABLE, slot as u64)
                    .is_err()
            {
                self.free.push(slot);
                self.shared.conns.fetch_sub(1, Ordering::Relaxed);
                continue;
            }
            self.conns[slot] = Some(Conn {
                stream,
                input: Vec::new(),
                in_pos: 0,
                output: Vec::new(),
                out_pos: 0,
                state: ConnState::new(!self.settings.auth_required),
                last_active: Instant::now(),
                closing: false,
                dead: false,
                interest: READABLE,
            });
            self.stats.connections.inc();
            self.stats.connected.inc();
        }
    }

    /// Reads what a connection sent (or sends what it is waiting for).
    fn on_event(&mut self, i: usize, now: Instant) {
        let max_line = self.settings.max_line_bytes;
        let Some(c) = self.conns.get_mut(i).and_then(|c| c.as_mut()) else {
            return;
        };
        if c.interest & READABLE == 0 {
            return; // only waiting to write: flush_all does it
        }
        let high = max_line.saturating_add(READ_CHUNK_BYTES);
        loop {
            if c.input.len() - c.in_pos >= high {
                break;
            }
            if c.in_pos > 0 && c.in_pos * 2 >= c.input.len() {
                c.input.drain(..c.in_pos);
                c.in_pos = 0;
            }
            // Read through the worker's scratch buffer: growing `input` by a zeroed
            // chunk per read would cost a 64 KiB memset per batch.
            match c.stream.read(&mut self.scratch) {
                Ok(0) => {
                    // The peer finished sending: answer what it sent, then close.
                    c.closing = true;
                    break;
                }
                Ok(n) => {
                    c.input.extend_from_slice(&self.scratch[..n]);
                    c.last_active = now;
                    if n < READ_CHUNK_BYTES {
                        break;
                    }
                }
                Err(e) => {
                    if e.kind() != io::ErrorKind::WouldBlock
                        && e.kind() != io::ErrorKind::Interrupted
                    {
                        c.dead = true;
                    }
                    break;
                }
            }
        }
        if c.dead {
            self.stats.aborted.inc();
            self.close(i);
        }
    }

    /// Runs one batch over every connection with complete lines. Returns whether
    /// complete lines were left for the next batch.
    fn batch(&mut self) -> bool {
        let mut candidates = std::mem::take(&mut self.candidates);
        let mut marks = std::mem::take(&mut self.marks);
        candidates.clear();
        marks.clear();
        for (i, c) in self.conns.iter().enumerate() {
            if let Some(c) = c
                && !c.dead
                && c.in_pos < c.input.len()
                && c.pending_output() < OUTPUT_HIGH_BYTES
            {
                candidates.push(i);
                marks.push((i, c.in_pos, c.output.len()));
            }
        }
        let more = !candidates.is_empty() && self.run_batch(&candidates, &marks);
        if !candidates.is_empty() {
            // A connection whose request waited (for a lock) was not idle meanwhile:
            // the idle timeout counts from its answer.
            let now = Instant::now();
            for &i in &candidates {
                if let Some(c) = self.conns.get_mut(i).and_then(|c| c.as_mut()) {
                    c.last_active = now;
                }
            }
        }
        self.candidates = candidates;
        self.marks = marks;
        more
    }

    /// `batch` on the connections chosen (with their marks).
    fn run_batch(&mut self, candidates: &[usize], marks: &[(usize, usize, usize)]) -> bool {
        self.shared
            .active
            .store(candidates.len(), Ordering::Relaxed);
        self.stats.batches.inc();
        self.exec.begin_batch();
        self.prefetch(candidates);
        let mut executed = 0usize;
        let mut lost = false;
        'conns: for &i in candidates {
            for _ in 0..LINES_PER_CONN_PER_BATCH {
                match self.next_line(i) {
                    Some(true) => {
                        executed += 1;
                        if self.exec.batch_lost() {
                            lost = true;
                            break 'conns;
                        }
                    }
                    _ => break,
                }
            }
        }
        if lost {
            // Undo the batch's responses and run it again, one transaction per request.
            self.exec.abort_batch();
            for &(i, in_pos, out_len) in marks {
                let c = self.conns[i].as_mut().expect("candidate");
                c.in_pos = in_pos;
                c.output.truncate(out_len);
            }
            for &i in candidates {
                for _ in 0..LINES_PER_CONN_PER_BATCH {
                    self.exec.begin_batch();
                    let r = self.next_line(i);
                    if self.exec.end_batch().is_err() {
                        self.fail_connection(i);
                        break;
                    }
                    if r != Some(true) {
                        break;
                    }
                }
            }
        } else if self.exec.end_batch().is_err() {
            // The commit failed: nothing of the batch may be acknowledged.
            for &(i, _, out_len) in marks {
                if let Some(c) = self.conns[i].as_mut() {
                    c.output.truncate(out_len);
                }
                self.fail_connection(i);
            }
        }
        let _ = executed;
        self.shared.active.store(0, Ordering::Relaxed);
        candidates.iter().any(|&i| {
            self.conns[i].as_ref().is_some_and(|c| {
                !c.dead
                    && c.pending_output() < OUTPUT_HIGH_BYTES
                    && find_line(&c.input[c.in_pos..]).is_some()
            })
        })
    }

    /// Hands the batch's complete lines to the executor's leaf prefetch (a hint: see
    /// exec/prefetch.rs), in the order the batch will run them.
    fn prefetch(&mut self, candidates: &[usize]) {
        let conns = &self.conns;
        let lines = candidates
            .iter()
            .filter_map(|&i| conns.get(i).and_then(|c| c.as_ref()))
            .flat_map(|c| {
                let rest = &c.input[c.in_pos..];
                let end = rest.iter().rposition(|&b| b == b'\n').unwrap_or(0);
                rest[..end]
                    .split(|&b| b == b'\n')
                    .filter(|l| !l.is_empty())
                    .take(LINES_PER_CONN_PER_BATCH)
                    .map(move |l| (&c.state, strip_eol(l)))
            });
        self.exec.prefetch(lines);
    }

    /// Executes the next complete line of connection `i`: Some(true) if one ran,
    /// Some(false) if the connection has no complete line (or has enough unsent
    /// output for now), None if it is gone.
    fn next_line(&mut self, i: usize) -> Option<bool> {
        let max_line = self.settings.max_line_bytes;
        let c = self.conns.get_mut(i)?.as_mut()?;
        if c.dead {
            return None;
        }
        if c.pending_output() >= OUTPUT_HIGH_BYTES {
            return Some(false);
        }
        let rest = &c.input[c.in_pos..];
        let Some(eol) = find_line(rest) else {
            if rest.len() > max_line {
                Reply::new(&mut c.output).error(2, "linetoolong");
                c.closing = true;
                c.in_pos = c.input.len();
                self.stats.aborted.inc();
            } else if c.closing && !rest.is_empty() {
                // A last line without LF from a client that shut down its side.
                c.in_pos = c.input.len();
            }
            return Some(false);
        };
        if eol > max_line {
            Reply::new(&mut c.output).error(2, "linetoolong");
            c.closing = true;
            c.in_pos = c.input.len();
            self.stats.aborted.inc();
            return Some(false);
        }
        let start = c.in_pos;
        c.in_pos += eol + 1;
        let line = strip_eol(&c.input[start..start + eol]);
        self.exec.execute(&mut c.state, line, &mut c.output);
        Some(true)
    }

    fn fail_connection(&mut self, i: usize) {
        if let Some(c) = self.conns.get_mut(i).and_then(|c| c.as_mut()) {
            c.dead = true;
        }
        self.stats.aborted.inc();
        self.close(i);
    }

    /// Sends pending output; closes finished connections; adjusts interest.
    fn flush_all(&mut self) {
        for i in 0..self.conns.len() {
            let Some(c) = self.conns[i].as_mut() else {
                continue;
            };
            while c.pending_output() > 0 {
                match c.stream.write(&c.output[c.out_pos..]) {
                    Ok(0) => {
                        c.dead = true;
                        break;
                    }
                    Ok(n) => c.out_pos += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(_) => {
                        c.dead = true;
                        break;
                    }
                }
            }
            if c.pending_output() == 0 {
                c.output.clear();
                c.out_pos = 0;
            }
            let done_reading = c.closing && find_line(&c.input[c.in_pos..]).is_none();
            if c.dead || (done_reading && c.pending_output() == 0) {
                self.close(i);
                continue;
            }
            // Interest: writable while output waits; readable unless the output is
            // over the high-water mark.
            let mut want = 0;
            if c.pending_output() > 0 {
                want |= WRITABLE;
            }
            if c.pending_output() < OUTPUT_HIGH_BYTES && !c.closing {
                want |= READABLE;
            }
            if want != c.interest {
                c.interest = want;
                let _ = self.epoll.modify(c.stream.as_raw_fd(), want, i as u64);
            }
        }
    }

    fn close(&mut self, i: usize) {
        let Some(c) = self.conns.get_mut(i).and_then(|c| c.take()) else {
            return;
        };
        let _ = self.epoll.delete(c.stream.as_raw_fd());
        drop(c);
        self.free.push(i);
        self.stats.connected.sub(1);
        self.shared.conns.fetch_sub(1, Ordering::Relaxed);
    }

    /// Periodic work: idle timeouts; drop tables opened before a DDL.
    fn tick(&mut self) {
        if let Some(t) = self.settings.timeout {
            let now = Instant::now();
            for i in 0..self.conns.len() {
                let idle = self.conns[i].as_ref().is_some_and(|c| {
                    now.duration_since(c.last_active) > t && c.pending_output() == 0
                });
                if idle {
                    self.close(i);
                }
            }
        }
        self.exec.refresh();
    }
}
