//! HandlerSocket framing: lines, tokens, escaping, and response lines.
//!
//! ```text
//! request  = token *( TAB token ) [CR] LF
//! token    = *( byte other than TAB, LF )          -- may be empty
//! NULL     = the one-byte token 0x00               -- differs from the empty token
//! escaping = a byte 0x00..=0x0f inside a value travels as 0x01, byte + 0x40;
//!            bytes 0x10..=0xff travel as they are
//! response = code TAB ncols *( TAB token ) LF
//! ```
//!
//! Decoding never allocates for a token without escapes (the common case): `value`
//! borrows. A lone 0x01 at the end of a token is dropped; 0x01 followed by a byte
//! below 0x40 decodes to that byte minus 0x40 modulo 256, as the original did.

use std::borrow::Cow;

/// A decoded value: None is SQL NULL.
pub type Val<'a> = Option<Cow<'a, [u8]>>;

/// The end of the first complete line in `buf` (index of its LF).
pub fn find_line(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|&b| b == b'\n')
}

/// The line without its LF and an optional CR before it.
pub fn strip_eol(line: &[u8]) -> &[u8] {
    match line.last() {
        Some(b'\r') => &line[..line.len() - 1],
        _ => line,
    }
}

/// Splits a line (no LF) at TABs into `out` (cleared first). An empty line is one
/// empty token.
pub fn split_tokens<'a>(line: &'a [u8], out: &mut Vec<&'a [u8]>) {
    out.clear();
    out.extend(line.split(|&b| b == b'\t'));
}

/// The value a token carries: NULL for the single byte 0x00, else the unescaped bytes.
pub fn value(token: &[u8]) -> Val<'_> {
    if token == [0u8] {
        return None;
    }
    Some(unescape(token))
}

/// Undoes the 0x01 escaping.
pub fn unescape(token: &[u8]) -> Cow<'_, [u8]> {
    if !token.contains(&0x01) {
        return Cow::Borrowed(token);
    }
    let mut out = Vec::with_capacity(token.len());
    let mut it = token.iter();
    while let Some(&b) = it.next() {
        if b == 0x01 {
            match it.next() {
                Some(&n) => out.push(n.wrapping_sub(0x40)),
                None => break,
            }
        } else {
            out.push(b);
        }
    }
    Cow::Owned(out)
}

/// Appends `v` escaped (bytes below 0x10 as 0x01, byte + 0x40).
pub fn escape_into(out: &mut Vec<u8>, v: &[u8]) {
    // Most values need no escape: find the first byte that does eight at a time, and
    // copy the plain run before it whole.
    let first = first_low_byte(v);
    if first == v.len() {
        out.extend_from_slice(v);
        return;
    }
    out.extend_from_slice(&v[..first]);
    for &b in &v[first..] {
        if b < 0x10 {
            out.push(0x01);
            out.push(b + 0x40);
        } else {
            out.push(b);
        }
    }
}

/// The index of the first byte below 0x10 in `v` (`v.len()` if none).
fn first_low_byte(v: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while i + 8 <= v.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&v[i..i + 8]);
        let x = u64::from_le_bytes(w);
        // Non-zero iff some byte of x is below 0x10 (the "has less than n" bit trick,
        // exact for n <= 128): then the scalar loop below finds which.
        if x.wrapping_sub(ONES * 0x10) & !x & HIGHS != 0 {
            break;
        }
        i += 8;
    }
    i + v[i..].iter().position(|&b| b < 0x10).unwrap_or(v.len() - i)
}

/// Appends the decimal digits of `n` (with a '-' when negative).
pub fn push_i64(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_u64(out, n.unsigned_abs());
}

/// Appends the decimal digits of `n`.
pub fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// Parses a decimal unsigned number token (no sign, no spaces); None otherwise or on
/// overflow.
pub fn parse_u64(token: &[u8]) -> Option<u64> {
    if token.is_empty() || token.len() > 20 {
        return None;
    }
    let mut n: u64 = 0;
    for &b in token {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(n)
}

/// Builds response lines into a connection's output buffer.
pub struct Reply<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> Reply<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Reply<'a> {
        Reply { out }
    }

    /// `<code> TAB 1 [TAB message] LF`.
    pub fn error(&mut self, code: u8, message: &str) {
        self.out.push(b'0' + code);
        self.out.extend_from_slice(b"\t1");
        if !message.is_empty() {
            self.out.push(b'\t');
            escape_into(self.out, message.as_bytes());
        }
        self.out.push(b'\n');
    }

    /// `0 TAB 1 LF`.
    pub fn ok(&mut self) {
        self.out.extend_from_slice(b"0\t1\n");
    }

    /// `0 TAB 1 TAB <n> LF`.
    pub fn ok_count(&mut self, n: u64) {
        self.out.extend_from_slice(b"0\t1\t");
        push_u64(self.out, n);
        self.out.push(b'\n');
    }

    /// Starts a row response `0 TAB <ncols>`; cells follow, then `end`.
    pub fn rows_header(&mut self, ncols: usize) {
        self.out.extend_from_slice(b"0\t");
        push_u64(self.out, ncols as u64);
    }

    pub fn cell(&mut self, v: Option<&[u8]>) {
        self.out.push(b'\t');
        match v {
            None => self.out.push(0),
            Some(b) => escape_into(self.out, b),
        }
    }

    /// A cell holding an integer (digits and a sign never need escaping).
    pub fn cell_i64(&mut self, n: i64) {
        self.out.push(b'\t');
        push_i64(self.out, n);
    }

    pub fn cell_u64(&mut self, n: u64) {
        self.out.push(b'\t');
        push_u64(self.out, n);
    }

    pub fn end(&mut self) {
        self.out.push(b'\n');
    }

    /// The buffer's length (to undo a partly written response).
    pub fn mark(&self) -> usize {
        self.out.len()
    }

    pub fn truncate(&mut self, mark: usize) {
        self.out.truncate(mark);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_empty_tokens() {
        let mut v = Vec::new();
        split_tokens(b"1\t=\t\t\x00", &mut v);
        assert_eq!(v, vec![&b"1"[..], b"=", b"", b"\x00"]);
        assert_eq!(value(v[2]), Some(Cow::Borrowed(&b""[..])));
        assert_eq!(value(v[3]), None);
        split_tokens(b"", &mut v);
        assert_eq!(v, vec![&b""[..]]);
    }

    #[test]
    fn escaping_round_trips_every_byte() {
        let all: Vec<u8> = (0..=255u8).collect();
        let mut enc = Vec::new();
        escape_into(&mut enc, &all);
        assert!(!enc.contains(&b'\t') && !enc.contains(&b'\n') && !enc.contains(&0));
        assert_eq!(unescape(&enc).as_ref(), &all[..]);
    }

    #[test]
    fn escape_scan_finds_low_bytes_at_every_position() {
        // Every low byte, at every offset of word-sized and ragged values.
        for len in [1usize, 7, 8, 9, 16, 23, 64] {
            for pos in 0..len {
                for low in [0u8, 0x01, 0x09, 0x0a, 0x0f] {
                    let mut v = vec![b'x'; len];
                    v[pos] = low;
                    let mut enc = Vec::new();
                    escape_into(&mut enc, &v);
                    let mut want = v[..pos].to_vec();
                    want.extend_from_slice(&[0x01, low + 0x40]);
                    want.extend_from_slice(&v[pos + 1..]);
                    assert_eq!(enc, want, "len {len} pos {pos} byte {low}");
                }
            }
            // 0x10 and above (0x10, 0x7f, 0x80, 0xff) pass through.
            let v: Vec<u8> = (0..len).map(|i| [0x10, 0x7f, 0x80, 0xff][i % 4]).collect();
            let mut enc = Vec::new();
            escape_into(&mut enc, &v);
            assert_eq!(enc, v);
        }
    }

    #[test]
    fn integers() {
        let mut out = Vec::new();
        for n in [0i64, 7, -7, 10, 1234567890, i64::MIN, i64::MAX] {
            out.clear();
            push_i64(&mut out, n);
            assert_eq!(out, n.to_string().into_bytes());
        }
        out.clear();
        push_u64(&mut out, u64::MAX);
        assert_eq!(out, u64::MAX.to_string().into_bytes());
    }

    #[test]
    fn lone_escape_at_end_is_dropped() {
        assert_eq!(unescape(b"ab\x01").as_ref(), b"ab");
        assert_eq!(unescape(b"\x01\x49").as_ref(), b"\x09");
    }

    #[test]
    fn eol_and_numbers() {
        assert_eq!(strip_eol(b"P\t1\r"), b"P\t1");
        assert_eq!(find_line(b"ab\ncd\n"), Some(2));
        assert_eq!(parse_u64(b"123"), Some(123));
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_u64(b"99999999999999999999999"), None);
        assert_eq!(parse_u64(b""), None);
    }

    #[test]
    fn replies() {
        let mut out = Vec::new();
        let mut r = Reply::new(&mut out);
        r.error(2, "stmtnum");
        r.ok();
        r.ok_count(3);
        r.rows_header(2);
        r.cell(Some(b"a\tb"));
        r.cell(None);
        r.end();
        assert_eq!(
            out,
            b"2\t1\tstmtnum\n0\t1\n0\t1\t3\n0\t2\ta\x01\x49b\t\x00\n".to_vec()
        );
    }
}
