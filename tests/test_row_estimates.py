"""Table row estimates (dict/table.rs `rows_estimate`): what EXPLAIN's rows, SHOW TABLE
STATUS / information_schema.TABLES' TABLE_ROWS and the join order start from. A table
opened at start-up is estimated by sampling its clustered B+tree
(kiln-storage `BTree::estimate_len`) at its first use; DDL that makes a new handle for the same rows (ADD
INDEX, RENAME) keeps the running count. Both used to reset it to 0: EXPLAIN said
"rows 1" and the join order took such tables for empty.
"""

import signal

N = 20_000


def run(c, sql):
    with c.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def explain_rows(c, sql):
    return run(c, "EXPLAIN " + sql)[0][9]


def table_rows(c, name):
    return run(
        c,
        "SELECT TABLE_ROWS FROM information_schema.TABLES "
        f"WHERE TABLE_SCHEMA = 'est' AND TABLE_NAME = '{name}'",
    )[0][0]


def near(value, want):
    """Within a third of `want` (an estimate, not a count)."""
    return abs(value - want) <= want / 3


def test_estimates_survive_in_place_ddl_and_restarts(kiln_factory):
    s = kiln_factory()
    c = s.connect()
    run(c, "CREATE DATABASE est")
    run(c, "USE est")
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, k INT, pad VARCHAR(60))")
    run(c, "CREATE TABLE small (id INT PRIMARY KEY)")
    for start in range(0, N, 2000):
        run(
            c,
            "INSERT INTO t VALUES "
            + ",".join(f"({i}, {i % 97}, '{'p' * (i % 60)}')" for i in range(start, start + 2000)),
        )
    run(c, "INSERT INTO small VALUES (1), (2), (3)")
    assert explain_rows(c, "SELECT * FROM t") == N
    # In place: the handle is new, the rows are the same.
    run(c, "ALTER TABLE t ADD INDEX kk (k)")
    run(c, "ALTER TABLE t ADD COLUMN extra INT")
    run(c, "RENAME TABLE t TO t2")
    assert explain_rows(c, "SELECT * FROM t2") == N
    assert table_rows(c, "t2") == N
    c.close()
    # A restart: sampled from the tree.
    d = s.datadir
    assert s.stop(signal.SIGTERM) == 0, s.diagnostics()
    s = kiln_factory(datadir=d)
    c = s.connect()
    run(c, "USE est")
    est = explain_rows(c, "SELECT * FROM t2")
    assert near(est, N), est
    assert near(table_rows(c, "t2"), N)
    assert explain_rows(c, "SELECT * FROM small") == 3  # one page: counted exactly
    # The join order reads the small table first (it drives the index lookups).
    r = run(c, "EXPLAIN SELECT * FROM t2 JOIN small ON small.id = t2.k")
    assert [x[2] for x in r] == ["small", "t2"], r
    # The running count goes on from the sample.
    run(c, "DELETE FROM t2 WHERE id < 10000")
    assert near(explain_rows(c, "SELECT * FROM t2"), N - 10_000)


def test_start_up_samples_no_table(kiln_factory):
    """Tables are sampled at their first use, not when the server opens them: with
    many tables a start-up that sampled each would read pages of every one from disk
    before accepting connections."""
    srv = kiln_factory()
    c = srv.connect()
    run(c, "CREATE DATABASE est")
    run(c, "USE est")
    tables = 60
    for i in range(tables):
        run(c, f"CREATE TABLE t{i} (id INT PRIMARY KEY, pad VARCHAR(200))")
        run(c, f"INSERT INTO t{i} VALUES " + ",".join(f"({j}, REPEAT('p', 200))" for j in range(100)))
    srv.stop()
    srv.start()
    c = srv.connect(database="est")

    def page_reads():
        return int(run(c, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_reads'")[0][1])

    before = page_reads()
    rows = run(
        c,
        "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'est'",
    )
    assert len(rows) == tables and all(near(r[0], 100) for r in rows), rows
    # Each table's first estimate read its root (at least): nothing had read it.
    assert page_reads() - before >= tables, (before, page_reads())
    # Later uses are counted from there, not sampled again.
    again = page_reads()
    run(c, "INSERT INTO t0 VALUES (1000, 'x')")
    assert table_rows(c, "t0") == rows[0][0] + 1 or near(table_rows(c, "t0"), 101)
    run(c, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'est'")
    assert page_reads() - again < tables
