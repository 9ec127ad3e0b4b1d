//! MySQL's binary DECIMAL(p,s) layout, which is also memcomparable: the integer part
//! (p − s digits, left-padded) and the fraction (s digits, right-padded) are cut into
//! 9-digit groups away from the point; a full group is 4 bytes big-endian, a partial
//! one (the leading integer digits, the trailing fraction digits) takes 1–4 bytes by
//! its digit count. Then the first bit is flipped, and every byte inverted for a
//! negative value. Fixed length for a fixed (p, s), so memcmp orders values; the same
//! bytes as `kiln_common::key::decimal_bin` (checked by the tests).

use super::wide::{LIMB_DIGITS, POW10, Wide};
use super::{COEF_DIGITS, Decimal, PRECISION_MAX, clamp_type};

/// Bytes used by a group of n < 9 digits (MySQL's dig2bytes); 9 digits use 4.
const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
/// The largest `bin_size` (DECIMAL(65,30) and its neighbours need 30).
const BIN_MAX: usize = 32;

/// The groups of DECIMAL(p,s) in byte order, as digit counts (1..=9).
fn groups(precision: u32, scale: u32) -> impl Iterator<Item = usize> {
    let g = LIMB_DIGITS as usize;
    let (int, frac) = ((precision - scale) as usize, scale as usize);
    let lead = Some(int % g).filter(|&n| n > 0);
    let trail = Some(frac % g).filter(|&n| n > 0);
    lead.into_iter()
        .chain(std::iter::repeat_n(g, int / g))
        .chain(std::iter::repeat_n(g, frac / g))
        .chain(trail)
}

impl Decimal {
    /// Bytes of DECIMAL(precision, scale) in binary form (type clamped as in `fit`).
    pub fn bin_size(precision: u32, scale: u32) -> usize {
        let (precision, scale) = clamp_type(precision, scale);
        groups(precision, scale).map(|n| DIG2BYTES[n]).sum()
    }

    /// The binary (and memcomparable) form of this value as a DECIMAL(precision,
    /// scale). The value should already fit (see `fit`); if it does not, it is fitted
    /// first — rounded, or clamped to the type's max/min — so the bytes are always a
    /// valid DECIMAL(p,s).
    pub fn to_bin(&self, precision: u32, scale: u32) -> Vec<u8> {
        let (precision, scale) = clamp_type(precision, scale);
        let (v, _) = self.fit(precision, scale);
        // v has exactly `scale` fraction digits and at most `precision` digits.
        let digits = v.coef_digits();
        let mut field = &digits[COEF_DIGITS - precision as usize..];
        let mut out = Vec::with_capacity(Decimal::bin_size(precision, scale));
        for n in groups(precision, scale) {
            let Some((group, rest)) = field.split_at_checked(n) else {
                break; // the groups add up to `precision` digits: never taken
            };
            let value = group.iter().fold(0u32, |a, &d| a * 10 + d as u32);
            out.extend_from_slice(&value.to_be_bytes()[4 - DIG2BYTES[n]..]);
            field = rest;
        }
        if let Some(first) = out.first_mut() {
            *first ^= 0x80;
        }
        if v.negative {
            out.iter_mut().for_each(|b| *b = !*b);
        }
        out
    }

    /// Reads a DECIMAL(precision, scale) in binary form from the front of `b`: the
    /// value (with exactly `scale` fraction digits) and the bytes used. `None` if `b`
    /// is too short or a group holds more than its digits can (not a DECIMAL).
    pub fn from_bin(b: &[u8], precision: u32, scale: u32) -> Option<(Decimal, usize)> {
        let (precision, scale) = clamp_type(precision, scale);
        let size = Decimal::bin_size(precision, scale);
        let mut buf = [0u8; BIN_MAX];
        buf.get_mut(..size)?.copy_from_slice(b.get(..size)?);
        let bytes = &mut buf[..size];
        let negative = bytes.first()? & 0x80 == 0;
        bytes[0] ^= 0x80;
        if negative {
            bytes.iter_mut().for_each(|b| *b = !*b);
        }
        let mut digits = [0u8; PRECISION_MAX as usize];
        let (mut at_byte, mut at_digit) = (0, 0);
        for n in groups(precision, scale) {
            let width = DIG2BYTES[n];
            let raw = bytes.get(at_byte..at_byte + width)?;
            let mut value = raw.iter().fold(0u32, |a, &x| a << 8 | x as u32);
            if value >= POW10[n] {
                return None;
            }
            for slot in digits.get_mut(at_digit..at_digit + n)?.iter_mut().rev() {
                *slot = (value % 10) as u8;
                value /= 10;
            }
            at_byte += width;
            at_digit += n;
        }
        let w = Wide::from_digits(&digits[..precision as usize])?;
        // A negative zero (all bytes of +0 inverted) reads back as 0.
        Some((Decimal::from_wide(negative, &w, scale), size))
    }
}
