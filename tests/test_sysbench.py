"""sysbench 1.0.20 (Debian's package) against kiln: prepare, run and cleanup of every
OLTP workload, with sysbench's own checks (a failed query is FATAL) and no errors or
reconnects beyond the deadlocks sysbench is told to ignore (its default, 1213/1205).
Short runs: this checks behaviour, not speed (bench/ measures that)."""

import re
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.skipif(shutil.which("sysbench") is None, reason="sysbench not installed")

WORKLOADS = [
    "oltp_point_select",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_write_only",
    "oltp_insert",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_delete",
    "select_random_points",
    "select_random_ranges",
]


def sysbench(kiln, workload, *args, db="sbtest", timeout=120):
    cmd = [
        "sysbench",
        workload,
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        f"--mysql-port={kiln.port}",
        "--mysql-user=root",
        "--mysql-password=",
        f"--mysql-db={db}",
        *args,
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def counts(out):
    """(queries, errors, reconnects) from sysbench's report."""
    q = int(re.search(r"queries:\s+(\d+)", out).group(1))
    errors = int(re.search(r"ignored errors:\s+(\d+)", out).group(1))
    reconnects = int(re.search(r"reconnects:\s+(\d+)", out).group(1))
    return q, errors, reconnects


@pytest.fixture(scope="module")
def sb(kiln_shared):
    kiln_shared.query("CREATE DATABASE IF NOT EXISTS sbtest")
    code, out = sysbench(kiln_shared, "oltp_common", "--tables=2", "--table-size=2000", "prepare")
    assert code == 0, out
    yield kiln_shared


@pytest.mark.parametrize("workload", WORKLOADS)
def test_workload_runs_clean(sb, workload):
    code, out = sysbench(
        sb, workload, "--tables=2", "--table-size=2000", "--threads=4", "--time=2", "run"
    )
    assert code == 0, out
    assert "FATAL" not in out, out
    queries, errors, reconnects = counts(out)
    assert queries > 0, out
    assert reconnects == 0, out
    # Deadlocks are legitimate under concurrent writes (sysbench retries them); a
    # handful, never a flood.
    assert errors <= max(5, queries // 100), out


def test_prepared_rows_are_consistent(sb):
    # Every table still has its rows' k index consistent with the clustered index.
    for t in ("sbtest1", "sbtest2"):
        n = sb.query(f"SELECT COUNT(*) FROM sbtest.{t}")[0][0]
        via_k = sb.query(f"SELECT COUNT(*) FROM sbtest.{t} WHERE k > -1000000000")[0][0]
        assert n == via_k, (t, n, via_k)


def test_bulk_insert_and_cleanup(kiln_shared):
    kiln_shared.query("CREATE DATABASE IF NOT EXISTS sbbulk")
    code, out = sysbench(kiln_shared, "bulk_insert", "--threads=2", "prepare", db="sbbulk")
    assert code == 0, out
    code, out = sysbench(kiln_shared, "bulk_insert", "--threads=2", "--time=2", "run", db="sbbulk")
    assert code == 0 and "FATAL" not in out, out
    rows = kiln_shared.query("SELECT COUNT(*), MIN(id), MAX(id) FROM sbbulk.sbtest1")[0]
    assert rows[0] > 0 and rows[0] == rows[2] - rows[1] + 1, rows
    code, out = sysbench(kiln_shared, "bulk_insert", "--threads=2", "cleanup", db="sbbulk")
    assert code == 0, out
    assert len(kiln_shared.query("SHOW TABLES FROM sbbulk")) == 0


def test_cleanup_drops_tables(sb):
    code, out = sysbench(sb, "oltp_common", "--tables=2", "cleanup")
    assert code == 0, out
    assert len(sb.query("SHOW TABLES FROM sbtest")) == 0
