"""The body of the experiments that are one sysbench matrix over a fixed set of
servers (point-select, rw-cpu, threadpool, sysbench): install, start the systems on
identical data, run the matrix, write the tables, the CSV and the plot."""

import resource

from . import install, report, sysbench
from .experiment import (Context, fail_if_nothing, matrix_panels, matrix_rows, matrix_tables,
                         start_family, sysbench_matrix, sysbench_settings_line)
from .servers import common, make_sql_servers


def raise_nofile(threads):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(threads) * 2 + 1000
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))


def run_matrix(a, name, title, workloads, threads, transports, metrics, intro, rows=False):
    """Runs the matrix and writes the report; returns the result prefix."""
    labels = [s.strip() for s in a.systems.split(",") if s.strip()]
    install.ensure_sql(labels)
    raise_nofile(threads)
    with Context(name, title, a) as ctx:
        settings = common(pool=a.pool, redo=a.redo, max_connections=max(threads) + 200)
        servers = make_sql_servers(ctx.base, labels, settings)
        servers, took = start_family(
            ctx, servers, lambda s: sysbench.prepare(s, a.tables, a.table_size, threads=4))
        samples = sysbench_matrix(ctx, servers, workloads, threads, transports, rows=rows)
        rep = ctx.report
        rep.md(intro, "", sysbench_settings_line(a), "",
               "Settings (all SQL servers): " + ", ".join(f"{k}={v}" for k, v in settings.items())
               + "; the pool systems add thread_handling=pool-of-threads. Every variable as "
               "the servers report it is listed at the end.", "",
               "sysbench prepare (4 threads): "
               + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()) + ".", "")
        matrix_tables(rep, samples, labels, workloads, transports, threads, metrics)
        errs = sum(x["errors"] for xs in samples.values() for x in xs if x)
        rep.md(f"sysbench ignored errors across all runs: {errs}.", "")
        rep.rows = matrix_rows(samples, labels)
        panels = matrix_panels(samples, labels, workloads, transports, threads, metrics)
        return fail_if_nothing(
            samples, rep.write(lambda p: report.plot_lines(p, panels, title), ctx.base))
