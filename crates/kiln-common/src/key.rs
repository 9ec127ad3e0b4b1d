//! Memcomparable keys: MySQL values encoded so that comparing the bytes (`memcmp`,
//! shorter-is-smaller) orders them as MySQL orders the values. The B+tree compares
//! nothing but bytes; every index key is built here, one key part after another.
//!
//! Per key part:
//!
//! ```text
//! nullable part:  0x00 for NULL | 0x01 then the value   (NULL sorts first, as in MySQL)
//! integer:        big-endian, width of the column type, sign bit flipped if signed
//! float/double:   IEEE bits big-endian; positive: sign bit set; negative: all bits
//!                 inverted (so -1 < -0.5 < 0 < 0.5); -0.0 is encoded as 0.0
//! DECIMAL(p,s):   MySQL's binary decimal layout (9 digits per 4 bytes, the leftover
//!                 digits in 1–4 bytes), first bit flipped, all bytes inverted when
//!                 negative: fixed length for fixed (p, s), so memcmp orders it
//! DATE:           3 bytes big-endian: year·16·32 + month·32 + day
//! DATETIME/TIMESTAMP/TIME: 8 bytes, a signed packed value (sign bit flipped):
//!                 ((((y·13 + mo)·32 + d)·24 + h)·60 + mi)·60 + s) · 10^6 + µs
//! string:         the collation's weight string, with 0x00 written as 0x00 0xFF and
//!                 terminated by 0x00 0x00 (prefix-free, so a part ends unambiguously
//!                 and "ab" < "ab\0" < "abc")
//! ```
//!
//! A descending part (`KEY (c DESC)`) is encoded as above and then every byte of the
//! part is inverted: each part's encoding is prefix-free or fixed-length, so the
//! inversion exactly reverses its order, NULL marker included (NULLs last in DESC, as
//! in MySQL). Weight strings come from the collation (kiln-sql): for PAD SPACE
//! collations they omit trailing spaces, so "a" and "a  " encode equal, as they compare.

/// Why a value cannot be encoded or a key cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// DECIMAL digits do not fit the column's precision/scale, or are not digits.
    BadDecimal,
    /// The bytes end inside a part, or a string part is not terminated.
    Truncated,
}

/// Builds one key, part by part.
#[derive(Debug, Default, Clone)]
pub struct KeyWriter {
    buf: Vec<u8>,
    /// Start of the part being written (for descending inversion).
    part: usize,
}

impl KeyWriter {
    pub fn new() -> KeyWriter {
        KeyWriter::default()
    }

    /// A writer that appends the key after the bytes already in `buf` (`finish`
    /// returns them all): lets a caller reuse one buffer's memory for many keys.
    pub fn append_to(buf: Vec<u8>) -> KeyWriter {
        KeyWriter { buf, part: 0 }
    }

    pub fn finish(self) -> Vec<u8> {
        self.buf
    }

    fn begin(&mut self) {
        self.part = self.buf.len();
    }

    fn end(&mut self, desc: bool) {
        if desc {
            for b in &mut self.buf[self.part..] {
                *b = !*b;
            }
        }
    }

    /// A NULL in a nullable part.
    pub fn null(&mut self, desc: bool) {
        self.begin();
        self.buf.push(0x00);
        self.end(desc);
    }

    fn not_null(&mut self, nullable: bool) {
        self.begin();
        if nullable {
            self.buf.push(0x01);
        }
    }

    /// A signed integer stored in `width` bytes (1, 2, 3, 4 or 8: TINYINT .. BIGINT).
    pub fn int(&mut self, v: i64, width: usize, nullable: bool, desc: bool) {
        assert!(matches!(width, 1..=4 | 8), "integer width {width}");
        self.not_null(nullable);
        let bits = (v as u64) ^ (1u64 << (width * 8 - 1));
        self.buf.extend_from_slice(&bits.to_be_bytes()[8 - width..]);
        self.end(desc);
    }

    /// An unsigned integer stored in `width` bytes.
    pub fn uint(&mut self, v: u64, width: usize, nullable: bool, desc: bool) {
        assert!(matches!(width, 1..=4 | 8), "integer width {width}");
        self.not_null(nullable);
        self.buf.extend_from_slice(&v.to_be_bytes()[8 - width..]);
        self.end(desc);
    }

    pub fn double(&mut self, v: f64, nullable: bool, desc: bool) {
        self.not_null(nullable);
        self.buf.extend_from_slice(&order_f64(v).to_be_bytes());
        self.end(desc);
    }

    pub fn float(&mut self, v: f32, nullable: bool, desc: bool) {
        self.not_null(nullable);
        let v = if v == 0.0 { 0.0f32 } else { v };
        let b = v.to_bits();
        let b = if b >> 31 == 1 { !b } else { b | 1 << 31 };
        self.buf.extend_from_slice(&b.to_be_bytes());
        self.end(desc);
    }

    /// A DECIMAL(precision, scale) given as text ("-12.50", "3", ".5").
    pub fn decimal(
        &mut self,
        text: &str,
        precision: u32,
        scale: u32,
        nullable: bool,
        desc: bool,
    ) -> Result<(), KeyError> {
        let bytes = decimal_bin(text, precision, scale)?;
        self.not_null(nullable);
        self.buf.extend_from_slice(&bytes);
        self.end(desc);
        Ok(())
    }

    pub fn date(&mut self, year: u32, month: u32, day: u32, nullable: bool, desc: bool) {
        self.not_null(nullable);
        let v = (year * 16 + month) * 32 + day;
        self.buf.extend_from_slice(&v.to_be_bytes()[1..]);
        self.end(desc);
    }

    /// DATETIME, TIMESTAMP (as its UTC datetime) or TIME (year = month = day = 0,
    /// `negative` for negative times), with microseconds.
    #[allow(clippy::too_many_arguments)]
    pub fn datetime(
        &mut self,
        negative: bool,
        year: u32,
        month: u32,
        day: u32,
        hour: u32,
        minute: u32,
        second: u32,
        micros: u32,
        nullable: bool,
        desc: bool,
    ) {
        self.not_null(nullable);
        let ymd = ((year as i64 * 13 + month as i64) * 32 + day as i64) * 24 + hour as i64;
        let packed = ((ymd * 60 + minute as i64) * 60 + second as i64) * 1_000_000 + micros as i64;
        let v = if negative { -packed } else { packed };
        self.buf
            .extend_from_slice(&((v as u64) ^ (1 << 63)).to_be_bytes());
        self.end(desc);
    }

    /// A string part: its collation weight string (for binary collations, the bytes).
    pub fn weights(&mut self, w: &[u8], nullable: bool, desc: bool) {
        self.not_null(nullable);
        for &b in w {
            self.buf.push(b);
            if b == 0 {
                self.buf.push(0xFF);
            }
        }
        self.buf.extend_from_slice(&[0, 0]);
        self.end(desc);
    }
}

fn order_f64(v: f64) -> u64 {
    let v = if v == 0.0 { 0.0 } else { v };
    let b = v.to_bits();
    if b >> 63 == 1 { !b } else { b | 1 << 63 }
}

/// Bytes used by `n` leftover decimal digits (MySQL's dig2bytes).
const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// MySQL's binary DECIMAL(precision, scale) bytes for `text`.
pub fn decimal_bin(text: &str, precision: u32, scale: u32) -> Result<Vec<u8>, KeyError> {
    if precision == 0 || precision > 65 || scale > 30 || scale > precision {
        return Err(KeyError::BadDecimal);
    }
    let (neg, t) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (ip, fp) = t.split_once('.').unwrap_or((t, ""));
    if ip.is_empty() && fp.is_empty() || !ip.bytes().chain(fp.bytes()).all(|c| c.is_ascii_digit()) {
        return Err(KeyError::BadDecimal);
    }
    let ip = ip.trim_start_matches('0');
    let intg = (precision - scale) as usize;
    let scale = scale as usize;
    if ip.len() > intg || fp.len() > scale && fp[scale..].bytes().any(|c| c != b'0') {
        return Err(KeyError::BadDecimal); // callers round to the column's scale first
    }
    // Left-pad the integer part and right-pad the fraction to the column's digits.
    let int_digits: Vec<u8> = std::iter::repeat_n(b'0', intg - ip.len())
        .chain(ip.bytes())
        .collect();
    let frac_digits: Vec<u8> = fp
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(scale)
        .collect();
    let mut out = Vec::new();
    let num = |d: &[u8]| d.iter().fold(0u32, |a, c| a * 10 + (c - b'0') as u32);
    let lead = intg % 9;
    if lead > 0 {
        out.extend_from_slice(&num(&int_digits[..lead]).to_be_bytes()[4 - DIG2BYTES[lead]..]);
    }
    for chunk in int_digits[lead..].chunks(9) {
        out.extend_from_slice(&num(chunk).to_be_bytes());
    }
    let full = scale / 9 * 9;
    for chunk in frac_digits[..full].chunks(9) {
        out.extend_from_slice(&num(chunk).to_be_bytes());
    }
    let trail = scale % 9;
    if trail > 0 {
        out.extend_from_slice(&num(&frac_digits[full..]).to_be_bytes()[4 - DIG2BYTES[trail]..]);
    }
    let zero = int_digits
        .iter()
        .chain(frac_digits.iter())
        .all(|c| *c == b'0');
    out[0] ^= 0x80;
    if neg && !zero {
        for b in &mut out {
            *b = !*b;
        }
    }
    Ok(out)
}

/// Reads key parts back (for index-only reads and tests).
pub struct KeyReader<'a> {
    b: &'a [u8],
}

impl<'a> KeyReader<'a> {
    pub fn new(b: &'a [u8]) -> KeyReader<'a> {
        KeyReader { b }
    }

    pub fn is_empty(&self) -> bool {
        self.b.is_empty()
    }

    fn take(&mut self, n: usize, desc: bool) -> Result<Vec<u8>, KeyError> {
        if self.b.len() < n {
            return Err(KeyError::Truncated);
        }
        let (a, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(a.iter().map(|x| if desc { !x } else { *x }).collect())
    }

    /// For a nullable part: whether it is NULL (then nothing else follows for it).
    pub fn is_null(&mut self, desc: bool) -> Result<bool, KeyError> {
        Ok(self.take(1, desc)?[0] == 0)
    }

    pub fn int(&mut self, width: usize, desc: bool) -> Result<i64, KeyError> {
        let b = self.take(width, desc)?;
        let mut v = b.iter().fold(0u64, |a, x| a << 8 | *x as u64);
        v ^= 1 << (width * 8 - 1);
        // Sign-extend from `width` bytes.
        let shift = 64 - width * 8;
        Ok(((v << shift) as i64) >> shift)
    }

    pub fn uint(&mut self, width: usize, desc: bool) -> Result<u64, KeyError> {
        Ok(self
            .take(width, desc)?
            .iter()
            .fold(0u64, |a, x| a << 8 | *x as u64))
    }

    pub fn double(&mut self, desc: bool) -> Result<f64, KeyError> {
        let b = u64::from_be_bytes(self.take(8, desc)?.try_into().expect("8 bytes"));
        Ok(f64::from_bits(if b >> 63 == 1 {
            b & !(1 << 63)
        } else {
            !b
        }))
    }

    pub fn weights(&mut self, desc: bool) -> Result<Vec<u8>, KeyError> {
        let mut out = Vec::new();
        loop {
            let b = self.take(1, desc)?[0];
            if b != 0 {
                out.push(b);
                continue;
            }
            match self.take(1, desc)?[0] {
                0 => return Ok(out),
                0xFF => out.push(0),
                _ => return Err(KeyError::Truncated),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(f: impl FnOnce(&mut KeyWriter)) -> Vec<u8> {
        let mut w = KeyWriter::new();
        f(&mut w);
        w.finish()
    }

    #[test]
    fn integers_order_and_round_trip() {
        let vals = [
            i64::MIN,
            -1_000_000,
            -129,
            -128,
            -1,
            0,
            1,
            127,
            128,
            1 << 40,
            i64::MAX,
        ];
        for w in [8usize] {
            let keys: Vec<_> = vals
                .iter()
                .map(|v| k(|k| k.int(*v, w, false, false)))
                .collect();
            assert!(keys.windows(2).all(|p| p[0] < p[1]));
            for (v, key) in vals.iter().zip(&keys) {
                assert_eq!(KeyReader::new(key).int(w, false).unwrap(), *v);
            }
        }
        let small = [-128i64, -5, 0, 5, 127];
        let keys: Vec<_> = small
            .iter()
            .map(|v| k(|k| k.int(*v, 1, false, false)))
            .collect();
        assert!(keys.windows(2).all(|p| p[0] < p[1]) && keys.iter().all(|x| x.len() == 1));
        assert_eq!(KeyReader::new(&keys[0]).int(1, false).unwrap(), -128);
        let u: Vec<_> = [0u64, 1, 255, 256, u64::MAX]
            .iter()
            .map(|v| k(|k| k.uint(*v, 8, false, false)))
            .collect();
        assert!(u.windows(2).all(|p| p[0] < p[1]));
    }

    #[test]
    fn nulls_first_ascending_last_descending() {
        let null = k(|k| k.null(false));
        let min = k(|k| k.int(i64::MIN, 8, true, false));
        assert!(null < min);
        let null_d = k(|k| k.null(true));
        let max_d = k(|k| k.int(i64::MIN, 8, true, true));
        assert!(null_d > max_d, "NULLs last in DESC");
    }

    #[test]
    fn floats_order_with_negative_zero_equal_to_zero() {
        let vals = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1.0,
            -1e-300,
            0.0,
            1e-300,
            0.5,
            1.0,
            1e300,
            f64::INFINITY,
        ];
        let keys: Vec<_> = vals
            .iter()
            .map(|v| k(|k| k.double(*v, false, false)))
            .collect();
        assert!(keys.windows(2).all(|p| p[0] < p[1]));
        assert_eq!(
            k(|k| k.double(-0.0, false, false)),
            k(|k| k.double(0.0, false, false))
        );
        for (v, key) in vals.iter().zip(&keys) {
            assert_eq!(KeyReader::new(key).double(false).unwrap(), *v);
        }
        let f: Vec<_> = [-3.5f32, -0.0, 0.25, 9.0]
            .iter()
            .map(|v| k(|k| k.float(*v, false, false)))
            .collect();
        assert!(f.windows(2).all(|p| p[0] < p[1]));
    }

    #[test]
    fn decimals_match_mysql_binary_layout_and_order() {
        // MySQL's documented example: DECIMAL(14,4) 1234567890.1234 is
        // 81 0D FB 38 D2 04 D2 (dig2bytes: 1 int digit -> 1 byte, 9 -> 4, 4 frac -> 2).
        assert_eq!(
            decimal_bin("1234567890.1234", 14, 4).unwrap(),
            vec![0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2]
        );
        assert_eq!(
            decimal_bin("-1234567890.1234", 14, 4).unwrap(),
            vec![0x7E, 0xF2, 0x04, 0xC7, 0x2D, 0xFB, 0x2D]
        );
        let vals = [
            "-999.99", "-10", "-0.01", "0", "0.01", "0.5", "1", "10.10", "999.99",
        ];
        let keys: Vec<_> = vals.iter().map(|v| decimal_bin(v, 5, 2).unwrap()).collect();
        assert!(keys.windows(2).all(|p| p[0] < p[1]), "{keys:?}");
        assert_eq!(
            decimal_bin("-0", 5, 2).unwrap(),
            decimal_bin("0.00", 5, 2).unwrap()
        );
        assert_eq!(decimal_bin("1000", 5, 2), Err(KeyError::BadDecimal));
        assert_eq!(decimal_bin("1.234", 5, 2), Err(KeyError::BadDecimal));
        assert_eq!(decimal_bin("1.x", 5, 2), Err(KeyError::BadDecimal));
        assert_eq!(decimal_bin("", 5, 2), Err(KeyError::BadDecimal));
    }

    #[test]
    fn dates_and_times_order() {
        let d: Vec<_> = [
            (1000, 1, 1),
            (1999, 12, 31),
            (2000, 1, 1),
            (2000, 2, 1),
            (9999, 12, 31),
        ]
        .iter()
        .map(|(y, m, dd)| k(|k| k.date(*y, *m, *dd, false, false)))
        .collect();
        assert!(d.windows(2).all(|p| p[0] < p[1]) && d.iter().all(|x| x.len() == 3));
        let t = |neg, h, us| k(|k| k.datetime(neg, 0, 0, 0, h, 0, 0, us, false, false));
        assert!(
            t(true, 838, 0) < t(true, 1, 0)
                && t(true, 1, 0) < t(false, 0, 0)
                && t(false, 0, 0) < t(false, 0, 1)
                && t(false, 0, 999_999) < t(false, 1, 0)
        );
        let dt = |y, s| k(|k| k.datetime(false, y, 6, 15, 12, 30, s, 0, false, false));
        assert!(dt(2020, 59) < dt(2021, 0));
    }

    #[test]
    fn strings_are_prefix_free_and_ordered() {
        let vals: [&[u8]; 7] = [b"", b"\0", b"\0\0", b"a", b"a\0", b"ab", b"b"];
        let keys: Vec<_> = vals
            .iter()
            .map(|v| k(|k| k.weights(v, false, false)))
            .collect();
        assert!(keys.windows(2).all(|p| p[0] < p[1]), "{keys:?}");
        for (v, key) in vals.iter().zip(&keys) {
            assert_eq!(KeyReader::new(key).weights(false).unwrap(), v.to_vec());
        }
        // Two parts: ("a", 2) < ("ab", 1): the first part decides.
        let two = |s: &[u8], n| {
            k(|k| {
                k.weights(s, false, false);
                k.int(n, 4, false, false);
            })
        };
        assert!(two(b"a", 2) < two(b"ab", 1));
        assert_eq!(
            KeyReader::new(b"ab").weights(false),
            Err(KeyError::Truncated)
        );
    }

    #[test]
    fn descending_parts_reverse_order_in_composite_keys() {
        let key = |a: i64, s: &[u8]| {
            k(|k| {
                k.int(a, 4, false, false);
                k.weights(s, true, true);
            })
        };
        assert!(key(1, b"b") < key(1, b"a"));
        assert!(key(1, b"a") < key(1, b""));
        assert!(key(1, b"zz") < key(2, b"zz"));
        let bytes = key(7, b"q\0r");
        let mut r = KeyReader::new(&bytes);
        assert_eq!(r.int(4, false).unwrap(), 7);
        assert!(!r.is_null(true).unwrap());
        assert_eq!(r.weights(true).unwrap(), b"q\0r".to_vec());
        assert!(r.is_empty());
    }
}
