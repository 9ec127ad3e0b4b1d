//! RSA-2048 for `caching_sha2_password` full authentication over plain TCP: the
//! client fetches the server's public key (PEM, SubjectPublicKeyInfo), encrypts
//! `(password ‖ NUL) XOR scramble` with RSAES-OAEP (SHA-1, MGF1-SHA-1, empty label)
//! and the server decrypts it here.
//!
//! Arithmetic is crypto-bigint's constant-time fixed-width integers; the private
//! exponentiation and the OAEP unpadding do not branch on secret data, so failures
//! cannot be told apart by timing (the Bleichenbacher/Manger family of attacks).
//! Keys are stored in the datadir as PKCS#1 `RSA PRIVATE KEY` and SPKI `PUBLIC KEY`
//! PEM files, the files MySQL's `caching_sha2_password_private_key_path` /
//! `_public_key_path` name.

use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};
use crypto_bigint::{NonZero, Odd, U1024, U2048, Uint};
use sha1::{Digest, Sha1};

use super::der::{self, DerReader};

/// Modulus size in bits and bytes.
pub const MODULUS_BITS: u32 = 2048;
pub const MODULUS_LEN: usize = 256;
/// The public exponent (F4).
pub const PUBLIC_EXPONENT: u64 = 65537;
const HASH_LEN: usize = 20;
/// OID 1.2.840.113549.1.1.1 (rsaEncryption), DER content bytes.
const RSA_ENCRYPTION_OID: [u8; 9] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];

/// Why a ciphertext did not decrypt. Deliberately carries no detail.
#[derive(Debug, PartialEq, Eq)]
pub struct DecryptError;

pub struct RsaPrivateKey {
    n: U2048,
    d: U2048,
    p: U1024,
    q: U1024,
    params: FixedMontyParams<32>,
}

impl std::fmt::Debug for RsaPrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RsaPrivateKey { .. }")
    }
}

fn be_bytes<const L: usize>(x: &Uint<L>) -> Vec<u8> {
    x.to_be_bytes().as_ref().to_vec()
}

fn from_be<const L: usize>(bytes: &[u8]) -> Option<Uint<L>> {
    let width = L * 8;
    if bytes.len() > width {
        return None;
    }
    let mut buf = vec![0u8; width];
    buf[width - bytes.len()..].copy_from_slice(bytes);
    Some(Uint::<L>::from_be_slice(&buf))
}

/// `x^y mod m` for small numbers.
fn pow_mod_u64(mut x: u64, mut y: u64, m: u64) -> u64 {
    let mut r = 1u64;
    x %= m;
    while y > 0 {
        if y & 1 == 1 {
            r = r * x % m;
        }
        x = x * x % m;
        y >>= 1;
    }
    r
}

impl RsaPrivateKey {
    /// Generates a new 2048-bit key (takes a fraction of a second to a few seconds).
    pub fn generate() -> RsaPrivateKey {
        let mut rng = rand::rng();
        loop {
            let p: U1024 = crypto_primes::random_prime(&mut rng, crypto_primes::Flavor::Any, 1024);
            let q: U1024 = crypto_primes::random_prime(&mut rng, crypto_primes::Flavor::Any, 1024);
            if let Some(key) = Self::from_primes(&p, &q) {
                return key;
            }
        }
    }

    /// The key for primes `p` and `q`, or `None` if they do not make a 2048-bit
    /// modulus with `e` invertible.
    pub fn from_primes(p: &U1024, q: &U1024) -> Option<RsaPrivateKey> {
        if p == q {
            return None;
        }
        let n: U2048 = p.concatenating_mul(q);
        if n.bits() != MODULUS_BITS {
            return None;
        }
        let one = U1024::ONE;
        let phi: U2048 = p
            .wrapping_sub(&one)
            .concatenating_mul(&q.wrapping_sub(&one));
        // d = (1 + k·φ) / e with k = −φ⁻¹ mod e; e is prime, so it only needs φ mod e ≠ 0.
        let e = PUBLIC_EXPONENT;
        let e_nz = NonZero::new(Uint::<1>::from_u64(e)).into_option()?;
        let r = phi.rem(&e_nz).as_words()[0];
        if r == 0 {
            return None;
        }
        let k = (e - pow_mod_u64(r, e - 2, e)) % e;
        // 1 + k·φ needs 2048 + 17 bits: compute it at 4096 bits.
        let wide = phi
            .resize::<64>()
            .wrapping_mul(&Uint::<64>::from_u64(k))
            .wrapping_add(&Uint::<64>::ONE);
        let (d_wide, rem) = wide.div_rem(&NonZero::new(Uint::<64>::from_u64(e)).into_option()?);
        if rem != Uint::<64>::ZERO {
            return None;
        }
        let d: U2048 = d_wide.resize();
        let params = FixedMontyParams::new(Odd::new(n).into_option()?);
        Some(RsaPrivateKey {
            n,
            d,
            p: *p,
            q: *q,
            params,
        })
    }

    /// The modulus, big-endian, 256 bytes.
    pub fn modulus_be(&self) -> Vec<u8> {
        be_bytes(&self.n)
    }

    /// RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }
    fn rsa_public_key_der(&self) -> Vec<u8> {
        let mut body = der::integer(&be_bytes(&self.n));
        body.extend(der::integer(&PUBLIC_EXPONENT.to_be_bytes()));
        der::tlv(der::TAG_SEQUENCE, &body)
    }

    /// SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`), what clients read.
    pub fn public_key_pem(&self) -> String {
        let mut alg = der::tlv(der::TAG_OID, &RSA_ENCRYPTION_OID);
        alg.extend(der::tlv(der::TAG_NULL, &[]));
        let mut body = der::tlv(der::TAG_SEQUENCE, &alg);
        let mut bits = vec![0u8];
        bits.extend(self.rsa_public_key_der());
        body.extend(der::tlv(der::TAG_BIT_STRING, &bits));
        der::pem_encode("PUBLIC KEY", &der::tlv(der::TAG_SEQUENCE, &body))
    }

    /// PKCS#1 RSAPrivateKey PEM (`-----BEGIN RSA PRIVATE KEY-----`).
    pub fn private_key_pem(&self) -> String {
        let one = U2048::ONE;
        let p: U2048 = self.p.resize();
        let q: U2048 = self.q.resize();
        let nz = |x: U2048| {
            NonZero::new(x)
                .into_option()
                .expect("p-1, q-1 are non-zero")
        };
        let dp = self.d.rem(&nz(p.wrapping_sub(&one)));
        let dq = self.d.rem(&nz(q.wrapping_sub(&one)));
        let p_odd = Odd::new(self.p).into_option().expect("p is an odd prime");
        let qinv = self
            .q
            .invert_odd_mod(&p_odd)
            .into_option()
            .expect("q is invertible mod p");
        let mut body = der::integer(&[0]);
        for x in [
            &self.n,
            &U2048::from_u64(PUBLIC_EXPONENT),
            &self.d,
            &p,
            &q,
            &dp,
            &dq,
            &qinv.resize(),
        ] {
            body.extend(der::integer(&be_bytes(x)));
        }
        der::pem_encode("RSA PRIVATE KEY", &der::tlv(der::TAG_SEQUENCE, &body))
    }

    /// Reads a PKCS#1 PEM written by `private_key_pem` (or by OpenSSL for a 2048-bit
    /// key with e = 65537). Checks that p·q = n.
    pub fn from_private_key_pem(text: &str) -> Option<RsaPrivateKey> {
        let der_bytes = der::pem_decode("RSA PRIVATE KEY", text)?;
        let mut outer = DerReader::new(&der_bytes);
        let mut r = DerReader::new(outer.read(der::TAG_SEQUENCE)?);
        if r.integer()? != [] as [u8; 0] {
            return None;
        }
        let n: U2048 = from_be(r.integer()?)?;
        let e: Uint<1> = from_be(r.integer()?)?;
        if e != Uint::<1>::from_u64(PUBLIC_EXPONENT) {
            return None;
        }
        let _d = r.integer()?;
        let p: U1024 = from_be(r.integer()?)?;
        let q: U1024 = from_be(r.integer()?)?;
        let key = Self::from_primes(&p, &q)?;
        (key.n == n).then_some(key)
    }

    /// RSAES-OAEP decryption (SHA-1, MGF1-SHA-1, empty label).
    pub fn decrypt_oaep_sha1(&self, ciphertext: &[u8]) -> Result<Vec<u8>, DecryptError> {
        if ciphertext.len() != MODULUS_LEN {
            return Err(DecryptError);
        }
        let c = U2048::from_be_slice(ciphertext);
        if c >= self.n {
            return Err(DecryptError);
        }
        let m = FixedMontyForm::new(&c, &self.params)
            .pow(&self.d)
            .retrieve();
        oaep_unpad(&be_bytes(&m))
    }

    /// RSAES-OAEP encryption with the public key (the client's side; for tests).
    pub fn encrypt_oaep_sha1(&self, message: &[u8], seed: &[u8; HASH_LEN]) -> Vec<u8> {
        let k = MODULUS_LEN;
        assert!(
            message.len() <= k - 2 * HASH_LEN - 2,
            "message too long for OAEP"
        );
        let mut db = vec![0u8; k - HASH_LEN - 1];
        db[..HASH_LEN].copy_from_slice(&sha1(&[]));
        let one_at = db.len() - message.len() - 1;
        db[one_at] = 1;
        db[one_at + 1..].copy_from_slice(message);
        xor_in(&mut db, &mgf1(seed, k - HASH_LEN - 1));
        let mut masked_seed = *seed;
        xor_in(&mut masked_seed, &mgf1(&db, HASH_LEN));
        let mut em = vec![0u8];
        em.extend_from_slice(&masked_seed);
        em.extend_from_slice(&db);
        let m = U2048::from_be_slice(&em);
        let e = U2048::from_u64(PUBLIC_EXPONENT);
        be_bytes(
            &FixedMontyForm::new(&m, &self.params)
                .pow_bounded_exp(&e, 17)
                .retrieve(),
        )
    }
}

fn sha1(data: &[u8]) -> [u8; HASH_LEN] {
    Sha1::digest(data).into()
}

fn mgf1(seed: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + HASH_LEN);
    let mut counter = 0u32;
    while out.len() < len {
        let mut h = Sha1::new();
        h.update(seed);
        h.update(counter.to_be_bytes());
        out.extend_from_slice(&h.finalize());
        counter += 1;
    }
    out.truncate(len);
    out
}

fn xor_in(dst: &mut [u8], mask: &[u8]) {
    for (d, m) in dst.iter_mut().zip(mask) {
        *d ^= m;
    }
}

/// 0xff if `a == b`, else 0, without a branch.
fn ct_eq_mask(a: u8, b: u8) -> u8 {
    let x = (a ^ b) as u16;
    // x − 1 borrows into bit 8 only when x == 0.
    (x.wrapping_sub(1) >> 8) as u8
}

/// EME-OAEP decoding, constant-time in the padding's contents (RFC 8017 §7.1.2).
fn oaep_unpad(em: &[u8]) -> Result<Vec<u8>, DecryptError> {
    debug_assert_eq!(em.len(), MODULUS_LEN);
    let mut seed = [0u8; HASH_LEN];
    seed.copy_from_slice(&em[1..1 + HASH_LEN]);
    let mut db = em[1 + HASH_LEN..].to_vec();
    xor_in(&mut seed, &mgf1(&db, HASH_LEN));
    let db_len = db.len();
    xor_in(&mut db, &mgf1(&seed, db_len));
    let lhash = sha1(&[]);
    let mut good = ct_eq_mask(em[0], 0);
    for i in 0..HASH_LEN {
        good &= ct_eq_mask(db[i], lhash[i]);
    }
    // Find the 0x01 separator after the zero padding, without branching on bytes.
    let mut looking = 0xffu8;
    let mut index = 0usize;
    for (i, b) in db.iter().enumerate().skip(HASH_LEN) {
        let is_zero = ct_eq_mask(*b, 0);
        let is_one = ct_eq_mask(*b, 1);
        let found = looking & is_one;
        let sel = (found as usize).wrapping_neg() >> (usize::BITS - 1); // 1 if found
        index = index * (1 - sel) + i * sel;
        good &= !(looking & !is_zero & !is_one);
        looking &= is_zero;
    }
    good &= !looking;
    if std::hint::black_box(good) != 0xff {
        return Err(DecryptError);
    }
    Ok(db[index + 1..].to_vec())
}

/// Recovers the password from the decrypted `(password ‖ NUL) XOR scramble`.
pub fn decode_password(plain: &[u8], scramble: &[u8]) -> Vec<u8> {
    if scramble.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<u8> = plain
        .iter()
        .enumerate()
        .map(|(i, b)| b ^ scramble[i % scramble.len()])
        .collect();
    if out.last() == Some(&0) {
        out.pop();
    }
    out
}

/// The client's side of `decode_password` (for tests).
pub fn encode_password(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    let mut p = password.to_vec();
    p.push(0);
    p.iter()
        .enumerate()
        .map(|(i, b)| b ^ scramble[i % scramble.len()])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;

    fn key() -> &'static RsaPrivateKey {
        static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
        KEY.get_or_init(RsaPrivateKey::generate)
    }

    #[test]
    fn oaep_round_trip_and_tamper() {
        let k = key();
        assert_eq!(k.modulus_be().len(), MODULUS_LEN);
        for msg in [&b""[..], b"x", b"secret password", &[0u8; 214][..]] {
            let ct = k.encrypt_oaep_sha1(msg, &[7u8; 20]);
            assert_eq!(k.decrypt_oaep_sha1(&ct).unwrap(), msg);
            let mut bad = ct.clone();
            bad[100] ^= 1;
            assert_eq!(k.decrypt_oaep_sha1(&bad), Err(DecryptError));
        }
        assert_eq!(k.decrypt_oaep_sha1(&[0u8; 10]), Err(DecryptError));
        assert_eq!(k.decrypt_oaep_sha1(&[0xffu8; 256]), Err(DecryptError));
    }

    #[test]
    fn pem_round_trip() {
        let k = key();
        let pem = k.private_key_pem();
        assert!(pem.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
        let back = RsaPrivateKey::from_private_key_pem(&pem).unwrap();
        assert_eq!(back.modulus_be(), k.modulus_be());
        let ct = k.encrypt_oaep_sha1(b"pw", &[1u8; 20]);
        assert_eq!(back.decrypt_oaep_sha1(&ct).unwrap(), b"pw");
        let public = k.public_key_pem();
        let spki = der::pem_decode("PUBLIC KEY", &public).unwrap();
        assert_eq!(spki.len(), 294, "2048-bit SPKI is 294 bytes");
        assert!(RsaPrivateKey::from_private_key_pem(&public).is_none());
    }

    #[test]
    fn password_xor_with_scramble() {
        let s = b"abcdefghijklmnopqrst";
        let long = vec![b'z'; 45];
        for pw in [&b"pw"[..], &long] {
            assert_eq!(decode_password(&encode_password(pw, s), s), pw);
        }
    }

    #[test]
    fn ct_eq_mask_is_exact() {
        for a in 0..=255u8 {
            for b in [0u8, 1, 0x80, 0xff] {
                assert_eq!(ct_eq_mask(a, b), if a == b { 0xff } else { 0 });
            }
        }
    }
}
