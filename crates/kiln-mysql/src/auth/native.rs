//! `mysql_native_password`.
//!
//! Stored: `SHA1(SHA1(password))`, shown as `*` + 40 upper-case hex digits (the
//! `authentication_string` format of MySQL). The client proves knowledge of
//! `SHA1(password)` by sending `SHA1(password) XOR SHA1(scramble ‖ stored)`; the
//! server undoes the XOR and checks that the SHA-1 of the result is the stored hash.

use sha1::{Digest, Sha1};

/// Length of a SHA-1 digest in bytes.
pub const DIGEST_LEN: usize = 20;

fn sha1(parts: &[&[u8]]) -> [u8; DIGEST_LEN] {
    let mut h = Sha1::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// `SHA1(SHA1(password))`.
pub fn stored_hash(password: &[u8]) -> [u8; DIGEST_LEN] {
    sha1(&[&sha1(&[password])])
}

/// `*` + upper-case hex of the stored hash, as in `mysql.user.authentication_string`.
pub fn stored_hex(hash: &[u8; DIGEST_LEN]) -> String {
    let mut s = String::with_capacity(41);
    s.push('*');
    for b in hash {
        s.push_str(&format!("{b:02X}"));
    }
    s
}

/// Parses `*` + 40 hex digits (either case). `None` for anything else.
pub fn parse_stored_hex(s: &str) -> Option<[u8; DIGEST_LEN]> {
    let hex = s.strip_prefix('*')?.as_bytes();
    if hex.len() != 2 * DIGEST_LEN {
        return None;
    }
    let mut out = [0u8; DIGEST_LEN];
    for (i, pair) in hex.chunks(2).enumerate() {
        let s = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(s, 16).ok()?;
    }
    Some(out)
}

/// The client side of the exchange (used by tests and by tools that log in).
pub fn scramble_password(password: &[u8], scramble: &[u8]) -> [u8; DIGEST_LEN] {
    let stage1 = sha1(&[password]);
    let stage2 = sha1(&[&stage1]);
    let mask = sha1(&[scramble, &stage2]);
    let mut out = [0u8; DIGEST_LEN];
    for i in 0..DIGEST_LEN {
        out[i] = stage1[i] ^ mask[i];
    }
    out
}

/// Checks a client's 20-byte response against the stored hash.
pub fn verify(stored: &[u8; DIGEST_LEN], scramble: &[u8], response: &[u8]) -> bool {
    if response.len() != DIGEST_LEN {
        return false;
    }
    let mask = sha1(&[scramble, stored]);
    let mut candidate = [0u8; DIGEST_LEN];
    for i in 0..DIGEST_LEN {
        candidate[i] = response[i] ^ mask[i];
    }
    super::ct_eq(&sha1(&[&candidate]), stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_hex_matches_mysql_password_function() {
        // MySQL 5.7: SELECT PASSWORD('secret') = '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'
        assert_eq!(
            stored_hex(&stored_hash(b"secret")),
            "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7"
        );
        let parsed = parse_stored_hex("*14e65567abdb5135d0cfd9a70b3032c179a49ee7").unwrap();
        assert_eq!(parsed, stored_hash(b"secret"));
        assert!(parse_stored_hex("14E65567ABDB5135D0CFD9A70B3032C179A49EE7").is_none());
        assert!(parse_stored_hex("*14E6").is_none());
        assert!(parse_stored_hex("*ZZE65567ABDB5135D0CFD9A70B3032C179A49EE7").is_none());
    }

    #[test]
    fn round_trip_and_wrong_password() {
        let stored = stored_hash(b"pw");
        let scramble = *b"abcdefghijklmnopqrst";
        assert!(verify(
            &stored,
            &scramble,
            &scramble_password(b"pw", &scramble)
        ));
        assert!(!verify(
            &stored,
            &scramble,
            &scramble_password(b"pX", &scramble)
        ));
        assert!(!verify(
            &stored,
            b"abcdefghijklmnopqrsX",
            &scramble_password(b"pw", &scramble)
        ));
        assert!(!verify(&stored, &scramble, &[]));
    }
}
