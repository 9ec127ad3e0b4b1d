//! Authentication plugins, server side: the connection scramble, the stored password
//! hashes of `mysql_native_password` and `caching_sha2_password`, and the RSA key
//! exchange `caching_sha2_password` uses to receive a password over plain TCP.
//!
//! Everything here is pure computation on bytes; which plugin runs when, and what
//! goes on the wire, is the server's connection code (`kiln-server/src/conn/auth.rs`).

pub mod caching_sha2;
pub mod der;
pub mod native;
pub mod rsa;
pub mod scramble;
pub mod sha_crypt;

/// Compares two byte strings in time that depends only on their lengths, so that
/// how much of a digest matched is not visible to the client.
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    #[test]
    fn ct_eq_compares_contents_and_lengths() {
        assert!(super::ct_eq(b"abc", b"abc"));
        assert!(!super::ct_eq(b"abc", b"abd"));
        assert!(!super::ct_eq(b"abc", b"ab"));
        assert!(super::ct_eq(b"", b""));
    }
}
