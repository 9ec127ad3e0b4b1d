//! DECIMAL ↔ text: MySQL's string-to-DECIMAL conversion and the canonical output form.
//!
//! Accepted (as MySQL's conversion does): leading whitespace, an optional sign right
//! before the digits, digits with at most one '.', at least one digit in all ("5.",
//! ".5"), then an optional exponent `e`/`E`, optional sign and at least one digit
//! ("1.5e3" = 1500, scale max(0, fraction digits − exponent)). A bare "e" or "e+" is not
//! part of the number ("1.5e" is 1.5 followed by one byte of garbage). Leading zeros
//! are not significant (MySQL counts them against its buffer; we do not).
//!
//! Text longer than a DECIMAL holds: more than 65 integer digits is `Overflow`; the
//! fraction keeps at most 65 − integer digits and is rounded half up beyond that.

use std::fmt;

use super::wide::Wide;
use super::{COEF_DIGITS, Decimal, DecimalError, PRECISION_MAX, Rounding};

/// Significant digits kept while scanning: a 65-digit coefficient plus the digit that
/// rounds it. Later digits cannot change the result and are only counted.
const SIG_KEEP: usize = PRECISION_MAX as usize + 1;
/// Exponents are clamped to ±this: any larger one is already overflow or zero.
const EXPONENT_MAX: i64 = 1_000_000_000;

/// MySQL's `my_isspace` for the ASCII range.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| is_space(c)) {
        i += 1;
    }
    i
}

/// The outcome of scanning the front of a byte string.
enum Scan {
    /// No digits where a number should be.
    NotANumber,
    /// A number spanning `used` bytes (with surrounding whitespace).
    Number(Result<Decimal, DecimalError>, usize),
}

/// The significant digits of a number as written, and where its point falls.
struct Digits {
    /// First significant digits (values 0..=9), at most SIG_KEEP.
    kept: [u8; SIG_KEEP],
    /// Significant digits seen, kept or not (saturating).
    seen: u64,
    /// Position of the point after the first significant digit's: 3 for 123.4, -2 for
    /// 0.00123 (before the exponent is applied).
    point: i64,
    /// Digits written after the point, zeros included (for the scale).
    fraction: i64,
}

impl Digits {
    fn push(&mut self, d: u8) {
        if let Some(slot) = self.kept.get_mut(self.seen as usize) {
            *slot = d;
        }
        self.seen = self.seen.saturating_add(1);
    }
}

/// Scans a number at the front of `b` (see the module header for the syntax).
fn scan(b: &[u8]) -> Scan {
    let mut i = skip_spaces(b, 0);
    let negative = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let mut digits = Digits {
        kept: [0; SIG_KEEP],
        seen: 0,
        point: 0,
        fraction: 0,
    };
    let mut any_digit = false;
    while let Some(&c) = b.get(i)
        && c.is_ascii_digit()
    {
        any_digit = true;
        if digits.seen > 0 || c != b'0' {
            digits.push(c - b'0');
            digits.point = digits.point.saturating_add(1);
        }
        i += 1;
    }
    if b.get(i) == Some(&b'.') {
        let mut j = i + 1;
        while let Some(&c) = b.get(j)
            && c.is_ascii_digit()
        {
            any_digit = true;
            digits.fraction = digits.fraction.saturating_add(1);
            if digits.seen > 0 || c != b'0' {
                digits.push(c - b'0');
            } else {
                // A leading zero of the fraction: the point moves left of the first
                // significant digit.
                digits.point = digits.point.saturating_sub(1);
            }
            j += 1;
        }
        // "5." uses the point; a lone "." is no number (checked below).
        i = j;
    }
    if !any_digit {
        return Scan::NotANumber;
    }
    let mut exponent = 0i64;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        let exp_negative = b.get(j) == Some(&b'-');
        if matches!(b.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        let start = j;
        while let Some(&c) = b.get(j)
            && c.is_ascii_digit()
        {
            exponent = (exponent * 10 + (c - b'0') as i64).min(EXPONENT_MAX);
            j += 1;
        }
        if j > start {
            i = j;
            if exp_negative {
                exponent = -exponent;
            }
        } else {
            exponent = 0;
        }
    }
    let used = skip_spaces(b, i);
    Scan::Number(build(negative, &digits, exponent), used)
}

/// The DECIMAL for scanned digits × 10^exponent, rounded to at most 65 digits.
fn build(negative: bool, digits: &Digits, exponent: i64) -> Result<Decimal, DecimalError> {
    let precision_max = PRECISION_MAX as i64;
    let natural_scale = digits.fraction.saturating_sub(exponent).max(0);
    if digits.seen == 0 {
        let scale = natural_scale.min(precision_max) as u32;
        return Decimal::finish(false, Wide::ZERO, scale, PRECISION_MAX, Rounding::HalfUp);
    }
    let point = digits.point.saturating_add(exponent);
    let int_digits = point.max(0);
    if int_digits > precision_max {
        return Err(DecimalError::Overflow);
    }
    let scale = natural_scale.min(precision_max - int_digits);
    // The coefficient is the first `take` significant digits (zero-padded), rounded on
    // the next one; `take` ≤ 65. A negative `take` means the first significant digit is
    // beyond the rounding digit: the value rounds to 0.
    let take = point + scale;
    let kept = digits.seen.min(SIG_KEEP as u64) as usize;
    let (w, round_digit) = if take < 0 {
        (Wide::ZERO, 0)
    } else {
        let take = take as usize;
        let mut coef = [0u8; PRECISION_MAX as usize];
        let n = take.min(kept).min(coef.len());
        coef[..n].copy_from_slice(&digits.kept[..n]);
        let round_digit = if take < kept { digits.kept[take] } else { 0 };
        let w = Wide::from_digits(&coef[..take.min(coef.len())]).ok_or(DecimalError::Overflow)?;
        (w, round_digit)
    };
    let w = match round_digit >= 5 {
        true => w.add_small(1).ok_or(DecimalError::Overflow)?,
        false => w,
    };
    // A carry (9.99…9 → 10.00…0) can add a digit: `finish` drops it or overflows.
    Decimal::finish(negative, w, scale as u32, PRECISION_MAX, Rounding::HalfUp)
}

impl Decimal {
    /// The whole of `s` as a DECIMAL: a number with optional surrounding whitespace
    /// ("  -1.5e2 " is -150). Anything else after the number is `Syntax`.
    pub fn parse(s: &str) -> Result<Decimal, DecimalError> {
        match scan(s.as_bytes()) {
            Scan::NotANumber => Err(DecimalError::Syntax),
            Scan::Number(_, used) if used != s.len() => Err(DecimalError::Syntax),
            Scan::Number(v, _) => v,
        }
    }

    /// The number at the front of `s` and the bytes it spans, trailing whitespace
    /// included, so `used == s.len()` means nothing was cut (else MySQL warns "Data
    /// truncated"). `(None, 0)`: no number at all (MySQL reads 0 with a warning);
    /// `(None, used > 0)`: a number with more than 65 integer digits (MySQL stores the
    /// column's max/min with the sign written).
    pub fn parse_prefix(s: &[u8]) -> (Option<Decimal>, usize) {
        match scan(s) {
            Scan::NotANumber => (None, 0),
            Scan::Number(v, used) => (v.ok(), used),
        }
    }
}

impl fmt::Display for Decimal {
    /// Exactly `scale` fraction digits, "0" before the point of |x| < 1, no "-" on
    /// zero. Honours width/alignment flags.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.coef_digits();
        let scale = self.scale as usize;
        // At least one integer digit, and never more than the coefficient has room for.
        let width = (self.wide().digits() as usize)
            .max(scale + 1)
            .min(COEF_DIGITS);
        let shown = &digits[COEF_DIGITS - width..];
        let int_len = width.saturating_sub(scale);
        // Sign + 72 digits + point.
        let mut buf = [0u8; COEF_DIGITS + 2];
        let mut n = 0;
        let mut put = |c: u8| {
            if let Some(slot) = buf.get_mut(n) {
                *slot = c;
                n += 1;
            }
        };
        if self.negative {
            put(b'-');
        }
        for &d in &shown[..int_len] {
            put(b'0' + d);
        }
        if scale > 0 {
            put(b'.');
            for &d in &shown[int_len..] {
                put(b'0' + d);
            }
        }
        // Only ASCII digits, '-' and '.' were written.
        f.pad(std::str::from_utf8(&buf[..n]).unwrap_or("?"))
    }
}
