"""Misbehaving clients on raw sockets: the server answers with an error or closes the
connection, never crashes, and keeps serving everyone else."""

import socket
import struct
import time

import pytest

import rawproto


def assert_server_fine(server):
    assert server.alive(), f"kiln died\n{server.diagnostics()}"
    c = server.connect(ssl_disabled=True)
    with c.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    c.close()


def response41(user=b"root", seq=1):
    caps = (
        rawproto.CLIENT_LONG_PASSWORD
        | rawproto.CLIENT_PROTOCOL_41
        | rawproto.CLIENT_SECURE_CONNECTION
        | rawproto.CLIENT_PLUGIN_AUTH
    )
    body = struct.pack("<IIB", caps, 1 << 24, 45) + b"\0" * 23
    body += user + b"\0" + b"\0" + b"caching_sha2_password\0"
    return rawproto.packet(seq, body)


# -- during the handshake ---------------------------------------------------------------


def test_greeting_is_protocol_10_with_8_0_version(kiln_shared):
    s, hs = rawproto.connect(kiln_shared.port)
    s.close()
    assert hs["version"].startswith("8.0")
    assert hs["capabilities"] & rawproto.CLIENT_PROTOCOL_41
    assert len(hs["scramble"]) == 20


def test_garbage_instead_of_handshake_response(kiln_shared):
    s, _ = rawproto.connect(kiln_shared.port)
    s.sendall(b"\xde\xad\xbe\xef" * 64)
    rawproto.closed_or_error(s)
    s.close()
    assert_server_fine(kiln_shared)


def test_http_request_instead_of_handshake_response(kiln_shared):
    s, _ = rawproto.connect(kiln_shared.port)
    s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: test\r\n\r\n")
    rawproto.closed_or_error(s)
    s.close()
    assert_server_fine(kiln_shared)


def test_http_request_without_reading_the_greeting(kiln_shared):
    s = socket.create_connection(("127.0.0.1", kiln_shared.port), timeout=5)
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    rawproto.closed_or_error(s)
    s.close()
    assert_server_fine(kiln_shared)


def test_handshake_response_with_wrong_sequence_id(kiln_shared):
    s, _ = rawproto.connect(kiln_shared.port)
    s.sendall(response41(seq=5))
    errors = rawproto.closed_or_error(s)
    s.close()
    # MySQL: ER_NET_PACKETS_OUT_OF_ORDER (1156) or a handshake error, then it closes
    if errors:
        assert errors[0][0] in (1156, 1043), errors
    assert_server_fine(kiln_shared)


def test_header_claiming_16mb_then_close(kiln_shared):
    s, _ = rawproto.connect(kiln_shared.port)
    s.sendall(b"\xff\xff\xff\x01")
    s.close()
    time.sleep(0.2)
    assert_server_fine(kiln_shared)


def test_header_claiming_16mb_with_partial_body_then_close(kiln_shared):
    s, _ = rawproto.connect(kiln_shared.port)
    s.sendall(b"\xff\xff\xff\x01" + b"\x00" * 1000)
    s.close()
    time.sleep(0.2)
    assert_server_fine(kiln_shared)


def test_truncated_handshake_response(kiln_shared):
    s, _ = rawproto.connect(kiln_shared.port)
    s.sendall(rawproto.packet(1, b"\x05\xa2"))  # far too short for Response41
    errors = rawproto.closed_or_error(s)
    s.close()
    assert_server_fine(kiln_shared)
    if errors:
        assert errors[0][0] in (1043, 1156, 1158, 1045), errors


def test_close_right_after_connect(kiln_shared):
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", kiln_shared.port), timeout=5)
        s.close()
    assert_server_fine(kiln_shared)


# -- after login ---------------------------------------------------------------------------


def test_unknown_command_is_1047_and_connection_stays(kiln_shared):
    s = rawproto.login_root(kiln_shared.port)
    rawproto.write_packet(s, 0, b"\xee")
    p = rawproto.read_packet(s)
    assert p is not None, "server closed the connection on an unknown command"
    err = rawproto.parse_err(p[1])
    assert err is not None and err[0] == 1047, p
    rawproto.write_packet(s, 0, bytes([rawproto.COM_QUERY]) + b"SELECT 1")
    p = rawproto.read_packet(s)
    assert p is not None and p[1][0] == 1  # one column
    s.close()
    assert_server_fine(kiln_shared)


def test_command_with_wrong_sequence_id(kiln_shared):
    s = rawproto.login_root(kiln_shared.port)
    rawproto.write_packet(s, 7, bytes([rawproto.COM_QUERY]) + b"SELECT 1")
    errors = rawproto.closed_or_error(s)
    s.close()
    if errors:
        assert errors[0][0] == 1156, errors
    assert_server_fine(kiln_shared)


def test_empty_packet_after_login(kiln_shared):
    s = rawproto.login_root(kiln_shared.port)
    rawproto.write_packet(s, 0, b"")
    s.settimeout(5)
    p = rawproto.read_packet(s)
    s.close()
    if p is not None:
        assert rawproto.parse_err(p[1]) is not None, p
    assert_server_fine(kiln_shared)


def test_garbage_after_login(kiln_shared):
    s = rawproto.login_root(kiln_shared.port)
    s.sendall(bytes(range(256)) * 8)
    s.close()
    time.sleep(0.2)
    assert_server_fine(kiln_shared)


# -- load and timeouts ---------------------------------------------------------------------


def test_200_connections_opened_and_closed_quickly(kiln_shared):
    for i in range(200):
        c = kiln_shared.connect(ssl_disabled=True)
        if i % 50 == 0:
            with c.cursor() as cur:
                cur.execute("SELECT 1")
                assert cur.fetchone() == (1,)
        c.close()
    assert_server_fine(kiln_shared)
    # every one of them was cleaned up
    c = kiln_shared.connect(ssl_disabled=True)
    deadline = time.monotonic() + 5
    while True:
        with c.cursor() as cur:
            cur.execute("SHOW GLOBAL STATUS LIKE 'Threads_connected'")
            n = int(cur.fetchone()[1])
        if n <= 2 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    c.close()
    assert n <= 2, f"Threads_connected = {n}"


def test_silent_client_is_dropped_after_connect_timeout(kiln_factory):
    k = kiln_factory(["--connect-timeout=2"])
    s, _ = rawproto.connect(k.port)
    t0 = time.monotonic()
    s.settimeout(10)
    try:
        data = s.recv(4096)
        while data:
            data = s.recv(4096)
    except ConnectionResetError:
        pass
    except socket.timeout:
        pytest.fail("the server kept a silent client for 10 s")
    finally:
        s.close()
    secs = time.monotonic() - t0
    assert 1.5 <= secs <= 5, secs
    assert_server_fine(k)


# Long operator chains parse in a loop but build left-deep trees that later passes walk
# recursively: a 2,000-term `+` chain once overflowed a connection thread's stack and
# killed the server. The parser now bounds one expression's chained operators at 4,096
# (error 1436), and SQL threads' stacks are sized for that height.
@pytest.mark.parametrize("mode", ["one-thread-per-connection", "pool-of-threads"])
def test_long_operator_chains_answer_or_refuse_and_the_server_lives(kiln_factory, mode):
    import pymysql

    server = kiln_factory([f"--thread-handling={mode}"])
    run = server.query

    assert run("SELECT " + "+".join(["1"] * 4097)) == ((4097,),)
    assert run("SELECT 1 FROM DUAL WHERE " + " OR ".join(["1=0"] * 2048)) == ()
    assert run("SELECT COUNT(*) FROM (SELECT 1) t WHERE " + " AND ".join(["1=1"] * 2048)) == ((1,),)
    # 250 nested levels, each with its own chain: the height stays within the bound
    inner = "+".join(["1"] * 15)
    e = inner
    for _ in range(250):
        e = "(" + e + ")+" + inner
    assert run("SELECT " + e) == ((3765,),)
    for sql in ("SELECT " + "+".join(["1"] * 20000),
                "SELECT 1 FROM DUAL WHERE " + " OR ".join(["1=0"] * 3000)):
        with pytest.raises(pymysql.MySQLError) as err:
            run(sql)
        assert err.value.args[0] == 1436
    assert run("SELECT 42") == ((42,),)
