"""The experiments of bench/run, in the order `bench/run all` runs them, and the
options the sysbench-driven ones share. Each module has NUMBER, NAME, TITLE, OPTIONS
(flag, type, default, smoke value, help) and run(args) -> result path prefix."""


def sysbench_options(threads, smoke_threads, systems, smoke_systems="", tables=8,
                     table_size=100_000, pool="1G", time=10, warmup=3, runs=3,
                     workloads=None, smoke_workloads=None, redo="512M"):
    opts = [
        ("--threads", str, threads, smoke_threads, "client thread counts, comma-separated"),
        ("--systems", str, systems, smoke_systems or systems, "systems, comma-separated"),
        ("--tables", int, tables, 1, "sysbench tables"),
        ("--table-size", int, table_size, 200, "rows per table"),
        ("--pool", str, pool, "64M", "innodb_buffer_pool_size of every server"),
        ("--redo", str, redo, "64M", "redo log size of every server"),
        ("--time", int, time, 1, "measured seconds per run"),
        ("--warmup", int, warmup, 0, "seconds of the discarded warm-up run before each run"),
        ("--runs", int, runs, 1, "runs per point (median, min, max)"),
    ]
    if workloads:
        opts.append(("--workloads", str, workloads, smoke_workloads or workloads,
                     "sysbench workloads, comma-separated"))
    return opts


def split(text, cast=str):
    return [cast(x) for x in str(text).split(",") if x != ""]


from . import (point_select, rw_buffer_pool, nosql, crash_recovery,  # noqa: E402
               engine_features, rw_cpu, threadpool, sysbench_mix)

EXPERIMENTS = [point_select, rw_buffer_pool, nosql, crash_recovery, engine_features, rw_cpu,
               threadpool, sysbench_mix]
