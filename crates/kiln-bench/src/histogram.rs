//! Latency histogram with log-linear buckets (the HdrHistogram layout): values are
//! nanoseconds, exact below 256 ns, and above that every power-of-two range is split
//! into 128 equal buckets, so a reported percentile is within 1/128 (0.8 %) of the
//! true value. Values from 0 to 60 s are tracked (longer ones land in the last bucket;
//! the maximum is kept exactly). One histogram per connection thread, allocated once;
//! recording is an index computation and an increment; threads' histograms are merged
//! at the end.

/// log2 of the number of buckets per power of two.
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

/// The largest value given its own bucket: 60 s in nanoseconds.
pub const MAX_TRACKED_NS: u64 = 60_000_000_000;

const BUCKETS: usize = index_of(MAX_TRACKED_NS) + 1;

/// The bucket of `v`: `v` itself below `2·SUB`; otherwise, with `e = msb(v) − SUB_BITS`,
/// `e·SUB + (v >> e)` (the top `SUB_BITS + 1` bits of `v`, offset by its exponent).
const fn index_of(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros() - SUB_BITS;
    (e as u64 * SUB + (v >> e)) as usize
}

/// The smallest and largest values of bucket `i`.
fn bucket_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < 2 * SUB {
        return (i, i);
    }
    let e = i / SUB - 1;
    let m = i % SUB + SUB;
    (m << e, ((m + 1) << e) - 1)
}

#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Box<[u64]>,
    total: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl Histogram {
    pub fn new() -> Histogram {
        Histogram {
            counts: vec![0; BUCKETS].into_boxed_slice(),
            total: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Records one value in nanoseconds.
    pub fn record(&mut self, ns: u64) {
        self.counts[index_of(ns.min(MAX_TRACKED_NS))] += 1;
        self.total += 1;
        self.sum += u128::from(ns);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Adds every value recorded in `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        self.total += other.total;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    /// The largest value recorded (0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The smallest value recorded (0 when empty).
    pub fn min(&self) -> u64 {
        if self.total == 0 { 0 } else { self.min }
    }

    pub fn mean(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum as f64 / self.total as f64
        }
    }

    /// The value at percentile `p` (0–100): the highest value of the bucket holding the
    /// `ceil(p/100 · count)`-th smallest value, never above the recorded maximum
    /// (0 when empty). `p = 100` gives the maximum.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((p / 100.0) * self.total as f64).ceil().max(1.0) as u64;
        if rank >= self.total {
            return self.max;
        }
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return bucket_range(i).1.min(self.max).max(self.min());
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_contain_their_values() {
        let mut prev_hi = None;
        for i in 0..BUCKETS {
            let (lo, hi) = bucket_range(i);
            assert!(lo <= hi);
            if let Some(p) = prev_hi {
                assert_eq!(lo, p + 1, "gap before bucket {i}");
            }
            prev_hi = Some(hi);
            assert_eq!(index_of(lo), i);
            assert_eq!(index_of(hi), i);
        }
        assert!(bucket_range(BUCKETS - 1).1 >= MAX_TRACKED_NS);
        // Relative width at most 1/SUB.
        for i in (2 * SUB as usize)..BUCKETS {
            let (lo, hi) = bucket_range(i);
            assert!(((hi - lo + 1) as f64) / (lo as f64) <= 1.0 / SUB as f64 + 1e-12);
        }
    }

    #[test]
    fn percentiles_of_known_data() {
        // 1 µs .. 10 ms in 1 µs steps.
        let mut h = Histogram::new();
        for us in 1..=10_000u64 {
            h.record(us * 1000);
        }
        assert_eq!(h.count(), 10_000);
        for (p, want_us) in [
            (50.0, 5000.0),
            (90.0, 9000.0),
            (99.0, 9900.0),
            (99.9, 9990.0),
        ] {
            let got = h.percentile(p) as f64 / 1000.0;
            assert!(
                (got - want_us).abs() <= want_us / 128.0,
                "p{p}: {got} µs, want {want_us}"
            );
        }
        assert_eq!(h.percentile(100.0), 10_000_000);
        assert_eq!(h.max(), 10_000_000);
        assert_eq!(h.min(), 1000);
        assert!((h.mean() - 5_000_500.0).abs() < 1.0);
    }

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::new();
        for _ in 0..90 {
            h.record(100);
        }
        for _ in 0..10 {
            h.record(200);
        }
        assert_eq!(h.percentile(50.0), 100);
        assert_eq!(h.percentile(90.0), 100);
        assert_eq!(h.percentile(91.0), 200);
        assert_eq!(h.percentile(99.9), 200);
    }

    #[test]
    fn merge_and_overflow() {
        let mut a = Histogram::new();
        let mut b = Histogram::new();
        a.record(1_000);
        b.record(3_000);
        b.record(2 * MAX_TRACKED_NS);
        a.merge(&b);
        assert_eq!(a.count(), 3);
        assert_eq!(a.min(), 1_000);
        assert_eq!(a.max(), 2 * MAX_TRACKED_NS);
        assert_eq!(a.percentile(100.0), 2 * MAX_TRACKED_NS);
        let p50 = a.percentile(50.0);
        assert!((3_000..=3_000 + 3_000 / 128).contains(&p50));
    }

    #[test]
    fn empty() {
        let h = Histogram::new();
        assert_eq!(h.percentile(99.0), 0);
        assert_eq!(h.min(), 0);
        assert_eq!(h.mean(), 0.0);
    }
}
