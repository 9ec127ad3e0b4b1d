"""mysqldump (MariaDB's mariadb-dump, the Debian client) against kiln: dump a database
with every supported column type and awkward values, restore it into a fresh kiln with
the `mariadb` client, dump again, and require the two dumps to be byte-identical (but
for the timestamp line), and the restored rows to equal the originals."""

import shutil
import subprocess

import pytest

DUMP = shutil.which("mariadb-dump") or shutil.which("mysqldump")
pytestmark = pytest.mark.skipif(DUMP is None or shutil.which("mariadb") is None,
                                reason="mariadb client tools not installed")

SCHEMA = [
    "CREATE DATABASE dumpdb",
    """CREATE TABLE dumpdb.every_type (
        id INT NOT NULL AUTO_INCREMENT,
        ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT NOT NULL DEFAULT -5,
        ub BIGINT UNSIGNED,
        dec1 DECIMAL(65,30), dec2 DECIMAL(10,2) DEFAULT '1.50',
        f FLOAT, d DOUBLE,
        bt BIT(12), bo BOOLEAN,
        ch CHAR(10) NOT NULL DEFAULT '', vc VARCHAR(200) COLLATE utf8mb4_bin,
        bn BINARY(4), vb VARBINARY(50),
        tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT,
        tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
        en ENUM('small','medium','large') DEFAULT 'medium', st SET('a','b','c'),
        dt DATE, dtm DATETIME(3), ts TIMESTAMP NULL DEFAULT NULL, tm TIME(2), yr YEAR,
        js JSON,
        l1 VARCHAR(20) CHARACTER SET latin1,
        PRIMARY KEY (id),
        UNIQUE KEY u_vc (vc),
        KEY k_multi (ch, bi DESC),
        KEY k_prefix (tx(20))
    ) COMMENT='every type'""",
    """CREATE TABLE dumpdb.no_pk (a INT, b VARCHAR(5)) ENGINE=InnoDB""",
    "CREATE TABLE dumpdb.empty (x INT PRIMARY KEY)",
]

ROWS = [
    """INSERT INTO dumpdb.every_type (ti, si, mi, bi, ub, dec1, dec2, f, d, bt, bo, ch, vc,
        bn, vb, tt, tx, mt, lt, tb, bl, mb, lb, en, st, dt, dtm, ts, tm, yr, js, l1)
       VALUES (-128, 65535, -8388608, -9223372036854775808, 18446744073709551615,
        '-12345678901234567890123456789012345.123456789012345678901234567890', -0.05,
        1.5, -2.25e-300, b'101010101010', TRUE, 'chär', 'it''s "quoted" \\\\ back',
        x'00ff10', x'00', 'tiny', 'line1\\nline2\\ttab', 'medium', REPEAT('long', 100),
        x'01', x'deadbeef', x'', x'00000000',
        'large', 'a,c', '2024-02-29', '2024-01-02 03:04:05.678', '2038-01-19 03:14:07',
        '-838:59:59.00', 2155, '{"k": [1, 2, {"x": null}], "s": "ü"}', 'café')""",
    """INSERT INTO dumpdb.every_type (ch, vc) VALUES ('', NULL), ('z', '')""",
    "INSERT INTO dumpdb.no_pk VALUES (1, 'a'), (1, 'a'), (NULL, NULL)",
]


def dump(server, what=("--databases", "dumpdb")):
    p = subprocess.run(
        [DUMP, "-uroot", "--skip-dump-date", f"--socket={server.socket}", *what],
        capture_output=True, timeout=60,
    )
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    return p.stdout


def restore(server, sql):
    p = subprocess.run(["mariadb", "-uroot", f"--socket={server.socket}"], input=sql,
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode(errors="replace")


def all_rows(server):
    out = {}
    for t in ("every_type", "no_pk", "empty"):
        order = "1" if t == "empty" else "1, 2"
        out[t] = server.query(f"SELECT * FROM dumpdb.{t} ORDER BY {order}")
    return out


def test_dump_restore_dump_is_identical(kiln_factory):
    a = kiln_factory()
    for sql in SCHEMA + ROWS:
        a.query(sql)
    first = dump(a)
    assert b"CREATE TABLE `every_type`" in first
    assert b"INSERT INTO `every_type` VALUES" in first
    b = kiln_factory()
    restore(b, first)
    second = dump(b)
    assert first == second, "\n".join(
        f"- {x!r}\n+ {y!r}" for x, y in zip(first.splitlines(), second.splitlines()) if x != y
    )
    assert all_rows(a) == all_rows(b)
    # The restored table keeps its definition, indexes and counter.
    create = b.query("SHOW CREATE TABLE dumpdb.every_type")[0][1]
    assert "UNIQUE KEY `u_vc` (`vc`)" in create and "AUTO_INCREMENT=4" in create


def test_all_databases_dump_restores_identically(kiln_factory):
    """`--all-databases` also dumps the mysql schema, reading mysql.general_log's and
    slow_log's definitions unconditionally (it stopped on the missing tables before),
    and emits `SHOW CREATE DATABASE IF NOT EXISTS`'s form, so the restore into a
    server that has mysql and sys already goes through."""
    a = kiln_factory()
    for sql in SCHEMA + ROWS:
        a.query(sql)
    first = dump(a, ("--all-databases",))
    assert b"CREATE TABLE IF NOT EXISTS `general_log`" in first
    assert b"CREATE DATABASE /*!32312 IF NOT EXISTS*/ `mysql`" in first
    b = kiln_factory()
    restore(b, first)
    second = dump(b, ("--all-databases",))
    assert first == second, "\n".join(
        f"- {x!r}\n+ {y!r}" for x, y in zip(first.splitlines(), second.splitlines()) if x != y
    )
    assert all_rows(a) == all_rows(b)
    assert a.query("SHOW CREATE DATABASE IF NOT EXISTS dumpdb")[0][1].startswith(
        "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `dumpdb`")


VIEW_SCHEMA = [
    "CREATE DATABASE dumpdb",
    "CREATE TABLE dumpdb.items (id INT PRIMARY KEY, name VARCHAR(20), qty INT)",
    "INSERT INTO dumpdb.items VALUES (1, 'pen', 3), (2, 'ink', 0), (3, 'pad', 9)",
    # `a_view` sorts before the view it reads: the dump's stand-in views make that work.
    "CREATE VIEW dumpdb.a_view AS SELECT name FROM dumpdb.z_stock WHERE qty > 1",
    "CREATE VIEW dumpdb.in_stock (item, n) AS SELECT name, qty FROM dumpdb.items "
    "WHERE qty > 0 WITH CASCADED CHECK OPTION",
    "CREATE SQL SECURITY INVOKER VIEW dumpdb.totals AS SELECT COUNT(*) AS c, SUM(qty) AS s "
    "FROM dumpdb.items",
]


def test_dump_with_views_restores_identically(kiln_factory):
    a = kiln_factory()
    a.query(VIEW_SCHEMA[0])
    a.query(VIEW_SCHEMA[1])
    a.query(VIEW_SCHEMA[2])
    a.query("CREATE VIEW dumpdb.z_stock AS SELECT name, qty FROM dumpdb.items")
    for sql in VIEW_SCHEMA[3:]:
        a.query(sql)
    first = dump(a)
    text = first.decode()
    assert "/*!50001 CREATE ALGORITHM=UNDEFINED */" in text
    assert "/*!50013 DEFINER=`root`@`localhost` SQL SECURITY INVOKER */" in text
    assert "WITH CASCADED CHECK OPTION" in text
    assert "INSERT INTO `in_stock`" not in text  # a view's rows are not dumped
    b = kiln_factory()
    restore(b, first)
    second = dump(b)
    assert first == second, "\n".join(
        f"- {x!r}\n+ {y!r}" for x, y in zip(first.splitlines(), second.splitlines()) if x != y
    )
    for q in ("SELECT * FROM dumpdb.a_view ORDER BY 1",
              "SELECT * FROM dumpdb.in_stock ORDER BY 1",
              "SELECT * FROM dumpdb.totals",
              "SHOW CREATE VIEW dumpdb.in_stock"):
        assert a.query(q) == b.query(q), q
    assert b.query("SELECT TABLE_NAME FROM information_schema.VIEWS ORDER BY 1") == (
        ("a_view",), ("in_stock",), ("totals",), ("z_stock",))


MULTI_SCHEMA = [
    "CREATE DATABASE srcdb",
    "CREATE TABLE srcdb.a (id INT PRIMARY KEY, s VARCHAR(20))",
    "CREATE TABLE srcdb.b (id INT PRIMARY KEY AUTO_INCREMENT, a_id INT, n DECIMAL(8,2), "
    "KEY k_a (a_id))",
    "CREATE TABLE srcdb.c (x INT, y TEXT)",
    "CREATE TABLE srcdb.d (k VARCHAR(10) PRIMARY KEY)",
    "INSERT INTO srcdb.a VALUES (1, 'one'), (2, 'two'), (3, NULL)",
    "INSERT INTO srcdb.b (a_id, n) VALUES (1, 1.50), (1, -2.25), (3, 0)",
    "INSERT INTO srcdb.c VALUES (1, 'x'), (1, 'x'), (NULL, 'line\\nbreak')",
    "CREATE VIEW srcdb.v AS SELECT a.s, b.n FROM srcdb.a JOIN srcdb.b ON b.a_id = a.id",
]


def com(server, name):
    return int(server.query(f"SHOW GLOBAL STATUS LIKE 'Com_{name}'")[0][1])


def table_rows(server, db):
    out = {}
    for t in ("a", "b", "c", "d", "v"):
        order = "1" if t == "d" else "1, 2"
        out[t] = server.query(f"SELECT * FROM {db}.{t} ORDER BY {order}")
    return out


@pytest.mark.parametrize("lock_option", [[], ["--lock-all-tables"]],
                         ids=["lock-tables", "lock-all-tables"])
def test_dump_locks_tables_and_restores_into_another_database(kiln, lock_option):
    """mariadb-dump with its default --lock-tables (LOCK TABLES ... READ LOCAL on the
    database's tables and views while it reads them) or --lock-all-tables (FLUSH TABLES
    WITH READ LOCK), restored through the `mariadb` client into another database (the
    dump's LOCK TABLES ... WRITE around each table's INSERTs): the same rows."""
    for sql in MULTI_SCHEMA:
        kiln.query(sql)
    locks, flushes = com(kiln, "lock_tables"), com(kiln, "flush")
    p = subprocess.run([DUMP, "-uroot", "--skip-dump-date", f"--socket={kiln.socket}",
                        *lock_option, "srcdb"], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    if lock_option:
        assert com(kiln, "flush") > flushes
    else:
        assert com(kiln, "lock_tables") > locks
    text = p.stdout.decode()
    assert "LOCK TABLES `b` WRITE;" in text and "UNLOCK TABLES;" in text
    # The dump's session let go of its locks: a write goes through at once.
    kiln.query("SET GLOBAL lock_wait_timeout = 5")
    kiln.query("INSERT INTO srcdb.d VALUES ('later')")
    kiln.query("DELETE FROM srcdb.d")
    kiln.query("CREATE DATABASE copydb")
    locks = com(kiln, "lock_tables")
    r = subprocess.run(["mariadb", "-uroot", f"--socket={kiln.socket}", "copydb"],
                       input=p.stdout, capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert com(kiln, "lock_tables") >= locks + 4
    assert table_rows(kiln, "srcdb") == table_rows(kiln, "copydb")
    assert kiln.query("SELECT COUNT(*) FROM copydb.b") == ((3,),)
