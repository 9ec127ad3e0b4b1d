"""Metadata locks (MySQL 8.0 semantics), end to end with several real connections:
DDL waits for the transactions that used the table and keeps their committed rows,
later statements queue behind a waiting DDL, lock_wait_timeout (1205), KILL QUERY
(1317), the PROCESSLIST state, a deadlock among metadata-lock waits (1213), both
thread-handling modes, HandlerSocket connections, and the blocking pattern compared
with a real MariaDB (which agrees with MySQL 8.0 on it).
"""

import threading
import time

import pymysql
import pytest

from conftest import free_port
from hsclient import HSClient
from mariadb_server import start_private_mariadb

POOL = "--thread-handling=pool-of-threads"
MODES = {"per-connection": [], "pool": [POOL]}
WAIT_STATE = "Waiting for table metadata lock"
TIMEOUT_MSG = "Lock wait timeout exceeded; try restarting transaction"


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


class Bg(threading.Thread):
    """Runs statements on a connection in the background; `result` is the last
    statement's rows or the (errno, message) it failed with."""

    def __init__(self, conn, *stmts):
        super().__init__(daemon=True)
        self.conn, self.stmts, self.result = conn, stmts, None
        self.cid = conn_id(conn)  # before the thread owns the connection
        self.start()

    def run(self):
        try:
            for s in self.stmts:
                self.result = tuple(run(self.conn, s))
        except pymysql.err.MySQLError as e:
            self.result = e.args[:2]

    def done(self, timeout):
        self.join(timeout)
        return not self.is_alive()


def conn_id(c):
    return run(c, "SELECT CONNECTION_ID()")[0][0]


def state_of(mon, cid):
    rows = run(mon, f"SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = {cid}")
    return rows[0][0] if rows else None


def wait_for_state(mon, cid, state=WAIT_STATE, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if state_of(mon, cid) == state:
            return
        time.sleep(0.02)
    raise AssertionError(f"connection {cid} never showed {state!r}: {state_of(mon, cid)!r}")


def setup(c, db="mdl"):
    run(c, f"CREATE DATABASE {db}")
    run(c, f"CREATE TABLE {db}.t (id INT PRIMARY KEY, v VARCHAR(10))")
    run(c, f"INSERT INTO {db}.t VALUES (1, 'a')")
    run(c, f"CREATE TABLE {db}.u (id INT PRIMARY KEY)")


@pytest.mark.parametrize("mode", list(MODES))
def test_alter_waits_for_writer_and_keeps_its_changes(kiln_factory, mode):
    """The case docs/sql.md named: an ALTER that rebuilds the table while another
    transaction has uncommitted writes to it. Without metadata locks the rebuild
    copied what it saw and the writer's commit went to the old table (lost)."""
    s = kiln_factory(MODES[mode])
    a = s.connect()
    setup(a)
    run(a, "USE mdl")
    b, c, mon = (s.connect(database="mdl") for _ in range(3))
    run(a, "BEGIN")
    run(a, "INSERT INTO t VALUES (2, 'b')")
    run(a, "UPDATE t SET v = 'x' WHERE id = 1")
    # FIRST: a rebuild (the copy path), not an in-place change.
    alter = Bg(b, "ALTER TABLE t ADD COLUMN c INT DEFAULT 7 FIRST")
    wait_for_state(mon, alter.cid)
    assert not alter.done(0.3)
    # A reader arriving after the waiting ALTER queues behind it (MySQL's priority).
    reader = Bg(c, "SELECT id, v FROM t ORDER BY id")
    wait_for_state(mon, reader.cid)
    assert not reader.done(0.3)
    row = [r for r in run(mon, "SHOW PROCESSLIST") if r[0] == alter.cid][0]
    assert row[6] == WAIT_STATE and row[7].startswith("ALTER TABLE t")
    # SHOW CREATE TABLE / DESCRIBE jump the queue (high-priority locks, as MySQL).
    assert run(mon, "SHOW CREATE TABLE t")[0][0] == "t"
    assert len(run(mon, "DESCRIBE t")) == 2
    # The holder itself goes on using the table.
    assert run(a, "SELECT COUNT(*) FROM t") == ((2,),)
    run(a, "COMMIT")
    assert alter.done(10) and alter.result == ()
    assert reader.done(10)
    assert reader.result == ((1, "x"), (2, "b"))
    assert run(mon, "SELECT id, v, c FROM mdl.t ORDER BY id") == ((1, "x", 7), (2, "b", 7))


@pytest.mark.parametrize("mode", list(MODES))
def test_drop_table_waits_for_reader_transaction(kiln_factory, mode):
    s = kiln_factory(MODES[mode])
    a, b, mon = s.connect(), s.connect(), s.connect()
    setup(a)
    run(a, "BEGIN")
    assert run(a, "SELECT v FROM mdl.t") == (("a",),)
    drop = Bg(b, "DROP TABLE mdl.t")
    wait_for_state(mon, drop.cid)
    assert run(a, "SELECT v FROM mdl.t") == (("a",),)
    # Other tables are not held back.
    assert run(mon, "SELECT COUNT(*) FROM mdl.u") == ((0,),)
    assert not drop.done(0.2)
    run(a, "ROLLBACK")
    assert drop.done(10) and drop.result == ()
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(mon, "SELECT * FROM mdl.t")
    assert e.value.args[0] == 1146


def test_lock_wait_timeout(kiln):
    a, b, c = kiln.connect(), kiln.connect(), kiln.connect()
    setup(a)
    assert run(b, "SELECT @@lock_wait_timeout, @@global.lock_wait_timeout") == (
        (31536000, 31536000),
    )
    run(a, "SET autocommit = 0")
    run(a, "SELECT * FROM mdl.t")
    run(b, "SET SESSION lock_wait_timeout = 1")
    for ddl in (
        "ALTER TABLE mdl.t ADD COLUMN c INT",
        "TRUNCATE TABLE mdl.t",
        "CREATE INDEX iv ON mdl.t (v)",
        "RENAME TABLE mdl.t TO mdl.t2",
        "DROP TABLE mdl.t",
    ):
        t0 = time.monotonic()
        with pytest.raises(pymysql.err.MySQLError) as e:
            run(b, ddl)
        assert e.value.args == (1205, TIMEOUT_MSG), ddl
        assert 0.9 <= time.monotonic() - t0 < 5, ddl
    # The timed-out DDL no longer holds readers back; the holder's transaction lives.
    assert run(c, "SELECT COUNT(*) FROM mdl.t") == ((1,),)
    run(a, "INSERT INTO mdl.t VALUES (5, 'e')")
    run(a, "COMMIT")
    run(b, "ALTER TABLE mdl.t ADD COLUMN c INT")
    assert run(c, "SELECT id, c FROM mdl.t ORDER BY id") == ((1, None), (5, None))


@pytest.mark.parametrize("mode", list(MODES))
def test_kill_query_interrupts_waiting_ddl(kiln_factory, mode):
    s = kiln_factory(MODES[mode])
    a, b, c, mon = s.connect(), s.connect(), s.connect(), s.connect()
    setup(a)
    run(a, "BEGIN")
    run(a, "SELECT * FROM mdl.t")
    alter = Bg(b, "ALTER TABLE mdl.t ADD COLUMN c INT")
    wait_for_state(mon, alter.cid)
    reader = Bg(c, "SELECT COUNT(*) FROM mdl.t")
    wait_for_state(mon, reader.cid)
    run(mon, f"KILL QUERY {alter.cid}")
    assert alter.done(10)
    assert alter.result == (1317, "Query execution was interrupted")
    # The queued reader goes on once the DDL request is gone; b is usable.
    assert reader.done(10) and reader.result == ((1,),)
    assert run(b, "SELECT COUNT(*) FROM mdl.t") == ((1,),)
    assert state_of(mon, alter.cid) != WAIT_STATE
    # KILL (connection) of a waiting DDL ends it too, and nothing stays queued.
    b2 = s.connect()
    drop = Bg(b2, "DROP TABLE mdl.t")
    wait_for_state(mon, drop.cid)
    run(mon, f"KILL {drop.cid}")
    assert drop.done(10) and drop.result[0] in (1317, 2013)
    assert run(c, "SELECT COUNT(*) FROM mdl.t") == ((1,),)
    run(a, "COMMIT")
    run(mon, "ALTER TABLE mdl.t ADD COLUMN c INT")
    if mode == "pool":
        # The waits were announced to the scheduler.
        w = run(mon, "SELECT COUNT FROM information_schema.THREAD_POOL_WAITS "
                     "WHERE REASON = 'META_DATA_LOCK'")
        assert int(w[0][0]) >= 3


def test_autocommit_statements_hold_nothing_afterwards(kiln):
    a, b = kiln.connect(), kiln.connect()
    setup(a)
    run(a, "SELECT * FROM mdl.t")
    run(a, "INSERT INTO mdl.t VALUES (2, 'b')")
    with pytest.raises(pymysql.err.MySQLError):
        run(a, "INSERT INTO mdl.t VALUES (2, 'b')")  # a failed statement too
    run(a, "BEGIN")
    run(a, "SELECT * FROM mdl.t")
    run(a, "COMMIT")
    run(b, "SET lock_wait_timeout = 1")
    run(b, "ALTER TABLE mdl.t ADD COLUMN c INT")
    # An open transaction that touched only another table does not block.
    run(a, "BEGIN")
    run(a, "SELECT * FROM mdl.u")
    run(b, "ALTER TABLE mdl.t ADD COLUMN d INT")
    # A prepared statement's PREPARE holds nothing either.
    cur = a.cursor()
    run(a, "COMMIT")
    cur.execute("SELECT * FROM mdl.t WHERE id = %s", (1,))
    run(b, "DROP TABLE mdl.t")


def test_temporary_tables_take_no_lock(kiln):
    a, b = kiln.connect(), kiln.connect()
    setup(a)
    run(b, "CREATE TEMPORARY TABLE mdl.t (x INT)")  # shadows mdl.t for b
    run(a, "BEGIN")
    run(a, "SELECT * FROM mdl.t")
    run(b, "SET lock_wait_timeout = 1")
    run(b, "ALTER TABLE mdl.t ADD COLUMN y INT")  # b's temporary table
    run(b, "TRUNCATE TABLE mdl.t")
    run(b, "DROP TABLE mdl.t")  # drops the temporary one
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(b, "DROP TABLE mdl.t")  # now the base table: held by a
    assert e.value.args[0] == 1205
    run(a, "COMMIT")


def test_deadlock_among_metadata_lock_waits(kiln):
    """a holds u (its transaction wrote it); b's RENAME takes its names in order, gets
    t and waits for u; a then asks for t, held by b: a cycle. a is the victim (1213)
    and its transaction is rolled back, so b's RENAME completes."""
    a, b, mon = kiln.connect(), kiln.connect(), kiln.connect()
    setup(a)
    run(a, "BEGIN")
    run(a, "INSERT INTO mdl.u VALUES (9)")
    ren = Bg(b, "RENAME TABLE mdl.t TO mdl.t2, mdl.u TO mdl.u2")
    wait_for_state(mon, ren.cid)
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(a, "SELECT * FROM mdl.t")
    assert e.value.args == (
        1213,
        "Deadlock found when trying to get lock; try restarting transaction",
    )
    assert ren.done(10) and ren.result == ()
    assert run(mon, "SELECT id FROM mdl.u2") == ()  # a's insert was rolled back
    assert run(mon, "SHOW TABLES FROM mdl") == (("t2",), ("u2",))
    assert run(a, "SELECT COUNT(*) FROM mdl.t2") == ((1,),)


@pytest.mark.parametrize("mode", list(MODES))
def test_many_sessions_and_a_ddl_do_not_hang(kiln_factory, mode):
    """Writers in short transactions and repeated ALTERs: every ALTER eventually gets
    its turn, no committed row is lost, nothing hangs."""
    s = kiln_factory(MODES[mode])
    adm = s.connect()
    setup(adm)
    stop = time.monotonic() + 4
    committed = []
    errors = []

    def writer(n):
        c = s.connect()
        i = 0
        try:
            while time.monotonic() < stop:
                i += 1
                k = (n + 1) * 100000 + i
                run(c, "BEGIN")
                run(c, f"INSERT INTO mdl.t (id, v) VALUES ({k}, 'w')")
                run(c, "SELECT COUNT(*) FROM mdl.t")
                run(c, "COMMIT")
                committed.append(k)
        except pymysql.err.MySQLError as e:
            errors.append(e.args)

    ws = [threading.Thread(target=writer, args=(n,), daemon=True) for n in range(4)]
    for w in ws:
        w.start()
    d = s.connect()
    alters = 0
    while time.monotonic() < stop:
        run(d, f"ALTER TABLE mdl.t ADD COLUMN c{alters} INT")
        alters += 1
    for w in ws:
        w.join(30)
        assert not w.is_alive()
    assert errors == []
    assert alters >= 2 and len(committed) > 10
    ids = {r[0] for r in run(adm, "SELECT id FROM mdl.t")}
    assert set(committed) <= ids


def test_idle_handlersocket_connections_do_not_block_ddl(kiln_factory):
    rd, wr = free_port(), free_port()
    s = kiln_factory(
        [
            "--handlersocket-address=127.0.0.1",
            f"--handlersocket-port={rd}",
            f"--handlersocket-port-wr={wr}",
        ]
    )
    a = s.connect()
    setup(a)
    run(a, "SET lock_wait_timeout = 2")
    with HSClient("127.0.0.1", wr) as w, HSClient("127.0.0.1", rd) as r:
        assert w.request("P", 1, "mdl", "t", "PRIMARY", "id,v") == [b"0", b"1"]
        assert r.request("P", 1, "mdl", "t", "PRIMARY", "id,v") == [b"0", b"1"]
        assert w.request("1", "+", 2, 3, "c") == [b"0", b"1"]
        assert r.request("1", "=", 1, 3) == [b"0", b"2", b"3", b"c"]
        # Both connections stay open and idle: DDL does not wait for them.
        run(a, "ALTER TABLE mdl.t ADD COLUMN extra INT DEFAULT 5")
        run(a, "TRUNCATE TABLE mdl.t")
        # ... and they re-open the table transparently afterwards.
        assert w.request("1", "+", 2, 4, "d") == [b"0", b"1"]
        assert r.request("1", "=", 1, 4) == [b"0", b"2", b"4", b"d"]
    assert run(a, "SELECT id, v, extra FROM mdl.t") == ((4, "d", 5),)
    # An HS write waits for a DDL holding the table, and lands after it.
    b = s.connect()
    run(a, "BEGIN")
    run(a, "SELECT * FROM mdl.t")
    ddl = Bg(b, "ALTER TABLE mdl.t ADD COLUMN late INT DEFAULT 8")
    wait_for_state(s.connect(), ddl.cid)
    with HSClient("127.0.0.1", wr) as w:
        assert w.request("P", 1, "mdl", "t", "PRIMARY", "id,v") == [b"0", b"1"]
        got = []
        hs = threading.Thread(
            target=lambda: got.append(w.request("1", "+", 2, 6, "f")), daemon=True
        )
        hs.start()
        time.sleep(0.3)
        assert hs.is_alive(), got  # queued behind the waiting ALTER
        run(a, "COMMIT")
        hs.join(10)
        assert not hs.is_alive() and ddl.done(10) and ddl.result == ()
        assert got == [[b"0", b"1"]]
    assert run(a, "SELECT id, late FROM mdl.t ORDER BY id") == ((4, 8), (6, 8))


# Blocking pattern against MariaDB: (what the holder session did, the DDL) → whether
# the DDL (lock_wait_timeout = 1) times out.
HOLDERS = {
    "trx_read": ["BEGIN", "SELECT * FROM t"],
    "trx_write": ["BEGIN", "INSERT INTO t VALUES (2, 'b')"],
    "trx_update_none": ["BEGIN", "UPDATE t SET v = 'q' WHERE id = 99"],
    "autocommit_off_read": ["SET autocommit = 0", "SELECT * FROM t"],
    "autocommit_read": ["SELECT * FROM t"],
    "committed": ["BEGIN", "SELECT * FROM t", "COMMIT"],
    "rolled_back": ["BEGIN", "INSERT INTO t VALUES (3, 'c')", "ROLLBACK"],
    "other_table": ["BEGIN", "SELECT * FROM u"],
    "implicit_commit": ["BEGIN", "SELECT * FROM t", "CREATE TABLE w (x INT)"],
    "subquery": ["BEGIN", "SELECT * FROM u WHERE id IN (SELECT id FROM t)"],
    "show_create": ["BEGIN", "SHOW CREATE TABLE t"],
    "view_read": ["BEGIN", "SELECT * FROM vw"],
    "view_other": ["BEGIN", "SELECT * FROM vu"],
}
DDLS = [
    "ALTER TABLE t ADD COLUMN c INT",
    "DROP TABLE t",
    "TRUNCATE TABLE t",
    "RENAME TABLE t TO t9",
    "CREATE INDEX iv ON t (v)",
    "DROP VIEW vw",
    "CREATE TABLE IF NOT EXISTS t (id INT)",
    "CREATE TABLE t (id INT)",
]


def blocking_pattern(connect):
    out = {}
    for name, stmts in HOLDERS.items():
        for ddl in DDLS:
            adm = connect()
            run(adm, "DROP DATABASE IF EXISTS mdlx")
            run(adm, "CREATE DATABASE mdlx")
            run(adm, "CREATE TABLE mdlx.t (id INT PRIMARY KEY, v VARCHAR(10))")
            run(adm, "INSERT INTO mdlx.t VALUES (1, 'a')")
            run(adm, "CREATE TABLE mdlx.u (id INT PRIMARY KEY)")
            run(adm, "CREATE VIEW mdlx.vw AS SELECT id FROM mdlx.t")
            run(adm, "CREATE VIEW mdlx.vu AS SELECT id FROM mdlx.u")
            h, d = connect(database="mdlx"), connect(database="mdlx")
            for st in stmts:
                run(h, st)
            run(d, "SET lock_wait_timeout = 1")
            try:
                run(d, ddl)
                out[(name, ddl)] = "ok"
            except pymysql.err.MySQLError as e:
                out[(name, ddl)] = e.args
            h.close()
            d.close()
            adm.close()
    return out


def test_blocking_pattern_like_mariadb(kiln):
    m = start_private_mariadb(prefix="kiln-mdl-")
    try:
        got = blocking_pattern(kiln.connect)
        want = blocking_pattern(m.connect)
    finally:
        m.cleanup()
    assert got == want
    # The pattern is not trivial: some DDL waited, some did not.
    assert {"ok", (1205, TIMEOUT_MSG)} <= set(got.values())
