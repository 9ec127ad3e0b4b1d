"""Experiment 3, the NoSQL path (seed: HandlerSocket; formerly bench/hs_vs_memcached.py):
primary-key lookups of the same sysbench rows via SQL (sysbench oltp_point_select), via
HandlerSocket on kiln and on MariaDB (its bundled handlersocket.so), and via memcached
holding the same rows, at 1/8/32 connections, closed loop and pipelined, with each
server's CPU seconds per 1,000 requests (/proc/<pid>/stat)."""

from lib import install, kilnbench, report, sysbench
from lib.experiment import Context, fail_if_nothing, start_family
from lib.progress import log
from lib.report import fmt_mmm, fmt_num, ratio, summarize
from lib.servers import Server, common

from . import split

NUMBER = 3
NAME = "nosql"
TITLE = "NoSQL path: SQL vs HandlerSocket (kiln, MariaDB) vs memcached, primary-key lookups"
OPTIONS = [
    ("--rows", int, 100_000, 200, "rows of sbtest1 (and memcached keys)"),
    ("--connections", str, "1,8,32", "2", "connections (sysbench threads), comma-separated"),
    ("--pipelines", str, "1,16", "1,4", "requests in flight per connection (1 = closed loop)"),
    ("--time", int, 10, 1, "measured seconds per run"),
    ("--warmup", int, 2, 0, "seconds of the discarded warm-up run before each run"),
    ("--runs", int, 3, 1, "runs per point (median, min, max)"),
    ("--hs-threads", int, 2, 2, "HandlerSocket worker threads per port, and memcached -t"),
    ("--pool", str, "1G", "64M", "innodb_buffer_pool_size of kiln and MariaDB"),
    ("--redo", str, "512M", "64M", "redo log size of kiln and MariaDB"),
    ("--memcached-mb", int, 1024, 64, "memcached -m"),
]
SYSTEMS = ["kiln SQL", "MariaDB SQL", "kiln HS", "MariaDB HS", "memcached"]


def run(a):
    install.ensure(programs=["sysbench", "mariadbd", "mariadb-install-db", "memcached"],
                   python=("matplotlib", "pymysql"), kiln=True, kiln_bench=True, hs_plugin=True)
    conns, pipes = split(a.connections, int), split(a.pipelines, int)
    with Context(NAME, TITLE, a) as ctx:
        settings = common(pool=a.pool, redo=a.redo, max_connections=max(conns) + 200)
        sql = [Server("kiln", "kiln", ctx.base, settings, hs=True, hs_threads=a.hs_threads),
               Server("mariadb", "MariaDB", ctx.base, settings, hs=True, hs_threads=a.hs_threads)]
        sql, took = start_family(
            ctx, sql, lambda s: sysbench.prepare(s, 1, a.rows, workload="oltp_point_select"))
        mc = ctx.start(Server("memcached", "memcached", ctx.base, memcached_threads=a.hs_threads,
                              memcached_mb=a.memcached_mb))
        log(f"loading {a.rows} keys into memcached")
        kilnbench.load_memcached(mc, a.rows)
        for s in sql:  # warm the clustered index: SUM over a non-indexed column reads every row
            n = s.query("SELECT COUNT(*), SUM(LENGTH(c)) FROM sbtest1", db="sbtest")[0][0]
            if n != a.rows:
                raise SystemExit(f"{s.label}: sbtest1 has {n} rows, expected {a.rows}")
        by = {"kiln SQL": sql[0], "MariaDB SQL": sql[1], "kiln HS": sql[0],
              "MariaDB HS": sql[1], "memcached": mc}
        points = [(c, d) for c in conns for d in pipes]
        steps = [(c, d, r, sys_) for c, d in points for r in range(a.runs) for sys_ in SYSTEMS
                 if not (sys_.endswith("SQL") and d > 1)]
        prog = ctx.steps(len(steps), a.time + a.warmup + 1)
        samples = {}
        for c, d, r, sys_ in steps:
            prog.step(f"{sys_} connections={c} pipeline={d} run {r + 1}/{a.runs}")
            srv = by[sys_]
            try:
                if sys_.endswith("SQL"):
                    x = sysbench.run(srv, "oltp_point_select", c, a.time, a.warmup, 1, a.rows)
                    res = {"ops_per_sec": x["qps"], "cpu_s_per_1000": x["cpu_s_per_1000"],
                           "p99_us": x["p99_ms"] * 1000 if x["p99_ms"] is not None else None,
                           "errors": x["errors"], "misses": 0}
                else:
                    res = kilnbench.run(srv, c, d, a.rows, a.time, a.warmup)
            except (sysbench.SysbenchError, kilnbench.KilnBenchError) as e:
                log(f"  FAILED: {str(e)[:400]}")
                ctx.report.note(f"{sys_} connections={c} pipeline={d} run {r + 1}: "
                                f"{str(e).strip().splitlines()[-1][:200]}")
                res = None
            if res:
                log(f"  {res['ops_per_sec']:,.0f} ops/s, CPU "
                    f"{res['cpu_s_per_1000'] or 0:.4f} s/1k, errors {res['errors']}, "
                    f"misses {res['misses']}")
            samples.setdefault((c, d, sys_), []).append(res)

        def summ(c, d, sys_, m):
            return summarize([x[m] if x else None for x in samples.get((c, d, sys_), [])])

        rep = ctx.report
        rep.md(f"sbtest1 with {a.rows:,} rows in kiln and MariaDB (`sysbench oltp_point_select "
               f"--tables=1 --table-size={a.rows} prepare`), the same rows in memcached "
               f"(`kiln-bench memcached-load`). Uniform random keys. SQL: sysbench "
               "oltp_point_select over the Unix socket, one thread per connection, closed loop "
               "only. HandlerSocket: `kiln-bench hs` on the read-only port (`1 = 1 <id>` "
               "returning id,k,c,pad). memcached: `kiln-bench memcached` (`get sbtest1:<id>`). "
               f"{a.hs_threads} HandlerSocket threads per port and memcached -t {a.hs_threads}. "
               f"Each point: median of {a.runs} run(s) of {a.time} s after a discarded "
               f"{a.warmup} s warm-up run, [min–max]; systems alternate within a point. CPU: "
               "user+system seconds of the server process (all threads) during the measured "
               "run per 1,000 requests, connection set-up included. p99: per request with "
               "pipeline 1, per batch of D requests with pipeline D.", "",
               "Settings (kiln and MariaDB): "
               + ", ".join(f"{k}={v}" for k, v in settings.items()) + "; prepare: "
               + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()) + ".", "")
        rep.md("### Requests/s", "")
        rows = []
        for c, d in points:
            cells = [fmt_mmm(summ(c, d, s, "ops_per_sec")) if not (s.endswith("SQL") and d > 1)
                     else "n/a" for s in SYSTEMS]
            med = {s: (summ(c, d, s, "ops_per_sec") or (None,))[0] for s in SYSTEMS}
            rows.append([c, d, *cells, ratio(med["kiln HS"], med["MariaDB HS"]),
                         ratio(med["kiln SQL"], med["MariaDB SQL"]),
                         ratio(med["kiln HS"], med["memcached"])])
        rep.table(["connections", "pipeline", *SYSTEMS, "kiln HS / MariaDB HS",
                   "kiln SQL / MariaDB SQL", "kiln HS / memcached"], rows)
        rep.md("### Server CPU seconds per 1,000 requests (median) and p99 latency (µs)", "")
        rows = []
        for c, d in points:
            cpu = [fmt_num((summ(c, d, s, "cpu_s_per_1000") or (None,))[0], 4) for s in SYSTEMS]
            p99 = [fmt_num((summ(c, d, s, "p99_us") or (None,))[0]) for s in SYSTEMS]
            rows.append([c, d, " / ".join(cpu), " / ".join(p99)])
        rep.table(["connections", "pipeline", "CPU s/1k: " + " / ".join(SYSTEMS),
                   "p99 µs: " + " / ".join(SYSTEMS)], rows)
        errs = {s: sum(x["errors"] for (c, d, ss), xs in samples.items() if ss == s
                       for x in xs if x) for s in SYSTEMS}
        miss = {s: sum(x["misses"] for (c, d, ss), xs in samples.items() if ss == s
                       for x in xs if x) for s in SYSTEMS}
        rep.md("Errors: " + ", ".join(f"{s} {v}" for s, v in errs.items()) + ". Misses: "
               + ", ".join(f"{s} {v}" for s, v in miss.items()) + ".", "")
        for (c, d, s), xs in sorted(samples.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                     SYSTEMS.index(kv[0][2]))):
            row = {"connections": c, "pipeline": d, "system": s, "runs": len(xs),
                   "runs_ok": sum(1 for x in xs if x)}
            for m in ("ops_per_sec", "cpu_s_per_1000", "p99_us"):
                t = summ(c, d, s, m)
                if t:
                    row[m], row[m + "_min"], row[m + "_max"] = t
            rep.rows.append(row)
        panels = []
        for d in pipes:
            panels.append({"title": f"PK lookups, pipeline {d}" + (" (closed loop)" if d == 1
                                                                    else ""),
                           "xlabel": "connections", "ylabel": "requests/s, median", "logx": True,
                           "series": {s: [(c, summ(c, d, s, "ops_per_sec")) for c in conns]
                                      for s in SYSTEMS if not (s.endswith("SQL") and d > 1)}})
            panels.append({"title": f"server CPU, pipeline {d}", "xlabel": "connections",
                           "ylabel": "CPU seconds per 1,000 requests", "logx": True,
                           "series": {s: [(c, summ(c, d, s, "cpu_s_per_1000")) for c in conns]
                                      for s in SYSTEMS if not (s.endswith("SQL") and d > 1)}})
        return fail_if_nothing(
            samples, rep.write(lambda p: report.plot_lines(p, panels, TITLE), ctx.base))
