//! Status counters sharded per CPU-ish slot so that hot increments from many threads
//! never bounce one cache line: each thread adds to its own shard (chosen once per
//! thread), readers sum all shards. Reads are approximate while writers run, exact
//! once they stop — the contract MySQL's SHOW STATUS has too.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Number of shards; a power of two comfortably above the core counts kiln targets.
pub const SHARDS: usize = 64;

#[repr(align(128))]
#[derive(Default)]
struct Shard(AtomicU64);

/// A monotonically increasing (or gauge-like, with `sub`) counter.
pub struct ShardedCounter {
    shards: [Shard; SHARDS],
}

impl Default for ShardedCounter {
    fn default() -> Self {
        Self::new()
    }
}

static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static SLOT: Cell<usize> = const { Cell::new(usize::MAX) };
}

fn slot() -> usize {
    SLOT.with(|s| {
        let mut v = s.get();
        if v == usize::MAX {
            v = NEXT_SLOT.fetch_add(1, Ordering::Relaxed) % SHARDS;
            s.set(v);
        }
        v
    })
}

impl ShardedCounter {
    pub const fn new() -> ShardedCounter {
        ShardedCounter {
            shards: [const { Shard(AtomicU64::new(0)) }; SHARDS],
        }
    }

    #[inline]
    pub fn add(&self, n: u64) {
        self.shards[slot()].0.fetch_add(n, Ordering::Relaxed);
    }

    #[inline]
    pub fn inc(&self) {
        self.add(1);
    }

    /// Subtracts (for gauges such as Threads_connected); shards may go "negative"
    /// individually, the sum is what counts.
    #[inline]
    pub fn sub(&self, n: u64) {
        self.shards[slot()].0.fetch_sub(n, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.shards
            .iter()
            .fold(0u64, |acc, s| acc.wrapping_add(s.0.load(Ordering::Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn sums_across_threads() {
        let c = Arc::new(ShardedCounter::new());
        let hs: Vec<_> = (0..8)
            .map(|_| {
                let c = c.clone();
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        c.inc();
                    }
                    c.sub(5);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(c.get(), 8 * 10_000 - 40);
    }
}
