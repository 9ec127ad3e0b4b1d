"""What every experiment shares: the run context (temporary base directory, the servers
started, the report, progress, clean-up), starting a family of servers on identical
data (prepare once per engine, copy the datadir to the variants), and the sysbench
matrix (workloads x transports x threads x runs, systems alternating per step) with
its tables (median [min–max], kiln/MariaDB ratios) and plot panels."""

import shutil
import tempfile

from . import kilnbench, progress, report, sysbench
from .servers import set_socket_dir


class Context:
    """One experiment's run. Use as a context manager: servers are stopped and the
    temporary directory removed on the way out, whatever happened."""

    def __init__(self, name, title, args):
        self.name, self.args = name, args
        self.report = report.Report(name, title, args, out_dir=args.out_dir)
        self.base = tempfile.mkdtemp(prefix=f"kiln-bench-{name}-", dir=args.tmpdir)
        self.sockdir = tempfile.mkdtemp(prefix="kb-", dir="/tmp")
        set_socket_dir(self.sockdir)
        self.servers = []
        self.progress = None
        # Labels of servers `revive` restarted once, and of those found dead again.
        self.revived, self.revived_twice = set(), set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop_all()
        set_socket_dir(None)
        shutil.rmtree(self.sockdir, ignore_errors=True)
        if not self.args.keep:
            shutil.rmtree(self.base, ignore_errors=True)
        else:
            progress.log(f"kept {self.base}")
        return False

    def start(self, server):
        progress.log(f"starting {server.label}")
        if server not in self.servers:
            self.servers.append(server)
        server.start()
        self.report.add_server(server.describe())
        progress.log(f"  {server.label} ready in {server.ready_s:.1f} s")
        return server

    def stop_all(self):
        for s in self.servers:
            s.stop()

    def steps(self, total, guess_s):
        self.progress = progress.Progress(self.name, total, guess_s)
        return self.progress


def start_family(ctx, servers, prepare):
    """Starts `servers` on identical data: the first server of each kind is started
    and prepared with prepare(server), then stopped and its datadir copied for the
    other servers of that kind; finally all are started. Returns the started servers
    (in the order given) and {label of the prepared server: prepare seconds}."""
    first = {}
    took = {}
    for s in servers:
        if s.kind not in first:
            first[s.kind] = s
    for kind, s in first.items():
        ctx.start(s)
        progress.log(f"preparing data on {s.label}")
        took[s.label] = prepare(s)
        progress.log(f"  prepared in {took[s.label]:.1f} s")
    out = []
    for s in servers:
        f = first[s.kind]
        if s is not f:
            if f.alive():
                f.stop()
            twin = f.clone(s.label, s.settings, s.knobs)
            twin.hs, twin.hs_threads = s.hs, s.hs_threads
            s = twin
        out.append(s)
    for s in out:
        if not s.alive():
            ctx.start(s)
    return out, took


def revive(ctx, s, step):
    """A server found dead before a step (e.g. SIGKILLed by the kernel's OOM killer
    under thousands of connections): says so in the log and the report, and restarts
    it once on its datadir (crash recovery, cold pool). True when it runs again."""
    dead = ctx.revived
    code = s.proc.returncode if s.proc else None
    why = (f"killed by signal {-code}" + (", SIGKILL, which the OOM killer sends" if code == -9 else "")
           if code is not None and code < 0 else f"exit code {code}")
    if s.label in dead:
        if s.label not in ctx.revived_twice:
            ctx.revived_twice.add(s.label)
            ctx.report.note(f"{s.label} died again before {step} ({why}); not restarted "
                            f"twice, so its later points are missing")
        return False
    dead.add(s.label)
    progress.log(f"{s.label} is not running before {step}: {why}; restarting it once")
    try:
        s.start()
        progress.log(f"  {s.label} ready in {s.ready_s:.1f} s")
    except Exception as e:  # noqa: BLE001 - any start failure is reported, not fatal
        ctx.report.note(f"{s.label} died before {step} ({why}) and did not restart: "
                        f"{str(e).strip().splitlines()[0][:200]}; its later points are missing")
        return False
    ctx.report.note(f"{s.label} died before {step} ({why}); restarted on its datadir "
                    f"(crash recovery, cold buffer pool) for the later points")
    return True


def sysbench_matrix(ctx, servers, workloads, threads, transports, rows=False, tag=None,
                    client="sysbench"):
    """Runs every point `runs` times, systems alternating within a point. Returns
    {(workload, transport, threads, label): [result or None, ...]}. `client` is
    "sysbench", or "kiln-bench" for `kiln-bench mysql` (Unix socket only)."""
    a = ctx.args
    steps = [(w, tr, th, r, s) for w in workloads for tr in transports for th in threads
             for r in range(a.runs) for s in servers]
    prog = ctx.progress or ctx.steps(len(steps), a.time + a.warmup + 2)
    samples = {}
    for w, tr, th, r, s in steps:
        prog.step(f"{s.label} {w} {tr} threads={th} run {r + 1}/{a.runs} [{client}]"
                  + (f" [{tag}]" if tag else ""))
        key = (w, tr, th, s.label)
        if not s.alive() and not revive(ctx, s, f"{w} {tr} threads={th} run {r + 1} [{client}]"):
            samples.setdefault(key, []).append(None)
            continue
        try:
            if client == "kiln-bench":
                res = kilnbench.run_mysql(s, w, th, a.time, a.warmup, a.tables, a.table_size,
                                          threads=getattr(a, "client_threads", 2))
            else:
                res = sysbench.run(s, w, th, a.time, a.warmup, a.tables, a.table_size, tr,
                                   rows=rows)
        except (sysbench.SysbenchError, kilnbench.KilnBenchError) as e:
            progress.log(f"  FAILED: {str(e)[:400]}")
            ctx.report.note(f"{s.label} {w} {tr} threads={th} run {r + 1} [{client}]: "
                            f"{str(e).strip().splitlines()[-1][:200]}")
            res = None
        if res and client == "kiln-bench":
            progress.log(f"  {res['qps']:,.0f} qps, {res['tps']:,.0f} tps, p99 {res['p99_ms']} ms, "
                         f"{res['errors']} errors, {res['retried']} retried, client CPU "
                         f"{res['client_cpu_pct']:.0f}% of a core, set-up {res['setup_s']:.1f} s")
        elif res:
            progress.log(f"  {res['qps']:,.0f} qps, {res['tps']:,.0f} tps, p99 {res['p99_ms']} ms, "
                         f"{res['errors']} errors, CPU {res['cpu_ms_per_txn'] or 0:.3f} ms/txn")
        samples.setdefault(key, []).append(res)
    return samples


def summary(samples, key, metric):
    return report.summarize([x[metric] if x else None for x in samples.get(key, [])])


PAIRS = (("kiln", "MariaDB"), ("kiln pool", "MariaDB pool"))

METRICS = {  # metric -> (column heading / axis label, digits)
    "qps": ("queries/s", 0),
    "tps": ("transactions/s", 0),
    "p99_ms": ("p99 latency (ms)", 2),
    "row_ops_s": ("InnoDB row operations/s", 0),
    "cpu_ms_per_txn": ("server CPU ms per transaction", 3),
    "client_cpu_pct": ("kiln-bench CPU, % of one core", 0),
}


def matrix_rows(samples, labels, extra=None):
    """CSV rows: one per (workload, transport, threads, system) with median/min/max of
    every metric, the number of runs that succeeded and the errors sysbench ignored."""
    rows = []
    for (w, tr, th, label), xs in samples.items():
        row = dict(extra or {})
        row.update({"workload": w, "transport": tr, "threads": th, "system": label,
                    "runs_ok": sum(1 for x in xs if x), "runs": len(xs)})
        for m in METRICS:
            s = report.summarize([x.get(m) if x else None for x in xs])
            if s:
                row[m], row[m + "_min"], row[m + "_max"] = s
        row["errors"] = sum(x["errors"] for x in xs if x)
        sources = {x["row_source"] for x in xs if x and "row_source" in x}
        if sources:
            row["row_source"] = ", ".join(sorted(sources))
        rows.append(row)
    order = {lab: i for i, lab in enumerate(labels)}
    rows.sort(key=lambda r: (str(r.get("pool", "")), r["workload"], r["transport"],
                             r["threads"], order.get(r["system"], 99)))
    return rows


def matrix_tables(rep, samples, labels, workloads, transports, threads, metrics, heading=""):
    """Markdown tables, one per workload x transport x metric: threads down, systems
    across (median [min–max]), then the kiln/MariaDB ratios of the pairs present."""
    pairs = [p for p in PAIRS if p[0] in labels and p[1] in labels]
    for w in workloads:
        for tr in transports:
            for m in metrics:
                name, digits = METRICS[m]
                rep.md(f"### {heading}{w}, {tr}: {name}", "")
                rows = []
                for th in threads:
                    cells = [report.fmt_mmm(summary(samples, (w, tr, th, lab), m), digits)
                             for lab in labels]
                    rs = []
                    for a, b in pairs:
                        sa = summary(samples, (w, tr, th, a), m)
                        sb = summary(samples, (w, tr, th, b), m)
                        rs.append(report.ratio(sa and sa[0], sb and sb[0]))
                    rows.append([th, *cells, *rs])
                rep.table(["threads", *labels, *[f"{a} / {b}" for a, b in pairs]], rows)


def matrix_panels(samples, labels, workloads, transports, threads, metrics, title_prefix=""):
    panels = []
    for w in workloads:
        for tr in transports:
            for m in metrics:
                name, _ = METRICS[m]
                series = {lab: [(th, summary(samples, (w, tr, th, lab), m)) for th in threads]
                          for lab in labels}
                panels.append({"title": f"{title_prefix}{w} ({tr})", "xlabel":
                               "client threads (connections)", "ylabel": name + ", median",
                               "logx": True, "logy": m == "p99_ms", "series": series})
    return panels


def sysbench_settings_line(a, extra=""):
    return (f"Data: sysbench {a.tables} tables x {a.table_size:,} rows. Each point: median of "
            f"{a.runs} run(s) of {a.time} s after a discarded {a.warmup} s warm-up run, "
            f"[min–max] beside it; systems alternate within each point. {extra}").strip()


def fail_if_nothing(samples, prefix):
    """After the report is written: exit non-zero when no point was measured."""
    if not any(x for xs in samples.values() for x in xs):
        raise SystemExit(f"no point was measured: see {prefix}.md")
    return prefix

