"""LOCK TABLES, UNLOCK TABLES and FLUSH TABLES WITH READ LOCK with MySQL 8.0's
semantics, end to end on the real kiln binary with several PyMySQL sessions: the
errors of a session holding table locks (1100, 1099, 1192, 1223), what other
sessions wait for (READ: their writes; WRITE: their reads and writes; the global read
lock: their writes, DDL and COMMITs), lock_wait_timeout (1205), KILL QUERY (1317),
the PROCESSLIST states, what releases the locks (UNLOCK TABLES, BEGIN, the session's
end), the privileges (1044, 1142, 1227), and a single-session script whose error
numbers must equal a real MariaDB's (which agrees with MySQL 8.0 on them)."""

import threading
import time

import pymysql
import pytest

from conftest import free_port
from hsclient import HSClient
from mariadb_server import start_private_mariadb
from test_mdl import Bg, run, wait_for_state
from test_views import outcome

MDL_STATE = "Waiting for table metadata lock"
GRL_STATE = "Waiting for global read lock"


def err(c, sql):
    try:
        run(c, sql)
    except pymysql.err.MySQLError as e:
        return e.args[:2]
    raise AssertionError(f"no error from {sql!r}")


def setup(server):
    c = server.connect()
    run(c, "CREATE DATABASE lt")
    run(c, "USE lt")
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    run(c, "CREATE TABLE u (id INT PRIMARY KEY)")
    run(c, "INSERT INTO t VALUES (1, 10), (2, 20)")
    run(c, "INSERT INTO u VALUES (1)")
    return c


def session(server):
    c = server.connect(database="lt")
    return c


def test_errors_of_the_locking_session(kiln):
    a = setup(kiln)
    run(a, "LOCK TABLES t READ")
    assert run(a, "SELECT v FROM t ORDER BY id") == ((10,), (20,))
    assert err(a, "SELECT * FROM u") == (1100, "Table 'u' was not locked with LOCK TABLES")
    assert err(a, "UPDATE t SET v = 1") == (
        1099, "Table 't' was locked with a READ lock and can't be updated")
    assert err(a, "INSERT INTO t VALUES (3, 3)")[0] == 1099
    assert err(a, "DELETE FROM t")[0] == 1099
    # Locked without alias: used without one.
    assert err(a, "SELECT * FROM t AS x") == (1100, "Table 'x' was not locked with LOCK TABLES")
    # Subqueries and joins are checked too; written through the name only.
    assert err(a, "SELECT * FROM t WHERE id IN (SELECT id FROM u)")[0] == 1100
    assert err(a, "INSERT INTO u SELECT id + 5 FROM t")[0] == 1100
    # information_schema, SHOW and the session's temporary tables need no lock.
    assert run(a, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'lt'") \
        == ((2,),)
    assert run(a, "SHOW TABLES") == (("t",), ("u",))
    assert run(a, "SHOW CREATE TABLE t")[0][0] == "t"
    # SHOW that opens a table needs it locked (as MySQL).
    assert err(a, "SHOW CREATE TABLE u")[0] == 1100
    run(a, "CREATE TEMPORARY TABLE tmp (x INT)")
    run(a, "INSERT INTO tmp VALUES (1)")
    assert run(a, "SELECT x FROM tmp") == ((1,),)
    # DDL on a READ-locked table, and statements not allowed under LOCK TABLES.
    assert err(a, "ALTER TABLE t ADD COLUMN w INT")[0] == 1099
    assert err(a, "TRUNCATE TABLE u")[0] == 1100
    assert err(a, "CREATE DATABASE other") == (
        1192, "Can't execute the given command because you have active locked tables "
        "or an active transaction")
    # Another LOCK TABLES replaces the set: aliases must then be used.
    run(a, "LOCK TABLES t AS a WRITE, u READ, lt.t AS b READ")
    assert err(a, "SELECT * FROM t")[0] == 1100
    assert run(a, "SELECT a.v FROM t AS a JOIN t AS b ON a.id = b.id WHERE a.id = 1") \
        == ((10,),)
    run(a, "UPDATE t AS a SET v = v + 1 WHERE id = 1")
    assert err(a, "UPDATE t AS b SET v = 0")[0] == 1099
    assert err(a, "INSERT INTO u VALUES (9)")[0] == 1099
    # DDL on a WRITE-locked table runs, and the lock holds after it.
    run(a, "LOCK TABLES t WRITE")
    run(a, "ALTER TABLE t ADD COLUMN w INT DEFAULT 7")
    run(a, "INSERT INTO t (id, v) VALUES (3, 30)")
    assert run(a, "SELECT id, v, w FROM t ORDER BY id") == ((1, 11, 7), (2, 20, 7), (3, 30, 7))
    assert err(a, "SELECT * FROM u")[0] == 1100
    run(a, "UNLOCK TABLES")
    assert run(a, "SELECT COUNT(*) FROM u") == ((1,),)
    # A missing table: nothing is locked.
    assert err(a, "LOCK TABLES t READ, nosuch WRITE") == (1146, "Table 'lt.nosuch' doesn't exist")
    assert run(a, "SELECT COUNT(*) FROM u") == ((1,),)
    # Syntax: TABLE, db-qualified names, READ LOCAL, LOW_PRIORITY WRITE.
    run(a, "LOCK TABLE lt.t READ LOCAL, `u` LOW_PRIORITY WRITE")
    run(a, "INSERT INTO u VALUES (2)")
    assert err(a, "LOCK TABLES t") [0] == 1064
    run(a, "UNLOCK TABLE")


def test_views_lock_their_tables(kiln):
    a = setup(kiln)
    run(a, "CREATE VIEW v AS SELECT id, v FROM t WHERE v > 10")
    run(a, "LOCK TABLES v READ")
    assert run(a, "SELECT * FROM v") == ((2, 20),)
    # The view's table is locked with it (usable directly too, as MariaDB).
    assert run(a, "SELECT COUNT(*) FROM t") == ((2,),)
    assert err(a, "UPDATE t SET v = 0")[0] == 1099
    assert err(a, "SELECT * FROM u")[0] == 1100
    b = session(kiln)
    run(b, "SET lock_wait_timeout = 1")
    assert run(b, "SELECT COUNT(*) FROM t") == ((2,),)
    assert err(b, "UPDATE t SET v = 0")[0] == 1205
    run(a, "UNLOCK TABLES")
    run(b, "UPDATE t SET v = v")


def test_read_lock_blocks_other_writers_until_unlock(kiln):
    a = setup(kiln)
    b, mon = session(kiln), kiln.connect()
    run(a, "LOCK TABLES t READ")
    # Others read; their writes wait (and time out).
    assert run(b, "SELECT COUNT(*) FROM t") == ((2,),)
    run(b, "SET lock_wait_timeout = 1")
    t0 = time.monotonic()
    assert err(b, "UPDATE t SET v = 0") == (
        1205, "Lock wait timeout exceeded; try restarting transaction")
    assert 0.9 < time.monotonic() - t0 < 5
    assert err(b, "ALTER TABLE t ADD COLUMN z INT")[0] == 1205
    # Tables not locked are free.
    run(b, "INSERT INTO u VALUES (5)")
    run(b, "SET lock_wait_timeout = 30")
    w = Bg(b, "UPDATE t SET v = v + 1", "SELECT v FROM t ORDER BY id")
    wait_for_state(mon, w.cid, MDL_STATE)
    time.sleep(0.2)
    assert not w.done(0)
    run(a, "UNLOCK TABLES")
    assert w.done(10) and w.result == ((11,), (21,))


def test_write_lock_blocks_other_readers(kiln):
    a = setup(kiln)
    b, mon = session(kiln), kiln.connect()
    run(a, "LOCK TABLES t WRITE")
    run(b, "SET lock_wait_timeout = 1")
    assert err(b, "SELECT * FROM t")[0] == 1205
    assert err(b, "SELECT * FROM t WHERE id = 1")[0] == 1205  # the point-select path
    assert err(b, "LOCK TABLES t READ")[0] == 1205
    run(b, "SET lock_wait_timeout = 30")
    r = Bg(b, "SELECT v FROM t WHERE id = 2")
    wait_for_state(mon, r.cid, MDL_STATE)
    run(a, "UPDATE t SET v = 99 WHERE id = 2")
    run(a, "UNLOCK TABLES")
    assert r.done(10) and r.result == ((99,),)


def test_two_read_locks_share(kiln):
    a = setup(kiln)
    b = session(kiln)
    run(a, "LOCK TABLES t READ")
    run(b, "SET lock_wait_timeout = 1")
    run(b, "LOCK TABLES t READ, u WRITE")
    assert run(b, "SELECT COUNT(*) FROM t") == ((2,),)
    run(b, "UNLOCK TABLES")
    run(a, "UNLOCK TABLES")


def test_kill_query_of_a_waiter(kiln):
    a = setup(kiln)
    b, mon = session(kiln), kiln.connect()
    run(a, "LOCK TABLES t WRITE")
    w = Bg(b, "DELETE FROM t")
    wait_for_state(mon, w.cid, MDL_STATE)
    run(mon, f"KILL QUERY {w.cid}")
    assert w.done(10) and w.result[0] == 1317
    # The connection lives on; the lock is still held.
    run(b, "SET lock_wait_timeout = 1")
    assert err(b, "DELETE FROM t")[0] == 1205
    run(a, "UNLOCK TABLES")
    assert run(b, "SELECT COUNT(*) FROM t") == ((2,),)


def test_begin_session_end_and_deadlock_release_locks(kiln):
    a = setup(kiln)
    b = session(kiln)
    run(b, "SET lock_wait_timeout = 1")
    run(a, "LOCK TABLES t READ")
    assert err(b, "UPDATE t SET v = 1")[0] == 1205
    run(a, "BEGIN")
    # START TRANSACTION released the table locks.
    run(b, "UPDATE t SET v = 1 WHERE id = 1")
    assert run(a, "SELECT COUNT(*) FROM u") == ((1,),)
    run(a, "COMMIT")
    run(a, "LOCK TABLES t WRITE")
    assert err(b, "SELECT * FROM t")[0] == 1205
    a.close()
    end = time.monotonic() + 10
    while True:
        try:
            assert run(b, "SELECT COUNT(*) FROM t") == ((2,),)
            break
        except pymysql.err.MySQLError:
            assert time.monotonic() < end, "the closed session kept its lock"


def test_lock_tables_commits_the_open_transaction(kiln):
    a = setup(kiln)
    b = session(kiln)
    run(a, "BEGIN")
    run(a, "INSERT INTO u VALUES (7)")
    run(a, "LOCK TABLES t READ")
    assert run(b, "SELECT COUNT(*) FROM u WHERE id = 7") == ((1,),)
    # With autocommit off, statements under LOCK TABLES form transactions; COMMIT keeps
    # the table locks, UNLOCK TABLES commits.
    run(a, "SET autocommit = 0")
    run(a, "LOCK TABLES u WRITE")
    run(a, "INSERT INTO u VALUES (8)")
    run(a, "COMMIT")
    run(a, "INSERT INTO u VALUES (9)")
    run(b, "SET lock_wait_timeout = 1")
    assert err(b, "SELECT * FROM u")[0] == 1205
    run(a, "UNLOCK TABLES")
    assert run(b, "SELECT id FROM u WHERE id >= 8 ORDER BY id") == ((8,), (9,))


def test_flush_tables_with_read_lock(kiln):
    a = setup(kiln)
    b, c, mon = session(kiln), session(kiln), kiln.connect()
    # c has an open transaction with a change: its COMMIT will wait.
    run(c, "BEGIN")
    run(c, "INSERT INTO u VALUES (50)")
    run(a, "FLUSH TABLES WITH READ LOCK")
    # The holder reads everything and writes nothing.
    assert run(a, "SELECT COUNT(*) FROM t") == ((2,),)
    assert err(a, "INSERT INTO u VALUES (3)") == (
        1223, "Can't execute the query because you have a conflicting read lock")
    assert err(a, "CREATE TABLE n (x INT)")[0] == 1223
    assert err(a, "LOCK TABLES t WRITE")[0] == 1223
    # Others read; their writes and DDL wait.
    assert run(b, "SELECT COUNT(*) FROM u") == ((1,),)
    run(b, "SET lock_wait_timeout = 1")
    assert err(b, "INSERT INTO u VALUES (4)")[0] == 1205
    assert err(b, "CREATE TABLE n (x INT)")[0] == 1205
    assert err(b, "DROP TABLE u")[0] == 1205
    run(b, "SET lock_wait_timeout = 30")
    ins = Bg(b, "INSERT INTO u VALUES (4)", "SELECT COUNT(*) FROM u")
    wait_for_state(mon, ins.cid, GRL_STATE)
    com = Bg(c, "COMMIT")
    wait_for_state(mon, com.cid, GRL_STATE)
    d = session(kiln)
    ddl = Bg(d, "CREATE TABLE n (x INT)")
    wait_for_state(mon, ddl.cid, GRL_STATE)
    time.sleep(0.2)
    assert not ins.done(0) and not com.done(0) and not ddl.done(0)
    run(mon, f"KILL QUERY {ddl.cid}")
    assert ddl.done(10) and ddl.result[0] == 1317
    run(a, "UNLOCK TABLES")
    assert ins.done(10) and com.done(10)
    assert ins.result in (((2,),), ((3,),))
    assert run(a, "SELECT id FROM u ORDER BY id") == ((1,), (4,), (50,))
    run(a, "INSERT INTO u VALUES (3)")


def test_flush_with_read_lock_waits_for_a_running_write(kiln):
    a = setup(kiln)
    b, c = session(kiln), session(kiln)
    # b's UPDATE runs (waiting for c's row lock) when a asks for the global read lock.
    run(c, "BEGIN")
    run(c, "UPDATE t SET v = 0 WHERE id = 1")
    upd = Bg(b, "UPDATE t SET v = 5 WHERE id = 1")
    time.sleep(0.3)
    assert not upd.done(0)
    run(a, "SET lock_wait_timeout = 1")
    assert err(a, "FLUSH TABLES WITH READ LOCK")[0] == 1205
    # Having failed, it holds nothing.
    run(c, "ROLLBACK")
    assert upd.done(10) and upd.result == ()
    run(a, "FLUSH TABLES WITH READ LOCK")
    run(a, "UNLOCK TABLES")
    assert run(a, "SELECT v FROM t WHERE id = 1") == ((5,),)


def test_flush_tables_list_with_read_lock(kiln):
    a = setup(kiln)
    b = session(kiln)
    run(a, "FLUSH TABLES t WITH READ LOCK")
    assert err(a, "SELECT * FROM u")[0] == 1100
    assert err(a, "UPDATE t SET v = 0")[0] == 1099
    run(b, "SET lock_wait_timeout = 1")
    assert err(b, "UPDATE t SET v = 0")[0] == 1205
    run(b, "INSERT INTO u VALUES (6)")
    run(a, "UNLOCK TABLES")
    run(b, "UPDATE t SET v = 0")


def test_privileges(kiln):
    root = setup(kiln)
    run(root, "CREATE USER 'lk'@'%' IDENTIFIED BY 'pw'")
    run(root, "GRANT SELECT ON lt.t TO 'lk'@'%'")
    u = kiln.connect(user="lk", password="pw", database="lt")
    assert err(u, "LOCK TABLES t READ") == (
        1044, "Access denied for user 'lk'@'%' to database 'lt'")
    assert err(u, "FLUSH TABLES WITH READ LOCK") == (
        1227, "Access denied; you need (at least one of) the RELOAD privilege(s) for this "
        "operation")
    run(root, "GRANT LOCK TABLES ON lt.* TO 'lk'@'%'")
    u2 = kiln.connect(user="lk", password="pw", database="lt")
    run(u2, "LOCK TABLES t READ")
    assert err(u2, "LOCK TABLES t READ, u READ") == (
        1142, "SELECT command denied to user 'lk'@'localhost' for table 'u'")
    run(u2, "UNLOCK TABLES")
    run(root, "GRANT RELOAD ON *.* TO 'lk'@'%'")
    u3 = kiln.connect(user="lk", password="pw", database="lt")
    run(u3, "FLUSH TABLES WITH READ LOCK")
    run(u3, "UNLOCK TABLES")


def test_handlersocket_write_waits_for_a_read_lock(kiln_factory):
    rd, wr = free_port(), free_port()
    s = kiln_factory(["--handlersocket-address=127.0.0.1", f"--handlersocket-port={rd}",
                      f"--handlersocket-port-wr={wr}"])
    a = setup(s)
    run(a, "LOCK TABLES t READ")
    with HSClient("127.0.0.1", wr) as w:
        assert w.request("P", 1, "lt", "t", "PRIMARY", "id,v") == [b"0", b"1"]
        got = []
        hs = threading.Thread(target=lambda: got.append(w.request("1", "+", 2, 3, 30)),
                              daemon=True)
        hs.start()
        time.sleep(0.5)
        assert hs.is_alive(), got
        run(a, "UNLOCK TABLES")
        hs.join(10)
        assert got == [[b"0", b"1"]]
    assert run(a, "SELECT v FROM t WHERE id = 3") == ((30,),)


def trigger_setup(server):
    """t's triggers write t_log and read r; u has none."""
    c = setup(server)
    run(c, "CREATE TABLE t_log (id INT, n INT)")
    run(c, "CREATE TABLE r (id INT)")
    run(c, "INSERT INTO r VALUES (5), (6)")
    run(c, "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW "
           "INSERT INTO t_log VALUES (NEW.id, (SELECT COUNT(*) FROM r))")
    run(c, "CREATE TRIGGER t_bd BEFORE DELETE ON t FOR EACH ROW "
           "INSERT INTO t_log VALUES (OLD.id, -1)")
    return c


def test_write_lock_brings_the_tables_its_triggers_use(kiln):
    a = trigger_setup(kiln)
    b, mon = session(kiln), kiln.connect()
    run(a, "LOCK TABLES t WRITE")
    # The triggers fire under the lock: t_log was locked for WRITE, r for READ.
    run(a, "INSERT INTO t VALUES (3, 30)")
    run(a, "DELETE FROM t WHERE id = 1")
    assert run(a, "SELECT id, n FROM t_log ORDER BY id") == ((1, -1), (3, 2))
    # The session may use them directly, under their own names, as MariaDB.
    run(a, "INSERT INTO t_log VALUES (9, 9)")
    assert run(a, "SELECT COUNT(*) FROM r") == ((2,),)
    assert err(a, "INSERT INTO r VALUES (7)") == (
        1099, "Table 'r' was locked with a READ lock and can't be updated")
    assert err(a, "SELECT * FROM t_log AS q") == (
        1100, "Table 'q' was not locked with LOCK TABLES")
    assert err(a, "SELECT * FROM u")[0] == 1100
    # Other sessions: t_log as WRITE-locked (no reads, no writes), r as READ-locked
    # (reads only); u is free.
    run(b, "SET lock_wait_timeout = 1")
    assert err(b, "SELECT * FROM t_log")[0] == 1205
    assert err(b, "INSERT INTO t_log VALUES (0, 0)")[0] == 1205
    assert run(b, "SELECT COUNT(*) FROM r") == ((2,),)
    assert err(b, "INSERT INTO r VALUES (8)")[0] == 1205
    run(b, "INSERT INTO u VALUES (5)")
    run(b, "SET lock_wait_timeout = 30")
    w = Bg(b, "INSERT INTO t_log VALUES (10, 10)", "SELECT COUNT(*) FROM t_log")
    wait_for_state(mon, w.cid, MDL_STATE)
    r = Bg(session(kiln), "INSERT INTO r VALUES (8)", "SELECT COUNT(*) FROM r")
    wait_for_state(mon, r.cid, MDL_STATE)
    assert not w.done(0.2) and not r.done(0)
    run(a, "UNLOCK TABLES")
    assert w.done(10) and w.result == ((4,),)
    assert r.done(10) and r.result == ((3,),)


def test_read_lock_brings_no_trigger_tables(kiln):
    a = trigger_setup(kiln)
    b = session(kiln)
    run(a, "LOCK TABLES t READ")
    # Its triggers cannot fire: nothing more is locked (MySQL, MariaDB).
    run(b, "SET lock_wait_timeout = 1")
    run(b, "INSERT INTO t_log VALUES (0, 0)")
    assert err(a, "SELECT * FROM t_log")[0] == 1100
    # A write the table's triggers would follow names their unlocked table first
    # (MariaDB's order); one with no trigger, the READ lock.
    assert err(a, "INSERT INTO t VALUES (4, 4)") == (
        1100, "Table 't_log' was not locked with LOCK TABLES")
    assert err(a, "DELETE FROM t")[0:1] == (1100,)
    assert err(a, "UPDATE t SET v = 0") == (
        1099, "Table 't' was locked with a READ lock and can't be updated")
    # A READ request for a table the triggers write becomes WRITE.
    run(a, "LOCK TABLES t WRITE, t_log READ")
    run(a, "INSERT INTO t_log VALUES (8, 8)")
    run(a, "INSERT INTO t VALUES (4, 4)")
    assert err(b, "SELECT * FROM t_log")[0] == 1205
    run(a, "UNLOCK TABLES")
    assert run(b, "SELECT id, n FROM t_log ORDER BY id") == ((0, 0), (4, 2), (8, 8))


def test_trigger_tables_recursively(kiln):
    a = setup(kiln)
    b = session(kiln)
    for n in ("h", "h2", "h3", "h4"):
        run(a, f"CREATE TABLE {n} (id INT)")
    run(a, "INSERT INTO h3 VALUES (0)")
    run(a, "CREATE TRIGGER h_ai AFTER INSERT ON h FOR EACH ROW INSERT INTO h2 VALUES (NEW.id)")
    run(a, "CREATE TRIGGER h2_ai AFTER INSERT ON h2 FOR EACH ROW UPDATE h3 SET id = id + NEW.id")
    # A cycle back to the first table ends the walk (h3 -> h is h's own).
    run(a, "CREATE TRIGGER h3_au AFTER UPDATE ON h3 FOR EACH ROW "
           "INSERT INTO h4 SELECT COUNT(*) FROM h")
    run(a, "CREATE VIEW hv AS SELECT id FROM h4")
    run(a, "LOCK TABLES h WRITE")
    run(a, "INSERT INTO h VALUES (5)")
    assert run(a, "SELECT * FROM h3") == ((5,),)
    assert run(a, "SELECT * FROM h4") == ((1,),)
    run(b, "SET lock_wait_timeout = 1")
    for n in ("h2", "h3", "h4"):
        assert err(b, f"SELECT * FROM {n}")[0] == 1205, n
    run(a, "UNLOCK TABLES")
    assert run(b, "SELECT * FROM h4") == ((1,),)
    # A chain 17 deep: the last table's triggers could not fire (exec/trigger.rs).
    for i in range(18):
        run(a, f"CREATE TABLE c{i} (id INT)")
    for i in range(17):
        run(a, f"CREATE TRIGGER c{i}_ai AFTER INSERT ON c{i} FOR EACH ROW "
               f"INSERT INTO c{i + 1} VALUES (NEW.id)")
    assert err(a, "LOCK TABLES c0 WRITE") == (
        1235, "This version of MySQL doesn't yet support 'triggers nested more than 16 deep'")
    assert run(b, "SELECT COUNT(*) FROM c16") == ((0,),)
    run(a, "LOCK TABLES c1 WRITE")
    run(a, "INSERT INTO c1 VALUES (1)")
    assert run(a, "SELECT * FROM c17") == ((1,),)
    run(a, "UNLOCK TABLES")


def test_trigger_changes_wait_for_lock_tables(kiln):
    a = trigger_setup(kiln)
    b, mon = session(kiln), kiln.connect()
    run(a, "LOCK TABLES u WRITE")
    w = Bg(b, "CREATE TRIGGER u_ai AFTER INSERT ON u FOR EACH ROW INSERT INTO t_log VALUES (1, 1)")
    wait_for_state(mon, w.cid, MDL_STATE)
    run(a, "INSERT INTO u VALUES (2)")
    run(a, "UNLOCK TABLES")
    assert w.done(10) and w.result == ()
    run(a, "LOCK TABLES t WRITE")
    d = Bg(b, "DROP TRIGGER t_ai")
    wait_for_state(mon, d.cid, MDL_STATE)
    run(a, "INSERT INTO t VALUES (5, 5)")
    run(a, "UNLOCK TABLES")
    assert d.done(10) and d.result == ()
    assert run(a, "SELECT id FROM t_log") == ((5,),)


def test_temporary_tables_pass_the_global_read_lock(kiln):
    a = setup(kiln)
    b = session(kiln)
    run(b, "SET lock_wait_timeout = 1")
    run(b, "CREATE TEMPORARY TABLE tmp (x INT)")
    run(b, "CREATE TEMPORARY TABLE t (x INT)")  # shadows lt.t
    run(a, "FLUSH TABLES WITH READ LOCK")
    run(b, "INSERT INTO tmp VALUES (1), (2)")
    run(b, "INSERT INTO tmp SELECT id FROM u")
    run(b, "UPDATE tmp SET x = x + 10")
    run(b, "DELETE FROM tmp WHERE x = 12")
    run(b, "INSERT INTO t VALUES (7)")
    run(b, "UPDATE tmp, t SET tmp.x = t.x")
    assert run(b, "SELECT x FROM tmp ORDER BY x") == ((7,), (7,))
    run(b, "BEGIN")
    run(b, "INSERT INTO tmp VALUES (3)")
    run(b, "COMMIT")
    run(b, "TRUNCATE TABLE tmp")
    run(b, "ALTER TABLE tmp ADD COLUMN y INT")
    run(b, "DROP TABLE tmp")
    # Base tables still wait: alone, beside a temporary table, and the COMMIT of a
    # transaction that wrote one before FLUSH TABLES WITH READ LOCK.
    assert err(b, "INSERT INTO u VALUES (9)")[0] == 1205
    assert err(b, "UPDATE t, u SET u.id = t.x")[0] == 1205
    # The holder writes its own temporary tables.
    run(a, "CREATE TEMPORARY TABLE ta (x INT)")
    run(a, "INSERT INTO ta VALUES (1)")
    assert err(a, "INSERT INTO u VALUES (9)")[0] == 1223
    run(a, "UNLOCK TABLES")
    run(b, "BEGIN")
    run(b, "INSERT INTO u VALUES (9)")
    run(b, "INSERT INTO t VALUES (8)")
    run(a, "FLUSH TABLES WITH READ LOCK")
    assert err(b, "COMMIT")[0] == 1205
    run(a, "UNLOCK TABLES")
    run(b, "COMMIT")
    assert run(a, "SELECT COUNT(*) FROM u WHERE id = 9") == ((1,),)


# One session's script; each statement's outcome (rows or error number) must equal
# MariaDB 10.11's, where it agrees with MySQL 8.0.
DIFF_SETUP = [
    "CREATE DATABASE ltd",
    "USE ltd",
    "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
    "CREATE TABLE u (id INT PRIMARY KEY)",
    "INSERT INTO t VALUES (1, 10), (2, 20)",
    "INSERT INTO u VALUES (1)",
    "CREATE VIEW v AS SELECT id FROM t",
]
DIFF_SCRIPT = [
    "LOCK TABLES t READ",
    "SELECT * FROM t ORDER BY id",
    "SELECT * FROM u",
    "UPDATE t SET v = 1",
    "INSERT INTO t VALUES (3, 3)",
    "DELETE FROM t WHERE id = 1",
    "SELECT * FROM t AS x",
    "SHOW CREATE TABLE u",
    "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'ltd'",
    "SELECT * FROM v",
    "ALTER TABLE t ADD COLUMN w INT",
    "CREATE DATABASE ltd2",
    "LOCK TABLES t AS a WRITE, u READ",
    "SELECT * FROM t",
    "SELECT * FROM t AS a ORDER BY id",
    "UPDATE t AS a SET v = v + 1",
    "INSERT INTO u VALUES (5)",
    "SELECT * FROM u",
    "LOCK TABLES t WRITE, t AS b READ",
    "INSERT INTO t SELECT id + 10, v FROM t AS b",
    "SELECT * FROM t ORDER BY id",
    "UPDATE t AS b SET v = 0",
    "UNLOCK TABLES",
    "SELECT COUNT(*) FROM u",
    "LOCK TABLES nosuch READ",
    "LOCK TABLES v READ",
    "SELECT * FROM v ORDER BY id",
    "SELECT * FROM t",
    "UNLOCK TABLES",
    "FLUSH TABLES WITH READ LOCK",
    "SELECT COUNT(*) FROM t",
    "INSERT INTO u VALUES (6)",
    "UPDATE t SET v = 0",
    "CREATE TABLE n (x INT)",
    "CREATE TEMPORARY TABLE tmp (x INT)",
    "INSERT INTO tmp VALUES (1), (2)",
    "UPDATE tmp SET x = 3 WHERE x = 1",
    "DELETE FROM tmp WHERE x = 2",
    "SELECT * FROM tmp",
    "TRUNCATE TABLE tmp",
    "DROP TABLE tmp",
    "UNLOCK TABLES",
    "INSERT INTO u VALUES (6)",
    "LOCK TABLES u WRITE",
    "BEGIN",
    "SELECT COUNT(*) FROM t",
    "COMMIT",
    "DROP VIEW v",
]


# Triggers under LOCK TABLES (prelocking), in another database of the same servers.
TRIGGER_SETUP = [
    "CREATE DATABASE ltg",
    "USE ltg",
    "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
    "CREATE TABLE t_log (id INT, n INT)",
    "CREATE TABLE r (id INT)",
    "CREATE TABLE u (id INT)",
    "INSERT INTO r VALUES (5)",
    "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW "
    "INSERT INTO t_log VALUES (NEW.id, (SELECT COUNT(*) FROM r))",
    "CREATE TRIGGER t_bd BEFORE DELETE ON t FOR EACH ROW INSERT INTO t_log VALUES (OLD.id, -1)",
    "CREATE TRIGGER u_ai AFTER INSERT ON u FOR EACH ROW INSERT INTO nosuch VALUES (NEW.id)",
]
TRIGGER_SCRIPT = [
    "LOCK TABLES t WRITE",
    "INSERT INTO t VALUES (1, 10)",
    "SELECT * FROM t_log ORDER BY id",
    "INSERT INTO t_log VALUES (9, 9)",
    "SELECT * FROM r",
    "INSERT INTO r VALUES (9)",
    "SELECT * FROM u",
    "SELECT * FROM t_log AS q",
    "UPDATE t SET v = 11",
    "DELETE FROM t WHERE id = 1",
    "SELECT * FROM t_log ORDER BY id, n",
    "UNLOCK TABLES",
    "LOCK TABLES t READ",
    "SELECT * FROM t_log",
    "UPDATE t SET v = 1",
    "INSERT INTO t VALUES (2, 10)",
    "DELETE FROM t",
    "UNLOCK TABLES",
    "LOCK TABLES t WRITE, t_log READ",
    "INSERT INTO t_log VALUES (8, 8)",
    "INSERT INTO t VALUES (3, 3)",
    "UNLOCK TABLES",
    "LOCK TABLES t AS x WRITE",
    "INSERT INTO t_log VALUES (7, 7)",
    "SELECT COUNT(*) FROM r",
    "UNLOCK TABLES",
    "LOCK TABLES u WRITE",
    "INSERT INTO u VALUES (1)",
    "UNLOCK TABLES",
    "SELECT * FROM t_log ORDER BY id, n",
]


def test_errors_like_mariadb(kiln):
    m = start_private_mariadb(prefix="kiln-lock-")
    try:
        k = kiln.connect()
        mc = m.connect()
        for setup_sql, script in ((DIFF_SETUP, DIFF_SCRIPT), (TRIGGER_SETUP, TRIGGER_SCRIPT)):
            for sql in setup_sql:
                run(k, sql)
                run(mc, sql)
            for sql in script:
                assert outcome(k, sql) == outcome(mc, sql), sql
    finally:
        m.cleanup()


@pytest.mark.parametrize("sql", [
    "LOCK", "LOCK TABLES", "LOCK TABLES t", "LOCK TABLES t READ,", "LOCK TABLES t WRITE LOCAL",
    "LOCK TABLES t AS READ", "UNLOCK", "FLUSH TABLES WITH READ",
])
def test_malformed_statements_are_syntax_errors(kiln, sql):
    a = setup(kiln)
    assert err(a, sql)[0] == 1064
