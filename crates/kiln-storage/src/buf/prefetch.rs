//! Cache prefetch hints for batches of point reads: the stages of `BufferPool::
//! optimistic`'s chain of dependent loads (hint slot → frame → page bytes), issued
//! one stage at a time for many pages, so the cache misses of a batch's lookups
//! overlap instead of following one another (group prefetching, Chen et al.,
//! "Improving Hash Join Performance through Prefetching", 2004).
//!
//! Everything here is a hint: it reads only what `optimistic` reads (racy atomics,
//! bounded `OptPage` loads), takes no latch, writes no shared memory, validates
//! nothing, and a wrong or stale answer only costs a wasted prefetch. The reads that
//! decide anything are still `optimistic`'s, validated by the frame's version.

use std::sync::atomic::Ordering;

use super::optimistic::OptPage;
use super::{BufferPool, mix};
use crate::page::PageId;

/// Asks the CPU to bring the cache line holding `p` closer; never faults.
#[inline(always)]
pub fn prefetch_line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE, the target feature `_mm_prefetch` needs, is part of the x86_64
        // baseline; a prefetch of any address neither faults nor changes memory.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = p;
    }
}

impl BufferPool {
    /// Stage 1: the hint slot `optimistic` will read for `id`.
    pub fn prefetch_hint(&self, id: PageId) {
        let key = id.as_u64();
        let inst = &self.instances[self.instance_of(id) as usize];
        let slot = mix(key) as usize & inst.hint_mask;
        prefetch_line(&inst.hint_key[slot]);
        prefetch_line(&inst.hint_frame[slot]);
    }

    /// Stage 2: the frame the hint names (its version, id and young stamp), if the
    /// hint names `id`. Returns whether it did.
    pub fn prefetch_frame(&self, id: PageId) -> bool {
        let Some(frame) = self.hinted_frame(id) else {
            return false;
        };
        prefetch_line(frame);
        prefetch_line(&frame.version);
        prefetch_line(&frame.young_stamp);
        true
    }

    /// Stage 3 on: a latch-free view of the bytes of the frame the hint names, for
    /// prefetching page lines (`OptPage` reads are bounded; nothing read through it may
    /// be trusted — it is not validated).
    pub fn prefetch_view(&self, id: PageId) -> Option<OptPage<'_>> {
        let frame = self.hinted_frame(id)?;
        // SAFETY: frame buffers live, unmoved, as long as the pool, which the returned
        // view borrows (see `Optimistic::page`).
        Some(unsafe { OptPage::new(frame.bytes.0) })
    }

    fn hinted_frame(&self, id: PageId) -> Option<&super::Frame> {
        let key = id.as_u64();
        let inst = &self.instances[self.instance_of(id) as usize];
        let slot = mix(key) as usize & inst.hint_mask;
        if inst.hint_key[slot].load(Ordering::Relaxed) != key {
            return None;
        }
        inst.frames
            .get(inst.hint_frame[slot].load(Ordering::Relaxed) as usize)
    }
}
