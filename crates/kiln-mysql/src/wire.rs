//! Primitive encodings of the MySQL protocol: fixed-width little-endian integers,
//! length-encoded integers and strings, NUL-terminated strings.
//!
//! Decoding goes through [`Reader`], a bounds-checked cursor over one packet payload:
//! every read either succeeds inside the payload or returns [`WireError::Truncated`],
//! so a malformed packet can never panic the server or make it allocate more than the
//! payload it already holds.

use bytes::{BufMut, BytesMut};

/// Why a payload could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireError {
    /// The payload ended before a field did.
    Truncated,
    /// A field had a value the protocol forbids (e.g. a length-encoded int prefix 0xFF).
    Malformed,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Truncated => f.write_str("truncated packet"),
            WireError::Malformed => f.write_str("malformed packet"),
        }
    }
}

impl std::error::Error for WireError {}

/// A bounds-checked cursor over a packet payload.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn peek_u8(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    pub fn u8(&mut self) -> Result<u8, WireError> {
        let b = *self.buf.get(self.pos).ok_or(WireError::Truncated)?;
        self.pos += 1;
        Ok(b)
    }

    pub fn bytes(&mut self, len: usize) -> Result<&'a [u8], WireError> {
        if self.remaining() < len {
            return Err(WireError::Truncated);
        }
        let s = &self.buf[self.pos..self.pos + len];
        self.pos += len;
        Ok(s)
    }

    pub fn skip(&mut self, len: usize) -> Result<(), WireError> {
        self.bytes(len).map(|_| ())
    }

    pub fn u16(&mut self) -> Result<u16, WireError> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u24(&mut self) -> Result<u32, WireError> {
        let b = self.bytes(3)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }

    pub fn u32(&mut self) -> Result<u32, WireError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Result<u64, WireError> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A length-encoded integer. Returns `Ok(None)` for the NULL marker 0xFB.
    pub fn lenenc_int_or_null(&mut self) -> Result<Option<u64>, WireError> {
        let first = self.u8()?;
        Ok(Some(match first {
            0..=0xFA => first as u64,
            0xFB => return Ok(None),
            0xFC => self.u16()? as u64,
            0xFD => self.u24()? as u64,
            0xFE => self.u64()?,
            0xFF => return Err(WireError::Malformed),
        }))
    }

    /// A length-encoded integer; the NULL marker is malformed here.
    pub fn lenenc_int(&mut self) -> Result<u64, WireError> {
        self.lenenc_int_or_null()?.ok_or(WireError::Malformed)
    }

    /// A length-encoded string. The length is checked against what remains before any
    /// slice is taken, so a huge announced length costs nothing.
    pub fn lenenc_bytes(&mut self) -> Result<&'a [u8], WireError> {
        let len = self.lenenc_int()?;
        if len > self.remaining() as u64 {
            return Err(WireError::Truncated);
        }
        self.bytes(len as usize)
    }

    /// Bytes up to (not including) the next NUL; the NUL is consumed.
    pub fn nul_bytes(&mut self) -> Result<&'a [u8], WireError> {
        let rest = &self.buf[self.pos..];
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or(WireError::Truncated)?;
        self.pos += end + 1;
        Ok(&rest[..end])
    }

    /// Bytes up to the next NUL or the end of the payload (several fields are
    /// "NUL-terminated, or to the end" depending on the client library).
    pub fn nul_or_eof_bytes(&mut self) -> &'a [u8] {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(end) => {
                self.pos += end + 1;
                &rest[..end]
            }
            None => {
                self.pos = self.buf.len();
                rest
            }
        }
    }

    /// Everything left in the payload.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }
}

/// Appends a length-encoded integer.
pub fn put_lenenc_int(out: &mut BytesMut, v: u64) {
    if v < 0xFB {
        out.put_u8(v as u8);
    } else if v <= 0xFFFF {
        out.put_u8(0xFC);
        out.put_u16_le(v as u16);
    } else if v <= 0xFF_FFFF {
        out.put_u8(0xFD);
        out.put_uint_le(v, 3);
    } else {
        out.put_u8(0xFE);
        out.put_u64_le(v);
    }
}

/// Appends a length-encoded string.
pub fn put_lenenc_bytes(out: &mut BytesMut, s: &[u8]) {
    put_lenenc_int(out, s.len() as u64);
    out.put_slice(s);
}

/// Appends a NUL-terminated string.
pub fn put_nul_bytes(out: &mut BytesMut, s: &[u8]) {
    out.put_slice(s);
    out.put_u8(0);
}

/// Number of bytes `put_lenenc_int(v)` writes.
pub fn lenenc_int_len(v: u64) -> usize {
    if v < 0xFB {
        1
    } else if v <= 0xFFFF {
        3
    } else if v <= 0xFF_FFFF {
        4
    } else {
        9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenenc_round_trip_at_every_boundary() {
        for v in [
            0u64,
            250,
            251,
            0xFFFF,
            0x1_0000,
            0xFF_FFFF,
            0x100_0000,
            u64::MAX,
        ] {
            let mut b = BytesMut::new();
            put_lenenc_int(&mut b, v);
            assert_eq!(b.len(), lenenc_int_len(v));
            let mut r = Reader::new(&b);
            assert_eq!(r.lenenc_int().unwrap(), v);
            assert!(r.is_empty());
        }
    }

    #[test]
    fn lenenc_string_longer_than_payload_is_truncated_not_allocated() {
        let mut b = BytesMut::new();
        put_lenenc_int(&mut b, u64::MAX);
        b.extend_from_slice(b"abc");
        assert_eq!(Reader::new(&b).lenenc_bytes(), Err(WireError::Truncated));
    }

    #[test]
    fn null_marker_and_reserved_prefix() {
        assert_eq!(Reader::new(&[0xFB]).lenenc_int_or_null(), Ok(None));
        assert_eq!(
            Reader::new(&[0xFF]).lenenc_int_or_null(),
            Err(WireError::Malformed)
        );
        assert_eq!(
            Reader::new(&[0xFC, 1]).lenenc_int(),
            Err(WireError::Truncated)
        );
    }

    #[test]
    fn nul_strings() {
        let mut r = Reader::new(b"root\0db");
        assert_eq!(r.nul_bytes().unwrap(), b"root");
        assert_eq!(r.nul_bytes(), Err(WireError::Truncated));
        assert_eq!(r.nul_or_eof_bytes(), b"db");
        assert!(r.is_empty());
    }
}
