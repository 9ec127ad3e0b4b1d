"""The pool's edge-triggered connections (crates/kiln-server/src/pool/group.rs,
`PoolConn::state`, `Group::park`; docs/thread-pool.md "Edge-triggered connections"):
input that arrives while a connection is queued or running is never lost, also
behind buffered commands that get no answer (COM_STMT_CLOSE; a stress check: the lost
COM_QUIT this once caused was caught by test_thread_pool.py's sysbench test, which
closes its statements then quits), and a pipelining client whose input outgrows one
read is served to the end."""

import socket
import struct
import threading
import time

import rawproto

POOL = "--thread-handling=pool-of-threads"
COM_PING = 0x0E
COM_STMT_CLOSE = 0x19
COM_QUERY = 0x03


def ping_packet():
    return rawproto.packet(0, bytes([COM_PING]))


def close_packet(stmt_id):
    return rawproto.packet(0, struct.pack("<BI", COM_STMT_CLOSE, stmt_id))


def test_input_behind_buffered_unanswered_commands_is_not_lost(kiln_factory):
    s = kiln_factory([POOL, "--thread-pool-size=1"])
    socks = [rawproto.login_root(s.port) for _ in range(24)]
    errors = []

    def client(sock):
        try:
            sock.settimeout(10)
            # Small writes leave at once (no Nagle delay behind the unanswered ones).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for i in range(200):
                # Commands without an answer, some in one write (buffered together),
                # the rest in writes of their own that arrive while those run (as
                # sysbench closes its statements before COM_QUIT), then a PING.
                sock.sendall(close_packet(1000 + i) + close_packet(2000 + i))
                for k in range(i % 6):
                    sock.sendall(close_packet(3000 + k))
                sock.sendall(ping_packet())
                p = rawproto.read_packet(sock)
                assert p is not None and p[1][0] == 0x00, (i, p)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=client, args=(k,)) for k in socks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors[:3]
    for k in socks:
        k.close()


def test_pipelined_input_larger_than_one_read(kiln_factory):
    s = kiln_factory([POOL, "--thread-pool-size=1"])
    sock = rawproto.login_root(s.port)
    sock.settimeout(20)
    # 2,000 commands in one write: far more than one 16 KiB read takes, so the rest
    # raised its edge before the first read and no new event will come for it. Each
    # packet is 64 bytes, so a 16 KiB read ends exactly between two commands: after
    # the 256th nothing is buffered, and only `park`'s look at the socket (the last
    # read filled its room) finds the rest.
    n = 2000
    sql = b"SELECT '" + b"x" * 50 + b"'"
    assert len(rawproto.packet(0, bytes([COM_QUERY]) + sql)) == 64
    sock.sendall(b"".join(rawproto.packet(0, bytes([COM_QUERY]) + sql) for _ in range(n)))
    seen = 0
    while seen < n:
        # Column count, column definition, EOF, row, EOF.
        for _ in range(5):
            p = rawproto.read_packet(sock)
            assert p is not None, f"connection closed after {seen} answers"
            assert p[1][0] != 0xFF, rawproto.parse_err(p[1])
        seen += 1
    sock.sendall(ping_packet())
    p = rawproto.read_packet(sock)
    assert p is not None and p[1][0] == 0x00
    sock.close()
