"""Experiment 5, engine features (seed: InnoDB 1.1 features), three parts:

- instances: innodb_buffer_pool_instances 1 vs 8 under sysbench oltp_read_only at high
  concurrency;
- change-buffering: deleting --delete-rows rows of a table with 6 secondary indexes and
  a buffer pool much smaller than the table, innodb_change_buffering=all vs none;
- aio: innodb_use_native_aio ON vs OFF under an I/O-bound oltp_read_only (pool much
  smaller than the data).

A system that lacks a knob is measured once without it and the output says so
(`<bin> --verbose --help` is asked before starting, SHOW GLOBAL VARIABLES after)."""

import random
import re
import shutil
import subprocess
import time

from lib import install, report, sysbench
from lib.experiment import (Context, matrix_rows, matrix_tables, start_family, summary,
                            sysbench_matrix, sysbench_settings_line)
from lib.matrixexp import raise_nofile
from lib.progress import log
from lib.report import fmt_mmm, ratio, summarize
from lib.servers import Server, common, find_program, kiln_bin

from . import split, sysbench_options

NUMBER = 5
NAME = "engine-features"
TITLE = "Engine features: buffer-pool instances, change buffering, native AIO"
OPTIONS = [o for o in sysbench_options(threads="-", smoke_threads="-", systems="kiln,MariaDB")
           if o[0] != "--threads"] + [
    ("--parts", str, "instances,change-buffering,aio", "instances,change-buffering,aio",
     "parts to run"),
    ("--instances", str, "1,8", "1,8", "innodb_buffer_pool_instances values"),
    ("--ro-threads", int, 256, 8, "oltp_read_only threads of the instances part"),
    ("--cb-rows", int, 1_000_000, 3000, "rows of the 6-index table of the change-buffering part"),
    ("--delete-rows", int, 100_000, 500, "rows deleted"),
    ("--cb-pool", str, "64M", "8M", "buffer pool of the change-buffering part"),
    ("--cb-modes", str, "all,none", "all,none", "innodb_change_buffering values"),
    ("--aio-pool", str, "64M", "8M", "buffer pool of the AIO part (much smaller than the data)"),
    ("--aio-threads", int, 16, 4, "oltp_read_only threads of the AIO part"),
]
SYS_KIND = {"kiln": "kiln", "MariaDB": "mariadb"}
_HELP = {}


def supports(kind, var):
    """Does the server binary know the variable (from `--verbose --help`)?"""
    if kind not in _HELP:
        binary = kiln_bin() if kind == "kiln" else find_program("mariadbd")
        p = subprocess.run([binary, "--no-defaults", "--verbose", "--help"],
                           capture_output=True, text=True, timeout=60)
        _HELP[kind] = (p.stdout + p.stderr).replace("_", "-")
    return re.search(rf"^\s*-*{re.escape(var.replace('_', '-'))}\b", _HELP[kind], re.M) is not None


def variants(ctx, systems, knob, values, settings):
    """One Server per (system, value); a system that lacks the knob gets one server
    without it, labelled so, and the report says so."""
    out = []
    for sys_ in systems:
        kind = SYS_KIND[sys_]
        if supports(kind, knob):
            for v in values:
                out.append(Server(kind, f"{sys_} {knob}={v}", ctx.base, settings, {knob: v}))
        else:
            out.append(Server(kind, f"{sys_} (no {knob})", ctx.base, settings))
            ctx.report.missing.append(
                f"{sys_} has no `{knob}`: measured once without it, under the same load, "
                f"as a reference ({', '.join(values)} not compared)")
    return out


def check_effective(ctx, servers, knob):
    for s in servers:
        want = s.knobs.get(knob)
        got = dict(s.effective).get(knob)
        if want is not None and got is not None and got.upper() != want.upper():
            ctx.report.note(f"{s.label}: asked {knob}={want}, the server reports {got}")


def part_matrix(ctx, a, knob, values, settings, workload, threads, heading):
    servers = variants(ctx, split(a.systems), knob, values, settings)
    servers, took = start_family(
        ctx, servers, lambda s: sysbench.prepare(s, a.tables, a.table_size, threads=4))
    check_effective(ctx, servers, knob)
    labels = [s.label for s in servers]
    ctx.progress = None
    samples = sysbench_matrix(ctx, servers, [workload], [threads], ["unix"], tag=heading)
    for s in servers:
        s.stop()
    rep = ctx.report
    rep.md(f"## {heading}", "", sysbench_settings_line(a), "",
           "Settings: " + ", ".join(f"{k}={v}" for k, v in settings.items()) + ".", "")
    matrix_tables(rep, samples, labels, [workload], ["unix"], [threads], ["tps", "qps", "p99_ms"])
    base = [lab for lab in labels if lab.startswith("MariaDB")]
    if base:
        def tps(lab):
            return (summary(samples, (workload, "unix", threads, lab), "tps") or (None,))[0]
        rep.md(f"TPS ratios to {base[0]}: " + ", ".join(
            f"{lab} {ratio(tps(lab), tps(base[0]))}" for lab in labels if lab != base[0]) + ".", "")
    for r in matrix_rows(samples, labels):
        rep.rows.append({"part": heading, **r})
    return {lab: summary(samples, (workload, "unix", threads, lab), "tps") for lab in labels}


def load_cb_table(s, rows, seed):
    s.query("DROP TABLE IF EXISTS cb", db="sbtest")
    s.query("CREATE TABLE cb (id INT NOT NULL PRIMARY KEY, a INT NOT NULL, b INT NOT NULL, "
            "c INT NOT NULL, d INT NOT NULL, e INT NOT NULL, f INT NOT NULL, pad CHAR(100) "
            "NOT NULL, KEY ka (a), KEY kb (b), KEY kc (c), KEY kd (d), KEY ke (e), KEY kf (f))",
            db="sbtest")
    rnd = random.Random(seed)
    conn = s.connect("sbtest")
    cur = conn.cursor()
    t0 = time.monotonic()
    for lo in range(1, rows + 1, 1000):
        vals = []
        for i in range(lo, min(lo + 999, rows) + 1):
            r = [rnd.randrange(1 << 30) for _ in range(6)]
            vals.append(f"({i},{r[0]},{r[1]},{r[2]},{r[3]},{r[4]},{r[5]},'{i:0>100}')")
        cur.execute("INSERT INTO cb VALUES " + ",".join(vals))
    conn.close()
    return time.monotonic() - t0


def purge_wait(s, limit=600):
    """Seconds until Innodb_history_list_length is 0 (None when not exposed or not
    reached within limit)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        st = s.status()
        if "Innodb_history_list_length" not in st:
            return None
        if int(st["Innodb_history_list_length"]) == 0:
            return time.monotonic() - t0
        time.sleep(0.1)
    return None


def fresh_copy(template, server):
    """Replaces server's datadir with a copy of the (stopped) template's."""
    shutil.rmtree(server.datadir, ignore_errors=True)
    shutil.copytree(template.datadir, server.datadir, symlinks=True,
                    ignore=shutil.ignore_patterns("*.sock", "*.pid", "*.lock"))
    server._installed = True


def part_change_buffering(ctx, a, settings):
    """The table is loaded once per engine with the experiment's normal (large) pool,
    where the load is quick, and every run starts from a copy of that datadir with the
    small pool: loading a 1M-row table with six random secondary indexes through a
    64 MB pool is itself an I/O-bound hour on one disk (the first version did that for
    every run), and it is the DELETE that the experiment measures."""
    heading = "change buffering: DELETE with 6 secondary indexes"
    st = dict(settings, innodb_buffer_pool_size=a.cb_pool)
    servers = variants(ctx, split(a.systems), "innodb_change_buffering", split(a.cb_modes), st)
    templates = {}
    loads = {}
    for kind in dict.fromkeys(s.kind for s in servers):
        t = Server(kind, f"{kind} loader", ctx.base, settings)
        ctx.start(t)
        t.query("CREATE DATABASE IF NOT EXISTS sbtest")
        log(f"loading {a.cb_rows:,} rows with 6 secondary indexes into {t.label} "
            f"(pool {settings.get('innodb_buffer_pool_size')})")
        loads[kind] = load_cb_table(t, a.cb_rows, seed=1)
        log(f"  loaded in {loads[kind]:.1f} s")
        t.stop()
        templates[kind] = t
    steps = [(r, s) for r in range(a.runs) for s in servers]
    prog = ctx.steps(len(steps), 30)
    samples = {}
    started = set()
    for r, s in steps:
        prog.step(f"{s.label}: restart on a fresh copy of the {a.cb_rows:,}-row table with "
                  f"a {a.cb_pool} pool, delete {a.delete_rows:,} (run {r + 1}/{a.runs})")
        fresh_copy(templates[s.kind], s)
        if s.label in started:
            s.start()
        else:
            ctx.start(s)
            started.add(s.label)
        if r == 0:
            check_effective(ctx, [s], "innodb_change_buffering")
        t0 = time.monotonic()
        s.query(f"DELETE FROM cb WHERE id <= {a.delete_rows}", db="sbtest")
        delete_s = time.monotonic() - t0
        purge_s = purge_wait(s)
        log(f"  DELETE {delete_s:.2f} s, purge after it "
            f"{'n/a' if purge_s is None else f'{purge_s:.2f} s'}")
        samples.setdefault(s.label, []).append({"load_s": loads[s.kind], "delete_s": delete_s,
                                                "purge_s": purge_s})
        s.stop()
    for s in servers:
        s.stop()
    labels = [s.label for s in servers]

    def summ(lab, m):
        return summarize([x[m] for x in samples[lab]])

    rep = ctx.report
    rep.md(f"## {heading}", "",
           f"Table cb: {a.cb_rows:,} rows (id primary key, six INT columns with a secondary "
           "index each, random values, CHAR(100) pad), loaded in 1,000-row INSERTs, then "
           f"`DELETE FROM cb WHERE id <= {a.delete_rows}` (autocommit) with a {a.cb_pool} "
           "buffer pool; the purge time is until Innodb_history_list_length is 0 after the "
           f"DELETE. Median of {a.runs} run(s) [min–max], systems alternating. The table is "
           f"loaded once per engine with a {settings.get('innodb_buffer_pool_size')} pool "
           "(load column: that one load), and every run restarts the server with the small "
           "pool on a fresh copy of the loaded datadir, so each DELETE starts from a cold "
           "pool.", "",
           "Settings: " + ", ".join(f"{k}={v}" for k, v in st.items()) + ".", "")
    rep.table(["system", "DELETE (s)", "purge after it (s)", "load (s)"],
              [[lab, fmt_mmm(summ(lab, "delete_s"), 2), fmt_mmm(summ(lab, "purge_s"), 2),
                fmt_mmm(summ(lab, "load_s"), 1)] for lab in labels])
    for lab in labels:
        row = {"part": heading, "system": lab, "runs": len(samples[lab])}
        for m in ("delete_s", "purge_s", "load_s"):
            v = summ(lab, m)
            if v:
                row[m], row[m + "_min"], row[m + "_max"] = v
        rep.rows.append(row)
    return {lab: summ(lab, "delete_s") for lab in labels}


def run(a):
    parts = split(a.parts)
    install.ensure_sql(split(a.systems))
    raise_nofile([a.ro_threads, a.aio_threads])
    with Context(NAME, TITLE, a) as ctx:
        settings = common(pool=a.pool, redo=a.redo,
                          max_connections=max(a.ro_threads, a.aio_threads) + 200)
        ctx.report.md("Three parts; each starts its own servers (the knobs are start-up "
                      "options) on identical data and stops them at its end.", "")
        groups = {}
        if "instances" in parts:
            groups["bp instances, oltp_read_only TPS"] = part_matrix(
                ctx, a, "innodb_buffer_pool_instances", split(a.instances), settings,
                "oltp_read_only", a.ro_threads,
                f"buffer-pool instances: oltp_read_only at {a.ro_threads} threads")
        if "change-buffering" in parts:
            groups["DELETE seconds"] = part_change_buffering(ctx, a, settings)
        if "aio" in parts:
            groups["native AIO, oltp_read_only TPS"] = part_matrix(
                ctx, a, "innodb_use_native_aio", ["ON", "OFF"],
                dict(settings, innodb_buffer_pool_size=a.aio_pool), "oltp_read_only",
                a.aio_threads,
                f"native AIO: I/O-bound oltp_read_only at {a.aio_threads} threads, "
                f"{a.aio_pool} pool")
        groups = {k: v for k, v in groups.items() if v}

        return ctx.report.write(
            (lambda p: report.plot_bar_panels(p, groups, TITLE)) if groups else None, ctx.base)

