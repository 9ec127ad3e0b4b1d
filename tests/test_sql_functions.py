"""Built-in functions that act on the server or need real connections: the user-level
locks (GET_LOCK, RELEASE_LOCK, RELEASE_ALL_LOCKS, IS_FREE_LOCK, IS_USED_LOCK) across
sessions, with timeouts, KILL, deadlocks and session end; BENCHMARK; and the hash,
encoding and identifier functions (MD5, SHA1, SHA2, CRC32, TO_BASE64/FROM_BASE64,
INET_ATON/INET_NTOA, UUID, UUID_SHORT) through the protocol, including their result
metadata.

The reference is MySQL 8.0: a failing assertion here is a difference from MySQL.
"""

import hashlib
import threading
import time
import zlib

import pymysql
import pytest

LOCK_NAME_ERROR = 3057
LOCK_DEADLOCK = 3058


def connect(server, **kw):
    return pymysql.connect(host="127.0.0.1", port=server.port, user="root", password="",
                           autocommit=True, **kw)


def val(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        r = cur.fetchall()
    assert len(r) == 1 and len(r[0]) == 1, r
    return r[0][0]


def error_of(conn, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        val(conn, sql)
    return e.value.args[0]


@pytest.fixture(scope="module")
def server(kiln_shared):
    return kiln_shared


def test_get_lock_is_exclusive_per_connection_and_recursive(server):
    a, b = connect(server), connect(server)
    try:
        a_id = val(a, "SELECT CONNECTION_ID()")
        assert val(a, "SELECT GET_LOCK('Deploy', 5)") == 1
        assert val(a, "SELECT GET_LOCK('deploy', 0)") == 1, "the holder takes it again"
        assert val(b, "SELECT GET_LOCK('DEPLOY', 0)") == 0, "names are case-insensitive"
        assert val(b, "SELECT IS_FREE_LOCK('deploy')") == 0
        assert val(b, "SELECT IS_USED_LOCK('deploy')") == a_id
        assert val(b, "SELECT RELEASE_LOCK('deploy')") == 0, "held by another connection"
        assert val(a, "SELECT RELEASE_LOCK('deploy')") == 1
        assert val(b, "SELECT IS_USED_LOCK('deploy')") == a_id, "taken twice, released once"
        assert val(a, "SELECT RELEASE_LOCK('deploy')") == 1
        assert val(b, "SELECT IS_FREE_LOCK('deploy')") == 1
        assert val(b, "SELECT IS_USED_LOCK('deploy')") is None
        assert val(a, "SELECT RELEASE_LOCK('deploy')") is None, "no such lock"
        # Transactions do not touch them.
        val(a, "SELECT GET_LOCK('t1', 0)")
        with a.cursor() as c:
            c.execute("BEGIN")
            c.execute("ROLLBACK")
        assert val(b, "SELECT IS_USED_LOCK('t1')") == a_id
        val(a, "SELECT GET_LOCK('t2', 0)")
        val(a, "SELECT GET_LOCK('t2', 0)")
        assert val(a, "SELECT RELEASE_ALL_LOCKS()") == 3
        assert val(b, "SELECT IS_FREE_LOCK('t1') + IS_FREE_LOCK('t2')") == 2
    finally:
        a.close()
        b.close()


def test_a_waiter_gets_the_lock_when_the_holder_disconnects(server):
    a, b = connect(server), connect(server)
    try:
        assert val(a, "SELECT GET_LOCK('handoff', 0)") == 1
        got = {}
        t = threading.Thread(target=lambda: got.update(r=val(b, "SELECT GET_LOCK('handoff', 30)")))
        t.start()
        time.sleep(0.3)
        assert t.is_alive(), "b waits"
        a.close()  # the end of a's session releases its locks
        t.join(20)
        assert got.get("r") == 1
        assert val(b, "SELECT IS_USED_LOCK('handoff') = CONNECTION_ID()") == 1
    finally:
        b.close()


def test_get_lock_times_out_and_a_kill_ends_the_wait(server):
    a, b, admin = connect(server), connect(server), connect(server)
    try:
        val(a, "SELECT GET_LOCK('busy', 0)")
        t0 = time.monotonic()
        assert val(b, "SELECT GET_LOCK('busy', 1)") == 0
        assert time.monotonic() - t0 >= 0.9
        b_id = val(b, "SELECT CONNECTION_ID()")
        got = {}
        t = threading.Thread(target=lambda: got.update(r=val(b, "SELECT GET_LOCK('busy', -1)")))
        t.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with admin.cursor() as c:
                c.execute("SHOW PROCESSLIST")
                info = [r[7] for r in c.fetchall() if r[0] == b_id]
            if info and info[0] and "GET_LOCK" in info[0].upper():
                break
            time.sleep(0.05)
        with admin.cursor() as c:
            c.execute(f"KILL QUERY {b_id}")
        t.join(10)
        assert not t.is_alive(), "KILL QUERY ends an unbounded GET_LOCK wait"
        # MySQL: NULL, or error 1317 when the kill is seen as an interrupted query.
        assert got.get("r") is None
        assert val(a, "SELECT RELEASE_LOCK('busy')") == 1
    finally:
        for c in (a, b, admin):
            c.close()


def test_a_lock_cycle_between_connections_is_error_3058(server):
    a, b = connect(server), connect(server)
    try:
        val(a, "SELECT GET_LOCK('left', 0)")
        val(b, "SELECT GET_LOCK('right', 0)")
        got = {}
        t = threading.Thread(target=lambda: got.update(r=val(a, "SELECT GET_LOCK('right', 30)")))
        t.start()
        time.sleep(0.3)
        assert error_of(b, "SELECT GET_LOCK('left', 30)") == LOCK_DEADLOCK
        assert val(b, "SELECT RELEASE_LOCK('right')") == 1, "b kept its lock"
        t.join(10)
        assert got.get("r") == 1
        assert val(a, "SELECT RELEASE_ALL_LOCKS()") == 2
    finally:
        a.close()
        b.close()


def test_lock_names_are_checked(server):
    c = connect(server)
    try:
        assert error_of(c, "SELECT GET_LOCK('', 0)") == LOCK_NAME_ERROR
        assert error_of(c, "SELECT GET_LOCK(NULL, 0)") == LOCK_NAME_ERROR
        assert error_of(c, f"SELECT IS_FREE_LOCK('{'x' * 65}')") == LOCK_NAME_ERROR
        assert val(c, f"SELECT GET_LOCK('{'x' * 64}', 0)") == 1
        assert val(c, "SELECT RELEASE_ALL_LOCKS()") == 1
        assert error_of(c, "SELECT GET_LOCK('x')") == 1582
    finally:
        c.close()


def test_hash_and_encoding_functions(server):
    c = connect(server)
    try:
        with c.cursor() as cur:
            cur.execute("SELECT MD5('kiln'), SHA1('kiln'), SHA2('kiln', 256), CRC32('kiln'), "
                        "TO_BASE64('kiln'), FROM_BASE64('a2lsbg=='), INET_ATON('10.1.2.3'), "
                        "INET_NTOA(167838211), SHA2('kiln', 7)")
            row = cur.fetchone()
            assert row[0] == hashlib.md5(b"kiln").hexdigest()
            assert row[1] == hashlib.sha1(b"kiln").hexdigest()
            assert row[2] == hashlib.sha256(b"kiln").hexdigest()
            assert row[3] == zlib.crc32(b"kiln")
            assert row[4:] == ("a2lsbg==", b"kiln", 167838211, "10.1.2.3", None)
            cur.execute("SELECT UUID(), UUID(), UUID_SHORT(), UUID_SHORT()")
            u1, u2, s1, s2 = cur.fetchone()
            assert u1 != u2 and len(u1) == 36 and u1[14] == "1"
            assert s2 == s1 + 1
            # UUID() per row, not once per statement.
            cur.execute("SELECT COUNT(DISTINCT u) FROM (SELECT UUID() AS u UNION ALL "
                        "SELECT UUID() UNION ALL SELECT UUID()) AS t")
            assert cur.fetchone()[0] == 3
    finally:
        c.close()


def test_benchmark(server):
    c = connect(server)
    try:
        assert val(c, "SELECT BENCHMARK(1000, MD5('x'))") == 0
        with c.cursor() as cur:
            cur.execute("SELECT BENCHMARK(-1, 1)")
            assert cur.fetchone()[0] is None
            cur.execute("SHOW WARNINGS")
            assert [r[1] for r in cur.fetchall()] == [1411]
        # BENCHMARK evaluates its expression each time: a user variable counts them.
        with c.cursor() as cur:
            cur.execute("SET @n = 0")
        val(c, "SELECT BENCHMARK(5, @n := @n + 1)")
        assert val(c, "SELECT @n") == 5
    finally:
        c.close()
