"""Connecting with real clients: PyMySQL and mysql-connector-python over TCP and the
Unix socket, COM_PING / COM_CHANGE_USER / COM_RESET_CONNECTION, multi-statements,
prepared statements, large packets and max_allowed_packet."""

import mysql.connector
import pymysql
import pytest
from pymysql.constants import CLIENT

import rawproto


def one(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchone()


def mysql_connector(server, **kw):
    args = dict(
        host="127.0.0.1",
        port=server.port,
        user="root",
        password="",
        use_pure=True,
        connection_timeout=10,
    )
    args.update(kw)
    return mysql.connector.connect(**args)


# -- PyMySQL ------------------------------------------------------------------


@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
def test_pymysql_tcp_select_1(kiln_shared, tls):
    c = kiln_shared.connect(ssl_disabled=not tls)
    assert one(c, "SELECT 1") == (1,)
    c.close()


def test_pymysql_unix_socket_select_1(kiln_shared):
    c = kiln_shared.connect_unix()
    assert one(c, "SELECT 1") == (1,)
    assert one(c, "SELECT 1 + 1") == (2,)
    c.close()


def test_version_starts_with_8_0(kiln_shared):
    c = kiln_shared.connect()
    (v,) = one(c, "SELECT VERSION()")
    assert v.startswith("8.0"), v
    assert c.get_server_info().startswith("8.0")
    c.close()


def test_version_comment_is_a_nonempty_string(kiln_shared):
    c = kiln_shared.connect()
    (v,) = one(c, "SELECT @@version_comment")
    assert isinstance(v, str) and v.strip(), repr(v)
    c.close()


def test_connect_to_unknown_database_is_1049(kiln_shared):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        kiln_shared.connect(database="nope")
    assert ei.value.args[0] == 1049
    assert ei.value.args[1] == "Unknown database 'nope'"


def test_use_unknown_database_is_1049(kiln_shared):
    c = kiln_shared.connect()
    with pytest.raises(pymysql.err.MySQLError) as ei:
        one(c, "USE nope")
    assert ei.value.args[0] == 1049
    assert ei.value.args[1] == "Unknown database 'nope'"
    # the connection is still usable
    assert one(c, "SELECT 1") == (1,)
    c.close()


def test_multi_statements_return_two_result_sets(kiln_shared):
    c = kiln_shared.connect(client_flag=CLIENT.MULTI_STATEMENTS)
    with c.cursor() as cur:
        cur.execute("SELECT 1; SELECT 2")
        assert cur.fetchall() == ((1,),)
        assert cur.nextset() is True
        assert cur.fetchall() == ((2,),)
        assert not cur.nextset()
    # the connection is in a clean state afterwards
    assert one(c, "SELECT 3") == (3,)
    c.close()


def test_multi_statements_without_the_flag_is_a_syntax_error(kiln_shared):
    c = kiln_shared.connect()
    with pytest.raises(pymysql.err.MySQLError) as ei:
        one(c, "SELECT 1; SELECT 2")
    assert ei.value.args[0] == 1064
    assert one(c, "SELECT 1") == (1,)
    c.close()


def test_one_megabyte_result_from_repeat(kiln_shared):
    c = kiln_shared.connect()
    (s,) = one(c, "SELECT REPEAT('a', 1000000)")
    assert s == "a" * 1000000
    c.close()


def test_one_megabyte_literal_round_trip(kiln_shared):
    c = kiln_shared.connect()
    big = "".join(chr(ord("a") + i % 26) for i in range(1000000))
    (s, n) = one(c, "SELECT %s, LENGTH(%s)", (big, big))
    assert n == 1000000
    assert s == big
    c.close()


# -- mysql-connector-python -------------------------------------------------------


def test_mysql_connector_connect_and_ping(kiln_shared):
    c = mysql_connector(kiln_shared)
    assert c.is_connected()
    c.cmd_ping()
    c.ping(reconnect=False)
    cur = c.cursor()
    cur.execute("SELECT 1")
    assert cur.fetchall() == [(1,)]
    c.close()


def test_mysql_connector_change_user(kiln):
    root = kiln.connect()
    one(root, "CREATE USER 'cu'@'%' IDENTIFIED WITH mysql_native_password BY 'cupw'")
    root.close()

    c = mysql_connector(kiln)
    cur = c.cursor()
    cur.execute("SET @v = 42")
    c.cmd_change_user(username="cu", password="cupw")
    cur = c.cursor()
    cur.execute("SELECT CURRENT_USER(), USER(), @v")
    cur_user, user, v = cur.fetchone()
    assert cur_user == "cu@%"
    assert user.startswith("cu@")
    assert v is None  # COM_CHANGE_USER resets the session
    c.cmd_change_user(username="root", password="")
    cur = c.cursor()
    cur.execute("SELECT CURRENT_USER()")
    assert cur.fetchone() == ("root@localhost",)
    c.close()


def test_mysql_connector_change_user_wrong_password_is_1045(kiln):
    root = kiln.connect()
    one(root, "CREATE USER 'cu'@'%' IDENTIFIED WITH mysql_native_password BY 'cupw'")
    root.close()
    c = mysql_connector(kiln)
    with pytest.raises(mysql.connector.Error) as ei:
        c.cmd_change_user(username="cu", password="wrong")
    assert ei.value.errno == 1045


def test_mysql_connector_reset_connection(kiln_shared):
    c = mysql_connector(kiln_shared)
    cur = c.cursor()
    cur.execute("SET @v = 7, SESSION wait_timeout = 1234")
    cur.execute("SELECT @v, @@session.wait_timeout")
    assert cur.fetchone() == (7, 1234)
    c.cmd_reset_connection()
    cur = c.cursor()
    cur.execute("SELECT @v, @@session.wait_timeout = @@global.wait_timeout")
    assert cur.fetchone() == (None, 1)
    c.close()


def test_prepared_statement_params_of_each_type(kiln_shared):
    c = mysql_connector(kiln_shared)
    cur = c.cursor(prepared=True)
    cur.execute("SELECT ?, ?, ?, ?, ?", (42, 2.5, "héllo", None, b"\x00\x01\xff"))
    row = cur.fetchone()
    assert row[0] == 42
    assert row[1] == 2.5
    assert row[2] == "héllo"
    assert row[3] is None
    assert bytes(row[4]) == b"\x00\x01\xff"
    # the same statement again with other values
    cur.execute("SELECT ?, ?, ?, ?, ?", (-7, -0.125, "", 1, b""))
    row = cur.fetchone()
    assert (row[0], row[1], row[2], row[3]) == (-7, -0.125, "", 1)
    assert len(row[4]) == 0
    c.close()


def test_prepared_statement_arithmetic_on_params(kiln_shared):
    c = mysql_connector(kiln_shared)
    cur = c.cursor(prepared=True)
    cur.execute("SELECT ? + ?, CONCAT(?, ?)", (40, 2, "ab", "cd"))
    assert tuple(cur.fetchone()) == (42, "abcd")
    c.close()


# -- max_allowed_packet -------------------------------------------------------------


@pytest.fixture
def small_packet_server(kiln_factory):
    return kiln_factory(["--max-allowed-packet=1048576"])


def test_max_allowed_packet_option_is_applied(small_packet_server):
    c = small_packet_server.connect()
    assert one(c, "SELECT @@max_allowed_packet") == (1048576,)
    c.close()


def test_two_megabyte_query_is_refused_with_1153(small_packet_server):
    # Only the header of a 2 MB COM_QUERY is sent: the server must judge the packet by
    # its length, answer ER_NET_PACKET_TOO_LARGE and close the connection.
    s = rawproto.login_root(small_packet_server.port)
    size = 2 * 1024 * 1024
    s.sendall(bytes([size & 0xFF, (size >> 8) & 0xFF, (size >> 16) & 0xFF, 0]))
    s.sendall(bytes([rawproto.COM_QUERY]) + b"SELECT '")
    errors = rawproto.closed_or_error(s)
    s.close()
    assert errors, "the server closed the connection without an error packet"
    assert errors[0][0] == 1153, errors
    assert "max_allowed_packet" in errors[0][2]
    # a new connection works
    c = small_packet_server.connect()
    assert one(c, "SELECT 1") == (1,)
    c.close()


def test_two_megabyte_query_from_pymysql_fails_and_server_survives(small_packet_server):
    c = small_packet_server.connect()
    big = "x" * (2 * 1024 * 1024)
    with pytest.raises(pymysql.err.MySQLError) as ei:
        one(c, "SELECT '" + big + "'")
    # MySQL answers 1153 (or the client sees the connection drop while still writing)
    assert ei.value.args[0] in (1153, 2006, 2013), ei.value.args
    c.close()
    c = small_packet_server.connect()
    assert one(c, "SELECT 1") == (1,)
    c.close()


def test_query_just_under_max_allowed_packet_works(small_packet_server):
    c = small_packet_server.connect()
    body = "y" * (1048576 - 100)
    (n,) = one(c, "SELECT LENGTH('" + body + "')")
    assert n == len(body)
    c.close()
