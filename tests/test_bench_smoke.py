"""Smoke runs of the benchmark harnesses in bench/ (tiny sizes, a second or two per
point), so the scripts keep working: every system starts, every point is measured,
and the CSV, Markdown and plot are written. Speed is not checked here."""

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
KILN_BIN = os.environ.get("KILN_BIN") or str(REPO / "target" / "debug" / "kiln")

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("sysbench", "mariadbd", "mariadb-install-db")),
    reason="sysbench and mariadb-server are needed",
)


def test_threadpool_bench_smoke(tmp_path):
    out = tmp_path / "tp"
    p = subprocess.run(
        [sys.executable, str(REPO / "bench" / "threadpool.py"),
         "--threads", "4,40", "--time", "1", "--warmup", "1", "--runs", "1",
         "--tables", "1", "--table-size", "200", "--pool", "64M",
         "--max-connections", "200", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "KILN_BIN": KILN_BIN},
    )
    assert p.returncode == 0, p.stderr[-3000:]
    rows = list(csv.DictReader(open(f"{out}.csv")))
    # 2 workloads x 2 thread counts x 4 systems, each measured.
    assert len(rows) == 16, rows
    assert {r["system"] for r in rows} == {"kiln", "kiln pool", "MariaDB", "MariaDB pool"}
    assert all(float(r["qps"]) > 0 for r in rows)
    md = open(f"{out}.md").read()
    assert "failed" not in md
    assert "| 40 |" in md and "Machine:" in md and "innodb_flush_log_at_trx_commit=1" in md
    assert os.path.getsize(f"{out}.png") > 10_000
