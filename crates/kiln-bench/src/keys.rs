//! Which key a request touches: the key space `1..=N` under a uniform distribution or a
//! zipfian one (theta 0.99 by default), the latter by the closed-form generator of Gray,
//! Sundaresan, Englert, Baclawski and Weinberger ("Quickly generating billion-record
//! synthetic databases", SIGMOD 1994), as YCSB and sysbench use it. Key 1 is the
//! hottest key; keys are not scrambled, so hot keys are adjacent.

use crate::rng::Rng;

/// The skew used by `--dist zipfian`.
pub const DEFAULT_THETA: f64 = 0.99;

/// Precomputed constants of a zipfian distribution over `1..=n`. Computing `zeta(n)`
/// costs O(n) once; sampling is O(1).
#[derive(Clone, Debug)]
pub struct Zipfian {
    n: u64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    /// `1 + 0.5^theta`: below it (times zeta(n)) the sample is key 2.
    two_cut: f64,
}

impl Zipfian {
    /// The distribution over `1..=n` (`n` ≥ 1) with skew `theta` in `(0, 1)`.
    pub fn new(n: u64, theta: f64) -> Zipfian {
        assert!(n >= 1, "zipfian key space must not be empty");
        assert!(
            theta > 0.0 && theta < 1.0,
            "zipfian theta must be in (0, 1)"
        );
        let zetan = zeta(n, theta);
        let zeta2 = zeta(2.min(n), theta);
        let eta = if n > 2 {
            (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan)
        } else {
            0.0 // unused: with n ≤ 2 every sample falls below `two_cut`
        };
        Zipfian {
            n,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta,
            two_cut: 1.0 + 0.5f64.powf(theta),
        }
    }

    /// One key in `1..=n`.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        if self.n == 1 {
            return 1;
        }
        let u = rng.next_f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 1;
        }
        if uz < self.two_cut {
            return 2;
        }
        let k = 1 + (self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        k.clamp(1, self.n)
    }
}

/// `zeta(n, theta) = sum over i in 1..=n of 1 / i^theta`.
fn zeta(n: u64, theta: f64) -> f64 {
    (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum()
}

/// The shape of the key choice.
#[derive(Clone, Debug)]
pub enum Distribution {
    Uniform,
    Zipfian(Zipfian),
}

/// Draws keys from `1..=n` under a distribution, with its own random stream.
#[derive(Clone, Debug)]
pub struct KeyGen {
    n: u64,
    dist: Distribution,
    rng: Rng,
}

impl KeyGen {
    pub fn new(n: u64, dist: Distribution, rng: Rng) -> KeyGen {
        assert!(n >= 1, "key space must not be empty");
        KeyGen { n, dist, rng }
    }

    pub fn next_key(&mut self) -> u64 {
        match &self.dist {
            Distribution::Uniform => 1 + self.rng.below(self.n),
            Distribution::Zipfian(z) => z.sample(&mut self.rng),
        }
    }

    /// The random stream, for decisions that go with the key (read or write).
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(dist: Distribution, n: u64, samples: usize) -> Vec<u64> {
        let mut g = KeyGen::new(n, dist, Rng::new(42, 0));
        let mut counts = vec![0u64; n as usize + 1];
        for _ in 0..samples {
            let k = g.next_key();
            assert!((1..=n).contains(&k), "key {k} outside 1..={n}");
            counts[k as usize] += 1;
        }
        counts
    }

    #[test]
    fn zipfian_keys_in_range_and_key_one_hottest() {
        let n = 1000;
        let counts = histogram(
            Distribution::Zipfian(Zipfian::new(n, DEFAULT_THETA)),
            n,
            200_000,
        );
        assert_eq!(counts[0], 0);
        let hottest = (1..=n as usize).max_by_key(|&k| counts[k]).unwrap();
        assert_eq!(hottest, 1);
        // Strictly decreasing popularity at the head, a long tail that is still hit.
        assert!(counts[1] > counts[2] && counts[2] > counts[3] && counts[3] > counts[10]);
        assert!(counts[10] > counts[100] && counts[100] > counts[900]);
        let tail: u64 = counts[501..].iter().sum();
        assert!(tail > 0);
    }

    #[test]
    fn zipfian_head_frequency_matches_theory() {
        // P(1) = 1/zeta(n); P(2) = 2^-theta / zeta(n).
        let n = 1000;
        let samples = 400_000;
        let z = Zipfian::new(n, DEFAULT_THETA);
        let zetan = zeta(n, DEFAULT_THETA);
        let counts = histogram(Distribution::Zipfian(z), n, samples);
        let p1 = counts[1] as f64 / samples as f64;
        let p2 = counts[2] as f64 / samples as f64;
        let want1 = 1.0 / zetan;
        let want2 = 0.5f64.powf(DEFAULT_THETA) / zetan;
        assert!((p1 - want1).abs() < 0.05 * want1, "p1 {p1} vs {want1}");
        assert!((p2 - want2).abs() < 0.05 * want2, "p2 {p2} vs {want2}");
    }

    #[test]
    fn zipfian_tiny_key_spaces() {
        for n in 1..=3 {
            let counts = histogram(
                Distribution::Zipfian(Zipfian::new(n, DEFAULT_THETA)),
                n,
                10_000,
            );
            assert!(counts[1] > 0);
            assert!(counts[1..].iter().all(|&c| c > 0 || n == 1));
        }
    }

    #[test]
    fn uniform_covers_the_space_evenly() {
        let n = 100;
        let counts = histogram(Distribution::Uniform, n, 100_000);
        for &c in &counts[1..] {
            assert!((700..1300).contains(&c), "count {c}");
        }
    }
}
