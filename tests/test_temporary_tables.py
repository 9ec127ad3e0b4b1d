"""Session TEMPORARY tables end to end, with MySQL 8.0's semantics: shadowing of base
tables, invisibility to other sessions, SHOW TABLES and information_schema, the drop
at session end (QUIT, abrupt disconnect, KILL, COM_CHANGE_USER, COM_RESET_CONNECTION)
and at restart, transactions (CREATE / DROP TEMPORARY TABLE commit nothing, DML on a
temporary table rolls back), the CREATE TEMPORARY TABLES privilege, the 1137 "Can't
reopen table" rule and the per-session cap.

The last tests run the same two-connection scripts on kiln and on a private MariaDB
10.11 and compare outcomes where MySQL 8.0 and MariaDB agree. They differ on 1137
(MariaDB lifted the restriction in 10.2) and on RENAME TABLE of a temporary table
(MariaDB renames it; MySQL 8.0 documents that RENAME TABLE does not work for
temporary tables): those are checked against MySQL 8.0 only.
"""

import itertools
import os
import socket
import struct
import time

import mysql.connector
import pymysql
import pytest

from mariadb_server import start_private_mariadb

TEMP_DIR = "#innodb_temp"
PER_SESSION_MAX = 1024

_n = itertools.count()


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def err(c, sql):
    """Runs `sql`, which must fail; returns (errno, message)."""
    with pytest.raises(pymysql.MySQLError) as ei:
        run(c, sql)
    return ei.value.args[0], ei.value.args[1]


def warnings(c):
    return [(r[0], r[1], r[2]) for r in run(c, "SHOW WARNINGS")]


def temp_files(server):
    d = server.datadir / TEMP_DIR
    return sorted(os.listdir(d)) if d.exists() else []


def wait_until(pred, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


@pytest.fixture(scope="module")
def srv(kiln_shared):
    """One server for the module; each test works in its own database."""
    return kiln_shared


@pytest.fixture
def db(srv):
    """A fresh database with a base table t (id, v) holding one row 'base'."""
    name = f"tt{next(_n)}"
    c = srv.connect()
    run(c, f"CREATE DATABASE {name}")
    run(c, f"CREATE TABLE {name}.t (id INT PRIMARY KEY, v VARCHAR(20))")
    run(c, f"INSERT INTO {name}.t VALUES (1, 'base')")
    c.close()
    return name


# -- shadowing and visibility ------------------------------------------------------------


def test_temporary_table_shadows_base_table_for_every_statement(srv, db):
    a = srv.connect(database=db)
    b = srv.connect(database=db)
    run(a, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, w INT, note VARCHAR(10))")
    assert run(a, "SELECT * FROM t") == ()
    run(a, "INSERT INTO t VALUES (1, 10, 'tmp'), (2, 20, 'tmp')")
    run(a, "UPDATE t SET w = w + 1 WHERE id = 2")
    run(a, "DELETE FROM t WHERE id = 1")
    assert run(a, "SELECT * FROM t") == ((2, 21, "tmp"),)
    assert run(a, f"SELECT * FROM {db}.t") == ((2, 21, "tmp"),)  # qualified too
    # The base table is untouched, and the other session sees only it.
    assert run(b, "SELECT * FROM t") == ((1, "base"),)
    desc = run(a, "DESCRIBE t")
    assert [r[0] for r in desc] == ["id", "w", "note"]
    assert [r[0] for r in run(a, "SHOW COLUMNS FROM t")] == ["id", "w", "note"]
    assert [r[2] for r in run(a, "SHOW INDEX FROM t")] == ["PRIMARY"]
    name, ddl = run(a, "SHOW CREATE TABLE t")[0]
    assert name == "t"
    assert ddl.startswith("CREATE TEMPORARY TABLE `t` (\n  `id` int NOT NULL,\n  `w` int")
    assert run(b, "SHOW CREATE TABLE t")[0][1].startswith("CREATE TABLE `t`")
    # A join with a base table of another name, and a prepared statement.
    run(a, "CREATE TABLE other (id INT PRIMARY KEY)")
    run(a, "INSERT INTO other VALUES (2)")
    assert run(a, "SELECT t.w FROM t JOIN other USING (id)") == ((21,),)
    assert run(a, "SELECT w FROM t WHERE id = %s", (2,)) == ((21,),)
    # Plain DROP TABLE drops the temporary table first, then the base table.
    run(a, "DROP TABLE t")
    assert run(a, "SELECT * FROM t") == ((1, "base"),)
    run(a, "DROP TABLE t")
    assert err(b, "SELECT * FROM t")[0] == 1146
    a.close()
    b.close()


def test_other_sessions_cannot_see_it_and_may_use_the_same_name(srv, db):
    a = srv.connect(database=db)
    b = srv.connect(database=db)
    run(a, "CREATE TEMPORARY TABLE only_a (x INT)")
    run(a, "INSERT INTO only_a VALUES (1)")
    assert err(b, "SELECT * FROM only_a") == (1146, f"Table '{db}.only_a' doesn't exist")
    assert err(b, "DROP TEMPORARY TABLE only_a")[0] == 1051
    run(b, "CREATE TEMPORARY TABLE only_a (y VARCHAR(5))")
    run(b, "INSERT INTO only_a VALUES ('b1'), ('b2')")
    assert run(a, "SELECT * FROM only_a") == ((1,),)
    assert run(b, "SELECT * FROM only_a ORDER BY y") == (("b1",), ("b2",))
    a.close()
    b.close()


def test_not_listed_by_show_tables_or_information_schema(srv, db):
    a = srv.connect(database=db)
    run(a, "CREATE TEMPORARY TABLE hidden_tmp (x INT)")
    run(a, "CREATE TEMPORARY TABLE t (x INT)")  # shadows the base table t
    assert run(a, "SHOW TABLES") == (("t",),)
    assert [r[0] for r in run(a, "SHOW FULL TABLES")] == ["t"]
    assert [r[0] for r in run(a, "SHOW TABLE STATUS")] == ["t"]
    rows = run(
        a, "SELECT table_name FROM information_schema.TABLES WHERE table_schema = %s", (db,)
    )
    assert rows == (("t",),)
    cols = run(
        a,
        "SELECT column_name FROM information_schema.COLUMNS WHERE table_schema = %s"
        " ORDER BY ordinal_position",
        (db,),
    )
    assert cols == (("id",), ("v",))  # the base table's
    a.close()


def test_drop_temporary_table_never_drops_a_base_table(srv, db):
    a = srv.connect(database=db)
    assert err(a, "DROP TEMPORARY TABLE t") == (1051, f"Unknown table '{db}.t'")
    run(a, "DROP TEMPORARY TABLE IF EXISTS t")
    assert warnings(a) == [("Note", 1051, f"Unknown table '{db}.t'")]
    assert run(a, "SELECT * FROM t") == ((1, "base"),)
    # A list with a missing name drops nothing.
    run(a, "CREATE TEMPORARY TABLE x1 (a INT)")
    assert err(a, "DROP TEMPORARY TABLE x1, nope")[0] == 1051
    assert run(a, "SELECT COUNT(*) FROM x1") == ((0,),)
    assert err(a, "DROP TABLE x1, nope")[0] == 1051
    assert run(a, "SELECT COUNT(*) FROM x1") == ((0,),)
    run(a, "DROP TEMPORARY TABLE x1")
    assert err(a, "SELECT * FROM x1")[0] == 1146
    a.close()


# -- CREATE forms, ALTER, TRUNCATE, RENAME ----------------------------------------------


def test_create_forms(srv, db):
    a = srv.connect(database=db)
    run(a, "CREATE TABLE src (id INT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(10), KEY ks (s))")
    run(a, "INSERT INTO src (s) VALUES ('a'), ('b'), ('c')")
    run(a, "CREATE TEMPORARY TABLE lk LIKE src")
    assert [r[2] for r in run(a, "SHOW INDEX FROM lk")] == ["PRIMARY", "ks"]
    assert run(a, "SELECT COUNT(*) FROM lk") == ((0,),)
    run(a, "INSERT INTO lk (s) VALUES ('z')")
    assert run(a, "SELECT id, s FROM lk") == ((1, "z"),)
    with a.cursor() as cur:
        cur.execute("CREATE TEMPORARY TABLE sel AS SELECT id, s FROM src WHERE id > 1")
        assert cur.rowcount == 2
    assert run(a, "SELECT * FROM sel ORDER BY id") == ((2, "b"), (3, "c"))
    run(a, "CREATE TEMPORARY TABLE sel2 SELECT s FROM src")
    assert run(a, "SELECT COUNT(*) FROM sel2") == ((3,),)
    # A failing CREATE ... SELECT leaves no temporary table behind.
    assert err(a, "CREATE TEMPORARY TABLE dup (k INT PRIMARY KEY) SELECT 1 AS k FROM src")[0] == 1062
    assert err(a, "SELECT * FROM dup")[0] == 1146
    assert err(a, "CREATE TEMPORARY TABLE sel (x INT)") == (1050, "Table 'sel' already exists")
    run(a, "CREATE TEMPORARY TABLE IF NOT EXISTS sel (x INT)")
    assert warnings(a) == [("Note", 1050, "Table 'sel' already exists")]
    assert err(a, "CREATE TEMPORARY TABLE src LIKE src")[0] == 1066
    assert err(a, "CREATE TEMPORARY TABLE nosuchdb_x.t (a INT)") == (
        1049,
        "Unknown database 'nosuchdb_x'",
    )
    # A base table may take a temporary table's name (and stays hidden behind it).
    run(a, "CREATE TEMPORARY TABLE newname (a INT)")
    run(a, "CREATE TABLE newname (b INT)")
    assert [r[0] for r in run(a, "DESCRIBE newname")] == ["a"]
    b = srv.connect(database=db)
    assert [r[0] for r in run(b, "DESCRIBE newname")] == ["b"]
    b.close()
    a.close()


def test_alter_truncate_and_rename(srv, db):
    a = srv.connect(database=db)
    b = srv.connect(database=db)
    run(a, "CREATE TEMPORARY TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20))")
    run(a, "INSERT INTO t (v) VALUES ('x'), ('y')")
    run(a, "ALTER TABLE t ADD COLUMN n INT NOT NULL DEFAULT 7")
    run(a, "ALTER TABLE t MODIFY v VARCHAR(30) NOT NULL")  # a rebuild
    run(a, "CREATE INDEX iv ON t (v)")
    assert run(a, "SELECT id, v, n FROM t ORDER BY id") == ((1, "x", 7), (2, "y", 7))
    assert [r[2] for r in run(a, "SHOW INDEX FROM t")] == ["PRIMARY", "iv"]
    assert [r[0] for r in run(b, "DESCRIBE t")] == ["id", "v"]  # base untouched
    run(a, "TRUNCATE TABLE t")
    assert run(a, "SELECT COUNT(*) FROM t") == ((0,),)
    run(a, "INSERT INTO t (v) VALUES ('again')")
    assert run(a, "SELECT id FROM t") == ((1,),)  # TRUNCATE resets AUTO_INCREMENT
    assert run(b, "SELECT * FROM t") == ((1, "base"),)
    # ALTER TABLE ... RENAME renames the temporary table; the base table shows again.
    run(a, "ALTER TABLE t RENAME TO t_renamed")
    assert run(a, "SELECT v FROM t_renamed") == (("again",),)
    assert run(a, "SELECT * FROM t") == ((1, "base"),)
    run(a, "CREATE TEMPORARY TABLE t2 (a INT)")
    assert err(a, "ALTER TABLE t_renamed RENAME TO t2")[0] == 1050
    # RENAME TABLE works on base tables only (MySQL 8.0: "RENAME TABLE does not work
    # for TEMPORARY tables"): here it renames the base table t2 does not shadow.
    assert err(a, "RENAME TABLE t2 TO t3")[0] == 1146
    assert run(a, "SELECT COUNT(*) FROM t2") == ((0,),)
    a.close()
    b.close()


# -- transactions ------------------------------------------------------------------------


def test_rollback_undoes_dml_on_a_temporary_table(srv, db):
    a = srv.connect(database=db)
    run(a, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v INT, KEY kv (v))")
    run(a, "INSERT INTO t VALUES (1, 10), (2, 20)")
    run(a, "BEGIN")
    run(a, "INSERT INTO t VALUES (3, 30)")
    run(a, "UPDATE t SET v = v * 100 WHERE id = 1")
    run(a, "DELETE FROM t WHERE id = 2")
    assert run(a, "SELECT * FROM t ORDER BY id") == ((1, 1000), (3, 30))
    run(a, "ROLLBACK")
    assert run(a, "SELECT * FROM t ORDER BY id") == ((1, 10), (2, 20))
    assert run(a, "SELECT id FROM t WHERE v = 20") == ((2,),)  # the secondary index too
    # Savepoints, and statement rollback of a failing multi-row insert.
    run(a, "BEGIN")
    run(a, "INSERT INTO t VALUES (4, 40)")
    run(a, "SAVEPOINT s1")
    run(a, "INSERT INTO t VALUES (5, 50)")
    run(a, "ROLLBACK TO SAVEPOINT s1")
    assert err(a, "INSERT INTO t VALUES (6, 60), (1, 0)")[0] == 1062
    run(a, "COMMIT")
    assert run(a, "SELECT id FROM t ORDER BY id") == ((1,), (2,), (4,))
    # autocommit = 0 keeps the change open until ROLLBACK as well.
    run(a, "SET autocommit = 0")
    run(a, "DELETE FROM t")
    run(a, "ROLLBACK")
    run(a, "SET autocommit = 1")
    assert run(a, "SELECT COUNT(*) FROM t") == ((3,),)
    a.close()


def test_create_and_drop_temporary_do_not_commit(srv, db):
    a = srv.connect(database=db)
    run(a, "BEGIN")
    run(a, "INSERT INTO t VALUES (2, 'uncommitted')")
    run(a, "CREATE TEMPORARY TABLE tmp1 (a INT)")
    run(a, "CREATE TEMPORARY TABLE tmp2 LIKE t")
    run(a, "CREATE TEMPORARY TABLE tmp3 AS SELECT * FROM t")
    run(a, "INSERT INTO tmp1 VALUES (1)")
    run(a, "DROP TEMPORARY TABLE tmp2")
    run(a, "ROLLBACK")
    assert run(a, "SELECT * FROM t") == ((1, "base"),)  # the insert was not committed
    # The statements themselves are not undone (MySQL: they cannot be rolled back);
    # the rows written in the transaction are.
    assert run(a, "SELECT COUNT(*) FROM tmp1") == ((0,),)
    assert run(a, "SELECT COUNT(*) FROM tmp3") == ((0,),)
    assert err(a, "SELECT * FROM tmp2")[0] == 1146
    # The contrast: CREATE TABLE without TEMPORARY commits first.
    run(a, "BEGIN")
    run(a, "INSERT INTO t VALUES (3, 'committed')")
    run(a, "CREATE TABLE plain (a INT)")
    run(a, "ROLLBACK")
    assert run(a, "SELECT id FROM t ORDER BY id") == ((1,), (3,))
    a.close()


def test_alter_and_truncate_of_a_temporary_table_commit(srv, db):
    a = srv.connect(database=db)
    run(a, "CREATE TEMPORARY TABLE tmp (a INT)")
    run(a, "BEGIN")
    run(a, "INSERT INTO t VALUES (2, 'by alter')")
    run(a, "ALTER TABLE tmp ADD COLUMN b INT")
    run(a, "ROLLBACK")
    run(a, "BEGIN")
    run(a, "INSERT INTO t VALUES (3, 'by truncate')")
    run(a, "TRUNCATE TABLE tmp")
    run(a, "ROLLBACK")
    assert run(a, "SELECT id FROM t ORDER BY id") == ((1,), (2,), (3,))
    a.close()


# -- the end of a session ----------------------------------------------------------------


def test_dropped_when_the_client_disappears(srv, db):
    before = set(temp_files(srv))
    a = srv.connect(database=db)
    run(a, "CREATE TEMPORARY TABLE gone1 (a INT)")
    run(a, "CREATE TEMPORARY TABLE gone2 (a INT PRIMARY KEY, b INT, KEY (b))")
    run(a, "BEGIN")
    run(a, "INSERT INTO gone2 VALUES (1, 1)")  # an open transaction too
    mine = set(temp_files(srv)) - before
    assert len(mine) == 2, mine
    # No COM_QUIT: the socket is reset under the server's feet.
    # (PyMySQL's read file holds the descriptor too: both must go for the RST.)
    a._sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    a._rfile.close()
    a._sock.close()
    assert wait_until(lambda: not (set(temp_files(srv)) & mine)), temp_files(srv)
    # KILL from another session ends one the same way.
    k = srv.connect(database=db)
    run(k, "CREATE TEMPORARY TABLE gone3 (a INT)")
    kid = run(k, "SELECT CONNECTION_ID()")[0][0]
    mine = set(temp_files(srv)) - before
    assert len(mine) == 1
    root = srv.connect()
    run(root, f"KILL {kid}")
    assert wait_until(lambda: not (set(temp_files(srv)) & mine)), temp_files(srv)
    # A clean QUIT too.
    q = srv.connect(database=db)
    run(q, "CREATE TEMPORARY TABLE gone4 (a INT)")
    mine = set(temp_files(srv)) - before
    q.close()
    assert wait_until(lambda: not (set(temp_files(srv)) & mine)), temp_files(srv)
    root.close()


def test_sessions_ending_while_purge_works_on_their_tables(srv, db):
    """Sessions that delete and update rows in a temporary table and leave at once:
    purge is still removing their delete-marked entries when the tablespace goes. A
    drop under a page purge holds pinned once panicked the connection thread and
    leaked the file."""
    import threading

    failures = []

    def worker():
        try:
            for _ in range(40):
                c = srv.connect(database=db)
                run(c, "CREATE TEMPORARY TABLE churn (a INT PRIMARY KEY, b INT, KEY (b))")
                run(c, "INSERT INTO churn VALUES " + ",".join(f"({i},{i})" for i in range(300)))
                run(c, "UPDATE churn SET b = b + 1")
                run(c, "DELETE FROM churn WHERE a % 2 = 0")
                c.close()
        except Exception as e:  # reported below
            failures.append(repr(e))

    before = set(temp_files(srv))
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not failures, failures[:3]
    assert wait_until(lambda: set(temp_files(srv)) <= before, timeout=30), temp_files(srv)
    assert "panicked" not in srv.output_text()
    assert run(srv.connect(), "SELECT 1") == ((1,),)


def _connector(server, **kw):
    args = dict(
        host="127.0.0.1", port=server.port, user="root", password="", autocommit=True
    )
    args.update(kw)
    return mysql.connector.connect(**args)


def test_dropped_by_reset_connection_and_change_user(srv, db):
    root = srv.connect()
    run(root, "CREATE USER IF NOT EXISTS 'tcu'@'%' IDENTIFIED WITH mysql_native_password BY 'p'")
    run(root, f"GRANT ALL ON {db}.* TO 'tcu'@'%'")
    c = _connector(srv, database=db)
    cur = c.cursor()
    cur.execute("CREATE TEMPORARY TABLE r1 (a INT)")
    cur.execute("INSERT INTO r1 VALUES (1)")
    c.cmd_reset_connection()
    cur = c.cursor()
    with pytest.raises(mysql.connector.Error) as ei:
        cur.execute(f"SELECT * FROM {db}.r1")
        cur.fetchall()
    assert ei.value.errno == 1146
    cur = c.cursor()
    cur.execute(f"CREATE TEMPORARY TABLE {db}.r2 (a INT)")
    c.cmd_change_user(username="tcu", password="p", database=db)
    cur = c.cursor()
    with pytest.raises(mysql.connector.Error) as ei:
        cur.execute("SELECT * FROM r2")
        cur.fetchall()
    assert ei.value.errno == 1146
    c.close()
    root.close()


def test_restart_leaves_nothing_of_temporary_tables(kiln_factory):
    s = kiln_factory()
    s.query("CREATE DATABASE r")
    s.query("CREATE TABLE r.keep (a INT PRIMARY KEY)")
    s.query("INSERT INTO r.keep VALUES (1)")
    a = s.connect(database="r")
    run(a, "CREATE TEMPORARY TABLE keep (a INT PRIMARY KEY, b VARCHAR(10))")
    run(a, "CREATE TEMPORARY TABLE other (a INT)")
    run(a, "INSERT INTO keep VALUES (5, 'tmp')")
    run(a, "BEGIN")
    run(a, "INSERT INTO keep VALUES (6, 'open trx')")  # rolled back by recovery
    assert len(temp_files(s)) == 2
    s.kill()  # SIGKILL with the session and its transaction open
    kiln_factory.servers.remove(s)  # killed on purpose: not a failed exit
    # A file a creation left behind before its tablespace was recorded.
    (s.datadir / TEMP_DIR / "999_1.ibd").write_bytes(b"\0" * 16384)
    s2 = kiln_factory(datadir=s.datadir)
    assert temp_files(s2) == []
    b = s2.connect(database="r")
    assert run(b, "SELECT * FROM keep") == ((1,),)  # the base table, intact
    assert err(b, "SELECT * FROM other")[0] == 1146
    run(b, "CREATE TEMPORARY TABLE other (a INT)")
    run(b, "INSERT INTO other VALUES (1)")
    # A clean shutdown with a temporary table open, then a start: nothing again.
    assert s2.stop() == 0, s2.diagnostics()
    kiln_factory.servers.remove(s2)
    s3 = kiln_factory(datadir=s.datadir)
    assert temp_files(s3) == []
    assert s3.query("SELECT * FROM r.keep") == ((1,),)


# -- privileges --------------------------------------------------------------------------


def test_create_temporary_tables_privilege(srv, db):
    user = f"tp{next(_n)}"
    root = srv.connect()
    run(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    run(root, f"GRANT SELECT ON {db}.t TO '{user}'@'%'")
    u = srv.connect(user=user, password="pw", database=db)
    assert err(u, "CREATE TEMPORARY TABLE x (a INT)") == (
        1044,
        f"Access denied for user '{user}'@'%' to database '{db}'",
    )
    run(root, f"GRANT CREATE TEMPORARY TABLES ON {db}.* TO '{user}'@'%'")
    grants = [r[0] for r in run(root, f"SHOW GRANTS FOR '{user}'@'%'")]
    assert f"GRANT CREATE TEMPORARY TABLES ON `{db}`.* TO `{user}`@`%`" in grants
    # Once created, nothing is checked on the table: no INSERT/UPDATE/DELETE/DROP/
    # ALTER/INDEX grant is needed.
    run(u, "CREATE TEMPORARY TABLE x (a INT)")
    run(u, "INSERT INTO x VALUES (1), (2)")
    run(u, "UPDATE x SET a = a + 10")
    run(u, "DELETE FROM x WHERE a = 11")
    run(u, "ALTER TABLE x ADD COLUMN b INT")
    run(u, "CREATE INDEX ia ON x (a)")
    assert run(u, "SELECT a, b FROM x") == ((12, None),)
    run(u, "TRUNCATE TABLE x")
    run(u, "CREATE TEMPORARY TABLE y AS SELECT * FROM t")  # SELECT on t is granted
    assert run(u, "SELECT * FROM y") == ((1, "base"),)
    run(u, "DROP TABLE x")
    run(u, "DROP TEMPORARY TABLE y")
    # It opens nothing else: base tables keep their checks.
    assert err(u, "INSERT INTO t VALUES (9, 'no')")[0] == 1142
    assert err(u, "CREATE TABLE base_new (a INT)")[0] == 1142
    # A temporary table named like the base table shadows it for this session only.
    run(u, "CREATE TEMPORARY TABLE t (id INT, v VARCHAR(20))")
    run(u, "INSERT INTO t VALUES (2, 'mine')")
    assert run(u, "SELECT * FROM t") == ((2, "mine"),)
    assert run(root, f"SELECT * FROM {db}.t") == ((1, "base"),)
    # ... and a plain CREATE TABLE of that name is still checked against the base.
    assert err(u, "CREATE TABLE t (a INT)")[0] == 1142
    u.close()
    root.close()


# -- one reference per statement (1137) --------------------------------------------------


def test_cant_reopen_a_temporary_table_in_one_statement(srv, db):
    a = srv.connect(database=db)
    run(a, "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, v INT)")
    run(a, "CREATE TEMPORARY TABLE tmp2 (id INT PRIMARY KEY)")
    run(a, "INSERT INTO tmp VALUES (1, 1), (2, 2)")
    run(a, "INSERT INTO tmp2 VALUES (1)")
    cases = [
        ("SELECT * FROM tmp JOIN tmp AS t2", "tmp"),
        ("SELECT * FROM tmp AS x JOIN tmp AS y ON x.id = y.id", "x"),
        ("SELECT * FROM tmp WHERE id IN (SELECT id FROM tmp)", "tmp"),
        ("SELECT (SELECT MAX(v) FROM tmp) FROM tmp", "tmp"),
        ("SELECT id FROM tmp UNION SELECT id FROM tmp", "tmp"),
        ("SELECT * FROM (SELECT * FROM tmp) AS d JOIN tmp USING (id)", "tmp"),
        ("INSERT INTO tmp SELECT id + 10, v FROM tmp", "tmp"),
        ("UPDATE tmp SET v = 0 WHERE id IN (SELECT id FROM tmp)", "tmp"),
        ("DELETE FROM tmp WHERE EXISTS (SELECT 1 FROM tmp AS z)", "tmp"),
        ("CREATE TEMPORARY TABLE tmp3 AS SELECT * FROM tmp JOIN tmp AS b USING (id)", "tmp"),
    ]
    for sql, alias in cases:
        assert err(a, sql) == (1137, f"Can't reopen table: '{alias}'"), sql
    # Two different temporary tables, or a temporary and a base table, are fine.
    assert run(a, "SELECT tmp.v FROM tmp JOIN tmp2 USING (id)") == ((1,),)
    assert run(a, "SELECT tmp.v FROM tmp JOIN t USING (id)") == ((1,),)
    assert run(a, "SELECT COUNT(*) FROM tmp WHERE id IN (SELECT id FROM tmp2)") == ((1,),)
    run(a, "INSERT INTO tmp SELECT id + 10, 0 FROM tmp2")
    assert run(a, "SELECT COUNT(*) FROM tmp") == ((3,),)
    # A base table may still be named twice.
    assert run(a, "SELECT COUNT(*) FROM t AS x JOIN t AS y USING (id)") == ((1,),)
    # Nothing changed by the refused statements.
    assert run(a, "SELECT * FROM tmp ORDER BY id") == ((1, 1), (2, 2), (11, 0))
    a.close()


# -- the cap -----------------------------------------------------------------------------


def test_temporary_tables_per_session_are_capped(srv, db):
    a = srv.connect(database=db)
    for i in range(PER_SESSION_MAX):
        run(a, f"CREATE TEMPORARY TABLE cap{i} (a INT)")
    code, msg = err(a, "CREATE TEMPORARY TABLE one_too_many (a INT)")
    assert code == 1041 and msg.startswith("Out of memory"), (code, msg)
    # The session still works, dropping one makes room, other sessions are not limited.
    run(a, "DROP TEMPORARY TABLE cap0")
    run(a, "CREATE TEMPORARY TABLE one_more (a INT)")
    b = srv.connect(database=db)
    run(b, "CREATE TEMPORARY TABLE cap0 (a INT)")
    b.close()
    a.close()
    assert wait_until(lambda: temp_files(srv) == [], timeout=30), len(temp_files(srv))


# -- against MariaDB 10.11 ---------------------------------------------------------------


@pytest.fixture(scope="module")
def mariadb():
    m = start_private_mariadb(prefix="kiln-temp-")
    yield m
    m.cleanup()


# Errors MySQL 8.0 and MariaDB 10.11 word alike: their texts are compared too.
SAME_TEXT = {1044, 1050, 1051, 1146}


def outcome(c, sql):
    try:
        with c.cursor() as cur:
            cur.execute(sql)
            rows = cur.fetchall() if cur.description else None
        return ("ok", rows)
    except pymysql.MySQLError as e:
        code = e.args[0]
        return ("error", code, e.args[1] if code in SAME_TEXT else None)


def run_script(connect, steps):
    """Runs (connection name, sql) steps; 'close:NAME' quits that connection."""
    conns = {}
    out = []
    for who, sql in steps:
        if sql == "close":
            conns.pop(who).close()
            time.sleep(0.2)  # the server ends the session after the client leaves
            continue
        if who not in conns:
            conns[who] = connect(who)
        out.append((who, sql, outcome(conns[who], sql)))
    for c in conns.values():
        c.close()
    return out


def compare(kiln_server, maria, steps, users=None):
    users = users or {}
    dbname = "tdiff"

    def connector(server):
        def connect(who):
            user, pw = users.get(who, ("root", ""))
            return server.connect(user=user, password=pw, database=dbname)

        return connect

    results = []
    for server in (kiln_server, maria):
        c = server.connect()
        run(c, f"DROP DATABASE IF EXISTS {dbname}")
        run(c, f"CREATE DATABASE {dbname}")
        for u in {u for u, _ in users.values()}:
            run(c, f"DROP USER IF EXISTS '{u}'@'localhost'")
        c.close()
        results.append(run_script(connector(server), steps))
    k, m = results
    diffs = [(a[0], a[1], a[2], b[2]) for a, b in zip(k, m) if a[2] != b[2]]
    assert not diffs, "kiln vs MariaDB:\n" + "\n".join(
        f"  [{w}] {sql}\n    kiln: {x}\n    maria: {y}" for w, sql, x, y in diffs
    )
    return k


def test_same_as_mariadb_shadowing_isolation_and_listing(srv, mariadb):
    steps = [
        ("a", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"),
        ("a", "INSERT INTO t VALUES (1, 'base')"),
        ("a", "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, w INT)"),
        ("a", "INSERT INTO t VALUES (1, 10), (2, 20)"),
        ("a", "UPDATE t SET w = w + 1"),
        ("a", "DELETE FROM t WHERE id = 1"),
        ("a", "SELECT * FROM t"),
        ("b", "SELECT * FROM t"),
        ("b", "CREATE TEMPORARY TABLE t (z VARCHAR(5))"),
        ("b", "INSERT INTO t VALUES ('b')"),
        ("b", "SELECT * FROM t"),
        ("a", "SELECT * FROM t"),
        ("a", "CREATE TEMPORARY TABLE tmp_only (x INT)"),
        ("b", "SELECT * FROM tmp_only"),
        ("a", "SHOW TABLES"),
        ("a", "SELECT table_name FROM information_schema.TABLES WHERE table_schema = 'tdiff'"),
        ("a", "SELECT COUNT(*) FROM information_schema.TABLES WHERE table_name = 'tmp_only'"),
        ("a", "CREATE TEMPORARY TABLE tmp_only (x INT)"),
        ("a", "CREATE TEMPORARY TABLE IF NOT EXISTS tmp_only (x INT)"),
        ("a", "SHOW WARNINGS"),
        ("a", "DROP TEMPORARY TABLE IF EXISTS nope"),
        ("a", "SHOW WARNINGS"),
        ("a", "DROP TEMPORARY TABLE nope"),
        ("a", "DROP TABLE t"),
        ("a", "SELECT * FROM t"),
        ("a", "DROP TEMPORARY TABLE t"),
        ("a", "DROP TABLE t"),
        ("a", "SELECT * FROM t"),
        ("b", "SELECT * FROM t"),
        ("b", "close"),
        ("c", "SELECT * FROM t"),
        ("a", "SELECT * FROM tmp_only"),
        ("a", "close"),
        ("c", "SELECT * FROM tmp_only"),
    ]
    k = compare(srv, mariadb, steps)
    # The comparison must have seen the shadowing at work (not errors on both sides).
    assert ("a", "SELECT * FROM t", ("ok", ((2, 21),))) in k


def test_same_as_mariadb_transactions(srv, mariadb):
    steps = [
        ("a", "CREATE TABLE base (a INT PRIMARY KEY)"),
        ("a", "CREATE TEMPORARY TABLE tmp (a INT PRIMARY KEY, b INT)"),
        ("a", "INSERT INTO tmp VALUES (1, 1), (2, 2)"),
        ("a", "BEGIN"),
        ("a", "INSERT INTO tmp VALUES (3, 3)"),
        ("a", "UPDATE tmp SET b = 100"),
        ("a", "DELETE FROM tmp WHERE a = 1"),
        ("a", "SELECT * FROM tmp ORDER BY a"),
        ("a", "ROLLBACK"),
        ("a", "SELECT * FROM tmp ORDER BY a"),
        # CREATE / DROP TEMPORARY TABLE inside a transaction commit nothing.
        ("a", "BEGIN"),
        ("a", "INSERT INTO base VALUES (1)"),
        ("a", "CREATE TEMPORARY TABLE tmp2 (x INT)"),
        ("a", "INSERT INTO tmp2 VALUES (1)"),
        ("a", "DROP TEMPORARY TABLE tmp2"),
        ("b", "SELECT * FROM base"),
        ("a", "ROLLBACK"),
        ("a", "SELECT * FROM base"),
        ("a", "SELECT * FROM tmp2"),
        # ALTER and TRUNCATE of a temporary table do commit.
        ("a", "BEGIN"),
        ("a", "INSERT INTO base VALUES (2)"),
        ("a", "ALTER TABLE tmp ADD COLUMN c INT"),
        ("a", "ROLLBACK"),
        ("a", "BEGIN"),
        ("a", "INSERT INTO base VALUES (3)"),
        ("a", "TRUNCATE TABLE tmp"),
        ("a", "ROLLBACK"),
        ("a", "SELECT * FROM base ORDER BY a"),
        ("a", "SELECT COUNT(*) FROM tmp"),
        # A failing statement undoes itself only.
        ("a", "INSERT INTO tmp (a, b) VALUES (1, 1)"),
        ("a", "BEGIN"),
        ("a", "INSERT INTO tmp (a, b) VALUES (5, 5), (1, 0)"),
        ("a", "INSERT INTO tmp (a, b) VALUES (6, 6)"),
        ("a", "COMMIT"),
        ("a", "SELECT a, b FROM tmp ORDER BY a"),
    ]
    k = compare(srv, mariadb, steps)
    assert ("a", "SELECT * FROM base", ("ok", ())) in k


def test_same_as_mariadb_privileges(srv, mariadb):
    steps = [
        ("root", "CREATE USER 'tpu'@'localhost'"),
        ("root", "CREATE TABLE base (a INT)"),
        ("root", "GRANT SELECT ON tdiff.base TO 'tpu'@'localhost'"),
        ("u", "CREATE TEMPORARY TABLE x (a INT)"),
        ("u", "close"),
        ("root", "GRANT CREATE TEMPORARY TABLES ON tdiff.* TO 'tpu'@'localhost'"),
        ("u2", "CREATE TEMPORARY TABLE x (a INT)"),
        ("u2", "INSERT INTO x VALUES (1), (2)"),
        ("u2", "UPDATE x SET a = a * 10"),
        ("u2", "DELETE FROM x WHERE a = 10"),
        ("u2", "SELECT * FROM x"),
        ("u2", "DROP TABLE x"),
        ("u2", "INSERT INTO base VALUES (1)"),
        ("u2", "CREATE TEMPORARY TABLE base (a INT)"),
        ("u2", "INSERT INTO base VALUES (7)"),
        ("u2", "SELECT * FROM base"),
        ("root", "SELECT * FROM base"),
    ]
    # 'localhost' accounts: MariaDB's anonymous ''@'localhost' would outrank 'tpu'@'%'.
    users = {"u": ("tpu", ""), "u2": ("tpu", "")}
    k = compare(srv, mariadb, steps, users)
    denied = ("error", 1044, "Access denied for user 'tpu'@'localhost' to database 'tdiff'")
    assert ("u", "CREATE TEMPORARY TABLE x (a INT)", denied) in k
    assert ("u2", "SELECT * FROM base", ("ok", ((7,),))) in k
