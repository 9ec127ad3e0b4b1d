"""HandlerSocket writes under the SQL side's global and table locks, end to end on the
real kiln binary: a write issued while a SQL session holds FLUSH TABLES WITH READ LOCK
is answered only after UNLOCK TABLES (reads go on); with a short lock_wait_timeout, or
handlersocket_timeout below it, the write gets `1 1 146`; LOCK TABLES ... READ holds
writes back the same way; a server shutting down answers a waiting write `1 1 1317`
and the write is not applied. SQL writes of TEMPORARY tables pass the global read lock
meanwhile."""

import signal
import time

import pytest

from conftest import free_port
from hsclient import HSClient, build_line, decode_line
from test_mdl import run

GRL_STATE = "Waiting for global read lock"
MDL_STATE = "Waiting for table metadata lock"


def start(kiln_factory, *extra, datadir=None):
    rd, wr = free_port(), free_port()
    s = kiln_factory(["--handlersocket-address=127.0.0.1", f"--handlersocket-port={rd}",
                      f"--handlersocket-port-wr={wr}", *extra], datadir=datadir)
    return s, rd, wr


def setup(s):
    c = s.connect()
    run(c, "CREATE DATABASE hg")
    run(c, "USE hg")
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO t VALUES (1, 10), (2, 20)")
    return c


def worker_states(mon):
    """The states of the HandlerSocket workers (SHOW PROCESSLIST's system users)."""
    return [r[6] for r in run(mon, "SHOW PROCESSLIST") if r[1] == "system user"]


def wait_for_worker(mon, state, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if state in worker_states(mon):
            return
        time.sleep(0.02)
    raise AssertionError(f"no worker showed {state!r}: {worker_states(mon)!r}")


def opened(port):
    c = HSClient("127.0.0.1", port)
    assert c.open_index(1, "hg", "t", "PRIMARY", "id,v") == [b"0", b"1"]
    return c


def test_write_waits_for_the_global_read_lock(kiln_factory):
    s, rd, wr = start(kiln_factory)
    a = setup(s)
    b, mon = s.connect(database="hg"), s.connect()
    run(b, "CREATE TEMPORARY TABLE tmp (x INT)")
    run(a, "FLUSH TABLES WITH READ LOCK")
    with opened(wr) as w, opened(rd) as r:
        w.raw(build_line(1, "+", 2, 3, 30))
        w.raw(build_line(*HSClient.find_tokens(1, "=", [1], mod=("U", [1, 11]))))
        wait_for_worker(mon, GRL_STATE)
        # Reads are not held back (the read port's workers); neither are SQL reads
        # nor SQL writes of a temporary table.
        assert r.find(1, "=", [1]) == [b"0", b"2", b"1", b"10"]
        assert run(b, "SELECT COUNT(*) FROM t") == ((2,),)
        run(b, "INSERT INTO tmp VALUES (1)")
        assert run(b, "SELECT x FROM tmp") == ((1,),)
        assert GRL_STATE in worker_states(mon)
        run(a, "UNLOCK TABLES")
        assert decode_line(w.readline()) == [b"0", b"1"]
        assert decode_line(w.readline()) == [b"0", b"1", b"1"]  # one row changed
    assert run(a, "SELECT id, v FROM t ORDER BY id") == ((1, 11), (2, 20), (3, 30))
    # The batch left the gate: the global read lock is granted again at once.
    run(a, "SET lock_wait_timeout = 5")
    run(a, "FLUSH TABLES WITH READ LOCK")
    run(a, "UNLOCK TABLES")


@pytest.mark.parametrize("limit", ["--lock-wait-timeout=1", "--handlersocket-timeout=1"])
def test_write_times_out_under_the_global_read_lock(kiln_factory, limit):
    # min(lock_wait_timeout, handlersocket_timeout): either one bounds the wait.
    s, rd, wr = start(kiln_factory, limit)
    a = setup(s)
    run(a, "FLUSH TABLES WITH READ LOCK")
    with opened(wr) as w:
        assert w.request(1, "+", 2, 3, 30) == [b"1", b"1", b"146"]
        assert w.find(1, "=", [1], mod=("D", [])) == [b"1", b"1", b"146"]
        # Reads on the write port are not held back.
        assert w.find(1, "=", [2]) == [b"0", b"2", b"2", b"20"]
        run(a, "UNLOCK TABLES")
        # The connection lives on (the wait did not count as idle time).
        assert w.request(1, "+", 2, 3, 30) == [b"0", b"1"]
    assert run(a, "SELECT id FROM t ORDER BY id") == ((1,), (2,), (3,))


def test_write_waits_for_lock_tables(kiln_factory):
    s, rd, wr = start(kiln_factory, "--lock-wait-timeout=1")
    a = setup(s)
    mon = s.connect()
    with opened(wr) as w:
        for mode in ("READ", "WRITE"):
            run(a, f"LOCK TABLES t {mode}")
            assert w.request(1, "+", 2, 4, 40) == [b"1", b"1", b"146"], mode
            run(a, "UNLOCK TABLES")
        run(a, "SET lock_wait_timeout = 30")
        run(a, "LOCK TABLES t READ")
        w.raw(build_line(1, "+", 2, 4, 40))
        wait_for_worker(mon, MDL_STATE)
        run(a, "UNLOCK TABLES")
        assert decode_line(w.readline()) == [b"0", b"1"]
    assert run(a, "SELECT v FROM t WHERE id = 4") == ((40,),)


def test_shutdown_fails_a_waiting_write(kiln_factory):
    s, rd, wr = start(kiln_factory)
    a = setup(s)
    mon = s.connect()
    run(a, "FLUSH TABLES WITH READ LOCK")
    with opened(wr) as w:
        w.raw(build_line(1, "+", 2, 3, 30))
        wait_for_worker(mon, GRL_STATE)
        s.send_signal(signal.SIGTERM)
        assert decode_line(w.readline()) == [b"1", b"1", b"1317"]
    assert s.wait() == 0
    # Not applied.
    s2, _, _ = start(kiln_factory, datadir=s.datadir)
    assert run(s2.connect(), "SELECT id FROM hg.t ORDER BY id") == ((1,), (2,))
