"""The four sysbench OLTP workloads at 1/8/32 threads, kiln vs MariaDB (issue 5;
formerly bench/sysbench_vs_mariadb.py)."""

from lib.matrixexp import run_matrix

from . import split, sysbench_options

NUMBER = 8
NAME = "sysbench"
TITLE = "sysbench OLTP workloads: kiln vs MariaDB"
OPTIONS = sysbench_options(
    threads="1,8,32", smoke_threads="2", systems="kiln,MariaDB", pool="2G",
    workloads="oltp_point_select,oltp_read_only,oltp_read_write,oltp_write_only")


def run(a):
    return run_matrix(
        a, NAME, TITLE, split(a.workloads), split(a.threads, int), ["unix"],
        ["qps", "tps", "p99_ms"], "sysbench over the Unix socket, durable commits.")
