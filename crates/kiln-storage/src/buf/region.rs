//! The buffer pool's page memory: one anonymous mapping for all frames of the pool.
//!
//! A frame per heap allocation made startup cost grow with the pool: the allocator
//! writes into each block it hands out, so every 16 KiB frame was faulted in (and, with
//! transparent huge pages, cleared 2 MiB at a time) before the server answered — 12 s
//! for a 4 GiB pool on the reference machine. One `mmap` of the whole pool is zero
//! and untouched until a page is read into a frame, as InnoDB's pool is: startup no
//! longer depends on the pool size, and memory is committed as the pool fills.
//!
//! `FrameBuf` is a frame's view of its 16 KiB: a pointer into the mapping plus a
//! reference count on the mapping, so the memory outlives every latch guard that can
//! still reach it. Frames never overlap, so each `FrameBuf` is the only owner of its
//! bytes; the frame's latch (an `RwLock<FrameBuf>`) serialises access to them.

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::Arc;

use crate::page::{PAGE_SIZE, PageBuf};

/// One anonymous private mapping of `frames` pages.
pub struct Region {
    base: NonNull<PageBuf>,
    frames: usize,
}

// SAFETY: the mapping is plain memory; which thread may touch which page is decided
// by the frames' latches, not by the region.
unsafe impl Send for Region {}
// SAFETY: as above; the region itself is never written through `&Region`.
unsafe impl Sync for Region {}

impl Region {
    /// Maps `frames` zeroed pages (lazily committed), with transparent huge pages
    /// requested when `huge_pages` (`large_pages=ON`). Panics if the address space is
    /// exhausted, as a failed pool allocation did before.
    pub fn new(frames: usize, huge_pages: bool) -> Arc<Region> {
        assert!(frames > 0);
        let bytes = frames
            .checked_mul(PAGE_SIZE)
            .expect("buffer pool size overflows");
        // SAFETY: a fresh anonymous private mapping at an address the kernel chooses;
        // no existing memory is affected. The result is checked for MAP_FAILED.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            panic!(
                "cannot map a buffer pool of {bytes} bytes: {}",
                std::io::Error::last_os_error()
            );
        }
        // Transparent huge pages only on request (`large_pages=ON`, off by default as
        // in MySQL). With 2 MiB pages a random leaf lookup needs no page walk (512 TLB
        // entries cover 1 GiB), but every first touch of a 2 MiB page faults in and
        // clears all of it: on the reference VM that cost a fresh server's sysbench
        // prepare 0.5 s of CPU (0.3 s of wall time), while point selects at 2 and 8
        // threads measured the same either way (docs/buffer-pool.md, "Huge pages").
        // Advice only: an error (no THP support) leaves the mapping as it is.
        if huge_pages {
            // SAFETY: advice on the mapping just made, over its exact extent; it
            // changes no contents.
            let _ = unsafe { libc::madvise(p, bytes, libc::MADV_HUGEPAGE) };
        }
        // mmap returns page-aligned (4 KiB) memory: PageBuf's alignment.
        debug_assert_eq!(p as usize % std::mem::align_of::<PageBuf>(), 0);
        Arc::new(Region {
            base: NonNull::new(p.cast::<PageBuf>()).expect("mmap returned null"),
            frames,
        })
    }

    #[cfg(test)]
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Frame `i`'s bytes. Each index must be taken once (frames never share bytes).
    pub fn frame(self: &Arc<Region>, i: usize) -> FrameBuf {
        assert!(
            i < self.frames,
            "frame {i} outside a region of {}",
            self.frames
        );
        // SAFETY: i < frames, so the offset stays inside the mapping.
        let ptr = unsafe { self.base.add(i) };
        FrameBuf {
            ptr,
            _region: self.clone(),
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once; every FrameBuf holds an
        // Arc on the region, so no frame's bytes are reachable any more.
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.frames * PAGE_SIZE);
        }
    }
}

/// A frame's 16 KiB inside a [`Region`].
pub struct FrameBuf {
    ptr: NonNull<PageBuf>,
    _region: Arc<Region>,
}

// SAFETY: FrameBuf owns its page exclusively (distinct frame indexes); moving it to
// another thread moves that ownership, as for a Box<PageBuf>.
unsafe impl Send for FrameBuf {}
// SAFETY: shared access gives `&PageBuf` only (Deref); mutation needs `&mut FrameBuf`,
// as for a Box<PageBuf>.
unsafe impl Sync for FrameBuf {}

impl Deref for FrameBuf {
    type Target = PageBuf;
    fn deref(&self) -> &PageBuf {
        // SAFETY: the pointer is into the live mapping (the Arc keeps it), aligned,
        // and no `&mut` to these bytes exists while `&self` is borrowed.
        unsafe { self.ptr.as_ref() }
    }
}

impl DerefMut for FrameBuf {
    fn deref_mut(&mut self) -> &mut PageBuf {
        // SAFETY: as for deref; `&mut self` is the only access to this frame's bytes.
        unsafe { self.ptr.as_mut() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_zero_distinct_aligned_and_outlive_the_region_handle() {
        let r = Region::new(64, false);
        let mut a = r.frame(0);
        let mut b = r.frame(63);
        assert!(a.0.iter().all(|&x| x == 0) && b.0.iter().all(|&x| x == 0));
        a.0.fill(0xAA);
        b.0[PAGE_SIZE - 1] = 7;
        assert_eq!(r.frame(1).0[0], 0, "neighbouring frames do not overlap");
        assert_eq!(a.0.as_ptr() as usize % 4096, 0);
        drop(r); // the frames still hold the mapping
        assert_eq!(a.0[PAGE_SIZE - 1], 0xAA);
        assert_eq!(b.0[PAGE_SIZE - 1], 7);
    }

    #[test]
    fn a_large_region_is_committed_as_touched() {
        // 4 GiB of address space (MAP_NORESERVE); touching the last frame works.
        let r = Region::new(4 * 1024 * 1024 * 1024 / PAGE_SIZE, false);
        let mut f = r.frame(r.frames() - 1);
        f.0[PAGE_SIZE - 1] = 1;
        assert_eq!(f.0[PAGE_SIZE - 1], 1);
    }

    #[test]
    fn huge_page_advice_keeps_frames_zero_and_distinct() {
        let r = Region::new(1024, true);
        let mut a = r.frame(0);
        assert!(a.0.iter().all(|&x| x == 0));
        a.0.fill(0x5A);
        assert!(r.frame(1).0.iter().all(|&x| x == 0));
        assert!(r.frame(1023).0.iter().all(|&x| x == 0));
    }

    #[test]
    #[should_panic]
    fn frame_index_is_checked() {
        let r = Region::new(2, false);
        let _ = r.frame(2);
    }
}
