"""The text-statement cache (crates/kiln-sql/src/stmt_cache.rs): COM_QUERY statements
that differ only in literals are parsed once per session and run from a template with
the literals put in.

The oracle is kiln's own parse: every statement shape is run with a first set of
literals (which makes the template) and then with a second set (which runs from it),
and the second run must give exactly what the same text gives when parsed: rows,
affected rows, warnings, errors and result metadata (names, types, lengths, flags).
A text with a unique trailing comment never meets a template, so it is the parsed
run. Rows and column names are also compared with a real MariaDB 10.11 for the shapes
where MySQL 8.0 and MariaDB agree. The status counters prove the cache answered, and
DDL, USE, sql_mode changes and COM_RESET_CONNECTION make it start over.
"""

import itertools
import re

import mysql.connector
import pymysql
import pytest

from mariadb_server import start_private_mariadb

DB = "scache"
_n = itertools.count()

SCHEMA = [
    "CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(20), d DECIMAL(8,2), dt DATE,"
    " b VARBINARY(8), KEY (k)) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO t VALUES (1, 10, 'a', 1.50, '2020-01-01', 'A'), (2, 20, 'b', -2.25,"
    " '2021-06-30', 'x'), (3, 30, 'é', 0, '2019-12-31', NULL), (4, NULL, NULL, 7, NULL,"
    " 'ab'), (5, 10, 'a', 3.5, '2020-02-29', '1'), (6, -5, '5', 100, '2022-01-01', '')",
    "CREATE TABLE d1 (id INT PRIMARY KEY, k INT, c VARCHAR(20)) DEFAULT CHARSET=utf8mb4",
]
D_ROWS = "(1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c'), (7, 70, 'g'), (9, 90, 'i')"

INTS = ["0", "1", "2", "7", "30", "2147483648", "9223372036854775807",
        "18446744073709551615", "9223372036854775808", "-3", "- 4", "+5"]
NUMS = INTS + ["1.5", "-0.25", "1e2", "0x41", "X'41'", "b'1'", "0b101", "TRUE", "FALSE",
               "NULL", "99999999999999999999"]
STRS = ["'a'", "''", "'x''y'", "'é'", "'5'", "'5abc'", "'2020-01-01'", "_utf8mb4'a'",
        "_latin1'a'", "_binary'a'", "N'a'", "'a' 'b'", "\"a\"", "'%'", "'a%'", "'\\\\'",
        "'A'", "DATE '2020-01-01'"]
ALL = NUMS + STRS
SMALL = ["0", "1", "2", "3", "5", "7", "'1'", "TRUE"]
POS = ["1", "2", "3", "'1'", "NULL", "-1"]

# (template, literal pool per {} slot)
SELECTS = [
    ("SELECT {}", [ALL]),
    ("SELECT {} AS x", [ALL]),
    ("SELECT {}, id FROM t ORDER BY id", [ALL]),
    ("SELECT id, k + {} FROM t ORDER BY id", [NUMS]),
    ("SELECT id, k + {} AS s FROM t ORDER BY id", [ALL]),
    ("SELECT id FROM t WHERE k > {} ORDER BY id", [ALL]),
    ("SELECT id FROM t WHERE c = {} ORDER BY id", [ALL]),
    ("SELECT id FROM t WHERE id BETWEEN {} AND {} ORDER BY id", [SMALL, SMALL]),
    ("SELECT id FROM t WHERE id IN ({}, {}) ORDER BY id", [ALL, SMALL]),
    ("SELECT c FROM t WHERE c LIKE {} ORDER BY id", [STRS]),
    ("SELECT id, c FROM t ORDER BY {}, id", [POS]),
    ("SELECT id, c FROM t ORDER BY {} DESC", [POS]),
    ("SELECT k, COUNT(*) FROM t GROUP BY {} ORDER BY 1", [POS]),
    ("SELECT id FROM t ORDER BY id LIMIT {}", [SMALL + ["18446744073709551615"]]),
    ("SELECT id FROM t ORDER BY id LIMIT {} OFFSET {}", [SMALL, SMALL]),
    ("SELECT id FROM t ORDER BY id LIMIT {}, {}", [SMALL, SMALL]),
    ("SELECT CONCAT(c, {}) AS x FROM t ORDER BY id", [ALL]),
    ("SELECT id FROM t WHERE dt > {} ORDER BY id", [STRS + ["20200101", "0"]]),
    ("SELECT id, DATE_ADD(dt, INTERVAL {} DAY) AS x FROM t ORDER BY id", [NUMS + ["'1'"]]),
    ("SELECT id, dt + INTERVAL {} MONTH AS x FROM t ORDER BY id", [SMALL]),
    ("SELECT id FROM t WHERE k = -{} ORDER BY id", [INTS]),
    ("SELECT id, CASE WHEN k > {} THEN {} ELSE 'z' END AS x FROM t ORDER BY id", [NUMS, ALL]),
    ("SELECT id, k FROM t HAVING k > {} ORDER BY id", [NUMS]),
    ("SELECT id FROM t WHERE id = (SELECT MAX(id) FROM t WHERE k < {})", [NUMS]),
    ("SELECT * FROM (SELECT id, {} AS y FROM t) AS q ORDER BY id", [ALL]),
    ("SELECT id FROM t WHERE c = {} COLLATE utf8mb4_bin ORDER BY id", [STRS[:8]]),
    ("SELECT {} + {} AS s", [NUMS, NUMS]),
    ("SELECT COALESCE(NULL, {}) AS x", [ALL]),
    ("SELECT SUM(k) FROM t WHERE id BETWEEN {} AND {}", [SMALL, SMALL]),
    ("SELECT DISTINCT c FROM t WHERE id BETWEEN {} AND {} ORDER BY c", [SMALL, SMALL]),
    ("SELECT c FROM t WHERE id BETWEEN {} AND {} ORDER BY c", [SMALL, SMALL]),
    ("SELECT id FROM t WHERE b = {} ORDER BY id", [ALL]),
    ("SELECT id FROM t WHERE d >= {} ORDER BY id", [NUMS + STRS[:6]]),
    ("SELECT id, k FROM t WHERE k IS NOT NULL AND k <> {} ORDER BY k, id", [ALL]),
    ("SELECT id FROM t WHERE c IN (SELECT c FROM t WHERE id > {}) ORDER BY id", [SMALL]),
    ("SELECT id, ROW_NUMBER() OVER (ORDER BY id ROWS {} PRECEDING) AS r FROM t", [SMALL[:5]]),
    ("SELECT id, c FROM t WHERE id > {} UNION ALL SELECT id, c FROM t WHERE id < {} ORDER BY 1",
     [SMALL, SMALL]),
    ("SELECT IF(k > {}, 'big', 'small') AS x, LENGTH({}) AS n FROM t ORDER BY id", [NUMS, ALL]),
    ("SELECT id FROM t WHERE NOT c = {} AND k > {} ORDER BY id", [STRS, SMALL]),
    ("SELECT id FROM t WHERE c LIKE {} ESCAPE '!' ORDER BY id", [STRS]),
    ("SELECT id FROM t WHERE c = 'a' OR k > {} ORDER BY id", [NUMS]),
    ("SELECT id FROM t t1 WHERE EXISTS (SELECT 1 FROM t t2 WHERE t2.k = t1.k AND t2.id <> {})"
     " ORDER BY id", [SMALL]),
]

DMLS = [
    ("INSERT INTO {t} (id, k, c) VALUES ({}, {}, {})", [["11", "12", "13"], NUMS, ALL]),
    ("REPLACE INTO {t} (id, k, c) VALUES ({}, {}, {})", [["1", "2", "3", "21"], SMALL, STRS]),
    ("INSERT INTO {t} (id, k, c) VALUES ({}, 1, 'q') ON DUPLICATE KEY UPDATE k = k + {}",
     [["1", "2", "31"], SMALL]),
    ("INSERT INTO {t} SET id = {}, k = {}", [["41", "42"], NUMS]),
    ("INSERT IGNORE INTO {t} (id, k) VALUES ({}, {}), (1, 2)", [["51", "52"], SMALL]),
    ("UPDATE {t} SET k = k + {} WHERE id = {}", [NUMS, ["1", "2", "3", "7"]]),
    ("UPDATE {t} SET c = {} WHERE id BETWEEN {} AND {}", [ALL, SMALL, SMALL]),
    ("UPDATE {t} SET k = {} ORDER BY id DESC LIMIT {}", [SMALL, SMALL]),
    ("DELETE FROM {t} WHERE id = {}", [["1", "2", "3", "7", "9"]]),
    ("DELETE FROM {t} WHERE k > {} ORDER BY id LIMIT {}", [SMALL, SMALL]),
    ("INSERT INTO {t} (id, k) SELECT id + {}, k FROM t WHERE id < {}", [["100", "200"], SMALL]),
]


def pick(pools, i):
    """The i-th literal combination: each pool walked at its own stride."""
    return [p[(i * (2 * j + 1) + j) % len(p)] for j, p in enumerate(pools)]


def pairs(pools, n):
    """n (first, second) literal combinations for a shape's two runs."""
    out = []
    for i in range(n):
        a, b = pick(pools, i), pick(pools, i + 1)
        out.append((a, b))
    return out


def outcome(c, sql):
    """Everything a client sees of a statement: rows, metadata, counts, warnings."""
    try:
        with c.cursor() as cur:
            n = cur.execute(sql)
            rows = cur.fetchall()
            desc = cur.description
            warn = cur.execute("SHOW WARNINGS") and cur.fetchall()
        return ("ok", rows, desc, n, warn)
    except pymysql.MySQLError as e:
        # A syntax error quotes the text: not the oracle's unique comment.
        return ("err", e.args[0], re.sub(r" /\* u\d+ \*/", "", e.args[1]))


def status(c, name):
    with c.cursor() as cur:
        cur.execute(f"SHOW GLOBAL STATUS LIKE '{name}'")
        return int(cur.fetchall()[0][1])


def uncached(sql):
    """The same text, made unique: it never meets a template, so it is parsed."""
    return f"{sql} /* u{next(_n)} */"


def schema_conn(server, db):
    """A connection to a new database `db` holding SCHEMA."""
    c = server.connect()
    with c.cursor() as cur:
        cur.execute(f"CREATE DATABASE {db}")
        cur.execute(f"USE {db}")
        cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES'")
        for s in SCHEMA:
            cur.execute(s)
    return c


@pytest.fixture(scope="module")
def servers(kiln_shared):
    m = start_private_mariadb("kiln-maria-sc-")
    conns = []
    try:
        for server in (kiln_shared, m):
            conns.append(schema_conn(server, DB))
        yield kiln_shared, conns[0], conns[1]
    finally:
        for c in conns:
            c.close()
        m.cleanup()


def names(desc):
    return [d[0] for d in desc] if desc else None


def test_selects_cached_equal_parsed(servers):
    kiln, k, m = servers
    o = kiln.connect(database=DB)
    with o.cursor() as cur:
        cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES'")
    hits0 = status(k, "Kiln_stmt_cache_hits")
    runs, agree, cached_shapes = 0, 0, set()
    for shape, pools in SELECTS:
        for a, b in pairs(pools, 12):
            first, second = shape.format(*a), shape.format(*b)
            outcome(k, first)
            h = status(k, "Kiln_stmt_cache_hits")
            got = outcome(k, second)
            if status(k, "Kiln_stmt_cache_hits") > h:
                cached_shapes.add(shape)
            want = outcome(o, uncached(second))
            assert got == want, f"{first}\n{second}"
            runs += 1
            theirs = outcome(m, second)
            if got[0] == "ok" and theirs[0] == "ok":
                if list(got[1]) == list(theirs[1]) and names(got[2]) == names(theirs[2]):
                    agree += 1
            elif got[0] == theirs[0] == "err":
                agree += 1
    o.close()
    assert runs >= 400
    # The cache answered most second runs (the SHOW STATUS between runs is parsed).
    assert status(k, "Kiln_stmt_cache_hits") - hits0 >= runs // 2
    assert len(cached_shapes) >= 25, sorted(set(s for s, _ in SELECTS) - cached_shapes)
    # MariaDB agrees on most: differences are MySQL-vs-MariaDB ones, not the cache's.
    assert agree >= runs * 3 // 4, (agree, runs)


def test_dml_cached_equals_parsed(servers):
    kiln, k, m = servers
    # The parsed runs go to a copy of the schema under another database: the same
    # texts, the same table names (warnings name them).
    o = schema_conn(kiln, f"{DB}_o")
    hits0 = status(k, "Kiln_stmt_cache_hits")
    runs, agree = 0, 0
    for shape, pools in DMLS:
        for a, b in pairs(pools, 8):
            for conn in (k, o, m):
                with conn.cursor() as cur:
                    cur.execute("DROP TABLE IF EXISTS dx")
                    cur.execute("CREATE TABLE dx LIKE d1")
                    cur.execute(f"INSERT INTO dx VALUES {D_ROWS}")
            first, second = shape.format(*a, t="dx"), shape.format(*b, t="dx")
            outcome(k, first)
            outcome(o, uncached(first))
            got = outcome(k, second)
            want = outcome(o, uncached(second))
            assert got == want, second
            rows = [outcome(c, "SELECT * FROM dx ORDER BY id") for c in (k, o)]
            assert rows[0] == rows[1], second
            outcome(m, first)
            theirs = outcome(m, second)
            if got[0] == theirs[0] == "ok":
                agree += rows[0] == outcome(m, "SELECT * FROM dx ORDER BY id")
            runs += 1
    o.close()
    assert runs >= 80
    assert status(k, "Kiln_stmt_cache_hits") - hits0 >= runs // 2
    assert agree >= runs // 2, (agree, runs)


def test_sysbench_shapes_hit(servers):
    kiln, _, _ = servers
    k = kiln.connect(database=DB)
    shapes = [
        "SELECT c FROM t WHERE id BETWEEN {} AND {}",
        "SELECT SUM(k) FROM t WHERE id BETWEEN {} AND {}",
        "SELECT c FROM t WHERE id BETWEEN {} AND {} ORDER BY c",
        "SELECT DISTINCT c FROM t WHERE id BETWEEN {} AND {} ORDER BY c",
        "UPDATE d1 SET k=k+1 WHERE id={}{}",
        "UPDATE d1 SET c='{}-{}' WHERE id=1",
        "DELETE FROM d1 WHERE id={}{}",
        "INSERT INTO d1 (id, k, c) VALUES ({}, {}, 'x')",
    ]
    for s in shapes:
        h, mi = status(k, "Kiln_stmt_cache_hits"), status(k, "Kiln_stmt_cache_misses")
        for i in range(10):
            outcome(k, s.format(i + 1, i + 3))
        # Each status read is a SHOW (not a cacheable kind): only the shape counts.
        assert status(k, "Kiln_stmt_cache_hits") - h == 9, s
        assert status(k, "Kiln_stmt_cache_misses") - mi == 1, s
    k.close()


def test_invalidation(servers):
    kiln, k, _ = servers
    c = mysql.connector.connect(host="127.0.0.1", port=kiln.port, user="root", password="",
                                autocommit=True, database=DB)
    cur = c.cursor()

    def q(sql):
        cur.execute(sql)
        if not cur.with_rows:
            return None
        return cur.fetchall(), [d[0] for d in cur.description]

    def counts():
        return status(k, "Kiln_stmt_cache_hits"), status(k, "Kiln_stmt_cache_misses")

    q("CREATE TABLE inv (id INT PRIMARY KEY, a INT)")
    q("INSERT INTO inv VALUES (1, 10), (2, 20)")
    sel = "SELECT * FROM inv WHERE id BETWEEN {} AND {} ORDER BY id"
    q(sel.format(1, 1))
    h, mi = counts()
    assert q(sel.format(1, 2)) == ([(1, 10), (2, 20)], ["id", "a"])
    assert counts() == (h + 1, mi)
    # DDL: the table's new column appears, and the cache started over.
    q("ALTER TABLE inv ADD COLUMN b VARCHAR(5) DEFAULT 'n'")
    h, mi = counts()
    assert q(sel.format(2, 2)) == ([(2, 20, "n")], ["id", "a", "b"])
    assert counts() == (h, mi + 1)
    assert q(sel.format(1, 1)) == ([(1, 10, "n")], ["id", "a", "b"])
    assert counts() == (h + 1, mi + 1)
    # Another current database: the same text names another table.
    q("CREATE DATABASE IF NOT EXISTS scache2")
    q("CREATE TABLE scache2.inv (id INT PRIMARY KEY, z INT)")
    q("INSERT INTO scache2.inv VALUES (1, 99)")
    q("USE scache2")
    h, mi = counts()
    assert q(sel.format(1, 1)) == ([(1, 99)], ["id", "z"])
    assert counts() == (h, mi + 1)
    q(f"USE {DB}")
    # sql_mode: the cache starts over; the text means what its parse means.
    q(sel.format(1, 1))
    h, mi = counts()
    q("SET sql_mode = 'ANSI_QUOTES'")
    dq = 'SELECT "a" FROM inv WHERE id = {} AND a > {}'
    rows = q(dq.format(1, 0))
    assert rows == ([(10,)], ["a"])
    assert counts() == (h, mi + 1)
    assert q(uncached(dq.format(1, 0))) == rows
    q("SET sql_mode = DEFAULT")
    h, mi = counts()
    # Now "a" is a string again.
    assert q(dq.format(1, 0)) == ([("a",)], ["a"])
    assert counts() == (h, mi + 1)
    # COM_RESET_CONNECTION empties the session's cache.
    q(sel.format(1, 2))
    h, mi = counts()
    c.cmd_reset_connection()
    cur = c.cursor()
    assert q(sel.format(1, 2))[0] == [(1, 10, "n"), (2, 20, "n")]
    assert counts() == (h, mi + 1)
    c.close()


def test_errors_and_limits(servers):
    kiln, k, _ = servers
    # A shape whose literal decides an error: ORDER BY a position past the list.
    assert outcome(k, "SELECT id FROM t ORDER BY 1")[0] == "ok"
    e = outcome(k, "SELECT id FROM t ORDER BY 2")
    assert e[:2] == ("err", 1054) and "order clause" in e[2]
    # A text past the length limit, and one with too many literals, still run (parsed).
    h = status(k, "Kiln_stmt_cache_hits")
    long_in = "SELECT id FROM t WHERE id IN ({}) ORDER BY id"
    for n in (1, 2):
        vals = ",".join(str(i % 7 + n) for i in range(100))
        assert outcome(k, long_in.format(vals))[1] == tuple((i,) for i in range(n, 7))
    pad = "x" * 5000
    for n in (1, 2):
        assert outcome(k, f"SELECT id FROM t WHERE c <> '{pad}' AND id = {n}")[1] == ((n,),)
    assert status(k, "Kiln_stmt_cache_hits") == h
