//! Latch-free page reads validated by a version (a seqlock per frame), so readers of
//! hot pages — the root and upper levels of every B+tree — write no shared cache line.
//!
//! Protocol (Boehm, "Can seqlocks get along with programming language memory
//! models?", 2012):
//!
//! ```text
//! writer (holds the frame's X latch)      reader (holds nothing)
//!   v += 1            (odd: writing)        v1 = load(Acquire); odd → give up
//!   fence(Release)                          check the frame's page id
//!   ... change the page bytes ...           read the bytes it needs (volatile)
//!   v += 1  (Release) (even: stable)        fence(Acquire); v2 = load(Relaxed)
//!                                           use what it read only if v1 == v2
//! ```
//!
//! Invariants the buffer pool keeps for this to hold:
//! - Page bytes change only under the frame's X latch, and every X latch is bracketed
//!   by `write_begin`/`write_end` (`PageWrite` and the miss path's `FrameWrite` do it),
//!   so a reader overlapping any change sees a different or odd version.
//! - A frame's page id changes either under its X latch (claim, abandon) or, when the
//!   frame is unmapped (eviction, discard), without touching its bytes: a reader that
//!   validated saw the bytes of the page it checked the id of.
//! - Frame buffers are allocated once and never freed or moved while the pool lives,
//!   so a reader's pointer always points at 16 KiB of the pool's own memory.
//!
//! A reader may see a torn page between its reads and its validation; everything it
//! computes from the bytes must therefore be bounds-checked and loop-bounded (`OptPage`
//! returns zeroes out of bounds and never panics), and the result thrown away unless
//! the version validates.

#[cfg(feature = "shuttle")]
use shuttle::sync::atomic::{AtomicU64, Ordering, fence};
#[cfg(not(feature = "shuttle"))]
use std::sync::atomic::{AtomicU64, Ordering, fence};

use std::cmp::Ordering as Cmp;

use crate::page::PAGE_SIZE;

/// A frame's version: even while stable, odd while an X latch holder may be writing.
pub struct PageVersion(AtomicU64);

impl Default for PageVersion {
    fn default() -> Self {
        Self::new()
    }
}

impl PageVersion {
    pub fn new() -> Self {
        PageVersion(AtomicU64::new(0))
    }

    /// Called with the X latch just acquired, before any change.
    pub fn write_begin(&self) {
        let v = self.0.fetch_add(1, Ordering::Relaxed);
        debug_assert!(v & 1 == 0, "nested write_begin on one frame");
        fence(Ordering::Release);
    }

    /// Called before the X latch is released, after the last change.
    pub fn write_end(&self) {
        let v = self.0.fetch_add(1, Ordering::Release);
        debug_assert!(v & 1 == 1, "write_end without write_begin");
    }

    /// Starts an optimistic read: the version to validate against, or None while a
    /// writer holds the frame.
    pub fn read_begin(&self) -> Option<u64> {
        let v = self.0.load(Ordering::Acquire);
        (v & 1 == 0).then_some(v)
    }

    /// Whether nothing changed the frame since `read_begin` returned `v`.
    pub fn validate(&self, v: u64) -> bool {
        fence(Ordering::Acquire);
        self.0.load(Ordering::Relaxed) == v
    }
}

/// Read access to a frame's bytes without a latch. Every accessor is bounds-checked
/// (out of range reads give zeroes) and reads through volatile loads, so the compiler
/// neither caches nor invents reads of memory another thread may be writing.
#[derive(Clone, Copy)]
pub struct OptPage<'a> {
    base: *const u8,
    _frame: std::marker::PhantomData<&'a [u8; PAGE_SIZE]>,
}

impl<'a> OptPage<'a> {
    /// # Safety
    /// `base` must point at `PAGE_SIZE` bytes that stay allocated for `'a`.
    pub(crate) unsafe fn new(base: *const u8) -> OptPage<'a> {
        OptPage {
            base,
            _frame: std::marker::PhantomData,
        }
    }

    /// A view of a page buffer the caller holds (tests, fuzzing): the same bounded
    /// reads, over bytes that are not being written.
    pub fn of(page: &'a crate::page::PageBuf) -> OptPage<'a> {
        // SAFETY: the reference keeps the PAGE_SIZE bytes alive for 'a.
        unsafe { OptPage::new(page.0.as_ptr()) }
    }

    fn chunk<const N: usize>(&self, off: usize) -> [u8; N] {
        if off.checked_add(N).is_none_or(|end| end > PAGE_SIZE) {
            return [0; N];
        }
        // SAFETY: off + N ≤ PAGE_SIZE, so the read stays inside the frame's buffer,
        // which lives as long as 'a (see `new`); [u8; N] has alignment 1. The bytes may
        // be concurrently written (a racy read, as in every seqlock); the volatile load
        // keeps the compiler from assuming otherwise, and callers discard what they
        // read unless the frame's version validates afterwards.
        unsafe { std::ptr::read_volatile(self.base.add(off) as *const [u8; N]) }
    }

    pub fn u8(&self, off: usize) -> u8 {
        self.chunk::<1>(off)[0]
    }
    pub fn u16(&self, off: usize) -> u16 {
        u16::from_le_bytes(self.chunk(off))
    }
    pub fn u32(&self, off: usize) -> u32 {
        u32::from_le_bytes(self.chunk(off))
    }
    pub fn u64(&self, off: usize) -> u64 {
        u64::from_le_bytes(self.chunk(off))
    }

    /// Whether [off, off + len) lies inside the page.
    pub fn in_bounds(off: usize, len: usize) -> bool {
        off.checked_add(len).is_some_and(|end| end <= PAGE_SIZE)
    }

    /// Compares the bytes [off, off + len) with `other` (Less if out of bounds).
    pub fn cmp_bytes(&self, off: usize, len: usize, other: &[u8]) -> Cmp {
        if !Self::in_bounds(off, len) {
            return Cmp::Less;
        }
        let common = len.min(other.len());
        let mut i = 0;
        while i + 8 <= common {
            let c: [u8; 8] = self.chunk(off + i);
            match c.as_slice().cmp(&other[i..i + 8]) {
                Cmp::Equal => i += 8,
                ne => return ne,
            }
        }
        while i < common {
            match self.u8(off + i).cmp(&other[i]) {
                Cmp::Equal => i += 1,
                ne => return ne,
            }
        }
        len.cmp(&other.len())
    }

    /// Asks the CPU to cache the lines of [off, off + len), clamped to the page (a
    /// hint: nothing is read).
    pub fn prefetch(&self, off: usize, len: usize) {
        let end = off.saturating_add(len).min(PAGE_SIZE);
        let mut at = off.min(PAGE_SIZE) & !63;
        while at < end {
            super::prefetch::prefetch_line(self.base.wrapping_add(at));
            at += 64;
        }
    }

    /// Appends the bytes [off, off + len) to `out` (nothing if out of bounds).
    pub fn copy_to(&self, off: usize, len: usize, out: &mut Vec<u8>) {
        if !Self::in_bounds(off, len) {
            return;
        }
        out.reserve(len);
        let mut i = 0;
        // Wide volatile loads first: a row of a few hundred bytes is a handful of them.
        while i + 32 <= len {
            out.extend_from_slice(&self.chunk::<32>(off + i));
            i += 32;
        }
        while i + 8 <= len {
            out.extend_from_slice(&self.chunk::<8>(off + i));
            i += 8;
        }
        while i < len {
            out.push(self.u8(off + i));
            i += 1;
        }
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;
    use crate::page::PageBuf;

    #[test]
    fn reads_are_bounded_and_little_endian() {
        let mut b = PageBuf::zeroed();
        b.0[10..18].copy_from_slice(&0x0102_0304_0506_0708u64.to_le_bytes());
        b.0[PAGE_SIZE - 3..].copy_from_slice(b"xyz");
        // SAFETY: `b` outlives `p`.
        let p = unsafe { OptPage::new(b.0.as_ptr()) };
        assert_eq!(p.u64(10), 0x0102_0304_0506_0708);
        assert_eq!(p.u32(10), 0x0506_0708);
        assert_eq!(p.u16(10), 0x0708);
        assert_eq!(p.u64(PAGE_SIZE - 4), 0, "straddles the end: zeroes");
        assert_eq!(p.u16(usize::MAX), 0, "overflowing offsets do not wrap");
        assert_eq!(p.cmp_bytes(PAGE_SIZE - 3, 3, b"xyz"), Cmp::Equal);
        assert_eq!(p.cmp_bytes(PAGE_SIZE - 3, 3, b"xy"), Cmp::Greater);
        assert_eq!(p.cmp_bytes(PAGE_SIZE - 3, 3, b"xz"), Cmp::Less);
        assert_eq!(p.cmp_bytes(PAGE_SIZE - 3, 4, b"xyz"), Cmp::Less);
        let mut out = Vec::new();
        p.copy_to(8, 12, &mut out);
        assert_eq!(out, &b.0[8..20]);
        p.copy_to(PAGE_SIZE - 2, 3, &mut out);
        assert_eq!(out.len(), 12, "out of bounds copies nothing");
        let long: Vec<u8> = (0..100u8).collect();
        b.0[1000..1100].copy_from_slice(&long);
        assert_eq!(p.cmp_bytes(1000, 100, &long), Cmp::Equal);
        let mut bigger = long.clone();
        bigger[97] += 1;
        assert_eq!(p.cmp_bytes(1000, 100, &bigger), Cmp::Less);
        // Copies through the wide, the 8-byte and the 1-byte loads.
        for len in [0, 7, 8, 31, 32, 33, 71, 100] {
            let mut out = Vec::new();
            p.copy_to(1000, len, &mut out);
            assert_eq!(out, &long[..len]);
        }
    }

    #[test]
    fn versions_validate_only_across_no_write() {
        let v = PageVersion::new();
        let r = v.read_begin().unwrap();
        assert!(v.validate(r));
        v.write_begin();
        assert!(v.read_begin().is_none(), "a writer is active");
        assert!(!v.validate(r));
        v.write_end();
        let r2 = v.read_begin().unwrap();
        assert_ne!(r, r2);
        assert!(!v.validate(r));
        assert!(v.validate(r2));
    }
}
