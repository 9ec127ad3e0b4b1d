//! A deterministic pseudo-random generator (xorshift64*) for the crash-test driver,
//! the benchmarks and the tests: reproducible streams from a seed, no dependency.
//! Not for anything that needs unpredictability.

pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}
