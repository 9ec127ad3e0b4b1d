"""The body of the experiments that are one sysbench matrix over a fixed set of
servers (point-select, rw-cpu, threadpool, sysbench): install, start the systems on
identical data, run the matrix, write the tables, the CSV and the plot."""

import resource

from . import install, report, sysbench
from .experiment import (Context, fail_if_nothing, matrix_panels, matrix_rows, matrix_tables,
                         start_family, summary, sysbench_matrix, sysbench_settings_line)
from .servers import common, make_sql_servers


def raise_nofile(threads):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(threads) * 2 + 1000
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))


def ensure_somaxconn(threads):
    """The kernel caps every listen queue (the servers' back_log) at
    net.core.somaxconn: a burst of more connects than that gets EAGAIN on a Unix socket
    (sysbench: "Thread initialization failed"). Raises it when too low and allowed."""
    path = "/proc/sys/net/core/somaxconn"
    want = max(threads) + 200
    try:
        with open(path) as f:
            have = int(f.read().strip())
    except (OSError, ValueError):
        return
    if have >= want:
        return
    try:
        with open(path, "w") as f:
            f.write(str(want))
        print(f"net.core.somaxconn raised from {have} to {want}")
    except OSError as e:
        print(f"warning: net.core.somaxconn is {have} (< {want}) and cannot be raised ({e}); "
              f"connection bursts above {have} may fail with EAGAIN")


def run_matrix(a, name, title, workloads, threads, transports, metrics, intro, rows=False,
               clients=("sysbench",)):
    """Runs the matrix once per load client ("sysbench", "kiln-bench") and writes the
    report; returns the result prefix."""
    labels = [s.strip() for s in a.systems.split(",") if s.strip()]
    install.ensure_sql(labels)
    raise_nofile(threads)
    ensure_somaxconn(threads)
    with Context(name, title, a) as ctx:
        settings = common(pool=a.pool, redo=a.redo, max_connections=max(threads) + 200)
        servers = make_sql_servers(ctx.base, labels, settings)
        servers, took = start_family(
            ctx, servers, lambda s: sysbench.prepare(s, a.tables, a.table_size, threads=4))
        per_client = len(workloads) * len(transports) * len(threads) * a.runs * len(servers)
        ctx.steps(per_client * len(clients), a.time + a.warmup + 2)
        by_client = {c: sysbench_matrix(ctx, servers, workloads, threads, transports, rows=rows,
                                        client=c) for c in clients}
        rep = ctx.report
        rep.md(intro, "", sysbench_settings_line(a), "",
               "Settings (all SQL servers): " + ", ".join(f"{k}={v}" for k, v in settings.items())
               + "; the pool systems add thread_handling=pool-of-threads. Every variable as "
               "the servers report it is listed at the end.", "",
               "sysbench prepare (4 threads): "
               + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()) + ".", "")
        many = len(clients) > 1
        panels = []
        rep.rows = []
        for c, samples in by_client.items():
            head = f"[{c}] " if many else ""
            ms = metrics + (["client_cpu_pct"] if c == "kiln-bench" else [])
            matrix_tables(rep, samples, labels, workloads, transports, threads, ms, heading=head)
            errs = sum(x["errors"] for xs in samples.values() for x in xs if x)
            if c == "kiln-bench":
                retried = sum(x["retried"] for xs in samples.values() for x in xs if x)
                rep.md(f"kiln-bench: error responses across all runs: {errs}; transactions "
                       f"rolled back and retried (deadlock / lock wait timeout): {retried}.", "")
            else:
                rep.md(f"sysbench ignored errors across all runs: {errs}.", "")
            rep.rows += matrix_rows(samples, labels, extra={"client": c} if many else None)
            panels += matrix_panels(samples, labels, workloads, transports, threads, metrics,
                                    title_prefix=head)
        if many:
            peak_table(rep, by_client, labels, workloads, transports, threads)
        all_samples = {(c, *k): v for c, s in by_client.items() for k, v in s.items()}
        return fail_if_nothing(
            all_samples, rep.write(lambda p: report.plot_lines(p, panels, title), ctx.base))


def peak_table(rep, by_client, labels, workloads, transports, threads):
    """Per workload: every system's peak (QPS for point select, else TPS) and its
    share of that peak at the largest two thread counts, one column per client."""
    big = [t for t in threads if t >= 1024] or threads[-1:]
    for w in workloads:
        m = "qps" if "point_select" in w else "tps"
        for tr in transports:
            rep.md(f"### {w}, {tr}: share of each system's own peak {m} at "
                   f"{', '.join(map(str, big))} connections, by client", "")
            rows = []
            for lab in labels:
                row = [lab]
                for c, samples in by_client.items():
                    med = {t: summary(samples, (w, tr, t, lab), m) for t in threads}
                    peak = max((s[0] for s in med.values() if s), default=None)
                    row.append(f"{peak:,.0f}" if peak else "-")
                    for t in big:
                        s = med.get(t)
                        row.append(f"{100 * s[0] / peak:.0f}%" if s and peak else "-")
                rows.append(row)
            heads = ["system"] + [h for c in by_client
                                  for h in [f"peak ({c})"] + [f"{t} ({c})" for t in big]]
            rep.table(heads, rows)
