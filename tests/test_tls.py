"""TLS with the certificates kiln generates into the datadir on first start."""

import pymysql
import pytest


def status(conn, name):
    with conn.cursor() as cur:
        cur.execute(f"SHOW SESSION STATUS LIKE '{name}'")
        rows = cur.fetchall()
    assert len(rows) == 1, rows
    assert rows[0][0] == name
    return rows[0][1]


def tls_connect(server, **kw):
    # (PyMySQL ignores an ssl={'ca': ...} dict when ssl_verify_cert is also given, so
    # the CA goes in ssl_ca.)
    return server.connect(
        ssl_ca=str(server.datadir / "ca.pem"), ssl_verify_cert=True, **kw
    )


def test_generated_certificate_files_exist(kiln_shared):
    for f in ("ca.pem", "server-cert.pem", "server-key.pem"):
        p = kiln_shared.datadir / f
        assert p.exists(), f
        assert p.read_text().startswith("-----BEGIN"), f


def test_pymysql_tls_with_verified_certificate(kiln_shared):
    c = tls_connect(kiln_shared)
    assert status(c, "Ssl_version") in ("TLSv1.2", "TLSv1.3")
    assert status(c, "Ssl_cipher") != ""
    with c.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    c.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_certificate_matches_host_name(kiln_shared, host):
    c = tls_connect(kiln_shared, host=host, ssl_verify_identity=True)
    assert status(c, "Ssl_cipher") != ""
    c.close()


def _other_ca_pem():
    """A freshly made self-signed CA certificate that did not sign kiln's cert."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "not-kiln-ca")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def test_certificate_from_another_ca_is_rejected(kiln_shared, tmp_path):
    other = tmp_path / "other-ca.pem"
    other.write_bytes(_other_ca_pem())
    with pytest.raises(pymysql.err.OperationalError):
        kiln_shared.connect(ssl_ca=str(other), ssl_verify_cert=True)


def test_mariadb_cli_with_verified_tls(kiln_shared):
    rc, out, err = kiln_shared.mariadb(
        "--ssl",
        f"--ssl-ca={kiln_shared.datadir / 'ca.pem'}",
        "--ssl-verify-server-cert",
        "-e",
        "SHOW STATUS LIKE 'Ssl_cipher'",
    )
    assert rc == 0, err
    lines = out.strip().splitlines()
    assert lines[0].split("\t") == ["Variable_name", "Value"]
    name, value = lines[1].split("\t")
    assert name == "Ssl_cipher"
    assert value.strip() != ""


def test_without_tls_ssl_cipher_is_empty(kiln_shared):
    c = kiln_shared.connect(ssl_disabled=True)
    assert status(c, "Ssl_cipher") == ""
    assert status(c, "Ssl_version") == ""
    c.close()


def test_have_ssl_is_yes(kiln_shared):
    c = kiln_shared.connect(ssl_disabled=True)
    with c.cursor() as cur:
        cur.execute("SELECT @@have_ssl")
        assert cur.fetchone() == ("YES",)
    c.close()


def test_ssl_accepts_counts_tls_connections(kiln_shared):
    def accepts():
        c = kiln_shared.connect()
        with c.cursor() as cur:
            cur.execute("SHOW GLOBAL STATUS LIKE 'Ssl_accepts'")
            (row,) = cur.fetchall()
        c.close()
        return int(row[1])

    before = accepts()
    tls_connect(kiln_shared).close()
    assert accepts() >= before + 1
