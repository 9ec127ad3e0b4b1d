//! Overflow pages: values too long to sit in a leaf record.
//!
//! A long value is a forward chain of `Overflow` pages; the leaf record keeps
//! `first_page u32 | total_len u64`.
//!
//! ```text
//! offset size  field
//!      0   32  common page header, type Overflow; `next` links the chain
//!     32    4  data_len    bytes of the value on this page
//!     36       data
//! ```
//!
//! Chains are written before the record that points to them is inserted, and freed
//! after the record is gone, each in mini-transactions of at most `PAGES_PER_MTR`
//! pages (a 1 GiB value must not become one redo group). A crash between the two
//! leaks the chain's pages — never a dangling reference. Readers follow a chain while
//! holding the S latch of the leaf that points to it; a writer removes the record
//! under that leaf's X latch before freeing, so a reader never sees a freed page.

use std::sync::Arc;

use crate::buf::{BufError, BufferPool};
use crate::log::Log;
use crate::log::record::Op;
use crate::mtr::Mtr;
use crate::page::{self, FIL_NULL, HEADER_SIZE, OFF_NEXT, PAGE_SIZE, PageId, PageType, get_u32};
use crate::space::Space;

const OFF_DATA_LEN: usize = HEADER_SIZE;
const OFF_DATA: usize = HEADER_SIZE + 4;
/// Value bytes per overflow page.
pub const DATA_PER_PAGE: usize = PAGE_SIZE - OFF_DATA;
const PAGES_PER_MTR: usize = 8; // 128 KiB of redo: well under GROUP_MAX
/// Longest value kiln stores (LONGBLOB's 4 GiB is capped by max_allowed_packet's
/// 1 GiB anyway).
pub const VALUE_MAX: u64 = 1 << 30;

/// Writes `value` to a new chain; returns its first page.
pub fn write(
    pool: &Arc<BufferPool>,
    log: &Arc<Log>,
    space: &Space,
    value: &[u8],
) -> Result<u32, BufError> {
    assert!(!value.is_empty() && value.len() as u64 <= VALUE_MAX);
    let mut first = FIL_NULL;
    let mut prev: Option<PageId> = None;
    for batch in value.chunks(DATA_PER_PAGE * PAGES_PER_MTR) {
        log.free_check();
        let mut mtr = Mtr::new(pool, log);
        if let Some(p) = prev {
            mtr.x_latch(p)?; // before the header: tree-order pages first
        }
        space.reserve(&mut mtr, batch.len().div_ceil(DATA_PER_PAGE) as u32)?;
        for chunk in batch.chunks(DATA_PER_PAGE) {
            let s = space.allocate(&mut mtr)?;
            let id = mtr.id(s);
            mtr.apply(
                s,
                Op::InitPage {
                    ty: PageType::Overflow,
                },
            );
            mtr.write_u32(s, OFF_DATA_LEN, chunk.len() as u32);
            mtr.apply(
                s,
                Op::Write {
                    off: OFF_DATA as u16,
                    bytes: chunk,
                },
            );
            match prev {
                None => first = id.page_no,
                Some(p) => {
                    let ps = mtr.x_latch(p)?;
                    mtr.write_u32(ps, OFF_NEXT, id.page_no);
                }
            }
            prev = Some(id);
        }
        mtr.commit();
    }
    Ok(first)
}

/// Reads a chain of `total_len` bytes. The caller holds the pointing leaf's latch.
pub fn read(
    pool: &Arc<BufferPool>,
    space: u32,
    first: u32,
    total_len: u64,
) -> Result<Vec<u8>, BufError> {
    let corrupt = |id: PageId| BufError::Corrupt(id, page::PageError::WrongPage { found: id });
    if total_len > VALUE_MAX {
        return Err(corrupt(PageId::new(space, first)));
    }
    let mut out = Vec::with_capacity(total_len as usize);
    let mut next = first;
    while (out.len() as u64) < total_len {
        let id = PageId::new(space, next);
        if next == FIL_NULL {
            return Err(corrupt(id));
        }
        let p = pool.fetch_read(id)?;
        let len = get_u32(&p, OFF_DATA_LEN) as usize;
        if page::page_type(&p) != Some(PageType::Overflow)
            || len > DATA_PER_PAGE
            || out.len() + len > total_len as usize
        {
            return Err(corrupt(id));
        }
        out.extend_from_slice(&p[OFF_DATA..OFF_DATA + len]);
        next = get_u32(&p, OFF_NEXT);
    }
    Ok(out)
}

/// Frees a chain no record points to any more.
pub fn free(
    pool: &Arc<BufferPool>,
    log: &Arc<Log>,
    space: &Space,
    first: u32,
) -> Result<(), BufError> {
    let mut next = first;
    while next != FIL_NULL {
        log.free_check();
        let mut mtr = Mtr::new(pool, log);
        // Latch the batch and the header first, change after: nothing can fail
        // between the first change and the commit.
        let mut batch = Vec::with_capacity(PAGES_PER_MTR);
        while batch.len() < PAGES_PER_MTR && next != FIL_NULL {
            let s = mtr.x_latch(PageId::new(space.id, next))?;
            if page::page_type(mtr.page(s)) != Some(PageType::Overflow) {
                let id = mtr.id(s);
                return Err(BufError::Corrupt(
                    id,
                    page::PageError::WrongPage { found: id },
                ));
            }
            next = get_u32(mtr.page(s), OFF_NEXT);
            batch.push(s);
        }
        space.reserve(&mut mtr, 0)?;
        for s in batch {
            space.free(&mut mtr, s)?;
        }
        mtr.commit();
    }
    Ok(())
}
