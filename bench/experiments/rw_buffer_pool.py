"""Experiment 2, read-write vs buffer pool (seed: GreatSQL vs MySQL): sysbench
oltp_read_write with durable commits on a data set of about 2 GB, buffer pools of 1/4,
1/2, 3/4 and 1x the data, 8..128 client threads, kiln and MariaDB each with its thread
pool off and on. The servers restart for each pool size (same datadirs, prepared once
per engine and copied for the pool-of-threads twin)."""

import subprocess

from lib import install, report, sysbench
from lib.experiment import (Context, fail_if_nothing, matrix_rows, matrix_tables,
                            start_family, summary, sysbench_matrix, sysbench_settings_line)
from lib.matrixexp import raise_nofile
from lib.progress import log
from lib.servers import common, make_sql_servers

from . import split, sysbench_options

NUMBER = 2
NAME = "rw-buffer-pool"
TITLE = "Read-write vs buffer-pool size: oltp_read_write, kiln vs MariaDB, thread pool off/on"
OPTIONS = [o for o in sysbench_options(
    threads="8,16,32,64,128", smoke_threads="4", systems="kiln,kiln pool,MariaDB,MariaDB pool",
    tables=8, table_size=1_000_000, pool="-", redo="1G") if o[0] != "--pool"] + [
    ("--data-size", str, "2G", "64M",
     "nominal data size the pool fractions refer to (measured sizes are reported too)"),
    ("--fractions", str, "0.25,0.5,0.75,1", "0.5", "buffer pool sizes as fractions of --data-size"),
]


def parse_size(text):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    t = text.strip().upper()
    return int(float(t[:-1]) * mult[t[-1]]) if t[-1] in mult else int(t)


def du(path):
    p = subprocess.run(["du", "-sb", path], capture_output=True, text=True)
    return int(p.stdout.split()[0]) if p.returncode == 0 and p.stdout else None


def run(a):
    labels = split(a.systems)
    install.ensure_sql(labels)
    threads = split(a.threads, int)
    raise_nofile(threads)
    data = parse_size(a.data_size)
    pools = [(f, max(int(data * f) >> 20, 16)) for f in split(a.fractions, float)]
    with Context(NAME, TITLE, a) as ctx:
        settings = common(pool=f"{pools[-1][1]}M", redo=a.redo,
                          max_connections=max(threads) + 200)
        servers = make_sql_servers(ctx.base, labels, settings)
        servers, took = start_family(
            ctx, servers, lambda s: sysbench.prepare(s, a.tables, a.table_size, threads=4))
        sizes = {}
        for s in servers:
            s.stop()
            sizes[s.label] = du(s.datadir)
        total = len(pools) * len(threads) * a.runs * len(servers)
        ctx.steps(total, a.time + a.warmup + 2)
        samples = {}
        for frac, mb in pools:
            log(f"buffer pool {mb} MB ({frac:g} x {a.data_size}): restarting the servers")
            for s in servers:
                s.stop()
                s.settings["innodb_buffer_pool_size"] = f"{mb}M"
                ctx.start(s)
            got = sysbench_matrix(ctx, servers, ["oltp_read_write"], threads, ["unix"],
                                  tag=f"pool {mb} MB")
            for (w, tr, th, lab), xs in got.items():
                samples[(f"{frac:g}", tr, th, lab)] = xs
        rep = ctx.report
        fracs = [f"{f:g}" for f, _ in pools]
        rep.md("sysbench oltp_read_write, durable commits (innodb_flush_log_at_trx_commit=1), "
               f"Unix socket. Buffer pools: {', '.join(f'{mb} MB ({f:g}x)' for f, mb in pools)} "
               f"of a nominal {a.data_size} data set.", "",
               sysbench_settings_line(a), "",
               "Datadir sizes after prepare (du, includes redo and undo): "
               + ", ".join(f"{k} {v / 2**20:,.0f} MB" for k, v in sizes.items() if v) + ".", "",
               "Settings (all SQL servers, pool size per step): "
               + ", ".join(f"{k}={v}" for k, v in settings.items() if k != "innodb_buffer_pool_size")
               + "; the pool systems add thread_handling=pool-of-threads.", "",
               "sysbench prepare (4 threads): "
               + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()) + ".", "",
               "The tables are per buffer-pool fraction (the first column's label "
               "`<fraction>, unix`).", "")
        matrix_tables(rep, samples, labels, fracs, ["unix"], threads, ["tps", "p99_ms"],
                      heading="buffer pool x")
        rows = matrix_rows(samples, labels)
        for r in rows:
            r["pool_fraction"] = r.pop("workload")
            r["pool_mb"] = dict((f"{f:g}", mb) for f, mb in pools)[r["pool_fraction"]]
        rep.rows = rows
        panels = []
        for th in threads:
            panels.append({"title": f"oltp_read_write, {th} threads",
                           "xlabel": f"buffer pool (fraction of {a.data_size})",
                           "ylabel": "transactions/s, median", "series": {
                               lab: [(f, summary(samples, (f"{f:g}", "unix", th, lab), "tps"))
                                     for f, _ in pools] for lab in labels}})
        return fail_if_nothing(
            samples, rep.write(lambda p: report.plot_lines(p, panels, TITLE), ctx.base))

