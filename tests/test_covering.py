"""Covering-index reads under MVCC (crates/kiln-sql/src/exec/covering.rs and the
engine's Trx::scan_secondary_each).

A query that uses only columns a secondary index holds (integer parts and the
primary key) reads the index alone wherever an entry's own trx id settles what the
reader's view sees. These tests hold it to the clustered path: in the same
transaction (the same view), a covering read and a read that needs a non-covered
column (so goes through the row) must return the same rows, whatever other sessions
committed, left uncommitted or rolled back since the snapshot.
"""

import random
import threading

import pymysql
import pytest

DB = "covt"


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def explain_extra(c, sql):
    return run(c, "EXPLAIN " + sql)[0][11]


def covering_and_clustered(c, where="", order="k, id"):
    """(rows of a covering read, rows of the same read through the row)."""
    w = f" WHERE {where}" if where else ""
    cov_sql = f"SELECT k, id FROM t{w} ORDER BY {order}"
    assert "Using index" in (explain_extra(c, cov_sql) or ""), cov_sql
    cov = run(c, cov_sql)
    # c is not in the index: the rows are read.
    full_sql = f"SELECT k, id, c FROM t{w} ORDER BY {order}"
    assert "Using index" not in (explain_extra(c, full_sql) or ""), full_sql
    full = tuple((k, i) for k, i, _ in run(c, full_sql))
    return cov, full


@pytest.fixture
def srv(kiln):
    c = kiln.connect()
    run(c, f"CREATE DATABASE {DB}")
    run(c, f"USE {DB}")
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(10) NOT NULL "
           "DEFAULT 'x', KEY k_1 (k))")
    run(c, "INSERT INTO t (id, k) VALUES " + ",".join(f"({i}, {i % 50})" for i in range(1, 501)))
    c.close()
    return kiln


def session(srv, iso="REPEATABLE READ"):
    c = srv.connect(database=DB)
    run(c, f"SET SESSION TRANSACTION ISOLATION LEVEL {iso}")
    return c


def test_repeatable_read_does_not_see_later_commits(srv):
    a, b = session(srv), session(srv)
    run(a, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
    before = run(a, "SELECT k, id FROM t WHERE k BETWEEN 10 AND 12 ORDER BY k, id")
    assert len(before) == 30
    # Another session moves rows into, out of and within the range, deletes and
    # inserts, and commits.
    run(b, "UPDATE t SET k = k + 1 WHERE id BETWEEN 1 AND 100")
    run(b, "UPDATE t SET k = 11 WHERE id IN (201, 202, 203)")
    run(b, "DELETE FROM t WHERE id IN (10, 11, 12, 61)")
    run(b, "INSERT INTO t (id, k) VALUES (1001, 11), (1002, 12)")
    for where in ("k BETWEEN 10 AND 12", "k = 11", "", "k > 40", "k IN (0, 10, 49)"):
        cov, full = covering_and_clustered(a, where)
        assert cov == full, where
    assert run(a, "SELECT k, id FROM t WHERE k BETWEEN 10 AND 12 ORDER BY k, id") == before
    # A row deleted after the snapshot is still there for it.
    assert run(a, "SELECT id FROM t WHERE k = 10 AND id = 10") == ((10,),)
    assert run(a, "SELECT COUNT(*) FROM t") == ((500,),)
    run(a, "COMMIT")
    # A new snapshot sees the changes, still the same by both paths.
    cov, full = covering_and_clustered(a, "k BETWEEN 10 AND 12")
    assert cov == full
    assert (11, 1001) in cov and (10, 10) not in cov
    assert run(a, "SELECT COUNT(*) FROM t") == ((498,),)


def test_uncommitted_and_rolled_back_changes_stay_invisible(srv):
    a, b = session(srv, "READ COMMITTED"), session(srv)
    ref = run(a, "SELECT k, id FROM t ORDER BY k, id")
    run(b, "BEGIN")
    run(b, "UPDATE t SET k = 1000 + k WHERE id <= 250")
    run(b, "DELETE FROM t WHERE id > 450")
    run(b, "INSERT INTO t (id, k) VALUES (2000, 5)")
    for where in ("", "k = 5", "k >= 1000"):
        cov, full = covering_and_clustered(a, where)
        assert cov == full, where
    assert run(a, "SELECT k, id FROM t ORDER BY k, id") == ref
    run(b, "ROLLBACK")
    cov, full = covering_and_clustered(a)
    assert cov == full == ref


def test_own_changes_are_seen(srv):
    a = session(srv)
    run(a, "BEGIN")
    run(a, "UPDATE t SET k = 77 WHERE id IN (1, 2)")
    run(a, "DELETE FROM t WHERE id = 3")
    run(a, "INSERT INTO t (id, k) VALUES (3000, 77)")
    cov, full = covering_and_clustered(a, "k IN (1, 2, 3, 77)")
    assert cov == full
    assert [r for r in cov if r[0] == 77] == [(77, 1), (77, 2), (77, 3000)]
    assert (3, 3) not in cov
    run(a, "ROLLBACK")
    assert covering_and_clustered(a, "k = 77") == ((), ())


def test_read_uncommitted_matches_the_row_path(srv):
    a, b = session(srv, "READ UNCOMMITTED"), session(srv)
    run(b, "BEGIN")
    run(b, "UPDATE t SET k = 600 WHERE id < 5")
    cov, full = covering_and_clustered(a, "k = 600")
    assert cov == full == ((600, 1), (600, 2), (600, 3), (600, 4))
    run(b, "ROLLBACK")


def test_snapshot_older_than_create_index(srv):
    a, b = session(srv), session(srv)
    run(b, "CREATE TABLE u (id INT PRIMARY KEY, x INT NOT NULL, y INT NOT NULL)")
    run(b, "INSERT INTO u VALUES " + ",".join(f"({i}, {i}, {i})" for i in range(1, 101)))
    # The snapshot reads another table: had it read u, its metadata lock would make
    # CREATE INDEX wait for it (tests/test_mdl.py), as in MySQL.
    run(a, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
    run(a, "SELECT COUNT(*) FROM t")
    run(b, "UPDATE u SET x = x + 100 WHERE id <= 10")
    run(b, "CREATE INDEX ix ON u (x)")
    # The old snapshot must not trust the bulk-built entries (they hold the rows'
    # latest keys): whatever it returns, it is what the row path returns.
    cov = run(a, "SELECT x, id FROM u WHERE x > 50 ORDER BY x, id")
    full = tuple((x, i) for x, i, _ in run(a, "SELECT x, id, y FROM u WHERE x > 50 ORDER BY x, id"))
    assert cov == full
    assert all(x <= 100 for x, _ in cov)
    run(a, "COMMIT")
    cov = run(a, "SELECT x, id FROM u WHERE x > 50 ORDER BY x, id")
    assert "Using index" in explain_extra(a, "SELECT x, id FROM u WHERE x > 50")
    assert len(cov) == 60 and cov[-1] == (110, 10)


def test_serializable_covering_read_locks(srv):
    a, b = session(srv, "SERIALIZABLE"), session(srv)
    run(b, "BEGIN")
    run(b, "UPDATE t SET c = 'y' WHERE id = 7")
    run(a, "SET innodb_lock_wait_timeout = 1")
    run(a, "SET autocommit = 0")
    # A plain SELECT locks in SERIALIZABLE: the covering range and whole-index reads
    # wait for b's row lock as the clustered scan does.
    for sql in ("SELECT k, id FROM t WHERE k = 7", "SELECT id FROM t"):
        assert "Using index" in explain_extra(a, sql)
        with pytest.raises(pymysql.err.OperationalError) as ei:
            run(a, sql)
        assert ei.value.args[0] == 1205
        run(a, "ROLLBACK")
    run(b, "ROLLBACK")
    assert len(run(a, "SELECT k, id FROM t WHERE k = 7")) == 10
    run(a, "COMMIT")


def test_concurrent_writers_random(srv):
    """Writers change keys, delete and insert at random while readers compare the two
    paths inside one snapshot, over and over."""
    stop = threading.Event()
    errors = []

    def writer(seed):
        rnd = random.Random(seed)
        w = session(srv)
        next_id = 10_000 + seed * 100_000
        try:
            while not stop.is_set():
                run(w, "BEGIN")
                for _ in range(rnd.randint(1, 5)):
                    op = rnd.random()
                    i = rnd.randint(1, 600)
                    try:
                        if op < 0.6:
                            run(w, "UPDATE t SET k = %s WHERE id = %s", (rnd.randint(0, 60), i))
                        elif op < 0.8:
                            run(w, "DELETE FROM t WHERE id = %s", (i,))
                        else:
                            next_id += 1
                            run(w, "INSERT INTO t (id, k) VALUES (%s, %s)",
                                (next_id, rnd.randint(0, 60)))
                    except pymysql.err.OperationalError as e:
                        if e.args[0] not in (1205, 1213):
                            raise
                        break
                run(w, "COMMIT" if rnd.random() < 0.8 else "ROLLBACK")
        except Exception as e:  # noqa: BLE001
            errors.append(e)
        finally:
            w.close()

    threads = [threading.Thread(target=writer, args=(s,)) for s in range(2)]
    for t in threads:
        t.start()
    try:
        rnd = random.Random(7)
        for level in ("REPEATABLE READ", "READ COMMITTED") * 5:
            r = session(srv, level)
            if level == "REPEATABLE READ":
                run(r, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
                for _ in range(6):
                    lo = rnd.randint(0, 50)
                    cov, full = covering_and_clustered(r, f"k BETWEEN {lo} AND {lo + 10}")
                    assert cov == full
                    cov, full = covering_and_clustered(r, "")
                    assert cov == full
                run(r, "COMMIT")
            else:
                # Each statement has its own view: compare within one statement by
                # a self-join-free check, that every covered (k, id) pair is real.
                cov = run(r, "SELECT k, id FROM t WHERE k BETWEEN 5 AND 30")
                assert all(5 <= k <= 30 for k, _ in cov)
                assert len({i for _, i in cov}) == len(cov)
            r.close()
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors, errors
    c = session(srv)
    cov, full = covering_and_clustered(c)
    assert cov == full


# -- ORDER BY ... LIMIT from index order, against MariaDB ---------------------------------

ORD_SETUP = [
    "CREATE DATABASE ordt",
    "USE ordt",
    "CREATE TABLE o (id INT PRIMARY KEY, a INT NOT NULL, b INT NULL, c INT NOT NULL, "
    "s VARCHAR(8) COLLATE utf8mb4_general_ci NOT NULL, "
    "KEY ka (a), KEY kab (a, b), KEY ks (s)) DEFAULT CHARSET=utf8mb4",
]


def ord_rows(seed=11, n=2000):
    rnd = random.Random(seed)
    rows = []
    for i in rnd.sample(range(1, 100_000), n):
        b = None if rnd.random() < 0.1 else rnd.randint(-20, 20)
        s = "".join(rnd.choice("abcdefgh") for _ in range(rnd.randint(1, 6)))
        rows.append((i, rnd.randint(0, 40), b, rnd.randint(0, 1000), s))
    return rows


# (template, read in index order: no filesort)
ORD_TEMPLATES = [
    ("SELECT a, id FROM o ORDER BY a, id LIMIT {n} OFFSET {o}", True),
    ("SELECT a, id FROM o ORDER BY a DESC, id DESC LIMIT {n}", True),
    ("SELECT * FROM o ORDER BY id DESC LIMIT {n} OFFSET {o}", True),
    ("SELECT * FROM o ORDER BY id LIMIT {n}", True),
    ("SELECT * FROM o WHERE a = {v} ORDER BY b, id LIMIT {n}", True),
    ("SELECT * FROM o WHERE a = {v} ORDER BY b DESC, id DESC LIMIT {n}", True),
    ("SELECT b, id FROM o WHERE a = {v} ORDER BY a, b LIMIT {n}", True),
    ("SELECT a, b FROM o WHERE a BETWEEN {v} AND {w} ORDER BY a, b LIMIT {n}", True),
    ("SELECT a FROM o WHERE a BETWEEN {v} AND {w} ORDER BY a DESC LIMIT {n}", True),
    ("SELECT * FROM o WHERE c > {x} ORDER BY id DESC LIMIT {n}", True),
    ("SELECT id, c FROM o WHERE c < {x} ORDER BY 1 LIMIT {n}", True),
    ("SELECT s FROM o ORDER BY s LIMIT {n} OFFSET {o}", True),
    ("SELECT s FROM o WHERE s > 'd' ORDER BY s DESC LIMIT {n}", True),
    ("SELECT a, c FROM o ORDER BY a, c LIMIT {n}", False),
    ("SELECT c FROM o ORDER BY c LIMIT {n}", False),
    ("SELECT a, b FROM o WHERE a IN ({v}, {w}) ORDER BY b, a LIMIT {n}", False),
]


@pytest.fixture(scope="module")
def ord_pair(kiln_shared):
    from mariadb_server import start_private_mariadb

    m = start_private_mariadb(prefix="kiln-ord-")
    k = kiln_shared.connect()
    mc = m.connect()
    try:
        rows = ord_rows()
        for c in (k, mc):
            for s in ORD_SETUP:
                run(c, s)
            with c.cursor() as cur:
                cur.executemany("INSERT INTO o VALUES (%s, %s, %s, %s, %s)", rows)
        yield k, mc
    finally:
        k.close()
        mc.close()
        m.cleanup()


def test_order_by_limit_matches_mariadb(ord_pair):
    k, m = ord_pair
    rnd = random.Random(5)
    for template, ordered in ORD_TEMPLATES:
        sql0 = template.format(n=5, o=3, v=7, w=9, x=500)
        extra = run(k, "EXPLAIN " + sql0)[0][11] or ""
        assert ("Using filesort" not in extra) == ordered, (sql0, extra)
        for _ in range(8):
            v = rnd.randint(0, 40)
            sql = template.format(
                n=rnd.choice([0, 1, 3, 10, 50, 1000, 5000]),
                o=rnd.choice([0, 1, 7, 100]),
                v=v,
                w=v + rnd.randint(0, 5),
                x=rnd.randint(0, 1000),
            )
            assert run(k, sql) == run(m, sql), sql
