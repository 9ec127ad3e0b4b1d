//! Crash recovery: replay the redo log from the last checkpoint.
//!
//! 1. `scan`: read every group from the checkpoint LSN to the end of the log (the
//!    first group whose LSN or checksum does not match) and keep them in memory —
//!    at most the ring's capacity.
//! 2. `apply` per tablespace set: index the records by page, then take the pages in
//!    (space, page number) order; read each once (or not at all when its first record
//!    since the checkpoint formats it: the log holds everything it became since) and
//!    apply its records group by group in LSN order, each group only if the page's
//!    LSN is below the group's end LSN, stamping the page with that end LSN.
//!    Dirty pages are written back in batches when half the pool is dirty.
//!
//! The engine runs `apply` twice: first for the system tablespace (it holds the
//! directory of tablespace files), then for every other tablespace, after repairing
//! torn pages from the doublewrite area. Records are per page and carry their page
//! LSN check, so replaying one tablespace before another is equivalent to replaying
//! them interleaved.

use std::collections::HashMap;
use std::io;
use std::sync::Arc;

use crate::btree::node;
use crate::buf::{BufError, BufferPool, PageWrite};
use crate::io::DataFile;
use crate::log::record::{self, Op, Record};
use crate::log::{Checkpoint, Group, Scanner};
use crate::page::{self, PAGE_SIZE, PageId, PageType};

#[derive(Debug)]
pub enum RecoveryError {
    Io(io::Error),
    Buf(BufError),
    /// A group passed its checksum but its records do not decode or do not fit the
    /// page they are for.
    BadRecord {
        lsn: u64,
        what: &'static str,
    },
    /// A B+tree page read from disk passed its checksum but its structure is broken.
    CorruptPage {
        id: PageId,
        what: &'static str,
    },
}

impl std::fmt::Display for RecoveryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecoveryError::Io(e) => write!(f, "I/O error during recovery: {e}"),
            RecoveryError::Buf(e) => write!(f, "{e}"),
            RecoveryError::BadRecord { lsn, what } => {
                write!(f, "redo group at LSN {lsn} cannot be applied: {what}")
            }
            RecoveryError::CorruptPage { id, what } => write!(f, "page {id} is corrupt: {what}"),
        }
    }
}

impl From<BufError> for RecoveryError {
    fn from(e: BufError) -> Self {
        RecoveryError::Buf(e)
    }
}
impl From<io::Error> for RecoveryError {
    fn from(e: io::Error) -> Self {
        RecoveryError::Io(e)
    }
}

/// The log from the checkpoint on.
pub struct Scanned {
    pub groups: Vec<Group>,
    pub end_lsn: u64,
}

impl Scanned {
    pub fn bytes(&self) -> u64 {
        self.groups
            .last()
            .map_or(0, |g| g.end_lsn - self.groups[0].start_lsn)
    }

    /// The tablespace file operations in the log, in log order: (space, path, true)
    /// for a creation, (space, path, false) for a drop. Replaying them in order is
    /// what makes DROP then CREATE of the same file name come out right.
    pub fn file_ops(&self) -> Result<Vec<(u32, String, bool)>, RecoveryError> {
        let mut out = Vec::new();
        for g in &self.groups {
            for r in decode(g)? {
                match r {
                    Record::FileCreate { space, path } => out.push((space, path.to_string(), true)),
                    Record::FileDelete { space, path } => {
                        out.push((space, path.to_string(), false))
                    }
                    Record::Page(..) => {}
                }
            }
        }
        Ok(out)
    }
}

fn decode(g: &Group) -> Result<Vec<Record<'_>>, RecoveryError> {
    record::decode(&g.payload).map_err(|e| RecoveryError::BadRecord {
        lsn: g.start_lsn,
        what: e.what,
    })
}

pub fn scan(
    log_file: Arc<dyn DataFile>,
    capacity: u64,
    ckpt: Checkpoint,
) -> Result<Scanned, RecoveryError> {
    let mut s = Scanner::new(log_file, capacity, ckpt);
    let mut groups = Vec::new();
    while let Some(g) = s.next_group()? {
        groups.push(g);
    }
    Ok(Scanned {
        groups,
        end_lsn: s.lsn,
    })
}

/// Pages read per batch ahead of the replay.
const PREFETCH_BATCH: usize = 64;

/// What `apply` did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Applied {
    pub records: usize,
    pub pages: usize,
}

/// Applies the records of the spaces `which` accepts, page by page: every page is
/// read once and gets all its records in LSN order (per group: only if the page's
/// LSN is below the group's end). Pages go in (space, page number) order, so reads
/// sweep each file forward, and dirty pages are written back in batches whenever
/// half the pool is dirty. Files of those spaces must be attached to `pool`.
pub fn apply(
    pool: &Arc<BufferPool>,
    files: &HashMap<u32, Arc<dyn DataFile>>,
    scanned: &Scanned,
    which: &dyn Fn(u32) -> bool,
    progress: Option<fn(&str)>,
) -> Result<Applied, RecoveryError> {
    // Decode everything once; index (page → [(group, record)]) in log order.
    let decoded: Vec<Vec<Record<'_>>> = scanned
        .groups
        .iter()
        .map(decode)
        .collect::<Result<_, _>>()?;
    let mut by_page: HashMap<PageId, Vec<(u32, u32)>> = HashMap::new();
    for (gi, recs) in decoded.iter().enumerate() {
        for (ri, r) in recs.iter().enumerate() {
            if let Record::Page(id, _) = r
                && which(id.space)
            {
                by_page.entry(*id).or_default().push((gi as u32, ri as u32));
            }
        }
    }
    let mut pages: Vec<PageId> = by_page.keys().copied().collect();
    pages.sort_unstable_by_key(|id| (id.space, id.page_no));
    let mut out = Applied::default();
    let total = pages.len();
    let t0 = std::time::Instant::now();
    let mut last_report = t0;
    // Pages that will be read (not formatted by their first record), per tablespace, in
    // the order they are applied: each chunk is read in one batch just before it is
    // needed (io_uring or I/O threads) instead of one synchronous read per page.
    let to_read: Vec<PageId> = pages
        .iter()
        .copied()
        .filter(|id| {
            let (gi, ri) = by_page[id][0];
            !matches!(
                &decoded[gi as usize][ri as usize],
                Record::Page(_, Op::InitPage { .. } | Op::InitNode { .. })
            )
        })
        .collect();
    let mut prefetched = 0;
    for (done, id) in pages.into_iter().enumerate() {
        if prefetched < to_read.len() && to_read[prefetched] == id {
            let chunk: Vec<PageId> = to_read[prefetched..]
                .iter()
                .take(PREFETCH_BATCH)
                .take_while(|p| p.space == id.space)
                .copied()
                .collect();
            // Pages past the end of a short file (growth not synced) are skipped by the
            // batch and grown below as they come.
            let nos: Vec<u32> = chunk.iter().map(|p| p.page_no).collect();
            let _ = pool.prefetch_pages(id.space, &nos); // best effort: misses read singly
            prefetched += chunk.len();
        }

        // Progress every 10 s of a long recovery: pages done, records applied.
        if let Some(report) = progress
            && last_report.elapsed() >= std::time::Duration::from_secs(10)
        {
            last_report = std::time::Instant::now();
            report(&format!(
                "kiln storage: recovery applying redo: {done} of {total} pages ({}%), {} records, {:.0} s",
                done * 100 / total.max(1),
                out.records,
                t0.elapsed().as_secs_f64()
            ));
        }
        let recs = &by_page[&id];
        let op_of = |(gi, ri): (u32, u32)| match &decoded[gi as usize][ri as usize] {
            Record::Page(_, op) => op,
            Record::FileCreate { .. } | Record::FileDelete { .. } => {
                unreachable!("indexed page records only")
            }
        };
        // A page whose first record since the checkpoint formats it needs no read.
        let formats = matches!(op_of(recs[0]), Op::InitPage { .. } | Op::InitNode { .. });
        // The file may be shorter than the page: grown before the crash, growth not
        // synced (also for a formatted page, so the tablespace opens afterwards).
        if let Some(f) = files.get(&id.space) {
            let need = (id.page_no as u64 + 1) * PAGE_SIZE as u64;
            if f.len()? < need {
                f.set_len(need)?;
            }
        }
        let mut p: PageWrite = if formats {
            pool.fetch_new(id)?
        } else {
            pool.fetch_write(id)?
        };
        out.pages += 1;
        // A node page read from disk passed its checksum; make sure its structure is
        // sound before node ops run on it (they assume it).
        if !formats && page::page_type(&p) == Some(PageType::Index) {
            node::validate(&p).map_err(|what| RecoveryError::CorruptPage { id, what })?;
        }
        let mut i = 0;
        while i < recs.len() {
            let gi = recs[i].0;
            let g = &scanned.groups[gi as usize];
            let end = recs[i..]
                .iter()
                .position(|r| r.0 != gi)
                .map_or(recs.len(), |n| i + n);
            if page::page_lsn(&p) < g.end_lsn {
                for &r in &recs[i..end] {
                    let op = op_of(r);
                    record::check(&p, op).map_err(|what| RecoveryError::BadRecord {
                        lsn: g.start_lsn,
                        what,
                    })?;
                    record::apply(&mut p, id, op);
                    out.records += 1;
                }
                p.mark_dirty(g.start_lsn, g.end_lsn);
            }
            i = end;
        }
        drop(p);
        if pool.dirty_pages() * 2 > pool.frames() {
            pool.flush_oldest(u64::MAX, pool.frames() / 2)?;
        }
    }
    Ok(out)
}
