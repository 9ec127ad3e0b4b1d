"""ORDER BY's sort spilling to disk (crates/kiln-sql/src/exec/filesort.rs).

With a small sort_buffer_size the sort writes sorted runs to temporary files in
@@tmpdir and merges them: the rows must come out exactly as the in-memory sort gives
them (it is stable: ties keep their input order), Sort_merge_passes must count the
merges, and no temporary file may be left behind.
"""

import os
import random
import shutil

import pymysql
import pytest

ROWS = 200_000


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def status(c, name):
    return int(run(c, f"SHOW SESSION STATUS LIKE '{name}'")[0][1])


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    from conftest import KilnFactory, _teardown

    tmpdir = tmp_path_factory.mktemp("sorttmp")
    factory = KilnFactory(tmp_path_factory.mktemp("fsrv"))
    srv = factory(extra_args=[f"--tmpdir={tmpdir}"])
    c = srv.connect()
    run(c, "CREATE DATABASE fs")
    run(c, "USE fs")
    run(c, "CREATE TABLE big (id INT PRIMARY KEY, k INT NOT NULL, s VARCHAR(12) NOT NULL)")
    rnd = random.Random(3)
    data = [
        (i, rnd.randint(0, 999), "".join(rnd.choice("abcxyz") for _ in range(rnd.randint(0, 10))))
        for i in range(1, ROWS + 1)
    ]
    with c.cursor() as cur:
        for at in range(0, ROWS, 5000):
            cur.executemany("INSERT INTO big VALUES (%s, %s, %s)", data[at:at + 5000])
    yield c, tmpdir, data
    c.close()
    _teardown(factory.servers)


def leftovers(tmpdir):
    return [f for f in os.listdir(tmpdir) if f.startswith("kiln-sort-")]


def test_spilled_sort_equals_the_in_memory_sort(big):
    c, tmpdir, data = big
    queries = [
        "SELECT id, k FROM big ORDER BY k DESC",
        "SELECT s, id FROM big ORDER BY s",
        "SELECT id, s, k FROM big WHERE k < 500 ORDER BY s DESC, k",
    ]
    run(c, "SET sort_buffer_size = 64 * 1024 * 1024")
    in_memory = []
    for q in queries:
        before = status(c, "Sort_merge_passes")
        in_memory.append(run(c, q))
        assert status(c, "Sort_merge_passes") == before
    run(c, "SET sort_buffer_size = 32768")
    for q, want in zip(queries, in_memory):
        before = status(c, "Sort_merge_passes")
        rows_before = status(c, "Sort_rows")
        got = run(c, q)
        assert got == want, q
        assert status(c, "Sort_merge_passes") > before, q
        assert status(c, "Sort_rows") - rows_before == len(got)
        assert leftovers(tmpdir) == []
    # Stable and exact: against Python's stable sort of the same rows.
    by_k = sorted(((i, k) for i, k, _ in data), key=lambda r: -r[1])
    assert in_memory[0] == tuple(by_k)
    g = run(c, "SHOW GLOBAL STATUS LIKE 'Sort_merge_passes'")
    assert int(g[0][1]) > 0


def test_top_n_under_a_limit(big):
    c, _, data = big
    run(c, "SET sort_buffer_size = 32768")
    want = sorted(((i, k) for i, k, _ in data), key=lambda r: (r[1], -r[0]))
    before = status(c, "Sort_merge_passes")
    got = run(c, "SELECT id, k FROM big ORDER BY k, id DESC LIMIT 25 OFFSET 10")
    assert got == tuple(want[10:35])
    # Kept in memory: no runs.
    assert status(c, "Sort_merge_passes") == before
    scan = status(c, "Sort_scan")
    rng = status(c, "Sort_range")
    run(c, "SELECT id FROM big WHERE id BETWEEN 10 AND 20 ORDER BY k LIMIT 3")
    assert (status(c, "Sort_scan"), status(c, "Sort_range")) == (scan, rng + 1)
    run(c, "SELECT id FROM big ORDER BY k LIMIT 3")
    assert (status(c, "Sort_scan"), status(c, "Sort_range")) == (scan + 1, rng + 1)


def test_spill_needs_tmpdir_and_leaves_nothing(big):
    c, tmpdir, _ = big
    run(c, "SET sort_buffer_size = 32768")
    # The runs go to @@tmpdir: without it, the sort fails with MySQL's write error.
    shutil.rmtree(tmpdir)
    try:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            run(c, "SELECT id FROM big ORDER BY s")
        assert ei.value.args[0] == 1026
        assert str(tmpdir) in ei.value.args[1]
    finally:
        os.mkdir(tmpdir)
    assert len(run(c, "SELECT id FROM big ORDER BY s")) == ROWS
    assert leftovers(tmpdir) == []


def test_mixed_kind_sort_key_is_a_total_order(kiln):
    """A sort key whose values mix numbers, text and binary strings (a CASE with
    branches of different types) used to hand Rust's sort an inconsistent order, which
    panicked the connection thread. Values now order by kind (numbers, strings, binary
    strings), each kind by its own rules; the connection stays up."""
    c = kiln.connect()
    run(c, "CREATE DATABASE mk")
    run(c, "CREATE TABLE mk.t (id INT PRIMARY KEY)")
    for lo in range(0, 3000, 1000):
        run(c, "INSERT INTO mk.t VALUES " + ",".join(f"({i})" for i in range(lo, lo + 1000)))
    key = (
        "CASE WHEN id % 4 = 0 THEN id WHEN id % 4 = 1 THEN CONCAT(id, 'x') "
        "WHEN id % 4 = 2 THEN id * 1.5 ELSE CAST(id AS BINARY) END"
    )
    for limit in ("", " LIMIT 7", " LIMIT 2900"):
        for n in (20, 3000):
            rows = run(c, f"SELECT id FROM mk.t WHERE id < {n} ORDER BY {key}{limit}")
            kinds = [{0: 0, 2: 0, 1: 1, 3: 2}[i % 4] for (i,) in rows]
            assert kinds == sorted(kinds), (n, limit)
            nums = [i * (1.5 if i % 4 == 2 else 1) for (i,) in rows if i % 4 in (0, 2)]
            assert nums == sorted(nums)
    assert run(c, "SELECT 1") == ((1,),)
    assert "panicked" not in kiln.output_text()
    c.close()
