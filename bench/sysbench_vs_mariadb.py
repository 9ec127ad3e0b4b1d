#!/usr/bin/env python3
"""sysbench against kiln and MariaDB 10.11 on the same machine, in the same run.

Starts both servers on private Unix sockets and temporary datadirs (MariaDB from the
Debian package: `mariadbd`), prepares the same tables in each, runs each workload at
each thread count against one server and then the other, and prints a Markdown table
of throughput with the kiln/MariaDB ratio. Both servers are configured alike:
innodb_flush_log_at_trx_commit=1, a 2 GiB buffer pool (kiln's pool is the same size).

    python3 bench/sysbench_vs_mariadb.py                 # 8 tables x 100k, 1/8/32 threads
    python3 bench/sysbench_vs_mariadb.py --tables 2 --table-size 10000 --time 5 \\
        --threads 1,8 --workloads oltp_point_select,oltp_read_only

Not a test: no assertions. The machine is shared; compare ratios from one run.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KILN = os.environ.get("KILN_BIN", os.path.join(ROOT, "target/release/kiln"))
WORKLOADS = [
    "oltp_point_select",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_write_only",
]


def wait_socket(path, proc, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path):
            r = subprocess.run(
                ["mariadb", "-uroot", "-S", path, "-e", "SELECT 1"], capture_output=True
            )
            if r.returncode == 0:
                return
        if proc.poll() is not None:
            sys.exit(f"{what} exited during startup")
        time.sleep(0.2)
    sys.exit(f"{what} did not start")


def start_mariadb(base, pool):
    datadir = os.path.join(base, "mariadb")
    sock = os.path.join(base, "mariadb.sock")
    subprocess.run(
        ["mariadb-install-db", "--no-defaults", f"--datadir={datadir}", "--user=root",
         "--auth-root-authentication-method=normal"],
        check=True, capture_output=True,
    )
    proc = subprocess.Popen(
        ["mariadbd", "--no-defaults", f"--datadir={datadir}", f"--socket={sock}",
         "--skip-networking", "--user=root", f"--innodb-buffer-pool-size={pool}",
         "--innodb-log-file-size=512M", "--innodb-flush-log-at-trx-commit=1",
         "--max-connections=2000", "--skip-log-bin"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(base, "mariadb.err"), "w"),
    )
    wait_socket(sock, proc, "mariadbd")
    return proc, sock


def start_kiln(base, pool):
    datadir = os.path.join(base, "kiln")
    sock = os.path.join(base, "kiln.sock")
    proc = subprocess.Popen(
        [KILN, "--no-defaults", f"--datadir={datadir}", f"--socket={sock}", "--port=0",
         "--skip-networking", f"--innodb-buffer-pool-size={pool}",
         "--innodb-flush-log-at-trx-commit=1", "--max-connections=2000"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(base, "kiln.err"), "w"),
    )
    wait_socket(sock, proc, "kiln")
    return proc, sock


def sysbench(sock, workload, args, timeout=3600):
    cmd = ["sysbench", workload, "--db-driver=mysql", f"--mysql-socket={sock}",
           "--mysql-user=root", "--mysql-db=sbtest", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0 or "FATAL" in p.stdout + p.stderr:
        sys.exit(f"sysbench {workload} {' '.join(args)} failed:\n{p.stdout}{p.stderr}")
    return p.stdout


def parse(out):
    qps = float(re.search(r"queries:\s+\d+\s+\(([\d.]+) per sec", out).group(1))
    tps = float(re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", out).group(1))
    p95 = re.search(r"95th percentile:\s+([\d.]+)", out)
    return qps, tps, float(p95.group(1)) if p95 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--table-size", type=int, default=100_000)
    ap.add_argument("--threads", default="1,8,32")
    ap.add_argument("--time", type=int, default=10)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--pool", default="2G")
    a = ap.parse_args()
    for tool in ("sysbench", "mariadbd", "mariadb-install-db", "mariadb"):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found (apt-get install sysbench mariadb-server)")
    base = tempfile.mkdtemp(prefix="kiln-bench-")
    servers = {}
    try:
        servers["MariaDB 10.11"] = start_mariadb(base, a.pool)
        servers["kiln"] = start_kiln(base, a.pool)
        size = [f"--tables={a.tables}", f"--table-size={a.table_size}"]
        prepare = {}
        for name, (_, sock) in servers.items():
            subprocess.run(["mariadb", "-uroot", "-S", sock, "-e", "CREATE DATABASE sbtest"],
                           check=True)
            t0 = time.time()
            sysbench(sock, "oltp_common", size + ["--threads=2", "prepare"])
            prepare[name] = time.time() - t0
        rows = []
        for w in a.workloads.split(","):
            for th in [int(x) for x in a.threads.split(",")]:
                res = {}
                for name, (_, sock) in servers.items():
                    out = sysbench(sock, w, size + [f"--threads={th}", f"--time={a.time}",
                                                     "--report-interval=0", "run"])
                    res[name] = parse(out)
                rows.append((w, th, res))
                k, m = res["kiln"], res["MariaDB 10.11"]
                print(f"{w} threads={th}: kiln {k[0]:.0f} QPS, MariaDB {m[0]:.0f} QPS, "
                      f"ratio {k[0] / m[0]:.2f}", file=sys.stderr, flush=True)
        print(f"\n{a.tables} tables x {a.table_size} rows, {a.time} s runs, Unix socket, "
              f"innodb_flush_log_at_trx_commit=1, pool {a.pool}\n")
        print("| workload | threads | kiln QPS | MariaDB QPS | ratio | kiln TPS | MariaDB TPS "
              "| kiln p95 ms | MariaDB p95 ms |")
        print("|---|---|---|---|---|---|---|---|---|")
        for w, th, res in rows:
            k, m = res["kiln"], res["MariaDB 10.11"]
            print(f"| {w} | {th} | {k[0]:,.0f} | {m[0]:,.0f} | {k[0] / m[0]:.2f} | "
                  f"{k[1]:,.0f} | {m[1]:,.0f} | {k[2]} | {m[2]} |")
        pk, pm = prepare["kiln"], prepare["MariaDB 10.11"]
        print(f"| sysbench prepare | 2 | {pk:.1f} s | {pm:.1f} s | {pm / pk:.2f} (time ratio, "
              "MariaDB/kiln) | | | | |")
    finally:
        for proc, _ in servers.values():
            proc.send_signal(signal.SIGTERM)
        for proc, _ in servers.values():
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
