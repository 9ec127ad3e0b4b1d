//! The doublewrite areas: three runs of `BATCH_PAGES` pages at the start of the
//! system tablespace.
//!
//! ```text
//! pages   1..=64    AREA_NORMAL       normal operation
//! pages  65..=128   AREA_REPLAY_SYS   recovery, while replaying the system tablespace
//! pages 129..=192   AREA_REPLAY       recovery, while replaying the other tablespaces
//! ```
//!
//! Recovery never writes into an area holding copies it has not restored yet, so a
//! crash during recovery still finds them: the system-tablespace replay runs before
//! the other tablespaces' files are known (their copies in `AREA_NORMAL` and
//! `AREA_REPLAY` wait), so its writes go to `AREA_REPLAY_SYS`; every copy is restored
//! before the second replay, whose writes go to `AREA_REPLAY`.
//!
//! A 16 KiB page write is not atomic on disk: a crash can leave a page half old and
//! half new ("torn"), which its checksum detects but redo cannot repair (redo records
//! apply to a whole page as of some LSN). So every batch of page writes goes to this
//! area first, is synced, and only then goes to the pages' own places. At startup,
//! before redo, the newest valid copy of each page in either area is copied home
//! (`restore`) if the home page fails its checksum and the copy is not older than the
//! checkpoint. Only the last batch can be torn at home: batches are serialized and each
//! is synced at home before the next overwrites the area.
//!
//! Why the checkpoint rule: a copy with page LSN L ≥ checkpoint C is safe to restore
//! whatever happened to the page since — every later change to the page comes from a
//! mini-transaction that latched it after L was stamped, so it starts at or after L ≥ C
//! and redo replays it. A copy older than C may miss changes the checkpoint no longer
//! covers; such a page (bit rot, not a torn write: a page written in a batch after C
//! has L ≥ C) stays corrupt and is reported, not silently rolled back.

use std::io;
use std::sync::Arc;

use crate::buf::{BATCH_PAGES, WriteHook};
use crate::io::DataFile;
use crate::io::batch::{BatchIo, WriteOp};
use crate::log::Log;
use crate::page::{self, OFF_PAGE_NO, OFF_SPACE_ID, PAGE_SIZE, PageBuf, PageId, get_u32};

/// First page of each area in the system tablespace.
pub const AREA_NORMAL: u32 = 1;
pub const AREA_REPLAY_SYS: u32 = AREA_NORMAL + BATCH_PAGES as u32;
pub const AREA_REPLAY: u32 = AREA_REPLAY_SYS + BATCH_PAGES as u32;
/// First page the system tablespace allocates from (after the areas).
pub const SYS_FIRST_FREE: u32 = AREA_REPLAY + BATCH_PAGES as u32;

/// The write hook installed in the buffer pool: WAL rule, then doublewrite.
pub struct PageWriteHook {
    pub sys_file: Arc<dyn DataFile>,
    /// None during recovery (the log being replayed is durable already).
    pub log: Option<Arc<Log>>,
    pub enabled: bool,
    /// `AREA_NORMAL`, `AREA_REPLAY_SYS` or `AREA_REPLAY`.
    pub area: u32,
    /// The pool's batched I/O: the whole batch goes to the area in one submission.
    pub io: Arc<BatchIo>,
}

impl WriteHook for PageWriteHook {
    fn wal_flush(&self, lsn: u64) -> io::Result<()> {
        match &self.log {
            Some(l) => l.flush_to(lsn).map_err(|e| io::Error::other(e.to_string())),
            None => Ok(()),
        }
    }

    fn doublewrite(&self, pages: &[&PageBuf]) -> io::Result<()> {
        if !self.enabled {
            return Ok(());
        }
        assert!(pages.len() <= BATCH_PAGES);
        // One write per page (each `PageBuf` is aligned for O_DIRECT as it is), all
        // in flight together.
        let ops: Vec<WriteOp<'_>> = pages
            .iter()
            .enumerate()
            .map(|(i, p)| WriteOp {
                file: &self.sys_file,
                offset: (self.area as u64 + i as u64) * PAGE_SIZE as u64,
                buf: &p.0,
            })
            .collect();
        self.io.write_all(&ops)?;
        self.sys_file.sync()
    }
}

/// A valid page image found in the area, with the page it belongs to.
pub struct Copy {
    pub id: PageId,
    pub page: Box<PageBuf>,
}

/// Reads the valid copies in the area, the newest per page: a batch shorter than an
/// earlier one leaves that one's tail behind, and a stale copy must never win.
pub fn copies(sys_file: &dyn DataFile) -> io::Result<Vec<Copy>> {
    let mut out = Vec::new();
    for i in 0..3 * BATCH_PAGES as u64 {
        let mut b = PageBuf::zeroed();
        let off = (AREA_NORMAL as u64 + i) * PAGE_SIZE as u64;
        if sys_file.len()? < off + PAGE_SIZE as u64 {
            break;
        }
        sys_file.read_at(&mut b.0, off)?;
        let id = PageId::new(get_u32(&b.0, OFF_SPACE_ID), get_u32(&b.0, OFF_PAGE_NO));
        if b.0.iter().all(|x| *x == 0) || page::verify(&b.0, id).is_err() {
            continue;
        }
        match out.iter_mut().find(|c: &&mut Copy| c.id == id) {
            Some(c) if page::page_lsn(&c.page.0) >= page::page_lsn(&b.0) => {}
            Some(c) => c.page = b,
            None => out.push(Copy { id, page: b }),
        }
    }
    Ok(out)
}

/// Puts the copy home if the home page is torn or corrupt and the copy is not older
/// than `checkpoint_lsn` (see the module comment). Returns whether it did.
pub fn restore(copy: &Copy, home: &dyn DataFile, checkpoint_lsn: u64) -> io::Result<bool> {
    if page::page_lsn(&copy.page.0) < checkpoint_lsn {
        return Ok(false);
    }
    let off = copy.id.page_no as u64 * PAGE_SIZE as u64;
    if home.len()? >= off + PAGE_SIZE as u64 {
        let mut b = PageBuf::zeroed();
        home.read_at(&mut b.0, off)?;
        if page::verify(&b.0, copy.id).is_ok() {
            return Ok(false);
        }
    }
    home.write_at(&copy.page.0, off)?;
    home.sync()?;
    Ok(true)
}
