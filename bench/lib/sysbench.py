"""sysbench 1.0 against one server: preparing the sbtest tables, one measured run
(after a discarded warm-up run) over the Unix socket or TCP, and the parse of its
report (QPS, TPS, p99 latency, ignored errors, reconnects), together with the server's
CPU seconds and InnoDB row operations (Innodb_rows_* deltas) during the measured run."""

import re
import subprocess
import time

ROW_OPS = ("Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated",
           "Innodb_rows_deleted")
# MariaDB 10.6+ has no Innodb_rows_*: the handler calls count the same row operations.
HANDLER_OPS = {"read": ("Handler_read_first", "Handler_read_key", "Handler_read_last",
                        "Handler_read_next", "Handler_read_prev", "Handler_read_rnd",
                        "Handler_read_rnd_next"),
               "inserted": ("Handler_write",), "updated": ("Handler_update",),
               "deleted": ("Handler_delete",)}


def row_counters(status):
    """({read, inserted, updated, deleted: count}, source) from SHOW GLOBAL STATUS."""
    if all(k in status for k in ROW_OPS):
        return ({k.split("_")[-1]: int(status[k]) for k in ROW_OPS}, "Innodb_rows_*")
    return ({op: sum(int(status.get(k, 0)) for k in keys) for op, keys in HANDLER_OPS.items()},
            "Handler_read_*, Handler_write/update/delete")


class SysbenchError(Exception):
    pass


def _target(server, transport):
    if transport == "tcp":
        return ["--mysql-host=127.0.0.1", f"--mysql-port={server.port}"]
    return [f"--mysql-socket={server.socket}"]


def _sysbench(server, workload, args, transport="unix", timeout=3600):
    cmd = ["sysbench", workload, "--db-driver=mysql", *_target(server, transport),
           "--mysql-user=root", "--mysql-db=sbtest", *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SysbenchError(f"sysbench {workload} {' '.join(args)}: no result after {timeout} s")
    if p.returncode != 0 or "FATAL" in p.stdout + p.stderr:
        raise SysbenchError(f"sysbench {workload} {' '.join(args)} failed:\n"
                            f"{p.stdout[-1500:]}{p.stderr[-1500:]}")
    return p.stdout


def prepare(server, tables, size, threads=2, workload="oltp_common", extra=()):
    """CREATE DATABASE sbtest and the sysbench tables; returns the seconds taken."""
    server.query("CREATE DATABASE IF NOT EXISTS sbtest")
    t0 = time.monotonic()
    _sysbench(server, workload, [f"--tables={tables}", f"--table-size={size}",
                                 f"--threads={min(threads, tables)}", *extra, "prepare"])
    return time.monotonic() - t0


def parse(out):
    """The numbers of one sysbench report."""
    def num(pattern, cast=float):
        m = re.search(pattern, out)
        return cast(m.group(1)) if m else None
    return {
        "qps": num(r"queries:\s+\d+\s+\(([\d.]+) per sec"),
        "tps": num(r"transactions:\s+\d+\s+\(([\d.]+) per sec"),
        "transactions": num(r"transactions:\s+(\d+)", int),
        "queries": num(r"queries:\s+(\d+)", int),
        "p99_ms": num(r"99th percentile:\s+([\d.]+)"),
        "avg_ms": num(r"avg:\s+([\d.]+)"),
        "errors": num(r"ignored errors:\s+(\d+)", int) or 0,
        "reconnects": num(r"reconnects:\s+(\d+)", int) or 0,
        "total_s": num(r"total time:\s+([\d.]+)s"),
    }


def run(server, workload, threads, seconds, warmup, tables, size, transport="unix",
        extra=(), rows=False):
    """A discarded warm-up run of `warmup` seconds, then the measured run. Returns the
    parsed report plus cpu_s (server CPU during the measured run, connection set-up
    included), cpu_ms_per_txn and, with rows=True, row_ops_s (Innodb_rows_* deltas, or
    the handler counters where there are none, per second of sysbench's total time)."""
    common = [f"--tables={tables}", f"--table-size={size}", f"--threads={threads}",
              "--report-interval=0", "--db-ps-mode=auto", *extra]
    grace = 120 + threads // 4
    if warmup > 0:
        _sysbench(server, workload, common + [f"--time={warmup}", "run"], transport,
                  timeout=warmup + grace)
    before = server.status() if rows else None
    c0 = server.cpu_seconds()
    out = _sysbench(server, workload, common + [f"--time={seconds}", "--percentile=99", "run"],
                    transport, timeout=seconds + grace)
    cpu = server.cpu_seconds() - c0
    res = parse(out)
    if res["qps"] is None:
        raise SysbenchError(f"sysbench {workload}: no report in\n{out[-1500:]}")
    res["cpu_s"] = cpu
    res["cpu_ms_per_txn"] = cpu * 1000 / res["transactions"] if res["transactions"] else None
    res["cpu_s_per_1000"] = cpu * 1000 / res["queries"] if res["queries"] else None
    if rows:
        (b, _), (e, source) = row_counters(before), row_counters(server.status())
        total = res["total_s"] or seconds
        res["row_ops_s"] = sum(e[k] - b[k] for k in e) / total
        res["row_source"] = source
        for k in e:
            res[f"rows_{k}_s"] = (e[k] - b[k]) / total
    return res
