//! Buffer pool unit tests: write-back, eviction and reading back through the file,
//! pinned frames and a full pool, corrupt and unreadable pages, concurrent access.

use super::*;
use crate::io::Vfs;
use crate::io::mem::{Faults, MemVfs};
use crate::page::PageType;
use std::path::Path;

fn pool(frames: usize) -> (Arc<BufferPool>, MemVfs) {
    let p = BufferPool::new(PoolConfig {
        size_bytes: frames * PAGE_SIZE,
        instances: 2,
        old_blocks_pct: 37,
        old_blocks_time_ms: 0,
        ..PoolConfig::default()
    });
    let vfs = MemVfs::new();
    let f = vfs.open(Path::new("/s1"), true).unwrap();
    p.attach_space(1, f);
    (p, vfs)
}

/// Creates pages 0..n of space 1, each dirty with its number in byte 100.
fn write_new_pages(p: &Arc<BufferPool>, n: u32) {
    write_new_page_range(p, 0..n);
}

fn write_new_page_range(p: &Arc<BufferPool>, pages: std::ops::Range<u32>) {
    for i in pages {
        let id = PageId::new(1, i);
        let mut w = p.fetch_new(id).unwrap();
        page::init_header(&mut w, id, PageType::Index);
        w[100] = i as u8;
        w.mark_dirty(1, 2);
    }
}

#[test]
fn write_evict_and_read_back_through_disk() {
    let (p, _vfs) = pool(32);
    let n = 200u32;
    write_new_pages(&p, n);
    for i in (0..n).rev() {
        let r = p.fetch_read(PageId::new(1, i)).unwrap();
        assert_eq!(r[100], i as u8);
        assert_eq!(r.id(), PageId::new(1, i));
    }
    assert!(p.stats.reads.get() > 0, "evicted pages were read back");
    assert!(p.stats.pages_flushed.get() >= (n as u64) - 32);
}

#[test]
fn pinned_pages_are_never_evicted_and_full_pool_errors() {
    let (p, _vfs) = pool(32);
    let mut held = Vec::new();
    let mut full = false;
    for i in 0..=p.frames() as u32 {
        match p.fetch_new(PageId::new(1, i)) {
            Ok(mut w) => {
                w[200] = i as u8;
                held.push(w);
            }
            Err(BufError::Full) => {
                full = true;
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(full, "an instance runs out of unpinned frames");
    for (i, w) in held.iter().enumerate() {
        assert_eq!(w[200], i as u8, "pinned pages keep their contents");
    }
    let next = held.len() as u32;
    drop(held);
    p.fetch_new(PageId::new(1, next)).unwrap();
}

#[test]
fn corrupt_and_unreadable_pages_are_not_served() {
    let (p, vfs) = pool(32);
    let id = PageId::new(1, 3);
    {
        let mut w = p.fetch_new(id).unwrap();
        page::init_header(&mut w, id, PageType::Index);
        w.mark_dirty(1, 2);
    }
    p.flush_all(None).unwrap();
    p.discard_space(1);
    vfs.corrupt(Path::new("/s1"), 3 * PAGE_SIZE + 200, &[0xff]);
    match p.fetch_read(id) {
        Err(BufError::Corrupt(pid, _)) => assert_eq!(pid, id),
        other => panic!("expected corruption, got {:?}", other.err()),
    }
    // Still refused on a second try (nothing cached).
    assert!(matches!(p.fetch_read(id), Err(BufError::Corrupt(..))));
    vfs.set_faults(Faults {
        fail_reads: true,
        ..Faults::default()
    });
    assert!(matches!(
        p.fetch_read(PageId::new(1, 0)),
        Err(BufError::Io(..))
    ));
}

#[test]
fn concurrent_readers_and_writers() {
    let (p, _vfs) = pool(64);
    for i in 0..100u32 {
        let mut w = p.fetch_new(PageId::new(1, i)).unwrap();
        page::init_header(&mut w, PageId::new(1, i), PageType::Index);
        w.mark_dirty(1, 2);
    }
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let p = p.clone();
            s.spawn(move || {
                for k in 0..2000u32 {
                    let id = PageId::new(1, (k * 7 + t) % 100);
                    if k % 5 == 0 {
                        let mut w = p.fetch_write(id).unwrap();
                        let c = page::get_u32(&w, 64);
                        page::put_u32(&mut w, 64, c + 1);
                        w.mark_dirty(2, 3);
                    } else {
                        let r = p.fetch_read(id).unwrap();
                        assert_eq!(r.id(), id);
                    }
                }
            });
        }
    });
    let total: u32 = (0..100u32)
        .map(|i| page::get_u32(&p.fetch_read(PageId::new(1, i)).unwrap(), 64))
        .sum();
    assert_eq!(total, 4 * 400);
}

/// Counts write batches (each one doublewrite write and sync, then a sync per file).
#[derive(Default)]
struct CountBatches {
    batches: std::sync::atomic::AtomicUsize,
    pages: std::sync::atomic::AtomicUsize,
}

impl WriteHook for CountBatches {
    fn wal_flush(&self, _lsn: u64) -> io::Result<()> {
        Ok(())
    }
    fn doublewrite(&self, pages: &[&PageBuf]) -> io::Result<()> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.pages.fetch_add(pages.len(), Ordering::Relaxed);
        Ok(())
    }
}

#[test]
fn misses_in_a_dirty_pool_write_the_lru_tail_in_batches() {
    let (p, _vfs) = pool(256);
    let hook = Arc::new(CountBatches::default());
    p.set_write_hook(hook.clone());
    // Fill the pool with dirty pages, then touch as many new pages again: every
    // claim finds only dirty frames at the LRU tail.
    let n = 2 * p.frames() as u32;
    write_new_pages(&p, n);
    let evicted = n as usize - p.frames();
    let batches = hook.batches.load(Ordering::Relaxed);
    let pages = hook.pages.load(Ordering::Relaxed);
    assert!(
        pages >= evicted,
        "every evicted dirty page was written ({pages} < {evicted})"
    );
    // One batch per victim was the old behaviour (`evicted` batches); the tail is
    // now written up to 64 frames at a time.
    assert!(
        batches * 16 <= evicted,
        "{batches} write batches ({pages} pages) for {evicted} evictions of dirty pages"
    );
    for i in 0..n {
        let r = p.fetch_read(PageId::new(1, i)).unwrap();
        assert_eq!(r[100], i as u8, "page {i} read back");
    }
}

#[test]
fn coarse_clock_advances_with_real_time() {
    let a = super::coarse_clock_ms();
    std::thread::sleep(std::time::Duration::from_millis(30));
    let b = super::coarse_clock_ms();
    // The coarse clock ticks every 1-4 ms (CONFIG_HZ): 30 ms show as at least 20.
    assert!(
        b >= a + 20,
        "coarse clock went from {a} to {b} ms over 30 ms"
    );
    assert!(b < a + 10_000, "coarse clock jumped from {a} to {b} ms");
}

/// The page cleaner's LRU flushing: a miss that leaves a free list low asks for a
/// refill; the refill writes the dirty LRU tail and frees clean frames up to the
/// target; the freed pages read back from disk with their latest contents, and
/// pinned pages are never taken.
#[test]
fn refill_frees_the_lru_tail_and_keeps_contents() {
    // 2 instances of 256 frames (a target of 8 free frames each). Pages stay old
    // when touched again (a long old_blocks_time), so the tail stays where it is.
    let p = BufferPool::new(PoolConfig {
        size_bytes: 512 * PAGE_SIZE,
        instances: 2,
        old_blocks_pct: 37,
        old_blocks_time_ms: 3_600_000,
        ..PoolConfig::default()
    });
    let vfs = MemVfs::new();
    p.attach_space(1, vfs.open(Path::new("/s1"), true).unwrap());
    let target = BufferPool::free_target(256);
    assert_eq!(target, 8);
    // The first fetches take free frames while plenty are left: no request.
    write_new_pages(&p, 100);
    assert!(!p.wait_refill_request(std::time::Duration::ZERO));
    // Fill the pool past its size: the free lists run out.
    write_new_page_range(&p, 100..600);
    assert!(p.wait_refill_request(std::time::Duration::ZERO));
    // Dirty every instance's LRU tail again (the misses' batches had cleaned it).
    let tails: Vec<u64> = p
        .instances
        .iter()
        .flat_map(|inst| {
            let l = inst.lists.lock();
            l.lru
                .iter_from_tail()
                .take(target)
                .map(|f| inst.frames[f as usize].id.load(Ordering::Acquire))
                .collect::<Vec<_>>()
        })
        .collect();
    for key in &tails {
        let mut w = p.fetch_write(PageId::from_u64(*key)).unwrap();
        w[101] = 0xab;
        w.mark_dirty(3, 4);
    }
    let held = p.fetch_read(PageId::new(1, 599)).unwrap();
    let flushed = p.stats.pages_flushed.get();
    let freed = p.refill_free_lists().unwrap();
    assert!(freed >= 2 * target - 2, "freed {freed}");
    assert!(
        p.stats.pages_flushed.get() >= flushed + tails.len() as u64,
        "the dirty tail was written"
    );
    for inst in p.instances.iter() {
        assert!(inst.lists.lock().free.len() >= target);
    }
    assert_eq!(held[100], (599 % 256) as u8, "a pinned page stays");
    drop(held);
    // A second refill with full free lists does nothing.
    assert_eq!(p.refill_free_lists().unwrap(), 0);
    for i in 0..600u32 {
        let id = PageId::new(1, i);
        let r = p.fetch_read(id).unwrap();
        assert_eq!(r[100], i as u8, "page {i}");
        let redirtied = tails.contains(&id.as_u64());
        assert_eq!(r[101] == 0xab, redirtied, "page {i}");
    }
}
