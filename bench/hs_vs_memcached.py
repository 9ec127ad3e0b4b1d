#!/usr/bin/env python3
"""Primary-key lookups of sysbench rows: kiln's HandlerSocket, MariaDB's handlersocket.so
and memcached, on the same machine, in the same run, with the same client.

Starts three servers on temporary directories and free loopback ports:

  1. kiln (target/release/kiln, or $KILN_BIN) with its HandlerSocket ports;
  2. MariaDB 10.11 (Debian mariadb-server: mariadbd) with the bundled handlersocket.so;
  3. memcached 1.6 (Debian memcached).

Both SQL servers get one sysbench table sbtest1 of --rows rows (`sysbench
oltp_point_select ... prepare` over their Unix sockets), the same buffer pool
(--pool) and innodb_flush_log_at_trx_commit=1, and the same number of HandlerSocket
worker threads (--threads, also memcached's -t). memcached gets the same rows
(`kiln-bench memcached-load`). Then `target/release/kiln-bench` reads random keys
(uniform over 1..rows) from each: `hs` against the read-only HandlerSocket port
(`1 = 1 <id>` returning id,k,c,pad), `memcached` with `get sbtest1:<id>`.

Matrix: --connections (1,8,32) x --pipelines (1 = closed loop, 16 = pipelined) x the
three systems. For each (connections, pipeline) point the systems take turns (kiln,
MariaDB, memcached, kiln, ...) --repeat times; the table shows the median ops/s (min
and max in a second table).

Warmup and CPU accounting: kiln-bench's JSON does not report the warmup phase's
requests, so each measurement is two kiln-bench invocations: an untimed warmup
(`--warmup 0 --duration <--warmup>`, skipped when --warmup is 0), then the measured
run with `--warmup 0 --duration <--duration>`. The server's CPU time (utime + stime
of the whole process, all threads, from /proc/<pid>/stat) is read just before and
just after the measured invocation and divided by that run's requests ("CPU s per
1,000 requests"). It includes kiln-bench's connection set-up (one `P` per connection)
and whatever the server's background threads did in that window.

    cargo build --release -p kiln-server -p kiln-bench
    apt-get install -y mariadb-server memcached sysbench
    python3 bench/hs_vs_memcached.py                  # full matrix, ~12 minutes
    python3 bench/hs_vs_memcached.py --quick --repeat 1   # smoke run

Results: a Markdown table on stdout, and bench/results/hs-<YYYYmmdd-HHMM>.csv (one
row per measured run) and .md (machine, settings, commit, command, tables), UTC.

Not a test: no assertions. The client shares the machine's cores with the servers;
compare systems within one run.
"""

import argparse
import csv
import datetime
import json
import os
import platform
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KILN = os.environ.get("KILN_BIN", os.path.join(ROOT, "target/release/kiln"))
KILN_BENCH = os.environ.get("KILN_BENCH_BIN", os.path.join(ROOT, "target/release/kiln-bench"))
RESULTS = os.path.join(ROOT, "bench", "results")
PLUGIN_DIRS = (
    "/usr/lib/mysql/plugin",
    "/usr/lib/x86_64-linux-gnu/mariadb19/plugin",
    "/usr/local/mysql/lib/plugin",
)
CLK_TCK = os.sysconf("SC_CLK_TCK")
SYSTEMS = ["kiln", "mariadb", "memcached"]
LABEL = {"kiln": "kiln HS", "mariadb": "MariaDB HS", "memcached": "memcached"}
BUILD_HINT = "cargo build --release -p kiln-server -p kiln-bench"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg):
    raise SystemExit(f"hs_vs_memcached: {msg}")


def find_program(prog):
    p = shutil.which(prog)
    if p:
        return p
    for d in ("/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"):
        cand = os.path.join(d, prog)
        if os.access(cand, os.X_OK):
            return cand
    return None


def find_plugin():
    for d in PLUGIN_DIRS:
        p = os.path.join(d, "handlersocket.so")
        if os.path.exists(p):
            return p
    return None


def free_ports(n):
    """n distinct free TCP ports on 127.0.0.1 (bound to port 0, then released)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def cpu_seconds(pid):
    """utime + stime of the process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        data = f.read()
    fields = data[data.rindex(")") + 2:].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def read_text(path, tail=3000):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-tail:]
    except OSError:
        return ""


class Server:
    """A started server process: name, Popen, log file, HandlerSocket/memcached port."""

    def __init__(self, name, proc, log_path, port, sock=None, args=()):
        self.name, self.proc, self.log_path = name, proc, log_path
        self.port, self.sock, self.args = port, sock, list(args)
        self.dead_reason = None

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=60):
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log(f"{self.name} did not stop in {timeout} s after SIGTERM; killing it")
                self.proc.kill()
                self.proc.wait()


def sql(sock, stmt, db=None):
    cmd = ["mariadb", "-uroot", "-S", sock, "-N", "-B", "-e", stmt]
    if db:
        cmd.insert(1, f"--database={db}")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        die(f"`{stmt}` on {sock} failed: {p.stderr.strip()}")
    return p.stdout


def wait_sql(sock, srv, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not srv.alive():
            die(f"{srv.name} exited during start-up ({srv.proc.returncode}):\n{read_text(srv.log_path)}")
        if os.path.exists(sock):
            r = subprocess.run(["mariadb", "-uroot", "-S", sock, "-e", "SELECT 1"], capture_output=True)
            if r.returncode == 0:
                return
        time.sleep(0.2)
    die(f"{srv.name} did not accept SQL on {sock} within {timeout} s:\n{read_text(srv.log_path)}")


def wait_tcp(ports, srv, timeout=60):
    deadline = time.monotonic() + timeout
    pending = list(ports)
    while pending and time.monotonic() < deadline:
        if not srv.alive():
            die(f"{srv.name} exited during start-up ({srv.proc.returncode}):\n{read_text(srv.log_path)}")
        try:
            socket.create_connection(("127.0.0.1", pending[0]), timeout=1).close()
            pending.pop(0)
        except OSError:
            time.sleep(0.1)
    if pending:
        die(f"{srv.name}: ports {pending} not listening after {timeout} s:\n{read_text(srv.log_path)}")


def popen(cmd, log_path):
    # A new session: Ctrl-C in the terminal does not reach the servers; the finally
    # block stops them in order.
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=open(log_path, "ab"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def start_kiln(base, a, servers):
    datadir = os.path.join(base, "kiln")
    sock = os.path.join(base, "kiln.sock")
    rd, wr = free_ports(2)
    args = [
        "--no-defaults", f"--datadir={datadir}", f"--socket={sock}", "--port=0",
        "--skip-networking", f"--innodb-buffer-pool-size={a.pool}",
        "--innodb-flush-log-at-trx-commit=1", "--handlersocket-address=127.0.0.1",
        f"--handlersocket-port={rd}", f"--handlersocket-port-wr={wr}",
        f"--handlersocket-threads={a.threads}", f"--handlersocket-threads-wr={a.threads}",
    ]
    log_path = os.path.join(base, "kiln.err")
    srv = Server("kiln", popen([KILN, *args], log_path), log_path, rd, sock, args)
    servers.append(srv)
    wait_sql(sock, srv)
    wait_tcp([rd, wr], srv)
    return srv


def start_mariadb(base, a, servers, mariadbd, install_db):
    datadir = os.path.join(base, "mariadb")
    sock = os.path.join(base, "mariadb.sock")
    user = ["--user=root"] if os.geteuid() == 0 else []
    p = subprocess.run([install_db, "--no-defaults", f"--datadir={datadir}", *user,
                        "--auth-root-authentication-method=normal"],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        die(f"mariadb-install-db failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    rd, wr = free_ports(2)
    log_path = os.path.join(base, "mariadb.err")
    args = [
        "--no-defaults", f"--datadir={datadir}", f"--socket={sock}", "--skip-networking",
        *user, "--skip-log-bin", f"--log-error={log_path}",
        f"--pid-file={os.path.join(base, 'mariadb.pid')}",
        f"--innodb-buffer-pool-size={a.pool}", "--innodb-flush-log-at-trx-commit=1",
        "--plugin-maturity=beta", "--plugin-load-add=handlersocket.so",
        "--handlersocket-address=127.0.0.1", f"--handlersocket-port={rd}",
        f"--handlersocket-port-wr={wr}", "--handlersocket-plain-secret=",
        "--handlersocket-plain-secret-wr=", f"--handlersocket-threads={a.threads}",
        f"--handlersocket-threads-wr={a.threads}",
    ]
    srv = Server("mariadb", popen([mariadbd, *args], os.path.join(base, "mariadbd.out")),
                 log_path, rd, sock, args)
    servers.append(srv)
    wait_sql(sock, srv)
    wait_tcp([rd, wr], srv)
    return srv


def start_memcached(base, a, servers, memcached):
    (port,) = free_ports(1)
    args = ["-l", "127.0.0.1", "-p", str(port), "-U", "0", "-t", str(a.threads),
            "-m", str(a.memcached_mb), "-c", "4096"]
    if os.geteuid() == 0:
        args += ["-u", "root"]
    log_path = os.path.join(base, "memcached.log")
    srv = Server("memcached", popen([memcached, *args], log_path), log_path, port, None, args)
    servers.append(srv)
    wait_tcp([port], srv)
    return srv


def prepare_sql(srv, rows):
    sql(srv.sock, "CREATE DATABASE sbtest")
    t0 = time.monotonic()
    cmd = ["sysbench", "oltp_point_select", "--tables=1", f"--table-size={rows}",
           f"--mysql-socket={srv.sock}", "--mysql-user=root", "--mysql-db=sbtest",
           "--db-driver=mysql", "prepare"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if p.returncode != 0 or "FATAL" in p.stdout + p.stderr:
        die(f"sysbench prepare on {srv.name} failed:\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
    took = time.monotonic() - t0
    # Warm the clustered index (SUM over a non-indexed column reads every row).
    n = sql(srv.sock, "SELECT COUNT(*), SUM(LENGTH(c)) FROM sbtest1", db="sbtest").split()
    if int(n[0]) != rows:
        die(f"{srv.name}: sbtest1 has {n[0]} rows, expected {rows}")
    return took


def server_vars(srv, pattern):
    out = sql(srv.sock, f"SHOW GLOBAL VARIABLES LIKE '{pattern}'")
    return [tuple(line.split("\t", 1)) for line in out.splitlines() if line]


def bench_cmd(srv, a, conns, pipeline, warmup, duration):
    mode = "memcached" if srv.name == "memcached" else "hs"
    return [KILN_BENCH, mode, "--port", str(srv.port), "--connections", str(conns),
            "--pipeline", str(pipeline), "--keys", str(a.rows), "--seed", str(a.seed),
            "--warmup", str(warmup), "--duration", str(duration), "--timeout", "30", "--json"]


class BenchFailed(Exception):
    pass


def run_bench(cmd, timeout):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except BaseException:
        p.kill()
        p.wait()
        raise
    if p.returncode != 0:
        raise BenchFailed(f"{shlex.join(cmd)} exited {p.returncode}:\n{err[-2000:]}")
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise BenchFailed(f"{shlex.join(cmd)}: no JSON on stdout:\n{out[-1000:]}\n{err[-1000:]}")


def measure(srv, a, conns, pipeline):
    """One untimed warmup invocation, then a measured one with CPU accounting."""
    if a.warmup > 0:
        run_bench(bench_cmd(srv, a, conns, pipeline, 0, a.warmup), a.warmup + 120)
    cmd = bench_cmd(srv, a, conns, pipeline, 0, a.duration)
    c0 = cpu_seconds(srv.proc.pid)
    j = run_bench(cmd, a.duration + 120)
    c1 = cpu_seconds(srv.proc.pid)
    cpu = c1 - c0
    return {
        "ops_per_sec": j["ops_per_sec"], "ops": j["ops"], "errors": j["errors"],
        "misses": j["misses"], "duration_s": j["duration_s"],
        "p50": j["latency_us"]["p50"], "p99": j["latency_us"]["p99"],
        "p99_9": j["latency_us"]["p99_9"], "max": j["latency_us"]["max"],
        "latency_unit": j.get("latency_unit", "request"), "cpu_s": cpu,
        "cpu_per_1000": cpu / j["ops"] * 1000 if j["ops"] else None,
    }


def fmt_dur(s):
    s = int(round(s))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def machine_info():
    info = {"nproc": str(os.cpu_count())}
    try:
        info["nproc"] = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    mem = read_text("/proc/meminfo", 100000)
    for line in mem.splitlines():
        if line.startswith("MemTotal:"):
            kb = int(line.split()[1])
            info["memory"] = f"{kb / 1024 / 1024:.1f} GiB (MemTotal {kb} kB)"
    info["kernel"] = platform.release()
    for line in read_text("/proc/cpuinfo", 1000000).splitlines():
        if line.startswith("model name"):
            info["cpu"] = line.split(":", 1)[1].strip()
            break
    return info


def git(*args):
    p = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)
    return p.stdout.rstrip("\n") if p.returncode == 0 else "?"


def version(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return (p.stdout or p.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "?"


def summarize(runs):
    """Median ops/s (min, max), median CPU per 1000 and p99 over the repeats."""
    ok = [r for r in runs if r is not None]
    if not ok:
        return None
    ops = [r["ops_per_sec"] for r in ok]
    cpus = [r["cpu_per_1000"] for r in ok if r["cpu_per_1000"] is not None]
    return {
        "median": statistics.median(ops), "min": min(ops), "max": max(ops), "n": len(ok),
        "failed": len(runs) - len(ok),
        "cpu": statistics.median(cpus) if cpus else None,
        "p99": statistics.median(r["p99"] for r in ok),
        "errors": sum(r["errors"] for r in ok), "misses": sum(r["misses"] for r in ok),
    }


def tables(points, summ, runs):
    def missing(key):
        return "failed" if runs[key] else "–"  # all runs failed / system not run

    def ops(key):
        x = summ[key]
        return missing(key) if x is None else f"{x['median']:,.0f}"

    def ratio(x, y):
        return "–" if x is None or y is None or not y["median"] else f"{x['median'] / y['median']:.2f}"

    def cpu(x):
        return "–" if x is None or x["cpu"] is None else f"{x['cpu']:.4f}"

    def p99(x):
        return "–" if x is None else f"{x['p99']:,.1f}"

    out = []
    out.append("| connections | pipeline | kiln HS ops/s | MariaDB HS ops/s | memcached ops/s "
               "| kiln/MariaDB | kiln/memcached | kiln CPU s/1k req | MariaDB CPU s/1k req "
               "| memcached CPU s/1k req | kiln p99 µs | MariaDB p99 µs | memcached p99 µs |")
    out.append("|" + "---|" * 13)
    for c, d in points:
        keys = [(s, c, d) for s in SYSTEMS]
        k, m, mc = (summ[key] for key in keys)
        out.append(
            f"| {c} | {d} | {' | '.join(ops(key) for key in keys)} | {ratio(k, m)} | {ratio(k, mc)} "
            f"| {cpu(k)} | {cpu(m)} | {cpu(mc)} | {p99(k)} | {p99(m)} | {p99(mc)} |")
    main = "\n".join(out)
    out = ["| connections | pipeline | kiln HS min–max ops/s | MariaDB HS min–max ops/s "
           "| memcached min–max ops/s | runs ok (k/M/mc) | errors (k/M/mc) | misses (k/M/mc) |",
           "|" + "---|" * 8]
    for c, d in points:
        keys = [(s, c, d) for s in SYSTEMS]
        ss = [summ[key] for key in keys]
        rng = [missing(key) if x is None else f"{x['min']:,.0f}–{x['max']:,.0f}"
               for key, x in zip(keys, ss)]
        okf = "/".join("0" if x is None else str(x["n"]) for x in ss)
        errs = "/".join("–" if x is None else str(x["errors"]) for x in ss)
        miss = "/".join("–" if x is None else str(x["misses"]) for x in ss)
        out.append(f"| {c} | {d} | {rng[0]} | {rng[1]} | {rng[2]} | {okf} | {errs} | {miss} |")
    return main, "\n".join(out)


def _on_sigterm(*_):
    raise KeyboardInterrupt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000, help="rows of sbtest1 (and keys)")
    ap.add_argument("--connections", default="1,8,32")
    ap.add_argument("--pipelines", default="1,16")
    ap.add_argument("--duration", type=int, default=10, help="measured seconds per run")
    ap.add_argument("--warmup", type=int, default=2,
                    help="seconds of the untimed warmup invocation before each run (0: none)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per point and system (median)")
    ap.add_argument("--threads", type=int, default=2,
                    help="HandlerSocket worker threads per port (kiln and MariaDB), memcached -t")
    ap.add_argument("--pool", default="1G", help="innodb_buffer_pool_size of kiln and MariaDB")
    ap.add_argument("--memcached-mb", type=int, default=1024, help="memcached -m")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--systems", default=",".join(SYSTEMS),
                    help="subset of kiln,mariadb,memcached (others show as failed)")
    ap.add_argument("--quick", action="store_true", help="smoke run: --duration 2 --warmup 1")
    ap.add_argument("--no-save", action="store_true", help="do not write bench/results/")
    a = ap.parse_args()
    if a.quick:
        a.duration, a.warmup = 2, 1
    conns = [int(x) for x in a.connections.split(",")]
    pipes = [int(x) for x in a.pipelines.split(",")]
    systems = [s for s in a.systems.split(",") if s]
    for s in systems:
        if s not in SYSTEMS:
            die(f"unknown system {s!r} (kiln, mariadb, memcached)")

    # Binaries.
    for path, what in ((KILN, "kiln"), (KILN_BENCH, "kiln-bench")):
        if not os.access(path, os.X_OK):
            die(f"{what} binary not found at {path}: run `{BUILD_HINT}`"
                + (" (or set KILN_BIN)" if what == "kiln" else ""))
    need = {"sysbench": "sysbench", "mariadb": "mariadb-client"}
    if "mariadb" in systems:
        need.update({"mariadbd": "mariadb-server", "mariadb-install-db": "mariadb-server"})
    if "memcached" in systems:
        need["memcached"] = "memcached"
    progs = {}
    for prog, pkg in need.items():
        progs[prog] = find_program(prog)
        if not progs[prog]:
            die(f"{prog} not found: apt-get install -y {pkg}")
    if "mariadb" in systems and not find_plugin():
        die("handlersocket.so not found in " + ", ".join(PLUGIN_DIRS)
            + ": apt-get install -y mariadb-server")

    started = datetime.datetime.now(datetime.timezone.utc)
    command = "python3 " + shlex.join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])
    commit = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no")
    # SIGTERM behaves as Ctrl-C: unwind through the finally block.
    signal.signal(signal.SIGTERM, _on_sigterm)

    base = tempfile.mkdtemp(prefix="kiln-hsb-")
    servers = []
    srv = {}
    notes = []
    try:
        log(f"starting servers in {base} ...")
        prep = {}
        if "kiln" in systems:
            srv["kiln"] = start_kiln(base, a, servers)
        if "mariadb" in systems:
            srv["mariadb"] = start_mariadb(base, a, servers, progs["mariadbd"],
                                           progs["mariadb-install-db"])
        if "memcached" in systems:
            srv["memcached"] = start_memcached(base, a, servers, progs["memcached"])
        for name in ("kiln", "mariadb"):
            if name in srv:
                log(f"sysbench prepare on {name}: 1 table x {a.rows} rows ...")
                prep[name] = prepare_sql(srv[name], a.rows)
                log(f"  {prep[name]:.1f} s")
        if "memcached" in srv:
            log(f"kiln-bench memcached-load: {a.rows} keys ...")
            t0 = time.monotonic()
            p = subprocess.run([KILN_BENCH, "memcached-load", "--port", str(srv["memcached"].port),
                                "--keys", str(a.rows), "--seed", str(a.seed)],
                               capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                die(f"memcached-load failed:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
            prep["memcached"] = time.monotonic() - t0
        settings = {}
        for name in ("kiln", "mariadb"):
            if name in srv:
                settings[name] = (server_vars(srv[name], "handlersocket%")
                                  + server_vars(srv[name], "innodb_buffer_pool_size")
                                  + server_vars(srv[name], "innodb_flush_log_at_trx_commit")
                                  + server_vars(srv[name], "version"))
        # Warm every system's read path once, untimed (8 connections, pipelined).
        for name, s in srv.items():
            log(f"cache warmup on {name} (untimed, {max(a.warmup, 1)} s) ...")
            j = run_bench(bench_cmd(s, a, 8, 16, 0, max(a.warmup, 1)), a.warmup + 120)
            if j["misses"] or j["errors"]:
                notes.append(f"cache warmup on {name}: {j['misses']} misses, {j['errors']} errors")

        points = [(c, d) for c in conns for d in pipes]
        steps = len(points) * a.repeat * len(systems)
        guess = a.warmup + a.duration + 1.0  # seconds per step before any was measured
        runs = {(s, c, d): [] for s in SYSTEMS for c, d in points}
        raw = []
        step, t_start = 0, time.monotonic()
        for c, d in points:
            for rep in range(1, a.repeat + 1):
                for name in systems:
                    step += 1
                    s = srv[name]
                    elapsed = time.monotonic() - t_start
                    per = elapsed / (step - 1) if step > 1 else guess
                    left = per * (steps - step + 1)
                    head = (f"[{step}/{steps}] {LABEL[name]:<10} connections={c:<2} pipeline={d:<2} "
                            f"repeat {rep}/{a.repeat}")
                    if s.dead_reason:
                        log(f"{head}: skipped ({s.dead_reason})")
                        runs[(name, c, d)].append(None)
                        continue
                    log(f"{head} ... (~{fmt_dur(left)} left)")
                    try:
                        r = measure(s, a, c, d)
                    except BenchFailed as e:
                        log(f"  FAILED: {e}")
                        notes.append(f"{LABEL[name]} connections={c} pipeline={d} repeat {rep}: "
                                     f"{str(e).strip().splitlines()[-1]}")
                        runs[(name, c, d)].append(None)
                        if not s.alive():
                            s.dead_reason = f"server exited with {s.proc.returncode}"
                            notes.append(f"{LABEL[name]} died: {s.dead_reason}; log tail:\n"
                                         f"{read_text(s.log_path, 1500)}")
                        continue
                    runs[(name, c, d)].append(r)
                    raw.append({"system": name, "connections": c, "pipeline": d, "repeat": rep, **r})
                    log(f"  {r['ops_per_sec']:>10,.0f} ops/s  p99 {r['p99']:,.1f} µs"
                        f"{' (batch)' if d > 1 else ''}  CPU {r['cpu_per_1000']:.4f} s/1k req"
                        f"  errors {r['errors']}  misses {r['misses']}")
                    if r["errors"] or r["misses"]:
                        notes.append(f"{LABEL[name]} connections={c} pipeline={d} repeat {rep}: "
                                     f"{r['errors']} errors, {r['misses']} misses")
        total_time = time.monotonic() - t_start
        summ = {k: summarize(v) for k, v in runs.items()}
        main_t, spread_t = tables(points, summ, runs)

        print()
        print(f"{a.rows:,} rows, uniform keys, {a.duration} s runs after a {a.warmup} s untimed "
              f"warmup, median of {a.repeat}; {a.threads} threads per server; "
              f"p99 with pipeline > 1 is per batch")
        print()
        print(main_t)
        print()
        print(spread_t)
        if notes:
            print("\nNotes:")
            for n in notes:
                print(f"- {n}")

        if a.no_save:
            return
        os.makedirs(RESULTS, exist_ok=True)
        stamp = started.strftime("%Y%m%d-%H%M")
        csv_path = os.path.join(RESULTS, f"hs-{stamp}.csv")
        md_path = os.path.join(RESULTS, f"hs-{stamp}.md")
        fields = ["system", "connections", "pipeline", "repeat", "ops_per_sec", "ops",
                  "duration_s", "errors", "misses", "latency_unit", "p50", "p99", "p99_9", "max",
                  "cpu_s", "cpu_per_1000"]
        with open(csv_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            for r in raw:
                w.writerow({**r, "cpu_s": f"{r['cpu_s']:.2f}",
                            "cpu_per_1000": f"{r['cpu_per_1000']:.6f}"})
        m = machine_info()
        md = [f"# HandlerSocket and memcached: PK lookups, {started:%Y-%m-%d %H:%M} UTC", ""]
        md += ["Command:", "", "```sh", command, "```", ""]
        md += [f"kiln commit {commit}"
               + (" with uncommitted changes in: "
                  + ", ".join(l[3:] for l in dirty.splitlines()) if dirty and dirty != "?" else ""),
               ""]
        md += ["## Machine", "",
               f"- nproc: {m['nproc']}",
               f"- memory: {m.get('memory', '?')}",
               f"- kernel: {m['kernel']}",
               f"- CPU: {m.get('cpu', '?')}",
               "- client: `target/release/kiln-bench` on the same machine, sharing the cores "
               "with the servers (all three servers run during the whole benchmark; the ones "
               "not being measured are idle)", ""]
        md += ["## Workload", "",
               f"- sbtest1 with {a.rows:,} rows (`sysbench oltp_point_select --tables=1 "
               f"--table-size={a.rows} ... prepare` over the Unix socket of kiln and of MariaDB; "
               f"`kiln-bench memcached-load --keys {a.rows} --seed {a.seed}` for memcached); "
               "caches warmed by `SELECT COUNT(*), SUM(LENGTH(c)) FROM sbtest1` and an "
               "untimed kiln-bench run per system",
               f"- reads only, keys uniform over 1..{a.rows}, seed {a.seed}; HandlerSocket: "
               "`P 1 sbtest sbtest1 PRIMARY id,k,c,pad` then `1 = 1 <id>` on the read-only port; "
               "memcached: `get sbtest1:<id>`",
               f"- each run: an untimed `kiln-bench --warmup 0 --duration {a.warmup}` invocation, "
               f"then the measured `kiln-bench --warmup 0 --duration {a.duration} --json`; "
               f"{a.repeat} runs per point and system, systems alternating (kiln, MariaDB, "
               "memcached, kiln, ...); the tables show the median ops/s, the median CPU per "
               "1,000 requests and the median p99 over the runs",
               "- CPU s per 1,000 requests: utime+stime of the server process (all threads, "
               "`/proc/<pid>/stat`) read just before and after the measured invocation, divided "
               "by its requests (includes connection set-up and background threads)",
               "- p99 latency: per request with pipeline 1; per batch round trip of 16 requests "
               "with pipeline 16", ""]
        md += ["## Servers", ""]
        if "kiln" in srv:
            md += [f"kiln ({version([KILN, '--version'])}):", "", "```",
                   "kiln " + shlex.join(srv["kiln"].args).replace(base, "$TMP"), "```", ""]
        if "mariadb" in srv:
            md += [f"MariaDB ({version([progs['mariadbd'], '--version'])}, {find_plugin()}):", "",
                   "```", "mariadbd " + shlex.join(srv["mariadb"].args).replace(base, "$TMP"),
                   "```", ""]
        if "memcached" in srv:
            md += [f"memcached ({version([progs['memcached'], '-V'])}):", "", "```",
                   "memcached " + shlex.join(srv["memcached"].args), "```", ""]
        for name, vs in settings.items():
            md += [f"{LABEL[name].split()[0]} variables after start-up:", "",
                   "| variable | value |", "|---|---|"]
            md += [f"| {k} | {v} |" for k, v in vs] + [""]
        md += [f"sysbench: {version(['sysbench', '--version'])}; load times: "
               + ", ".join(f"{k} {v:.1f} s" for k, v in prep.items()), ""]
        md += ["## Results", "",
               f"Median of {a.repeat} runs of {a.duration} s; benchmark time "
               f"{fmt_dur(total_time)}.", "", main_t, "", "Spread, counts, errors and misses:",
               "", spread_t, ""]
        if notes:
            md += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
        md += [f"Per-run data: `{os.path.relpath(csv_path, ROOT)}`.", ""]
        with open(md_path, "w") as f:
            f.write("\n".join(md))
        log(f"\nwrote {os.path.relpath(csv_path, ROOT)} and {os.path.relpath(md_path, ROOT)}")
    except KeyboardInterrupt:
        log("\ninterrupted; stopping servers")
        raise SystemExit(130)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for s in servers:
            s.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
