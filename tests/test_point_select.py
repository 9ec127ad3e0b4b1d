"""Primary-key point selects planned once (crates/kiln-sql/src/exec/point.rs and
digest.rs): text statements through their digest's plan, prepared statements through
the plan kept in the statement.

The oracle is kiln's general path: `... WHERE pk = v` (eligible for a plan) must give
the same rows and warnings as `... WHERE pk = v AND 1 = 1` (never planned), for every
key type and every kind of value, and the status counter Kiln_point_plan_hits proves
the plan answered. Then what must make a plan step aside: DDL, a TEMPORARY table of
the same name, another current database, revoked privileges, MVCC snapshots.
"""

import itertools

import mysql.connector
import pymysql
import pytest

_n = itertools.count()


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def hits(c):
    return int(run(c, "SHOW GLOBAL STATUS LIKE 'Kiln_point_plan_hits'")[0][1])


def warnings(c):
    return [tuple(r[:3]) for r in run(c, "SHOW WARNINGS")]


def connector(server, **kw):
    args = dict(host="127.0.0.1", port=server.port, user="root", password="", autocommit=True)
    args.update(kw)
    return mysql.connector.connect(**args)


@pytest.fixture
def db(kiln):
    c = kiln.connect()
    name = f"pt{next(_n)}"
    run(c, f"CREATE DATABASE {name}")
    run(c, f"USE {name}")
    yield kiln, c, name
    c.close()


TABLES = {
    "ti": ("id INT PRIMARY KEY, c VARCHAR(20), k INT", [(1, "a", 10), (2, "b", 20), (-3, None, 30)]),
    "tu": ("id BIGINT UNSIGNED PRIMARY KEY, c VARCHAR(20)", [(0, "zero"), (18446744073709551615, "max")]),
    "tv": ("id VARCHAR(8) PRIMARY KEY, c INT", [("x", 1), ("y ", 2), ("Ä", 3), ("12", 4)]),
    "tb": ("id VARCHAR(8) COLLATE utf8mb4_bin PRIMARY KEY, c INT", [("x", 1), ("X", 2)]),
    "tg": ("id VARCHAR(8) COLLATE utf8mb4_general_ci PRIMARY KEY, c INT", [("y ", 2), ("ss", 3)]),
    "tx": ("id VARBINARY(8) PRIMARY KEY, c INT", [(b"\x00a", 1), (b"b", 2)]),
    "td": ("id DECIMAL(6,2) PRIMARY KEY, c INT", [("1.50", 1), ("2.00", 2)]),
    "tc": ("a INT, b VARCHAR(4), c INT, PRIMARY KEY (a, b)", [(1, "p", 1), (1, "q", 2), (2, "p", 3)]),
    "tch": ("id CHAR(4) PRIMARY KEY, c INT", [("ab", 1)]),
    "tf": ("id FLOAT PRIMARY KEY, c INT", [(0.1, 1), (2, 2)]),
}

VALUES = [
    "1", "2", "-3", "4", "0", "'1'", "'1abc'", "' 1'", "1.0", "1.5", "-1", "NULL",
    "18446744073709551615", "18446744073709551616", "'x'", "'X'", "'y'", "'y '", "'Ä'",
    "'ä'", "'a'", "'12'", "12", "'ss'", "'ß'", "1.50", "'1.50'", "2", "'ab'", "'ab  '",
    "0.1", "'toolongvalue'", "X'0061'", "'b'",
]

KEYS = {"tc": ["a = {v} AND b = 'p'", "b = {v} AND a = 1"]}


def make_tables(c):
    for t, (cols, rows) in TABLES.items():
        run(c, f"CREATE TABLE {t} ({cols})")
        marks = ",".join(["%s"] * len(rows[0]))
        with c.cursor() as cur:
            cur.executemany(f"INSERT INTO {t} VALUES ({marks})", rows)


def test_text_point_selects_match_the_general_path(db):
    _, c, _ = db
    make_tables(c)
    planned = 0
    for t in TABLES:
        for where in KEYS.get(t, ["id = {v}"]):
            for v in VALUES:
                w = where.format(v=v)
                before = hits(c)
                try:
                    fast = run(c, f"SELECT * FROM {t} WHERE {w}")
                    fast_w = warnings(c)
                except pymysql.MySQLError as e:
                    fast, fast_w = ("error", e.args[0]), []
                h = hits(c) - before
                try:
                    slow = run(c, f"SELECT * FROM {t} WHERE {w} AND 1 = 1")
                    slow_w = warnings(c)
                except pymysql.MySQLError as e:
                    slow, slow_w = ("error", e.args[0]), []
                assert (fast, fast_w) == (slow, slow_w), (t, w)
                planned += h
    # A digest is planned at its first run and answered by the plan after that: most
    # integer and string keys of the exact types must have gone through it.
    assert planned >= 40, planned


def test_plan_answers_repeated_text_with_other_literals(db):
    _, c, _ = db
    make_tables(c)
    assert run(c, "SELECT c FROM ti WHERE id = 1") == (("a",),)
    before = hits(c)
    for i, want in [(2, (("b",),)), (1, (("a",),)), (5, ()), (-3, ((None,),))]:
        assert run(c, f"select c from ti where id={i}") == want
        assert run(c, f"SELECT c FROM ti WHERE id = {i}") == want
    assert run(c, "SELECT id, c, id FROM ti WHERE id = 2 LIMIT 1") == ((2, "b", 2),)
    assert run(c, "SELECT id, c, id FROM ti WHERE id = 2 LIMIT 0") == ()
    assert run(c, "SELECT k FROM ti WHERE 2 = id") == ((20,),)
    assert run(c, "SELECT k FROM ti WHERE 1 = id") == ((10,),)
    assert hits(c) - before >= 5
    # Result metadata is the general path's (names, aliases, types).
    with c.cursor() as cur:
        cur.execute("SELECT c AS label, k FROM ti WHERE id = 1")
        cur.execute("SELECT c AS label, k FROM ti WHERE id = 2")
        assert [d[0] for d in cur.description] == ["label", "k"]
        assert cur.fetchall() == (("b", 20),)


def test_prepared_point_selects(db):
    srv, c, name = db
    make_tables(c)
    pc = connector(srv, database=name)
    cur = pc.cursor(prepared=True)
    before = hits(c)
    for i, want in [(1, [("a", 10)]), (2, [("b", 20)]), (9, []), (-3, [(None, 30)])]:
        cur.execute("SELECT c, k FROM ti WHERE id = %s", (i,))
        assert cur.fetchall() == want
    # Values that do not convert losslessly take the general path, with its result.
    cur.execute("SELECT c, k FROM ti WHERE id = %s", ("1abc",))
    assert cur.fetchall() == [("a", 10)]
    cur.execute("SELECT c, k FROM ti WHERE id = %s", (1.5,))
    assert cur.fetchall() == []
    cur.execute("SELECT c, k FROM ti WHERE id = %s", (None,))
    assert cur.fetchall() == []
    cur.execute("SELECT c FROM tv WHERE id = %s", ("X",))
    assert cur.fetchall() == [(1,)]
    cur.execute("SELECT c FROM tc WHERE b = %s AND a = %s", ("q", 1))
    assert cur.fetchall() == [(2,)]
    cur.execute("SELECT c FROM tc WHERE b = %s AND a = %s LIMIT %s", ("q", 1, 0))
    assert cur.fetchall() == []
    # The first run of each statement makes its plan; ids 2, 9 and -3 used it.
    assert hits(c) - before == 3
    # SQL-level PREPARE / EXECUTE keep the plan too.
    run(c, "PREPARE s FROM 'SELECT c FROM ti WHERE id = ?'")
    run(c, "SET @k = 2")
    assert run(c, "EXECUTE s USING @k") == (("b",),)
    before = hits(c)
    assert run(c, "EXECUTE s USING @k") == (("b",),)
    assert hits(c) == before + 1
    pc.close()


def test_ddl_invalidates_plans(db):
    srv, c, name = db
    make_tables(c)
    pc = connector(srv, database=name)
    cur = pc.cursor(prepared=True)
    for _ in range(2):
        assert run(c, "SELECT * FROM ti WHERE id = 1") == ((1, "a", 10),)
        cur.execute("SELECT * FROM ti WHERE id = %s", (1,))
        assert cur.fetchall() == [(1, "a", 10)]
    run(c, "ALTER TABLE ti ADD COLUMN z INT DEFAULT 7")
    assert run(c, "SELECT * FROM ti WHERE id = 1") == ((1, "a", 10, 7),)
    cur.execute("SELECT * FROM ti WHERE id = %s", (1,))
    assert cur.fetchall() == [(1, "a", 10, 7)]
    # The key changes type: the plan must not read the old tree.
    run(c, "DROP TABLE ti")
    run(c, "CREATE TABLE ti (id VARCHAR(5) PRIMARY KEY, c VARCHAR(20), k INT)")
    run(c, "INSERT INTO ti VALUES ('1', 'new', 1)")
    assert run(c, "SELECT c FROM ti WHERE id = 1") == (("new",),)
    assert run(c, "SELECT c FROM ti WHERE id = '1'") == (("new",),)
    run(c, "DROP TABLE ti")
    with pytest.raises(pymysql.MySQLError) as ei:
        run(c, "SELECT c FROM ti WHERE id = 1")
    assert ei.value.args[0] == 1146
    pc.close()


def test_temporary_table_and_current_database(db):
    srv, c, name = db
    make_tables(c)
    other = name + "o"
    run(c, f"CREATE DATABASE {other}")
    run(c, f"CREATE TABLE {other}.ti (id INT PRIMARY KEY, c VARCHAR(20), k INT)")
    run(c, f"INSERT INTO {other}.ti VALUES (1, 'other', 0)")
    for _ in range(2):
        assert run(c, "SELECT c FROM ti WHERE id = 1") == (("a",),)
    run(c, "CREATE TEMPORARY TABLE ti (id INT PRIMARY KEY, c VARCHAR(20), k INT)")
    run(c, "INSERT INTO ti VALUES (1, 'temp', 0)")
    assert run(c, "SELECT c FROM ti WHERE id = 1") == (("temp",),)
    run(c, "DROP TEMPORARY TABLE ti")
    assert run(c, "SELECT c FROM ti WHERE id = 1") == (("a",),)
    run(c, f"USE {other}")
    assert run(c, "SELECT c FROM ti WHERE id = 1") == (("other",),)
    run(c, f"USE {name}")
    assert run(c, "SELECT c FROM ti WHERE id = 1") == (("a",),)


def test_privileges_are_checked_on_every_execution(db):
    srv, c, name = db
    make_tables(c)
    run(c, "CREATE USER 'pt'@'%' IDENTIFIED BY 'pw'")
    run(c, f"GRANT SELECT ON {name}.ti TO 'pt'@'%'")
    u = srv.connect(user="pt", password="pw", database=name)
    for _ in range(3):
        assert run(u, "SELECT c FROM ti WHERE id = 1") == (("a",),)
    run(c, f"REVOKE SELECT ON {name}.ti FROM 'pt'@'%'")
    with pytest.raises(pymysql.MySQLError) as ei:
        run(u, "SELECT c FROM ti WHERE id = 1")
    assert ei.value.args[0] == 1142
    u.close()


def test_plans_read_the_transaction_snapshot(db):
    srv, c, name = db
    make_tables(c)
    other = srv.connect(database=name)
    run(c, "BEGIN")
    assert run(c, "SELECT c FROM ti WHERE id = 1") == (("a",),)
    run(other, "UPDATE ti SET c = 'changed' WHERE id = 1")
    run(other, "INSERT INTO ti VALUES (7, 'seven', 70)")
    before = hits(c)
    assert run(c, "SELECT c FROM ti WHERE id = 1") == (("a",),)
    assert run(c, "SELECT c FROM ti WHERE id = 7") == ()
    assert hits(c) >= before + 1
    run(c, "COMMIT")
    assert run(c, "SELECT c FROM ti WHERE id = 1") == (("changed",),)
    assert run(c, "SELECT c FROM ti WHERE id = 7") == (("seven",),)
    # Status counters count the statements as the general path does.
    com = int(run(c, "SHOW SESSION STATUS LIKE 'Com_select'")[0][1])
    run(c, "SELECT c FROM ti WHERE id = 1")
    assert int(run(c, "SHOW SESSION STATUS LIKE 'Com_select'")[0][1]) == com + 1
    other.close()
