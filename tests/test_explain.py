"""EXPLAIN end to end (crates/kiln-sql/src/exec/explain.rs).

kiln answers EXPLAIN in MySQL 8.0's traditional format (id, select_type, table,
partitions, type, possible_keys, key, key_len, ref, rows, filtered, Extra) with the
plan its executor really runs. Most tests assert kiln's exact rows for MySQL 8.0
semantics; the differential test at the end runs the easy cases on a private MariaDB
10.11 too and compares the columns the two must agree on (select_type, table, type,
key, key_len, ref, Extra) — MariaDB's row estimates and some Extra texts differ, so
those cases stay kiln-only.
"""

import time

import pymysql
import pytest

from mariadb_server import start_private_mariadb

DB = "explt"
SETUP = [
    f"CREATE DATABASE {DB}",
    f"USE {DB}",
    # sysbench's table.
    "CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, "
    "c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', "
    "PRIMARY KEY (id), KEY k_1 (k)) DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE t2 (a INT, b VARCHAR(20), u INT, d DECIMAL(10,2), dt DATETIME, "
    "UNIQUE KEY ub (u), KEY ab (a, b), KEY ddt (d, dt)) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO sbtest1 (k, c, pad) VALUES "
    + ",".join(f"({i % 100}, 'c{i}', 'p')" for i in range(1, 1001)),
    "INSERT INTO t2 (a, b, u, d, dt) VALUES "
    + ",".join(f"({i % 5}, 'b{i}', {i}, {i}.50, '2020-01-01 00:00:00')" for i in range(1, 51)),
]

COLUMNS = [
    "id",
    "select_type",
    "table",
    "partitions",
    "type",
    "possible_keys",
    "key",
    "key_len",
    "ref",
    "rows",
    "filtered",
    "Extra",
]


def run(c, sql):
    with c.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def err(c, sql):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        run(c, sql)
    return ei.value.args[0], ei.value.args[1]


def explain(c, sql):
    """EXPLAIN rows as tuples, filtered as text ('100.00')."""
    rows = run(c, "EXPLAIN " + sql)
    return [tuple(r[:10]) + (None if r[10] is None else f"{r[10]:.2f}", r[11]) for r in rows]


def row(id, st, table, type=None, keys=None, key=None, key_len=None, ref=None, rows=None,
        extra=None, filtered="100.00"):
    if table is None:
        filtered = None
    return (id, st, table, None, type, keys, key, key_len, ref, rows, filtered, extra)


def message(id, st, text):
    return (id, st, None, None, None, None, None, None, None, None, None, text)


@pytest.fixture(scope="module")
def conn(kiln_shared):
    c = kiln_shared.connect()
    for s in SETUP:
        run(c, s)
    yield c
    c.close()


# -- result metadata ---------------------------------------------------------------------


def test_columns_are_mysqls(conn):
    with conn.cursor() as cur:
        cur.execute("EXPLAIN SELECT * FROM sbtest1 WHERE id = 1")
        d = cur.description
        cur.fetchall()
    assert [x[0] for x in d] == COLUMNS
    LONGLONG, DOUBLE, VAR_STRING = 8, 5, 253
    types = [x[1] for x in d]
    assert types == [LONGLONG] + [VAR_STRING] * 8 + [LONGLONG, DOUBLE, VAR_STRING]
    assert d[10][5] == 2  # filtered has 2 decimals: prints 100.00
    # Text protocol text of filtered.
    c2 = pymysql.connect(
        host=conn.host, port=conn.port, user="root", password="", database=DB,
        conv={}, autocommit=True,
    )
    try:
        r = run(c2, "EXPLAIN SELECT * FROM sbtest1 WHERE id = 1")
        assert r[0][10] == "100.00" and r[0][0] == "1"
    finally:
        c2.close()


# -- single-table reads (sysbench's queries) ---------------------------------------------


def test_point_select_is_const(conn):
    assert explain(conn, "SELECT c FROM sbtest1 WHERE id = 10") == [
        row(1, "SIMPLE", "sbtest1", "const", "PRIMARY", "PRIMARY", "4", "const", 1)
    ]
    # DESC / DESCRIBE and FORMAT=TRADITIONAL are the same statement.
    assert run(conn, "DESCRIBE SELECT c FROM sbtest1 WHERE id = 10") == run(
        conn, "EXPLAIN FORMAT=TRADITIONAL SELECT c FROM sbtest1 WHERE id = 10"
    )
    assert run(conn, "DESC SELECT c FROM sbtest1 WHERE id = 10") == run(
        conn, "EXPLAIN format = 'traditional' SELECT c FROM sbtest1 WHERE id = 10"
    )


def test_const_table_is_read_while_planning(conn):
    assert explain(conn, "SELECT c FROM sbtest1 WHERE id = 5000") == [
        message(1, "SIMPLE", "no matching row in const table")
    ]
    assert explain(conn, "SELECT c FROM sbtest1 WHERE id = 10 AND k = 99") == [
        message(1, "SIMPLE", "Impossible WHERE noticed after reading const tables")
    ]
    # The rest of WHERE holds for the row: a plain const row.
    assert explain(conn, "SELECT c FROM sbtest1 WHERE id = 10 AND k = 10")[0][4] == "const"


def test_ranges(conn):
    assert explain(conn, "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104") == [
        row(1, "SIMPLE", "sbtest1", "range", "PRIMARY", "PRIMARY", "4", None, 100, "Using where")
    ]
    # rows counts the entries the range reads.
    assert explain(conn, "SELECT c FROM sbtest1 WHERE id >= 991")[0][9] == 10
    assert explain(conn, "SELECT c FROM sbtest1 WHERE id IN (3, 5, 3, 7)") == [
        row(1, "SIMPLE", "sbtest1", "range", "PRIMARY", "PRIMARY", "4", None, 3, "Using where")
    ]
    assert explain(
        conn, "SELECT c FROM sbtest1 WHERE id BETWEEN 1 AND 10 OR id BETWEEN 20 AND 29"
    )[0][4:10] == ("range", "PRIMARY", "PRIMARY", "4", None, 20)
    assert explain(conn, "SELECT * FROM sbtest1 WHERE k IN (1, 2)") == [
        row(1, "SIMPLE", "sbtest1", "range", "k_1", "k_1", "4", None, 20, "Using where")
    ]


def test_sysbench_range_queries_sort_and_hash(conn):
    # kiln sorts every ORDER BY and groups / deduplicates through a hash table.
    assert explain(conn, "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c")[0][
        11
    ] == "Using where; Using filesort"
    assert explain(
        conn, "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c"
    )[0][11] == "Using where; Using temporary; Using filesort"
    assert explain(conn, "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 5 AND 104")[0][
        11
    ] == "Using where"
    # k_1 covers the query: it is read whole (MySQL 8.0 groups in its order instead
    # of hashing, so says only "Using index").
    assert explain(conn, "SELECT k, COUNT(*) FROM sbtest1 GROUP BY k")[0][11] == (
        "Using index; Using temporary"
    )
    # A const row needs no sort.
    assert explain(conn, "SELECT * FROM sbtest1 WHERE id = 3 ORDER BY c")[0][11] is None


def test_ref_on_secondary_and_composite_keys(conn):
    assert explain(conn, "SELECT * FROM sbtest1 WHERE k = 3") == [
        row(1, "SIMPLE", "sbtest1", "ref", "k_1", "k_1", "4", "const", 10)
    ]
    # A conjunct the key does not settle is re-checked.
    assert explain(conn, "SELECT * FROM sbtest1 WHERE k = 3 AND c = 'x'")[0][11] == "Using where"
    # INT NULL (5) + VARCHAR(20) utf8mb4 NULL (4*20 + 2 + 1).
    assert explain(conn, "SELECT * FROM t2 WHERE a = 1 AND b = 'b1'") == [
        row(1, "SIMPLE", "t2", "ref", "ab", "ab", "88", "const,const", 1)
    ]
    assert explain(conn, "SELECT * FROM t2 WHERE a = 1") == [
        row(1, "SIMPLE", "t2", "ref", "ab", "ab", "5", "const", 10)
    ]
    assert explain(conn, "SELECT * FROM t2 WHERE a = 1 AND b > 'b2'")[0][4:12] == (
        "range", "ab", "ab", "88", None, 7, "100.00", "Using where"
    )
    # A unique key on a nullable column: const, key_len 5.
    assert explain(conn, "SELECT * FROM t2 WHERE u = 7") == [
        row(1, "SIMPLE", "t2", "const", "ub", "ub", "5", "const", 1)
    ]
    # DECIMAL(10,2) NULL (5 + 1) + DATETIME NULL (5 + 1).
    assert explain(conn, "SELECT * FROM t2 WHERE d = 1.50 AND dt = '2020-01-01 00:00:00'")[0][
        4:9
    ] == ("ref", "ddt", "ddt", "12", "const,const")
    # Several candidate indexes: possible_keys lists them, key is the one read.
    r = explain(conn, "SELECT * FROM t2 WHERE u = 7 AND a = 2")
    assert r[0][5:8] == ("ub,ab", "ub", "5")


def test_full_scans(conn):
    assert explain(conn, "SELECT * FROM sbtest1") == [
        row(1, "SIMPLE", "sbtest1", "ALL", rows=1000)
    ]
    assert explain(conn, "SELECT * FROM sbtest1 WHERE c = 'x'") == [
        row(1, "SIMPLE", "sbtest1", "ALL", rows=1000, extra="Using where")
    ]
    # A string compared with an INT key is a numeric comparison: no key use.
    assert explain(conn, "SELECT * FROM sbtest1 WHERE id = 'abc'")[0][4] == "ALL"
    # A constant true conjunct filters nothing.
    assert explain(conn, "SELECT * FROM sbtest1 WHERE 1 = 1")[0][11] is None


def test_covering_index_reads(conn):
    # Every column used is in k_1's entries (k, and the primary key id they carry).
    assert explain(conn, "SELECT k FROM sbtest1 WHERE k BETWEEN 3 AND 4") == [
        row(1, "SIMPLE", "sbtest1", "range", "k_1", "k_1", "4", None, 20,
            "Using where; Using index")
    ]
    assert explain(conn, "SELECT id, k FROM sbtest1 WHERE k = 3") == [
        row(1, "SIMPLE", "sbtest1", "ref", "k_1", "k_1", "4", "const", 10, "Using index")
    ]
    assert explain(conn, "SELECT id FROM sbtest1 WHERE id = 3")[0][4:] == (
        "const", "PRIMARY", "PRIMARY", "4", "const", 1, "100.00", "Using index"
    )
    # No key range, but a covering index: read whole instead of the table.
    assert explain(conn, "SELECT id FROM sbtest1") == [
        row(1, "SIMPLE", "sbtest1", "index", None, "k_1", "4", rows=1000, extra="Using index")
    ]
    assert explain(conn, "SELECT COUNT(*) FROM sbtest1 WHERE k + 1 > 5") == [
        row(1, "SIMPLE", "sbtest1", "index", None, "k_1", "4", rows=1000,
            extra="Using where; Using index")
    ]
    # A column outside the index: the row is read.
    assert explain(conn, "SELECT c FROM sbtest1 WHERE k = 3")[0][11] is None
    assert explain(conn, "SELECT k, c FROM sbtest1")[0][4] == "ALL"
    # Text keys hold collation weights, not values: (a, b) covers a, not b.
    assert explain(conn, "SELECT a FROM t2 WHERE a = 1")[0][11] == "Using index"
    assert explain(conn, "SELECT b FROM t2 WHERE a = 1")[0][11] is None
    assert explain(conn, "SELECT a FROM t2 WHERE a = 1 AND b = 'b1'")[0][11] is None
    # DECIMAL / DATETIME parts are not decoded: ddt covers neither.
    assert explain(conn, "SELECT d FROM t2 WHERE d = 1.5")[0][11] is None
    # Locking reads take the row from the clustered index.
    assert explain(conn, "SELECT k FROM sbtest1 WHERE k = 3 FOR UPDATE")[0][11] is None
    assert explain(conn, "SELECT id FROM sbtest1 FOR SHARE")[0][4] == "ALL"
    # An index made by CREATE INDEX covers too.
    run(conn, "CREATE TABLE cov1 (id INT PRIMARY KEY, x INT, y INT, s VARCHAR(5))")
    run(conn, "INSERT INTO cov1 VALUES (1, 1, 1, 'a'), (2, 2, 2, 'b')")
    run(conn, "CREATE INDEX xy ON cov1 (x, y DESC)")
    assert explain(conn, "SELECT y FROM cov1 WHERE x = 2")[0][11] == "Using index"
    assert run(conn, "SELECT y, id FROM cov1 WHERE x = 2") == ((2, 2),)
    run(conn, "DROP TABLE cov1")


def test_order_by_from_index_order(conn):
    # ORDER BY a key's columns, under a LIMIT: the index is read in order, no sort.
    assert explain(conn, "SELECT * FROM sbtest1 ORDER BY k LIMIT 10") == [
        row(1, "SIMPLE", "sbtest1", "index", None, "k_1", "4", rows=10)
    ]
    assert explain(conn, "SELECT * FROM sbtest1 ORDER BY id LIMIT 5 OFFSET 5") == [
        row(1, "SIMPLE", "sbtest1", "index", None, "PRIMARY", "4", rows=10)
    ]
    # Backwards for DESC (MySQL 8.0 says so).
    assert explain(conn, "SELECT * FROM sbtest1 ORDER BY id DESC LIMIT 3")[0][4:] == (
        "index", None, "PRIMARY", "4", None, 3, "100.00", "Backward index scan"
    )
    assert explain(conn, "SELECT id FROM sbtest1 ORDER BY k DESC, id DESC LIMIT 3")[0][11] == (
        "Backward index scan; Using index"
    )
    # The clustered index is in primary-key order: no LIMIT needed.
    assert explain(conn, "SELECT * FROM sbtest1 ORDER BY id")[0][4:7] == (
        "index", None, "PRIMARY"
    )
    # After the columns WHERE binds to one value; ranges read in key order too.
    assert explain(conn, "SELECT * FROM sbtest1 WHERE k = 3 ORDER BY id LIMIT 2")[0][11] is None
    assert explain(conn, "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY id DESC")[
        0
    ][11] == "Using where; Backward index scan"
    assert explain(conn, "SELECT a, b FROM t2 WHERE a = 1 ORDER BY b LIMIT 3")[0][4:8] == (
        "ref", "ab", "ab", "5"
    )
    # Still sorted: not a key prefix, mixed directions, no LIMIT on a secondary
    # index that does not cover, an IN list ahead of the ordered part, a function.
    for sql in (
        "SELECT * FROM sbtest1 ORDER BY c LIMIT 3",
        "SELECT * FROM sbtest1 ORDER BY k, id DESC LIMIT 3",
        "SELECT * FROM sbtest1 ORDER BY k",
        "SELECT * FROM t2 WHERE a IN (1, 2) ORDER BY b LIMIT 3",
        "SELECT * FROM sbtest1 ORDER BY k + 1 LIMIT 3",
        "SELECT k FROM sbtest1 GROUP BY k ORDER BY k LIMIT 3",
        "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c",
    ):
        assert "Using filesort" in explain(conn, sql)[0][11], sql


def test_no_tables_and_impossible_where(conn):
    assert explain(conn, "SELECT 1") == [message(1, "SIMPLE", "No tables used")]
    assert explain(conn, "SELECT COUNT(*)") == [message(1, "SIMPLE", "No tables used")]
    assert explain(conn, "SELECT 1 FROM DUAL WHERE 0") == [message(1, "SIMPLE", "Impossible WHERE")]
    assert explain(conn, "SELECT * FROM sbtest1 WHERE 1 = 0") == [
        message(1, "SIMPLE", "Impossible WHERE")
    ]
    assert explain(conn, "SELECT * FROM sbtest1 WHERE k = 1 AND NULL") == [
        message(1, "SIMPLE", "Impossible WHERE")
    ]
    # The plan is real: such a WHERE reads nothing and returns nothing.
    assert run(conn, "SELECT * FROM sbtest1 WHERE 1 = 0") == ()
    assert run(conn, "SELECT COUNT(*) FROM sbtest1 WHERE k = 1 AND 0") == ((0,),)
    assert run(conn, "SELECT COUNT(*) FROM sbtest1 WHERE 1 AND k = 1") == ((10,),)


# -- joins, derived tables, subqueries, UNION --------------------------------------------


def test_joins_list_tables_in_loop_order(conn):
    jb = "Using join buffer (Block Nested Loop)"
    hj = "Using join buffer (hash join)"
    # WHERE's conjunct on s alone picks s's access path; t2 is read per s row through
    # its index on (a, b) (exec/join_index.rs), a tenth of its rows per key.
    assert explain(conn, "SELECT * FROM sbtest1 s JOIN t2 ON s.k = t2.a WHERE s.id < 5") == [
        row(1, "SIMPLE", "s", "range", "PRIMARY", "PRIMARY", "4", rows=4, extra="Using where"),
        row(1, "SIMPLE", "t2", "ref", "ab", "ab", "5", f"{DB}.s.k", 5, "Using where"),
    ]
    # A RIGHT JOIN runs as a LEFT JOIN with the sides swapped: s is the inner side,
    # its k_1 index serves t2.a.
    r = explain(conn, "SELECT * FROM sbtest1 s RIGHT JOIN t2 ON s.k = t2.a")
    assert [(x[2], x[4], x[6], x[8]) for x in r] == [
        ("t2", "ALL", None, None),
        ("s", "ref", "k_1", f"{DB}.t2.a"),
    ]
    # An equality no index serves: a hash join, the smaller table (t2) read first
    # (exec/join_order.rs).
    r = explain(conn, "SELECT * FROM sbtest1 s JOIN t2 ON s.c = t2.b")
    assert [(x[2], x[4], x[11]) for x in r] == [
        ("t2", "ALL", None),
        ("s", "ALL", "Using where; " + hj),
    ]
    # STRAIGHT_JOIN keeps the written order.
    r = explain(conn, "SELECT STRAIGHT_JOIN * FROM sbtest1 s JOIN t2 ON s.c = t2.b")
    assert [x[2] for x in r] == ["s", "t2"]
    r = explain(conn, "SELECT * FROM sbtest1 s, t2 ORDER BY s.c")
    assert [x[11] for x in r] == ["Using filesort", jb]
    # A comma join on a WHERE equality joins as the inner join it is.
    r = explain(conn, "SELECT * FROM t2, sbtest1 s WHERE s.id = t2.u")
    assert [(x[2], x[4], x[6], x[8]) for x in r] == [
        ("t2", "ALL", None, None),
        ("s", "eq_ref", "PRIMARY", f"{DB}.t2.u"),
    ]
    # A conjunct on a table the WHERE sees NULL-extended stays on the joined rows.
    r = explain(conn, "SELECT * FROM t2 LEFT JOIN sbtest1 s ON s.id = t2.u WHERE s.k = 3")
    assert [(x[2], x[4]) for x in r] == [("t2", "ALL"), ("s", "eq_ref")]
    assert run(conn, "SELECT COUNT(*) FROM t2 LEFT JOIN sbtest1 s ON s.id = t2.u "
                     "WHERE s.k IS NULL") == ((0,),)
    assert run(conn, "SELECT COUNT(*) FROM t2 LEFT JOIN sbtest1 s ON s.id = t2.u + 990 "
                     "WHERE s.k IS NULL") == ((40,),)


def test_derived_tables_are_materialized(conn):
    assert explain(conn, "SELECT * FROM (SELECT id FROM sbtest1 WHERE id < 5) d WHERE id > 1") == [
        (1, "PRIMARY", "<derived2>", None, "ALL", None, None, None, None, None, "100.00",
         "Using where"),
        # Only id is used: the primary key covers the read.
        row(2, "DERIVED", "sbtest1", "range", "PRIMARY", "PRIMARY", "4", None, 4,
            "Using where; Using index"),
    ]


def test_subqueries(conn):
    # An uncorrelated subquery runs once and its value keys the outer read.
    assert explain(conn, "SELECT * FROM sbtest1 WHERE id = (SELECT MAX(u) FROM t2)") == [
        row(1, "PRIMARY", "sbtest1", "const", "PRIMARY", "PRIMARY", "4", "const", 1),
        # MAX(u) reads one end of the unique key on u, as MySQL 8.0 (exec/minmax.rs).
        (2, "SUBQUERY", None, None, None, None, None, None, None, None, None,
         "Select tables optimized away"),
    ]
    assert explain(conn, "SELECT * FROM sbtest1 WHERE id IN (SELECT u FROM t2 WHERE a = 1)")[
        1
    ] == row(2, "SUBQUERY", "t2", "ref", "ab", "ab", "5", "const", 10)
    # A correlated one runs per outer row, keyed by the outer column.
    assert explain(
        conn, "SELECT * FROM sbtest1 s WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.u = s.id)"
    ) == [
        row(1, "PRIMARY", "s", "ALL", rows=1000, extra="Using where"),
        row(2, "DEPENDENT SUBQUERY", "t2", "eq_ref", "ub", "ub", "5", f"{DB}.s.id", 1,
            "Using index"),
    ]
    r = explain(conn, "SELECT (SELECT COUNT(*) FROM t2 WHERE t2.a = s.k), "
                      "(SELECT 1 FROM t2 WHERE u = s.id + 1) FROM sbtest1 s WHERE s.id = 3")
    assert [(x[0], x[1], x[4], x[8]) for x in r] == [
        (1, "PRIMARY", "const", "const"),
        (2, "DEPENDENT SUBQUERY", "ref", f"{DB}.s.k"),
        (3, "DEPENDENT SUBQUERY", "eq_ref", "func"),
    ]


def test_unions(conn):
    assert explain(conn, "SELECT id FROM sbtest1 WHERE id = 1 UNION SELECT u FROM t2") == [
        row(1, "PRIMARY", "sbtest1", "const", "PRIMARY", "PRIMARY", "4", "const", 1),
        row(2, "UNION", "t2", "index", None, "ub", "5", rows=50, extra="Using index"),
        (None, "UNION RESULT", "<union1,2>", None, "ALL", None, None, None, None, None, None,
         "Using temporary"),
    ]
    # UNION ALL streams both parts: no UNION RESULT row.
    assert [x[1] for x in explain(conn, "SELECT 1 UNION ALL SELECT 2")] == ["PRIMARY", "UNION"]
    r = explain(conn, "SELECT a FROM t2 WHERE a IN (SELECT 1 UNION SELECT 2)")
    assert [(x[0], x[1], x[2]) for x in r] == [
        (1, "PRIMARY", "t2"),
        (2, "SUBQUERY", None),
        (3, "UNION", None),
        (None, "UNION RESULT", "<union2,3>"),
    ]


# -- DML ----------------------------------------------------------------------------------


def test_dml_explains_without_executing(conn):
    before = run(conn, "SELECT COUNT(*), SUM(k) FROM sbtest1")
    assert explain(conn, "DELETE FROM sbtest1 WHERE id = 5") == [
        row(1, "DELETE", "sbtest1", "range", "PRIMARY", "PRIMARY", "4", "const", 1, "Using where")
    ]
    assert explain(conn, "UPDATE sbtest1 SET k = k + 1 WHERE k BETWEEN 1 AND 2") == [
        row(1, "UPDATE", "sbtest1", "range", "k_1", "k_1", "4", None, 20, "Using where")
    ]
    assert explain(conn, "UPDATE sbtest1 SET k = 1 ORDER BY c LIMIT 1") == [
        row(1, "UPDATE", "sbtest1", "ALL", rows=1000, extra="Using filesort")
    ]
    assert explain(conn, "DELETE FROM sbtest1") == [row(1, "DELETE", "sbtest1", "ALL", rows=1000)]
    assert explain(conn, "INSERT INTO t2 (a) VALUES (1)") == [
        (1, "INSERT", "t2", None, "ALL", None, None, None, None, None, None, None)
    ]
    assert explain(conn, "REPLACE INTO t2 (a, u) SELECT k, id FROM sbtest1 WHERE id < 3") == [
        (1, "REPLACE", "t2", None, "ALL", None, None, None, None, None, None, None),
        row(1, "SIMPLE", "sbtest1", "range", "PRIMARY", "PRIMARY", "4", None, 2, "Using where"),
    ]
    r = explain(conn, "DELETE s FROM sbtest1 s JOIN t2 ON s.id = t2.u")
    assert [(x[1], x[2]) for x in r] == [("DELETE", "s"), ("SIMPLE", "t2")]
    assert run(conn, "SELECT COUNT(*), SUM(k) FROM sbtest1") == before
    assert run(conn, "SELECT COUNT(*) FROM t2") == ((50,),)


def test_subqueries_are_not_run(conn):
    run(conn, "SET @x = 0")
    t0 = time.monotonic()
    r = explain(conn, "SELECT * FROM sbtest1 WHERE id = (SELECT SLEEP(3) + (@x := 7))")
    assert time.monotonic() - t0 < 2
    assert run(conn, "SELECT @x") == ((0,),)
    assert [x[1] for x in r] == ["PRIMARY", "SUBQUERY"]


# -- errors and the DESCRIBE form ---------------------------------------------------------


def test_formats_and_errors(conn):
    assert err(conn, "EXPLAIN FORMAT=JSON SELECT 1") == (
        1235, "This version of MySQL doesn't yet support 'EXPLAIN FORMAT=JSON'"
    )
    assert err(conn, "EXPLAIN FORMAT=TREE SELECT 1")[0] == 1235
    assert err(conn, "EXPLAIN ANALYZE SELECT 1")[0] == 1235
    assert err(conn, "EXPLAIN FOR CONNECTION 1")[0] == 1235
    assert err(conn, "EXPLAIN FORMAT=XML SELECT 1") == (1791, "Unknown EXPLAIN format name: 'XML'")
    assert err(conn, "EXPLAIN SELECT * FROM nosuch") == (1146, f"Table '{DB}.nosuch' doesn't exist")
    assert err(conn, "EXPLAIN SELECT nosuch FROM sbtest1") == (
        1054, "Unknown column 'nosuch' in 'field list'"
    )
    assert err(conn, "EXPLAIN SELECT * FROM sbtest1 WHERE nosuch = 1")[0] == 1054
    assert err(conn, "EXPLAIN SELECT")[0] == 1064
    assert err(conn, "EXPLAIN FORMAT JSON SELECT 1")[0] == 1064


def test_explain_table_still_describes_it(conn):
    assert [r[0] for r in run(conn, "EXPLAIN sbtest1")] == ["id", "k", "c", "pad"]
    assert [r[0] for r in run(conn, "DESCRIBE sbtest1 k")] == ["k"]
    assert [r[0] for r in run(conn, "DESC t2")] == ["a", "b", "u", "d", "dt"]


def test_privileges_are_the_statements(kiln):
    root = kiln.connect()
    for s in SETUP[:3]:
        run(root, s)
    run(root, "INSERT INTO sbtest1 (k) VALUES (1)")
    run(root, "CREATE TABLE secret (x INT)")
    run(root, "CREATE USER 'ro'@'%' IDENTIFIED BY 'pw'")
    run(root, f"GRANT SELECT ON {DB}.sbtest1 TO 'ro'@'%'")
    u = kiln.connect(user="ro", password="pw", database=DB)
    assert explain(u, "SELECT * FROM sbtest1 WHERE id = 1")[0][4] == "const"
    code, msg = err(u, "EXPLAIN SELECT * FROM secret")
    assert (code, msg) == (1142, "SELECT command denied to user 'ro'@'localhost' for table 'secret'")
    code, msg = err(u, "EXPLAIN DELETE FROM sbtest1 WHERE id = 1")
    assert code == 1142 and msg.startswith("DELETE command denied")
    assert err(u, "EXPLAIN UPDATE sbtest1 SET k = 1")[0] == 1142
    assert err(u, "EXPLAIN INSERT INTO sbtest1 (k) VALUES (1)")[0] == 1142
    u.close()
    root.close()


# -- against MariaDB 10.11 ----------------------------------------------------------------

# Cases whose select_type, table, type, key, key_len, ref and Extra MySQL 8.0, MariaDB
# 10.11 and kiln agree on.
SAME_AS_MARIADB = [
    "SELECT c FROM sbtest1 WHERE id = 10",
    "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104",
    "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c",
    "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 5 AND 104",
    "SELECT c FROM sbtest1 WHERE id IN (3, 5, 7)",
    "SELECT * FROM sbtest1 WHERE k = 3",
    "SELECT * FROM sbtest1 WHERE k = 3 AND c = 'c3'",
    "SELECT * FROM t2 WHERE u = 7",
    "SELECT * FROM sbtest1 WHERE c = 'x'",
    "SELECT * FROM sbtest1",
    "SELECT 1",
    "SELECT * FROM sbtest1 WHERE 1 = 0",
    "SELECT c FROM sbtest1 WHERE id = 10 AND k = 99",
    "SELECT c FROM sbtest1 WHERE id = 10 ORDER BY c",
    # Covering reads.
    "SELECT k FROM sbtest1 WHERE k BETWEEN 3 AND 4",
    "SELECT id, k FROM sbtest1 WHERE k = 3",
    "SELECT id FROM sbtest1 WHERE id BETWEEN 5 AND 104",
    "SELECT id FROM sbtest1",
    "SELECT COUNT(*) FROM sbtest1 WHERE k + 1 > 5",
    "SELECT a FROM t2 WHERE a = 1",
    "SELECT c FROM sbtest1 WHERE k = 3",
    # ORDER BY from index order.
    "SELECT * FROM sbtest1 ORDER BY k LIMIT 10",
    "SELECT * FROM sbtest1 ORDER BY id LIMIT 5",
    "SELECT id, k FROM sbtest1 ORDER BY k LIMIT 5",
    "SELECT * FROM sbtest1 ORDER BY c LIMIT 3",
]


@pytest.fixture(scope="module")
def maria():
    m = start_private_mariadb(prefix="kiln-expl-")
    c = m.connect()
    try:
        for s in SETUP:
            run(c, s)
        run(c, "ANALYZE TABLE sbtest1, t2")
        yield c
    finally:
        c.close()
        m.cleanup()


def _comparable(rows):
    # select_type, table, type, key, key_len, ref, Extra (MariaDB's empty Extra is NULL
    # in MySQL 8.0).
    return [(r[1], r[2], r[4], r[6], r[7], r[8], r[11] or None) for r in rows]


@pytest.mark.parametrize("sql", SAME_AS_MARIADB)
def test_same_as_mariadb(conn, maria, sql):
    k = run(conn, "EXPLAIN " + sql)
    with maria.cursor() as cur:
        cur.execute("EXPLAIN " + sql)
        m = cur.fetchall()
    # MariaDB's EXPLAIN has no partitions column: line its rows up with MySQL's.
    m = [tuple(r[:3]) + (None,) + tuple(r[3:]) if len(r) == 10 else r for r in m]
    m = [r[:10] + (None,) + r[10:] if len(r) == 11 else r for r in m]
    assert _comparable(k) == _comparable(m), f"kiln {k}\nMariaDB {m}"
