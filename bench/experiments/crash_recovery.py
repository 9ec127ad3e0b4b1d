"""Experiment 4, crash recovery (seed: InnoDB 1.1 recovery): a write load runs until N MB
of redo are past the checkpoint while one large transaction is open, the server is
SIGKILLed and restarted; measured: seconds until it answers a query and until the
background rollback of the open transaction has finished. kiln and MariaDB with the
same redo size, buffer pool and flushing settings.

Redo past the checkpoint: kiln's SHOW GLOBAL STATUS Innodb_redo_log_current_lsn -
Innodb_redo_log_checkpoint_lsn; MariaDB's Innodb_checkpoint_age (else Innodb_lsn_current
- Innodb_lsn_last_checkpoint, else SHOW ENGINE INNODB STATUS's "Log sequence number"
and "Last checkpoint at"). Rollback finished: kiln, information_schema.INNODB_TRX is
empty (it lists the recovered transaction while it is rolled back); MariaDB, its error
log says "Rollback of non-prepared transactions completed" when it announced a
rollback (10.11 may keep listing rolled-back recovered transactions in INNODB_TRX
long after), else INNODB_TRX is empty."""

import re
import subprocess
import time

import pymysql

from lib import install, report, sysbench
from lib.experiment import Context, start_family
from lib.progress import log
from lib.report import fmt_mmm, ratio, summarize
from lib.servers import Server, common

from . import split

NUMBER = 4
NAME = "crash-recovery"
TITLE = "Crash recovery: time to accept queries and to finish rollback after SIGKILL"
OPTIONS = [
    ("--redo-mb", str, "256,1024", "4", "MB of redo past the checkpoint at the kill, comma-separated"),
    ("--redo", str, "2G", "64M", "redo log size of both servers (must exceed the largest --redo-mb)"),
    ("--pool", str, "2G", "64M", "innodb_buffer_pool_size of both servers"),
    ("--tables", int, 8, 1, "sysbench tables of the write load"),
    ("--table-size", int, 100_000, 2000, "rows per table"),
    ("--load-threads", int, 8, 2, "sysbench oltp_write_only threads"),
    ("--max-load", int, 900, 20, "seconds of write load at most before the kill"),
    ("--rollback-rows", int, 100_000, 500,
     "rows changed by the transaction left open at the kill (rolled back after restart)"),
    ("--runs", int, 3, 1, "crash cycles per point and system (median, min, max)"),
    ("--systems", str, "kiln,MariaDB", "kiln,MariaDB", "systems"),
]
# The same flushing settings for both, so that the checkpoint lags: the fewest page
# writes per second and no adaptive flushing (each is reported when a server lacks it).
KNOBS = {"innodb_io_capacity": "100", "innodb_adaptive_flushing": "OFF",
         "innodb_max_dirty_pages_pct": "90"}


def redo_age(server):
    """(bytes of redo past the checkpoint, how it was read)."""
    st = server.status()
    if "Innodb_redo_log_checkpoint_lsn" in st and "Innodb_redo_log_current_lsn" in st:
        return (int(st["Innodb_redo_log_current_lsn"]) - int(st["Innodb_redo_log_checkpoint_lsn"]),
                "Innodb_redo_log_current_lsn - Innodb_redo_log_checkpoint_lsn")
    if "Innodb_checkpoint_age" in st:
        return int(st["Innodb_checkpoint_age"]), "Innodb_checkpoint_age"
    if "Innodb_lsn_current" in st and "Innodb_lsn_last_checkpoint" in st:
        return (int(st["Innodb_lsn_current"]) - int(st["Innodb_lsn_last_checkpoint"]),
                "Innodb_lsn_current - Innodb_lsn_last_checkpoint")
    text = server.query("SHOW ENGINE INNODB STATUS")[0][2]
    lsn = re.search(r"Log sequence number\s+(\d+)", text)
    chk = re.search(r"Last checkpoint at\s+(\d+)", text)
    if lsn and chk:
        return int(lsn.group(1)) - int(chk.group(1)), "SHOW ENGINE INNODB STATUS"
    raise RuntimeError(f"{server.label}: no way to read the checkpoint age")


def prepare(server, a):
    took = sysbench.prepare(server, a.tables, a.table_size, threads=4)
    server.query("CREATE TABLE sbtest.rollback_me (id INT PRIMARY KEY, k INT NOT NULL, "
                 "c CHAR(120) NOT NULL)")
    conn = server.connect("sbtest")
    cur = conn.cursor()
    for lo in range(1, a.rollback_rows + 1, 1000):
        hi = min(lo + 999, a.rollback_rows)
        cur.execute("INSERT INTO rollback_me VALUES "
                    + ",".join(f"({i},{i},'{i:0>120}')" for i in range(lo, hi + 1)))
    conn.close()
    return took


def log_size(server):
    try:
        with open(server.log_path, "rb") as f:
            return f.seek(0, 2)
    except OSError:
        return 0


def log_since(server, offset):
    try:
        with open(server.log_path, "rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def rollback_done(server, offset):
    if server.kind == "mariadb":
        # MariaDB's error log is the authority: 10.11 printed "Rollback of
        # non-prepared transactions completed" one second after start (2026-11-27)
        # and then listed the rolled-back recovered transactions in INNODB_TRX for
        # as long as we watched (8 minutes, no CPU used), one as ROLLING BACK.
        text = log_since(server, offset)
        if "Rollback of non-prepared transactions completed" in text:
            return True
        if "To roll back" in text or "Rolling back" in text:
            return False
    n = server.query("SELECT COUNT(*) FROM information_schema.INNODB_TRX")[0][0]
    return n == 0


def settle(server):
    """A clean restart before each cycle: both servers flush their dirty pages and
    checkpoint at a normal shutdown, so every cycle starts with (almost) no redo past
    the checkpoint, whatever the previous cycle or the prepare left. Without it the
    prepare's redo alone (slow flushing, io_capacity=100) put kiln past the smaller
    target before any load had run. Returns the redo past the checkpoint after it."""
    server.stop()
    server.start()
    return redo_age(server)[0]


def cycle(server, a, target_mb):
    """One load + SIGKILL + restart. Returns a dict of the measurements."""
    start_age = settle(server)
    conn = server.connect("sbtest")
    cur = conn.cursor()
    cur.execute("BEGIN")
    cur.execute("UPDATE rollback_me SET k = k + 1")
    load = subprocess.Popen(
        ["sysbench", "oltp_write_only", "--db-driver=mysql", f"--mysql-socket={server.socket}",
         "--mysql-user=root", "--mysql-db=sbtest", f"--tables={a.tables}",
         f"--table-size={a.table_size}", f"--threads={a.load_threads}", f"--time={a.max_load}",
         "--report-interval=0", "--db-ps-mode=auto", "run"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.monotonic()
    age, how = redo_age(server)
    while age < target_mb << 20 and load.poll() is None and time.monotonic() - t0 < a.max_load:
        time.sleep(0.2)
        age, how = redo_age(server)
    load_s = time.monotonic() - t0
    server.kill()
    load.kill()
    load.wait()
    try:
        conn.close()
    except pymysql.MySQLError:
        pass
    offset = log_size(server)
    server.start()
    ready = server.ready_s
    while not rollback_done(server, offset):
        if time.monotonic() - server.spawned_at > 3600:
            raise RuntimeError("rollback not finished after an hour")
        time.sleep(0.05)
    done = time.monotonic() - server.spawned_at
    recovery_log = [line.strip() for line in log_since(server, offset).splitlines()
                    if re.search(r"recover|roll|redo|checkpoint", line, re.I)]
    return {"redo_mb_at_kill": age / 2**20, "how": how, "load_s": load_s,
            "redo_mb_at_start": start_age / 2**20,
            "ready_s": ready, "rollback_done_s": done, "log": recovery_log[-6:]}


def run(a):
    labels = split(a.systems)
    install.ensure_sql(labels)
    targets = split(a.redo_mb, int)
    with Context(NAME, TITLE, a) as ctx:
        settings = common(pool=a.pool, redo=a.redo, max_connections=500)
        servers = [Server("kiln" if lab.startswith("kiln") else "mariadb", lab, ctx.base,
                          settings, KNOBS) for lab in labels]
        servers, took = start_family(ctx, servers, lambda s: prepare(s, a))
        rep = ctx.report
        for s in servers:
            for k in s.unsupported:
                rep.missing.append(f"{s.label} has no `{k}`: started without it (the other "
                                   f"servers got {k}={KNOBS[k]})")
        steps = [(t, r, s) for t in targets for r in range(a.runs) for s in servers]
        prog = ctx.steps(len(steps), 60)
        samples = {}
        for t, r, s in steps:
            prog.step(f"{s.label}: write load to {t} MB of redo past the checkpoint, "
                      f"SIGKILL, restart (run {r + 1}/{a.runs})")
            try:
                res = cycle(s, a, t)
            except (RuntimeError, pymysql.MySQLError, OSError) as e:
                log(f"  FAILED: {e}")
                rep.note(f"{s.label} target {t} MB run {r + 1}: {e}")
                res = None
                if not s.alive():
                    ctx.start(s)
            if res:
                log(f"  redo past the checkpoint {res['redo_mb_at_start']:.1f} MB after a clean "
                    f"restart, {res['redo_mb_at_kill']:.1f} MB at the kill after {res['load_s']:.1f} s "
                    f"of load; answers after {res['ready_s']:.2f} s, rollback done after "
                    f"{res['rollback_done_s']:.2f} s")
                if res["redo_mb_at_kill"] < t:
                    rep.note(f"{s.label} target {t} MB run {r + 1}: only "
                             f"{res['redo_mb_at_kill']:.1f} MB of redo past the checkpoint "
                             f"after {res['load_s']:.0f} s of load (the checkpoint kept up or "
                             "--max-load ended the load)")
            samples.setdefault((t, s.label), []).append(res)

        def summ(t, lab, m):
            return summarize([x[m] if x else None for x in samples.get((t, lab), [])])

        hows = sorted({x["how"] + f" ({lab})" for (t, lab), xs in samples.items()
                       for x in xs if x})
        rep.md("Each cycle starts with a clean restart (normal shutdown, start), so both "
               "servers begin it with their dirty pages flushed and the checkpoint at the "
               "end of the log; then the large transaction is opened and the load starts.",
               "",
               f"Write load: sysbench oltp_write_only, {a.load_threads} threads, on "
               f"{a.tables} x {a.table_size:,} rows, while one transaction holds "
               f"{a.rollback_rows:,} updated rows of another table uncommitted. When the redo "
               "past the checkpoint reaches the target (or after --max-load s), the server "
               "gets SIGKILL and is restarted on the same datadir. Ready: seconds from the "
               "restart to the first answered `SELECT 1` over the Unix socket (includes redo "
               "recovery). Rollback done: seconds from the restart until "
               "information_schema.INNODB_TRX is empty (kiln), or until the error log reports "
               "the rollback of the recovered transactions completed (MariaDB 10.11, which "
               "may keep listing them in INNODB_TRX long after).", "",
               "Redo past the checkpoint read from: " + "; ".join(hows) + ".", "",
               "Settings (both): " + ", ".join(f"{k}={v}" for k, v in settings.items())
               + ", " + ", ".join(f"{k}={v}" for k, v in KNOBS.items()) + ".", "",
               "Prepare: " + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()) + ".", "")
        rows = []
        for t in targets:
            for lab in labels:
                rows.append([t, lab, fmt_mmm(summ(t, lab, "redo_mb_at_start"), 1),
                             fmt_mmm(summ(t, lab, "redo_mb_at_kill"), 1),
                             fmt_mmm(summ(t, lab, "ready_s"), 2),
                             fmt_mmm(summ(t, lab, "rollback_done_s"), 2)])
            if "kiln" in labels and "MariaDB" in labels:
                k, m = summ(t, "kiln", "ready_s"), summ(t, "MariaDB", "ready_s")
                kr, mr = summ(t, "kiln", "rollback_done_s"), summ(t, "MariaDB", "rollback_done_s")
                rows.append([t, "kiln / MariaDB", "", "", ratio(k and k[0], m and m[0]),
                             ratio(kr and kr[0], mr and mr[0])])
        rep.table(["target MB past checkpoint", "system", "redo after the clean restart (MB)",
                   "redo at kill (MB)",
                   "ready (s)", "rollback done (s)"], rows)
        rep.md("Recovery lines of the error logs (last run of each system):", "", "```")
        for lab in labels:
            last = [x for (t, lb), xs in samples.items() if lb == lab for x in xs if x]
            if last:
                rep.md(f"{lab}:", *last[-1]["log"])
        rep.md("```", "")
        for (t, lab), xs in samples.items():
            row = {"target_mb": t, "system": lab, "runs": len(xs),
                   "runs_ok": sum(1 for x in xs if x)}
            for m in ("redo_mb_at_start", "redo_mb_at_kill", "load_s", "ready_s",
                      "rollback_done_s"):
                v = summ(t, lab, m)
                if v:
                    row[m], row[m + "_min"], row[m + "_max"] = v
            rep.rows.append(row)
        panels = [{"title": title, "xlabel": "redo past the checkpoint at SIGKILL (target, MB)",
                   "ylabel": "seconds after restart, median", "series": {
                       lab: [(t, summ(t, lab, m)) for t in targets] for lab in labels}}
                  for title, m in (("time until queries are answered", "ready_s"),
                                   ("time until rollback is finished", "rollback_done_s"))]
        return rep.write(lambda p: report.plot_lines(p, panels, TITLE), ctx.base)
