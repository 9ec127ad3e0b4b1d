"""sysbench 1.0.20 (Debian's package) against kiln: it must connect, authenticate and
run its connection phase. Tables arrive with the SQL engine, so the run stops at the
first statement that needs one — with a MySQL SQL error from kiln, not a connection
failure."""

import shutil
import subprocess

import pytest

pytestmark = pytest.mark.skipif(shutil.which("sysbench") is None, reason="sysbench not installed")


def sysbench(kiln, *args):
    cmd = [
        "sysbench",
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        f"--mysql-port={kiln.port}",
        "--mysql-user=root",
        "--mysql-password=",
        "--mysql-db=mysql",  # sbtest needs CREATE DATABASE (SQL engine)
        *args,
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def test_sysbench_connects_and_reaches_sql(kiln_shared):
    code, out = sysbench(kiln_shared, "oltp_read_only", "--tables=1", "--table-size=10", "prepare")
    # Connected and authenticated: the failure is kiln's SQL error on CREATE TABLE.
    assert "Can't connect" not in out and "Access denied" not in out, out
    assert "Creating table 'sbtest1'" in out, out
    assert "SQL error, errno = " in out, out


def test_sysbench_run_fails_at_prepare_with_no_such_table(kiln_shared):
    code, out = sysbench(kiln_shared, "oltp_point_select", "--time=1", "--threads=2", "run")
    assert "Can't connect" not in out and "Access denied" not in out, out
    # Prepared statements are checked at PREPARE, as MySQL does: the table is missing.
    assert "1146" in out, out
    assert "Wrong number of parameters" not in out, out
