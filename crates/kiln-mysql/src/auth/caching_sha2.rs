//! `caching_sha2_password`.
//!
//! Stored (`authentication_string`), 70 bytes:
//!
//! ```text
//! offset  size  content
//!      0     3  "$A$"            digest type: SHA-256-crypt
//!      3     3  "005"            rounds / 1000, 3 hex digits (5000 rounds)
//!      6     1  "$"
//!      7    20  salt             printable, no '$' or NUL
//!     27    43  digest           crypt base-64 of SHA-256-crypt(password, salt, rounds)
//! ```
//!
//! Fast path: after one successful full authentication the server caches
//! `SHA256(SHA256(password))` in memory; the client's scramble response
//! `SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) ‖ scramble)` is checked against it with
//! no crypt rounds. Full authentication sends the cleartext password over a secure
//! channel (TLS or Unix socket) or RSA-encrypted (see `rsa`), checked against the
//! stored string.

use sha2::{Digest, Sha256};

use super::sha_crypt;

/// AuthMoreData status byte: the fast path succeeded; an OK packet follows.
pub const FAST_AUTH_SUCCESS: u8 = 3;
/// AuthMoreData status byte: the client must send its password (full authentication).
pub const PERFORM_FULL_AUTHENTICATION: u8 = 4;
/// Client's request for the server's RSA public key (during full authentication).
pub const REQUEST_PUBLIC_KEY: u8 = 2;

/// Rounds MySQL uses by default (`caching_sha2_password_digest_rounds` = 5000).
pub const DEFAULT_ROUNDS: u32 = 5000;
/// Salt length in bytes.
pub const SALT_LEN: usize = 20;
/// Length of the stored string.
pub const STORED_LEN: usize = 7 + SALT_LEN + sha_crypt::ENCODED_LEN;

fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// A new stored string for `password`, with a random salt.
pub fn stored_hash(password: &[u8]) -> String {
    let salt = super::scramble::new_scramble();
    stored_hash_with_salt(password, &salt, DEFAULT_ROUNDS)
}

/// The stored string for `password` with the given salt and rounds.
pub fn stored_hash_with_salt(password: &[u8], salt: &[u8; SALT_LEN], rounds: u32) -> String {
    assert!(
        rounds.is_multiple_of(1000) && rounds / 1000 <= 0xfff,
        "rounds must be a multiple of 1000 below 4096000"
    );
    let mut s = format!("$A${:03X}$", rounds / 1000);
    s.push_str(std::str::from_utf8(salt).expect("salt is ASCII"));
    s.push_str(&sha_crypt::encode(&sha_crypt::digest(
        password, salt, rounds,
    )));
    debug_assert_eq!(s.len(), STORED_LEN);
    s
}

/// Checks a cleartext password against a stored string. Malformed stored strings
/// never match.
pub fn verify_full(stored: &str, password: &[u8]) -> bool {
    let b = stored.as_bytes();
    if b.len() != STORED_LEN || &b[..3] != b"$A$" || b[6] != b'$' {
        return false;
    }
    let Ok(k) = u32::from_str_radix(&stored[3..6], 16) else {
        return false;
    };
    if k == 0 {
        return false;
    }
    let salt = &b[7..7 + SALT_LEN];
    let want = &b[7 + SALT_LEN..];
    let got = sha_crypt::encode(&sha_crypt::digest(password, salt, k * 1000));
    super::ct_eq(got.as_bytes(), want)
}

/// The value cached after a successful full authentication: `SHA256(SHA256(password))`.
pub fn fast_digest(password: &[u8]) -> [u8; 32] {
    sha256(&[&sha256(&[password])])
}

/// The client side of the fast path (for tests).
pub fn scramble_password(password: &[u8], scramble: &[u8]) -> [u8; 32] {
    let h1 = sha256(&[password]);
    let h2 = sha256(&[&h1]);
    let mask = sha256(&[&h2, scramble]);
    let mut out = [0u8; 32];
    for i in 0..32 {
        out[i] = h1[i] ^ mask[i];
    }
    out
}

/// Checks a fast-path response against the cached digest.
pub fn verify_fast(cached: &[u8; 32], scramble: &[u8], response: &[u8]) -> bool {
    if response.len() != 32 {
        return false;
    }
    let mask = sha256(&[cached, scramble]);
    let mut h1 = [0u8; 32];
    for i in 0..32 {
        h1[i] = response[i] ^ mask[i];
    }
    super::ct_eq(&sha256(&[&h1]), cached)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_string_layout_and_verification() {
        let s = stored_hash(b"hunter2");
        assert_eq!(s.len(), STORED_LEN);
        assert!(s.starts_with("$A$005$"));
        assert!(verify_full(&s, b"hunter2"));
        assert!(!verify_full(&s, b"hunter3"));
        assert!(!verify_full(&s, b""));
        assert!(!verify_full("$A$005$short", b"hunter2"));
        assert!(!verify_full(&s.replace("$A$005$", "$A$000$"), b"hunter2"));
        assert_ne!(stored_hash(b"hunter2"), s, "salts differ");
    }

    #[test]
    fn fixed_salt_is_deterministic_sha256_crypt() {
        let salt = *b"01234567890123456789";
        let s = stored_hash_with_salt(b"pw", &salt, 5000);
        let want = sha_crypt::encode(&sha_crypt::digest(b"pw", &salt, 5000));
        assert_eq!(s, format!("$A$005$01234567890123456789{want}"));
    }

    #[test]
    fn fast_path_round_trip() {
        let cached = fast_digest(b"pw");
        let scramble = *b"abcdefghijklmnopqrst";
        assert!(verify_fast(
            &cached,
            &scramble,
            &scramble_password(b"pw", &scramble)
        ));
        assert!(!verify_fast(
            &cached,
            &scramble,
            &scramble_password(b"px", &scramble)
        ));
        assert!(!verify_fast(&cached, &scramble, &[0u8; 20]));
    }
}
