//! Tablespaces: a file of pages, page allocation and the registry of B+tree roots.
//!
//! Page 0 of every tablespace is its header:
//!
//! ```text
//! offset size  field
//!      0   32  common page header, type SpaceHeader
//!     32    4  page_count   pages handed out so far (the high-water mark)
//!     36    4  free_head    first page of the free list, or FIL_NULL
//!     40    4  free_count   pages on the free list
//!     44    4  n_roots      entries in the root registry
//!     48  12×n roots        index_id u64 | root page u32, unsorted
//! ```
//!
//! Free pages are chained through the `next` field of their page header. The file
//! grows an extent (`EXTENT_PAGES` pages, 1 MiB) at a time, so a B+tree's pages stay
//! near each other; freed pages are reused before the file grows.

use std::sync::Arc;

use crate::buf::{BufError, BufferPool};
use crate::io::DataFile;
use crate::log::record::Op;
use crate::mtr::{Mtr, Slot};
use crate::page::{
    self, FIL_NULL, HEADER_SIZE, OFF_NEXT, PAGE_SIZE, PageId, PageType, get_u32, get_u64,
};

pub const EXTENT_PAGES: u32 = 64;
const OFF_PAGE_COUNT: usize = HEADER_SIZE;
const OFF_FREE_HEAD: usize = HEADER_SIZE + 4;
const OFF_FREE_COUNT: usize = HEADER_SIZE + 8;
const OFF_N_ROOTS: usize = HEADER_SIZE + 12;
const OFF_ROOTS: usize = HEADER_SIZE + 16;
const ROOT_ENTRY: usize = 12;
/// Trees one tablespace can register.
pub const ROOTS_MAX: usize = (PAGE_SIZE - OFF_ROOTS) / ROOT_ENTRY;

/// An open tablespace.
pub struct Space {
    pub id: u32,
    pool: Arc<BufferPool>,
    file: Arc<dyn DataFile>,
}

impl Space {
    /// Formats a new, empty file as tablespace `id` with `first_free` pages reserved
    /// (page 0 is the header; the system tablespace reserves more). The caller logs
    /// the file's creation in the same `mtr` once this succeeded (nothing is changed
    /// before the last step that can fail).
    pub fn create(
        mtr: &mut Mtr,
        id: u32,
        file: Arc<dyn DataFile>,
        first_free: u32,
    ) -> Result<Space, BufError> {
        let hdr_id = PageId::new(id, 0);
        let len =
            (first_free.div_ceil(EXTENT_PAGES).max(1) * EXTENT_PAGES) as u64 * PAGE_SIZE as u64;
        file.set_len(len).map_err(|e| BufError::Io(hdr_id, e))?;
        let pool = mtr.pool().clone();
        pool.attach_space(id, file.clone());
        let s = Space { id, pool, file };
        let h = mtr.x_latch_new(hdr_id)?;
        mtr.apply(
            h,
            Op::InitPage {
                ty: PageType::SpaceHeader,
            },
        );
        mtr.write_u32(h, OFF_PAGE_COUNT, first_free.max(1));
        mtr.write_u32(h, OFF_FREE_HEAD, FIL_NULL);
        Ok(s)
    }

    /// Opens an existing tablespace file; a truncated or foreign file is an error.
    /// (After a crash, recovery has already brought page 0 up to date.)
    pub fn open(
        pool: Arc<BufferPool>,
        id: u32,
        file: Arc<dyn DataFile>,
    ) -> Result<Space, BufError> {
        let hdr_id = PageId::new(id, 0);
        let len = file.len().map_err(|e| BufError::Io(hdr_id, e))?;
        if len < PAGE_SIZE as u64 {
            return Err(BufError::Io(
                hdr_id,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("tablespace file is {len} bytes: truncated or not a tablespace"),
                ),
            ));
        }
        if !len.is_multiple_of(PAGE_SIZE as u64) {
            // A crash while the file grew: the partial page was never handed out.
            let whole = len.next_multiple_of(PAGE_SIZE as u64);
            file.set_len(whole).map_err(|e| BufError::Io(hdr_id, e))?;
        }
        pool.attach_space(id, file.clone());
        let s = Space { id, pool, file };
        let h = s.pool.fetch_read(hdr_id)?;
        if page::page_type(&h) != Some(PageType::SpaceHeader) {
            return Err(BufError::Corrupt(
                hdr_id,
                page::PageError::WrongPage { found: h.id() },
            ));
        }
        // Pages handed out before a crash may lie past the end of a file whose growth
        // was not synced: make them readable (as never-written pages).
        let need = get_u32(&h, OFF_PAGE_COUNT) as u64 * PAGE_SIZE as u64;
        drop(h);
        if len < need {
            s.file.set_len(need).map_err(|e| BufError::Io(hdr_id, e))?;
        }
        Ok(s)
    }

    pub fn pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    pub fn file(&self) -> &Arc<dyn DataFile> {
        &self.file
    }

    /// Allocates a page and returns its slot in `mtr`, X-latched, with unspecified
    /// contents (the caller formats it). The header page stays latched in `mtr` until
    /// commit, which serializes allocations in one tablespace. Everything that can
    /// fail (I/O, file growth, a frame) happens in `reserve`, before the first change.
    pub fn allocate(&self, mtr: &mut Mtr) -> Result<Slot, BufError> {
        self.reserve(mtr, 1)?;
        let h = mtr
            .find(PageId::new(self.id, 0))
            .expect("reserve latched the header");
        let head = get_u32(mtr.page(h), OFF_FREE_HEAD);
        if head != FIL_NULL {
            let p = mtr
                .find(PageId::new(self.id, head))
                .expect("reserve latched the free-list head");
            if page::page_type(mtr.page(p)) != Some(PageType::Free) {
                panic!(
                    "free list of tablespace {} holds page {head}, which is in use",
                    self.id
                );
            }
            let next = get_u32(mtr.page(p), OFF_NEXT);
            mtr.write_u32(h, OFF_FREE_HEAD, next);
            let c = get_u32(mtr.page(h), OFF_FREE_COUNT);
            mtr.write_u32(h, OFF_FREE_COUNT, c - 1);
            return Ok(p);
        }
        let n = get_u32(mtr.page(h), OFF_PAGE_COUNT);
        let p = mtr
            .find(PageId::new(self.id, n))
            .expect("reserve latched the next new page");
        mtr.write_u32(h, OFF_PAGE_COUNT, n + 1);
        Ok(p)
    }

    /// Latches the header in `mtr` and everything the next `n` allocations will take:
    /// the first pages of the free list, then new pages past the high-water mark (the
    /// file grows now if needed, and their frames are taken now). A split calls this
    /// before it changes anything, so a read error, a full disk or a full buffer pool
    /// fails the operation cleanly instead of half-way through.
    pub fn reserve(&self, mtr: &mut Mtr, n: u32) -> Result<(), BufError> {
        let h = mtr.x_latch(PageId::new(self.id, 0))?;
        let mut next = get_u32(mtr.page(h), OFF_FREE_HEAD);
        let mut got = 0;
        while got < n && next != FIL_NULL {
            let p = mtr.x_latch(PageId::new(self.id, next))?;
            next = get_u32(mtr.page(p), OFF_NEXT);
            got += 1;
        }
        if got == n {
            return Ok(());
        }
        let count = get_u32(mtr.page(h), OFF_PAGE_COUNT);
        let new_pages = n - got;
        if count as u64 + new_pages as u64 >= (FIL_NULL - EXTENT_PAGES) as u64 {
            let id = PageId::new(self.id, count);
            return Err(BufError::Io(
                id,
                std::io::Error::other(format!("tablespace {} is full (2^32 pages)", self.id)),
            ));
        }
        let need_bytes = (count + new_pages) as u64 * PAGE_SIZE as u64;
        let have = self
            .file
            .len()
            .map_err(|e| BufError::Io(PageId::new(self.id, 0), e))?;
        if need_bytes > have {
            let extents = (count + new_pages).div_ceil(EXTENT_PAGES) as u64;
            let len = extents * EXTENT_PAGES as u64 * PAGE_SIZE as u64;
            self.file
                .set_len(len)
                .map_err(|e| BufError::Io(PageId::new(self.id, count), e))?;
        }
        for i in 0..new_pages {
            mtr.x_latch_new(PageId::new(self.id, count + i))?;
        }
        Ok(())
    }

    /// Returns the page in `slot` (X-latched by `mtr`, no longer referenced by anyone)
    /// to the free list.
    pub fn free(&self, mtr: &mut Mtr, slot: Slot) -> Result<(), BufError> {
        let id = mtr.id(slot);
        assert!(
            id.space == self.id && id.page_no != 0,
            "freeing page {id} in space {}",
            self.id
        );
        let h = mtr.x_latch(PageId::new(self.id, 0))?;
        mtr.apply(slot, Op::InitPage { ty: PageType::Free });
        let head = get_u32(mtr.page(h), OFF_FREE_HEAD);
        mtr.write_u32(slot, OFF_NEXT, head);
        mtr.write_u32(h, OFF_FREE_HEAD, id.page_no);
        let c = get_u32(mtr.page(h), OFF_FREE_COUNT);
        mtr.write_u32(h, OFF_FREE_COUNT, c + 1);
        Ok(())
    }

    /// (pages handed out, pages on the free list).
    pub fn usage(&self) -> Result<(u32, u32), BufError> {
        let h = self.pool.fetch_read(PageId::new(self.id, 0))?;
        Ok((get_u32(&h, OFF_PAGE_COUNT), get_u32(&h, OFF_FREE_COUNT)))
    }

    /// The root page registered for `index_id`.
    pub fn root_of(&self, index_id: u64) -> Result<Option<u32>, BufError> {
        let h = self.pool.fetch_read(PageId::new(self.id, 0))?;
        let n = get_u32(&h, OFF_N_ROOTS) as usize;
        Ok((0..n)
            .map(|i| OFF_ROOTS + i * ROOT_ENTRY)
            .find(|off| get_u64(&h, *off) == index_id)
            .map(|off| get_u32(&h, off + 8)))
    }

    /// Whether a new tree `index_id` can be registered: not registered already and
    /// room in the registry. Latches the header in `mtr` (call before any change).
    pub fn can_register(&self, mtr: &mut Mtr, index_id: u64) -> Result<bool, BufError> {
        let h = mtr.x_latch(PageId::new(self.id, 0))?;
        let p = mtr.page(h);
        let n = get_u32(p, OFF_N_ROOTS) as usize;
        Ok(n < ROOTS_MAX && (0..n).all(|i| get_u64(p, OFF_ROOTS + i * ROOT_ENTRY) != index_id))
    }

    /// Registers the root page of a new tree.
    pub fn register_root(&self, mtr: &mut Mtr, index_id: u64, root: u32) -> Result<(), BufError> {
        let h = mtr.x_latch(PageId::new(self.id, 0))?;
        let n = get_u32(mtr.page(h), OFF_N_ROOTS) as usize;
        assert!(
            n < ROOTS_MAX,
            "tablespace {} holds {ROOTS_MAX} trees already",
            self.id
        );
        let off = OFF_ROOTS + n * ROOT_ENTRY;
        mtr.write_u64(h, off, index_id);
        mtr.write_u32(h, off + 8, root);
        mtr.write_u32(h, OFF_N_ROOTS, n as u32 + 1);
        Ok(())
    }

    /// Writes every dirty page of this tablespace and syncs its file.
    pub fn flush(&self) -> Result<(), BufError> {
        self.pool.flush_all(Some(self.id)).map(|_| ())
    }
}
