"""Prepared statements bound and planned once (crates/kiln-sql/src/exec/prepared_plan.rs,
access_shape.rs): single-table SELECTs over key ranges, UPDATE / DELETE by key, INSERT
... VALUES, as sysbench's OLTP workloads prepare them.

The oracle is kiln's general path, twice over: the same statement freshly prepared
for every execution (its first execution never has a plan) and the same statement as
text with the values written in. A long-lived prepared statement (protocol-level
through mysql.connector's prepared cursor, and SQL PREPARE / EXECUTE) must give the
same rows, column names and types, warnings, errors, affected rows and insert ids for
every value: NULL, out of range, strings against integer keys, empty and reversed
ranges. The status counter Kiln_prepared_plan_hits proves the long-lived statement ran
from its plan. Then what must make a plan step aside: ALTER TABLE, DROP + CREATE,
another current database, a TEMPORARY table of the name, sql_mode, LOCK TABLES,
privileges.
"""

import itertools
import random

import mysql.connector
import pytest

_n = itertools.count()

TABLE = (
    "(id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0,"
    " c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))"
)
ROWS = [(i, (i * 7) % 13, f"c{i % 9}", "p") for i in range(1, 61)]


def status(c, name):
    cur = c.cursor()
    cur.execute(f"SHOW GLOBAL STATUS LIKE '{name}'")
    (row,) = cur.fetchall()
    cur.close()
    return int(row[1])


def hits(c):
    return status(c, "Kiln_prepared_plan_hits")


def plans(c):
    return status(c, "Kiln_prepared_plans")


def text(c, sql, params=None):
    cur = c.cursor()
    cur.execute(sql, params)
    rows = cur.fetchall() if cur.with_rows else None
    cur.close()
    return rows


def outcome(c, cur, sql, params):
    """What one execution gave: (result, warnings). `cur` may be prepared or not."""
    try:
        cur.execute(sql, params)
        if cur.with_rows:
            # name, type, display size, internal size, precision, scale, null, flags
            desc = [tuple(d[:8]) for d in cur.description]
            result = ("rows", desc, [tuple(r) for r in cur.fetchall()])
        else:
            result = ("ok", cur.rowcount, cur.lastrowid)
    except mysql.connector.Error as e:
        result = ("error", e.errno)
    warnings = [tuple(w[:2]) for w in text(c, "SHOW WARNINGS")]
    return result, warnings


def fresh(c, sql, params):
    """The general path: a statement prepared for this one execution."""
    cur = c.cursor(prepared=True)
    try:
        return outcome(c, cur, sql, params)
    finally:
        cur.close()


def as_text(c, sql, params):
    """The general path for the statement as text, the values written in."""
    cur = c.cursor()
    try:
        return outcome(c, cur, sql, params)
    finally:
        cur.close()


def connect(srv, db):
    return mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", database=db, autocommit=True
    )


@pytest.fixture
def db(kiln):
    name = f"pp{next(_n)}"
    c = connect(kiln, None)
    text(c, f"CREATE DATABASE {name}")
    text(c, f"USE {name}")
    yield kiln, c, name
    c.close()


def make(c, *tables):
    for t in tables:
        text(c, f"CREATE TABLE {t} {TABLE}")
        cur = c.cursor()
        cur.executemany(f"INSERT INTO {t} VALUES (%s, %s, %s, %s)", ROWS)
        cur.close()


INTS = [1, 3, 5, 9, 0, -5, 13, 60, 61, 2147483647, 2147483648, 9223372036854775807,
        -9223372036854775808]
STRS = ["2", "2x", " 7", "abc", "7.0", "", "c3", "c3 ", "C3"]
POOL = INTS + STRS + [None]

# (statement, hand-picked values first; more are drawn from POOL)
SELECTS = [
    ("SELECT c FROM sbtest1 WHERE id BETWEEN %s AND %s",
     [(1, 5), (3, 9), (9, 3), (None, 4), (4, None), ("2", "6"), ("2x", 6), (61, 70), (0, 0),
      (-9223372036854775808, 3), (58, 9223372036854775807)]),
    ("SELECT c FROM sbtest1 WHERE id BETWEEN %s AND %s ORDER BY c",
     [(1, 20), (20, 1), (5, 5), ("1", "x"), (None, None)]),
    ("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN %s AND %s ORDER BY c",
     [(1, 40), (40, 1), (7, 8), ("3", "5"), (2147483648, 1)]),
    ("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN %s AND %s",
     [(1, 10), (10, 1), (100, 200), ("4", "4"), (None, 3)]),
    ("SELECT id, k FROM sbtest1 WHERE k = %s ORDER BY id", [(3,), (99,), ("3",), ("3x",), (None,)]),
    ("SELECT id FROM sbtest1 WHERE k BETWEEN %s AND %s ORDER BY k, id",
     [(2, 4), (4, 2), ("2", 3)]),
    ("SELECT id, c FROM sbtest1 WHERE id > %s AND id <= %s ORDER BY id DESC",
     [(5, 12), (12, 5), (2147483647, 2147483648), (-1, 2), (59, "61")]),
    ("SELECT id FROM sbtest1 WHERE id IN (%s, %s, %s)",
     [(1, 2, 3), (3, 3, 3), (None, 4, 5), ("5", 6, "7x"), (None, None, None)]),
    ("SELECT id FROM sbtest1 WHERE id = %s OR id BETWEEN %s AND %s",
     [(1, 10, 12), (50, 3, 1), (None, 2, 3), ("9", "9", 10)]),
    ("SELECT c FROM sbtest1 WHERE id = %s AND k = %s", [(7, 10), (7, 9), ("7", "10"), (7, None)]),
    ("SELECT k, COUNT(*), MAX(c) FROM sbtest1 WHERE id >= %s GROUP BY k ORDER BY k",
     [(50,), (61,), ("55",), (None,)]),
    ("SELECT * FROM sbtest1 WHERE c = %s ORDER BY id", [("c3",), ("C3",), ("c3 ",), (3,), (None,)]),
    ("SELECT id FROM sbtest1 WHERE id < %s AND k > %s ORDER BY id", [(20, 5), (5, 20), ("x", 1)]),
    ("SELECT id, c FROM sbtest1 WHERE id >= %s ORDER BY id LIMIT 3", [(10,), (59,), ("2",)]),
    ("SELECT id + %s, c FROM sbtest1 WHERE id BETWEEN %s AND %s FOR UPDATE",
     [(1, 1, 3), ("a", 2, 3), (None, 3, 2)]),
]

# Statements with a LIMIT parameter: text cannot write every value there.
LIMITED = [
    ("SELECT id FROM sbtest1 WHERE k BETWEEN %s AND %s ORDER BY k LIMIT %s",
     [(2, 4, 3), (2, 4, 0), (4, 2, 1), (1, 12, 100)], [-1, None, "2", 1]),
    ("SELECT id, c FROM sbtest1 WHERE id > %s ORDER BY id DESC LIMIT %s, %s",
     [(10, 1, 2), (10, 0, 0), (70, 1, 1)], [-1, None, 5]),
]


def draws(n, k, seed):
    rnd = random.Random(seed)
    return [tuple(rnd.choice(POOL) for _ in range(k)) for _ in range(n)]


def check_select(c, sql, values, with_text=True):
    """Runs `sql` for every value tuple on one long-lived prepared statement and
    compares each execution with the general path; returns the executions."""
    cur = c.cursor(prepared=True)
    for p in values:
        got = outcome(c, cur, sql, p)
        assert got == fresh(c, sql, p), (sql, p)
        # A select item holding a parameter is named by its text (`id + ?`) and
        # typed by the parameter's type, not the literal's: the fresh statement only.
        if with_text and "%s" not in sql.split("FROM")[0]:
            assert got == as_text(c, sql, p), (sql, p)
    cur.close()
    return len(values)


def test_select_shapes_match_the_general_path(db):
    _, c, _ = db
    make(c, "sbtest1")
    for n, (sql, picked) in enumerate(SELECTS):
        values = picked + draws(12, len(picked[0]), n)
        before = hits(c)
        runs = check_select(c, sql, values)
        # The first execution made the plan; every later one ran from it.
        assert hits(c) - before == runs - 1, sql


def test_values_of_other_types(db):
    """Doubles, decimals and byte strings: typed otherwise as literals, so against the
    fresh statement only."""
    from decimal import Decimal

    _, c, _ = db
    make(c, "sbtest1")
    pool = [2.0, 2.5, -0.0, 1e30, Decimal("3"), Decimal("3.5"), b"4", b"c3", 7, None]
    for n, (sql, picked) in enumerate(SELECTS[:8]):
        rnd = random.Random(100 + n)
        values = [tuple(rnd.choice(pool) for _ in picked[0]) for _ in range(10)]
        before = hits(c)
        check_select(c, sql, [picked[0]] + values, with_text=False)
        assert hits(c) - before == len(values), sql


def test_access_path_replayed_or_planned_again(db):
    """Kiln_prepared_plan_replans counts executions whose access path was planned
    again: values that do not fit the shape, or statements no shape can describe."""
    _, c, _ = db
    make(c, "sbtest1")

    def replans():
        return status(c, "Kiln_prepared_plan_replans")

    sql = "SELECT c FROM sbtest1 WHERE id BETWEEN %s AND %s ORDER BY c"
    cur = c.cursor(prepared=True)
    # The first execution's NULL leaves the plan without a shape...
    outcome(c, cur, sql, (None, 3))
    before = replans()
    # ...the next one plans again and traces one, which the others replay.
    for p in [(1, 3), (2, 9), (5, 7), (9, 12)]:
        assert outcome(c, cur, sql, p) == fresh(c, sql, p)
    assert replans() - before == 1
    # A value that does not convert to the key plans again for that execution only.
    for p in [("2x", 4), (1, 3), (2, 2)]:
        assert outcome(c, cur, sql, p) == fresh(c, sql, p)
    assert replans() - before == 2
    # A key compared with an expression: planned again at every execution.
    sql = "SELECT c FROM sbtest1 WHERE id = %s + 1"
    cur = c.cursor(prepared=True)
    outcome(c, cur, sql, (1,))
    before, hit = replans(), hits(c)
    for p in [(1,), (4,), (None,)]:
        assert outcome(c, cur, sql, p) == fresh(c, sql, p)
    assert replans() - before == 3 and hits(c) - hit == 3


def test_limit_parameters(db):
    _, c, _ = db
    make(c, "sbtest1")
    for sql, picked, bad in LIMITED:
        before = hits(c)
        check_select(c, sql, picked)
        k = len(picked[0])
        # Values text cannot write in a LIMIT: against the fresh statement only.
        worse = [picked[0][:-1] + (b,) for b in bad]
        check_select(c, sql, worse, with_text=False)
        assert hits(c) - before >= len(picked) - 1
        assert k >= 2


def test_sql_prepare_execute(db):
    _, c, _ = db
    make(c, "sbtest1")
    text(c, "PREPARE r FROM 'SELECT c, k FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c'")
    text(c, "PREPARE u FROM 'UPDATE sbtest1 SET k = k + 1 WHERE id = ?'")
    before = hits(c)
    for lo, hi in [(1, 5), (5, 1), ("3", "9x"), (None, 2), (40, 45), (1, 5)]:
        text(c, "SET @lo = %s, @hi = %s", (lo, hi))
        got = text(c, "EXECUTE r USING @lo, @hi")
        want = text(c, "SELECT c, k FROM sbtest1 WHERE id BETWEEN %s AND %s ORDER BY c", (lo, hi))
        assert got == want, (lo, hi)
        text(c, "EXECUTE u USING @lo")
    assert hits(c) - before >= 10
    assert text(c, "SELECT k FROM sbtest1 WHERE id = 1") == [(7 + 2,)]


DML = [
    ("UPDATE {t} SET k=k+1 WHERE id=%s", [(1,), (1,), (999,), (None,), ("2",), ("2x",), (-1,)]),
    ("UPDATE {t} SET c=%s WHERE id=%s",
     [("x", 3), ("y", 3), ("z" * 130, 4), (None, 5), (7, 6), ("w", "6")]),
    ("UPDATE {t} SET k=%s WHERE id BETWEEN %s AND %s ORDER BY id DESC LIMIT 2",
     [(100, 10, 20), (2147483648, 10, 20), ("abc", 1, 2), (None, 1, 2), (5, 20, 10)]),
    ("DELETE FROM {t} WHERE id=%s", [(30,), (30,), (None,), ("31",), ("32abc",), (99,)]),
    ("DELETE FROM {t} WHERE k = %s ORDER BY id LIMIT 1", [(3,), (3,), ("4",), (None,)]),
    ("INSERT INTO {t} (id, k, c, pad) VALUES (%s, %s, %s, %s)",
     [(100, 1, "a", "b"), (100, 1, "a", "b"), (None, 2, "auto", "p"), (101, None, "n", "p"),
      (102, "x", "s", "p"), ("103", "7", "str", "p"), (104, 1, "q" * 121, "p"),
      (2147483648, 1, "big", "p"), (None, 5, "auto2", "p")]),
    ("INSERT INTO {t} (id, k, c) VALUES (%s, %s, %s) ON DUPLICATE KEY UPDATE k = k + VALUES(k)",
     [(1, 5, "d"), (1, 5, "d"), (200, 1, "n"), (200, None, "n")]),
    ("REPLACE INTO {t} (id, k, c, pad) VALUES (%s, %s, %s, %s)", [(2, 9, "r", "r"), (300, 1, "r", "r")]),
]


def contents(c, t):
    return text(c, f"SELECT * FROM {t} ORDER BY id")


@pytest.mark.parametrize("mode", ["strict", "loose"])
def test_dml_shapes_match_the_general_path(db, mode):
    _, c, _ = db
    if mode == "loose":
        text(c, "SET sql_mode = ''")
    for n, (tmpl, values) in enumerate(DML):
        for t in ("ta", "tb", "tc"):
            text(c, f"DROP TABLE IF EXISTS {t}")
        make(c, "ta", "tb", "tc")
        cur = c.cursor(prepared=True)
        # (one string object: the connector prepares again for another one)
        sql_a, sql_b, sql_c = (tmpl.format(t=t) for t in ("ta", "tb", "tc"))
        before = hits(c)
        for p in values:
            got = outcome(c, cur, sql_a, p)
            assert got == fresh(c, sql_b, p), (tmpl, p)
            assert got == as_text(c, sql_c, p), (tmpl, p)
            assert contents(c, "ta") == contents(c, "tb") == contents(c, "tc"), (tmpl, p)
        cur.close()
        assert hits(c) - before == len(values) - 1, tmpl


def test_ddl_between_executions(db):
    _, c, _ = db
    make(c, "sbtest1")
    shapes = [
        ("SELECT id, c FROM sbtest1 WHERE k = %s ORDER BY id", (3,)),
        ("SELECT * FROM sbtest1 WHERE id BETWEEN %s AND %s", (4, 6)),
        ("SELECT c FROM sbtest1 WHERE id BETWEEN %s AND %s ORDER BY c", (1, 9)),
        ("UPDATE sbtest1 SET k = k WHERE c = %s", ("c3",)),
    ]
    curs = [c.cursor(prepared=True) for _ in shapes]

    def run_all():
        for cur, (sql, p) in zip(curs, shapes):
            assert outcome(c, cur, sql, p) == fresh(c, sql, p), sql

    run_all()
    run_all()
    for ddl in [
        "ALTER TABLE sbtest1 ADD INDEX c_1 (c)",
        "ALTER TABLE sbtest1 DROP INDEX k_1",
        "ALTER TABLE sbtest1 ADD COLUMN z INT DEFAULT 7",
        "ALTER TABLE sbtest1 ADD INDEX kz (k, z)",
        "ALTER TABLE sbtest1 DROP COLUMN z",
    ]:
        made = plans(c)
        text(c, ddl)
        run_all()
        # Each statement was planned again (its old plan was stale)...
        assert plans(c) - made >= len(shapes), ddl
        before = hits(c)
        run_all()
        # ...and the new plans answer.
        assert hits(c) - before == len(shapes), ddl
    # Dropped and created again, with other types and another key.
    text(c, "DROP TABLE sbtest1")
    text(c, "CREATE TABLE sbtest1 (id VARCHAR(10) PRIMARY KEY, k INT, c VARCHAR(10), pad INT)")
    text(c, "INSERT INTO sbtest1 VALUES ('4', 3, 'c3', 1), ('10', 3, 'x', 2), ('5', 1, 'c3', 3)")
    run_all()
    run_all()
    # A view of the name: views are expanded by the general path, never planned.
    text(c, "DROP TABLE sbtest1")
    text(c, "CREATE TABLE base (id INT PRIMARY KEY, k INT, c VARCHAR(10), pad INT)")
    text(c, "INSERT INTO base VALUES (4, 3, 'c3', 1), (5, 3, 'v', 2)")
    text(c, "CREATE VIEW sbtest1 AS SELECT id, k, c, pad FROM base")
    before = hits(c)
    run_all()
    run_all()
    assert hits(c) == before
    text(c, "DROP VIEW sbtest1")
    for cur, (sql, p) in zip(curs, shapes):
        assert outcome(c, cur, sql, p)[0] == ("error", 1146)


def test_current_database_and_temporary_tables(db):
    srv, c, name = db
    make(c, "sbtest1")
    other = name + "o"
    text(c, f"CREATE DATABASE {other}")
    text(c, f"CREATE TABLE {other}.sbtest1 {TABLE}")
    text(c, f"INSERT INTO {other}.sbtest1 VALUES (2, 1, 'other', 'o')")
    sql = "SELECT id, c FROM sbtest1 WHERE id BETWEEN %s AND %s"
    dml = "UPDATE sbtest1 SET k = k + 1 WHERE id = %s"
    cur, ucur = c.cursor(prepared=True), c.cursor(prepared=True)

    def check():
        got = outcome(c, cur, sql, (1, 3))
        assert got == as_text(c, sql, (1, 3))
        outcome(c, ucur, dml, (2,))
        return got[0][2]

    assert check() == [(1, "c1"), (2, "c2"), (3, "c3")]
    assert check() == [(1, "c1"), (2, "c2"), (3, "c3")]
    text(c, f"USE {other}")
    assert check() == [(2, "other")]
    assert check() == [(2, "other")]
    assert text(c, "SELECT k FROM sbtest1") == [(3,)]
    text(c, f"USE {name}")
    assert check() == [(1, "c1"), (2, "c2"), (3, "c3")]
    # A TEMPORARY table of the name hides the table from the plan too.
    text(c, "CREATE TEMPORARY TABLE sbtest1 (id INT PRIMARY KEY, k INT, c VARCHAR(9))")
    text(c, "INSERT INTO sbtest1 VALUES (3, 0, 'temp')")
    before = hits(c)
    assert check() == [(3, "temp")]
    assert check() == [(3, "temp")]
    assert hits(c) == before
    text(c, "DROP TEMPORARY TABLE sbtest1")
    assert check() == [(1, "c1"), (2, "c2"), (3, "c3")]
    before = hits(c)
    assert check() == [(1, "c1"), (2, "c2"), (3, "c3")]
    assert hits(c) - before == 2
    # The base table's k: 2 updates before the USE, 2 since, none to the temporary.
    assert text(c, "SELECT k FROM sbtest1 WHERE id = 2") == [(1 + 2 + 3,)]


def test_session_state_the_binding_depends_on(db):
    _, c, _ = db
    make(c, "sbtest1")
    text(c, "SET sql_mode = 'ONLY_FULL_GROUP_BY'")
    sql = "SELECT k, c FROM sbtest1 WHERE id BETWEEN %s AND %s GROUP BY k"
    cur = c.cursor(prepared=True)
    for _ in range(2):
        assert outcome(c, cur, sql, (1, 9)) == fresh(c, sql, (1, 9))
        assert outcome(c, cur, sql, (1, 9))[0][0] == "error"
    text(c, "SET sql_mode = ''")
    assert outcome(c, cur, sql, (1, 9)) == fresh(c, sql, (1, 9))
    assert outcome(c, cur, sql, (1, 9))[0][0] == "rows"
    text(c, "SET sql_mode = 'ONLY_FULL_GROUP_BY'")
    assert outcome(c, cur, sql, (1, 9))[0][0] == "error"
    # Collations of ORDER BY keys over parameters follow collation_connection.
    sql = "SELECT DISTINCT %s AS x FROM sbtest1 WHERE id BETWEEN %s AND %s ORDER BY x"
    cur2 = c.cursor(prepared=True)
    for coll in ["utf8mb4_0900_ai_ci", "utf8mb4_bin", "utf8mb4_0900_ai_ci"]:
        text(c, f"SET collation_connection = '{coll}'")
        for p in [("a", 1, 3), ("A", 2, 4)]:
            assert outcome(c, cur2, sql, p) == fresh(c, sql, p), (coll, p)


def test_lock_tables_and_transactions(db):
    srv, c, name = db
    make(c, "sbtest1")
    sql = "SELECT c FROM sbtest1 WHERE id BETWEEN %s AND %s ORDER BY c"
    cur = c.cursor(prepared=True)
    for _ in range(2):
        outcome(c, cur, sql, (1, 3))
    text(c, "LOCK TABLES sbtest1 READ")
    before = hits(c)
    assert outcome(c, cur, sql, (1, 3)) == fresh(c, sql, (1, 3))
    assert hits(c) == before
    text(c, "UNLOCK TABLES")
    # A plan reads the transaction's snapshot.
    other = connect(srv, name)
    text(c, "BEGIN")
    first = outcome(c, cur, sql, (1, 3))
    text(other, "UPDATE sbtest1 SET c = 'zz' WHERE id = 2")
    assert outcome(c, cur, sql, (1, 3)) == first
    text(c, "COMMIT")
    assert outcome(c, cur, sql, (1, 3))[0][2] == [("c1",), ("c3",), ("zz",)]
    other.close()


def test_privileges_are_checked_on_every_execution(db):
    srv, c, name = db
    make(c, "sbtest1")
    text(c, "CREATE USER 'ppu'@'%' IDENTIFIED BY 'pw'")
    text(c, f"GRANT SELECT, UPDATE ON {name}.sbtest1 TO 'ppu'@'%'")
    u = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="ppu", password="pw",
                                database=name, autocommit=True)
    sel, upd = u.cursor(prepared=True), u.cursor(prepared=True)
    for _ in range(3):
        assert outcome(u, sel, "SELECT c FROM sbtest1 WHERE id BETWEEN %s AND %s", (1, 2))[0][0] == "rows"
        assert outcome(u, upd, "UPDATE sbtest1 SET k = k + 1 WHERE id = %s", (1,))[0][0] == "ok"
    text(c, f"REVOKE SELECT, UPDATE ON {name}.sbtest1 FROM 'ppu'@'%'")
    assert outcome(u, sel, "SELECT c FROM sbtest1 WHERE id BETWEEN %s AND %s", (1, 2))[0] == ("error", 1142)
    assert outcome(u, upd, "UPDATE sbtest1 SET k = k + 1 WHERE id = %s", (1,))[0] == ("error", 1142)
    u.close()


def test_triggers_fire_from_a_plan(db):
    _, c, _ = db
    make(c, "ta", "tb")
    text(c, "CREATE TABLE log (n INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(40))")
    for t in ("ta", "tb"):
        text(c, f"CREATE TRIGGER {t}_u BEFORE UPDATE ON {t} FOR EACH ROW "
                f"BEGIN SET NEW.c = CONCAT(OLD.c, '+'); INSERT INTO log (what) VALUES ('{t}'); END")
    cur = c.cursor(prepared=True)
    sql_a = "UPDATE ta SET k = k + %s WHERE id BETWEEN %s AND %s"
    sql_b = "UPDATE tb SET k = k + %s WHERE id BETWEEN %s AND %s"
    before = hits(c)
    for p in [(1, 1, 3), (2, 2, 2), (1, 5, 1), ("x", 1, 1)]:
        assert outcome(c, cur, sql_a, p) == fresh(c, sql_b, p), p
        assert contents(c, "ta") == contents(c, "tb")
    assert hits(c) - before == 3
    (a, na), (b, nb) = text(c, "SELECT what, COUNT(*) FROM log GROUP BY what ORDER BY what")
    assert (a, b) == ("ta", "tb") and na == nb >= 4


def test_text_statements_make_no_plans(db):
    _, c, _ = db
    make(c, "sbtest1")
    before = plans(c)
    for i in range(5):
        text(c, "SELECT c FROM sbtest1 WHERE id BETWEEN %s AND %s ORDER BY c", (i, i + 3))
        text(c, "UPDATE sbtest1 SET k = k + 1 WHERE id = %s", (i,))
    assert plans(c) == before
