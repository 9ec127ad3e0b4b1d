//! Client side of the two password plugins the bench servers use:
//! `mysql_native_password` (MariaDB's default, SHA-1) and `caching_sha2_password`
//! (MySQL 8.0's and kiln's default, SHA-256; its full authentication is supported only
//! where the password may travel in clear, i.e. over a Unix socket).

use sha1::Sha1;
use sha2::{Digest, Sha256};

pub const NATIVE: &str = "mysql_native_password";
pub const CACHING_SHA2: &str = "caching_sha2_password";

/// The auth response of `plugin` to the 20-byte `scramble`, or None for a plugin this
/// client does not implement. An empty password gives an empty response.
pub fn response(plugin: &str, password: &[u8], scramble: &[u8]) -> Option<Vec<u8>> {
    if !supported(plugin) {
        return None;
    }
    if password.is_empty() {
        return Some(Vec::new());
    }
    let nonce = &scramble[..scramble.len().min(20)];
    match plugin {
        NATIVE => Some(native(password, nonce)),
        CACHING_SHA2 => Some(caching_sha2(password, nonce)),
        _ => None,
    }
}

/// Whether this client can answer `plugin`.
pub fn supported(plugin: &str) -> bool {
    plugin == NATIVE || plugin == CACHING_SHA2
}

/// SHA1(password) XOR SHA1(nonce ‖ SHA1(SHA1(password))).
fn native(password: &[u8], nonce: &[u8]) -> Vec<u8> {
    let h1 = Sha1::digest(password);
    let h2 = Sha1::digest(h1);
    let mut m = Sha1::new();
    m.update(nonce);
    m.update(h2);
    let h3 = m.finalize();
    h1.iter().zip(h3.iter()).map(|(a, b)| a ^ b).collect()
}

/// SHA256(password) XOR SHA256(SHA256(SHA256(password)) ‖ nonce).
fn caching_sha2(password: &[u8], nonce: &[u8]) -> Vec<u8> {
    let h1 = Sha256::digest(password);
    let h2 = Sha256::digest(h1);
    let mut m = Sha256::new();
    m.update(h2);
    m.update(nonce);
    let h3 = m.finalize();
    h1.iter().zip(h3.iter()).map(|(a, b)| a ^ b).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn native_password_matches_the_stored_hash() {
        // The server keeps SHA1(SHA1(pw)); XOR-ing the response with
        // SHA1(nonce ‖ stored) must give SHA1(pw), whose SHA1 is the stored hash.
        let nonce = b"0123456789abcdefghij";
        let r = response(NATIVE, b"secret", nonce).unwrap();
        let stored = Sha1::digest(Sha1::digest(b"secret"));
        let mut m = Sha1::new();
        m.update(nonce);
        m.update(stored);
        let mask = m.finalize();
        let h1: Vec<u8> = r.iter().zip(mask.iter()).map(|(a, b)| a ^ b).collect();
        assert_eq!(hex(&Sha1::digest(&h1)), hex(&stored));
        // PASSWORD('secret') in MySQL / MariaDB.
        assert_eq!(
            hex(&stored).to_uppercase(),
            "14E65567ABDB5135D0CFD9A70B3032C179A49EE7"
        );
    }

    #[test]
    fn caching_sha2_fast_path_verifies() {
        let nonce = b"ABCDEFGHIJKLMNOPQRST";
        let r = response(CACHING_SHA2, b"pw", nonce).unwrap();
        assert_eq!(r.len(), 32);
        let cached = Sha256::digest(Sha256::digest(b"pw"));
        let mut m = Sha256::new();
        m.update(cached);
        m.update(nonce);
        let mask = m.finalize();
        let h1: Vec<u8> = r.iter().zip(mask.iter()).map(|(a, b)| a ^ b).collect();
        assert_eq!(Sha256::digest(&h1), cached);
    }

    #[test]
    fn empty_password_and_unknown_plugins() {
        assert_eq!(response(NATIVE, b"", b"x").unwrap(), b"");
        assert_eq!(response(CACHING_SHA2, b"", b"x").unwrap(), b"");
        assert!(response("auth_gssapi_client", b"pw", b"x").is_none());
        assert!(response("mysql_clear_password", b"", b"x").is_none());
    }
}
