"""Connection scaling with and without the thread pool (issue 7; formerly
bench/threadpool.py): oltp_point_select and oltp_read_write at 8..4,000 connections
against kiln and MariaDB, each with one thread per connection and with
thread_handling=pool-of-threads. Two load clients (--client): sysbench (one OS thread
per connection, so at thousands of connections the client's own threads compete for
the cores) and `kiln-bench mysql` (the same statements from --client-threads event
loops multiplexing every connection); both by default, each with its own tables."""

from lib.matrixexp import run_matrix

from . import split, sysbench_options

NUMBER = 7
NAME = "threadpool"
TITLE = "Connection scaling: kiln vs MariaDB, one thread per connection and thread pool"
OPTIONS = sysbench_options(
    threads="8,64,256,1024,4000", smoke_threads="4",
    systems="kiln,kiln pool,MariaDB,MariaDB pool", table_size=10_000,
    workloads="oltp_point_select,oltp_read_write") + [
    ("--client", str, "both", "both", "load client: sysbench, kiln-bench or both"),
    ("--client-threads", int, 2, 1, "event-loop threads of kiln-bench"),
]


def run(a):
    workloads = split(a.workloads)
    metrics = ["qps", "tps", "p99_ms"]
    if a.client not in ("sysbench", "kiln-bench", "both"):
        raise SystemExit(f"--client must be sysbench, kiln-bench or both, not {a.client}")
    clients = ["sysbench", "kiln-bench"] if a.client == "both" else [a.client]
    return run_matrix(
        a, NAME, TITLE, workloads, split(a.threads, int), ["unix"], metrics,
        "Clients over the Unix socket: " + ", ".join(clients) + ". sysbench runs one OS thread "
        "per connection; kiln-bench mysql (docs/kiln-bench.md) runs the same prepared "
        f"statements from {a.client_threads} event-loop thread(s) holding every connection, "
        "and reports its own CPU. thread_pool_size left at its default (the number of CPUs) "
        "on both servers.", clients=clients)
