//! The little DER and PEM the RSA key files need: definite-length TLVs, positive
//! INTEGERs, SEQUENCE, BIT STRING, and PEM armour (RFC 7468) with standard base-64.
//! Only what `rsa` writes and reads; anything else decodes to `None`.

pub const TAG_INTEGER: u8 = 0x02;
pub const TAG_BIT_STRING: u8 = 0x03;
pub const TAG_NULL: u8 = 0x05;
pub const TAG_OID: u8 = 0x06;
pub const TAG_SEQUENCE: u8 = 0x30;

/// Upper bound on one TLV's content, far above any key we handle.
const CONTENT_LEN_MAX: usize = 1 << 20;

/// One TLV with definite length.
pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    assert!(content.len() <= CONTENT_LEN_MAX);
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
    out
}

/// A non-negative INTEGER from big-endian magnitude bytes.
pub fn integer(be: &[u8]) -> Vec<u8> {
    let skip = be.iter().take_while(|b| **b == 0).count();
    let mut content = Vec::with_capacity(be.len() - skip + 1);
    let mag = &be[skip..];
    if mag.is_empty() || mag[0] & 0x80 != 0 {
        content.push(0);
    }
    content.extend_from_slice(mag);
    tlv(TAG_INTEGER, &content)
}

/// Reads TLVs from a buffer in order.
pub struct DerReader<'a> {
    buf: &'a [u8],
}

impl<'a> DerReader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        DerReader { buf }
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The content of the next TLV, which must carry `tag`.
    pub fn read(&mut self, tag: u8) -> Option<&'a [u8]> {
        let (&t, rest) = self.buf.split_first()?;
        if t != tag {
            return None;
        }
        let (&l0, mut rest) = rest.split_first()?;
        let len = if l0 < 0x80 {
            l0 as usize
        } else {
            let n = (l0 & 0x7f) as usize;
            if n == 0 || n > 4 || rest.len() < n {
                return None;
            }
            let len = rest[..n]
                .iter()
                .fold(0usize, |acc, b| acc << 8 | *b as usize);
            rest = &rest[n..];
            len
        };
        if len > rest.len() || len > CONTENT_LEN_MAX {
            return None;
        }
        let (content, rest) = rest.split_at(len);
        self.buf = rest;
        Some(content)
    }

    /// A non-negative INTEGER's magnitude, big-endian, without leading zeros.
    pub fn integer(&mut self) -> Option<&'a [u8]> {
        let c = self.read(TAG_INTEGER)?;
        if c.is_empty() || c[0] & 0x80 != 0 {
            return None;
        }
        let skip = c.iter().take_while(|b| **b == 0).count();
        Some(&c[skip..])
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let w = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(w >> (18 - 6 * i) & 0x3f) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base-64, ignoring ASCII whitespace. `None` on any other character.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0u32;
    let mut pad = false;
    for c in text.bytes() {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            pad = true;
            continue;
        }
        if pad {
            return None;
        }
        let v = B64.iter().position(|b| *b == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// PEM armour with 64-character lines.
pub fn pem_encode(label: &str, der: &[u8]) -> String {
    let b64 = base64_encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// The DER inside the first `label` block of `text`.
pub fn pem_decode(label: &str, text: &str) -> Option<Vec<u8>> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let start = text.find(&begin)? + begin.len();
    let stop = start + text[start..].find(&end)?;
    base64_decode(&text[start..stop])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        for len in 0..70 {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64_decode(&base64_encode(&data)).unwrap(), data);
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert!(base64_decode("Zm9v!").is_none());
    }

    #[test]
    fn tlv_lengths_and_integers() {
        assert_eq!(integer(&[0, 0, 0x7f]), vec![2, 1, 0x7f]);
        assert_eq!(integer(&[0x80]), vec![2, 2, 0, 0x80]);
        assert_eq!(integer(&[]), vec![2, 1, 0]);
        let big = tlv(TAG_SEQUENCE, &[7u8; 300]);
        assert_eq!(&big[..4], &[0x30, 0x82, 0x01, 0x2c]);
        let mut r = DerReader::new(&big);
        assert_eq!(r.read(TAG_SEQUENCE).unwrap().len(), 300);
        assert!(r.is_empty());
        let mut r = DerReader::new(&[0x30, 0x85, 1, 1, 1, 1, 1]);
        assert!(r.read(TAG_SEQUENCE).is_none());
        let mut r = DerReader::new(&[0x30, 0x05, 1]);
        assert!(r.read(TAG_SEQUENCE).is_none());
    }

    #[test]
    fn pem_round_trip() {
        let der = vec![1u8; 100];
        let pem = pem_encode("PUBLIC KEY", &der);
        assert!(pem.lines().all(|l| l.len() <= 64));
        assert_eq!(pem_decode("PUBLIC KEY", &pem).unwrap(), der);
        assert!(pem_decode("RSA PRIVATE KEY", &pem).is_none());
    }
}
