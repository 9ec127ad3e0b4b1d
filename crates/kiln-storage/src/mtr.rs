//! Mini-transactions: the unit of atomic page change.
//!
//! A mini-transaction X-latches the pages it changes, changes them only through
//! `apply` (which also encodes the redo record), and at `commit` appends all its
//! records to the redo log as one group, stamps every changed page with the group's
//! end LSN, puts them on the flush list with the start LSN, and only then releases
//! the latches. Recovery replays a group completely or not at all, so a B+tree split
//! touching five pages is never half-done after a crash.
//!
//! Latch rules (see `docs/btree.md`): pages are latched top-down in a tree and
//! left-to-right along a level; a page that was latched but not changed may be
//! released early (`release`), a changed one only at commit. `commit` never waits
//! for the log to reach disk: durability is the transaction's business
//! (`Log::flush_to`), done after the latches are gone.

use std::sync::Arc;

use crate::buf::{BufError, BufferPool, PageWrite};
use crate::log::Log;
use crate::log::record::{self, Op};
use crate::page::PageId;

/// Handle of a page latched by a mini-transaction.
pub type Slot = usize;

struct Held {
    page: PageWrite,
    modified: bool,
}

pub struct Mtr {
    pool: Arc<BufferPool>,
    log: Arc<Log>,
    held: Vec<Option<Held>>,
    rec: Vec<u8>,
    /// Set by `commit`: the group's end LSN (0 if nothing was logged).
    end_lsn: u64,
}

/// Redo bytes reserved when a mini-transaction starts: a row insert with its undo
/// record fits, where growing from empty reallocated the buffer four or five times.
const REC_BYTES_INITIAL: usize = 512;

impl Mtr {
    pub fn new(pool: &Arc<BufferPool>, log: &Arc<Log>) -> Mtr {
        Mtr {
            pool: pool.clone(),
            log: log.clone(),
            held: Vec::with_capacity(8),
            rec: Vec::with_capacity(REC_BYTES_INITIAL),
            end_lsn: 0,
        }
    }

    pub fn pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    fn push(&mut self, page: PageWrite) -> Slot {
        self.held.push(Some(Held {
            page,
            modified: false,
        }));
        self.held.len() - 1
    }

    /// The slot of `id` if this mini-transaction holds it.
    pub fn find(&self, id: PageId) -> Option<Slot> {
        self.held
            .iter()
            .position(|h| h.as_ref().is_some_and(|h| h.page.id() == id))
    }

    /// X-latches `id` (or returns the slot already holding it).
    pub fn x_latch(&mut self, id: PageId) -> Result<Slot, BufError> {
        if let Some(s) = self.find(id) {
            return Ok(s);
        }
        let p = self.pool.fetch_write(id)?;
        Ok(self.push(p))
    }

    /// X-latches `id` only if no one holds it (for latching against the usual order).
    pub fn try_x_latch(&mut self, id: PageId) -> Result<Option<Slot>, BufError> {
        if let Some(s) = self.find(id) {
            return Ok(Some(s));
        }
        Ok(self.pool.try_fetch_write(id)?.map(|p| self.push(p)))
    }

    /// A page being allocated: latched without reading it (its old contents are dead).
    /// If this mini-transaction already holds it (reserved), that slot is returned.
    pub fn x_latch_new(&mut self, id: PageId) -> Result<Slot, BufError> {
        if let Some(s) = self.find(id) {
            return Ok(s);
        }
        let p = self.pool.fetch_new(id)?;
        Ok(self.push(p))
    }

    fn held(&self, s: Slot) -> &Held {
        self.held[s].as_ref().expect("slot was released")
    }

    pub fn page(&self, s: Slot) -> &[u8] {
        &self.held(s).page
    }

    pub fn id(&self, s: Slot) -> PageId {
        self.held(s).page.id()
    }

    /// Applies `op` to the page and logs it.
    pub fn apply(&mut self, s: Slot, op: Op<'_>) {
        let h = self.held[s].as_mut().expect("slot was released");
        let id = h.page.id();
        record::apply(&mut h.page, id, &op);
        record::encode(&mut self.rec, id, &op);
        h.modified = true;
    }

    /// Logs the creation of a tablespace file (applied by the caller).
    pub fn log_file_create(&mut self, space: u32, path: &str) {
        record::encode_file_create(&mut self.rec, space, path);
    }

    /// Logs that a tablespace is dropped (the file is deleted by the caller after the
    /// record is durable; recovery finishes the job if it was not).
    pub fn log_file_delete(&mut self, space: u32, path: &str) {
        record::encode_file_delete(&mut self.rec, space, path);
    }

    pub fn write_u32(&mut self, s: Slot, off: usize, v: u32) {
        self.apply(
            s,
            Op::Write {
                off: off as u16,
                bytes: &v.to_le_bytes(),
            },
        );
    }

    pub fn write_u64(&mut self, s: Slot, off: usize, v: u64) {
        self.apply(
            s,
            Op::Write {
                off: off as u16,
                bytes: &v.to_le_bytes(),
            },
        );
    }

    /// Releases a page this mini-transaction latched but did not change.
    pub fn release(&mut self, s: Slot) {
        let h = self.held[s].take().expect("slot released twice");
        assert!(
            !h.modified,
            "releasing changed page {} before commit",
            h.page.id()
        );
    }

    /// Whether anything was logged so far.
    pub fn is_empty(&self) -> bool {
        self.rec.is_empty()
    }

    /// Bytes of redo logged so far (callers split big work before `GROUP_MAX`).
    pub fn log_len(&self) -> usize {
        self.rec.len()
    }

    /// Logs the group, marks the changed pages dirty and releases every latch.
    /// Returns the end LSN (what a transaction waits for to be durable), or the
    /// current LSN if nothing was changed.
    pub fn commit(mut self) -> u64 {
        self.commit_inner()
    }

    fn commit_inner(&mut self) -> u64 {
        if self.rec.is_empty() {
            self.held.clear();
            return self.log.current_lsn();
        }
        let order = self.log.order.read();
        let (start, end) = self.log.append(&self.rec);
        for h in self.held.iter_mut().flatten() {
            if h.modified {
                h.page.mark_dirty(start, end);
            }
        }
        drop(order);
        self.held.clear();
        self.rec.clear();
        self.end_lsn = end;
        end
    }
}

impl Drop for Mtr {
    fn drop(&mut self) {
        // Changes that were neither committed nor can be undone in memory: the pages
        // may be half-way through a split. Every fallible step (latching, reading,
        // reserving pages) comes before the first change, so this is a bug; stopping
        // beats writing a broken tree to disk.
        if !self.rec.is_empty() && !std::thread::panicking() {
            panic!(
                "mini-transaction dropped with {} bytes of uncommitted changes",
                self.rec.len()
            );
        }
    }
}
