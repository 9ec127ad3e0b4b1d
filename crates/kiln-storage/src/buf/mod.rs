//! The buffer pool: a fixed set of 16 KiB frames caching pages of all tablespaces,
//! split into `instances` by page id so that no lock covers the whole pool.
//!
//! Per instance:
//! - `hash`: page id → frame, under a reader-writer lock (hits take it shared);
//! - `lists`: the free list and the LRU list (`lru.rs`, midpoint insertion) under a
//!   mutex taken on misses, evictions and when an old page turns young — never on a
//!   hit of a young page;
//! - `flush_list`: dirty frames ordered by the LSN that first dirtied them (the
//!   checkpoint needs the minimum), under its own mutex.
//!
//! A frame: the page bytes behind a reader-writer latch (`PageRead`/`PageWrite` are
//! owned guards, so B+tree code can hold several while descending), a pin count
//! (a pinned frame is never evicted), the page id, dirty state.
//!
//! Lock order: hash → lists → flush_list; a page latch is never taken while holding
//! any of them, except the X latch of a frame no one else can reach yet (a miss being
//! filled). Disk reads happen under the new frame's X latch only, so other pages stay
//! available and waiters for the same page block on its latch, not on the pool.
//!
//! Write-back (`write_batch`): pages are S-latched (try-latch, so a flusher never waits
//! while holding latches), copied and checksummed; then the `WriteHook` makes the redo
//! durable up to the newest page LSN of the batch (the WAL rule) and writes the copies
//! to the doublewrite area; only then do the pages go to their files, the files are
//! synced and the frames marked clean — still under the S latch, so no change can slip
//! in between the copy and the clean mark. Callers: `flush_oldest` (page cleaner and
//! checkpoints), `flush_all` (shutdown, tests) and eviction: a miss whose victim (the
//! unpinned frame nearest the LRU tail) is dirty writes every dirty unpinned frame among
//! the 64 nearest the tail in one batch, then claims a clean one (`evict.rs`, with
//! the page cleaner's LRU flushing that keeps free frames ready).

mod evict;
pub mod lru;
pub mod optimistic;
pub mod prefetch;
mod region;

use std::collections::{BTreeSet, HashMap};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use kiln_common::counter::ShardedCounter;
use parking_lot::lock_api::{ArcRwLockReadGuard, ArcRwLockWriteGuard};
use parking_lot::{Condvar, Mutex, RawRwLock, RwLock};

use crate::io::DataFile;
use crate::io::batch::{BatchIo, ReadOp, WriteOp};
use crate::page::{self, PAGE_SIZE, PageBuf, PageId};
use lru::Lru;
use optimistic::{OptPage, PageVersion};
use region::FrameBuf;

const NO_PAGE: u64 = u64::MAX;
/// Consecutive misses that start linear read-ahead, and how far it reads.
const READ_AHEAD_RUN: u32 = 8;
const READ_AHEAD_PAGES: u32 = 64;

/// The X latch of a frame being filled on a miss (claim → read → admit/abandon),
/// bracketed by version bumps like every X latch (see `optimistic.rs`).
struct FrameWrite<'a> {
    guard: ArcRwLockWriteGuard<RawRwLock, FrameBuf>,
    version: &'a PageVersion,
}

impl<'a> FrameWrite<'a> {
    fn new(frame: &'a Frame) -> FrameWrite<'a> {
        let guard = frame.latch.write_arc();
        frame.version.write_begin();
        FrameWrite {
            guard,
            version: &frame.version,
        }
    }
}

impl Drop for FrameWrite<'_> {
    fn drop(&mut self) {
        self.version.write_end();
    }
}

impl std::ops::Deref for FrameWrite<'_> {
    type Target = PageBuf;
    fn deref(&self) -> &PageBuf {
        &self.guard
    }
}

impl std::ops::DerefMut for FrameWrite<'_> {
    fn deref_mut(&mut self) -> &mut PageBuf {
        &mut self.guard
    }
}

/// Mixes a page id for the page hash and the optimistic hint table.
fn mix(key: u64) -> u64 {
    let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

/// Hasher for the page hash: keys are page ids, not attacker-chosen strings, so a
/// multiply-xorshift is enough (SipHash was a sixth of a cached lookup).
#[derive(Clone, Copy, Default)]
struct PageIdHash;

impl std::hash::BuildHasher for PageIdHash {
    type Hasher = PageIdHasher;
    fn build_hasher(&self) -> PageIdHasher {
        PageIdHasher(0)
    }
}

struct PageIdHasher(u64);

impl std::hash::Hasher for PageIdHasher {
    fn finish(&self) -> u64 {
        mix(self.0)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8 | *b as u64).rotate_left(5);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

#[derive(Debug, Clone)]
pub struct PoolConfig {
    pub size_bytes: usize,
    pub instances: usize,
    /// innodb_old_blocks_pct
    pub old_blocks_pct: usize,
    /// innodb_old_blocks_time
    pub old_blocks_time_ms: u64,
    /// innodb_use_native_aio: batched page I/O through io_uring when available.
    pub native_aio: bool,
    /// innodb_write_io_threads: parallel writers of the fallback.
    pub io_threads: usize,
    /// Linear read-ahead for scans (innodb_read_ahead_threshold > 0).
    pub read_ahead: bool,
    /// large_pages: ask for transparent huge pages for the frames (`Region::new`).
    pub huge_pages: bool,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            size_bytes: 128 << 20,
            instances: 8,
            old_blocks_pct: 37,
            old_blocks_time_ms: 1000,
            native_aio: true,
            io_threads: 4,
            read_ahead: true,
            huge_pages: false,
        }
    }
}

/// Errors of page access.
#[derive(Debug)]
pub enum BufError {
    Io(PageId, io::Error),
    /// Checksum or identity mismatch: the page is never served.
    Corrupt(PageId, page::PageError),
    /// Every frame is pinned.
    Full,
    UnknownSpace(u32),
}

impl std::fmt::Display for BufError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BufError::Io(id, e) => write!(f, "I/O error on page {id}: {e}"),
            BufError::Corrupt(id, e) => write!(f, "page {id} is corrupt: {e:?}"),
            BufError::Full => write!(f, "buffer pool is full: every page is pinned"),
            BufError::UnknownSpace(s) => write!(f, "tablespace {s} is not open"),
        }
    }
}

impl std::error::Error for BufError {}

/// Innodb_buffer_pool_* counters.
#[derive(Default)]
pub struct PoolStats {
    pub read_requests: ShardedCounter,
    pub reads: ShardedCounter,
    pub pages_flushed: ShardedCounter,
    pub wait_free: ShardedCounter,
    /// Frames the page cleaner freed from the LRU tail (`refill_free_lists`).
    pub lru_freed: ShardedCounter,
    /// Innodb_buffer_pool_read_ahead: pages read by linear read-ahead.
    pub read_ahead: ShardedCounter,
}

/// The address of a frame's page bytes, for optimistic readers.
struct FrameBytes(*const u8);

// SAFETY: the pointer is only dereferenced through `OptPage`, whose reads are racy by
// design and validated by the frame's version (optimistic.rs); the buffer it points
// at is owned by the frame's latch and lives, unmoved, as long as the pool.
unsafe impl Send for FrameBytes {}
// SAFETY: as for Send: sharing the address is harmless, every access is validated.
unsafe impl Sync for FrameBytes {}

struct Frame {
    latch: Arc<RwLock<FrameBuf>>,
    /// Bumped around every X latch: optimistic readers validate against it.
    version: PageVersion,
    /// The bytes behind `latch` (a fixed slice of the pool's region: they never move).
    bytes: FrameBytes,
    id: AtomicU64,
    pin: AtomicU32,
    dirty: AtomicBool,
    /// LSN that first dirtied the frame since it was last written (0: clean).
    oldest_lsn: AtomicU64,
    /// Milliseconds since pool start of the first access after read-in.
    first_access_ms: AtomicU64,
    /// The instance's eviction count when the frame was last made young (u64::MAX:
    /// not young). A hit on a frame made young fewer than a quarter-pool of evictions
    /// ago touches nothing shared — no clock, no list mutex (InnoDB's trick too).
    young_stamp: AtomicU64,
    /// Set when a read failed: the last unpinner returns the frame to the free list.
    orphaned: AtomicBool,
}

struct Lists {
    free: Vec<u32>,
    lru: Lru,
}

struct Instance {
    frames: Box<[Frame]>,
    hash: RwLock<HashMap<u64, u32, PageIdHash>>,
    /// Latch-free hints for optimistic reads: slot `mix(id) & hint_mask` holds a page
    /// id and the frame it was last seen in. Racy and possibly stale on purpose — a
    /// reader trusts neither, it checks the frame's own id under its version.
    hint_key: Box<[AtomicU64]>,
    hint_frame: Box<[AtomicU32]>,
    hint_mask: usize,
    lists: Mutex<Lists>,
    flush_list: Mutex<BTreeSet<(u64, u32)>>,
    /// Frames evicted so far (the clock `young_stamp` is measured in).
    evictions: AtomicU64,
}

impl Instance {
    /// Whether a frame was made young fewer than a quarter-pool of evictions ago, so
    /// that a hit need not touch the LRU.
    fn recently_young(&self, frame: &Frame) -> bool {
        let stamp = frame.young_stamp.load(Ordering::Relaxed);
        stamp != u64::MAX
            && self.evictions.load(Ordering::Relaxed).saturating_sub(stamp)
                < (self.frames.len() / 4) as u64
    }

    fn set_hint(&self, key: u64, f: u32) {
        let slot = mix(key) as usize & self.hint_mask;
        // Load first: a hot page's slot stays a read-only cache line.
        if self.hint_key[slot].load(Ordering::Relaxed) != key
            || self.hint_frame[slot].load(Ordering::Relaxed) != f
        {
            self.hint_frame[slot].store(f, Ordering::Relaxed);
            self.hint_key[slot].store(key, Ordering::Release);
        }
    }
}

/// A page being read without a latch (see `optimistic.rs`): what is read through
/// `page()` counts only if `validate()` is true afterwards.
pub struct Optimistic<'a> {
    frame: &'a Frame,
    version: u64,
}

impl<'a> Optimistic<'a> {
    pub fn page(&self) -> OptPage<'a> {
        // SAFETY: the frame's buffer lives, unmoved, as long as the pool, which `'a`
        // borrows.
        unsafe { OptPage::new(self.frame.bytes.0) }
    }

    /// Whether the page was not changed (nor replaced) since `optimistic` returned.
    pub fn validate(&self) -> bool {
        self.frame.version.validate(self.version)
    }
}

/// What must happen before a page image reaches its file.
pub trait WriteHook: Send + Sync {
    /// The WAL rule: make the redo log durable up to `lsn`.
    fn wal_flush(&self, lsn: u64) -> io::Result<()>;
    /// Write these page images (checksummed) to the doublewrite area and sync it, so
    /// a write torn by a crash can be repaired from the copy.
    fn doublewrite(&self, pages: &[&PageBuf]) -> io::Result<()>;
}

/// Pages per write batch (the doublewrite area holds one batch).
pub const BATCH_PAGES: usize = 64;

pub struct BufferPool {
    instances: Box<[Instance]>,
    hook: RwLock<Option<Arc<dyn WriteHook>>>,
    io: Arc<BatchIo>,
    /// Requests to the read-ahead thread (None: read-ahead off).
    read_ahead: Option<Mutex<std::sync::mpsc::Sender<(u32, u32, u32)>>>,
    /// Per tablespace: (last missed page, consecutive run, next page that triggers).
    read_ahead_state: Mutex<HashMap<u32, (u32, u32, u32)>>,
    /// One batch writer at a time: the doublewrite area holds one batch.
    batch: Mutex<()>,
    /// A miss found its instance's free list low (`request_refill`): the page cleaner,
    /// waiting in `wait_refill_request`, refills the free lists now.
    refill_requested: AtomicBool,
    refill: (Mutex<bool>, Condvar),
    spaces: RwLock<HashMap<u32, Arc<dyn DataFile>>>,
    config: PoolConfig,
    /// `coarse_clock_ms()` when the pool was created: page ages count from here.
    started_ms: u64,
    pub stats: PoolStats,
}

/// CLOCK_MONOTONIC_COARSE in milliseconds: a page's age needs the scheduler tick's
/// resolution (1-4 ms) against `innodb_old_blocks_time` (1,000 ms), and the coarse
/// clock is one read of the vDSO page where the precise one read the TSC and
/// converted it (3% of a bulk INSERT's CPU, one call per page pin).
fn coarse_clock_ms() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    debug_assert_eq!(rc, 0, "CLOCK_MONOTONIC_COARSE is always available on Linux");
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

/// A pinned page with a shared latch.
pub struct PageRead {
    guard: ArcRwLockReadGuard<RawRwLock, FrameBuf>,
    pin: Pin,
}

/// A pinned page with an exclusive latch. Changes mark the page dirty when the
/// guard is created with `fetch_write`.
pub struct PageWrite {
    guard: ArcRwLockWriteGuard<RawRwLock, FrameBuf>,
    pin: Pin,
}

struct Pin {
    pool: Arc<BufferPool>,
    inst: u32,
    frame: u32,
}

impl Drop for Pin {
    fn drop(&mut self) {
        let frame = self.pool.frame(self.inst, self.frame);
        let prev = frame.pin.fetch_sub(1, Ordering::AcqRel);
        debug_assert!(prev > 0);
        if prev == 1 && frame.orphaned.swap(false, Ordering::AcqRel) {
            self.pool.instances[self.inst as usize]
                .lists
                .lock()
                .free
                .push(self.frame);
        }
    }
}

impl PageRead {
    pub fn data(&self) -> &[u8; PAGE_SIZE] {
        &self.guard.0
    }
    pub fn id(&self) -> PageId {
        PageId::from_u64(self.pin.frame().id.load(Ordering::Relaxed))
    }
}

impl Pin {
    fn frame(&self) -> &Frame {
        self.pool.frame(self.inst, self.frame)
    }

    /// Whether the frame holds `id` (checked under the page latch: a read that failed
    /// while we waited leaves the frame unmapped, and we must look again).
    fn holds(&self, id: PageId) -> bool {
        self.frame().id.load(Ordering::Acquire) == id.as_u64()
    }
}

impl std::ops::Deref for PageRead {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.guard.0
    }
}

impl PageWrite {
    fn new(guard: ArcRwLockWriteGuard<RawRwLock, FrameBuf>, pin: Pin) -> PageWrite {
        pin.frame().version.write_begin();
        PageWrite { guard, pin }
    }

    pub fn id(&self) -> PageId {
        PageId::from_u64(self.pin.frame().id.load(Ordering::Relaxed))
    }
    /// Records that the page was changed by a mini-transaction whose redo group spans
    /// [start_lsn, end_lsn): the page LSN becomes `end_lsn`, and a clean page joins the
    /// flush list at `start_lsn` (the checkpoint may not pass it until it is written).
    pub fn mark_dirty(&mut self, start_lsn: u64, end_lsn: u64) {
        debug_assert!(start_lsn < end_lsn);
        let f = self.pin.frame();
        if !f.dirty.swap(true, Ordering::AcqRel) {
            f.oldest_lsn.store(start_lsn, Ordering::Release);
            self.pin.pool.instances[self.pin.inst as usize]
                .flush_list
                .lock()
                .insert((start_lsn, self.pin.frame));
        }
        let current = page::page_lsn(&self.guard.0);
        page::set_page_lsn(&mut self.guard.0, end_lsn.max(current));
    }
}

impl Drop for PageWrite {
    fn drop(&mut self) {
        // Before the latch itself is released (fields drop after this).
        self.pin.frame().version.write_end();
    }
}

impl std::ops::Deref for PageWrite {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.guard.0
    }
}

impl std::ops::DerefMut for PageWrite {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.guard.0
    }
}

impl BufferPool {
    pub fn new(config: PoolConfig) -> Arc<BufferPool> {
        let instances_n = config.instances.clamp(1, 64);
        let total_frames = (config.size_bytes / PAGE_SIZE).max(16 * instances_n);
        let per = total_frames / instances_n;
        let hints = (per * 2).next_power_of_two();
        let region = region::Region::new(per * instances_n, config.huge_pages);
        let instances = (0..instances_n)
            .map(|inst| Instance {
                frames: (0..per)
                    .map(|f| {
                        let buf = region.frame(inst * per + f);
                        let bytes = FrameBytes(buf.0.as_ptr());
                        (buf, bytes)
                    })
                    .map(|(buf, bytes)| Frame {
                        latch: Arc::new(RwLock::new(buf)),
                        version: PageVersion::new(),
                        bytes,
                        id: AtomicU64::new(NO_PAGE),
                        pin: AtomicU32::new(0),
                        dirty: AtomicBool::new(false),
                        oldest_lsn: AtomicU64::new(0),
                        first_access_ms: AtomicU64::new(0),
                        young_stamp: AtomicU64::new(u64::MAX),
                        orphaned: AtomicBool::new(false),
                    })
                    .collect(),
                hash: RwLock::new(HashMap::with_capacity_and_hasher(per, PageIdHash)),
                hint_key: (0..hints).map(|_| AtomicU64::new(NO_PAGE)).collect(),
                hint_frame: (0..hints).map(|_| AtomicU32::new(0)).collect(),
                hint_mask: hints - 1,
                lists: Mutex::new(Lists {
                    free: (0..per as u32).rev().collect(),
                    lru: Lru::new(per, config.old_blocks_pct),
                }),
                flush_list: Mutex::new(BTreeSet::new()),
                evictions: AtomicU64::new(0),
            })
            .collect();
        let (tx, rx) = std::sync::mpsc::channel::<(u32, u32, u32)>();
        let pool = Arc::new(BufferPool {
            instances,
            hook: RwLock::new(None),
            io: Arc::new(BatchIo::new(config.native_aio, config.io_threads)),
            read_ahead: config.read_ahead.then(|| Mutex::new(tx)),
            read_ahead_state: Mutex::new(HashMap::new()),
            batch: Mutex::new(()),
            refill_requested: AtomicBool::new(false),
            refill: (Mutex::new(false), Condvar::new()),
            spaces: RwLock::new(HashMap::new()),
            config,
            started_ms: coarse_clock_ms(),
            stats: PoolStats::default(),
        });
        if pool.config.read_ahead {
            // The read-ahead thread: ends when the pool (holding the sender) is gone.
            let weak = Arc::downgrade(&pool);
            let spawned = std::thread::Builder::new()
                .name("kiln-read-ahead".into())
                .spawn(move || {
                    while let Ok((space, first, count)) = rx.recv() {
                        let Some(pool) = weak.upgrade() else { return };
                        // Best effort: a failed read-ahead is retried by the real read.
                        let _ = pool.prefetch(space, first, count);
                    }
                });
            if let Err(e) = spawned {
                tracing::warn!("read-ahead disabled: cannot start its thread: {e}");
            }
        }
        pool
    }

    pub fn frames(&self) -> usize {
        self.instances.iter().map(|i| i.frames.len()).sum()
    }

    fn frame(&self, inst: u32, f: u32) -> &Frame {
        &self.instances[inst as usize].frames[f as usize]
    }

    fn instance_of(&self, id: PageId) -> u32 {
        // Mix the id so consecutive pages spread over instances.
        let h = id.as_u64().wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h >> 32) % self.instances.len() as u64) as u32
    }

    fn now_ms(&self) -> u64 {
        coarse_clock_ms().saturating_sub(self.started_ms)
    }

    /// The batched I/O engine (io_uring or threads), shared with the doublewrite.
    pub fn io(&self) -> &Arc<BatchIo> {
        &self.io
    }

    /// Installs the redo/doublewrite hook (once the log is open).
    pub fn set_write_hook(&self, hook: Arc<dyn WriteHook>) {
        *self.hook.write() = Some(hook);
    }

    /// Registers a tablespace's file.
    pub fn attach_space(&self, space: u32, file: Arc<dyn DataFile>) {
        self.spaces.write().insert(space, file);
    }

    /// Forgets a tablespace: its pages must be clean (after `flush_all(Some(space))`).
    pub fn detach_space(&self, space: u32) {
        self.spaces.write().remove(&space);
    }

    fn file(&self, space: u32) -> Result<Arc<dyn DataFile>, BufError> {
        self.spaces
            .read()
            .get(&space)
            .cloned()
            .ok_or(BufError::UnknownSpace(space))
    }

    /// Pins the frame holding `id`, reading it from disk on a miss (with `fresh`,
    /// a page being allocated: no read, zeroed contents).
    fn pin(self: &Arc<Self>, id: PageId, fresh: bool) -> Result<Pin, BufError> {
        self.stats.read_requests.inc();
        let inst_no = self.instance_of(id);
        let inst = &self.instances[inst_no as usize];
        let key = id.as_u64();
        loop {
            // Pin under the hash latch (an evictor unmaps under it too), then let
            // go of the hash before waiting on anything.
            let hit = {
                let h = inst.hash.read();
                h.get(&key).map(|&f| {
                    inst.frames[f as usize].pin.fetch_add(1, Ordering::Acquire);
                    f
                })
            };
            if let Some(f) = hit {
                let pin = Pin {
                    pool: self.clone(),
                    inst: inst_no,
                    frame: f,
                };
                self.touch(inst, f);
                inst.set_hint(key, f);
                // A read may still be in progress (it holds the X latch): the caller
                // latches the page and then checks `holds` — a failed read leaves the
                // frame with no page.
                return Ok(pin);
            }
            // Miss: get a frame nobody else can reach.
            let Some((f, mut w)) = self.claim(inst_no, key)? else {
                continue; // someone read it in first: use theirs
            };
            let pin = Pin {
                pool: self.clone(),
                inst: inst_no,
                frame: f,
            };
            let res = if fresh {
                w.0.fill(0);
                Ok(())
            } else {
                self.read_page(id, &mut w.0)
            };
            if let Err(e) = res {
                self.abandon(inst, f, key);
                drop(w);
                drop(pin);
                return Err(e);
            }
            self.admit(inst, f);
            drop(w);
            if !fresh {
                self.note_miss(id);
            }
            return Ok(pin);
        }
    }

    /// Takes a frame for page `key` and maps it, X-latched and pinned once: the
    /// caller fills it, then `admit`s or `abandon`s it. None: already mapped.
    fn claim(&self, inst_no: u32, key: u64) -> Result<Option<(u32, FrameWrite<'_>)>, BufError> {
        let inst = &self.instances[inst_no as usize];
        let f = self.take_free_frame(inst_no)?;
        let frame = &inst.frames[f as usize];
        let w = FrameWrite::new(frame);
        frame.id.store(key, Ordering::Release);
        frame.pin.store(1, Ordering::Release);
        let mut h = inst.hash.write();
        if h.contains_key(&key) {
            frame.id.store(NO_PAGE, Ordering::Release);
            frame.pin.store(0, Ordering::Release);
            drop(h);
            drop(w);
            inst.lists.lock().free.push(f);
            return Ok(None);
        }
        h.insert(key, f);
        Ok(Some((f, w)))
    }

    /// A claimed frame whose read failed: unmapped; waiters see no page and retry; the
    /// last unpin returns the frame to the free list.
    fn abandon(&self, inst: &Instance, f: u32, key: u64) {
        let frame = &inst.frames[f as usize];
        let mut h = inst.hash.write();
        h.remove(&key);
        frame.id.store(NO_PAGE, Ordering::Release);
        frame.orphaned.store(true, Ordering::Release);
    }

    /// A claimed frame now holding its page: onto the LRU's old sublist.
    fn admit(&self, inst: &Instance, f: u32) {
        inst.set_hint(inst.frames[f as usize].id.load(Ordering::Relaxed), f);
        inst.frames[f as usize]
            .young_stamp
            .store(u64::MAX, Ordering::Relaxed);
        inst.frames[f as usize]
            .first_access_ms
            .store(self.now_ms(), Ordering::Relaxed);
        inst.lists.lock().lru.insert_old(f);
    }

    /// Linear read-ahead: after `READ_AHEAD_RUN` misses on consecutive pages of one
    /// tablespace, the next `READ_AHEAD_PAGES` are requested from the read-ahead
    /// thread (the scan does not wait for them).
    fn note_miss(&self, id: PageId) {
        let Some(tx) = &self.read_ahead else { return };
        let mut d = self.read_ahead_state.lock();
        let e = d.entry(id.space).or_insert((u32::MAX - 1, 0, 0));
        e.1 = if id.page_no == e.0.wrapping_add(1) {
            e.1 + 1
        } else {
            1
        };
        e.0 = id.page_no;
        if e.1 >= READ_AHEAD_RUN && id.page_no >= e.2 {
            let first = id.page_no + 1;
            e.2 = first + READ_AHEAD_PAGES / 2; // ask again half-way through
            let _ = tx.lock().send((id.space, first, READ_AHEAD_PAGES));
        }
        if d.len() > 1024 {
            d.clear(); // bounded: spaces come and go
        }
    }

    /// Reads pages [first, first + count) of `space` that are not in the pool, all in
    /// one batch (io_uring or I/O threads), without waiting for a frame or a latch:
    /// pages that cannot be had at once are skipped. Returns how many were read.
    pub fn prefetch(
        self: &Arc<Self>,
        space: u32,
        first: u32,
        count: u32,
    ) -> Result<usize, BufError> {
        let pages: Vec<u32> = (first..first.saturating_add(count)).collect();
        self.prefetch_pages(space, &pages)
    }

    /// `prefetch` for any set of pages of one tablespace (recovery reads the pages it
    /// is about to replay onto this way, a batch at a time). Pages past the end of the
    /// file are skipped.
    pub fn prefetch_pages(
        self: &Arc<Self>,
        space: u32,
        page_nos: &[u32],
    ) -> Result<usize, BufError> {
        let Some(&first) = page_nos.first() else {
            return Ok(0);
        };
        let file = self.file(space)?;
        let pages_in_file = (file
            .len()
            .map_err(|e| BufError::Io(PageId::new(space, first), e))?
            / PAGE_SIZE as u64) as u32;
        let mut claimed: Vec<(PageId, u32, Pin, FrameWrite)> = Vec::new();
        for &page_no in page_nos.iter().filter(|&&p| p < pages_in_file) {
            let id = PageId::new(space, page_no);
            let inst_no = self.instance_of(id);
            let inst = &self.instances[inst_no as usize];
            if inst.hash.read().contains_key(&id.as_u64()) {
                continue;
            }
            match self.claim(inst_no, id.as_u64()) {
                Ok(Some((f, w))) => claimed.push((
                    id,
                    inst_no,
                    Pin {
                        pool: self.clone(),
                        inst: inst_no,
                        frame: f,
                    },
                    w,
                )),
                Ok(None) => {}
                Err(_) => break, // no free frame right now: read what we have
            }
        }
        if claimed.is_empty() {
            return Ok(0);
        }
        let mut ops: Vec<ReadOp<'_>> = claimed
            .iter_mut()
            .map(|(id, _, _, w)| ReadOp {
                file: &file,
                offset: id.page_no as u64 * PAGE_SIZE as u64,
                buf: &mut w.0,
            })
            .collect();
        let res = {
            let _wait = kiln_common::wait::begin(kiln_common::wait::WaitKind::DiskIo);
            self.io.read_all(&mut ops)
        };
        drop(ops);
        let mut read = 0;
        for (id, inst_no, pin, w) in claimed {
            let inst = &self.instances[inst_no as usize];
            if res.is_ok() && page::verify(&w.0, id).is_ok() {
                self.admit(inst, pin.frame);
                read += 1;
            } else {
                self.abandon(inst, pin.frame, id.as_u64());
            }
            drop(w);
            drop(pin);
        }
        self.stats.reads.add(read as u64);
        self.stats.read_ahead.add(read as u64);
        res.map(|_| read)
            .map_err(|e| BufError::Io(PageId::new(space, first), e))
    }

    /// A hit: an old page touched again after old_blocks_time becomes young.
    fn touch(&self, inst: &Instance, f: u32) {
        let frame = &inst.frames[f as usize];
        if inst.recently_young(frame) {
            return; // young, and not long ago: still near the head of the LRU
        }
        let first = frame.first_access_ms.load(Ordering::Relaxed);
        if self.now_ms().saturating_sub(first) < self.config.old_blocks_time_ms {
            return;
        }
        let mut l = inst.lists.lock();
        if l.lru.contains(f) && l.lru.is_old(f) {
            l.lru.make_young(f);
        }
        if l.lru.contains(f) && !l.lru.is_old(f) {
            frame
                .young_stamp
                .store(inst.evictions.load(Ordering::Relaxed), Ordering::Relaxed);
        }
    }

    fn read_page(&self, id: PageId, buf: &mut [u8; PAGE_SIZE]) -> Result<(), BufError> {
        let file = self.file(id.space)?;
        self.stats.reads.inc();
        {
            let _wait = kiln_common::wait::begin(kiln_common::wait::WaitKind::DiskIo);
            file.read_at(buf, id.page_no as u64 * PAGE_SIZE as u64)
                .map_err(|e| BufError::Io(id, e))?;
        }
        page::verify(buf, id).map_err(|e| BufError::Corrupt(id, e))
    }

    /// Writes the dirty frames among `frames` (instance, frame) that can be S-latched
    /// right now; returns how many were written. See the module comment.
    fn write_batch(&self, frames: &[(u32, u32)]) -> Result<usize, BufError> {
        let _one_batch = self.batch.lock();
        let mut latched = Vec::with_capacity(frames.len());
        let mut copies: Vec<Box<PageBuf>> = Vec::with_capacity(frames.len());
        let mut max_lsn = 0;
        for &(inst, f) in frames.iter().take(BATCH_PAGES) {
            let frame = self.frame(inst, f);
            let Some(g) = frame.latch.try_read_arc() else {
                continue;
            };
            let key = frame.id.load(Ordering::Acquire);
            if key == NO_PAGE || !frame.dirty.load(Ordering::Acquire) {
                continue;
            }
            let mut c = PageBuf::zeroed();
            c.0.copy_from_slice(&g.0);
            page::stamp_checksum(&mut c.0);
            max_lsn = max_lsn.max(page::page_lsn(&c.0));
            copies.push(c);
            latched.push((inst, f, PageId::from_u64(key), g));
        }
        if latched.is_empty() {
            return Ok(0);
        }
        let hook = self.hook.read().clone();
        if let Some(h) = &hook {
            let first = latched[0].2;
            h.wal_flush(max_lsn).map_err(|e| BufError::Io(first, e))?;
            let refs: Vec<&PageBuf> = copies.iter().map(|c| &**c).collect();
            h.doublewrite(&refs).map_err(|e| BufError::Io(first, e))?;
        }
        // All home writes of the batch in flight at once (io_uring or I/O threads).
        let homes: Vec<Arc<dyn DataFile>> = latched
            .iter()
            .map(|l| self.file(l.2.space))
            .collect::<Result<_, _>>()?;
        let ops: Vec<WriteOp<'_>> = latched
            .iter()
            .zip(copies.iter())
            .zip(homes.iter())
            .map(|((l, c), file)| WriteOp {
                file,
                offset: l.2.page_no as u64 * PAGE_SIZE as u64,
                buf: &c.0,
            })
            .collect();
        self.io
            .write_all(&ops)
            .map_err(|e| BufError::Io(latched[0].2, e))?;
        let mut files: Vec<(u32, Arc<dyn DataFile>)> = Vec::new();
        for (l, file) in latched.iter().zip(homes.iter()) {
            if !files.iter().any(|(s, _)| *s == l.2.space) {
                files.push((l.2.space, file.clone()));
            }
        }
        for (s, f) in &files {
            f.sync().map_err(|e| BufError::Io(PageId::new(*s, 0), e))?;
        }
        for (inst, f, _, g) in latched.iter() {
            self.mark_clean(&self.instances[*inst as usize], *f);
            let _ = g;
        }
        self.stats.pages_flushed.add(latched.len() as u64);
        Ok(latched.len())
    }

    fn mark_clean(&self, inst: &Instance, f: u32) {
        let frame = &inst.frames[f as usize];
        let lsn = frame.oldest_lsn.swap(0, Ordering::AcqRel);
        frame.dirty.store(false, Ordering::Release);
        inst.flush_list.lock().remove(&(lsn, f));
    }

    /// The page `id` for a latch-free read, if it is cached, young and not being
    /// written: no shared cache line is written. None: use `fetch_read`.
    pub fn optimistic(&self, id: PageId) -> Option<Optimistic<'_>> {
        let key = id.as_u64();
        let inst = &self.instances[self.instance_of(id) as usize];
        let slot = mix(key) as usize & inst.hint_mask;
        if inst.hint_key[slot].load(Ordering::Acquire) != key {
            return None;
        }
        let frame = inst
            .frames
            .get(inst.hint_frame[slot].load(Ordering::Acquire) as usize)?;
        let version = frame.version.read_begin()?;
        if frame.id.load(Ordering::Acquire) != key || !inst.recently_young(frame) {
            return None;
        }
        self.stats.read_requests.inc();
        Some(Optimistic { frame, version })
    }

    /// Reads a page with a shared latch.
    pub fn fetch_read(self: &Arc<Self>, id: PageId) -> Result<PageRead, BufError> {
        loop {
            let pin = self.pin(id, false)?;
            let guard = pin.frame().latch.read_arc();
            if pin.holds(id) {
                return Ok(PageRead { guard, pin });
            }
        }
    }

    /// An exclusive latch on `id` only if it can be had without waiting (also not
    /// for a read in progress).
    pub fn try_fetch_write(self: &Arc<Self>, id: PageId) -> Result<Option<PageWrite>, BufError> {
        let pin = self.pin(id, false)?;
        let Some(guard) = pin.frame().latch.try_write_arc() else {
            return Ok(None);
        };
        Ok(pin.holds(id).then(|| PageWrite::new(guard, pin)))
    }

    /// Reads a page with an exclusive latch.
    pub fn fetch_write(self: &Arc<Self>, id: PageId) -> Result<PageWrite, BufError> {
        loop {
            let pin = self.pin(id, false)?;
            let guard = pin.frame().latch.write_arc();
            if pin.holds(id) {
                return Ok(PageWrite::new(guard, pin));
            }
        }
    }

    /// A page that is being allocated: no disk read, zeroed, exclusively latched.
    pub fn fetch_new(self: &Arc<Self>, id: PageId) -> Result<PageWrite, BufError> {
        loop {
            let pin = self.pin(id, true)?;
            let guard = pin.frame().latch.write_arc();
            if pin.holds(id) {
                let mut w = PageWrite::new(guard, pin);
                w.guard.0.fill(0);
                return Ok(w);
            }
        }
    }

    /// Writes every dirty page of `space` (all spaces with `None`) and syncs the files.
    pub fn flush_all(&self, space: Option<u32>) -> Result<usize, BufError> {
        let mut written = 0;
        loop {
            let dirty: Vec<(u32, u32)> = self
                .instances
                .iter()
                .enumerate()
                .flat_map(|(i, inst)| {
                    let fl = inst.flush_list.lock();
                    fl.iter()
                        .map(|(_, f)| (i as u32, *f))
                        .filter(|(i, f)| {
                            let id = self.frame(*i, *f).id.load(Ordering::Acquire);
                            space.is_none_or(|s| id != NO_PAGE && PageId::from_u64(id).space == s)
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            if dirty.is_empty() {
                break;
            }
            let mut progress = 0;
            for chunk in dirty.chunks(BATCH_PAGES) {
                progress += self.write_batch(chunk)?;
            }
            written += progress;
            if progress == 0 {
                // Every remaining page is X-latched by someone right now.
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        let files: Vec<(u32, Arc<dyn DataFile>)> = self
            .spaces
            .read()
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        for (s, f) in files {
            if space.is_none_or(|x| x == s) {
                f.sync().map_err(|e| BufError::Io(PageId::new(s, 0), e))?;
            }
        }
        Ok(written)
    }

    /// Writes up to `max_pages` dirty pages first dirtied before `lsn`, oldest first
    /// (the page cleaner and the checkpoint). Returns how many were written.
    pub fn flush_oldest(&self, lsn: u64, max_pages: usize) -> Result<usize, BufError> {
        let per = max_pages.div_ceil(self.instances.len()).max(1);
        let mut victims: Vec<(u64, u32, u32)> = Vec::new();
        for (i, inst) in self.instances.iter().enumerate() {
            let fl = inst.flush_list.lock();
            victims.extend(
                fl.iter()
                    .take_while(|(l, _)| *l < lsn)
                    .take(per)
                    .map(|(l, f)| (*l, i as u32, *f)),
            );
        }
        victims.sort_unstable();
        victims.truncate(max_pages);
        let frames: Vec<(u32, u32)> = victims.iter().map(|v| (v.1, v.2)).collect();
        let mut written = 0;
        for chunk in frames.chunks(BATCH_PAGES) {
            written += self.write_batch(chunk)?;
        }
        Ok(written)
    }

    /// Drops every page of `space` from the pool without writing (after a simulated
    /// crash, or before deleting the tablespace). Pages must not be pinned.
    pub fn discard_space(&self, space: u32) {
        for (inst_no, inst) in self.instances.iter().enumerate() {
            let mut h = inst.hash.write();
            let victims: Vec<(u64, u32)> = h
                .iter()
                .filter(|(k, _)| PageId::from_u64(**k).space == space)
                .map(|(k, f)| (*k, *f))
                .collect();
            for (k, f) in victims {
                let frame = &inst.frames[f as usize];
                assert_eq!(
                    frame.pin.load(Ordering::Acquire),
                    0,
                    "discarding a pinned page of space {space} (instance {inst_no})"
                );
                h.remove(&k);
                if frame.dirty.load(Ordering::Acquire) {
                    self.mark_clean(inst, f);
                }
                frame.id.store(NO_PAGE, Ordering::Release);
                let mut l = inst.lists.lock();
                if l.lru.contains(f) {
                    l.lru.remove(f);
                }
                l.free.push(f);
            }
        }
    }

    /// Innodb_buffer_pool_pages_dirty.
    pub fn dirty_pages(&self) -> usize {
        self.instances
            .iter()
            .map(|i| i.flush_list.lock().len())
            .sum()
    }

    /// Smallest LSN of a dirty page (the checkpoint may not pass it), if any.
    pub fn oldest_dirty_lsn(&self) -> Option<u64> {
        self.instances
            .iter()
            .filter_map(|i| i.flush_list.lock().first().map(|(l, _)| *l))
            .min()
    }
}

#[cfg(test)]
mod tests;
