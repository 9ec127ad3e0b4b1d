"""Range reads whose WHERE is integer comparisons with constants skip the
expression evaluator (crates/kiln-sql/src/exec/int_filter.rs). These tests hold the
fast check to the evaluator through the server: the same WHERE written so that it
is not an integer filter (`col + 0`, which the evaluator must run) must select the
same rows, for primary-key and secondary ranges, signed and unsigned columns, NULLs,
FLOAT/DECIMAL columns (left to the evaluator), text and prepared statements, and
string or fractional constants (which the fast check declines)."""

import random

import pytest

DB = "intf"


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


@pytest.fixture
def srv(kiln):
    c = kiln.connect()
    run(c, f"CREATE DATABASE {DB}")
    run(c, f"USE {DB}")
    run(
        c,
        "CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, u BIGINT UNSIGNED, "
        "n INT, d DOUBLE, m DECIMAL(10,2), KEY ku (u), KEY kn (n))",
    )
    rnd = random.Random(7)
    rows = []
    for i in range(-300, 300):
        u = rnd.choice([None, 0, 1, 2**63, 2**64 - 1, rnd.randrange(1000)])
        n = rnd.choice([None, -(2**31), 2**31 - 1, rnd.randrange(-500, 500)])
        rows.append((i, u, n, i / 4, i / 8))
    with c.cursor() as cur:
        cur.executemany("INSERT INTO t VALUES (%s, %s, %s, %s, %s)", rows)
    c.commit()
    return kiln


WHERES = [
    ("id BETWEEN {a} AND {b}", "id + 0 BETWEEN {a} AND {b}"),
    ("id >= {a} AND id < {b}", "id + 0 >= {a} AND id + 0 < {b}"),
    ("{a} < id AND id <= {b}", "{a} < id + 0 AND id + 0 <= {b}"),
    ("u BETWEEN {a} AND {b}", "u + 0 BETWEEN {a} AND {b}"),
    ("u > {a}", "u + 0 > {a}"),
    ("n = {a}", "n + 0 = {a}"),
    ("n BETWEEN {a} AND {b} AND id > {a}", "n + 0 BETWEEN {a} AND {b} AND id + 0 > {a}"),
    ("d BETWEEN {a} AND {b}", "d + 0 BETWEEN {a} AND {b}"),
    ("m >= {a} AND m <= {b}", "m + 0 >= {a} AND m + 0 <= {b}"),
]

BOUNDS = [
    (-10, 40),
    (0, 0),
    (5, -5),
    (-(2**63), 2**63 - 1),
    (0, 2**64 - 1),
    (2**63, 2**64 - 1),
    (-(2**31), 100),
    ("'3'", "'17'"),
    ("1.5", "20.25"),
    ("-7", "'x'"),
]


def test_fast_and_evaluated_where_select_the_same_rows(srv):
    c = srv.connect()
    run(c, f"USE {DB}")
    checked = 0
    for fast, slow in WHERES:
        for a, b in BOUNDS:
            q_fast = f"SELECT id FROM t WHERE {fast.format(a=a, b=b)} ORDER BY id"
            q_slow = f"SELECT id FROM t WHERE {slow.format(a=a, b=b)} ORDER BY id"
            assert run(c, q_fast) == run(c, q_slow), q_fast
            checked += 1
    assert checked == len(WHERES) * len(BOUNDS)


def test_prepared_ranges_match_the_evaluator(srv):
    """Binary-protocol parameters (ints, strings, doubles) through a prepared plan."""
    import mysql.connector

    cn = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", database=DB
    )
    cur = cn.cursor(prepared=True)
    slow = cn.cursor()
    for a, b in [(-10, 40), (100, 5), (0, 2**63 - 1), ("3", "17"), (1.5, 20.25), (-3, None)]:
        for col in ("id", "u", "n", "d"):
            cur.execute(f"SELECT id FROM t WHERE {col} BETWEEN %s AND %s ORDER BY id", (a, b))
            got = cur.fetchall()
            slow.execute(
                f"SELECT id FROM t WHERE {col} + 0 BETWEEN %s AND %s ORDER BY id", (a, b)
            )
            want = slow.fetchall()
            assert [tuple(r) for r in got] == [tuple(r) for r in want], (col, a, b)
    cn.close()
