"""kiln-bench (crates/kiln-bench, docs/kiln-bench.md) against one server: loading
memcached with sysbench-shaped rows, and one measured run of HandlerSocket or
memcached primary-key reads (after a discarded warm-up invocation) with the server's
CPU seconds per 1,000 requests from /proc/<pid>/stat."""

import json
import shlex
import subprocess

from .servers import kiln_bench_bin


class KilnBenchError(Exception):
    pass


def _run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise KilnBenchError(f"{shlex.join(cmd)}: no result after {timeout} s")
    if p.returncode != 0:
        raise KilnBenchError(f"{shlex.join(cmd)} exited {p.returncode}:\n{p.stderr[-1500:]}")
    return p.stdout


def load_memcached(server, keys, seed=42):
    _run([kiln_bench_bin(), "memcached-load", "--port", str(server.port), "--keys", str(keys),
          "--seed", str(seed)], timeout=1800)


def _cmd(server, conns, pipeline, keys, seconds, seed):
    if server.kind == "memcached":
        mode, port = "memcached", server.port
    else:
        mode, port = "hs", server.hs_port  # the read-only port
    return [kiln_bench_bin(), mode, "--port", str(port), "--connections", str(conns),
            "--pipeline", str(pipeline), "--keys", str(keys), "--seed", str(seed),
            "--warmup", "0", "--duration", str(seconds), "--timeout", "30", "--json"]


def run(server, conns, pipeline, keys, seconds, warmup, seed=42):
    """ops_per_sec, p99_us, errors, misses, cpu_s and cpu_s_per_1000 of one run."""
    if warmup > 0:
        _run(_cmd(server, conns, pipeline, keys, warmup, seed), warmup + 120)
    c0 = server.cpu_seconds()
    out = _run(_cmd(server, conns, pipeline, keys, seconds, seed), seconds + 120)
    cpu = server.cpu_seconds() - c0
    try:
        j = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise KilnBenchError(f"kiln-bench printed no JSON:\n{out[-1000:]}")
    return {"ops_per_sec": j["ops_per_sec"], "ops": j["ops"], "errors": j["errors"],
            "misses": j["misses"], "p99_us": j["latency_us"]["p99"],
            "latency_unit": j.get("latency_unit", "request"), "cpu_s": cpu,
            "cpu_s_per_1000": cpu * 1000 / j["ops"] if j["ops"] else None}


# `kiln-bench mysql`: sysbench's workloads from an event-driven client (a few threads
# multiplexing every connection), so thousands of connections do not cost the client
# thousands of threads.
MYSQL_WORKLOADS = {"oltp_point_select": "point_select", "oltp_read_write": "read_write"}


def run_mysql(server, workload, conns, seconds, warmup, tables, size, threads=2):
    """One `kiln-bench mysql` invocation over the server's Unix socket: `warmup`
    seconds not counted, then `seconds` measured on the same connections. Returns qps,
    tps, p99_ms, errors (ERR responses other than the retried ones), retried
    (deadlocks / lock wait timeouts, rolled back and retried as sysbench does),
    client_cpu_pct (kiln-bench's CPU as % of one core) and setup_s."""
    if workload not in MYSQL_WORKLOADS:
        raise KilnBenchError(f"kiln-bench mysql has no workload like {workload}")
    cmd = [kiln_bench_bin(), "mysql", "--socket", server.socket, "--workload",
           MYSQL_WORKLOADS[workload], "--connections", str(conns), "--threads", str(threads),
           "--tables", str(tables), "--table-size", str(size), "--warmup", str(warmup),
           "--duration", str(seconds), "--timeout", "120", "--json"]
    out = _run(cmd, timeout=seconds + warmup + 300 + conns // 10)
    try:
        j = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise KilnBenchError(f"kiln-bench printed no JSON:\n{out[-1000:]}")
    return {"qps": j["qps"], "tps": j["tps"], "transactions": j["transactions"],
            "queries": j["queries"], "p99_ms": round(j["latency_us"]["p99"] / 1000, 3),
            "errors": j["errors"], "retried": j["retried"],
            "client_cpu_pct": j["client_cpu_pct"], "setup_s": j["setup_s"],
            "cpu_ms_per_txn": None}
