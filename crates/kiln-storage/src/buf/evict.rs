//! Frames for new pages: the free lists, eviction from the LRU tail when a miss
//! finds none (`take_free_frame`), and the page cleaner's LRU flushing that keeps
//! free frames ready (`request_refill`, `wait_refill_request`, `refill_free_lists`).

use super::*;

/// Frames looked at from the LRU tail when a miss finds the free list empty.
const EVICT_SCAN_FRAMES: usize = 64;
/// Free frames the page cleaner keeps per instance (`refill_free_lists`), at most:
/// InnoDB's `innodb_lru_scan_depth` default.
const FREE_TARGET_MAX: usize = 1024;
/// ... and at most this share of an instance's frames (1/`FREE_TARGET_DIVISOR`), so a
/// small pool keeps most of its frames for pages.
const FREE_TARGET_DIVISOR: usize = 32;

impl BufferPool {
    /// A frame for a new page: from the free list, else by evicting the least recently
    /// used unpinned frame (writing it first if dirty). The frame comes back owned by
    /// the caller: unmapped, off every list, pinned once.
    ///
    /// Invariant: a frame has a page id exactly when the page hash maps that id to it
    /// (both change under the hash latch), and the free list holds only frames without
    /// a page and with pin 0.
    pub(super) fn take_free_frame(&self, inst_no: u32) -> Result<u32, BufError> {
        let inst = &self.instances[inst_no as usize];
        for _attempt in 0..3 {
            let candidates: Vec<u32> = {
                let mut l = inst.lists.lock();
                let popped = l.free.pop();
                if l.free.len() < Self::free_target(inst.frames.len()) / 2 {
                    self.request_refill();
                }
                if let Some(f) = popped {
                    let frame = &inst.frames[f as usize];
                    debug_assert_eq!(frame.id.load(Ordering::Acquire), NO_PAGE);
                    frame.pin.store(1, Ordering::Release);
                    return Ok(f);
                }
                l.lru.iter_from_tail().take(EVICT_SCAN_FRAMES).collect()
            };
            self.stats.wait_free.inc();
            // When the victim (the unpinned frame nearest the tail) is dirty, write every
            // dirty unpinned candidate in one batch (one doublewrite, one sync per file)
            // before claiming: writing only the victim cost a miss two fsyncs per page
            // whenever the LRU tail was dirty (a pool smaller than the data under
            // writes), and the next misses found the rest of the tail still dirty.
            let unpinned = |f: &u32| inst.frames[*f as usize].pin.load(Ordering::Acquire) == 0;
            let is_dirty = |f: &u32| inst.frames[*f as usize].dirty.load(Ordering::Acquire);
            if candidates
                .iter()
                .find(|f| unpinned(f))
                .is_some_and(is_dirty)
            {
                let dirty: Vec<(u32, u32)> = candidates
                    .iter()
                    .filter(|f| unpinned(f) && is_dirty(f))
                    .map(|&f| (inst_no, f))
                    .collect();
                self.write_batch(&dirty)?;
            }
            for f in candidates {
                let frame = &inst.frames[f as usize];
                if frame.pin.load(Ordering::Acquire) != 0 {
                    continue;
                }
                // Clean it first if dirty (without holding the pool's locks).
                if frame.dirty.load(Ordering::Acquire) {
                    self.write_batch(&[(inst_no, f)])?;
                }
                if self.evict_clean(inst, f) {
                    return Ok(f);
                }
            }
        }
        Err(BufError::Full)
    }

    /// Unmaps clean, unpinned frame `f` and takes it off the LRU, leaving it pinned
    /// once for the caller. False if it is pinned, dirty or no longer mapped.
    fn evict_clean(&self, inst: &Instance, f: u32) -> bool {
        let frame = &inst.frames[f as usize];
        // Claim it under the hash latch: pin 0 → 1 (no one else holds it) and still
        // mapped (a frame in transit or on the free list has no page).
        let mut h = inst.hash.write();
        if frame
            .pin
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return false;
        }
        let key = frame.id.load(Ordering::Acquire);
        if key == NO_PAGE || frame.dirty.load(Ordering::Acquire) || h.get(&key) != Some(&f) {
            frame.pin.store(0, Ordering::Release);
            return false;
        }
        h.remove(&key);
        frame.id.store(NO_PAGE, Ordering::Release);
        frame.young_stamp.store(u64::MAX, Ordering::Relaxed);
        inst.evictions.fetch_add(1, Ordering::Relaxed);
        drop(h);
        let mut l = inst.lists.lock();
        if l.lru.contains(f) {
            l.lru.remove(f);
        }
        true
    }

    /// Free frames the page cleaner keeps in an instance of `frames` frames.
    pub(super) fn free_target(frames: usize) -> usize {
        (frames / FREE_TARGET_DIVISOR).min(FREE_TARGET_MAX)
    }

    /// Wakes the page cleaner to refill the free lists (once until it has looked).
    fn request_refill(&self) {
        if self.refill_requested.swap(true, Ordering::AcqRel) {
            return;
        }
        let (m, cv) = &self.refill;
        *m.lock() = true;
        cv.notify_one();
    }

    /// The page cleaner's wait: true as soon as a miss found a free list below half
    /// its target, false after `timeout` without one.
    pub fn wait_refill_request(&self, timeout: std::time::Duration) -> bool {
        let (m, cv) = &self.refill;
        let mut requested = m.lock();
        if !*requested {
            cv.wait_for(&mut requested, timeout);
        }
        let was = std::mem::take(&mut *requested);
        self.refill_requested.store(false, Ordering::Release);
        was
    }

    /// Background LRU flushing (InnoDB's page cleaner does the same): in each instance
    /// whose free list is short of its target, writes the dirty unpinned frames among
    /// the LRU tail's `target` (in doublewrite batches) and moves clean unpinned ones
    /// from the tail to the free list until it holds `target`. A miss then takes a
    /// free frame instead of writing a dirty victim itself and waiting for the fsync.
    /// Returns the frames freed.
    pub fn refill_free_lists(&self) -> Result<usize, BufError> {
        let mut freed = 0;
        for (inst_no, inst) in self.instances.iter().enumerate() {
            let target = Self::free_target(inst.frames.len());
            let candidates: Vec<u32> = {
                let l = inst.lists.lock();
                if l.free.len() >= target {
                    continue;
                }
                l.lru.iter_from_tail().take(target).collect()
            };
            let unpinned = |f: &u32| inst.frames[*f as usize].pin.load(Ordering::Acquire) == 0;
            let dirty: Vec<(u32, u32)> = candidates
                .iter()
                .filter(|f| unpinned(f) && inst.frames[**f as usize].dirty.load(Ordering::Acquire))
                .map(|&f| (inst_no as u32, f))
                .collect();
            for chunk in dirty.chunks(BATCH_PAGES) {
                self.write_batch(chunk)?;
            }
            for f in candidates {
                if inst.lists.lock().free.len() >= target {
                    break;
                }
                if unpinned(&f) && self.evict_clean(inst, f) {
                    let frame = &inst.frames[f as usize];
                    frame.pin.store(0, Ordering::Release);
                    inst.lists.lock().free.push(f);
                    freed += 1;
                }
            }
        }
        self.stats.lru_freed.add(freed as u64);
        Ok(freed)
    }
}
