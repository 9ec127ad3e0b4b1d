"""back_log: the listen queue of the TCP port and the Unix socket. As in MySQL 8.0
(WL#9704), when not given it is sized from max_connections (capped at 65535), it is
read-only, and a burst of connects as large as max_connections is queued, not
refused: with the old fixed 151, 1,024 sysbench threads connecting at once got EAGAIN
on the Unix socket ("Thread initialization failed")."""

import errno
import resource
import socket

import pymysql
import pytest

PER_CONN = "--thread-handling=one-thread-per-connection"
POOL = "--thread-handling=pool-of-threads"


def _one(server, sql):
    c = pymysql.connect(unix_socket=server.socket, user="root", autocommit=True)
    try:
        with c.cursor() as cur:
            cur.execute(sql)
            return cur.fetchone()
    finally:
        c.close()


def _somaxconn():
    try:
        with open("/proc/sys/net/core/somaxconn") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


@pytest.mark.parametrize(
    "args, expect",
    [
        ([], 151),
        (["--max-connections=3000"], 3000),
        (["--max-connections=100000"], 65535),
        (["--max-connections=3000", "--back-log=80"], 80),
    ],
    ids=["default", "follows-max-connections", "capped", "explicit"],
)
def test_back_log_is_sized_from_max_connections(kiln_factory, args, expect):
    s = kiln_factory(args)
    assert _one(s, "SELECT @@global.back_log") == (expect,)
    c = pymysql.connect(unix_socket=s.socket, user="root", autocommit=True)
    try:
        with c.cursor() as cur, pytest.raises(pymysql.err.OperationalError) as ei:
            cur.execute("SET GLOBAL back_log = 10")
        assert ei.value.args[0] == 1238, ei.value.args  # read-only variable
    finally:
        c.close()


@pytest.mark.parametrize("mode", [PER_CONN, POOL], ids=["per-connection", "pool"])
def test_a_connect_burst_of_max_connections_is_not_refused(kiln_factory, mode):
    burst = 2000
    cap = _somaxconn()
    if cap is not None and cap < burst:
        pytest.skip(f"net.core.somaxconn is {cap}: the kernel caps the queue below {burst}")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < burst + 500:
        if hard < burst + 500:
            pytest.skip(f"open-file limit too low: hard RLIMIT_NOFILE is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        s = kiln_factory([mode, f"--max-connections={burst + 100}"])
        assert _one(s, "SELECT @@global.back_log") == (burst + 100,)
        socks, refused = [], 0
        try:
            # Non-blocking connects, as libmysqlclient does them: a full listen queue
            # answers EAGAIN at once instead of waiting.
            for _ in range(burst):
                x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                x.setblocking(False)
                socks.append(x)
                try:
                    x.connect(s.socket)
                except BlockingIOError as e:
                    assert e.errno == errno.EAGAIN, e
                    refused += 1
        finally:
            for x in socks:
                x.close()
        assert refused == 0, f"{refused} of {burst} connects refused with EAGAIN"
        # The server is fine afterwards.
        assert _one(s, "SELECT 1") == (1,)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
