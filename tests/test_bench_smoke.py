"""Smoke runs of every benchmark experiment through `bench/run <experiment> --smoke`
(tiny sizes, about ten seconds each), so the harness keeps working: every system
starts, every point is measured, and the CSV, Markdown (with the machine and the
settings) and plot are written. Speed is not checked here.

The kiln binary is $KILN_BIN (else target/debug/kiln); kiln-bench is $KILN_BENCH_BIN,
else the one beside the kiln binary."""

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
KILN_BIN = os.environ.get("KILN_BIN") or str(REPO / "target" / "debug" / "kiln")
KILN_BENCH_BIN = os.environ.get("KILN_BENCH_BIN") or str(Path(KILN_BIN).parent / "kiln-bench")

sys.path.insert(0, str(REPO / "bench"))
from experiments import EXPERIMENTS  # noqa: E402

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t, path=os.environ.get("PATH", "") + ":/usr/sbin")
            for t in ("sysbench", "mariadbd", "mariadb-install-db", "memcached")),
    reason="sysbench, mariadb-server and memcached are needed",
)


@pytest.mark.parametrize("name", [m.NAME for m in EXPERIMENTS])
def test_experiment_smoke(tmp_path, name):
    if not os.access(KILN_BIN, os.X_OK):
        pytest.skip(f"no kiln binary at {KILN_BIN}")
    if name in ("nosql", "threadpool") and not os.access(KILN_BENCH_BIN, os.X_OK):
        pytest.skip(f"no kiln-bench binary at {KILN_BENCH_BIN}")
    out = tmp_path / "results"
    p = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run"), name, "--smoke", "--out-dir", str(out),
         "--tmpdir", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "KILN_BIN": KILN_BIN, "KILN_BENCH_BIN": KILN_BENCH_BIN},
    )
    assert p.returncode == 0, p.stderr[-4000:]
    files = sorted(os.listdir(out))
    prefix = out / files[0].rsplit(".", 1)[0]
    assert {f.rsplit(".", 1)[1] for f in files} == {"csv", "md", "png"}, files
    assert files[0].startswith(name + "-")
    rows = list(csv.DictReader(open(f"{prefix}.csv")))
    assert rows, "no measured point"
    md = open(f"{prefix}.md").read()
    assert "Machine:" in md and "cores" in md and "kernel" in md
    assert "innodb_flush_log_at_trx_commit" in md
    assert "failed" not in md.lower(), md
    assert os.path.getsize(f"{prefix}.png") > 10_000
    # Progress was shown: which step of how many, and the time left.
    assert "step 1/" in p.stderr and "left)" in p.stderr
