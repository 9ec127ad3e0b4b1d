#!/usr/bin/env python3
"""Connection scaling: sysbench at 8 .. 4,000 client threads against kiln and
MariaDB 10.11, each with one thread per connection and with its thread pool
(`thread_handling=pool-of-threads`), in the same run on the same machine.

Four servers start side by side on private Unix sockets and temporary datadirs,
configured alike (buffer pool, innodb_flush_log_at_trx_commit, redo size,
max_connections; thread_pool_size left at its default: the number of CPUs on both).
Each gets the same sysbench tables. Then for every workload and thread count, the
systems take turns (kiln tpc, kiln pool, MariaDB tpc, MariaDB pool), each point run
--runs times; the median is reported with min and max.

    python3 bench/threadpool.py                       # the full experiment (~30 min)
    python3 bench/threadpool.py --threads 8,64 --time 3 --warmup 1 --runs 1   # smoke

Writes bench/results/threadpool-<date>.{csv,md,png} (override with --out). Not a
test: no assertions. The machine is shared: compare ratios from one run.
"""

import argparse
import csv
import datetime
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KILN = os.environ.get("KILN_BIN", os.path.join(ROOT, "target/release/kiln"))
SYSTEMS = ["kiln", "kiln pool", "MariaDB", "MariaDB pool"]
STARTED = time.time()


def log(msg):
    el = time.time() - STARTED
    print(f"[{int(el // 60):02d}:{int(el % 60):02d}] {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def wait_socket(path, proc, what, timeout=90):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path) and run(["mariadb", "-uroot", "-S", path, "-e", "SELECT 1"]).returncode == 0:
            return
        if proc.poll() is not None:
            sys.exit(f"{what} exited during startup")
        time.sleep(0.2)
    sys.exit(f"{what} did not start")


def settings(a):
    """Settings both servers get (written into the results)."""
    return {
        "innodb_buffer_pool_size": a.pool,
        "innodb_flush_log_at_trx_commit": "1",
        "redo log": "512M (kiln innodb_redo_log_capacity, MariaDB innodb_log_file_size)",
        "max_connections": str(a.max_connections),
        "max_prepared_stmt_count": "1048576",
        "thread_pool_size": "default (CPUs)",
    }


def start(base, system, a):
    name = system.replace(" ", "_").lower()
    datadir = os.path.join(base, name)
    sock = os.path.join(base, name + ".sock")
    err = open(os.path.join(base, name + ".err"), "w")
    pool = ["--thread-handling=pool-of-threads"] if system.endswith("pool") else []
    common = [f"--datadir={datadir}", f"--socket={sock}", "--skip-networking",
              f"--innodb-buffer-pool-size={a.pool}", "--innodb-flush-log-at-trx-commit=1",
              f"--max-connections={a.max_connections}",
              # sysbench prepares ~5 statements per thread: 4,000 threads need more
              # than the default 16,382.
              "--max-prepared-stmt-count=1048576", *pool]
    if system.startswith("kiln"):
        cmd = [KILN, "--no-defaults", "--port=0", "--innodb-redo-log-capacity=512M", *common]
    else:
        r = run(["mariadb-install-db", "--no-defaults", f"--datadir={datadir}", "--user=root",
                 "--auth-root-authentication-method=normal"])
        if r.returncode != 0:
            sys.exit(f"mariadb-install-db failed: {r.stderr}")
        cmd = ["mariadbd", "--no-defaults", "--user=root", "--skip-log-bin",
               "--innodb-log-file-size=512M",
               f"--open-files-limit={a.max_connections * 2 + 1000}", *common]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    wait_socket(sock, proc, system)
    return proc, sock


def sysbench(sock, workload, args, timeout):
    cmd = ["sysbench", workload, "--db-driver=mysql", f"--mysql-socket={sock}",
           "--mysql-user=root", "--mysql-db=sbtest", *args]
    p = run(cmd, timeout=timeout)
    if p.returncode != 0 or "FATAL" in p.stdout + p.stderr:
        raise RuntimeError(f"sysbench {workload} {' '.join(args)} failed:\n"
                           f"{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p.stdout


def parse(out):
    qps = float(re.search(r"queries:\s+\d+\s+\(([\d.]+) per sec", out).group(1))
    tps = float(re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", out).group(1))
    p99 = re.search(r"99th percentile:\s+([\d.]+)", out)
    errors = int(re.search(r"ignored errors:\s+(\d+)", out).group(1))
    return {"qps": qps, "tps": tps, "p99_ms": float(p99.group(1)) if p99 else None,
            "errors": errors}


def server_version(sock):
    r = run(["mariadb", "-uroot", "-S", sock, "-N", "-e", "SELECT VERSION()"])
    return r.stdout.strip()


def machine():
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f"{kb / 1048576:.0f} GiB"
    except OSError:
        pass
    disk = run(["df", "-h", "--output=source,size", tempfile.gettempdir()]).stdout.split("\n")[1:2]
    return (f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), {mem} RAM, "
            f"kernel {platform.release()}, tmp on {' '.join(disk).split()[0] if disk and disk[0] else '?'}")


def plot(rows, workloads, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(workloads), figsize=(6.5 * len(workloads), 8), squeeze=False)
    for col, w in enumerate(workloads):
        for system in SYSTEMS:
            pts = sorted((r["threads"], r) for r in rows if r["workload"] == w and r["system"] == system)
            if not pts:
                continue
            x = [t for t, _ in pts]
            metric = "qps" if w == "oltp_point_select" else "tps"
            axes[0][col].errorbar(x, [r[metric] for _, r in pts],
                                  yerr=[[r[metric] - r[metric + "_min"] for _, r in pts],
                                        [r[metric + "_max"] - r[metric] for _, r in pts]],
                                  marker="o", capsize=3, label=system)
            axes[1][col].plot(x, [r["p99_ms"] or 0 for _, r in pts], marker="o", label=system)
        unit = "queries/s" if w == "oltp_point_select" else "transactions/s"
        axes[0][col].set_title(f"sysbench {w}")
        axes[0][col].set_ylabel(f"throughput ({unit}, median)")
        axes[0][col].set_ylim(bottom=0)
        axes[1][col].set_ylabel("p99 latency (ms)")
        axes[1][col].set_yscale("log")
        for ax in (axes[0][col], axes[1][col]):
            ax.set_xscale("log", base=2)
            ax.set_xlabel("client threads (connections)")
            ax.grid(True, alpha=0.3)
            ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", default="8,64,256,1024,4000")
    ap.add_argument("--workloads", default="oltp_point_select,oltp_read_write")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--table-size", type=int, default=10_000)
    ap.add_argument("--time", type=int, default=10, help="seconds measured per run")
    ap.add_argument("--warmup", type=int, default=3, help="seconds of warm-up per run (excluded)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pool", default="1G", help="buffer pool size of every server")
    ap.add_argument("--max-connections", type=int, default=5000)
    ap.add_argument("--out", default=None, help="output path prefix")
    a = ap.parse_args()
    for tool in ("sysbench", "mariadbd", "mariadb-install-db", "mariadb"):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found (apt-get install sysbench mariadb-server)")
    if not os.path.exists(KILN):
        sys.exit(f"{KILN} not found (cargo build --release)")
    threads = [int(x) for x in a.threads.split(",")]
    workloads = a.workloads.split(",")
    systems = a.systems.split(",")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(threads) * 2 + 1000
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    date = datetime.datetime.now().strftime("%Y%m%d-%H%M")
    out = a.out or os.path.join(ROOT, "bench", "results", f"threadpool-{date}")
    base = tempfile.mkdtemp(prefix="kiln-tp-bench-")
    servers = {}
    samples = {}
    try:
        size = [f"--tables={a.tables}", f"--table-size={a.table_size}"]
        for s in systems:
            log(f"starting {s}")
            servers[s] = start(base, s, a)
            sock = servers[s][1]
            run(["mariadb", "-uroot", "-S", sock, "-e", "CREATE DATABASE sbtest"], check=True)
            log(f"preparing {a.tables} x {a.table_size} rows on {s}")
            sysbench(sock, "oltp_common", size + ["--threads=4", "prepare"], timeout=3600)
        steps = [(w, th, r, s) for w in workloads for th in threads for r in range(a.runs)
                 for s in systems]
        per_step = a.time + a.warmup + 2
        for i, (w, th, r, s) in enumerate(steps):
            left = (len(steps) - i) * per_step
            log(f"step {i + 1}/{len(steps)}: {s} {w} threads={th} run {r + 1}/{a.runs} "
                f"(~{left // 60} min left)")
            try:
                if a.warmup > 0:
                    # This sysbench has no --warmup-time: a short run first, discarded.
                    sysbench(servers[s][1], w, size + [f"--threads={th}", f"--time={a.warmup}",
                                                       "--report-interval=0", "run"],
                             timeout=a.warmup + 600)
                res = parse(sysbench(servers[s][1], w, size + [
                    f"--threads={th}", f"--time={a.time}", "--percentile=99",
                    "--report-interval=0", "--db-ps-mode=auto", "run"],
                    timeout=a.time + 600))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                log(f"  FAILED: {str(e)[:500]}")
                res = None
            if res:
                log(f"  {res['qps']:,.0f} qps, {res['tps']:,.0f} tps, p99 {res['p99_ms']} ms, "
                    f"{res['errors']} errors")
                samples.setdefault((w, th, s), []).append(res)
        versions = {s: server_version(servers[s][1]) for s in systems}
    finally:
        for proc, _ in servers.values():
            proc.send_signal(signal.SIGTERM)
        for proc, _ in servers.values():
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(base, ignore_errors=True)

    rows = []
    for (w, th, s), xs in samples.items():
        row = {"workload": w, "threads": th, "system": s, "runs": len(xs)}
        for m in ("qps", "tps"):
            vals = [x[m] for x in xs]
            row[m], row[m + "_min"], row[m + "_max"] = statistics.median(vals), min(vals), max(vals)
        p99 = [x["p99_ms"] for x in xs if x["p99_ms"] is not None]
        row["p99_ms"] = statistics.median(p99) if p99 else None
        row["errors"] = sum(x["errors"] for x in xs)
        rows.append(row)
    rows.sort(key=lambda r: (workloads.index(r["workload"]), r["threads"], systems.index(r["system"])))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["workload"])
        wr.writeheader()
        wr.writerows(rows)

    def get(w, th, s, m):
        for r in rows:
            if (r["workload"], r["threads"], r["system"]) == (w, th, s):
                return r[m]
        return None

    md = [f"# Connection scaling: kiln vs MariaDB, one thread per connection and thread pool "
          f"({date})", "",
          f"Command: `python3 bench/threadpool.py {' '.join(sys.argv[1:])}`".rstrip(), "",
          f"Machine: {machine()}. Client: sysbench on the same machine, Unix socket.", "",
          f"Data: {a.tables} tables x {a.table_size} rows. Each point: median of {a.runs} "
          f"run(s) of {a.time} s after {a.warmup} s warm-up, min-max in brackets; systems "
          f"alternate within each point.", "",
          "Settings (all servers): " + ", ".join(f"{k}={v}" for k, v in settings(a).items()) + ".",
          "", "Versions: " + ", ".join(f"{s}: {v}" for s, v in versions.items()) + ".", ""]
    for w in workloads:
        metric = "qps" if w == "oltp_point_select" else "tps"
        md += [f"## {w} ({metric.upper()})", "",
               "| threads | " + " | ".join(systems) + " | kiln pool / MariaDB pool "
               "| kiln pool / kiln | p99 ms (" + ", ".join(systems) + ") |",
               "|---|" + "---|" * len(systems) + "---|---|---|"]
        for th in threads:
            cells = []
            for s in systems:
                v = get(w, th, s, metric)
                cells.append("failed" if v is None else
                             f"{v:,.0f} [{get(w, th, s, metric + '_min'):,.0f}-"
                             f"{get(w, th, s, metric + '_max'):,.0f}]")
            kp, mp, kt = (get(w, th, s, metric) for s in ("kiln pool", "MariaDB pool", "kiln"))
            r1 = f"{kp / mp:.2f}" if kp and mp else "-"
            r2 = f"{kp / kt:.2f}" if kp and kt else "-"
            p99 = ", ".join(str(get(w, th, s, "p99_ms")) for s in systems)
            md.append(f"| {th} | " + " | ".join(cells) + f" | {r1} | {r2} | {p99} |")
        for s in systems:
            vals = [get(w, th, s, metric) for th in threads]
            vals = [v for v in vals if v]
            if vals:
                peak = max(vals)
                tail = [get(w, th, s, metric) for th in threads if th >= 1024]
                tail = [v for v in tail if v]
                if tail:
                    md.append(f"\n{s}: peak {peak:,.0f}; at >= 1,024 threads "
                              f"{min(tail) / peak:.0%} of peak (worst point).")
        md.append("")
    errs = sum(r["errors"] for r in rows)
    md.append(f"sysbench ignored errors across all runs: {errs}.")
    with open(out + ".md", "w") as f:
        f.write("\n".join(md) + "\n")
    if rows:
        plot(rows, workloads, out + ".png")
    print("\n".join(md))
    log(f"wrote {out}.csv, .md, .png")


if __name__ == "__main__":
    main()
