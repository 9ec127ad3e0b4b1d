//! TLS and the RSA key pair, both kept in the data directory.
//!
//! Like `mysqld` with `auto_generate_certs`, the first start creates what is missing:
//!
//! | file               | what                                                       |
//! |--------------------|------------------------------------------------------------|
//! | `ca.pem`           | self-signed CA certificate (`--ssl-ca` for clients)        |
//! | `ca-key.pem`       | its key (ECDSA P-256)                                      |
//! | `server-cert.pem`  | server certificate signed by the CA, for localhost/127.0.0.1|
//! | `server-key.pem`   | its key                                                    |
//! | `private_key.pem`  | RSA-2048 key for `caching_sha2_password` over plain TCP    |
//! | `public_key.pem`   | its public half, the PEM clients receive                   |
//!
//! `--ssl-cert` / `--ssl-key` name a certificate chain and key to use instead of the
//! generated pair. Key files are written with mode 0600.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use kiln_mysql::auth::rsa::RsaPrivateKey;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::datadir::{write_atomic, write_atomic_mode};

pub const CA_CERT: &str = "ca.pem";
pub const CA_KEY: &str = "ca-key.pem";
pub const SERVER_CERT: &str = "server-cert.pem";
pub const SERVER_KEY: &str = "server-key.pem";
pub const RSA_PRIVATE_KEY: &str = "private_key.pem";
pub const RSA_PUBLIC_KEY: &str = "public_key.pem";

/// What connections need for TLS and for the RSA password exchange.
pub struct TlsMaterial {
    pub config: Arc<rustls::ServerConfig>,
    pub rsa: Arc<RsaPrivateKey>,
    pub rsa_public_pem: String,
    /// The certificate and key files in use (for `ssl_cert` / `ssl_key`).
    pub cert_path: PathBuf,
    pub key_path: PathBuf,
}

fn write_secret(path: &Path, data: &[u8]) -> Result<(), String> {
    write_atomic_mode(path, data, 0o600)
}

/// Loads the RSA key pair from the datadir, creating it on first use.
fn load_or_create_rsa(datadir: &Path) -> Result<RsaPrivateKey, String> {
    let private = datadir.join(RSA_PRIVATE_KEY);
    if private.exists() {
        let text = std::fs::read_to_string(&private)
            .map_err(|e| format!("cannot read {}: {e}", private.display()))?;
        return RsaPrivateKey::from_private_key_pem(&text).ok_or_else(|| {
            format!(
                "{} is not a 2048-bit PKCS#1 RSA key with e = 65537",
                private.display()
            )
        });
    }
    let key = RsaPrivateKey::generate();
    write_secret(&private, key.private_key_pem().as_bytes())?;
    write_atomic(
        &datadir.join(RSA_PUBLIC_KEY),
        key.public_key_pem().as_bytes(),
    )?;
    crate::errlog::note(&format!(
        "Generated RSA key pair {RSA_PRIVATE_KEY} / {RSA_PUBLIC_KEY} in the data directory"
    ));
    Ok(key)
}

/// Creates a CA and a server certificate signed by it.
fn generate_certs(datadir: &Path) -> Result<(), String> {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    };
    let err = |e: rcgen::Error| format!("cannot generate certificates: {e}");
    let ca_key = KeyPair::generate().map_err(err)?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "kiln_Auto_Generated_CA_Certificate");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca_params.self_signed(&ca_key).map_err(err)?;
    let issuer = Issuer::new(ca_params, &ca_key);

    let server_key = KeyPair::generate().map_err(err)?;
    let mut params = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
        .map_err(err)?;
    params
        .distinguished_name
        .push(DnType::CommonName, "kiln_Auto_Generated_Server_Certificate");
    let server_cert = params.signed_by(&server_key, &issuer).map_err(err)?;

    write_atomic(&datadir.join(CA_CERT), ca_cert.pem().as_bytes())?;
    write_secret(&datadir.join(CA_KEY), ca_key.serialize_pem().as_bytes())?;
    write_atomic(&datadir.join(SERVER_CERT), server_cert.pem().as_bytes())?;
    write_secret(
        &datadir.join(SERVER_KEY),
        server_key.serialize_pem().as_bytes(),
    )?;
    crate::errlog::note(
        "Generated CA and server certificates (ca.pem, server-cert.pem) in the data directory",
    );
    Ok(())
}

/// Builds the rustls configuration from PEM files.
pub fn server_config(
    cert_path: &Path,
    key_path: &Path,
) -> Result<Arc<rustls::ServerConfig>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert_path)
        .map_err(|e| format!("cannot read {}: {e}", cert_path.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cannot parse {}: {e}", cert_path.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no certificate", cert_path.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key_path)
        .map_err(|e| format!("cannot read key {}: {e}", key_path.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS configuration: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            format!(
                "certificate {} and key {} do not work together: {e}",
                cert_path.display(),
                key_path.display()
            )
        })?;
    Ok(Arc::new(config))
}

/// Loads (or on first start creates) the certificates and the RSA key pair.
pub fn load_or_create(
    datadir: &Path,
    ssl_cert: Option<&Path>,
    ssl_key: Option<&Path>,
) -> Result<TlsMaterial, String> {
    let (cert_path, key_path) = match (ssl_cert, ssl_key) {
        (Some(c), Some(k)) => (c.to_path_buf(), k.to_path_buf()),
        (None, None) => {
            let c = datadir.join(SERVER_CERT);
            let k = datadir.join(SERVER_KEY);
            if !c.exists() && !k.exists() {
                generate_certs(datadir)?;
            }
            (c, k)
        }
        _ => return Err("ssl_cert and ssl_key must be given together".into()),
    };
    let config = server_config(&cert_path, &key_path)?;
    let rsa = load_or_create_rsa(datadir)?;
    let rsa_public_pem = rsa.public_key_pem();
    Ok(TlsMaterial {
        config,
        rsa: Arc::new(rsa),
        rsa_public_pem,
        cert_path,
        key_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_start_generates_and_second_reuses() {
        let dir = std::env::temp_dir().join(format!("kiln-tls-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let a = load_or_create(&dir, None, None).unwrap();
        for f in [
            CA_CERT,
            CA_KEY,
            SERVER_CERT,
            SERVER_KEY,
            RSA_PRIVATE_KEY,
            RSA_PUBLIC_KEY,
        ] {
            assert!(dir.join(f).exists(), "{f}");
        }
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(dir.join(SERVER_KEY))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
        let cert = std::fs::read(dir.join(SERVER_CERT)).unwrap();
        let b = load_or_create(&dir, None, None).unwrap();
        assert_eq!(a.rsa_public_pem, b.rsa_public_pem);
        assert_eq!(std::fs::read(dir.join(SERVER_CERT)).unwrap(), cert);
        // Explicit files work, and a lone --ssl-cert is refused.
        let c = load_or_create(
            &dir,
            Some(&dir.join(SERVER_CERT)),
            Some(&dir.join(SERVER_KEY)),
        )
        .unwrap();
        assert_eq!(c.cert_path, dir.join(SERVER_CERT));
        assert!(load_or_create(&dir, Some(&dir.join(SERVER_CERT)), None).is_err());
        assert!(
            load_or_create(&dir, Some(&dir.join(SERVER_CERT)), Some(&dir.join(CA_KEY))).is_err()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
