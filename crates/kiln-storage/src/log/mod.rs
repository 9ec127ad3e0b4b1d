//! The redo log: a ring of mini-transaction groups in one file, group commit, and
//! checkpoints.
//!
//! File layout (`ib_redo0` in the data directory):
//!
//! ```text
//! offset        size      field
//!      0        4096      header: magic "KILNREDO" | format u32 | capacity u64 | crc u32
//!   4096         512      checkpoint slot 0: magic u32 | number u64 | lsn u64 |
//!                         generation u32 | gen_start u64 | crc u32
//!   8192         512      checkpoint slot 1   (written alternately; the valid one with
//!                         the higher number wins, so a torn slot write loses nothing)
//!  12288    capacity      the ring: byte `lsn % capacity` holds the log byte at `lsn`
//! ```
//!
//! The log is a byte stream addressed by LSN. A mini-transaction's records form one
//! group, written contiguously (wrapping at the ring's end):
//!
//! ```text
//! payload_len u32 | start_lsn u64 | generation u32 | crc32c u32 (over the 16 bytes before
//! it and the payload) | payload
//! ```
//!
//! Recovery reads groups from the checkpoint LSN until the first whose stored LSN or
//! checksum does not match: that is the end of the log (bytes of an older lap carry an
//! older LSN; a group torn by the crash fails its checksum and was never acknowledged,
//! because acknowledgement waits for the fsync that covers the group's end).
//!
//! Generations: every run after a recovery writes with a new generation `generation`, and
//! the checkpoint slot records `gen_start`, the LSN where it began (the end recovery
//! found). A group at or past `gen_start` counts only if it carries the current
//! generation. Without this, a crash that tore one group but left later, never
//! acknowledged groups intact on disk could see those groups replayed by a later
//! recovery, once the new run's groups happened to end exactly where one began.
//!
//! The ring never waits for space while holding a lock (that would deadlock with the
//! checkpoint, which must write the log to advance): `Log::free_check`, called before
//! every mini-transaction with no latches held, checkpoints once the ring is half
//! full, and a mini-transaction logs at most `GROUP_MAX` bytes, so in-flight groups fit
//! in the other half. Running out anyway is an error that stops the log.
//!
//! Concurrency: `append` (mini-transaction commit) takes no lock: it reserves its LSN
//! range with an atomic add and copies its group into the in-memory ring in parallel
//! with other committers (`buffer.rs`, MySQL 8.0's design). Durability (`flush_to`) is
//! group commit: one leader at a time drains everything contiguously copied so far,
//! writes it and fsyncs; the followers sleep on a condition variable and usually wake
//! to find their LSN durable. (MySQL 8.0 runs dedicated log_writer and log_flusher
//! threads instead; on small machines a committer acting as leader saves two thread
//! hand-offs per commit, and the 1-second `flusher` covers modes 0 and 2.) `order`
//! is held shared from LSN reservation until the pages of the mini-transaction are
//! marked dirty; the checkpoint takes it exclusively to read an LSN below which every
//! mini-transaction's pages are on the flush list.

pub mod buffer;
pub mod flusher;
pub mod record;

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Condvar, Mutex, RwLock};

use crate::io::DataFile;
use buffer::LogBuffer;
use kiln_common::counter::ShardedCounter;

/// First LSN of a new log: page LSN 0 means "never logged".
pub const LSN_START: u64 = 8192;
pub const GROUP_HEADER: usize = 20;
/// Largest mini-transaction payload. Writers split bigger work (long values) over
/// several mini-transactions.
pub const GROUP_MAX: usize = 256 << 10;
const HEADER_BLOCK: u64 = 4096;
const CKPT_OFF: [u64; 2] = [4096, 8192];
const RING_OFF: u64 = 12288;
const MAGIC: &[u8; 8] = b"KILNREDO";
/// Format of a log this kiln writes. 5: redo ops `Overwrite` and `RemoveRange` (op
/// codes 7 and 8); 4: 10-byte B+tree slots (offset + 8-byte key prefix); 3: three
/// doublewrite areas.
const FORMAT: u32 = 5;
/// Oldest format this kiln reads: a format 4 log differs only in lacking ops 7 and 8,
/// so it is recovered as is and `start_at` rewrites its header to `FORMAT` before
/// anything is appended (a kiln that reads only format 4 then refuses the log instead
/// of failing on an op it does not know).
const FORMAT_OLDEST: u32 = 4;
const CKPT_MAGIC: u32 = 0x4b43_4b50;
const CKPT_LEN: usize = 36;
/// Smallest ring (tests use small ones to exercise wrapping).
pub const CAPACITY_MIN: u64 = 2 << 20;

#[derive(Debug)]
pub enum LogError {
    Io(io::Error),
    /// An earlier write or fsync of the log failed: nothing after it can be made
    /// durable, so no commit is acknowledged until a restart recovers.
    Failed(String),
    /// The header or both checkpoint slots are unreadable: not a kiln redo log, or
    /// damaged beyond what kiln may guess about.
    Corrupt(String),
}

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogError::Io(e) => write!(f, "redo log I/O error: {e}"),
            LogError::Corrupt(s) => write!(f, "redo log is corrupt: {s}"),
            LogError::Failed(s) => write!(
                f,
                "redo log writes stopped after an I/O error ({s}); restart kiln to recover"
            ),
        }
    }
}

impl std::error::Error for LogError {}

impl From<io::Error> for LogError {
    fn from(e: io::Error) -> Self {
        LogError::Io(e)
    }
}

/// Counters (Innodb_redo_log_* / Innodb_os_log_*).
#[derive(Default)]
pub struct LogStats {
    pub writes: AtomicU64,
    pub fsyncs: AtomicU64,
    /// Mini-transaction groups appended (sharded: every commit counts one).
    pub groups: ShardedCounter,
    pub bytes: AtomicU64,
}

pub struct Log {
    file: Arc<dyn DataFile>,
    capacity: u64,
    buf: LogBuffer,
    writer: Mutex<()>,
    /// Held shared by committing mini-transactions, exclusively by the checkpoint.
    pub order: RwLock<()>,
    written_lsn: AtomicU64,
    flushed_lsn: AtomicU64,
    checkpoint_lsn: AtomicU64,
    checkpoint_no: AtomicU64,
    /// This run's generation and the LSN where it began.
    generation: u32,
    gen_start: u64,
    /// Called by `free_check` when the ring is half full.
    checkpointer: RwLock<Option<Arc<dyn Fn() + Send + Sync>>>,
    /// Set by the first failed write or fsync (never retried: after a failed fsync
    /// the kernel may have dropped the dirty pages, so a retry could "succeed").
    failed: Mutex<Option<String>>,
    /// A leader is writing/fsyncing (group commit); followers wait on `flush_cv`.
    flushing: Mutex<bool>,
    flush_cv: Condvar,
    pub stats: LogStats,
}

/// Where recovery starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    pub number: u64,
    pub lsn: u64,
    /// Generation of the run that wrote the slot, and the LSN where that run began.
    pub generation: u32,
    pub gen_start: u64,
}

/// Writes the header block of a log in `FORMAT` with this capacity.
fn write_header(file: &dyn DataFile, capacity: u64) -> io::Result<()> {
    let mut h = vec![0u8; HEADER_BLOCK as usize];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT.to_le_bytes());
    h[12..20].copy_from_slice(&capacity.to_le_bytes());
    let crc = crc32c::crc32c(&h[..20]);
    h[20..24].copy_from_slice(&crc.to_le_bytes());
    file.write_at(&h, 0)
}

fn ring_pos(capacity: u64, lsn: u64) -> u64 {
    RING_OFF + lsn % capacity
}

impl Log {
    /// Formats a new, empty file as a log with an empty ring and a checkpoint at `LSN_START`.
    pub fn create(file: Arc<dyn DataFile>, capacity: u64) -> Result<Arc<Log>, LogError> {
        assert!(
            capacity >= CAPACITY_MIN && capacity.is_multiple_of(4096),
            "redo capacity {capacity}"
        );
        if file.len()? != 0 {
            return Err(LogError::Corrupt(
                "refusing to format a log file that is not empty".into(),
            ));
        }
        file.set_len(RING_OFF + capacity)?;
        write_header(&*file, capacity)?;
        // The file is new (the caller created it), so the ring reads as zeroes: no
        // stale group can carry a matching LSN and checksum. (Not written out: the
        // file stays sparse until the ring fills.)
        let first = Checkpoint {
            number: 1,
            lsn: LSN_START,
            generation: 1,
            gen_start: LSN_START,
        };
        let log = Log::new(file, capacity, first, LSN_START);
        log.write_checkpoint_slot(first)?;
        log.write_checkpoint_slot(Checkpoint { number: 0, ..first })?;
        log.file.sync()?;
        Ok(log)
    }

    /// Reads the header and the newest valid checkpoint of an existing log. The log is
    /// not usable for writing until recovery calls `start_at`.
    pub fn open(file: Arc<dyn DataFile>) -> Result<(u64, Checkpoint), LogError> {
        let mut h = vec![0u8; HEADER_BLOCK as usize];
        file.read_at(&mut h, 0)?;
        if &h[..8] != MAGIC {
            return Err(LogError::Corrupt("not a kiln redo log (bad magic)".into()));
        }
        let crc = u32::from_le_bytes(h[20..24].try_into().unwrap());
        if crc != crc32c::crc32c(&h[..20]) {
            return Err(LogError::Corrupt("header checksum mismatch".into()));
        }
        let format = u32::from_le_bytes(h[8..12].try_into().unwrap());
        if !(FORMAT_OLDEST..=FORMAT).contains(&format) {
            return Err(LogError::Corrupt(format!(
                "redo log format {format}, this kiln reads formats {FORMAT_OLDEST} to {FORMAT}"
            )));
        }
        let capacity = u64::from_le_bytes(h[12..20].try_into().unwrap());
        if capacity < CAPACITY_MIN
            || !capacity.is_multiple_of(4096)
            || file.len()? < RING_OFF + capacity
        {
            return Err(LogError::Corrupt(format!(
                "ring capacity {capacity} does not match the file"
            )));
        }
        let mut best: Option<Checkpoint> = None;
        for off in CKPT_OFF {
            let mut b = [0u8; CKPT_LEN];
            file.read_at(&mut b, off)?;
            let magic = u32::from_le_bytes(b[0..4].try_into().unwrap());
            let crc = u32::from_le_bytes(b[32..36].try_into().unwrap());
            if magic != CKPT_MAGIC || crc != crc32c::crc32c(&b[..32]) {
                continue;
            }
            let c = Checkpoint {
                number: u64::from_le_bytes(b[4..12].try_into().unwrap()),
                lsn: u64::from_le_bytes(b[12..20].try_into().unwrap()),
                generation: u32::from_le_bytes(b[20..24].try_into().unwrap()),
                gen_start: u64::from_le_bytes(b[24..32].try_into().unwrap()),
            };
            if best.is_none_or(|x| c.number > x.number) {
                best = Some(c);
            }
        }
        let ckpt = best.ok_or_else(|| LogError::Corrupt("no valid checkpoint".into()))?;
        Ok((capacity, ckpt))
    }

    /// The log after recovery: new groups start at `end_lsn` with the next
    /// generation. Syncs the file first (the tail recovery read may have been only in
    /// the OS cache after a kill) and records the new generation in a checkpoint slot
    /// before anything is appended.
    pub fn start_at(
        file: Arc<dyn DataFile>,
        capacity: u64,
        ckpt: Checkpoint,
        end_lsn: u64,
    ) -> Result<Arc<Log>, LogError> {
        file.sync()?;
        // An older format (`FORMAT_OLDEST`): from now on the log may hold records it
        // lacks, so say so before the first of them (the header is rewritten whole;
        // its meaningful 24 bytes lie in the first sector).
        let mut f = [0u8; 4];
        file.read_at(&mut f, 8)?;
        if u32::from_le_bytes(f) != FORMAT {
            write_header(&*file, capacity)?;
        }
        let next = Checkpoint {
            number: ckpt.number + 1,
            lsn: ckpt.lsn,
            generation: ckpt.generation.wrapping_add(1).max(1),
            gen_start: end_lsn,
        };
        let log = Log::new(file, capacity, next, end_lsn);
        log.write_checkpoint_slot(next)?;
        log.file.sync()?;
        Ok(log)
    }

    fn new(file: Arc<dyn DataFile>, capacity: u64, ckpt: Checkpoint, lsn: u64) -> Arc<Log> {
        Arc::new(Log {
            file,
            capacity,
            buf: LogBuffer::new(lsn),
            writer: Mutex::new(()),
            order: RwLock::new(()),
            written_lsn: AtomicU64::new(lsn),
            flushed_lsn: AtomicU64::new(lsn),
            checkpoint_lsn: AtomicU64::new(ckpt.lsn),
            checkpoint_no: AtomicU64::new(ckpt.number),
            generation: ckpt.generation,
            gen_start: ckpt.gen_start,
            checkpointer: RwLock::new(None),
            failed: Mutex::new(None),
            flushing: Mutex::new(false),
            flush_cv: Condvar::new(),
            stats: LogStats::default(),
        })
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The next LSN to be handed out (the end of everything appended).
    pub fn current_lsn(&self) -> u64 {
        self.buf.reserved()
    }

    pub fn flushed_lsn(&self) -> u64 {
        self.flushed_lsn.load(Ordering::Acquire)
    }

    pub fn checkpoint_lsn(&self) -> u64 {
        self.checkpoint_lsn.load(Ordering::Acquire)
    }

    /// Bytes of log the next crash recovery would have to read.
    pub fn age(&self) -> u64 {
        self.current_lsn() - self.checkpoint_lsn()
    }

    /// Installs what `free_check` runs to make room (flush old pages, checkpoint).
    pub fn set_checkpointer(&self, f: Arc<dyn Fn() + Send + Sync>) {
        *self.checkpointer.write() = Some(f);
    }

    /// Called before a mini-transaction starts, holding no latches: when the ring is
    /// half full, checkpoint first, so in-flight groups always fit in the other half.
    pub fn free_check(&self) {
        if self.age() > self.capacity / 2 {
            let f = self.checkpointer.read().clone();
            if let Some(f) = f {
                f();
            }
        }
    }

    /// Appends one group; returns its (start, end) LSNs. The caller holds `order`
    /// shared until it has marked its pages dirty with these LSNs.
    pub fn append(&self, payload: &[u8]) -> (u64, u64) {
        assert!(
            !payload.is_empty() && payload.len() <= GROUP_MAX,
            "group of {} bytes",
            payload.len()
        );
        let r = self.buf.reserve((GROUP_HEADER + payload.len()) as u64);
        let (start, end) = (r.start, r.end);
        let mut h = [0u8; GROUP_HEADER];
        h[0..4].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        h[4..12].copy_from_slice(&start.to_le_bytes());
        h[12..16].copy_from_slice(&self.generation.to_le_bytes());
        let c = crc32c::crc32c_append(crc32c::crc32c(&h[0..16]), payload);
        h[16..20].copy_from_slice(&c.to_le_bytes());
        while !self.buf.has_room(&r) {
            self.make_room();
        }
        self.buf.fill(r, &[&h, payload]);
        self.stats.groups.inc();
        (start, end)
    }

    /// The buffer is full: write out what is ready (or let the current leader do it).
    fn make_room(&self) {
        match self.writer.try_lock() {
            Some(_w) => {
                let _ = self.drain_locked();
            }
            None => std::thread::yield_now(),
        }
    }

    /// Writes (without fsync) everything appended up to at least `lsn`.
    pub fn write_to(&self, lsn: u64) -> Result<(), LogError> {
        self.persist(lsn, false)
    }

    /// Makes everything appended up to at least `lsn` durable: group commit.
    pub fn flush_to(&self, lsn: u64) -> Result<(), LogError> {
        self.persist(lsn, true)
    }

    fn persist(&self, lsn: u64, sync: bool) -> Result<(), LogError> {
        // Nothing past the reserved end can be waited for.
        let lsn = lsn.min(self.buf.reserved());
        loop {
            self.persist_once(lsn, sync)?;
            let done = if sync {
                self.flushed_lsn.load(Ordering::Acquire)
            } else {
                self.written_lsn.load(Ordering::Acquire)
            };
            if done >= lsn {
                return Ok(());
            }
            // A group below `lsn` is still being copied in by its committer (which
            // never waits once copying): let it finish.
            std::thread::yield_now();
        }
    }

    fn persist_once(&self, lsn: u64, sync: bool) -> Result<(), LogError> {
        let done = |s: &Self| {
            if sync {
                s.flushed_lsn.load(Ordering::Acquire)
            } else {
                s.written_lsn.load(Ordering::Acquire)
            }
        };
        if done(self) >= lsn {
            return Ok(());
        }
        // Leader/follower: one thread writes and fsyncs everything buffered; the
        // others sleep until it is done and usually find their LSN covered. (A plain
        // mutex lets the finishing leader barge back in with one group at a time.)
        // Leader or follower, the thread now waits for the disk.
        let _wait = kiln_common::wait::begin(kiln_common::wait::WaitKind::GroupCommit);
        {
            let mut busy = self.flushing.lock();
            loop {
                if done(self) >= lsn {
                    return Ok(());
                }
                if !*busy {
                    break;
                }
                self.flush_cv.wait(&mut busy);
            }
            *busy = true;
        }
        let res = {
            let _w = self.writer.lock();
            self.persist_locked(sync)
        };
        if let Err(e) = &res {
            self.stop(e);
        }
        *self.flushing.lock() = false;
        self.flush_cv.notify_all();
        res
    }

    /// Stops the log at its first I/O error (later errors are its consequences).
    fn stop(&self, e: &LogError) {
        let mut failed = self.failed.lock();
        if let (LogError::Io(_), None) = (e, &*failed) {
            tracing::error!("redo log: {e}; no further commits will be acknowledged");
            *failed = Some(e.to_string());
        }
    }

    /// Whether an I/O error stopped the log.
    pub fn has_failed(&self) -> bool {
        self.failed.lock().is_some()
    }

    /// Writes what the buffer has ready (holding `writer`). After a failure the bytes
    /// are dropped instead — they can never be made durable, and committers waiting
    /// for buffer space must not hang — and the failure is returned.
    fn drain_locked(&self) -> Result<u64, LogError> {
        if let Some(why) = self.failed.lock().clone() {
            let _ = self.buf.drain(|_, _, _| Ok::<(), ()>(()));
            return Err(LogError::Failed(why));
        }
        let to = self.buf.drain(|from, a, b| {
            let to = from + (a.len() + b.len()) as u64;
            if to - self.checkpoint_lsn() > self.capacity {
                // `free_check` keeps this from happening; if it does, writing would
                // overwrite log the last checkpoint needs. Stop instead.
                return Err(LogError::Io(io::Error::other(format!(
                    "redo log ring overflow: {} bytes since the checkpoint, capacity {}; raise innodb_redo_log_capacity",
                    to - self.checkpoint_lsn(),
                    self.capacity
                ))));
            }
            self.write_ring(from, a)?;
            self.write_ring(from + a.len() as u64, b)?;
            self.stats.writes.fetch_add(1, Ordering::Relaxed);
            self.stats
                .bytes
                .fetch_add((a.len() + b.len()) as u64, Ordering::Relaxed);
            Ok(())
        });
        match to {
            Ok(to) => {
                self.written_lsn.fetch_max(to, Ordering::AcqRel);
                Ok(to)
            }
            Err(e) => {
                self.stop(&e);
                Err(e)
            }
        }
    }

    fn persist_locked(&self, sync: bool) -> Result<(), LogError> {
        let to = self.drain_locked()?;
        if sync && self.flushed_lsn.load(Ordering::Acquire) < to {
            self.file.sync()?;
            self.stats.fsyncs.fetch_add(1, Ordering::Relaxed);
            self.flushed_lsn.store(to, Ordering::Release);
        }
        Ok(())
    }

    fn write_ring(&self, from: u64, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        let pos = from % self.capacity;
        let first = ((self.capacity - pos) as usize).min(bytes.len());
        self.file.write_at(&bytes[..first], RING_OFF + pos)?;
        if first < bytes.len() {
            self.file.write_at(&bytes[first..], RING_OFF)?;
        }
        Ok(())
    }

    fn write_checkpoint_slot(&self, c: Checkpoint) -> io::Result<()> {
        let mut b = [0u8; 512];
        b[0..4].copy_from_slice(&CKPT_MAGIC.to_le_bytes());
        b[4..12].copy_from_slice(&c.number.to_le_bytes());
        b[12..20].copy_from_slice(&c.lsn.to_le_bytes());
        b[20..24].copy_from_slice(&c.generation.to_le_bytes());
        b[24..32].copy_from_slice(&c.gen_start.to_le_bytes());
        let crc = crc32c::crc32c(&b[..32]);
        b[32..36].copy_from_slice(&crc.to_le_bytes());
        self.file.write_at(&b, CKPT_OFF[(c.number % 2) as usize])
    }

    /// Records that recovery may start at `lsn`: every page change below it is in the
    /// data files. The log up to `lsn` is made durable first.
    pub fn write_checkpoint(&self, lsn: u64) -> Result<(), LogError> {
        if let Some(why) = self.failed.lock().clone() {
            return Err(LogError::Failed(why));
        }
        if lsn <= self.checkpoint_lsn() {
            return Ok(());
        }
        self.flush_to(lsn)?;
        let _w = self.writer.lock();
        if let Some(why) = self.failed.lock().clone() {
            return Err(LogError::Failed(why));
        }
        let number = self.checkpoint_no.load(Ordering::Acquire) + 1;
        let res = self
            .write_checkpoint_slot(Checkpoint {
                number,
                lsn,
                generation: self.generation,
                gen_start: self.gen_start,
            })
            .and_then(|_| self.file.sync());
        if let Err(e) = res {
            *self.failed.lock() = Some(e.to_string());
            return Err(LogError::Io(e));
        }
        self.checkpoint_no.store(number, Ordering::Release);
        self.checkpoint_lsn.store(lsn, Ordering::Release);
        Ok(())
    }
}

/// Reads groups from a log ring: recovery's scanner.
pub struct Scanner {
    file: Arc<dyn DataFile>,
    capacity: u64,
    ckpt: Checkpoint,
    pub lsn: u64,
    /// Read-ahead window over the ring: bytes [window_lsn, window_lsn + window.len()).
    /// Groups are parsed from it, so a scan costs one read per `SCAN_CHUNK`, not two
    /// per group.
    window: Vec<u8>,
    window_lsn: u64,
}

/// Bytes of ring read at a time by the scanner.
const SCAN_CHUNK: u64 = 8 << 20;

/// One group as read back.
pub struct Group {
    pub start_lsn: u64,
    pub end_lsn: u64,
    pub payload: Vec<u8>,
}

impl Scanner {
    /// Scans from the checkpoint `ckpt` (whose generation rules which groups count).
    pub fn new(file: Arc<dyn DataFile>, capacity: u64, ckpt: Checkpoint) -> Scanner {
        Scanner {
            file,
            capacity,
            ckpt,
            lsn: ckpt.lsn,
            window: Vec::new(),
            window_lsn: 0,
        }
    }

    /// Copies ring bytes at `lsn` into `buf`, from the window (refilled as needed).
    fn read_ring(&mut self, lsn: u64, buf: &mut [u8]) -> io::Result<()> {
        let end = lsn + buf.len() as u64;
        if lsn < self.window_lsn || end > self.window_lsn + self.window.len() as u64 {
            let want = (buf.len() as u64).max(SCAN_CHUNK).min(self.capacity);
            let mut w = std::mem::take(&mut self.window);
            w.resize(want as usize, 0);
            self.read_ring_direct(lsn, &mut w)?;
            self.window = w;
            self.window_lsn = lsn;
        }
        let off = (lsn - self.window_lsn) as usize;
        buf.copy_from_slice(&self.window[off..off + buf.len()]);
        Ok(())
    }

    fn read_ring_direct(&self, lsn: u64, buf: &mut [u8]) -> io::Result<()> {
        let pos = lsn % self.capacity;
        let first = ((self.capacity - pos) as usize).min(buf.len());
        self.file
            .read_at(&mut buf[..first], ring_pos(self.capacity, lsn))?;
        if first < buf.len() {
            self.file.read_at(&mut buf[first..], RING_OFF)?;
        }
        Ok(())
    }

    /// The next group, or `None` at the end of the log.
    pub fn next_group(&mut self) -> io::Result<Option<Group>> {
        let mut h = [0u8; GROUP_HEADER];
        self.read_ring(self.lsn, &mut h)?;
        let len = u32::from_le_bytes(h[0..4].try_into().unwrap()) as usize;
        let start = u64::from_le_bytes(h[4..12].try_into().unwrap());
        let generation = u32::from_le_bytes(h[12..16].try_into().unwrap());
        let crc = u32::from_le_bytes(h[16..20].try_into().unwrap());
        let generation_ok = if start >= self.ckpt.gen_start {
            generation == self.ckpt.generation
        } else {
            generation <= self.ckpt.generation
        };
        if start != self.lsn
            || !generation_ok
            || len == 0
            || len > GROUP_MAX
            || (GROUP_HEADER + len) as u64 > self.capacity
        {
            return Ok(None);
        }
        let mut payload = vec![0u8; len];
        self.read_ring(self.lsn + GROUP_HEADER as u64, &mut payload)?;
        let c = crc32c::crc32c_append(crc32c::crc32c(&h[0..16]), &payload);
        if c != crc {
            return Ok(None);
        }
        let end = start + (GROUP_HEADER + len) as u64;
        self.lsn = end;
        Ok(Some(Group {
            start_lsn: start,
            end_lsn: end,
            payload,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Vfs;
    use crate::io::mem::{CrashMode, MemVfs};
    use std::path::Path;

    fn scan_all(f: Arc<dyn DataFile>) -> (Checkpoint, Vec<Group>) {
        let (cap, ck) = Log::open(f.clone()).unwrap();
        let mut s = Scanner::new(f, cap, ck);
        let mut v = Vec::new();
        while let Some(g) = s.next_group().unwrap() {
            v.push(g);
        }
        (ck, v)
    }

    #[test]
    fn groups_survive_wrap_checkpoints_and_crashes() {
        let vfs = MemVfs::new();
        let f = vfs.open(Path::new("/redo"), true).unwrap();
        let log = Log::create(f, CAPACITY_MIN).unwrap();
        let mut ends = Vec::new();
        // Fill the ring several times, checkpointing as we go so it can wrap.
        for i in 0..3000u32 {
            let payload = vec![(i % 251) as u8; 100 + (i as usize * 37) % 1500];
            let (_, end) = log.append(&payload);
            ends.push((end, payload));
            if i % 10 == 9 {
                log.flush_to(end).unwrap();
            }
            if log.age() > CAPACITY_MIN / 2 {
                let (e, _) = ends[ends.len() - 5];
                log.write_checkpoint(e).unwrap();
            }
        }
        let last_flushed = log.flushed_lsn();
        // Unflushed tail: appended but never written.
        log.append(&[1, 2, 3]);
        vfs.crash(CrashMode::DropUnsynced);
        let f = vfs.open(Path::new("/redo"), false).unwrap();
        let (ck, groups) = scan_all(f);
        assert_eq!(ck.lsn, log.checkpoint_lsn());
        assert_eq!(
            groups.last().unwrap().end_lsn,
            last_flushed,
            "scan ends exactly at the durable end"
        );
        for g in &groups {
            let (_, want) = ends.iter().find(|(e, _)| *e == g.end_lsn).unwrap();
            assert_eq!(&g.payload, want);
        }
    }

    #[test]
    fn torn_tail_is_cut_at_the_last_whole_group() {
        let vfs = MemVfs::new();
        let f = vfs.open(Path::new("/redo"), true).unwrap();
        let log = Log::create(f, CAPACITY_MIN).unwrap();
        let (_, e1) = log.append(&[7u8; 300]);
        log.flush_to(e1).unwrap();
        let (_, e2) = log.append(&[8u8; 9000]);
        log.write_to(e2).unwrap();
        vfs.crash(CrashMode::Torn { seed: 3 });
        let f = vfs.open(Path::new("/redo"), false).unwrap();
        let (_, groups) = scan_all(f);
        assert!(!groups.is_empty() && groups[0].end_lsn == e1);
        assert!(groups.len() == 1 || groups[1].payload == vec![8u8; 9000]);
    }

    #[test]
    fn group_commit_makes_every_waiter_durable() {
        let vfs = MemVfs::new();
        let f = vfs.open(Path::new("/redo"), true).unwrap();
        let log = Log::create(f, 4 * CAPACITY_MIN).unwrap();
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let log = log.clone();
                std::thread::spawn(move || {
                    for i in 0..200u32 {
                        let (_, end) = log.append(&[t as u8; 64]);
                        log.flush_to(end).unwrap();
                        assert!(log.flushed_lsn() >= end, "thread {t} commit {i}");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let fsyncs = log.stats.fsyncs.load(Ordering::Relaxed);
        assert!(fsyncs <= 1600, "{fsyncs} fsyncs for 1600 commits");
        vfs.crash(CrashMode::DropUnsynced);
        let (_, groups) = scan_all(vfs.open(Path::new("/redo"), false).unwrap());
        assert_eq!(groups.len(), 1600);
    }

    /// A format 4 log (no ops 7 and 8) is read, and its header says `FORMAT` once a
    /// run starts writing; formats outside [4, FORMAT] are refused with the reason.
    #[test]
    fn older_format_is_upgraded_at_start_and_others_refused() {
        let set_format = |f: &Arc<dyn DataFile>, format: u32| {
            let mut h = [0u8; 24];
            f.read_at(&mut h, 0).unwrap();
            h[8..12].copy_from_slice(&format.to_le_bytes());
            let crc = crc32c::crc32c(&h[..20]);
            h[20..24].copy_from_slice(&crc.to_le_bytes());
            f.write_at(&h, 0).unwrap();
        };
        let format_of = |f: &Arc<dyn DataFile>| {
            let mut b = [0u8; 4];
            f.read_at(&mut b, 8).unwrap();
            u32::from_le_bytes(b)
        };
        let vfs = MemVfs::new();
        let f = vfs.open(Path::new("/redo"), true).unwrap();
        let log = Log::create(f.clone(), CAPACITY_MIN).unwrap();
        assert_eq!(format_of(&f), FORMAT);
        let (_, end) = log.append(&[5u8; 40]);
        log.flush_to(end).unwrap();
        for bad in [FORMAT_OLDEST - 1, FORMAT + 1] {
            set_format(&f, bad);
            match Log::open(f.clone()) {
                Err(LogError::Corrupt(why)) => assert!(why.contains(&format!("format {bad}"))),
                other => panic!("format {bad} opened: {:?}", other.map(|_| ())),
            }
        }
        set_format(&f, FORMAT_OLDEST);
        let (cap, ck) = Log::open(f.clone()).unwrap();
        let mut s = Scanner::new(f.clone(), cap, ck);
        let g = s.next_group().unwrap().expect("the group of the old log");
        assert_eq!(g.payload, vec![5u8; 40]);
        assert_eq!(format_of(&f), FORMAT_OLDEST, "reading changes nothing");
        let log = Log::start_at(f.clone(), cap, ck, s.lsn).unwrap();
        assert_eq!(
            format_of(&f),
            FORMAT,
            "upgraded before anything is appended"
        );
        let (_, end) = log.append(&[6u8; 10]);
        log.flush_to(end).unwrap();
        let (_, groups) = scan_all(f);
        assert_eq!(groups.len(), 2);
    }

    #[test]
    fn stale_groups_past_a_recovered_end_are_never_replayed() {
        // A power cut tore group 2 but left group 3 (never acknowledged) intact.
        let vfs = MemVfs::new();
        let path = Path::new("/redo");
        let log = Log::create(vfs.open(path, true).unwrap(), CAPACITY_MIN).unwrap();
        let (_, e1) = log.append(&[1u8; 100]);
        log.flush_to(e1).unwrap();
        let (s2, e2) = log.append(&[2u8; 100]);
        let (_, e3) = log.append(&[3u8; 100]);
        log.flush_to(e3).unwrap();
        let off = (RING_OFF + s2 % CAPACITY_MIN) as usize + GROUP_HEADER + 10;
        vfs.corrupt(path, off, &[0xEE; 4]);
        drop(log);
        let f = vfs.open(path, false).unwrap();
        let (cap, ck) = Log::open(f.clone()).unwrap();
        let (_, groups) = scan_all(f.clone());
        assert_eq!(
            groups.last().unwrap().end_lsn,
            e1,
            "recovery ends before the torn group"
        );
        // The next run writes a group exactly as long as the torn one, so its end
        // lands where the stale group 3 begins.
        let log = Log::start_at(f.clone(), cap, ck, e1).unwrap();
        let (_, e) = log.append(&[9u8; 100]);
        assert_eq!(e, e2);
        log.flush_to(e).unwrap();
        let (_, groups) = scan_all(f);
        assert_eq!(
            groups.len(),
            2,
            "group 3 of the old run must not be replayed"
        );
        assert_eq!(groups[1].payload, vec![9u8; 100]);
    }
}
