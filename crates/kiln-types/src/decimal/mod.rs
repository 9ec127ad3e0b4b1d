//! Exact DECIMAL arithmetic with MySQL's semantics: 65 significant digits, at most 30
//! after the point, results rounded half away from zero the way MySQL rounds them.
//!
//! Representation: a `Decimal` is `(-1)^negative × coefficient × 10^-scale`, with the
//! coefficient an unsigned integer of at most 65 decimal digits kept as eight base-10^9
//! limbs (little-endian). The scale is part of the value's identity for printing
//! (`1.50` prints as "1.50") but not for comparison (`1.50 == 1.5`, equal hashes).
//! Zero is never negative. Invariants (asserted on construction in debug builds):
//!
//! - coefficient digits ≤ 65 and integer digits + scale ≤ 65 (`PRECISION_MAX`);
//! - scale ≤ 30 (`SCALE_MAX`) for every value produced by arithmetic, rounding or
//!   `fit`. Only `parse`/`parse_prefix`/`from_f64` keep longer fractions (up to 65 − the
//!   integer digits), as a MySQL literal or string does, so that rounding them later
//!   happens once, from the digits as written (CAST('0.4999…9' AS DECIMAL(10,0)) is 0),
//!   and `div_unrounded`, whose working digits may exceed 30 as MySQL's do.
//!
//! API (all methods take `&self` and never panic):
//!
//! ```text
//! Decimal::zero() / from_i64 / from_u64        exact
//! Decimal::from_f64(f64) -> Option             shortest round-trip digits (MySQL's
//!                                              double→decimal); None for NaN, ±inf, ≥ 1e65
//! Decimal::parse(&str) -> Result               whole string: spaces, sign, digits, '.',
//!                                              exponent ("  -1.5e2 " = -150)
//! Decimal::parse_prefix(&[u8]) -> (Option, n)  leading number + trailing spaces; n bytes used
//! scale, precision, is_zero, is_negative
//! add, sub, mul -> Result                      exact; scale max(sa,sb) / sa+sb, both capped
//!                                              at 30 (rounded half up)
//! div(b, div_precision_increment) -> Result    scale sa+increment (≤ 30), MySQL rounding
//! div_unrounded(b, increment) -> Result        the quotient MySQL carries inside an
//!                                              expression (1/3 = 0.333333333)
//! rem(b) -> Result                             MOD / %: sign of the dividend, scale max(sa,sb)
//! neg, abs, floor, ceil, truncate(d) -> Self   ROUND/TRUNCATE: d may be negative
//! round(d) -> Result                           Result: ROUND(10^65−1, −1) overflows
//! to_i64, to_u64 -> Option                     rounded half away from zero (CAST AS SIGNED)
//! to_f64                                       correctly rounded
//! fit(p, s) -> (Decimal, Fit)                  store into DECIMAL(p,s): Exact/Rounded/OutOfRange
//! to_bin(p, s) / from_bin / bin_size           MySQL's binary DECIMAL(p,s) layout, memcomparable
//! Display                                      exactly `scale` fraction digits: "0.50", "-3"
//! Eq, Ord, Hash                                numeric
//! ```
//!
//! Overflow: results need at most 65 digits, integer digits first — more than 65
//! integer digits is `DecimalError::Overflow`; otherwise fraction digits beyond 65 in
//! all are rounded away. (MySQL's working buffer holds 81 digits, so it can print a
//! 66–81-digit intermediate result; we refuse it, as no column could hold it.)
//!
//! Expressions: MySQL rounds a DECIMAL expression to its type's scale only when it
//! prints or stores it; inside the expression a quotient keeps MySQL's working digits
//! (`div_unrounded`). Sums and products are exact either way (up to the 30-digit cap),
//! so an evaluator matching MySQL uses `div_unrounded` inside and `round(type scale)`
//! at the end; `div` is for a lone quotient.
//!
//! The arithmetic is our own, on `wide::Wide` (base-10^9 fixed-capacity integers);
//! text is in `text.rs`, the binary form in `bin.rs`.

mod bin;
mod text;
mod wide;

#[cfg(test)]
mod tests;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use wide::{LIMB_DIGITS, Wide};

/// Most significant digits a DECIMAL holds (integer + fraction).
pub const PRECISION_MAX: u32 = 65;
/// Most fraction digits of a DECIMAL column or arithmetic result.
pub const SCALE_MAX: u32 = 30;

/// Limbs of a stored coefficient: 8 × 9 = 72 ≥ 65 digits.
const COEF_LIMBS: usize = 8;
/// Decimal digits a stored coefficient can spell (`COEF_LIMBS` × 9).
const COEF_DIGITS: usize = COEF_LIMBS * LIMB_DIGITS as usize;

/// An exact decimal number; see the module header for the representation.
#[derive(Clone, Copy)]
pub struct Decimal {
    negative: bool,
    /// Digits after the point, ≤ 65 (≤ 30 unless from text, a double or
    /// `div_unrounded`).
    scale: u8,
    /// Little-endian base-10^9 limbs of the unscaled value.
    coef: [u32; COEF_LIMBS],
}

/// Why an operation has no DECIMAL result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecimalError {
    /// The result needs more than 65 integer digits.
    Overflow,
    /// Division or MOD by zero (MySQL yields NULL, with a warning in strict mode).
    DivisionByZero,
    /// The text is not a number.
    Syntax,
}

impl fmt::Display for DecimalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DecimalError::Overflow => "DECIMAL value out of range",
            DecimalError::DivisionByZero => "division by zero",
            DecimalError::Syntax => "not a DECIMAL number",
        })
    }
}

impl std::error::Error for DecimalError {}

/// How a value went into a DECIMAL(p,s) (see `Decimal::fit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Stored unchanged (zeros may have been appended to the fraction).
    Exact,
    /// Non-zero fraction digits were rounded away (MySQL: note 1265 "Data truncated").
    Rounded,
    /// Too many integer digits: the column's max or min is stored (MySQL: 1264).
    OutOfRange,
}

/// How digits are dropped, on the magnitude: `HalfUp` is half away from zero (ROUND,
/// stores, results), `Down` toward zero (TRUNCATE), `Up` away from zero (CEIL of a
/// positive, FLOOR of a negative).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rounding {
    HalfUp,
    Down,
    Up,
}

/// Drops the last `digits` digits of `w` by `mode`; also says whether any non-zero
/// digit was dropped. `None` only if the carry does not fit (never for our sizes).
fn round_wide(w: &Wide, digits: u32, mode: Rounding) -> Option<(Wide, bool)> {
    let (q, dropped) = w.div_pow10(digits);
    let up = match mode {
        Rounding::HalfUp => dropped.first_digit >= 5,
        Rounding::Down => false,
        Rounding::Up => dropped.inexact(),
    };
    let q = if up { q.add_small(1)? } else { q };
    Some((q, dropped.inexact()))
}

/// The type DECIMAL(precision, scale) clamped to what MySQL accepts: precision 1..=65,
/// scale ≤ 30 and ≤ precision.
fn clamp_type(precision: u32, scale: u32) -> (u32, u32) {
    let precision = precision.clamp(1, PRECISION_MAX);
    (precision, scale.min(SCALE_MAX).min(precision))
}

/// Ceiling to a multiple of 9 (MySQL's word-aligned digit counts).
fn ceil9(digits: u32) -> u32 {
    digits.div_ceil(LIMB_DIGITS) * LIMB_DIGITS
}

/// Fraction digits MySQL's division computes (and truncates at) for operand scales
/// `sa`, `sb`: it works in 9-digit words, pads both fractions to whole words and counts
/// that padding against the increment.
fn quotient_digits(sa: u32, sb: u32, increment: u32) -> u32 {
    let padding = (ceil9(sa) - sa) + (ceil9(sb) - sb);
    ceil9(ceil9(sa) + ceil9(sb) + increment.saturating_sub(padding))
}

/// Unwraps a result that cannot fail by construction (debug builds check that).
fn infallible(r: Result<Decimal, DecimalError>) -> Decimal {
    debug_assert!(r.is_ok(), "infallible DECIMAL operation failed: {r:?}");
    r.unwrap_or_else(|_| Decimal::zero())
}

impl Decimal {
    pub fn zero() -> Decimal {
        Decimal {
            negative: false,
            scale: 0,
            coef: [0; COEF_LIMBS],
        }
    }

    pub fn from_i64(v: i64) -> Decimal {
        let mut d = Decimal::from_u64(v.unsigned_abs());
        d.negative = v < 0;
        d
    }

    pub fn from_u64(v: u64) -> Decimal {
        Decimal::from_wide(false, &Wide::from_u128(v as u128), 0)
    }

    /// The double's shortest round-trip decimal digits, as MySQL converts a DOUBLE to
    /// DECIMAL (0.1 → 0.1, not 0.1000000000000000055…). `None` for NaN, infinities and
    /// magnitudes of 10^65 and more; tiny values keep at most 65 fraction digits.
    pub fn from_f64(v: f64) -> Option<Decimal> {
        if !v.is_finite() {
            return None;
        }
        // Rust's `{:e}` prints the shortest digits that read back as the same double.
        Decimal::parse(&format!("{v:e}")).ok()
    }

    /// Digits after the point (what Display prints).
    pub fn scale(&self) -> u32 {
        self.scale as u32
    }

    /// Digits as MySQL counts a literal's precision: integer digits (at least one, the
    /// "0" of 0.5) plus the scale, capped at 65. 0.5 → 2, 0.001 → 4, 123.45 → 5.
    pub fn precision(&self) -> u32 {
        (self.int_digits().max(1) + self.scale()).min(PRECISION_MAX)
    }

    pub fn is_zero(&self) -> bool {
        self.coef.iter().all(|&l| l == 0)
    }

    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// Exact sum; scale max(sa, sb), capped at 30 (by rounding) only for text values.
    pub fn add(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        let scale = self.scale().max(other.scale());
        let a = self.wide_at(scale)?;
        let b = other.wide_at(scale)?;
        let (negative, sum) = if self.negative == other.negative {
            (self.negative, a.add(&b).ok_or(DecimalError::Overflow)?)
        } else if a.cmp(&b) != Ordering::Less {
            (self.negative, a.sub(&b))
        } else {
            (other.negative, b.sub(&a))
        };
        Decimal::finish(negative, sum, scale, SCALE_MAX, Rounding::HalfUp)
    }

    pub fn sub(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        self.add(&other.neg())
    }

    /// Exact product, then rounded half up to scale min(sa + sb, 30) as MySQL does.
    pub fn mul(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        let product = self
            .wide()
            .mul(&other.wide())
            .ok_or(DecimalError::Overflow)?;
        let scale = self.scale() + other.scale();
        let negative = self.negative != other.negative;
        Decimal::finish(negative, product, scale, SCALE_MAX, Rounding::HalfUp)
    }

    /// `self / other` as MySQL's `/` shows it with @@div_precision_increment
    /// (0..=30; larger values act as 30): scale min(sa + increment, 30), rounded half
    /// up from the digits MySQL computes (see `div_unrounded`). When MySQL computes no
    /// digit past the result scale the quotient is truncated instead: with increment
    /// 0, 5/2 = 2 but 3.5/2 = 1.8; with increment 9, 2/3 = 0.666666666.
    pub fn div(
        &self,
        other: &Decimal,
        div_precision_increment: u32,
    ) -> Result<Decimal, DecimalError> {
        let increment = div_precision_increment.min(SCALE_MAX);
        let scale = (self.scale() + increment).min(SCALE_MAX);
        // Half-up rounding looks at one digit past the scale and no further.
        let digits = quotient_digits(self.scale(), other.scale(), increment).min(scale + 1);
        let q = self.quotient(other, digits)?;
        Decimal::finish(
            self.negative != other.negative,
            q,
            digits,
            scale,
            Rounding::HalfUp,
        )
    }

    /// The quotient MySQL carries into an enclosing expression: truncated (not rounded)
    /// to MySQL's working fraction digits, ceil9(ceil9(sa) + ceil9(sb) + max(0,
    /// increment − the padding of sa and sb to multiples of 9)) — 1/3 is 0.333333333 —
    /// and to 65 digits in all. MySQL rounds to the expression's scale only when it
    /// prints or stores the result, so 1/3 + 1/3 + 1/3 shows 1.0000 (not 0.9999): an
    /// evaluator that wants that computes with this and rounds the final value to the
    /// expression type's scale. `div` is this rounded at once.
    pub fn div_unrounded(
        &self,
        other: &Decimal,
        div_precision_increment: u32,
    ) -> Result<Decimal, DecimalError> {
        let increment = div_precision_increment.min(SCALE_MAX);
        let digits = quotient_digits(self.scale(), other.scale(), increment).min(PRECISION_MAX);
        let q = self.quotient(other, digits)?;
        let negative = self.negative != other.negative;
        Decimal::finish(negative, q, digits, PRECISION_MAX, Rounding::Down)
    }

    /// |self / other| × 10^digits, truncated.
    fn quotient(&self, other: &Decimal, digits: u32) -> Result<Wide, DecimalError> {
        if other.is_zero() {
            return Err(DecimalError::DivisionByZero);
        }
        // self/other · 10^digits = A · 10^(sb + digits) / (B · 10^sa); at most
        // 65 + 130 and 65 + 65 digits, inside `Wide`.
        let shift = (other.scale() + digits) as i64 - self.scale() as i64;
        let n = self.wide().mul_pow10(shift.max(0) as u32);
        let d = other.wide().mul_pow10((-shift).max(0) as u32);
        let (n, d) = n.zip(d).ok_or(DecimalError::Overflow)?;
        let (q, _) = n.divmod(&d).ok_or(DecimalError::DivisionByZero)?;
        Ok(q)
    }

    /// MOD / %: `self − trunc(self / other) × other`, exact, with the sign of `self` and
    /// scale max(sa, sb) (10.5 % 3 = 1.5, -10.5 % 3 = -1.5).
    pub fn rem(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        if other.is_zero() {
            return Err(DecimalError::DivisionByZero);
        }
        let scale = self.scale().max(other.scale());
        let a = self.wide_at(scale)?;
        let b = other.wide_at(scale)?;
        let (_, r) = a.divmod(&b).ok_or(DecimalError::DivisionByZero)?;
        // |r| < |b| and |r| ≤ |a|, and one of them is unscaled: r has ≤ 65 digits.
        Decimal::finish(self.negative, r, scale, SCALE_MAX, Rounding::HalfUp)
    }

    pub fn neg(&self) -> Decimal {
        let mut d = *self;
        d.negative = !self.negative && !self.is_zero();
        d
    }

    pub fn abs(&self) -> Decimal {
        let mut d = *self;
        d.negative = false;
        d
    }

    /// ROUND(x, d): half away from zero at 10^-d; scale clamp(d, 0, 30) — ROUND(1.5, 3)
    /// is 1.500, ROUND(1234.5, -2) is 1200. Overflow only when rounding 65 integer
    /// digits up at a negative `d` (ROUND(10^65 − 1, −1)).
    pub fn round(&self, scale: i32) -> Result<Decimal, DecimalError> {
        self.round_to(scale, Rounding::HalfUp)
    }

    /// TRUNCATE(x, d): toward zero at 10^-d; scale clamp(d, 0, 30).
    pub fn truncate(&self, scale: i32) -> Decimal {
        infallible(self.round_to(scale, Rounding::Down))
    }

    /// FLOOR(x), scale 0.
    pub fn floor(&self) -> Decimal {
        let mode = if self.negative {
            Rounding::Up
        } else {
            Rounding::Down
        };
        // A value with a fraction has ≤ 64 integer digits: one carry fits.
        infallible(self.round_to(0, mode))
    }

    /// CEILING(x), scale 0 (CEIL(-0.5) is 0, not -0).
    pub fn ceil(&self) -> Decimal {
        let mode = if self.negative {
            Rounding::Down
        } else {
            Rounding::Up
        };
        infallible(self.round_to(0, mode))
    }

    /// CAST(x AS SIGNED): rounded half away from zero; `None` out of i64's range.
    pub fn to_i64(&self) -> Option<i64> {
        let m = round_wide(&self.wide(), self.scale(), Rounding::HalfUp)?
            .0
            .to_u128()?;
        if self.negative {
            0i64.checked_sub_unsigned(u64::try_from(m).ok()?)
        } else {
            i64::try_from(m).ok()
        }
    }

    /// CAST(x AS UNSIGNED): rounded half away from zero; `None` below 0 (after rounding:
    /// -0.4 is 0) or above u64::MAX.
    pub fn to_u64(&self) -> Option<u64> {
        let m = round_wide(&self.wide(), self.scale(), Rounding::HalfUp)?
            .0
            .to_u128()?;
        match self.negative && m != 0 {
            true => None,
            false => u64::try_from(m).ok(),
        }
    }

    /// The nearest double (correctly rounded, as MySQL reads the digits with strtod).
    pub fn to_f64(&self) -> f64 {
        match self.to_string().parse::<f64>() {
            Ok(v) => v,
            Err(_) => {
                debug_assert!(false, "Display output is not a float: {self}");
                0.0
            }
        }
    }

    /// Stores into DECIMAL(precision, scale): rounded half away from zero to `scale`
    /// (the result always has exactly `scale` fraction digits), or — when more than
    /// precision − scale integer digits remain — the column's max/min with the value's
    /// sign (12345 into DECIMAL(5,2) is 999.99). Invalid types are clamped to what
    /// MySQL accepts (precision 1..=65, scale ≤ min(30, precision)).
    pub fn fit(&self, precision: u32, scale: u32) -> (Decimal, Fit) {
        let (precision, scale) = clamp_type(precision, scale);
        let w = self.wide();
        let rounded = match scale.checked_sub(self.scale()) {
            Some(pad) => w.mul_pow10(pad).map(|w| (w, false)),
            None => round_wide(&w, self.scale() - scale, Rounding::HalfUp),
        };
        match rounded {
            Some((w, inexact)) if w.digits() <= precision => {
                let fit = if inexact { Fit::Rounded } else { Fit::Exact };
                (Decimal::from_wide(self.negative, &w, scale), fit)
            }
            _ => (
                Decimal::type_max(precision, scale, self.negative),
                Fit::OutOfRange,
            ),
        }
    }

    /// ±(10^precision − 1) × 10^-scale: the largest magnitude of DECIMAL(p,s).
    fn type_max(precision: u32, scale: u32, negative: bool) -> Decimal {
        let nines = Wide::from_u128(1)
            .mul_pow10(precision)
            .map(|p| p.sub(&Wide::from_u128(1)))
            .unwrap_or(Wide::ZERO);
        Decimal::from_wide(negative, &nines, scale)
    }

    /// ROUND/TRUNCATE/FLOOR/CEIL at 10^-d, dropping digits by `mode`.
    fn round_to(&self, d: i32, mode: Rounding) -> Result<Decimal, DecimalError> {
        let overflow = DecimalError::Overflow;
        let (w, scale) = (self.wide(), self.scale());
        if d >= 0 {
            let target = (d as u32).min(SCALE_MAX);
            let w = match target.checked_sub(scale) {
                // Appending zeros is exact; `finish` drops those past 65 digits.
                Some(pad) => w.mul_pow10(pad).ok_or(overflow)?,
                None => round_wide(&w, scale - target, mode).ok_or(overflow)?.0,
            };
            return Decimal::finish(self.negative, w, target, SCALE_MAX, mode);
        }
        // Rounding at 10^67 or beyond drops all 65 digits and the rounding digit: 0.
        let tens = d.unsigned_abs().min(PRECISION_MAX + 2);
        let (q, _) = round_wide(&w, scale + tens, mode).ok_or(overflow)?;
        let w = q.mul_pow10(tens).ok_or(overflow)?;
        Decimal::finish(self.negative, w, 0, SCALE_MAX, mode)
    }

    /// Builds a value from an exact (sign, coefficient, scale): the fraction is cut to
    /// min(scale_max, 65 − integer digits) digits by `mode` — in one step, so nothing
    /// is rounded twice; more than 65 integer digits is `Overflow`.
    fn finish(
        negative: bool,
        w: Wide,
        scale: u32,
        scale_max: u32,
        mode: Rounding,
    ) -> Result<Decimal, DecimalError> {
        let overflow = DecimalError::Overflow;
        let int_digits = w.digits().saturating_sub(scale);
        if int_digits > PRECISION_MAX {
            return Err(overflow);
        }
        let target = scale.min(scale_max).min(PRECISION_MAX - int_digits);
        let (mut w, _) = round_wide(&w, scale - target, mode).ok_or(overflow)?;
        let mut scale = target;
        // Rounding up may carry into one more integer digit (99.9 → 100.0). The value
        // is then a power of ten, so dropping one more (zero) digit is exact.
        let int_digits = w.digits().saturating_sub(scale);
        if int_digits > PRECISION_MAX {
            return Err(overflow);
        }
        if int_digits + scale > PRECISION_MAX {
            let (q, dropped) = w.div_pow10(1);
            debug_assert!(!dropped.inexact(), "carry left a non-zero digit");
            (w, scale) = (q, scale - 1);
        }
        Ok(Decimal::from_wide(negative, &w, scale))
    }

    /// Wraps a coefficient already within the limits (asserted in debug builds).
    fn from_wide(negative: bool, w: &Wide, scale: u32) -> Decimal {
        let limbs = w.limbs();
        debug_assert!(limbs.len() <= COEF_LIMBS && w.digits() <= PRECISION_MAX);
        debug_assert!(w.digits().saturating_sub(scale) + scale <= PRECISION_MAX);
        let mut coef = [0; COEF_LIMBS];
        let n = limbs.len().min(COEF_LIMBS);
        coef[..n].copy_from_slice(&limbs[..n]);
        Decimal {
            negative: negative && !w.is_zero(),
            scale: scale.min(PRECISION_MAX) as u8,
            coef,
        }
    }

    /// The coefficient as a working integer.
    fn wide(&self) -> Wide {
        // Limbs are < 10^9 by construction, so this never falls back.
        Wide::from_limbs(&self.coef).unwrap_or(Wide::ZERO)
    }

    /// The coefficient rescaled to `scale` ≥ self.scale (≤ 65 + 65 digits).
    fn wide_at(&self, scale: u32) -> Result<Wide, DecimalError> {
        let pad = scale.saturating_sub(self.scale());
        self.wide().mul_pow10(pad).ok_or(DecimalError::Overflow)
    }

    /// Integer digits (0 for |x| < 1).
    fn int_digits(&self) -> u32 {
        self.wide().digits().saturating_sub(self.scale())
    }

    /// The coefficient's digits, big-endian, left-padded with zeros to 72.
    fn coef_digits(&self) -> [u8; COEF_DIGITS] {
        let mut out = [0u8; COEF_DIGITS];
        for (i, &limb) in self.coef.iter().enumerate() {
            let mut l = limb;
            for j in 0..LIMB_DIGITS as usize {
                out[COEF_DIGITS - 1 - (i * LIMB_DIGITS as usize + j)] = (l % 10) as u8;
                l /= 10;
            }
        }
        out
    }

    /// |self| vs |other|.
    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        let (a, b) = (self.wide(), other.wide());
        match (a.is_zero(), b.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        // The leading digit's position decides unless it is the same.
        let lead = |w: &Wide, d: &Decimal| w.digits() as i64 - d.scale as i64;
        let by_lead = lead(&a, self).cmp(&lead(&b, other));
        if by_lead != Ordering::Equal {
            return by_lead;
        }
        let scale = self.scale().max(other.scale());
        match (self.wide_at(scale), other.wide_at(scale)) {
            (Ok(a), Ok(b)) => a.cmp(&b),
            _ => {
                debug_assert!(false, "130-digit alignment cannot overflow");
                Ordering::Equal
            }
        }
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Decimal) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

impl Hash for Decimal {
    /// Hashes the value with trailing zeros removed, so 1.50 and 1.5 hash alike.
    fn hash<H: Hasher>(&self, state: &mut H) {
        let w = self.wide();
        if w.is_zero() {
            0u8.hash(state);
            return;
        }
        let zeros = w.trailing_zeros();
        let (w, _) = w.div_pow10(zeros);
        1u8.hash(state);
        self.negative.hash(state);
        (self.scale as i64 - zeros as i64).hash(state);
        w.limbs().hash(state);
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decimal({self})")
    }
}

impl Default for Decimal {
    fn default() -> Decimal {
        Decimal::zero()
    }
}
