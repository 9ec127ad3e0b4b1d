"""Joins that do not cost O(n*m): index nested loop (exec/join_index.rs), hash join
(exec/join_hash.rs), WHERE conjuncts pushed to the tables they concern
(exec/join_push.rs), and EXPLAIN saying so (exec/explain_join.rs).

The differential test runs a generated set of schemas (int / varchar keys under
different collations, composite keys, NULLs and duplicates in join columns, an empty
table) x join queries on kiln and a private MariaDB 10.11 and compares the result
sets (order-insensitive unless the query orders). The other tests prove the fast
paths run with kiln's counters (SHOW STATUS Kiln_join_index_lookups,
Kiln_join_hash_builds, Kiln_join_pairs_checked: condition evaluations), not timing,
and that a locking join through an index still locks the inner rows it reads.
"""

import random

import pymysql
import pytest

from mariadb_server import start_private_mariadb

DB = "jp"


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def counters(c):
    rows = run(c, "SHOW GLOBAL STATUS LIKE 'Kiln_join%'")
    return {k: int(v) for k, v in rows}


def delta(c, sql):
    before = counters(c)
    result = run(c, sql)
    after = counters(c)
    return result, {k: after[k] - before[k] for k in after}


def schema(seed):
    """CREATE / INSERT statements of one generated schema."""
    rnd = random.Random(seed)
    words = ["ab", "AB", "ab ", "Ab", "cd", "x", "", None]

    def word():
        w = rnd.choice(words)
        return "NULL" if w is None else f"'{w}'"

    def num(hi, nulls=True):
        if nulls and rnd.random() < 0.1:
            return "NULL"
        return str(rnd.randint(0, hi))

    out = [
        f"CREATE DATABASE {DB}",
        f"USE {DB}",
        "CREATE TABLE p (id INT PRIMARY KEY, code VARCHAR(10) COLLATE utf8mb4_general_ci, "
        "k INT, KEY kk (k), KEY ck (code)) DEFAULT CHARSET=utf8mb4",
        "CREATE TABLE q (id INT PRIMARY KEY, p_id INT, code VARCHAR(10) COLLATE utf8mb4_bin, "
        "x INT, KEY pk (p_id), KEY px (p_id, x), KEY qc (code)) DEFAULT CHARSET=utf8mb4",
        "CREATE TABLE r (a INT NOT NULL, b INT NOT NULL, s VARCHAR(10) COLLATE "
        "utf8mb4_general_ci, PRIMARY KEY (a, b)) DEFAULT CHARSET=utf8mb4",
        "CREATE TABLE e (id INT PRIMARY KEY, p_id INT, KEY (p_id))",
        "CREATE TABLE n (id INT, v VARCHAR(10) COLLATE utf8mb4_general_ci) "
        "DEFAULT CHARSET=utf8mb4",
        "CREATE TABLE u (id BIGINT UNSIGNED PRIMARY KEY, d DECIMAL(6,2))",
    ]
    np, nq = rnd.randint(1, 30), rnd.randint(0, 60)
    out.append(
        "INSERT INTO p VALUES "
        + ",".join(f"({i}, {word()}, {num(8)})" for i in range(1, np + 1))
    )
    if nq:
        out.append(
            "INSERT INTO q VALUES "
            + ",".join(f"({i}, {num(np + 3)}, {word()}, {num(6)})" for i in range(1, nq + 1))
        )
    pairs = sorted({(rnd.randint(0, np), rnd.randint(0, 6)) for _ in range(rnd.randint(0, 40))})
    if pairs:
        out.append(
            "INSERT INTO r VALUES " + ",".join(f"({a}, {b}, {word()})" for a, b in pairs)
        )
    out.append(
        "INSERT INTO n VALUES "
        + ",".join(f"({num(np)}, {word()})" for _ in range(rnd.randint(1, 25)))
    )
    out.append(
        "INSERT INTO u VALUES " + ",".join(f"({i}, {i}.00)" for i in range(0, 10, 2))
    )
    return out


QUERIES = [
    "SELECT * FROM p JOIN q ON p.id = q.p_id",
    "SELECT p.id, q.id FROM p LEFT JOIN q ON p.id = q.p_id AND q.x > 2",
    "SELECT p.id, q.id FROM p RIGHT JOIN q ON p.id = q.p_id",
    "SELECT q.id, p.code FROM q LEFT JOIN p ON p.id = q.p_id",
    "SELECT * FROM q JOIN p ON p.id = q.p_id WHERE p.k = 3",
    "SELECT p.id, q.id FROM p JOIN q ON p.id = q.p_id WHERE p.id = 5",
    "SELECT p.id, q.id FROM p LEFT JOIN q ON p.id = q.p_id WHERE q.id IS NULL",
    "SELECT p.id, q.id FROM p LEFT JOIN q ON p.id = q.p_id WHERE q.x = 1 OR q.x IS NULL",
    "SELECT p.id, n.id FROM p JOIN n ON p.code = n.v",
    "SELECT p.id, n.id FROM n LEFT JOIN p ON p.code = n.v",
    "SELECT p.id, q.id FROM p JOIN q ON p.code = q.code",
    "SELECT p.id, q.id FROM q JOIN p ON p.code = q.code",
    "SELECT p.id, n.id FROM p LEFT JOIN n ON p.k = n.id",
    "SELECT p.id, n.id FROM p JOIN n ON p.id = n.v",
    "SELECT r.a, r.b, q.id FROM q JOIN r ON r.a = q.p_id",
    "SELECT r.a, r.b, q.id FROM q JOIN r ON r.a = q.p_id AND r.b = q.x",
    "SELECT r.a, r.b, q.id FROM q LEFT JOIN r ON r.a = q.p_id AND r.b = q.x AND r.s <> 'x'",
    "SELECT r.a, q.id FROM q JOIN r ON r.b = q.x",
    "SELECT * FROM p JOIN e ON p.id = e.p_id",
    "SELECT p.id, e.id FROM p LEFT JOIN e ON p.id = e.p_id",
    "SELECT p.id, q.id FROM p JOIN q ON p.id + 1 = q.p_id",
    "SELECT p.id, q.id FROM p JOIN q ON q.p_id = p.k * 2",
    "SELECT p.id, q.id FROM p JOIN q ON q.p_id = p.id AND q.x <= p.k",
    "SELECT p.id, q.id FROM p JOIN q ON q.p_id = p.id OR q.x = p.k",
    "SELECT p.id, q.id, r.b FROM p JOIN q ON p.id = q.p_id JOIN r ON r.a = q.p_id AND r.b = q.x",
    "SELECT p.id, q.id, n.v, r.b FROM p JOIN q ON p.id = q.p_id LEFT JOIN n ON n.id = q.x "
    "JOIN r ON r.a = p.k",
    "SELECT p.id, q.id FROM p, q WHERE p.id = q.p_id AND q.x < 5",
    "SELECT p.id, q.id, r.b FROM p, q, r WHERE p.id = q.p_id AND r.a = q.x AND p.k > 1",
    "SELECT p.k, COUNT(*), SUM(q.x) FROM p JOIN q ON p.id = q.p_id GROUP BY p.k",
    "SELECT p.id, q.id FROM p JOIN q ON p.id = q.p_id ORDER BY q.id DESC LIMIT 7",
    "SELECT p.id, q.id FROM p LEFT JOIN q ON p.id = q.p_id ORDER BY p.id, q.id LIMIT 5, 10",
    "SELECT * FROM p JOIN q USING (id)",
    "SELECT p.id, u.d FROM p JOIN u ON u.id = p.k",
    "SELECT p.id, u.id FROM p JOIN u ON u.d = p.k",
    "SELECT COUNT(*) FROM p JOIN q ON p.id = q.p_id JOIN r ON r.a = p.id",
    "SELECT p.id FROM p WHERE EXISTS (SELECT 1 FROM q JOIN r ON r.a = q.p_id WHERE q.p_id = p.id)",
]


def outcome(c, sql):
    try:
        rows = [tuple(r) for r in run(c, sql)]
    except pymysql.err.MySQLError as e:
        return ("error", e.args[0])
    if "ORDER BY" not in sql:
        rows.sort(key=repr)
    return rows


def test_joins_match_mariadb(kiln):
    m = start_private_mariadb(prefix="kiln-join-")
    try:
        k = kiln.connect()
        mc = m.connect()
        for seed in range(6):
            for c in (k, mc):
                run(c, f"DROP DATABASE IF EXISTS {DB}")
            for sql in schema(seed):
                run(k, sql)
                run(mc, sql)
            for sql in QUERIES:
                assert outcome(k, sql) == outcome(mc, sql), (seed, sql)
            # A join buffer too small for the build side: the chunked hash join
            # returns the same rows.
            run(k, "SET SESSION join_buffer_size = 128")
            for sql in QUERIES:
                assert outcome(k, sql) == outcome(mc, sql), (seed, "small buffer", sql)
            run(k, "SET SESSION join_buffer_size = DEFAULT")
    finally:
        m.cleanup()


N = 20_000


def big_tables(c):
    run(c, f"CREATE DATABASE {DB}")
    run(c, f"USE {DB}")
    run(c, "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20))")
    run(c, "CREATE TABLE b (id INT PRIMARY KEY, a_id INT, w VARCHAR(20), KEY ka (a_id))")
    run(c, "CREATE TABLE c (id INT PRIMARY KEY, a_id INT, w VARCHAR(20))")
    for s in range(0, N, 2000):
        rng = range(s, s + 2000)
        run(c, "INSERT INTO a VALUES " + ",".join(f"({i}, 'v{i}')" for i in rng))
        run(c, "INSERT INTO b VALUES " + ",".join(f"({i}, {i}, 'w{i}')" for i in rng))
        run(c, "INSERT INTO c VALUES " + ",".join(f"({i}, {i}, 'w{i}')" for i in rng))


@pytest.fixture(scope="module")
def big(kiln_shared):
    c = kiln_shared.connect()
    big_tables(c)
    return kiln_shared


def test_index_join_one_outer_row_does_one_lookup(big):
    c = big.connect(database=DB)
    rows, d = delta(c, "SELECT a.id, b.w FROM a JOIN b ON a.id = b.a_id WHERE a.id = 5")
    assert rows == ((5, "w5"),)
    assert d["Kiln_join_index_lookups"] == 1
    assert d["Kiln_join_pairs_checked"] == 1
    assert d["Kiln_join_hash_builds"] == 0
    # The primary key of the inner table: eq_ref.
    rows, d = delta(c, "SELECT b.id, a.v FROM b JOIN a ON a.id = b.a_id WHERE b.id = 7")
    assert rows == ((7, "v7"),)
    assert d["Kiln_join_index_lookups"] == 1
    plan = run(c, "EXPLAIN SELECT b.id, a.v FROM b JOIN a ON a.id = b.a_id WHERE b.id = 7")
    assert [(r[2], r[4], r[6], r[8]) for r in plan] == [
        ("b", "const", "PRIMARY", "const"),
        ("a", "eq_ref", "PRIMARY", f"{DB}.b.a_id"),
    ]
    plan = run(c, "EXPLAIN SELECT * FROM a JOIN b ON a.id = b.a_id")
    assert [(r[2], r[4], r[6], r[7], r[8]) for r in plan] == [
        ("a", "ALL", None, None, None),
        ("b", "ref", "ka", "5", f"{DB}.a.id"),
    ]


def test_two_big_tables_join_in_linear_work(big):
    c = big.connect(database=DB)
    # Indexed: one key read per outer row, one condition check per match.
    rows, d = delta(c, "SELECT COUNT(*), SUM(b.id) FROM a JOIN b ON a.id = b.a_id")
    assert rows == ((N, N * (N - 1) // 2),)
    assert d["Kiln_join_index_lookups"] == N
    assert d["Kiln_join_pairs_checked"] == N
    # Unindexed: a hash join (nested loops would check N * N = 4e8 pairs).
    rows, d = delta(c, "SELECT COUNT(*) FROM a JOIN c ON a.id = c.a_id")
    assert rows == ((N,),)
    assert d["Kiln_join_index_lookups"] == 0
    assert d["Kiln_join_hash_builds"] >= 1
    assert d["Kiln_join_pairs_checked"] == N
    rows, d = delta(c, "SELECT COUNT(*), COUNT(c.id) FROM a LEFT JOIN c ON a.v = c.w")
    assert rows == ((N, 0),)
    assert d["Kiln_join_pairs_checked"] == 0
    # A comma join on a WHERE equality runs as the inner join it is.
    rows, d = delta(c, "SELECT COUNT(*) FROM a, c WHERE c.a_id = a.id AND c.id < 100")
    assert rows == ((100,),)
    assert d["Kiln_join_pairs_checked"] <= 100
    plan = run(c, "EXPLAIN SELECT * FROM a JOIN c ON a.id = c.a_id")
    assert plan[1][11] == "Using where; Using join buffer (hash join)"
    # The hash table stays within join_buffer_size: a small buffer builds in chunks.
    # 65536 bytes hold 1365 rows (48 bytes each): 15 chunks of c's 20,000.
    run(c, "SET SESSION join_buffer_size = 65536")
    rows, d = delta(c, "SELECT COUNT(*) FROM a JOIN c ON a.id = c.a_id")
    assert rows == ((N,),)
    assert d["Kiln_join_hash_builds"] == 15
    run(c, "SET SESSION join_buffer_size = DEFAULT")
    # No equality: still the nested loop (and EXPLAIN says so).
    plan = run(c, "EXPLAIN SELECT * FROM a JOIN c ON a.id < c.a_id")
    assert plan[1][11] == "Using where; Using join buffer (Block Nested Loop)"


def test_collation_and_type_mismatch_fall_back(big):
    c = big.connect(database=DB)
    run(c, "CREATE TABLE s1 (id INT PRIMARY KEY, t VARCHAR(10) COLLATE utf8mb4_bin, "
           "KEY kt (t))")
    run(c, "CREATE TABLE s2 (id INT PRIMARY KEY, t VARCHAR(10) COLLATE utf8mb4_general_ci, "
           "n VARCHAR(10), KEY kt (t))")
    run(c, "INSERT INTO s1 VALUES (1, 'a'), (2, 'A'), (3, 'b')")
    run(c, "INSERT INTO s2 VALUES (1, 'a', '1'), (2, 'B', '01'), (3, 'c', 'x')")
    # s1.t = s2.t compares under utf8mb4_bin: s2's general_ci key cannot serve it.
    plan = run(c, "EXPLAIN SELECT * FROM s1 JOIN s2 ON s1.t = s2.t")
    assert plan[1][4] == "ALL"
    assert run(c, "SELECT s1.id, s2.id FROM s1 JOIN s2 ON s1.t = s2.t") == ((1, 1),)
    # ... while s1's utf8mb4_bin key can.
    plan = run(c, "EXPLAIN SELECT * FROM s2 JOIN s1 ON s1.t = s2.t")
    assert plan[1][4] == "ref"
    assert run(c, "SELECT s1.id, s2.id FROM s2 JOIN s1 ON s1.t = s2.t") == ((1, 1),)
    # An integer key equated to a string column compares as numbers: no key use.
    plan = run(c, "EXPLAIN SELECT * FROM s2 JOIN a ON a.id = s2.n")
    assert plan[1][4] == "ALL"
    got = run(c, "SELECT s2.id, a.id FROM s2 JOIN a ON a.id = s2.n ORDER BY s2.id")
    assert got == ((1, 1), (2, 1), (3, 0))


def test_locking_join_through_index_locks_inner_rows(big):
    c1 = big.connect(database=DB)
    c2 = big.connect(database=DB)
    run(c2, "SET SESSION innodb_lock_wait_timeout = 1")
    for lock in ("FOR UPDATE", "LOCK IN SHARE MODE"):
        run(c1, "BEGIN")
        sql = f"SELECT a.id, b.id FROM a JOIN b ON a.id = b.a_id WHERE a.id = 11 {lock}"
        rows, d = delta(c1, sql)
        assert rows == ((11, 11),)
        assert d["Kiln_join_index_lookups"] == 1
        with pytest.raises(pymysql.err.OperationalError) as e:
            run(c2, "UPDATE b SET w = 'locked' WHERE id = 11")
        assert e.value.args[0] == 1205
        run(c1, "ROLLBACK")
    assert run(c2, "UPDATE b SET w = 'w11' WHERE id = 11") is not None


def test_join_order_from_row_estimates(big):
    c = big.connect(database=DB)
    run(c, "CREATE TABLE few (id INT PRIMARY KEY, name VARCHAR(10))")
    run(c, "INSERT INTO few VALUES (3, 'three'), (4, 'four')")
    # Written big table first: the 2-row table drives, the 20,000-row one is read
    # through its index per row (2 lookups, not 20,000).
    sql = "SELECT * FROM b JOIN few ON b.a_id = few.id ORDER BY b.id"
    rows, d = delta(c, sql)
    # SELECT * keeps the written order of the columns.
    assert rows == ((3, 3, "w3", 3, "three"), (4, 4, "w4", 4, "four"))
    assert d["Kiln_join_index_lookups"] == 2
    assert d["Kiln_join_pairs_checked"] == 2
    plan = run(c, "EXPLAIN " + sql)
    assert [(r[2], r[4], r[6], r[8]) for r in plan] == [
        ("few", "ALL", None, None),
        ("b", "ref", "ka", f"{DB}.few.id"),
    ]
    # The same through a comma list and WHERE, and with three tables.
    rows, d = delta(c, "SELECT few.name, b.id FROM b, few WHERE few.id = b.a_id ORDER BY 2")
    assert rows == (("three", 3), ("four", 4))
    assert d["Kiln_join_index_lookups"] == 2
    sql = ("SELECT a.v, b.w, few.name FROM a JOIN b ON a.id = b.a_id "
           "JOIN few ON few.id = b.id ORDER BY a.v")
    rows, d = delta(c, sql)
    assert rows == (("v3", "w3", "three"), ("v4", "w4", "four"))
    assert d["Kiln_join_pairs_checked"] <= 6
    plan = run(c, "EXPLAIN " + sql)
    assert [r[2] for r in plan] == ["few", "b", "a"]
    assert [r[4] for r in plan] == ["ALL", "eq_ref", "eq_ref"]
    # STRAIGHT_JOIN keeps the written order (and so reads b whole).
    for sql in ("SELECT STRAIGHT_JOIN b.id FROM b JOIN few ON b.a_id = few.id",
                "SELECT b.id FROM b STRAIGHT_JOIN few ON b.a_id = few.id"):
        plan = run(c, "EXPLAIN " + sql)
        assert [(r[2], r[4]) for r in plan] == [("b", "ALL"), ("few", "eq_ref")]
        rows, d = delta(c, sql)
        assert sorted(rows) == [(3,), (4,)]
        assert d["Kiln_join_index_lookups"] == N
    # LEFT JOIN keeps its written order.
    plan = run(c, "EXPLAIN SELECT * FROM b LEFT JOIN few ON b.a_id = few.id")
    assert [r[2] for r in plan] == ["b", "few"]
