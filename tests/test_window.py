"""Window functions, MySQL 8.0's points that MariaDB 10.11 does not share (the
results both servers agree on are compared in test_differential.py): the error codes
and texts for misplaced window functions, named windows and frames, RANGE frames with
INTERVAL offsets over temporal keys, result column types, and a large partition that
must run in O(n) for the default frame.

Every expectation here is MySQL 8.0's documented (or, for error texts, its errmsg)
behaviour, checked against the real kiln binary.
"""

import time

import pymysql
import pytest

DB = "wint"


@pytest.fixture(scope="module")
def conn(kiln_shared):
    c = kiln_shared.connect()
    with c.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {DB}")
        cur.execute(f"CREATE DATABASE {DB}")
        cur.execute(f"USE {DB}")
        cur.execute(
            "CREATE TABLE t (id INT PRIMARY KEY, g VARCHAR(10), k INT, v INT, s VARCHAR(10),"
            " dt DATE, ts DATETIME) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci"
        )
        cur.execute(
            "INSERT INTO t VALUES (1, 'a', 1, 10, 'x', '2024-01-01', '2024-01-01 10:00:00'),"
            " (2, 'a', 2, 20, 'y', '2024-01-02', '2024-01-01 11:30:00'),"
            " (3, 'b', 2, 30, 'z', '2024-01-04', '2024-01-01 12:00:00'),"
            " (4, 'b', NULL, 40, NULL, NULL, NULL),"
            " (5, 'B', 5, 50, 'w', '2024-02-01', '2024-01-02 10:00:00')"
        )
    yield c
    c.close()


def rows(c, sql):
    with c.cursor() as cur:
        cur.execute(sql)
        return [tuple(r) for r in cur.fetchall()]


def err(c, sql):
    with pytest.raises(pymysql.MySQLError) as ei:
        rows(c, sql)
    return ei.value.args[0], ei.value.args[1]


ERRORS = [
    # misplaced window functions
    ("SELECT id FROM t WHERE ROW_NUMBER() OVER () > 1", 3593,
     "You cannot use the window function 'row_number' in this context.'"),
    ("SELECT g FROM t GROUP BY g HAVING SUM(v) OVER () > 1", 3593,
     "You cannot use the window function 'sum' in this context.'"),
    ("SELECT COUNT(*) FROM t GROUP BY RANK() OVER (ORDER BY id)", 3593,
     "You cannot use the window function 'rank' in this context.'"),
    ("SELECT SUM(ROW_NUMBER() OVER ()) FROM t", 3593,
     "You cannot use the window function 'row_number' in this context.'"),
    ("SELECT id, ROW_NUMBER() OVER () AS rn FROM t HAVING rn > 1", 3594,
     "You cannot use the alias 'rn' of an expression containing a window function in this context.'"),
    ("SELECT SUM(v) OVER () AS sv FROM t GROUP BY sv", 1247,
     "Reference 'sv' not supported (reference to window function)"),
    ("UPDATE t SET v = ROW_NUMBER() OVER ()", 3593,
     "You cannot use the window function 'row_number' in this context.'"),
    ("SELECT RANK() OVER (ORDER BY ROW_NUMBER() OVER ()) FROM t", 3595,
     "You cannot nest a window function in the specification of window '<unnamed window>'."),
    # named windows
    ("SELECT SUM(v) OVER w FROM t", 3579, "Window name 'w' is not defined."),
    ("SELECT SUM(v) OVER (w ORDER BY id) FROM t WINDOW w2 AS ()", 3579,
     "Window name 'w' is not defined."),
    ("SELECT 1 FROM t WINDOW w1 AS (w2), w2 AS (w1)", 3580,
     "There is a circularity in the window dependency graph."),
    ("SELECT SUM(v) OVER (w PARTITION BY g) FROM t WINDOW w AS ()", 3581,
     "A window which depends on another cannot define partitioning."),
    ("SELECT SUM(v) OVER (w) FROM t WINDOW w AS (ROWS 1 PRECEDING)", 3582,
     "Window 'w' has a frame definition, so cannot be referenced by another window."),
    ("SELECT SUM(v) OVER (w ORDER BY g) FROM t WINDOW w AS (ORDER BY id)", 3583,
     "Window '<unnamed window>' cannot inherit 'w' since both contain an ORDER BY clause."),
    ("SELECT SUM(v) OVER w FROM t WINDOW w AS (), W AS ()", 3591, "Window 'W' is defined twice."),
    # frames
    ("SELECT SUM(v) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM t",
     3584, "Window '<unnamed window>': frame start cannot be UNBOUNDED FOLLOWING."),
    ("SELECT SUM(v) OVER w FROM t WINDOW w AS (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING)",
     3585, "Window 'w': frame end cannot be UNBOUNDED PRECEDING."),
    ("SELECT SUM(v) OVER (ORDER BY id ROWS BETWEEN 1.5 PRECEDING AND CURRENT ROW) FROM t", 3586,
     "Window '<unnamed window>': frame start or end is negative, NULL or of non-integral type"),
    ("SELECT SUM(v) OVER (RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t", 3587,
     "Window '<unnamed window>' with RANGE N PRECEDING/FOLLOWING frame requires exactly one"
     " ORDER BY expression, of numeric or temporal type"),
    ("SELECT SUM(v) OVER (ORDER BY s RANGE 1 PRECEDING) FROM t", 3587,
     "Window '<unnamed window>' with RANGE N PRECEDING/FOLLOWING frame requires exactly one"
     " ORDER BY expression, of numeric or temporal type"),
    ("SELECT SUM(v) OVER (ORDER BY id, k RANGE 1 PRECEDING) FROM t", 3587,
     "Window '<unnamed window>' with RANGE N PRECEDING/FOLLOWING frame requires exactly one"
     " ORDER BY expression, of numeric or temporal type"),
    ("SELECT SUM(v) OVER (ORDER BY dt RANGE 1 PRECEDING) FROM t", 3588,
     "Window '<unnamed window>' with RANGE frame has ORDER BY expression of datetime type."
     " Only INTERVAL bound value allowed."),
    ("SELECT SUM(v) OVER (ORDER BY k RANGE INTERVAL 1 DAY PRECEDING) FROM t", 3589,
     "Window '<unnamed window>' with RANGE frame has ORDER BY expression of numeric type,"
     " INTERVAL bound value not allowed."),
    ("SELECT SUM(v) OVER (ORDER BY dt RANGE INTERVAL k DAY PRECEDING) FROM t", 3590,
     "Window '<unnamed window>' has a non-constant frame bound."),
    ("SELECT SUM(v) OVER (ORDER BY dt ROWS INTERVAL 1 DAY PRECEDING) FROM t", 3596,
     "Window '<unnamed window>': INTERVAL can only be used with RANGE frames."),
    ("SELECT SUM(v) OVER (ORDER BY 1) FROM t", 3592,
     "Window '<unnamed window>': ORDER BY or PARTITION BY uses legacy position indication which"
     " is not supported, use expression."),
    # arguments
    ("SELECT SUM(v) OVER w FROM t WINDOW w AS (PARTITION BY 2)", 3592,
     "Window 'w': ORDER BY or PARTITION BY uses legacy position indication which"
     " is not supported, use expression."),
    ("SELECT NTILE(0) OVER (ORDER BY id) FROM t", 1210, "Incorrect arguments to ntile"),
    ("SELECT NTILE(v) OVER (ORDER BY id) FROM t", 1210, "Incorrect arguments to ntile"),
    ("SELECT LAG(v, -1) OVER (ORDER BY id) FROM t", 1210, "Incorrect arguments to lag"),
    ("SELECT NTH_VALUE(v, 0) OVER (ORDER BY id) FROM t", 1210, "Incorrect arguments to nth_value"),
    ("SELECT COUNT(DISTINCT v) OVER () FROM t", 1235,
     "This version of MySQL doesn't yet support '<window function>(DISTINCT ..)'"),
    ("SELECT NTH_VALUE(v, 1) FROM LAST OVER (ORDER BY id) FROM t", 1235,
     "This version of MySQL doesn't yet support 'FROM LAST'"),
    ("SELECT LAG(v) IGNORE NULLS OVER (ORDER BY id) FROM t", 1235,
     "This version of MySQL doesn't yet support 'IGNORE NULLS'"),
]


@pytest.mark.parametrize("sql,code,message", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_window_errors(conn, sql, code, message):
    assert err(conn, sql) == (code, message)


@pytest.mark.parametrize("sql", [
    "SELECT ROW_NUMBER() FROM t",  # a window-only function needs OVER
    "SELECT SUM(v) OVER (ORDER BY id ROWS 1 FOLLOWING) FROM t",  # one-bound form looks back
    "SELECT SUM(v) OVER (ORDER BY id ROWS BETWEEN k PRECEDING AND CURRENT ROW) FROM t",
    "SELECT CONCAT(s) OVER () FROM t",  # not a window function
    "SELECT GROUP_CONCAT(s) OVER () FROM t",
])
def test_window_syntax_errors(conn, sql):
    assert err(conn, sql)[0] == 1064


def test_errors_even_without_rows(conn):
    # Checked before any row is read, as MySQL does when it prepares the statement.
    assert err(conn, "SELECT id FROM t WHERE id < 0 AND RANK() OVER () = 1")[0] == 3593
    assert err(conn, "SELECT SUM(v) OVER w FROM t WHERE id < 0")[0] == 3579
    # An unused named window is still checked.
    assert err(conn, "SELECT id FROM t WINDOW w AS (x)")[0] == 3579


def test_correlated_subquery(conn):
    # An outer column in a subquery's window is a constant there (not a position).
    assert rows(conn, "SELECT id, (SELECT SUM(t2.v) OVER (ORDER BY t.id) FROM t t2 WHERE t2.id = t.id),"
                      " (SELECT COUNT(*) OVER (PARTITION BY t.g) FROM t t2 WHERE t2.id = t.id)"
                      " FROM t ORDER BY id") == [
        (1, 10, 1), (2, 20, 1), (3, 30, 1), (4, 40, 1), (5, 50, 1)]


def test_named_windows(conn):
    assert rows(conn, "SELECT id, SUM(v) OVER w, ROW_NUMBER() OVER w FROM t"
                      " WINDOW w AS (PARTITION BY g ORDER BY id) ORDER BY id") == [
        (1, 10, 1), (2, 30, 2), (3, 30, 1), (4, 70, 2), (5, 120, 3)]
    # OVER w uses w's frame; OVER (w ...) may add ORDER BY and a frame.
    assert rows(conn, "SELECT id, SUM(v) OVER w, SUM(v) OVER (p ORDER BY id ROWS 1 PRECEDING)"
                      " FROM t WINDOW p AS (PARTITION BY g), w AS (ORDER BY id ROWS 1 PRECEDING)"
                      " ORDER BY id") == [
        (1, 10, 10), (2, 30, 30), (3, 50, 30), (4, 70, 70), (5, 90, 90)]


def test_range_interval_frames(conn):
    # DATE key: the two days up to the current row; NULL keys frame their NULL peers.
    assert rows(conn, "SELECT id, COUNT(*) OVER (ORDER BY dt RANGE BETWEEN INTERVAL 2 DAY"
                      " PRECEDING AND CURRENT ROW), SUM(v) OVER (ORDER BY dt RANGE BETWEEN"
                      " CURRENT ROW AND INTERVAL 1 MONTH FOLLOWING) FROM t ORDER BY id") == [
        (1, 1, 110), (2, 2, 100), (3, 2, 80), (4, 1, 40), (5, 1, 50)]
    # DATETIME key with an hour unit, descending.
    assert rows(conn, "SELECT id, COUNT(*) OVER (ORDER BY ts DESC RANGE INTERVAL 90 MINUTE"
                      " PRECEDING) FROM t WHERE ts IS NOT NULL ORDER BY id") == [
        (1, 2), (2, 2), (3, 1), (5, 1)]


def test_default_frames_and_peers(conn):
    # With ORDER BY the default frame ends at the current row's last peer; without it,
    # it is the whole partition; LAST_VALUE shows both.
    assert rows(conn, "SELECT id, LAST_VALUE(id) OVER (ORDER BY k), LAST_VALUE(id) OVER (PARTITION BY g)"
                      " FROM t WHERE k IS NOT NULL ORDER BY id") == [
        (1, 1, 2), (2, 3, 2), (3, 3, 5), (5, 5, 5)]
    # Partition 'b' and 'B' are one partition under utf8mb4_0900_ai_ci.
    assert rows(conn, "SELECT id, COUNT(*) OVER (PARTITION BY g) FROM t ORDER BY id") == [
        (1, 2), (2, 2), (3, 3), (4, 3), (5, 3)]
    assert rows(conn, "SELECT id, COUNT(*) OVER (PARTITION BY g COLLATE utf8mb4_bin) FROM t ORDER BY id") == [
        (1, 2), (2, 2), (3, 2), (4, 2), (5, 1)]


def test_ranks_as_mysql(conn):
    # PERCENT_RANK and CUME_DIST are DOUBLEs (MariaDB prints 10 decimals); ranking
    # functions without ORDER BY see one peer group (MariaDB refuses them).
    assert rows(conn, "SELECT id, PERCENT_RANK() OVER w, CUME_DIST() OVER w FROM t"
                      " WINDOW w AS (ORDER BY k) ORDER BY id") == [
        (1, 0.25, 0.4), (2, 0.5, 0.8), (3, 0.5, 0.8), (4, 0.0, 0.2), (5, 1.0, 1.0)]
    # As text: DOUBLE's shortest round-trip digits.
    assert rows(conn, "SELECT CONCAT(CUME_DIST() OVER w, ''), CONCAT(PERCENT_RANK() OVER w, '')"
                      " FROM t WINDOW w AS (PARTITION BY g ORDER BY id) ORDER BY id") == [
        ("0.5", "0"), ("1", "1"), ("0.3333333333333333", "0"),
        ("0.6666666666666666", "0.5"), ("1", "1")]
    assert rows(conn, "SELECT id, RANK() OVER (), DENSE_RANK() OVER (PARTITION BY g),"
                      " CUME_DIST() OVER (), PERCENT_RANK() OVER (), ROW_NUMBER() OVER ()"
                      " FROM t ORDER BY id") == [
        (1, 1, 1, 1.0, 0.0, 1), (2, 1, 1, 1.0, 0.0, 2), (3, 1, 1, 1.0, 0.0, 3),
        (4, 1, 1, 1.0, 0.0, 4), (5, 1, 1, 1.0, 0.0, 5)]
    assert rows(conn, "SELECT RANK() OVER (), LAG(1, 1, -1) OVER ()") == [(1, -1)]
    # LAG / LEAD with a default (MariaDB has no third argument).
    assert rows(conn, "SELECT id, LAG(v, 1, -1) OVER (PARTITION BY g ORDER BY id), LEAD(s, 2, 'none')"
                      " OVER (ORDER BY id), LAG(v, 2, id * 100) OVER (ORDER BY id) FROM t ORDER BY id") == [
        (1, -1, "z", 100), (2, 10, None, 200), (3, -1, "w", 10), (4, 30, "none", 20), (5, 40, "none", 30)]


def test_huge_arguments(conn):
    # Offsets past any partition are fine (no overflow): empty frames, NULLs, defaults.
    big = 18446744073709551615
    assert rows(conn, f"SELECT id, NTH_VALUE(v, {big}) OVER (), NTILE({big}) OVER (ORDER BY id),"
                      f" LAG(v, {big}, 0) OVER (ORDER BY id), LEAD(v, {big}) OVER (ORDER BY id),"
                      f" SUM(v) OVER (ORDER BY id ROWS BETWEEN {big} PRECEDING AND {big} FOLLOWING),"
                      f" COUNT(*) OVER (ORDER BY k RANGE BETWEEN 1e300 PRECEDING AND 1e300 FOLLOWING)"
                      " FROM t ORDER BY id") == [
        (1, None, 1, 0, None, 150, 4), (2, None, 2, 0, None, 150, 4),
        (3, None, 3, 0, None, 150, 4), (4, None, 4, 0, None, 150, 1),
        (5, None, 5, 0, None, 150, 4)]


def test_result_types(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT ROW_NUMBER() OVER (), RANK() OVER (), PERCENT_RANK() OVER (),"
                    " CUME_DIST() OVER (), COUNT(*) OVER (), SUM(v) OVER () FROM t LIMIT 1")
        types = [d[1] for d in cur.description]
        cur.fetchall()
    FT = pymysql.constants.FIELD_TYPE
    assert types == [FT.LONGLONG, FT.LONGLONG, FT.DOUBLE, FT.DOUBLE, FT.LONGLONG, FT.NEWDECIMAL]
    # Types hold with no rows too.
    with conn.cursor() as cur:
        cur.execute("SELECT ROW_NUMBER() OVER (), CUME_DIST() OVER () FROM t WHERE id < 0")
        types = [d[1] for d in cur.description]
    assert types == [FT.LONGLONG, FT.DOUBLE]


def test_large_partition_linear(kiln_shared):
    """50,000 rows: the running SUM (default frame) and a 3-row sliding frame finish
    quickly and right; a quadratic evaluation would take minutes here."""
    c = kiln_shared.connect(database=DB)
    with c.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS big")
        cur.execute("CREATE TABLE big (id INT PRIMARY KEY, v INT)")
        n = 50_000
        for start in range(0, n, 5000):
            vals = ",".join(f"({i}, {i % 7})" for i in range(start + 1, start + 5001))
            cur.execute(f"INSERT INTO big VALUES {vals}")
        t0 = time.monotonic()
        cur.execute("SELECT id, SUM(v) OVER (ORDER BY id), AVG(v) OVER (ORDER BY id ROWS BETWEEN 1"
                    " PRECEDING AND 1 FOLLOWING), SUM(v) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW"
                    " AND UNBOUNDED FOLLOWING), RANK() OVER (ORDER BY v) FROM big ORDER BY id")
        out = cur.fetchall()
        elapsed = time.monotonic() - t0
    total = sum(i % 7 for i in range(1, n + 1))
    assert len(out) == n
    assert int(out[-1][1]) == total
    assert int(out[0][3]) == total
    assert int(out[-1][3]) == n % 7
    assert out[0][4] == 1 + sum(1 for i in range(1, n + 1) if i % 7 == 0)
    assert elapsed < 30, f"took {elapsed:.1f}s"
    c.close()
