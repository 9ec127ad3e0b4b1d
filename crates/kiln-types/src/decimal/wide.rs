//! Fixed-capacity unsigned integers in base 10^9 — the working numbers of DECIMAL
//! arithmetic. A `Wide` holds an unscaled coefficient (the decimal point is the
//! caller's business) as little-endian limbs, each < 10^9, so that scaling by powers of
//! ten, rounding at a digit and printing are limb shuffles rather than conversions.
//!
//! Capacity is fixed (`WIDE_LIMBS`, 216 digits) and sized for the largest intermediate
//! of a 65-digit DECIMAL operation: a product of two 65-digit coefficients (130
//! digits) or a dividend scaled for a quotient with 65 fraction digits (≤ 195 digits).
//! Every operation that can grow a number returns `None` instead of exceeding the
//! capacity, so no input can make it index out of bounds.

use std::cmp::Ordering;

/// One limb holds this many decimal digits.
pub(super) const LIMB_DIGITS: u32 = 9;
/// The limb base, 10^LIMB_DIGITS.
pub(super) const BASE: u32 = 1_000_000_000;
/// Limbs in a `Wide`: 24 × 9 = 216 digits.
pub(super) const WIDE_LIMBS: usize = 24;

/// 10^i for i in 0..=9.
pub(super) const POW10: [u32; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// An unsigned integer of at most `WIDE_LIMBS` base-10^9 limbs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Wide {
    /// Little-endian limbs; limbs at `len..` are zero.
    limbs: [u32; WIDE_LIMBS],
    /// Number of limbs up to and including the most significant non-zero one (0 for 0).
    len: usize,
}

/// What a division by a power of ten dropped: enough to round in any mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Dropped {
    /// The most significant dropped digit (0 if nothing was dropped).
    pub(super) first_digit: u32,
    /// Whether any dropped digit after the first is non-zero.
    pub(super) rest_nonzero: bool,
}

impl Dropped {
    /// Whether the division lost anything.
    pub(super) fn inexact(self) -> bool {
        self.first_digit != 0 || self.rest_nonzero
    }
}

impl Wide {
    pub(super) const ZERO: Wide = Wide {
        limbs: [0; WIDE_LIMBS],
        len: 0,
    };

    /// From little-endian limbs (each must be < BASE; `None` if one is not or if they do
    /// not fit).
    pub(super) fn from_limbs(limbs: &[u32]) -> Option<Wide> {
        let mut w = Wide::ZERO;
        for (i, &l) in limbs.iter().enumerate() {
            if l >= BASE {
                return None;
            }
            if l != 0 {
                *w.limbs.get_mut(i)? = l;
                w.len = i + 1;
            }
        }
        Some(w)
    }

    pub(super) fn from_u128(mut v: u128) -> Wide {
        let mut w = Wide::ZERO;
        let mut i = 0;
        // u128 has at most 39 digits: 5 limbs, well inside the capacity.
        while v != 0 {
            w.limbs[i] = (v % BASE as u128) as u32;
            v /= BASE as u128;
            i += 1;
        }
        w.len = i;
        w.trim();
        w
    }

    /// From big-endian decimal digit values (0..=9); `None` if a value is not a digit or
    /// there are more than the capacity holds.
    pub(super) fn from_digits(digits: &[u8]) -> Option<Wide> {
        if digits.len() > WIDE_LIMBS * LIMB_DIGITS as usize {
            return None;
        }
        let mut w = Wide::ZERO;
        for (i, chunk) in digits.rchunks(LIMB_DIGITS as usize).enumerate() {
            let mut limb = 0u32;
            for &d in chunk {
                if d > 9 {
                    return None;
                }
                limb = limb * 10 + d as u32;
            }
            w.limbs[i] = limb;
        }
        w.len = digits.len().div_ceil(LIMB_DIGITS as usize);
        w.trim();
        Some(w)
    }

    /// The significant little-endian limbs.
    pub(super) fn limbs(&self) -> &[u32] {
        &self.limbs[..self.len]
    }

    pub(super) fn is_zero(&self) -> bool {
        self.len == 0
    }

    /// Drops high zero limbs so that `len` is exact.
    fn trim(&mut self) {
        while self.len > 0 && self.limbs[self.len - 1] == 0 {
            self.len -= 1;
        }
    }

    /// Number of decimal digits (0 for zero).
    pub(super) fn digits(&self) -> u32 {
        match self.len {
            0 => 0,
            n => (n as u32 - 1) * LIMB_DIGITS + limb_digits(self.limbs[n - 1]),
        }
    }

    /// Number of trailing zero digits (0 for zero).
    pub(super) fn trailing_zeros(&self) -> u32 {
        let mut zeros = 0;
        for &l in self.limbs() {
            if l == 0 {
                zeros += LIMB_DIGITS;
                continue;
            }
            let mut l = l;
            while l % 10 == 0 {
                l /= 10;
                zeros += 1;
            }
            return zeros;
        }
        0
    }

    /// The value if it fits a u128.
    pub(super) fn to_u128(self) -> Option<u128> {
        let mut v: u128 = 0;
        for &l in self.limbs().iter().rev() {
            v = v.checked_mul(BASE as u128)?.checked_add(l as u128)?;
        }
        Some(v)
    }

    pub(super) fn cmp(&self, other: &Wide) -> Ordering {
        self.len.cmp(&other.len).then_with(|| {
            let n = self.len;
            self.limbs[..n]
                .iter()
                .rev()
                .cmp(other.limbs[..n].iter().rev())
        })
    }

    pub(super) fn add(&self, other: &Wide) -> Option<Wide> {
        let n = self.len.max(other.len);
        let mut out = Wide::ZERO;
        let mut carry = 0u32;
        for i in 0..n {
            let s = self.limbs[i] + other.limbs[i] + carry; // < 2·10^9 + 1 < 2^32
            (out.limbs[i], carry) = if s >= BASE { (s - BASE, 1) } else { (s, 0) };
        }
        out.len = n;
        if carry != 0 {
            *out.limbs.get_mut(n)? = carry;
            out.len = n + 1;
        }
        Some(out)
    }

    pub(super) fn add_small(&self, v: u32) -> Option<Wide> {
        self.add(&Wide::from_limbs(&[v % BASE, v / BASE])?)
    }

    /// `self - other`; requires `self >= other` (else returns zero, asserted in debug).
    pub(super) fn sub(&self, other: &Wide) -> Wide {
        debug_assert!(self.cmp(other) != Ordering::Less, "Wide::sub underflow");
        if self.cmp(other) == Ordering::Less {
            return Wide::ZERO;
        }
        let mut out = Wide::ZERO;
        let mut borrow = 0u32;
        for i in 0..self.len {
            let sub = other.limbs[i] + borrow;
            (out.limbs[i], borrow) = if self.limbs[i] >= sub {
                (self.limbs[i] - sub, 0)
            } else {
                (self.limbs[i] + BASE - sub, 1)
            };
        }
        out.len = self.len;
        out.trim();
        out
    }

    /// `self × m` for m ≤ BASE.
    pub(super) fn mul_small(&self, m: u32) -> Option<Wide> {
        debug_assert!(m <= BASE);
        let mut out = Wide::ZERO;
        let mut carry = 0u64;
        for i in 0..self.len {
            let p = self.limbs[i] as u64 * m as u64 + carry; // < 10^18 + 10^9
            out.limbs[i] = (p % BASE as u64) as u32;
            carry = p / BASE as u64;
        }
        out.len = self.len;
        if carry != 0 {
            *out.limbs.get_mut(self.len)? = carry as u32;
            out.len += 1;
        }
        out.trim();
        Some(out)
    }

    pub(super) fn mul(&self, other: &Wide) -> Option<Wide> {
        if self.is_zero() || other.is_zero() {
            return Some(Wide::ZERO);
        }
        let n = self.len + other.len;
        if n > WIDE_LIMBS + 1 {
            return None;
        }
        // One spare limb: the product needs at most n limbs, but n may exceed the
        // capacity by one when the top limb ends up zero.
        let mut acc = [0u32; WIDE_LIMBS + 1];
        for i in 0..self.len {
            let mut carry = 0u64;
            for j in 0..other.len {
                // < 10^9 + 10^18 + 10^9: fits a u64.
                let t = acc[i + j] as u64 + self.limbs[i] as u64 * other.limbs[j] as u64 + carry;
                acc[i + j] = (t % BASE as u64) as u32;
                carry = t / BASE as u64;
            }
            acc[i + other.len] = carry as u32;
        }
        Wide::from_limbs(&acc[..n])
    }

    /// `self × 10^k`.
    pub(super) fn mul_pow10(&self, k: u32) -> Option<Wide> {
        if self.is_zero() || k == 0 {
            return Some(*self);
        }
        let shift = (k / LIMB_DIGITS) as usize;
        if self.len + shift > WIDE_LIMBS {
            return None;
        }
        let mut out = Wide::ZERO;
        out.limbs[shift..shift + self.len].copy_from_slice(&self.limbs[..self.len]);
        out.len = self.len + shift;
        out.mul_small(POW10[(k % LIMB_DIGITS) as usize])
    }

    /// `self / 10^k` truncated, and what was dropped.
    pub(super) fn div_pow10(&self, k: u32) -> (Wide, Dropped) {
        if k == 0 {
            let nothing = Dropped {
                first_digit: 0,
                rest_nonzero: false,
            };
            return (*self, nothing);
        }
        let limb_at = |i: usize| self.limbs.get(i).copied().unwrap_or(0);
        let whole = (k / LIMB_DIGITS) as usize; // limbs dropped entirely
        let part = k % LIMB_DIGITS; // digits dropped from limb `whole`
        let lower_nonzero = |end: usize| self.limbs[..end.min(self.len)].iter().any(|&l| l != 0);
        let dropped = if part > 0 {
            let low = limb_at(whole) % POW10[part as usize];
            Dropped {
                first_digit: low / POW10[part as usize - 1],
                rest_nonzero: !low.is_multiple_of(POW10[part as usize - 1]) || lower_nonzero(whole),
            }
        } else {
            let top = limb_at(whole - 1);
            Dropped {
                first_digit: top / POW10[LIMB_DIGITS as usize - 1],
                rest_nonzero: !top.is_multiple_of(POW10[LIMB_DIGITS as usize - 1])
                    || lower_nonzero(whole - 1),
            }
        };
        if whole >= self.len {
            return (Wide::ZERO, dropped);
        }
        let mut out = Wide::ZERO;
        let n = self.len - whole;
        let div = POW10[part as usize] as u64;
        let mut rem = 0u64;
        for i in (0..n).rev() {
            let cur = rem * BASE as u64 + limb_at(i + whole) as u64; // < 10^9 · 10^9
            out.limbs[i] = (cur / div) as u32;
            rem = cur % div;
        }
        out.len = n;
        out.trim();
        (out, dropped)
    }

    /// Quotient and remainder; `None` when dividing by zero.
    ///
    /// Long division one base-10^9 limb at a time. Each quotient limb is estimated from
    /// the top three limbs of the running remainder over the top two of the divisor;
    /// truncating the divisor only makes the estimate too large, and by at most two
    /// (the divisor's top two limbs are ≥ 10^9, so the relative error is < 10^-9 of a
    /// quotient limb < 10^9), so a short correction loop finds the exact limb.
    pub(super) fn divmod(&self, d: &Wide) -> Option<(Wide, Wide)> {
        if d.is_zero() {
            return None;
        }
        if self.cmp(d) == Ordering::Less {
            return Some((Wide::ZERO, *self));
        }
        let dl = d.len;
        let top = |w: &Wide, from: usize| -> u128 {
            w.limbs[from..w.len]
                .iter()
                .rev()
                .fold(0u128, |a, &l| a * BASE as u128 + l as u128)
        };
        let from = dl.saturating_sub(2);
        let d_top = top(d, from);
        let mut q = Wide::ZERO;
        let mut rem = Wide::ZERO;
        for i in (0..self.len).rev() {
            // rem = rem·BASE + limb i; rem < d before, so rem < d·BASE after and the
            // quotient limb is < BASE. rem has at most dl + 1 limbs.
            if rem.len >= WIDE_LIMBS {
                return None; // only for a divisor of the full capacity; ours are smaller
            }
            rem.limbs.copy_within(0..rem.len, 1);
            rem.limbs[0] = self.limbs[i];
            rem.len += 1;
            rem.trim();
            if rem.cmp(d) == Ordering::Less {
                continue;
            }
            // rem has dl or dl + 1 limbs: its top from `from` is at most 3 limbs (< 10^27).
            let mut guess = (top(&rem, from) / d_top).min(BASE as u128 - 1) as u32;
            let mut product = d.mul_small(guess)?;
            let mut corrections = 0;
            while product.cmp(&rem) == Ordering::Greater {
                guess -= 1;
                product = product.sub(d);
                corrections += 1;
            }
            debug_assert!(
                corrections <= 2,
                "quotient limb estimate off by {corrections}"
            );
            rem = rem.sub(&product);
            q.limbs[i] = guess;
        }
        q.len = self.len;
        q.trim();
        Some((q, rem))
    }
}

/// Decimal digits of a limb value (1 for 0).
fn limb_digits(l: u32) -> u32 {
    POW10[1..].iter().take_while(|&&p| l >= p).count() as u32 + 1
}
