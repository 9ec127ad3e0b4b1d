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
