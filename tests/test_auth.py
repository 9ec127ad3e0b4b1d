"""Accounts and authentication: mysql_native_password and caching_sha2_password over
TCP, TLS and the Unix socket, wrong passwords, CREATE/ALTER/DROP USER, persistence."""

import itertools

import pymysql
import pytest

import rawproto

_names = itertools.count(1)


def fresh_name(prefix):
    return f"{prefix}{next(_names)}"


def run(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def login(server, user, password, **kw):
    return server.connect(user=user, password=password, **kw)


def current_user(conn):
    return run(conn, "SELECT CURRENT_USER()")[0][0]


def access_denied(server, user, password, **kw):
    """Logs in and expects 1045; returns the message."""
    with pytest.raises(pymysql.err.OperationalError) as ei:
        login(server, user, password, **kw).close()
    assert ei.value.args[0] == 1045, ei.value.args
    return ei.value.args[1]


def create_users(server):
    c = server.connect()
    run(c, "CREATE USER 'n'@'%' IDENTIFIED WITH mysql_native_password BY 'npw'")
    run(c, "CREATE USER 's'@'%' IDENTIFIED WITH caching_sha2_password BY 'spw'")
    run(c, "CREATE USER 'd'@'%' IDENTIFIED BY 'dpw'")
    c.close()


@pytest.fixture(scope="module")
def users(kiln_shared):
    """The shared server with users n (native), s (sha2) and d (default plugin).
    Tests using it only log in; they change no accounts."""
    create_users(kiln_shared)
    return kiln_shared


@pytest.fixture
def users_private(kiln):
    """A private server with the same users, for tests that change accounts."""
    create_users(kiln)
    return kiln


def ca(server):
    return str(server.datadir / "ca.pem")


# -- mysql_native_password ----------------------------------------------------------


def test_native_login_without_tls(users):
    c = login(users, "n", "npw", ssl_disabled=True)
    assert current_user(c) == "n@%"
    c.close()


def test_native_login_over_tls(users):
    c = login(users, "n", "npw", ssl_ca=ca(users), ssl_verify_cert=True)
    assert current_user(c) == "n@%"
    c.close()


def test_native_wrong_password_is_1045_with_mysql_message(users):
    msg = access_denied(users, "n", "wrong", ssl_disabled=True)
    assert msg == "Access denied for user 'n'@'localhost' (using password: YES)"


def test_native_login_raw_protocol_is_accepted(users):
    s, hs, events = rawproto.auth_trace(users.port, "n", "npw")
    s.close()
    assert events[-1] == ("ok",), events


def test_mariadb_cli_login_native(users):
    rc, out, err = users.mariadb(
        "-N", "-e", "SELECT CURRENT_USER()", user="n", password="npw"
    )
    assert rc == 0, err
    assert out.strip() == "n@%"


def test_mariadb_cli_wrong_password_fails_with_1045(users):
    rc, out, err = users.mariadb("-e", "SELECT 1", user="n", password="bad")
    assert rc != 0
    assert "1045" in err and "Access denied for user 'n'@'localhost'" in err, err


# -- caching_sha2_password ----------------------------------------------------------


def test_sha2_first_login_over_plain_tcp_uses_rsa_key_exchange(kiln_shared):
    # A new account: its first login cannot use the cache, so PyMySQL asks for the
    # server's RSA public key and sends the password encrypted with it.
    u = fresh_name("rsa")
    root = kiln_shared.connect()
    run(root, f"CREATE USER '{u}'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw'")
    root.close()
    c = login(kiln_shared, u, "pw", ssl_disabled=True)
    assert current_user(c) == f"{u}@%"
    c.close()


def test_sha2_login_over_tls(users):
    c = login(users, "s", "spw", ssl_ca=ca(users), ssl_verify_cert=True)
    assert current_user(c) == "s@%"
    c.close()


def test_sha2_login_over_unix_socket(users):
    c = users.connect_unix(user="s", password="spw")
    assert current_user(c) == "s@%"
    c.close()


def test_sha2_second_login_uses_the_fast_path(kiln_shared):
    u = fresh_name("fast")
    root = kiln_shared.connect()
    run(root, f"CREATE USER '{u}'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw'")
    root.close()
    # Nothing cached yet: the scramble alone is not enough.
    s, hs, events = rawproto.auth_trace(kiln_shared.port, u, "pw")
    s.close()
    assert hs["plugin"] == "caching_sha2_password"
    assert ("full_auth",) in events, events
    # A full login (over TLS) fills the cache...
    c = login(kiln_shared, u, "pw", ssl_ca=ca(kiln_shared), ssl_verify_cert=True)
    c.close()
    # ...after which the scramble alone succeeds: fast auth result, then OK.
    s, hs, events = rawproto.auth_trace(kiln_shared.port, u, "pw")
    s.close()
    assert events == [("fast_ok",), ("ok",)], events
    # and PyMySQL's second login over plain TCP works
    c = login(kiln_shared, u, "pw", ssl_disabled=True)
    assert current_user(c) == f"{u}@%"
    c.close()


def test_sha2_fast_path_with_wrong_password_is_denied(kiln_shared):
    u = fresh_name("fastbad")
    root = kiln_shared.connect()
    run(root, f"CREATE USER '{u}'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw'")
    root.close()
    login(kiln_shared, u, "pw", ssl_ca=ca(kiln_shared), ssl_verify_cert=True).close()
    s, hs, events = rawproto.auth_trace(kiln_shared.port, u, "wrong")
    s.close()
    # a wrong scramble must never be let through
    assert ("ok",) not in events and ("fast_ok",) not in events, events


def test_sha2_wrong_password_is_1045(users):
    for kw in ({"ssl_disabled": True}, {"ssl_ca": ca(users), "ssl_verify_cert": True}):
        msg = access_denied(users, "s", "wrong", **kw)
        assert msg == "Access denied for user 's'@'localhost' (using password: YES)"


def test_default_plugin_user_can_log_in(users):
    c = login(users, "d", "dpw", ssl_disabled=True)
    assert current_user(c) == "d@%"
    c.close()
    c = login(users, "d", "dpw", ssl_ca=ca(users), ssl_verify_cert=True)
    assert current_user(c) == "d@%"
    c.close()


def test_default_plugin_is_caching_sha2(users):
    s, hs, events = rawproto.auth_trace(users.port, "d", "dpw")
    s.close()
    assert hs["plugin"] == "caching_sha2_password"
    # a sha2 account never gets switched to another plugin
    assert not [e for e in events if e[0] == "switch"], events


def test_unknown_user_is_1045_with_the_same_message_form(users):
    msg = access_denied(users, "nobody", "x", ssl_disabled=True)
    assert msg == "Access denied for user 'nobody'@'localhost' (using password: YES)"


def test_empty_password_for_user_with_password_is_1045_using_password_no(users):
    for user in ("n", "s"):
        msg = access_denied(users, user, "", ssl_disabled=True)
        assert msg == f"Access denied for user '{user}'@'localhost' (using password: NO)"


def test_mariadb_cli_login_sha2_over_tls(users):
    rc, out, err = users.mariadb(
        "--ssl",
        f"--ssl-ca={ca(users)}",
        "-N",
        "-e",
        "SELECT CURRENT_USER()",
        user="s",
        password="spw",
    )
    assert rc == 0, err
    assert out.strip() == "s@%"


# -- account management -------------------------------------------------------------


def test_alter_user_password(users_private):
    k = users_private
    c = k.connect()
    run(c, "ALTER USER 'n'@'%' IDENTIFIED BY 'new'")
    c.close()
    access_denied(k, "n", "npw", ssl_disabled=True)
    c = login(k, "n", "new", ssl_disabled=True)
    assert current_user(c) == "n@%"
    c.close()


def test_alter_user_password_of_sha2_user_drops_the_cached_one(users_private):
    k = users_private
    login(k, "s", "spw", ssl_ca=ca(k), ssl_verify_cert=True).close()  # now cached
    c = k.connect()
    run(c, "ALTER USER 's'@'%' IDENTIFIED BY 'snew'")
    c.close()
    s, hs, events = rawproto.auth_trace(k.port, "s", "spw")
    s.close()
    assert ("ok",) not in events, events
    access_denied(k, "s", "spw", ssl_disabled=True)
    login(k, "s", "snew", ssl_disabled=True).close()


def test_drop_user_then_login_fails(users_private):
    k = users_private
    login(k, "n", "npw").close()
    c = k.connect()
    run(c, "DROP USER 'n'@'%'")
    c.close()
    msg = access_denied(k, "n", "npw", ssl_disabled=True)
    assert msg == "Access denied for user 'n'@'localhost' (using password: YES)"


def test_drop_unknown_user_is_1396(kiln_shared):
    c = kiln_shared.connect()
    with pytest.raises(pymysql.err.MySQLError) as ei:
        run(c, "DROP USER 'nosuch'@'%'")
    assert ei.value.args[0] == 1396
    assert ei.value.args[1] == "Operation DROP USER failed for 'nosuch'@'%'"
    c.close()


def test_drop_user_if_exists_gives_note_3162(kiln_shared):
    c = kiln_shared.connect()
    with c.cursor() as cur:
        cur.execute("DROP USER IF EXISTS 'nosuch'@'%'")
        cur.execute("SHOW WARNINGS")
        rows = cur.fetchall()
    assert len(rows) == 1, rows
    level, code, msg = rows[0]
    assert level in ("Note", "Warning")
    assert code == 3162
    assert "'nosuch'@'%'" in msg
    c.close()


def test_create_existing_user_is_1396(users):
    c = users.connect()
    with pytest.raises(pymysql.err.MySQLError) as ei:
        run(c, "CREATE USER 'n'@'%' IDENTIFIED BY 'x'")
    assert ei.value.args[0] == 1396
    assert ei.value.args[1] == "Operation CREATE USER failed for 'n'@'%'"
    c.close()
    # the existing account is untouched
    login(users, "n", "npw", ssl_disabled=True).close()


def test_accounts_persist_across_restart(kiln_factory):
    k = kiln_factory()
    create_users(k)
    c = k.connect()
    run(c, "ALTER USER 'd'@'%' IDENTIFIED BY 'd2'")
    c.close()
    assert k.stop() == 0
    k2 = kiln_factory(datadir=k.datadir)
    for user, pw in (("n", "npw"), ("s", "spw"), ("d", "d2")):
        c = login(k2, user, pw, ssl_ca=ca(k2), ssl_verify_cert=True)
        assert current_user(c) == f"{user}@%"
        c.close()
    # plain TCP for the sha2 user after the restart: the cache is empty, RSA path
    c = login(k2, "s", "spw", ssl_disabled=True)
    c.close()
    access_denied(k2, "d", "dpw", ssl_disabled=True)


def test_default_authentication_plugin_native(kiln_factory):
    k = kiln_factory(["--default-authentication-plugin=mysql_native_password"])
    c = k.connect()
    run(c, "CREATE USER x IDENTIFIED BY 'p'")
    c.close()
    c = login(k, "x", "p", ssl_disabled=True)
    assert current_user(c) == "x@%"
    c.close()
    access_denied(k, "x", "wrong", ssl_disabled=True)
    # the greeting offers the native plugin and x logs in with it, no auth switch
    s, hs, events = rawproto.auth_trace(k.port, "x", "p")
    s.close()
    assert hs["plugin"] == "mysql_native_password"
    assert events == [("ok",)], events
