"""Connection scaling with and without the thread pool (issue 7; formerly
bench/threadpool.py): oltp_point_select and oltp_read_write at 8..4,000 client threads
against kiln and MariaDB, each with one thread per connection and with
thread_handling=pool-of-threads."""

from lib.matrixexp import run_matrix

from . import split, sysbench_options

NUMBER = 7
NAME = "threadpool"
TITLE = "Connection scaling: kiln vs MariaDB, one thread per connection and thread pool"
OPTIONS = sysbench_options(
    threads="8,64,256,1024,4000", smoke_threads="4",
    systems="kiln,kiln pool,MariaDB,MariaDB pool", table_size=10_000,
    workloads="oltp_point_select,oltp_read_write")


def run(a):
    workloads = split(a.workloads)
    metrics = ["qps", "tps", "p99_ms"]
    return run_matrix(
        a, NAME, TITLE, workloads, split(a.threads, int), ["unix"], metrics,
        "sysbench over the Unix socket; thread_pool_size left at its default (the number "
        "of CPUs) on both.")
