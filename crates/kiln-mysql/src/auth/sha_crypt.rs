//! SHA-256-crypt (Drepper, "Unix crypt using SHA-256 and SHA-512", the `$5$` scheme),
//! the digest inside `caching_sha2_password`'s stored string.
//!
//! MySQL uses the algorithm unchanged except that its salt is 20 bytes (the
//! published scheme truncates salts to 16) and the round count is written as
//! `$A$<rounds/1000, 3 hex digits>$`. This module computes the 32-byte digest for any
//! salt length and encodes it in crypt's 43-character base-64.

use sha2::{Digest, Sha256};

/// Digest length of SHA-256 in bytes.
pub const DIGEST_LEN: usize = 32;
/// Length of the crypt base-64 encoding of a 32-byte digest.
pub const ENCODED_LEN: usize = 43;
/// Upper bound on rounds, as in the published scheme.
pub const ROUNDS_MAX: u32 = 999_999_999;

/// Appends `len` bytes made by repeating `block` (the "P sequence"/"S sequence" and
/// the length-driven additions of the scheme).
fn update_repeated(h: &mut Sha256, block: &[u8; DIGEST_LEN], len: usize) {
    let mut left = len;
    while left >= DIGEST_LEN {
        h.update(block);
        left -= DIGEST_LEN;
    }
    h.update(&block[..left]);
}

fn repeated(block: &[u8; DIGEST_LEN], len: usize) -> Vec<u8> {
    (0..len).map(|i| block[i % DIGEST_LEN]).collect()
}

/// The raw 32-byte SHA-256-crypt digest of `password` with `salt` and `rounds`.
pub fn digest(password: &[u8], salt: &[u8], rounds: u32) -> [u8; DIGEST_LEN] {
    assert!(rounds <= ROUNDS_MAX, "rounds out of range");
    // Digest B: password, salt, password.
    let b: [u8; DIGEST_LEN] = Sha256::new()
        .chain_update(password)
        .chain_update(salt)
        .chain_update(password)
        .finalize()
        .into();
    // Digest A.
    let mut h = Sha256::new();
    h.update(password);
    h.update(salt);
    update_repeated(&mut h, &b, password.len());
    let mut n = password.len();
    while n > 0 {
        if n & 1 == 1 {
            h.update(b);
        } else {
            h.update(password);
        }
        n >>= 1;
    }
    let a: [u8; DIGEST_LEN] = h.finalize().into();
    // Digest DP → P sequence.
    let mut h = Sha256::new();
    for _ in 0..password.len() {
        h.update(password);
    }
    let dp: [u8; DIGEST_LEN] = h.finalize().into();
    let p_seq = repeated(&dp, password.len());
    // Digest DS → S sequence.
    let mut h = Sha256::new();
    for _ in 0..16 + a[0] as usize {
        h.update(salt);
    }
    let ds: [u8; DIGEST_LEN] = h.finalize().into();
    let s_seq = repeated(&ds, salt.len());
    // The rounds.
    let mut c = a;
    for i in 0..rounds {
        let mut h = Sha256::new();
        if i & 1 == 1 {
            h.update(&p_seq);
        } else {
            h.update(c);
        }
        if i % 3 != 0 {
            h.update(&s_seq);
        }
        if i % 7 != 0 {
            h.update(&p_seq);
        }
        if i & 1 == 1 {
            h.update(c);
        } else {
            h.update(&p_seq);
        }
        c = h.finalize().into();
    }
    c
}

const ITOA64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Byte triples of the published encoding order for SHA-256 (most significant first).
const ORDER: [(usize, usize, usize); 10] = [
    (0, 10, 20),
    (21, 1, 11),
    (12, 22, 2),
    (3, 13, 23),
    (24, 4, 14),
    (15, 25, 5),
    (6, 16, 26),
    (27, 7, 17),
    (18, 28, 8),
    (9, 19, 29),
];

/// Crypt's base-64 of a digest: 43 characters.
pub fn encode(d: &[u8; DIGEST_LEN]) -> String {
    let mut out = String::with_capacity(ENCODED_LEN);
    let mut put = |w: u32, n: usize| {
        let mut w = w;
        for _ in 0..n {
            out.push(ITOA64[(w & 0x3f) as usize] as char);
            w >>= 6;
        }
    };
    for (x, y, z) in ORDER {
        put((d[x] as u32) << 16 | (d[y] as u32) << 8 | d[z] as u32, 4);
    }
    put((d[31] as u32) << 8 | d[30] as u32, 3);
    debug_assert_eq!(out.len(), ENCODED_LEN);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Vectors computed by glibc's crypt(3) ("$5$"); they use salts of at most 16
    // bytes, which is where glibc truncates.
    #[test]
    fn matches_glibc_crypt() {
        let cases: [(&[u8], &[u8], u32, &str); 4] = [
            (
                b"Hello world!",
                b"saltstring",
                5000,
                "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5",
            ),
            (
                b"Hello world!",
                b"saltstringsaltst",
                10000,
                "3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA",
            ),
            (
                b"This is just a test",
                b"toolongsaltstrin",
                5000,
                "Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5",
            ),
            (
                b"a very much longer password than thirty-two bytes, with more",
                b"0123456789abcdef",
                1000,
                "Hn2xhVg11XDtG90GtkzTMUrbnjZaa1FXwLEKXiuufp6",
            ),
        ];
        for (pw, salt, rounds, want) in cases {
            assert_eq!(encode(&digest(pw, salt, rounds)), want);
        }
    }
}
