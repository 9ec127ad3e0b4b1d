//! Schedule exploration (shuttle) of the page version protocol that optimistic
//! readers rely on (`buf/optimistic.rs`). Run with
//! `cargo test -p kiln-storage --features shuttle --test latch_shuttle`.
//!
//! The model frame has the real `PageVersion`, a page id, and four "page bytes" kept
//! in atomics so that shuttle can interleave the threads between any two of them
//! (real pages are plain bytes; the protocol is the same). Writers change all four
//! bytes under the X latch; an evictor unmaps the frame without a latch and then
//! refills it with another page, as the buffer pool does. A reader that validates
//! must have seen four equal bytes of the page whose id it checked.
#![cfg(feature = "shuttle")]

use kiln_storage::buf::optimistic::PageVersion;
use shuttle::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use shuttle::sync::{Arc, Mutex};
use shuttle::thread;

const PAGE_A: u64 = 7;
const PAGE_B: u64 = 9;
const NO_PAGE: u64 = u64::MAX;

struct Frame {
    latch: Mutex<()>,
    version: PageVersion,
    id: AtomicU64,
    bytes: [AtomicU8; 4],
}

impl Frame {
    fn new() -> Frame {
        Frame {
            latch: Mutex::new(()),
            version: PageVersion::new(),
            id: AtomicU64::new(PAGE_A),
            bytes: std::array::from_fn(|_| AtomicU8::new(1)),
        }
    }

    fn write_all(&self, v: u8, bump: bool) {
        let _x = self.latch.lock().unwrap();
        if bump {
            self.version.write_begin();
        }
        for b in &self.bytes {
            b.store(v, Ordering::Relaxed);
        }
        if bump {
            self.version.write_end();
        }
    }

    /// Eviction then a miss that fills the frame with `id` (bytes `v`).
    fn evict_and_refill(&self, id: u64, v: u8) {
        self.id.store(NO_PAGE, Ordering::Release); // unmapped, bytes untouched
        thread::yield_now();
        let _x = self.latch.lock().unwrap();
        self.version.write_begin();
        self.id.store(id, Ordering::Release);
        for b in &self.bytes {
            b.store(v, Ordering::Relaxed);
        }
        self.version.write_end();
    }

    /// The optimistic read of page A: its four bytes if they validated.
    fn read_a(&self) -> Option<[u8; 4]> {
        let v = self.version.read_begin()?;
        if self.id.load(Ordering::Acquire) != PAGE_A {
            return None;
        }
        let seen = std::array::from_fn(|i| self.bytes[i].load(Ordering::Relaxed));
        self.version.validate(v).then_some(seen)
    }
}

/// Page A's bytes are always < 100, page B's ≥ 100: a validated read of A must see
/// four equal bytes below 100.
fn scenario(bump: bool) {
    let f = Arc::new(Frame::new());
    let w = {
        let f = f.clone();
        thread::spawn(move || {
            f.write_all(2, bump);
            f.write_all(3, bump);
        })
    };
    let e = {
        let f = f.clone();
        thread::spawn(move || {
            f.evict_and_refill(PAGE_B, 100);
            f.evict_and_refill(PAGE_A, 4);
        })
    };
    for _ in 0..3 {
        if let Some(seen) = f.read_a() {
            assert!(
                seen.iter().all(|&b| b == seen[0]) && seen[0] < 100,
                "a validated optimistic read saw a torn or foreign page: {seen:?}"
            );
        }
    }
    w.join().unwrap();
    e.join().unwrap();
}

#[test]
fn validated_reads_never_see_torn_or_replaced_pages() {
    shuttle::check_random(|| scenario(true), 20_000);
}

#[test]
fn pct_schedules() {
    // Probabilistic concurrency testing: good odds for bugs needing up to 3 preemptions.
    shuttle::check_pct(|| scenario(true), 20_000, 3);
}

/// The check is not vacuous: writers that skip the version bumps are caught.
#[test]
#[should_panic(expected = "torn or foreign page")]
fn writers_without_version_bumps_are_caught() {
    shuttle::check_random(|| scenario(false), 20_000);
}
