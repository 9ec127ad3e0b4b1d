//! Crash recovery: replay the redo log from the last checkpoint.
//!
//! 1. `scan`: read every group from the checkpoint LSN to the end of the log (the
//!    first group whose LSN or checksum does not match) and keep them in memory —
//!    at most the ring's capacity.
//! 2. `apply` per tablespace set: for each group in LSN order and each page it
//!    touches, apply the group's records to the page if the page's LSN is below the
//!    group's end LSN, then stamp it with the end LSN and mark it dirty. A page whose
//!    first record since the checkpoint formats it (`InitPage`/`InitNode`) is not read
//!    from disk at all: the log holds everything it became since.
//!
//! The engine runs `apply` twice: first for the system tablespace (it holds the
//! directory of tablespace files), then for every other tablespace, after repairing
//! torn pages from the doublewrite area. Records are per page and carry their page
//! LSN check, so replaying one tablespace before another is equivalent to replaying
//! them interleaved.

use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::Arc;

use crate::buf::{BufError, BufferPool, PageWrite};
use crate::io::DataFile;
use crate::log::record::{self, Op, Record};
use crate::log::{Checkpoint, Group, Scanner};
use crate::page::{self, PAGE_SIZE, PageId};

#[derive(Debug)]
pub enum RecoveryError {
    Io(io::Error),
    Buf(BufError),
    /// A group passed its checksum but its records do not decode.
    BadRecord {
        lsn: u64,
        what: &'static str,
    },
}

impl std::fmt::Display for RecoveryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecoveryError::Io(e) => write!(f, "I/O error during recovery: {e}"),
            RecoveryError::Buf(e) => write!(f, "{e}"),
            RecoveryError::BadRecord { lsn, what } => {
                write!(f, "redo group at LSN {lsn} does not decode: {what}")
            }
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

    /// Every `FileCreate` record: (space, path).
    pub fn file_creates(&self) -> Result<Vec<(u32, String)>, RecoveryError> {
        let mut out = Vec::new();
        for g in &self.groups {
            for r in decode(g)? {
                if let Record::FileCreate { space, path } = r {
                    out.push((space, path.to_string()));
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

/// What `apply` did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Applied {
    pub records: usize,
    pub pages: usize,
}

/// Applies the records of the spaces `which` accepts. Files of those spaces must be
/// attached to `pool`.
pub fn apply(
    pool: &Arc<BufferPool>,
    files: &HashMap<u32, Arc<dyn DataFile>>,
    scanned: &Scanned,
    which: &dyn Fn(u32) -> bool,
) -> Result<Applied, RecoveryError> {
    let mut seen: HashSet<PageId> = HashSet::new();
    let mut out = Applied::default();
    for g in &scanned.groups {
        let recs = decode(g)?;
        // Pages of this group, in first-touch order, with their ops.
        let mut pages: Vec<(PageId, Vec<&Op<'_>>)> = Vec::new();
        for r in &recs {
            if let Record::Page(id, op) = r
                && which(id.space)
            {
                match pages.iter_mut().find(|(p, _)| p == id) {
                    Some((_, ops)) => ops.push(op),
                    None => pages.push((*id, vec![op])),
                }
            }
        }
        for (id, ops) in pages {
            let first_touch = seen.insert(id);
            let formats = matches!(ops[0], Op::InitPage { .. } | Op::InitNode { .. });
            let mut p: PageWrite = if first_touch && formats {
                pool.fetch_new(id)?
            } else {
                if let Some(f) = files.get(&id.space) {
                    let need = (id.page_no as u64 + 1) * PAGE_SIZE as u64;
                    if f.len()? < need {
                        f.set_len(need)?; // grown before the crash, growth not synced
                    }
                }
                pool.fetch_write(id)?
            };
            if first_touch {
                out.pages += 1;
            }
            if page::page_lsn(&p) >= g.end_lsn {
                continue; // the page on disk has this group already
            }
            for op in ops {
                record::check(&p, op).map_err(|what| RecoveryError::BadRecord {
                    lsn: g.start_lsn,
                    what,
                })?;
                record::apply(&mut p, id, op);
                out.records += 1;
            }
            p.mark_dirty(g.start_lsn, g.end_lsn);
        }
    }
    Ok(out)
}
