//! The storage engine as a whole: a data directory with the system tablespace
//! (`ibdata1`: doublewrite area and the directory of tablespace files), the redo log
//! (`ib_redo0`) and file-per-table tablespaces; the buffer pool; checkpoints and the
//! page cleaner; startup with crash recovery.
//!
//! Startup (`Engine::open`):
//! - no `ib_redo0`: a new data directory — create the log and `ibdata1`, checkpoint.
//! - otherwise: read the checkpoint, scan the log (`recovery::scan`), restore torn
//!   system-tablespace pages from the doublewrite area, replay the system tablespace,
//!   read the tablespace directory, (re)create files the log says were created,
//!   restore their torn pages, replay them, then open for business. Recovered pages
//!   are dirty in the pool; the page cleaner writes them like any others.
//!
//! The tablespace directory is a B+tree in `ibdata1` (index `DIRECTORY_INDEX`):
//! space id (big-endian u32) → file path relative to the data directory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};

use crate::btree::{BTree, TreeError};
use crate::buf::{BufError, BufferPool, PoolConfig};
use crate::dblwr::{self, PageWriteHook};
use crate::io::{DataFile, Vfs};
use crate::log::flusher::Flusher;
use crate::log::{self, Log, LogError};
use crate::mtr::Mtr;
use crate::recovery::{self, RecoveryError};
use crate::space::Space;

pub const SYS_FILE: &str = "ibdata1";
pub const LOG_FILE: &str = "ib_redo0";
/// The log's name while a new data directory is being created.
pub const LOG_FILE_CREATING: &str = "ib_redo0.creating";
/// Index id of the tablespace directory tree in the system tablespace.
pub const DIRECTORY_INDEX: u64 = u64::MAX - 1;
/// Space ids above this are never handed out (InnoDB reserves the top range too).
pub const SPACE_ID_MAX: u32 = 0xFFFF_FFF0;
/// Directory key (above every space id) holding the next space id to hand out, so a
/// dropped tablespace's id is never reused: redo for the old one could still be in
/// the log.
const NEXT_SPACE_ID_KEY: [u8; 4] = u32::MAX.to_be_bytes();

#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub pool: PoolConfig,
    /// Redo ring size in bytes (innodb_redo_log_capacity).
    pub log_capacity: u64,
    /// innodb_doublewrite
    pub doublewrite: bool,
    /// innodb_max_dirty_pages_pct
    pub max_dirty_pages_pct: f64,
    /// innodb_io_capacity: pages per second the page cleaner writes when idle-ish.
    pub io_capacity: usize,
    /// Run the page cleaner thread (tests drive flushing by hand without it).
    pub page_cleaner: bool,
    /// innodb_flush_log_at_trx_commit: 1 fsync at commit, 2 write at commit and fsync
    /// once a second, 0 write and fsync once a second. Changeable at run time.
    pub flush_log_at_trx_commit: u8,
    /// Where startup reports recovery progress (the server's error log).
    pub progress: Option<fn(&str)>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            pool: PoolConfig::default(),
            log_capacity: 96 << 20,
            doublewrite: true,
            max_dirty_pages_pct: 90.0,
            io_capacity: 200,
            page_cleaner: true,
            flush_log_at_trx_commit: 1,
            progress: None,
        }
    }
}

#[derive(Debug)]
pub enum StorageError {
    Buf(BufError),
    Log(LogError),
    Tree(TreeError),
    Recovery(RecoveryError),
    Io(std::io::Error),
    /// The data directory is not usable as it is (message says why).
    Invalid(String),
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StorageError::Buf(e) => write!(f, "{e}"),
            StorageError::Log(e) => write!(f, "{e}"),
            StorageError::Tree(e) => write!(f, "{e}"),
            StorageError::Recovery(e) => write!(f, "{e}"),
            StorageError::Io(e) => write!(f, "{e}"),
            StorageError::Invalid(s) => write!(f, "{s}"),
        }
    }
}

impl std::error::Error for StorageError {}

macro_rules! from_err {
    ($t:ty, $v:ident) => {
        impl From<$t> for StorageError {
            fn from(e: $t) -> Self {
                StorageError::$v(e)
            }
        }
    };
}
from_err!(BufError, Buf);
from_err!(LogError, Log);
from_err!(TreeError, Tree);
from_err!(RecoveryError, Recovery);
from_err!(std::io::Error, Io);

pub type Result<T> = std::result::Result<T, StorageError>;

/// What startup found and did (logged by the server).
#[derive(Debug, Default, Clone)]
pub struct StartupReport {
    pub created: bool,
    pub checkpoint_lsn: u64,
    pub end_lsn: u64,
    pub redo_bytes: u64,
    pub redo_groups: usize,
    pub pages_recovered: usize,
    pub records_applied: usize,
    pub doublewrite_restored: usize,
    pub files_created: usize,
    pub elapsed: Duration,
}

pub struct Engine {
    vfs: Arc<dyn Vfs>,
    dir: PathBuf,
    config: EngineConfig,
    pool: Arc<BufferPool>,
    log: Arc<Log>,
    sys: Arc<Space>,
    directory: BTree,
    spaces: RwLock<HashMap<u32, Arc<Space>>>,
    create_lock: Mutex<()>,
    checkpoint_lock: Mutex<()>,
    stop: AtomicBool,
    cleaner: Mutex<Option<JoinHandle<()>>>,
    flusher: Arc<Flusher>,
    flush_mode: AtomicU8,
    pub checkpoints: AtomicU64,
    pub startup: StartupReport,
}

fn sys_index_key(space: u32) -> [u8; 4] {
    space.to_be_bytes()
}

impl Engine {
    pub fn open(vfs: Arc<dyn Vfs>, dir: &Path, config: EngineConfig) -> Result<Arc<Engine>> {
        let t0 = Instant::now();
        vfs.create_dir_all(dir)?;
        let log_path = dir.join(LOG_FILE);
        let sys_path = dir.join(SYS_FILE);
        let pool = BufferPool::new(config.pool.clone());
        let mut report = StartupReport::default();
        let creating = dir.join(LOG_FILE_CREATING);
        let (log, sys, directory, spaces) = if !vfs.exists(&log_path) {
            if vfs.exists(&creating) {
                // A creation that never finished: the log never got its name, so
                // nothing was ever committed here. Start over.
                vfs.remove(&creating)?;
                if vfs.exists(&sys_path) {
                    vfs.remove(&sys_path)?;
                }
            } else if vfs.exists(&sys_path) {
                return Err(StorageError::Invalid(format!(
                    "{} exists but {} does not: refusing to guess",
                    sys_path.display(),
                    log_path.display()
                )));
            }
            report.created = true;
            // The log is built under a temporary name and renamed last: a data
            // directory has `ib_redo0` only once everything in it is durable.
            let log = Log::create(vfs.open_buffered(&creating, true)?, config.log_capacity)?;
            let sys_file = vfs.open(&sys_path, true)?;
            pool.set_write_hook(Arc::new(PageWriteHook {
                sys_file: sys_file.clone(),
                log: Some(log.clone()),
                enabled: config.doublewrite,
                io: pool.io().clone(),
                area: dblwr::AREA_NORMAL,
            }));
            let mut mtr = Mtr::new(&pool, &log);
            let sys = Arc::new(Space::create(&mut mtr, 0, sys_file, dblwr::SYS_FIRST_FREE)?);
            mtr.commit();
            let directory = BTree::create(&pool, &log, &sys, DIRECTORY_INDEX)?;
            pool.flush_all(None)?;
            let lsn = log.current_lsn();
            log.write_checkpoint(lsn)?;
            vfs.rename(&creating, &log_path)?;
            vfs.sync_dir(dir)?;
            (log, sys, directory, HashMap::new())
        } else {
            Self::recover(&vfs, dir, &pool, &config, &mut report)?
        };
        report.end_lsn = log.current_lsn();
        report.elapsed = t0.elapsed();
        let flusher = Flusher::spawn(log.clone())?;
        let flush_mode = config.flush_log_at_trx_commit.min(2);
        let engine = Arc::new(Engine {
            vfs,
            dir: dir.to_path_buf(),
            config,
            pool,
            log,
            sys,
            directory,
            spaces: RwLock::new(spaces),
            create_lock: Mutex::new(()),
            checkpoint_lock: Mutex::new(()),
            stop: AtomicBool::new(false),
            cleaner: Mutex::new(None),
            flusher,
            flush_mode: AtomicU8::new(flush_mode),
            checkpoints: AtomicU64::new(0),
            startup: report,
        });
        let weak: Weak<Engine> = Arc::downgrade(&engine);
        engine.log.set_checkpointer(Arc::new(move || {
            if let Some(e) = weak.upgrade() {
                let _ = e.make_log_room();
            }
        }));
        if engine.config.page_cleaner {
            let weak = Arc::downgrade(&engine);
            let h = std::thread::Builder::new()
                .name("kiln-page-cleaner".into())
                .spawn(move || page_cleaner(weak))?;
            *engine.cleaner.lock() = Some(h);
        }
        Ok(engine)
    }

    #[allow(clippy::type_complexity)]
    fn recover(
        vfs: &Arc<dyn Vfs>,
        dir: &Path,
        pool: &Arc<BufferPool>,
        config: &EngineConfig,
        report: &mut StartupReport,
    ) -> Result<(Arc<Log>, Arc<Space>, BTree, HashMap<u32, Arc<Space>>)> {
        let log_file = vfs.open_buffered(&dir.join(LOG_FILE), false)?;
        let (capacity, ckpt) = Log::open(log_file.clone())?;
        report.checkpoint_lsn = ckpt.lsn;
        let scanned = recovery::scan(log_file.clone(), capacity, ckpt)?;
        // After a kill the tail just read may sit only in the OS cache; pages replayed
        // from it may be written (evicted) during recovery, so it must be durable first.
        log_file.sync()?;
        report.redo_groups = scanned.groups.len();
        report.redo_bytes = scanned.bytes();
        if let Some(say) = config.progress
            && !scanned.groups.is_empty()
        {
            say(&format!(
                "kiln storage: starting crash recovery from checkpoint LSN {}: {:.1} MB of redo in {} mini-transactions to {}",
                ckpt.lsn,
                report.redo_bytes as f64 / (1 << 20) as f64,
                report.redo_groups,
                scanned.end_lsn
            ));
        }
        let sys_path = dir.join(SYS_FILE);
        if !vfs.exists(&sys_path) {
            return Err(StorageError::Invalid(format!(
                "{} is missing",
                sys_path.display()
            )));
        }
        let sys_file = vfs.open(&sys_path, false)?;
        // Writes during recovery (evictions) need no WAL flush: the log is durable.
        pool.set_write_hook(Arc::new(PageWriteHook {
            sys_file: sys_file.clone(),
            log: None,
            enabled: config.doublewrite,
            io: pool.io().clone(),
            area: dblwr::AREA_REPLAY_SYS,
        }));
        let copies = dblwr::copies(&*sys_file)?;
        for c in copies.iter().filter(|c| c.id.space == 0) {
            report.doublewrite_restored += dblwr::restore(c, &*sys_file, ckpt.lsn)? as usize;
        }
        pool.attach_space(0, sys_file.clone());
        let mut files: HashMap<u32, Arc<dyn DataFile>> = HashMap::from([(0, sys_file.clone())]);
        let a = recovery::apply(pool, &files, &scanned, &|s| s == 0, config.progress)?;
        report.pages_recovered += a.pages;
        report.records_applied += a.records;

        let log = Log::start_at(log_file, capacity, ckpt, scanned.end_lsn)?;
        let sys = Arc::new(Space::open(pool.clone(), 0, sys_file.clone())?);
        let directory = BTree::open(pool, &log, &sys, DIRECTORY_INDEX)?.ok_or_else(|| {
            StorageError::Invalid("the system tablespace has no tablespace directory".into())
        })?;
        let mut paths: HashMap<u32, String> = HashMap::new();
        for r in directory.range(
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            false,
        ) {
            let (k, v) = r?;
            let id = u32::from_be_bytes(
                k.as_slice()
                    .try_into()
                    .map_err(|_| StorageError::Invalid("bad tablespace directory key".into()))?,
            );
            if id <= SPACE_ID_MAX {
                paths.insert(id, String::from_utf8_lossy(&v).into_owned());
            }
        }
        let mut missing_in_directory = Vec::new();
        let mut dropped: Vec<u32> = Vec::new();
        for (space, path, created) in scanned.file_ops()? {
            let full = dir.join(&path);
            if !created {
                // Dropped: finish the drop (the file may still be there) and skip the
                // tablespace's records.
                if vfs.exists(&full) {
                    vfs.remove(&full)?;
                }
                paths.remove(&space);
                missing_in_directory.retain(|s| *s != space);
                dropped.push(space);
                continue;
            }
            dropped.retain(|s| *s != space);
            if !vfs.exists(&full) {
                if let Some(parent) = full.parent() {
                    vfs.create_dir_all(parent)?;
                }
                vfs.open(&full, true)?;
                report.files_created += 1;
            }
            if let std::collections::hash_map::Entry::Vacant(v) = paths.entry(space) {
                v.insert(path);
                missing_in_directory.push(space);
            }
        }
        for (&space, path) in &paths {
            let f = vfs.open(&dir.join(path), false)?;
            for c in copies.iter().filter(|c| c.id.space == space) {
                report.doublewrite_restored += dblwr::restore(c, &*f, ckpt.lsn)? as usize;
            }
            pool.attach_space(space, f.clone());
            files.insert(space, f);
        }
        // Every copy is restored now: the second replay may write to its own area.
        pool.set_write_hook(Arc::new(PageWriteHook {
            sys_file: sys_file.clone(),
            log: None,
            enabled: config.doublewrite,
            io: pool.io().clone(),
            area: dblwr::AREA_REPLAY,
        }));
        let a = recovery::apply(
            pool,
            &files,
            &scanned,
            &|s| s != 0 && !dropped.contains(&s),
            config.progress,
        )?;
        report.pages_recovered += a.pages;
        report.records_applied += a.records;
        pool.set_write_hook(Arc::new(PageWriteHook {
            sys_file,
            log: Some(log.clone()),
            enabled: config.doublewrite,
            io: pool.io().clone(),
            area: dblwr::AREA_NORMAL,
        }));
        // A creation the crash interrupted after its file record but before its
        // directory entry: finish it (the file exists and has been recovered).
        for space in missing_in_directory {
            let lsn = directory.insert(&sys_index_key(space), paths[&space].as_bytes())?;
            log.flush_to(lsn)?;
        }
        let mut spaces = HashMap::new();
        for &space in paths.keys() {
            spaces.insert(
                space,
                Arc::new(Space::open(pool.clone(), space, files[&space].clone())?),
            );
        }
        Ok((log, sys, directory, spaces))
    }

    pub fn pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    pub fn log(&self) -> &Arc<Log> {
        &self.log
    }

    pub fn system_space(&self) -> &Arc<Space> {
        &self.sys
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes everything up to `lsn` durable, whatever the flush mode.
    pub fn sync_to(&self, lsn: u64) -> Result<()> {
        Ok(self.log.flush_to(lsn)?)
    }

    /// A transaction commit at `lsn`, as `innodb_flush_log_at_trx_commit` says: 1
    /// returns once it is durable (group commit), 2 once it is written to the OS, 0 at
    /// once (the log flusher writes and syncs every second).
    pub fn commit(&self, lsn: u64) -> Result<()> {
        match self.flush_mode.load(Ordering::Relaxed) {
            1 => Ok(self.log.flush_to(lsn)?),
            2 => Ok(self.log.write_to(lsn)?),
            _ => Ok(()),
        }
    }

    /// The non-blocking commit: asks the log flusher to make `lsn` durable and
    /// returns at once; `is_durable` tells when it is.
    pub fn request_durable(&self, lsn: u64) {
        self.flusher.request(lsn);
    }

    pub fn is_durable(&self, lsn: u64) -> bool {
        self.log.flushed_lsn() >= lsn
    }

    pub fn set_flush_log_at_trx_commit(&self, mode: u8) {
        self.flush_mode.store(mode.min(2), Ordering::Relaxed);
    }

    /// Creates a tablespace file at `rel_path` (relative to the data directory) and
    /// returns it. Crash-safe: the creation is in the redo log before the file is used.
    pub fn create_space(&self, rel_path: &str) -> Result<Arc<Space>> {
        if rel_path.is_empty()
            || rel_path.starts_with('/')
            || rel_path.split('/').any(|c| c == "..")
            || rel_path.len() > 512
        {
            return Err(StorageError::Invalid(format!(
                "bad tablespace path '{rel_path}'"
            )));
        }
        let _one = self.create_lock.lock();
        let full = self.dir.join(rel_path);
        if self.vfs.exists(&full) {
            if self.spaces()?.iter().any(|(_, p)| p == rel_path) {
                return Err(StorageError::Invalid(format!(
                    "tablespace file '{rel_path}' already exists"
                )));
            }
            // Left by a creation whose redo never became durable: no tablespace.
            self.vfs.remove(&full)?;
        }
        // Ids are never reused: the larger of the counter (raised before each creation)
        // and the largest id in use plus one.
        let last = self
            .directory
            .range(
                std::ops::Bound::Unbounded,
                std::ops::Bound::Excluded(&NEXT_SPACE_ID_KEY[..]),
                true,
            )
            .next()
            .transpose()?;
        let after_last = match last {
            Some((k, _)) => u32::from_be_bytes(k.as_slice().try_into().expect("4-byte key")) + 1,
            None => 1,
        };
        let counter = self
            .directory
            .get(&NEXT_SPACE_ID_KEY)?
            .and_then(|v| v.try_into().ok())
            .map(u32::from_be_bytes)
            .unwrap_or(1);
        let id = after_last.max(counter);
        if id > SPACE_ID_MAX {
            return Err(StorageError::Invalid("out of tablespace ids".into()));
        }
        // The counter goes up first: even a creation that fails below never hands the
        // same id out twice.
        self.directory
            .upsert(&NEXT_SPACE_ID_KEY, &(id + 1).to_be_bytes())?;
        if let Some(parent) = full.parent() {
            self.vfs.create_dir_all(parent)?;
        }
        self.log.free_check();
        let file = self.vfs.open(&full, true)?;
        let mut mtr = Mtr::new(&self.pool, &self.log);
        let space = Arc::new(Space::create(&mut mtr, id, file, 1)?);
        mtr.log_file_create(id, rel_path);
        mtr.commit();
        let lsn = self
            .directory
            .insert(&sys_index_key(id), rel_path.as_bytes())?;
        // DDL is durable when it returns, as in MySQL.
        self.log.flush_to(lsn)?;
        self.spaces.write().insert(id, space.clone());
        Ok(space)
    }

    pub fn space(&self, id: u32) -> Option<Arc<Space>> {
        if id == 0 {
            return Some(self.sys.clone());
        }
        self.spaces.read().get(&id).cloned()
    }

    /// Every tablespace: (id, path relative to the data directory).
    pub fn spaces(&self) -> Result<Vec<(u32, String)>> {
        let mut out = Vec::new();
        for r in self.directory.range(
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            false,
        ) {
            let (k, v) = r?;
            let id = u32::from_be_bytes(k.as_slice().try_into().expect("4-byte key"));
            if id <= SPACE_ID_MAX {
                out.push((id, String::from_utf8_lossy(&v).into_owned()));
            }
        }
        Ok(out)
    }

    /// Drops tablespace `id`: its directory entry goes, a `FileDelete` record is made
    /// durable, its pages leave the pool unwritten and its file is deleted (recovery
    /// finishes a drop a crash interrupted, and skips the tablespace's redo). The
    /// caller guarantees no tree of the tablespace is in use (MDL, in the SQL layer):
    /// a page of it pinned by a running operation is a bug and panics. Its id is never
    /// handed out again.
    pub fn drop_space(&self, id: u32) -> Result<()> {
        if id == 0 {
            return Err(StorageError::Invalid(
                "the system tablespace cannot be dropped".into(),
            ));
        }
        let _one = self.create_lock.lock();
        let path = self
            .directory
            .get(&sys_index_key(id))?
            .map(|v| String::from_utf8_lossy(&v).into_owned())
            .ok_or_else(|| StorageError::Invalid(format!("no tablespace {id}")))?;
        self.directory.delete(&sys_index_key(id))?;
        self.log.free_check();
        let mut mtr = Mtr::new(&self.pool, &self.log);
        mtr.log_file_delete(id, &path);
        let lsn = mtr.commit();
        self.log.flush_to(lsn)?;
        self.spaces.write().remove(&id);
        self.pool.discard_space(id);
        self.pool.detach_space(id);
        let full = self.dir.join(&path);
        if self.vfs.exists(&full) {
            self.vfs.remove(&full)?;
        }
        Ok(())
    }

    /// Builds a new tree from `items` in strictly increasing key order, bottom-up
    /// (CREATE INDEX, large loads); durable when it returns.
    pub fn bulk_load_tree(
        &self,
        space: &Arc<Space>,
        index_id: u64,
        items: impl IntoIterator<Item = (Vec<u8>, Vec<u8>)>,
    ) -> Result<BTree> {
        if index_id == DIRECTORY_INDEX {
            return Err(StorageError::Invalid("index id reserved".into()));
        }
        Ok(crate::btree::bulk::bulk_load(
            &self.pool, &self.log, space, index_id, items,
        )?)
    }

    pub fn create_tree(&self, space: &Arc<Space>, index_id: u64) -> Result<BTree> {
        if index_id == DIRECTORY_INDEX {
            return Err(StorageError::Invalid("index id reserved".into()));
        }
        let t = BTree::create(&self.pool, &self.log, space, index_id)?;
        self.log.flush_to(self.log.current_lsn())?;
        Ok(t)
    }

    pub fn open_tree(&self, space: &Arc<Space>, index_id: u64) -> Result<Option<BTree>> {
        Ok(BTree::open(&self.pool, &self.log, space, index_id)?)
    }

    /// Writes a checkpoint at the oldest change not yet in the data files.
    pub fn checkpoint(&self) -> Result<u64> {
        let _one = self.checkpoint_lock.lock();
        // Under `order` exclusively no mini-transaction is between taking its LSN and
        // putting its pages on the flush list: below `lsn`, the flush lists are whole.
        let lsn = {
            let _w = self.log.order.write();
            self.log.current_lsn()
        };
        let c = self.pool.oldest_dirty_lsn().map_or(lsn, |o| o.min(lsn));
        self.log.write_checkpoint(c)?;
        self.checkpoints.fetch_add(1, Ordering::Relaxed);
        Ok(c)
    }

    /// The log is filling up: flush the oldest pages until the checkpoint can move
    /// to half the ring, then checkpoint. Called by `Log::free_check`, no latches held.
    fn make_log_room(&self) -> Result<()> {
        let cap = self.log.capacity();
        loop {
            let target = self.log.current_lsn().saturating_sub(cap / 4);
            match self.pool.oldest_dirty_lsn() {
                Some(o) if o < target => {
                    let n = self
                        .pool
                        .flush_oldest(target, 4 * crate::buf::BATCH_PAGES)?;
                    if n == 0 {
                        // The oldest pages are X-latched right now; let their owners go on.
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
                _ => break,
            }
        }
        self.checkpoint()?;
        Ok(())
    }

    /// Stops the page cleaner without writing anything (tests simulate a crash after
    /// this; the server uses `shutdown`).
    pub fn stop_background(&self) {
        self.stop.store(true, Ordering::Release);
        self.flusher.stop();
        if let Some(h) = self.cleaner.lock().take() {
            let _ = h.join();
        }
    }

    /// Clean shutdown: stop the page cleaner, write every dirty page, checkpoint at
    /// the end of the log, so the next start has nothing to recover.
    pub fn shutdown(&self) -> Result<()> {
        self.stop_background();
        self.pool.flush_all(None)?;
        self.checkpoint()?;
        Ok(())
    }
}

/// The page cleaner: once a second (every 100 ms when urgent), writes dirty pages oldest
/// first — more the older the log and the dirtier the pool — and checkpoints; in
/// between, refills the buffer pool's free lists from the LRU tail as soon as a miss
/// finds one low.
fn page_cleaner(engine: Weak<Engine>) {
    loop {
        let Some(e) = engine.upgrade() else { return };
        if e.stop.load(Ordering::Acquire) {
            return;
        }
        let frames = e.pool.frames().max(1);
        let dirty_pct = e.pool.dirty_pages() as f64 * 100.0 / frames as f64;
        let cap = e.log.capacity();
        let age = e.log.age();
        let io = e.config.io_capacity.max(1);
        // Adaptive: io_capacity per second normally; up to 10× as the redo ages past
        // half the ring or the pool passes innodb_max_dirty_pages_pct.
        let urgency =
            ((age as f64 / (cap as f64 / 2.0)).max(if dirty_pct > e.config.max_dirty_pages_pct {
                2.0
            } else {
                0.0
            }))
            .min(10.0);
        let pages = if urgency >= 1.0 {
            (io as f64 * urgency) as usize
        } else {
            io / 4
        };
        let limit = e.log.current_lsn();
        let res = e
            .pool
            .flush_oldest(limit, pages)
            .map_err(StorageError::from)
            .and_then(|_| e.checkpoint().map(|_| ()));
        if let Err(err) = res {
            tracing::error!("page cleaner: {err}");
        }
        let wait = if urgency >= 1.0 {
            Duration::from_millis(100)
        } else {
            Duration::from_secs(1)
        };
        drop(e);
        let until = Instant::now() + wait;
        while Instant::now() < until {
            let pool = match engine.upgrade() {
                Some(e) if !e.stop.load(Ordering::Acquire) => e.pool.clone(),
                _ => return,
            };
            // Between rounds, keep free frames ready for misses (LRU flushing): a
            // miss that finds none writes the dirty LRU tail itself and waits. The
            // wait is bounded so a stop is seen within 20 ms; only the pool is held
            // meanwhile, so the engine can be dropped.
            if pool.wait_refill_request(Duration::from_millis(20))
                && let Err(err) = pool.refill_free_lists()
            {
                tracing::error!("page cleaner: {err}");
            }
        }
    }
}

/// Redo sizes the server may configure (innodb_redo_log_capacity bounds).
pub const LOG_CAPACITY_MIN: u64 = log::CAPACITY_MIN;
