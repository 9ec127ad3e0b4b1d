//! Hash, encoding and identifier functions: MD5, SHA1 / SHA, SHA2, CRC32,
//! TO_BASE64 / FROM_BASE64, INET_ATON / INET_NTOA / IS_IPV4, UUID, UUID_SHORT — with
//! MySQL 8.0's results: digests as lower-case hex strings, SHA2 of an unsupported
//! length is NULL, base-64 lines of 76 characters and a decoder that skips
//! whitespace and answers NULL to anything malformed, INET_ATON's short forms
//! ('127.1' is 127.0.0.1), UUID in the version-1 layout.
//!
//! The digests themselves come from the RustCrypto crates (md-5, sha1, sha2) and
//! crc32fast: commodity code.

use std::sync::atomic::{AtomicU64, Ordering};

use kiln_common::Result;
use md5::Md5;
use sha1::{Digest, Sha1};
use sha2::{Sha224, Sha256, Sha384, Sha512};

use crate::eval::Env;
use crate::value::Value;

/// Calls of the functions above; None when `name` is not one of them.
pub fn call(name: &str, v: &[Value], _env: &mut dyn Env) -> Result<Option<Value>> {
    let arity = match name {
        "md5" | "sha" | "sha1" | "crc32" | "to_base64" | "from_base64" | "inet_aton"
        | "inet_ntoa" | "is_ipv4" => (1, 1),
        "sha2" => (2, 2),
        "uuid" | "uuid_short" => (0, 0),
        _ => return Ok(None),
    };
    super::check_arity(name, v.len(), arity.0, arity.1)?;
    if v.iter().any(Value::is_null) {
        // IS_IPV4(NULL) is 0; the others are NULL.
        return Ok(Some(if name == "is_ipv4" {
            Value::Int(0)
        } else {
            Value::Null
        }));
    }
    let bytes = |i: usize| v[i].to_text().unwrap_or_default();
    Ok(Some(match name {
        "md5" => Value::Str(hex(&Md5::digest(bytes(0)))),
        "sha" | "sha1" => Value::Str(hex(&Sha1::digest(bytes(0)))),
        "sha2" => {
            let b = bytes(0);
            match v[1].to_i64() {
                Some(0) | Some(256) => Value::Str(hex(&Sha256::digest(&b))),
                Some(224) => Value::Str(hex(&Sha224::digest(&b))),
                Some(384) => Value::Str(hex(&Sha384::digest(&b))),
                Some(512) => Value::Str(hex(&Sha512::digest(&b))),
                _ => Value::Null,
            }
        }
        "crc32" => Value::UInt(crc32fast::hash(&bytes(0)) as u64),
        "to_base64" => Value::Str(to_base64(&bytes(0))),
        "from_base64" => from_base64(&bytes(0)).map_or(Value::Null, Value::Bytes),
        "inet_aton" => {
            let s = String::from_utf8_lossy(&bytes(0)).into_owned();
            inet_aton(&s).map_or(Value::Null, |n| Value::UInt(n as u64))
        }
        "inet_ntoa" => match v[0].to_i64() {
            Some(n) if (0..=u32::MAX as i64).contains(&n) => {
                Value::Str(std::net::Ipv4Addr::from(n as u32).to_string())
            }
            _ => Value::Null,
        },
        "is_ipv4" => {
            let s = String::from_utf8_lossy(&bytes(0)).into_owned();
            Value::Int(s.parse::<std::net::Ipv4Addr>().is_ok() as i64)
        }
        "uuid" => Value::Str(uuid()),
        "uuid_short" => Value::UInt(uuid_short()),
        _ => unreachable!("arity table covers {name}"),
    }))
}

fn hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(DIGITS[(x >> 4) as usize] as char);
        s.push(DIGITS[(x & 15) as usize] as char);
    }
    s
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/// TO_BASE64 breaks its output into lines of this many characters.
const B64_LINE_CHARS: usize = 76;

/// TO_BASE64: '=' padding, a newline after every 76 characters of output.
pub fn to_base64(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4 + b.len() / 57);
    let mut line = 0;
    for chunk in b.chunks(3) {
        if line == B64_LINE_CHARS {
            out.push('\n');
            line = 0;
        }
        let n = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
        line += 4;
    }
    out
}

/// FROM_BASE64: skips spaces, tabs, CR and LF; None for anything else that is not
/// base 64, for a length that is not a multiple of 4, or for padding ('=', at most
/// two) anywhere but at the very end.
pub fn from_base64(s: &[u8]) -> Option<Vec<u8>> {
    let chars: Vec<u8> = s
        .iter()
        .copied()
        .filter(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .collect();
    if !chars.len().is_multiple_of(4) {
        return None;
    }
    let pad = chars.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(chars.len() / 4 * 3);
    let groups = chars.len() / 4;
    for (g, quad) in chars.chunks(4).enumerate() {
        let last = g + 1 == groups;
        let mut v = 0u32;
        for (i, &c) in quad.iter().enumerate() {
            let d = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                b'=' if last && i >= 4 - pad => 0,
                _ => return None,
            };
            v = v << 6 | d as u32;
        }
        let take = if last { 3 - pad } else { 3 };
        out.extend_from_slice(&v.to_be_bytes()[1..1 + take]);
    }
    Some(out)
}

/// INET_ATON: a dotted IPv4 address; 'a.b' and 'a.b.c' put the last part in the low
/// byte(s) ('127.1' is 127.0.0.1). None if malformed or a part exceeds 255.
pub fn inet_aton(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut nums = Vec::with_capacity(4);
    for p in &parts {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u32 = p.parse().ok()?;
        if n > 255 {
            return None;
        }
        nums.push(n);
    }
    let last = nums.pop()?;
    let mut v = 0u32;
    for n in nums.iter() {
        v = v << 8 | n;
    }
    // The leading parts are the high bytes; the last part the lowest.
    Some(v << (8 * (4 - parts.len())) << 8 | last)
}

/// UUID(): the version-1 layout (time_low-time_mid-time_hi_and_version-clock_seq-
/// node): 100 ns intervals since 1582-10-15, made unique within the process by a
/// counter, and a random node with the multicast bit set (no MAC address is used).
fn uuid() -> String {
    static LAST: AtomicU64 = AtomicU64::new(0);
    static NODE: std::sync::LazyLock<(u64, u16)> = std::sync::LazyLock::new(|| {
        let r = std::collections::hash_map::RandomState::new();
        use std::hash::BuildHasher;
        let x = r.hash_one(std::process::id()) ^ kiln_common::time::unix_micros_now() as u64;
        (
            (x & 0xffff_ffff_ffff) | 0x0100_0000_0000,
            (x >> 48) as u16 & 0x3fff,
        )
    });
    // Gregorian offset: 12219292800 s between 1582-10-15 and 1970-01-01.
    let now = (kiln_common::time::unix_micros_now() as u64 + 12_219_292_800_000_000) * 10;
    let t = LAST
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
            Some(now.max(last + 1))
        })
        .map_or(now, |last| now.max(last + 1));
    let (node, clock_seq) = *NODE;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        t & 0xffff_ffff,
        (t >> 32) & 0xffff,
        ((t >> 48) & 0x0fff) | 0x1000,
        clock_seq | 0x8000,
        node
    )
}

/// UUID_SHORT(): (server_id & 255) << 56 | server start time in seconds << 24, plus
/// one per call — MySQL's formula, with server_id 1.
fn uuid_short() -> u64 {
    static NEXT: std::sync::LazyLock<AtomicU64> = std::sync::LazyLock::new(|| {
        let start = (kiln_common::time::unix_micros_now() / 1_000_000) as u64;
        AtomicU64::new(1u64 << 56 | (start & 0xff_ffff_ffff) << 24)
    });
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::testenv::q;

    #[test]
    fn digests() {
        assert_eq!(
            q("SELECT MD5('abc'), SHA1('abc'), SHA('')"),
            [
                "900150983cd24fb0d6963f7d28e17f72",
                "a9993e364706816aba3e25717850c26c9cd0d89d",
                "da39a3ee5e6b4b0d3255bfef95601890afd80709"
            ]
        );
        assert_eq!(
            q("SELECT SHA2('abc', 256), SHA2('abc', 0), SHA2('abc', 100), SHA2(NULL, 256)"),
            [
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                "NULL",
                "NULL"
            ]
        );
        assert_eq!(
            q("SELECT LENGTH(SHA2('x', 512)), LENGTH(SHA2('x', 224))"),
            ["128", "56"]
        );
        assert_eq!(
            q("SELECT CRC32('MySQL'), CRC32(''), MD5(1)"),
            ["3259397556", "0", "c4ca4238a0b923820dcc509a6f75849b"]
        );
    }

    #[test]
    fn base64_round_trips_and_rejects_garbage() {
        assert_eq!(to_base64(b"abc"), "YWJj");
        assert_eq!(to_base64(b"ab"), "YWI=");
        assert_eq!(to_base64(b"a"), "YQ==");
        assert_eq!(to_base64(b""), "");
        let long = to_base64(&[7u8; 100]);
        assert_eq!(
            long.split('\n').map(str::len).collect::<Vec<_>>(),
            vec![76, 60]
        );
        for data in [
            &b""[..],
            b"a",
            b"ab",
            b"abc",
            &[0u8, 255, 128, 1, 2][..],
            &[9u8; 200][..],
        ] {
            assert_eq!(
                from_base64(to_base64(data).as_bytes()).as_deref(),
                Some(data)
            );
        }
        assert_eq!(from_base64(b"YW Jj\n").as_deref(), Some(&b"abc"[..]));
        for bad in [&b"YWJ"[..], b"YW*j", b"Y===", b"YQ==YQ==", b"=YWJ"] {
            assert_eq!(from_base64(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(
            q("SELECT FROM_BASE64(TO_BASE64('kiln')), FROM_BASE64('!')"),
            ["kiln", "NULL"]
        );
    }

    #[test]
    fn inet_functions() {
        assert_eq!(inet_aton("10.0.5.9"), Some(167_773_449));
        assert_eq!(inet_aton("127.1"), Some(2_130_706_433));
        assert_eq!(inet_aton("127.0.1"), Some(2_130_706_433));
        assert_eq!(inet_aton("1.2.3.256"), None);
        assert_eq!(inet_aton("1..2"), None);
        assert_eq!(inet_aton("a.b.c.d"), None);
        assert_eq!(
            q(
                "SELECT INET_NTOA(167773449), INET_NTOA(-1), INET_ATON('x'), IS_IPV4('10.0.0.1'), IS_IPV4('10.0.0.256')"
            ),
            ["10.0.5.9", "NULL", "NULL", "1", "0"]
        );
    }

    #[test]
    fn uuids_are_unique_and_well_formed() {
        let a = uuid();
        let b = uuid();
        assert_ne!(a, b);
        let parts: Vec<&str> = a.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            vec![8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('1'), "version 1: {a}");
        assert!(
            matches!(parts[3].as_bytes()[0], b'8'..=b'b'),
            "variant: {a}"
        );
        let (x, y) = (uuid_short(), uuid_short());
        assert_eq!(y, x + 1);
        assert_eq!(x >> 56, 1);
    }
}
